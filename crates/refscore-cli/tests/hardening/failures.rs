//! Failures part-way through `run` (a stale file that cannot be removed, a
//! summary or report that cannot be written, a stop signal at any moment)
//! leave the output folder and the run store telling the truth: an earlier
//! run's results are not lost, no partial file stays, and no run is
//! recorded as passed, or left `running`, when the command did not end so.

use std::path::Path;

use serde_json::Value;

use super::super::{code, stderr, stdout, write};
use super::{at, runs};

/// A suite of `n` rows in `dir`, all passing: `s.yaml` over `d.jsonl`.
fn small_suite(dir: &Path, n: usize) -> String {
    let rows: String = (0..n)
        .map(|i| {
            format!("{{\"id\": {i}, \"output\": {{\"a\": {i}}}, \"reference\": {{\"a\": {i}}}}}\n")
        })
        .collect();
    write(dir, "d.jsonl", &rows);
    write(
        dir,
        "s.yaml",
        "name: s\ndataset: d.jsonl\nid: id\nevaluators:\n  - {name: m, metric: json_match}\n",
    )
}

/// A rerun into a folder whose stale summary cannot be removed (here a
/// folder of that name, which no `remove_file` removes, even as root)
/// exits 2 before it empties the earlier run's `results.jsonl`: the
/// earlier results, and the report beside them, are left as they were.
#[test]
fn a_stale_file_that_cannot_be_removed_leaves_the_earlier_results_as_they_were() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    small_suite(d, 5);
    let o = at(d, &["run", "s.yaml", "-o", "prev", "--quiet", "--report", "md"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let prev = d.join("prev");
    let results = std::fs::read_to_string(prev.join("results.jsonl")).unwrap();
    assert_eq!(results.lines().count(), 5);
    let report = std::fs::read_to_string(prev.join("report.md")).unwrap();
    // The summary becomes a folder that holds a file.
    std::fs::remove_file(prev.join("summary.json")).unwrap();
    std::fs::create_dir(prev.join("summary.json")).unwrap();
    write(&prev.join("summary.json"), "kept", "x");
    let o = at(d, &["run", "s.yaml", "-o", "prev", "--quiet", "--report", "md"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("summary.json"), "names the file: {}", stderr(&o));
    let now = std::fs::read_to_string(prev.join("results.jsonl")).unwrap();
    assert!(now == results, "results.jsonl holds {} of its {} bytes", now.len(), results.len());
    let now = std::fs::read_to_string(prev.join("report.md")).unwrap();
    assert!(now == report, "report.md holds {} of its {} bytes", now.len(), report.len());
    assert!(prev.join("summary.json/kept").exists());
    // The run recorded for it failed; it is not left `running`.
    let all = runs(d);
    assert_eq!(all.len(), 2, "{all:?}");
    assert_eq!(all[0]["status"], Value::from("failed"), "{all:?}");
}

/// A suite of one row of 1,000 fields, all right: `wide.yaml`. Its
/// `results.jsonl` is a few hundred bytes, its `summary.json` (one
/// accuracy per field) over 200 KB.
fn wide_suite(dir: &Path) -> String {
    let fields: Vec<String> = (0..1_000).map(|i| format!("\"field_{i:04}\": {i}")).collect();
    let doc = format!("{{{}}}", fields.join(", "));
    write(dir, "wide.jsonl", &format!("{{\"id\": 1, \"output\": {doc}, \"reference\": {doc}}}\n"));
    write(
        dir,
        "wide.yaml",
        "name: wide\ndataset: wide.jsonl\nid: id\nevaluators:\n  - {name: m, metric: json_match}\n",
    )
}

/// A `summary.json` that cannot be written whole (here: a file size limit
/// of 150 KB, which the results and the store fit under and the summary
/// does not; as a full disk would) exits 2, leaves no partial summary, and
/// the store says the run failed: not `completed`, its gate not passed.
#[cfg(unix)]
#[test]
fn a_summary_that_cannot_be_written_leaves_no_partial_file_and_a_failed_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    wide_suite(d);
    let bin = env!("CARGO_BIN_EXE_refscore");
    // Past the limit a write fails with EFBIG (its signal, SIGXFSZ, is
    // ignored, which `exec` keeps); `ulimit -f` counts 512-byte blocks.
    let o = std::process::Command::new("sh")
        .args([
            "-c",
            "trap '' XFSZ; ulimit -f 300 && exec \"$0\" run wide.yaml -o out --quiet",
            bin,
        ])
        .env("REFSCORE_STORE", d.join("runs.db"))
        .current_dir(d)
        .output()
        .expect("runs");
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("writing out/summary.json"), "{}", stderr(&o));
    let names: Vec<String> = std::fs::read_dir(d.join("out"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["results.jsonl"], "no summary, whole or partial");
    let all = runs(d);
    assert_eq!(all.len(), 1, "{all:?}");
    assert_eq!(all[0]["status"], Value::from("failed"), "{all:?}");
    assert_ne!(all[0]["gate_passed"], Value::from(true), "{all:?}");
    // Without the limit, the failed run is resumed and completes.
    let o = at(d, &["run", "wide.yaml", "--resume", "--quiet"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("out/summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["rows"], 1);
}

/// An output written after the summary that fails (here the step summary,
/// `GITHUB_STEP_SUMMARY` naming `/dev/full`, which opens but takes no
/// byte) exits 2, and the store does not say the run completed and passed.
#[cfg(target_os = "linux")]
#[test]
fn a_report_that_cannot_be_written_fails_the_recorded_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    small_suite(d, 3);
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_refscore"))
        .args(["run", "s.yaml", "-o", "out", "--quiet", "--report", "md"])
        .env("REFSCORE_STORE", d.join("runs.db"))
        .env("GITHUB_STEP_SUMMARY", "/dev/full")
        .current_dir(d)
        .output()
        .expect("runs");
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("GITHUB_STEP_SUMMARY"), "{}", stderr(&o));
    let all = runs(d);
    assert_eq!(all.len(), 1, "{all:?}");
    assert_eq!(all[0]["status"], Value::from("failed"), "{all:?}");
    // What was written is whole: the summary and the report.
    let text = std::fs::read_to_string(d.join("out/summary.json")).unwrap();
    serde_json::from_str::<Value>(&text).expect("a whole summary");
    assert!(d.join("out/report.md").exists());
}

/// Whether process `pid` has the file `path` open (Linux: its `/proc`
/// descriptors; elsewhere, assumed after a second).
fn has_open(pid: u32, path: &Path, since: std::time::Instant) -> bool {
    match std::fs::read_dir(format!("/proc/{pid}/fd")) {
        Ok(fds) => fds.flatten().any(|fd| std::fs::read_link(fd.path()).is_ok_and(|p| p == path)),
        Err(_) => since.elapsed() > std::time::Duration::from_secs(1),
    }
}

/// A stop that arrives before the run is recorded (here while the run
/// waits for the store, which another process holds for writing) ends the
/// run as cancelled with exit 1 once it gets there, like a stop during
/// the rows: it is not killed (143), and no run is left `running`.
#[cfg(unix)]
#[test]
fn a_stop_before_the_run_is_recorded_ends_it_as_cancelled() {
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    small_suite(d, 3);
    let o = at(d, &["run", "s.yaml", "-o", "out", "--quiet"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let store = d.join("runs.db").canonicalize().unwrap();
    let db = rusqlite::Connection::open(&store).unwrap();
    db.execute_batch("BEGIN IMMEDIATE").unwrap();
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_refscore"))
        .args(["run", "s.yaml", "-o", "out", "--quiet"])
        .env("REFSCORE_STORE", &store)
        .current_dir(d)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawns");
    let start = Instant::now();
    while !has_open(child.id(), &store, start) && start.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(10));
    }
    let sent = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    std::thread::sleep(Duration::from_millis(300));
    db.execute_batch("COMMIT").unwrap();
    drop(db);
    let o = child.wait_with_output().expect("waits");
    assert_eq!(code(&o), 1, "cancelled, not killed: {:?} {}", o.status, stderr(&o));
    assert!(stderr(&o).contains("run cancelled"), "{}", stderr(&o));
    let all = runs(d);
    assert_eq!(all.len(), 2, "{all:?}");
    assert_eq!(all[0]["status"], Value::from("cancelled"), "{all:?}");
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("out/summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["cancelled"], true, "{summary}");
}

/// A second signal while the reports of a cancelled run are written ends
/// the process (130) without leaving a partial report: each is written
/// under a `.partial` name, renamed once whole, and a second signal
/// removes the one in hand.
#[cfg(unix)]
#[test]
fn a_second_signal_while_reports_are_written_leaves_no_partial_report() {
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let suite = super::big_suite(d);
    let child = super::spawn_run(d, &suite, &["--report", "junit,html"]);
    let pid = child.id().to_string();
    let signal = || {
        let sent = std::process::Command::new("kill").args(["-INT", &pid]).status().unwrap();
        assert!(sent.success());
    };
    // Enough rows that the reports take a while to write.
    let out = d.join("out");
    let start = Instant::now();
    while std::fs::metadata(out.join("results.jsonl")).map_or(0, |m| m.len()) < 1 << 20
        && start.elapsed() < Duration::from_secs(120)
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    signal();
    let first = Instant::now();
    // The second signal once a report is being written (and far enough
    // from the first not to count as the same stop).
    let names = ["junit.xml", "junit.xml.partial", "report.html", "report.html.partial"];
    while !names.iter().any(|n| out.join(n).exists()) && first.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(1));
    }
    if let Some(left) = Duration::from_millis(300).checked_sub(first.elapsed()) {
        std::thread::sleep(left);
    }
    signal();
    let o = child.wait_with_output().expect("waits");
    assert!(matches!(code(&o), 1 | 130), "{:?} {}", o.status, stderr(&o));
    for name in std::fs::read_dir(&out).unwrap() {
        let name = name.unwrap().file_name().to_string_lossy().into_owned();
        assert!(!name.ends_with(".partial"), "{name} was left behind");
    }
    if let Ok(junit) = std::fs::read_to_string(out.join("junit.xml")) {
        assert!(
            junit.trim_end().ends_with("</testsuites>"),
            "a partial junit.xml: {} bytes",
            junit.len()
        );
    }
    if let Ok(html) = std::fs::read_to_string(out.join("report.html")) {
        assert!(
            html.trim_end().ends_with("</html>"),
            "a partial report.html: {} bytes",
            html.len()
        );
    }
}

/// `results.jsonl` that cannot be written whole (here a file size limit of
/// 100 KB, as a full disk would) exits 2, and the file is cut back to its
/// last whole line: no torn line is left for `report` or a reader.
#[cfg(unix)]
#[test]
fn results_that_cannot_be_written_are_cut_back_to_the_last_whole_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let rows: String = (0..3_000)
        .map(|i| format!("{{\"id\": {i}, \"output\": {{\"a\": {i}, \"b\": [1, 2, 3]}}, \"reference\": {{\"a\": 1, \"b\": [3, 2, 1]}}}}\n"))
        .collect();
    write(d, "d.jsonl", &rows);
    write(
        d,
        "s.yaml",
        "dataset: d.jsonl\nid: id\nevaluators:\n  - {name: m, metric: json_match}\n",
    );
    let bin = env!("CARGO_BIN_EXE_refscore");
    let o = std::process::Command::new("sh")
        .args([
            "-c",
            "trap '' XFSZ; ulimit -f 200 && exec \"$0\" run s.yaml -o out --quiet --no-store",
            bin,
        ])
        .current_dir(d)
        .output()
        .expect("runs");
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    let text = std::fs::read_to_string(d.join("out/results.jsonl")).unwrap();
    assert!(text.len() > 50_000, "the rows that fit are kept: {} bytes", text.len());
    assert!(text.ends_with('\n'), "a torn last line: …{:?}", &text[text.len() - 40..]);
    for line in text.lines() {
        serde_json::from_str::<Value>(line).expect("every line is whole JSON");
    }
    let e = stderr(&o);
    assert!(e.contains("writing out/results.jsonl") && e.contains("last whole line"), "{e}");
}

