// atmosphere.sky_view and atmosphere.aerial_perspective: the look-up tables of the camera and the
// sun, rebuilt every frame (Hillaire 2020 sections 5.2 and 5.3). The sky-view table holds the sky
// around the camera (longitude relative to the sun, latitude dense near the horizon); the
// aerial-perspective volume holds, per froxel of the view, the light scattered towards the camera
// (rgb) and the mean transmittance (a) from where the ray enters the atmosphere to the froxel's
// distance: slices spread quadratically over the `viewport.z` km beyond that entry, or from 40 km
// up (`viewport.w` = 1) over each column's own reach to the ground, densest at the ground.
// Mirrored (the sky-view texel and a froxel) by src/globe/atmosphere/cpu.rs.
//!include shared/atmosphere.wgsl
//!include shared/atmosphere_march.wgsl

@group(0) @binding(0) var<uniform> atmosphere: Atmosphere;
@group(0) @binding(1) var atmosphere_transmittance_lut: texture_2d<f32>;
@group(0) @binding(2) var atmosphere_multiple_scattering_lut: texture_2d<f32>;
@group(0) @binding(3) var atmosphere_sampler: sampler;
@group(0) @binding(6) var sky_view_out: texture_storage_2d<rgba16float, write>;
@group(0) @binding(7) var aerial_perspective_out: texture_storage_3d<rgba16float, write>;

// Steps of each sky-view texel's ray (Hillaire's 30, spread quadratically).
const SKY_VIEW_SAMPLES: f32 = 30.0;

fn atmosphere_ms_luminance(height_km: f32, mu_s: f32) -> vec3<f32> {
    let size = vec2<f32>(textureDimensions(atmosphere_multiple_scattering_lut));
    let uv = atmosphere_multiple_scattering_uv(height_km, mu_s, size);
    return textureSampleLevel(atmosphere_multiple_scattering_lut, atmosphere_sampler, uv, 0.0).rgb;
}

// The camera's height above the bottom, kept off the ground sphere.
fn camera_height_km() -> f32 {
    return max(atmosphere.camera_km.w, ATMOSPHERE_GROUND_OFFSET_KM);
}

// One texel per thread, in the camera's local frame (z up, the sun in the xz plane).
@compute @workgroup_size(8, 8)
fn sky_view(@builtin(global_invocation_id) id: vec3<u32>) {
    let size = textureDimensions(sky_view_out);
    if (any(id.xy >= size)) {
        return;
    }
    let uv = (vec2<f32>(id.xy) + 0.5) / vec2<f32>(size);
    var height_km = camera_height_km();
    let angles = atmosphere_sky_view_params(height_km, uv);
    let up = normalize(atmosphere.camera_km.xyz);
    let cos_sun = dot(up, atmosphere.sun_direction.xyz);
    let sun = normalize(vec3<f32>(sqrt(max(1.0 - cos_sun * cos_sun, 0.0)), 0.0, cos_sun));
    let sin_view = sqrt(max(1.0 - angles.x * angles.x, 0.0));
    let dir = vec3<f32>(sin_view * angles.y, sin_view * sqrt(max(1.0 - angles.y * angles.y, 0.0)), angles.x);
    var origin = vec3<f32>(0.0, 0.0, atmosphere.radii.x + height_km);
    let thickness = atmosphere.radii.y - atmosphere.radii.x;
    if (height_km >= thickness) {
        // From space: start where the ray enters the atmosphere, just inside it.
        let t_top = atmosphere_ray_sphere(height_km, angles.x, atmosphere.radii.y);
        if (t_top < 0.0) {
            textureStore(sky_view_out, id.xy, vec4<f32>(0.0, 0.0, 0.0, 1.0));
            return;
        }
        let entry = origin + t_top * dir;
        height_km = thickness - ATMOSPHERE_GROUND_OFFSET_KM;
        origin = normalize(entry) * (atmosphere.radii.x + height_km);
    }
    let march = atmosphere_march(origin, height_km, dir, sun, 1.0e9, SKY_VIEW_SAMPLES, true, true, false);
    textureStore(sky_view_out, id.xy, vec4<f32>(march.luminance, 1.0));
}

// One froxel per thread: the march from the ray's entry into the atmosphere to the froxel's slice.
@compute @workgroup_size(4, 4, 4)
fn aerial_perspective(@builtin(global_invocation_id) id: vec3<u32>) {
    let size = textureDimensions(aerial_perspective_out);
    if (any(id >= size)) {
        return;
    }
    let uv = (vec2<f32>(id.xy) + 0.5) / vec2<f32>(size.xy);
    let dir = atmosphere_view_direction(uv);
    let entry_km = atmosphere_entry_km(dir);
    if (entry_km < 0.0) {
        textureStore(aerial_perspective_out, id, vec4<f32>(0.0, 0.0, 0.0, 1.0));
        return;
    }
    let slice = (f32(id.z) + 0.5) / f32(size.z);
    // The slice's distance beyond the entry, the inverse of atmosphere_aerial_depth
    // (shared/atmosphere_apply.wgsl): from 40 km up, ending at the ground and densest there.
    var slice_km = atmosphere.viewport.z * slice * slice;
    if (atmosphere.viewport.w == 1.0) {
        slice_km = atmosphere_aerial_column_km(dir, entry_km) * (1.0 - (1.0 - slice) * (1.0 - slice));
    }
    var origin = atmosphere.camera_km.xyz + entry_km * dir;
    var height_km = camera_height_km();
    if (entry_km > 0.0) {
        height_km = atmosphere.radii.y - atmosphere.radii.x - ATMOSPHERE_GROUND_OFFSET_KM;
        origin = normalize(origin) * (atmosphere.radii.x + height_km);
    }
    let samples = max(1.0, f32(id.z + 1u) * 2.0);
    let march = atmosphere_march(origin, height_km, dir, atmosphere.sun_direction.xyz, slice_km, samples, false, true, false);
    textureStore(aerial_perspective_out, id, vec4<f32>(march.luminance, dot(march.transmittance, vec3<f32>(1.0 / 3.0))));
}
