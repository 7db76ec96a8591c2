//! Hostile inputs and interruptions: dataset errors that leave nothing
//! behind, directories and empty files as datasets, byte-order marks,
//! non-UTF-8 lines in `--pairs`, and SIGTERM / a second signal.

use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::Value;

use super::{code, refscore, stderr, stdout, write};

mod failures;
mod io_probe;
mod limits;

/// `refscore` with its own store, in `dir`.
fn at(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_refscore"))
        .args(args)
        .env("REFSCORE_STORE", dir.join("runs.db"))
        .current_dir(dir)
        .output()
        .expect("runs")
}

/// The runs recorded in `dir`'s store.
fn runs(dir: &Path) -> Vec<Value> {
    let o = at(dir, &["runs", "list", "--format", "json"]);
    match serde_json::from_str::<Value>(&stdout(&o)) {
        Ok(Value::Array(v)) => v,
        Ok(other) => other["runs"].as_array().cloned().unwrap_or_default(),
        Err(_) => Vec::new(),
    }
}

#[test]
fn dataset_errors_write_nothing_and_record_no_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("folder.jsonl")).unwrap();
    write(d, "dup.csv", "id,id\n1,2\n");
    write(d, "empty.csv", "");
    write(d, "empty.json", "");
    write(d, "blank.json", " \n\t\n");
    write(d, "object.json", "{\"id\": 1}\n");
    write(d, "data.txt", "x\n");
    write(d, "empty.parquet", "");
    write(d, "corrupt.parquet", "PAR1 not a Parquet file PAR1");
    let cases: [(&str, &str); 10] = [
        ("missing.jsonl", "missing.jsonl"),
        ("folder.jsonl", "is a directory"),
        ("dup.csv", "appears twice"),
        ("empty.csv", "is empty"),
        ("empty.json", "is empty"),
        ("blank.json", "is empty"),
        ("object.json", "expected a JSON array"),
        ("data.txt", "unknown dataset format"),
        ("empty.parquet", "Parquet"),
        ("corrupt.parquet", "Parquet"),
    ];
    for (i, (dataset, message)) in cases.iter().enumerate() {
        let suite = write(
            d,
            &format!("suite{i}.yaml"),
            &format!("name: s{i}\ndataset: {dataset}\nevaluators:\n  - metric: json_match\n"),
        );
        let out = d.join(format!("out{i}"));
        let o = at(d, &["run", &suite, "-o", out.to_str().unwrap(), "--quiet"]);
        assert_eq!(code(&o), 2, "{dataset}: {}{}", stdout(&o), stderr(&o));
        assert!(stderr(&o).contains(message), "{dataset}: {}", stderr(&o));
        assert!(stderr(&o).contains(dataset), "names the dataset: {}", stderr(&o));
        assert!(!out.exists(), "{dataset}: no output folder, no results, no summary");
    }
    assert!(!d.join("runs.db").exists(), "no run store created, no run recorded");
}

#[test]
fn a_json_array_dataset_numbers_text_after_the_array_after_its_rows() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let row = "{\"id\": 1, \"output\": {\"a\": 1}, \"reference\": {\"a\": 1}}";
    write(d, "trailing.json", &format!("[{row}] garbage\n"));
    write(d, "none.json", "[]\n");
    write(d, "none.jsonl", "");
    let lines = |out: &str| -> Vec<Value> {
        std::fs::read_to_string(d.join(out).join("results.jsonl"))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let suite = |name: &str, dataset: &str| {
        write(d, name, &format!("dataset: {dataset}\nevaluators:\n  - metric: json_match\n"))
    };
    let s = suite("t.yaml", "trailing.json");
    let o = at(d, &["run", &s, "-o", "t", "--quiet", "--no-store"]);
    assert_eq!(code(&o), 1, "an unreadable row fails the gate: {}", stderr(&o));
    let t = lines("t");
    assert_eq!(t.len(), 2, "{t:?}");
    assert_eq!((&t[0]["row"], &t[0]["id"]), (&Value::from(1), &Value::from("1")), "{t:?}");
    assert!(t[0]["error"].is_null(), "row 1 is scored: {}", t[0]);
    assert_eq!(t[1]["row"], 2, "the error has a number of its own: {}", t[1]);
    assert_ne!(t[1]["id"], t[0]["id"], "{t:?}");
    let e = t[1]["error"].as_str().unwrap();
    assert!(
        e.contains("trailing.json:2: unexpected text after the array")
            && e.contains(&format!("at byte offset {}", row.len() + 3)),
        "{e}"
    );
    // An empty array is an empty dataset, as an empty JSONL file is: no
    // row, a gate that fails, nothing unreadable.
    for (name, dataset) in [("n.yaml", "none.json"), ("l.yaml", "none.jsonl")] {
        let s = suite(name, dataset);
        let out = name.trim_end_matches(".yaml");
        let o = at(d, &["run", &s, "-o", out, "--quiet", "--no-store", "--format", "json"]);
        assert_eq!(code(&o), 1, "{dataset}: {}", stderr(&o));
        assert!(lines(out).is_empty(), "{dataset}");
        let summary: Value = serde_json::from_str(&stdout(&o)).unwrap();
        assert_eq!(
            (&summary["rows"], &summary["rows_unreadable"]),
            (&Value::from(0), &Value::from(0)),
            "{dataset}"
        );
    }
}

