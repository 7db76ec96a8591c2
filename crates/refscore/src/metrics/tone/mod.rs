//! `tone`: how the output sounds, against a target profile or the
//! reference, with deterministic heuristics (no judge).
//!
//! Each dimension measures the output on [0, 1] (`formality`,
//! `sentiment`, `assertiveness`, `persona`, `verbosity`). Its
//! target comes from `profile`, else is measured the same way on the
//! `reference` (persona consistency: at least the reference's, else at
//! least 1; verbosity compares lengths with the reference). With `d` the
//! distance (`|measured − target|`, or only the shortfall for one-sided
//! targets, see [`profile`]) and `t` the tolerance:
//!
//! ```text
//! dimension score = clamp(1 − d / (2·t), 0, 1)        passed = d ≤ t
//! ```
//!
//! so a dimension at the edge of the tolerance scores 0.5 and one twice as
//! far scores 0. The score is the weighted average of the dimensions that
//! have a target ([`crate::row_score::weighted_average`]).
//!
//! Options: `dimensions` (list; default every dimension that has a
//! target), `weights` (map, default 1 each), `profile` (see [`profile`]),
//! `tolerance` (in (0, 1], default [`DEFAULT_TOLERANCE`]).

pub(crate) mod analysis;
pub(crate) mod assertiveness;
pub(crate) mod formality;
pub(crate) mod persona;
pub mod profile;
pub(crate) mod sentiment;
pub(crate) mod verbosity;
pub(crate) mod wordlists;

use serde_json::{Map, Value};

use super::BuildContext;
use super::options::Opts;
use super::registry::{MetricSpec, OptionSpec, OptionType};
use crate::detail::{Detail, Outcome, failure_lines};
use crate::error::{ConfigError, EvalError};
use crate::evaluator::{EvalInput, Evaluation, Evaluator, InputSpec, InputType};
use crate::row_score::weighted_average;
use crate::score::{Direction, Kind, Score};
use analysis::Analysed;
use profile::{Dimension, Profile, Side};

/// The declaration of `tone`.
pub const SPEC: MetricSpec = MetricSpec {
    name: "tone",
    description: "formality, sentiment, assertiveness, persona and verbosity against a profile or the reference",
    inputs: &[
        InputSpec::required("output", InputType::Text, "the model's answer"),
        InputSpec::optional("reference", InputType::Text, "an answer in the wanted tone"),
    ],
    options: &[
        OptionSpec::new(
            "dimensions",
            OptionType::List,
            None,
            "dimensions to score (default: every one with a target)",
        ),
        OptionSpec::new("weights", OptionType::Object, None, "weight per dimension (default 1)"),
        OptionSpec::new(
            "profile",
            OptionType::Object,
            None,
            "target per dimension (a number, a range, or a named level)",
        ),
        OptionSpec::new(
            "tolerance",
            OptionType::Number,
            Some("0.2"),
            "how far a measure may be from its target and pass",
        ),
    ],
    json: false,
    kind: Kind::Code,
    direction: Direction::Maximize,
    threshold: Some(0.8),
    extra_scores: &[],
    example: "- metric: tone
  options: {profile: {formality: formal}}",
    build: |o, ctx| Ok(Box::new(Tone::from_options(o, ctx)?) as Box<dyn Evaluator>),
};

/// Default tolerance: how far a measure may be from its target and pass.
pub const DEFAULT_TOLERANCE: f64 = 0.2;

/// The tone metric.
#[derive(Debug, Clone)]
pub struct Tone {
    dimensions: Option<Vec<Dimension>>,
    weights: [f64; 5],
    profile: Profile,
    tolerance: f64,
}

impl Default for Tone {
    fn default() -> Self {
        Tone {
            dimensions: None,
            weights: [1.0; 5],
            profile: Default::default(),
            tolerance: DEFAULT_TOLERANCE,
        }
    }
}

/// One dimension's measurement against its target.
struct Measured {
    dim: Dimension,
    measured: f64,
    target: f64,
    side: Side,
    expected: String,
    actual: String,
}

fn err(key: &str, msg: impl Into<String>) -> ConfigError {
    ConfigError::invalid(format!("metric `tone`, option `{key}`"), msg.into())
}

