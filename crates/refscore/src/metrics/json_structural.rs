//! `json_structural`: Regtrace's factuality comparison of two JSON
//! documents, matched / (expected + extra).
//!
//! Union of keys; a key on one side only counts 1 (missing or unexpected),
//! whatever it holds. Strings are equal after trimming, numbers within an
//! absolute 0.01, booleans and `null` exact. Arrays holding only scalars
//! compare as sets (each distinct value once); arrays holding an object or
//! array compare by position. Two empty arrays, and an empty reference
//! object, count as one matched value. With `decode: auto` a text is read
//! as Regtrace reads it ([`Mode::Regtrace`]: its code fences removed,
//! trimmed as JavaScript trims, then parsed, a scalar included), and only
//! when that fails is a document looked for as `auto` does.

use serde_json::{Map, Value};

use super::BuildContext;
use super::json_metric::{JsonMetric, JsonSettings, Pair, json_evaluator};
use super::options::Opts;
use super::registry::MetricSpec;
use crate::decode::{DecodeOptions, Mode};
use crate::detail::{Detail, push_failure_lines};
use crate::engine::{
    self, Absent, Aggregate, Align, Comparison, Cost, Empty, Keep, KeySet, Leaf, NodeRule, Policy,
    Rules,
};
use crate::error::ConfigError;
use crate::evaluator::Evaluator;
use crate::number::{to_f64, within_abs};
use crate::score::{Direction, Kind, Score};
use crate::text::js_trim;
use crate::tree::{Node, Tree, ValueRef};

/// The declaration of `json_structural`.
pub const SPEC: MetricSpec = MetricSpec {
    name: "json_structural",
    description: "Regtrace structural factuality on JSON: matched / (expected + extra) leaves",
    inputs: super::json_metric::PAIR,
    options: &[],
    json: true,
    kind: Kind::Code,
    direction: Direction::Maximize,
    threshold: Some(1.0),
    extra_scores: &[],
    example: "- metric: json_structural\n  threshold: 0.8",
    build: |o, ctx| Ok(Box::new(JsonStructural::from_options(o, ctx)?) as Box<dyn Evaluator>),
};

/// Absolute tolerance for numbers.
pub const NUMBER_TOLERANCE: f64 = 0.01;

/// The structural JSON comparison.
#[derive(Debug, Clone)]
pub struct JsonStructural {
    settings: JsonSettings,
    policy: Policy,
}

