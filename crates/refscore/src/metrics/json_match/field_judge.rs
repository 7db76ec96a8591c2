//! Per-field judges: embedding rules and judge rules ("deterministic
//! first, judge last").
//!
//! The engine walks both documents with deterministic comparators only
//! (array alignment never asks a judge). Then, for the compared leaves the
//! walk did not match:
//!
//! * **`compare: {type: embedding, threshold, floor, judge}`**: two strings
//!   that differ after the normalizers are embedded (one
//!   `POST /embeddings` per judge and document, holding every distinct
//!   text); with cosine `c` clamped to [0, 1]: `c ≥ threshold` is a match,
//!   `c < floor` is wrong, and in between the leaf earns `c` as partial
//!   credit, or, when the rule also has `judge`, the judge decides. Until
//!   then (and in array alignment) the field is compared as `string`.
//! * **`judge: NAME`** (with `criterion`, `judge_floor`): an *unresolved*
//!   pair ([`unresolved`]) is sent to the judge in one small `classify`
//!   request with the labels `same` and `different`; `same` is a match,
//!   `different` a value mismatch, and the judge's explanation becomes the
//!   field's detail message.
//!
//! A failed request fails closed for its fields: they count as wrong, with
//! the error in their detail message (a run that was cancelled instead
//! fails the evaluation). Requests go through the judge: a rerun is
//! answered from its cache.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use serde_json::Value;

use super::comparators::{Comparator, Note, NullPolicy, normalize};
use super::field_rule::{FieldRule, JUDGE_FLOOR};
use super::rules::CompiledRules;
use crate::detail::{Detail, Outcome, Verdict};
use crate::engine::{Comparison, Counts, Leaf};
use crate::error::{ConfigError, EvalError};
use crate::judge::template::Template;
use crate::judge::{DEFAULT_JUDGE, Judge};
use crate::limits::{MAX_EMBEDDED_FIELDS, MAX_FIELD_JUDGEMENTS};
use crate::metrics::BuildContext;
use crate::metrics::classify::{Choice, Classify, JudgeOptions};
use crate::metrics::semantic_similarity::cosine_score;
use crate::normalize::Normalizer;
use crate::path::{JsonPath, Seg};
use crate::score::{Direction, Score};
use crate::text::normalized_levenshtein;

/// Most texts in one embeddings request (providers cap the inputs of a
/// request; OpenAI at 2,048).
const EMBEDDING_BATCH: usize = 256;

/// Characters of each value a judge prompt shows at most.
const PROMPT_VALUE_CHARS: usize = 4000;

/// The labels a field judge chooses between.
const SAME: &str = "same";

const DIFFERENT: &str = "different";

/// The question asked when a judge rule has no `criterion`.
const DEFAULT_CRITERION: &str = "Do the two values mean the same thing for this field?";

/// Words of a text, lowercased: runs of letters and digits.
fn words(s: &str) -> std::collections::BTreeSet<String> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The text similarity that gates a judge: the larger of the normalized
/// Levenshtein similarity and the word overlap (shared words over the
/// words of the shorter text, letters and digits, case aside), so that
/// reordered words ("Office chair, ergonomic") are not clearly different.
pub(crate) fn text_similarity(x: &str, y: &str) -> f64 {
    let lev = normalized_levenshtein(x, y);
    let (wx, wy) = (words(x), words(y));
    let fewer = wx.len().min(wy.len());
    #[allow(clippy::cast_precision_loss)]
    let overlap = if fewer == 0 { 0.0 } else { wx.intersection(&wy).count() as f64 / fewer as f64 };
    lev.max(overlap).clamp(0.0, 1.0)
}

