//! The crate's layering, read from the sources: every `crate::X` path (also `use crate::{X, ..}`)
//! in a top-level module under src/ must name a module that `ALLOWED` lets it import, the allowed
//! imports form no cycle, and `gpu` (the bottom layer, the crate crates/gpu re-exported as
//! `bisector::gpu`) depends on no other crate of the workspace. The seed papers' kernels
//! (crates/kernels) build on crates/gpu alone, and only the binary and the viewer (its kernel
//! lab) use them: the renderer does not depend on them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Each top-level module under src/ and the modules it may import, from the bottom up. A module
/// may only import modules listed before it.
const ALLOWED: &[(&str, &[&str])] = &[
    // The bottom layer (crates/gpu): devices, limits, passes, read-back, uploads, targets,
    // timings, shader loading; and the tables' integer hash, re-exported from it.
    ("gpu", &[]),
    ("hash", &[]),
    // The renderer's embedded WGSL files.
    ("shaders", &["gpu"]),
    // Plain helpers with no GPU: bounded input reads, the tests' generator.
    ("input", &[]),
    ("test_rng", &[]),
    // The concurrent binary tree: knows nothing of triangles or terrain.
    ("cbt", &["gpu", "shaders"]),
    // Longest-edge bisection, base meshes, the octahedral map, LOD criterion, node bounds.
    ("leb", &["gpu", "shaders", "cbt"]),
    // The bisector pool of 64-bit bisectors allocated by the CBT: its CPU twin and its GPU passes.
    ("pool", &["gpu", "shaders", "cbt", "leb", "test_rng"]),
    // The one frame schedule: the tree every scene shares and the trait a scene implements.
    ("schedule", &["gpu", "cbt", "leb"]),
    // Height sources and the node bounds built from them.
    ("terrain", &["gpu", "input", "test_rng", "cbt", "leb"]),
    // The flat terrain: its passes and drawing, a scene of the schedule.
    ("flat", &["gpu", "shaders", "cbt", "leb", "schedule", "terrain"]),
    // The globe: its passes (scenes of the schedule, over the heap or the bisector pool), camera,
    // planet and tile cache (globe::cache).
    ("globe", &["gpu", "shaders", "hash", "test_rng", "cbt", "leb", "pool", "schedule", "terrain"]),
    // Camera paths, the headless runners, reports, quality.
    ("bench", &["gpu", "input", "test_rng", "cbt", "leb", "schedule", "terrain", "flat", "globe"]),
    // Argument parsing shared by the commands.
    ("cli", &["input", "flat", "globe", "bench"]),
    // The kernels that measure the renderer's parts (the seed papers' kernels are crates/kernels).
    ("kernels", &["gpu", "shaders", "hash", "cbt", "leb", "pool", "globe"]),
    // The interactive viewer: the top.
    ("viewer", &["gpu", "input", "test_rng", "cbt", "leb", "pool", "schedule", "terrain", "flat", "globe", "bench", "cli", "kernels"]),
];

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every .rs file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a file under src/ belongs to (None for lib.rs and for the binary under
/// src/bin/, whose `crate::` paths name its own modules).
fn top_module(file: &Path) -> Option<String> {
    let relative = file.strip_prefix(src_dir()).expect("a file under src/");
    let first = relative.components().next()?.as_os_str().to_str()?.to_string();
    let name = first.strip_suffix(".rs").unwrap_or(&first).to_string();
    (name != "lib" && name != "bin").then_some(name)
}

fn ident(text: &str) -> &str {
    let end = text.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(text.len());
    &text[..end]
}

/// The top-level modules that `text` names through `crate::` paths: `crate::X::..`, and each
/// first name of a `crate::{X::.., Y, ..}` group.
fn crate_paths(text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for (at, _) in text.match_indices("crate::") {
        // `$crate::` and identifiers ending in "crate" are not the crate root.
        if text[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        let rest = &text[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0;
            let mut item_start = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => item_start = true,
                    c if item_start && !c.is_whitespace() => {
                        item_start = false;
                        names.insert(ident(&group[i..]).to_string());
                    }
                    _ => {}
                }
            }
        } else {
            names.insert(ident(rest).to_string());
        }
    }
    names.retain(|n| !n.is_empty() && n != "self");
    names
}

