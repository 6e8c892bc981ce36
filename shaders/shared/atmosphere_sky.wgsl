// The sky behind the globe, shared by atmosphere.sky (atmosphere_sky.wgsl, a full-screen pass
// after the hardware draw) and the compute rasteriser's shade (shared/globe_vis_shade.wgsl, for
// the pixels no triangle covers): the sky-view table in the pixel's direction plus the sun's disc
// (dimmed by the transmittance along the ray), over space's colour. Needs shared/atmosphere.wgsl
// with `atmosphere`, `atmosphere_transmittance_lut` and `atmosphere_sampler` bound; the sky-view
// table is an argument (the two passes bind it under different names).

// Space behind the atmosphere (linear; SPACE_COLOR in src/globe/renderer.rs).
const SPACE: vec3<f32> = vec3<f32>(0.005, 0.007, 0.018);

// The sky's luminance (sun of illuminance 1) in camera-relative unit direction `dir`, from the
// sky-view table `sky_view_lut`.
fn sky_luminance(sky_view_lut: texture_2d<f32>, dir: vec3<f32>) -> vec3<f32> {
    let height_km = max(atmosphere.camera_km.w, ATMOSPHERE_GROUND_OFFSET_KM);
    let up = normalize(atmosphere.camera_km.xyz);
    let sun = atmosphere.sun_direction.xyz;
    let cos_view = dot(up, dir);
    let ground = atmosphere_ray_sphere(height_km, cos_view, atmosphere.radii.x) >= 0.0;
    var luminance = atmosphere_sky_view_luminance(sky_view_lut, height_km, up, dir);
    // The sun's disc: its illuminance spread over its solid angle, softened over its outer 20 %.
    let radius = atmosphere.ground_albedo.w;
    let angle = acos(clamp(dot(dir, sun), -1.0, 1.0));
    if (!ground && angle < radius) {
        var through = vec3<f32>(1.0);
        let entry_km = atmosphere_entry_km(dir);
        if (entry_km == 0.0) {
            through = atmosphere_transmittance(height_km, cos_view);
        } else if (entry_km > 0.0) {
            let entry = atmosphere.camera_km.xyz + entry_km * dir;
            through = atmosphere_transmittance(atmosphere.radii.y - atmosphere.radii.x, dot(normalize(entry), dir));
        }
        let disc = 1.0 - smoothstep(0.8 * radius, radius, angle);
        luminance += disc * through / (ATMOSPHERE_PI * radius * radius);
    }
    return luminance;
}

// The display colour of the sky at viewport point `uv` ([0, 1]^2, y down), from the sky-view
// table `sky_view_lut`.
fn sky_colour(sky_view_lut: texture_2d<f32>, uv: vec2<f32>) -> vec3<f32> {
    let dir = atmosphere_view_direction(uv);
    let luminance = atmosphere.sun_illuminance.rgb * sky_luminance(sky_view_lut, dir);
    return SPACE + atmosphere_tonemap(luminance);
}
