//! Shared helpers of the integration tests: the GPU, seeded randomness, a virtual display.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use bisector::cbt::cpu::Cbt;
use bisector::gpu::Gpu;
use bisector::leb::cpu::{decode_vertices, split_conforming, BASE_DEPTH};
use rand::{rngs::StdRng, SeedableRng};

/// A headless GPU for max depth `max_depth`, or a panic that says how to get one.
pub fn gpu(max_depth: u32) -> Gpu {
    Gpu::headless(&bisector::cbt::requirements(max_depth, 1 << 16))
        .unwrap_or_else(|e| panic!("{e}\n(the README's test command installs the software Vulkan driver lavapipe)"))
}

/// The globe frame's projection of `camera` on `size_px` (camera-relative metres -> clip space;
/// the LOD settings do not change it).
pub fn globe_clip_from_relative(camera: &bisector::globe::camera::GlobeCamera, size_px: (u32, u32)) -> [[f32; 4]; 4] {
    let settings = bisector::globe::frame::FrameSettings {
        split_threshold_px: 1.0,
        merge_threshold_px: 0.5,
        wireframe: false,
        sun_direction: glam::DVec3::Z,
        criterion: bisector::leb::lod::Criterion::EdgeLength,
        detail: false,
    };
    bisector::globe::frame::globe_frame(camera, size_px, &settings).clip_from_relative
}

/// What binding i of a probe shader's group 0 holds (`run_probe`).
pub enum ProbeBinding<'a> {
    /// A read-only storage buffer with these bytes.
    Storage(&'a [u8]),
    /// A uniform buffer with these bytes.
    Uniform(&'a [u8]),
    /// The storage buffer of this many bytes the shader writes; `run_probe` returns it.
    Output(u64),
}

/// Runs entry `entry` of the probe shader `shader` (workgroups of 64) over `threads` threads,
/// group 0's bindings 0, 1, ... as `bindings` say; the bytes of the `Output` binding.
pub fn run_probe(gpu: &Gpu, shader: &str, entry: &str, bindings: &[ProbeBinding], threads: u32) -> Vec<u8> {
    use wgpu::util::DeviceExt;
    let device = &gpu.device;
    let buffers: Vec<wgpu::Buffer> = bindings
        .iter()
        .map(|b| match b {
            ProbeBinding::Storage(contents) => device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(shader),
                contents,
                usage: wgpu::BufferUsages::STORAGE,
            }),
            ProbeBinding::Uniform(contents) => device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(shader),
                contents,
                usage: wgpu::BufferUsages::UNIFORM,
            }),
            ProbeBinding::Output(size) => device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(shader),
                size: *size,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            }),
        })
        .collect();
    let output = bindings.iter().position(|b| matches!(b, ProbeBinding::Output(_))).expect("an output binding");
    let pipeline = bisector::shaders::SHADERS.compute_pipeline(device, shader, shader, entry, &[]);
    let entries: Vec<wgpu::BindGroupEntry> =
        buffers.iter().enumerate().map(|(i, b)| wgpu::BindGroupEntry { binding: i as u32, resource: b.as_entire_binding() }).collect();
    let bind_group =
        device.create_bind_group(&wgpu::BindGroupDescriptor { label: None, layout: &pipeline.get_bind_group_layout(0), entries: &entries });
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind_group, &[]);
        pass.dispatch_workgroups(threads.div_ceil(64), 1, 1);
    }
    gpu.queue.submit([encoder.finish()]);
    let out = &buffers[output];
    bisector::gpu::readback::read_buffer(device, &gpu.queue, out, 0, out.size())
}

