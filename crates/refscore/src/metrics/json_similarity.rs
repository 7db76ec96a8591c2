//! `json_similarity`: UiPath JSON Similarity, matched leaves over the
//! reference's leaves.
//!
//! Driven by the reference: only its keys and elements count, extra output
//! keys and elements are free. Numbers earn `1 − |e − a| / |e|` (clamped),
//! strings normalized Levenshtein, booleans and `null` exact; a missing or
//! mistyped subtree earns 0 for each of its reference leaves. The score is
//! matched / total leaves, 1 when the reference has no leaves.

use serde_json::{Map, Value};

use super::input::{self, Text, py_float};
use super::options::Opts;
use crate::engine::{
    self, Absent, Aggregate, Align, Cost, Empty, Keep, KeySet, Leaf, NodeRule, Policy, Rules,
};
use crate::error::{ConfigError, EvalError};
use crate::evaluator::{EvalInput, Evaluator, InputSpec};
use crate::number::{relative_to_expected, to_f64};
use crate::score::Score;
use crate::text::normalized_levenshtein;

const INPUTS: &[InputSpec] =
    &[InputSpec::required("output", true), InputSpec::required("reference", true)];

/// The JSON Similarity metric.
#[derive(Debug, Clone)]
pub struct JsonSimilarity {
    target_key: Option<String>,
    parse_strings: bool,
    keep: Keep,
    policy: Policy,
}

impl Default for JsonSimilarity {
    fn default() -> Self {
        JsonSimilarity::new(None)
    }
}

impl JsonSimilarity {
    /// The metric; `target_key` (other than `*`) compares only that key of
    /// both sides.
    pub fn new(target_key: Option<String>) -> Self {
        JsonSimilarity {
            target_key: target_key.filter(|k| k != "*"),
            parse_strings: false,
            keep: Keep::Failed,
            policy: Policy {
                aggregate: Aggregate::Sum,
                keys: KeySet::Expected,
                absent: Absent::Missing,
                missing: Cost::Leaves,
                extra: Cost::Free,
                mismatch: Cost::Leaves,
                surplus_elements: true,
                align: Align::Positional,
                empty_arrays: Empty::Nothing,
                empty_expected_object: Empty::Nothing,
            },
        }
    }

    /// From options: `target_output_key` (alias `target_key`),
    /// `parse_strings`, `details`.
    ///
    /// # Errors
    /// An unknown option.
    pub fn from_options(options: &Map<String, Value>) -> Result<Self, ConfigError> {
        let o = Opts::new("json_similarity", options);
        let key = match o.string("target_output_key")? {
            Some(k) => Some(k),
            None => o.string("target_key")?,
        };
        let mut m = JsonSimilarity::new(key);
        m.parse_strings = o.bool("parse_strings", false)?;
        m.keep = super::keep_option(&o)?;
        o.finish()?;
        Ok(m)
    }

    /// `(matched, total)` leaves of `output` against `reference`.
    pub fn leaves(&self, output: &Value, reference: &Value) -> (f64, f64) {
        let c = engine::compare(self, reference, output, None, Keep::None);
        (c.tally.matched, c.tally.total)
    }
}

impl Rules for JsonSimilarity {
    fn policy(&self) -> &Policy {
        &self.policy
    }

    fn leaf(&self, e: &Value, a: &Value, _: &NodeRule) -> Leaf {
        match (e, a) {
            (Value::Number(x), Value::Number(y)) => {
                Leaf::graded(relative_to_expected(to_f64(x), to_f64(y)))
            }
            (Value::Bool(x), Value::Bool(y)) => Leaf::exact(x == y),
            (Value::String(x), Value::String(y)) => Leaf::graded(normalized_levenshtein(x, y)),
            (Value::Null, Value::Null) => Leaf::MATCH,
            _ => Leaf::TYPE,
        }
    }
}

fn target<'v>(v: &'v Value, key: Option<&str>) -> Option<&'v Value> {
    match (key, v) {
        (None, _) => Some(v),
        (Some(k), Value::Object(m)) => m.get(k),
        (Some(_), _) => None,
    }
}

