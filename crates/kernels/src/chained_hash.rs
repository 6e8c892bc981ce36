//! `bisector kernel chained-hash`: separate chaining built in parallel (seed 000). A global
//! counter hands out node slots, atomicExchange swaps the bucket head, the old head becomes the
//! new node's next. Two builds (one atomicAdd per element, or one per subgroup), lookups with all
//! hits, half hits and all misses, every result verified against the CPU reference below.
//!
//! Hash: h(k) = floor(m * frac(k * A)) with m = 2^bucket_log2 and A = (sqrt(5) - 1) / 2 taken to
//! 32 bits (2654435769 / 2^32, Knuth), computed exactly in integers as the top bits of the low
//! 32 bits of k * 2654435769. (A float A, as in the paper, would round differently for large k.)
//!
//! Duplicate keys: the table is a multiset. Every inserted element gets its own node; a lookup
//! returns the value of the first matching node on the chain, which is one of the key's values
//! (the one linked last; with a parallel build, which one that is depends on timing).

use std::collections::HashMap;
use std::time::Instant;

use serde::{Deserialize, Serialize};
use wgpu::util::DeviceExt;

use bisector_gpu::dispatch::{groups_2d, WORKGROUP_SIZE};
use bisector_gpu::readback::read_buffer;
use bisector_gpu::timings::{submit_and_time, TimingMs};
use bisector_gpu::{profiled_compute_pass, Gpu, Requirements};

use crate::{check_iterations, IterationsError, Kernel, KernelError, SHADERS};

/// Parameters of the kernel. Keep in sync with ChainedHashParams in shaders/shared/chained_hash.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ChainedHashParams {
    pub elements: u32,
    pub bucket_log2: u32,
    pub node_capacity: u32,
    pub queries: u32,
}
const _: () = assert!(std::mem::size_of::<ChainedHashParams>() == 16);

/// One node. Keep in sync with ChainNode in shaders/shared/chained_hash.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ChainNode {
    pub key: u32,
    pub value: u32,
    /// The next node's index + 1; 0 ends the chain.
    pub next: u32,
}
const _: () = assert!(std::mem::size_of::<ChainNode>() == 12);

/// A lookup's answer for an absent key.
pub const NOT_FOUND: u32 = u32::MAX;
/// 2^32 / the golden ratio: the multiplier of the bucket hash (GOLDEN_FRACTION in the shaders).
pub const GOLDEN_FRACTION: u32 = 2_654_435_769;

/// The bucket of `key` among 2^`bucket_log2`.
pub fn bucket_of(key: u32, bucket_log2: u32) -> u32 {
    if bucket_log2 == 0 {
        0
    } else {
        key.wrapping_mul(GOLDEN_FRACTION) >> (32 - bucket_log2)
    }
}

/// How keys are drawn. Inserted keys are even and miss keys odd, so misses are certain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize, clap::ValueEnum)]
pub enum KeyDistribution {
    /// Uniform random 32-bit keys.
    Uniform,
    /// Keys from only elements/4 distinct values: about 4 copies of each.
    Duplicates,
    /// 0, 2, 4, ...
    Sequential,
}

/// Which build to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize, clap::ValueEnum)]
pub enum BuildVariant {
    /// One atomicAdd on the global counter per element (the paper's).
    Global,
    /// One atomicAdd per subgroup (needs the SUBGROUP feature).
    Subgroup,
    /// Both, one after the other.
    Both,
}

/// What to run (also the viewer's persisted panel parameters).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ChainedHashOptions {
    pub element_log2: u32,
    pub bucket_log2: u32,
    pub keys: KeyDistribution,
    pub variant: BuildVariant,
    pub iterations: u32,
    pub seed: u64,
}

impl Default for ChainedHashOptions {
    /// The CLI's defaults, with a fixed seed.
    fn default() -> Self {
        ChainedHashOptions {
            element_log2: 16,
            bucket_log2: 15,
            keys: KeyDistribution::Uniform,
            variant: BuildVariant::Both,
            iterations: 10,
            seed: 1,
        }
    }
}