/// Whether the deterministic comparator left the pair unresolved, and the
/// pair's text similarity if so. A pair is unresolved when all hold:
///
/// 1. both values are strings;
/// 2. the comparator did not match them and did not find a type mismatch
///    (a string against an empty-as-null string, say);
/// 3. the comparator compared them as text: `default`, `exact`, `string`
///    and `numeric` (which compares strings as text) always do; `date` and
///    `number_string` only when a value was not a date / a number (they
///    fell back to text); `enum` never (labels are decided);
/// 4. the strings differ after the rule's normalizers, and their
///    [`text_similarity`] is at least `floor` (below it they are clearly
///    different).
pub(crate) fn unresolved(
    cmp: &Comparator,
    e: &Value,
    a: &Value,
    normalizers: &[Normalizer],
    nulls: &NullPolicy,
    floor: f64,
) -> Option<f64> {
    let (Value::String(x), Value::String(y)) = (e, a) else { return None };
    let checked = cmp.check(e, a, normalizers, nulls);
    if !matches!(checked.leaf.outcome, Outcome::Partial | Outcome::ValueMismatch) {
        return None;
    }
    let as_text = match cmp {
        Comparator::Enum { .. } => false,
        Comparator::Date { .. } | Comparator::NumberString { .. } => matches!(
            checked.note,
            Some(Note::NotADate(_) | Note::AmbiguousDate(_) | Note::NotANumber(_))
        ),
        _ => true,
    };
    if !as_text {
        return None;
    }
    let (nx, ny) = (normalize(x, normalizers), normalize(y, normalizers));
    if nx == ny {
        return None;
    }
    let s = text_similarity(&nx, &ny);
    (s >= floor).then_some(s)
}

/// The prompt of one field judgement.
pub(crate) fn prompt(field: &str, criterion: Option<&str>, expected: &str, actual: &str) -> String {
    let question = criterion.unwrap_or(DEFAULT_CRITERION);
    format!(
        "You check one field of a structured extraction against the reference value of that field.\n\n\
         Field: {field}\n\
         Question: {question}\n\n\
         Reference value:\n\"\"\"\n{}\n\"\"\"\n\n\
         Extracted value:\n\"\"\"\n{}\n\"\"\"\n\n\
         Answer the question for these two values. Wording, word order, abbreviations, letter case \
         and punctuation do not matter unless the question says they do; a different fact, number, \
         name or meaning does. Choose `{SAME}` when the extracted value is as good as the reference \
         for this question, else `{DIFFERENT}`.",
        cut(expected),
        cut(actual),
    )
}

fn cut(text: &str) -> String {
    match text.char_indices().nth(PROMPT_VALUE_CHARS) {
        None => text.to_owned(),
        Some((i, _)) => format!("{}…", &text[..i]),
    }
}

/// What the field judges asked for one document.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Stats {
    /// Judgements asked (one per distinct unresolved pair; cache hits
    /// included).
    pub(crate) judge_requests: u64,
    /// Of those, answered from the cache.
    pub(crate) judge_cached: u64,
    /// Of those, failed (their fields counted wrong).
    pub(crate) judge_failures: u64,
    /// Embedding requests (one per judge and document; cache hits
    /// included).
    pub(crate) embedding_requests: u64,
    /// Of those, answered from the cache.
    pub(crate) embedding_cached: u64,
    /// Of those, failed (their fields counted wrong).
    pub(crate) embedding_failures: u64,
    /// Fields compared by embeddings.
    pub(crate) embedded_fields: u64,
    /// Fields left to the comparator's verdict: past
    /// [`crate::limits::MAX_FIELD_JUDGEMENTS`] or
    /// [`crate::limits::MAX_EMBEDDED_FIELDS`].
    pub(crate) skipped: u64,
}

impl Stats {
    /// Adds the counts to a score's metadata.
    pub(crate) fn annotate(&self, s: Score) -> Score {
        s.with_meta("judge_requests", self.judge_requests)
            .with_meta("judge_cached", self.judge_cached)
            .with_meta("judge_failures", self.judge_failures)
            .with_meta("embedding_requests", self.embedding_requests)
            .with_meta("embedding_cached", self.embedding_cached)
            .with_meta("embedding_failures", self.embedding_failures)
            .with_meta("embedded_fields", self.embedded_fields)
            .with_meta("judge_skipped", self.skipped)
    }
}

/// What the field judges did to one comparison.
#[derive(Debug, Default)]
pub(crate) struct Settled {
    /// The detail message of each field they decided.
    pub(crate) messages: Vec<(JsonPath, String)>,
    /// Request counts.
    pub(crate) stats: Stats,
    /// Set when the run was cancelled: the evaluation fails.
    pub(crate) cancelled: Option<String>,
}

