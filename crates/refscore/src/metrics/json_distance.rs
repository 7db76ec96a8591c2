//! `json_distance`: Phoenix JSON Distance, the count of differing fields.
//!
//! Two variants share the engine:
//! - `snippet` (default): Phoenix's code evaluator (Python tab). Union of
//!   keys, an absent key compares as `null`, arrays by position with one
//!   point per surplus element, leaves by Python `==` (`true == 1`,
//!   `1 == 1.0`).
//! - `prebuilt`: Phoenix's built-in `json_distance`. Strict Python types
//!   (`1 != 1.0`, `true != 1`), a key on one side only costs 1 even when
//!   the other side would be `null`.

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
use crate::error::ConfigError;
use crate::evaluator::Evaluator;
use crate::number::exact_eq;
use crate::score::Kind;
use crate::score::{Direction, Score};
use crate::tree::{Kind as NodeKind, Node, ValueRef};

/// The declaration of `json_distance`.
pub const SPEC: MetricSpec = MetricSpec {
    name: "json_distance",
    description: "Phoenix JSON Distance: the number of fields that differ (0 = identical)",
    inputs: super::json_metric::PAIR,
    options: &[OptionSpec::new(
        "variant",
        OptionType::Choice(&["snippet", "prebuilt"]),
        Some("snippet"),
        "snippet: Phoenix's code evaluator (Python ==, absent = null); prebuilt: its built-in (strict types)",
    )],
    json: true,
    kind: Kind::Code,
    direction: Direction::Minimize,
    threshold: Some(0.0),
    extra_scores: &[],
    example: "- metric: json_distance\n  options: {variant: snippet}\n  threshold: 0",
    build: |o, ctx| Ok(Box::new(JsonDistance::from_options(o, ctx)?) as Box<dyn Evaluator>),
};

/// The JSON Distance metric.
#[derive(Debug, Clone)]
pub struct JsonDistance {
    prebuilt: bool,
    settings: JsonSettings,
    policy: Policy,
}

impl JsonDistance {
    /// The code-evaluator variant (`prebuilt = false`) or the built-in one.
    pub fn new(prebuilt: bool) -> Self {
        let policy = Policy {
            aggregate: Aggregate::Sum,
            keys: KeySet::Union,
            absent: if prebuilt { Absent::Missing } else { Absent::AsNull },
            missing: Cost::One,
            extra: Cost::One,
            mismatch: Cost::One,
            surplus_elements: true,
            align: Align::Positional,
            empty_arrays: Empty::Nothing,
            empty_expected_object: Empty::Nothing,
        };
        JsonDistance { prebuilt, settings: JsonSettings::default(), policy }
    }

    /// From options: `variant` (`snippet` or `prebuilt`) and the shared
    /// JSON options.
    ///
    /// # Errors
    /// An unknown option or value.
    pub fn from_options(
        options: &Map<String, Value>,
        ctx: &BuildContext,
    ) -> Result<Self, ConfigError> {
        let o = Opts::for_metric(&SPEC, options)?;
        let variant = o.choice("variant", &["snippet", "prebuilt"], "snippet")?;
        let mut m = JsonDistance::new(variant == "prebuilt");
        m.settings = JsonSettings::from_opts(&o, ctx)?;
        Ok(m)
    }

    /// Counts differences between two values.
    pub fn distance(&self, output: &Value, reference: &Value) -> u64 {
        let c = engine::compare(self, reference, output, None, Keep::None, false);
        differences(&c)
    }
}

fn differences(c: &Comparison) -> u64 {
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let d = c.tally.shortfall().round() as u64;
    d
}

/// Python `==` between two JSON values of which at most one is a container
/// of the other's kind.
pub(crate) fn python_eq(a: Node<'_>, b: Node<'_>) -> bool {
    match (a.value(), b.value()) {
        (ValueRef::Null, ValueRef::Null) => true,
        (ValueRef::String(x), ValueRef::String(y)) => x == y,
        (ValueRef::Number(x), ValueRef::Number(y)) => exact_eq(x, y),
        (ValueRef::Bool(x), ValueRef::Bool(y)) => x == y,
        (ValueRef::Bool(x), ValueRef::Number(n)) | (ValueRef::Number(n), ValueRef::Bool(x)) => {
            crate::number::as_i128(n)
                .map_or_else(|| n.as_f64() == Some(f64::from(u8::from(x))), |i| i == i128::from(x))
        }
        (ValueRef::Array(x), ValueRef::Array(y)) => {
            x.len() == y.len() && x.items().zip(y.items()).all(|(p, q)| python_eq(p, q))
        }
        (ValueRef::Object(x), ValueRef::Object(y)) => {
            x.len() == y.len()
                && x.entries().all(|(k, v)| y.get(k).is_some_and(|w| python_eq(v, w)))
        }
        _ => false,
    }
}

/// Python `type(a) is type(b) and a == b`, ints and floats told apart.
fn strict_eq(a: Node<'_>, b: Node<'_>) -> Leaf {
    match (a.value(), b.value()) {
        (ValueRef::Number(x), ValueRef::Number(y)) => {
            if crate::number::is_int(x) != crate::number::is_int(y) {
                Leaf::TYPE
            } else {
                Leaf::exact(exact_eq(x, y))
            }
        }
        _ if a.kind() != b.kind() => Leaf::TYPE,
        // Same-kind leaves are scalars here (two arrays or objects walk).
        _ => Leaf::exact(crate::engine::nodes_equal(a, b)),
    }
}

impl Rules for JsonDistance {
    fn policy(&self) -> &Policy {
        &self.policy
    }

    /// Python `==` holds between leaves equal by value (`1 == 1.0`); the
    /// built-in's strict types do not (`1` and `1.0` differ there).
    fn equal_leaves_match(&self) -> bool {
        !self.prebuilt
    }

