// The globe's shading (`globe_shaded`), its fragment shader and what its vertex shaders hand it,
// shared by the heap's draw (globe_draw.wgsl), the bisector pool's (globe_pool_draw.wgsl) and the
// compute rasteriser's shade (globe_shade_compute.wgsl): normals from the height data (not the
// mesh), materials (shared/globe_materials.wgsl), the atmosphere's light and aerial perspective,
// and the wireframe overlay; the sea in shared/globe_sea.wgsl. Needs shared/globe_frame.wgsl
// (with `globe` bound), shared/globe_heights.wgsl, shared/shading.wgsl and
// shared/atmosphere_apply.wgsl.
//!include shared/globe_sea.wgsl
//!include shared/globe_materials.wgsl

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    // Map coordinates in [0, 1]^2.
    @location(0) map: vec2<f32>,
    // Camera-relative position in metres.
    @location(1) relative_m: vec3<f32>,
    @location(2) barycentric: vec3<f32>,
    // The atmosphere's light at the vertex (shared/atmosphere_apply.wgsl, `AtmosphereLight`).
    @location(3) sun_light: vec3<f32>,
    @location(4) sky_light: vec3<f32>,
    @location(5) aerial: vec4<f32>,
}

// Fills `out`'s atmosphere from its camera-relative position and clip position.
fn globe_vertex_atmosphere(out: ptr<function, VertexOut>) {
    let light = atmosphere_vertex((*out).relative_m, (*out).clip);
    (*out).sun_light = light.sun;
    (*out).sky_light = light.sky;
    (*out).aerial = light.aerial;
}

struct MapFrame {
    // Unit vector at the point.
    up: vec3<f32>,
    // Its derivatives per map unit.
    d_du: vec3<f32>,
    d_dv: vec3<f32>,
}

// The unit vector at map point `p` and its derivatives along u and v (octahedral map, no fold:
// `p` inside the square).
fn globe_map_frame(p: vec2<f32>) -> MapFrame {
    let q = 2.0 * p - 1.0;
    let sx = select(-1.0, 1.0, q.x >= 0.0);
    let sy = select(-1.0, 1.0, q.y >= 0.0);
    let z = 1.0 - abs(q.x) - abs(q.y);
    var o: vec3<f32>;
    var o_du: vec3<f32>;
    var o_dv: vec3<f32>;
    if (z >= 0.0) {
        o = vec3<f32>(q, z);
        o_du = vec3<f32>(2.0, 0.0, -2.0 * sx);
        o_dv = vec3<f32>(0.0, 2.0, -2.0 * sy);
    } else {
        o = vec3<f32>(sx * (1.0 - abs(q.y)), sy * (1.0 - abs(q.x)), z);
        o_du = vec3<f32>(0.0, -2.0 * sx * sy, -2.0 * sx);
        o_dv = vec3<f32>(-2.0 * sx * sy, 0.0, -2.0 * sy);
    }
    let len = length(o);
    let n = o / len;
    return MapFrame(n, (o_du - n * dot(n, o_du)) / len, (o_dv - n * dot(n, o_dv)) / len);
}

// The unit normal, pointing up, of the terrain whose height has `gradient` (metres per map unit)
// over the map's `frame`: the cross product of its tangents per map unit.
fn globe_surface_normal(frame: MapFrame, gradient: vec2<f32>) -> vec3<f32> {
    let t_u = globe.radius_m * frame.d_du + gradient.x * frame.up;
    let t_v = globe.radius_m * frame.d_dv + gradient.y * frame.up;
    let normal = normalize(cross(t_u, t_v));
    return select(normal, -normal, dot(normal, frame.up) < 0.0);
}

// The display colour of the globe's surface at map point `map_uv` ([0, 1]^2), `relative_m` from
// the camera, under the atmosphere's `light` there; the wireframe from the triangle's
// `barycentric` coordinates and their change per pixel `barycentric_width`. The draws' fragment
// shader (`fs_main`) and the compute rasteriser's shade (shared/globe_vis_shade.wgsl) both call it.
fn globe_shaded(map_uv: vec2<f32>, relative_m: vec3<f32>, light: AtmosphereLight, barycentric: vec3<f32>, barycentric_width: vec3<f32>) -> vec3<f32> {
    let map = globe_map_fixed(map_uv);
    // The tiles fragments want are asked for by globe.decode (a grid of points on large leaves):
    // a write here would cost every fragment its early depth test (+0.44 ms on the H100).
    let found = tile_cache_find(map, globe_wanted_zoom(length(relative_m)));
    // The height (x, tile_cache_height's) and its cell's slope (yz) that the detail uses.
    let height_slope = tile_cache_height_slope(found, map);
    let height_m = height_slope.x;
    let frame = globe_map_frame(clamp(map_uv, vec2<f32>(0.0), vec2<f32>(1.0)));
    var colour: vec3<f32>;
    if (height_m <= 0.0) {
        // The sea (shared/globe_sea.wgsl): its floor's relief does not shade its surface, so its
        // gradient is not read. Its footprint comes from the distance, not from derivatives.
        colour = sea_shade(-height_m, frame.up, relative_m, light);
    } else {
        // No bands where the data's height steps show (shared/globe_materials.wgsl).
        let gradient = globe_shading_gradient(found, map, tile_cache_gradient(found, map));
        let normal = globe_surface_normal(frame, gradient);
        // Slope: the tangent of the angle between the data's normal and the vertical (the
        // materials follow the data, not the detail: no rock and grass speckled by the noise).
        let cos_slope = clamp(dot(normal, frame.up), 0.05, 1.0);
        let slope = sqrt(1.0 - cos_slope * cos_slope) / cos_slope;
        let albedo = globe_terrain_albedo(height_m, slope, asin(clamp(frame.up.z, -1.0, 1.0)));
        // The detail below the data in the light (shared/globe_heights.wgsl): its octaves of at
        // least about a pixel at this distance, as the geometry's at a vertex this far (none
        // with the detail off).
        let pixel_m = max(length(relative_m), 0.1) / globe.projection_scale_px;
        let detail = globe_found_detail_gradient(found, map, height_slope, pixel_m);
        let lit_normal = globe_surface_normal(frame, gradient + detail);
        // Sun, sky light and aerial perspective (shared/atmosphere_apply.wgsl).
        colour = atmosphere_shade(albedo, lit_normal, frame.up, light);
    }
    if (globe.wireframe == 1u) {
        colour = wireframe_overlay_with_width(colour, barycentric, barycentric_width);
    }
    return colour;
}

@fragment
fn fs_main(in: VertexOut) -> @location(0) vec4<f32> {
    // The light and aerial perspective interpolated from the vertices.
    let light = AtmosphereLight(in.sun_light, in.sky_light, in.aerial);
    return vec4<f32>(globe_shaded(in.map, in.relative_m, light, in.barycentric, fwidth(in.barycentric)), 1.0);
}
