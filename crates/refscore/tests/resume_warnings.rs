//! The warnings only a whole run reveals (a json_match rule selector that
//! matched nothing), over a run interrupted after its first batch and
//! resumed with the batches it recorded: the library gives those of an
//! uninterrupted run, though the resumed suite's evaluators saw only the
//! rows after the first batch.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use libtest_mimic::Trial;
use refscore::runner::{
    self, BATCH_ROWS, BatchRecord, BatchSink, PriorBatch, RecordedRun, Recording, Resume, RunError,
    RunOptions, WarningScope,
};
use refscore::suite::{Suite, SuiteFormat};
use serde_json::Value;

use crate::plain;

pub(crate) fn trials() -> Vec<Trial> {
    vec![
        plain(
            "resume_warnings::a_run_stopped_by_its_sink_warns_when_resumed_as_a_whole_run_does",
            || resumed_warnings_equal_a_whole_runs(Interrupt::Sink),
        ),
        plain("resume_warnings::a_cancelled_run_warns_when_resumed_as_a_whole_run_does", || {
            resumed_warnings_equal_a_whole_runs(Interrupt::Stop)
        }),
        plain(
            "resume_warnings::rows_recorded_without_their_warnings_leave_those_since_the_resume",
            rows_recorded_without_their_warnings_leave_those_since_the_resume,
        ),
    ]
}

/// The one warning an uninterrupted run gives: `$.early` matched the
/// first row.
const NEVER: &str = "json_match: rule selector `$.never` matched nothing";
const EARLY: &str = "json_match: rule selector `$.early` matched nothing";

/// Rows: more than one batch, the first of which has `early` (the first
/// batch only). The suite's json_match rules name `$.a` (in every row),
/// `$.early` (the first row only) and `$.never` (no row).
fn write_dataset(dir: &Path) {
    let mut text = String::new();
    for i in 0..BATCH_ROWS + 40 {
        let early = if i == 0 { ", \"early\": 1" } else { "" };
        text.push_str(&format!(
            "{{\"id\": {i}, \"output\": {{\"a\": {i}{early}}}, \"reference\": {{\"a\": 1{early}}}}}\n"
        ));
    }
    std::fs::write(dir.join("data.jsonl"), text).unwrap();
}

/// The suite as a new process loads it: evaluators that saw no row.
fn suite(dir: &Path) -> Suite {
    let yaml = "dataset: data.jsonl\nid: id\nevaluators:\n  - name: m\n    metric: json_match\n    options:\n      rules:\n        rules:\n          - {path: $.a, weight: 1}\n          - {path: $.early, weight: 1}\n          - {path: $.never, weight: 1}\n";
    Suite::from_str(yaml, SuiteFormat::Yaml, dir).unwrap()
}

/// Keeps the batches in memory; fails on batch `fail_at`.
struct Memory {
    batches: Vec<PriorBatch>,
    fail_at: Option<usize>,
}

impl BatchSink for Memory {
    fn batch(&mut self, b: BatchRecord) -> Result<(), String> {
        if self.fail_at == Some(self.batches.len()) {
            return Err(String::from("disk full"));
        }
        self.batches.push(PriorBatch { records: b.records, fields: b.fields });
        Ok(())
    }
}

/// Runs `suite` over its dataset, resuming from `prior` when given.
fn run(
    suite: &Suite,
    opts: &RunOptions,
    sink: &mut Memory,
    prior: Option<Vec<PriorBatch>>,
    on_progress: &(dyn Fn(&runner::Progress) + Sync),
) -> Result<RecordedRun, RunError> {
    let rows = refscore::dataset::open(&suite.dataset, suite.format).unwrap();
    let mut replay = prior.map(|b| b.into_iter().map(Ok));
    let resume = replay.as_mut().map(|r| Resume { batches: r as &mut dyn Iterator<Item = _> });
    let recording = Recording { sink: Some(sink), resume };
    runner::run_recorded(suite, rows, opts, &mut |_, _| Ok(()), on_progress, recording)
}

/// `m`'s warnings.
fn of_m(run: &RecordedRun) -> Vec<String> {
    run.warnings
        .evaluators
        .iter()
        .filter(|e| e.name == "m")
        .flat_map(|e| e.warnings.clone())
        .collect()
}

/// How the first part of the run ends, its first batch recorded.
#[derive(Clone, Copy)]
enum Interrupt {
    /// The sink fails on the second batch (a full disk).
    Sink,
    /// A stop asked for once the first batch is done (Ctrl-C).
    Stop,
}

