//! `json_structural`: Regtrace's factuality comparison of two JSON
//! documents, matched / (expected + extra).
//!
//! Union of keys; a key on one side only counts 1 (missing or unexpected),
//! whatever it holds. Strings are equal after trimming, numbers within an
//! absolute 0.01, booleans and `null` exact. Arrays holding only scalars
//! compare as sets (each distinct value once); arrays holding an object or
//! array compare by position. Two empty arrays, and an empty reference
//! object, count as one matched value. Code fences around either text are
//! removed before parsing.

use serde_json::{Map, Value};

use super::input::{self, Text};
use super::options::Opts;
use crate::detail::failure_lines;
use crate::engine::{
    self, Absent, Aggregate, Align, Cost, Empty, Keep, KeySet, Leaf, NodeRule, Policy, Rules,
};
use crate::error::{ConfigError, EvalError};
use crate::evaluator::{EvalInput, Evaluator, InputSpec};
use crate::number::{to_f64, within_abs};
use crate::score::Score;
use crate::text::js_trim;

const INPUTS: &[InputSpec] =
    &[InputSpec::required("output", true), InputSpec::required("reference", true)];

/// Absolute tolerance for numbers.
pub const NUMBER_TOLERANCE: f64 = 0.01;

/// The structural JSON comparison.
#[derive(Debug, Clone)]
pub struct JsonStructural {
    parse_strings: bool,
    keep: Keep,
    policy: Policy,
}

impl Default for JsonStructural {
    fn default() -> Self {
        JsonStructural {
            parse_strings: true,
            keep: Keep::Failed,
            policy: Policy {
                aggregate: Aggregate::Sum,
                keys: KeySet::Union,
                absent: Absent::Missing,
                missing: Cost::One,
                extra: Cost::One,
                mismatch: Cost::One,
                surplus_elements: true,
                align: Align::SetIfScalars,
                empty_arrays: Empty::Leaf,
                empty_expected_object: Empty::Leaf,
            },
        }
    }
}

impl JsonStructural {
    /// From options: `parse_strings` (default true), `details` (`failed`,
    /// `all` or `none`; the explanation lists failures whatever it is).
    ///
    /// # Errors
    /// An unknown option.
    pub fn from_options(options: &Map<String, Value>) -> Result<Self, ConfigError> {
        let o = Opts::new("json_structural", options);
        let m = JsonStructural {
            parse_strings: o.bool("parse_strings", true)?,
            keep: super::keep_option(&o)?,
            ..JsonStructural::default()
        };
        o.finish()?;
        Ok(m)
    }

    /// Scores two parsed documents, with every mismatch as a detail (or
    /// every comparison, or none, as the `details` option says).
    pub fn score_values(&self, output: &Value, reference: &Value) -> Score {
        let keep = if self.keep == Keep::None { Keep::Failed } else { self.keep };
        let mut c = engine::compare(self, reference, output, None, keep);
        let score = c.tally.ratio_or(1.0);
        let mut details: Vec<_> = c.records.iter().map(engine::Record::to_detail).collect();
        let mut lines = vec![format!(
            "Factuality score {}%: {}/{} leaf values match",
            (score * 100.0).round(),
            c.tally.matched,
            c.tally.total
        )];
        lines.extend(failure_lines(&details));
        if self.keep == Keep::None {
            details.clear();
        }
        let mut s = Score::new("json_structural", Some(score))
            .with_label(super::similarity_label(score))
            .with_explanation(lines.join("\n"))
            .with_meta("matched", c.tally.matched)
            .with_meta("total", c.tally.total);
        s.details = details;
        s.fields = std::mem::take(&mut c.fields);
        s
    }
}

/// JavaScript's `typeof` for JSON values.
fn js_typeof(v: &Value) -> &'static str {
    match v {
        Value::Null | Value::Array(_) | Value::Object(_) => "object",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
    }
}

impl Rules for JsonStructural {
    fn policy(&self) -> &Policy {
        &self.policy
    }

