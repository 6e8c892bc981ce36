//! The repository stands alone: no test, source file, script, asset or README line reaches
//! outside it (a user's clone has nothing beside it), and the elevation data the tests use is in
//! heightmaps/, small enough to keep in git.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every file under `dir`, recursively.
fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push(path);
        }
    }
}

#[test]
fn nothing_reads_outside_the_repository() {
    let root = root();
    let mut files = vec![root.join("README.md"), root.join("heightmaps/README.md"), root.join("Cargo.toml")];
    for dir in ["src", "crates", "tests", "scripts", "assets", "shaders", ".ci"] {
        files_under(&root.join(dir), &mut files);
    }
    // This file names the pattern it looks for.
    let this_file = root.join("tests/standalone.rs");
    let pattern = ["..", "/shared"].concat();
    let offenders: Vec<String> = files
        .iter()
        .filter(|f| **f != this_file)
        .filter_map(|f| {
            let text = String::from_utf8_lossy(&std::fs::read(f).unwrap()).into_owned();
            text.lines().position(|l| l.contains(&pattern)).map(|line| format!("{}:{}", f.strip_prefix(&root).unwrap().display(), line + 1))
        })
        .collect();
    assert!(offenders.is_empty(), "these lines reach outside the repository ({pattern}): {offenders:?}");
}

#[test]
fn heightmaps_stay_small_and_documented() {
    let root = root();
    let mut files = Vec::new();
    files_under(&root.join("heightmaps"), &mut files);
    let bytes: u64 = files.iter().map(|f| f.metadata().unwrap().len()).sum();
    assert!(bytes < 10 << 20, "heightmaps/ holds {bytes} bytes; keep it under 10 MiB so the repository stays quick to clone");
    let readme = std::fs::read_to_string(root.join("heightmaps/README.md")).unwrap();
    for name in ["etopo20_global.tif", "bigtujunga.tif", "taiwan-terrain-rgb"] {
        assert!(root.join("heightmaps").join(name).exists(), "heightmaps/{name} is missing");
        assert!(readme.contains(name), "heightmaps/README.md does not describe {name}");
    }
}
