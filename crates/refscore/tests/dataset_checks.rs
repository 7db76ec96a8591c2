//! What a dataset's own shape tells before its rows are scored: a JSON
//! array's trailing comma is named, as what follows its last element,
//! and a CSV or Parquet header that lacks a column the suite reads in
//! every row fails the check a run makes before its first row, naming
//! the column, the file and the header's columns (loading the suite does
//! not read the dataset).

use std::path::Path;
use std::sync::Arc;

use libtest_mimic::Trial;
use refscore::runner::{self, RunOptions};
use refscore::suite::{Suite, SuiteFormat};
use serde_json::Value;

use crate::plain;

pub(crate) fn trials() -> Vec<Trial> {
    vec![
        plain(
            "dataset_checks::a_json_arrays_trailing_comma_is_named_after_its_last_row",
            a_json_arrays_trailing_comma_is_named_after_its_last_row,
        ),
        plain(
            "dataset_checks::a_csv_header_without_a_column_read_in_every_row_fails_the_run_check",
            a_csv_header_without_a_column_read_in_every_row_fails_the_run_check,
        ),
        plain(
            "dataset_checks::a_parquet_file_without_a_column_read_in_every_row_fails_the_run_check",
            a_parquet_file_without_a_column_read_in_every_row_fails_the_run_check,
        ),
        plain(
            "dataset_checks::a_suite_with_a_judge_loads_without_opening_a_pipe_dataset",
            a_suite_with_a_judge_loads_without_opening_a_pipe_dataset,
        ),
    ]
}

/// A suite with an LLM evaluator checks its template's inputs against the
/// dataset's first row, but never a pipe's: opening a named pipe waits
/// for a writer (the load hung), and the row read would be the run's.
fn a_suite_with_a_judge_loads_without_opening_a_pipe_dataset() {
    #[cfg(unix)]
    {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let fifo = d.join("rows.jsonl");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        let suite = d.join("suite.yaml");
        std::fs::write(
            &suite,
            "dataset: rows.jsonl\njudge: {model: m, base_url: \"http://127.0.0.1:9/v1\"}\nevaluators:\n  - {name: g, metric: hallucination}\n",
        )
        .unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let loading = std::thread::spawn(move || {
            tx.send(Suite::load(&suite).and_then(|s| s.check_dataset()).is_ok())
        });
        let loaded = rx.recv_timeout(std::time::Duration::from_secs(20));
        if loaded.is_err() {
            // Blocked opening the pipe: a writer that closes at once
            // releases it, so that the test ends.
            drop(std::fs::OpenOptions::new().write(true).open(&fifo));
        }
        loading.join().unwrap().ok();
        assert_eq!(loaded, Ok(true), "the load opened the pipe (or failed)");
    }
}

/// Runs the suite over its dataset: its result lines, and its rows and
/// unreadable rows as the summary counts them.
fn run(suite: &Suite) -> (Vec<Value>, u64, u64) {
    let mut lines = Vec::new();
    let summary = runner::run(
        suite,
        &RunOptions { threads: Some(1), ..RunOptions::default() },
        &mut |_, line| {
            lines.push(serde_json::from_str(line).unwrap());
            Ok(())
        },
        &|_| {},
    )
    .unwrap();
    (lines, summary.rows, summary.rows_unreadable)
}

fn a_json_arrays_trailing_comma_is_named_after_its_last_row() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("arr.json"),
        "[\n  {\"id\": \"a\", \"output\": {\"x\": 1}, \"reference\": {\"x\": 1}},\n  {\"id\": \"b\", \"output\": {\"x\": 2}, \"reference\": {\"x\": 2}},\n]\n",
    )
    .unwrap();
    let yaml = "dataset: arr.json\nid: id\nevaluators:\n  - name: m\n    metric: json_match\n";
    let suite = Suite::from_str(yaml, SuiteFormat::Yaml, d).unwrap();
    let (lines, rows, unreadable) = run(&suite);
    assert_eq!(lines.len(), 3);
    assert_eq!((lines[0]["id"].as_str(), lines[1]["id"].as_str()), (Some("a"), Some("b")));
    assert!(lines[..2].iter().all(|l| l["scores"][0]["score"] == 1.0));
    // The comma is no third element: one error after the last row, as an
    // array left open or text after its `]` would be.
    let error = lines[2]["error"].as_str().unwrap();
    let file = d.join("arr.json");
    assert_eq!(
        error,
        format!(
            "{}:3: trailing comma after the last element (element 2), at line 3 (byte offset 116): a JSON array has no comma before its closing `]`",
            file.display()
        )
    );
    assert_eq!((rows, unreadable), (3, 1));
}

/// The suite `yaml`, written to `suite.yaml` in `d` and loaded: a load
/// never reads the dataset, so it succeeds whatever the dataset lacks
/// (commands that read recorded runs load the suite too).
fn load(d: &Path, yaml: &str) -> Suite {
    let path = d.join("suite.yaml");
    std::fs::write(&path, yaml).unwrap();
    Suite::load(&path).unwrap_or_else(|e| panic!("the load read the dataset: {e}"))
}