impl Tone {
    /// From options: `dimensions`, `weights`, `profile`, `tolerance`.
    ///
    /// # Errors
    /// An unknown option or dimension, or a bad value.
    pub fn from_options(
        options: &Map<String, Value>,
        ctx: &BuildContext,
    ) -> Result<Self, ConfigError> {
        let _ = ctx;
        let o = Opts::for_metric(&SPEC, options)?;
        let mut tone = Tone::default();
        if let Some(v) = o.value("dimensions") {
            let names: Vec<&Value> = match v {
                Value::Array(items) => items.iter().collect(),
                single => vec![single],
            };
            let mut dims = Vec::new();
            for n in names {
                let d = n
                    .as_str()
                    .and_then(Dimension::parse)
                    .ok_or_else(|| err("dimensions", format!("unknown dimension {n}")))?;
                if !dims.contains(&d) {
                    dims.push(d);
                }
            }
            tone.dimensions = Some(dims);
        }
        if let Some(v) = o.value("weights") {
            let map = v
                .as_object()
                .ok_or_else(|| err("weights", "expected a map of dimension to weight"))?;
            for (k, w) in map {
                let d = Dimension::parse(k)
                    .ok_or_else(|| err("weights", format!("unknown dimension `{k}`")))?;
                let w = w.as_f64().filter(|w| w.is_finite() && *w >= 0.0).ok_or_else(|| {
                    err("weights", format!("{k}: expected a number ≥ 0, got {w}"))
                })?;
                if let Some(pos) = Dimension::ALL.iter().position(|x| *x == d) {
                    tone.weights[pos] = w;
                }
            }
        }
        if let Some(v) = o.value("profile") {
            tone.profile = profile::parse(v).map_err(|m| err("profile", m))?;
        }
        tone.tolerance = o.number("tolerance", DEFAULT_TOLERANCE)?;
        if !(tone.tolerance > 0.0 && tone.tolerance <= 1.0) {
            return Err(err("tolerance", format!("must be in (0, 1], got {}", tone.tolerance)));
        }
        o.finish()?;
        Ok(tone)
    }

    fn weight(&self, d: Dimension) -> f64 {
        Dimension::ALL
            .iter()
            .position(|x| *x == d)
            .and_then(|i| self.weights.get(i))
            .copied()
            .unwrap_or(1.0)
    }

    /// Measures `d` on the output against its target, if it has one.
    fn measure(
        &self,
        d: Dimension,
        out: &Analysed,
        reference: Option<&Analysed>,
    ) -> Option<Measured> {
        let target = profile::get(&self.profile, d);
        let named = |t: &profile::Target| {
            let bound = match t.side {
                Side::AtMost => "at most ",
                Side::AtLeast => "at least ",
                Side::Both => "",
            };
            match &t.name {
                Some(n) => format!("{bound}{:.2} ({n})", t.value),
                None => format!("{:.2}", t.value),
            }
        };
        let simple = |f: fn(&[analysis::Sentence]) -> Option<f64>| -> Option<Measured> {
            let measured = f(&out.sentences)?;
            let (value, side, expected) = match target {
                Some(t) => (t.value, t.side, named(t)),
                None => {
                    let v = f(&reference?.sentences)?;
                    (v, Side::Both, format!("{v:.2} (measured on reference)"))
                }
            };
            Some(Measured {
                dim: d,
                measured,
                target: value,
                side,
                expected,
                actual: format!("{measured:.2}"),
            })
        };
        match d {
            Dimension::Formality => simple(formality::measure),
            Dimension::Sentiment => simple(sentiment::measure),
            Dimension::Assertiveness => simple(assertiveness::measure),
            Dimension::PersonaConsistency => {
                let (measured, n) = persona::measure(&out.sentences);
                // Default: at least as consistent as the reference, else 1.
                let (value, side, expected) = match (target, reference) {
                    (Some(t), _) => (t.value, t.side, named(t)),
                    (None, Some(r)) if r.word_count() > 0 => {
                        let v = persona::measure(&r.sentences).0;
                        (v, Side::AtLeast, format!("at least {v:.2} (measured on reference)"))
                    }
                    _ => (1.0, Side::AtLeast, String::from("1.00 (consistent)")),
                };
                let plural = if n == 1 { "" } else { "s" };
                Some(Measured {
                    dim: d,
                    measured,
                    target: value,
                    side,
                    expected,
                    actual: format!("{measured:.2} over {n} sentence{plural}"),
                })
            }
            Dimension::Verbosity => {
                let (measured, side, expected) = match (target, reference) {
                    (Some(t), _) => {
                        let name = t.name.as_deref().map(|n| format!(" ({n})")).unwrap_or_default();
                        let bound = match t.side {
                            Side::AtMost => "at most ",
                            Side::AtLeast => "at least ",
                            Side::Both => "",
                        };
                        (
                            verbosity::against_target(out, t.value),
                            t.side,
                            format!("{bound}{:.1} words per sentence{name}", t.value),
                        )
                    }
                    (None, Some(r)) if r.word_count() > 0 => (
                        verbosity::against_reference(out, r),
                        Side::Both,
                        format!("reference: {}", verbosity::describe(r)),
                    ),
                    _ => return None,
                };
                Some(Measured {
                    dim: d,
                    measured,
                    target: 0.5,
                    side,
                    expected,
                    actual: verbosity::describe(out),
                })
            }
        }
    }

