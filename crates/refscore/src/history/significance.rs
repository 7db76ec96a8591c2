//! Whether a change of the mean score over matched rows is more than
//! noise: the paired t-test, with a confidence interval for the change.
//!
//! Why this test: the gate asks whether the *mean* score moved, and the
//! same rows are scored before and after, so the per-row differences are
//! the sample. The paired t-test answers exactly that question and gives a
//! confidence interval for the mean change that agrees with its p-value
//! (the interval excludes 0 exactly when p < α). Rank tests (Wilcoxon)
//! test a shift of the median, drop the many rows whose score did not
//! move, and give no interval for the mean. Scores are bounded, so the
//! mean of the differences is close to normal from a few dozen rows on;
//! on fewer rows the t distribution's heavy tails keep the test cautious.
//! The distribution comes from `statrs`.

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, StudentsT};

/// The result of a paired t-test over matched rows.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PairedTest {
    /// The test: always `"paired_t"`.
    pub test: PairedTestKind,
    /// Matched rows with a score on both sides.
    pub n: u64,
    /// Mean of (current − baseline) over those rows.
    pub mean_change: f64,
    /// Lower end of the confidence interval of `mean_change`.
    pub ci_low: f64,
    /// Upper end of the confidence interval of `mean_change`.
    pub ci_high: f64,
    /// The confidence level of the interval (1 − α).
    pub confidence: f64,
    /// Two-sided p-value of "the mean change is 0".
    pub p_value: f64,
    /// Whether `p_value < α`.
    pub significant: bool,
}

/// The name of the test, for readers of the JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PairedTestKind {
    /// Student's t-test on paired differences.
    PairedT,
}

/// The paired t-test of the differences `diffs` (current − baseline) at
/// level `alpha`; `None` with fewer than two differences.
///
/// When every difference is the same, the variance is 0: the change is
/// then certain (p = 0) unless it is 0 (p = 1).
pub fn paired_t(diffs: &[f64], alpha: f64) -> Option<PairedTest> {
    let n = diffs.len();
    if n < 2 {
        return None;
    }
    let alpha = if alpha > 0.0 && alpha < 1.0 { alpha } else { 0.05 };
    #[allow(clippy::cast_precision_loss)]
    let nf = n as f64;
    // Welford's running mean and variance: stable for long runs.
    let (mut mean, mut m2) = (0.0_f64, 0.0_f64);
    for (i, &d) in diffs.iter().enumerate() {
        #[allow(clippy::cast_precision_loss)]
        let k = (i + 1) as f64;
        let delta = d - mean;
        mean += delta / k;
        m2 += delta * (d - mean);
    }
    let variance = (m2 / (nf - 1.0)).max(0.0);
    let se = (variance / nf).sqrt();
    let finite = |x: f64| crate::number::finite(x);
    if se <= f64::EPSILON * mean.abs().max(1.0) || !se.is_finite() {
        let zero = mean.abs() <= 1e-12;
        return Some(PairedTest {
            test: PairedTestKind::PairedT,
            n: n as u64,
            mean_change: finite(mean),
            ci_low: finite(mean),
            ci_high: finite(mean),
            confidence: 1.0 - alpha,
            p_value: if zero { 1.0 } else { 0.0 },
            significant: !zero,
        });
    }
    let dist = StudentsT::new(0.0, 1.0, nf - 1.0).ok()?;
    let t = mean / se;
    let p_value = (2.0 * (1.0 - dist.cdf(t.abs()))).clamp(0.0, 1.0);
    let q = dist.inverse_cdf(1.0 - alpha / 2.0);
    Some(PairedTest {
        test: PairedTestKind::PairedT,
        n: n as u64,
        mean_change: finite(mean),
        ci_low: finite(mean - q * se),
        ci_high: finite(mean + q * se),
        confidence: 1.0 - alpha,
        p_value: finite(p_value),
        significant: p_value < alpha,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn known_case_matches_a_textbook_computation() {
        // Mean 1, variance 0.625, se 0.3536: t = 2.828 with 4 degrees of
        // freedom, p = 0.0474 (two-sided).
        let d = [0.0, 0.5, 1.0, 1.5, 2.0];
        let t = paired_t(&d, 0.05).unwrap();
        assert_eq!(t.n, 5);
        assert!(close(t.mean_change, 1.0, 1e-12));
        assert!(close(t.p_value, 0.0474, 1e-3), "{t:?}");
        assert!(t.significant);
        // Mean 1, variance 2.5, se 0.7071: t = 1.414, p = 0.2302;
        // t(0.975, 4) = 2.7764, so the 95% interval is 1 ± 1.9632.
        let d = [-1.0, 0.0, 1.0, 2.0, 3.0];
        let t = paired_t(&d, 0.05).unwrap();
        assert!(close(t.p_value, 0.2302, 1e-3), "{t:?}");
        assert!(close(t.ci_low, 1.0 - 1.9632, 1e-3) && close(t.ci_high, 1.0 + 1.9632, 1e-3));
        assert!(!t.significant);
    }

    #[test]
    fn interval_excludes_zero_exactly_when_significant() {
        for d in [
            vec![0.1, -0.2, 0.05, 0.0, -0.1, 0.02],
            vec![-0.3, -0.2, -0.25, -0.1, -0.4],
            vec![0.01; 3],
            vec![0.0, 0.0, 0.0, -1.0],
        ] {
            let t = paired_t(&d, 0.05).unwrap();
            let excludes = t.ci_low > 0.0 || t.ci_high < 0.0;
            assert_eq!(excludes, t.significant, "{d:?} {t:?}");
        }
    }

    #[test]
    fn noise_on_thirty_rows_is_not_significant() {
        // Thirty rows whose scores moved up and down by the same amounts.
        let d: Vec<f64> = (0..30)
            .map(|i| if i % 2 == 0 { 0.1 } else { -0.1 } + f64::from(i % 3) * 0.01)
            .collect();
        let t = paired_t(&d, 0.05).unwrap();
        assert!(!t.significant, "{t:?}");
    }

    #[test]
    fn constant_and_tiny_samples() {
        assert!(paired_t(&[], 0.05).is_none());
        assert!(paired_t(&[0.5], 0.05).is_none());
        let same = paired_t(&[0.0, 0.0, 0.0], 0.05).unwrap();
        assert!(!same.significant);
        assert!(close(same.p_value, 1.0, 0.0));
        let shifted = paired_t(&[-0.2, -0.2, -0.2], 0.05).unwrap();
        assert!(shifted.significant);
        assert!(close(shifted.ci_low, -0.2, 1e-12));
    }
}
