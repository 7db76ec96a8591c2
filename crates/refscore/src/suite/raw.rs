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
}
