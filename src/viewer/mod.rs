//! `bisector view`: a window that runs the same frame schedule as `shot` and `bench` through the
//! same `Renderer` (or, for `--terrain planet...`, the same `GlobeRenderer` and `TileCache`; see
//! `scene.rs`), with an egui side panel (Camera, LOD, Stats, Kernel lab, and Tile cache on the
//! globe) drawn on top in the same frame.
//!
//! Keys: C switches orbit / free flight; orbit: drag to orbit, scroll to zoom, W/A/S/D to move;
//! flight: W/A/S/D/Q/E to move, drag to look, Shift fast, scroll for speed; F wireframe, L freeze
//! LOD, R reset, F1 panel, F12 screenshot, Esc quit. On the globe's orbit (`globe_rig.rs`) drag
//! moves the planet, right drag or Shift drag turns and tilts, Q/E turn, T/G tilt.

pub mod bookmarks;
pub mod config;
pub mod flight;
pub mod globe_panels;
pub mod globe_rig;
pub mod kernel_lab;
pub mod orbit;
pub mod panels;
pub mod recorder;
pub mod rig;
pub mod scene;
pub mod stats;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use winit::application::ApplicationHandler;
use winit::event::{ElementState, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, EventLoop};
use winit::keyboard::{KeyCode, PhysicalKey};
use winit::window::{Window, WindowId};

use crate::flat::camera::Camera;
use crate::flat::RenderSettings;
use crate::globe::cache::tile_cache::{TileCache, TileCacheConfig};
use crate::globe::camera::GlobeCamera;
use crate::globe::ground::Ground;
use crate::globe::renderer::GlobeSettings;
use crate::gpu::errors::ErrorLog;
use crate::gpu::target::depth_view;
use crate::gpu::Gpu;
use crate::schedule::FrameTarget;
use crate::terrain::HeightField;
use bookmarks::{Bookmark, Bookmarks};
use config::{PanelState, SavedState, StateFile};
use flight::Move;
use globe_panels::GlobeData;
use globe_rig::Turn;
use panels::{Action, HeightfieldData, LodSettings, PanelData, SceneData, UiState};
use recorder::PathRecorder;
use scene::{GlobeScene, HeightfieldScene, Scene};
use stats::{StatsReadback, TimingHistory};

/// What the viewer draws.
pub enum SceneOptions {
    /// A flat height field; the first camera flies at `camera` where given.
    Heightfield { field: HeightField, settings: RenderSettings, camera: Option<Camera> },
    /// The globe, its heights served by a tile cache of `cache` sizes filled from `ground` (whose
    /// CPU heights also keep the camera above the surface); drawn from a bisector pool of `pool`
    /// where given; the first camera is `camera` where given (`GlobeRig::starting_at`).
    Globe {
        settings: GlobeSettings,
        pool: Option<crate::pool::PoolSettings>,
        ground: Ground,
        cache: TileCacheConfig,
        camera: Option<GlobeCamera>,
    },
}

impl SceneOptions {
    /// Whether the first camera was given (`view --camera`).
    fn has_camera(&self) -> bool {
        match self {
            SceneOptions::Heightfield { camera, .. } => camera.is_some(),
            SceneOptions::Globe { camera, .. } => camera.is_some(),
        }
    }
}

/// What the viewer shows and how long it runs.
pub struct ViewerOptions {
    pub scene: SceneOptions,
    /// Quit after this many frames (for automation).
    pub frames: Option<u32>,
    /// Write the last frame (with the panel) to this PNG before quitting.
    pub screenshot: Option<PathBuf>,
    /// Wait for the display's refresh (Fifo) instead of presenting as fast as possible.
    pub vsync: bool,
}