impl Evaluator for JsonSimilarity {
    fn name(&self) -> &str {
        "json_similarity"
    }

    fn inputs(&self) -> &[InputSpec] {
        INPUTS
    }

    fn evaluate(&self, inp: &EvalInput) -> Result<Vec<Score>, EvalError> {
        // With a target key, string inputs are JSON text (as in the original).
        let text =
            if self.parse_strings || self.target_key.is_some() { Text::Parse } else { Text::Keep };
        let (out, reference) = match input::pair(inp, text)? {
            Ok(p) => p,
            Err(e) => {
                return Ok(vec![Score::invalid(
                    "json_similarity",
                    format!("Failed to parse JSON: {e}"),
                )]);
            }
        };
        let key = self.target_key.as_deref();
        let e = target(&reference, key).unwrap_or(&reference);
        let c = match target(&out, key) {
            Some(a) => engine::compare(self, e, a, None, self.keep),
            None => {
                let mut c = engine::Comparison::default();
                #[allow(clippy::cast_precision_loss)]
                let n = crate::json::leaves(e) as f64;
                c.tally = engine::Tally::new(0.0, n);
                c
            }
        };
        input::release(out);
        input::release(reference);
        let score = c.tally.ratio_or(1.0);
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let total = c.tally.total.round() as u64;
        let mut s = Score::new("json_similarity", Some(score))
            .with_label(super::similarity_label(score))
            .with_explanation(format!(
                "Matched leaves: {}, Total leaves: {total}",
                py_float(c.tally.matched)
            ))
            .with_meta("matched_leaves", c.tally.matched)
            .with_meta("total_leaves", total);
        s.details = c.records.iter().map(engine::Record::to_detail).collect();
        Ok(vec![s])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn score(o: Value, r: Value) -> f64 {
        let (m, t) = JsonSimilarity::default().leaves(&o, &r);
        if t > 0.0 { m / t } else { 1.0 }
    }

    #[test]
    fn seed_examples() {
        assert_eq!(
            score(json!({"name": "John Doe", "age": 30}), json!({"name": "John Doe", "age": 30})),
            1.0
        );
        let s = score(
            json!({"items": ["apple", "banana", "orange"]}),
            json!({"items": ["apple", "banana", "grape"]}),
        );
        assert!((s - 2.5 / 3.0).abs() < 1e-12, "{s}");
        assert_eq!(
            score(json!({"name": "Bob", "age": 30, "extra": 1}), json!({"name": "Bob", "age": 30})),
            1.0
        );
    }

    #[test]
    fn edge_cases() {
        assert_eq!(score(json!({}), json!({"a": null})), 0.0);
        assert_eq!(score(json!({"a": 5}), json!({})), 1.0);
        assert_eq!(score(json!([{}, {}, {}]), json!([{}, {}])), 1.0);
        assert_eq!(score(json!(1), json!(true)), 0.0);
        assert_eq!(score(json!(1.0), json!(1)), 1.0);
        assert_eq!(score(json!(2), json!(1)), 0.0);
        assert_eq!(score(json!(1), json!(2)), 0.5);
        assert!((score(json!(1.7e308), json!(1e308)) - 0.3).abs() < 1e-9);
        assert_eq!(score(json!({"a": "x"}), json!({"a": {"b": 1, "c": 2}})), 0.0);
    }

    #[test]
    fn target_key_and_explanation() {
        let m = JsonSimilarity::new(Some(String::from("result")));
        let inp = EvalInput::pair(
            json!({"result": {"score": 95, "passed": true}, "metadata": {"t": 1}}),
            json!({"result": {"score": 95, "passed": true}}),
        );
        let s = &m.evaluate(&inp).unwrap()[0];
        assert_eq!(s.score, Some(1.0));
        assert_eq!(s.explanation.as_deref(), Some("Matched leaves: 2.0, Total leaves: 2"));
    }
}
