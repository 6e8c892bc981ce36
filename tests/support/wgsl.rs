//! WGSL checks shared by the workspace's shader tests (tests/shaders.rs, and
//! crates/kernels/tests/shaders.rs through `#[path]`): naga validation of every pass of a
//! `ShaderLibrary` with its includes resolved, the files on disk against the embedded ones, and
//! the layout of Rust structs that mirror WGSL types.
#![allow(dead_code)]

use std::collections::HashSet;
use std::path::Path;

use bisector_gpu::shader::ShaderLibrary;

/// A library's own file `name`, or a panic naming it.
fn own_file(library: &ShaderLibrary, name: &str) -> &'static str {
    library.files.iter().find(|(n, _)| *n == name).unwrap_or_else(|| panic!("{name} is not embedded")).1
}

/// The files `name` includes, transitively (looked up as `library` resolves them).
fn includes(library: &ShaderLibrary, name: &str, seen: &mut HashSet<String>) {
    let text = library.file(name).unwrap_or_else(|| panic!("{name} is not embedded"));
    for line in text.lines() {
        if let Some(included) = line.strip_prefix("//!include ") {
            if seen.insert(included.trim().to_string()) {
                includes(library, included.trim(), seen);
            }
        }
    }
}

/// unpack2x16float (the node bounds' slope ranges): WebGPU core, granted by wgpu on every
/// backend with DownlevelFlags::SHADER_F16_IN_F32.
const F16_IN_F32: naga::valid::Capabilities = naga::valid::Capabilities::SHADER_FLOAT16_IN_FLOAT32;

/// Validates every pass of `library` (its files outside `shared/`) with naga, includes resolved;
/// every shared file of `library` and of `shared_from` (libraries whose shared files only
/// `library`'s passes include) must be included by one of them, so that something validates it.
pub fn every_pass_validates(library: &ShaderLibrary, shared_from: &[&ShaderLibrary]) {
    every_pass_and_variant_validates(library, shared_from, &[]);
}

/// `every_pass_validates`, and every pass that includes the first file of a pair of `variants`
/// validates as well with the second included instead (`ShaderLibrary::source_with`: the bisector
/// pool's passes under the globe's criterion), whose includes then count as included.
pub fn every_pass_and_variant_validates(library: &ShaderLibrary, shared_from: &[&ShaderLibrary], variants: &[(&str, &str)]) {
    let passes: Vec<&str> = library.files.iter().map(|(n, _)| *n).filter(|n| !n.starts_with("shared/")).collect();
    let mut included = HashSet::new();
    for name in &passes {
        includes(library, name, &mut included);
    }
    let mut sources = Vec::new();
    for name in &passes {
        sources.push((name.to_string(), library.source(name).unwrap_or_else(|| panic!("{name}: an include is missing"))));
        for &(from, to) in variants {
            let mut seen = HashSet::new();
            includes(library, name, &mut seen);
            if seen.contains(from) {
                included.insert(to.to_string());
                includes(library, to, &mut included);
                let source = library.source_with(name, &[(from, to)]).unwrap_or_else(|| panic!("{name} with {to}: an include is missing"));
                sources.push((format!("{name} with {to}"), source));
            }
        }
    }
    for lib in std::iter::once(library).chain(shared_from.iter().copied()) {
        for (name, _) in lib.files.iter().filter(|(n, _)| n.starts_with("shared/")) {
            assert!(included.contains(*name), "{name} is included by no pass, so nothing validates it");
        }
    }
    for (name, source) in sources {
        let module = naga::front::wgsl::parse_str(&source).unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(&source)));
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::default()
                | naga::valid::Capabilities::SUBGROUP
                | F16_IN_F32
                | naga::valid::Capabilities::SHADER_INT64
                | naga::valid::Capabilities::SHADER_INT64_ATOMIC_ALL_OPS,
        )
        .validate(&module)
        .unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(&source)));
    }
}