/// Why the kernel cannot run with its options.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OptionsError {
    #[error("at most 2^28 elements and 2^30 buckets")]
    TooLarge,
    #[error(transparent)]
    Iterations(#[from] IterationsError),
}

/// The kernel, run through [`Kernel`].
pub struct ChainedHash;

impl Kernel for ChainedHash {
    const NAME: &'static str = "chained-hash";
    type Options = ChainedHashOptions;
    type Report = ChainedHashReport;

    fn check(options: &ChainedHashOptions) -> Result<(), KernelError> {
        if options.element_log2 > 28 || options.bucket_log2 > 30 {
            return Err(OptionsError::TooLarge.into());
        }
        check_iterations(options.iterations).map_err(OptionsError::from)?;
        Ok(())
    }

    fn requirements(options: &ChainedHashOptions) -> Requirements {
        let requirements = Requirements::kernel(
            buffer_bytes(options),
            format!(
                "for 2^{} hash-table nodes and 2^{} buckets; lower --elements-log2 or --buckets-log2",
                options.element_log2, options.bucket_log2
            ),
        );
        if options.variant == BuildVariant::Global {
            requirements
        } else {
            requirements
                .with_feature(wgpu::Features::SUBGROUP, "the subgroup build aggregates its counter per subgroup; use --variant global")
        }
    }

    fn measure(gpu: &Gpu, options: &ChainedHashOptions) -> ChainedHashReport {
        measure(gpu, options)
    }
}

/// The CPU reference: the same table built one element at a time.
pub struct CpuChainedHash {
    pub bucket_log2: u32,
    /// Node reference (index + 1) of each bucket's first node, 0 for none.
    pub heads: Vec<u32>,
    pub nodes: Vec<ChainNode>,
}

impl CpuChainedHash {
    /// Inserts every (key, value) in order.
    pub fn build(keys: &[u32], values: &[u32], bucket_log2: u32) -> CpuChainedHash {
        let mut heads = vec![0u32; 1 << bucket_log2];
        let mut nodes = Vec::with_capacity(keys.len());
        for (&key, &value) in keys.iter().zip(values) {
            let bucket = bucket_of(key, bucket_log2) as usize;
            nodes.push(ChainNode { key, value, next: heads[bucket] });
            heads[bucket] = nodes.len() as u32;
        }
        CpuChainedHash { bucket_log2, heads, nodes }
    }

