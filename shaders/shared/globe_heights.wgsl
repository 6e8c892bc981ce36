// Heights of the globe's vertices. For now the bare sphere; the tile cache (issue 4) answers here.

// The height in metres above the sphere of the vertex at fixed-point map point `map`: a function
// of the vertex alone, so every triangle sharing it agrees (no cracks).
fn globe_vertex_height_m(map: vec2<u32>) -> f32 {
    return 0.0;
}

// The terrain at map point `map` (map coordinates as floats, [0, 1]^2) for shading: x = height in
// metres, yz = its derivatives per map unit (d/du, d/dv).
fn globe_surface_sample(map: vec2<f32>) -> vec3<f32> {
    return vec3<f32>(0.0);
}
