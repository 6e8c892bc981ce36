//! The WGS84 ellipsoid: where a point at a geodetic longitude, latitude and height lies in
//! earth-centred, earth-fixed metres, and back.
//!
//! ```text
//! The globe's map (the octahedral map of unit vectors) is read as a map of the ellipsoid's
//! normals: the unit vector n = (cos lat cos lon, cos lat sin lon, sin lat) at geodetic (lon, lat)
//! is the normal there. The point at height h above the ellipsoid along n is
//!   P(n, h) = N(n.z) (n.x, n.y, (1 - e²) n.z) + h n,   N(z) = a / sqrt(1 - e² z²)
//! (N: the prime vertical radius of curvature). So tiles, map points and lon/lat stay as they were
//! on the sphere; only the lift to 3-D changes. Heights are the data's (above mean sea level,
//! the geoid), placed above the ellipsoid: the sea is drawn at the ellipsoid, which lies up to
//! about 100 m above or below the real mean sea level (the geoid's undulation).
//! ```

use glam::DVec3;

/// WGS84's semi-major axis (the equatorial radius) in metres.
pub const WGS84_A_M: f64 = 6_378_137.0;

/// WGS84's flattening.
pub const WGS84_FLATTENING: f64 = 1.0 / 298.257_223_563;

/// WGS84's first eccentricity squared, f (2 - f).
pub const WGS84_E2: f64 = WGS84_FLATTENING * (2.0 - WGS84_FLATTENING);

/// WGS84's semi-minor axis (the polar radius) in metres.
pub const WGS84_B_M: f64 = WGS84_A_M * (1.0 - WGS84_FLATTENING);

/// The ellipsoid's smallest radius of curvature, the meridian's at the equator, a (1 - e²), in
/// metres: the normal turns by at most (distance / this) radians along any path on it.
pub const WGS84_MIN_CURVATURE_RADIUS_M: f64 = WGS84_A_M * (1.0 - WGS84_E2);

/// The prime vertical radius of curvature in metres where the normal's z (the sine of the
/// geodetic latitude) is `normal_z`.
pub fn prime_vertical_radius_m(normal_z: f64) -> f64 {
    WGS84_A_M / (1.0 - WGS84_E2 * normal_z * normal_z).sqrt()
}

/// The point on the ellipsoid whose unit normal is `normal`, in earth-centred metres.
pub fn surface_m(normal: DVec3) -> DVec3 {
    let n = prime_vertical_radius_m(normal.z);
    DVec3::new(n * normal.x, n * normal.y, n * (1.0 - WGS84_E2) * normal.z)
}

/// The point `height_m` above the ellipsoid along unit normal `normal`, in earth-centred metres.
pub fn position_m(normal: DVec3, height_m: f64) -> DVec3 {
    surface_m(normal) + height_m * normal
}

/// The geodetic unit normal and height in metres above the ellipsoid of earth-centred point
/// `p_m` (Newton's iteration on the latitude, to well under a micrometre anywhere outside a few
/// kilometres around the centre; the centre itself gives +z and -b).
pub fn normal_and_height_m(p_m: DVec3) -> (DVec3, f64) {
    let horizontal_m = (p_m.x * p_m.x + p_m.y * p_m.y).sqrt();
    let (cos_lon, sin_lon) = if horizontal_m > 0.0 { (p_m.x / horizontal_m, p_m.y / horizontal_m) } else { (1.0, 0.0) };
    let mut lat = p_m.z.atan2(horizontal_m * (1.0 - WGS84_E2));
    for _ in 0..6 {
        let n = prime_vertical_radius_m(lat.sin());
        let h = horizontal_m * lat.cos() + p_m.z * lat.sin() - WGS84_A_M * (1.0 - WGS84_E2 * lat.sin() * lat.sin()).sqrt();
        lat = p_m.z.atan2(horizontal_m * (1.0 - WGS84_E2 * n / (n + h)));
    }
    let (sin_lat, cos_lat) = lat.sin_cos();
    let height_m = horizontal_m * cos_lat + p_m.z * sin_lat - WGS84_A_M * (1.0 - WGS84_E2 * sin_lat * sin_lat).sqrt();
    (DVec3::new(cos_lat * cos_lon, cos_lat * sin_lon, sin_lat), height_m)
}

/// How far, in metres, the ellipsoid's point moves per radian that its unit normal `normal`
/// turns towards unit tangent `ahead`: the meridian's radius M northwards, the prime vertical's N
/// eastwards, sqrt(M² cos² α + N² sin² α) at azimuth α (the surface's inverse shape operator).
pub fn metres_per_radian(normal: DVec3, ahead: DVec3) -> f64 {
    let s2 = 1.0 - WGS84_E2 * normal.z * normal.z;
    let meridian_m = WGS84_A_M * (1.0 - WGS84_E2) / (s2 * s2.sqrt());
    let prime_m = WGS84_A_M / s2.sqrt();
    // ahead.z = cos α cos(lat) for a unit tangent.
    let cos_lat2 = (1.0 - normal.z * normal.z).max(0.0);
    let cos2 = if cos_lat2 > 1e-24 { (ahead.z * ahead.z / cos_lat2).min(1.0) } else { 1.0 };
    (cos2 * meridian_m * meridian_m + (1.0 - cos2) * prime_m * prime_m).sqrt()
}