/// The first part of a run, interrupted after its first batch: the
/// batches it recorded.
fn interrupted(dir: &Path, how: Interrupt) -> Vec<PriorBatch> {
    let stop = Arc::new(AtomicBool::new(false));
    let opts = RunOptions { threads: Some(2), cancel: Arc::clone(&stop), ..RunOptions::default() };
    let mut sink = Memory { batches: Vec::new(), fail_at: None };
    let first = match how {
        Interrupt::Sink => {
            sink.fail_at = Some(1);
            let r = run(&suite(dir), &opts, &mut sink, None, &|_| {});
            assert!(matches!(r, Err(RunError::Record(_))), "{r:?}");
            None
        }
        Interrupt::Stop => {
            let r =
                run(&suite(dir), &opts, &mut sink, None, &|_| stop.store(true, Ordering::SeqCst));
            Some(r.unwrap())
        }
    };
    assert_eq!(sink.batches.len(), 1);
    assert_eq!(sink.batches[0].records.len(), BATCH_ROWS);
    if let Some(first) = first {
        // The first part's own warnings: `$.early` matched its first row.
        assert!(first.summary.cancelled);
        assert_eq!(of_m(&first), [NEVER]);
    }
    // Stored where the command line has kept them (readers before the
    // library kept them read them there).
    let fields: Value = serde_json::from_str(&sink.batches[0].fields).unwrap();
    assert_eq!(fields["standing_warnings"]["m"], serde_json::json!([NEVER]), "{fields}");
    sink.batches
}

/// A run interrupted after its first batch, resumed by a suite that saw
/// none of its rows, warns of `$.never` alone, as an uninterrupted run
/// does; without what the first batch recorded, the resumed rows (none of
/// which has `early`) would report `$.early` too.
fn resumed_warnings_equal_a_whole_runs(how: Interrupt) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_dataset(d);
    let opts = RunOptions { threads: Some(2), ..RunOptions::default() };
    let whole =
        run(&suite(d), &opts, &mut Memory { batches: Vec::new(), fail_at: None }, None, &|_| {})
            .unwrap();
    assert_eq!(of_m(&whole), [NEVER]);
    assert_eq!(whole.warnings.scope, WarningScope::Run);

    let prior = interrupted(d, how);
    let resumed_suite = suite(d);
    let mut sink = Memory { batches: Vec::new(), fail_at: None };
    let resumed = run(&resumed_suite, &opts, &mut sink, Some(prior), &|_| {}).unwrap();
    assert_eq!(resumed.summary.rows, whole.summary.rows);
    assert_eq!(sink.batches.len(), 1, "the rows after the first batch");
    // The evaluator itself saw only the resumed rows.
    let own: Vec<String> = resumed_suite.evaluators[0].evaluator.warnings();
    assert_eq!(own, [EARLY, NEVER]);
    assert_eq!(of_m(&resumed), [NEVER]);
    assert_eq!(resumed.warnings, whole.warnings);
    // And the resumed part records what stands over the whole run.
    let fields: Value = serde_json::from_str(&sink.batches[0].fields).unwrap();
    assert_eq!(fields["standing_warnings"]["m"], serde_json::json!([NEVER]), "{fields}");
}

/// Batches recorded without the warnings standing after them (by a
/// version before they were recorded): the resumed run's warnings are
/// those of the rows it scored, said to be; none when it scored none.
fn rows_recorded_without_their_warnings_leave_those_since_the_resume() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write_dataset(d);
    let opts = RunOptions { threads: Some(2), ..RunOptions::default() };
    let mut older = interrupted(d, Interrupt::Sink);
    for b in &mut older {
        let mut fields: serde_json::Map<String, Value> = serde_json::from_str(&b.fields).unwrap();
        fields.remove("standing_warnings");
        b.fields = Value::Object(fields).to_string();
    }
    let mut sink = Memory { batches: Vec::new(), fail_at: None };
    let resumed = run(&suite(d), &opts, &mut sink, Some(older.clone()), &|_| {}).unwrap();
    assert_eq!(resumed.warnings.scope, WarningScope::SinceResume);
    assert_eq!(of_m(&resumed), [EARLY, NEVER]);
    // What cannot be told is not recorded as known.
    assert!(!sink.batches[0].fields.contains("standing_warnings"), "{}", sink.batches[0].fields);
    // Every row recorded before: nothing scored, nothing to tell.
    older.extend(sink.batches);
    let done = run(
        &suite(d),
        &opts,
        &mut Memory { batches: Vec::new(), fail_at: None },
        Some(older),
        &|_| {},
    )
    .unwrap();
    assert_eq!(done.summary.rows, (BATCH_ROWS + 40) as u64);
    assert!(done.warnings.is_empty(), "{:?}", done.warnings);
    assert_eq!(done.warnings.scope, WarningScope::SinceResume);
}
