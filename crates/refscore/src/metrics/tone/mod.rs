//! `tone`: how the output sounds, against a target profile or the
//! reference, measured by deterministic heuristics or rated by an LLM
//! judge (`method: judge`).
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
//! With `method: judge` the measures (and the targets taken from the
//! reference) are the judge's ratings (`judged`), scored by the same
//! formula; a verbosity target in words per sentence from the profile is
//! still counted. When the suite has no judge, or (with `fallback:
//! heuristic`) the judgement fails, the heuristics score the row; metadata
//! `method` says which and `fallback_reason` why.
//!
//! Options: `dimensions` (list; default every dimension that has a
//! target), `weights` (map, default 1 each), `profile` (see [`profile`]),
//! `tolerance` (in (0, 1], default [`DEFAULT_TOLERANCE`]), `method`
//! (`heuristic` | `judge`), `fallback` (`heuristic` | `fail`) and the
//! judge options `judge`, `judge_mode`, `explanation`, `system`.

pub(crate) mod analysis;
pub(crate) mod assertiveness;
pub(crate) mod formality;
pub(crate) mod judged;
pub(crate) mod persona;
pub mod profile;
pub(crate) mod sentiment;
pub(crate) mod verbosity;
pub(crate) mod wordlists;

use std::sync::Arc;

use serde_json::{Map, Value};

use super::BuildContext;
use super::classify::{JUDGE_OPTIONS, JudgeOptions};
use super::factuality::{FALLBACK_OPTION, Fallback, JUDGE_MODE_OPTION};
use super::options::Opts;
use super::registry::{MetricSpec, OptionSpec, OptionType};
use crate::detail::{Detail, Outcome, push_failure_lines};
use crate::error::{ConfigError, EvalError};
use crate::evaluator::{EvalInput, Evaluation, Evaluator, InputSpec, InputType};
use crate::row_score::weighted_average;
use crate::score::{Direction, Kind, Score};
use analysis::Analysed;
use judged::{Rated, Ratings, ToneJudge};
use profile::{Dimension, Profile, Side, Target};

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
        OptionSpec::new(
            "method",
            OptionType::Choice(&["heuristic", "judge"]),
            Some("heuristic"),
            "heuristic: word lists and counts; judge: the LLM judge rates each dimension from 0 to 1",
        ),
        FALLBACK_OPTION,
        JUDGE_OPTIONS[0],
        JUDGE_MODE_OPTION,
        JUDGE_OPTIONS[1],
        JUDGE_OPTIONS[3],
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

/// Sends one rating request (prompt, reply schema) for `method: judge`.
type AskRatings<'a> = dyn FnMut(&str, &Value) -> Result<Rated, EvalError> + 'a;

/// The tone metric.
#[derive(Debug, Clone)]
pub struct Tone {
    dimensions: Option<Vec<Dimension>>,
    weights: [f64; 5],
    profile: Profile,
    tolerance: f64,
    /// `method: judge`.
    use_judge: bool,
    fallback: Fallback,
    /// The judge of `method: judge`, when the suite has one.
    judge: Option<Arc<ToneJudge>>,
}

impl Default for Tone {
    fn default() -> Self {
        Tone {
            dimensions: None,
            weights: [1.0; 5],
            profile: Default::default(),
            tolerance: DEFAULT_TOLERANCE,
            use_judge: false,
            fallback: Fallback::Heuristic,
            judge: None,
        }
    }
}

