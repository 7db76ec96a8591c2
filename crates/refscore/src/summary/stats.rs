//! Running statistics over one evaluator's scores: mean, min, max and a
//! median that is exact up to [`EXACT_LIMIT`] values.
//!
//! Past that, the median comes from a fixed-size uniform reservoir sample
//! (Algorithm R, fixed seed so runs are reproducible): memory stays at
//! [`EXACT_LIMIT`] values (8 MB) per evaluator however many rows are read.

/// Values kept for the median; beyond it, a reservoir of this size.
pub const EXACT_LIMIT: usize = 1_000_000;

/// Mean, min, max and median of a stream of finite numbers.
#[derive(Debug, Clone)]
pub(crate) struct Stats {
    count: u64,
    sum: f64,
    compensation: f64,
    /// The mean so far, kept without a sum: what [`Stats::mean`] gives when
    /// the sum overflows (scores near `f64::MAX`).
    running: f64,
    min: f64,
    max: f64,
    sample: Vec<f64>,
    limit: usize,
    rng: u64,
}

impl Default for Stats {
    fn default() -> Self {
        Stats::with_limit(EXACT_LIMIT)
    }
}

impl Stats {
    pub(crate) fn with_limit(limit: usize) -> Self {
        Stats {
            count: 0,
            sum: 0.0,
            compensation: 0.0,
            running: 0.0,
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
            sample: Vec::new(),
            limit: limit.max(1),
            rng: 0x9E37_79B9_7F4A_7C15,
        }
    }

    /// Adds one value; non-finite values are ignored.
    pub(crate) fn add(&mut self, x: f64) {
        if !x.is_finite() {
            return;
        }
        self.count += 1;
        // Neumaier summation: the mean of millions of scores stays exact.
        let t = self.sum + x;
        if self.sum.abs() >= x.abs() {
            self.compensation += (self.sum - t) + x;
        } else {
            self.compensation += (x - t) + self.sum;
        }
        self.sum = t;
        // m·(1 − 1/n) + x/n: no term exceeds the largest value.
        #[allow(clippy::cast_precision_loss)]
        let n = self.count as f64;
        self.running = self.running - self.running / n + x / n;
        self.min = self.min.min(x);
        self.max = self.max.max(x);
        if self.sample.len() < self.limit {
            self.sample.push(x);
        } else {
            let j = self.next_random() % self.count;
            if let Some(slot) = usize::try_from(j).ok().and_then(|j| self.sample.get_mut(j)) {
                *slot = x;
            }
        }
    }

    fn next_random(&mut self) -> u64 {
        // splitmix64
        self.rng = self.rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Number of values added.
    pub(crate) fn count(&self) -> u64 {
        self.count
    }

    /// The mean, `None` without values: exact from the compensated sum,
    /// or the running mean once the sum overflows.
    pub(crate) fn mean(&self) -> Option<f64> {
        (self.count > 0).then(|| {
            let total = self.sum + self.compensation;
            #[allow(clippy::cast_precision_loss)]
            let mean = if total.is_finite() { total / self.count as f64 } else { self.running };
            crate::number::finite(mean.clamp(self.min, self.max))
        })
    }

    /// The smallest value.
    pub(crate) fn min(&self) -> Option<f64> {
        (self.count > 0).then_some(self.min)
    }

    /// The largest value.
    pub(crate) fn max(&self) -> Option<f64> {
        (self.count > 0).then_some(self.max)
    }

    /// Whether the median is exact (all values kept).
    pub(crate) fn median_is_exact(&self) -> bool {
        self.count <= self.limit as u64
    }

    /// The median (mean of the two middle values for an even count).
    pub(crate) fn median(&mut self) -> Option<f64> {
        let n = self.sample.len();
        if n == 0 {
            return None;
        }
        self.sample.sort_unstable_by(f64::total_cmp);
        let hi = *self.sample.get(n / 2)?;
        if n % 2 == 1 {
            Some(hi)
        } else {
            let lo = *self.sample.get(n / 2 - 1)?;
            Some(crate::number::finite(lo / 2.0 + hi / 2.0))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Scores near `f64::MAX` overflow a sum: their mean is not 0.
    #[test]
    fn the_mean_of_huge_scores_is_theirs() {
        let mut s = Stats::default();
        for _ in 0..10 {
            s.add(1e308);
        }
        assert_eq!(s.mean(), Some(1e308));
        s.add(-1e308);
        let m = s.mean().unwrap();
        assert!((m - 1e308 * (9.0 / 11.0)).abs() <= 1e294, "{m}");
    }

    #[test]
    fn exact_statistics() {
        let mut s = Stats::default();
        assert_eq!((s.mean(), s.median(), s.min(), s.max()), (None, None, None, None));
        for x in [3.0, 1.0, f64::NAN, 2.0, 10.0] {
            s.add(x);
        }
        assert_eq!(s.count(), 4);
        assert_eq!(s.mean(), Some(4.0));
        assert_eq!(s.median(), Some(2.5));
        assert_eq!((s.min(), s.max()), (Some(1.0), Some(10.0)));
        s.add(0.0);
        assert_eq!(s.median(), Some(2.0));
        assert!(s.median_is_exact());
    }

    #[test]
    fn mean_is_compensated() {
        let mut s = Stats::default();
        for _ in 0..1_000_000 {
            s.add(0.1);
        }
        assert!((s.mean().unwrap() - 0.1).abs() < 1e-15);
    }

    #[test]
    fn reservoir_keeps_memory_bounded_and_median_close() {
        let mut s = Stats::with_limit(1000);
        for i in 0..100_000u32 {
            s.add(f64::from(i % 1000) / 1000.0);
        }
        assert_eq!(s.count(), 100_000);
        assert_eq!(s.sample.len(), 1000);
        assert!(!s.median_is_exact());
        let m = s.median().unwrap();
        assert!((m - 0.5).abs() < 0.08, "{m}");
        assert_eq!(s.max(), Some(0.999));
    }
}
