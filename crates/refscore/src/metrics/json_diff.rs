//! `json_diff`: Lynxius JSON Difference, a weighted mean of similarities.
//!
//! Objects: weighted mean over the union of keys (an absent key compares as
//! `null`). Arrays: mean over the pairs by position; surplus elements are
//! ignored, as in the original. Strings: normalized Levenshtein. Numbers and
//! booleans: `1 − |x − y| / (|x| + |y|)`. `null` vs `null`: 1; any other
//! mix of types: 0. Weights per key, with `"__key"` loopback weights for
//! the key holding a nested object or list.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::BuildContext;
use super::json_metric::{JsonMetric, JsonSettings, Pair, json_evaluator};
use super::options::Opts;
use super::registry::{MetricSpec, OptionSpec, OptionType};
use crate::detail::Detail;
use crate::engine::{
    self, Absent, Aggregate, Align, Comparison, Cost, Empty, Keep, KeySet, Leaf, NodeRule, Policy,
    Rules,
};
use crate::error::{ConfigError, EvalError};
use crate::evaluator::{EvalInput, Evaluator, InputSpec, InputType};
use crate::number::{bool_or_number, normalized_difference};
use crate::score::{Direction, Kind, Score};
use crate::text::normalized_levenshtein;
use crate::tree::{Node, ValueRef};

/// The declaration of `json_diff`.
pub const SPEC: MetricSpec = MetricSpec {
    name: "json_diff",
    description: "Lynxius JSON Difference: weighted mean similarity of keys and values, in [0, 1]",
    inputs: &[
        InputSpec::required("output", InputType::Json, "the model's JSON"),
        InputSpec::required("reference", InputType::Json, "the expected JSON"),
        InputSpec::optional(
            "weights",
            InputType::Json,
            "per-row weight tree (overrides the option)",
        ),
    ],
    options: &[OptionSpec::new(
        "weights",
        OptionType::Object,
        None,
        "weight per key (numbers ≥ 0), nested objects for nested keys with `__key` for the key itself",
    )],
    json: true,
    kind: Kind::Code,
    direction: Direction::Maximize,
    threshold: Some(1.0),
    extra_scores: &[],
    example: "- metric: json_diff\n  options: {weights: {total: 2, notes: 0}}\n  threshold: 0.9",
    build: |o, ctx| Ok(Box::new(JsonDiff::from_options(o, ctx)?) as Box<dyn Evaluator>),
};

/// The JSON Difference metric.
#[derive(Debug, Clone)]
pub struct JsonDiff {
    weights: Option<Value>,
    settings: JsonSettings,
    policy: Policy,
}

impl Default for JsonDiff {
    fn default() -> Self {
        JsonDiff::new(None)
    }
}

impl JsonDiff {
    /// The metric with default weights (used when a pair has none).
    pub fn new(weights: Option<Value>) -> Self {
        JsonDiff {
            weights,
            settings: JsonSettings::default(),
            policy: Policy {
                aggregate: Aggregate::Mean,
                keys: KeySet::Union,
                absent: Absent::AsNull,
                missing: Cost::One,
                extra: Cost::One,
                mismatch: Cost::One,
                surplus_elements: false,
                align: Align::Positional,
                empty_arrays: Empty::Leaf,
                empty_expected_object: Empty::Nothing,
            },
        }
    }

    /// From options: `weights` (a weight tree) and the shared JSON options.
    ///
    /// # Errors
    /// An unknown option, or weights that are not a valid weight tree.
    pub fn from_options(
        options: &Map<String, Value>,
        ctx: &BuildContext,
    ) -> Result<Self, ConfigError> {
        let o = Opts::for_metric(&SPEC, options)?;
        let weights = o.value("weights").cloned();
        if let Some(w) = &weights {
            validate_weights(w, "$").map_err(|m| o.error("weights", m))?;
        }
        let mut m = JsonDiff::new(weights);
        m.settings = JsonSettings::from_opts(&o, ctx)?;
        Ok(m)
    }

