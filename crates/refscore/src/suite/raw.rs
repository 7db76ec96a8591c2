//! The suite file as written, before validation.

use serde::Deserialize;
use serde_json::{Map, Value};

/// Top level of a suite file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawSuite {
    pub(super) name: Option<String>,
    pub(super) dataset: String,
    pub(super) format: Option<String>,
    pub(super) id: Option<String>,
    #[serde(default)]
    pub(super) mapping: Map<String, Value>,
    pub(super) evaluators: Vec<RawEvaluator>,
    #[serde(default)]
    pub(super) gate: RawGate,
    /// One judge, named `default`.
    pub(super) judge: Option<Value>,
    /// Judges by name.
    pub(super) judges: Option<Value>,
    /// Labels recorded with every run (seed 001's run label).
    #[serde(default)]
    pub(super) tags: std::collections::BTreeMap<String, String>,
    /// Links recorded with every run: label → address (seed 001's href).
    #[serde(default)]
    pub(super) links: std::collections::BTreeMap<String, String>,
    /// How runs are compared with their baseline.
    #[serde(default)]
    pub(super) regression: RawRegression,
}

/// The `regression` table.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawRegression {
    /// `last_passing` (default) or `pinned`.
    pub(super) baseline: Option<String>,
    /// A number for every evaluator, or a map evaluator → number.
    pub(super) tolerance: Option<Value>,
    /// A number for every evaluator, or a map evaluator → number.
    pub(super) critical_threshold: Option<Value>,
    /// Significance level of the paired test, or `false` for none.
    pub(super) significance: Option<Value>,
}

/// The gate's `regression` entry.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawGateRegression {
    /// `warning` or `critical`.
    pub(super) fail_on: String,
}

/// One entry of `evaluators`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawEvaluator {
    pub(super) name: Option<String>,
    pub(super) metric: String,
    #[serde(default)]
    pub(super) options: Map<String, Value>,
    #[serde(default)]
    pub(super) mapping: Map<String, Value>,
    pub(super) threshold: Option<f64>,
    /// Weight in the row score (default 1).
    pub(super) weight: Option<f64>,
}

/// The `gate` table. Each per-evaluator limit is a number (for every
/// evaluator it applies to) or a map evaluator → number.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawGate {
    pub(super) min_mean: Option<Value>,
    pub(super) max_mean: Option<Value>,
    pub(super) min_pass_rate: Option<Value>,
    pub(super) max_failed_rows: Option<u64>,
    pub(super) max_judge_failures: Option<u64>,
    pub(super) regression: Option<RawGateRegression>,
}
