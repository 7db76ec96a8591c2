//! What `refscore run` makes of a dataset's shape before scoring it: a CSV
//! header that lacks a column the suite reads in every row stops the run
//! before anything is recorded or written (exit 2), and a JSON array's
//! trailing comma is named after its last row. A CSV stream's header is
//! the run's to read: its rows say what they lack, as before.

use std::io::Write;
use std::process::Command;

use super::{at, code, stderr, write};

const SUITE: &str = "dataset: DATA\nid: id\nevaluators:\n  - name: m\n    metric: json_match\n";

#[test]
fn a_csv_header_without_a_column_read_in_every_row_stops_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "d.csv", "id,output\n1,\"{\"\"x\"\":1}\"\n2,\"{\"\"x\"\":2}\"\n");
    let suite = write(d, "suite.yaml", &SUITE.replace("DATA", "d.csv"));
    let o = at(d, &["run", &suite, "-o", "out", "--quiet"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("evaluators[0] `m`: the header of ")
            && e.contains("d.csv lacks a column this evaluator reads in every row: input `reference` from `reference`: no column `reference` or `expected` and no mapping for it (columns: id, output)"),
        "{e}"
    );
    // Nothing recorded or written: no run store, no output folder.
    assert!(!d.join("out").exists() && !d.join("runs.db").exists());
    assert!(!d.join("refscore-out").exists());
    // Mapped to a column the header has, the rows are scored.
    let mapped = write(
        d,
        "mapped.yaml",
        &format!("{}mapping: {{reference: output}}\n", SUITE.replace("DATA", "d.csv")),
    );
    let o = at(d, &["run", &mapped, "-o", "out", "--quiet", "--no-store"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));

    // From a named pipe the header is not read ahead of the run (that
    // would take it from the run, and block with no writer): the rows
    // fail their evaluation, one by one.
    #[cfg(unix)]
    {
        let fifo = d.join("pipe.csv");
        assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        let suite = write(d, "pipe.yaml", &SUITE.replace("DATA", "pipe.csv"));
        let writer = std::thread::spawn(move || {
            let mut pipe = std::fs::OpenOptions::new().write(true).open(fifo).unwrap();
            pipe.write_all(b"id,output\n1,2\n2,3\n").unwrap();
        });
        let o = at(d, &["run", &suite, "-o", "piped", "--quiet", "--no-store"]);
        writer.join().unwrap();
        assert_eq!(code(&o), 1, "{}", stderr(&o));
        assert!(stderr(&o).contains("2 error(s)"), "{}", stderr(&o));
    }
}

/// An `id` column the header lacks (a misspelt one) stops the run: the
/// rows would be numbered and paired with a baseline's by their order.
#[test]
fn a_csv_header_without_the_id_column_stops_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "d.csv",
        "id,output,reference
1,1,1
2,2,3
",
    );
    let suite =
        write(d, "suite.yaml", &SUITE.replace("DATA", "d.csv").replace("id: id", "id: doc_id"));
    let o = at(d, &["run", &suite, "-o", "out", "--quiet"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("id: the header of ")
            && stderr(&o).contains("d.csv has no column `doc_id` (columns: id, output, reference)"),
        "{}",
        stderr(&o)
    );
    assert!(!d.join("out").exists() && !d.join("runs.db").exists());
    // Without `id`, the rows are numbered, as documented.
    let numbered =
        write(d, "numbered.yaml", &SUITE.replace("DATA", "d.csv").replace("id: id\n", ""));
    let o = at(d, &["run", &numbered, "-o", "out", "--quiet", "--no-store"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(std::fs::read_to_string(d.join("out/results.jsonl")).unwrap().contains(r#""id":"2""#));
}

/// Only a run checks its dataset: a run recorded while the CSV had its
/// columns stays listed, shown and reported after the file loses one (a
/// new run then stops, naming the column).
#[test]
fn recorded_runs_stay_readable_after_the_dataset_loses_a_column() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "d.csv", "id,output,reference\n1,1,1\n2,2,3\n");
    let suite = write(d, "suite.yaml", &SUITE.replace("DATA", "d.csv"));
    let o = at(d, &["run", &suite, "-o", "out", "--quiet"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    write(d, "d.csv", "id,output\n1,1\n2,2\n");
    for args in [
        vec!["runs", "list", "--suite", "suite.yaml"],
        vec!["runs", "show", "1", "--suite", "suite.yaml"],
        vec!["report", "1", "--suite", "suite.yaml", "-o", "rep", "--report", "md"],
    ] {
        let o = at(d, &args);
        assert_eq!(code(&o), 0, "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains("lacks a column"), "{args:?}: {}", stderr(&o));
    }
    assert!(d.join("rep/report.md").is_file());
    let o = at(d, &["run", &suite, "-o", "out2", "--quiet"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("d.csv lacks a column"), "{}", stderr(&o));
}

#[test]
fn a_json_arrays_trailing_comma_is_named_after_its_last_row() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "arr.json",
        "[\n  {\"id\": \"a\", \"output\": 1, \"reference\": 1},\n  {\"id\": \"b\", \"output\": 2, \"reference\": 2},\n]\n",
    );
    let suite = write(d, "suite.yaml", &SUITE.replace("DATA", "arr.json"));
    let o = at(d, &["run", &suite, "-o", "out", "--no-store"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains(
            "arr.json:3: trailing comma after the last element (element 2), at line 3 (byte offset 88): a JSON array has no comma before its closing `]`"
        ),
        "{e}"
    );
    let results = std::fs::read_to_string(d.join("out/results.jsonl")).unwrap();
    let lines: Vec<&str> = results.lines().collect();
    assert_eq!(lines.len(), 3);
    assert!(!results.contains("empty array element"), "{results}");
}