    /// The same table built on `threads` threads, every chain holding the same nodes in the same
    /// order as the one-thread build (node indices differ). Each thread owns a range of buckets:
    /// first every thread sorts its slice of the input by owner (keeping input order), then
    /// each owner links, in input order, the elements of its buckets into its own block of nodes.
    pub fn build_parallel(keys: &[u32], values: &[u32], bucket_log2: u32, threads: usize) -> CpuChainedHash {
        let buckets = 1usize << bucket_log2;
        let threads = threads.clamp(1, buckets);
        let share = buckets.div_ceil(threads);
        let owners = buckets.div_ceil(share);
        let slice = keys.len().div_ceil(threads).max(1);
        // sorted[t][o]: the (key, value) pairs of input slice t whose bucket owner is o.
        let sorted: Vec<Vec<Vec<(u32, u32)>>> = std::thread::scope(|scope| {
            let handles: Vec<_> = keys
                .chunks(slice)
                .zip(values.chunks(slice))
                .map(|(ks, vs)| {
                    scope.spawn(move || {
                        let mut out = vec![Vec::new(); owners];
                        for (&k, &v) in ks.iter().zip(vs) {
                            out[bucket_of(k, bucket_log2) as usize / share].push((k, v));
                        }
                        out
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().expect("partition thread")).collect()
        });
        let mut heads = vec![0u32; buckets];
        let mut nodes = vec![ChainNode { key: 0, value: 0, next: 0 }; keys.len()];
        std::thread::scope(|scope| {
            let mut rest_nodes: &mut [ChainNode] = &mut nodes;
            let mut first_node = 0usize;
            for (o, owner_heads) in heads.chunks_mut(share).enumerate() {
                let count: usize = sorted.iter().map(|t| t[o].len()).sum();
                let (mine, rest) = std::mem::take(&mut rest_nodes).split_at_mut(count);
                rest_nodes = rest;
                let sorted = &sorted;
                let base = first_node;
                first_node += count;
                scope.spawn(move || {
                    for (n, (k, v)) in sorted.iter().flat_map(|t| t[o].iter().copied()).enumerate() {
                        let b = bucket_of(k, bucket_log2) as usize - o * share;
                        mine[n] = ChainNode { key: k, value: v, next: owner_heads[b] };
                        owner_heads[b] = (base + n + 1) as u32;
                    }
                });
            }
        });
        CpuChainedHash { bucket_log2, heads, nodes }
    }

    /// The value of the first node with `key` on its chain, or NOT_FOUND.
    pub fn lookup(&self, key: u32) -> u32 {
        chain(&self.heads, &self.nodes, bucket_of(key, self.bucket_log2)).find(|n| n.key == key).map_or(NOT_FOUND, |n| n.value)
    }
}

/// The nodes of `bucket`'s chain, at most `nodes.len()` of them (so a cycle cannot hang).
pub fn chain<'a>(heads: &'a [u32], nodes: &'a [ChainNode], bucket: u32) -> impl Iterator<Item = ChainNode> + 'a {
    let mut reference = heads[bucket as usize];
    (0..nodes.len()).map_while(move |_| {
        let node = *nodes.get(reference.checked_sub(1)? as usize)?;
        reference = node.next;
        Some(node)
    })
}

/// Per-bucket multisets of (key, value), sorted: what any valid build of the same elements holds.
pub fn bucket_contents(heads: &[u32], nodes: &[ChainNode]) -> Vec<Vec<(u32, u32)>> {
    (0..heads.len() as u32)
        .map(|b| {
            let mut content: Vec<(u32, u32)> = chain(heads, nodes, b).map(|n| (n.key, n.value)).collect();
            content.sort_unstable();
            content
        })
        .collect()
}

/// Keys, values (the element index) and miss keys for a run.
pub fn make_inputs(options: &ChainedHashOptions) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let n = 1usize << options.element_log2;
    let mut state = options.seed | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 16) as u32
    };
    let distinct = (n as u32 / 4).max(1);
    let keys: Vec<u32> = (0..n as u32)
        .map(|i| match options.keys {
            KeyDistribution::Uniform => next() & !1,
            KeyDistribution::Duplicates => (next() % distinct) * 2,
            KeyDistribution::Sequential => i.wrapping_mul(2),
        })
        .collect();
    let misses: Vec<u32> = (0..n).map(|_| next() | 1).collect();
    (keys, (0..n as u32).collect(), misses)
}

/// One build variant's outcome.
#[derive(Clone, Debug, Serialize)]
pub struct BuildReport {
    pub variant: &'static str,
    pub gpu: TimingMs,
    /// Elements inserted per second (median).
    pub elements_per_s: f64,
    /// Every bucket holds exactly the CPU reference's (key, value) multiset.
    pub verified: bool,
}

/// One lookup set's outcome.
#[derive(Clone, Debug, Serialize)]
pub struct LookupReport {
    pub queries: &'static str,
    pub gpu: TimingMs,
    pub lookups_per_s: f64,
    /// Every query found exactly when the key is present, with one of the key's values.
    pub verified: bool,
}

/// The whole run.
#[derive(Clone, Debug, Serialize)]
pub struct ChainedHashReport {
    pub kernel: &'static str,
    pub adapter: String,
    pub elements: u32,
    pub buckets: u32,
    pub keys: KeyDistribution,
    pub seed: u64,
    pub verified: bool,
    pub builds: Vec<BuildReport>,
    pub lookups: Vec<LookupReport>,
    pub upload_ms: f64,
    pub readback_ms: f64,
    /// The single-threaded CPU reference build.
    pub cpu_build_ms: f64,
    /// The same build on all cores (`cpu_threads`; partition by bucket range, then one chain
    /// builder per range), checked equal to the one-thread build.
    pub cpu_parallel_build_ms: f64,
    pub cpu_threads: usize,
    pub longest_chain: usize,
    pub empty_buckets: usize,
    /// On lavapipe, which stops a shader loop after 65535 iterations in all: whether a lookup of
    /// this run may walk a longer chain (then results can be incomplete and `verified` says so).
    pub lavapipe_loop_limit_exceeded: bool,
}

