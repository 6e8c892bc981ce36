//! The sun's direction on the globe (issue 17 item 2): from a date and time (`--time
//! YYYY-MM-DDTHH:MMZ`, the subsolar point from the low-precision formulas of the Astronomical
//! Almanac, good to about 0.01 degree this century) or from an azimuth and elevation at the
//! camera's place (`--sun AZIMUTH,ELEVATION`); earth-fixed unit vectors as `GlobeSettings`
//! wants them.

use glam::DVec3;

use crate::leb::octahedral::from_lon_lat_deg;

/// Why a `--time` or `--sun` value was refused.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum SunError {
    #[error("--time '{0}': expected a UTC date and time as YYYY-MM-DDTHH:MMZ, e.g. 2026-03-20T04:00Z")]
    Time(String),
    #[error("--sun '{0}': expected AZIMUTH,ELEVATION in degrees (azimuth clockwise from north, 0..360; elevation -90..90), e.g. 120,35")]
    Angles(String),
}

/// Seconds of the J2000.0 epoch (2000-01-01T12:00Z) after the Unix epoch.
const J2000_UNIX_S: f64 = 946_728_000.0;

/// Seconds after the Unix epoch of `text`, a UTC time `YYYY-MM-DDTHH:MMZ`.
pub fn parse_time(text: &str) -> Result<f64, SunError> {
    let error = || SunError::Time(text.to_string());
    let civil = jiff::civil::DateTime::strptime("%Y-%m-%dT%H:%MZ", text.trim()).map_err(|_| error())?;
    let stamp = civil.to_zoned(jiff::tz::TimeZone::UTC).map_err(|_| error())?.timestamp();
    Ok(stamp.as_second() as f64)
}

/// The subsolar point (longitude, latitude in degrees) at `unix_s` seconds after the Unix epoch.
pub fn subsolar_lon_lat_deg(unix_s: f64) -> (f64, f64) {
    let n = (unix_s - J2000_UNIX_S) / 86_400.0;
    let mean_longitude = 280.460 + 0.985_647_4 * n;
    let anomaly = (357.528 + 0.985_600_3 * n).to_radians();
    let ecliptic = (mean_longitude + 1.915 * anomaly.sin() + 0.020 * (2.0 * anomaly).sin()).to_radians();
    let obliquity = (23.439 - 0.000_000_4 * n).to_radians();
    let declination = (obliquity.sin() * ecliptic.sin()).asin();
    let right_ascension = (obliquity.cos() * ecliptic.sin()).atan2(ecliptic.cos());
    let sidereal_deg = 280.460_618_37 + 360.985_647_366_29 * n;
    let lon = (right_ascension.to_degrees() - sidereal_deg + 180.0).rem_euclid(360.0) - 180.0;
    (lon, declination.to_degrees())
}

/// The earth-fixed direction towards the sun at `unix_s`.
pub fn sun_at_time(unix_s: f64) -> DVec3 {
    let (lon, lat) = subsolar_lon_lat_deg(unix_s);
    from_lon_lat_deg(lon, lat)
}

/// Parses `--sun AZIMUTH,ELEVATION` (degrees).
pub fn parse_angles(text: &str) -> Result<(f64, f64), SunError> {
    let error = || SunError::Angles(text.to_string());
    let (a, e) = text.split_once(',').ok_or_else(error)?;
    let (azimuth, elevation) = (a.trim().parse::<f64>().map_err(|_| error())?, e.trim().parse::<f64>().map_err(|_| error())?);
    if !(0.0..=360.0).contains(&azimuth) || !(-90.0..=90.0).contains(&elevation) {
        return Err(error());
    }
    Ok((azimuth, elevation))
}

/// The earth-fixed direction of a sun at `azimuth_deg` (clockwise from north) and `elevation_deg`
/// above the horizon of the place whose up direction is `up` (unit, earth-fixed).
pub fn sun_from_angles(up: DVec3, azimuth_deg: f64, elevation_deg: f64) -> DVec3 {
    let east = DVec3::Z.cross(up).try_normalize().unwrap_or(DVec3::Y);
    let north = up.cross(east);
    let (az, el) = (azimuth_deg.to_radians(), elevation_deg.to_radians());
    (el.cos() * (az.sin() * east + az.cos() * north) + el.sin() * up).normalize()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::leb::octahedral::lon_lat_deg;

    #[test]
    fn the_subsolar_point_at_equinox_and_solstice_noon() {
        // 2026-03-20 (equinox at 14:46Z): the sun on the equator, over about 1.8E at 12:00Z
        // (the equation of time is about -7.5 min).
        let (lon, lat) = subsolar_lon_lat_deg(parse_time("2026-03-20T12:00Z").unwrap());
        assert!(lat.abs() < 0.1 && (lon - 1.8).abs() < 0.3, "{lon} {lat}");
        // 2026-06-21 (solstice at 08:24Z): 23.44 N, over about 0.4E at 12:00Z.
        let (lon, lat) = subsolar_lon_lat_deg(parse_time("2026-06-21T12:00Z").unwrap());
        assert!((lat - 23.44).abs() < 0.05 && (lon - 0.4).abs() < 0.3, "{lon} {lat}");
        // December solstice, 18:00Z: 23.44 S over about 90W.
        let (lon, lat) = subsolar_lon_lat_deg(parse_time("2025-12-21T18:00Z").unwrap());
        assert!((lat + 23.43).abs() < 0.05 && (lon + 89.5).abs() < 1.0, "{lon} {lat}");
        // Six hours later the sun is 90 degrees further west.
        let (a, _) = subsolar_lon_lat_deg(parse_time("2026-03-20T06:00Z").unwrap());
        let (b, _) = subsolar_lon_lat_deg(parse_time("2026-03-20T12:00Z").unwrap());
        assert!(((a - b) - 90.0).abs() < 0.1, "{a} {b}");
    }

    #[test]
    fn angles_at_a_place_and_bad_values() {
        let up = from_lon_lat_deg(121.6, 24.2);
        // Straight up, and on the horizon to the east.
        assert!((sun_from_angles(up, 0.0, 90.0) - up).length() < 1e-12);
        let east = sun_from_angles(up, 90.0, 0.0);
        assert!(east.dot(up).abs() < 1e-12);
        let (lon, lat) = lon_lat_deg(up + 0.01 * east);
        assert!(lon > 121.6 && (lat - 24.2).abs() < 0.01, "east of the place: {lon} {lat}");
        let (lon, lat) = lon_lat_deg(up + 0.01 * sun_from_angles(up, 0.0, 0.0));
        assert!(lat > 24.2 && (lon - 121.6).abs() < 1e-6, "north of the place: {lon} {lat}");
        for bad in ["", "10", "x,5", "10,95", "-5,10", "400,1"] {
            assert_eq!(parse_angles(bad), Err(SunError::Angles(bad.into())));
        }
        for bad in ["2026-03-20", "2026-13-01T00:00Z", "2026-03-20T25:00Z", "noon", "2026-03-20T12:00"] {
            assert_eq!(parse_time(bad), Err(SunError::Time(bad.into())));
        }
    }
}
