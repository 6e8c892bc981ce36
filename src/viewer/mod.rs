//! `bisector view`: a window that runs the same frame schedule as `shot` and `bench` through the
//! same `Renderer`, with an orbit camera. (Panels come with the viewer issue.)
//!
//! Controls: drag with the left mouse button to orbit, scroll to zoom, W/A/S/D to move the
//! orbit centre, F to toggle wireframe, R to reset the view, Esc to quit.

pub mod orbit;

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use winit::application::ApplicationHandler;
use winit::event::{ElementState, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::keyboard::{KeyCode, PhysicalKey};
use winit::window::{Window, WindowId};

use crate::gpu::{Gpu, Requirements};
use crate::render::terrain_draw::DEPTH_FORMAT;
use crate::render::{RenderSettings, Renderer};
use crate::terrain::HeightField;
use orbit::Orbit;

/// What the viewer shows and how long it runs.
pub struct ViewerOptions {
    pub field: HeightField,
    pub settings: RenderSettings,
    /// Quit after this many frames (for automation).
    pub frames: Option<u32>,
    /// Write the last frame to this PNG before quitting.
    pub screenshot: Option<PathBuf>,
    /// Wait for the display's refresh (Fifo) instead of presenting as fast as possible.
    pub vsync: bool,
}

/// Opens the window and runs until it is closed (or `frames` have been shown).
pub fn run(options: ViewerOptions) -> anyhow::Result<()> {
    let event_loop = EventLoop::new().map_err(|e| anyhow::anyhow!("cannot open a window ({e}); without a display use `bisector shot` or `bisector bench`"))?;
    let mut app = App { options, state: None, error: None };
    event_loop.run_app(&mut app).context("window event loop")?;
    match app.error {
        Some(error) => Err(error),
        None => Ok(()),
    }
}

struct App {
    options: ViewerOptions,
    state: Option<State>,
    error: Option<anyhow::Error>,
}

struct State {
    window: Arc<Window>,
    gpu: Gpu,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    depth_view: wgpu::TextureView,
    renderer: Renderer,
    orbit: Orbit,
    dragging: bool,
    last_cursor: Option<(f64, f64)>,
    frames_shown: u32,
}

fn depth_view(device: &wgpu::Device, width: u32, height: u32) -> wgpu::TextureView {
    device
        .create_texture(&wgpu::TextureDescriptor {
            label: Some("viewer.depth"),
            size: wgpu::Extent3d { width, height, depth_or_array_layers: 1 },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: DEPTH_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            view_formats: &[],
        })
        .create_view(&Default::default())
}

impl State {
    fn new(event_loop: &ActiveEventLoop, options: &ViewerOptions) -> anyhow::Result<State> {
        let window = Arc::new(
            event_loop
                .create_window(Window::default_attributes().with_title("bisector").with_inner_size(winit::dpi::LogicalSize::new(1280.0, 720.0)))
                .context("cannot create a window; without a display use `bisector shot` or `bisector bench`")?,
        );
        let instance = crate::gpu::create_instance();
        let surface = instance.create_surface(window.clone()).context("cannot create a drawing surface for the window")?;
        let adapter = crate::gpu::request_adapter(&instance, Some(&surface))?;
        let settings = &options.settings;
        let gpu = Gpu::with_adapter(instance, adapter, &Requirements::renderer(settings.max_depth, settings.effective_leaf_capacity() as u64))?;
        let size = window.inner_size();
        let mut config = surface
            .get_default_config(&gpu.adapter, size.width.max(1), size.height.max(1))
            .context("the window surface is not supported by the adapter")?;
        config.format = config.format.add_srgb_suffix();
        config.present_mode = if options.vsync { wgpu::PresentMode::AutoVsync } else { wgpu::PresentMode::AutoNoVsync };
        if surface.get_capabilities(&gpu.adapter).usages.contains(wgpu::TextureUsages::COPY_SRC) {
            config.usage |= wgpu::TextureUsages::COPY_SRC;
        }
        surface.configure(&gpu.device, &config);
        let renderer = Renderer::new(&gpu, &options.field, settings.clone(), config.format);
        let orbit = Orbit::framing(renderer.data_bounds_m(), renderer.height_range_m().1 as f64);
        Ok(State {
            depth_view: depth_view(&gpu.device, config.width, config.height),
            window,
            gpu,
            surface,
            config,
            renderer,
            orbit,
            dragging: false,
            last_cursor: None,
            frames_shown: 0,
        })
    }

    fn resize(&mut self, width: u32, height: u32) {
        if width == 0 || height == 0 {
            return;
        }
        self.config.width = width;
        self.config.height = height;
        self.surface.configure(&self.gpu.device, &self.config);
        self.depth_view = depth_view(&self.gpu.device, width, height);
    }

    /// Renders and presents one frame; returns the frame's image when `capture` is set.
    fn frame(&mut self, capture: bool) -> anyhow::Result<Option<image::RgbaImage>> {
        let frame = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(frame) => frame,
            wgpu::CurrentSurfaceTexture::Suboptimal(frame) => {
                self.surface.configure(&self.gpu.device, &self.config);
                frame
            }
            wgpu::CurrentSurfaceTexture::Timeout | wgpu::CurrentSurfaceTexture::Occluded => return Ok(None),
            wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost => {
                self.surface.configure(&self.gpu.device, &self.config);
                return Ok(None);
            }
            other => anyhow::bail!("the window surface failed: {other:?}"),
        };
        let view = frame.texture.create_view(&wgpu::TextureViewDescriptor { format: Some(self.config.format), ..Default::default() });
        let mut encoder = self.gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("viewer.frame") });
        let camera = self.orbit.camera();
        let size = (self.config.width, self.config.height);
        self.renderer.record_frame(&self.gpu.queue, &mut encoder, &camera, size, &view, &self.depth_view);
        self.gpu.queue.submit([encoder.finish()]);
        self.renderer.end_frame();
        let _ = self.renderer.take_timings(&self.gpu.queue);
        let image = if capture && self.config.usage.contains(wgpu::TextureUsages::COPY_SRC) {
            let mut pixels = crate::gpu::readback::read_texture_rgba8(&self.gpu.device, &self.gpu.queue, &frame.texture, size.0, size.1);
            if matches!(self.config.format, wgpu::TextureFormat::Bgra8UnormSrgb | wgpu::TextureFormat::Bgra8Unorm) {
                pixels.chunks_mut(4).for_each(|p| p.swap(0, 2));
            }
            image::RgbaImage::from_raw(size.0, size.1, pixels)
        } else {
            None
        };
        self.window.pre_present_notify();
        self.gpu.queue.present(frame);
        self.frames_shown += 1;
        Ok(image)
    }
}

