//! `depth: deep`: each claim of the output judged by an LLM against the
//! reference and context.
//!
//! One request per claim (the claims of [`super::claims`], with the same
//! claims skipped as in the shallow path). The judge sees the reference,
//! the context items, the whole answer (to resolve "it" and "they") and
//! the one claim to check, and picks `supported`, `contradicted` or
//! `unverifiable` with a short explanation, through [`Classify`] (forced
//! tool call, then `json_schema`, then text). The verdicts are scored by
//! the same aggregation as the shallow claims ([`super::Factuality`]).

use std::sync::Arc;

use serde_json::Value;

use super::super::BuildContext;
use super::super::classify::{Choice, Classify, JudgeOptions};
use crate::detail::Outcome;
use crate::error::{ConfigError, EvalError};
use crate::judge::Judge;
use crate::judge::template::Template;
use crate::score::{Direction, Score};

/// The labels the judge picks from, with what each means.
const VERDICTS: [(&str, Outcome, &str); 3] = [
    (
        "supported",
        Outcome::Supported,
        "the reference or context states the claim, or clearly implies it",
    ),
    (
        "contradicted",
        Outcome::Contradicted,
        "the reference or context states something incompatible with the claim (another number, date, name or the opposite)",
    ),
    (
        "unverifiable",
        Outcome::Unverifiable,
        "the reference and context neither confirm nor refute the claim",
    ),
];

/// The judge of `depth: deep`, built once.
#[derive(Debug)]
pub(crate) struct ClaimJudge {
    classify: Classify,
    judge: Arc<Judge>,
}

/// One claim's verdict as the judge gave it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Judged {
    /// Supported, contradicted or unverifiable.
    pub(crate) outcome: Outcome,
    /// The judge's explanation, when asked for and given.
    pub(crate) explanation: Option<String>,
    /// Prompt tokens of the reply.
    pub(crate) prompt_tokens: u64,
    /// Completion tokens of the reply.
    pub(crate) completion_tokens: u64,
    /// Whether the reply came from the cache.
    pub(crate) cached: bool,
    /// The structured-output mode that was used (`tools`, ...).
    pub(crate) mode: Option<String>,
}

impl ClaimJudge {
    /// The judge of `name` (the evaluator's name for the accounting).
    pub(crate) fn new(
        name: &'static str,
        j: JudgeOptions,
        ctx: &BuildContext,
    ) -> Result<Self, ConfigError> {
        let judge = Arc::clone(&j.judge);
        let choices = VERDICTS
            .iter()
            .map(|(label, outcome, description)| Choice {
                label: (*label).to_owned(),
                score: Some(if *outcome == Outcome::Supported { 1.0 } else { 0.0 }),
                description: Some((*description).to_owned()),
            })
            .collect();
        // The template is not used: the prompt is built per claim.
        let classify = Classify::new(
            name,
            Template::parse("{claim}"),
            choices,
            Direction::Maximize,
            j,
            ctx,
            &[],
        )
        .map_err(|m| ConfigError::invalid(format!("metric `{name}`"), m))?;
        Ok(ClaimJudge { classify, judge })
    }

    /// The judge's name in the suite.
    pub(crate) fn name(&self) -> &str {
        self.judge.name()
    }

    /// Its model.
    pub(crate) fn model(&self) -> &str {
        self.judge.model()
    }

    /// Asks the judge about one claim (the prompt from [`claim_prompt`]).
    pub(crate) fn ask(&self, prompt: &str) -> Result<Judged, EvalError> {
        let s = self.classify.judge_prompt(prompt)?;
        read_score(&s)
    }
}

/// The verdict in a [`Classify`] score.
pub(crate) fn read_score(s: &Score) -> Result<Judged, EvalError> {
    let label = s.label.as_deref().unwrap_or("");
    let outcome =
        VERDICTS.iter().find(|(l, _, _)| *l == label).map(|(_, o, _)| *o).ok_or_else(|| {
            EvalError::Failed(format!("the judge's verdict `{label}` is unknown"))
        })?;
    let count = |k: &str| s.metadata.get(k).and_then(Value::as_u64).unwrap_or(0);
    Ok(Judged {
        outcome,
        explanation: s.explanation.clone().filter(|e| !e.trim().is_empty()),
        prompt_tokens: count("prompt_tokens"),
        completion_tokens: count("completion_tokens"),
        cached: s.metadata.get("cached").and_then(Value::as_bool).unwrap_or(false),
        mode: s.metadata.get("mode").and_then(Value::as_str).map(str::to_owned),
    })
}