/// `text` without its line comments (doc comments name modules without importing them).
fn code_only(text: &str) -> String {
    text.lines().map(|line| line.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n")
}

/// module -> (imported module -> the files that import it), from the code under src/.
fn imports() -> BTreeMap<String, BTreeMap<String, BTreeSet<String>>> {
    let mut files = Vec::new();
    rust_files(&src_dir(), &mut files);
    let mut graph: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for file in files {
        let Some(module) = top_module(&file) else { continue };
        let text = std::fs::read_to_string(&file).expect("a readable source file");
        let entry = graph.entry(module.clone()).or_default();
        for target in crate_paths(&code_only(&text)) {
            if target != module {
                entry.entry(target).or_default().insert(file.strip_prefix(src_dir()).unwrap().display().to_string());
            }
        }
    }
    graph
}

#[test]
fn the_parser_reads_paths_and_groups() {
    let found = crate_paths(
        "use crate::cbt::cpu::Node;\nuse crate::{leb::bounds::{A, B}, gpu};\nlet x = crate::terrain::f();\n$crate::hidden; my_crate::no;",
    );
    assert_eq!(found, ["cbt", "gpu", "leb", "terrain"].map(String::from).into_iter().collect());
    assert_eq!(code_only("use crate::a; // crate::b\n/// crate::c\nx"), "use crate::a; \n\nx");
}

#[test]
fn every_module_has_a_place_in_the_layering() {
    let listed: BTreeSet<&str> = ALLOWED.iter().map(|(m, _)| *m).collect();
    assert_eq!(listed.len(), ALLOWED.len(), "a module is listed twice in ALLOWED");
    for module in imports().keys() {
        assert!(listed.contains(module.as_str()), "src/{module} is not in tests/layers.rs's ALLOWED: give it a place in the layering");
    }
}

#[test]
fn the_layering_has_no_cycle() {
    // Each module may only import modules listed before it, so the allowed graph is acyclic.
    for (i, (module, allowed)) in ALLOWED.iter().enumerate() {
        let below: BTreeSet<&str> = ALLOWED[..i].iter().map(|(m, _)| *m).collect();
        for target in *allowed {
            assert!(
                below.contains(target),
                "ALLOWED lets {module} import {target}, which is not listed below it: that would allow a cycle"
            );
        }
    }
}

#[test]
fn modules_import_only_what_the_layering_allows() {
    let allowed: BTreeMap<&str, &[&str]> = ALLOWED.iter().copied().collect();
    let mut wrong = Vec::new();
    for (module, targets) in imports() {
        let Some(may) = allowed.get(module.as_str()) else { continue };
        for (target, files) in targets {
            if !may.contains(&target.as_str()) {
                wrong.push(format!("{module} -> {target} ({})", files.into_iter().collect::<Vec<_>>().join(", ")));
            }
        }
    }
    assert!(wrong.is_empty(), "imports against the layering (move the shared code down instead):\n{}", wrong.join("\n"));
}

#[test]
fn gpu_depends_on_no_other_crate_of_the_workspace() {
    // Comments included: the bottom layer does not even point up in its documentation.
    let gpu = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/gpu");
    let manifest = std::fs::read_to_string(gpu.join("Cargo.toml")).expect("crates/gpu/Cargo.toml");
    let dependencies: Vec<&str> =
        manifest.lines().skip_while(|l| !l.starts_with("[dependencies]")).skip(1).take_while(|l| !l.starts_with('[')).collect();
    assert!(!dependencies.is_empty());
    assert!(dependencies.iter().all(|l| !l.contains("bisector")), "crates/gpu depends on a crate of the workspace: {dependencies:?}");
    let mut files = Vec::new();
    rust_files(&gpu.join("src"), &mut files);
    assert!(!files.is_empty());
    let wrong: Vec<String> = files
        .iter()
        .filter(|file| std::fs::read_to_string(file).expect("a readable source file").contains("bisector::"))
        .map(|file| file.display().to_string())
        .collect();
    assert!(wrong.is_empty(), "crates/gpu must name nothing of the crates above it:\n{}", wrong.join("\n"));
}

/// The `[dependencies]` lines of a workspace crate's manifest.
fn dependencies(crate_dir: &str) -> Vec<String> {
    let manifest = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(crate_dir).join("Cargo.toml")).expect("a manifest");
    manifest
        .lines()
        .skip_while(|l| !l.starts_with("[dependencies]"))
        .skip(1)
        .take_while(|l| !l.starts_with('['))
        .filter(|l| !l.trim().is_empty())
        .map(String::from)
        .collect()
}

