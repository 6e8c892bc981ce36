//! The globe's occlusion culling (src/globe/occlusion.rs): the depth pyramid against its CPU twin
//! exactly, from a depth texture and from the compute rasteriser's visibility buffer, the GPU's ball test against its twin (f64) where rounding cannot flip it, and the
//! bridge view: far fewer leaves with it, the same picture.

#[path = "support/cache_probe.rs"]
mod cache_probe;
mod common;

use bisector::globe::cache::tile_cache::{TileCache, TileCacheConfig};
use bisector::globe::occlusion::{
    hzb_level_count, hzb_levels, hzb_size, is_occluded, vis_depths, DrawnView, GpuOcclusion, HzbLevel, OcclusionFrame,
};
use bisector::globe::pool_scene::{requirements, GlobePoolRenderer};
use bisector::globe::renderer::GlobeSettings;
use bisector::gpu::Gpu;
use bisector::leb::lod::Criterion;
use bisector::pool::PoolSettings;
use bisector::schedule::headless::HeadlessView;
use bisector::schedule::LebScene;
use cache_probe::probe_pipeline;
use glam::{DMat3, DVec3, Mat4, Vec3};
use rand::Rng;

/// Reads mip `level` (`size` texels) of an R32Float or Depth32Float texture.
fn read_f32_mip(gpu: &Gpu, texture: &wgpu::Texture, level: u32, size: (u32, u32)) -> Vec<f32> {
    let row_bytes = size.0 * 4;
    let padded = row_bytes.div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
    let staging = gpu.device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: u64::from(padded * size.1),
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let mut encoder = gpu.device.create_command_encoder(&Default::default());
    encoder.copy_texture_to_buffer(
        wgpu::TexelCopyTextureInfo { texture, mip_level: level, origin: wgpu::Origin3d::ZERO, aspect: wgpu::TextureAspect::All },
        wgpu::TexelCopyBufferInfo {
            buffer: &staging,
            layout: wgpu::TexelCopyBufferLayout { offset: 0, bytes_per_row: Some(padded), rows_per_image: Some(size.1) },
        },
        wgpu::Extent3d { width: size.0, height: size.1, depth_or_array_layers: 1 },
    );
    gpu.queue.submit([encoder.finish()]);
    let bytes = bisector::gpu::readback::read_buffer(&gpu.device, &gpu.queue, &staging, 0, staging.size());
    bytes.chunks(padded as usize).flat_map(|row| bytemuck::cast_slice::<u8, f32>(&row[..row_bytes as usize]).to_vec()).collect()
}

/// A depth attachment of `size` filled with pseudo-random depths in [0, 1) from `seed`, constant
/// over blocks of `block_px` (a pass writing frag_depth), one block in eight exactly 0 (the far
/// plane, where the sky is).
fn random_depth(gpu: &Gpu, size: (u32, u32), seed: u32, block_px: u32) -> (wgpu::Texture, Vec<f32>) {
    let device = &gpu.device;
    let texture = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("test.depth"),
        size: wgpu::Extent3d { width: size.0, height: size.1, depth_or_array_layers: 1 },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: bisector::gpu::target::DEPTH_FORMAT,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    });
    let source = format!(
        "@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {{
             return vec4<f32>(f32(i & 1u) * 4.0 - 1.0, f32(i >> 1u) * 4.0 - 1.0, 0.5, 1.0);
         }}
         struct Out {{ @builtin(frag_depth) depth: f32, }}
         @fragment fn fs(@builtin(position) p: vec4<f32>) -> Out {{
             var h = (u32(p.x) / {block_px}u) * 73856093u ^ (u32(p.y) / {block_px}u) * 19349663u ^ {seed}u;
             h = (h ^ (h >> 16u)) * 2246822519u;
             h = (h ^ (h >> 13u)) * 3266489917u;
             h ^= h >> 16u;
             // The first pixel at the far plane and the one below it at 0.75, so that every
             // attachment has both; of the rest one in eight at the far plane, the others spread
             // over [0, 1).
             if (u32(p.x) == 0u && u32(p.y) <= 1u) {{
                 return Out(0.75 * f32(u32(p.y)));
             }}
             return Out(select(f32(h >> 8u) / 16777216.0, 0.0, (h & 7u) == 0u));
         }}"
    );
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor { label: None, source: wgpu::ShaderSource::Wgsl(source.into()) });
    let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: None,
        layout: None,
        vertex: wgpu::VertexState { module: &module, entry_point: Some("vs"), compilation_options: Default::default(), buffers: &[] },
        primitive: Default::default(),
        depth_stencil: Some(bisector::gpu::target::depth_state(true, wgpu::CompareFunction::Always)),
        multisample: Default::default(),
        fragment: Some(wgpu::FragmentState {
            module: &module,
            entry_point: Some("fs"),
            compilation_options: Default::default(),
            targets: &[],
        }),
        multiview_mask: None,
        cache: None,
    });
    let view = texture.create_view(&Default::default());
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: None,
            color_attachments: &[],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &view,
                depth_ops: Some(wgpu::Operations { load: wgpu::LoadOp::Clear(0.0), store: wgpu::StoreOp::Store }),
                stencil_ops: None,
            }),
            ..Default::default()
        });
        pass.set_pipeline(&pipeline);
        pass.draw(0..3, 0..1);
    }
    gpu.queue.submit([encoder.finish()]);
    let depth = read_f32_mip(gpu, &texture, 0, size);
    (texture, depth)
}

