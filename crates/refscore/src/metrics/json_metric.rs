//! The one JSON-metric layer: decode → compare → present.
//!
//! Every JSON metric is a [`JsonMetric`]: an engine policy ([`Rules`]) and
//! a score formula ([`JsonMetric::present`]). This layer does the rest,
//! once for all of them:
//!
//! 1. **decode** `output` and `reference` with the metric's decode options
//!    ([`crate::decode`]); a side that cannot be decoded gives the
//!    metric's `invalid` score ([`JsonMetric::undecodable`]);
//! 2. **compare** them with the engine ([`JsonMetric::compare`]), gathering
//!    the per-field tallies when the metric was built for a run;
//! 3. **present**: the metric's formula turns the comparison into its
//!    score; the layer adds the details (the kept records), the decode
//!    decisions (`metadata.decode`, with the keys a side's text repeated,
//!    for a side that was a value already too) and the field tallies.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::BuildContext;
use super::options::Opts;
use super::registry::MetricSpec;
use crate::decode::{DecodeOptions, Method, Mode, decode, record_value};
use crate::detail::Detail;
use crate::duplicate_keys::DuplicateKeys;
use crate::engine::{self, Comparison, Keep, Rules};
use crate::error::{ConfigError, EvalError};
use crate::evaluator::{EvalInput, Evaluation, InputSpec, InputType, TreeInput};
use crate::extract::Pick;
use crate::score::Score;
use crate::tree::{Node, Tree};

/// The inputs of a JSON metric that compares two documents.
pub(crate) const PAIR: &[InputSpec] = &[
    InputSpec::required("output", InputType::Json, "the model's JSON, or text holding it"),
    InputSpec::required("reference", InputType::Json, "the expected JSON"),
];

/// What the layer needs to know besides the metric's formula: how inputs
/// are decoded, which records are kept, and whether field tallies are
/// gathered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct JsonSettings {
    /// The decode options (`decode`, `repair`, `pick`).
    pub decode: DecodeOptions,
    /// Which compared nodes become details (`details`).
    pub keep: Keep,
    /// Whether per-field tallies are gathered (set by the build context).
    pub fields: bool,
}

impl JsonSettings {
    /// Reads the shared JSON options (`decode`, `repair`, `pick`,
    /// `details`) and the build context's field tallies.
    pub(crate) fn from_opts(o: &Opts<'_>, ctx: &BuildContext) -> Result<Self, ConfigError> {
        let keep = match o.choice("details", &["failed", "all", "none"], "failed")?.as_str() {
            "all" => Keep::All,
            "none" => Keep::None,
            _ => Keep::Failed,
        };
        Ok(JsonSettings { decode: decode_options(o)?, keep, fields: ctx.field_tallies })
    }
}

/// Reads `decode`, `repair` and `pick`.
fn decode_options(o: &Opts<'_>) -> Result<DecodeOptions, ConfigError> {
    let mode = match o.choice("decode", &["auto", "json", "value"], "auto")?.as_str() {
        "json" => Mode::Json,
        "value" => Mode::Value,
        _ => Mode::Auto,
    };
    Ok(DecodeOptions { mode, repair: o.bool("repair", false)?, pick: pick_option(o)? })
}

/// Reads `pick`: which document to take when a text holds several.
pub(crate) fn pick_option(o: &Opts<'_>) -> Result<Pick, ConfigError> {
    Ok(match o.choice("pick", &["first", "last", "only"], "first")?.as_str() {
        "last" => Pick::Last,
        "only" => Pick::Only,
        _ => Pick::First,
    })
}

/// A decoded pair ready to compare: nodes of the inputs' own trees, or of
/// trees of the decoded documents.
#[derive(Clone, Copy)]
pub(crate) struct Pair<'v> {
    /// The output document.
    pub(crate) output: Node<'v>,
    /// The reference document.
    pub(crate) reference: Node<'v>,
}

