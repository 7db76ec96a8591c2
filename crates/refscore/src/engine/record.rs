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
        let msg = match (self.outcome, self.element) {
            (Outcome::Match, _) => return if let Some(n) = self.note { d.message(n) } else { d },
            (Outcome::Partial, _) => {
                let mut m = String::with_capacity(24);
                m.push_str("Partial match (");
                m.push_str(&partial_digits(self.score));
                m.push(')');
                m
            }
            (Outcome::Missing, true) => String::from("Missing element"),
            (Outcome::Missing, false) => String::from("Missing key"),
            (Outcome::Extra, true) => String::from("Unexpected element"),
            (Outcome::Extra, false) => String::from("Unexpected key"),
            (Outcome::TypeMismatch, _) => String::from("Type mismatch"),
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
    three_digits(score).unwrap_or_else(|| more_digits(score))
}

/// `format!("{score:.3}")` for a score strictly between 0.0005 and
/// 0.9995, without the formatter (it cost about a thousand instructions a
/// detail): `None` when the score is outside that range or its thousandths
/// lie so near a half that `f64` rounding might not round as the exact
/// decimal does (those take the formatter).
fn three_digits(score: f64) -> Option<String> {
    let scaled = score * 1000.0;
    // 1..=999 thousandths once rounded; far enough from a half.
    if !(0.5..999.5).contains(&scaled) || ((scaled - scaled.floor()) - 0.5).abs() < 1e-6 {
        return None;
    }
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let n = scaled.round() as u32;
    if !(1..=999).contains(&n) {
        return None;
    }
    let digit = |d: u32| char::from(b'0' + u8::try_from(d % 10).unwrap_or(0));
    let mut s = String::with_capacity(5);
    s.push_str("0.");
    s.extend([digit(n / 100), digit(n / 10), digit(n)]);
    Some(s)
}

/// [`partial_digits`] by the formatter, three digits and more.
fn more_digits(score: f64) -> String {
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
    use super::{more_digits, partial_digits, three_digits};

    /// The formatter-free path writes what the formatter writes, near the
    /// halves and the ends included, or leaves the score to it.
    #[test]
    fn three_digits_agree_with_the_formatter() {
        let mut scores: Vec<f64> = (0..=200_000).map(|i| f64::from(i) / 200_000.0).collect();
        for k in 0..=1000 {
            let half = (f64::from(k) + 0.5) / 1000.0;
            scores.extend([half, half.next_up(), half.next_down(), f64::from(k) / 1000.0]);
        }
        scores.extend([0.0, 1.0, 0.000_5, 0.999_5, 1e-300, 1.0 - f64::EPSILON]);
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            scores.push(f64::from_bits(0x3ff0_0000_0000_0000 | (x >> 12)) - 1.0);
        }
        let mut fast = 0;
        for score in scores {
            if let Some(s) = three_digits(score) {
                assert_eq!(s, format!("{score:.3}"), "{score:e}");
                fast += 1;
            }
            assert_eq!(partial_digits(score), more_digits(score), "{score:e}");
        }
        assert!(fast > 390_000, "{fast}");
    }

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