struct Buffers {
    params: wgpu::Buffer,
    heads: wgpu::Buffer,
    nodes: wgpu::Buffer,
    counter: wgpu::Buffer,
    keys: wgpu::Buffer,
    values: wgpu::Buffer,
    queries: wgpu::Buffer,
    found: wgpu::Buffer,
}

fn storage(device: &wgpu::Device, label: &str, contents: &[u8]) -> wgpu::Buffer {
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
    })
}

/// Storage bytes the largest buffer of a run with 2^`element_log2` elements needs.
pub fn largest_buffer_bytes(element_log2: u32) -> u64 {
    (std::mem::size_of::<ChainNode>() as u64) << element_log2
}

/// Storage bytes the largest buffer of a run with `options` needs: the nodes or the bucket heads.
pub fn buffer_bytes(options: &ChainedHashOptions) -> u64 {
    largest_buffer_bytes(options.element_log2).max(4u64 << options.bucket_log2)
}

/// Runs the kernel (`ChainedHash::measure`). Needs Features::SUBGROUP for the subgroup variant.
fn measure(gpu: &Gpu, options: &ChainedHashOptions) -> ChainedHashReport {
    let device = &gpu.device;
    let (keys, values, misses) = make_inputs(options);
    let n = keys.len() as u32;
    let cpu_start = Instant::now();
    let cpu = CpuChainedHash::build(&keys, &values, options.bucket_log2);
    let cpu_build_ms = cpu_start.elapsed().as_secs_f64() * 1e3;
    let cpu_threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    let parallel_start = Instant::now();
    let parallel = CpuChainedHash::build_parallel(&keys, &values, options.bucket_log2, cpu_threads);
    let cpu_parallel_build_ms = parallel_start.elapsed().as_secs_f64() * 1e3;
    let parallel_equal = bucket_contents(&parallel.heads, &parallel.nodes) == bucket_contents(&cpu.heads, &cpu.nodes);

    let upload_start = Instant::now();
    let params = ChainedHashParams { elements: n, bucket_log2: options.bucket_log2, node_capacity: n, queries: n };
    let buffers = Buffers {
        params: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("kernel.chained_hash.params"),
            contents: bytemuck::bytes_of(&params),
            usage: wgpu::BufferUsages::UNIFORM,
        }),
        heads: storage(device, "kernel.chained_hash.heads", &vec![0u8; 4 << options.bucket_log2]),
        nodes: storage(device, "kernel.chained_hash.nodes", &vec![0u8; 12 * n as usize]),
        counter: storage(device, "kernel.chained_hash.counter", &[0u8; 8]),
        keys: storage(device, "kernel.chained_hash.keys", bytemuck::cast_slice(&keys)),
        values: storage(device, "kernel.chained_hash.values", bytemuck::cast_slice(&values)),
        queries: storage(device, "kernel.chained_hash.queries", bytemuck::cast_slice(&keys)),
        found: storage(device, "kernel.chained_hash.found", &vec![0u8; 4 * n as usize]),
    };
    gpu.wait_idle();
    let upload_ms = upload_start.elapsed().as_secs_f64() * 1e3;

    let mut profiler = bisector_gpu::create_profiler(device);
    let mut builds = Vec::new();
    let variants: &[(&'static str, &str, &str)] = match options.variant {
        BuildVariant::Global => &[("global", "kernel_chained_hash.wgsl", "build_global")],
        BuildVariant::Subgroup => &[("subgroup", "kernel_chained_hash_subgroup.wgsl", "build_subgroup")],
        BuildVariant::Both => {
            &[("global", "kernel_chained_hash.wgsl", "build_global"), ("subgroup", "kernel_chained_hash_subgroup.wgsl", "build_subgroup")]
        }
    };
    let expected = bucket_contents(&cpu.heads, &cpu.nodes);
    let mut readback_ms = 0.0;
    for &(variant, file, entry) in variants {
        let label = format!("kernel.chained_hash.build_{variant}");
        let pipeline = SHADERS.compute_pipeline(device, &label, file, entry, &[]);
        let bind_group = bind(device, &pipeline, &buffers, false);
        let samples = time_over_elements(gpu, &mut profiler, &label, &pipeline, &bind_group, n, options.iterations, |encoder| {
            encoder.clear_buffer(&buffers.heads, 0, None);
            encoder.clear_buffer(&buffers.counter, 0, None);
        });
        let read_start = Instant::now();
        let heads: Vec<u32> = bytemuck::cast_slice(&read_buffer(device, &gpu.queue, &buffers.heads, 0, buffers.heads.size())).to_vec();
        let nodes: Vec<ChainNode> =
            bytemuck::cast_slice(&read_buffer(device, &gpu.queue, &buffers.nodes, 0, buffers.nodes.size())).to_vec();
        let counter: Vec<u32> = bytemuck::cast_slice(&read_buffer(device, &gpu.queue, &buffers.counter, 0, 8)).to_vec();
        readback_ms = read_start.elapsed().as_secs_f64() * 1e3;
        let verified = counter == [n, 0] && bucket_contents(&heads, &nodes) == expected;
        let gpu_timing = TimingMs::of(samples);
        builds.push(BuildReport { variant, elements_per_s: n as f64 / (gpu_timing.median_ms * 1e-3), gpu: gpu_timing, verified });
    }

    // Lookups run on the table the last build left.
    let lookup_pipeline = SHADERS.compute_pipeline(device, "kernel.chained_hash.lookup", "kernel_chained_hash.wgsl", "lookup", &[]);
    let lookup_group = bind(device, &lookup_pipeline, &buffers, true);
    let mut values_of: HashMap<u32, Vec<u32>> = HashMap::new();
    for (&k, &v) in keys.iter().zip(&values) {
        values_of.entry(k).or_default().push(v);
    }
    let half: Vec<u32> = keys[..keys.len() / 2].iter().chain(&misses[keys.len() / 2..]).copied().collect();
    let mut lookups = Vec::new();
    for (name, queries) in [("all hits", &keys), ("half hits", &half), ("all misses", &misses)] {
        gpu.queue.write_buffer(&buffers.queries, 0, bytemuck::cast_slice(queries));
        let label = format!("kernel.chained_hash.lookup ({name})");
        let samples = time_over_elements(gpu, &mut profiler, &label, &lookup_pipeline, &lookup_group, n, options.iterations, |_| {});
        let found: Vec<u32> = bytemuck::cast_slice(&read_buffer(device, &gpu.queue, &buffers.found, 0, 4 * n as u64)).to_vec();
        let verified = queries.iter().zip(&found).all(|(q, f)| match values_of.get(q) {
            Some(vs) => vs.contains(f),
            None => *f == NOT_FOUND,
        });
        let gpu_timing = TimingMs::of(samples);
        lookups.push(LookupReport { queries: name, lookups_per_s: n as f64 / (gpu_timing.median_ms * 1e-3), gpu: gpu_timing, verified });
    }
    let chain_lengths: Vec<usize> = (0..1u32 << options.bucket_log2).map(|b| chain(&cpu.heads, &cpu.nodes, b).count()).collect();
    let longest_chain = chain_lengths.iter().copied().max().unwrap_or(0);
    ChainedHashReport {
        kernel: "chained-hash",
        adapter: gpu.describe(),
        elements: n,
        buckets: 1 << options.bucket_log2,
        keys: options.keys,
        seed: options.seed,
        verified: parallel_equal && builds.iter().all(|b| b.verified) && lookups.iter().all(|l| l.verified),
        builds,
        lookups,
        upload_ms,
        readback_ms,
        cpu_build_ms,
        cpu_parallel_build_ms,
        cpu_threads,
        longest_chain,
        empty_buckets: chain_lengths.iter().filter(|&&l| l == 0).count(),
        lavapipe_loop_limit_exceeded: gpu.adapter.get_info().name.contains("llvmpipe") && longest_chain >= 65535,
    }
}

