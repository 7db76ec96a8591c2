//! `semantic_similarity`: cosine similarity of the output's and the
//! reference's embeddings.
//!
//! Both texts are embedded in one `POST {base_url}/embeddings` request of
//! the named judge (its `embedding_model`, else its `model`), cached like
//! every judge request. The score is the cosine of the two vectors clamped
//! to [0, 1] (opposite or orthogonal meanings score 0), and exactly 1 when
//! the two texts are identical (then no request is sent). It is always
//! finite: a vector of norm 0 gives 0. A failed request is a failed
//! evaluation (never a guessed score).

use std::sync::Arc;

use serde_json::{Map, Value};

use super::BuildContext;
use super::options::Opts;
use super::registry::{MetricSpec, OptionSpec, OptionType};
use crate::error::{ConfigError, EvalError};
use crate::evaluator::{EvalInput, Evaluation, Evaluator, InputSpec, InputType};
use crate::judge::{DEFAULT_JUDGE, Judge, cosine_similarity};
use crate::score::{Direction, Kind, Score};

/// Cosines this close to 1 are 1: `f32` vectors of one text, normalised
/// apart, differ in their last bits.
pub(crate) const COSINE_ONE_WITHIN: f64 = 1e-6;

/// The declaration of `semantic_similarity`.
pub const SPEC: MetricSpec = MetricSpec {
    name: "semantic_similarity",
    description: "cosine similarity of the output's and the reference's embeddings (a judge's embedding model), in [0, 1]",
    inputs: &[
        InputSpec::required("output", InputType::Text, "the text to score"),
        InputSpec::required("reference", InputType::Text, "the reference text"),
    ],
    options: &[OptionSpec::new(
        "judge",
        OptionType::String,
        Some("default"),
        "the suite's judge whose embedding model embeds both texts",
    )],
    json: false,
    kind: Kind::Llm,
    direction: Direction::Maximize,
    threshold: Some(0.8),
    extra_scores: &[],
    example: "- metric: semantic_similarity\n  mapping: {output: answer, reference: expected_answer}\n  options: {judge: default}\n  threshold: 0.8",
    build: |o, ctx| Ok(Box::new(SemanticSimilarity::from_options(o, ctx)?) as Box<dyn Evaluator>),
};

/// The cosine of two embeddings as a score: clamped to [0, 1], 1 within
/// [`COSINE_ONE_WITHIN`] of it, 0 when not finite.
pub(crate) fn cosine_score(a: &[f32], b: &[f32]) -> f64 {
    let c = cosine_similarity(a, b);
    if !c.is_finite() {
        0.0
    } else if c >= 1.0 - COSINE_ONE_WITHIN {
        1.0
    } else {
        c.clamp(0.0, 1.0)
    }
}

/// The built metric.
#[derive(Debug)]
pub struct SemanticSimilarity {
    judge: Arc<Judge>,
    caller: String,
}

impl SemanticSimilarity {
    /// From options: `judge` (default `default`).
    ///
    /// # Errors
    /// An unknown option or judge.
    pub fn from_options(
        options: &Map<String, Value>,
        ctx: &BuildContext,
    ) -> Result<Self, ConfigError> {
        let o = Opts::for_metric(&SPEC, options)?;
        let name = o.string("judge")?.unwrap_or_else(|| DEFAULT_JUDGE.to_owned());
        let judge = ctx.judge(&name).map_err(|m| o.error("judge", m))?;
        Ok(SemanticSimilarity {
            judge,
            caller: ctx.evaluator.clone().unwrap_or_else(|| SPEC.name.to_owned()),
        })
    }

    /// The score of two texts.
    fn score(&self, output: &str, reference: &str) -> Result<Score, EvalError> {
        let (score, cached) = if output == reference {
            (1.0, false)
        } else {
            let e = self
                .judge
                .embeddings(&self.caller, None, &[output, reference])
                .map_err(|e| EvalError::Failed(e.to_string()))?;
            let score = match e.vectors.as_slice() {
                [a, b] => cosine_score(a, b),
                _ => 0.0,
            };
            (score, e.cached)
        };
        let explanation = if output == reference {
            String::from("identical texts: similarity 1 (no request)")
        } else {
            format!("cosine similarity of the embeddings: {score:.4}")
        };
        let mut s = Score::new(SPEC.name, Some(score))
            .with_label(super::similarity_label(score))
            .with_explanation(explanation)
            .with_meta("judge", self.judge.name())
            .with_meta("model", self.judge.embedding_model())
            .with_meta("cached", cached);
        s.kind = Kind::Llm;
        Ok(s)
    }
}

impl Evaluator for SemanticSimilarity {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn inputs(&self) -> &[InputSpec] {
        SPEC.inputs
    }

    fn direction(&self) -> Direction {
        SPEC.direction
    }

    fn kind(&self) -> Kind {
        Kind::Llm
    }

    fn compute(&self, input: &EvalInput<'_>) -> Result<Evaluation, EvalError> {
        let output = crate::json::display(input.require("output")?);
        let reference = crate::json::display(input.require("reference")?);
        Ok(Evaluation::one(self.score(&output, &reference)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn build(options: Value) -> Result<SemanticSimilarity, ConfigError> {
        SemanticSimilarity::from_options(
            options.as_object().unwrap(),
            &super::super::classify::tests::context(),
        )
    }

    #[test]
    fn options_name_a_defined_judge() {
        assert_eq!(build(json!({})).unwrap().judge.name(), "default");
        assert_eq!(build(json!({"judge": "default"})).unwrap().judge.name(), "default");
        let e = build(json!({"judge": "other"})).unwrap_err().to_string();
        assert!(e.contains("judge `other` is not defined"), "{e}");
        let e = build(json!({"threshold": 0.5})).unwrap_err().to_string();
        assert!(e.contains("threshold"), "{e}");
        let e = build(json!({"judge": 3})).unwrap_err().to_string();
        assert!(e.contains("expected a string"), "{e}");
    }

    #[test]
    fn identical_texts_score_one_without_a_request() {
        // The judge of the test context points nowhere: a request would fail.
        let m = build(json!({})).unwrap();
        let ev = m.compute(&EvalInput::pair(json!("same words"), json!("same words"))).unwrap();
        let s = &ev.scores[0];
        assert_eq!((s.score, s.label.as_deref()), (Some(1.0), Some("match")));
        assert_eq!((s.kind, &s.metadata["model"]), (Kind::Llm, &json!("test-model")));
    }

    #[test]
    fn cosine_scores_are_clamped_and_finite() {
        assert_eq!(cosine_score(&[1.0, 0.0], &[1.0, 0.0]), 1.0);
        assert_eq!(cosine_score(&[1.0, 0.0], &[-1.0, 0.0]), 0.0);
        assert_eq!(cosine_score(&[0.0, 0.0], &[0.0, 0.0]), 0.0);
        assert!((cosine_score(&[3.0, 4.0], &[4.0, 3.0]) - 0.96).abs() < 1e-9);
        let v = [0.1_f32, 0.7, -0.3, 0.2];
        assert_eq!(cosine_score(&v, &v), 1.0);
    }
}
