// globe.pool_draw: the globe drawn from the bisector pool, one triangle per used slot of
// pool.list. The vertex shader reads the vertex globe.pool_decode placed relative to the camera
// from the slot's 64-bit fixed-point map vertex at its height (shared/pool_globe.wgsl: exact to
// the id limit; one tile-cache lookup per vertex per frame, in the decode, rather than one per
// drawn corner), and the map point from the slot; the fragment shader is the heap's
// (shared/globe_shade.wgsl).
//!include shared/pool_types.wgsl
//!include shared/globe_frame.wgsl
//!include shared/globe_heights.wgsl
//!include shared/globe_cull.wgsl
//!include shared/pool_globe.wgsl
//!include shared/shading.wgsl
//!include shared/atmosphere_apply.wgsl
//!include shared/globe_shade.wgsl

@group(0) @binding(0) var<storage, read> pool_list: array<u32>;
@group(0) @binding(1) var<uniform> globe: GlobeFrame;
@group(0) @binding(2) var<storage, read> pool_ids: array<vec2<u32>>;
@group(0) @binding(3) var<storage, read> pool_vertices: array<vec4<u32>>;
// Each listed leaf's three vertices, camera-relative, in drawing order: globe.pool_decode placed
// them (with their heights from the tile cache) this frame.
@group(0) @binding(4) var<storage, read> draw_positions: array<vec4<f32>>;

@vertex
fn vs_main(@builtin(vertex_index) index: u32) -> VertexOut {
    let slot = pool_list[index / 3u];
    let vertex = pool_draw_vertex(id_depth(pool_ids[slot]), index % 3u);
    let v = pool_vertices[3u * slot + vertex];
    let relative = draw_positions[index].xyz;
    var out: VertexOut;
    out.clip = globe.clip_from_relative * vec4<f32>(relative, 1.0);
    out.map = (vec2<f32>(v.yw) + vec2<f32>(v.xz) * (1.0 / 4294967296.0)) / GLOBE_MAP_ONE_F;
    out.relative_m = relative;
    out.barycentric = vec3<f32>(f32(vertex == 0u), f32(vertex == 1u), f32(vertex == 2u));
    globe_vertex_atmosphere(&out);
    return out;
}