/// Where the measure of a dimension comes from with `method: judge`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    /// The judge rates the output; the target is the profile's (or, for
    /// persona consistency without reference, at least 1).
    Output,
    /// The judge rates the output and the reference; the target is the
    /// reference's rating.
    Both,
    /// Counted as the heuristic does (a verbosity target in words per
    /// sentence).
    Counted,
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
    /// From options: `dimensions`, `weights`, `profile`, `tolerance`,
    /// `method`, `fallback` and the judge options (`judge`, `judge_mode`,
    /// `explanation`, `system`).
    ///
    /// # Errors
    /// An unknown option or dimension, or a bad value; with `method:
    /// judge`, a judge name the suite does not define, or `fallback: fail`
    /// in a suite without judges.
    pub fn from_options(
        options: &Map<String, Value>,
        ctx: &BuildContext,
    ) -> Result<Self, ConfigError> {
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
        tone.use_judge = o.choice("method", &["heuristic", "judge"], "heuristic")? == "judge";
        tone.fallback = Fallback::read(&o, tone.use_judge, ctx)?;
        if let Some(j) = JudgeOptions::read_optional(&o, ctx, "judge_mode", tone.use_judge)? {
            let caller = ctx.evaluator.clone().unwrap_or_else(|| SPEC.name.to_owned());
            tone.judge = Some(Arc::new(ToneJudge::new(j, caller)));
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
        let named = describe_target;
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
                Some(Measured {
                    dim: d,
                    measured,
                    target: value,
                    side,
                    expected,
                    actual: format!(
                        "{measured:.2} over {}",
                        crate::text::counted(n as u64, "sentence", "sentences")
                    ),
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

    /// Scores an output text against an optional reference text with
    /// the heuristics (no judge). With `method: judge` this is the
    /// fallback's score, marked `method: heuristic` with a
    /// `fallback_reason`.
    pub fn score_texts(&self, output: &str, reference: Option<&str>) -> Score {
        match self.score_with(output, reference, None) {
            Ok(s) => s,
            // Without a judge nothing can fail; kept total all the same.
            Err(e) => Score::invalid(SPEC.name, e.to_string()),
        }
    }

    /// The score of one row. `ask` sends one judge request (prompt and
    /// reply schema) for `method: judge`; without it the heuristics score
    /// the row.
    ///
    /// # Errors
    /// A failed or unusable judgement with `fallback: fail`.
    fn score_with(
        &self,
        output: &str,
        reference: Option<&str>,
        ask: Option<&mut AskRatings<'_>>,
    ) -> Result<Score, EvalError> {
        let out = Analysed::of(output);
        if out.word_count() == 0 {
            return Ok(Score::invalid(SPEC.name, "tone: the output has no words to measure"));
        }
        let analysed = reference.map(Analysed::of);
        let heuristic = || {
            self.score_measures(|d| self.measure(d, &out, analysed.as_ref()))
                .with_meta("method", "heuristic")
        };
        if !self.use_judge {
            return Ok(heuristic());
        }
        let Some(ask) = ask else {
            let why = if self.judge.is_none() {
                "no judge is configured"
            } else {
                "scored without the judge"
            };
            return Ok(fell_back(heuristic(), why));
        };
        match self.judge_row(output, reference, &out, analysed.as_ref(), ask) {
            Ok(s) => Ok(s),
            Err(e) if self.fallback == Fallback::Heuristic => {
                Ok(fell_back(heuristic(), &e.to_string()))
            }
            Err(e) => Err(e),
        }
    }

    /// Where the judge path takes the measure of `d` from (`None`: no
    /// target).
    fn source(&self, d: Dimension, has_reference: bool) -> Option<Source> {
        match profile::get(&self.profile, d) {
            Some(_) if d == Dimension::Verbosity => Some(Source::Counted),
            Some(_) => Some(Source::Output),
            None if has_reference => Some(Source::Both),
            None if d == Dimension::PersonaConsistency => Some(Source::Output),
            None => None,
        }
    }

    /// The measure of `d` against its target from the judge's ratings.
    fn measure_judged(
        &self,
        d: Dimension,
        source: Option<Source>,
        ratings: &Ratings,
        out: &Analysed,
        reference: Option<&Analysed>,
    ) -> Option<Measured> {
        let measured = match source? {
            Source::Counted => return self.measure(d, out, reference),
            Source::Output | Source::Both => ratings.output(d)?,
        };
        let persona = d == Dimension::PersonaConsistency;
        let (target, side, expected) = match (source?, profile::get(&self.profile, d)) {
            (Source::Output, Some(t)) => (t.value, t.side, describe_target(t)),
            (Source::Output, None) => (1.0, Side::AtLeast, String::from("1.00 (consistent)")),
            (_, _) => {
                let r = ratings.reference(d)?;
                if persona {
                    (r, Side::AtLeast, format!("at least {r:.2} (judged on reference)"))
                } else {
                    (r, Side::Both, format!("{r:.2} (judged on reference)"))
                }
            }
        };
        Some(Measured {
            dim: d,
            measured,
            target,
            side,
            expected,
            actual: format!("{measured:.2}"),
        })
    }

    /// `method: judge`: one request rating the wanted dimensions, then
    /// the shared formula.
    ///
    /// # Errors
    /// The request failed, or the reply is unusable (a missing dimension,
    /// a value outside [0, 1]).
    fn judge_row(
        &self,
        output: &str,
        reference: Option<&str>,
        out: &Analysed,
        analysed: Option<&Analysed>,
        ask: &mut AskRatings<'_>,
    ) -> Result<Score, EvalError> {
        let has_reference = analysed.is_some_and(|r| r.word_count() > 0);
        let plan: Vec<(Dimension, Option<Source>)> =
            self.wanted().into_iter().map(|d| (d, self.source(d, has_reference))).collect();
        let rated_on = |which: &[Source]| -> Vec<Dimension> {
            plan.iter()
                .filter(|(_, s)| s.is_some_and(|s| which.contains(&s)))
                .map(|(d, _)| *d)
                .collect()
        };
        let on_output = rated_on(&[Source::Output, Source::Both]);
        let on_reference = rated_on(&[Source::Both]);
        let counted = rated_on(&[Source::Counted]);
        let explanation = self.judge.as_ref().is_none_or(|j| j.explanation());
        let (ratings, rated) =
            if on_output.is_empty() {
                (Ratings::default(), None)
            } else {
                let schema = judged::schema(&on_output, &on_reference, explanation);
                let prompt = judged::prompt(output, reference, &on_output, &on_reference);
                let rated = ask(&prompt, &schema)?;
                let ratings = judged::read_ratings(&rated.object, &on_output, &on_reference)
                    .map_err(|why| match &self.judge {
                        Some(j) => j.unusable(&why, &rated.object),
                        None => judged::unusable_error("judge", &why, &rated.object),
                    })?;
                (ratings, Some(rated))
            };
        let mut s = self.score_measures(|d| {
            let source = plan.iter().find(|(x, _)| *x == d).and_then(|(_, s)| *s);
            self.measure_judged(d, source, &ratings, out, analysed)
        });
        s = s.with_meta("method", "judge");
        if let Some(j) = &self.judge {
            s = s.with_meta("judge", j.name()).with_meta("model", j.model());
        }
        if let Some(r) = rated {
            s = s
                .with_meta("judge_mode", r.mode)
                .with_meta("cached", r.cached)
                .with_meta("prompt_tokens", r.prompt_tokens)
                .with_meta("completion_tokens", r.completion_tokens);
        }
        if !ratings.reference.is_empty() {
            let m: Map<String, Value> = ratings
                .reference
                .iter()
                .map(|(d, v)| (d.name().to_owned(), Value::from(*v)))
                .collect();
            s = s.with_meta("reference_measured", m);
        }
        if !counted.is_empty() {
            let names: Vec<Value> = counted.iter().map(|d| Value::from(d.name())).collect();
            s = s.with_meta("counted", names);
        }
        if explanation && let Some(e) = &ratings.explanation {
            let text = match s.explanation.take() {
                Some(t) => format!("{t}\nJudge: {e}"),
                None => format!("Judge: {e}"),
            };
            s = s.with_explanation(text);
        }
        s.kind = Kind::Llm;
        Ok(s)
    }

    /// The dimensions asked for (default: all).
    fn wanted(&self) -> Vec<Dimension> {
        self.dimensions.clone().unwrap_or_else(|| Dimension::ALL.to_vec())
    }

    /// The shared formula: each wanted dimension's measure against its
    /// target (`measure`; `None`: no target), then the weighted average.
    fn score_measures(&self, measure: impl Fn(Dimension) -> Option<Measured>) -> Score {
        let explicit = self.dimensions.is_some();
        let dims = self.wanted();
        let mut details = Vec::new();
        let mut items = Vec::new();
        let mut parts = Vec::new();
        let mut measured_meta = Map::new();
        let mut skipped = Vec::new();
        for d in dims {
            let check = format!("tone.{}", d.name());
            let Some(m) = measure(d) else {
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
        let mut explanation =
            format!("Tone: {total:.2} over {} dimensions ({})", items.len(), parts.join(", "));
        push_failure_lines(&mut explanation, &details);
        let mut s = Score::new(SPEC.name, Some(total))
            .with_label(if pass { "pass" } else { "fail" })
            .with_explanation(explanation)
            .with_meta("measured", measured_meta)
            .with_meta("tolerance", self.tolerance);
        if !skipped.is_empty() {
            s = s.with_meta("skipped", skipped);
        }
        s.details = details;
        s
    }
}

/// A profile target as written in details: `at least 0.85 (formal)`.
fn describe_target(t: &Target) -> String {
    let bound = match t.side {
        Side::AtMost => "at most ",
        Side::AtLeast => "at least ",
        Side::Both => "",
    };
    match &t.name {
        Some(n) => format!("{bound}{:.2} ({n})", t.value),
        None => format!("{:.2}", t.value),
    }
}

/// A heuristic score under `method: judge`: `method: heuristic` and the
/// reason.
fn fell_back(s: Score, reason: &str) -> Score {
    let mut s = s.with_meta("method", "heuristic").with_meta("fallback_reason", reason);
    let note = format!("Scored with the heuristic, not the judge: {reason}");
    let text = match s.explanation.take() {
        Some(e) => format!("{e}\n{note}"),
        None => note,
    };
    s.with_explanation(text)
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

    fn kind(&self) -> Kind {
        if self.judge.is_some() { Kind::Llm } else { Kind::Code }
    }

    fn compute(&self, input: &EvalInput) -> Result<Evaluation, EvalError> {
        let output = text_of(input.require("output")?);
        let reference = input.get("reference").filter(|v| !v.is_null()).map(text_of);
        let score = match &self.judge {
            Some(judge) => {
                let mut ask = |prompt: &str, schema: &Value| judge.ask(prompt, schema);
                self.score_with(&output, reference.as_deref(), Some(&mut ask))?
            }
            None => self.score_texts(&output, reference.as_deref()),
        };
        Ok(Evaluation::one(score))
    }
}

#[cfg(test)]
mod tests;
