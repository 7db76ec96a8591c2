//! The scoring cascade: combining several scores into one.
//!
//! [`weighted_average`] is the one combination rule (Regtrace's
//! `weighted_average`, every weight 1 unless given). [`RowScore`] applies it
//! to the [`Score`]s of one row, keeping only the scores that can be
//! averaged meaningfully:
//!
//! * a score must point the same way as the result: **maximize** (higher is
//!   better). A distance or a count of differences (minimize) grows as the
//!   output gets worse; averaging it with similarities would reward errors,
//!   and it has no fixed upper bound to flip it against. Neutral scores are
//!   informational.
//! * a score must have a number in [0, 1]: an `invalid` score has none (the
//!   row could not be scored by that metric, which says nothing about
//!   quality), and a maximize score outside [0, 1] is on another scale.
//! * its weight must be finite and positive.
//!
//! Everything left out is listed with the reason, so a report can show it.

use crate::score::{Direction, Score};

/// Weighted mean of `(score, weight)` pairs.
///
/// Pairs with a non-finite score or a weight that is not finite and
/// positive are ignored. `None` when no pair is left. The result is
/// finite; with scores in [0, 1] it is in [0, 1].
pub fn weighted_average(items: &[(f64, f64)]) -> Option<f64> {
    let kept: Vec<(f64, f64)> =
        items.iter().copied().filter(|&(s, w)| s.is_finite() && w.is_finite() && w > 0.0).collect();
    // Scale the weights by the largest one so their sum cannot overflow.
    let max = kept.iter().map(|&(_, w)| w).fold(0.0f64, f64::max);
    if max <= 0.0 {
        return None;
    }
    let total: f64 = kept.iter().map(|&(_, w)| w / max).sum();
    let sum: f64 = kept.iter().map(|&(s, w)| s * (w / max / total)).sum();
    Some(crate::number::finite(sum))
}

/// Why a score was left out of a [`RowScore`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Excluded {
    /// An `invalid` score, or one without a number.
    NoScore,
    /// Lower is better (a distance, a count): not averaged with similarities.
    Minimize,
    /// Neither direction: informational.
    Neutral,
    /// A maximize score outside [0, 1] (another scale).
    OutOfRange,
    /// Its weight is zero, negative or not finite.
    NoWeight,
}

impl Excluded {
    /// A short reason for reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Excluded::NoScore => "no score (invalid)",
            Excluded::Minimize => "minimize direction (distance)",
            Excluded::Neutral => "neutral direction",
            Excluded::OutOfRange => "score outside [0, 1]",
            Excluded::NoWeight => "weight not positive",
        }
    }
}

/// The combined score of one row.
#[derive(Debug, Clone, PartialEq)]
pub struct RowScore {
    /// Weighted average of the included scores; `None` if none is included.
    pub score: Option<f64>,
    /// Names of the scores averaged, in input order.
    pub included: Vec<String>,
    /// Names of the scores left out, with the reason, in input order.
    pub excluded: Vec<(String, Excluded)>,
}

impl RowScore {
    /// Combines `(score, weight)` pairs: see the module docs for which
    /// scores count.
    pub fn combine(items: &[(&Score, f64)]) -> RowScore {
        let mut kept = Vec::new();
        let mut row = RowScore { score: None, included: Vec::new(), excluded: Vec::new() };
        for &(s, w) in items {
            let why = match (s.score, s.direction) {
                (None, _) => Some(Excluded::NoScore),
                _ if s.is_invalid() => Some(Excluded::NoScore),
                (_, Direction::Minimize) => Some(Excluded::Minimize),
                (_, Direction::Neutral) => Some(Excluded::Neutral),
                (Some(x), Direction::Maximize) if !(0.0..=1.0).contains(&x) => {
                    Some(Excluded::OutOfRange)
                }
                _ if !(w.is_finite() && w > 0.0) => Some(Excluded::NoWeight),
                _ => None,
            };
            match (why, s.score) {
                (None, Some(x)) => {
                    kept.push((x, w));
                    row.included.push(s.name.clone());
                }
                (Some(why), _) => row.excluded.push((s.name.clone(), why)),
                (None, None) => row.excluded.push((s.name.clone(), Excluded::NoScore)),
            }
        }
        row.score = weighted_average(&kept);
        row
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn averages() {
        assert_eq!(weighted_average(&[(1.0, 1.0), (0.0, 1.0)]), Some(0.5));
        assert_eq!(weighted_average(&[(1.0, 3.0), (0.0, 1.0)]), Some(0.75));
        assert_eq!(weighted_average(&[]), None);
        assert_eq!(weighted_average(&[(1.0, 0.0), (0.5, -1.0)]), None);
        assert_eq!(
            weighted_average(&[(f64::NAN, 1.0), (0.4, 1.0), (0.9, f64::INFINITY)]),
            Some(0.4)
        );
        let big = weighted_average(&[(1.0, f64::MAX), (0.0, f64::MAX)]).unwrap();
        assert!((big - 0.5).abs() < 1e-12);
        let huge = weighted_average(&[(f64::MAX, 1.0), (f64::MAX, 1.0)]).unwrap();
        assert!(huge.is_finite());
    }

    #[test]
    fn row_keeps_only_comparable_scores() {
        let a = Score::new("factuality", Some(0.5));
        let b = Score::new("tone", Some(1.0));
        let dist = Score::new("json_distance", Some(3.0)).with_direction(Direction::Minimize);
        let bad = Score::invalid("json_diff", "output is not JSON");
        let odd = Score::new("count", Some(7.0));
        let info = Score::new("info", Some(0.2)).with_direction(Direction::Neutral);
        let row = RowScore::combine(&[
            (&a, 1.0),
            (&b, 3.0),
            (&dist, 1.0),
            (&bad, 1.0),
            (&odd, 1.0),
            (&info, 1.0),
            (&a, 0.0),
        ]);
        assert_eq!(row.score, Some(0.875));
        assert_eq!(row.included, ["factuality", "tone"]);
        let why: Vec<Excluded> = row.excluded.iter().map(|e| e.1).collect();
        assert_eq!(
            why,
            [
                Excluded::Minimize,
                Excluded::NoScore,
                Excluded::OutOfRange,
                Excluded::Neutral,
                Excluded::NoWeight
            ]
        );
        assert_eq!(RowScore::combine(&[(&bad, 1.0)]).score, None);
    }
}