/// The error of the run's check of the dataset of the suite `yaml`.
fn check_error(d: &Path, yaml: &str) -> String {
    load(d, yaml).check_dataset().err().map(|e| e.to_string()).unwrap_or_default()
}

fn passes_check(d: &Path, yaml: &str) -> bool {
    load(d, yaml).check_dataset().is_ok()
}

fn a_csv_header_without_a_column_read_in_every_row_fails_the_run_check() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("d.csv"), "id,output\n1,\"{\"\"x\"\":1}\"\n2,\"{\"\"x\"\":2}\"\n")
        .unwrap();
    let suite = "dataset: d.csv\nid: id\nevaluators:\n  - name: m\n    metric: json_match\n";
    // json_match needs `reference` (or `expected`) in every row.
    let e = check_error(d, suite);
    assert_eq!(
        e,
        format!(
            "{}: evaluators[0] `m`: the header of {} lacks a column this evaluator reads in every row: input `reference` from `reference`: no column `reference` or `expected` and no mapping for it (columns: id, output)",
            d.join("suite.yaml").display(),
            d.join("d.csv").display()
        )
    );
    // A mapped column the header lacks: named as the mapping names it,
    // whether the suite or the evaluator maps it, and for the evaluator
    // that reads it.
    let e = check_error(
        d,
        "dataset: d.csv\nmapping: {reference: gold}\nevaluators:\n  - {name: a, metric: json_match, mapping: {reference: output}}\n  - {name: b, metric: json_match}\n",
    );
    assert!(e.contains("evaluators[1] `b`: the header of "), "{e}");
    assert!(
        e.ends_with("input `reference` from `gold`: no such column (columns: id, output)"),
        "{e}"
    );
    // A format set in the suite, not the extension, says the file has a header.
    std::fs::copy(d.join("d.csv"), d.join("d.txt")).unwrap();
    let e = check_error(d, &suite.replace("d.csv", "d.txt").replace("id: id", "format: csv"));
    assert!(e.contains("d.txt lacks a column"), "{e}");

    // Whatever a row with these columns can give: an input's column, or
    // `expected` for `reference`; a path, which may reach into another
    // column; an optional input (json_diff's `weights`).
    assert!(passes_check(d, &format!("{suite}mapping: {{reference: output}}\n")));
    assert!(passes_check(d, &format!("{suite}mapping: {{reference: output.x}}\n")));
    assert!(passes_check(d, &format!("{suite}mapping: {{reference: '$.anything'}}\n")));
    std::fs::write(d.join("e.csv"), "id,output,expected\n1,2,2\n").unwrap();
    assert!(passes_check(d, &suite.replace("d.csv", "e.csv")));
    let weights = "dataset: e.csv\nmapping: {weights: w}\nevaluators: [{metric: json_diff}]\n";
    assert!(passes_check(d, weights));
    // Without a header, rows are left to say what they lack, one by one:
    // a JSONL file or a JSON array.
    std::fs::write(d.join("d.jsonl"), "{\"id\": 1, \"output\": 1}\n").unwrap();
    assert!(passes_check(d, &suite.replace("d.csv", "d.jsonl")));
    std::fs::write(d.join("d.json"), "[{\"id\": 1, \"output\": 1}]").unwrap();
    assert!(passes_check(d, &suite.replace("d.csv", "d.json")));
    // A dataset that cannot be opened is left to the run to report (a
    // missing file, a header naming a column twice).
    assert!(passes_check(d, &suite.replace("d.csv", "none.csv")));
    std::fs::write(d.join("twice.csv"), "id,id\n1,2\n").unwrap();
    assert!(passes_check(d, &suite.replace("d.csv", "twice.csv")));
    // A stream is neither opened nor read by the load: its header is the
    // run's to read (a named pipe with no writer would block the open).
    #[cfg(unix)]
    {
        let fifo = d.join("pipe.csv");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        assert!(passes_check(d, &suite.replace("d.csv", "pipe.csv")));
    }
}

fn a_parquet_file_without_a_column_read_in_every_row_fails_the_run_check() {
    use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
    use arrow_schema::{DataType, Field, Schema};

    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let schema = Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new("output", DataType::Utf8, false),
    ]));
    let columns: Vec<ArrayRef> =
        vec![Arc::new(Int64Array::from(vec![1, 2])), Arc::new(StringArray::from(vec!["a", "b"]))];
    let batch = RecordBatch::try_new(Arc::clone(&schema), columns).unwrap();
    let file = std::fs::File::create(d.join("d.parquet")).unwrap();
    let mut writer = parquet::arrow::ArrowWriter::try_new(file, schema, None).unwrap();
    writer.write(&batch).unwrap();
    writer.close().unwrap();
    let suite = "dataset: d.parquet\nid: id\nevaluators:\n  - name: m\n    metric: exact_match\n";
    let e = check_error(d, suite);
    assert!(
        e.ends_with(&format!(
            "evaluators[0] `m`: the header of {} lacks a column this evaluator reads in every row: input `reference` from `reference`: no column `reference` or `expected` and no mapping for it (columns: id, output)",
            d.join("d.parquet").display()
        )),
        "{e}"
    );
    assert!(passes_check(d, &format!("{suite}mapping: {{reference: output}}\n")));
}
