// The sea's wave normals: a sum of Gerstner waves, plane waves in earth-fixed 3-D space whose
// wave vectors are whole multiples of 2 pi / SEA_WAVE_PERIOD_M, so the pattern repeats every
// SEA_WAVE_PERIOD_M along every axis and a camera-relative point plus the camera's position
// modulo that period (from f64 on the CPU) gives the same phases as the exact position. Each
// wave is seen on the surface through its wave vector's projection on the tangent plane. Waves
// shorter than a few pixels fade out and their slope variance goes to the glint's roughness
// instead (no aliasing at a distance). Pure functions, no bindings. CPU twin: src/globe/sea.rs
// (keep SEA_WAVES in sync with WAVES there).

// The period of the wave pattern along every earth-fixed axis, metres.
const SEA_WAVE_PERIOD_M: f32 = 256.0;
const SEA_WAVE_COUNT: u32 = 8u;
// Standard gravity (deep-water dispersion: omega = sqrt(g |k|)), m/s^2.
const SEA_GRAVITY_M_S2: f32 = 9.81;
// Per wave: xyz = the wave vector in units of 2 pi / SEA_WAVE_PERIOD_M (whole numbers), w = its
// steepness, the slope amplitude a |k|.
const SEA_WAVES: array<vec4<f32>, 8> = array<vec4<f32>, 8>(
    vec4<f32>(3.0, 1.0, 2.0, 0.040),
    vec4<f32>(-2.0, 4.0, 1.0, 0.045),
    vec4<f32>(5.0, -3.0, 4.0, 0.050),
    vec4<f32>(-7.0, 2.0, -6.0, 0.060),
    vec4<f32>(11.0, 8.0, -5.0, 0.060),
    vec4<f32>(-13.0, -9.0, 12.0, 0.070),
    vec4<f32>(23.0, -17.0, 9.0, 0.070),
    vec4<f32>(-31.0, 24.0, -29.0, 0.080),
);
// Gerstner's Q: how far the crests sharpen (the normal's vertical term), 0 = plain sines.
const SEA_GERSTNER_Q: f32 = 0.5;

// The wave normal at earth-fixed point `position_m` (modulo SEA_WAVE_PERIOD_M) on the sea whose
// unit vertical is `up`, at `time_s`, where a pixel covers `pixel_m` metres of the surface:
// xyz = the unit normal, w = the slope variance of the waves faded out (for the roughness).
fn sea_wave_normal(position_m: vec3<f32>, up: vec3<f32>, time_s: f32, pixel_m: f32) -> vec4<f32> {
    let k_unit = 6.28318530717959 / SEA_WAVE_PERIOD_M;
    var tangent = vec3<f32>(0.0);
    var vertical = 0.0;
    var variance = 0.0;
    for (var i = 0u; i < SEA_WAVE_COUNT; i += 1u) {
        let wave = SEA_WAVES[i];
        let k = wave.xyz * k_unit;
        let k_len = length(k);
        // Full at 8 pixels per wavelength, gone at 2.
        let wavelength_m = 6.28318530717959 / k_len;
        let fade = clamp((wavelength_m / max(pixel_m, 1e-6) - 2.0) / 6.0, 0.0, 1.0);
        variance += (1.0 - fade) * wave.w * wave.w * 0.5;
        if (fade > 0.0) {
            let phase = dot(k, position_m) - sqrt(SEA_GRAVITY_M_S2 * k_len) * time_s;
            let amplitude_m = fade * wave.w / k_len;
            let k_tangent = k - up * dot(k, up);
            tangent += amplitude_m * cos(phase) * k_tangent;
            vertical += SEA_GERSTNER_Q * amplitude_m * k_len * sin(phase);
        }
    }
    return vec4<f32>(normalize(up * (1.0 - vertical) - tangent), variance);
}
