//! The regression policy of a suite: which baseline to compare with, how
//! far each evaluator may drop, and which status fails the gate.
//!
//! Regtrace's rule: `delta = (current − baseline) / baseline` (a baseline
//! of 0 gives 1 when the current mean is above 0, else 0); the status is
//! `clean` when `delta ≥ −tolerance`, `warning` when
//! `delta ≥ −critical_threshold`, else `critical`, and `new` when there is
//! nothing to compare with. For a distance (lower is better) the change is
//! turned around, so that a drop always means "worse".

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::score::Direction;

/// Default `tolerance`: a drop of up to 5% is clean.
pub const DEFAULT_TOLERANCE: f64 = 0.05;
/// Default `critical_threshold`: a drop of more than 15% is critical.
pub const DEFAULT_CRITICAL: f64 = 0.15;
/// Default significance level of the paired test.
pub const DEFAULT_ALPHA: f64 = 0.05;

/// How the baseline run is chosen when none is named on the command line.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    /// The latest completed run of the same suite whose gate passed.
    #[default]
    LastPassing,
    /// The run pinned with `refscore runs pin`.
    Pinned,
}

impl Strategy {
    /// The name used in suites and summaries.
    pub fn as_str(self) -> &'static str {
        match self {
            Strategy::LastPassing => "last_passing",
            Strategy::Pinned => "pinned",
        }
    }
}

/// An evaluator's regression status against the baseline.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
    Default,
)]
#[serde(rename_all = "lowercase")]
pub enum RegressionStatus {
    /// No baseline to compare with (or the baseline lacks the evaluator).
    #[default]
    New,
    /// No significant drop, or an improvement.
    Clean,
    /// A drop beyond `tolerance`, within `critical_threshold`.
    Warning,
    /// A drop beyond `critical_threshold`.
    Critical,
}

impl RegressionStatus {
    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            RegressionStatus::New => "new",
            RegressionStatus::Clean => "clean",
            RegressionStatus::Warning => "warning",
            RegressionStatus::Critical => "critical",
        }
    }
}

/// Which statuses fail the gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FailOn {
    /// `warning` and `critical` fail.
    Warning,
    /// Only `critical` fails.
    Critical,
}

impl FailOn {
    /// Whether a status fails under this setting.
    pub fn fails(self, status: RegressionStatus) -> bool {
        match self {
            FailOn::Warning => status >= RegressionStatus::Warning,
            FailOn::Critical => status >= RegressionStatus::Critical,
        }
    }
}

/// A suite's regression settings, resolved per evaluator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RegressionPolicy {
    /// How the baseline is chosen.
    pub baseline: Strategy,
    /// Relative drop beyond which an evaluator is `warning`, per evaluator
    /// (absent: [`DEFAULT_TOLERANCE`]).
    pub tolerance: BTreeMap<String, f64>,
    /// Relative drop beyond which an evaluator is `critical`, per
    /// evaluator (absent: [`DEFAULT_CRITICAL`]).
    pub critical_threshold: BTreeMap<String, f64>,
    /// Significance level of the paired test; a drop the test does not
    /// find significant stays `clean`. `None`: no test, Regtrace's rule
    /// alone.
    pub alpha: Option<f64>,
}

impl Default for RegressionPolicy {
    fn default() -> Self {
        RegressionPolicy {
            baseline: Strategy::LastPassing,
            tolerance: BTreeMap::new(),
            critical_threshold: BTreeMap::new(),
            alpha: Some(DEFAULT_ALPHA),
        }
    }
}

impl RegressionPolicy {
    /// The tolerance of an evaluator.
    pub fn tolerance_of(&self, evaluator: &str) -> f64 {
        self.tolerance.get(evaluator).copied().unwrap_or(DEFAULT_TOLERANCE)
    }

    /// The critical threshold of an evaluator.
    pub fn critical_of(&self, evaluator: &str) -> f64 {
        self.critical_threshold.get(evaluator).copied().unwrap_or(DEFAULT_CRITICAL)
    }
}

/// Regtrace's relative change, oriented so that a negative value is a
/// drop in quality whatever the direction.
pub fn relative_change(direction: Direction, baseline: f64, current: f64) -> f64 {
    let raw = if baseline == 0.0 {
        // The seed's rule for a zero baseline, taken in the better-is-up
        // sense: any movement away from 0 counts fully.
        if current > 0.0 {
            1.0
        } else if current < 0.0 {
            -1.0
        } else {
            0.0
        }
    } else {
        (current - baseline) / baseline.abs()
    };
    let oriented = match direction {
        Direction::Minimize => -raw,
        Direction::Maximize | Direction::Neutral => raw,
    };
    // `+ 0.0` turns −0 into 0.
    crate::number::finite(oriented) + 0.0
}

/// The status for an oriented relative change (Regtrace's table).
pub fn status_for(delta: f64, tolerance: f64, critical: f64) -> RegressionStatus {
    // Slack so that a drop of exactly the tolerance stays clean despite
    // rounding (0.95 / 1.0 − 1 is −0.050000000000000044).
    const EPS: f64 = 1e-9;
    if delta + EPS >= -tolerance {
        RegressionStatus::Clean
    } else if delta + EPS >= -critical {
        RegressionStatus::Warning
    } else {
        RegressionStatus::Critical
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_table_statuses() {
        let d = |b, c| relative_change(Direction::Maximize, b, c);
        assert_eq!(status_for(d(0.8, 0.9), 0.05, 0.15), RegressionStatus::Clean);
        assert_eq!(status_for(d(1.0, 0.95), 0.05, 0.15), RegressionStatus::Clean);
        assert_eq!(status_for(d(1.0, 0.94), 0.05, 0.15), RegressionStatus::Warning);
        assert_eq!(status_for(d(1.0, 0.85), 0.05, 0.15), RegressionStatus::Warning);
        assert_eq!(status_for(d(1.0, 0.84), 0.05, 0.15), RegressionStatus::Critical);
        // A zero baseline: 1 if the current mean is above 0, else 0.
        assert!((d(0.0, 0.3) - 1.0).abs() < 1e-12);
        assert!(d(0.0, 0.0).abs() < 1e-12);
    }

    #[test]
    fn distances_drop_when_they_grow() {
        let d = relative_change(Direction::Minimize, 2.0, 3.0);
        assert!((d + 0.5).abs() < 1e-12);
        assert_eq!(status_for(d, 0.05, 0.15), RegressionStatus::Critical);
        assert_eq!(
            status_for(relative_change(Direction::Minimize, 0.0, 1.0), 0.05, 0.15),
            RegressionStatus::Critical
        );
        assert_eq!(
            status_for(relative_change(Direction::Minimize, 2.0, 1.0), 0.05, 0.15),
            RegressionStatus::Clean
        );
    }

    #[test]
    fn fail_on_levels() {
        assert!(FailOn::Warning.fails(RegressionStatus::Warning));
        assert!(FailOn::Warning.fails(RegressionStatus::Critical));
        assert!(!FailOn::Critical.fails(RegressionStatus::Warning));
        assert!(!FailOn::Critical.fails(RegressionStatus::New));
        assert!(!FailOn::Warning.fails(RegressionStatus::Clean));
    }
}
