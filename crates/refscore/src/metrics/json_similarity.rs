//! `json_similarity`: UiPath JSON Similarity, matched leaves over the
//! reference's leaves.
//!
//! Driven by the reference: only its keys and elements count, extra output
//! keys and elements are free. Numbers earn `1 − |e − a| / |e|` (clamped),
//! strings normalized Levenshtein, booleans and `null` exact; a missing or
//! mistyped subtree earns 0 for each of its reference leaves. The score is
//! matched / total leaves, 1 when the reference has no leaves.

mod targets;

use serde_json::{Map, Value};

use super::BuildContext;
use super::json_metric::{JsonMetric, JsonSettings, Pair, json_evaluator};
use super::options::Opts;
use super::python_repr::py_float;
use super::registry::{MetricSpec, OptionSpec, OptionType};
use crate::decode::{DecodeOptions, Mode};
use crate::detail::{Detail, Outcome, truncate};
use crate::engine::{
    self, Absent, Aggregate, Align, Comparison, Cost, Empty, Keep, KeySet, Leaf, NodeRule, Policy,
    Rules,
};
use crate::error::ConfigError;
use crate::evaluator::Evaluator;
use crate::number::{relative_to_expected, to_f64};
use crate::path::JsonPath;
use crate::score::{Direction, Kind, Score};
use crate::text::normalized_levenshtein;
use crate::tree::{Node, Tree, ValueRef};
use targets::{Targets, prefix_records, resolve, segments};

/// The declaration of `json_similarity`.
pub const SPEC: MetricSpec = MetricSpec {
    name: "json_similarity",
    description: "UiPath JSON Similarity: matched / total reference leaves, in [0, 1]",
    inputs: super::json_metric::PAIR,
    options: &[
        OptionSpec::new(
            "target_output_key",
            OptionType::FileOrValue,
            Some("*"),
            "a path (`result`, `items[0].name`) or a list of paths to compare instead of the whole documents",
        ),
        OptionSpec::new("target_key", OptionType::FileOrValue, None, "alias of target_output_key"),
    ],
    json: true,
    kind: Kind::Code,
    direction: Direction::Maximize,
    threshold: Some(1.0),
    extra_scores: &[],
    example: "- metric: json_similarity\n  options: {target_output_key: result}\n  threshold: 0.9",
    build: |o, ctx| Ok(Box::new(JsonSimilarity::from_options(o, ctx)?) as Box<dyn Evaluator>),
};

/// The JSON Similarity metric.
#[derive(Debug, Clone)]
pub struct JsonSimilarity {
    targets: Targets,
    settings: JsonSettings,
    policy: Policy,
}

impl Default for JsonSimilarity {
    fn default() -> Self {
        JsonSimilarity::new(None)
    }
}

impl JsonSimilarity {
    /// The metric; `target_key` (other than `*`) compares only the value at
    /// that path (`result`, `result.value`, `items[0].name`) of both sides.
    pub fn new(target_key: Option<String>) -> Self {
        JsonSimilarity::selecting(target_key.map_or(Targets::Whole, Targets::one))
    }

    /// The metric comparing the values at several target paths, as the
    /// object `{path: value}` on each side (each path once; the reference
    /// must be an object). A list of the one path `*` compares the whole
    /// documents, as one object member.
    pub fn with_targets(targets: Vec<String>) -> Self {
        JsonSimilarity::selecting(Targets::many(targets))
    }

    fn selecting(targets: Targets) -> Self {
        JsonSimilarity {
            targets,
            settings: JsonSettings::default(),
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

    /// From options: `target_output_key` (alias `target_key`; a path or a
    /// list of paths, default `*`) and the shared JSON options.
    ///
    /// # Errors
    /// An unknown option, or a target that is not a string or a list of
    /// strings.
    pub fn from_options(
        options: &Map<String, Value>,
        ctx: &BuildContext,
    ) -> Result<Self, ConfigError> {
        let o = Opts::for_metric(&SPEC, options)?;
        let key = match o.value("target_output_key") {
            Some(v) => Some(("target_output_key", v)),
            None => o.value("target_key").map(|v| ("target_key", v)),
        };
        let targets = match key {
            None => Targets::Whole,
            Some((_, Value::String(s))) => Targets::one(s.clone()),
            Some((name, Value::Array(items))) => Targets::many(
                items
                    .iter()
                    .map(|v| v.as_str().map(str::to_owned))
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| o.error(name, "expected a path or a list of paths (strings)"))?,
            ),
            Some((name, other)) => {
                return Err(
                    o.error(name, format!("expected a path or a list of paths, got {other}"))
                );
            }
        };
        if let Some(path) = targets.invalid() {
            let name = key.map_or("target_output_key", |(name, _)| name);
            return Err(o.error(
                name,
                format!(
                    "`{path}` holds no key and no index (`a`, `a.b`, `items[0]`): UiPath \
                     fails every row on it (`Invalid path`)"
                ),
            ));
        }
        let mut m = JsonSimilarity::selecting(targets);
        m.settings = JsonSettings::from_opts(&o, ctx)?;
        Ok(m)
    }

    /// `(matched, total)` leaves of `output` against `reference`.
    pub fn leaves(&self, output: &Value, reference: &Value) -> (f64, f64) {
        let c = engine::compare(self, reference, output, None, Keep::None, false);
        (c.tally.matched, c.tally.total)
    }
}

impl Rules for JsonSimilarity {
    fn policy(&self) -> &Policy {
        &self.policy
    }

