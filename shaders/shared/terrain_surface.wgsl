// The flat terrain's surface, shared by its hardware draw (terrain_draw.wgsl) and its compute
// rasterisation (terrain_raster_*.wgsl, terrain_shade.wgsl): the draw uniforms, a leaf's
// displaced and morphed vertices, and the shading of a point of a triangle. Binds the uniforms at
// @group(0) @binding(1), the gradients and their sampler at @group(1) @binding(1) and (2).
//!include shared/leb.wgsl
//!include shared/heights.wgsl
//!include shared/shading.wgsl
//!include shared/morph_constants.wgsl

// Keep in sync with DrawUniforms in src/flat/terrain_draw.rs.
struct DrawUniforms {
    clip_from_world: mat4x4<f32>,
    camera_position_m: vec4<f32>,
    sun_direction: vec4<f32>,
    terrain_size_m: f32,
    wireframe: u32,
    haze_distance_m: f32,
    // Pixels per metre at 1 m distance: viewport height / (2 tan(fov_y / 2)).
    projection_scale: f32,
    // Pixel target of the LOD criterion.
    morph_target_px: f32,
    // 0 = no morphing, 1 = by screen-space error, 2 = by edge length.
    morph_mode: u32,
}

@group(0) @binding(1) var<uniform> u: DrawUniforms;
// Height gradient per sample step (terrain.gradients), filtered: normals at full data resolution.
@group(1) @binding(1) var gradient_texture: texture_2d<f32>;
@group(1) @binding(2) var gradient_sampler: sampler;

// Vertex morphing; mirrors src/flat/morph.rs (see its header for the rules), whose MORPH_GRID_BITS
// and MORPH_END shared/morph_constants.wgsl holds.

// The height at which the vertex at `uv` is drawn: between the midpoint of the edge whose split
// created it and its own height, by a factor that depends on the vertex alone (no cracks).
// `h` is the vertex's own height (already sampled by the caller).
fn morphed_height_m(uv: vec2<f32>, h: f32) -> f32 {
    let pq = vec2<u32>(round(uv * f32(1u << MORPH_GRID_BITS)));
    let t = min(countTrailingZeros(pq.x), countTrailingZeros(pq.y));
    if (u.morph_mode == 0u || t >= MORPH_GRID_BITS) {
        return h;
    }
    let s = 1u << t;
    let odd = ((pq >> vec2<u32>(t)) & vec2<u32>(1u)) == vec2<u32>(1u);
    var a: vec2<u32>;
    var b: vec2<u32>;
    if (odd.x && !odd.y) {
        a = vec2<u32>(pq.x - s, pq.y);
        b = vec2<u32>(pq.x + s, pq.y);
    } else if (!odd.x && odd.y) {
        a = vec2<u32>(pq.x, pq.y - s);
        b = vec2<u32>(pq.x, pq.y + s);
    } else if (t + 1u == MORPH_GRID_BITS) {
        a = vec2<u32>(pq.x - s, pq.y + s);
        b = vec2<u32>(pq.x + s, pq.y - s);
    } else {
        let ij = (pq - vec2<u32>(s)) >> vec2<u32>(t + 1u);
        let even = (ij & vec2<u32>(1u)) == vec2<u32>(0u);
        a = select(pq - vec2<u32>(s), pq + vec2<u32>(s), even);
        b = 2u * pq - a;
    }
    let scale = 1.0 / f32(1u << MORPH_GRID_BITS);
    let uv_a = vec2<f32>(a) * scale;
    let uv_b = vec2<f32>(b) * scale;
    let coarse = 0.5 * (height_at_uv_m(uv_a) + height_at_uv_m(uv_b));
    let distance_m = max(length(vec3<f32>(uv * u.terrain_size_m, h) - u.camera_position_m.xyz), 1e-3);
    var size_m = abs(h - coarse);
    if (u.morph_mode == 2u) {
        size_m = length(uv_a - uv_b) * u.terrain_size_m;
    }
    let size_px = size_m * u.projection_scale / distance_m;
    let factor = clamp((size_px / u.morph_target_px - 1.0) / (MORPH_END - 1.0), 0.0, 1.0);
    return mix(coarse, h, factor);
}

// A leaf's three corners in drawing order: bisection flips the winding at every level (odd
// depths run counter-clockwise seen from above, even depths clockwise), so even depths are
// reversed and every triangle faces up.
fn terrain_corners_uv(id: u32) -> array<vec2<f32>, 3> {
    let v = leb_decode_vertices(id, firstLeadingBit(id));
    if ((firstLeadingBit(id) & 1u) == 0u) {
        return array<vec2<f32>, 3>(v[2], v[1], v[0]);
    }
    return v;
}

// The shaded colour of the terrain at `uv` seen at `world_m`, with barycentric coordinates
// `barycentric` in its triangle that change by `barycentric_width` per pixel (for the wireframe).
fn terrain_shaded(uv: vec2<f32>, world_m: vec3<f32>, barycentric: vec3<f32>, barycentric_width: vec3<f32>) -> vec3<f32> {
    // Texel centres sit at uv = i / (n - 1); the sampler's at (i + 0.5) / n.
    let size = vec2<f32>(textureDimensions(gradient_texture));
    let texel_uv = (uv * (size - 1.0) + 0.5) / size;
    let metres_per_sample = u.terrain_size_m / (size.x - 1.0);
    let data = textureSampleLevel(gradient_texture, gradient_sampler, texel_uv, 0.0);
    let gradient = data.xy / metres_per_sample;
    let normal = normalize(vec3<f32>(-gradient, 1.0));
    let slope = length(gradient);
    // Colour by the data's height here, not the mesh's: a coarse triangle across a coast must
    // not paint the sea green.
    let albedo = terrain_colour(data.z, slope);
    var colour = sun_and_sky_light(albedo, normal, normalize(u.sun_direction.xyz), normal.z, 0.22);
    colour = hazed(colour, HAZE_COLOUR, length(world_m - u.camera_position_m.xyz), u.haze_distance_m);
    if (u.wireframe == 1u) {
        colour = wireframe_overlay_with_width(colour, barycentric, barycentric_width);
    }
    return colour;
}

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) uv: vec2<f32>,
    @location(1) world_m: vec3<f32>,
    @location(2) barycentric: vec3<f32>,
}

// Corner `corner` (0..3, drawing order) of leaf `id` for the hardware rasteriser.
fn terrain_vertex(id: u32, corner: u32) -> VertexOut {
    let v = terrain_corners_uv(id);
    let uv = v[corner];
    // The triangle's three heights, sampled once: this vertex's feeds the morph, all three the
    // nodata test.
    let samples = array<HeightSample, 3>(height_sample_at_uv(v[0]), height_sample_at_uv(v[1]), height_sample_at_uv(v[2]));
    let world = vec3<f32>(uv * u.terrain_size_m, morphed_height_m(uv, samples[corner].height_m));
    var out: VertexOut;
    out.clip = u.clip_from_world * vec4<f32>(world, 1.0);
    // A triangle touching a sample without data is not drawn: all three vertices (each invocation
    // decides alike) collapse to one point outside the view.
    if (samples[0].nodata || samples[1].nodata || samples[2].nodata) {
        out.clip = vec4<f32>(2.0, 2.0, 2.0, 1.0);
    }
    out.uv = uv;
    out.world_m = world;
    out.barycentric = vec3<f32>(f32(corner == 0u), f32(corner == 1u), f32(corner == 2u));
    return out;
}