    /// The similarity of `output` to `reference` in [0, 1].
    pub fn similarity(&self, output: &Value, reference: &Value, weights: Option<&Value>) -> f64 {
        engine::compare(
            self,
            reference,
            output,
            weights.or(self.weights.as_ref()),
            Keep::None,
            false,
        )
        .tally
        .ratio_or(1.0)
    }
}

/// Checks a weight tree: objects of numbers ≥ 0 and nested objects. A
/// number ≥ 0 in place of the whole tree weighs every key alike, as
/// Lynxius reads it (its `get_next_weights` gives every key 1.0 under a
/// number).
///
/// # Errors
/// A message naming the path of the first bad weight.
pub fn validate_weights(w: &Value, path: &str) -> Result<(), String> {
    if w.as_f64().is_some_and(|x| x.is_finite() && x >= 0.0) {
        return Ok(());
    }
    let mut stack = vec![(w, path.to_owned())];
    while let Some((w, path)) = stack.pop() {
        match w {
            Value::Object(m) => {
                for (k, v) in m {
                    let p = format!("{path}.{k}");
                    match v {
                        Value::Number(n)
                            if n.as_f64().is_some_and(|x| x.is_finite() && x >= 0.0) => {}
                        Value::Object(_) => stack.push((v, p)),
                        other => {
                            return Err(format!(
                                "weight at {p} must be a number ≥ 0 or an object, got {other}"
                            ));
                        }
                    }
                }
            }
            other => return Err(format!("weights at {path} must be an object, got {other}")),
        }
    }
    Ok(())
}

impl Rules for JsonDiff {
    fn policy(&self) -> &Policy {
        &self.policy
    }

    /// Equal numbers and booleans are 0% apart, equal strings 100% alike.
    fn equal_leaves_match(&self) -> bool {
        true
    }

    fn leaf(&self, e: Node<'_>, a: Node<'_>, _: &NodeRule) -> Leaf {
        match (e.value(), a.value()) {
            (ValueRef::Null, ValueRef::Null) => Leaf::MATCH,
            (ValueRef::String(x), ValueRef::String(y)) => {
                Leaf::graded(normalized_levenshtein(x, y))
            }
            _ => match (bool_or_number(e), bool_or_number(a)) {
                (Some(x), Some(y)) => Leaf::graded(normalized_difference(x, y)),
                _ => Leaf::TYPE,
            },
        }
    }
}

/// `Weighted similarity 0.876013; 2 of 13 compared leaves differ.`: the
/// leaves of either document that were compared (surplus array elements are
/// not), and those that are not an exact match.
fn explanation(score: f64, counts: &engine::Counts) -> String {
    let differ = counts.partial + counts.wrong + counts.missing + counts.extra;
    let compared = counts.matched + differ;
    format!("Weighted similarity {score:.6}; {differ} of {compared} compared leaves differ.")
}

impl JsonMetric for JsonDiff {
    fn spec(&self) -> &'static MetricSpec {
        &SPEC
    }

    fn settings(&self) -> &JsonSettings {
        &self.settings
    }

    fn undecodable(&self, reason: &str, _: Option<Node<'_>>) -> Score {
        Score::invalid(SPEC.name, format!("Failed to parse JSON: {reason}"))
    }

    /// The row's weights, decoded like every JSON input (a CSV cell holds
    /// them as JSON text).
    fn weights<'i>(&self, input: &'i EvalInput<'_>) -> Result<Option<Cow<'i, Value>>, EvalError> {
        let Some(w) = input.get("weights") else { return Ok(None) };
        let invalid = |reason| EvalError::InvalidInput { input: String::from("weights"), reason };
        let w = crate::decode::decode(w, &self.settings.decode).map_err(invalid)?.value;
        if let Err(reason) = validate_weights(&w, "$") {
            if let Cow::Owned(w) = w {
                crate::json::drop_deep(w);
            }
            return Err(invalid(reason));
        }
        Ok(Some(w))
    }

    fn compare(&self, pair: Pair<'_>, weights: Option<&Value>) -> Result<Comparison, String> {
        let s = &self.settings;
        let w = weights.or(self.weights.as_ref());
        Ok(engine::compare_nodes(self, pair.reference, pair.output, w, s.keep, s.fields))
    }

    fn present(&self, c: &Comparison, _: &[Detail], _: Pair<'_>) -> Score {
        let score = c.tally.ratio_or(1.0);
        Score::new(SPEC.name, Some(score))
            .with_label(super::similarity_label(score))
            .with_explanation(explanation(score, &c.counts))
    }
}