    /// Equal numbers are 0% apart, equal strings 100% alike.
    fn equal_leaves_match(&self) -> bool {
        true
    }

    fn leaf(&self, e: Node<'_>, a: Node<'_>, _: &NodeRule) -> Leaf {
        match (e.value(), a.value()) {
            (ValueRef::Number(x), ValueRef::Number(y)) => {
                Leaf::graded(relative_to_expected(to_f64(x), to_f64(y)))
            }
            (ValueRef::Bool(x), ValueRef::Bool(y)) => Leaf::exact(x == y),
            (ValueRef::String(x), ValueRef::String(y)) => {
                Leaf::graded(normalized_levenshtein(x, y))
            }
            (ValueRef::Null, ValueRef::Null) => Leaf::MATCH,
            _ => Leaf::TYPE,
        }
    }
}

impl JsonSimilarity {
    /// Compares the target paths of both documents: the sum of their
    /// tallies, each path's records under its own path. A target the output
    /// lacks earns nothing for its reference leaves; one the reference lacks
    /// makes the row invalid.
    ///
    /// With a target, a reference that is a string is read as JSON text
    /// first (Python's `json.loads`, [`crate::decode::Mode::Json`]), as
    /// UiPath reads a string expected output whenever a target key is set;
    /// text that is not JSON makes the row invalid.
    fn compare_targets(&self, out: Node<'_>, reference: Node<'_>) -> Result<Comparison, String> {
        let (keep, fields) = (self.settings.keep, self.settings.fields);
        if self.targets == Targets::Whole {
            return Ok(engine::compare_nodes(self, reference, out, None, keep, fields));
        }
        let Some(text) = reference.as_str() else { return self.compare_paths(out, reference) };
        let json = DecodeOptions { mode: Mode::Json, ..DecodeOptions::default() };
        let parsed = crate::decode::decode(&Value::String(text.to_owned()), &json)
            .map_err(|e| {
                format!(
                    "target_output_key needs a reference that is an object or JSON text: \
                     the reference is a string that is {e}"
                )
            })?
            .value
            .into_owned();
        let tree = Tree::from_value(&parsed);
        let result = self.compare_paths(out, tree.root());
        drop(tree);
        crate::json::drop_deep(parsed);
        result
    }

    /// [`JsonSimilarity::compare_targets`] once the reference is a document.
    fn compare_paths(&self, out: Node<'_>, reference: Node<'_>) -> Result<Comparison, String> {
        let (keep, fields) = (self.settings.keep, self.settings.fields);
        if matches!(self.targets, Targets::Many(_)) && !reference.is_object() {
            return Err(format!(
                "target_output_key lists paths: the reference must be an object, not {}",
                reference.kind().name()
            ));
        }
        let mut all = Comparison::default();
        for target in self.targets.paths() {
            let segs = segments(target);
            let e = resolve(reference, &segs).map_err(|why| {
                format!("target_output_key `{target}` not found in the reference: {why}")
            })?;
            let mut c = match resolve(out, &segs) {
                Ok(a) => engine::compare_nodes(self, e, a, None, keep, fields),
                Err(_) => {
                    let n = e.leaves();
                    let mut c = Comparison::default();
                    #[allow(clippy::cast_precision_loss)]
                    let total = n as f64;
                    c.tally = engine::Tally::new(0.0, total);
                    c.counts.missing = n.max(1) as u64;
                    if keep != Keep::None {
                        c.records.push(engine::Record {
                            path: JsonPath::root(),
                            expected: Some(truncate(&e.display())),
                            actual: None,
                            outcome: Outcome::Missing,
                            score: 0.0,
                            weight: 1.0,
                            element: false,
                            note: None,
                        });
                    }
                    c
                }
            };
            prefix_records(&mut c, &segs);
            all.tally += c.tally;
            all.counts.add(&c.counts);
            all.records.append(&mut c.records);
            all.omitted += c.omitted;
            all.fields.append_under(&c.fields, &segs);
        }
        Ok(all)
    }
}

impl JsonMetric for JsonSimilarity {
    fn spec(&self) -> &'static MetricSpec {
        &SPEC
    }

    fn settings(&self) -> &JsonSettings {
        &self.settings
    }

