//! The pass/fail gate of a run: minimum means and pass rates per
//! evaluator, and a limit on failed rows.
//!
//! A run where no row was scored (empty dataset, every row unreadable or
//! every evaluation failed) never passes, and neither does a cancelled one.
//! Nor does a run with an unreadable row or a failed evaluation (a judge
//! that never answered, say), unless the suite allows some with
//! `max_failed_rows`: an errored run never passes by default.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::EvaluatorSummary;
use crate::history::{Comparison, FailOn, RegressionStatus};

/// Slack for comparing a statistic with its limit, so that a mean of
/// `0.7999999999999999` passes `min_mean: 0.8`.
const EPSILON: f64 = 1e-9;

/// The gate of a suite, resolved per evaluator name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Gate {
    /// Lowest acceptable mean score, per evaluator.
    pub min_mean: BTreeMap<String, f64>,
    /// Highest acceptable mean score, per evaluator (for distances).
    pub max_mean: BTreeMap<String, f64>,
    /// Lowest acceptable pass rate (rows passing the evaluator's
    /// threshold / rows read), per evaluator.
    pub min_pass_rate: BTreeMap<String, f64>,
    /// Most rows allowed to be unreadable or to have a failed evaluation;
    /// `None`: none (the check is made with a limit of 0).
    pub max_failed_rows: Option<u64>,
    /// Most judgements allowed to fail over the run (the judges'
    /// `failures` summed): one replaced by a fallback (`fallback:
    /// heuristic`), a json_match field counted wrong because its judge
    /// failed, or one that failed its evaluation. `None`: none. The check is
    /// made whenever a judge was asked, so a judge that failed never passes
    /// a run unnoticed.
    pub max_judge_failures: Option<u64>,
    /// Which regression status against the baseline fails the gate
    /// (`regression: {fail_on: ...}`); `None`: regressions never do.
    pub regression: Option<FailOn>,
}

/// One gate check.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct GateCheck {
    /// `rows_scored`, `run_completed`, `min_mean.<evaluator>`,
    /// `max_mean.<evaluator>`, `min_pass_rate.<evaluator>`,
    /// `max_failed_rows`, `max_judge_failures` or `regression.<evaluator>`.
    pub name: String,
    /// How `actual` is compared with `required`: `>=` or `<=`.
    #[schemars(with = "Op")]
    pub op: &'static str,
    /// The limit.
    pub required: f64,
    /// The measured value, `None` when there is none (no scores).
    pub actual: Option<f64>,
    /// Whether the check passed.
    pub passed: bool,
    /// `regression.<evaluator>` checks: the evaluator's status against
    /// the baseline (`required`/`actual` are then the status ranks:
    /// 0 new, 1 clean, 2 warning, 3 critical).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<RegressionStatus>,
}

/// The comparisons a gate check makes, as written in `summary.json`.
#[derive(schemars::JsonSchema)]
#[allow(dead_code)]
enum Op {
    /// At least.
    #[serde(rename = ">=")]
    AtLeast,
    /// At most.
    #[serde(rename = "<=")]
    AtMost,
}

/// A [`GateCheck`] as read back from `summary.json`.
#[derive(Deserialize)]
struct GateCheckText {
    name: String,
    op: String,
    required: f64,
    actual: Option<f64>,
    passed: bool,
    #[serde(default)]
    status: Option<RegressionStatus>,
}

impl<'de> Deserialize<'de> for GateCheck {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let c = GateCheckText::deserialize(d)?;
        let op = match c.op.as_str() {
            ">=" => ">=",
            "<=" => "<=",
            other => {
                return Err(serde::de::Error::custom(format!(
                    "unknown gate op {other:?}: expected >= or <="
                )));
            }
        };
        Ok(GateCheck {
            name: c.name,
            op,
            required: c.required,
            actual: c.actual,
            passed: c.passed,
            status: c.status,
        })
    }
}

