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
//!    decisions (`metadata.decode`) and the field tallies.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::BuildContext;
use super::options::Opts;
use super::registry::MetricSpec;
use crate::decode::{DecodeOptions, Decoded, Method, Mode, decode};
use crate::detail::Detail;
use crate::engine::{self, Comparison, Keep, Rules};
use crate::error::{ConfigError, EvalError};
use crate::evaluator::{EvalInput, Evaluation, InputSpec, InputType};
use crate::extract::Pick;
use crate::score::Score;

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

/// A decoded pair ready to compare.
pub(crate) struct Pair<'v> {
    /// The output document.
    pub(crate) output: Cow<'v, Value>,
    /// The reference document.
    pub(crate) reference: Cow<'v, Value>,
}

impl Pair<'_> {
    /// Drops both values without deep recursion.
    pub(crate) fn release(self) {
        for v in [self.output, self.reference] {
            if let Cow::Owned(v) = v {
                crate::json::drop_deep(v);
            }
        }
    }
}

/// A JSON metric: a policy and a score formula over the shared layer.
pub(crate) trait JsonMetric: Rules + Send + Sync {
    /// The metric's declaration.
    fn spec(&self) -> &'static MetricSpec;

    /// Its decode, details and tally settings.
    fn settings(&self) -> &JsonSettings;

    /// The score when an input cannot be decoded (or compared): `invalid`,
    /// with the reason (naming the input) as explanation. `reference` is
    /// the decoded reference when only the output failed.
    fn undecodable(&self, reason: &str, _reference: Option<&Value>) -> Score {
        Score::invalid(self.spec().name, reason).with_direction(self.spec().direction)
    }

    /// Adjusts the decoded pair before comparison (a preset's canonical
    /// form, say). `Ok(Some(score))` gives that score instead of comparing.
    ///
    /// # Errors
    /// An input the metric cannot use at all.
    fn prepare(&self, _pair: &mut Pair<'_>, _output: Method) -> Result<Option<Score>, EvalError> {
        Ok(None)
    }

    /// A per-row weight tree (JSON Difference weights), if any.
    ///
    /// # Errors
    /// The row's weights cannot be used.
    fn weights<'i>(&self, _input: &'i EvalInput<'_>) -> Result<Option<&'i Value>, EvalError> {
        Ok(None)
    }

    /// Compares the pair (the engine walk, unless the metric compares
    /// parts of the documents). `Err` is a reason for an `invalid` score.
    fn compare(&self, pair: &Pair<'_>, weights: Option<&Value>) -> Result<Comparison, String> {
        let s = self.settings();
        Ok(engine::compare(self, &pair.reference, &pair.output, weights, s.keep, s.fields))
    }

    /// The score formula: the main score from the comparison, its details
    /// (which the layer then attaches) and the compared pair.
    fn present(&self, c: &Comparison, details: &[Detail], pair: &Pair<'_>) -> Score;

    /// Configuration warnings only a run reveals.
    fn warnings(&self) -> Vec<String> {
        Vec::new()
    }
}

/// Runs the layer for one input.
pub(crate) fn evaluate<M: JsonMetric + ?Sized>(
    m: &M,
    input: &EvalInput<'_>,
) -> Result<Evaluation, EvalError> {
    let output = input.require("output")?;
    let reference = input.require("reference")?;
    let opts = &m.settings().decode;
    let mut decoded = Map::new();
    let mut note = |name: &str, d: &Decoded<'_>| {
        if d.method != Method::Value {
            decoded.insert(name.to_owned(), d.record());
        }
    };
    let (out, method) = match decode(output, opts) {
        Ok(d) => {
            note("output", &d);
            (d.value, d.method)
        }
        Err(e) => {
            let reason = format!("output: {e}");
            let score = match decode(reference, opts) {
                Ok(r) => {
                    let s = m.undecodable(&reason, Some(&r.value));
                    r.release();
                    s
                }
                Err(_) => m.undecodable(&reason, None),
            };
            return Ok(finish(score, Vec::new(), decoded));
        }
    };
    let refv = match decode(reference, opts) {
        Ok(d) => {
            note("reference", &d);
            d.value
        }
        Err(e) => {
            release(out);
            let score = m.undecodable(&format!("reference: {e}"), None);
            return Ok(finish(score, Vec::new(), decoded));
        }
    };
    let mut pair = Pair { output: out, reference: refv };
    match m.prepare(&mut pair, method) {
        Ok(None) => {}
        Ok(Some(score)) => {
            pair.release();
            return Ok(finish(score, Vec::new(), decoded));
        }
        Err(e) => {
            pair.release();
            return Err(e);
        }
    }
    let compared = m.weights(input).map(|w| m.compare(&pair, w));
    let c = match compared {
        Ok(Ok(c)) => c,
        Ok(Err(reason)) => {
            let score = Score::invalid(m.spec().name, reason).with_direction(m.spec().direction);
            pair.release();
            return Ok(finish(score, Vec::new(), decoded));
        }
        Err(e) => {
            pair.release();
            return Err(e);
        }
    };
    let mut c = c;
    let details: Vec<Detail> =
        std::mem::take(&mut c.records).into_iter().map(engine::Record::into_detail).collect();
    let mut score = m.present(&c, &details, &pair);
    pair.release();
    if m.settings().keep != Keep::None {
        score.details = details;
    }
    Ok(finish(score, c.fields, decoded))
}

fn finish(
    mut score: Score,
    fields: Vec<engine::FieldTally>,
    decoded: Map<String, Value>,
) -> Evaluation {
    if !decoded.is_empty() {
        score.metadata.insert(String::from("decode"), Value::Object(decoded.clone()));
    }
    Evaluation { scores: vec![score], fields, decoded }
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

            fn warnings(&self) -> Vec<String> {
                $crate::metrics::json_metric::JsonMetric::warnings(self)
            }
        }
    };
}
pub(crate) use json_evaluator;

/// Drops a borrowed-or-owned value without deep recursion.
pub(crate) fn release(v: Cow<'_, Value>) {
    if let Cow::Owned(v) = v {
        crate::json::drop_deep(v);
    }
}