/// The distance along the ray from `origin_m` in unit direction `direction` to where it first
/// meets the ellipsoid (height 0), or None when it misses; negative when behind the origin.
pub fn ray_hit_m(origin_m: DVec3, direction: DVec3) -> Option<f64> {
    // Scaling z by a/b turns the ellipsoid into the sphere of radius a.
    let k = WGS84_A_M / WGS84_B_M;
    let (o, d) = (DVec3::new(origin_m.x, origin_m.y, origin_m.z * k), DVec3::new(direction.x, direction.y, direction.z * k));
    let (a, b, c) = (d.length_squared(), o.dot(d), o.length_squared() - WGS84_A_M * WGS84_A_M);
    let disc = b * b - a * c;
    (disc >= 0.0).then(|| (-b - disc.sqrt()) / a)
}

/// The WGSL constants of the ellipsoid (for shared/globe_constants.wgsl).
pub fn constants_wgsl() -> String {
    use crate::gpu::shader::const_f32;
    [
        const_f32("GLOBE_WGS84_A_M", WGS84_A_M as f32),
        const_f32("GLOBE_WGS84_E2", WGS84_E2 as f32),
        const_f32("GLOBE_MIN_CURVATURE_RADIUS_M", WGS84_MIN_CURVATURE_RADIUS_M as f32),
    ]
    .concat()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::leb::octahedral::from_lon_lat_deg;
    use crate::test_rng::XorShift;

    #[test]
    fn the_axes_and_known_points_are_wgs84s() {
        assert!((position_m(DVec3::X, 0.0) - DVec3::new(WGS84_A_M, 0.0, 0.0)).length() < 1e-9);
        assert!((position_m(DVec3::Z, 0.0) - DVec3::new(0.0, 0.0, 6_356_752.314_245)).length() < 1e-3);
        // 45N 0E on the ellipsoid (a reference value of the WGS84 ECEF conversion).
        let p = position_m(from_lon_lat_deg(0.0, 45.0), 0.0);
        assert!((p - DVec3::new(4_517_590.878_8, 0.0, 4_487_348.408_9)).length() < 1e-3, "{p}");
    }

    #[test]
    fn rays_meet_the_ellipsoid_at_height_zero() {
        let mut rng = XorShift::fresh("rays_meet_the_ellipsoid_at_height_zero");
        for _ in 0..1000 {
            let normal = from_lon_lat_deg(rng.range(-180.0, 180.0), rng.range(-89.0, 89.0));
            let origin = position_m(normal, rng.range(10.0, 1e7));
            let direction = (position_m(from_lon_lat_deg(rng.range(-180.0, 180.0), rng.range(-89.0, 89.0)), 0.0) - origin).normalize();
            if let Some(t) = ray_hit_m(origin, direction).filter(|&t| t > 0.0) {
                assert!(normal_and_height_m(origin + t * direction).1.abs() < 1e-4, "{origin} {direction} {t}");
            }
        }
        assert_eq!(ray_hit_m(DVec3::new(2.0 * WGS84_A_M, 0.0, 0.0), DVec3::Y), None);
    }

    #[test]
    fn a_turning_normal_moves_its_point_by_metres_per_radian() {
        // At the equator: the meridian's radius a (1 - e²) northwards, a eastwards.
        assert!((metres_per_radian(DVec3::X, DVec3::Z) - WGS84_A_M * (1.0 - WGS84_E2)).abs() < 1e-6);
        assert!((metres_per_radian(DVec3::X, DVec3::Y) - WGS84_A_M).abs() < 1e-6);
        // At a pole every direction is a meridian: a² / b.
        assert!((metres_per_radian(DVec3::Z, DVec3::X) - WGS84_A_M * WGS84_A_M / WGS84_B_M).abs() < 1e-3);
        // Anywhere: a small turn of the normal moves the point by that much.
        let mut rng = XorShift::fresh("a_turning_normal_moves_its_point_by_metres_per_radian");
        for _ in 0..1000 {
            let normal = from_lon_lat_deg(rng.range(-180.0, 180.0), rng.range(-89.0, 89.0));
            let (east, north) = crate::globe::camera::local_east_north(normal);
            let azimuth = rng.range(0.0, std::f64::consts::TAU);
            let ahead = azimuth.cos() * north + azimuth.sin() * east;
            let turn = 1e-6;
            let moved_m = (position_m((normal + turn * ahead).normalize(), 0.0) - position_m(normal, 0.0)).length();
            assert!((moved_m / turn - metres_per_radian(normal, ahead)).abs() < 1.0, "{normal} {ahead}: {}", moved_m / turn);
        }
    }

    #[test]
    fn normal_and_height_invert_position_anywhere() {
        let mut rng = XorShift::fresh("normal_and_height_invert_position_anywhere");
        for _ in 0..10_000 {
            let normal = from_lon_lat_deg(rng.range(-180.0, 180.0), rng.range(-90.0, 90.0));
            let height_m = match rng.next_u64() % 3 {
                0 => rng.range(-11_000.0, 9_000.0),
                1 => rng.range(-1.0, 30.0),
                _ => rng.range(0.0, 40_000_000.0),
            };
            let (n, h) = normal_and_height_m(position_m(normal, height_m));
            assert!((n - normal).length() < 1e-12, "{normal} {height_m}: {n}");
            assert!((h - height_m).abs() < 1e-6 * (1.0 + height_m.abs() / 1e7), "{normal} {height_m}: {h}");
        }
    }
}