/// Why the viewer stopped: one line for the user.
#[derive(Debug, thiserror::Error)]
pub enum ViewerError {
    #[error("cannot open a window ({0}); without a display use `bisector shot` or `bisector bench`")]
    NoDisplay(String),
    #[error("window event loop: {0}")]
    EventLoop(#[from] winit::error::EventLoopError),
    #[error("cannot create a drawing surface for the window: {0}")]
    Surface(#[from] wgpu::CreateSurfaceError),
    #[error("the window surface is not supported by the adapter")]
    SurfaceUnsupported,
    #[error("the window surface failed: {0}")]
    SurfaceFailed(String),
    #[error(transparent)]
    Gpu(#[from] crate::gpu::GpuError),
    #[error(transparent)]
    TileCache(#[from] crate::globe::cache::tile_cache::CacheError),
    #[error(transparent)]
    Pool(#[from] crate::pool::gpu::PoolError),
    #[error("GPU: the device was lost ({0}); restart the viewer, or use `bisector shot` to check the driver")]
    DeviceLost(String),
    #[error("--screenshot: this window surface cannot be read back")]
    ScreenshotUnreadable,
    #[error(transparent)]
    Screenshot(#[from] crate::cli::ArgError),
}

/// Opens the window and runs until it is closed (or `frames` have been shown).
pub fn run(options: ViewerOptions) -> Result<(), ViewerError> {
    let event_loop = EventLoop::new().map_err(|e| ViewerError::NoDisplay(e.to_string()))?;
    let mut app = App { options, state: None, error: None };
    event_loop.run_app(&mut app)?;
    match app.error {
        Some(error) => Err(error),
        None => Ok(()),
    }
}

/// UTC date and time as `YYYYMMDD-HHMMSS` (screenshot and recording names).
pub fn timestamp_utc() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs()) as i64;
    let (days, rest) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (year, month, day) = crate::bench::run::civil_from_days(days);
    format!("{year:04}{month:02}{day:02}-{:02}{:02}{:02}", rest / 3600, rest / 60 % 60, rest % 60)
}

/// `bisector-YYYYMMDD-HHMMSS.png` in the current folder, with `-N` added if that exists.
fn screenshot_name() -> PathBuf {
    let stem = format!("bisector-{}", timestamp_utc());
    std::iter::once(PathBuf::from(format!("{stem}.png")))
        .chain((1..).map(|n| PathBuf::from(format!("{stem}-{n}.png"))))
        .find(|p| !p.exists())
        .expect("a free name")
}

struct App {
    options: ViewerOptions,
    state: Option<State>,
    error: Option<ViewerError>,
}

/// egui's context, its winit input state and its wgpu renderer.
struct Gui {
    ctx: egui::Context,
    input: egui_winit::State,
    renderer: egui_wgpu::Renderer,
}

struct State {
    window: Arc<Window>,
    gpu: Gpu,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    depth_view: wgpu::TextureView,
    scene: Scene,
    gui: Gui,
    ui: UiState,
    panels: PanelState,
    state_file: StateFile,
    bookmarks: Bookmarks,
    recorder: PathRecorder,
    readback: StatsReadback,
    history: TimingHistory,
    keys: HashSet<KeyCode>,
    /// The mouse button dragging the view, if any.
    dragging: Option<MouseButton>,
    last_cursor: Option<(f64, f64)>,
    frames_shown: u32,
    start: Instant,
    last_frame: Instant,
    screenshot_requested: bool,
    device_lost: Arc<Mutex<Option<String>>>,
    /// The device's uncaptured errors (validation, out of memory): shown and logged, not fatal.
    gpu_errors: ErrorLog,
    /// GPU errors reported so far.
    gpu_error_count: u64,
    /// Destroy the device after this many frames (`FAULT_DESTROY_DEVICE_ENV`, for tests).
    destroy_device_after: Option<u32>,
    /// Cause a validation error after this many frames (`FAULT_GPU_ERROR_ENV`, for tests).
    gpu_error_after: Option<u32>,
}

/// Environment variable that makes the viewer destroy its GPU device after N frames, so tests
/// can check that a lost device gives one clear message and a non-zero exit.
pub const FAULT_DESTROY_DEVICE_ENV: &str = "BISECTOR_FAULT_DESTROY_DEVICE_AFTER";

/// Environment variable that makes the viewer cause one GPU validation error after N frames, so
/// tests can check that it is shown and logged, the state saved, and the viewer goes on.
pub const FAULT_GPU_ERROR_ENV: &str = "BISECTOR_FAULT_GPU_ERROR_AFTER";

impl State {
    fn new(event_loop: &ActiveEventLoop, options: &ViewerOptions) -> Result<State, ViewerError> {
        let window = Arc::new(
            event_loop
                .create_window(
                    Window::default_attributes().with_title("bisector").with_inner_size(winit::dpi::LogicalSize::new(1280.0, 720.0)),
                )
                .map_err(|e| ViewerError::NoDisplay(e.to_string()))?,
        );
        let instance = crate::gpu::create_instance();
        let surface = instance.create_surface(window.clone())?;
        let adapter = crate::gpu::request_adapter(&instance, Some(&surface))?;
        let mut requirements = match &options.scene {
            SceneOptions::Heightfield { field, settings, .. } => crate::flat::requirements(settings, field.samples_per_side),
            SceneOptions::Globe { settings, pool: None, cache, .. } => crate::globe::renderer::requirements(settings, cache.tiles),
            SceneOptions::Globe { settings, pool: Some(pool), cache, .. } => {
                crate::globe::pool_scene::requirements_for(pool, cache.tiles, settings.raster)
            }
        };
        kernel_lab::request_optional(&mut requirements, &adapter);
        let gpu = Gpu::with_adapter(instance, adapter, &requirements)?;
        let gpu_errors = ErrorLog::default();
        gpu_errors.install(&gpu.device);
        let device_lost = Arc::new(Mutex::new(None));
        let lost = device_lost.clone();
        // Also called when the device is dropped at exit, when nobody reads the flag any more.
        gpu.device.set_device_lost_callback(move |reason, message| {
            let what = if message.is_empty() { format!("{reason:?}") } else { format!("{reason:?}: {message}") };
            *lost.lock().unwrap_or_else(|e| e.into_inner()) = Some(what);
        });
        let size = window.inner_size();
        let mut config =
            surface.get_default_config(&gpu.adapter, size.width.max(1), size.height.max(1)).ok_or(ViewerError::SurfaceUnsupported)?;
        config.format = config.format.add_srgb_suffix();
        // egui blends in gamma space: it draws through a view without the sRGB suffix.
        config.view_formats = vec![config.format.remove_srgb_suffix()];
        config.present_mode = if options.vsync { wgpu::PresentMode::AutoVsync } else { wgpu::PresentMode::AutoNoVsync };
        if surface.get_capabilities(&gpu.adapter).usages.contains(wgpu::TextureUsages::COPY_SRC) {
            config.usage |= wgpu::TextureUsages::COPY_SRC;
        }
        surface.configure(&gpu.device, &config);
        let (mut scene, mut ui) = match &options.scene {
            SceneOptions::Heightfield { field, settings, camera } => {
                let scene = HeightfieldScene::new(&gpu, field, settings.clone(), config.format, camera.as_ref());
                let mut ui = UiState::new(settings);
                let [west, south, east, north] = scene.renderer.data_bounds_m().map(f64::from);
                ui.goto = [(0.5 * (west + east)).round(), (0.5 * (south + north)).round(), 500.0];
                (Scene::Heightfield(Box::new(scene)), ui)
            }
            SceneOptions::Globe { settings, pool, ground, cache, camera } => {
                let cache = TileCache::new(&gpu, cache.clone(), ground.producer())?;
                let scene = GlobeScene::new(&gpu, settings.clone(), *pool, cache, ground.clone(), config.format, camera.as_ref())?;
                let mut ui = UiState::with_lod(LodSettings::from_globe(settings));
                let (lon_deg, lat_deg) = scene.rig.orbit.target_lon_lat_deg();
                ui.goto = [(lon_deg * 100.0).round() / 100.0, (lat_deg * 100.0).round() / 100.0, 10_000.0];
                (Scene::Globe(Box::new(scene)), ui)
            }
        };

        let dir = config::config_dir();
        let (saved, state_file) = config::load_state(dir.as_ref().map(|d| d.join(config::STATE_FILE)));
        let bookmarks = Bookmarks::load(dir.as_ref().map(|d| d.join(bookmarks::BOOKMARKS_FILE)));
        let ctx = egui::Context::default();
        if let Some(memory) = saved.egui {
            ctx.memory_mut(|m| *m = memory);
        }
        let max_texture_side = gpu.device.limits().max_texture_dimension_2d as usize;
        let input = egui_winit::State::new(
            ctx.clone(),
            egui::ViewportId::ROOT,
            &window,
            Some(window.scale_factor() as f32),
            window.theme(),
            Some(max_texture_side),
        );
        let gui = Gui {
            ctx,
            input,
            renderer: egui_wgpu::Renderer::new(&gpu.device, config.format.remove_srgb_suffix(), egui_wgpu::RendererOptions::default()),
        };
        let panels = saved.panels;
        scene.set_speed_scale(panels.speed_scale);
        // The saved camera mode, unless the first camera was given (its own mode then).
        if !options.scene.has_camera() {
            scene.set_mode(panels.camera_mode);
        }
        ui.bookmark_name = format!("view {}", bookmarks.list.len() + 1);
        ui.kernel_lab = kernel_lab::KernelLabState::new(panels.kernel_lab.clone());
        let now = Instant::now();
        Ok(State {
            depth_view: depth_view(&gpu.device, config.width, config.height),
            window,
            gpu,
            surface,
            config,
            scene,
            gui,
            ui,
            history: TimingHistory::new(panels.plot_frames),
            panels,
            state_file,
            bookmarks,
            recorder: PathRecorder::default(),
            readback: StatsReadback::default(),
            keys: HashSet::new(),
            dragging: None,
            last_cursor: None,
            frames_shown: 0,
            start: now,
            last_frame: now,
            screenshot_requested: false,
            device_lost,
            gpu_errors,
            gpu_error_count: 0,
            destroy_device_after: std::env::var(FAULT_DESTROY_DEVICE_ENV).ok().and_then(|v| v.parse().ok()),
            gpu_error_after: std::env::var(FAULT_GPU_ERROR_ENV).ok().and_then(|v| v.parse().ok()),
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

    /// Shows the GPU errors since the last frame in the panel's status line and on stderr, and
    /// saves the panel state on the first of a burst (a broken pass repeats its error every frame).
    fn report_gpu_errors(&mut self) {
        let errors = self.gpu_errors.take();
        let Some(last) = errors.last() else { return };
        let first_of_burst = !self.ui.status.starts_with("GPU ");
        self.gpu_error_count += errors.len() as u64;
        for message in errors.iter().take(3) {
            eprintln!("bisector: GPU {message}");
        }
        self.ui.status = format!("GPU {last} ({} so far; the viewer goes on, the state is saved)", self.gpu_error_count);
        if first_of_burst {
            self.save_state();
        }
    }

    /// Writes the panel state (not over a malformed file).
    fn save_state(&mut self) {
        self.panels.camera_mode = self.scene.mode();
        self.panels.speed_scale = self.scene.speed_scale();
        self.panels.kernel_lab = self.ui.kernel_lab.settings.clone();
        let saved = SavedState { panels: self.panels.clone(), egui: Some(self.gui.ctx.memory(|m| m.clone())) };
        if let Err(error) = config::save_state(&self.state_file, &saved) {
            eprintln!("warning: {error}");
        }
    }

    /// Movement from the keys held (ignored while egui has the keyboard).
    fn held_move(&self) -> Move {
        let held = |k| self.keys.contains(&k) as i32 as f64;
        Move {
            forward: held(KeyCode::KeyW) - held(KeyCode::KeyS),
            right: held(KeyCode::KeyD) - held(KeyCode::KeyA),
            up: held(KeyCode::KeyE) - held(KeyCode::KeyQ),
            fast: self.keys.contains(&KeyCode::ShiftLeft) || self.keys.contains(&KeyCode::ShiftRight),
        }
    }

    /// The globe orbit's heading (Q/E) and tilt (T/G) keys held.
    fn held_turn(&self) -> Turn {
        let held = |k| self.keys.contains(&k) as i32 as f64;
        Turn { heading: held(KeyCode::KeyE) - held(KeyCode::KeyQ), tilt: held(KeyCode::KeyT) - held(KeyCode::KeyG) }
    }

    /// Moves the camera by the keys held for `dt_s` seconds.
    fn move_camera(&mut self, dt_s: f64) {
        let (input, turn) = (self.held_move(), self.held_turn());
        self.scene.step(input, turn, dt_s);
    }

    /// Applies one action; returns false when the viewer should quit.
    fn apply(&mut self, action: Action) -> bool {
        match action {
            Action::Quit => return false,
            Action::Screenshot => self.screenshot_requested = true,
            Action::TogglePanel => self.panels.show_panel = !self.panels.show_panel,
            Action::Reset => self.scene.reset(),
            Action::SetMode(mode) => self.scene.set_mode(mode),
            Action::GoTo { x_m, y_m, height_m } => {
                if let Scene::Heightfield(s) = &mut self.scene {
                    s.rig.go_to(x_m, y_m, height_m, &s.field);
                }
            }
            Action::GoToLonLat { lon_deg, lat_deg, altitude_m } => {
                if let Scene::Globe(s) = &mut self.scene {
                    s.rig.go_to(lon_deg, lat_deg, altitude_m);
                }
            }
            Action::AddBookmark(name) => {
                if let Scene::Heightfield(s) = &self.scene {
                    let name = if name.trim().is_empty() { format!("view {}", self.bookmarks.list.len() + 1) } else { name };
                    self.bookmarks.list.push(Bookmark::of_camera(&name, &s.rig.camera()));
                    self.ui.bookmark_name = format!("view {}", self.bookmarks.list.len() + 1);
                    self.ui.status = format!("added bookmark \"{name}\"; Save bookmarks keeps it");
                }
            }
            Action::ApplyBookmark(i) => {
                if let (Some(mark), Scene::Heightfield(s)) = (self.bookmarks.list.get(i), &mut self.scene) {
                    s.rig.fly_to(&mark.camera());
                }
            }
            Action::DeleteBookmark(i) => {
                if i < self.bookmarks.list.len() {
                    self.bookmarks.list.remove(i);
                }
            }
            Action::SaveBookmarks => self.ui.status = self.bookmarks.save().unwrap_or_else(|e| e.to_string()),
            Action::StartRecording => {
                self.recorder.start();
                self.ui.path_file = format!("flight-{}.json", timestamp_utc());
                self.ui.status = "recording the camera; Stop, then Save path".into();
            }
            Action::StopRecording => self.recorder.stop(),
            Action::SavePath(file) => {
                self.ui.status = self.recorder.save(Path::new(&file)).unwrap_or_else(|e| e.to_string());
                eprintln!("bisector: {}", self.ui.status);
            }
            Action::Rebuild => self.rebuild(),
            Action::RunKernel(request) => {
                let kernel = request.kernel();
                // The kernel starts on an idle GPU; the frame waits for it (the panel says so).
                self.gpu.wait_idle();
                let outcome = kernel_lab::run(&self.gpu, &request);
                if let Err(why) = &outcome {
                    eprintln!("bisector: kernel {}: {why}", kernel.label());
                }
                self.ui.kernel_lab.record(kernel, outcome);
            }
            Action::SetVsync(vsync) => {
                self.config.present_mode = if vsync { wgpu::PresentMode::AutoVsync } else { wgpu::PresentMode::AutoNoVsync };
                self.surface.configure(&self.gpu.device, &self.config);
            }
        }
        true
    }

    /// Rebuilds the renderer at the LOD panel's max depth (the tree starts over).
    fn rebuild(&mut self) {
        let depth = self.ui.lod.max_depth.clamp(crate::cbt::cpu::MIN_MAX_DEPTH, self.ui.max_depth_limit);
        self.scene.rebuild(&self.gpu, depth, self.config.format);
        self.ui.lod.max_depth = depth;
        self.ui.renderer_max_depth = depth;
        self.readback = StatsReadback::default();
        self.history.clear();
        self.ui.status = format!("rebuilt the tree at max depth {depth}");
    }

    /// Runs the panel; returns false when an action asks to quit.
    fn run_ui(&mut self) -> (egui::FullOutput, bool) {
        let raw = self.gui.input.take_egui_input(&self.window);
        let timestamps = self.gpu.device.features().contains(wgpu::Features::TIMESTAMP_QUERY);
        let mut actions = Vec::new();
        let output = {
            let (ui, panels) = (&mut self.ui, &mut self.panels);
            let (scene, triangles_per_leaf) = match &self.scene {
                Scene::Heightfield(s) => (
                    SceneData::Heightfield(HeightfieldData {
                        camera: s.rig.camera(),
                        height_above_ground_m: s.height_above_ground_m(),
                        bookmarks: &self.bookmarks.list,
                        recording: self.recorder.recording,
                        recorded_poses: self.recorder.len(),
                        recorded_s: self.recorder.duration_s(),
                    }),
                    1,
                ),
                Scene::Globe(s) => (
                    SceneData::Globe(GlobeData {
                        camera: s.rig.camera(),
                        orbit: s.rig.orbit,
                        ship: s.rig.ship,
                        cache: s.renderer.cache().stats(),
                        http: globe_panels::http_stats(),
                        pool: s.renderer.pool_settings().map(|p| Box::new(globe_panels::PoolData::new(p, s.pool_readback.latest.clone()))),
                    }),
                    s.renderer.triangles_per_leaf(),
                ),
            };
            let data = PanelData {
                mode: self.scene.mode(),
                scene,
                stats: self.readback.latest.as_ref(),
                history: &self.history,
                triangles_per_leaf,
                timestamps,
                vsync: matches!(self.config.present_mode, wgpu::PresentMode::AutoVsync | wgpu::PresentMode::Fifo),
            };
            ui.panel_left_pt = None;
            self.gui.ctx.run_ui(raw, |root| {
                if panels.show_panel {
                    actions = panels::panel_ui(root, ui, panels, &data);
                }
            })
        };
        self.scene.set_speed_scale(self.panels.speed_scale);
        self.history.capacity = self.panels.plot_frames.max(2);
        let mut go_on = true;
        for action in actions {
            go_on &= self.apply(action);
        }
        self.panels.speed_scale = self.scene.speed_scale();
        (output, go_on)
    }

    /// Renders and presents one frame (terrain, then the panel); returns the frame's image when
    /// `capture` is set, and whether to go on.
    fn frame(&mut self, capture: bool) -> Result<(Option<image::RgbaImage>, bool), ViewerError> {
        if let Some(message) = self.device_lost.lock().unwrap_or_else(|e| e.into_inner()).take() {
            return Err(ViewerError::DeviceLost(message));
        }
        if self.destroy_device_after.is_some_and(|n| self.frames_shown >= n) {
            // Fault injection for the tests (BISECTOR_FAULT_DESTROY_DEVICE_AFTER).
            self.gpu.device.destroy();
            let _ = self.gpu.device.poll(wgpu::PollType::Poll);
            self.destroy_device_after = None;
            return Ok((None, true));
        }
        if self.gpu_error_after.is_some_and(|n| self.frames_shown >= n) {
            // Fault injection for the tests (BISECTOR_FAULT_GPU_ERROR_AFTER): a buffer both
            // mappable for reading and for writing is invalid without a native-only feature.
            let usage = wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::MAP_WRITE;
            let _ =
                self.gpu.device.create_buffer(&wgpu::BufferDescriptor { label: Some("fault"), size: 4, usage, mapped_at_creation: false });
            self.gpu_error_after = None;
        }
        self.report_gpu_errors();
        let now = Instant::now();
        let dt_s = (now - self.last_frame).as_secs_f64().min(0.25);
        self.history.add_cpu(self.scene.frame_index(), (now - self.last_frame).as_secs_f64() * 1e3);
        self.last_frame = now;

        let frame = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(frame) => frame,
            wgpu::CurrentSurfaceTexture::Suboptimal(frame) => {
                self.surface.configure(&self.gpu.device, &self.config);
                frame
            }
            wgpu::CurrentSurfaceTexture::Timeout | wgpu::CurrentSurfaceTexture::Occluded => return Ok((None, true)),
            wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost => {
                let size = self.window.inner_size();
                self.resize(size.width, size.height);
                self.surface.configure(&self.gpu.device, &self.config);
                return Ok((None, true));
            }
            other => return Err(ViewerError::SurfaceFailed(format!("{other:?}"))),
        };

        self.move_camera(dt_s);
        let (output, go_on) = self.run_ui();
        self.scene.apply_lod(&self.ui.lod);
        if let Scene::Heightfield(s) = &self.scene {
            self.recorder.push((now - self.start).as_secs_f64(), &s.rig.camera());
        }

        let view = frame.texture.create_view(&wgpu::TextureViewDescriptor { format: Some(self.config.format), ..Default::default() });
        let mut encoder = self.gpu.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: Some("viewer.frame") });
        let size = (self.config.width, self.config.height);
        // The 3-D view uses the window left of the panel: the globe is centred in what is seen.
        let pixels_per_point = self.gui.ctx.pixels_per_point();
        let view_width_px = self.ui.panel_left_pt.map_or(size.0, |left| ((left * pixels_per_point).round() as u32).clamp(1, size.0));
        let target = FrameTarget { size_px: (view_width_px, size.1), color: &view, depth: &self.depth_view };
        let slot = self.scene.record_frame(&self.gpu, &mut encoder, &target, &mut self.readback);
        let gui_view = frame
            .texture
            .create_view(&wgpu::TextureViewDescriptor { format: Some(self.config.format.remove_srgb_suffix()), ..Default::default() });
        self.record_gui(&mut encoder, &gui_view, output);
        self.gpu.queue.submit([encoder.finish()]);
        if let Some(slot) = slot {
            self.readback.map(slot);
        }
        self.scene.after_submit();
        while let Some(timings) = self.scene.take_timings(&self.gpu.queue) {
            self.history.add_gpu(&timings);
        }
        let _ = self.gpu.device.poll(wgpu::PollType::Poll);
        self.readback.collect();

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
        Ok((image, go_on))
    }

    /// Tessellates egui's output and draws it over the terrain in `view`.
    fn record_gui(&mut self, encoder: &mut wgpu::CommandEncoder, view: &wgpu::TextureView, output: egui::FullOutput) {
        let gui = &mut self.gui;
        gui.input.handle_platform_output(&self.window, output.platform_output);
        let screen = egui_wgpu::ScreenDescriptor {
            size_in_pixels: [self.config.width, self.config.height],
            pixels_per_point: output.pixels_per_point,
        };
        let jobs = gui.ctx.tessellate(output.shapes, output.pixels_per_point);
        let mut textures = output.textures_delta;
        for (id, deltas) in &textures.set {
            for delta in deltas {
                gui.renderer.update_texture(&self.gpu.device, &self.gpu.queue, *id, delta);
            }
        }
        let extra = gui.renderer.update_buffers(&self.gpu.device, &self.gpu.queue, encoder, &jobs, &screen);
        if !extra.is_empty() {
            self.gpu.queue.submit(extra);
        }
        {
            let mut pass = encoder
                .begin_render_pass(&wgpu::RenderPassDescriptor {
                    label: Some("viewer.egui"),
                    color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                        view,
                        depth_slice: None,
                        resolve_target: None,
                        ops: wgpu::Operations { load: wgpu::LoadOp::Load, store: wgpu::StoreOp::Store },
                    })],
                    depth_stencil_attachment: None,
                    timestamp_writes: None,
                    occlusion_query_set: None,
                    multiview_mask: None,
                })
                .forget_lifetime();
            gui.renderer.render(&mut pass, &jobs, &screen);
        }
        for id in &textures.free {
            gui.renderer.free_texture(id);
        }
        textures.clear();
    }
}

impl App {
    fn fail(&mut self, event_loop: &ActiveEventLoop, error: ViewerError) {
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
        let consumed = !matches!(event, WindowEvent::RedrawRequested) && state.gui.input.on_window_event(&state.window, &event).consumed;
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::Resized(size) => state.resize(size.width, size.height),
            WindowEvent::Focused(false) => state.keys.clear(),
            WindowEvent::KeyboardInput { event, .. } => {
                let PhysicalKey::Code(code) = event.physical_key else { return };
                if event.state == ElementState::Released {
                    state.keys.remove(&code);
                    return;
                }
                if consumed || state.gui.ctx.egui_wants_keyboard_input() {
                    return;
                }
                state.keys.insert(code);
                if event.repeat {
                    return;
                }
                if let Some(action) = state.ui.key(code, state.scene.mode()) {
                    if !state.apply(action) {
                        event_loop.exit();
                    }
                }
            }
            WindowEvent::MouseInput { button: button @ (MouseButton::Left | MouseButton::Right), state: pressed, .. } => {
                let grab = pressed == ElementState::Pressed && !consumed && !state.gui.ctx.egui_wants_pointer_input();
                state.dragging = grab.then_some(button);
                state.last_cursor = None;
            }
            WindowEvent::CursorMoved { position, .. } if state.dragging.is_some() => {
                if let Some((x, y)) = state.last_cursor {
                    let shift = state.keys.contains(&KeyCode::ShiftLeft) || state.keys.contains(&KeyCode::ShiftRight);
                    let turning = state.dragging == Some(MouseButton::Right) || shift;
                    state.scene.drag(position.x - x, position.y - y, state.config.height, turning);
                }
                state.last_cursor = Some((position.x, position.y));
            }
            WindowEvent::MouseWheel { delta, .. } if !consumed && !state.gui.ctx.is_pointer_over_egui() => {
                let lines = match delta {
                    MouseScrollDelta::LineDelta(_, y) => y as f64,
                    MouseScrollDelta::PixelDelta(p) => p.y / 40.0,
                };
                state.scene.scroll(lines);
                state.panels.speed_scale = state.scene.speed_scale();
            }
            WindowEvent::RedrawRequested => {
                let last = self.options.frames.is_some_and(|n| state.frames_shown + 1 >= n);
                let automated = last && self.options.screenshot.is_some();
                let capture = automated || state.screenshot_requested;
                match state.frame(capture) {
                    Ok((image, go_on)) => {
                        if let Some(image) = image {
                            let path =
                                if automated { self.options.screenshot.clone().expect("screenshot path") } else { screenshot_name() };
                            if automated {
                                if let Err(error) = crate::cli::write_png(&image, &path) {
                                    return self.fail(event_loop, error.into());
                                }
                            } else {
                                state.screenshot_requested = false;
                                state.ui.status = match crate::cli::write_png(&image, &path) {
                                    Ok(()) => format!("screenshot {}", path.display()),
                                    Err(error) => format!("screenshot failed: {error:#}"),
                                };
                                eprintln!("bisector: {}", state.ui.status);
                            }
                        } else if state.screenshot_requested && !state.config.usage.contains(wgpu::TextureUsages::COPY_SRC) {
                            state.screenshot_requested = false;
                            state.ui.status = "screenshot: this window surface cannot be read back; use `bisector shot`".into();
                        }
                        if !go_on {
                            event_loop.exit();
                        }
                        if last && state.frames_shown >= self.options.frames.unwrap_or(0) {
                            if let Some(line) = state.scene.pool_summary(state.readback.latest.as_ref()) {
                                eprintln!("bisector: {line}");
                            }
                            if self.options.screenshot.as_ref().is_some_and(|p| !p.exists()) {
                                return self.fail(event_loop, ViewerError::ScreenshotUnreadable);
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

    fn exiting(&mut self, _event_loop: &ActiveEventLoop) {
        if let Some(state) = self.state.as_mut() {
            state.save_state();
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn timestamps_have_the_documented_shape() {
        let stamp = super::timestamp_utc();
        assert_eq!(stamp.len(), 15, "{stamp}");
        assert_eq!(&stamp[8..9], "-");
        assert!(stamp.starts_with("20"), "{stamp}");
        assert!(stamp.chars().filter(|c| *c != '-').all(|c| c.is_ascii_digit()));
    }
}
