//! `bisector info`: the adapter and what the renderer needs of it.

use bisector::flat::raster::{RasterPath, COMPUTE_FEATURES};
use bisector::flat::RenderSettings;

pub(crate) fn info() -> anyhow::Result<()> {
    let settings = RenderSettings::default();
    let requirements = bisector::cbt::requirements(settings.max_depth, settings.effective_leaf_capacity() as u64);
    let instance = bisector::gpu::create_instance();
    let adapter = bisector::gpu::request_adapter(&instance, None)?;
    let info = adapter.get_info();
    say!("adapter:  {}", info.name);
    say!("backend:  {:?}", info.backend);
    say!("type:     {:?}", info.device_type);
    say!("driver:   {} {}", info.driver, info.driver_info);
    let features = adapter.features();
    say!("features used:");
    for (feature, why) in &requirements.features {
        say!(
            "  {}: {} (required: {why})",
            bisector::gpu::feature_name(*feature),
            if features.contains(*feature) { "yes" } else { "MISSING" }
        );
    }
    for feature in requirements.optional_features.iter() {
        say!(
            "  {}: {} (optional: GPU pass timings; required by bench)",
            bisector::gpu::feature_name(feature),
            if features.contains(feature) { "yes" } else { "no" }
        );
    }
    let compute = features.contains(COMPUTE_FEATURES);
    say!("raster paths (--raster; the flat terrain and the globe over the bisector pool, the heap's globe draws with hardware):");
    say!("  hardware: yes");
    say!(
        "  compute:  {} (SHADER_INT64 + SHADER_INT64_ATOMIC_MIN_MAX: 64-bit atomic max on storage buffers)",
        if compute { "yes" } else { "no" }
    );
    say!(
        "  auto:     {}",
        if RasterPath::Auto.uses_compute(features, info.device_type) {
            "compute"
        } else {
            "hardware (compute only on a GPU that has the features)"
        }
    );
    let limits = adapter.limits();
    say!("limits (adapter / needed at the default max depth {}):", settings.max_depth);
    for (limit, needed, _) in &requirements.limits {
        say!("  {}: {} / {needed}", limit.name(), limit.of(&limits));
    }
    let deepest = (bisector::cbt::cpu::MIN_MAX_DEPTH..=bisector::cbt::cpu::MAX_MAX_DEPTH)
        .rev()
        .find(|&d| bisector::cbt::cpu::heap_size_bytes(d) <= limits.max_storage_buffer_binding_size as u64)
        .unwrap_or(0);
    say!("deepest CBT this adapter holds: max depth {deepest} ({} MiB heap)", bisector::cbt::cpu::heap_size_bytes(deepest) >> 20);
    Ok(())
}