impl Settled {
    /// Puts the field judges' messages on the details of their paths.
    pub(crate) fn annotate(&self, details: &mut [Detail]) {
        if self.messages.is_empty() {
            return;
        }
        for d in details {
            if let Some(p) = d.check.path()
                && let Some((_, m)) = self.messages.iter().find(|(q, _)| q == p)
            {
                d.message = Some(m.clone());
            }
        }
    }
}

/// A leaf the walk did not match and a field judge may decide.
struct Candidate<'v> {
    record: usize,
    field: FieldRule,
    path: JsonPath,
    expected: &'v str,
    actual: &'v str,
    /// The strings after the rule's normalizers.
    nx: String,
    ny: String,
}

/// A decision: the leaf's new score and its detail message.
struct Decision {
    record: usize,
    leaf: Leaf,
    message: String,
}

/// The judges a json_match asks, resolved when it is built.
#[derive(Debug)]
pub(crate) struct FieldJudges {
    caller: String,
    /// Per embedding rule.
    embedders: Vec<Arc<Judge>>,
    /// Per judge rule: the classifier and its judge.
    askers: Vec<(Classify, Arc<Judge>)>,
}

impl FieldJudges {
    /// The judges the rules name; `None` without field judges.
    ///
    /// # Errors
    /// A rule names a judge the suite does not define.
    pub(crate) fn build(
        rules: &CompiledRules,
        ctx: &BuildContext,
    ) -> Result<Option<Self>, ConfigError> {
        if !rules.has_field_judges() {
            return Ok(None);
        }
        let get =
            |name: &str, origin: &str| ctx.judge(name).map_err(|m| ConfigError::invalid(origin, m));
        let embedders = rules
            .embeddings
            .iter()
            .map(|e| get(&e.judge, &e.origin))
            .collect::<Result<Vec<_>, _>>()?;
        let askers = rules
            .judges
            .iter()
            .map(|j| {
                let judge = get(&j.judge, &j.origin)?;
                let options = JudgeOptions {
                    judge: Arc::clone(&judge),
                    explanation: true,
                    mode: None,
                    system: None,
                };
                let choices = [SAME, DIFFERENT]
                    .map(|l| Choice { label: l.to_owned(), score: None, description: None })
                    .to_vec();
                let c = Classify::new(
                    super::SPEC.name,
                    Template::parse("{field}"),
                    choices,
                    Direction::Maximize,
                    options,
                    ctx,
                    &[],
                )
                .map_err(|m| ConfigError::invalid(&j.origin, m))?;
                Ok((c, judge))
            })
            .collect::<Result<Vec<_>, ConfigError>>()?;
        let caller = ctx.evaluator.clone().unwrap_or_else(|| super::SPEC.name.to_owned());
        Ok(Some(FieldJudges { caller, embedders, askers }))
    }