/// A view for the HZB of `viewport_px` (the camera at the origin looking down -z).
fn test_view(viewport_px: (u32, u32)) -> DrawnView {
    DrawnView { view_from_relative: Mat4::IDENTITY, camera_m: DVec3::ZERO, scale: [1.0, 1.5], near_m: 0.1, viewport_px }
}

#[test]
fn the_depth_pyramid_matches_its_cpu_twin_exactly() {
    let gpu = common::gpu(16);
    let mut rng = common::rng("the_depth_pyramid_matches_its_cpu_twin_exactly");
    let mut occlusion = GpuOcclusion::new(&gpu.device);
    // Viewports odd and even, powers of two and not, a single row, inside larger attachments.
    for viewport in [(37, 23), (64, 32), (1, 9), (2, 61), (531, 77), (rng.random_range(2..90), rng.random_range(2..70))] {
        let attachment = (viewport.0 + rng.random_range(0..5), viewport.1 + rng.random_range(0..5));
        let (depth_texture, depth) = random_depth(&gpu, attachment, rng.random(), 1);
        assert!(depth.contains(&0.0) && depth.iter().any(|&d| d > 0.5), "random depths");
        occlusion.set_view(&gpu.queue, test_view(viewport), true);
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        let profiler = wgpu_profiler::GpuProfiler::new(&gpu.device, Default::default()).expect("profiler");
        occlusion.record_build(&mut encoder, &profiler, &depth_texture.create_view(&Default::default()));
        gpu.queue.submit([encoder.finish()]);
        let twin = hzb_levels(&depth, attachment.0 as usize, viewport);
        assert_eq!(twin.len() as u32, hzb_level_count(hzb_size(viewport)));
        let texture = occlusion.texture();
        for (level, HzbLevel { size, texels }) in twin.iter().enumerate() {
            let gpu_texels = read_f32_mip(&gpu, texture, level as u32, *size);
            assert_eq!(&gpu_texels, texels, "viewport {viewport:?} in {attachment:?}, level {level} of {size:?}");
        }
        // The top level is the farthest depth of the viewport, and of the far plane where the
        // pyramid's base reaches past the viewport.
        let viewport_min = (0..viewport.1)
            .flat_map(|y| (0..viewport.0).map(move |x| (x, y)))
            .map(|(x, y)| depth[(y * attachment.0 + x) as usize])
            .fold(1.0f32, f32::min);
        let base = hzb_size(viewport);
        let past = 2 * base.0 > viewport.0 || 2 * base.1 > viewport.1;
        assert_eq!(twin.last().unwrap().texels, vec![if past { 0.0 } else { viewport_min }]);
    }
}

/// The compute rasteriser's path (`--raster compute`): level 0 from a visibility buffer's depth
/// bits (random reverse-Z depths and leaf ids, about one pixel in eight empty) matches the twin over
/// `vis_depths` exactly, at every level.
#[test]
fn the_depth_pyramid_from_the_visibility_buffer_matches_its_cpu_twin_exactly() {
    let gpu = common::gpu(16);
    let mut rng = common::rng("the_depth_pyramid_from_the_visibility_buffer_matches_its_cpu_twin_exactly");
    let mut occlusion = GpuOcclusion::new(&gpu.device);
    for viewport in [(37, 23), (64, 32), (1, 9), (2, 61), (531, 77), (rng.random_range(2..90), rng.random_range(2..70))] {
        let mut words: Vec<u64> = (0..viewport.0 * viewport.1)
            .map(|_| match rng.random_range(0..8) {
                0 => 0,
                _ => bisector::flat::raster::vis_pack(rng.random_range(1e-6f32..1.0), rng.random()),
            })
            .collect();
        // At least one empty pixel and one near one, whatever the draw.
        words[0] = 0;
        *words.last_mut().unwrap() = bisector::flat::raster::vis_pack(0.75, 1);
        let vis = wgpu::util::DeviceExt::create_buffer_init(
            &gpu.device,
            &wgpu::util::BufferInitDescriptor {
                label: Some("test.vis"),
                contents: bytemuck::cast_slice(&words),
                usage: wgpu::BufferUsages::STORAGE,
            },
        );
        occlusion.set_view(&gpu.queue, test_view(viewport), true);
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        let profiler = wgpu_profiler::GpuProfiler::new(&gpu.device, Default::default()).expect("profiler");
        occlusion.record_build_from_vis(&mut encoder, &profiler, &vis);
        gpu.queue.submit([encoder.finish()]);
        let depth = vis_depths(&words);
        assert!(depth.contains(&0.0) && depth.iter().any(|&d| d > 0.5), "random depths");
        let twin = hzb_levels(&depth, viewport.0 as usize, viewport);
        for (level, HzbLevel { size, texels }) in twin.iter().enumerate() {
            let gpu_texels = read_f32_mip(&gpu, occlusion.texture(), level as u32, *size);
            assert_eq!(&gpu_texels, texels, "viewport {viewport:?}, level {level} of {size:?}");
        }
    }
}

