//! Integer hashing shared by the GPU hash tables' CPU twins. Mirrors shaders/shared/hash.wgsl
//! (this crate's `shader::SHADERS`).

/// MurmurHash3's 32-bit finaliser: a bijection that mixes every bit into every other.
pub fn fmix32(mut h: u32) -> u32 {
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}