/// What [`JsonMetric::prepare`] decided.
pub(crate) enum Prepared {
    /// Compare the pair as it is.
    Compare,
    /// Give this score instead of comparing.
    Score(Score),
    /// Compare these documents instead (a preset's canonical form).
    Replace {
        /// The output to compare.
        output: Value,
        /// The reference to compare.
        reference: Value,
    },
}

/// A JSON metric: a policy and a score formula over the shared layer.
pub(crate) trait JsonMetric: Rules + Send + Sync {
    /// The metric's declaration.
    fn spec(&self) -> &'static MetricSpec;

    /// Its decode, details and tally settings.
    fn settings(&self) -> &JsonSettings;

    /// Whether the reference is decoded before the output, so that of two
    /// undecodable inputs the reference is the one named (Phoenix's
    /// pre-built evaluator parses `expected` first).
    fn reference_first(&self) -> bool {
        false
    }

    /// The score when an input cannot be decoded (or compared): `invalid`,
    /// with the reason (naming the input) as explanation. `reference` is
    /// the decoded reference when only the output failed.
    fn undecodable(&self, reason: &str, _reference: Option<Node<'_>>) -> Score {
        Score::invalid(self.spec().name, reason).with_direction(self.spec().direction)
    }

    /// Looks at the decoded pair before comparison: compare it, give a
    /// score instead, or compare other documents (a preset's canonical
    /// form, say).
    ///
    /// # Errors
    /// An input the metric cannot use at all.
    fn prepare(&self, _pair: Pair<'_>, _output: Method) -> Result<Prepared, EvalError> {
        Ok(Prepared::Compare)
    }

    /// A per-row weight tree (JSON Difference weights), if any: a JSON
    /// input, read through [`decode`] like the output and the reference.
    ///
    /// # Errors
    /// The row's weights cannot be used.
    fn weights<'i>(&self, _input: &'i EvalInput<'_>) -> Result<Option<Cow<'i, Value>>, EvalError> {
        Ok(None)
    }

    /// Compares the pair (the engine walk, unless the metric compares
    /// parts of the documents). `Err` is a reason for an `invalid` score.
    fn compare(&self, pair: Pair<'_>, weights: Option<&Value>) -> Result<Comparison, String> {
        let s = self.settings();
        Ok(engine::compare_nodes(self, pair.reference, pair.output, weights, s.keep, s.fields))
    }