#[test]
fn a_byte_order_mark_is_ignored_by_every_json_metric() {
    let dir = tempfile::tempdir().unwrap();
    let doc = "{\"total\": 12.5, \"items\": [\"a\", \"b\"], \"name\": \"ACME\"}";
    let out = write(dir.path(), "out.json", &format!("\u{feff}{doc}"));
    let reference = write(dir.path(), "ref.json", &format!("\u{feff}{doc}\n"));
    for metric in ["json_distance", "json_diff", "json_similarity", "json_structural", "json_match"]
    {
        let o = refscore(&["compare", &out, &reference, "--metric", metric, "--json"]);
        assert_eq!(code(&o), 0, "{metric}: {}", stderr(&o));
        let s: Value = serde_json::from_str(&stdout(&o)).unwrap();
        let want = if metric == "json_distance" { 0.0 } else { 1.0 };
        assert_eq!(s["score"].as_f64(), Some(want), "{metric}: {s}");
    }
}

#[test]
fn pairs_score_the_lines_after_one_that_is_not_utf8() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = Vec::new();
    bytes.extend_from_slice(b"{\"id\": 1, \"output\": {\"a\": 1}, \"reference\": {\"a\": 1}}\n");
    bytes.extend_from_slice(b"{\"id\": 2, \"output\": \"\xff\xfe\", \"reference\": {}}\n");
    bytes.extend_from_slice(b"{\"id\": 3, \"output\": {\"a\": 2}, \"reference\": {\"a\": 1}}\n");
    let path = dir.path().join("pairs.jsonl");
    std::fs::write(&path, bytes).unwrap();
    let o = refscore(&["compare", "--pairs", path.to_str().unwrap(), "--metric", "json_diff"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let lines: Vec<Value> =
        stdout(&o).lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect();
    assert_eq!(lines.len(), 3, "{}", stdout(&o));
    assert_eq!(lines[0]["score"], 1.0, "the line before the bad one keeps its score");
    assert_eq!(lines[1]["label"], "invalid", "{}", lines[1]);
    assert!(lines[1]["explanation"].as_str().unwrap().contains("UTF-8"), "{}", lines[1]);
    assert_eq!(lines[2]["id"], "3", "{}", lines[2]);
    assert!(lines[2]["score"].as_f64().is_some_and(|s| s < 1.0), "scored: {}", lines[2]);
}

#[test]
fn pairs_over_the_size_limits_are_error_rows_between_scored_ones() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pairs.jsonl");
    let mut text = String::from("{\"id\": 1, \"output\": {\"a\": 1}, \"reference\": {\"a\": 1}}\n");
    let long_text = "y".repeat(refscore::limits::MAX_TEXT_BYTES + 1);
    text.push_str(&format!("{{\"id\": 2, \"output\": \"{long_text}\", \"reference\": \"y\"}}\n"));
    let long_line = "z".repeat(refscore::limits::MAX_ROW_BYTES);
    text.push_str(&format!("{{\"id\": 3, \"output\": \"{long_line}\", \"reference\": {{}}}}\n"));
    text.push_str("{\"id\": 4, \"output\": {\"a\": 2}, \"reference\": {\"a\": 1}}\n");
    std::fs::write(&path, text).unwrap();
    let o = refscore(&["compare", "--pairs", path.to_str().unwrap(), "--metric", "json_diff"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let lines: Vec<Value> =
        stdout(&o).lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect();
    assert_eq!(lines.len(), 4, "{}", stderr(&o));
    assert_eq!(lines[0]["score"], 1.0, "{}", lines[0]);
    let too_long_text = lines[1]["explanation"].as_str().unwrap();
    assert!(too_long_text.contains("input `output` is a text of 8388609 bytes"), "{too_long_text}");
    let too_long_line = lines[2]["explanation"].as_str().unwrap();
    assert!(too_long_line.contains(":3: the line is 67108904 bytes long"), "{too_long_line}");
    assert_eq!(lines[3]["id"], "4", "{}", lines[3]);
    assert!(lines[3]["score"].as_f64().is_some_and(|s| s < 1.0), "scored: {}", lines[3]);
}

/// A dataset big enough that a run is still going when signalled.
fn big_suite(dir: &Path) -> String {
    let mut text = String::new();
    for i in 0..300_000 {
        text.push_str(&format!("{{\"id\": {i}, \"output\": {{\"a\": {i}, \"b\": [1, 2, 3]}}, \"reference\": {{\"a\": 1, \"b\": [3, 2, 1]}}}}\n"));
    }
    write(dir, "big.jsonl", &text);
    write(
        dir,
        "suite.yaml",
        "dataset: big.jsonl\nid: id\nevaluators:\n  - name: m\n    metric: json_match\n",
    )
}

/// Starts a run of `big_suite` and waits until results are being written.
fn start_run(dir: &Path) -> std::process::Child {
    start_run_with(dir, &[])
}

/// [`start_run`] with more arguments.
fn start_run_with(dir: &Path, more: &[&str]) -> std::process::Child {
    let suite = big_suite(dir);
    spawn_run(dir, &suite, more)
}

/// Starts a run of the suite file `suite` in `dir` into `out` and waits
/// until results are being written.
fn spawn_run(dir: &Path, suite: &str, more: &[&str]) -> std::process::Child {
    let out = dir.join("out");
    // `-o` relative to the run's folder, as a user writes it.
    let child = Command::new(env!("CARGO_BIN_EXE_refscore"))
        .args(["run", suite, "-o", "out", "--quiet", "--threads", "1"])
        .args(more)
        .env("REFSCORE_STORE", dir.join("runs.db"))
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawns");
    let results = out.join("results.jsonl");
    let start = std::time::Instant::now();
    while std::fs::metadata(&results).map_or(0, |m| m.len()) == 0 && start.elapsed().as_secs() < 60
    {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child
}

/// `GITHUB_STEP_SUMMARY` is appended to: never when it names an input or
/// a file the run writes (the dataset grew a Markdown table before).
#[test]
fn the_step_summary_is_never_an_input_or_an_output() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let rows = "{\"id\":1,\"output\":\"a\",\"reference\":\"a\"}\n";
    write(d, "d.jsonl", rows);
    write(d, "s.yaml", "dataset: d.jsonl\nevaluators:\n  - {name: e, metric: exact_match}\n");
    // `refscore ARGS` in `d` without a store, the step summary at `target`.
    let with_step_summary = |args: &[&str], target: Option<&str>| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_refscore"));
        c.args(args).env_remove("GITHUB_STEP_SUMMARY").current_dir(d);
        if let Some(t) = target {
            c.env("GITHUB_STEP_SUMMARY", t);
        }
        c.output().expect("runs")
    };
    let run = ["run", "s.yaml", "-o", "out", "--no-store"];
    for target in ["d.jsonl", "s.yaml", "out/results.jsonl"] {
        let o = with_step_summary(&run, Some(target));
        assert_eq!(code(&o), 2, "{target}: {}", stderr(&o));
        assert!(stderr(&o).contains("GITHUB_STEP_SUMMARY"), "{}", stderr(&o));
    }
    assert_eq!(std::fs::read_to_string(d.join("d.jsonl")).unwrap(), rows);
    // `report` refuses it alike.
    let o = with_step_summary(&run, None);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = with_step_summary(&["report", "out"], Some("out/summary.json"));
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    // Nor a file of the baseline folder a run reads.
    for target in ["out/summary.json", "out/results.jsonl"] {
        let before = std::fs::read(d.join(target)).unwrap();
        let args = ["run", "s.yaml", "-o", "again", "--no-store", "--baseline", "out"];
        let o = with_step_summary(&args, Some(target));
        assert_eq!(code(&o), 2, "{target}: {}", stderr(&o));
        assert!(stderr(&o).contains("the baseline's"), "{}", stderr(&o));
        assert_eq!(std::fs::read(d.join(target)).unwrap(), before, "{target} was written");
    }
    // One that cannot be appended to (a folder) stops the run before it
    // starts, not after every row was scored and a summary written.
    let o = with_step_summary(&["run", "s.yaml", "-o", "fresh", "--no-store"], Some("."));
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("cannot append the step summary (GITHUB_STEP_SUMMARY) to ."),
        "{}",
        stderr(&o)
    );
    assert!(!d.join("fresh").exists(), "nothing written");
}

