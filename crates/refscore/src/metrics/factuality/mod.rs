//! `factuality`: whether the output's claims agree with the reference (and
//! optional context), deterministically.
//!
//! * Both `output` and `reference` JSON (after removing a code fence): the
//!   [`json_structural`](super::json_structural) comparison, in any mode.
//! * Otherwise, with `scoring: claims` (default): the output is cut into
//!   claims (`claims`), each claim is matched with the best evidence
//!   passage of the reference and context (`evidence`) and checked for
//!   numbers, dates, negation and entities (`checks`). Score = supported
//!   claims / claims.
//! * With `scoring: overlap`: Regtrace's whole-text n-gram overlap
//!   (`overlap`).
//!
//! Options: `mode` (`strict` | `lenient` | `json_structural`), `depth`
//! (`shallow` | `deep`; no judge exists, so `deep` runs the shallow path
//! and says so), `threshold` (word overlap a passage needs to be evidence,
//! default [`DEFAULT_THRESHOLD`]), `scoring` (`claims` | `overlap`).

pub(crate) mod checks;
pub(crate) mod claims;
pub(crate) mod evidence;
pub(crate) mod overlap;
pub(crate) mod quantities;
pub(crate) mod tokens;

use std::borrow::Cow;
use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::BuildContext;
use super::json_structural::JsonStructural;
use super::options::Opts;
use super::registry::{MetricSpec, OptionSpec, OptionType};
use crate::detail::{Detail, Outcome, failure_lines};
use crate::error::{ConfigError, EvalError};
use crate::evaluator::{EvalInput, Evaluation, Evaluator, InputSpec, InputType};
use crate::score::{Direction, Kind, Score};
use checks::Features;
use evidence::{Passage, Verdict};

/// The declaration of `factuality`.
pub const SPEC: MetricSpec = MetricSpec {
    name: "factuality",
    description: "claims of the output supported, contradicted or unverifiable against the reference and context",
    inputs: &[
        InputSpec::required("output", InputType::Text, "the model's answer"),
        InputSpec::required("reference", InputType::Text, "the expected answer"),
        InputSpec::optional(
            "context",
            InputType::Text,
            "further evidence (text or a list of passages)",
        ),
    ],
    options: &[
        OptionSpec::new(
            "mode",
            OptionType::Choice(&["strict", "lenient", "json_structural"]),
            Some("strict"),
            "strict: unverifiable claims count against; lenient: they do not; json_structural: compare JSON",
        ),
        OptionSpec::new(
            "depth",
            OptionType::Choice(&["shallow", "deep"]),
            Some("shallow"),
            "deep asks an LLM judge per claim; without one it is scored with the shallow heuristic (recorded in metadata)",
        ),
        OptionSpec::new(
            "threshold",
            OptionType::Number,
            Some("0.7"),
            "word overlap a passage needs to count as evidence",
        ),
        OptionSpec::new(
            "scoring",
            OptionType::Choice(&["claims", "overlap"]),
            Some("claims"),
            "claims: share of supported claims; overlap: token overlap",
        ),
    ],
    json: false,
    kind: Kind::Code,
    direction: Direction::Maximize,
    threshold: Some(0.8),
    extra_scores: &[],
    example: "- metric: factuality
  options: {mode: lenient}",
    build: |o, ctx| Ok(Box::new(Factuality::from_options(o, ctx)?) as Box<dyn Evaluator>),
};

/// Default word overlap a passage needs to count as a claim's evidence.
pub const DEFAULT_THRESHOLD: f64 = 0.7;

/// Which claims fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Contradicted and unverifiable claims fail.
    Strict,
    /// Only contradicted claims fail.
    Lenient,
    /// Both sides must be JSON; compared structurally.
    JsonStructural,
}

/// How a text output is scored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scoring {
    /// Claim by claim.
    Claims,
    /// Regtrace's whole-text n-gram overlap.
    Overlap,
}