    fn leaf(&self, e: &Value, a: &Value, _: &NodeRule) -> Leaf {
        if js_typeof(e) != js_typeof(a) {
            return Leaf::TYPE;
        }
        match (e, a) {
            (Value::Null, Value::Null) => Leaf::MATCH,
            (Value::Null, _) | (_, Value::Null) => Leaf::WRONG,
            (Value::String(x), Value::String(y)) => Leaf::exact(js_trim(x) == js_trim(y)),
            (Value::Number(x), Value::Number(y)) => {
                Leaf::exact(within_abs(to_f64(x), to_f64(y), NUMBER_TOLERANCE))
            }
            (Value::Bool(x), Value::Bool(y)) => Leaf::exact(x == y),
            // An array against an object: a type mismatch (the original
            // compared them key by key).
            _ => Leaf::TYPE,
        }
    }
}

impl Evaluator for JsonStructural {
    fn name(&self) -> &str {
        "json_structural"
    }

    fn inputs(&self) -> &[InputSpec] {
        INPUTS
    }

    fn evaluate(&self, inp: &EvalInput) -> Result<Vec<Score>, EvalError> {
        let text = if self.parse_strings { Text::ParseFenced } else { Text::Keep };
        let (out, reference) = match input::pair(inp, text)? {
            Ok(p) => p,
            Err(e) => {
                return Ok(vec![Score::invalid(
                    "json_structural",
                    format!("json_structural needs JSON on both sides; {e}"),
                )]);
            }
        };
        let s = self.score_values(&out, &reference);
        input::release(out);
        input::release(reference);
        Ok(vec![s])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn score(o: Value, r: Value) -> f64 {
        JsonStructural::default().score_values(&o, &r).score.unwrap()
    }

    #[test]
    fn anchor_behaviour() {
        assert_eq!(score(json!({"a": " x "}), json!({"a": "x"})), 1.0);
        assert_eq!(score(json!({"a": 2.02}), json!({"a": 2.0})), 0.0);
        assert_eq!(score(json!({"a": 100.004}), json!({"a": 100})), 1.0);
        assert_eq!(score(json!([2, 1, 1]), json!([1, 2])), 1.0);
        assert_eq!(score(json!({}), json!({})), 1.0);
        assert_eq!(score(json!({"x": 1, "y": 2}), json!({})), 1.0 / 3.0);
        assert_eq!(score(json!([]), json!([])), 1.0);
        assert_eq!(score(json!({"a": {"b": 1, "c": 2}}), json!({})), 0.5);
    }

    #[test]
    fn deliberate_deviations() {
        assert_eq!(score(json!({"0": "pen", "1": "ink"}), json!(["pen", "ink"])), 0.0);
        assert_eq!(score(json!(["true", "2"]), json!([true, 2])), 0.0);
    }

    #[test]
    fn details_and_explanation() {
        let s = JsonStructural::default().score_values(
            &json!({"a": {"b": [1, {"c": "y"}]}, "z": 1}),
            &json!({"a": {"b": [1, {"c": "x"}]}, "q": true}),
        );
        let checks: Vec<&str> = s.details.iter().map(|d| d.check.as_str()).collect();
        assert!(checks.contains(&"json_path.$.a.b[1].c"), "{checks:?}");
        assert!(checks.contains(&"json_path.$.q"));
        assert!(checks.contains(&"json_path.$.z"));
        let msgs: Vec<&str> = s.details.iter().filter_map(|d| d.message.as_deref()).collect();
        assert!(
            msgs.contains(&"Missing key")
                && msgs.contains(&"Unexpected key")
                && msgs.contains(&"Value mismatch")
        );
        assert!(s.explanation.unwrap().starts_with("Factuality score 25%: 1/4 leaf values match"));
    }

    #[test]
    fn details_option() {
        let opts = |d: &str| json!({"details": d}).as_object().cloned().unwrap_or_default();
        let (out, reference) = (json!({"t": ["a", "b"], "n": 1}), json!({"t": ["a"], "n": 2}));
        let all =
            JsonStructural::from_options(&opts("all")).unwrap().score_values(&out, &reference);
        let checks: Vec<(&str, bool)> =
            all.details.iter().map(|d| (d.check.as_str(), d.passed)).collect();
        assert!(checks.contains(&("json_path.$.t", true)), "{checks:?}");
        assert!(checks.contains(&("json_path.$.t", false)));
        assert!(checks.contains(&("json_path.$.n", false)));
        let none =
            JsonStructural::from_options(&opts("none")).unwrap().score_values(&out, &reference);
        assert!(none.details.is_empty());
        assert_eq!(none.explanation, all.explanation);
        assert!(none.explanation.unwrap().contains("Unexpected element (got b)"));
        assert!(JsonStructural::from_options(&opts("some")).is_err());
    }
}
