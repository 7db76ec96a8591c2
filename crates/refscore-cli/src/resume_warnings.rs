//! The warnings only a whole run reveals (a rule selector that matched
//! nothing), carried across a resume: each recorded batch keeps those
//! still standing after it, so that a resumed run warns exactly as an
//! uninterrupted one.

use std::collections::BTreeMap;

use refscore::runner::PriorBatch;
use refscore::suite::Suite;

/// Per evaluator (by name), the warnings about its configuration that
/// only a whole run reveals (see `Evaluator::warnings`: a rule selector
/// that matched nothing), as they stand after the rows scored so far.
pub(crate) type Standing = BTreeMap<String, Vec<String>>;

/// The key under which a batch's field statistics (kept by the store as
/// text, and read back by readers that skip keys they do not know) carry
/// the warnings standing over the run after that batch.
const STANDING_KEY: &str = "standing_warnings";

/// The warnings the suite's evaluators give now: those of the rows this
/// process evaluated.
pub(crate) fn current_warnings(suite: &Suite) -> Standing {
    suite.evaluators.iter().map(|e| (e.name.clone(), e.evaluator.warnings())).collect()
}

/// What the rows recorded before a resume left standing. An evaluator
/// knows the rows it evaluated, not the replayed ones (a selector that
/// only they matched would be reported as matching nothing): each batch
/// records the warnings standing after it, and a resumed run's warnings
/// are those still standing both before the resume and after its own
/// rows. (A warning of the kind `Evaluator::warnings` gives, once gone,
/// does not come back: a selector that matched stays matched.)
pub(crate) enum Earlier {
    /// No row was recorded before: a new run, or a resume of a run that
    /// had recorded none.
    Nothing,
    /// The warnings the last recorded batch carried.
    Known(Standing),
    /// The rows were recorded without them (by an earlier version).
    Unknown,
}

impl Earlier {
    /// What the recorded batches `prior` left standing.
    pub(crate) fn of(prior: &[PriorBatch]) -> Self {
        if prior.is_empty() {
            return Earlier::Nothing;
        }
        #[derive(serde::Deserialize)]
        struct Carried {
            #[serde(rename = "standing_warnings")]
            standing: Option<Standing>,
        }
        prior
            .iter()
            .rev()
            .filter(|b| b.fields.contains(STANDING_KEY))
            .find_map(|b| serde_json::from_str::<Carried>(&b.fields).ok()?.standing)
            .map_or(Earlier::Unknown, Earlier::Known)
    }

    /// The warnings standing over the whole run: the evaluators' own,
    /// less those the earlier rows cleared; `None` when that cannot be
    /// told.
    pub(crate) fn standing(&self, suite: &Suite) -> Option<Standing> {
        let now = current_warnings(suite);
        match self {
            Earlier::Nothing => Some(now),
            Earlier::Unknown => None,
            Earlier::Known(before) => Some(
                now.into_iter()
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

/// `fields` (a batch's field statistics: a JSON object) with `standing`
/// added under [`STANDING_KEY`]; `None` when it is not a JSON object.
pub(crate) fn with_standing(fields: &str, standing: &Standing) -> Option<String> {
    let mut value: serde_json::Value = serde_json::from_str(fields).ok()?;
    value.as_object_mut()?.insert(STANDING_KEY.to_owned(), serde_json::to_value(standing).ok()?);
    Some(value.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use refscore::runner::PriorBatch;

    /// The field statistics of a batch as the runner gives them.
    const PLAIN: &str = r#"{"dropped":0,"fields":[{"ev":0,"path":"$.a","counts":[1,0,0,0,0],"credit":1,"examples":[]}]}"#;

    fn batch(fields: &str) -> PriorBatch {
        PriorBatch { records: Vec::new(), fields: fields.to_owned() }
    }

    fn standing(warnings: &[&str]) -> Standing {
        [("m".to_owned(), warnings.iter().map(|w| (*w).to_owned()).collect())].into()
    }

    #[test]
    fn a_resume_reads_the_warnings_the_last_batch_that_carries_them_left_standing() {
        let first = with_standing(PLAIN, &standing(&["a", "b"])).unwrap();
        let later = with_standing(PLAIN, &standing(&["b"])).unwrap();
        // The statistics are kept as they were, beside the warnings.
        let value: serde_json::Value = serde_json::from_str(&later).unwrap();
        assert_eq!(value["fields"][0]["path"], "$.a", "{later}");
        assert_eq!(value[STANDING_KEY]["m"], serde_json::json!(["b"]), "{later}");
        assert!(matches!(Earlier::of(&[]), Earlier::Nothing));
        // Batches recorded without them (an earlier version): not known.
        assert!(matches!(Earlier::of(&[batch(PLAIN), batch(PLAIN)]), Earlier::Unknown));
        // A batch carries them when they change: the last one that does.
        let known = Earlier::of(&[batch(&first), batch(&later), batch(PLAIN)]);
        assert!(matches!(&known, Earlier::Known(s) if *s == standing(&["b"])));
        assert_eq!(with_standing("not json", &standing(&[])), None);
    }
}