json_evaluator!(JsonDiff);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sim(o: Value, r: Value) -> f64 {
        JsonDiff::default().similarity(&o, &r, None)
    }

    #[test]
    fn edge_cases() {
        assert_eq!(sim(json!({"a": null}), json!({})), 1.0);
        assert_eq!(sim(json!({"a": 1}), json!({})), 0.0);
        assert_eq!(sim(json!(true), json!(1)), 1.0);
        assert_eq!(sim(json!(true), json!(false)), 0.0);
        assert!((sim(json!(true), json!(2)) - (1.0 - 1.0 / 3.0)).abs() < 1e-12);
        assert_eq!(sim(json!(5), json!("5")), 0.0);
        assert_eq!(sim(json!(-5), json!(5)), 0.0);
        assert_eq!(sim(json!([1, 2, 3]), json!([1, 2])), 1.0);
        assert_eq!(sim(json!([]), json!([1])), 0.0);
        assert_eq!(sim(json!([]), json!([])), 1.0);
        assert_eq!(sim(json!({}), json!({})), 1.0);
        assert_eq!(sim(json!(1e308), json!(-1e308)), 0.0);
        assert!((sim(json!(1.7e308), json!(1e308)) - (1.0 - 0.7 / 2.7)).abs() < 1e-12);
    }

    #[test]
    fn explanation_counts_each_leaf_once() {
        let m = JsonDiff::default();
        let inp = EvalInput::pair(json!({"a": 1, "b": "x"}), json!({"a": 2, "b": "y", "c": [1]}));
        let s = &m.evaluate(&inp).unwrap().scores[0];
        assert_eq!(
            s.explanation.as_deref(),
            Some("Weighted similarity 0.222222; 3 of 3 compared leaves differ.")
        );
        let inp = EvalInput::pair(json!({"a": 1, "z": {"p": 1, "q": 2}}), json!({"a": 1}));
        let s = &m.evaluate(&inp).unwrap().scores[0];
        assert_eq!(
            s.explanation.as_deref(),
            Some("Weighted similarity 0.500000; 2 of 3 compared leaves differ.")
        );
    }

    /// A row's weights are a JSON input like the output and reference: a
    /// CSV cell holds them as JSON text.
    #[test]
    fn weights_written_as_json_text_are_decoded() {
        let m = JsonDiff::default();
        let pair = || EvalInput::pair(json!({"a": 1, "b": "x"}), json!({"a": 1, "b": "y"}));
        let score = |w: Value| m.evaluate(&pair().with("weights", w)).map(|e| e.scores[0].score);
        assert_eq!(score(json!({"a": 1, "b": 0})), Ok(Some(1.0)));
        assert_eq!(score(json!("{\"a\": 1, \"b\": 0}")), Ok(Some(1.0)));
        assert_eq!(score(json!("```json\n{\"a\": 1, \"b\": 0}\n```")), Ok(Some(1.0)));
        let bad = score(json!("{\"a\": 1,")).unwrap_err().to_string();
        assert!(bad.contains("weights") && bad.contains("not valid JSON"), "{bad}");
        let not_a_tree = score(json!("[1, 2]")).unwrap_err().to_string();
        assert!(not_a_tree.contains("must be an object"), "{not_a_tree}");
    }

    #[test]
    fn zero_weights_fall_back_to_equal() {
        let m = JsonDiff::default();
        let w = json!({"a": 0.0, "b": 0.0});
        let s = m.similarity(&json!({"a": 1, "b": 2}), &json!({"a": 1, "b": 3}), Some(&w));
        assert!((s - (1.0 + 0.8) / 2.0).abs() < 1e-12);
    }

    /// Weights are relative: scaled all alike, even to the edge of f64's
    /// range, they give the same score (their plain sum would overflow).
    #[test]
    fn huge_weights_are_relative_too() {
        let m = JsonDiff::default();
        let (out, reference) = (json!({"a": 1, "b": 2, "c": 3}), json!({"a": 1, "b": 3, "c": 3}));
        let one = m.similarity(&out, &reference, Some(&json!({"a": 1, "b": 1, "c": 0})));
        assert!((one - 0.9).abs() < 1e-12, "{one}");
        for big in [1e300, 1e307, 1e308, f64::MAX] {
            let w = json!({"a": big, "b": big, "c": 0});
            let s = m.similarity(&out, &reference, Some(&w));
            assert!((s - one).abs() < 1e-12, "{big}: {s}");
        }
    }

    /// Two 70,100-character strings 200 edits apart (100 characters moved
    /// from the front to the back): past the exact cell limit, but within
    /// its band, so exact. Lynxius 1.2.0 (python-Levenshtein) gives
    /// 0.9971469329529244; the block estimate alone gave less.
    #[test]
    fn long_strings_within_the_band_are_exact() {
        let s: String = (0..70_000).map(|i| char::from(b'a' + (i * 7 % 13) as u8)).collect();
        let (front, back) = (format!("{}{s}", "y".repeat(100)), format!("{s}{}", "y".repeat(100)));
        let got = sim(json!({"s": back}), json!({"s": front}));
        assert_eq!(got, 0.997_146_932_952_924_4);
    }

    #[test]
    fn rejects_bad_weights() {
        assert!(validate_weights(&json!({"a": "x"}), "$").is_err());
        assert!(validate_weights(&json!({"a": -1}), "$").is_err());
        assert!(validate_weights(&json!({"a": {"__a": 0.5, "b": 1}}), "$").is_ok());
        // A number for the whole tree: every key alike, as in Lynxius.
        assert!(validate_weights(&json!(0.5), "$").is_ok());
        assert!(validate_weights(&json!(-0.5), "$").is_err());
        assert!(validate_weights(&json!("x"), "$").is_err());
    }
}