    /// Decides the leaves of `c` the walk left to the field judges, and
    /// updates the comparison (tally, counts, field tallies, records) as
    /// if the walk had scored them so.
    pub(crate) fn settle(
        &self,
        rules: &CompiledRules,
        c: &mut Comparison,
        reference: &Value,
        output: &Value,
    ) -> Settled {
        let mut out = Settled::default();
        let mut embed: Vec<Candidate<'_>> = Vec::new();
        let mut ask: Vec<(Candidate<'_>, String)> = Vec::new();
        for (i, r) in c.records.iter().enumerate() {
            if !matches!(r.outcome, Outcome::Partial | Outcome::ValueMismatch) {
                continue;
            }
            let segs: Vec<Seg<'_>> = r.path.segs().collect();
            let field = rules.field_at(&segs);
            if field.embedding.is_none() && field.judge.is_none() {
                continue;
            }
            let (Some(e), Some(a)) =
                (resolve(reference, &segs, true), resolve(output, &segs, false))
            else {
                continue;
            };
            let (Value::String(expected), Value::String(actual)) = (e, a) else { continue };
            let node = rules.at(&segs);
            let norms = node
                .normalize
                .and_then(|k| rules.normalizers.get(usize::from(k)))
                .map_or(&[][..], Vec::as_slice);
            let (nx, ny) =
                (normalize(expected, norms).into_owned(), normalize(actual, norms).into_owned());
            if nx == ny {
                continue;
            }
            let cand =
                Candidate { record: i, field, path: r.path.clone(), expected, actual, nx, ny };
            if field.embedding.is_some() {
                // An empty (or blank) text has no meaning to embed, and
                // servers refuse it: the comparator's verdict stands.
                if cand.nx.trim().is_empty() || cand.ny.trim().is_empty() {
                    continue;
                }
                if embed.len() >= MAX_EMBEDDED_FIELDS {
                    out.stats.skipped += 1;
                    out.messages.push((cand.path, skipped("embedding", MAX_EMBEDDED_FIELDS)));
                    continue;
                }
                embed.push(cand);
            } else if let Some(j) = field.judge {
                let cmp = node
                    .comparator
                    .and_then(|k| rules.comparators.get(usize::from(k)))
                    .unwrap_or(&rules.fallback);
                let nulls = NullPolicy {
                    absent_is_null: node.absent_is_null.unwrap_or(false),
                    empty_string_is_null: node.empty_string_is_null.unwrap_or(false),
                };
                let floor = rules.judges.get(usize::from(j)).map_or(JUDGE_FLOOR, |r| r.floor);
                if unresolved(cmp, e, a, norms, &nulls, floor).is_some() {
                    ask.push((cand, String::new()));
                }
            }
        }
        let mut decisions = Vec::new();
        if !embed.is_empty() {
            match self.embed(rules, embed, &mut out.stats) {
                Ok((decided, to_ask)) => {
                    decisions.extend(decided);
                    ask.extend(to_ask);
                }
                Err(why) => {
                    out.cancelled = Some(why);
                    return out;
                }
            }
        }
        if !ask.is_empty() {
            match self.ask(rules, ask, &mut out.stats, &mut out.messages) {
                Ok(decided) => decisions.extend(decided),
                Err(why) => {
                    out.cancelled = Some(why);
                    return out;
                }
            }
        }
        for d in decisions {
            if let Some(path) = apply(c, rules, &d) {
                out.messages.push((path, d.message));
            }
        }
        out
    }

    /// Embeds the candidates (one request per judge), and decides those
    /// the cosine settles; the others go to the judge with a note.
    ///
    /// `Err` when the run was cancelled.
    #[allow(clippy::type_complexity)]
    fn embed<'v>(
        &self,
        rules: &CompiledRules,
        cands: Vec<Candidate<'v>>,
        stats: &mut Stats,
    ) -> Result<(Vec<Decision>, Vec<(Candidate<'v>, String)>), String> {
        let mut groups: BTreeMap<&str, Vec<Candidate<'v>>> = BTreeMap::new();
        for cand in cands {
            let rule = cand.field.embedding.and_then(|k| rules.embeddings.get(usize::from(k)));
            let name = rule.map_or(DEFAULT_JUDGE, |r| r.judge.as_str());
            groups.entry(name).or_default().push(cand);
        }
        let mut decided = Vec::new();
        let mut to_ask = Vec::new();
        for group in groups.into_values() {
            let Some(judge) = group
                .first()
                .and_then(|c| c.field.embedding)
                .and_then(|k| self.embedders.get(usize::from(k)))
            else {
                continue;
            };
            // Each distinct text once, in order of first appearance.
            let mut index: HashMap<&str, usize> = HashMap::new();
            let mut inputs: Vec<&str> = Vec::new();
            for cand in &group {
                for t in [cand.nx.as_str(), cand.ny.as_str()] {
                    index.entry(t).or_insert_with(|| {
                        inputs.push(t);
                        inputs.len() - 1
                    });
                }
            }
            stats.embedded_fields += group.len() as u64;
            let mut vectors: Vec<Vec<f32>> = Vec::with_capacity(inputs.len());
            let mut failed = None;
            for chunk in inputs.chunks(EMBEDDING_BATCH) {
                stats.embedding_requests += 1;
                match judge.embeddings(&self.caller, None, chunk) {
                    Ok(e) => {
                        stats.embedding_cached += u64::from(e.cached);
                        vectors.extend(e.vectors);
                    }
                    Err(e) if judge.is_cancelled() => return Err(e.to_string()),
                    Err(e) => {
                        stats.embedding_failures += 1;
                        failed = Some(e);
                        break;
                    }
                }
            }
            if let Some(e) = failed {
                let message = format!("embeddings failed, counted wrong: {e}");
                decided.extend(group.iter().map(|c| Decision {
                    record: c.record,
                    leaf: Leaf::WRONG,
                    message: message.clone(),
                }));
                continue;
            }
            let vector = |t: &str| index.get(t).and_then(|i| vectors.get(*i));
            let cosines: Vec<f64> = group
                .iter()
                .map(|c| match (vector(&c.nx), vector(&c.ny)) {
                    (Some(x), Some(y)) => cosine_score(x, y),
                    _ => 0.0,
                })
                .collect();
            for (cand, cos) in group.into_iter().zip(cosines) {
                let Some(rule) =
                    cand.field.embedding.and_then(|k| rules.embeddings.get(usize::from(k)))
                else {
                    continue;
                };
                let (t, f) = (rule.threshold, rule.floor);
                let (leaf, message) = if cos >= t {
                    (Leaf::MATCH, format!("embedding cosine {cos:.3} ≥ threshold {t}: match"))
                } else if cos < f {
                    (Leaf::WRONG, format!("embedding cosine {cos:.3} < floor {f}: wrong"))
                } else if cand.field.judge.is_some() {
                    let note = format!("embedding cosine {cos:.3} between {f} and {t}; ");
                    to_ask.push((cand, note));
                    continue;
                } else {
                    let leaf = Leaf::graded(cos);
                    (leaf, format!("embedding cosine {cos:.3} below threshold {t}: partial credit"))
                };
                decided.push(Decision { record: cand.record, leaf, message });
            }
        }
        Ok((decided, to_ask))
    }

    /// Asks the judges about the candidates, one request per distinct
    /// prompt, in order, the first [`MAX_FIELD_JUDGEMENTS`] of them; the
    /// fields past that keep their verdict, with a note in `notes`.
    ///
    /// `Err` when the run was cancelled.
    fn ask(
        &self,
        rules: &CompiledRules,
        cands: Vec<(Candidate<'_>, String)>,
        stats: &mut Stats,
        notes: &mut Vec<(JsonPath, String)>,
    ) -> Result<Vec<Decision>, String> {
        // Distinct (judge rule, prompt) jobs, and the job of each candidate.
        let mut jobs: Vec<(usize, String)> = Vec::new();
        let mut job_of: HashMap<(usize, String), usize> = HashMap::new();
        let mut of: Vec<(Candidate<'_>, String, usize)> = Vec::new();
        for (cand, note) in cands {
            let Some(k) = cand.field.judge.map(usize::from) else { continue };
            let Some(rule) = rules.judges.get(k) else { continue };
            let text = prompt(
                &cand.path.wildcard(),
                rule.criterion.as_deref(),
                cand.expected,
                cand.actual,
            );
            let key = (k, text);
            let job = match job_of.get(&key) {
                Some(i) => *i,
                None if jobs.len() >= MAX_FIELD_JUDGEMENTS => {
                    stats.skipped += 1;
                    notes.push((cand.path, skipped("judge", MAX_FIELD_JUDGEMENTS)));
                    continue;
                }
                None => {
                    jobs.push(key.clone());
                    job_of.insert(key, jobs.len() - 1);
                    jobs.len() - 1
                }
            };
            of.push((cand, note, job));
        }
        let mut answers: Vec<(Leaf, String)> = Vec::with_capacity(jobs.len());
        for (k, text) in &jobs {
            let Some((classify, judge)) = self.askers.get(*k) else {
                answers.push((Leaf::WRONG, String::from("no judge (counted wrong)")));
                continue;
            };
            stats.judge_requests += 1;
            let name = judge.name();
            let answer = match classify.judge_prompt(text) {
                Ok(s) => {
                    stats.judge_cached +=
                        u64::from(s.metadata.get("cached") == Some(&Value::Bool(true)));
                    let label = s.label.as_deref().unwrap_or("");
                    let leaf = if label == SAME { Leaf::MATCH } else { Leaf::WRONG };
                    let mut message = format!("judge `{name}` says {label}");
                    if let Some(why) =
                        s.explanation.as_deref().map(str::trim).filter(|w| !w.is_empty())
                    {
                        message.push_str(": ");
                        message.push_str(why);
                    }
                    (leaf, message)
                }
                Err(e) if judge.is_cancelled() => return Err(e.to_string()),
                Err(e) => {
                    stats.judge_failures += 1;
                    let e = match e {
                        EvalError::Failed(m) => m,
                        other => other.to_string(),
                    };
                    (Leaf::WRONG, format!("judge `{name}` failed, counted wrong: {e}"))
                }
            };
            answers.push(answer);
        }
        Ok(of
            .into_iter()
            .filter_map(|(cand, note, job)| {
                let (leaf, message) = answers.get(job)?;
                Some(Decision {
                    record: cand.record,
                    leaf: *leaf,
                    message: format!("{note}{message}"),
                })
            })
            .collect())
    }
}

/// The detail of a field left to its comparator past a limit.
fn skipped(what: &str, limit: usize) -> String {
    format!(
        "not sent to the {what}: over the limit of {limit} per document; the comparator's verdict stands"
    )
}

/// The value at `segs` in the reference (`expected`) or the output.
fn resolve<'v>(root: &'v Value, segs: &[Seg<'_>], expected: bool) -> Option<&'v Value> {
    let mut v = root;
    for s in segs {
        v = match *s {
            Seg::Key(k) => v.as_object()?.get(k)?,
            Seg::Index(i) => v.as_array()?.get(i)?,
            Seg::Pair { expected: e, actual: a } => {
                v.as_array()?.get(if expected { e? } else { a? })?
            }
        };
    }
    Some(v)
}

/// The weight of the node at `segs` in the document's tally: the product
/// of the rule weights from the root down (as the walk multiplies them).
fn weight(rules: &CompiledRules, segs: &[Seg<'_>]) -> f64 {
    (1..=segs.len())
        .map(|k| rules.at(&segs[..k]).weight.unwrap_or(1.0))
        .map(|w| if w.is_finite() && w >= 0.0 { w } else { 0.0 })
        .product()
}

/// Takes one leaf verdict back out of counts.
fn unrecord(c: &mut Counts, l: Leaf) {
    match l.outcome.verdict() {
        Verdict::Match => {
            c.matched = c.matched.saturating_sub(1);
            c.credit -= 1.0;
        }
        Verdict::Partial => {
            c.partial = c.partial.saturating_sub(1);
            c.credit -= crate::number::clamp01(l.score);
        }
        Verdict::Wrong => c.wrong = c.wrong.saturating_sub(1),
        Verdict::Missing | Verdict::Extra => {}
    }
}

/// Rescores one record's leaf; its path, when the record exists.
fn apply(c: &mut Comparison, rules: &CompiledRules, d: &Decision) -> Option<JsonPath> {
    let r = c.records.get(d.record)?;
    let (path, old) = (r.path.clone(), Leaf { score: r.score, outcome: r.outcome });
    let segs: Vec<Seg<'_>> = path.segs().collect();
    let new = d.leaf;
    c.tally.matched += (new.score - old.score) * weight(rules, &segs);
    if c.tally.matched < 0.0 {
        c.tally.matched = 0.0;
    }
    unrecord(&mut c.counts, old);
    c.counts.record(new.outcome, new.score);
    if let Some(t) = c.fields.counts_at_mut(segs.iter().copied()) {
        unrecord(t, old);
        t.record(new.outcome, new.score);
    }
    if let Some(r) = c.records.get_mut(d.record) {
        r.outcome = new.outcome;
        r.score = new.score;
    }
    Some(path)
}

#[cfg(test)]
mod tests;
