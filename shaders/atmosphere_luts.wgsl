// atmosphere.transmittance and atmosphere.multiple_scattering: the look-up tables that depend on
// the atmosphere's parameters alone (Hillaire 2020 sections 4 and 5), rebuilt when they change.
// Mirrored by src/globe/atmosphere/cpu.rs.
//!include shared/atmosphere.wgsl
//!include shared/atmosphere_march.wgsl

@group(0) @binding(0) var<uniform> atmosphere: Atmosphere;
@group(0) @binding(1) var atmosphere_transmittance_lut: texture_2d<f32>;
@group(0) @binding(3) var atmosphere_sampler: sampler;
@group(0) @binding(4) var transmittance_out: texture_storage_2d<rgba16float, write>;
@group(0) @binding(5) var multiple_scattering_out: texture_storage_2d<rgba16float, write>;

// Steps of the transmittance's march (Hillaire's 40).
const TRANSMITTANCE_SAMPLES: f32 = 40.0;
// Steps of each of the multiple scattering's 64 rays (Hillaire's 20).
const MULTIPLE_SCATTERING_SAMPLES: f32 = 20.0;

// The multiple-scattering table is what this file builds: no multiple scattering while building it.
fn atmosphere_ms_luminance(height_km: f32, mu_s: f32) -> vec3<f32> {
    return vec3<f32>(0.0);
}

// Optical depth from radius `r` along cosine `mu` to the top, or to the ground where the ray meets it.
fn optical_depth(r: f32, mu: f32) -> vec3<f32> {
    let height_km = r - atmosphere.radii.x;
    let t_bottom = atmosphere_ray_sphere(height_km, mu, atmosphere.radii.x);
    let t_top = atmosphere_ray_sphere(height_km, mu, atmosphere.radii.y);
    var t_max = t_top;
    if (t_bottom >= 0.0) {
        t_max = min(t_top, t_bottom);
    }
    let direction = vec2<f32>(sqrt(max(1.0 - mu * mu, 0.0)), mu);
    var depth = vec3<f32>(0.0);
    var t = 0.0;
    for (var s = 0.0; s < TRANSMITTANCE_SAMPLES; s += 1.0) {
        let new_t = t_max * (s + 0.3) / TRANSMITTANCE_SAMPLES;
        let dt = new_t - t;
        t = new_t;
        let p = vec2<f32>(0.0, r) + t * direction;
        depth += atmosphere_medium(length(p) - atmosphere.radii.x).extinction * dt;
    }
    return depth;
}

// One texel per thread: transmittance from (r, mu) of the texel's centre to the top.
@compute @workgroup_size(8, 8)
fn transmittance(@builtin(global_invocation_id) id: vec3<u32>) {
    let size = textureDimensions(transmittance_out);
    if (any(id.xy >= size)) {
        return;
    }
    let uv = (vec2<f32>(id.xy) + 0.5) / vec2<f32>(size);
    let p = atmosphere_transmittance_params(uv);
    textureStore(transmittance_out, id.xy, vec4<f32>(exp(-optical_depth(p.x, p.y)), 1.0));
}

var<workgroup> multi_as_1_shared: array<vec3<f32>, 64>;
var<workgroup> luminance_shared: array<vec3<f32>, 64>;

// One workgroup per texel (height, sun's zenith cosine), one thread per direction of 64 spread
// evenly over the sphere: second-order light L_2 and the transfer f_ms, then
// Psi_ms = L_2 / (1 - f_ms) (Hillaire's equations 5 to 10).
@compute @workgroup_size(64)
fn multiple_scattering(@builtin(workgroup_id) texel: vec3<u32>, @builtin(local_invocation_index) index: u32) {
    let size = vec2<f32>(textureDimensions(multiple_scattering_out));
    let uv = atmosphere_sub_uv_to_unit((vec2<f32>(texel.xy) + 0.5) / size, size);
    let cos_sun = uv.x * 2.0 - 1.0;
    let sun = vec3<f32>(0.0, sqrt(clamp(1.0 - cos_sun * cos_sun, 0.0, 1.0)), cos_sun);
    let thickness = atmosphere.radii.y - atmosphere.radii.x;
    let height_km = ATMOSPHERE_GROUND_OFFSET_KM + clamp(uv.y, 0.0, 1.0) * (thickness - 2.0 * ATMOSPHERE_GROUND_OFFSET_KM);
    let origin = vec3<f32>(0.0, 0.0, atmosphere.radii.x + height_km);
    let i = (f32(index / 8u) + 0.5) / 8.0;
    let j = (f32(index % 8u) + 0.5) / 8.0;
    let theta = 2.0 * ATMOSPHERE_PI * i;
    let phi = acos(1.0 - 2.0 * j);
    let dir = vec3<f32>(cos(theta) * sin(phi), sin(theta) * sin(phi), cos(phi));
    let march = atmosphere_march(origin, height_km, dir, sun, 1.0e9, MULTIPLE_SCATTERING_SAMPLES, false, false, true);
    let weight = 4.0 * ATMOSPHERE_PI / 64.0;
    multi_as_1_shared[index] = march.multi_as_1 * weight;
    luminance_shared[index] = march.luminance * weight;
    workgroupBarrier();
    for (var stride = 32u; stride > 0u; stride >>= 1u) {
        if (index < stride) {
            multi_as_1_shared[index] += multi_as_1_shared[index + stride];
            luminance_shared[index] += luminance_shared[index + stride];
        }
        workgroupBarrier();
    }
    if (index == 0u) {
        let f_ms = multi_as_1_shared[0] / (4.0 * ATMOSPHERE_PI);
        let second_order = luminance_shared[0] / (4.0 * ATMOSPHERE_PI);
        let psi = atmosphere.radii.w * second_order / (vec3<f32>(1.0) - f_ms);
        textureStore(multiple_scattering_out, texel.xy, vec4<f32>(psi, 1.0));
    }
}