    /// The score formula: the main score from the comparison, its details
    /// (which the layer then attaches) and the compared pair.
    fn present(&self, c: &Comparison, details: &[Detail], pair: Pair<'_>) -> Score;

    /// Configuration warnings only a run reveals.
    fn warnings(&self) -> Vec<String> {
        Vec::new()
    }
}

/// Runs the layer for one input given as values.
pub(crate) fn evaluate<M: JsonMetric + ?Sized>(
    m: &M,
    input: &EvalInput<'_>,
) -> Result<Evaluation, EvalError> {
    let output = Tree::from_value(input.require("output")?);
    let reference = Tree::from_value(input.require("reference")?);
    let keys = Keys {
        output: input.duplicate_keys("output").cloned(),
        reference: input.duplicate_keys("reference").cloned(),
    };
    run(m, Pair { output: output.root(), reference: reference.root() }, keys, input)
}

/// Runs the layer for one input given as nodes of a parsed row; other
/// inputs than the pair (weights) are read as values.
pub(crate) fn evaluate_tree<M: JsonMetric + ?Sized>(
    m: &M,
    input: &TreeInput<'_>,
) -> Result<Evaluation, EvalError> {
    input.check(m.spec().inputs)?;
    let need = |name: &str| {
        input.get(name).ok_or_else(|| EvalError::MissingInput { input: name.to_owned() })
    };
    let pair = Pair { output: need("output")?, reference: need("reference")? };
    let keys = Keys {
        output: DuplicateKeys::of(pair.output),
        reference: DuplicateKeys::of(pair.reference),
    };
    let rest = input.to_values(&["output", "reference"]);
    let result = run(m, pair, keys, &rest);
    rest.release();
    result
}

/// The keys the text of each side repeated, for a side that is a value
/// (a string side's own text is decoded, and says so itself).
struct Keys {
    output: Option<DuplicateKeys>,
    reference: Option<DuplicateKeys>,
}

/// A side decoded: `None` when the node is used as it is, else the
/// decoded document and the decision's record.
type DecodedSide = Option<(Value, Method, Value)>;

/// Decodes one side ([`crate::decode`]): only strings need it.
fn decode_side(node: Node<'_>, opts: &DecodeOptions) -> Result<DecodedSide, String> {
    let Some(text) = node.as_str() else { return Ok(None) };
    let v = Value::String(text.to_owned());
    let d = decode(&v, opts)?;
    let (method, record) = (d.method, d.record());
    Ok(Some((d.value.into_owned(), method, record)))
}

/// Decode → compare → present for a pair of nodes.
fn run<M: JsonMetric + ?Sized>(
    m: &M,
    input: Pair<'_>,
    keys: Keys,
    values: &EvalInput<'_>,
) -> Result<Evaluation, EvalError> {
    let opts = &m.settings().decode;
    let mut decoded = Map::new();
    // Decoded first by a metric that names an undecodable reference first.
    let early = if m.reference_first() {
        match decode_side(input.reference, opts) {
            Ok(d) => Some(d),
            Err(e) => {
                let score = m.undecodable(&format!("reference: {e}"), None);
                return Ok(finish(score, engine::FieldTallies::default(), decoded));
            }
        }
    } else {
        None
    };
    let out = match decode_side(input.output, opts) {
        Ok(d) => d,
        Err(e) => {
            let reason = format!("output: {e}");
            let reference = match early {
                Some(d) => Ok(d),
                None => decode_side(input.reference, opts),
            };
            let score = match reference {
                Ok(Some((r, _, _))) => {
                    let s = m.undecodable(&reason, Some(Tree::from_value(&r).root()));
                    crate::json::drop_deep(r);
                    s
                }
                Ok(None) => m.undecodable(&reason, Some(input.reference)),
                Err(_) => m.undecodable(&reason, None),
            };
            return Ok(finish(score, engine::FieldTallies::default(), decoded));
        }
    };
    let mut method = Method::Value;
    if let Some((_, mo, record)) = &out {
        if *mo != Method::Value {
            decoded.insert(String::from("output"), record.clone());
        }
        method = *mo;
    } else if let Some(k) = &keys.output {
        decoded.insert(String::from("output"), record_value(k));
    }
    let refd = match early.map_or_else(|| decode_side(input.reference, opts), Ok) {
        Ok(d) => d,
        Err(e) => {
            release(out);
            let score = m.undecodable(&format!("reference: {e}"), None);
            return Ok(finish(score, engine::FieldTallies::default(), decoded));
        }
    };
    match (&refd, &keys.reference) {
        (Some((_, mr, record)), _) if *mr != Method::Value => {
            decoded.insert(String::from("reference"), record.clone());
        }
        (None, Some(k)) => {
            decoded.insert(String::from("reference"), record_value(k));
        }
        _ => {}
    }
    let (out_tree, ref_tree) = (
        out.as_ref().map(|(v, _, _)| Tree::from_value(v)),
        refd.as_ref().map(|(v, _, _)| Tree::from_value(v)),
    );
    let pair = Pair {
        output: out_tree.as_ref().map_or(input.output, Tree::root),
        reference: ref_tree.as_ref().map_or(input.reference, Tree::root),
    };
    let result = compare_pair(m, pair, method, values, decoded);
    drop((out_tree, ref_tree));
    release(out);
    release(refd);
    result
}

/// Prepare → compare → present.
fn compare_pair<M: JsonMetric + ?Sized>(
    m: &M,
    pair: Pair<'_>,
    method: Method,
    values: &EvalInput<'_>,
    decoded: Map<String, Value>,
) -> Result<Evaluation, EvalError> {
    let replaced = match m.prepare(pair, method)? {
        Prepared::Compare => None,
        Prepared::Score(score) => {
            return Ok(finish(score, engine::FieldTallies::default(), decoded));
        }
        Prepared::Replace { output, reference } => Some((output, reference)),
    };
    let trees = replaced.as_ref().map(|(o, r)| (Tree::from_value(o), Tree::from_value(r)));
    let pair = trees.as_ref().map_or(pair, |(o, r)| Pair { output: o.root(), reference: r.root() });
    let compared = m.weights(values).map(|w| {
        let c = m.compare(pair, w.as_deref());
        if let Some(Cow::Owned(w)) = w {
            crate::json::drop_deep(w);
        }
        c
    });
    let result = match compared {
        Ok(Ok(mut c)) => {
            let details = c.take_details();
            let mut score = m.present(&c, &details, pair);
            // A comparison the metric calls invalid (an array too large to
            // pair, weights past f64's range) reports no field verdicts:
            // neither details nor field statistics.
            if score.is_invalid() {
                c.fields = engine::FieldTallies::default();
            } else if m.settings().keep != Keep::None {
                score.details = details;
            }
            Ok(finish(score, c.fields, decoded))
        }
        Ok(Err(reason)) => {
            let score = Score::invalid(m.spec().name, reason).with_direction(m.spec().direction);
            Ok(finish(score, engine::FieldTallies::default(), decoded))
        }
        Err(e) => Err(e),
    };
    drop(trees);
    if let Some((o, r)) = replaced {
        crate::json::drop_deep(o);
        crate::json::drop_deep(r);
    }
    result
}

fn finish(
    mut score: Score,
    fields: engine::FieldTallies,
    decoded: Map<String, Value>,
) -> Evaluation {
    if !decoded.is_empty() {
        score.metadata.insert(String::from("decode"), Value::Object(decoded.clone()));
    }
    Evaluation { scores: vec![score], fields, decoded }
}

/// Frees a decoded side without deep recursion.
fn release(side: DecodedSide) {
    if let Some((v, _, _)) = side {
        crate::json::drop_deep(v);
    }
}

/// Implements [`crate::Evaluator`] for JSON metrics through the layer.
macro_rules! json_evaluator {
    ($t:ty) => {
        impl $crate::evaluator::Evaluator for $t {
            fn name(&self) -> &str {
                $crate::metrics::json_metric::JsonMetric::spec(self).name
            }

            fn inputs(&self) -> &[$crate::evaluator::InputSpec] {
                $crate::metrics::json_metric::JsonMetric::spec(self).inputs
            }

            fn direction(&self) -> $crate::score::Direction {
                $crate::metrics::json_metric::JsonMetric::spec(self).direction
            }

            fn compute(
                &self,
                input: &$crate::evaluator::EvalInput<'_>,
            ) -> Result<$crate::evaluator::Evaluation, $crate::error::EvalError> {
                $crate::metrics::json_metric::evaluate(self, input)
            }

            fn evaluate_tree(
                &self,
                input: &$crate::evaluator::TreeInput<'_>,
            ) -> Result<$crate::evaluator::Evaluation, $crate::error::EvalError> {
                $crate::metrics::json_metric::evaluate_tree(self, input)
            }

            fn warnings(&self) -> Vec<String> {
                $crate::metrics::json_metric::JsonMetric::warnings(self)
            }
        }
    };
}
pub(crate) use json_evaluator;

#[cfg(test)]
mod tests {
    use serde_json::{Map, Value, json};

