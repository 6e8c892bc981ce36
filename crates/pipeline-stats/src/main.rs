//! `pipeline-stats DIR`: the driver's statistics (register count, shared memory, binary size, ...)
//! of every compute pipeline that `bisector` wrote to DIR under `BISECTOR_DUMP_PIPELINES=DIR`
//! (`bisector_gpu::shader::ShaderLibrary::dump_compute_pipeline`), one line each.
//!
//! wgpu does not expose VK_KHR_pipeline_executable_properties, so this tool compiles each dumped
//! pipeline again as wgpu 30 does on Vulkan (naga's SPIR-V with the overrides applied, bounds
//! checks left to robustBufferAccess2 where the device has it, workgroup memory zeroed natively
//! unless the pipeline turned that off), on a device with every feature it supports, and asks the
//! driver. A register count sets how many workgroups an SM holds: on the H100 and H200, 65,536
//! registers an SM, allocated 8 at a time per thread (docs/BENCHMARKS.md run 86).
use anyhow::{anyhow, bail, Context, Result};
use ash::vk;
use std::ffi::{CStr, CString};
use std::io::Write;
use std::path::{Path, PathBuf};

fn main() {
    if let Err(e) = run() {
        // A closed pipe (`| head`) ends the listing quietly.
        if e.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe) {
            return;
        }
        eprintln!("error: {e:#}");
        std::process::exit(2);
    }
}

/// One dumped pipeline: its file stem, entry point, constants and whether workgroup memory is zeroed.
struct Dumped {
    name: String,
    entry: String,
    source: String,
    constants: naga::back::PipelineConstants,
    zero_init: bool,
}

fn run() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let (Some(dir), None) = (args.next(), args.next()) else {
        bail!("usage: pipeline-stats DIR (a directory written by bisector under BISECTOR_DUMP_PIPELINES=DIR)");
    };
    let pipelines = read_dumped(Path::new(&dir))?;
    let vulkan = Vulkan::new()?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "device: {} (pipeline statistics: {})", vulkan.name, if vulkan.stats.is_some() { "yes" } else { "no, only compiled" })?;
    for p in &pipelines {
        match vulkan.statistics(p) {
            Ok(stats) => writeln!(out, "{:<48} {:<24} {}", p.name, p.entry, stats.join(" | "))?,
            Err(e) => writeln!(out, "{:<48} {:<24} error: {e:#}", p.name, p.entry)?,
        }
    }
    Ok(())
}

/// The pipelines in `dir`, by file name.
fn read_dumped(dir: &Path) -> Result<Vec<Dumped>> {
    let entries = std::fs::read_dir(dir).with_context(|| format!("{}: cannot read the directory", dir.display()))?;
    let mut files: Vec<PathBuf> =
        entries.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|x| x == "json")).collect();
    files.sort();
    if files.is_empty() {
        bail!("{}: no dumped pipelines (*.json) there", dir.display());
    }
    files.iter().map(|f| read_one(dir, f).with_context(|| f.display().to_string())).collect()
}

fn read_one(dir: &Path, file: &Path) -> Result<Dumped> {
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(file)?)?;
    let field = |k: &str| json[k].as_str().map(str::to_string).ok_or_else(|| anyhow!("no string field \"{k}\""));
    let mut constants = naga::back::PipelineConstants::default();
    for (k, v) in json["constants"].as_object().ok_or_else(|| anyhow!("no object \"constants\""))? {
        constants.insert(k.clone(), v.as_f64().ok_or_else(|| anyhow!("constant {k} is not a number"))?);
    }
    let wgsl = dir.join(field("wgsl")?);
    Ok(Dumped {
        name: file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default(),
        entry: field("entry")?,
        source: std::fs::read_to_string(&wgsl).with_context(|| wgsl.display().to_string())?,
        constants,
        zero_init: json["zero_init"].as_bool().unwrap_or(true),
    })
}