    fn leaf(&self, e: Node<'_>, a: Node<'_>, _: &NodeRule) -> Leaf {
        if self.prebuilt {
            return strict_eq(e, a);
        }
        if python_eq(e, a) {
            Leaf::MATCH
        } else if e.kind() == a.kind()
            || matches!(
                (e.kind(), a.kind()),
                (NodeKind::Bool, NodeKind::Number) | (NodeKind::Number, NodeKind::Bool)
            )
        {
            Leaf::WRONG
        } else {
            Leaf::TYPE
        }
    }
}

impl JsonMetric for JsonDistance {
    fn spec(&self) -> &'static MetricSpec {
        &SPEC
    }

    fn settings(&self) -> &JsonSettings {
        &self.settings
    }

    /// The pre-built evaluator parses `expected` before `actual`; the
    /// snippet, `output` before `reference`.
    fn reference_first(&self) -> bool {
        self.prebuilt
    }

    fn undecodable(&self, reason: &str, _: Option<Node<'_>>) -> Score {
        let msg = if self.prebuilt {
            format!("Invalid JSON in {reason}")
        } else {
            format!("Failed to parse JSON: {reason}")
        };
        Score::invalid(SPEC.name, msg).with_direction(Direction::Minimize)
    }

    fn present(&self, c: &Comparison, _: &[Detail], _: Pair<'_>) -> Score {
        let d = differences(c);
        let explanation = if self.prebuilt {
            format!("JSON structures have {d} difference(s)")
        } else if d == 0 {
            String::from("Output matches the reference exactly.")
        } else {
            format!("{d} field(s) differ from the reference.")
        };
        #[allow(clippy::cast_precision_loss)]
        Score::new(SPEC.name, Some(d as f64))
            .with_label(if d == 0 { "match" } else { "mismatch" })
            .with_explanation(explanation)
            .with_direction(Direction::Minimize)
            .with_meta("differences", d)
            .with_meta("variant", if self.prebuilt { "prebuilt" } else { "snippet" })
    }
}

json_evaluator!(JsonDistance);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluator::EvalInput;
    use serde_json::json;

    fn d(prebuilt: bool, a: Value, b: Value) -> u64 {
        JsonDistance::new(prebuilt).distance(&a, &b)
    }

    #[test]
    fn snippet_semantics() {
        assert_eq!(d(false, json!({"a": 1}), json!({"a": 1, "b": null})), 0);
        assert_eq!(d(false, json!(true), json!(1)), 0);
        assert_eq!(d(false, json!(1), json!(1.0)), 0);
        assert_eq!(d(false, json!({"a": {"x": 1, "y": 2}}), json!({})), 1);
        assert_eq!(d(false, json!([1, 2, 3]), json!([1, 5])), 2);
        assert_eq!(d(false, json!({"a": []}), json!({"a": {}})), 1);
        assert_eq!(d(false, json!(-0.0), json!(0)), 0);
        assert_eq!(d(false, json!(9_007_199_254_740_993_u64), json!(9_007_199_254_740_992_u64)), 1);
    }

    #[test]
    fn prebuilt_semantics() {
        assert_eq!(d(true, json!({"n": 1}), json!({"n": 1.0})), 1);
        assert_eq!(d(true, json!({"a": 1}), json!({"a": 1, "b": null})), 1);
        assert_eq!(d(true, json!(true), json!(1)), 1);
        assert_eq!(d(true, json!(-0.0), json!(0)), 1);
        assert_eq!(d(true, json!([1, 2]), json!([1, 2, 3, 4])), 2);
        assert_eq!(d(true, json!({"a": {"b": 1}}), json!({"a": {"b": 2, "c": 3}})), 2);
    }

    /// Past `MAX_KEPT_DETAILS` the differences are counted, not kept: one
    /// closing `+ N more` detail stands for them, and a row's result adds
    /// them to its own `+ N more`.
    #[test]
    fn details_past_the_limit_are_counted_not_kept() {
        use crate::limits::MAX_KEPT_DETAILS;
        use crate::metric_result::{MetricResult, is_more_entry};
        let n = MAX_KEPT_DETAILS + 25;
        let out: Vec<u64> = (0..n as u64).collect();
        let reference: Vec<u64> = (1..=n as u64).collect();
        let m = JsonDistance::new(false);
        let e = m.evaluate(&EvalInput::pair(json!(out), json!(reference))).unwrap();
        let s = &e.scores[0];
        assert_eq!(s.score, Some(n as f64), "every difference still counts");
        assert_eq!(s.details.len(), MAX_KEPT_DETAILS + 1);
        let last = s.details.last().unwrap();
        assert!(is_more_entry(last), "{last:?}");
        assert_eq!(last.check.to_string(), "+ 25 more");
        let r = MetricResult::from_scores(std::slice::from_ref(s), Some(false), 10);
        let (listed, more) = r.listed();
        assert_eq!((listed.len(), more), (10, (n - 10) as u64));
        // Under the limit nothing changes.
        let e = m.evaluate(&EvalInput::pair(json!([1, 2]), json!([1, 3]))).unwrap();
        assert!(!e.scores[0].details.iter().any(is_more_entry));
    }

    #[test]
    fn invalid_text() {
        let m = JsonDistance::new(false);
        let e = m.evaluate(&EvalInput::pair(json!("{not json"), json!("{}"))).unwrap();
        let s = &e.scores[0];
        assert!(s.score.is_none());
        assert_eq!(s.label.as_deref(), Some("invalid"));
        assert!(s.explanation.as_deref().unwrap().starts_with("Failed to parse JSON: output:"));
    }
}