    fn undecodable(&self, reason: &str, _: Option<Node<'_>>) -> Score {
        Score::invalid(SPEC.name, format!("Failed to parse JSON: {reason}"))
    }

    fn compare(&self, pair: Pair<'_>, _: Option<&Value>) -> Result<Comparison, String> {
        self.compare_targets(pair.output, pair.reference)
    }

    /// Target paths that read differently from how they are written.
    fn warnings(&self) -> Vec<String> {
        self.targets.paths().iter().filter_map(|t| targets::warning(t)).collect()
    }

    fn present(&self, c: &Comparison, _: &[Detail], _: Pair<'_>) -> Score {
        let score = c.tally.ratio_or(1.0);
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let total = c.tally.total.round() as u64;
        Score::new(SPEC.name, Some(score))
            .with_label(super::similarity_label(score))
            .with_explanation(format!(
                "Matched leaves: {}, Total leaves: {total}",
                py_float(c.tally.matched)
            ))
            .with_meta("matched_leaves", c.tally.matched)
            .with_meta("total_leaves", total)
    }
}

json_evaluator!(JsonSimilarity);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluator::EvalInput;
    use crate::path::Seg;
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
        let s = &m.evaluate(&inp).unwrap().scores[0];
        assert_eq!(s.score, Some(1.0));
        assert_eq!(s.explanation.as_deref(), Some("Matched leaves: 2.0, Total leaves: 2"));
    }

    #[test]
    fn target_paths() {
        assert_eq!(
            segments("items[2].details.score"),
            vec![Seg::Key("items"), Seg::Index(2), Seg::Key("details"), Seg::Key("score")]
        );
        assert_eq!(segments("a[x].b"), vec![Seg::Key("a"), Seg::Key("x"), Seg::Key("b")]);
        assert!(segments("*").is_empty());
        for ok in ["items[2].details.score", "a", "*", "[0].a", "a[0][1]", "a.b[3]"] {
            assert_eq!(targets::warning(ok), None, "{ok}");
        }
        for (bad, at, read) in [
            ("a[", 1, "$.a"),
            ("a.", 1, "$.a"),
            ("a..b", 1, "$.a.b"),
            (".a", 0, "$.a"),
            ("a]", 1, "$.a"),
            ("a[x].b", 1, "$.a.x.b"),
            ("a[-1]", 1, "$.a['-1']"),
        ] {
            let w = targets::warning(bad).unwrap_or_else(|| panic!("{bad}: no warning"));
            assert!(w.contains(&format!("at byte {at} ")), "{w}");
            assert!(w.ends_with(&format!("read as {read}")), "{w}");
        }
        let m = JsonSimilarity::with_targets(vec![String::from("a..b"), String::from("c")]);
        assert_eq!(JsonMetric::warnings(&m).len(), 1);
        let out = json!({"items": [{"name": "pen"}, {"name": "ink", "n": 2}]});
        let reference = json!({"items": [{"name": "pen"}, {"name": "inc", "n": 2}]});
        let m = JsonSimilarity::new(Some(String::from("items[1].name")));
        let s = &m.evaluate(&EvalInput::pair(out.clone(), reference.clone())).unwrap().scores[0];
        assert!((s.score.unwrap() - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(s.details[0].check, "json_path.$.items[1].name");
        let m = JsonSimilarity::with_targets(vec![String::from("items[0]"), String::from("x")]);
        let s = &m.evaluate(&EvalInput::pair(out.clone(), reference.clone())).unwrap().scores[0];
        assert!(s.is_invalid(), "{s:?}");
        let m = JsonSimilarity::with_targets(vec![
            String::from("items[0]"),
            String::from("items[1].n"),
        ]);
        let s = &m.evaluate(&EvalInput::pair(out, json!({"items": [{"name": "pen"}]}))).unwrap();
        assert!(s.scores[0].is_invalid());
        let m = JsonSimilarity::new(Some(String::from("items[5]")));
        let reference = json!({"items": [1, 2, 3, 4, 5, {"a": 1, "b": 2}]});
        let s = &m.evaluate(&EvalInput::pair(json!({"items": []}), reference)).unwrap().scores[0];
        assert_eq!(s.score, Some(0.0));
        assert_eq!(s.metadata["total_leaves"], 2);
    }

    #[test]
    fn target_missing_from_output_scores_zero() {
        let m = JsonSimilarity::new(Some(String::from("result")));
        let s = &m
            .evaluate(&EvalInput::pair(json!({"other": 1}), json!({"result": {"a": 1, "b": 2}})))
            .unwrap()
            .scores[0];
        assert_eq!(s.score, Some(0.0));
        assert_eq!(s.explanation.as_deref(), Some("Matched leaves: 0.0, Total leaves: 2"));
        assert_eq!(s.details[0].check, "json_path.$.result");
        assert_eq!(s.details[0].outcome, Outcome::Missing);
    }
}
