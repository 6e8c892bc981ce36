// Shading shared by the terrain and globe draws: hypsometric colours, sun and sky light, haze and
// the wireframe overlay. No bindings.

// Colours of the sunlight, the sky light and the haze.
const SUN_COLOUR: vec3<f32> = vec3<f32>(1.0, 0.96, 0.88);
const SKY_COLOUR: vec3<f32> = vec3<f32>(0.55, 0.65, 0.85);
const HAZE_COLOUR: vec3<f32> = vec3<f32>(0.55, 0.66, 0.80);

// Hypsometric colours by absolute height in metres: water at or below sea level (darker with
// depth), then lowland green, upland yellow, brown, grey rock and snow; steep slopes turn to rock.
fn terrain_colour(height_m: f32, slope: f32) -> vec3<f32> {
    if (height_m <= 0.0) {
        return mix(vec3<f32>(0.22, 0.45, 0.64), vec3<f32>(0.04, 0.12, 0.32), sqrt(clamp(-height_m / 5000.0, 0.0, 1.0)));
    }
    let rock = vec3<f32>(0.45, 0.43, 0.41);
    var c = mix(vec3<f32>(0.28, 0.47, 0.24), vec3<f32>(0.47, 0.58, 0.30), smoothstep(0.0, 400.0, height_m));
    c = mix(c, vec3<f32>(0.66, 0.63, 0.42), smoothstep(400.0, 1000.0, height_m));
    c = mix(c, vec3<f32>(0.55, 0.45, 0.34), smoothstep(1000.0, 1700.0, height_m));
    c = mix(c, rock, smoothstep(1700.0, 2400.0, height_m));
    c = mix(c, rock, smoothstep(0.6, 1.1, slope));
    let snow_line = smoothstep(2500.0, 3200.0, height_m) * (1.0 - smoothstep(0.7, 1.2, slope));
    return mix(c, vec3<f32>(0.95, 0.96, 0.98), snow_line);
}

// `colour` with dark lines along the triangle's edges (barycentric coordinates interpolated
// across it), about a pixel wide.
fn wireframe_overlay(colour: vec3<f32>, barycentric: vec3<f32>) -> vec3<f32> {
    return wireframe_overlay_with_width(colour, barycentric, fwidth(barycentric));
}

// As `wireframe_overlay`, with the barycentric change per pixel `width` given (a pass that
// shades pixels of different triangles side by side cannot take it from fwidth).
fn wireframe_overlay_with_width(colour: vec3<f32>, barycentric: vec3<f32>, width: vec3<f32>) -> vec3<f32> {
    let edge = smoothstep(vec3<f32>(0.0), width * 1.2, barycentric);
    let line = 1.0 - min(min(edge.x, edge.y), edge.z);
    return mix(colour, vec3<f32>(0.05, 0.05, 0.08), line * 0.85);
}

// `albedo` lit by the sun (diffuse, towards unit `sun`) and by the sky, by how far unit `normal`
// faces the sky (up is `up_dot_normal` = 1), with sky light `sky_strength`.
fn sun_and_sky_light(albedo: vec3<f32>, normal: vec3<f32>, sun: vec3<f32>, up_dot_normal: f32, sky_strength: f32) -> vec3<f32> {
    let diffuse = max(dot(normal, sun), 0.0);
    let sky = 0.5 + 0.5 * up_dot_normal;
    return albedo * (1.3 * diffuse * SUN_COLOUR + sky_strength * sky * SKY_COLOUR);
}

// `colour` seen through haze of colour `haze_colour` at `distance_m`: the haze thickens by
// 1 - e^(-distance / haze_distance_m), up to 60 %.
fn hazed(colour: vec3<f32>, haze_colour: vec3<f32>, distance_m: f32, haze_distance_m: f32) -> vec3<f32> {
    let haze = 1.0 - exp(-distance_m / haze_distance_m);
    return mix(colour, haze_colour, haze * 0.6);
}