    /// Scores an output text against an optional reference text.
    pub fn score_texts(&self, output: &str, reference: Option<&str>) -> Score {
        let out = Analysed::of(output);
        if out.word_count() == 0 {
            return Score::invalid(SPEC.name, "tone: the output has no words to measure");
        }
        let reference = reference.map(Analysed::of);
        let explicit = self.dimensions.is_some();
        let dims = self.dimensions.clone().unwrap_or_else(|| Dimension::ALL.to_vec());
        let mut details = Vec::new();
        let mut items = Vec::new();
        let mut parts = Vec::new();
        let mut measured_meta = Map::new();
        let mut skipped = Vec::new();
        for d in dims {
            let check = format!("tone.{}", d.name());
            let Some(m) = self.measure(d, &out, reference.as_ref()) else {
                if explicit {
                    details.push(Detail::new(check, Outcome::Fail).message(format!(
                        "not measured: no target (set profile.{} or give a reference)",
                        d.name()
                    )));
                } else {
                    skipped.push(Value::from(d.name()));
                }
                continue;
            };
            let dist = m.side.distance(m.measured, m.target);
            let score = (1.0 - dist / (2.0 * self.tolerance)).clamp(0.0, 1.0);
            let passed = dist <= self.tolerance + 1e-9;
            let message = format!(
                "{} {:.2} from target (tolerance {:.2})",
                if passed { "within" } else { "off by" },
                dist,
                self.tolerance
            );
            details.push(
                Detail::new(check, if passed { Outcome::Pass } else { Outcome::Fail })
                    .expected(&m.expected)
                    .actual(&m.actual)
                    .score(score)
                    .message(message),
            );
            items.push((score, self.weight(m.dim)));
            parts.push(format!("{} {score:.2}", d.name()));
            measured_meta.insert(d.name().to_owned(), Value::from(m.measured));
        }
        let Some(total) = weighted_average(&items) else {
            let why = if items.is_empty() {
                "tone: no dimension could be measured; give a profile or a reference"
            } else {
                "tone: every measured dimension has weight 0"
            };
            let mut s = Score::invalid(SPEC.name, why);
            s.details = details;
            return s;
        };
        let pass = details.iter().all(|d| d.passed);
        let mut lines = vec![format!(
            "Tone: {total:.2} over {} dimensions ({})",
            items.len(),
            parts.join(", ")
        )];
        lines.extend(failure_lines(&details));
        let mut s = Score::new(SPEC.name, Some(total))
            .with_label(if pass { "pass" } else { "fail" })
            .with_explanation(lines.join("\n"))
            .with_meta("measured", measured_meta)
            .with_meta("tolerance", self.tolerance);
        if !skipped.is_empty() {
            s = s.with_meta("skipped", skipped);
        }
        s.details = details;
        s
    }
}

/// Text of an input: a string as is, anything else as compact JSON.
fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => crate::json::compact(other),
    }
}

impl Evaluator for Tone {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn inputs(&self) -> &[InputSpec] {
        SPEC.inputs
    }

    fn compute(&self, input: &EvalInput) -> Result<Evaluation, EvalError> {
        let output = text_of(input.require("output")?);
        let reference = input.get("reference").filter(|v| !v.is_null()).map(text_of);
        Ok(Evaluation::one(self.score_texts(&output, reference.as_deref())))
    }
}

#[cfg(test)]
mod tests;