/// The .wgsl files in `dir` and `dir/shared` are exactly `library`'s files; `table` names the
/// table to add missing ones to.
pub fn every_file_is_embedded(library: &ShaderLibrary, dir: &Path, table: &str) {
    let mut on_disk = Vec::new();
    for sub in [dir.to_path_buf(), dir.join("shared")] {
        for entry in std::fs::read_dir(&sub).unwrap_or_else(|e| panic!("{}: {e}", sub.display())) {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "wgsl") {
                on_disk.push(path.strip_prefix(dir).unwrap().to_string_lossy().replace('\\', "/"));
            }
        }
    }
    on_disk.sort();
    let mut embedded: Vec<String> = library.files.iter().map(|(n, _)| n.to_string()).collect();
    embedded.sort();
    assert_eq!(on_disk, embedded, "{}: add new shaders to {table}", dir.display());
}

/// No file name is embedded by two of `libraries` (an include would find the first one only).
pub fn names_are_unique(libraries: &[&ShaderLibrary]) {
    let mut seen = HashSet::new();
    for library in libraries {
        for (name, _) in library.files {
            assert!(seen.insert(*name), "{name} is embedded twice");
        }
    }
}

/// Makes the text of a generated WGSL file.
pub type GenerateWgsl = fn() -> String;

/// Checks that each generated file (`dir/name`, embedded in `library`) equals what its generator
/// makes now; with BISECTOR_UPDATE_GENERATED set, rewrites it instead.
pub fn generated_files_are_current(library: &ShaderLibrary, dir: &Path, files: &[(&str, GenerateWgsl)]) {
    let update = std::env::var_os("BISECTOR_UPDATE_GENERATED").is_some();
    for (name, generate) in files {
        let expected = generate();
        if update {
            std::fs::write(dir.join(name), &expected).unwrap();
            continue;
        }
        assert_eq!(
            own_file(library, name),
            expected,
            "{}/{name} is out of date: run BISECTOR_UPDATE_GENERATED=1 cargo test --workspace --test shaders generated",
            dir.display()
        );
    }
}

