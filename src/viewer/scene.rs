//! What the viewer's window shows: a flat height field (`Renderer`) or the globe
//! (`GlobeRenderer` over its `TileCache`, or `GlobePoolRenderer`: the globe drawn from the
//! bisector pool, `view --pool-slots`), each with its camera rig. Both record their frames
//! through the one schedule (`crate::schedule::LebScene`); `Scene` holds what differs: the
//! cameras and their input, and rebuilds. The window, egui, screenshots and the panel are shared.

use super::flight::Move;
use super::globe_rig::{GlobeOrbit, GlobeRig, Turn};
use super::panels::LodSettings;
use super::rig::{self, CameraMode, CameraRig};
use super::stats::{PoolReadback, StatsReadback};
use crate::flat::camera::Camera;
use crate::flat::{RenderSettings, Renderer};
use crate::globe::cache::tile_cache::TileCache;
use crate::globe::camera::GlobeCamera;
use crate::globe::ground::{Ground, MIN_CLEARANCE_M};
use crate::globe::pool_scene::GlobePoolRenderer;
use crate::globe::renderer::{GlobeRenderer, GlobeSettings};
use crate::gpu::timings::FrameTimings;
use crate::gpu::Gpu;
use crate::pool::gpu::PoolError;
use crate::pool::PoolSettings;
use crate::schedule::{FrameTarget, LebScene, LebTree};
use crate::terrain::HeightField;

/// The flat height field and its orbit / free-flight rig.
pub struct HeightfieldScene {
    pub renderer: Renderer,
    pub field: HeightField,
    pub rig: CameraRig,
}

/// The globe's passes and its tile cache: over the bit-packed heap, or over the bisector pool.
pub enum GlobeDrawer {
    Heap(Box<GlobeRenderer>),
    Pool(Box<GlobePoolRenderer>),
}

impl GlobeDrawer {
    pub fn tree(&self) -> &LebTree {
        match self {
            GlobeDrawer::Heap(r) => &r.tree,
            GlobeDrawer::Pool(r) => &r.tree,
        }
    }

    pub fn tree_mut(&mut self) -> &mut LebTree {
        match self {
            GlobeDrawer::Heap(r) => &mut r.tree,
            GlobeDrawer::Pool(r) => &mut r.tree,
        }
    }

    pub fn cache(&self) -> &TileCache {
        match self {
            GlobeDrawer::Heap(r) => &r.cache,
            GlobeDrawer::Pool(r) => &r.cache,
        }
    }

    /// The settings the panel's LOD section changes (the pool's pixel target is the same field).
    pub fn settings_mut(&mut self) -> &mut GlobeSettings {
        match self {
            GlobeDrawer::Heap(r) => &mut r.settings,
            GlobeDrawer::Pool(r) => &mut r.settings,
        }
    }

    /// Triangles drawn for every leaf (the heap's sub-triangles; the pool draws the leaves).
    pub fn triangles_per_leaf(&self) -> u32 {
        match self {
            GlobeDrawer::Heap(r) => 1 << r.settings.sub_levels,
            GlobeDrawer::Pool(_) => 1,
        }
    }

    /// The pool's settings, when the globe is drawn from the bisector pool.
    pub fn pool_settings(&self) -> Option<&PoolSettings> {
        match self {
            GlobeDrawer::Heap(_) => None,
            GlobeDrawer::Pool(r) => Some(&r.pool_settings),
        }
    }
}

/// The globe, its tile cache and its orbit / free-flight rig.
pub struct GlobeScene {
    /// The globe's passes and its tile cache.
    pub renderer: GlobeDrawer,
    /// The bisector pool's statistics, read back without stalling (unused over the heap).
    pub pool_readback: PoolReadback,
    /// The pool read-back's slot of the frame being submitted.
    pool_slot: Option<usize>,
    pub rig: GlobeRig,
    /// The heights on the CPU: the camera stays `MIN_CLEARANCE_M` above the surface.
    ground: Ground,
    /// The last surface height looked up, and where (degrees): a lookup reads tiles, so it is
    /// redone only when the camera has moved about 10 m.
    surface_memo: Option<((f64, f64), f64)>,
}

/// One of the two scenes.
pub enum Scene {
    Heightfield(Box<HeightfieldScene>),
    Globe(Box<GlobeScene>),
}

