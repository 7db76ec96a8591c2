//! What a comparison needs of a run: each row's main score per
//! evaluator, the evaluators' means and the per-field statistics.
//!
//! The same value is built from a run being recorded, from the store and
//! from an output folder (`summary.json` + `results.jsonl`), so that every
//! baseline is compared the same way.

use serde::{Deserialize, Serialize};

use crate::score::Direction;

/// One evaluator of a run, as a comparison sees it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EvaluatorScores {
    /// The evaluator's name in the suite.
    pub name: String,
    /// The metric it runs.
    pub metric: String,
    /// Whether higher or lower scores are better.
    pub direction: Direction,
    /// Mean of its numeric scores over the run.
    pub mean: Option<f64>,
}

/// How one evaluator came out on one row. In JSON: the number, or
/// `"label"`, `"invalid"` or `"failed"`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Cell {
    /// A numeric main score.
    Score(f64),
    /// Completed with a label and no number: a classifier whose choices
    /// carry no scores (`choices: [polite, rude]`).
    Label,
    /// Completed without a number or a label (the `invalid` label).
    Invalid,
    /// The evaluation failed (or the row could not be read).
    Failed,
}

impl Serialize for Cell {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Cell::Score(x) => s.serialize_f64(*x),
            Cell::Label => s.serialize_str("label"),
            Cell::Invalid => s.serialize_str("invalid"),
            Cell::Failed => s.serialize_str("failed"),
        }
    }
}

impl<'de> Deserialize<'de> for Cell {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Number(f64),
            Word(String),
        }
        match Raw::deserialize(d)? {
            Raw::Number(x) => Ok(Cell::Score(x)),
            Raw::Word(w) if w == "label" => Ok(Cell::Label),
            Raw::Word(w) if w == "invalid" => Ok(Cell::Invalid),
            Raw::Word(w) if w == "failed" => Ok(Cell::Failed),
            Raw::Word(w) => Err(serde::de::Error::custom(format!(
                "expected a number, \"label\", \"invalid\" or \"failed\", got \"{w}\""
            ))),
        }
    }
}

impl schemars::JsonSchema for Cell {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Cell".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "An evaluator's outcome on a row: its score, or `label` (a label and no number), `invalid` (neither) or `failed` (the evaluation failed).",
            "oneOf": [{"type": "number"}, {"enum": ["label", "invalid", "failed"]}]
        })
    }
}

impl Cell {
    /// The outcome of an evaluation that completed with this main score
    /// and label: a finite number is a score; else a label other than
    /// `invalid` is a label-only verdict; else invalid.
    pub fn completed(score: Option<f64>, label: Option<&str>) -> Cell {
        match score.filter(|x| x.is_finite()) {
            Some(x) => Cell::Score(x),
            None if label.is_some_and(|l| !l.is_empty() && l != "invalid") => Cell::Label,
            None => Cell::Invalid,
        }
    }

    /// The number, if any.
    pub fn score(self) -> Option<f64> {
        match self {
            Cell::Score(x) => Some(x),
            Cell::Label | Cell::Invalid | Cell::Failed => None,
        }
    }
}

/// One row of a run: its id and one cell per evaluator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RowScores {
    /// The row's id.
    pub id: String,
    /// One per evaluator of [`RunScores::evaluators`], in that order.
    pub cells: Vec<Cell>,
}

/// One field's accuracy over a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FieldAccuracy {
    /// The evaluator that compared the field.
    pub evaluator: String,
    /// The path, `$.line_items[*].price`.
    pub path: String,
    /// (matched + partial credit) / total.
    pub accuracy: f64,
}

/// A run reduced to what a comparison reads.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunScores {
    /// The evaluators, in suite order.
    pub evaluators: Vec<EvaluatorScores>,
    /// The rows, in input order.
    pub rows: Vec<RowScores>,
    /// Per-field accuracy of the JSON metrics.
    pub fields: Vec<FieldAccuracy>,
}

impl RunScores {
    /// The position of an evaluator by name.
    pub fn evaluator(&self, name: &str) -> Option<usize> {
        self.evaluators.iter().position(|e| e.name == name)
    }
}

/// All a run keeps of one row to rebuild its summary without evaluating
/// it again (a resumed run replays these).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RowRecord {
    /// The row's id and one cell per evaluator.
    #[serde(flatten)]
    pub scores: RowScores,
    /// The row score, when the row had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub row_score: Option<f64>,
    /// The evaluators' further scores: (evaluator index, score name, value).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extra: Vec<(u32, String, f64)>,
    /// Whether the row could not be read.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unreadable: bool,
}

#[cfg(test)]
mod tests {
    use super::Cell;

    #[test]
    fn a_completed_evaluation_is_a_score_a_label_or_invalid() {
        assert_eq!(Cell::completed(Some(0.5), Some("partial")), Cell::Score(0.5));
        assert_eq!(Cell::completed(None, Some("polite")), Cell::Label);
        assert_eq!(Cell::completed(None, Some("invalid")), Cell::Invalid);
        assert_eq!(Cell::completed(None, Some("")), Cell::Invalid);
        assert_eq!(Cell::completed(None, None), Cell::Invalid);
        assert_eq!(Cell::completed(Some(f64::NAN), Some("polite")), Cell::Label);
        for c in [Cell::Score(0.25), Cell::Label, Cell::Invalid, Cell::Failed] {
            let text = serde_json::to_string(&c).unwrap();
            assert_eq!(serde_json::from_str::<Cell>(&text).unwrap(), c, "{text}");
        }
    }
}
