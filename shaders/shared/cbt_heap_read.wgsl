// The CBT heap bound read-only: plain loads the hardware can cache (decode, draw).
// Include with shared/cbt.wgsl.

@group(0) @binding(0) var<storage, read> cbt_heap: array<u32>;

fn cbt_load(word: u32) -> u32 {
    return cbt_heap[word];
}