impl HeightfieldScene {
    /// The renderer for `field`, with the orbit framing its data; flying at `start` where given.
    pub fn new(
        gpu: &Gpu,
        field: &HeightField,
        settings: RenderSettings,
        color_format: wgpu::TextureFormat,
        start: Option<&Camera>,
    ) -> HeightfieldScene {
        let renderer = Renderer::new(gpu, field, settings, color_format);
        let home = super::orbit::Orbit::framing(renderer.data_bounds_m(), renderer.height_range_m().1 as f64);
        let rig = match start {
            Some(camera) => CameraRig::starting_at(home, camera),
            None => CameraRig::new(home),
        };
        HeightfieldScene { renderer, field: field.clone(), rig }
    }

    /// Metres above the ground of the camera shown.
    pub fn height_above_ground_m(&self) -> f64 {
        let p = self.rig.camera().position_m;
        p.z - rig::ground_m(&self.field, p.x, p.y)
    }
}

impl GlobeScene {
    /// The globe renderer sampling `cache` (drawn from a bisector pool of `pool` where given),
    /// with the rig at `GlobeOrbit::home`, or at `start` where given (`GlobeRig::starting_at`: on
    /// a bridge where `ground` has sea or no data under it), kept above `ground`.
    pub fn new(
        gpu: &Gpu,
        settings: GlobeSettings,
        pool: Option<PoolSettings>,
        cache: TileCache,
        ground: Ground,
        color_format: wgpu::TextureFormat,
        start: Option<&GlobeCamera>,
    ) -> Result<GlobeScene, PoolError> {
        let renderer = match pool {
            Some(pool) => {
                let mut renderer = GlobePoolRenderer::new(gpu, settings, pool, color_format, cache)?;
                // The pool panel's near_edge_m: refreshed every 8th frame (it adds to the decode's cost).
                renderer.near_edge_interval_frames = 8;
                GlobeDrawer::Pool(Box::new(renderer))
            }
            None => GlobeDrawer::Heap(Box::new(GlobeRenderer::new(gpu, settings, color_format, cache))),
        };
        let rig = match start {
            Some(camera) => {
                let (lon, lat) = camera.lon_lat_deg();
                let over_sea = ground.height_m(lon, lat).ok().flatten().is_none_or(|h| h <= 0.0);
                GlobeRig::starting_at(GlobeOrbit::home(), camera, over_sea)
            }
            None => GlobeRig::new(GlobeOrbit::home()),
        };
        Ok(GlobeScene { renderer, pool_readback: PoolReadback::default(), pool_slot: None, rig, ground, surface_memo: None })
    }

    /// Raises the camera to `MIN_CLEARANCE_M` above the drawn surface (the ground, or sea level
    /// over the sea) where it has come lower.
    pub fn keep_above_surface(&mut self) {
        let (lon, lat) = self.rig.camera().lon_lat_deg();
        let surface_m = match self.surface_memo {
            Some(((lon0, lat0), height_m)) if (lon - lon0).abs() < 1e-4 && (lat - lat0).abs() < 1e-4 => height_m,
            _ => {
                let height_m = self.ground.height_m(lon, lat).ok().flatten().map_or(0.0, |h| f64::from(h.max(0.0)));
                self.surface_memo = Some(((lon, lat), height_m));
                height_m
            }
        };
        self.rig.keep_above(surface_m + MIN_CLEARANCE_M);
    }
}

impl Scene {
    /// The camera mode shown.
    pub fn mode(&self) -> CameraMode {
        match self {
            Scene::Heightfield(s) => s.rig.mode,
            Scene::Globe(s) => s.rig.mode,
        }
    }

    /// Switches between orbit and free flight without a jump.
    pub fn set_mode(&mut self, mode: CameraMode) {
        match self {
            Scene::Heightfield(s) => s.rig.set_mode(mode, &s.field),
            Scene::Globe(s) => s.rig.set_mode(mode),
        }
    }

    /// Back to the starting view.
    pub fn reset(&mut self) {
        match self {
            Scene::Heightfield(s) => s.rig.reset(),
            Scene::Globe(s) => s.rig.reset(),
        }
    }

    /// The flight speed multiplier.
    pub fn speed_scale(&self) -> f64 {
        match self {
            Scene::Heightfield(s) => s.rig.speed_scale,
            Scene::Globe(s) => s.rig.speed_scale,
        }
    }

