// shade on the globe over the bisector pool (src/globe/pool_raster.rs): one thread per pixel of
// the viewport shades it from the visibility buffer and stores it into the colour target's
// rgba8unorm view, sRGB-encoded here when the target is read as sRGB. The pixel's leaf (its list
// index) gives its slot, the three camera-relative vertices globe.pool_decode placed and their
// map points; the pixel centre's perspective-correct barycentric coordinates come from the
// vertices' clip positions (shared/vis_shade.wgsl's homogeneous form), and the colour is the
// draw's own (`globe_shaded`, shared/globe_shade.wgsl) under the atmosphere's light evaluated at
// the pixel (the hardware draw interpolates it from the vertices). Pixels no triangle covers get
// the sky (shared/atmosphere_sky.wgsl), or space's colour with the atmosphere off, as
// atmosphere.sky leaves them. `fs_shade` is the same as a full-screen fragment pass, for targets
// without a storage view (the viewer's window surface).
//!include shared/pool_types.wgsl
//!include shared/globe_frame.wgsl
//!include shared/globe_heights.wgsl
//!include shared/globe_cull.wgsl
//!include shared/pool_globe.wgsl
//!include shared/shading.wgsl
//!include shared/atmosphere_apply.wgsl
//!include shared/globe_shade.wgsl
//!include shared/atmosphere_sky.wgsl
//!include shared/vis_buffer.wgsl
//!include shared/shade_store.wgsl
//!include shared/full_screen.wgsl

@group(0) @binding(0) var<storage, read> pool_list: array<u32>;
@group(0) @binding(1) var<uniform> globe: GlobeFrame;
@group(0) @binding(2) var<storage, read> pool_ids: array<vec2<u32>>;
@group(0) @binding(3) var<storage, read> pool_vertices: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read> draw_positions: array<vec4<f32>>;
// The visibility buffer read as (leaf index, depth bits) pairs.
@group(3) @binding(0) var<storage, read> vis_words: array<vec2<u32>>;
@group(3) @binding(1) var<uniform> r: RasterUniforms;
@group(3) @binding(2) var colour_target: texture_storage_2d<rgba8unorm, write>;

// Barycentric coordinates (summing to 1) of the screen point `q` = (ndc x, ndc y, 1) in the
// triangle whose corners' clip (x, y, w) give the rows n0, n1, n2 of the adjugate.
fn homogeneous_barycentric(n0: vec3<f32>, n1: vec3<f32>, n2: vec3<f32>, q: vec3<f32>) -> vec3<f32> {
    let l = vec3<f32>(dot(n0, q), dot(n1, q), dot(n2, q));
    return l / (l.x + l.y + l.z);
}

// The map point ([0, 1]^2) of the pool's 64-bit fixed-point map vertex `v`, as globe.pool_draw
// hands it to the fragment shader.
fn vis_map_point(v: vec4<u32>) -> vec2<f32> {
    return (vec2<f32>(v.yw) + vec2<f32>(v.xz) * (1.0 / 4294967296.0)) / GLOBE_MAP_ONE_F;
}

// The linear colour of the pixel centre `position_px` (x right, y down, centres at i + 0.5).
fn vis_colour(position_px: vec2<f32>) -> vec3<f32> {
    let pixel = vec2<u32>(position_px);
    let word = vis_words[pixel.y * r.size_px.x + pixel.x];
    let size = vec2<f32>(r.size_px);
    if (word.y == 0u) {
        if (atmosphere.sun_direction.w == 0.0) {
            return SPACE;
        }
        return sky_colour(atmosphere_sky_view_lut, position_px / size);
    }
    let leaf_index = word.x;
    let slot = pool_list[leaf_index];
    let depth = id_depth(pool_ids[slot]);
    // Written out corner by corner: no array indexed at run time (local memory on some GPUs).
    let first = 3u * leaf_index;
    let p0 = draw_positions[first].xyz;
    let p1 = draw_positions[first + 1u].xyz;
    let p2 = draw_positions[first + 2u].xyz;
    let m0 = vis_map_point(pool_vertices[3u * slot + pool_draw_vertex(depth, 0u)]);
    let m1 = vis_map_point(pool_vertices[3u * slot + pool_draw_vertex(depth, 1u)]);
    let m2 = vis_map_point(pool_vertices[3u * slot + pool_draw_vertex(depth, 2u)]);
    let c0 = (globe.clip_from_relative * vec4<f32>(p0, 1.0)).xyw;
    let c1 = (globe.clip_from_relative * vec4<f32>(p1, 1.0)).xyw;
    let c2 = (globe.clip_from_relative * vec4<f32>(p2, 1.0)).xyw;
    let n0 = cross(c1, c2);
    let n1 = cross(c2, c0);
    let n2 = cross(c0, c1);
    let q = vec3<f32>(position_px.x / size.x * 2.0 - 1.0, 1.0 - position_px.y / size.y * 2.0, 1.0);
    let b = homogeneous_barycentric(n0, n1, n2, q);
    // The change per pixel from the neighbouring pixel centres, in the same plane (fwidth's);
    // only the wireframe reads it.
    var width = vec3<f32>(0.0);
    if (globe.wireframe == 1u) {
        let bx = homogeneous_barycentric(n0, n1, n2, q + vec3<f32>(2.0 / size.x, 0.0, 0.0));
        let by = homogeneous_barycentric(n0, n1, n2, q - vec3<f32>(0.0, 2.0 / size.y, 0.0));
        width = abs(bx - b) + abs(by - b);
    }
    let relative_m = b.x * p0 + b.y * p1 + b.z * p2;
    let map = b.x * m0 + b.y * m1 + b.z * m2;
    // The atmosphere's light at the pixel itself (the draw interpolates it from its vertices),
    // seen at the pixel centre (clip (ndc, 0, 1)).
    let light = atmosphere_vertex(relative_m, vec4<f32>(q.xy, 0.0, 1.0));
    return globe_shaded(map, relative_m, light, b, width);
}

@compute @workgroup_size(SHADE_TILE_PX, SHADE_TILE_PX)
fn cs_shade(@builtin(global_invocation_id) id: vec3<u32>) {
    if (any(id.xy >= r.size_px)) {
        return;
    }
    shade_store(id.xy, vis_colour(vec2<f32>(id.xy) + 0.5));
}

@fragment
fn fs_shade(@builtin(position) position: vec4<f32>) -> @location(0) vec4<f32> {
    return vec4<f32>(vis_colour(position.xy), 1.0);
}
