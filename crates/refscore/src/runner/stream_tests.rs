//! Rows from a stream (a pipe, standard input): scored as they come, and
//! a stop while the stream is silent ends the run. And a reader that
//! fails: an unreadable row, not a shorter dataset.

use std::io::Write as _;
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use super::*;
use crate::dataset::DatasetFormat;
use crate::suite::SuiteFormat;

/// Bound on every wait of this test: it fails, it does not hang.
const BOUND: Duration = Duration::from_secs(30);

#[test]
fn a_streams_rows_are_scored_as_they_come_and_a_stop_ends_the_run_while_it_is_silent() {
    let text = "dataset: rows.jsonl\nid: id\nevaluators:\n  - {name: m, metric: json_match}\n";
    let suite = Suite::from_str(text, SuiteFormat::Yaml, Path::new(".")).unwrap();
    let (reader, mut writer) = std::io::pipe().unwrap();
    let rows =
        dataset::from_reader(Path::new("<stdin>"), Box::new(reader), DatasetFormat::Jsonl).unwrap();
    assert!(rows.is_stream());
    let opts = RunOptions { threads: Some(2), ..RunOptions::default() };
    let cancel = Arc::clone(&opts.cancel);
    let (seen, scored) = mpsc::channel();
    let (done, finished) = mpsc::channel();
    std::thread::spawn(move || {
        let mut on_row = |r: &RowResult, _: &str| {
            let _ = seen.send(r.id.clone());
            Ok(())
        };
        let _ = done.send(run_rows(&suite, rows, &opts, &mut on_row, &|_| {}));
    });
    // Rows written one at a time, the pipe kept open: each is scored
    // before the next is written (a batch does not wait to be full).
    for i in 0..3 {
        writeln!(writer, r#"{{"id": "r{i}", "output": {{"a": {i}}}, "reference": {{"a": 1}}}}"#)
            .unwrap();
        writer.flush().unwrap();
        assert_eq!(
            scored.recv_timeout(BOUND).expect("scored while the pipe is open"),
            format!("r{i}")
        );
    }
    // Nothing more comes; a stop ends the run, which keeps what it scored.
    cancel.store(true, Ordering::SeqCst);
    let summary = finished.recv_timeout(BOUND).expect("the run ends").unwrap();
    assert!(summary.cancelled);
    assert_eq!(summary.rows, 3);
    drop(writer);
}

#[test]
fn a_reader_that_panics_ends_the_rows_with_an_unreadable_one() {
    let text = "dataset: t.jsonl\nid: id\nevaluators:\n  - {name: m, metric: json_match}\n";
    let suite = Suite::from_str(text, SuiteFormat::Yaml, Path::new(".")).unwrap();
    let lines: &[u8] = b"{\"id\": \"a\", \"output\": 1, \"reference\": 1}\n\
                        {\"id\": \"b\", \"output\": 2, \"reference\": 2}\n";
    let rows = dataset::Rows::jsonl_then(lines, std::iter::from_fn(|| panic!("the disk fell off")));
    let mut seen = Vec::new();
    let summary = run_rows(
        &suite,
        rows,
        &RunOptions { threads: Some(1), ..RunOptions::default() },
        &mut |r, _| {
            seen.push((r.id.clone(), r.error.clone()));
            Ok(())
        },
        &|_| {},
    )
    .unwrap();
    assert_eq!(seen.len(), 3, "{seen:?}");
    assert_eq!((seen[0].0.as_str(), seen[1].0.as_str()), ("a", "b"));
    let error = seen[2].1.as_deref().unwrap_or_default();
    assert!(error.contains("t.jsonl:3: the dataset reader failed (the disk fell off)"), "{error}");
    assert_eq!(summary.rows_unreadable, 1);
    assert!(!summary.gate.passed, "a run whose reader failed does not pass");
}