/// The SPIR-V of `p` as wgpu 30 writes it for a Vulkan 1.3 device.
fn spirv(p: &Dumped, robust_buffer_access2: bool) -> Result<Vec<u32>> {
    use naga::back::spv;
    use naga::proc::{BoundsCheckPolicies, BoundsCheckPolicy};
    let module = naga::front::wgsl::parse_str(&p.source).map_err(|e| anyhow!(e.emit_to_string(&p.source)))?;
    let info = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::all()).validate(&module)?;
    let (module, info) =
        naga::back::pipeline_constants::process_overrides(&module, &info, Some((naga::ShaderStage::Compute, &p.entry)), &p.constants)?;
    let options = spv::Options {
        lang_version: (1, 6),
        flags: spv::WriterFlags::empty(),
        capabilities: None,
        bounds_check_policies: BoundsCheckPolicies {
            index: BoundsCheckPolicy::Restrict,
            buffer: if robust_buffer_access2 { BoundsCheckPolicy::Unchecked } else { BoundsCheckPolicy::Restrict },
            image_load: BoundsCheckPolicy::Restrict,
            binding_array: BoundsCheckPolicy::Unchecked,
        },
        zero_initialize_workgroup_memory: if p.zero_init {
            spv::ZeroInitializeWorkgroupMemoryMode::Native
        } else {
            spv::ZeroInitializeWorkgroupMemoryMode::None
        },
        force_loop_bounding: true,
        ..Default::default()
    };
    let pipeline = spv::PipelineOptions { shader_stage: naga::ShaderStage::Compute, entry_point: p.entry.clone() };
    Ok(spv::write_vec(&module, &info, &options, Some(&pipeline))?)
}

/// The descriptor bindings of every group the source declares: (group, binding, type).
fn bindings(source: &str) -> Result<Vec<(u32, u32, vk::DescriptorType)>> {
    let module = naga::front::wgsl::parse_str(source).map_err(|e| anyhow!(e.emit_to_string(source)))?;
    let mut out = Vec::new();
    for (_, var) in module.global_variables.iter() {
        let Some(rb) = &var.binding else { continue };
        let ty = match (var.space, &module.types[var.ty].inner) {
            (naga::AddressSpace::Uniform, _) => vk::DescriptorType::UNIFORM_BUFFER,
            (naga::AddressSpace::Storage { .. }, _) => vk::DescriptorType::STORAGE_BUFFER,
            (_, naga::TypeInner::Image { class: naga::ImageClass::Storage { .. }, .. }) => vk::DescriptorType::STORAGE_IMAGE,
            (_, naga::TypeInner::Image { .. }) => vk::DescriptorType::SAMPLED_IMAGE,
            (_, naga::TypeInner::Sampler { .. }) => vk::DescriptorType::SAMPLER,
            (_, other) => bail!("binding {} of group {}: unsupported type {other:?}", rb.binding, rb.group),
        };
        out.push((rb.group, rb.binding, ty));
    }
    Ok(out)
}

/// A Vulkan device on the first adapter, with every feature it has and, where it has them,
/// pipeline statistics and robustBufferAccess2 (as wgpu asks for).
struct Vulkan {
    _entry: ash::Entry,
    instance: ash::Instance,
    device: ash::Device,
    stats: Option<ash::khr::pipeline_executable_properties::Device>,
    robust_buffer_access2: bool,
    name: String,
}

