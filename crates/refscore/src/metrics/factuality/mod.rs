//! `factuality`: whether the output's claims agree with the reference (and
//! optional context).
//!
//! * Both `output` and `reference` JSON (after removing a code fence): the
//!   [`json_structural`](super::json_structural) comparison, in any mode
//!   and depth.
//! * Otherwise, with `scoring: claims` (default): the output is cut into
//!   claims (`claims`), each claim is matched with the best evidence
//!   passage of the reference and context (`evidence`) and checked for
//!   numbers, dates, negation and entities (`checks`). Score = supported
//!   claims / claims. Decimal digits of any script are read by value, in
//!   the output and the reference alike (`４５６` is `456`; see `checks`).
//! * With `scoring: overlap`: Regtrace's whole-text n-gram overlap
//!   (`overlap`).
//! * With `depth: deep` and a judge: each claim is judged by the LLM
//!   (`judged`) and the verdicts are scored like the shallow claims. When
//!   the suite has no judge, or (with `fallback: heuristic`) a judgement
//!   fails, the row is scored by the shallow path above; metadata
//!   `method` says which (`judge` or `heuristic`) and `fallback_reason`
//!   why.
//!
//! Options: `mode` (`strict` | `lenient` | `json_structural`), `depth`
//! (`shallow` | `deep`), `threshold` (word overlap a passage needs to be
//! evidence, default [`DEFAULT_THRESHOLD`]), `scoring` (`claims` |
//! `overlap`), and for `deep`: `fallback` (`heuristic` | `fail`) and the
//! judge options `judge`, `judge_mode` (classify's `mode`, renamed),
//! `explanation`, `system`.

pub(crate) mod checks;
pub(crate) mod claims;
pub(crate) mod evidence;
pub(crate) mod judged;
pub(crate) mod overlap;
pub(crate) mod quantities;
pub(crate) mod tokens;

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::BuildContext;
use super::classify::{JUDGE_OPTIONS, JudgeOptions};
use super::json_structural::JsonStructural;
use super::options::Opts;
use super::registry::{MetricSpec, OptionSpec, OptionType};
use crate::detail::{Detail, Outcome, push_failure_lines};
use crate::error::{ConfigError, EvalError};
use crate::evaluator::{EvalInput, Evaluation, Evaluator, InputSpec, InputType};
use crate::score::{Direction, Kind, Score};
use checks::Features;
use evidence::{Passage, Verdict};
use judged::{ClaimJudge, Judged};

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
            "deep asks the LLM judge about each claim; shallow checks claims deterministically",
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
    example: "- metric: factuality
  options: {mode: lenient}",
    build: |o, ctx| Ok(Box::new(Factuality::from_options(o, ctx)?) as Box<dyn Evaluator>),
};

/// The `fallback` option of the metrics that may ask a judge (`factuality`
/// with `depth: deep`, `tone` with `method: judge`).
pub(crate) const FALLBACK_OPTION: OptionSpec = OptionSpec::new(
    "fallback",
    OptionType::Choice(&["heuristic", "fail"]),
    Some("heuristic"),
    "when the judge fails or no judge is configured: heuristic scores the row deterministically (metadata fallback_reason); fail fails the evaluation",
);

/// classify's `mode` option under the name `judge_mode` (factuality's
/// `mode` is strict/lenient).
pub(crate) const JUDGE_MODE_OPTION: OptionSpec = OptionSpec::new(
    "judge_mode",
    OptionType::Choice(&["auto", "tools", "json_schema", "text"]),
    Some("auto"),
    "how the judge's reply is asked for; auto starts with tools and falls back as the server requires",
);

/// What to do when the judge cannot be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Fallback {
    /// Score deterministically and say why in metadata.
    #[default]
    Heuristic,
    /// Fail the evaluation (fail closed).
    Fail,
}

impl Fallback {
    /// Reads `fallback`; with `fail`, a suite without judges is an error
    /// when `needs_judge` (the metric would always fail).
    pub(crate) fn read(
        o: &Opts<'_>,
        needs_judge: bool,
        ctx: &BuildContext,
    ) -> Result<Self, ConfigError> {
        let f = match o.choice("fallback", &["heuristic", "fail"], "heuristic")?.as_str() {
            "fail" => Fallback::Fail,
            _ => Fallback::Heuristic,
        };
        if f == Fallback::Fail && needs_judge && ctx.judges.is_empty() {
            return Err(o.error(
                "fallback",
                format!(
                    "`fail` needs a judge, and none is defined: {}, or set `fallback` to `heuristic`",
                    ctx.how_to_define_judge()
                ),
            ));
        }
        Ok(f)
    }
}