    pub fn set_speed_scale(&mut self, scale: f64) {
        match self {
            Scene::Heightfield(s) => s.rig.speed_scale = scale,
            Scene::Globe(s) => s.rig.speed_scale = scale,
        }
    }

    /// The tree shared by the scene's passes.
    pub fn tree(&self) -> &LebTree {
        match self {
            Scene::Heightfield(s) => &s.renderer.tree,
            Scene::Globe(s) => s.renderer.tree(),
        }
    }

    fn tree_mut(&mut self) -> &mut LebTree {
        match self {
            Scene::Heightfield(s) => &mut s.renderer.tree,
            Scene::Globe(s) => s.renderer.tree_mut(),
        }
    }

    /// Frames recorded so far.
    pub fn frame_index(&self) -> u64 {
        self.tree().frame_index()
    }

    /// Moves the camera by the keys held for `dt_s` seconds (`turn`: the globe orbit's heading
    /// and tilt keys), and the globe's sea waves on by `dt_s`.
    pub fn step(&mut self, input: Move, turn: Turn, dt_s: f64) {
        match self {
            Scene::Heightfield(s) => match s.rig.mode {
                CameraMode::Fly | CameraMode::Ship => {
                    s.rig.fly(input, dt_s, &s.field);
                }
                CameraMode::Orbit => {
                    let step = 0.8 * s.rig.orbit.distance_m * dt_s * if input.fast { 4.0 } else { 1.0 };
                    s.rig.orbit.pan(input.forward * step, -input.right * step);
                    let ground = rig::ground_m(&s.field, s.rig.orbit.centre_m.x, s.rig.orbit.centre_m.y);
                    if !input.is_idle() {
                        s.rig.orbit.centre_m.z = ground;
                    }
                }
            },
            Scene::Globe(s) => {
                s.rig.step(input, turn, dt_s);
                s.keep_above_surface();
                // The sea's waves run on the clock (from --sea-time-s).
                s.renderer.settings_mut().sea.time_s += dt_s;
            }
        }
    }

    /// A mouse drag of (`dx_px`, `dy_px`) on a viewport `height_px` tall; `turning`: the right
    /// button (or Shift), which turns and tilts the globe's orbit.
    pub fn drag(&mut self, dx_px: f64, dy_px: f64, height_px: u32, turning: bool) {
        match self {
            Scene::Heightfield(s) => {
                let (dx, dy) = (dx_px * 0.005, dy_px * 0.005);
                match s.rig.mode {
                    CameraMode::Orbit => s.rig.orbit.rotate(dx, dy),
                    CameraMode::Fly | CameraMode::Ship => s.rig.flight.look(dx * 0.6, -dy * 0.6),
                }
            }
            Scene::Globe(s) => s.rig.drag(dx_px, dy_px, height_px, turning),
        }
    }

    /// The mouse wheel turned by `lines` (positive: away from the user): orbits zoom in (the
    /// globe's by 20% a line: 4.5 Earth radii to 2 m in about 75 lines), flights change their speed.
    pub fn scroll(&mut self, lines: f64) {
        match (self.mode(), self) {
            (CameraMode::Orbit, Scene::Heightfield(s)) => s.rig.orbit.zoom(0.9f64.powf(lines)),
            (CameraMode::Orbit, Scene::Globe(s)) => s.rig.orbit.zoom(0.8f64.powf(lines)),
            (CameraMode::Ship, Scene::Globe(s)) => s.rig.ship.change_speed(lines),
            (CameraMode::Fly | CameraMode::Ship, scene) => {
                scene.set_speed_scale((scene.speed_scale() * 1.15f64.powf(lines)).clamp(0.05, 20.0))
            }
        }
    }

    /// Sets the renderer's LOD fields from the panel's controls.
    pub fn apply_lod(&mut self, lod: &LodSettings) {
        match self {
            Scene::Heightfield(s) => lod.apply(&mut s.renderer),
            Scene::Globe(s) => {
                lod.apply_to_globe(s.renderer.settings_mut());
                (s.renderer.tree_mut().split_enabled, s.renderer.tree_mut().merge_enabled) = lod.update_passes();
            }
        }
    }

