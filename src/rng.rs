//! A small deterministic random generator (SplitMix64), so that a recorded seed replays the same
//! game on every platform and every version of arbiter, which a general-purpose crate does not promise.

/// SplitMix64: fast, 64-bit state, good enough statistical quality for choosing moves and seeds.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform integer in `0..n` (`n > 0`), without modulo bias.
    pub fn below(&mut self, n: usize) -> usize {
        assert!(n > 0, "Rng::below(0)");
        let n = n as u64;
        let zone = u64::MAX - u64::MAX % n;
        loop {
            let x = self.next_u64();
            if x < zone {
                return (x % n) as usize;
            }
        }
    }

    /// A seed derived from this one for a sub-task `k`, independent of how many numbers were drawn.
    pub fn derive(seed: u64, k: u64) -> u64 {
        Rng::new(seed ^ k.wrapping_mul(0xD1B5_4A32_D192_ED03)).next_u64()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream_and_below_in_range() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
        let mut counts = [0u32; 3];
        for _ in 0..3000 {
            counts[a.below(3)] += 1;
        }
        assert!(counts.iter().all(|&c| c > 900), "{counts:?}");
    }

    /// Golden values: recorded seeds replay the same games only while this stream stays the
    /// same (resume, shards and merge depend on it). Never update these; restore the stream.
    #[test]
    fn the_stream_never_changes() {
        // SplitMix64's published first outputs for seed 0.
        let mut r = Rng::new(0);
        let got: Vec<u64> = (0..3).map(|_| r.next_u64()).collect();
        assert_eq!(
            got,
            [
                16294208416658607535,
                7960286522194355700,
                487617019471545679
            ]
        );
        assert_eq!(Rng::derive(42, 0), 13679457532755275413);
        assert_eq!(Rng::derive(42, 7), 17332858517210727362);
        let mut r = Rng::new(7);
        let below: Vec<usize> = (0..5).map(|_| r.below(10)).collect();
        assert_eq!(below, [7, 4, 6, 3, 4]);
    }
}