/// The factuality metric.
#[derive(Debug, Clone)]
pub struct Factuality {
    mode: Mode,
    deep: bool,
    threshold: f64,
    scoring: Scoring,
}

impl Default for Factuality {
    fn default() -> Self {
        Factuality {
            mode: Mode::Strict,
            deep: false,
            threshold: DEFAULT_THRESHOLD,
            scoring: Scoring::Claims,
        }
    }
}

/// One input as text, and as JSON when it is JSON.
struct Side<'a> {
    text: String,
    json: Result<Cow<'a, Value>, String>,
}

impl<'a> Side<'a> {
    fn of(v: &'a Value) -> Side<'a> {
        match v {
            Value::String(s) => Side { text: s.clone(), json: json_answer(v) },
            other => Side { text: crate::json::compact(other), json: Ok(Cow::Borrowed(other)) },
        }
    }
}

/// A text that is a JSON answer: by the decode rule ([`crate::decode`]),
/// the whole text or the one code fence around it is a JSON document. A
/// document found inside prose makes the text prose with JSON in it, which
/// factuality reads as claims.
fn json_answer(v: &Value) -> Result<Cow<'_, Value>, String> {
    use crate::decode::{DecodeOptions, Method, decode};
    let d = decode(v, &DecodeOptions::default())?;
    match d.method {
        Method::Whole | Method::Fence | Method::Value => Ok(d.value),
        _ => {
            d.release();
            Err(String::from("not a JSON document"))
        }
    }
}

impl Factuality {
    /// From options: `mode`, `depth`, `threshold` (in [0, 1]), `scoring`.
    ///
    /// # Errors
    /// An unknown option or a bad value.
    pub fn from_options(
        options: &Map<String, Value>,
        ctx: &BuildContext,
    ) -> Result<Self, ConfigError> {
        let _ = ctx;
        let o = Opts::for_metric(&SPEC, options)?;
        let mode =
            match o.choice("mode", &["strict", "lenient", "json_structural"], "strict")?.as_str() {
                "lenient" => Mode::Lenient,
                "json_structural" => Mode::JsonStructural,
                _ => Mode::Strict,
            };
        let deep = o.choice("depth", &["shallow", "deep"], "shallow")? == "deep";
        let threshold = o.number("threshold", DEFAULT_THRESHOLD)?;
        if !(0.0..=1.0).contains(&threshold) {
            return Err(ConfigError::invalid(
                "metric `factuality`, option `threshold`",
                format!("must be between 0 and 1, got {threshold}"),
            ));
        }
        let scoring = if o.choice("scoring", &["claims", "overlap"], "claims")? == "overlap" {
            Scoring::Overlap
        } else {
            Scoring::Claims
        };
        o.finish()?;
        Ok(Factuality { mode, deep, threshold, scoring })
    }