    /// Records one frame's passes into `encoder` through the schedule, and a copy of the tree
    /// statistics into `readback`; returns the read-back slot to map after submitting. Then
    /// submit and call `after_submit`.
    pub fn record_frame(
        &mut self,
        gpu: &Gpu,
        encoder: &mut wgpu::CommandEncoder,
        target: &FrameTarget,
        readback: &mut StatsReadback,
    ) -> Option<usize> {
        fn record<S: LebScene>(
            scene: &mut S,
            camera: &S::Camera,
            gpu: &Gpu,
            encoder: &mut wgpu::CommandEncoder,
            target: &FrameTarget,
            readback: &mut StatsReadback,
            leaf_ids: bool,
        ) -> Option<usize> {
            let frame_index = scene.tree().frame_index();
            scene.record_frame(gpu, encoder, camera, target);
            let leaf_ids = leaf_ids.then(|| scene.leaf_ids());
            readback.record(&gpu.device, encoder, &scene.tree().cbt, leaf_ids, Some(scene.lod_stats()), frame_index)
        }
        match self {
            Scene::Heightfield(s) => record(&mut s.renderer, &s.rig.camera(), gpu, encoder, target, readback, true),
            Scene::Globe(s) => match &mut s.renderer {
                GlobeDrawer::Heap(r) => record(r.as_mut(), &s.rig.camera(), gpu, encoder, target, readback, true),
                GlobeDrawer::Pool(r) => {
                    let frame_index = r.tree.frame_index();
                    let slot = record(r.as_mut(), &s.rig.camera(), gpu, encoder, target, readback, false);
                    s.pool_slot = s.pool_readback.record(&gpu.device, encoder, r.near_edges_buffer(), &r.pool.control, frame_index);
                    slot
                }
            },
        }
    }

    /// After the frame's encoder was submitted: the scene's hook (the globe's cache starts its
    /// read-back), then the profiler frame closes; the pool's read-back maps this frame's copy
    /// and reads those that are ready.
    pub fn after_submit(&mut self) {
        match self {
            Scene::Heightfield(s) => s.renderer.after_submit(),
            Scene::Globe(s) => {
                match &mut s.renderer {
                    GlobeDrawer::Heap(r) => r.after_submit(),
                    GlobeDrawer::Pool(r) => r.after_submit(),
                }
                if let Some(slot) = s.pool_slot.take() {
                    s.pool_readback.map(slot);
                }
                s.pool_readback.collect();
            }
        }
    }

    /// GPU times of the oldest finished frame, if its timestamps are available.
    pub fn take_timings(&mut self, queue: &wgpu::Queue) -> Option<FrameTimings> {
        self.tree_mut().take_timings(queue)
    }

    /// One line of the bisector pool's figures (as the panel shows them), None over the heap or
    /// the flat terrain: what `view --frames` prints when it stops.
    pub fn pool_summary(&self, stats: Option<&super::stats::LeafStats>) -> Option<String> {
        let Scene::Globe(s) = self else { return None };
        let data = super::globe_panels::PoolData::new(s.renderer.pool_settings()?, s.pool_readback.latest.clone());
        Some(data.rows(stats).iter().map(|(name, value)| format!("{name} {value}")).collect::<Vec<_>>().join(", "))
    }

    /// The renderer's max depth now.
    pub fn max_depth(&self) -> u32 {
        match self {
            Scene::Heightfield(s) => s.renderer.settings.max_depth,
            Scene::Globe(s) => match &s.renderer {
                GlobeDrawer::Heap(r) => r.settings.max_depth,
                GlobeDrawer::Pool(r) => r.pool_settings.max_depth,
            },
        }
    }

    /// Rebuilds the renderer at max depth `depth` (the tree starts over; the globe keeps its cache;
    /// the pool keeps its `--max-depth`: its panel has no max depth control).
    pub fn rebuild(&mut self, gpu: &Gpu, depth: u32, color_format: wgpu::TextureFormat) {
        match self {
            Scene::Heightfield(s) => {
                let settings = RenderSettings { max_depth: depth, ..s.renderer.settings.clone() };
                s.renderer = Renderer::new(gpu, &s.field, settings, color_format);
            }
            Scene::Globe(s) => {
                if let GlobeDrawer::Heap(r) = &mut s.renderer {
                    let settings = GlobeSettings { max_depth: depth, ..r.settings.clone() };
                    r.rebuild(gpu, settings);
                }
            }
        }
    }
}
