//! Datasets that are streams: `/dev/stdin`, a named pipe (what a shell's
//! `<(zcat data.jsonl.gz)` gives). A stream is read once, by the run: it
//! is not hashed first (that read the rows away, and the run scored none),
//! so a run from a stream cannot be resumed and its report cannot show
//! the dataset's documents again.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{code, stderr, stdout, write};

mod dataset_checks;

/// `n` dataset rows, each output equal to its reference.
fn rows(n: usize) -> String {
    (0..n)
        .map(|i| {
            format!(
                "{{\"id\": \"r{i}\", \"output\": {{\"a\": {i}}}, \"reference\": {{\"a\": {i}}}}}\n"
            )
        })
        .collect()
}

/// `refscore` in `dir` with its own store, its standard input piped.
fn spawn(dir: &Path, args: &[&str]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_refscore"))
        .args(args)
        .env("REFSCORE_STORE", dir.join("runs.db"))
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawns")
}

/// `refscore` in `dir` with its own store, nothing on standard input.
fn at(dir: &Path, args: &[&str]) -> std::process::Output {
    spawn(dir, args).wait_with_output().expect("runs")
}

/// A suite in `dir` that reads its JSONL dataset from standard input.
fn stdin_suite(dir: &Path) -> String {
    let text = "name: piped\ndataset: /dev/stdin\nformat: jsonl\nid: id\nevaluators:\n  - name: m\n    metric: json_match\n";
    write(dir, "suite.yaml", text)
}

fn summary(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap()
}

#[test]
fn a_dataset_on_standard_input_is_scored_whole() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let suite = stdin_suite(d);
    let mut child = spawn(d, &["run", &suite, "-o", "out", "--quiet"]);
    child.stdin.take().unwrap().write_all(rows(50).as_bytes()).unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let results = std::fs::read_to_string(d.join("out/results.jsonl")).unwrap();
    assert_eq!(results.lines().count(), 50, "every piped row is scored");
    assert!(results.lines().last().unwrap().contains("\"r49\""), "{results}");
    let s = summary(&d.join("out"));
    assert_eq!(s["rows"], 50, "{s}");
    assert_eq!(s["run"]["dataset_hash"], "", "a stream is not hashed: {s}");
    assert_eq!(s["run"]["suite_hash"].as_str().map(str::len), Some(64), "{s}");
    // The store says why the dataset has no hash.
    let shown = at(d, &["runs", "show", "1"]);
    assert!(stdout(&shown).contains("not hashed: a pipe or a device"), "{}", stdout(&shown));
    // The HTML report cannot read the documents again, and says why.
    let o = at(d, &["report", "out", "--report", "html"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stderr(&o).contains("read from a pipe or a device"), "{}", stderr(&o));
    assert!(d.join("out/report.html").is_file());
}

#[cfg(unix)]
#[test]
fn a_dataset_from_a_named_pipe_is_scored_whole() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let fifo = d.join("rows.jsonl");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let suite = write(
        d,
        "suite.yaml",
        "dataset: rows.jsonl\nid: id\nevaluators:\n  - name: m\n    metric: json_match\n",
    );
    // The writer blocks until the run opens the pipe; it is bounded in
    // time by the run's own bound below.
    let writer = std::thread::spawn(move || {
        let mut pipe = std::fs::OpenOptions::new().write(true).open(fifo).unwrap();
        pipe.write_all(rows(2_000).as_bytes()).unwrap();
    });
    let child = spawn(d, &["run", &suite, "-o", "out", "--quiet", "--no-store"]);
    let o = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let results = std::fs::read_to_string(d.join("out/results.jsonl")).unwrap();
    assert_eq!(results.lines().count(), 2_000, "every row of the pipe is scored");
    // Parquet is read by seeking: from a pipe, a clear error.
    let fifo = d.join("rows.parquet");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let suite = write(
        d,
        "parquet.yaml",
        "dataset: rows.parquet
evaluators:
  - metric: json_match
",
    );
    let writer = std::thread::spawn(move || {
        let pipe = std::fs::OpenOptions::new().write(true).open(fifo);
        let _ = pipe.and_then(|mut p| p.write_all(b"PAR1"));
    });
    let o = at(d, &["run", &suite, "-o", "pq", "--quiet", "--no-store"]);
    writer.join().unwrap();
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("Parquet cannot be read from a stream"), "{}", stderr(&o));
    assert!(stderr(&o).contains("rows.parquet"), "{}", stderr(&o));
}