/// Runs globe_is_occluded on `balls` (centre, radius, margin) against `occlusion`'s group.
fn probe_occluded(gpu: &Gpu, occlusion: &GpuOcclusion, balls: &[(Vec3, f32, f32)]) -> Vec<u32> {
    use wgpu::util::DeviceExt;
    let device = &gpu.device;
    let words: Vec<[f32; 4]> = balls.iter().flat_map(|&(c, r, m)| [[c.x, c.y, c.z, r], [m, 0.0, 0.0, 0.0]]).collect();
    let input = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: None,
        contents: bytemuck::cast_slice(&words),
        usage: wgpu::BufferUsages::STORAGE,
    });
    let output = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 4 * balls.len() as u64,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let (pipeline, group0) =
        probe_pipeline(gpu, ("globe_occlusion_probe.wgsl", "probe"), &[(0, true), (1, false)], [Some(occlusion.layout()), None], &[]);
    let group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &group0,
        entries: &[
            wgpu::BindGroupEntry { binding: 0, resource: input.as_entire_binding() },
            wgpu::BindGroupEntry { binding: 1, resource: output.as_entire_binding() },
        ],
    });
    let mut encoder = device.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &group, &[]);
        pass.set_bind_group(1, occlusion.bind_group(), &[]);
        pass.dispatch_workgroups((balls.len() as u32).div_ceil(64), 1, 1);
    }
    gpu.queue.submit([encoder.finish()]);
    bytemuck::cast_slice(&bisector::gpu::readback::read_buffer(device, &gpu.queue, &output, 0, output.size())).to_vec()
}

#[test]
fn the_ball_test_matches_its_cpu_twin_where_rounding_cannot_flip_it() {
    let gpu = common::gpu(16);
    let mut rng = common::rng("the_ball_test_matches_its_cpu_twin_where_rounding_cannot_flip_it");
    let mut occlusion = GpuOcclusion::new(&gpu.device);
    let (mut certain, mut occluded_count) = (0, 0);
    for _ in 0..3 {
        let viewport = (rng.random_range(40..200), rng.random_range(30..150));
        let (depth_texture, depth) = random_depth(&gpu, viewport, rng.random(), rng.random_range(8..32));
        // The drawn frame: a random rotation, a random camera; the frame tested is seen from a
        // camera a little moved.
        let rotation =
            DMat3::from_euler(glam::EulerRot::YXZ, rng.random_range(-3.0..3.0), rng.random_range(-1.5..1.5), rng.random_range(-3.0..3.0));
        let drawn_camera = DVec3::new(rng.random_range(-1e6..1e6), rng.random_range(-1e6..1e6), rng.random_range(-1e6..1e6));
        let scale_y = rng.random_range(0.8..2.5);
        let drawn = DrawnView {
            view_from_relative: Mat4::from_mat3(rotation.as_mat3()),
            camera_m: drawn_camera,
            scale: [scale_y * viewport.1 as f32 / viewport.0 as f32, scale_y],
            near_m: 0.1,
            viewport_px: viewport,
        };
        occlusion.set_view(&gpu.queue, drawn, true);
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        let profiler = wgpu_profiler::GpuProfiler::new(&gpu.device, Default::default()).expect("profiler");
        occlusion.record_build(&mut encoder, &profiler, &depth_texture.create_view(&Default::default()));
        gpu.queue.submit([encoder.finish()]);
        let moved = drawn_camera + DVec3::new(rng.random_range(-2.0..2.0), rng.random_range(-2.0..2.0), rng.random_range(-2.0..2.0));
        occlusion.set_view(&gpu.queue, DrawnView { camera_m: moved, ..drawn }, true);
        let frame = OcclusionFrame::of(&drawn, moved, hzb_level_count(hzb_size(viewport)));
        let levels = hzb_levels(&depth, viewport.0 as usize, viewport);
        // Balls in front of the drawn camera, at distances whose depths near / z span the
        // drawn depths, some reaching past the viewport or the near plane.
        let inverse = rotation.transpose();
        let balls: Vec<(Vec3, f32, f32)> = (0..3000)
            .map(|_| {
                let z: f64 = 0.1 / rng.random_range(0.005f64..1.2);
                let view = DVec3::new(
                    rng.random_range(-1.0..1.0) * z / drawn.scale[0] as f64,
                    rng.random_range(-1.0..1.0) * z / scale_y as f64,
                    -z,
                );
                let centre = inverse * view + drawn_camera - moved;
                let radius = (z * rng.random_range(0.0..0.1)) as f32;
                (centre.as_vec3(), radius, (z * rng.random_range(0.0..0.03)) as f32)
            })
            .collect();
        let gpu_occluded = probe_occluded(&gpu, &occlusion, &balls);
        for (i, &(centre, radius, margin)) in balls.iter().enumerate() {
            let most = is_occluded(&levels, &frame, centre, radius, margin, 0.9, 1.0 + 1e-4);
            let least = is_occluded(&levels, &frame, centre, radius, margin, 1.1, 1.0 - 1e-4);
            if most == least {
                certain += 1;
                occluded_count += u32::from(most);
                assert_eq!(
                    gpu_occluded[i] == 1,
                    most,
                    "ball {i}: centre {centre}, radius {radius}, margin {margin}, viewport {viewport:?}"
                );
            }
        }
    }
    assert!(certain > 8000, "{certain} of 9000 balls decided away from rounding");
    assert!(occluded_count > 100 && occluded_count < certain - 100, "{occluded_count} of {certain} occluded: both outcomes tested");
}