/// Characters of the answer shown with each claim.
pub(crate) const ANSWER_IN_PROMPT: usize = 2_000;

/// Claims judged per row at most: past it, the row is not judged (cost is
/// bounded) and falls back, or fails, as `fallback` says.
pub(crate) const MAX_JUDGED_CLAIMS: usize = 50;

/// The prompt for one claim: the reference, each context item, the answer
/// (its first [`ANSWER_IN_PROMPT`] characters) and the claim.
pub(crate) fn claim_prompt(
    answer: &str,
    reference: &str,
    context: &[String],
    claim: &str,
) -> String {
    let mut p = String::from(
        "You check one claim taken from an answer against the reference material. Judge only from the material below, not from what you know otherwise.\n\nReference:\n",
    );
    p.push_str(reference.trim());
    p.push('\n');
    match context {
        [] => {}
        [one] => {
            p.push_str("\nContext:\n");
            p.push_str(one.trim());
            p.push('\n');
        }
        many => {
            p.push_str("\nContext:\n");
            for (i, c) in many.iter().enumerate() {
                p.push_str(&format!("[{}] {}\n", i + 1, c.trim()));
            }
        }
    }
    p.push_str("\nThe whole answer (only to understand the claim; judge nothing else in it):\n");
    // Each claim's request carries the answer: cut, so that a long answer
    // does not cost its length once per claim.
    let answer = answer.trim();
    match answer.char_indices().nth(ANSWER_IN_PROMPT) {
        None => p.push_str(answer),
        Some((i, _)) => {
            p.push_str(&answer[..i]);
            p.push_str(" […]");
        }
    }
    p.push_str("\n\nClaim: ");
    p.push_str(claim.trim());
    p.push_str(
        "\n\nIs the claim supported by the material, contradicted by it, or unverifiable from it? Wording does not matter, meaning does: a claim with a different number, date, name or the opposite sense is contradicted; a claim the material does not address is unverifiable.",
    );
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prompt_holds_the_material_the_answer_and_the_claim() {
        let p = claim_prompt(
            "Acme was founded in 1998. It is based in Berlin.",
            "Acme Corp was founded in 1998.",
            &[],
            "It is based in Berlin.",
        );
        assert!(p.contains("Reference:\nAcme Corp was founded in 1998.\n"), "{p}");
        assert!(!p.contains("Context:"), "{p}");
        assert!(p.contains(
            "judge nothing else in it):\nAcme was founded in 1998. It is based in Berlin.\n"
        ));
        assert!(p.contains("\n\nClaim: It is based in Berlin.\n\n"), "{p}");
        let one = claim_prompt("a", "r", &[String::from(" c ")], "a");
        assert!(one.contains("\nContext:\nc\n"), "{one}");
        let many = claim_prompt("a", "r", &[String::from("c1"), String::from("c2")], "a");
        assert!(many.contains("\nContext:\n[1] c1\n[2] c2\n"), "{many}");
    }

    #[test]
    fn verdicts_are_read_from_the_classify_score() {
        let s = Score::new("factuality", Some(0.0))
            .with_label("contradicted")
            .with_explanation("The reference says 1998.")
            .with_meta("prompt_tokens", 120)
            .with_meta("completion_tokens", 9)
            .with_meta("cached", true)
            .with_meta("mode", "tools");
        let j = read_score(&s).unwrap();
        assert_eq!(
            j,
            Judged {
                outcome: Outcome::Contradicted,
                explanation: Some(String::from("The reference says 1998.")),
                prompt_tokens: 120,
                completion_tokens: 9,
                cached: true,
                mode: Some(String::from("tools")),
            }
        );
        let bare = Score::new("factuality", None).with_label("unverifiable").with_explanation(" ");
        let j = read_score(&bare).unwrap();
        assert_eq!((j.outcome, j.explanation, j.prompt_tokens), (Outcome::Unverifiable, None, 0));
        assert!(read_score(&Score::new("factuality", None).with_label("maybe")).is_err());
        assert!(read_score(&Score::new("factuality", None)).is_err());
    }

    #[test]
    fn the_judge_is_offered_the_three_verdicts_with_their_meaning() {
        let ctx = super::super::super::classify::tests::context();
        let o = serde_json::Map::new();
        let spec = &super::super::SPEC;
        let opts = crate::metrics::options::Opts::for_metric(spec, &o).unwrap();
        let j = JudgeOptions::read_optional(&opts, &ctx, "judge_mode", true).unwrap().unwrap();
        let cj = ClaimJudge::new("factuality", j, &ctx).unwrap();
        assert_eq!((cj.name(), cj.model()), ("default", "test-model"));
    }
}
