//! The per-field rules that ask a judge or compare by embeddings (a
//! rule's `judge`, `criterion`, `judge_floor` and `compare: embedding`), as
//! the rules file declares them; [`super::field_judge`] applies them.

use serde_json::Value;

use crate::judge::DEFAULT_JUDGE;

/// Default cosine from which an embedding rule matches.
pub(crate) const EMBEDDING_THRESHOLD: f64 = 0.85;

/// Default cosine below which an embedding rule gives no credit.
pub(crate) const EMBEDDING_FLOOR: f64 = 0.5;

/// Default text similarity below which a pair is clearly different and
/// never sent to a judge.
pub(crate) const JUDGE_FLOOR: f64 = 0.3;

/// An embedding rule: `compare: {type: embedding, ...}`.
/// The name of the embedding comparator, read here before the other
/// comparators (which need no judge).
pub(crate) const EMBEDDING: &str = "embedding";

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct EmbeddingRule {
    /// The judge whose embedding model embeds the texts.
    pub(crate) judge: String,
    /// Cosine from which the pair matches.
    pub(crate) threshold: f64,
    /// Cosine below which the pair is wrong.
    pub(crate) floor: f64,
    /// The rule, for errors: `rule 2 (`$.a`)`.
    pub(crate) origin: String,
}

impl EmbeddingRule {
    /// Reads `"embedding"` or `{type: embedding, threshold, floor, judge}`;
    /// `Ok(None)` for any other comparator spec.
    pub(crate) fn from_spec(spec: &Value, origin: &str) -> Result<Option<Self>, String> {
        let fields = match spec {
            Value::String(s) if s == EMBEDDING => None,
            Value::Object(m) if m.get("type").and_then(Value::as_str) == Some(EMBEDDING) => Some(m),
            _ => return Ok(None),
        };
        let mut r = EmbeddingRule {
            judge: DEFAULT_JUDGE.to_owned(),
            threshold: EMBEDDING_THRESHOLD,
            floor: EMBEDDING_FLOOR,
            origin: origin.to_owned(),
        };
        let unit = |k: &str, v: &Value| {
            v.as_f64().filter(|x| (0.0..=1.0).contains(x)).ok_or_else(|| {
                format!("comparator \"embedding\": \"{k}\" must be a number from 0 to 1, not {v}")
            })
        };
        for (k, v) in fields.into_iter().flatten() {
            match k.as_str() {
                "type" => {}
                "threshold" => r.threshold = unit(k, v)?,
                "floor" => r.floor = unit(k, v)?,
                "judge" => {
                    r.judge = v
                        .as_str()
                        .filter(|s| !s.trim().is_empty())
                        .ok_or_else(|| {
                            format!("comparator \"embedding\": \"judge\" must be a judge's name, not {v}")
                        })?
                        .to_owned();
                }
                other => {
                    return Err(format!(
                        "unknown field \"{other}\" for comparator \"embedding\" (valid: threshold, floor, judge)"
                    ));
                }
            }
        }
        if r.floor > r.threshold {
            return Err(format!(
                "comparator \"embedding\": \"floor\" ({}) must not exceed \"threshold\" ({})",
                r.floor, r.threshold
            ));
        }
        Ok(Some(r))
    }
}

/// A judge rule: `judge: NAME`, `criterion`, `judge_floor`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct JudgeRule {
    /// The judge asked.
    pub(crate) judge: String,
    /// The question about the field (default [`DEFAULT_CRITERION`]).
    pub(crate) criterion: Option<String>,
    /// Text similarity below which the pair is clearly different.
    pub(crate) floor: f64,
    /// The rule, for errors.
    pub(crate) origin: String,
}

impl JudgeRule {
    /// Reads a rule's `judge`, `criterion` and `judge_floor`; `Ok(None)`
    /// when it has neither `judge` nor `criterion` (a `criterion` alone
    /// asks the judge named `default`).
    pub(crate) fn from_spec(
        judge: Option<&str>,
        criterion: Option<&str>,
        floor: Option<f64>,
        origin: &str,
    ) -> Result<Option<Self>, String> {
        if judge.is_none() && criterion.is_none() {
            return match floor {
                Some(_) => Err(String::from("`judge_floor` needs `judge` (or `criterion`)")),
                None => Ok(None),
            };
        }
        let judge = judge.unwrap_or(DEFAULT_JUDGE);
        if judge.trim().is_empty() {
            return Err(String::from("`judge` must name one of the suite's judges"));
        }
        if criterion.is_some_and(|c| c.trim().is_empty()) {
            return Err(String::from("`criterion` must not be empty"));
        }
        let floor = floor.unwrap_or(JUDGE_FLOOR);
        if !(0.0..=1.0).contains(&floor) {
            return Err(format!("`judge_floor` must be within [0, 1], got {floor}"));
        }
        Ok(Some(JudgeRule {
            judge: judge.to_owned(),
            criterion: criterion.map(str::to_owned),
            floor,
            origin: origin.to_owned(),
        }))
    }
}

/// The field judges that apply at one node.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct FieldRule {
    /// An index into [`CompiledRules::embeddings`].
    pub(crate) embedding: Option<u16>,
    /// An index into [`CompiledRules::judges`].
    pub(crate) judge: Option<u16>,
}