/// A fresh random generator; its seed is printed, and BISECTOR_TEST_SEED replays one.
pub fn rng(test: &str) -> StdRng {
    let seed = std::env::var("BISECTOR_TEST_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(rand::random::<u64>);
    eprintln!("{test}: BISECTOR_TEST_SEED={seed}");
    StdRng::seed_from_u64(seed)
}

/// Refines around `points` (unit-square coordinates): every leaf containing one splits, with
/// conforming splits, until `max_depth`. Makes deep spikes next to coarse regions.
pub fn refine_around_points(max_depth: u32, points: &[[f32; 2]]) -> Cbt {
    let mut cbt = Cbt::new(max_depth, BASE_DEPTH);
    loop {
        let targets: Vec<_> = cbt
            .leaves()
            .into_iter()
            .filter(|&n| n.depth < max_depth && points.iter().any(|p| triangle_contains(decode_vertices(n), *p)))
            .collect();
        if targets.is_empty() {
            return cbt;
        }
        for node in targets {
            split_conforming(&mut cbt, node);
        }
        cbt.reduce();
    }
}

/// True when point `p` lies in (or on) the triangle `v`.
pub fn triangle_contains(v: [[f32; 2]; 3], p: [f32; 2]) -> bool {
    let edge = |a: [f32; 2], b: [f32; 2]| (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]);
    let (e0, e1, e2) = (edge(v[0], v[1]), edge(v[1], v[2]), edge(v[2], v[0]));
    (e0 >= 0.0 && e1 >= 0.0 && e2 >= 0.0) || (e0 <= 0.0 && e1 <= 0.0 && e2 <= 0.0)
}

/// Number of distinct RGBA colours in `image`: a rendered frame has many, a blank one few.
pub fn distinct_colours(image: &image::RgbaImage) -> usize {
    image.pixels().map(|p| p.0).collect::<std::collections::HashSet<_>>().len()
}

/// A random height field of 2^k + 1 samples per side over `size_m`: a few random waves of
/// random amplitude plus sample noise and, sometimes, a flat sea (fresh relief every run).
pub fn random_field(rng: &mut impl rand::Rng, k: u32, size_m: f32) -> bisector::terrain::HeightField {
    let n = (1u32 << k) + 1;
    let waves: Vec<[f32; 4]> = (0..4)
        .map(|_| [rng.random_range(0.5..8.0), rng.random_range(0.5..8.0), rng.random_range(0.0..6.3), rng.random_range(10.0..800.0)])
        .collect();
    let noise_m = rng.random_range(0.0..20.0);
    let sea_m = if rng.random_bool(0.5) { rng.random_range(-200.0..200.0) } else { f32::MIN };
    let heights_m = (0..n * n)
        .map(|i| {
            let (u, v) = ((i % n) as f32 / (n - 1) as f32, (i / n) as f32 / (n - 1) as f32);
            let h: f32 = waves.iter().map(|w| w[3] * (w[0] * u * 6.3 + w[2]).sin() * (w[1] * v * 6.3).cos()).sum();
            (h + rng.random_range(-1.0f32..=1.0) * noise_m).max(sea_m)
        })
        .collect();
    bisector::terrain::HeightField { samples_per_side: n, heights_m, size_m, data_bounds_m: [0.0, 0.0, size_m, size_m], nodata: Vec::new() }
}

/// A random view over a terrain of side `size_m`: anywhere from just above the ground to high
/// above, looking in a random direction (with a frustum), of random field of view and viewport.
pub fn random_view(rng: &mut impl rand::Rng, size_m: f32) -> bisector::leb::lod::LodView {
    use glam::Vec3;
    let position_m = Vec3::new(
        rng.random_range(-0.2..1.2) * size_m,
        rng.random_range(-0.2..1.2) * size_m,
        // Log-uniform height: low cameras make steep LOD gradients and long split chains.
        10f32.powf(rng.random_range(0.0..3.5)),
    );
    let fov_y_rad = rng.random_range(30.0f32..90.0).to_radians();
    let (width, height) = (rng.random_range(128..1920u32), rng.random_range(128..1080u32));
    let yaw = rng.random_range(0.0f32..std::f32::consts::TAU);
    let forward = Vec3::new(yaw.cos(), yaw.sin(), rng.random_range(-0.8..0.1)).normalize();
    let clip = glam::Mat4::perspective_infinite_reverse_rh(fov_y_rad, width as f32 / height as f32, 0.5)
        * glam::Mat4::look_to_rh(position_m, forward, Vec3::Z);
    bisector::leb::lod::LodView { position_m, clip_from_world: rng.random_bool(0.8).then_some(clip), fov_y_rad, viewport_height_px: height }
}

/// A file of the repository's elevation data (heightmaps/), or a panic that says it is missing.
pub fn heightmap(relative: &str) -> std::path::PathBuf {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("heightmaps").join(relative);
    assert!(path.exists(), "{} is missing: the repository's elevation data (heightmaps/) is incomplete", path.display());
    path
}