/// Runs `pipeline` over `n` threads `iterations` times, each in its own profiled pass labelled
/// `label` after `prepare` (untimed) on the same encoder; returns the pass times in milliseconds.
#[allow(clippy::too_many_arguments)]
fn time_over_elements(
    gpu: &Gpu,
    profiler: &mut wgpu_profiler::GpuProfiler,
    label: &str,
    pipeline: &wgpu::ComputePipeline,
    bind_group: &wgpu::BindGroup,
    n: u32,
    iterations: u32,
    prepare: impl Fn(&mut wgpu::CommandEncoder),
) -> Vec<f64> {
    let mut samples = Vec::new();
    for _ in 0..iterations {
        let mut encoder = gpu.device.create_command_encoder(&Default::default());
        prepare(&mut encoder);
        profiled_compute_pass(profiler, &mut encoder, label, |pass| {
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, bind_group, &[]);
            let (x, y) = groups_2d(n.div_ceil(WORKGROUP_SIZE));
            pass.dispatch_workgroups(x, y, 1);
        });
        samples.extend(submit_and_time(gpu, profiler, encoder, label));
    }
    samples
}

fn bind(device: &wgpu::Device, pipeline: &wgpu::ComputePipeline, b: &Buffers, lookup: bool) -> wgpu::BindGroup {
    // The layouts come from the shaders, which bind only what each entry point uses.
    let mut entries = vec![
        wgpu::BindGroupEntry { binding: 0, resource: b.params.as_entire_binding() },
        wgpu::BindGroupEntry { binding: 1, resource: b.heads.as_entire_binding() },
        wgpu::BindGroupEntry { binding: 2, resource: b.nodes.as_entire_binding() },
    ];
    if lookup {
        entries.push(wgpu::BindGroupEntry { binding: 6, resource: b.queries.as_entire_binding() });
        entries.push(wgpu::BindGroupEntry { binding: 7, resource: b.found.as_entire_binding() });
    } else {
        entries.push(wgpu::BindGroupEntry { binding: 3, resource: b.counter.as_entire_binding() });
        entries.push(wgpu::BindGroupEntry { binding: 4, resource: b.keys.as_entire_binding() });
        entries.push(wgpu::BindGroupEntry { binding: 5, resource: b.values.as_entire_binding() });
    }
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("kernel.chained_hash"),
        layout: &pipeline.get_bind_group_layout(0),
        entries: &entries,
    })
}

