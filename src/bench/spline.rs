//! The spline that camera paths follow: Catmull-Rom tangents in time and cubic Hermite segments.

use std::ops::{Add, Mul, Sub};

/// Catmull-Rom tangent (per second) of a keyframe value, duplicating the end keyframes.
///
/// The phantom keyframe before the first (after the last) repeats the first (last) value
/// one keyframe interval earlier (later). Requires at least two keyframes.
pub(super) fn tangent<K: Timed, T>(keyframes: &[K], index: usize, value: impl Fn(&K) -> T) -> T
where
    T: Copy + Sub<Output = T> + Mul<f64, Output = T>,
{
    let last = keyframes.len() - 1;
    let (before_value, before_time_s) = if index == 0 {
        let k = &keyframes[0];
        (value(k), k.time_s() - (keyframes[1].time_s() - k.time_s()))
    } else {
        let k = &keyframes[index - 1];
        (value(k), k.time_s())
    };
    let (after_value, after_time_s) = if index == last {
        let k = &keyframes[last];
        (value(k), k.time_s() + (k.time_s() - keyframes[last - 1].time_s()))
    } else {
        let k = &keyframes[index + 1];
        (value(k), k.time_s())
    };
    (after_value - before_value) * (1.0 / (after_time_s - before_time_s))
}

/// A keyframe: something at a time along a path.
pub(super) trait Timed {
    /// The keyframe's time in seconds.
    fn time_s(&self) -> f64;
}

/// Cubic Hermite interpolation at `s` in [0, 1] of a segment `interval_s` seconds long.
pub(super) fn hermite<T>(start: T, start_tangent: T, end: T, end_tangent: T, interval_s: f64, s: f64) -> T
where
    T: Copy + Add<Output = T> + Mul<f64, Output = T>,
{
    let s2 = s * s;
    let s3 = s2 * s;
    let h00 = 2.0 * s3 - 3.0 * s2 + 1.0;
    let h10 = s3 - 2.0 * s2 + s;
    let h01 = -2.0 * s3 + 3.0 * s2;
    let h11 = s3 - s2;
    start * h00 + start_tangent * (h10 * interval_s) + end * h01 + end_tangent * (h11 * interval_s)
}
