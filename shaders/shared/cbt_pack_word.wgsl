// Heap words assembled from field values in workgroup memory (cbt.reduce's one-pass and subgroup
// paths). Needs shared/cbt.wgsl, shared/cbt_heap_atomic.wgsl, the includer's plain view of the
// heap `heap_words` and its workgroup array of field values `wg_values`.

// Assembles word `i` of the area of `len_bits` heap bits from `start_bit` (fields of `width` bits,
// their values at wg_values[src..], bits above `width` ignored) and stores it: plainly when the
// area covers it whole, else its bits alone with masked atomics (a neighbouring area or workgroup
// writes the rest).
fn cbt_pack_word(start_bit: u32, len_bits: u32, width: u32, src: u32, i: u32) {
    let s = start_bit;
    let e = s + len_bits;
    let word = (s >> 5u) + i;
    let w0 = word * 32u;
    let lo = max(s, w0);
    let hi = min(e, w0 + 32u);
    let k_end = (hi - 1u - s) / width;
    var bits = 0u;
    for (var k = (lo - s) / width; k <= k_end; k += 1u) {
        let v = wg_values[src + k] & cbt_mask(width);
        let field_bit = s + k * width;
        if (field_bit >= w0) {
            bits |= v << (field_bit - w0);
        } else {
            bits |= v >> (w0 - field_bit);
        }
    }
    let mask = cbt_mask(hi - lo) << (lo - w0);
    if (mask == 0xffffffffu) {
        heap_words[word] = bits;
    } else {
        atomicAnd(&cbt_heap[word], ~mask);
        atomicOr(&cbt_heap[word], bits & mask);
    }
}
