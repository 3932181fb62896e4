//! Division by a run-time constant without a `div` instruction on the hot path.
//!
//! Turning a clock reading in nanoseconds into ticks divides by the layout's unit on every
//! ID. A 64-bit `div` costs tens of cycles on many x86 cores, more than the rest of the hot
//! path, so the divisor is turned into a reciprocal once and each division becomes one
//! widening multiply plus at most two corrections.

/// A divisor prepared for fast, exact `u64` division.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Divisor {
    divisor: u64,
    /// `floor((2^64 - 1) / divisor)`: the quotient estimate `mulhi(n, reciprocal)` is at most
    /// 1 below the true quotient (see `div`).
    reciprocal: u64,
}

impl Divisor {
    /// Prepares `divisor`, which must be non-zero (layouts guarantee it).
    pub(crate) const fn new(divisor: u64) -> Divisor {
        let divisor = if divisor == 0 { 1 } else { divisor };
        Divisor {
            divisor,
            reciprocal: u64::MAX / divisor,
        }
    }

    /// `n / divisor`, exactly.
    #[inline]
    pub(crate) const fn div(self, n: u64) -> u64 {
        // r = floor((2^64-1)/d) > 2^64/d - 1, so n*r/2^64 > n/d - n/2^64 > n/d - 1: the
        // estimate is the quotient or one below it (it never overshoots, as r <= 2^64/d).
        let q = ((n as u128 * self.reciprocal as u128) >> 64) as u64;
        if n - q * self.divisor >= self.divisor {
            q + 1
        } else {
            q
        }
    }

    /// The divisor itself.
    #[inline]
    pub(crate) const fn get(self) -> u64 {
        self.divisor
    }
}

#[cfg(test)]
mod tests {
    use super::Divisor;

    #[test]
    fn matches_hardware_division_at_the_edges() {
        let divisors = [
            1,
            2,
            3,
            7,
            10,
            1_000,
            1_000_000,
            10_000_000,
            999_999_937,
            u64::MAX / 3,
            u64::MAX - 1,
            u64::MAX,
        ];
        let mut x = 0x9E37_79B9_7F4A_7C15_u64;
        for &d in &divisors {
            let div = Divisor::new(d);
            let check = |n: u64| assert_eq!(div.div(n), n / d, "{n} / {d}");
            for n in [
                0,
                1,
                d - 1,
                d,
                d.wrapping_add(1),
                u64::MAX,
                u64::MAX - 1,
                u64::MAX / 2,
            ] {
                check(n);
            }
            for k in [1_u64, 2, 3, 1000, u64::MAX / d] {
                check(k.saturating_mul(d));
                check(k.saturating_mul(d).saturating_sub(1));
            }
            // Fewer random probes under miri, which runs this ~1,000x slower.
            for _ in 0..if cfg!(miri) { 300 } else { 10_000 } {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                check(x);
                check(x >> (x % 64));
            }
        }
    }
}