impl ChainedHashReport {
    /// A readable summary.
    pub fn summary(&self) -> String {
        let mut out = format!(
            "chained-hash on {}: {} elements ({:?} keys), {} buckets, verified: {}\n",
            self.adapter, self.elements, self.keys, self.buckets, self.verified
        );
        for b in &self.builds {
            out += &format!(
                "  build ({:8}): median {:.4} ms, min {:.4} ms, {:.3} G elements/s, verified: {}\n",
                b.variant,
                b.gpu.median_ms,
                b.gpu.min_ms,
                b.elements_per_s / 1e9,
                b.verified
            );
        }
        for l in &self.lookups {
            out += &format!(
                "  lookup ({:10}): median {:.4} ms, {:.3} G lookups/s, verified: {}\n",
                l.queries,
                l.gpu.median_ms,
                l.lookups_per_s / 1e9,
                l.verified
            );
        }
        out += &format!(
            "  upload {:.1} ms, read-back {:.1} ms, CPU reference build 1 thread {:.1} ms, {} threads {:.1} ms; longest chain {}, empty buckets {}",
            self.upload_ms, self.readback_ms, self.cpu_build_ms, self.cpu_threads, self.cpu_parallel_build_ms, self.longest_chain, self.empty_buckets
        );
        if self.lavapipe_loop_limit_exceeded {
            out += "\n  warning: lavapipe stops a shader loop after 65535 iterations and a lookup of this run walks a chain that long: use more buckets (--buckets-log2) on lavapipe";
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_is_the_multiplicative_method() {
        // A' = 2654435769 / 2^32 is A = (sqrt(5) - 1) / 2 to 32 bits, and the bucket is exactly
        // floor(m * frac(k * A')): the top bits of the low 32 bits of k * 2654435769.
        let a = (5f64.sqrt() - 1.0) / 2.0;
        assert!((GOLDEN_FRACTION as f64 / 4294967296.0 - a).abs() < 1.0 / 4294967296.0);
        for key in [0u32, 1, 2, 3, 1000, 123_456_789, u32::MAX / 3, u32::MAX] {
            let product = key as u128 * GOLDEN_FRACTION as u128;
            let fraction = product % (1u128 << 32);
            assert_eq!(bucket_of(key, 10) as u128, (fraction * 1024) >> 32, "key {key}");
        }
        assert_eq!(bucket_of(12345, 0), 0);
    }

    #[test]
    fn cpu_table_finds_every_key_and_no_miss() {
        let options = ChainedHashOptions {
            element_log2: 10,
            bucket_log2: 8,
            keys: KeyDistribution::Duplicates,
            variant: BuildVariant::Global,
            iterations: 1,
            seed: 5,
        };
        let (keys, values, misses) = make_inputs(&options);
        let table = CpuChainedHash::build(&keys, &values, 8);
        for (k, v) in keys.iter().zip(&values) {
            let found = table.lookup(*k);
            assert!(keys.iter().zip(&values).any(|(k2, v2)| k2 == k && *v2 == found), "{k} -> {found} (inserted {v})");
        }
        assert!(misses.iter().all(|m| table.lookup(*m) == NOT_FOUND));
        let total: usize = (0..256).map(|b| chain(&table.heads, &table.nodes, b).count()).sum();
        assert_eq!(total, keys.len());
    }

    #[test]
    fn parallel_build_equals_the_one_thread_build() {
        for (element_log2, bucket_log2, threads) in [(10, 0, 4), (12, 3, 16), (12, 10, 3), (1, 5, 2)] {
            let options = ChainedHashOptions {
                element_log2,
                bucket_log2,
                keys: KeyDistribution::Duplicates,
                variant: BuildVariant::Global,
                iterations: 1,
                seed: 11,
            };
            let (keys, values, _) = make_inputs(&options);
            let one = CpuChainedHash::build(&keys, &values, bucket_log2);
            let many = CpuChainedHash::build_parallel(&keys, &values, bucket_log2, threads);
            // Same chains in the same order, not just the same multisets.
            for b in 0..1u32 << bucket_log2 {
                let a: Vec<_> = chain(&one.heads, &one.nodes, b).map(|n| (n.key, n.value)).collect();
                let c: Vec<_> = chain(&many.heads, &many.nodes, b).map(|n| (n.key, n.value)).collect();
                assert_eq!(a, c, "bucket {b}");
            }
            assert_eq!(many.nodes.len(), keys.len());
        }
    }

    #[test]
    fn bucket_contents_see_a_wrong_node() {
        let options = ChainedHashOptions {
            element_log2: 8,
            bucket_log2: 4,
            keys: KeyDistribution::Uniform,
            variant: BuildVariant::Global,
            iterations: 1,
            seed: 9,
        };
        let (keys, values, _) = make_inputs(&options);
        let table = CpuChainedHash::build(&keys, &values, 4);
        let mut broken = table.nodes.clone();
        broken[17].value ^= 1;
        assert_ne!(bucket_contents(&table.heads, &table.nodes), bucket_contents(&table.heads, &broken));
        // A cycle ends the walk instead of hanging.
        broken[0].next = 1;
        assert!(chain(&table.heads, &broken, bucket_of(keys[0], 4)).count() <= broken.len());
    }
}