    use crate::evaluator::{EvalInput, Evaluator};
    use crate::metrics::BuildContext;
    use crate::metrics::json_match::JsonMatch;

    /// Weights that add up past f64's range, or that weigh every compared
    /// field 0, give no score: never a guess, never a full match that
    /// hides the mistakes.
    #[test]
    fn weights_past_the_range_or_all_zero_make_the_score_invalid() {
        let ctx = BuildContext::default();
        let with = |rules: Value| {
            let o = json!({"rules": {"rules": rules}});
            JsonMatch::from_options(o.as_object().unwrap(), &ctx).unwrap()
        };
        let (out, reference) = (json!({"t": 1, "items": [1, 2]}), json!({"t": 2, "items": [1, 3]}));
        let score = |m: &JsonMatch| {
            let e = m.evaluate(&EvalInput::pair(out.clone(), reference.clone())).unwrap();
            e.scores[0].clone()
        };
        let s = score(&with(
            json!([{"path": "$.t", "weight": 1e308}, {"path": "$.items", "weight": 1e308}]),
        ));
        assert!(s.is_invalid(), "{s:?}");
        assert!(s.explanation.as_deref().unwrap().contains("multiply or add up past 1e308"));
        for zero in [
            json!([{"path": "$..*", "weight": 0}]),
            json!([{"path": "$.t", "weight": 0}, {"path": "$.items", "weight": 0}]),
        ] {
            let s = score(&with(zero.clone()));
            assert!(s.is_invalid(), "{zero}: {s:?}");
            let why = s.explanation.as_deref().unwrap();
            assert!(why.starts_with("every compared field weighs 0"), "{why}");
        }
        // Some weight left: a score, the weightless fields aside.
        let s = score(&with(json!([{"path": "$.items", "weight": 0}])));
        assert_eq!(s.score, Some(0.0), "{s:?}");
        // Nothing compared at all (two empty documents): a full match.
        let m = with(json!([{"path": "$..*", "weight": 0}]));
        let e = m.evaluate(&EvalInput::pair(json!({}), json!({}))).unwrap();
        assert_eq!(e.scores[0].score, Some(1.0));
    }

