//! The pool's deterministic back-off (docs/design/bisector-pool.md 3.6): priority buckets taken
//! from the float bits of the squared error, the threshold bucket b* that the free slots admit,
//! and the effective target that b* implies. Integer arithmetic on IEEE bits only, so the CPU
//! twin and the GPU agree bit for bit.
//!
//! ```text
//! bucket(e², T²) = clamp((bits(e²) - bits(T²)) >> 19, 0, 1023)    16 buckets per octave of e²
//! b*             = lowest b with  sum over b' >= b of hist[b'] <= free slots
//!                  (hist[b] = the chain costs of the candidates in bucket b; 1024 = none fits)
//! T_eff²         = from_bits(bits(T²) + (b* << 19))                 (T² when b* = 0)
//! ```

/// Number of priority buckets.
pub const BUCKET_COUNT: usize = 1024;
/// Right shift of the float-bit difference: the 4 mantissa bits left give 16 buckets per octave.
pub const BUCKET_SHIFT: u32 = 19;

/// The priority bucket of a leaf whose squared error `error_sq_px2` exceeds the squared target
/// `target_sq_px2` (both positive, in px²): larger errors get higher buckets.
pub fn bucket(error_sq_px2: f32, target_sq_px2: f32) -> u32 {
    let difference = (i64::from(error_sq_px2.to_bits()) - i64::from(target_sq_px2.to_bits())) >> BUCKET_SHIFT;
    difference.clamp(0, BUCKET_COUNT as i64 - 1) as u32
}

/// b*: the lowest bucket whose suffix sum of `histogram` (slot costs per bucket) fits in
/// `free_slots`; `BUCKET_COUNT` when not even the top bucket fits.
pub fn threshold_bucket(histogram: &[u32], free_slots: u32) -> u32 {
    let mut suffix = 0u64;
    for b in (0..histogram.len()).rev() {
        suffix += u64::from(histogram[b]);
        if suffix > u64::from(free_slots) {
            return b as u32 + 1;
        }
    }
    0
}

/// T_eff² in px²: the squared target raised to the bottom of bucket `threshold_bucket` (saturating
/// at the largest finite f32).
pub fn effective_target_sq(target_sq_px2: f32, threshold_bucket: u32) -> f32 {
    let bits = u64::from(target_sq_px2.to_bits()) + (u64::from(threshold_bucket) << BUCKET_SHIFT);
    f32::from_bits(bits.min(u64::from(f32::MAX.to_bits())) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng::XorShift;

    #[test]
    fn buckets_grow_with_the_error_sixteen_per_octave() {
        let mut rng = XorShift::fresh("pool::priority::buckets");
        for _ in 0..2000 {
            let target_sq = rng.range(0.01, 100.0) as f32;
            let (a, b) = (target_sq * rng.range(1.0, 1e6) as f32, target_sq * rng.range(1.0, 1e6) as f32);
            let (low, high) = if a <= b { (a, b) } else { (b, a) };
            assert!(bucket(low, target_sq) <= bucket(high, target_sq), "e² {low} and {high} over T² {target_sq}");
            // Doubling e² adds 16 buckets (until the top).
            let doubled = bucket(2.0 * low, target_sq);
            assert!(doubled == bucket(low, target_sq) + 16 || doubled == BUCKET_COUNT as u32 - 1);
        }
        assert_eq!(bucket(1.0, 1.0), 0);
        assert_eq!(bucket(f32::INFINITY, 1.0), BUCKET_COUNT as u32 - 1);
    }

    /// b* equals its definition, recomputed by brute force on random histograms, and T_eff² is T²
    /// at b* = 0 and lies at the bottom of bucket b* otherwise.
    #[test]
    fn the_threshold_is_the_lowest_bucket_that_fits() {
        let mut rng = XorShift::fresh("pool::priority::threshold");
        for _ in 0..200 {
            let fill = rng.unit();
            let histogram: Vec<u32> =
                (0..BUCKET_COUNT).map(|_| if rng.unit() < fill * 0.05 { (rng.next_u64() % 200) as u32 } else { 0 }).collect();
            let total: u64 = histogram.iter().map(|&h| u64::from(h)).sum();
            let free = (rng.next_u64() % (total + 10)) as u32;
            let fits = |b: usize| histogram[b..].iter().map(|&h| u64::from(h)).sum::<u64>() <= u64::from(free);
            let expected = (0..=BUCKET_COUNT).find(|&b| fits(b)).unwrap() as u32;
            let b_star = threshold_bucket(&histogram, free);
            assert_eq!(b_star, expected);
            let target_sq = rng.range(0.1, 10.0) as f32;
            let t_eff = effective_target_sq(target_sq, b_star);
            if b_star == 0 {
                assert_eq!(t_eff, target_sq);
            } else if b_star < BUCKET_COUNT as u32 {
                assert_eq!(bucket(t_eff, target_sq), b_star);
                assert_eq!(bucket(f32::from_bits(t_eff.to_bits() - 1), target_sq), b_star - 1);
            }
        }
    }
}
