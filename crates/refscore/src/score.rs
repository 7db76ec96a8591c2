//! The result of one evaluation: [`Score`], with its [`Direction`] and [`Kind`].

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::detail::Detail;

/// Whether a higher or a lower score is better.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Higher is better (similarities, pass rates).
    #[default]
    Maximize,
    /// Lower is better (distances, counts of differences).
    Minimize,
    /// Neither: the score is informational.
    Neutral,
}

impl Direction {
    /// The name used in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Maximize => "maximize",
            Direction::Minimize => "minimize",
            Direction::Neutral => "neutral",
        }
    }
}

/// Where an evaluation signal comes from.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Deterministic code (every metric in this crate).
    #[default]
    Code,
    /// A language-model judge.
    Llm,
    /// A human annotation.
    Human,
}

impl Kind {
    /// The name used in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Code => "code",
            Kind::Llm => "llm",
            Kind::Human => "human",
        }
    }
}

/// One evaluation result, serialised as JSON.
///
/// `score` is `None` when the evaluation could not produce a number (for
/// example an input that is not JSON: the label is then `invalid` and the
/// explanation says why). A score is never NaN or infinite.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Score {
    /// Name of the score (usually the metric or evaluator name).
    pub name: String,
    /// Numeric score, or `None` when there is none.
    pub score: Option<f64>,
    /// Categorical outcome (`match`, `mismatch`, `partial`, `invalid`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Human-readable rationale.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explanation: Option<String>,
    /// Optimisation direction.
    pub direction: Direction,
    /// Source of the signal.
    pub kind: Kind,
    /// Extra context (counts, extraction notes, precision/recall, ...).
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub metadata: Map<String, Value>,
    /// Assertion-level details, one per check.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<Detail>,
}

impl Score {
    /// A score with the given name and value, direction maximize, kind code.
    pub fn new(name: impl Into<String>, score: Option<f64>) -> Self {
        Score {
            name: name.into(),
            score: score.map(crate::number::finite),
            label: None,
            explanation: None,
            direction: Direction::Maximize,
            kind: Kind::Code,
            metadata: Map::new(),
            details: Vec::new(),
        }
    }

    /// An `invalid` result: no score, the reason as explanation.
    pub fn invalid(name: impl Into<String>, reason: impl Into<String>) -> Self {
        Score::new(name, None).with_label("invalid").with_explanation(reason)
    }

    /// Sets the label.
    #[must_use]
    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    /// Sets the explanation.
    #[must_use]
    pub fn with_explanation(mut self, text: impl Into<String>) -> Self {
        self.explanation = Some(text.into());
        self
    }

    /// Sets the direction.
    #[must_use]
    pub fn with_direction(mut self, direction: Direction) -> Self {
        self.direction = direction;
        self
    }

    /// Adds one metadata entry.
    #[must_use]
    pub fn with_meta(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.metadata.insert(key.to_owned(), value.into());
        self
    }

    /// Whether this score is `invalid` (no number could be computed).
    pub fn is_invalid(&self) -> bool {
        self.label.as_deref() == Some("invalid")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serialises_without_empty_fields() {
        let s = Score::new("m", Some(0.5)).with_label("partial");
        let v: Value = serde_json::from_str(&s.to_json()).unwrap();
        assert_eq!(v["name"], "m");
        assert_eq!(v["score"], 0.5);
        assert_eq!(v["direction"], "maximize");
        assert_eq!(v["kind"], "code");
        assert!(v.get("details").is_none());
        assert!(v.get("metadata").is_none());
    }

    #[test]
    fn invalid_has_null_score() {
        let s = Score::invalid("m", "bad");
        let v: Value = serde_json::from_str(&s.to_json()).unwrap();
        assert!(v["score"].is_null());
        assert_eq!(v["label"], "invalid");
        assert!(s.is_invalid());
    }
}