/// Default word overlap a passage needs to count as a claim's evidence.
pub const DEFAULT_THRESHOLD: f64 = 0.7;

/// The most claim–passage comparisons one row may cost (claims of the
/// output × evidence passages of the reference and context), reached by
/// two texts of about 100 kB each. A larger row scores `invalid` with the
/// counts, instead of stalling the run (two 300 kB texts took 21 s, 1 MB
/// over three minutes).
pub const MAX_CLAIM_CHECKS: usize = 4_000_000;

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

/// Judges one claim prompt (`depth: deep`).
type AskClaim<'a> = dyn FnMut(&str) -> Result<Judged, EvalError> + 'a;

/// The factuality metric.
#[derive(Debug, Clone)]
pub struct Factuality {
    mode: Mode,
    deep: bool,
    threshold: f64,
    scoring: Scoring,
    fallback: Fallback,
    /// The judge of `depth: deep`, when the suite has one.
    judge: Option<Arc<ClaimJudge>>,
}

impl Default for Factuality {
    fn default() -> Self {
        Factuality {
            mode: Mode::Strict,
            deep: false,
            threshold: DEFAULT_THRESHOLD,
            scoring: Scoring::Claims,
            fallback: Fallback::Heuristic,
            judge: None,
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
    use crate::decode::{DecodeOptions, Method, Mode, decode};
    // Regtrace's reading first, as `json_structural`'s `auto` (a scalar in
    // a fence, a leading byte-order mark).
    let d = decode(v, &DecodeOptions { mode: Mode::Regtrace, ..DecodeOptions::default() })?;
    match d.method {
        Method::Whole | Method::Fence | Method::Value => Ok(d.value),
        _ => {
            d.release();
            Err(String::from("not a JSON document"))
        }
    }
}

impl Factuality {
    /// From options: `mode`, `depth`, `threshold` (in [0, 1]), `scoring`,
    /// `fallback` and the judge options (`judge`, `judge_mode`,
    /// `explanation`, `system`), read only for `depth: deep`.
    ///
    /// # Errors
    /// An unknown option or a bad value; with `depth: deep`, a judge name
    /// the suite does not define, or `fallback: fail` in a suite without
    /// judges.
    pub fn from_options(
        options: &Map<String, Value>,
        ctx: &BuildContext,
    ) -> Result<Self, ConfigError> {
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
        let fallback = Fallback::read(&o, deep, ctx)?;
        let judge = match JudgeOptions::read_optional(&o, ctx, "judge_mode", deep)? {
            Some(j) => Some(Arc::new(ClaimJudge::new(SPEC.name, j, ctx)?)),
            None => None,
        };
        o.finish()?;
        Ok(Factuality { mode, deep, threshold, scoring, fallback, judge })
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
    /// string or any JSON value) without asking a judge: the shallow
    /// path. With `depth: deep` this is the heuristic's score, marked
    /// `method: heuristic` with a `fallback_reason`.
    pub fn score_values(&self, output: &Value, reference: &Value, context: &[&Value]) -> Score {
        match self.score_with(output, reference, context, None) {
            Ok(s) => s,
            // Without a judge nothing can fail; kept total all the same.
            Err(e) => Score::invalid(SPEC.name, e.to_string()),
        }
    }

    /// The score of one row. `ask` judges one claim prompt (`depth: deep`
    /// with a judge); without it the heuristic scores the row.
    ///
    /// # Errors
    /// A failed judgement with `fallback: fail`.
    fn score_with(
        &self,
        output: &Value,
        reference: &Value,
        context: &[&Value],
        ask: Option<&mut AskClaim<'_>>,
    ) -> Result<Score, EvalError> {
        let (out, refv) = (Side::of(output), Side::of(reference));
        let result = self.score_sides(&out, &refv, reference, context, ask);
        // Parsed documents can be deep: free them without recursion.
        for json in [out.json, refv.json].into_iter().flatten() {
            if let Cow::Owned(v) = json {
                crate::json::drop_deep(v);
            }
        }
        result
    }

    fn score_sides(
        &self,
        out: &Side<'_>,
        refv: &Side<'_>,
        reference: &Value,
        context: &[&Value],
        ask: Option<&mut AskClaim<'_>>,
    ) -> Result<Score, EvalError> {
        let json_score = match (&out.json, &refv.json) {
            (Ok(o), Ok(r)) => {
                let mut s = JsonStructural::default().score_values(o, r);
                s.name = SPEC.name.to_owned();
                let pass = s.details.iter().all(|d| d.passed);
                Some(
                    s.with_label(if pass { "pass" } else { "fail" })
                        .with_meta("method", "json_structural"),
                )
            }
            (o, r) if self.mode == Mode::JsonStructural => {
                let mut why = Vec::new();
                if let Err(e) = o {
                    why.push(format!("output is not JSON ({e})"));
                }
                if let Err(e) = r {
                    why.push(format!("reference is not JSON ({e})"));
                }
                return Ok(Score::invalid(
                    SPEC.name,
                    format!("mode json_structural needs JSON on both sides: {}", why.join("; ")),
                ));
            }
            _ => None,
        };
        let heuristic = || match self.scoring {
            Scoring::Claims => self.score_claims(&out.text, reference, context),
            Scoring::Overlap => self.score_overlap(&out.text, &refv.text),
        };
        let score = match (self.deep, json_score, ask) {
            (false, Some(s), _) => s,
            (false, None, _) => heuristic(),
            (true, Some(s), _) => fell_back(s, "both sides are JSON: compared structurally"),
            (true, None, None) => {
                let why = if self.judge.is_none() {
                    "no judge is configured"
                } else {
                    "scored without the judge"
                };
                fell_back(heuristic(), why)
            }
            (true, None, Some(ask)) => match self.judge_claims(&out.text, &refv.text, context, ask)
            {
                Ok(s) => s,
                Err(e) if self.fallback == Fallback::Heuristic => {
                    fell_back(heuristic(), &e.to_string())
                }
                Err(e) => return Err(e),
            },
        };
        Ok(score
            .with_meta("mode", self.mode_name())
            .with_meta("depth", if self.deep { "deep" } else { "shallow" }))
    }

    /// `depth: deep`: each claim judged through `ask`, then scored like
    /// the shallow claims.
    ///
    /// # Errors
    /// The first failed judgement.
    fn judge_claims(
        &self,
        output: &str,
        reference: &str,
        context: &[&Value],
        ask: &mut AskClaim<'_>,
    ) -> Result<Score, EvalError> {
        let context: Vec<String> = context.iter().map(|c| text_of(c)).collect();
        let claims: Vec<String> = claims::claims(output)
            .into_iter()
            .filter(|c| is_claim(&Features::of(c, &BTreeSet::new())))
            .collect();
        if claims.len() > judged::MAX_JUDGED_CLAIMS {
            return Err(EvalError::Failed(format!(
                "{} claims: more than the {} a row may send to the judge",
                claims.len(),
                judged::MAX_JUDGED_CLAIMS
            )));
        }
        let mut details = Vec::with_capacity(claims.len());
        let (mut prompt_tokens, mut completion_tokens, mut cached) = (0u64, 0u64, 0usize);
        let mut mode = None;
        for (i, claim) in claims.iter().enumerate() {
            let j = ask(&judged::claim_prompt(output, reference, &context, claim))?;
            prompt_tokens = prompt_tokens.saturating_add(j.prompt_tokens);
            completion_tokens = completion_tokens.saturating_add(j.completion_tokens);
            cached += usize::from(j.cached);
            mode = j.mode.or(mode);
            let message = j.explanation.unwrap_or_else(|| format!("judged {}", j.outcome.as_str()));
            details.push(
                Detail::new(format!("factuality.claim[{i}]"), j.outcome)
                    .actual(claim)
                    .message(message),
            );
        }
        let mut base = Score::new(SPEC.name, None).with_meta("method", "judge");
        if let Some(judge) = &self.judge {
            base = base.with_meta("judge", judge.name()).with_meta("model", judge.model());
        }
        if let Some(m) = mode {
            base = base.with_meta("judge_mode", m);
        }
        let mut s = self
            .claims_score(base, details)
            .with_meta("prompt_tokens", prompt_tokens)
            .with_meta("completion_tokens", completion_tokens)
            .with_meta("cached", cached);
        s.kind = Kind::Llm;
        Ok(s)
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
            .filter(|(_, f)| is_claim(f))
            .collect();
        if claims.len().saturating_mul(passages.len()) > MAX_CLAIM_CHECKS {
            return Score::invalid(
                SPEC.name,
                format!(
                    "too large to check: {} claims × {} evidence passages exceed the limit of {MAX_CLAIM_CHECKS} comparisons (shorten the texts, or use `scoring: overlap`)",
                    claims.len(),
                    passages.len()
                ),
            );
        }
        let mut details = Vec::with_capacity(claims.len());
        for (i, (text, f)) in claims.iter().enumerate() {
            let check = format!("factuality.claim[{i}]");
            let d = match evidence::judge(f, &passages, self.threshold) {
                Verdict::Supported(p) => {
                    let src = passages.get(p).map_or("reference", |p| p.source.as_str());
                    Detail::new(check, Outcome::Supported)
                        .expected(passages.get(p).map_or("", |p| p.text.as_str()))
                        .message(format!("supported by {src}"))
                }
                Verdict::Contradicted(p, why) => Detail::new(check, Outcome::Contradicted)
                    .expected(passages.get(p).map_or("", |p| p.text.as_str()))
                    .message(why),
                Verdict::Unverifiable(why) => {
                    Detail::new(check, Outcome::Unverifiable).message(why)
                }
            };
            details.push(d.actual(text));
        }
        self.claims_score(Score::new(SPEC.name, None).with_meta("method", "claims"), details)
    }

    /// The score of claim verdicts, shared by the shallow and the deep
    /// path: a claim passes when supported, or (lenient) unverifiable;
    /// score = supported / claims (1 without claims); label `pass` when
    /// every claim passes.
    fn claims_score(&self, base: Score, mut details: Vec<Detail>) -> Score {
        if details.is_empty() {
            let mut s =
                base.with_label("pass").with_explanation("Factuality: no claims in the output");
            s.score = Some(1.0);
            return s.with_meta("claims", 0);
        }
        let (mut supported, mut contradicted, mut unverifiable) = (0usize, 0usize, 0usize);
        for d in &mut details {
            d.passed = match d.outcome {
                Outcome::Supported => {
                    supported += 1;
                    true
                }
                Outcome::Unverifiable => {
                    unverifiable += 1;
                    self.mode == Mode::Lenient
                }
                _ => {
                    contradicted += 1;
                    false
                }
            };
        }
        let n = details.len();
        let score = supported as f64 / n as f64;
        let pass = details.iter().all(|d| d.passed);
        let mut explanation = format!(
            "Factuality: {supported}/{n} claims supported ({contradicted} contradicted, {unverifiable} unverifiable)"
        );
        push_failure_lines(&mut explanation, &details);
        let mut s = base
            .with_label(if pass { "pass" } else { "fail" })
            .with_explanation(explanation)
            .with_meta("claims", n)
            .with_meta("supported", supported)
            .with_meta("contradicted", contradicted)
            .with_meta("unverifiable", unverifiable);
        s.score = Some(score);
        s.details = details;
        s
    }
}

/// A heuristic score in `depth: deep`: `method` becomes `heuristic` (the
/// heuristic's own method moves to `heuristic`), with the reason.
fn fell_back(mut s: Score, reason: &str) -> Score {
    let own = s.metadata.remove("method").unwrap_or(Value::Null);
    let note = format!("Scored with the heuristic, not the judge: {reason}");
    let text = match s.explanation.take() {
        Some(e) => format!("{e}\n{note}"),
        None => note,
    };
    s.with_explanation(text)
        .with_meta("method", "heuristic")
        .with_meta("heuristic", own)
        .with_meta("fallback_reason", reason)
}

/// Text of an input: a string as is, anything else as compact JSON.
fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => crate::json::compact(other),
    }
}

/// Whether a piece of the output states something to check: a content
/// word, number or date, and not only courtesy words.
fn is_claim(f: &Features) -> bool {
    !f.is_empty() && !is_courtesy(f)
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

    fn kind(&self) -> Kind {
        if self.judge.is_some() { Kind::Llm } else { Kind::Code }
    }

    fn compute(&self, input: &EvalInput) -> Result<Evaluation, EvalError> {
        let output = input.require("output")?;
        let reference = input.require("reference")?;
        let context: Vec<&Value> = match input.get("context") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items.iter().filter(|v| !v.is_null()).collect(),
            Some(other) => vec![other],
        };
        let score = match &self.judge {
            Some(judge) => {
                let mut ask = |prompt: &str| judge.ask(prompt);
                self.score_with(output, reference, &context, Some(&mut ask))?
            }
            None => self.score_values(output, reference, &context),
        };
        Ok(Evaluation::one(score))
    }
}

#[cfg(test)]
mod tests;
