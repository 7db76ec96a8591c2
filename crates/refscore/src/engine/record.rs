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
            Outcome::Partial => format!("Partial match ({})", partial_digits(self.score)),
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

/// A partial score in the fewest digits (three or more) that show it is
/// neither 1 nor 0: `0.995`, `0.99998`, never `1.000` or `0.000`.
fn partial_digits(score: f64) -> String {
    for digits in 3..=17 {
        let s = format!("{score:.digits$}");
        let zero = s.bytes().all(|b| matches!(b, b'0' | b'.' | b'-'));
        if !s.starts_with("1.") && !zero {
            return s;
        }
    }
    format!("{score:e}")
}

#[cfg(test)]
mod tests {
    use super::partial_digits;

    #[test]
    fn a_partial_score_never_reads_as_whole() {
        let cases = [
            (0.995, "0.995"),
            (0.5, "0.500"),
            (0.999_977, "0.99998"),
            (0.999_5, "0.9995"),
            (1.0 - f64::EPSILON / 2.0, "0.9999999999999999"),
            (0.000_4, "0.0004"),
            (1e-300, "1e-300"),
        ];
        for (score, want) in cases {
            assert_eq!(partial_digits(score), want, "{score}");
        }
    }
}
