// The feedback set: shaders insert the tile keys they missed; a bounded open-addressing hash
// set that deduplicates on the GPU with 32-bit compare-exchange, lock-free and without waiting,
// and flags overflow. The CPU clears it before the frame and reads it after. Mirrors
// src/globe/cache/tile_feedback.rs (TileFeedbackSet; the module comment argues why no key is stored
// twice). The includer binds it as
//   var<storage, read_write> tile_feedback: TileFeedback;
//!include shared/tile_key.wgsl

// Keep in sync with the layout in src/globe/cache/tile_feedback.rs (HEADER_WORDS = 4).
struct TileFeedback {
    // Keys stored.
    count: atomic<u32>,
    // 1 when a key found no free slot.
    overflow: atomic<u32>,
    // Slots, a power of two.
    capacity: u32,
    _pad: u32,
    // Slot i: words[2i] = key lo, words[2i + 1] = key hi; 0 = not yet claimed.
    words: array<atomic<u32>>,
}

// A weak compare-exchange may fail spuriously; after this many tries the insert gives up and
// reports overflow (visible, never a silent loss).
const TILE_FEEDBACK_TRIES: u32 = 64u;

struct TileClaim {
    // The word's value after the claim: `value`, another thread's non-zero value, or 0 when the
    // tries ran out.
    value: u32,
    // This thread wrote it.
    won: bool,
}

// Sets feedback word `w` from 0 to `value` unless it is already non-zero.
fn tile_feedback_claim(w: u32, value: u32) -> TileClaim {
    for (var t = 0u; t < TILE_FEEDBACK_TRIES; t += 1u) {
        let current = atomicLoad(&tile_feedback.words[w]);
        if (current != 0u) {
            return TileClaim(current, false);
        }
        let result = atomicCompareExchangeWeak(&tile_feedback.words[w], 0u, value);
        if (result.exchanged) {
            return TileClaim(value, true);
        }
        if (result.old_value != 0u) {
            return TileClaim(result.old_value, false);
        }
    }
    return TileClaim(0u, false);
}

// Adds `key` (both words non-zero) to the set unless it is there; sets overflow when no slot is
// free. Linear probing over at most `capacity` slots: claim the lo word, and only when it holds
// the key's lo, the hi word; a slot whose two words equal the key holds it.
fn tile_feedback_insert(key: vec2<u32>) {
    if (atomicLoad(&tile_feedback.overflow) != 0u) {
        return;
    }
    let mask = tile_feedback.capacity - 1u;
    var i = tile_hash(key) & mask;
    for (var n = 0u; n <= mask; n += 1u) {
        let lo = tile_feedback_claim(2u * i, key.x);
        if (lo.value == 0u) {
            break;
        }
        if (lo.value == key.x) {
            let hi = tile_feedback_claim(2u * i + 1u, key.y);
            if (hi.value == key.y) {
                if (hi.won) {
                    atomicAdd(&tile_feedback.count, 1u);
                }
                return;
            }
            if (hi.value == 0u) {
                break;
            }
        }
        i = (i + 1u) & mask;
    }
    atomicStore(&tile_feedback.overflow, 1u);
}