impl Default for JsonStructural {
    fn default() -> Self {
        JsonStructural {
            settings: JsonSettings {
                decode: DecodeOptions { mode: Mode::Regtrace, ..DecodeOptions::default() },
                ..JsonSettings::default()
            },
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
    /// From the shared JSON options (the explanation lists failures
    /// whatever `details` is).
    ///
    /// # Errors
    /// An unknown option.
    pub fn from_options(
        options: &Map<String, Value>,
        ctx: &BuildContext,
    ) -> Result<Self, ConfigError> {
        let o = Opts::for_metric(&SPEC, options)?;
        let mut settings = JsonSettings::from_opts(&o, ctx)?;
        // `auto` reads text as Regtrace does first.
        if settings.decode.mode == Mode::Auto {
            settings.decode.mode = Mode::Regtrace;
        }
        Ok(JsonStructural { settings, ..JsonStructural::default() })
    }

    /// Scores two parsed documents, with every mismatch as a detail.
    pub fn score_values(&self, output: &Value, reference: &Value) -> Score {
        let mut c = engine::compare(self, reference, output, None, Keep::Failed, false);
        let details = c.take_details();
        let (o, r) = (Tree::from_value(output), Tree::from_value(reference));
        let pair = Pair { output: o.root(), reference: r.root() };
        let mut s = self.present(&c, &details, pair);
        s.details = details;
        s
    }
}

/// JavaScript's `typeof` for JSON values.
fn js_typeof(v: Node<'_>) -> &'static str {
    match v.value() {
        ValueRef::Null | ValueRef::Array(_) | ValueRef::Object(_) => "object",
        ValueRef::Bool(_) => "boolean",
        ValueRef::Number(_) => "number",
        ValueRef::String(_) => "string",
    }
}

impl Rules for JsonStructural {
    fn policy(&self) -> &Policy {
        &self.policy
    }

    /// Equal values have one JavaScript type, equal trimmed strings and
    /// numbers within the tolerance.
    fn equal_leaves_match(&self) -> bool {
        true
    }

    fn leaf(&self, e: Node<'_>, a: Node<'_>, _: &NodeRule) -> Leaf {
        if js_typeof(e) != js_typeof(a) {
            return Leaf::TYPE;
        }
        match (e.value(), a.value()) {
            (ValueRef::Null, ValueRef::Null) => Leaf::MATCH,
            (ValueRef::Null, _) | (_, ValueRef::Null) => Leaf::WRONG,
            (ValueRef::String(x), ValueRef::String(y)) => Leaf::exact(js_trim(x) == js_trim(y)),
            (ValueRef::Number(x), ValueRef::Number(y)) => {
                Leaf::exact(within_abs(to_f64(x), to_f64(y), NUMBER_TOLERANCE))
            }
            (ValueRef::Bool(x), ValueRef::Bool(y)) => Leaf::exact(x == y),
            // An array against an object: a type mismatch (the original
            // compared them key by key).
            _ => Leaf::TYPE,
        }
    }
}

impl JsonMetric for JsonStructural {
    fn spec(&self) -> &'static MetricSpec {
        &SPEC
    }

    fn settings(&self) -> &JsonSettings {
        &self.settings
    }

    fn undecodable(&self, reason: &str, _: Option<Node<'_>>) -> Score {
        Score::invalid(SPEC.name, format!("json_structural needs JSON on both sides; {reason}"))
    }

    fn compare(&self, pair: Pair<'_>, _: Option<&Value>) -> Result<Comparison, String> {
        // The explanation lists the failures, so they are kept at least.
        let keep = if self.settings.keep == Keep::None { Keep::Failed } else { self.settings.keep };
        Ok(engine::compare_nodes(
            self,
            pair.reference,
            pair.output,
            None,
            keep,
            self.settings.fields,
        ))
    }

    fn present(&self, c: &Comparison, details: &[Detail], _: Pair<'_>) -> Score {
        let score = c.tally.ratio_or(1.0);
        let mut explanation = format!(
            "Factuality score {}%: {}/{} leaf values match",
            (score * 100.0).round(),
            c.tally.matched,
            c.tally.total
        );
        push_failure_lines(&mut explanation, details);
        Score::new(SPEC.name, Some(score))
            .with_label(super::similarity_label(score))
            .with_explanation(explanation)
            .with_meta("matched", c.tally.matched)
            .with_meta("total", c.tally.total)
    }
}

json_evaluator!(JsonStructural);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluator::EvalInput;
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
    fn large_scalar_arrays_compare_as_sets_in_linear_time() {
        // 100k distinct scalars a side, half shared: the pairwise scan
        // took tens of seconds; the hash index takes milliseconds.
        let n = 100_000_i64;
        let o: Vec<Value> = (0..n).map(Value::from).collect();
        let r: Vec<Value> = (n / 2..n + n / 2).map(Value::from).collect();
        let s = score(Value::Array(o), Value::Array(r));
        #[allow(clippy::cast_precision_loss)]
        let want = (n / 2) as f64 / (n + n / 2) as f64;
        assert!((s - want).abs() < 1e-12, "{s} vs {want}");
        // Set identity is typed as before: 1 and 1.0 are one value, 0 and
        // -0.0 too, "1" and true are not.
        assert_eq!(score(json!([1, 0, "1", true]), json!([1.0, -0.0, "1", true])), 1.0);
        assert_eq!(score(json!(["1"]), json!([1])), 0.0);
    }

    /// Past the details kept, the explanation's `+ N more` counts every
    /// failed leaf, those not kept too.
    #[test]
    fn explanation_counts_the_details_not_kept() {
        use crate::limits::MAX_KEPT_DETAILS;
        let n = MAX_KEPT_DETAILS + 25;
        let o: serde_json::Map<String, Value> =
            (0..n).map(|i| (format!("k{i}"), json!(i))).collect();
        let r: serde_json::Map<String, Value> =
            (0..n).map(|i| (format!("k{i}"), json!(i + 1))).collect();
        let s = JsonStructural::default().score_values(&Value::Object(o), &Value::Object(r));
        assert_eq!(s.details.len(), MAX_KEPT_DETAILS + 1);
        let expl = s.explanation.unwrap();
        assert!(expl.ends_with(&format!("\n  + {} more", n - 10)), "{}", &expl[expl.len() - 40..]);
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
        let checks: Vec<String> = s.details.iter().map(|d| d.check.to_string()).collect();
        assert!(checks.iter().any(|c| c == "json_path.$.a.b[1].c"), "{checks:?}");
        assert!(checks.iter().any(|c| c == "json_path.$.q"));
        assert!(checks.iter().any(|c| c == "json_path.$.z"));
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
        let run = |d: &str| {
            let m = JsonStructural::from_options(&opts(d), &BuildContext::default()).unwrap();
            let input = EvalInput::pair(out.clone(), reference.clone());
            m.evaluate(&input).unwrap().scores.remove(0)
        };
        let all = run("all");
        let checks: Vec<(String, bool)> =
            all.details.iter().map(|d| (d.check.to_string(), d.passed)).collect();
        let has = |c: &str, p: bool| checks.iter().any(|(x, q)| x == c && *q == p);
        assert!(has("json_path.$.t", true), "{checks:?}");
        assert!(has("json_path.$.t", false));
        assert!(has("json_path.$.n", false));
        let none = run("none");
        assert!(none.details.is_empty());
        assert_eq!(none.explanation, all.explanation);
        assert!(none.explanation.unwrap().contains("Unexpected element (got b)"));
        assert!(JsonStructural::from_options(&opts("some"), &BuildContext::default()).is_err());
    }
}
