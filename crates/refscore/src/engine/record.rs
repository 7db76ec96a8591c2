//! One [`Record`] per compared node, and which records a walk keeps.

use crate::detail::{Check, Detail, Outcome};
use crate::path::JsonPath;

/// Which records a walk keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Keep {
    /// None: only the tally and counts.
    None,
    /// Only nodes that did not match.
    #[default]
    Failed,
    /// Every compared leaf.
    All,
}

/// A compared node: its path, values, outcome, leaf score and weight.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// JSON path, e.g. `$.line_items[2].price`.
    pub path: JsonPath,
    /// Reference value as text, cut to 80 characters.
    pub expected: Option<String>,
    /// Output value as text, cut to 80 characters.
    pub actual: Option<String>,
    /// What the comparison came to.
    pub outcome: Outcome,
    /// Leaf score in [0, 1].
    pub score: f64,
    /// Weight of the node within its parent.
    pub weight: f64,
    /// Whether the node is an array element (else an object member or root).
    pub element: bool,
    /// Why the comparison came out as it did (which normalisation made two
    /// values equal, why two elements were paired), when the metric says.
    pub note: Option<String>,
}

impl Record {
    /// The record as a detail: check `json_path.<path>`, with a message
    /// naming the outcome.
    pub fn to_detail(&self) -> Detail {
        self.clone().into_detail()
    }

    /// The record turned into its detail, without copying its path.
    pub fn into_detail(self) -> Detail {
        let mut d = Detail::new(Check::Path(self.path), self.outcome);
        // Already cut to the limit by the walk: moved, not copied.
        d.expected = self.expected;
        d.actual = self.actual;
        if self.outcome == Outcome::Partial {
            d = d.score(self.score);
        }
        let what = if self.element { "element" } else { "key" };
        let msg = match self.outcome {
            Outcome::Match => return if let Some(n) = self.note { d.message(n) } else { d },
            Outcome::Partial => format!("Partial match ({:.3})", self.score),
            Outcome::Missing => format!("Missing {what}"),
            Outcome::Extra => format!("Unexpected {what}"),
            Outcome::TypeMismatch => String::from("Type mismatch"),
            _ => String::from("Value mismatch"),
        };
        match self.note {
            Some(n) => d.message(format!("{msg}: {n}")),
            None => d.message(msg),
        }
    }
}