/// The gate's verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct GateResult {
    /// Whether every check passed.
    pub passed: bool,
    /// The checks, in a stable order.
    pub checks: Vec<GateCheck>,
}

/// Counts of a run that the gate looks at.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct RunCounts {
    pub(crate) rows_scored: u64,
    pub(crate) failed_rows: u64,
    pub(crate) cancelled: bool,
    /// Judgements that failed, `None` when no judge was asked.
    pub(crate) judge_failures: Option<u64>,
}

fn at_least(name: String, required: f64, actual: Option<f64>) -> GateCheck {
    let passed = actual.is_some_and(|a| a + EPSILON >= required);
    GateCheck { name, op: ">=", required, actual, passed, status: None }
}

fn at_most(name: String, required: f64, actual: Option<f64>) -> GateCheck {
    let passed = actual.is_some_and(|a| a - EPSILON <= required);
    GateCheck { name, op: "<=", required, actual, passed, status: None }
}

impl Gate {
    /// Whether the gate has any configured check.
    pub fn is_empty(&self) -> bool {
        self.min_mean.is_empty()
            && self.max_mean.is_empty()
            && self.min_pass_rate.is_empty()
            && self.max_failed_rows.is_none()
            && self.max_judge_failures.is_none()
            && self.regression.is_none()
    }

    /// Evaluates the gate over a run's evaluator summaries.
    pub(crate) fn check(&self, evaluators: &[EvaluatorSummary], counts: RunCounts) -> GateResult {
        let mut checks = vec![at_least("rows_scored".into(), 1.0, Some(counts.rows_scored as f64))];
        if counts.cancelled {
            checks.push(at_least("run_completed".into(), 1.0, Some(0.0)));
        }
        let find = |name: &str| evaluators.iter().find(|e| e.name == name);
        for (name, &limit) in &self.min_mean {
            checks.push(at_least(
                format!("min_mean.{name}"),
                limit,
                find(name).and_then(|e| e.mean),
            ));
        }
        for (name, &limit) in &self.max_mean {
            checks.push(at_most(
                format!("max_mean.{name}"),
                limit,
                find(name).and_then(|e| e.mean),
            ));
        }
        for (name, &limit) in &self.min_pass_rate {
            let actual = find(name).and_then(|e| e.pass_rate);
            checks.push(at_least(format!("min_pass_rate.{name}"), limit, actual));
        }
        let limit = self.max_failed_rows.unwrap_or(0);
        checks.push(at_most(
            "max_failed_rows".into(),
            limit as f64,
            Some(counts.failed_rows as f64),
        ));
        if counts.judge_failures.is_some() || self.max_judge_failures.is_some() {
            checks.push(at_most(
                "max_judge_failures".into(),
                self.max_judge_failures.unwrap_or(0) as f64,
                Some(counts.judge_failures.unwrap_or(0) as f64),
            ));
        }
        GateResult { passed: checks.iter().all(|c| c.passed), checks }
    }
}

impl GateCheck {
    /// For a `regression.<evaluator>` check, the statuses it lets pass, in
    /// words: `not critical` (`fail_on: critical`) or `clean or new`
    /// (`fail_on: warning`); `None` for other checks.
    pub fn allowed_statuses(&self) -> Option<&'static str> {
        self.status?;
        Some(if self.required >= f64::from(RegressionStatus::Warning as u8) {
            "not critical"
        } else {
            "clean or new"
        })
    }
}