/// A run that is still running is not resumed a second time, into another
/// folder (its rows were scored twice, and the store refused the second
/// writer's batches at the end).
#[test]
fn a_running_run_is_not_resumed_twice() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut child = start_run(d);
    let o = at(d, &["run", "suite.yaml", "--resume", "-o", "other", "--quiet"]);
    child.kill().expect("kills");
    let _ = child.wait();
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("still running"), "{}", stderr(&o));
    let other = d.join("other/results.jsonl");
    assert_eq!(std::fs::metadata(&other).map_or(0, |m| m.len()), 0, "nothing written to other/");
}

/// An earlier run's summary and reports in the folder do not outlive the
/// start of a new run: a run killed outright leaves no summary that
/// `report` could read as its own (it read as a pass before).
#[test]
fn a_killed_run_leaves_no_earlier_summary_behind() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("out")).unwrap();
    let stale = ["summary.json", "report.md", "junit.xml", "report.html"];
    for name in stale {
        write(d, &format!("out/{name}"), "from an earlier run");
    }
    let mut child = start_run(d);
    child.kill().expect("kills");
    let _ = child.wait();
    for name in stale {
        assert!(!d.join("out").join(name).exists(), "{name} was left behind");
    }
    let o = at(d, &["report", "out"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("ended before its summary"), "{}", stderr(&o));
}

/// A rules file the suite names is part of what a resume checks: the
/// rows before the stop must not be scored under other rules than those
/// after it.
#[test]
fn a_rules_file_edited_since_the_run_started_refuses_its_resume() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    big_suite(d);
    write(d, "rules.yaml", "rules:\n  - {path: $.a, compare: {type: numeric, abs_tol: 0.01}}\n");
    let suite = "dataset: big.jsonl\nid: id\nevaluators:\n  - {name: m, metric: json_match, options: {rules: rules.yaml}}\n";
    write(d, "suite.yaml", suite);
    let child = spawn_run(d, "suite.yaml", &[]);
    let sent = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(sent.success());
    let o = child.wait_with_output().expect("waits");
    assert_eq!(code(&o), 1, "a cancelled run exits 1: {}", stderr(&o));
    write(d, "rules.yaml", "rules:\n  - {path: $.a, compare: {type: numeric, abs_tol: 0}}\n");
    let o = at(d, &["run", "suite.yaml", "--resume", "--quiet"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("refusing to resume run 1"), "{e}");
    assert!(e.contains("or a file it names") && e.contains("rules.yaml"), "{e}");
}

