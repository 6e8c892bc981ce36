//! `--terrain planet[:SEED]` (the procedural planet) and `--terrain planet:BASE[,REGION...]` (a
//! global base raster with regional tile pyramids or rasters layered over it).

use crate::terrain::TerrainError;
use std::path::PathBuf;

/// Which globe, parsed from `--terrain`.
#[derive(Clone, Debug, PartialEq)]
pub enum GlobeSpec {
    /// The procedural planet generated on the GPU.
    Procedural { seed: u32 },
    /// Real elevation data: a global base and regions over it.
    Earth { base: PathBuf, regions: Vec<PathBuf> },
}

/// The seed of `--terrain planet`.
pub const DEFAULT_PLANET_SEED: u32 = 1;

impl GlobeSpec {
    /// The globe `spec` names, None when it names no globe (not `planet...`), or an error for a
    /// malformed `planet:` spec.
    pub fn parse(spec: &str) -> Option<Result<GlobeSpec, TerrainError>> {
        let rest = match spec.split_once(':') {
            None if spec == "planet" => return Some(Ok(GlobeSpec::Procedural { seed: DEFAULT_PLANET_SEED })),
            Some(("planet", rest)) => rest,
            _ => return None,
        };
        let bad = |problem: String| TerrainError::BadSpec { spec: spec.to_string(), problem };
        if let Ok(seed) = rest.parse::<u32>() {
            return Some(Ok(GlobeSpec::Procedural { seed }));
        }
        if !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()) && !std::path::Path::new(rest).exists() {
            return Some(Err(bad(format!("the seed {rest} is out of range: seeds are 0 to {}", u32::MAX))));
        }
        let mut paths = rest.split(',').map(str::trim).map(PathBuf::from);
        let base = paths.next().filter(|p| !p.as_os_str().is_empty());
        let Some(base) = base else {
            return Some(Err(bad("expected planet, planet:SEED or planet:BASE.tif[,REGION...]".into())));
        };
        let regions: Vec<PathBuf> = paths.collect();
        for path in std::iter::once(&base).chain(&regions) {
            let url = path.to_str().is_some_and(crate::terrain::http_source::is_url);
            if !url && !path.exists() {
                return Some(Err(bad(format!("{} does not exist", path.display()))));
            }
        }
        Some(Ok(GlobeSpec::Earth { base, regions }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs() {
        assert_eq!(GlobeSpec::parse("planet").unwrap().unwrap(), GlobeSpec::Procedural { seed: DEFAULT_PLANET_SEED });
        assert_eq!(GlobeSpec::parse("planet:7").unwrap().unwrap(), GlobeSpec::Procedural { seed: 7 });
        assert!(GlobeSpec::parse("procedural").is_none());
        assert!(GlobeSpec::parse("planet:").unwrap().is_err());
        let error = GlobeSpec::parse("planet:/no/such.tif").unwrap().unwrap_err().to_string();
        assert!(error.contains("/no/such.tif does not exist"), "{error}");
        let error = GlobeSpec::parse("planet:9999999999999").unwrap().unwrap_err().to_string();
        assert!(error.contains("seed 9999999999999 is out of range"), "{error}");
    }
}
