// globe.draw: one triangle per LEB leaf of the octahedron. The vertex shader decodes the leaf's
// vertices in fixed-point map coordinates, lifts them to their heights and places them relative
// to the camera (shared/globe_frame.wgsl); the fragment shader shades with normals from the
// height data (not the mesh), materials, the sea, sun light, haze and the wireframe overlay.
//!include shared/globe_leb.wgsl
//!include shared/globe_frame.wgsl
//!include shared/globe_heights.wgsl
//!include shared/shading.wgsl
//!include shared/atmosphere_apply.wgsl
//!include shared/globe_shade.wgsl

@group(0) @binding(0) var<storage, read> leaf_ids: array<u32>;
@group(0) @binding(1) var<uniform> globe: GlobeFrame;

// Every leaf is drawn as 2^SUB_LEVELS sub-triangles (instances): its bisection continued by the
// instance index's bits. SUB_LEVELS is even, so every edge of a leaf is cut into equal parts and
// neighbouring leaves meet vertex to vertex.
override SUB_LEVELS: u32 = 0u;

@vertex
fn vs_main(@builtin(vertex_index) index: u32, @builtin(instance_index) sub: u32) -> VertexOut {
    let id = leaf_ids[index / 3u];
    let depth = firstLeadingBit(id);
    var v = globe_decode_map(id, depth);
    for (var bit_index = i32(SUB_LEVELS) - 1; bit_index >= 0; bit_index -= 1) {
        v = globe_bisect(v, (sub >> u32(bit_index)) & 1u);
    }
    // The base triangles run counter-clockwise seen from outside and bisection flips the winding
    // at every level: odd levels below the base are drawn in reverse, so that every triangle
    // faces out and the rasterizer culls the far side of the globe.
    let corner = index % 3u;
    let vertex = select(corner, 2u - corner, ((depth + SUB_LEVELS - LEB_BASE_DEPTH) & 1u) == 1u);
    let map = v[vertex];
    let relative = globe_relative_position_m(map, globe_vertex_height_m(map));
    var out: VertexOut;
    out.clip = globe.clip_from_relative * vec4<f32>(relative, 1.0);
    out.map = vec2<f32>(map) / GLOBE_MAP_ONE_F;
    out.relative_m = relative;
    out.barycentric = vec3<f32>(f32(vertex == 0u), f32(vertex == 1u), f32(vertex == 2u));
    globe_vertex_atmosphere(&out);
    return out;
}