impl Vulkan {
    fn new() -> Result<Vulkan> {
        // SAFETY: loading the system's Vulkan loader; every call below follows the Vulkan spec's
        // valid usage for the handles it creates.
        unsafe {
            let entry = ash::Entry::load().context("no Vulkan loader")?;
            let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
            let instance = entry.create_instance(&vk::InstanceCreateInfo::default().application_info(&app), None)?;
            let physical = *instance.enumerate_physical_devices()?.first().ok_or_else(|| anyhow!("no Vulkan adapter"))?;
            let properties = instance.get_physical_device_properties(physical);
            let name = CStr::from_ptr(properties.device_name.as_ptr()).to_string_lossy().into_owned();
            let extensions = instance.enumerate_device_extension_properties(physical)?;
            let has = |n: &CStr| extensions.iter().any(|e| CStr::from_ptr(e.extension_name.as_ptr()) == n);
            let has_stats = has(ash::khr::pipeline_executable_properties::NAME);
            let has_robustness2 = has(ash::ext::robustness2::NAME);
            let mut f11 = vk::PhysicalDeviceVulkan11Features::default();
            let mut f12 = vk::PhysicalDeviceVulkan12Features::default();
            let mut f13 = vk::PhysicalDeviceVulkan13Features::default();
            let mut executables = vk::PhysicalDevicePipelineExecutablePropertiesFeaturesKHR::default();
            let mut robustness2 = vk::PhysicalDeviceRobustness2FeaturesEXT::default();
            let mut names = Vec::new();
            let mut features = vk::PhysicalDeviceFeatures2::default().push_next(&mut f11).push_next(&mut f12).push_next(&mut f13);
            if has_stats {
                features = features.push_next(&mut executables);
                names.push(ash::khr::pipeline_executable_properties::NAME.as_ptr());
            }
            if has_robustness2 {
                features = features.push_next(&mut robustness2);
                names.push(ash::ext::robustness2::NAME.as_ptr());
            }
            // The chain queried is the chain enabled: every feature the adapter reports.
            instance.get_physical_device_features2(physical, &mut features);
            let robust_buffer_access2 = has_robustness2 && {
                let mut asked = vk::PhysicalDeviceRobustness2FeaturesEXT::default();
                instance.get_physical_device_features2(physical, &mut vk::PhysicalDeviceFeatures2::default().push_next(&mut asked));
                asked.robust_buffer_access2 == vk::TRUE
            };
            let priorities = [1.0f32];
            let queues = [vk::DeviceQueueCreateInfo::default().queue_family_index(0).queue_priorities(&priorities)];
            let info = vk::DeviceCreateInfo::default().queue_create_infos(&queues).enabled_extension_names(&names).push_next(&mut features);
            let device = instance.create_device(physical, &info, None)?;
            let stats = has_stats.then(|| ash::khr::pipeline_executable_properties::Device::new(&instance, &device));
            Ok(Vulkan { _entry: entry, instance, device, stats, robust_buffer_access2, name })
        }
    }