/// The WGSL side of a mirror: a struct by name, or the element type of an array (a global
/// variable, or `Struct.member`), whose vector components are members `x`, `y`, `z`, `w`.
pub enum Wgsl {
    Struct(&'static str),
    Elements(&'static str),
}

/// A Rust struct that mirrors a WGSL type: each Rust field (or each element of an array field)
/// with the WGSL member it mirrors; padding fields are left out (see `is_padding`).
pub struct Mirror {
    pub rust: &'static str,
    pub size: usize,
    /// (WGSL member, offset in the Rust struct, size in bytes).
    pub fields: Vec<(&'static str, usize, usize)>,
    /// Rust fields mapped to `_`: they must be padding by name.
    pub padding: Vec<&'static str>,
    /// The shader (includes resolved) that defines the WGSL type.
    pub shader: &'static str,
    pub wgsl: Wgsl,
}

/// Padding, on either side, is named `pad`, `_pad` or either followed by digits: it is not
/// matched by name (the sizes and the other members' offsets still pin it down).
fn is_padding(name: &str) -> bool {
    let rest = name.strip_prefix('_').unwrap_or(name);
    rest.strip_prefix("pad").is_some_and(|digits| digits.chars().all(|c| c.is_ascii_digit()))
}

/// `mirror!("file.wgsl", Wgsl::…, RustStruct { field: "member", array: ["m0", "m1"], pad: _ })`:
/// every Rust field must be listed (the exhaustive pattern below fails to compile otherwise); an
/// array field lists one WGSL member per element. (The module must be declared with
/// `#[macro_use]`, and `Mirror` be in scope where the macro is used.)
macro_rules! mirror {
    ($shader:literal, $wgsl:expr, $rust:ident { $($field:ident: $members:tt),* $(,)? }) => {{
        #[allow(dead_code)]
        fn every_field_is_listed(v: $rust) {
            let $rust { $($field: _),* } = v;
        }
        let zero: $rust = bytemuck::Zeroable::zeroed();
        let mut fields = Vec::new();
        #[allow(unused_mut)]
        let mut padding = Vec::new();
        $(
            let offset = std::mem::offset_of!($rust, $field);
            let size = std::mem::size_of_val(&zero.$field);
            mirror!(@members fields padding $field offset size $members);
        )*
        Mirror { rust: stringify!($rust), size: std::mem::size_of::<$rust>(), fields, padding, shader: $shader, wgsl: $wgsl }
    }};
    (@members $fields:ident $padding:ident $field:ident $offset:ident $size:ident _) => {
        let _ = ($offset, $size);
        $padding.push(stringify!($field));
    };
    (@members $fields:ident $padding:ident $field:ident $offset:ident $size:ident [$($member:literal),+ $(,)?]) => {
        let members: &[&'static str] = &[$($member),+];
        let element = $size / members.len();
        assert_eq!(element * members.len(), $size, "{}: {} members for {} bytes", stringify!($field), members.len(), $size);
        for (i, member) in members.iter().enumerate() {
            $fields.push((*member, $offset + i * element, element));
        }
    };
    (@members $fields:ident $padding:ident $field:ident $offset:ident $size:ident $member:literal) => {
        $fields.push(($member, $offset, $size));
    };
}

/// `shader` of `library` with its includes resolved, parsed by naga.
pub fn parse(library: &ShaderLibrary, shader: &str) -> naga::Module {
    let source = library.source(shader).unwrap_or_else(|| panic!("{shader}: unknown shader"));
    naga::front::wgsl::parse_str(&source).unwrap_or_else(|e| panic!("{shader}: {}", e.emit_to_string(&source)))
}

/// A WGSL type's members as (name, offset, size) and its size (a struct's span, an array's stride).
pub fn wgsl_layout(module: &naga::Module, wgsl: &Wgsl) -> (Vec<(String, usize, usize)>, usize) {
    let mut layouter = naga::proc::Layouter::default();
    layouter.update(module.to_ctx()).unwrap();
    let find_struct = |name: &str| {
        module.types.iter().find(|(_, t)| t.name.as_deref() == Some(name)).unwrap_or_else(|| panic!("no WGSL struct {name}")).0
    };
    let members_of = |ty: naga::Handle<naga::Type>| -> Vec<(String, usize, usize)> {
        match &module.types[ty].inner {
            naga::TypeInner::Struct { members, .. } => members
                .iter()
                .map(|m| {
                    // A runtime-sized array has size 0 here: the buffer's tail, not the header.
                    let runtime = matches!(module.types[m.ty].inner, naga::TypeInner::Array { size: naga::ArraySize::Dynamic, .. });
                    (m.name.clone().unwrap_or_default(), m.offset as usize, if runtime { 0 } else { layouter[m.ty].size as usize })
                })
                .collect(),
            naga::TypeInner::Vector { size, scalar } => ["x", "y", "z", "w"][..*size as usize]
                .iter()
                .enumerate()
                .map(|(i, c)| (c.to_string(), i * scalar.width as usize, scalar.width as usize))
                .collect(),
            other => panic!("unexpected WGSL type {other:?}"),
        }
    };
    match wgsl {
        Wgsl::Struct(name) => {
            let ty = find_struct(name);
            (members_of(ty), layouter[ty].size as usize)
        }
        Wgsl::Elements(path) => {
            let array = match path.split_once('.') {
                Some((name, member)) => match &module.types[find_struct(name)].inner {
                    naga::TypeInner::Struct { members, .. } => {
                        members.iter().find(|m| m.name.as_deref() == Some(member)).unwrap_or_else(|| panic!("no member {path}")).ty
                    }
                    _ => unreachable!(),
                },
                None => {
                    module
                        .global_variables
                        .iter()
                        .find(|(_, g)| g.name.as_deref() == Some(*path))
                        .unwrap_or_else(|| panic!("no global {path}"))
                        .1
                        .ty
                }
            };
            match module.types[array].inner {
                naga::TypeInner::Array { base, stride, .. } => (members_of(base), stride as usize),
                ref other => panic!("{path} is not an array: {other:?}"),
            }
        }
    }
}

/// Compares one mirror with its WGSL type; returns what disagrees.
fn mirror_mismatches(library: &ShaderLibrary, mirror: &Mirror) -> Vec<String> {
    let module = parse(library, mirror.shader);
    let (members, mut wgsl_size) = wgsl_layout(&module, &mirror.wgsl);
    let mut errors = Vec::new();
    for pad in &mirror.padding {
        if !is_padding(pad) {
            errors.push(format!("Rust field {pad} is mapped to _ but is not named as padding"));
        }
    }
    let mut matched = HashSet::new();
    for (i, (name, offset, size)) in members.iter().enumerate() {
        // A trailing runtime-sized array is the buffer's tail after the mirrored header.
        if i + 1 == members.len() && *size == 0 {
            if *offset != mirror.size {
                errors.push(format!("the array {name} starts at {offset}, after a Rust header of {} bytes", mirror.size));
            }
            wgsl_size = *offset;
            continue;
        }
        if is_padding(name) {
            continue;
        }
        match mirror.fields.iter().find(|(member, _, _)| member == name) {
            None => errors.push(format!("WGSL member {name} has no Rust field")),
            Some((_, rust_offset, rust_size)) => {
                matched.insert(name.as_str());
                if rust_offset != offset || rust_size != size {
                    errors.push(format!("{name}: WGSL offset {offset} size {size}, Rust offset {rust_offset} size {rust_size}"));
                }
            }
        }
    }
    for (member, _, _) in &mirror.fields {
        if !matched.contains(member) {
            errors.push(format!("Rust maps a field to {member}, which WGSL lacks"));
        }
    }
    if wgsl_size != mirror.size {
        errors.push(format!("WGSL size {wgsl_size}, Rust size {}", mirror.size));
    }
    errors
}

/// Every mirror agrees with its WGSL type in `library`.
pub fn mirrors_match(library: &ShaderLibrary, mirrors: Vec<Mirror>) {
    let mut errors = Vec::new();
    for mirror in mirrors {
        for error in mirror_mismatches(library, &mirror) {
            errors.push(format!("{} ({}): {error}", mirror.rust, mirror.shader));
        }
    }
    assert!(errors.is_empty(), "Rust and WGSL layouts disagree:\n{}", errors.join("\n"));
}

/// A WGSL constant's value, as naga evaluates it.
#[derive(Debug, PartialEq)]
pub enum Value {
    U32(u32),
    I32(i32),
    F32(f32),
}

/// The value of `const name` in `shader` (includes resolved).
pub fn wgsl_constant(library: &ShaderLibrary, shader: &str, name: &str) -> Value {
    let module = parse(library, shader);
    let constant =
        module.constants.iter().find(|(_, c)| c.name.as_deref() == Some(name)).unwrap_or_else(|| panic!("{shader}: no const {name}")).1;
    match module.global_expressions[constant.init] {
        naga::Expression::Literal(naga::Literal::U32(v)) => Value::U32(v),
        naga::Expression::Literal(naga::Literal::I32(v)) => Value::I32(v),
        naga::Expression::Literal(naga::Literal::F32(v)) => Value::F32(v),
        ref other => panic!("{shader}: const {name} is {other:?}"),
    }
}

/// Every (shader, const, value) of `expected` has that value in WGSL.
pub fn constants_agree(library: &ShaderLibrary, expected: &[(&str, &str, Value)]) {
    let mut errors = Vec::new();
    for (shader, name, value) in expected {
        let got = wgsl_constant(library, shader, name);
        if got != *value {
            errors.push(format!("{shader}: {name} is {got:?} in WGSL, {value:?} in Rust"));
        }
    }
    assert!(errors.is_empty(), "WGSL constants disagree with Rust:\n{}", errors.join("\n"));
}