#[test]
fn sigterm_stops_like_ctrl_c_and_the_run_can_be_resumed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let child = start_run(d);
    let sent = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(sent.success());
    let o = child.wait_with_output().expect("waits");
    assert_eq!(code(&o), 1, "a cancelled run exits 1: {}", stderr(&o));
    assert!(stderr(&o).contains("--resume"), "{}", stderr(&o));
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("out/summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["cancelled"], true);
    let done = summary["rows"].as_u64().unwrap();
    let lines = std::fs::read_to_string(d.join("out/results.jsonl")).unwrap().lines().count();
    assert_eq!(lines as u64, done, "every evaluated row is in results.jsonl");
    let listed = runs(d);
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["status"], "cancelled", "{listed:?}");
    // Resumed from another folder: the run goes on in its own folder.
    let elsewhere = d.join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_refscore"))
        .args(["run", "../suite.yaml", "--resume", "--quiet"])
        .env("REFSCORE_STORE", d.join("runs.db"))
        .current_dir(&elsewhere)
        .output()
        .expect("runs");
    assert!(code(&o) <= 1, "{}", stderr(&o));
    assert!(!elsewhere.join("out").exists(), "the results went to the run's own folder");
    let lines = std::fs::read_to_string(d.join("out/results.jsonl")).unwrap().lines().count();
    assert_eq!(lines, 300_000, "the resumed run finished every row");
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("out/summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["cancelled"], false, "{summary}");
}