    /// The driver's statistics of `p`, as "name=value" (empty where the device has none).
    fn statistics(&self, p: &Dumped) -> Result<Vec<String>> {
        let words = spirv(p, self.robust_buffer_access2)?;
        let mut groups: Vec<Vec<vk::DescriptorSetLayoutBinding<'_>>> = Vec::new();
        for (group, binding, ty) in bindings(&p.source)? {
            let g = group as usize;
            groups.resize_with(groups.len().max(g + 1), Vec::new);
            groups[g].push(
                vk::DescriptorSetLayoutBinding::default()
                    .binding(binding)
                    .descriptor_type(ty)
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE),
            );
        }
        let entry = CString::new(p.entry.clone())?;
        // SAFETY: the handles are created, used and destroyed here, on this device.
        unsafe {
            let d = &self.device;
            let module = d.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&words), None)?;
            let set_layouts = groups
                .iter()
                .map(|b| d.create_descriptor_set_layout(&vk::DescriptorSetLayoutCreateInfo::default().bindings(b), None))
                .collect::<Result<Vec<_>, _>>()?;
            let layout = d.create_pipeline_layout(&vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts), None)?;
            let stage = vk::PipelineShaderStageCreateInfo::default().stage(vk::ShaderStageFlags::COMPUTE).module(module).name(&entry);
            let flags =
                if self.stats.is_some() { vk::PipelineCreateFlags::CAPTURE_STATISTICS_KHR } else { vk::PipelineCreateFlags::empty() };
            let created = d.create_compute_pipelines(
                vk::PipelineCache::null(),
                &[vk::ComputePipelineCreateInfo::default().flags(flags).stage(stage).layout(layout)],
                None,
            );
            let result = match created {
                Ok(pipelines) => {
                    let out = self.read_statistics(pipelines[0]);
                    d.destroy_pipeline(pipelines[0], None);
                    out
                }
                Err((_, e)) => Err(anyhow!("the driver refused the pipeline: {e:?}")),
            };
            d.destroy_pipeline_layout(layout, None);
            for s in set_layouts {
                d.destroy_descriptor_set_layout(s, None);
            }
            d.destroy_shader_module(module, None);
            result
        }
    }

    /// SAFETY: `pipeline` was created on this device with CAPTURE_STATISTICS where `stats` is set.
    unsafe fn read_statistics(&self, pipeline: vk::Pipeline) -> Result<Vec<String>> {
        let Some(stats) = &self.stats else { return Ok(Vec::new()) };
        let mut out = Vec::new();
        let executables = stats.get_pipeline_executable_properties(&vk::PipelineInfoKHR::default().pipeline(pipeline))?;
        for index in 0..executables.len() as u32 {
            let info = vk::PipelineExecutableInfoKHR::default().pipeline(pipeline).executable_index(index);
            for s in stats.get_pipeline_executable_statistics(&info)? {
                let name = CStr::from_ptr(s.name.as_ptr()).to_string_lossy().into_owned();
                let value = match s.format {
                    vk::PipelineExecutableStatisticFormatKHR::BOOL32 => s.value.b32.to_string(),
                    vk::PipelineExecutableStatisticFormatKHR::INT64 => s.value.i64.to_string(),
                    vk::PipelineExecutableStatisticFormatKHR::UINT64 => s.value.u64.to_string(),
                    _ => format!("{:.3}", s.value.f64),
                };
                out.push(format!("{name}={value}"));
            }
        }
        Ok(out)
    }
}

impl Drop for Vulkan {
    fn drop(&mut self) {
        // SAFETY: nothing created on the device outlives `statistics`.
        unsafe {
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = "
override SIZE: u32 = 4u;
@group(0) @binding(0) var<storage, read_write> data: array<u32>;
@group(1) @binding(2) var<uniform> scale: vec4<u32>;
@group(1) @binding(3) var image: texture_2d<f32>;
var<workgroup> shared_words: array<u32, 64>;
@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) i: u32) {
    shared_words[i] = data[i] * SIZE * scale.x + u32(textureLoad(image, vec2<u32>(i, 0u), 0).x);
    workgroupBarrier();
    data[i] = shared_words[63u - i];
}";

    fn dumped(constants: &[(&str, f64)]) -> Dumped {
        Dumped {
            name: "test".into(),
            entry: "main".into(),
            source: SOURCE.into(),
            constants: constants.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            zero_init: false,
        }
    }

    #[test]
    fn the_bindings_of_every_group_are_found() {
        let mut b = bindings(SOURCE).unwrap();
        b.sort_by_key(|&(g, n, _)| (g, n));
        assert_eq!(
            b,
            [
                (0, 0, vk::DescriptorType::STORAGE_BUFFER),
                (1, 2, vk::DescriptorType::UNIFORM_BUFFER),
                (1, 3, vk::DescriptorType::SAMPLED_IMAGE)
            ]
        );
    }

    #[test]
    fn overrides_are_applied_and_spirv_written() {
        let words = spirv(&dumped(&[("SIZE", 7.0)]), true).unwrap();
        assert_eq!(words[0], 0x0723_0203, "SPIR-V magic");
        // An override naga does not know is an error, not a silent default.
        assert!(spirv(&dumped(&[("NOT_THERE", 1.0)]), true).is_err());
    }

    #[test]
    fn a_missing_directory_is_one_error_naming_it() {
        let e = read_dumped(Path::new("/nonexistent/pipelines")).err().unwrap();
        assert!(format!("{e:#}").contains("/nonexistent/pipelines"), "{e:#}");
    }
}
