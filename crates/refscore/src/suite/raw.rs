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
    /// Labels recorded with every run (Regtrace's run label).
    #[serde(default)]
    pub(super) tags: std::collections::BTreeMap<String, String>,
    /// Links recorded with every run: label → address (Regtrace's href).
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
    /// Absent: the metric's default; `null` (or `"none"`, TOML having no
    /// null): no threshold; a number: that threshold.
    #[serde(default, deserialize_with = "threshold")]
    pub(super) threshold: Option<Option<f64>>,
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

/// Reads an evaluator's `threshold` when written: a number, or `null` /
/// `"none"` for no threshold.
fn threshold<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Option<f64>>, D::Error> {
    struct Threshold;
    impl<'de> serde::de::Visitor<'de> for Threshold {
        type Value = Option<f64>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a number, or null (or \"none\") for no threshold")
        }
        fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Self::Value, E> {
            Ok(Some(v))
        }
        fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Self::Value, E> {
            // Thresholds are scores: far inside f64's exact integers.
            #[allow(clippy::cast_precision_loss)]
            Ok(Some(v as f64))
        }
        fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Self::Value, E> {
            #[allow(clippy::cast_precision_loss)]
            Ok(Some(v as f64))
        }
        fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_some<D2: serde::Deserializer<'de>>(self, d: D2) -> Result<Self::Value, D2::Error> {
            d.deserialize_any(self)
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
            if v == "none" {
                return Ok(None);
            }
            Err(E::invalid_value(serde::de::Unexpected::Str(v), &self))
        }
    }
    d.deserialize_any(Threshold).map(Some)
}