/// A run killed outright stays `running`; a later run into its folder
/// completes there. Resuming the killed run is refused (exit 2, naming the
/// later run and the folder, and how to go on): it would overwrite the
/// later run's results with its own.
#[test]
fn a_resume_does_not_overwrite_a_folder_a_later_run_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let rows: String = (0..20_000)
        .map(|i| format!("{{\"id\": {i}, \"output\": {{\"a\": {i}, \"b\": [1, 2, 3]}}, \"reference\": {{\"a\": 1, \"b\": [3, 2, 1]}}}}\n"))
        .collect();
    write(d, "d.jsonl", &rows);
    let suite = write(
        d,
        "s.yaml",
        "dataset: d.jsonl\nid: id\nevaluators:\n  - {name: m, metric: json_match}\n",
    );
    let mut child = super::spawn_run(d, &suite, &[]);
    child.kill().expect("kills");
    let _ = child.wait();
    let o = at(d, &["run", "s.yaml", "-o", "out", "--quiet", "--limit", "10"]);
    assert!(matches!(code(&o), 0 | 1), "the run completes: {}", stderr(&o));
    let read = || -> Value {
        serde_json::from_str(&std::fs::read_to_string(d.join("out/summary.json")).unwrap()).unwrap()
    };
    assert_eq!(read()["run"]["id"], 2);
    let results = std::fs::read_to_string(d.join("out/results.jsonl")).unwrap();
    let o = at(d, &["run", "s.yaml", "--resume", "--quiet"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("refusing to resume run 1 into out")
            && e.contains("run 2")
            && e.contains("--resume 1 -o DIR")
            && e.contains("or leave it for `refscore runs prune` to delete"),
        "{e}"
    );
    assert_eq!(read()["run"]["id"], 2, "the later run's summary stays");
    let now = std::fs::read_to_string(d.join("out/results.jsonl")).unwrap();
    assert!(now == results, "the later run's results stay");
    let all = runs(d);
    assert_eq!(all[1]["status"], Value::from("running"), "{all:?}");
    // As the refusal says: no process holds its folder, so prune deletes it.
    let o = at(d, &["runs", "prune", "--keep", "1"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let left: Vec<Value> = runs(d).iter().map(|r| r["id"].clone()).collect();
    assert_eq!(left, [Value::from(2)], "{}", stderr(&o));
}

/// The store deleted while a run records: the run says that it is in no
/// store, never `run: 1 in runs.db` (a file that is gone).
#[cfg(unix)]
#[test]
fn a_store_deleted_while_the_run_records_is_said() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let suite = super::big_suite(d);
    let child = super::spawn_run(d, &suite, &[]);
    assert!(d.join("runs.db").exists());
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(d.join(format!("runs.db{suffix}")));
    }
    std::thread::sleep(std::time::Duration::from_millis(200));
    let sent = std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status();
    assert!(sent.unwrap().success());
    let o = child.wait_with_output().expect("waits");
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let e = stderr(&o);
    assert!(
        e.contains("runs.db was deleted or replaced while the run recorded: run 1 is not in it"),
        "{e}"
    );
    assert!(e.contains("run cancelled; it cannot be resumed without its record"), "{e}");
    assert!(!e.contains("--resume"), "{e}");
    assert!(!stdout(&o).contains("run: 1 in"), "{}", stdout(&o));
    assert!(!d.join("runs.db").exists());
}

