//! Carrying the warnings only a whole run reveals across a resume.
//!
//! An evaluator knows the rows it evaluated, not the ones a resume
//! replays: a rule selector that only they matched would be reported as
//! matching nothing. So a recorded batch's `fields` (a JSON object, the
//! field statistics) also carry, under [`KEY`], the warnings standing
//! over the run after it, per evaluator name (the first batch of each
//! part of the run, then each one after which they changed); readers
//! that do not know the key skip it. A resumed run's warnings are those
//! standing both before the resume and after its own rows: a warning of
//! the kind [`crate::Evaluator::warnings`] gives, once gone, does not come
//! back (a selector that matched stays matched).

use std::collections::BTreeMap;

use crate::suite::Suite;

use super::warnings::{EvaluatorWarnings, RunWarnings, WarningScope};

/// Per evaluator name, the warnings standing after the rows scored so far.
type ByName = BTreeMap<String, Vec<String>>;

/// The key of a batch's `fields` under which the standing warnings are
/// kept (the same since they were first recorded, by the command line).
const KEY: &str = "standing_warnings";

/// What the rows recorded before a resume left standing.
#[derive(Debug, Clone, PartialEq)]
enum Earlier {
    /// No row was recorded before: a new run, or a resume of a run that
    /// had recorded none.
    Nothing,
    /// The warnings the last recorded batch that carries them carried.
    Known(ByName),
    /// The rows were recorded without them (by an earlier version).
    Unknown,
}

/// The warnings a run carries over its parts: what the batches replayed
/// left standing, and what this part's batches recorded.
#[derive(Debug)]
pub(super) struct Standing {
    earlier: Earlier,
    /// The warnings the last batch this part recorded carried.
    recorded: Option<ByName>,
    /// Rows evaluated by this part.
    scored: u64,
}

impl Standing {
    /// A run with nothing replayed yet.
    pub(super) fn new() -> Self {
        Standing { earlier: Earlier::Nothing, recorded: None, scored: 0 }
    }

    /// Notes a batch replayed from an earlier part of the run, given its
    /// `fields`: the warnings it carries, if any, are the last known.
    pub(super) fn replayed(&mut self, fields: &str) {
        match carried(fields) {
            Some(standing) => self.earlier = Earlier::Known(standing),
            None if self.earlier == Earlier::Nothing => self.earlier = Earlier::Unknown,
            None => {}
        }
    }

    /// Notes `rows` rows evaluated by this part.
    pub(super) fn scored(&mut self, rows: u64) {
        self.scored += rows;
    }

    /// The `fields` to record for a batch just evaluated, given its field
    /// statistics `snapshot`: with the warnings standing after it when
    /// they changed since the last batch this part recorded (or it is the
    /// first), so that a resume after it knows them. Recorded as they are
    /// when those cannot be told.
    pub(super) fn record(&mut self, suite: &Suite, snapshot: String) -> String {
        let Some(now) = self.now(suite) else { return snapshot };
        if self.recorded.as_ref() == Some(&now) {
            return snapshot;
        }
        match with_standing(&snapshot, &now) {
            Some(fields) => {
                self.recorded = Some(now);
                fields
            }
            None => snapshot,
        }
    }

    /// The warnings over the whole run, once its rows are evaluated.
    pub(super) fn finish(&self, suite: &Suite) -> RunWarnings {
        // A run that evaluated no row (`--limit 0`, an empty dataset, a
        // stop before the first row) gives no evaluator warnings: every
        // selector would have matched nothing. (An evaluator's own
        // warnings stand for "nothing seen" in the intersection of a
        // resumed run's parts, so they cannot be emptied there instead.)
        if self.scored == 0 && matches!(self.earlier, Earlier::Nothing) {
            return RunWarnings::default();
        }
        let (standing, scope) = match self.now(suite) {
            Some(standing) => (standing, WarningScope::Run),
            // Those of this part alone, said so; none when it scored no row
            // (an evaluator that saw no row matched nothing).
            None if self.scored > 0 => (evaluators_own(suite), WarningScope::SinceResume),
            None => (ByName::new(), WarningScope::SinceResume),
        };
        let evaluators = suite
            .evaluators
            .iter()
            .filter_map(|e| {
                let warnings = standing.get(&e.name).filter(|w| !w.is_empty())?.clone();
                Some(EvaluatorWarnings { name: e.name.clone(), warnings })
            })
            .collect();
        RunWarnings { evaluators, scope }
    }

    /// The warnings standing over the whole run so far: the evaluators'
    /// own, less those the replayed rows cleared; `None` when that cannot
    /// be told.
    fn now(&self, suite: &Suite) -> Option<ByName> {
        let own = evaluators_own(suite);
        match &self.earlier {
            Earlier::Nothing => Some(own),
            Earlier::Unknown => None,
            Earlier::Known(before) => Some(
                own.into_iter()
                    .map(|(name, warnings)| {
                        let kept = match before.get(&name) {
                            Some(b) => warnings.into_iter().filter(|w| b.contains(w)).collect(),
                            // Not recorded for this evaluator: cleared.
                            None => Vec::new(),
                        };
                        (name, kept)
                    })
                    .collect(),
            ),
        }
    }
}

/// The warnings the suite's evaluators give now: those of the rows this
/// part evaluated.
fn evaluators_own(suite: &Suite) -> ByName {
    suite.evaluators.iter().map(|e| (e.name.clone(), e.evaluator.warnings())).collect()
}

/// The standing warnings a batch's `fields` carry, if any.
fn carried(fields: &str) -> Option<ByName> {
    #[derive(serde::Deserialize)]
    struct Carried {
        #[serde(rename = "standing_warnings")]
        standing: Option<ByName>,
    }
    // Most batches carry none: those are not parsed.
    if !fields.contains(KEY) {
        return None;
    }
    serde_json::from_str::<Carried>(fields).ok()?.standing
}

/// `fields` (a JSON object) with `standing` added under [`KEY`]; `None`
/// when it is not a JSON object.
fn with_standing(fields: &str, standing: &ByName) -> Option<String> {
    let mut object: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(fields).ok()?;
    object.insert(KEY.to_owned(), serde_json::to_value(standing).ok()?);
    serde_json::to_string(&object).ok()
}

#[cfg(test)]
mod tests;
