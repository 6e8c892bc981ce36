//! Every WGSL file passes naga validation: each pass with its includes resolved, and each shared
//! file as part of every pass that includes it (some need a binding file from their includer).
//! Every file in shaders/ is embedded in the binary.

use std::collections::HashSet;

use bisector::gpu::shader::{shader_source, SHADER_FILES};

/// The files `name` includes, transitively.
fn includes(name: &str, seen: &mut HashSet<String>) {
    let (_, text) = SHADER_FILES.iter().find(|(n, _)| *n == name).unwrap_or_else(|| panic!("{name} is not embedded"));
    for line in text.lines() {
        if let Some(included) = line.strip_prefix("//!include ") {
            if seen.insert(included.trim().to_string()) {
                includes(included.trim(), seen);
            }
        }
    }
}

/// unpack2x16float (the node bounds' slope ranges): WebGPU core, granted by wgpu on every
/// backend with DownlevelFlags::SHADER_F16_IN_F32.
const F16_IN_F32: naga::valid::Capabilities = naga::valid::Capabilities::SHADER_FLOAT16_IN_FLOAT32;

#[test]
fn every_wgsl_file_validates() {
    let passes: Vec<&str> = SHADER_FILES.iter().map(|(n, _)| *n).filter(|n| !n.starts_with("shared/")).collect();
    let mut included = HashSet::new();
    for name in &passes {
        includes(name, &mut included);
    }
    for (name, _) in SHADER_FILES.iter().filter(|(n, _)| n.starts_with("shared/")) {
        assert!(included.contains(*name), "{name} is included by no pass, so nothing validates it");
    }
    for name in passes {
        let source = shader_source(name).unwrap_or_else(|| panic!("{name}: an include is missing"));
        let module = naga::front::wgsl::parse_str(&source).unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(&source)));
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::default() | naga::valid::Capabilities::SUBGROUP | F16_IN_F32 | naga::valid::Capabilities::SHADER_INT64 | naga::valid::Capabilities::SHADER_INT64_ATOMIC_ALL_OPS,
        )
            .validate(&module)
            .unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(&source)));
    }
}

#[test]
fn every_shader_file_is_embedded() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    let mut on_disk = Vec::new();
    for dir in [root.clone(), root.join("shared")] {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "wgsl") {
                on_disk.push(path.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/"));
            }
        }
    }
    on_disk.sort();
    let mut embedded: Vec<String> = SHADER_FILES.iter().map(|(n, _)| n.to_string()).collect();
    embedded.sort();
    assert_eq!(on_disk, embedded, "add new shaders to SHADER_FILES in src/gpu/shader.rs");
}