/// crates/pipeline-stats reads what `BISECTOR_DUMP_PIPELINES` wrote and links no crate of the
/// workspace (nor does any crate link it).
#[test]
fn the_pipeline_stats_tool_stands_apart() {
    let workspace: Vec<String> = dependencies("crates/pipeline-stats").into_iter().filter(|l| l.contains("bisector")).collect();
    assert!(workspace.is_empty(), "crates/pipeline-stats depends on crates of the workspace: {workspace:?}");
    for manifest in [".", "crates/gpu", "crates/kernels"] {
        let users: Vec<String> = dependencies(manifest).into_iter().filter(|l| l.contains("pipeline-stats")).collect();
        assert!(users.is_empty(), "{manifest}/Cargo.toml depends on crates/pipeline-stats: {users:?}");
    }
}

#[test]
fn the_kernels_crate_builds_on_gpu_alone() {
    let workspace: Vec<String> = dependencies("crates/kernels").into_iter().filter(|l| l.contains("bisector")).collect();
    assert_eq!(workspace.len(), 1, "crates/kernels depends on these crates of the workspace: {workspace:?}");
    assert!(workspace[0].starts_with("bisector-gpu "), "crates/kernels depends on {workspace:?}, not on bisector-gpu alone");
    let mut files = Vec::new();
    rust_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/kernels/src"), &mut files);
    let wrong: Vec<String> = files
        .iter()
        .filter(|file| code_only(&std::fs::read_to_string(file).expect("a readable source file")).contains("bisector::"))
        .map(|file| file.display().to_string())
        .collect();
    assert!(wrong.is_empty(), "crates/kernels must not name the renderer (bisector::):\n{}", wrong.join("\n"));
}

#[test]
fn only_the_binary_and_the_viewer_use_the_kernels_crate() {
    let mut files = Vec::new();
    rust_files(&src_dir(), &mut files);
    let wrong: Vec<String> = files
        .iter()
        .filter(|file| {
            let relative = file.strip_prefix(src_dir()).unwrap();
            !(relative.starts_with("bin") || relative.starts_with("viewer"))
        })
        .filter(|file| code_only(&std::fs::read_to_string(file).expect("a readable source file")).contains("bisector_kernels"))
        .map(|file| file.display().to_string())
        .collect();
    assert!(!files.is_empty());
    assert!(wrong.is_empty(), "only src/bin and src/viewer may use bisector_kernels; the renderer must not:\n{}", wrong.join("\n"));
}

#[test]
fn anyhow_and_string_errors_stay_at_the_binarys_edge() {
    // The library's errors are typed (thiserror): anyhow only in the binary (src/bin), and no
    // `Result<_, String>` anywhere in the library.
    let mut files = Vec::new();
    rust_files(&src_dir(), &mut files);
    let bin = src_dir().join("bin");
    let mut wrong = Vec::new();
    for file in files.iter().filter(|f| !f.starts_with(&bin)) {
        let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if code.contains("anyhow") || code.contains(", String>") {
                wrong.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(wrong.is_empty(), "untyped errors in the library:\n{}", wrong.join("\n"));
}
