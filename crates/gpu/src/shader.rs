//! WGSL sources, embedded in the binary, with `//!include path` lines resolved (each file once).
//! Each crate embeds its own files in a [`ShaderLibrary`] that names the libraries its files may
//! include from; this crate's [`SHADERS`] holds the pieces every crate shares (2-D dispatch
//! indexing, the integer hash). File names are paths relative to a crate's `shaders/` folder and
//! are unique across the workspace. Files generated from Rust data are checked in; a test beside
//! their generator keeps them current.

use std::collections::HashSet;

/// One crate's embedded WGSL files and the libraries whose files they may include.
pub struct ShaderLibrary {
    /// (path relative to the crate's `shaders/`, text) of every WGSL file of the crate.
    pub files: &'static [(&'static str, &'static str)],
    /// Libraries searched, in order, for an included file this one does not hold.
    pub includes_from: &'static [&'static ShaderLibrary],
}

/// The WGSL pieces shared by every crate: `shared/dispatch.wgsl` (with its generated constants,
/// see [`crate::dispatch::constants_wgsl`]) and `shared/hash.wgsl` (the twin of [`crate::hash`]).
pub const SHADERS: ShaderLibrary = ShaderLibrary {
    files: &[
        ("shared/dispatch.wgsl", include_str!("../shaders/shared/dispatch.wgsl")),
        ("shared/dispatch_constants.wgsl", include_str!("../shaders/shared/dispatch_constants.wgsl")),
        ("shared/hash.wgsl", include_str!("../shaders/shared/hash.wgsl")),
    ],
    includes_from: &[],
};

/// A WGSL `const` declaration of u32 `value`.
pub fn const_u32(name: &str, value: u32) -> String {
    format!("const {name}: u32 = {value}u;\n")
}

/// A WGSL `const` declaration of i32 `value`.
pub fn const_i32(name: &str, value: i32) -> String {
    format!("const {name}: i32 = {value}i;\n")
}

/// A WGSL `const` declaration of f32 `value`, written so that it parses back to exactly `value`.
pub fn const_f32(name: &str, value: f32) -> String {
    format!("const {name}: f32 = {:?};\n", f64::from(value))
}

const INCLUDE: &str = "//!include ";

impl ShaderLibrary {
    /// The text of file `name`: this library's, else the first library it includes from that
    /// holds it.
    pub fn file(&self, name: &str) -> Option<&'static str> {
        self.files.iter().find(|(n, _)| *n == name).map(|(_, text)| *text).or_else(|| self.includes_from.iter().find_map(|l| l.file(name)))
    }

    /// The source of shader `name` with its includes spliced in, or None for an unknown name (the
    /// shader's or an include's).
    pub fn source(&self, name: &str) -> Option<String> {
        self.source_with(name, &[])
    }

    /// The source of shader `name` with its includes spliced in, where an `//!include` of the first
    /// name of a pair in `substitutions` includes the second instead (a shader's variants: the
    /// bisector pool's passes under another criterion).
    pub fn source_with(&self, name: &str, substitutions: &[(&str, &str)]) -> Option<String> {
        let mut seen = HashSet::new();
        let mut out = String::new();
        self.append(name, substitutions, &mut seen, &mut out)?;
        Some(out)
    }

    fn append(&self, name: &str, substitutions: &[(&str, &str)], seen: &mut HashSet<String>, out: &mut String) -> Option<()> {
        if !seen.insert(name.to_string()) {
            return Some(());
        }
        let text = self.file(name)?;
        for line in text.lines() {
            if let Some(included) = line.strip_prefix(INCLUDE) {
                let included = included.trim();
                let included = substitutions.iter().find(|(from, _)| *from == included).map_or(included, |(_, to)| to);
                self.append(included, substitutions, seen, out)?;
            } else {
                out.push_str(line);
                out.push('\n');
            }
        }
        Some(())
    }

    /// Compiles shader `name` (which must be one of this library's files) into a module labelled with it.
    pub fn create_module(&self, device: &wgpu::Device, name: &str) -> wgpu::ShaderModule {
        self.create_module_with(device, name, &[])
    }

    /// Compiles shader `name` with `substitutions` of its includes (`source_with`).
    pub fn create_module_with(&self, device: &wgpu::Device, name: &str, substitutions: &[(&str, &str)]) -> wgpu::ShaderModule {
        let source = self.source_with(name, substitutions).unwrap_or_else(|| panic!("unknown shader {name}"));
        device.create_shader_module(wgpu::ShaderModuleDescriptor { label: Some(name), source: wgpu::ShaderSource::Wgsl(source.into()) })
    }

    /// A compute pipeline for entry point `entry` of shader `name`, with its layout derived from
    /// the shader and its `override` constants set to `constants`.
    pub fn compute_pipeline(
        &self,
        device: &wgpu::Device,
        label: &str,
        name: &str,
        entry: &str,
        constants: &[(&str, f64)],
    ) -> wgpu::ComputePipeline {
        let module = self.create_module(device, name);
        self.dump_compute_pipeline(label, (name, &[]), entry, constants, true);
        device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: Some(label),
            layout: None,
            module: &module,
            entry_point: Some(entry),
            compilation_options: wgpu::PipelineCompilationOptions { constants, ..Default::default() },
            cache: None,
        })
    }

    /// Diagnostics: with `BISECTOR_DUMP_PIPELINES=DIR` set, the compute pipeline of `entry` in
    /// shader `name` (with `substitutions`, as `source_with`) is written to DIR as
    /// `LABEL.ENTRY[.N].wgsl` (its source, includes spliced in) and `.json` (its entry point,
    /// override constants and whether its workgroup memory is zeroed), for crates/pipeline-stats,
    /// which asks a Vulkan driver for their register counts. Without the variable it does nothing
    /// (the source is not spliced); a directory that cannot be written is reported once.
    pub fn dump_compute_pipeline(
        &self,
        label: &str,
        (name, substitutions): (&str, &[(&str, &str)]),
        entry: &str,
        constants: &[(&str, f64)],
        zero_init: bool,
    ) {
        let Some(dir) = std::env::var_os("BISECTOR_DUMP_PIPELINES") else {
            return;
        };
        let source = self.source_with(name, substitutions).unwrap_or_default();
        let dir = std::path::PathBuf::from(dir);
        let base = format!("{label}.{entry}");
        let file = (0..)
            .map(|n| if n == 0 { base.clone() } else { format!("{base}.{n}") })
            .find(|n| !dir.join(format!("{n}.json")).exists())
            .unwrap_or(base);
        let constants: Vec<String> = constants.iter().map(|(k, v)| format!("\"{k}\": {v:?}")).collect();
        let json = format!(
            "{{\"label\": \"{label}\", \"entry\": \"{entry}\", \"wgsl\": \"{file}.wgsl\", \"zero_init\": {zero_init}, \"constants\": {{{}}}}}\n",
            constants.join(", ")
        );
        let written = std::fs::create_dir_all(&dir)
            .and_then(|()| std::fs::write(dir.join(format!("{file}.wgsl")), source))
            .and_then(|()| std::fs::write(dir.join(format!("{file}.json")), json));
        if let Err(e) = written {
            static REPORTED: std::sync::Once = std::sync::Once::new();
            REPORTED.call_once(|| eprintln!("warning: BISECTOR_DUMP_PIPELINES={}: cannot write the pipelines there: {e}", dir.display()));
        }
    }
}
