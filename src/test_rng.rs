//! A tiny xorshift64 generator for randomised unit tests (bench, cache), freshly seeded each
//! run (the seed is printed; BISECTOR_TEST_SEED replays it).

/// xorshift64 state (never zero).
pub struct XorShift(pub u64);

impl XorShift {
    /// A generator seeded from BISECTOR_TEST_SEED or the clock; prints the seed for `test`.
    pub fn fresh(test: &str) -> XorShift {
        let seed = std::env::var("BISECTOR_TEST_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64));
        eprintln!("{test}: BISECTOR_TEST_SEED={seed}");
        XorShift(seed.max(1))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in [low, high).
    pub fn range(&mut self, low: f64, high: f64) -> f64 {
        low + (high - low) * self.unit()
    }
}
