// Integer hashing shared by the GPU hash tables. Mirrors crates/gpu/src/hash.rs. No bindings.

// MurmurHash3's 32-bit finaliser: a bijection that mixes every bit into every other.
fn fmix32(x: u32) -> u32 {
    var h = x;
    h ^= h >> 16u;
    h *= 0x85ebca6bu;
    h ^= h >> 13u;
    h *= 0xc2b2ae35u;
    h ^= h >> 16u;
    return h;
}
