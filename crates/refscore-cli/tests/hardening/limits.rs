//! Files read whole are read no further than their limit: configuration
//! files (suite, rules, schemas, weights) at `MAX_CONFIG_BYTES`, the two
//! inputs of `compare` at `MAX_TEXT_BYTES`, an output folder's
//! `summary.json` read back at `MAX_SUMMARY_BYTES` and each line of its
//! `results.jsonl` at `MAX_RESULT_LINE_BYTES`. A device that never ends
//! (`/dev/zero`) or a huge file is refused quickly, naming the file and
//! the limit, with exit code 2.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use refscore::limits::{
    MAX_CONFIG_BYTES, MAX_RESULT_LINE_BYTES, MAX_SUMMARY_BYTES, MAX_TEXT_BYTES,
};

use super::super::{code, stderr, write};

/// `refscore ARGS` in `dir`, killed (and the test failed) after 60 s:
/// reading a device whole would run until memory ran out.
fn bounded(dir: &Path, args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_refscore"))
        .args(args)
        .env("REFSCORE_STORE", dir.join("runs.db"))
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawns");
    let start = Instant::now();
    while child.try_wait().expect("waits").is_none() {
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("refscore {args:?} still reading after 60 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().expect("runs")
}

/// A file of `len` bytes: `{}` then spaces, so that it would parse.
fn sized(dir: &Path, name: &str, len: usize) -> String {
    let mut text = String::from("{}");
    text.push_str(&" ".repeat(len - 2));
    write(dir, name, &text)
}

/// Exit code 2, and stderr names `file` and `limit`.
fn refused(o: &Output, file: &str, limit: usize, what: &str) {
    let err = stderr(o);
    assert_eq!(code(o), 2, "{what}: {err}");
    assert!(
        err.contains(file) && err.contains(&format!("limit of {limit} bytes")),
        "{what}: {err}"
    );
}

const DATA: &str = "{\"id\": 1, \"output\": {\"a\": 1}, \"reference\": {\"a\": 1}}\n";

#[test]
fn config_files_over_the_limit_are_refused_naming_file_and_limit() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "d.jsonl", DATA);
    let over = MAX_CONFIG_BYTES + 1;
    sized(d, "rules.json", over);
    sized(d, "schema.json", over);
    sized(d, "weights.json", over);
    sized(d, "fine.json", MAX_CONFIG_BYTES);
    let suite = |name: &str, options: &str, padding: &str| {
        let text = format!("dataset: d.jsonl\nevaluators:\n  - {{metric: {options}}}\n{padding}");
        write(d, name, &text)
    };
    suite("rules.yaml", "json_match, options: {rules: rules.json}", "");
    suite("from_schema.yaml", "json_match, options: {rules_from_schema: rules.json}", "");
    suite("schema.yaml", "format, options: {json_schema: {file: schema.json}}", "");
    // A comment pads the suite itself past the limit.
    suite("big.yaml", "json_diff", &format!("#{}\n", "x".repeat(over)));
    for (args, file) in [
        (vec!["run", "rules.yaml", "--no-store", "-q"], "rules.json"),
        (vec!["run", "from_schema.yaml", "--no-store", "-q"], "rules.json"),
        (vec!["run", "schema.yaml", "--no-store", "-q"], "schema.json"),
        (vec!["run", "big.yaml", "--no-store", "-q"], "big.yaml"),
        (
            vec!["compare", "-m", "json_match", "--rules", "rules.json", "d.jsonl", "d.jsonl"],
            "rules.json",
        ),
        (
            vec!["compare", "-m", "json_diff", "--weights", "weights.json", "d.jsonl", "d.jsonl"],
            "weights.json",
        ),
    ] {
        refused(&bounded(d, &args), file, MAX_CONFIG_BYTES, &format!("{args:?}"));
    }
    // At the limit, a file is read.
    let o =
        bounded(d, &["compare", "-m", "json_diff", "--weights", "fine.json", "d.jsonl", "d.jsonl"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
}

#[test]
fn compare_inputs_over_the_text_limit_are_refused_before_being_read() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "r.json", "{}");
    // A mark before the text does not count against the limit.
    let mut at_limit = String::from('\u{feff}');
    at_limit.push_str("{}");
    at_limit.push_str(&" ".repeat(MAX_TEXT_BYTES - 2));
    write(d, "at.json", &at_limit);
    let o = bounded(d, &["compare", "--json", "at.json", "r.json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    sized(d, "over.json", MAX_TEXT_BYTES + 1);
    let o = bounded(d, &["compare", "over.json", "r.json"]);
    refused(&o, "over.json", MAX_TEXT_BYTES, "an output over the limit");
    assert!(stderr(&o).contains(&format!("{} bytes long", MAX_TEXT_BYTES + 1)), "{}", stderr(&o));
    let o = bounded(d, &["compare", "r.json", "over.json"]);
    refused(&o, "over.json", MAX_TEXT_BYTES, "a reference over the limit");
}

/// A device that never ends, as every file read whole: refused in about
/// the time it takes to read the limit.
#[cfg(target_os = "linux")]
#[test]
fn an_endless_device_is_read_no_further_than_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "d.jsonl", DATA);
    write(d, "r.json", "{}");
    std::os::unix::fs::symlink("/dev/zero", d.join("zero.yaml")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", d.join("zero.json")).unwrap();
    let suite = |name: &str, options: &str| {
        write(d, name, &format!("dataset: d.jsonl\nevaluators:\n  - {{metric: {options}}}\n"))
    };
    suite("rules.yaml", "json_match, options: {rules: zero.json}");
    suite("schema.yaml", "format, options: {json_schema: {file: /dev/zero}}");
    for (args, file, limit) in [
        (vec!["run", "zero.yaml", "--no-store", "-q"], "zero.yaml", MAX_CONFIG_BYTES),
        (vec!["run", "rules.yaml", "--no-store", "-q"], "zero.json", MAX_CONFIG_BYTES),
        (vec!["run", "schema.yaml", "--no-store", "-q"], "/dev/zero", MAX_CONFIG_BYTES),
        (
            vec!["compare", "-m", "json_match", "--rules", "zero.yaml", "r.json", "r.json"],
            "zero.yaml",
            MAX_CONFIG_BYTES,
        ),
        (
            vec!["compare", "--weights", "/dev/zero", "r.json", "r.json"],
            "/dev/zero",
            MAX_CONFIG_BYTES,
        ),
        (vec!["compare", "-m", "json_match", "/dev/zero", "r.json"], "/dev/zero", MAX_TEXT_BYTES),
        (vec!["compare", "r.json", "zero.json"], "zero.json", MAX_TEXT_BYTES),
    ] {
        refused(&bounded(d, &args), file, limit, &format!("{args:?}"));
    }
}

/// An output folder read back (`report FOLDER`, `run --baseline FOLDER`)
/// whose `summary.json` never ends is refused, not read until memory
/// runs out.
#[test]
fn a_summary_read_back_is_read_no_further_than_its_limit() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "d.jsonl", DATA);
    write(d, "s.yaml", "dataset: d.jsonl\nid: id\nevaluators:\n  - {metric: json_match}\n");
    std::fs::create_dir(d.join("old")).unwrap();
    write(d, "old/results.jsonl", "");
    // A file past the limit (sparse: nothing is written but its length).
    let big = std::fs::File::create(d.join("old/summary.json")).unwrap();
    big.set_len(MAX_SUMMARY_BYTES as u64 + 1).unwrap();
    drop(big);
    let o = bounded(d, &["report", "old", "-o", "rep"]);
    refused(&o, "summary.json", MAX_SUMMARY_BYTES, "report");
    let o = bounded(d, &["run", "s.yaml", "--no-store", "-q", "--baseline", "old"]);
    refused(&o, "summary.json", MAX_SUMMARY_BYTES, "run --baseline");
    // A device that never ends is not read at all.
    std::fs::remove_file(d.join("old/summary.json")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", d.join("old/summary.json")).unwrap();
    for args in [
        vec!["report", "old", "-o", "rep"],
        vec!["run", "s.yaml", "--no-store", "-q", "--baseline", "old"],
    ] {
        let o = bounded(d, &args);
        assert_eq!(code(&o), 2, "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("summary.json: not a regular file"), "{}", stderr(&o));
    }
}

/// An output folder read back whose `results.jsonl` holds a line longer
/// than any a run writes (a sparse file of zeros, no line break) is
/// refused at that line, not read whole.
#[test]
fn a_results_line_read_back_is_read_no_further_than_its_limit() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "d.jsonl", DATA);
    write(d, "s.yaml", "dataset: d.jsonl\nid: id\nevaluators:\n  - {metric: json_match}\n");
    let o = bounded(d, &["run", "s.yaml", "--no-store", "-q", "-o", "old"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let big = std::fs::File::create(d.join("old/results.jsonl")).unwrap();
    big.set_len(MAX_RESULT_LINE_BYTES as u64 + 1).unwrap();
    drop(big);
    for args in [
        vec!["report", "old", "-o", "rep"],
        vec!["run", "s.yaml", "--no-store", "-q", "--baseline", "old", "-o", "new"],
    ] {
        let o = bounded(d, &args);
        refused(&o, "results.jsonl", MAX_RESULT_LINE_BYTES, &format!("{args:?}"));
        let e = stderr(&o);
        // Both say where as every row error does: `file:line: …`.
        assert!(e.contains("results.jsonl:1: "), "{args:?}: {e}");
    }
}

#[test]
fn a_rules_file_of_unknown_extension_is_refused_before_it_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "d.jsonl", DATA);
    // Not a file at all: were it opened, the error would say so instead.
    std::fs::create_dir(d.join("rules.txt")).unwrap();
    let o =
        bounded(d, &["compare", "-m", "json_match", "--rules", "rules.txt", "d.jsonl", "d.jsonl"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("unknown rules file extension `txt`"), "{}", stderr(&o));
}

