//! Embedding bisector: a wgpu application that owns its window, surface and render pass draws the
//! globe (`cargo run --release --example embed`) or the flat terrain (`... -- flat`) with its own
//! camera; a number stops after that many frames. Each frame: `record_compute` (LOD update, counts,
//! decode, the globe's atmosphere tables), the application's render pass in which `draw` adds the
//! terrain, `record_sky` (the globe's sky where the pass left the far depth), `record_finish`,
//! submit, `after_submit`.

use bisector::flat::{camera::Camera, Renderer};
use bisector::globe::cache::tile_cache::{Producer, TileCache};
use bisector::globe::{camera::GlobeCamera, renderer::GlobeRenderer};
use bisector::gpu::target::{begin_draw_pass, depth_view};
use bisector::gpu::Gpu;
use bisector::schedule::{FrameTarget, LebScene};
use std::sync::Arc;
use winit::application::ApplicationHandler;
use winit::event::WindowEvent;
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::window::{Window, WindowId};

enum Terrain {
    Globe(Box<GlobeRenderer>),
    Flat(Box<Renderer>),
}

struct State {
    window: Arc<Window>,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    gpu: Gpu,
    depth: wgpu::TextureView,
    terrain: Terrain,
}

struct App {
    flat: bool,
    frames_left: Option<u32>,
    start: std::time::Instant,
    state: Option<State>,
}

/// One frame of any scene: bisector's passes around the application's own render pass.
fn frame<S: LebScene>(
    scene: &mut S,
    camera: &S::Camera,
    gpu: &Gpu,
    color: &wgpu::TextureView,
    depth: &wgpu::TextureView,
    size_px: (u32, u32),
) {
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    scene.record_compute(gpu, &mut encoder, camera, size_px);
    let load = wgpu::LoadOp::Clear(scene.clear_color());
    {
        // The application's pass: any colour attachment of the format the scene was built for, and
        // a DEPTH_FORMAT depth attachment cleared to 0 (reverse Z), as this helper begins it.
        let mut pass = begin_draw_pass(&mut encoder, "application pass", color, depth, load, None);
        scene.draw(&mut pass);
        // ... the application's own draws (ships, instruments) go here, with the same depth.
    }
    // The scene's sky (the globe's) over the pixels left at the far depth, which the pass kept.
    scene.record_sky(&mut encoder, &FrameTarget { size_px, color, depth });
    scene.record_finish(&mut encoder);
    gpu.queue.submit([encoder.finish()]);
    scene.after_submit();
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        let window = Arc::new(event_loop.create_window(Window::default_attributes().with_title("bisector embedded")).expect("a window"));
        let instance = bisector::gpu::create_instance();
        let surface = instance.create_surface(window.clone()).expect("a surface");
        let adapter = bisector::gpu::request_adapter(&instance, Some(&surface)).expect("an adapter");
        // The device must meet the terrain's limits: ask for them with the application's own.
        let (globe_settings, flat_settings) = (Default::default(), bisector::flat::RenderSettings::default());
        let field = bisector::terrain::procedural::generate(1, 1025, 20480.0);
        let requirements = if self.flat {
            bisector::flat::requirements(&flat_settings, field.samples_per_side)
        } else {
            bisector::globe::renderer::requirements(&globe_settings, 256)
        };
        let gpu = Gpu::with_adapter(instance, adapter, &requirements).expect("a device");
        let size = window.inner_size();
        let mut config = surface.get_default_config(&gpu.adapter, size.width.max(1), size.height.max(1)).expect("a surface format");
        config.format = config.format.add_srgb_suffix();
        surface.configure(&gpu.device, &config);
        let terrain = if self.flat {
            Terrain::Flat(Box::new(Renderer::new(&gpu, &field, flat_settings, config.format)))
        } else {
            let cache = TileCache::new(&gpu, Default::default(), Producer::Procedural { seed: 1 }).expect("a tile cache");
            Terrain::Globe(Box::new(GlobeRenderer::new(&gpu, globe_settings, config.format, cache)))
        };
        let depth = depth_view(&gpu.device, config.width, config.height);
        self.state = Some(State { window, surface, config, gpu, depth, terrain });
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        let Some(s) = self.state.as_mut() else { return };
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::Resized(size) => {
                (s.config.width, s.config.height) = (size.width.max(1), size.height.max(1));
                s.surface.configure(&s.gpu.device, &s.config);
                s.depth = depth_view(&s.gpu.device, s.config.width, s.config.height);
            }
            WindowEvent::RedrawRequested => {
                let (wgpu::CurrentSurfaceTexture::Success(texture) | wgpu::CurrentSurfaceTexture::Suboptimal(texture)) =
                    s.surface.get_current_texture()
                else {
                    return s.surface.configure(&s.gpu.device, &s.config);
                };
                let color = texture.texture.create_view(&Default::default());
                let (size, t) = ((s.config.width, s.config.height), self.start.elapsed().as_secs_f64());
                match &mut s.terrain {
                    // The application's camera: 3 km up, circling slowly over Taiwan's east coast.
                    Terrain::Globe(globe) => {
                        let camera = GlobeCamera::at_lon_lat(121.65, 24.2, 3000.0, 10.0 * t, -20.0, 60.0);
                        frame(globe.as_mut(), &camera, &s.gpu, &color, &s.depth, size);
                    }
                    Terrain::Flat(flat) => {
                        let (x, y) = (10240.0 + 8000.0 * (0.1 * t).cos(), 10240.0 + 8000.0 * (0.1 * t).sin());
                        let camera = Camera::look_at(glam::DVec3::new(x, y, 2500.0), glam::DVec3::new(10240.0, 10240.0, 300.0), 50.0);
                        frame(flat.as_mut(), &camera, &s.gpu, &color, &s.depth, size);
                    }
                }
                s.gpu.queue.present(texture);
                self.frames_left = self.frames_left.map(|n| n.saturating_sub(1));
                if self.frames_left == Some(0) {
                    event_loop.exit();
                }
            }
            _ => {}
        }
    }

    fn about_to_wait(&mut self, _event_loop: &ActiveEventLoop) {
        if let Some(s) = &self.state {
            s.window.request_redraw();
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flat = args.first().is_some_and(|a| a == "flat");
    let frames_left = args.iter().find_map(|a| a.parse().ok());
    let mut app = App { flat, frames_left, start: std::time::Instant::now(), state: None };
    EventLoop::new().expect("an event loop").run_app(&mut app).expect("the event loop");
}
