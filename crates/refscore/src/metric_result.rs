//! Per-evaluator results of one row in the shape reports and other tools
//! read: each evaluator's score, whether the row passed it, and its failed
//! details, at most [`DEFAULT_MAX_DETAILS`] of them then one `+ N more`
//! entry (`metric_results` in `results.jsonl`).

use serde::{Deserialize, Serialize};

use crate::detail::{Detail, more_count};
pub use crate::detail::{MORE_PREFIX, is_more_entry, more_entry};
use crate::score::Score;

/// Failed details listed per evaluator and row unless the run says otherwise.
pub const DEFAULT_MAX_DETAILS: usize = 10;

/// What one evaluator came to on one row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct MetricResult {
    /// The evaluator's main score; `None` when it gave no number or failed.
    pub score: Option<f64>,
    /// Whether the row passed the evaluator's threshold; `None` without a
    /// threshold.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passed: Option<bool>,
    /// The failed details of all the evaluator's scores, at most
    /// `max_details`, then one `+ N more` entry.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<Detail>,
}

impl MetricResult {
    /// The result of an evaluator from its scores (main score first) and
    /// pass verdict, listing at most `max_details` failed details.
    pub fn from_scores(scores: &[Score], passed: Option<bool>, max_details: usize) -> Self {
        // A metric that kept only some of its details closes them with a
        // `+ N more` entry of its own: its N are counted, not listed.
        let already: u64 = scores
            .iter()
            .flat_map(|s| s.details.last())
            .filter(|d| is_more_entry(d))
            .map(more_count)
            .sum();
        let failed =
            scores.iter().flat_map(|s| s.details.iter()).filter(|d| !d.passed && !is_more_entry(d));
        let (details, more) = capped(failed, max_details);
        let more = more + already;
        let mut details: Vec<Detail> = details.into_iter().cloned().collect();
        if more > 0 {
            details.push(more_entry(more));
        }
        MetricResult { score: scores.first().and_then(|s| s.score), passed, details }
    }

    /// The listed details, without the `+ N more` entry, and how many were
    /// left out.
    pub fn listed(&self) -> (&[Detail], u64) {
        match self.details.split_last() {
            Some((last, rest)) if is_more_entry(last) => (rest, more_count(last)),
            _ => (&self.details, 0),
        }
    }
}

/// Details made by `detail` of the first `max` of `items`, and how many
/// items followed (counted, not made): for a metric keeping at most
/// [`crate::limits::MAX_KEPT_DETAILS`], closed by [`more_entry`].
pub fn first_details<T>(
    items: impl Iterator<Item = T>,
    max: usize,
    detail: impl FnMut(T) -> Detail,
) -> (Vec<Detail>, u64) {
    let (kept, more) = capped(items, max);
    (kept.into_iter().map(detail).collect(), more)
}

/// Gathers the `+ N more` entries of `details` (one per part of a metric
/// that kept only some of its details) into one, closing the list, where
/// [`MetricResult::from_scores`] reads it.
pub fn close_more(details: &mut Vec<Detail>) {
    let mut more = 0u64;
    details.retain(|d| {
        let entry = is_more_entry(d);
        if entry {
            more += more_count(d);
        }
        !entry
    });
    if more > 0 {
        details.push(more_entry(more));
    }
}

/// The first `max` items and how many followed.
fn capped<T>(items: impl Iterator<Item = T>, max: usize) -> (Vec<T>, u64) {
    let mut kept = Vec::new();
    let mut more = 0u64;
    for item in items {
        if kept.len() < max {
            kept.push(item);
        } else {
            more += 1;
        }
    }
    (kept, more)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detail::Outcome;

    fn score_with(n: usize) -> Score {
        let mut s = Score::new("fields", Some(0.5));
        s.details = (0..n)
            .map(|i| Detail::new(format!("c{i}"), Outcome::Fail))
            .chain([Detail::new("ok", Outcome::Pass)])
            .collect();
        s
    }

    #[test]
    fn caps_failed_details_with_one_more_entry() {
        let r = MetricResult::from_scores(&[score_with(13)], Some(false), 10);
        assert_eq!(r.details.len(), 11);
        assert_eq!(r.details[10].check, "+ 3 more");
        assert_eq!(r.score, Some(0.5));
        let (listed, more) = r.listed();
        assert_eq!((listed.len(), more), (10, 3));
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["details"][10]["check"], "+ 3 more");
        assert_eq!(json["passed"], false);
    }

    #[test]
    fn passed_details_are_left_out_and_short_lists_stay_whole() {
        let r = MetricResult::from_scores(&[score_with(2)], None, 10);
        assert_eq!(r.details.len(), 2);
        assert_eq!(r.listed().1, 0);
        assert!(serde_json::to_value(&r).unwrap().get("passed").is_none());
        let none = MetricResult::from_scores(&[], None, 10);
        assert_eq!((none.score, none.details.len()), (None, 0));
    }
}