#[cfg(test)]
mod seed_example {
    use super::*;
    use serde_json::json;

    #[test]
    fn pizza_menu_scores_0_8760128() {
        let reference = json!({"margherita": 19.0, "pepperoni": 21.0, "beer": 6.0, "fixed_menus": [
            {"menu_name": "baby", "pizza": "margerita", "drink": "Coca-Cola", "price": 24.0},
            {"menu_name": "adult", "pizza": "pepperoni", "drink": "beer", "price": 27.0}]});
        let output = json!({"margherita": 39.0, "pepperoni": 21.0, "beer": 6.0, "fixed_menus": [
            {"menu_name": "baby", "pizza": "margerita", "drink": "Coca-Cola", "price": 24.0},
            {"menu_name": "adult", "pizza": "peppers", "drink": "beer", "price": 27.0}]});
        let weights = json!({"margherita": 1.0, "pepperoni": 1.0, "beer": 0.25, "fixed_menus": {
            "__fixed_menus": 0.8, "menu_name": 0.0, "pizza": 0.5, "drink": 0.5, "price": 1.0}});
        let m = JsonDiff::default();
        let s = m.similarity(&output, &reference, Some(&weights));
        assert!((s - 0.876_012_813_265_498_5).abs() < 1e-12, "{s}");
        let s = m.similarity(&output, &reference, None);
        assert!((s - 0.903_376).abs() < 1e-6, "{s}");
    }
}
