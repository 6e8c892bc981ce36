//! The CBT sum reduction and leaf decode beside the CPU twin parallelised with rayon: the
//! reduction level by level (each level's counts summed in parallel, then packed into the heap in
//! parallel, 32 fields per task so that tasks write whole words), the decode one leaf per task.

use std::time::Instant;

use rayon::prelude::*;

use bisector::cbt::cpu::{heap_word_count, Cbt};
use bisector::gpu::Gpu;
use bisector::kernels::cbt::{fill_depth, CbtKernelOptions};

use super::{cpu_threads, Options, PeersError, Row};

/// Two rows per tree: the reduction and the decode.
pub fn rows(options: &Options) -> Result<Vec<Row>, PeersError> {
    let mut rows = Vec::new();
    for &(max_depth, fill) in &options.sizes.cbt_trees {
        bisector::cbt::gpu::check_max_depth(max_depth).map_err(|e| PeersError::Input(format!("--cbt-depths {max_depth}: {e}")))?;
        let init_depth = fill_depth(max_depth, fill).ok_or_else(|| PeersError::Input(format!("fill {fill}: not a power of two")))?;
        let leaves = 1u64 << init_depth;
        let gpu = Gpu::headless(&bisector::cbt::requirements(max_depth, leaves).with_timestamps())?;
        let report = bisector::kernels::cbt::run(&gpu, &CbtKernelOptions { max_depth, fill, iterations: options.iterations, path: None });
        let expected = Cbt::new(max_depth, init_depth);
        // The GPU starts from the bitfield alone (every count above it zero); so does the peer.
        let mut bitfield_only = expected.heap().to_vec();
        bitfield_only[1..heap_word_count(max_depth) / 4 * 3].iter_mut().for_each(|w| *w = 0);
        let mut reduce_ms = Vec::new();
        let mut heap = Vec::new();
        for _ in 0..options.peer_repeats.max(1) {
            heap = bitfield_only.clone();
            let start = Instant::now();
            reduce_parallel(&mut heap, max_depth);
            reduce_ms.push(start.elapsed().as_secs_f64() * 1e3);
        }
        let same_heap = heap == expected.heap();
        let tree = Cbt::from_heap(heap);
        let mut decode_ms = Vec::new();
        let mut ids = Vec::new();
        for _ in 0..options.peer_repeats.max(1) {
            let start = Instant::now();
            ids = (0..tree.node_count()).into_par_iter().map(|i| tree.decode_node(i).id).collect::<Vec<u32>>();
            decode_ms.push(start.elapsed().as_secs_f64() * 1e3);
        }
        // Leaf i of a tree filled at depth d is node 2^d + i.
        let first = 1u32 << init_depth;
        let ids_right = ids.len() as u64 == leaves && ids.iter().enumerate().all(|(i, &id)| id == first + i as u32);
        let input = format!("D={max_depth} fill {fill} ({leaves} leaves)");
        let threads = cpu_threads();
        let gpu_ok = if report.verified { "" } else { "; GPU differs from the twin" };
        rows.push(
            Row::new(
                "cbt",
                format!("reduce {input}"),
                (Some(report.reduce.median_ms), None),
                &format!("twin, rayon {threads} thr"),
                Some(median(reduce_ms)),
            )
            .checked(
                same_heap && report.verified,
                format!("heap bit for bit: GPU and peer each equal the twin's ({} path){gpu_ok}", report.reduce_path),
            ),
        );
        rows.push(
            Row::new(
                "cbt",
                format!("decode {input}"),
                (Some(report.decode.median_ms), None),
                &format!("twin decode_node, rayon {threads} thr"),
                Some(median(decode_ms)),
            )
            .checked(
                ids_right && report.verified,
                format!("every leaf's node id: GPU equals the twin's, peer's are 2^{init_depth} + i{gpu_ok}"),
            ),
        );
    }
    Ok(rows)
}

fn median(mut ms: Vec<f64>) -> f64 {
    ms.sort_by(f64::total_cmp);
    ms[ms.len() / 2]
}

/// Rebuilds every count of `heap` (max depth `max_depth` >= 5) from its bitfield, in parallel.
pub fn reduce_parallel(heap: &mut [u32], max_depth: u32) {
    // The bitfield (depth D) is bits [3 * 2^D, 4 * 2^D): node 2^D + k at bit k past its start,
    // so each word holds the two children of 16 nodes of depth D - 1.
    let bitfield = &heap[(3usize << max_depth) / 32..(4usize << max_depth) / 32];
    let mut counts: Vec<u32> = bitfield.par_iter().flat_map_iter(|&w| (0..16).map(move |j| (w >> (2 * j) & 3).count_ones())).collect();
    write_level(heap, max_depth, max_depth - 1, &counts);
    for depth in (0..max_depth - 1).rev() {
        counts = counts.par_chunks(2).map(|pair| pair[0] + pair[1]).collect();
        write_level(heap, max_depth, depth, &counts);
    }
}

/// Writes the counts of every node at `depth` (node 2^depth + i gets `counts[i]`) into the heap.
fn write_level(heap: &mut [u32], max_depth: u32, depth: u32, counts: &[u32]) {
    let width = max_depth - depth + 1;
    let start_bit = (2u64 << depth) + (1u64 << depth) * width as u64;
    if depth >= 5 {
        // The level starts on a word and 32 fields fill `width` words: one task per 32 fields.
        let start = (start_bit / 32) as usize;
        let words = &mut heap[start..start + counts.len() * width as usize / 32];
        words.par_chunks_mut(width as usize).zip(counts.par_chunks(32)).for_each(|(words, fields)| {
            let (mut pending, mut pending_bits, mut next) = (0u64, 0, 0);
            for &value in fields {
                pending |= (value as u64) << pending_bits;
                pending_bits += width;
                if pending_bits >= 32 {
                    words[next] = pending as u32;
                    (pending, pending_bits, next) = (pending >> 32, pending_bits - 32, next + 1);
                }
            }
        });
    } else {
        for (i, &value) in counts.iter().enumerate() {
            write_bits(heap, start_bit + i as u64 * width as u64, width, value);
        }
    }
}

/// Writes `value` into `width` (< 32) bits at bit `offset` of `words` (the levels above depth 5).
fn write_bits(words: &mut [u32], offset: u64, width: u32, value: u32) {
    let (word, shift) = ((offset / 32) as usize, (offset % 32) as u32);
    let mask = ((1u64 << width) - 1) << shift;
    let bits = ((value as u64) << shift) & mask;
    words[word] = (words[word] & !(mask as u32)) | bits as u32;
    if shift + width > 32 {
        words[word + 1] = (words[word + 1] & !((mask >> 32) as u32)) | (bits >> 32) as u32;
    }
}