#[test]
fn a_resumed_run_takes_a_baseline_with_its_own_limit() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A passing full run of another suite of the same name, `suite`.
    let small = d.join("small");
    std::fs::create_dir(&small).unwrap();
    write(&small, "tiny.jsonl", "{\"id\": 1, \"output\": {\"a\": 1}, \"reference\": {\"a\": 1}}\n");
    write(
        &small,
        "suite.yaml",
        "dataset: tiny.jsonl\nid: id\nevaluators:\n  - name: m\n    metric: json_match\n",
    );
    let o = at(d, &["run", "small/suite.yaml", "-o", "full", "--quiet"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    // A run limited to 20,000 rows, stopped, then resumed without --limit:
    // it keeps its limit, and no full run is its baseline.
    let child = start_run_with(d, &["--limit", "20000"]);
    let sent = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(sent.success());
    assert_eq!(code(&child.wait_with_output().unwrap()), 1);
    let o = at(d, &["run", "suite.yaml", "--resume", "--quiet"]);
    assert!(code(&o) <= 1, "{}", stderr(&o));
    assert!(
        stdout(&o).contains("no passing run of suite `suite` with --limit 20000"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn one_stop_delivered_twice_at_once_still_ends_with_the_summary() {
    // `timeout` signals the process and then its process group: two
    // signals microseconds apart are one stop, not a first and a second.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let child = start_run(d);
    let pid = child.id().to_string();
    let sent = Command::new("sh")
        .args(["-c", &format!("kill -TERM {pid}; kill -TERM {pid}")])
        .status()
        .unwrap();
    assert!(sent.success());
    let o = child.wait_with_output().expect("waits");
    assert_eq!(code(&o), 1, "cancelled, not killed: {}", stderr(&o));
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("out/summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["cancelled"], true);
    let lines = std::fs::read_to_string(d.join("out/results.jsonl")).unwrap().lines().count();
    assert_eq!(lines as u64, summary["rows"].as_u64().unwrap());
}

#[test]
fn a_folder_a_run_is_writing_is_refused_to_another_run_and_to_report() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "small.jsonl", "{\"id\": 1, \"output\": {\"a\": 1}, \"reference\": {\"a\": 1}}\n");
    write(d, "small.yaml", "dataset: small.jsonl\nid: id\nevaluators:\n  - metric: json_match\n");
    let o = at(d, &["run", "small.yaml", "-o", "done", "--quiet"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let child = start_run(d);
    let recorded = runs(d).len();
    assert_eq!(recorded, 2, "{:?}", runs(d));
    // A second run into the folder: refused before it records a run or
    // truncates the first one's results.
    for suite in ["suite.yaml", "small.yaml"] {
        let o = at(d, &["run", suite, "-o", "out", "--quiet"]);
        assert_eq!(code(&o), 2, "{suite}: {}{}", stdout(&o), stderr(&o));
        let e = stderr(&o);
        assert!(e.contains("another refscore run is writing to") && e.contains("out"), "{e}");
    }
    assert_eq!(runs(d).len(), recorded, "no run recorded: {:?}", runs(d));
    // Reports of the folder, or into it, wait for the run to end.
    let o = at(d, &["report", "out"]);
    assert_eq!(code(&o), 2, "{}{}", stdout(&o), stderr(&o));
    assert!(stderr(&o).contains("a refscore run is writing to"), "{}", stderr(&o));
    let o = at(d, &["report", "done", "-o", "out", "--report", "md"]);
    assert_eq!(code(&o), 2, "{}{}", stdout(&o), stderr(&o));
    assert!(stderr(&o).contains("a refscore run is writing to"), "{}", stderr(&o));
    assert!(!d.join("out/report.md").exists(), "no report written into the folder");
    let sent = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(sent.success());
    let o = child.wait_with_output().expect("waits");
    assert_eq!(code(&o), 1, "the first run ends as cancelled: {}", stderr(&o));
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("out/summary.json")).unwrap())
            .unwrap();
    let text = std::fs::read_to_string(d.join("out/results.jsonl")).unwrap();
    for line in text.lines() {
        let row: Value = serde_json::from_str(line).expect("every line is whole JSON");
        assert_eq!(row["scores"][0]["name"], "m", "only the first run's rows: {row}");
    }
    assert_eq!(text.lines().count() as u64, summary["rows"].as_u64().unwrap());
    // Once it has ended, the folder is free.
    let o = at(d, &["report", "out", "--report", "md"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
}

#[test]
fn runs_started_together_without_an_output_folder_each_get_their_own() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "small.jsonl", "{\"id\": 1, \"output\": {\"a\": 1}, \"reference\": {\"a\": 1}}\n");
    write(d, "small.yaml", "dataset: small.jsonl\nid: id\nevaluators:\n  - metric: json_match\n");
    // Started at once, so that several fall in the same second and pick
    // the same `refscore-out/<time>` name first.
    let children: Vec<_> = (0..6)
        .map(|_| {
            Command::new(env!("CARGO_BIN_EXE_refscore"))
                .args(["run", "small.yaml", "--quiet", "--no-store"])
                .current_dir(d)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("starts")
        })
        .collect();
    for child in children {
        let o = child.wait_with_output().expect("waits");
        assert_eq!(code(&o), 0, "{}", stderr(&o));
    }
    let folders: Vec<_> =
        std::fs::read_dir(d.join("refscore-out")).unwrap().map(|e| e.unwrap().path()).collect();
    assert_eq!(folders.len(), 6, "{folders:?}");
    for folder in folders {
        let text = std::fs::read_to_string(folder.join("results.jsonl")).unwrap();
        assert_eq!(text.lines().count(), 1, "{}: {text}", folder.display());
        assert!(folder.join("summary.json").exists(), "{}", folder.display());
    }
}

#[test]
fn worker_threads_and_row_limits_are_bounded_on_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let suite = big_suite(dir.path());
    for n in ["0", "1025", "18446744073709551615", "-1", "two"] {
        let threads = format!("--threads={n}");
        for args in [
            vec!["run", suite.as_str(), threads.as_str()],
            vec!["compare", "--pairs", suite.as_str(), threads.as_str()],
        ] {
            let o = at(dir.path(), &args);
            assert_eq!(code(&o), 2, "{args:?}: {}", stderr(&o));
            assert!(stderr(&o).contains("from 1 to 1024"), "{args:?}: {}", stderr(&o));
        }
    }
    // A row limit the run store cannot keep (past 2^63 - 1) is refused too.
    for n in ["9223372036854775808", "18446744073709551615", "-1", "ten"] {
        let limit = format!("--limit={n}");
        let o = at(dir.path(), &["run", suite.as_str(), limit.as_str()]);
        assert_eq!(code(&o), 2, "{n}: {}", stderr(&o));
        assert!(stderr(&o).contains("from 0 to 9223372036854775807"), "{n}: {}", stderr(&o));
    }
}

/// Under an address-space limit too small for the workers' stacks the run
/// stops before it starts (exit 2, nothing recorded, the earlier results
/// in its folder left as they were) and says what to change, not only the
/// system's "Resource temporarily unavailable".
#[cfg(unix)]
#[test]
fn workers_that_cannot_start_under_a_memory_limit_say_why() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A suite that asks an LLM gets the workers it asks for (one that
    // does not gets at most one per core); the judge is never reached.
    let suite = write(
        d,
        "suite.yaml",
        "dataset: data.jsonl\njudge: {base_url: 'http://127.0.0.1:9', model: m, retries: 0, \
         timeout: 1}\nevaluators:\n  - {metric: json_match}\n  - {name: polite, metric: \
         classify, options: {template: '{output}', choices: [polite, rude]}}\ngate: \
         {max_failed_rows: 1, max_judge_failures: 1}\n",
    );
    write(d, "data.jsonl", "{\"output\": {\"a\": 1}, \"reference\": {\"a\": 1}}\n");
    let first = at(d, &["run", &suite, "--quiet", "-o", "out", "--no-cache"]);
    assert_eq!(code(&first), 0, "{}", stderr(&first));
    let earlier = std::fs::read(d.join("out/results.jsonl")).unwrap();
    assert!(!earlier.is_empty());
    // Eight 64 MiB stacks cannot fit in 200 MB of address space.
    let o = Command::new("sh")
        .arg("-c")
        .arg(r#"ulimit -v 200000 && exec "$0" run "$1" --threads 8 --quiet -o out --no-cache"#)
        .arg(env!("CARGO_BIN_EXE_refscore"))
        .arg(&suite)
        .env("REFSCORE_STORE", d.join("runs.db"))
        .current_dir(d)
        .output()
        .unwrap();
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("starting worker threads"), "{e}");
    assert!(
        e.contains("64 MiB stack") && e.contains("ulimit -v") && e.contains("fewer threads"),
        "{e}"
    );
    assert_eq!(std::fs::read(d.join("out/results.jsonl")).unwrap(), earlier);
    assert!(d.join("out/summary.json").exists());
    assert_eq!(runs(d).len(), 1, "no second run recorded");
}

#[test]
fn a_second_signal_writes_every_line_handed_over_before_exiting() {
    // A first batch of quick rows, then rows that take seconds each:
    // twelve json_match evaluators, each pairing 64 objects that all
    // differ, each holding 32 objects that all differ, by similarity within
    // similarity until the similarity walks' step bound (a row takes about
    // 5 s on a 2-core vCPU in a release build, a minute in the tests'
    // debug build). The first signal skips the rows not yet begun but
    // waits for the one in hand, so the second one, 2 s later, lands while
    // it is still being evaluated (signals go on every 2 s until the run
    // ends). The gap is well past the run's window for one stop delivered
    // twice (250 ms, measured when the signal is handled): on a loaded
    // machine the handler may run a few hundred milliseconds after the
    // first signal, and a 0.6 s gap was once read as the same stop. The
    // store is written on a thread of its own: the committed batch may
    // show late (every slow row is slow, so whichever is in hand will do)
    // or before the next batch has begun, so the first signal waits a
    // second after it shows (a signal between batches stops the run with
    // no row in hand, before a second one comes). Nothing the run shows
    // says a row is in hand: the wait stays a margin of time, a fifth of
    // a slow row in a release build.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut text = String::new();
    for i in 0..1_024 {
        text.push_str(&format!(
            "{{\"id\": {i}, \"output\": {{\"a\": {i}}}, \"reference\": {{\"a\": 1}}}}\n"
        ));
    }
    let items = |shift: usize| -> String {
        let parts = |k: usize| -> String {
            (0..32)
                .map(|m| format!("{{\"p\": \"x{}\", \"q\": {m}}}", m * 5 + shift + k))
                .collect::<Vec<_>>()
                .join(", ")
        };
        (0..64)
            .map(|k| format!("{{\"sku\": \"s{}\", \"parts\": [{}]}}", k * 7 + shift, parts(k)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    for i in 1_024..1_034 {
        text.push_str(&format!(
            "{{\"id\": {i}, \"output\": {{\"items\": [{}]}}, \"reference\": {{\"items\": [{}]}}}}\n",
            items(1),
            items(0)
        ));
    }
    write(d, "slow.jsonl", &text);
    let suite = write(
        d,
        "suite.yaml",
        &format!(
            "dataset: slow.jsonl\nid: id\nevaluators:\n{}",
            (1..=12)
                .map(|n| format!("  - name: m{n}\n    metric: json_match\n"))
                .collect::<String>()
        ),
    );
    let out = d.join("out");
    let child = Command::new(env!("CARGO_BIN_EXE_refscore"))
        .args(["run", &suite, "-o", out.to_str().unwrap(), "--quiet", "--threads", "1"])
        .env("REFSCORE_STORE", d.join("runs.db"))
        .current_dir(d)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawns");
    // Wait until the store holds a committed batch.
    let recorded = || {
        let o = at(d, &["runs", "show", "latest", "--format", "json"]);
        serde_json::from_str::<Value>(&stdout(&o)).ok().and_then(|v| v["run"]["rows"].as_u64())
    };
    let start = std::time::Instant::now();
    while recorded().unwrap_or(0) == 0 && start.elapsed().as_secs() < 300 {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    std::thread::sleep(std::time::Duration::from_secs(1));
    let pid = child.id().to_string();
    // A signal every 2 s until the run ends: on a loaded machine the
    // handler can take both of the first two as one stop (they reached it
    // within its window), and the next one is then the second.
    let mut child = child;
    for _ in 0..10 {
        let sent = Command::new("kill").args(["-INT", &pid]).status().unwrap();
        assert!(sent.success());
        std::thread::sleep(std::time::Duration::from_secs(2));
        if child.try_wait().unwrap().is_some() {
            break;
        }
    }
    let o = child.wait_with_output().expect("waits");
    assert_eq!(code(&o), 130, "the second signal ends the run: {}", stderr(&o));
    let committed = recorded().unwrap_or(0);
    assert!(committed > 0);
    let text = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    assert!(text.ends_with('\n'), "the last line is whole");
    for line in text.lines() {
        serde_json::from_str::<Value>(line).expect("every line is whole JSON");
    }
    let lines = text.lines().count() as u64;
    assert!(lines >= committed, "{lines} lines, {committed} rows recorded: lines were lost");
}

#[cfg(unix)]
#[test]
fn outputs_are_never_opened_over_an_input() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let row = "{\"id\": 1, \"output\": {\"a\": 1}, \"reference\": {\"a\": 1}}\n";
    let suite = |name: &str, dataset: &str| {
        write(
            d,
            name,
            &format!(
                "name: s\ndataset: {dataset}\nformat: jsonl\nid: id\nevaluators:\n  - metric: json_match\n"
            ),
        )
    };
    let refused = |o: &std::process::Output, output: &str, input: &str| {
        assert_eq!(code(o), 2, "{}{}", stdout(o), stderr(o));
        let e = stderr(o);
        assert!(e.contains(output) && e.contains(input), "names both files: {e}");
    };
    // The dataset is the output folder's results.jsonl: refused before a
    // run is recorded.
    std::fs::create_dir_all(d.join("a")).unwrap();
    write(d, "a/results.jsonl", row);
    let s = suite("a.yaml", "a/results.jsonl");
    let o = at(d, &["run", &s, "-o", "a", "--quiet"]);
    refused(&o, "a/results.jsonl", "a/results.jsonl");
    assert!(runs(d).is_empty(), "no run recorded: {:?}", runs(d));
    // A hard link to the dataset, and summary.json through a linked folder.
    std::fs::create_dir_all(d.join("b")).unwrap();
    write(d, "data.jsonl", row);
    std::fs::hard_link(d.join("data.jsonl"), d.join("b/results.jsonl")).unwrap();
    let s = suite("b.yaml", "data.jsonl");
    let o = at(d, &["run", &s, "-o", "b", "--quiet"]);
    refused(&o, "b/results.jsonl", "data.jsonl");
    std::fs::create_dir_all(d.join("real")).unwrap();
    write(d, "real/summary.json", row);
    std::os::unix::fs::symlink(d.join("real"), d.join("link")).unwrap();
    let s = suite("c.yaml", "real/summary.json");
    let o = at(d, &["run", &s, "-o", "link", "--quiet"]);
    refused(&o, "link/summary.json", "real/summary.json");
    // The run store is the dataset, or an output file.
    write(d, "empty.jsonl", "");
    let s = suite("e.yaml", "empty.jsonl");
    let o = at(d, &["run", &s, "-o", "e", "--quiet", "--store", "empty.jsonl"]);
    refused(&o, "empty.jsonl", "empty.jsonl");
    let s = suite("f.yaml", "data.jsonl");
    let o = at(d, &["run", &s, "-o", "f", "--quiet", "--store", "f/summary.json"]);
    refused(&o, "f/summary.json", "f/summary.json");
    assert!(!d.join("f").exists(), "nothing created");
    let o = at(d, &["run", &s, "-o", "g", "--quiet", "--store", "kept.db"]);
    assert!(code(&o) <= 1, "{}", stderr(&o));
    std::fs::create_dir_all(d.join("h")).unwrap();
    std::fs::hard_link(d.join("kept.db"), d.join("h/results.jsonl")).unwrap();
    let o = at(d, &["run", &s, "-o", "h", "--quiet", "--store", "kept.db", "--report", "md"]);
    refused(&o, "h/results.jsonl", "kept.db");
    let o = at(d, &["runs", "list", "--store", "kept.db", "--format", "json"]);
    assert_eq!(code(&o), 0, "the store is intact: {}", stderr(&o));
    // Every input is as it was.
    for (file, text) in [
        ("a/results.jsonl", row),
        ("data.jsonl", row),
        ("real/summary.json", row),
        ("empty.jsonl", ""),
    ] {
        assert_eq!(std::fs::read_to_string(d.join(file)).unwrap(), text, "{file} unchanged");
    }
}

/// The bytes of every file in `dir`, by name.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (e.file_name().to_string_lossy().into_owned(), std::fs::read(e.path()).unwrap())
        })
        .collect();
    files.sort();
    files
}

#[cfg(unix)]
#[test]
fn report_never_writes_over_a_file_it_reads() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "data.jsonl",
        "{\"id\": 1, \"output\": {\"a\": 1}, \"reference\": {\"a\": 1}}\n{\"id\": 2, \"output\": {\"a\": 1}, \"reference\": {\"a\": 2}}\n",
    );
    write(
        d,
        "suite.yaml",
        "name: s\ndataset: data.jsonl\nid: id\nevaluators:\n  - metric: json_match\n",
    );
    let o = at(d, &["run", "suite.yaml", "-o", "run", "--quiet"]);
    assert!(code(&o) <= 1, "{}", stderr(&o));
    let before = snapshot(&d.join("run"));
    let data = std::fs::read(d.join("data.jsonl")).unwrap();
    let refused = |o: &std::process::Output, output: &str, input: &str| {
        assert_eq!(code(o), 2, "{}{}", stdout(o), stderr(o));
        let e = stderr(o);
        assert!(e.contains(output) && e.contains(input), "names both files: {e}");
        assert!(stdout(o).is_empty(), "no report written: {}", stdout(o));
    };
    // A report in another folder linked to the run's results or summary.
    std::fs::create_dir(d.join("a")).unwrap();
    symlink(d.join("run/results.jsonl"), d.join("a/report.html")).unwrap();
    let o = at(d, &["report", "run", "-o", "a", "--report", "html"]);
    refused(&o, "a/report.html", "run/results.jsonl");
    std::fs::create_dir(d.join("b")).unwrap();
    symlink(d.join("run/summary.json"), d.join("b/report.md")).unwrap();
    let o = at(d, &["report", "run", "-o", "b"]);
    refused(&o, "b/report.md", "run/summary.json");
    // Nothing is written before the check: report.md comes before the
    // refused junit.xml.
    std::fs::create_dir(d.join("c")).unwrap();
    symlink(d.join("run/results.jsonl"), d.join("c/junit.xml")).unwrap();
    let o = at(d, &["report", "run", "-o", "c"]);
    refused(&o, "c/junit.xml", "run/results.jsonl");
    assert!(!d.join("c/report.md").exists(), "nothing written");
    // A report linked to the suite's dataset, or to the run store.
    std::fs::create_dir(d.join("e")).unwrap();
    symlink(d.join("data.jsonl"), d.join("e/report.md")).unwrap();
    let o = at(d, &["report", "run", "-o", "e"]);
    refused(&o, "e/report.md", "data.jsonl");
    std::fs::create_dir(d.join("f")).unwrap();
    std::fs::hard_link(d.join("runs.db"), d.join("f/report.html")).unwrap();
    let o = at(d, &["report", "latest", "-o", "f"]);
    refused(&o, "f/report.html", "runs.db");
    // A hard link inside the run folder, written by default.
    std::fs::hard_link(d.join("run/results.jsonl"), d.join("run/report.html")).unwrap();
    let o = at(d, &["report", "run", "--report", "html"]);
    refused(&o, "run/report.html", "run/results.jsonl");
    std::fs::remove_file(d.join("run/report.html")).unwrap();
    assert_eq!(snapshot(&d.join("run")), before, "the run folder is intact");
    assert_eq!(std::fs::read(d.join("data.jsonl")).unwrap(), data, "the dataset is intact");
    let o = at(d, &["runs", "list", "--format", "json"]);
    assert_eq!(code(&o), 0, "the store is intact: {}", stderr(&o));
    // Where nothing overlaps, the reports are written.
    let o = at(d, &["report", "run", "-o", "g"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(d.join("g/report.html").exists() && d.join("g/report.md").exists());
}

#[test]
fn a_byte_order_mark_is_ignored_by_every_code_metric_and_in_pairs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let doc = "[\"Paris\", \"Lyon\"]";
    let plain = write(d, "plain.json", doc);
    let marked = write(d, "marked.json", &format!("\u{feff}{doc}"));
    let metrics: [(&str, &[&str]); 12] = [
        ("json_match", &[]),
        ("json_distance", &[]),
        ("json_diff", &[]),
        ("json_similarity", &[]),
        ("json_structural", &[]),
        ("exact_match", &[]),
        ("format", &["--opt", "json_validity=true"]),
        ("factuality", &[]),
        ("tone", &[]),
        ("matches_regex", &["--opt", "pattern=^\\[", "--opt", "full_match=false"]),
        ("precision_recall_fscore", &[]),
        ("json_match", &["--strict"]),
    ];
    let score = |out: &str, reference: &str, metric: &str, extra: &[&str]| -> String {
        let mut args = vec!["compare", out, reference, "--metric", metric, "--json"];
        args.extend_from_slice(extra);
        let o = refscore(&args);
        assert_eq!(code(&o), 0, "{metric} {out}: {}", stderr(&o));
        // Every score the metric prints, main and extra ones.
        stdout(&o)
    };
    for (metric, extra) in metrics {
        let want = score(&plain, &plain, metric, extra);
        assert_eq!(score(&marked, &plain, metric, extra), want, "{metric}: marked output");
        assert_eq!(score(&plain, &marked, metric, extra), want, "{metric}: marked reference");
    }
    // A pairs file that starts with a mark: its first line is scored.
    let line =
        |id: u32| format!("{{\"id\": {id}, \"output\": \"Paris\", \"reference\": \"Paris\"}}\n");
    let pairs = write(d, "pairs.jsonl", &format!("\u{feff}{}{}", line(1), line(2)));
    for metric in ["exact_match", "json_match", "json_distance"] {
        let o = refscore(&["compare", "--pairs", &pairs, "--metric", metric]);
        assert_eq!(code(&o), 0, "{metric}: {}", stderr(&o));
        let first: Value = serde_json::from_str(stdout(&o).lines().next().unwrap()).unwrap();
        assert_eq!(first["id"], "1", "{metric}: {first}");
        assert!(first["score"].is_number(), "{metric}: {first}");
    }
}

#[test]
fn a_run_with_an_unreadable_row_or_a_failed_evaluation_exits_1_unless_the_gate_allows_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let good = "{\"id\": 1, \"output\": {\"a\": 1}, \"reference\": {\"a\": 1}}\n";
    // One row that cannot be read, one whose evaluation fails (no reference).
    write(d, "unreadable.jsonl", &format!("{good}not json\n"));
    write(d, "failed.jsonl", &format!("{good}{{\"id\": 2, \"output\": {{\"a\": 1}}}}\n"));
    for dataset in ["unreadable", "failed"] {
        let base =
            format!("dataset: {dataset}.jsonl\nid: id\nevaluators:\n  - metric: json_match\n");
        let strict = write(d, &format!("{dataset}.yaml"), &base);
        let o = at(d, &["run", &strict, "-o", &format!("o-{dataset}"), "--quiet", "--no-store"]);
        assert_eq!(code(&o), 1, "{dataset}: an errored run fails by default: {}", stdout(&o));
        assert!(stdout(&o).contains("max_failed_rows"), "{}", stdout(&o));
        // The console says why, not only how many.
        let why = if dataset == "unreadable" {
            "unreadable.jsonl:2: invalid JSON"
        } else {
            "row 2 (id 2), evaluator json_match: input `reference` from `reference`: no column"
        };
        let e = stderr(&o);
        assert!(e.contains("refscore: 1 error(s) (every error is in o-"), "{e}");
        assert!(e.contains(why), "{e}");
        let allowing = write(
            d,
            &format!("{dataset}-allowed.yaml"),
            &format!("{base}gate:\n  max_failed_rows: 1\n"),
        );
        let o = at(d, &["run", &allowing, "-o", &format!("a-{dataset}"), "--quiet", "--no-store"]);
        assert_eq!(code(&o), 0, "{dataset}: the gate allows one: {}", stdout(&o));
    }
}