impl GateResult {
    /// Adds one `regression.<evaluator>` check per evaluator compared:
    /// it fails when the evaluator's status is one `fail_on` names.
    pub(crate) fn add_regression(&mut self, comparison: &Comparison, fail_on: FailOn) {
        let rank = |s: RegressionStatus| f64::from(s as u8);
        let allowed = match fail_on {
            FailOn::Warning => RegressionStatus::Clean,
            FailOn::Critical => RegressionStatus::Warning,
        };
        for e in &comparison.evaluators {
            let passed = !fail_on.fails(e.status);
            self.checks.push(GateCheck {
                name: format!("regression.{}", e.name),
                op: "<=",
                required: rank(allowed),
                actual: Some(rank(e.status)),
                passed,
                status: Some(e.status),
            });
        }
        self.passed = self.checks.iter().all(|c| c.passed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::score::Direction;

    fn summary(name: &str, mean: Option<f64>, pass_rate: Option<f64>) -> EvaluatorSummary {
        EvaluatorSummary {
            name: name.into(),
            metric: "m".into(),
            direction: Direction::Maximize,
            count: 1,
            labelled: 0,
            invalid: 0,
            failed: 0,
            mean,
            median: mean,
            median_exact: true,
            min: mean,
            max: mean,
            threshold: pass_rate.map(|_| 0.5),
            pass_rate,
            passed: None,
            scores: Vec::new(),
        }
    }

    fn counts(rows_scored: u64, failed_rows: u64) -> RunCounts {
        RunCounts { rows_scored, failed_rows, cancelled: false, judge_failures: None }
    }

    #[test]
    fn empty_gate_passes_only_when_something_was_scored() {
        let g = Gate::default();
        assert!(g.is_empty());
        assert!(g.check(&[], counts(3, 0)).passed);
        let r = g.check(&[], counts(0, 0));
        assert!(!r.passed);
        assert_eq!(r.checks[0].name, "rows_scored");
        let r = g.check(&[], RunCounts { cancelled: true, ..counts(3, 0) });
        assert!(!r.passed);
        assert_eq!(r.checks[1].name, "run_completed");
    }

    #[test]
    fn means_pass_rates_and_failed_rows() {
        let g = Gate {
            min_mean: [("a".to_owned(), 0.8)].into(),
            max_mean: [("d".to_owned(), 2.0)].into(),
            min_pass_rate: [("a".to_owned(), 0.9)].into(),
            max_failed_rows: Some(1),
            max_judge_failures: None,
            regression: None,
        };
        let evs = [summary("a", Some(0.8 - 1e-12), Some(0.95)), summary("d", Some(2.5), None)];
        let r = g.check(&evs, counts(10, 1));
        assert!(!r.passed);
        let by_name: BTreeMap<_, _> =
            r.checks.iter().map(|c| (c.name.as_str(), c.passed)).collect();
        assert!(by_name["min_mean.a"]);
        assert!(!by_name["max_mean.d"]);
        assert!(by_name["min_pass_rate.a"]);
        assert!(by_name["max_failed_rows"]);
        let r = g.check(&evs, counts(10, 2));
        let failed = r.checks.iter().find(|c| c.name == "max_failed_rows").unwrap();
        assert_eq!((failed.passed, failed.actual, failed.op), (false, Some(2.0), "<="));
    }

    #[test]
    fn a_mean_that_does_not_exist_fails() {
        let g = Gate { min_mean: [("a".to_owned(), 0.0)].into(), ..Gate::default() };
        let r = g.check(&[summary("a", None, None)], counts(1, 0));
        assert!(!r.passed);
        assert_eq!(r.checks[1].actual, None);
    }

    #[test]
    fn a_failed_judgement_fails_the_gate_unless_allowed() {
        let judged = |failures| RunCounts { judge_failures: Some(failures), ..counts(5, 0) };
        // No judge asked: no check.
        let r = Gate::default().check(&[], counts(5, 0));
        assert!(r.passed && r.checks.iter().all(|c| c.name != "max_judge_failures"));
        assert!(Gate::default().check(&[], judged(0)).passed);
        let r = Gate::default().check(&[], judged(1));
        assert!(!r.passed);
        let c = r.checks.iter().find(|c| c.name == "max_judge_failures").unwrap();
        assert_eq!((c.passed, c.required, c.actual), (false, 0.0, Some(1.0)));
        let allow = Gate { max_judge_failures: Some(2), ..Gate::default() };
        assert!(!allow.is_empty());
        assert!(allow.check(&[], judged(2)).passed);
        assert!(!allow.check(&[], judged(3)).passed);
    }
}
