//! The device limits the project raises above WebGPU's defaults, typed: each names one field of
//! `wgpu::Limits`, and `Requirements::check` compares whole `wgpu::Limits` with wgpu's own
//! `check_limits_with_fail_fn`, so no limit is looked up by a string the project wrote.

/// A limit some scene or kernel raises: the `wgpu::Limits` field of the same name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    MaxStorageBufferBindingSize,
    MaxBufferSize,
    MaxComputeWorkgroupsPerDimension,
    MaxComputeInvocationsPerWorkgroup,
    MaxComputeWorkgroupStorageSize,
    MaxTextureDimension2d,
    MaxTextureArrayLayers,
    MaxStorageBuffersPerShaderStage,
}

impl Limit {
    /// The field's name, as wgpu's checks report it.
    pub fn name(self) -> &'static str {
        match self {
            Limit::MaxStorageBufferBindingSize => "max_storage_buffer_binding_size",
            Limit::MaxBufferSize => "max_buffer_size",
            Limit::MaxComputeWorkgroupsPerDimension => "max_compute_workgroups_per_dimension",
            Limit::MaxComputeInvocationsPerWorkgroup => "max_compute_invocations_per_workgroup",
            Limit::MaxComputeWorkgroupStorageSize => "max_compute_workgroup_storage_size",
            Limit::MaxTextureDimension2d => "max_texture_dimension_2d",
            Limit::MaxTextureArrayLayers => "max_texture_array_layers",
            Limit::MaxStorageBuffersPerShaderStage => "max_storage_buffers_per_shader_stage",
        }
    }

    /// Its value in `limits`.
    pub fn of(self, limits: &wgpu::Limits) -> u64 {
        match self {
            Limit::MaxStorageBufferBindingSize => limits.max_storage_buffer_binding_size,
            Limit::MaxBufferSize => limits.max_buffer_size,
            Limit::MaxComputeWorkgroupsPerDimension => limits.max_compute_workgroups_per_dimension.into(),
            Limit::MaxComputeInvocationsPerWorkgroup => limits.max_compute_invocations_per_workgroup.into(),
            Limit::MaxComputeWorkgroupStorageSize => limits.max_compute_workgroup_storage_size.into(),
            Limit::MaxTextureDimension2d => limits.max_texture_dimension_2d.into(),
            Limit::MaxTextureArrayLayers => limits.max_texture_array_layers.into(),
            Limit::MaxStorageBuffersPerShaderStage => limits.max_storage_buffers_per_shader_stage.into(),
        }
    }

    /// Raises its value in `limits` to at least `value` (saturating at u32 for 32-bit fields).
    pub fn raise(self, limits: &mut wgpu::Limits, value: u64) {
        let small = |v: &mut u32| *v = (*v).max(value.min(u32::MAX.into()) as u32);
        match self {
            Limit::MaxStorageBufferBindingSize => {
                limits.max_storage_buffer_binding_size = limits.max_storage_buffer_binding_size.max(value)
            }
            Limit::MaxBufferSize => limits.max_buffer_size = limits.max_buffer_size.max(value),
            Limit::MaxComputeWorkgroupsPerDimension => small(&mut limits.max_compute_workgroups_per_dimension),
            Limit::MaxComputeInvocationsPerWorkgroup => small(&mut limits.max_compute_invocations_per_workgroup),
            Limit::MaxComputeWorkgroupStorageSize => small(&mut limits.max_compute_workgroup_storage_size),
            Limit::MaxTextureDimension2d => small(&mut limits.max_texture_dimension_2d),
            Limit::MaxTextureArrayLayers => small(&mut limits.max_texture_array_layers),
            Limit::MaxStorageBuffersPerShaderStage => small(&mut limits.max_storage_buffers_per_shader_stage),
        }
    }

    /// Every limit, for reports.
    pub const ALL: [Limit; 8] = [
        Limit::MaxStorageBufferBindingSize,
        Limit::MaxBufferSize,
        Limit::MaxComputeWorkgroupsPerDimension,
        Limit::MaxComputeInvocationsPerWorkgroup,
        Limit::MaxComputeWorkgroupStorageSize,
        Limit::MaxTextureDimension2d,
        Limit::MaxTextureArrayLayers,
        Limit::MaxStorageBuffersPerShaderStage,
    ];
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_limit_names_the_field_wgpu_reports() {
        // Raise each limit past the defaults on its own: wgpu's check reports exactly its name.
        for limit in Limit::ALL {
            let mut needed = wgpu::Limits::default();
            let raised = limit.of(&needed) + 1;
            limit.raise(&mut needed, raised);
            assert_eq!(limit.of(&needed), limit.of(&wgpu::Limits::default()) + 1, "{limit:?}");
            let mut reported = Vec::new();
            needed.check_limits_with_fail_fn(&wgpu::Limits::default(), false, |name, _, _| reported.push(name));
            assert_eq!(reported, vec![limit.name()], "{limit:?}");
        }
    }
}