/// Every differing leaf under one long key repeats the key in its path:
/// a row of 0.4 MB with 400 such leaves made 160 MB of details and field
/// paths (the square of the row's size). The details and field paths
/// written stay within `MAX_KEPT_PATH_BYTES` per comparison; the leaves
/// are all still scored, and those left out of the field table are
/// counted in `fields_dropped`.
#[test]
fn paths_under_a_long_key_are_written_within_their_limit() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let key = "k".repeat(200_000);
    let side = |v: u32| {
        let fields: Vec<String> = (0..400).map(|i| format!("\"f{i}\": {v}")).collect();
        format!("{{\"{key}\": {{{}}}}}", fields.join(", "))
    };
    let rows = format!(
        "{{\"id\": \"long\", \"output\": {}, \"reference\": {}}}\n{{\"id\": \"short\", \"output\": {{\"a\": 1}}, \"reference\": {{\"a\": 2}}}}\n",
        side(1),
        side(2)
    );
    write(d, "data.jsonl", &rows);
    write(d, "suite.yaml", "dataset: data.jsonl\nevaluators:\n  - metric: json_match\n");
    let o = bounded(d, &["run", "suite.yaml", "-o", "out", "--no-store"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let limit = refscore::limits::MAX_KEPT_PATH_BYTES as u64;
    let results = std::fs::metadata(d.join("out/results.jsonl")).unwrap().len();
    // One row's details, the other's, and the values and messages beside them.
    assert!(results < 3 * limit, "results.jsonl is {results} bytes");
    let summary = std::fs::read_to_string(d.join("out/summary.json")).unwrap();
    assert!((summary.len() as u64) < 3 * limit, "summary.json is {} bytes", summary.len());
    let s: serde_json::Value = serde_json::from_str(&summary).unwrap();
    let dropped = s["fields_dropped"].as_u64().unwrap_or(0);
    let tallied: u64 = s["fields"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["path"].as_str().is_some_and(|p| p.contains("kkk")))
        .map(|f| f["total"].as_u64().unwrap())
        .sum();
    assert!(dropped > 0 && tallied > 0, "dropped {dropped}, tallied {tallied}");
    assert_eq!(dropped + tallied, 400);
    let first: serde_json::Value = serde_json::from_str(
        std::fs::read_to_string(d.join("out/results.jsonl")).unwrap().lines().next().unwrap(),
    )
    .unwrap();
    let score = &first["scores"][0];
    assert_eq!(score["score"].as_f64(), Some(0.0), "{}", score["explanation"]);
    let details = score["details"].as_array().unwrap();
    assert!(
        details.last().unwrap()["check"].as_str().unwrap().starts_with('+'),
        "{}",
        details.len()
    );
}

/// Each row's field has a 20 KB key of its own: the run's field table
/// holds `MAX_FIELD_PATH_BYTES` of paths and counts the rest as dropped
/// (3,000 such rows made a 61 MB `summary.json`, near the size `report`
/// reads back).
#[test]
fn the_field_table_holds_paths_within_its_limit() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let rows = 1_000;
    let mut text = String::new();
    for i in 0..rows {
        let key = format!("{i:06}{}", "q".repeat(20_000));
        text.push_str(&format!(
            "{{\"id\": {i}, \"output\": {{\"{key}\": 1}}, \"reference\": {{\"{key}\": 2}}}}\n"
        ));
    }
    write(d, "data.jsonl", &text);
    write(d, "suite.yaml", "dataset: data.jsonl\nevaluators:\n  - metric: json_match\n");
    let o = bounded(d, &["run", "suite.yaml", "-o", "out", "--no-store", "--quiet"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let summary = std::fs::read_to_string(d.join("out/summary.json")).unwrap();
    let s: serde_json::Value = serde_json::from_str(&summary).unwrap();
    let fields = s["fields"].as_array().unwrap();
    let bytes: usize = fields.iter().map(|f| f["path"].as_str().unwrap().len()).sum();
    assert!(bytes <= refscore::summary::MAX_FIELD_PATH_BYTES, "{bytes}");
    let dropped = s["fields_dropped"].as_u64().unwrap_or(0);
    assert!(dropped > 0, "{} fields, {bytes} bytes", fields.len());
    assert_eq!(fields.len() as u64 + dropped, rows);
    assert!(summary.len() < 2 * refscore::summary::MAX_FIELD_PATH_BYTES, "{}", summary.len());
}
