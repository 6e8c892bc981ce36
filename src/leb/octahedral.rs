//! The octahedral map: the unit square [0, 1]^2 of `leb::base_mesh` onto the unit sphere, and
//! back. Mirrors shaders/shared/octahedral.wgsl.
//!
//! ```text
//! Axes (earth-centred, earth-fixed): +z = north pole, +x = (0N, 0E), +y = (0N, 90E).
//! Map centre (1/2, 1/2) = north pole; the square's corners = south pole; the midpoints of its
//! sides are the equator at 0E (1, 1/2), 90E (1/2, 1), 180E (0, 1/2) and 90W (1/2, 0).
//! A map point p goes to the octahedron |x| + |y| + |z| = 1 (`octahedron_point`, exact for
//! dyadic p) and is normalised. The square's sides are folds: (1, v) and (1, 1 - v) are the
//! same point, so a point just outside the square is the point just inside across the fold:
//!   u > 1 -> (2 - u, 1 - v)   u < 0 -> (-u, 1 - v)   v > 1 -> (1 - u, 2 - v)   v < 0 -> (1 - u, -v)
//! (`wrap`), which is how tiles get their border samples.
//!
//! Fixed point: map coordinates as u32 with MAP_ONE = 2^30 = 1.0 (exact for every LEB vertex
//! down to depth 58), what the globe's shaders decode vertices and address tiles with.
//! ```

use super::base_mesh::octahedron_point;
use glam::{DVec2, DVec3};

/// 1.0 in fixed-point map coordinates.
pub const MAP_ONE: u32 = 1 << 30;

/// `p` folded into [0, 1]^2 (see the module header); points inside are unchanged.
pub fn wrap(p: DVec2) -> DVec2 {
    let mut p = p;
    // Two folds at most bring a point within one square of the map back inside.
    for _ in 0..2 {
        if p.x > 1.0 {
            p = DVec2::new(2.0 - p.x, 1.0 - p.y);
        } else if p.x < 0.0 {
            p = DVec2::new(-p.x, 1.0 - p.y);
        }
        if p.y > 1.0 {
            p = DVec2::new(1.0 - p.x, 2.0 - p.y);
        } else if p.y < 0.0 {
            p = DVec2::new(1.0 - p.x, -p.y);
        }
    }
    p
}

/// The unit vector at map point `p` (folded into the square first).
pub fn to_unit_sphere(p: DVec2) -> DVec3 {
    DVec3::from_array(octahedron_point(wrap(p).to_array())).normalize()
}

/// The map point of unit vector `n` (the inverse of `to_unit_sphere`; `n` need not be unit).
pub fn from_unit_sphere(n: DVec3) -> DVec2 {
    let o = n / (n.x.abs() + n.y.abs() + n.z.abs());
    let q = if o.z >= 0.0 { DVec2::new(o.x, o.y) } else { DVec2::new((1.0 - o.y.abs()).copysign(o.x), (1.0 - o.x.abs()).copysign(o.y)) };
    (q + 1.0) * 0.5
}

/// Longitude and latitude in degrees of unit vector `n`.
pub fn lon_lat_deg(n: DVec3) -> (f64, f64) {
    (n.y.atan2(n.x).to_degrees(), n.z.clamp(-1.0, 1.0).asin().to_degrees())
}

/// The unit vector at longitude and latitude in degrees.
pub fn from_lon_lat_deg(lon_deg: f64, lat_deg: f64) -> DVec3 {
    let (lon, lat) = (lon_deg.to_radians(), lat_deg.to_radians());
    DVec3::new(lat.cos() * lon.cos(), lat.cos() * lon.sin(), lat.sin())
}

/// Fixed-point map coordinates (MAP_ONE = 1.0) of a map point in [0, 1]^2, rounded.
pub fn to_fixed(p: DVec2) -> [u32; 2] {
    p.to_array().map(|c| (c.clamp(0.0, 1.0) * MAP_ONE as f64).round() as u32)
}

/// The map point of fixed-point coordinates.
pub fn from_fixed(p: [u32; 2]) -> DVec2 {
    DVec2::new(p[0] as f64, p[1] as f64) / MAP_ONE as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn landmarks_sit_where_the_header_says() {
        let close = |a: DVec3, b: DVec3| (a - b).length() < 1e-12;
        assert!(close(to_unit_sphere(DVec2::new(0.5, 0.5)), DVec3::Z));
        for corner in [DVec2::ZERO, DVec2::ONE, DVec2::X, DVec2::Y] {
            assert!(close(to_unit_sphere(corner), -DVec3::Z), "{corner}");
        }
        assert!(close(to_unit_sphere(DVec2::new(1.0, 0.5)), DVec3::X));
        assert!(close(to_unit_sphere(DVec2::new(0.5, 1.0)), DVec3::Y));
        assert!(close(to_unit_sphere(DVec2::new(0.0, 0.5)), -DVec3::X));
        assert!(close(to_unit_sphere(DVec2::new(0.5, 0.0)), -DVec3::Y));
        let (lon, lat) = lon_lat_deg(from_lon_lat_deg(120.9572, 23.47));
        assert!((lon - 120.9572).abs() < 1e-9 && (lat - 23.47).abs() < 1e-9);
    }

    #[test]
    fn the_map_round_trips_and_folds_are_continuous() {
        let seed = rand::random::<u64>();
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        for _ in 0..10_000 {
            let p = DVec2::new(rng.random_range(0.0..1.0), rng.random_range(0.0..1.0));
            let back = from_unit_sphere(to_unit_sphere(p));
            assert!((back - p).length() < 1e-12, "seed {seed}: {p} -> {back}");
            // Across a fold the sphere point moves continuously: a point just outside the
            // square is next to the side's point.
            let v: f64 = rng.random_range(0.0..1.0);
            let e = 1e-7;
            for (inside, outside) in [
                (DVec2::new(1.0, v), DVec2::new(1.0 + e, v)),
                (DVec2::new(0.0, v), DVec2::new(-e, v)),
                (DVec2::new(v, 1.0), DVec2::new(v, 1.0 + e)),
                (DVec2::new(v, 0.0), DVec2::new(v, -e)),
            ] {
                let gap = (to_unit_sphere(inside) - to_unit_sphere(outside)).length();
                assert!(gap < 4.0 * e, "seed {seed}: fold at {inside} jumps by {gap}");
            }
        }
    }

    #[test]
    fn fixed_point_is_exact_for_dyadic_points() {
        for p in [DVec2::new(0.25, 0.75), DVec2::new(1.0, 0.0), DVec2::new(0.5 + 1.0 / 1024.0, 0.125)] {
            assert_eq!(from_fixed(to_fixed(p)), p);
        }
    }
}
