//! Projected rasters' coordinates to and from longitude/latitude (WGS84), for EPSG codes through
//! the pure-Rust `proj4rs` and its table of EPSG definitions (UTM zones and the other common
//! projected systems).

use proj4rs::adaptors::transform_xy;
use proj4rs::Proj;

/// The transform between one projected CRS and longitude/latitude.
pub struct Projection {
    /// The CRS's EPSG code.
    pub epsg: u16,
    crs: Proj,
    wgs84: Proj,
}

impl Projection {
    /// The projection of EPSG code `epsg`; None when proj4rs does not know it or cannot use it.
    pub fn for_epsg(epsg: u16) -> Option<Projection> {
        let crs = Proj::from_epsg_code(epsg).ok()?;
        let wgs84 = Proj::from_proj_string("+proj=longlat +datum=WGS84 +no_defs").ok()?;
        if crs.is_latlong() {
            return None;
        }
        let projection = Projection { epsg, crs, wgs84 };
        // Definitions that need grid files (nadgrids) fail here, not later, per point.
        projection.to_crs(0.0, 0.0).or_else(|| projection.to_crs(10.0, 45.0)).map(|_| projection)
    }

    /// The CRS position (easting, northing) of longitude/latitude in degrees; None where the
    /// projection has none.
    pub fn to_crs(&self, lon_deg: f64, lat_deg: f64) -> Option<(f64, f64)> {
        let (x, y) = transform_xy(&self.wgs84, &self.crs, lon_deg.to_radians(), lat_deg.to_radians()).ok()?;
        (x.is_finite() && y.is_finite()).then_some((x, y))
    }

    /// Longitude/latitude in degrees of a CRS position; None where the projection has none.
    pub fn to_lon_lat(&self, x: f64, y: f64) -> Option<(f64, f64)> {
        let (lon, lat) = transform_xy(&self.crs, &self.wgs84, x, y).ok()?;
        let (lon, lat) = (lon.to_degrees(), lat.to_degrees());
        (lon.is_finite() && lat.is_finite()).then_some((lon, lat))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utm_zone_11_north() {
        let utm = Projection::for_epsg(32611).unwrap();
        // The central meridian (117 W) on the equator is (500000, 0).
        let (x, y) = utm.to_crs(-117.0, 0.0).unwrap();
        assert!((x - 500_000.0).abs() < 1e-3 && y.abs() < 1e-3, "{x}, {y}");
        // One degree of latitude up the central meridian: the meridian arc (110574.4 m) times 0.9996.
        let (x, y) = utm.to_crs(-117.0, 1.0).unwrap();
        assert!((x - 500_000.0).abs() < 1e-3 && (y - 110_574.4 * 0.9996).abs() < 1.0, "{x}, {y}");
        for (lon, lat) in [(-118.2, 34.3), (-120.0, 10.0), (-114.5, 60.0)] {
            let (x, y) = utm.to_crs(lon, lat).unwrap();
            let (lon2, lat2) = utm.to_lon_lat(x, y).unwrap();
            assert!((lon2 - lon).abs() < 1e-8 && (lat2 - lat).abs() < 1e-8, "{lon}, {lat} -> {lon2}, {lat2}");
        }
        assert!(Projection::for_epsg(4326).is_none(), "geographic is not a projection");
        assert!(Projection::for_epsg(1).is_none());
    }
}