/// The bridge view (assets/paths/globe-taiwan-coast-ship.json, 20 m above the sea off the
/// Qingshui cliffs) from a pool at 1 px error, occlusion culling on or off: leaves and image.
fn bridge_view(occlusion: bool) -> (u32, image::RgbaImage, HeadlessView<GlobePoolRenderer>, Gpu) {
    let ground = common::taiwan_ground();
    let camera = common::bridge_camera();
    let pool_settings = PoolSettings::default();
    let size_px = (320, 180);
    let gpu = Gpu::headless(&requirements(&pool_settings, 256).with_image_size(size_px)).unwrap_or_else(|e| panic!("{e}"));
    let cache =
        TileCache::new(&gpu, TileCacheConfig { tiles: 256, ..Default::default() }, ground.producer()).unwrap_or_else(|e| panic!("{e}"));
    let settings = GlobeSettings { criterion: Criterion::ScreenSpaceError, pixel_error_px: 1.0, occlusion, ..Default::default() };
    let scene =
        GlobePoolRenderer::new(&gpu, settings, pool_settings, bisector::gpu::target::COLOR_FORMAT, cache).unwrap_or_else(|e| panic!("{e}"));
    let mut view = HeadlessView::new(&gpu, scene, size_px.0, size_px.1);
    let (frames, last) = view.converge(&gpu, &camera, 600);
    assert!(view.scene.is_settled(), "the tile cache did not settle in {frames} frames");
    let image = view.image(&gpu);
    (last.stats.leaves, image, view, gpu)
}

#[test]
fn occlusion_culls_the_hidden_land_behind_the_coast_without_changing_the_picture() {
    let (leaves_on, image_on, view, gpu) = bridge_view(true);
    // The pyramid holds the drawn land (depths above 0) and the sky (0).
    let size = hzb_size((320, 180));
    let base = read_f32_mip(&gpu, view.scene.occlusion.texture(), 0, size);
    assert!(base.iter().any(|&d| d > 0.0) && base.contains(&0.0), "the depth pyramid of the bridge view");
    let (leaves_off, image_off, _, _) = bridge_view(false);
    let differing = image_on.pixels().zip(image_off.pixels()).filter(|(a, b)| a.0.iter().zip(b.0).any(|(x, y)| x.abs_diff(y) > 16)).count();
    let total: u64 = image_on.as_raw().iter().zip(image_off.as_raw()).map(|(a, b)| u64::from(a.abs_diff(*b))).sum();
    let mean = total as f64 / image_on.as_raw().len() as f64;
    eprintln!("leaves {leaves_on} with occlusion culling, {leaves_off} without; {differing} pixels differ by more than 16, mean difference {mean:.3}");
    // Measured on lavapipe: 61,464 against 128,332 leaves, the images identical.
    assert!(f64::from(leaves_on) < 0.6 * f64::from(leaves_off), "{leaves_on} leaves with occlusion culling, {leaves_off} without");
    assert!(mean < 0.5 && differing < image_on.pixels().len() / 200, "the picture changed: {differing} pixels, mean {mean:.3}");
}