#[cfg(unix)]
#[test]
fn a_run_from_a_stream_cannot_be_resumed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let suite = stdin_suite(d);
    // Rows are written and the pipe left open: they are scored and
    // written while the run waits for more; the run is stopped then.
    let mut child = spawn(d, &["run", &suite, "-o", "out", "--quiet", "--threads", "1"]);
    let mut input = child.stdin.take().unwrap();
    input.write_all(rows(10).as_bytes()).unwrap();
    input.flush().unwrap();
    let results = d.join("out/results.jsonl");
    let lines = || std::fs::read_to_string(&results).map_or(0, |t| t.lines().count());
    let start = Instant::now();
    while lines() < 10 && start.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(lines(), 10, "the rows are scored while the pipe is open");
    let sent = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(sent.success());
    // The run ends although its pipe is still open (bounded: a run that
    // kept waiting is killed and fails the test).
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() && start.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let ended = child.try_wait().unwrap().is_some();
    if !ended {
        let _ = child.kill();
    }
    let o = child.wait_with_output().unwrap();
    drop(input);
    assert!(ended, "a stop ends a run whose stream is silent");
    assert_eq!(code(&o), 1, "a cancelled run exits 1: {}", stderr(&o));
    assert!(stderr(&o).contains("it cannot be resumed"), "{}", stderr(&o));
    assert!(!stderr(&o).contains("--resume"), "no resume offered: {}", stderr(&o));
    assert_eq!(summary(&d.join("out"))["cancelled"], true);
    // Refused from the dataset's file type (standard input is not a file),
    // before it is opened.
    let o = at(d, &["run", &suite, "--resume", "--quiet"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("refusing to resume: the dataset") && e.contains("not a file"), "{e}");
}

#[test]
fn compare_answers_pairs_piped_in_as_they_come() {
    use std::io::BufRead as _;
    let dir = tempfile::tempdir().unwrap();
    let mut child = spawn(
        dir.path(),
        &["compare", "--metric", "json_distance", "--pairs", "-", "--threads", "1"],
    );
    let mut input = child.stdin.take().unwrap();
    let (tx, answers) = std::sync::mpsc::channel();
    let out = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(out).lines() {
            let _ = tx.send(line.unwrap());
        }
    });
    // Each pair's score comes back before the next pair is written.
    for i in 0..3 {
        writeln!(input, r#"{{"id": "p{i}", "output": {{"a": {i}}}, "reference": {{"a": 1}}}}"#)
            .unwrap();
        input.flush().unwrap();
        let line = answers.recv_timeout(Duration::from_secs(30)).expect("answered while open");
        assert!(line.starts_with(&format!(r#"{{"id":"p{i}""#)), "{line}");
    }
    drop(input);
    let o = child.wait_with_output().unwrap();
    assert!(code(&o) <= 1, "{}", stderr(&o));
}

/// A reader that stops early (`compare --pairs … | head -1`) after a line
/// that was not scored leaves the command failed (exit 1), as reading
/// every line would; after scored lines only, it is no failure (exit 0).
#[test]
fn pairs_read_partly_after_an_unscored_line_still_fail() {
    let dir = tempfile::tempdir().unwrap();
    let good: String = (0..20_000)
        .map(|i| {
            format!("{{\"id\": \"{i}\", \"output\": {{\"a\": 1}}, \"reference\": {{\"a\": 1}}}}\n")
        })
        .collect();
    for (first, want) in [("{bad\n", 1), ("", 0)] {
        let path = dir.path().join("pairs.jsonl");
        std::fs::write(&path, format!("{first}{good}")).unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_refscore"))
            .args(["compare", "--metric", "json_distance", "--pairs", path.to_str().unwrap()])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawns");
        let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        std::io::BufRead::read_line(&mut out, &mut line).unwrap();
        assert!(line.contains("\"id\":"), "{line}");
        drop(out);
        let started = Instant::now();
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            assert!(started.elapsed() < Duration::from_secs(60), "refscore did not end");
            std::thread::sleep(Duration::from_millis(20));
        };
        assert_eq!(status.code(), Some(want), "first line {first:?}");
    }
}
