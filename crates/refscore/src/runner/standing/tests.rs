use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use super::*;
use crate::error::EvalError;
use crate::evaluator::{EvalInput, Evaluation, Evaluator, InputSpec};
use crate::mapping::InputMapping;
use crate::suite::SuiteEvaluator;

/// The field statistics of a batch as the runner gives them.
const PLAIN: &str = r#"{"dropped":0,"fields":[{"ev":0,"path":"$.a","counts":[1,0,0,0,0],"credit":1,"examples":[]}]}"#;

/// An evaluator whose warnings are set from outside: those of the rows
/// "it evaluated".
struct Warns(Arc<Mutex<Vec<String>>>);

impl Evaluator for Warns {
    fn name(&self) -> &str {
        "warns"
    }
    fn inputs(&self) -> &[InputSpec] {
        &[]
    }
    fn compute(&self, _: &EvalInput<'_>) -> Result<Evaluation, EvalError> {
        Err(EvalError::Failed("not run".into()))
    }
    fn warnings(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }
}

/// A suite of one evaluator `m`, and the handle that sets its warnings.
fn suite() -> (Suite, Arc<Mutex<Vec<String>>>) {
    let own = Arc::new(Mutex::new(Vec::new()));
    let suite = Suite {
        path: PathBuf::from("suite.yaml"),
        name: None,
        dataset: PathBuf::from("data.jsonl"),
        format: None,
        id_column: None,
        evaluators: vec![SuiteEvaluator {
            name: "m".into(),
            metric: "warns".into(),
            evaluator: Box::new(Warns(Arc::clone(&own))),
            mapping: InputMapping::new(),
            threshold: None,
            weight: 1.0,
        }],
        gate: crate::summary::Gate::default(),
        judges: Arc::default(),
        regression: crate::history::RegressionPolicy::default(),
        tags: BTreeMap::new(),
        links: BTreeMap::new(),
        config_files: Vec::new(),
    };
    (suite, own)
}

fn set(own: &Mutex<Vec<String>>, warnings: &[&str]) {
    *own.lock().unwrap() = warnings.iter().map(|w| (*w).to_owned()).collect();
}

fn standing(warnings: &[&str]) -> ByName {
    [("m".to_owned(), warnings.iter().map(|w| (*w).to_owned()).collect())].into()
}

/// `m`'s warnings as the run gives them.
fn given(w: &RunWarnings) -> (Vec<String>, WarningScope) {
    let m = w.evaluators.iter().find(|e| e.name == "m").map(|e| e.warnings.clone());
    (m.unwrap_or_default(), w.scope)
}

fn replayed(batches: &[&str]) -> Standing {
    let mut s = Standing::new();
    for b in batches {
        s.replayed(b);
    }
    s
}

#[test]
fn a_resume_reads_the_warnings_the_last_batch_that_carries_them_left_standing() {
    let first = with_standing(PLAIN, &standing(&["a", "b"])).unwrap();
    let later = with_standing(PLAIN, &standing(&["b"])).unwrap();
    // The statistics are kept as they were, beside the warnings.
    let value: serde_json::Value = serde_json::from_str(&later).unwrap();
    assert_eq!(value["fields"][0]["path"], "$.a", "{later}");
    assert_eq!(value[KEY]["m"], serde_json::json!(["b"]), "{later}");
    assert!(crate::summary::FieldStats::from_snapshot(&later).is_ok(), "{later}");
    assert_eq!(replayed(&[]).earlier, Earlier::Nothing);
    // Batches recorded without them (an earlier version): not known.
    assert_eq!(replayed(&[PLAIN, PLAIN]).earlier, Earlier::Unknown);
    // A batch carries them when they change: the last one that does.
    assert_eq!(replayed(&[&first, &later, PLAIN]).earlier, Earlier::Known(standing(&["b"])));
    assert_eq!(with_standing("not json", &standing(&[])), None);
    // The key in a statistic's text (a field's path) is not taken for them.
    let named = PLAIN.replace("$.a", "$.standing_warnings");
    assert_eq!(replayed(&[&first, &named]).earlier, Earlier::Known(standing(&["a", "b"])));
}

#[test]
fn a_resumed_run_keeps_the_warnings_standing_before_it_and_still_standing() {
    let (suite, own) = suite();
    // The evaluator saw only the resumed rows: `a` and `b` stand there, but
    // the recorded rows had cleared `a`.
    set(&own, &["a", "b"]);
    let before = with_standing(PLAIN, &standing(&["b", "c"])).unwrap();
    let warnings = replayed(&[&before]).finish(&suite);
    assert_eq!(given(&warnings), (vec!["b".to_owned()], WarningScope::Run));
    // An evaluator the recorded rows left no entry for is cleared.
    let other = with_standing(PLAIN, &[("other".to_owned(), vec!["a".to_owned()])].into());
    assert!(replayed(&[&other.unwrap()]).finish(&suite).is_empty());
    // A new run: the evaluators' own, once it scored a row.
    let mut fresh = Standing::new();
    fresh.scored(1);
    let fresh = fresh.finish(&suite);
    assert_eq!(given(&fresh), (vec!["a".to_owned(), "b".to_owned()], WarningScope::Run));
    // A run that evaluated no row (`--limit 0`, an empty dataset) has
    // nothing to warn of: every selector would have matched nothing.
    assert!(Standing::new().finish(&suite).is_empty());
}

#[test]
fn rows_recorded_without_their_warnings_leave_those_of_the_resumed_rows_said_so() {
    let (suite, own) = suite();
    set(&own, &["a"]);
    let mut s = replayed(&[PLAIN]);
    // Nothing scored since the resume: nothing to tell.
    assert_eq!(given(&s.finish(&suite)), (Vec::new(), WarningScope::SinceResume));
    s.scored(3);
    // What cannot be told is not recorded either.
    assert_eq!(s.record(&suite, PLAIN.to_owned()), PLAIN);
    assert_eq!(given(&s.finish(&suite)), (vec!["a".to_owned()], WarningScope::SinceResume));
}

#[test]
fn a_batch_carries_the_standing_warnings_when_they_changed() {
    let (suite, own) = suite();
    set(&own, &["a", "b"]);
    let mut s = Standing::new();
    let carries = |fields: &str| carried(fields);
    // The first batch of a part carries them; the next ones only once they
    // change.
    assert_eq!(carries(&s.record(&suite, PLAIN.to_owned())), Some(standing(&["a", "b"])));
    assert_eq!(s.record(&suite, PLAIN.to_owned()), PLAIN);
    set(&own, &["b"]);
    assert_eq!(carries(&s.record(&suite, PLAIN.to_owned())), Some(standing(&["b"])));
    // Statistics that are not an object are recorded as they are, and the
    // next batch carries the change.
    set(&own, &[]);
    assert_eq!(s.record(&suite, String::from("[]")), "[]");
    assert_eq!(carries(&s.record(&suite, PLAIN.to_owned())), Some(standing(&[])));
    // A resumed part starts over from what the recorded rows left.
    let mut resumed = replayed(&[&with_standing(PLAIN, &standing(&["b"])).unwrap()]);
    set(&own, &["a", "b"]);
    assert_eq!(carries(&resumed.record(&suite, PLAIN.to_owned())), Some(standing(&["b"])));
}