    /// With another mode.
    #[must_use]
    pub fn with_mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }

    /// With another scoring method.
    #[must_use]
    pub fn with_scoring(mut self, scoring: Scoring) -> Self {
        self.scoring = scoring;
        self
    }

    /// With another support threshold (clamped to [0, 1]; NaN keeps the
    /// current one).
    #[must_use]
    pub fn with_threshold(mut self, threshold: f64) -> Self {
        if !threshold.is_nan() {
            self.threshold = threshold.clamp(0.0, 1.0);
        }
        self
    }

    /// Scores an output against a reference and context items (each a
    /// string or any JSON value).
    pub fn score_values(&self, output: &Value, reference: &Value, context: &[&Value]) -> Score {
        let (out, refv) = (Side::of(output), Side::of(reference));
        let mut invalid = false;
        let mut score = match (&out.json, &refv.json) {
            (Ok(o), Ok(r)) => {
                let mut s = JsonStructural::default().score_values(o, r);
                s.name = SPEC.name.to_owned();
                let pass = s.details.iter().all(|d| d.passed);
                s.with_label(if pass { "pass" } else { "fail" })
                    .with_meta("method", "json_structural")
            }
            (o, r) if self.mode == Mode::JsonStructural => {
                let mut why = Vec::new();
                if let Err(e) = o {
                    why.push(format!("output is not JSON ({e})"));
                }
                if let Err(e) = r {
                    why.push(format!("reference is not JSON ({e})"));
                }
                invalid = true;
                Score::invalid(
                    SPEC.name,
                    format!("mode json_structural needs JSON on both sides: {}", why.join("; ")),
                )
            }
            _ => match self.scoring {
                Scoring::Claims => self.score_claims(&out.text, reference, context),
                Scoring::Overlap => self.score_overlap(&out.text, &refv.text),
            },
        };
        // Parsed documents can be deep: free them without recursion.
        for json in [out.json, refv.json].into_iter().flatten() {
            if let Cow::Owned(v) = json {
                crate::json::drop_deep(v);
            }
        }
        if invalid {
            return score;
        }
        score = score.with_meta("mode", self.mode_name()).with_meta("depth", "shallow");
        if self.deep {
            score = score.with_meta("depth_requested", "deep");
            let note = "Depth `deep` needs an LLM judge, which is not available: scored with the shallow heuristic.";
            let text = match score.explanation.take() {
                Some(e) => format!("{e}\n{note}"),
                None => note.to_owned(),
            };
            score = score.with_explanation(text);
        }
        score
    }

    fn mode_name(&self) -> &'static str {
        match self.mode {
            Mode::Strict => "strict",
            Mode::Lenient => "lenient",
            Mode::JsonStructural => "json_structural",
        }
    }

    fn score_overlap(&self, output: &str, reference: &str) -> Score {
        let o = overlap::overlap(output, reference, self.mode == Mode::Strict);
        let pass = o.score >= self.threshold;
        let bigram = o.bigram.map_or_else(|| String::from("n/a"), |b| format!("{b:.2}"));
        let mut msg = format!("unigram Jaccard {:.2}, bigram Jaccard {bigram}", o.unigram);
        if o.score < o.raw {
            msg.push_str(&format!(", strict penalty {}", overlap::STRICT_PENALTY));
        }
        let detail =
            Detail::new("factuality.overlap", if pass { Outcome::Pass } else { Outcome::Fail })
                .expected(reference)
                .actual(output)
                .score(o.score)
                .message(msg.clone());
        let mut s = Score::new(SPEC.name, Some(o.score))
            .with_label(if pass { "pass" } else { "fail" })
            .with_explanation(format!(
                "Factuality (n-gram overlap): {:.2} ({msg}; threshold {:.2})",
                o.score, self.threshold
            ))
            .with_meta("method", "overlap")
            .with_meta("unigram", o.unigram)
            .with_meta("raw", o.raw);
        if let Some(b) = o.bigram {
            s = s.with_meta("bigram", b);
        }
        s.details = vec![detail];
        s
    }

    fn score_claims(&self, output: &str, reference: &Value, context: &[&Value]) -> Score {
        // Sources: reference first, then each context item.
        let mut sources: Vec<(String, Vec<Vec<String>>)> =
            vec![(String::from("reference"), texts_of(reference))];
        let single = context.len() == 1;
        for (i, c) in context.iter().enumerate() {
            let name = if single { String::from("context") } else { format!("context[{i}]") };
            sources.push((name, texts_of(c)));
        }
        let mut known = BTreeSet::new();
        checks::known_names(output, &mut known);
        for (_, texts) in &sources {
            for t in texts.iter().filter_map(|g| g.first()) {
                checks::known_names(t, &mut known);
            }
        }
        let mut passages: Vec<Passage> = Vec::new();
        for (name, groups) in &sources {
            let more = evidence::passages(groups, name, &known, passages.len());
            passages.extend(more);
        }
        let claims: Vec<(String, Features)> = claims::claims(output)
            .into_iter()
            .map(|c| {
                let f = Features::of(&c, &known);
                (c, f)
            })
            .filter(|(_, f)| !f.is_empty() && !is_courtesy(f))
            .collect();
        let base = Score::new(SPEC.name, None).with_meta("method", "claims");
        if claims.is_empty() {
            let mut s =
                base.with_label("pass").with_explanation("Factuality: no claims in the output");
            s.score = Some(1.0);
            return s.with_meta("claims", 0);
        }
        let (mut supported, mut contradicted, mut unverifiable) = (0usize, 0usize, 0usize);
        let mut details = Vec::with_capacity(claims.len());
        for (i, (text, f)) in claims.iter().enumerate() {
            let check = format!("factuality.claim[{i}]");
            let d = match evidence::judge(f, &passages, self.threshold) {
                Verdict::Supported(p) => {
                    supported += 1;
                    let src = passages.get(p).map_or("reference", |p| p.source.as_str());
                    Detail::new(check, Outcome::Supported)
                        .expected(passages.get(p).map_or("", |p| p.text.as_str()))
                        .message(format!("supported by {src}"))
                }
                Verdict::Contradicted(p, why) => {
                    contradicted += 1;
                    Detail::new(check, Outcome::Contradicted)
                        .expected(passages.get(p).map_or("", |p| p.text.as_str()))
                        .message(why)
                }
                Verdict::Unverifiable(why) => {
                    unverifiable += 1;
                    Detail::new(check, Outcome::Unverifiable)
                        .passed(self.mode == Mode::Lenient)
                        .message(why)
                }
            };
            details.push(d.actual(text));
        }
        let n = claims.len();
        let score = supported as f64 / n as f64;
        let pass = details.iter().all(|d| d.passed);
        let mut lines = vec![format!(
            "Factuality: {supported}/{n} claims supported ({contradicted} contradicted, {unverifiable} unverifiable)"
        )];
        lines.extend(failure_lines(&details));
        let mut s = base
            .with_label(if pass { "pass" } else { "fail" })
            .with_explanation(lines.join("\n"))
            .with_meta("claims", n)
            .with_meta("supported", supported)
            .with_meta("contradicted", contradicted)
            .with_meta("unverifiable", unverifiable);
        s.score = Some(score);
        s.details = details;
        s
    }
}