/// An Xvfb server of its own for one test, stopped when dropped. Started directly (not through
/// `xvfb-run`, whose clean-up of its temporary directory can fail and print a line of its own):
/// `-displayfd` lets the server pick a free display and tell us which.
pub struct VirtualDisplay {
    server: Child,
    /// The value for `DISPLAY`, e.g. ":99".
    pub display: String,
}

impl VirtualDisplay {
    /// Starts a server with one screen of `width`x`height` at 24 bits.
    pub fn start(width: u32, height: u32) -> VirtualDisplay {
        let mut server = Command::new("Xvfb")
            .args(["-displayfd", "1", "-nolisten", "tcp", "-screen", "0", &format!("{width}x{height}x24")])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("Xvfb is missing: the README's test command (scripts/test) installs xvfb");
        let mut number = String::new();
        BufReader::new(server.stdout.take().expect("Xvfb stdout")).read_line(&mut number).expect("read Xvfb's display number");
        assert!(!number.trim().is_empty(), "Xvfb exited without opening a display");
        VirtualDisplay { server, display: format!(":{}", number.trim()) }
    }
}

impl Drop for VirtualDisplay {
    fn drop(&mut self) {
        let _ = self.server.kill();
        let _ = self.server.wait();
    }
}

/// A plain sRGB render target of `size` (as a window surface is: not a storage texture), which the
/// compute rasteriser's shade must fill with its full-screen fragment pass.
pub fn srgb_surface(gpu: &Gpu, size: (u32, u32)) -> wgpu::Texture {
    gpu.device.create_texture(&wgpu::TextureDescriptor {
        label: Some("test.surface"),
        size: wgpu::Extent3d { width: size.0, height: size.1, depth_or_array_layers: 1 },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: bisector::gpu::target::COLOR_FORMAT,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    })
}

/// The converged `view`'s next two frames from `camera`: one into `surface` (`srgb_surface`,
/// shaded by the fragment pass), then one into the view's offscreen target (shaded in compute),
/// as (fragment, compute) images; asserts the tree drew the same leaves both times.
pub fn fragment_then_compute_frames<S: bisector::schedule::LebScene>(
    gpu: &Gpu,
    view: &mut bisector::schedule::headless::HeadlessView<S>,
    camera: &S::Camera,
    surface: &wgpu::Texture,
) -> (image::RgbaImage, image::RgbaImage) {
    let size = (surface.width(), surface.height());
    let surface_view = surface.create_view(&Default::default());
    let depth = bisector::gpu::target::depth_view(&gpu.device, size.0, size.1);
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    let target = bisector::schedule::FrameTarget { size_px: size, color: &surface_view, depth: &depth };
    view.scene.record_frame(gpu, &mut encoder, camera, &target);
    gpu.queue.submit([encoder.finish()]);
    view.scene.after_submit();
    let fragment = image::RgbaImage::from_raw(
        size.0,
        size.1,
        bisector::gpu::readback::read_texture_rgba8(&gpu.device, &gpu.queue, surface, size.0, size.1),
    )
    .unwrap();
    let leaves = view.scene.tree().read_stats(gpu).leaves;
    let compute_frame = view.frame(gpu, camera);
    assert_eq!(compute_frame.stats.leaves, leaves, "the tree changed between the two frames");
    (fragment, view.image(gpu))
}

/// ETOPO20 with the Taiwan pyramid over it, as `--terrain
/// planet:heightmaps/etopo20_global.tif,heightmaps/taiwan-terrain-rgb` opens it.
pub fn taiwan_ground() -> bisector::globe::ground::Ground {
    let spec =
        bisector::globe::spec::GlobeSpec::Earth { base: heightmap("etopo20_global.tif"), regions: vec![heightmap("taiwan-terrain-rgb")] };
    bisector::globe::ground::Ground::open(&spec).unwrap_or_else(|e| panic!("{e}"))
}

/// The bridge view: the first pose of assets/paths/globe-taiwan-coast-ship.json, 20 m above the
/// sea some 2 km off the Qingshui cliffs, looking at them.
pub fn bridge_camera() -> bisector::globe::camera::GlobeCamera {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/paths/globe-taiwan-coast-ship.json");
    bisector::bench::globe_path::GlobePath::load(&path).unwrap_or_else(|e| panic!("{e}")).sample(0.0).camera()
}