/// Another store put in the store's place while a run records is left as
/// it was: the run writes nothing more (its log, found by name, would mix
/// into the other file's), and says the run is in no store.
#[cfg(unix)]
#[test]
fn a_store_replaced_while_the_run_records_is_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // The replacement: a store holding one run of a small suite.
    let other = d.join("other");
    std::fs::create_dir(&other).unwrap();
    write(&other, "d.jsonl", "{\"id\": 1, \"output\": 1, \"reference\": 1}\n");
    write(&other, "s.yaml", "dataset: d.jsonl\nevaluators:\n  - {metric: exact_match}\n");
    let o = super::at(&other, &["run", "s.yaml", "-q", "-o", "out"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let suite = super::big_suite(d);
    let child = super::spawn_run(d, &suite, &[]);
    std::fs::copy(other.join("runs.db"), d.join("new.db")).unwrap();
    std::fs::rename(d.join("new.db"), d.join("runs.db")).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    let sent = std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status();
    assert!(sent.unwrap().success());
    let o = child.wait_with_output().expect("waits");
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("was deleted or replaced while the run recorded"),
        "{}",
        stderr(&o)
    );
    // The replacement holds its own run, whole, and takes the next one.
    let listed = super::runs(d);
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["suite"], "s", "{listed:?}");
    write(d, "d.jsonl", "{\"id\": 1, \"output\": 1, \"reference\": 1}\n");
    write(d, "s.yaml", "dataset: d.jsonl\nevaluators:\n  - {metric: exact_match}\n");
    let o = super::at(d, &["run", "s.yaml", "-q", "-o", "again"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(super::runs(d).len(), 2);
}

/// The command a cancelled run suggests names the store when `--store`
/// named it (here another than `REFSCORE_STORE` names).
#[cfg(unix)]
#[test]
fn the_resume_a_cancelled_run_suggests_names_its_store() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let suite = super::big_suite(d);
    let store = d.join("elsewhere.db");
    let child = super::spawn_run(d, &suite, &["--store", store.to_str().unwrap()]);
    let sent = std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status();
    assert!(sent.unwrap().success());
    let o = child.wait_with_output().unwrap();
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let hint = format!("--resume --store {}`", store.display());
    assert!(stderr(&o).contains(&hint), "{}", stderr(&o));
    assert!(store.exists() && !d.join("runs.db").exists());
}