/// Passage texts of a reference or context value.
fn texts_of(v: &Value) -> Vec<Vec<String>> {
    match v {
        Value::String(s) => match json_answer(v) {
            Ok(j) if crate::json::is_container(&j) => {
                let t = evidence::texts_of_json(&j);
                if let Cow::Owned(j) = j {
                    crate::json::drop_deep(j);
                }
                t
            }
            _ => evidence::texts_of_text(s),
        },
        other => evidence::texts_of_json(other),
    }
}

/// Courtesy sentences (`Thanks!`, `Hope this helps.`) state no fact: a
/// claim whose content words are all courtesy words is skipped.
fn is_courtesy(f: &Features) -> bool {
    const COURTESY: &[&str] = &[
        "anytim",
        "assist",
        "below",
        "breakdown",
        "certainly",
        "cours",
        "feel",
        "follow",
        "free",
        "glad",
        "great",
        "happy",
        "hello",
        "help",
        "hey",
        "hi",
        "hope",
        "know",
        "let",
        "overview",
        "pleas",
        "question",
        "recap",
        "summary",
        "sure",
        "thank",
        "welcom",
    ];
    f.numbers.is_empty()
        && f.dates.is_empty()
        && !f.words.is_empty()
        && f.words.iter().all(|w| COURTESY.binary_search(&w.as_str()).is_ok())
}

impl Evaluator for Factuality {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn inputs(&self) -> &[InputSpec] {
        SPEC.inputs
    }

    fn compute(&self, input: &EvalInput) -> Result<Evaluation, EvalError> {
        let output = input.require("output")?;
        let reference = input.require("reference")?;
        let context: Vec<&Value> = match input.get("context") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items.iter().filter(|v| !v.is_null()).collect(),
            Some(other) => vec![other],
        };
        Ok(Evaluation::one(self.score_values(output, reference, &context)))
    }
}

#[cfg(test)]
mod tests;