impl App {
    fn fail(&mut self, event_loop: &ActiveEventLoop, error: anyhow::Error) {
        self.error = Some(error);
        event_loop.exit();
    }
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.state.is_none() {
            match State::new(event_loop, &self.options) {
                Ok(state) => self.state = Some(state),
                Err(error) => self.fail(event_loop, error),
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        let Some(state) = self.state.as_mut() else { return };
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::Resized(size) => state.resize(size.width, size.height),
            WindowEvent::KeyboardInput { event, .. } if event.state == ElementState::Pressed => {
                let PhysicalKey::Code(code) = event.physical_key else { return };
                let step = 0.05 * state.orbit.distance_m;
                match code {
                    KeyCode::Escape => event_loop.exit(),
                    KeyCode::KeyW => state.orbit.pan(step, 0.0),
                    KeyCode::KeyS => state.orbit.pan(-step, 0.0),
                    KeyCode::KeyA => state.orbit.pan(0.0, step),
                    KeyCode::KeyD => state.orbit.pan(0.0, -step),
                    KeyCode::KeyF => state.renderer.settings.wireframe = !state.renderer.settings.wireframe,
                    KeyCode::KeyR => state.orbit = Orbit::framing(state.renderer.data_bounds_m(), state.renderer.height_range_m().1 as f64),
                    _ => {}
                }
            }
            WindowEvent::MouseInput { button: MouseButton::Left, state: pressed, .. } => {
                state.dragging = pressed == ElementState::Pressed;
                state.last_cursor = None;
            }
            WindowEvent::CursorMoved { position, .. } if state.dragging => {
                if let Some((x, y)) = state.last_cursor {
                    state.orbit.rotate((position.x - x) * 0.005, (position.y - y) * 0.005);
                }
                state.last_cursor = Some((position.x, position.y));
            }
            WindowEvent::MouseWheel { delta, .. } => {
                let lines = match delta {
                    MouseScrollDelta::LineDelta(_, y) => y as f64,
                    MouseScrollDelta::PixelDelta(p) => p.y / 40.0,
                };
                state.orbit.zoom(0.9f64.powf(lines));
            }
            WindowEvent::RedrawRequested => {
                let last = self.options.frames.is_some_and(|n| state.frames_shown + 1 >= n);
                match state.frame(last && self.options.screenshot.is_some()) {
                    Ok(image) => {
                        if let (Some(image), Some(path)) = (image, self.options.screenshot.as_ref()) {
                            if let Err(error) = crate::cli::write_png(&image, path) {
                                return self.fail(event_loop, error);
                            }
                        }
                        if last {
                            if self.options.screenshot.is_some() && !self.options.screenshot.as_ref().is_some_and(|p| p.exists()) {
                                return self.fail(event_loop, anyhow::anyhow!("--screenshot: this window surface cannot be read back"));
                            }
                            event_loop.exit();
                        }
                    }
                    Err(error) => self.fail(event_loop, error),
                }
            }
            _ => {}
        }
    }

    fn about_to_wait(&mut self, _event_loop: &ActiveEventLoop) {
        if let Some(state) = self.state.as_ref() {
            state.window.request_redraw();
        }
    }
}