    /// An invalid comparison (an array too large to pair by similarity)
    /// reports no field verdicts: no details, no field statistics.
    #[test]
    fn an_invalid_comparison_reports_no_fields() {
        let ctx = BuildContext { field_tallies: true, ..BuildContext::default() };
        let m = JsonMatch::from_options(&Map::new(), &ctx).unwrap();
        let side = |w: &str| -> Value {
            (0..300).map(|i| json!({"v": format!("{w}{i}"), "n": i})).collect::<Vec<_>>().into()
        };
        let e = m.evaluate(&EvalInput::pair(side("out"), side("ref"))).unwrap();
        let s = &e.scores[0];
        assert!(s.is_invalid(), "{s:?}");
        let why = s.explanation.as_deref().unwrap();
        assert!(why.contains("past the limit of 65536"), "{why}");
        assert!(s.details.is_empty(), "{:?}", s.details.len());
        assert!(e.fields.is_empty(), "{:?}", e.fields.len());
        // The rule the explanation advises is one json_match takes, and it
        // pairs the array.
        assert!(why.contains("(`array: by_key, keys: [FIELD]`)"), "{why}");
        let rules = json!({"rules": {"rules": [{"path": "$", "array": "by_key", "keys": ["n"]}]}});
        let keyed = JsonMatch::from_options(rules.as_object().unwrap(), &ctx).unwrap();
        let e = keyed.evaluate(&EvalInput::pair(side("out"), side("ref"))).unwrap();
        assert!(!e.scores[0].is_invalid(), "{:?}", e.scores[0]);
        // A valid one keeps both.
        let e = m.evaluate(&EvalInput::pair(json!({"a": 1}), json!({"a": 2}))).unwrap();
        assert_eq!((e.scores[0].details.len(), e.fields.len()), (1, 1));
    }
}
