//! Run history through the real binary: recording, baselines, the
//! regression gate, the `runs` commands, resuming after kill -9, two runs
//! at once, and stores that cannot be used.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{code, stderr, stdout, write};

mod store_io;

/// Runs the binary in `dir` with the store `store`.
fn at(dir: &Path, store: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_refscore"))
        .args(args)
        .env("REFSCORE_STORE", store)
        .current_dir(dir)
        .output()
        .expect("runs")
}

fn spawn(dir: &Path, store: &Path, args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_refscore"))
        .args(args)
        .env("REFSCORE_STORE", store)
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawns")
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("reads")).expect("JSON")
}

/// A dataset of `n` rows; rows whose number is in `wrong` get a wrong total.
fn dataset(n: usize, wrong: impl Fn(usize) -> bool) -> String {
    let mut text = String::new();
    for i in 0..n {
        let total = if wrong(i) { 999 } else { i };
        text.push_str(&format!(
            "{{\"id\": \"r{i}\", \"output\": {{\"total\": {total}, \"vendor\": \"v{i}\", \"items\": [1, 2]}}, \"reference\": {{\"total\": {i}, \"vendor\": \"v{i}\", \"items\": [1, 2]}}}}\n"
        ));
    }
    text
}

const SUITE: &str = "name: invoices\ndataset: data.jsonl\nid: id\ntags: {team: extraction}\n\
evaluators:\n  - {name: fields, metric: json_match, threshold: 0.5}\n  - {name: distance, metric: json_distance}\n\
gate:\n  max_failed_rows: 0\n  regression: {fail_on: critical}\n";

/// `summary.json` names the store as it names the suite, dataset and
/// output folder: absolute, so that it is found from any folder.
#[test]
fn the_summary_names_the_store_by_its_absolute_path() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "data.jsonl", &dataset(4, |_| false));
    write(d, "suite.yaml", SUITE);
    let o = at(d, Path::new("rel/runs.db"), &["run", "suite.yaml", "-o", "o1", "-q"]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let s = json(&d.join("o1/summary.json"));
    let store = Path::new(s["run"]["store"].as_str().unwrap());
    assert!(store.is_absolute(), "{store:?}");
    assert_eq!(store.canonicalize().unwrap(), d.join("rel/runs.db").canonicalize().unwrap());
}

#[test]
fn runs_are_recorded_compared_with_the_last_passing_one_and_gated() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let store = d.join("store/runs.db");
    write(d, "data.jsonl", &dataset(40, |_| false));
    write(d, "suite.yaml", SUITE);
    // First run: nothing to compare with.
    let args =
        ["run", "suite.yaml", "-o", "o1", "-q", "--tag", "pr=5", "--tag", "pr=6", "--tag", "pr=7"];
    let o = at(d, &store, &args);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    assert!(
        stderr(&o).contains("warning: --tag pr given 3 times: the last, `pr=7`, is kept"),
        "{}",
        stderr(&o)
    );
    let s1 = json(&d.join("o1/summary.json"));
    assert_eq!(s1["comparison"]["status"], "new");
    assert_eq!(s1["comparison"]["baseline"], Value::Null);
    assert_eq!(s1["run"]["id"], 1);
    assert_eq!(s1["run"]["tags"]["team"], "extraction");
    assert_eq!(s1["run"]["tags"]["pr"], "7");
    assert_eq!(s1["run"]["suite"], "invoices");
    assert_eq!(s1["run"]["dataset_hash"].as_str().unwrap().len(), 64);
    // Same data: clean against run 1.
    let o = at(d, &store, &["run", "suite.yaml", "-o", "o2", "-q"]);
    assert_eq!(code(&o), 0, "{}", stdout(&o));
    let s2 = json(&d.join("o2/summary.json"));
    assert_eq!(s2["comparison"]["baseline"]["run_id"], 1);
    assert_eq!(s2["comparison"]["baseline"]["chosen_by"], "last_passing");
    assert_eq!(s2["comparison"]["status"], "clean");
    assert_eq!(s2["comparison"]["evaluators"][0]["unchanged"], 40);
    // Three rows in four now have a wrong total: json_match loses 18.75%,
    // beyond the default critical threshold of 15%: exit 1.
    write(d, "data.jsonl", &dataset(40, |i| i % 4 != 0));
    let o = at(d, &store, &["run", "suite.yaml", "-o", "o3", "-q"]);
    assert_eq!(code(&o), 1, "{}", stdout(&o));
    let text = stdout(&o);
    assert!(
        text.contains("Most regressed rows") && text.contains("regression.fields: critical"),
        "{text}"
    );
    let s3 = json(&d.join("o3/summary.json"));
    let c = &s3["comparison"];
    assert_eq!(c["baseline"]["run_id"], 2, "the latest passing run");
    assert_eq!(c["evaluators"][0]["status"], "critical");
    assert_eq!(c["evaluators"][0]["regressed"], 30);
    assert_eq!(c["evaluators"][0]["improved"], 0);
    assert_eq!(c["evaluators"][0]["test"]["test"], "paired_t");
    assert_eq!(c["evaluators"][0]["test"]["significant"], true);
    assert_eq!(c["evaluators"][1]["status"], "critical", "the distance grew");
    assert_eq!(c["fields"][0]["path"], "$.total");
    assert_eq!(c["regressed_rows"][0]["delta"], "regressed");
    let check = s3["gate"]["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "regression.fields")
        .cloned();
    assert_eq!(check.unwrap()["status"], "critical");
    // The failed run is no baseline: the next one compares with run 2 again.
    let o = at(d, &store, &["run", "suite.yaml", "-o", "o4", "-q"]);
    assert_eq!(code(&o), 1);
    assert_eq!(json(&d.join("o4/summary.json"))["comparison"]["baseline"]["run_id"], 2);

    // Reports rendered again from the store, without the output folder.
    let o = at(d, &store, &["report", "3", "-o", "rep3", "--report", "md,junit,html"]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let md = std::fs::read_to_string(d.join("rep3/report.md")).unwrap();
    assert!(md.contains("critical") && md.contains("r1"), "{md}");
    let junit = std::fs::read_to_string(d.join("rep3/junit.xml")).unwrap();
    let gate = json(&d.join("o3/summary.json"))["gate"]["checks"].as_array().unwrap().len();
    assert_eq!(
        junit.matches("<testcase").count(),
        80 + gate,
        "40 rows × 2 evaluators, and the gate's checks"
    );
    assert!(d.join("rep3/report.html").is_file());
    let o = at(d, &store, &["report", "42"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("no run 42"), "{}", stderr(&o));

    // runs list / show / diff / pin / prune.
    let o = at(d, &store, &["runs", "list", "--format", "json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let runs: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let ids: Vec<i64> =
        runs.as_array().unwrap().iter().map(|r| r["id"].as_i64().unwrap()).collect();
    assert_eq!(ids, [4, 3, 2, 1]);
    assert_eq!(runs[0]["gate_passed"], false);
    assert_eq!(runs[3]["status"], "completed");
    let o = at(d, &store, &["runs", "list", "--limit", "2"]);
    assert!(stdout(&o).contains("invoices") && !stdout(&o).contains("pr=7"), "{}", stdout(&o));
    let o = at(d, &store, &["runs", "show", "1"]);
    assert!(stdout(&o).contains("tag         pr=7"), "{}", stdout(&o));
    assert!(stdout(&o).contains("Gate PASSED"), "{}", stdout(&o));
    let o = at(d, &store, &["runs", "diff", "1", "3", "--format", "json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let diff: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(diff["evaluators"][0]["regressed"], 30);
    assert_eq!(diff["evaluators"][0]["status"], c["evaluators"][0]["status"]);
    // The same comparison between two output folders, without a store.
    let o = at(d, &d.join("none.db"), &["runs", "diff", "o1", "o3", "--format", "json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let folders: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(folders["evaluators"][0]["regressed"], 30);
    // Pinned baseline.
    let o = at(d, &store, &["runs", "pin", "3"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    std::fs::write(
        d.join("pinned.yaml"),
        SUITE.replace("tags:", "regression: {baseline: pinned}\ntags:"),
    )
    .unwrap();
    let o = at(d, &store, &["run", "pinned.yaml", "-o", "o5", "-q"]);
    assert_eq!(code(&o), 0, "same data as the pinned run: {}", stdout(&o));
    let s5 = json(&d.join("o5/summary.json"));
    assert_eq!(s5["comparison"]["baseline"]["run_id"], 3);
    assert_eq!(s5["comparison"]["baseline"]["chosen_by"], "pinned");
    // --baseline: a folder, without any store.
    let o =
        at(d, &store, &["run", "suite.yaml", "-o", "o6", "-q", "--no-store", "--baseline", "o1"]);
    assert_eq!(code(&o), 1, "{}", stdout(&o));
    let s6 = json(&d.join("o6/summary.json"));
    assert_eq!(s6["comparison"]["baseline"]["folder"], "o1");
    assert_eq!(s6["comparison"]["status"], "critical");
    assert!(s6["run"]["id"].is_null());
    let o = at(d, &store, &["run", "suite.yaml", "-o", "o7", "-q", "--baseline", "nope"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("`nope` is neither an output folder ("), "{}", stderr(&o));
    let o = at(d, &store, &["runs", "prune", "--keep", "1"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = at(d, &store, &["runs", "list", "--format", "json"]);
    let left: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let ids: Vec<i64> =
        left.as_array().unwrap().iter().map(|r| r["id"].as_i64().unwrap()).collect();
    assert_eq!(ids, [5, 3], "the newest run and the pinned one");
    let o = at(d, &d.join("absent.db"), &["runs", "list"]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("absent.db: no run store here") && stderr(&o).contains("--store"),
        "{}",
        stderr(&o)
    );
    let o = at(d, &store, &["runs", "show", "99"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("no run 99"), "{}", stderr(&o));
}

/// A folder holding a dataset of 10 good rows, `suite.yaml` and
/// `pinned.yaml` (the same suite with a pinned baseline); its store's path.
fn ten_rows_two_suites() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "data.jsonl", &dataset(10, |_| false));
    write(d, "suite.yaml", SUITE);
    write(d, "pinned.yaml", &format!("{SUITE}regression: {{baseline: pinned}}\n"));
    let store = d.join("runs.db");
    (dir, store)
}

/// [`ten_rows_two_suites`] after one run of `suite.yaml` into `o1`, then
/// `sql` run on its store.
fn one_run_then(sql: &str) -> (tempfile::TempDir, PathBuf) {
    let (dir, store) = ten_rows_two_suites();
    let o = at(dir.path(), &store, &["run", "suite.yaml", "-o", "o1", "-q"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    rusqlite::Connection::open(&store).unwrap().execute_batch(sql).unwrap();
    (dir, store)
}

/// A baseline that ran another version of the suite (its file, or a
/// rules file it names, changed) is noted: a score may have moved with
/// the suite, not with the outputs.
#[test]
fn a_suite_changed_since_its_baseline_is_noted() {
    let (dir, store) = ten_rows_two_suites();
    let d = dir.path();
    let o = at(d, &store, &["run", "suite.yaml", "-o", "o1", "-q"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = at(d, &store, &["run", "suite.yaml", "-o", "o2", "-q"]);
    assert!(!stderr(&o).contains("has changed since the baseline"), "{}", stderr(&o));
    let s2 = json(&d.join("o2/summary.json"));
    assert_eq!(s2["comparison"]["baseline"]["suite_hash"], s2["run"]["suite_hash"]);
    write(d, "suite.yaml", &SUITE.replace("threshold: 0.5", "threshold: 0.6"));
    let o = at(d, &store, &["run", "suite.yaml", "-o", "o3", "-q", "--report", "md,html"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    // The reports say it too, from summary.json's two hashes.
    let said = "the suite has changed since the baseline (its file, or a file its options name)";
    for report in ["o3/report.md", "o3/report.html"] {
        let text = std::fs::read_to_string(d.join(report)).unwrap();
        assert!(text.contains(said), "{report}: {text}");
    }
    let e = stderr(&o);
    assert!(
        e.contains("note: suite `invoices` has changed since the baseline, run 2: its file, or a file its options name, differs (blake3 "),
        "{e}"
    );
    // Named on the command line, by folder, alike.
    let o = at(d, &store, &["run", "suite.yaml", "-o", "o4", "-q", "--baseline", "./o1"]);
    assert!(stderr(&o).contains("since the baseline, the output folder ./o1"), "{}", stderr(&o));
    // Its own earlier version is no longer a change.
    let o = at(d, &store, &["run", "suite.yaml", "-o", "o5", "-q", "--report", "md"]);
    assert!(!stderr(&o).contains("has changed since"), "{}", stderr(&o));
    let text = std::fs::read_to_string(d.join("o5/report.md")).unwrap();
    assert!(text.contains("Against the baseline") && !text.contains(said), "{text}");
}

/// From the root folder, where every absolute path lies, the files a run
/// names stay absolute (as `tmp/…` they read as if from another folder).
#[test]
fn a_run_from_the_root_folder_names_its_files_by_absolute_paths() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "data.jsonl", &dataset(4, |_| false));
    write(d, "suite.yaml", SUITE);
    let (suite, out) = (d.join("suite.yaml"), d.join("o1"));
    let args = ["run", suite.to_str().unwrap(), "-o", out.to_str().unwrap()];
    let o = at(Path::new("/"), &d.join("runs.db"), &args);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    for (what, file) in [("results", "results.jsonl"), ("summary", "summary.json")] {
        let line = format!("{what}: {}", out.join(file).display());
        assert!(stdout(&o).lines().any(|l| l == line), "no `{line}` in {}", stdout(&o));
    }
}

/// The run's standard error up to the line where it says it waits for
/// the store (or to its end), and the lines after it.
fn stderr_until_wait_note(
    child: &mut Child,
) -> (String, std::io::Lines<std::io::BufReader<std::process::ChildStderr>>) {
    use std::io::BufRead;
    let mut e = String::new();
    let mut lines = std::io::BufReader::new(child.stderr.take().unwrap()).lines();
    for line in lines.by_ref() {
        let line = line.unwrap();
        e += &line;
        e.push('\n');
        if line.contains("note: waiting for the run store") {
            break;
        }
    }
    (e, lines)
}

/// A run that waits for a store another process is writing says so
/// after two seconds (the wait lasts up to a minute), then goes on once
/// the store is free; `-q` says nothing.
#[test]
fn a_run_waiting_for_the_store_says_so() {
    let (dir, store) = one_run_then("SELECT 1");
    let d = dir.path();
    for (out, quiet) in [("o2", false), ("o3", true)] {
        let db = rusqlite::Connection::open(&store).unwrap();
        db.execute_batch("BEGIN EXCLUSIVE; SELECT 1;").unwrap();
        let mut args = vec!["run", "suite.yaml", "-o", out];
        if quiet {
            args.push("-q");
        }
        let mut child = spawn(d, &store, &args);
        let mut e = String::new();
        if quiet {
            std::thread::sleep(std::time::Duration::from_millis(3500));
        } else {
            // The store is held until the run says it waits (a minute at
            // most: the run's own bound).
            let (said, lines) = stderr_until_wait_note(&mut child);
            e = said;
            db.execute_batch("COMMIT").unwrap();
            e.extend(lines.map(|l| l.unwrap() + "\n"));
        }
        if quiet {
            db.execute_batch("COMMIT").unwrap();
        }
        let o = child.wait_with_output().unwrap();
        e += &String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(0), "{e}");
        let said = e.contains("note: waiting for the run store");
        assert_eq!(said, !quiet, "{e}");
        assert!(d.join(out).join("summary.json").exists());
    }
}

/// A run whose batches wait for a store another process took after the
/// run began says so too, whether a batch waits for room in the store
/// writer's queue (rows still coming) or the run's end waits for its last
/// batches to be committed; it finishes once the store is free.
#[test]
fn a_run_whose_batches_wait_for_the_store_says_so() {
    use std::io::Write;
    use std::sync::atomic::{AtomicBool, Ordering};
    let (dir, store) = one_run_then("SELECT 1");
    let d = dir.path();
    // Rows from standard input: the store is taken after the run has
    // recorded its start, before its first batch.
    write(
        d,
        "piped.yaml",
        "name: piped\ndataset: /dev/stdin\nformat: jsonl\nid: id\nevaluators:\n  - name: m\n    metric: json_match\n",
    );
    let db = rusqlite::Connection::open(&store).unwrap();
    let running = || -> i64 {
        db.query_row("SELECT count(*) FROM runs WHERE status = 'running'", [], |r| r.get(0))
            .unwrap_or(0)
    };
    let row = |k: usize| {
        format!("{{\"id\": \"g{k}\", \"output\": {{\"a\": {k}}}, \"reference\": {{\"a\": {k}}}}}\n")
    };
    // A stream's rows go to the store in a batch within 200 ms of coming:
    // rows every 300 ms make a batch each, and the writer's queue fills.
    for (out, rows_still_coming) in [("o2", true), ("o3", false)] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_refscore"))
            .args(["run", "piped.yaml", "-o", out])
            .env("REFSCORE_STORE", &store)
            .current_dir(d)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawns");
        let start = std::time::Instant::now();
        while running() == 0 {
            assert!(start.elapsed() < std::time::Duration::from_secs(30), "the run never began");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        db.execute_batch("BEGIN EXCLUSIVE; SELECT 1;").unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let feeder = {
            let stop = std::sync::Arc::clone(&stop);
            std::thread::spawn(move || {
                let mut sent = 0;
                // At most 40 rows (12 s): the note comes after 4 queued
                // batches and 2 s. One row when the rows stop coming.
                let most = if rows_still_coming { 40 } else { 1 };
                while sent < most && !stop.load(Ordering::Relaxed) {
                    if stdin.write_all(row(sent).as_bytes()).is_err() {
                        break;
                    }
                    sent += 1;
                    std::thread::sleep(std::time::Duration::from_millis(300));
                }
                sent
            })
        };
        if !rows_still_coming {
            // One row, then the end: the run's end waits for its batch.
            while !feeder.is_finished() {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
        }
        // The store is held until the run says it waits (a minute at most:
        // the run's own bound).
        let (mut e, lines) = stderr_until_wait_note(&mut child);
        let still_coming = !feeder.is_finished();
        db.execute_batch("COMMIT").unwrap();
        stop.store(true, Ordering::Relaxed);
        let sent = feeder.join().unwrap();
        e.extend(lines.map(|l| l.unwrap() + "\n"));
        let o = child.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{e}");
        assert!(e.contains("note: waiting for the run store"), "{e}");
        // The first run said so while its rows were still coming: a
        // batch waited, not the run's end.
        assert_eq!(still_coming, rows_still_coming, "{e}");
        assert_eq!(running(), 0, "{e}");
        let done: i64 = db
            .query_row("SELECT rows_done FROM runs ORDER BY id DESC LIMIT 1", [], |r| r.get(0))
            .unwrap();
        assert_eq!(done, i64::try_from(sent).unwrap(), "{e}");
    }
}

/// A run whose record the store refuses (here a trigger; in life a store
/// another process held for too long) fails before writing anything: the
/// output folder it created for itself is taken back.
#[test]
fn a_run_the_store_refuses_leaves_no_empty_output_folder() {
    let (dir, store) = one_run_then(
        "CREATE TRIGGER refuse BEFORE INSERT ON runs BEGIN SELECT RAISE(ABORT, 'refused'); END;",
    );
    let d = dir.path();
    let o = at(d, &store, &["run", "suite.yaml", "-o", "fresh", "-q"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("refused"), "{}", stderr(&o));
    assert!(!d.join("fresh").exists());
    // So are the folders above it that -o made.
    let o = at(d, &store, &["run", "suite.yaml", "-o", "deep/er/fresh", "-q"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(!d.join("deep").exists());
    // A folder of its own (no -o) is taken back too.
    let o = at(d, &store, &["run", "suite.yaml", "-q"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    let claimed: Vec<_> = std::fs::read_dir(d.join("refscore-out")).unwrap().collect();
    assert!(claimed.is_empty(), "{claimed:?}");
    // An existing folder keeps what it held; a results.jsonl it lacked is
    // not left behind.
    std::fs::create_dir(d.join("kept")).unwrap();
    write(&d.join("kept"), "notes.txt", "mine");
    let o = at(d, &store, &["run", "suite.yaml", "-o", "kept", "-q"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(!d.join("kept/results.jsonl").exists());
    assert_eq!(std::fs::read_to_string(d.join("kept/notes.txt")).unwrap(), "mine");
    // The earlier run's folder is as it was.
    let o = at(d, &store, &["run", "suite.yaml", "-o", "o1", "-q"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(std::fs::metadata(d.join("o1/results.jsonl")).unwrap().len() > 0);
}

/// An evaluator of the baseline that the run no longer has (removed or
/// renamed) is said on the console, in summary.json and in the reports:
/// its regression check is gone with it.
#[test]
fn an_evaluator_gone_since_the_baseline_is_noted() {
    let (dir, store) = ten_rows_two_suites();
    let d = dir.path();
    let o = at(d, &store, &["run", "suite.yaml", "-o", "o1", "-q"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let s1 = json(&d.join("o1/summary.json"));
    assert!(s1["comparison"].get("evaluators_gone").is_none(), "{}", s1["comparison"]);
    let without = SUITE.replace("  - {name: distance, metric: json_distance}\n", "");
    assert_ne!(without, SUITE);
    write(d, "suite.yaml", &without.replace("name: fields", "name: fields2"));
    let o = at(d, &store, &["run", "suite.yaml", "-o", "o2", "--report", "md,html"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let said = |name: &str| {
        format!(
            "evaluator `{name}` of the baseline is not in this run (removed from the suite, or renamed)"
        )
    };
    for name in ["fields", "distance"] {
        assert!(stdout(&o).contains(&said(name)), "{}", stdout(&o));
    }
    let s2 = json(&d.join("o2/summary.json"));
    assert_eq!(s2["comparison"]["evaluators_gone"], serde_json::json!(["fields", "distance"]));
    let md = std::fs::read_to_string(d.join("o2/report.md")).unwrap();
    assert!(md.contains("evaluator &#96;distance&#96; of the baseline is not in this run"), "{md}");
    let html = std::fs::read_to_string(d.join("o2/report.html")).unwrap();
    assert!(html.contains("evaluator `distance` of the baseline is not in this run"), "{html}");
}

/// Runs recorded, none of them passed: the run is told why it has no
/// baseline, not that there is none "yet".
#[test]
fn a_suite_whose_gate_never_passed_is_told_so() {
    let (dir, store) = ten_rows_two_suites();
    let d = dir.path();
    write(d, "never.yaml", &SUITE.replace("max_failed_rows: 0", "min_mean: {fields: 2}"));
    let o = at(d, &store, &["run", "never.yaml", "-o", "o1", "-q"]);
    assert_eq!(code(&o), 1, "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("no baseline run to compare with yet"), "{}", stdout(&o));
    for (out, runs) in [("o2", "1 earlier completed run"), ("o3", "2 earlier completed runs")] {
        let o = at(d, &store, &["run", "never.yaml", "-o", out, "-q"]);
        assert_eq!(code(&o), 1, "{}{}", stdout(&o), stderr(&o));
        let want = format!("none of the {runs} of suite `invoices` passed its gate");
        assert!(stdout(&o).contains(&want), "{}", stdout(&o));
        let note = &json(&d.join(out).join("summary.json"))["comparison"]["evaluators"][0]["note"];
        assert!(note.as_str().is_some_and(|n| n.contains(&want)), "{note}");
    }
    // Named, or pinned, a run whose gate failed is a baseline: said so.
    let o = at(d, &store, &["run", "never.yaml", "-o", "o3b", "-q", "--baseline", "1"]);
    assert!(
        stdout(&o)
            .contains("Baseline run 1 (run 1, named on the command line; its own gate failed)"),
        "{}",
        stdout(&o)
    );
    let o = at(d, &store, &["runs", "pin", "1"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stdout(&o).contains(
            "(its own gate failed: later runs are compared with a run that did not pass)"
        ),
        "{}",
        stdout(&o)
    );
    let o = at(d, &store, &["runs", "unpin", "1"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    // Once one passes, the next run has it as its baseline.
    let o = at(d, &store, &["run", "suite.yaml", "-o", "o4", "-q"]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let o = at(d, &store, &["run", "never.yaml", "-o", "o5", "-q"]);
    assert!(stdout(&o).contains("Baseline run 5 (the latest completed"), "{}", stdout(&o));
}

#[test]
fn the_console_says_why_a_run_has_no_baseline() {
    let (dir, store) = ten_rows_two_suites();
    let d = dir.path();
    let o = at(d, &store, &["run", "suite.yaml", "-o", "o1", "-q"]);
    assert!(stdout(&o).contains("no baseline run to compare with yet"), "{}", stdout(&o));
    for (args, why) in [
        (
            vec!["run", "suite.yaml", "-o", "o2", "-q", "--no-store"],
            "the run store is off (--no-store)",
        ),
        (
            vec!["run", "suite.yaml", "-o", "o3", "-q", "--limit", "5"],
            "no passing run of suite `invoices` with --limit 5",
        ),
        (
            vec!["run", "pinned.yaml", "-o", "o4", "-q"],
            "no run of suite `invoices` is pinned: pin one with `refscore runs pin RUN`",
        ),
    ] {
        let o = at(d, &store, &args);
        assert_eq!(code(&o), 0, "{args:?}: {}", stderr(&o));
        assert!(stdout(&o).contains(why), "{args:?}: {}", stdout(&o));
    }
    // With a baseline there is no such note.
    let o = at(d, &store, &["run", "suite.yaml", "-o", "o5", "-q"]);
    assert!(stdout(&o).contains("whose gate passed): clean"), "{}", stdout(&o));
}

/// Overwrites one column of a recorded run (or, for `cells` and `lines`,
/// of its batches), as a damaged disk or a hand edit would.
fn damage(store: &Path, id: i64, column: &str) {
    let db = rusqlite::Connection::open(store).unwrap();
    let batch = matches!(column, "cells" | "lines");
    let (table, key) = if batch { ("batches", "run") } else { ("runs", "id") };
    db.execute(&format!("UPDATE {table} SET {column} = '{{broken' WHERE {key} = ?1"), [id])
        .unwrap();
}

#[test]
fn a_damaged_run_record_is_passed_over_and_never_stops_later_runs() {
    let (dir, store) = ten_rows_two_suites();
    let d = dir.path();
    for out in ["o1", "o2", "o3", "o4"] {
        let o = at(d, &store, &["run", "suite.yaml", "-o", out, "-q"]);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
    }
    let o = at(d, &store, &["runs", "pin", "4"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    damage(&store, 4, "summary");
    damage(&store, 3, "info");
    damage(&store, 2, "cells");
    let o = at(d, &store, &["run", "suite.yaml", "-o", "o5", "-q"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let base = &json(&d.join("o5/summary.json"))["comparison"]["baseline"];
    assert_eq!(base["run_id"], 1, "{base}");
    let reason = base["reason"].as_str().unwrap();
    for why in [
        "passed over: run 4, whose stored summary cannot be read",
        "run 3, whose stored information cannot be read",
        "run 2, whose stored scores cannot be read",
    ] {
        assert!(reason.contains(why), "{why}: {reason}");
    }
    // Every run ended; the runs whose record is damaged are marked.
    let o = at(d, &store, &["runs", "list", "--format", "json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let listed: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let listed =
        listed.as_array().cloned().unwrap_or_else(|| listed["runs"].as_array().unwrap().clone());
    assert_eq!(listed.len(), 5);
    assert!(listed.iter().all(|r| r["status"] == "completed"), "{listed:?}");
    let damaged: Vec<_> =
        listed.iter().filter(|r| r.get("damaged").is_some()).map(|r| r["id"].clone()).collect();
    assert_eq!(damaged, vec![Value::from(4), Value::from(3)]);
    for (run, says) in [
        ("3", "run 3: stored information cannot be read"),
        ("4", "run 4: stored summary cannot be read"),
    ] {
        let o = at(d, &store, &["runs", "show", run]);
        assert_eq!(code(&o), 2, "{}", stdout(&o));
        assert!(stderr(&o).contains(says), "{}", stderr(&o));
        let o = at(d, &store, &["runs", "pin", run]);
        assert_eq!(code(&o), 2, "a damaged run is no baseline to pin: {}", stdout(&o));
    }
    // A damaged pinned run is no baseline: the run says so and still ends.
    let o = at(d, &store, &["run", "pinned.yaml", "-o", "o6", "-q"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stdout(&o).contains("Baseline new: the pinned run 4, whose stored summary cannot be read"),
        "{}",
        stdout(&o)
    );
    let o = at(d, &store, &["runs", "list", "--format", "json"]);
    assert!(!stdout(&o).contains("running"), "{}", stdout(&o));
    // Reports of a run whose result lines are damaged: an error that says
    // so, and no report file left half written.
    damage(&store, 1, "lines");
    let o = at(d, &store, &["report", "1", "-o", "rep"]);
    assert_eq!(code(&o), 2, "{}", stdout(&o));
    assert!(stderr(&o).contains("the stored result lines are damaged"), "{}", stderr(&o));
    assert!(!d.join("rep/report.md").exists() && !d.join("rep/junit.xml").exists());
}

/// A baseline whose summary `report` could not read, or whose results lost
/// or gained a line, is refused as `--baseline FOLDER` (exit 2, naming the
/// file) and passed over, naming why, as the store's last passing run:
/// never read as a baseline without evaluators, whose gate then passes.
#[test]
fn a_baseline_report_could_not_read_is_never_a_baseline_without_evaluators() {
    let (dir, store) = ten_rows_two_suites();
    let d = dir.path();
    let o = at(d, &store, &["run", "suite.yaml", "-o", "good", "-q"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let edit = |name: &str, f: &dyn Fn(&mut Value)| {
        let to = d.join(name);
        std::fs::create_dir_all(&to).unwrap();
        let mut s = json(&d.join("good/summary.json"));
        f(&mut s);
        std::fs::write(to.join("summary.json"), s.to_string()).unwrap();
        std::fs::copy(d.join("good/results.jsonl"), to.join("results.jsonl")).unwrap();
    };
    edit("mean_text", &|s| s["evaluators"][0]["mean"] = Value::from("0.9"));
    edit("no_evaluators", &|s| s["evaluators"] = Value::Array(Vec::new()));
    edit("no_direction", &|s| {
        s["evaluators"][1].as_object_mut().unwrap().remove("direction");
    });
    edit("no_mean", &|s| s["evaluators"][0]["mean"] = Value::Null);
    edit("cancelled", &|s| s["cancelled"] = Value::Bool(true));
    edit("lost_lines", &|_| {});
    let text = std::fs::read_to_string(d.join("good/results.jsonl")).unwrap();
    let kept: Vec<&str> = text.lines().take(4).collect();
    std::fs::write(d.join("lost_lines/results.jsonl"), kept.join("\n") + "\n").unwrap();
    for (folder, says) in [
        (
            "mean_text",
            "summary.json: not a summary: `evaluators[0].mean`: invalid type: string \"0.9\", expected f64",
        ),
        ("no_evaluators", "summary.json: not a summary: it lists no evaluator"),
        ("no_direction", "summary.json: not a summary: `evaluators[1]`: missing field `direction`"),
        (
            "no_mean",
            "summary.json: not a summary: evaluator `fields` counts 10 scores but has no mean",
        ),
        ("lost_lines", "results.jsonl: holds 4 rows where the run's summary counts 10"),
        (
            "cancelled",
            "summary.json: the run was cancelled after 10 rows: only a completed run can be compared",
        ),
    ] {
        let o = at(
            d,
            &store,
            &["run", "suite.yaml", "-o", "o", "-q", "--no-store", "--baseline", folder],
        );
        assert_eq!(code(&o), 2, "{folder}: {}", stdout(&o));
        assert!(stderr(&o).contains(says), "{folder}: {}", stderr(&o));
    }
    // In the store: run 1's summary with a mean as text is passed over.
    let db = rusqlite::Connection::open(&store).unwrap();
    db.execute(
        "UPDATE runs SET summary = json_set(summary, '$.evaluators[0].mean', '0.9') WHERE id = 1",
        [],
    )
    .unwrap();
    drop(db);
    let o = at(d, &store, &["run", "suite.yaml", "-o", "o2", "-q"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(json(&d.join("o2/summary.json"))["comparison"]["baseline"].is_null());
    assert!(
        stdout(&o)
            .contains("passed over: run 1, whose stored summary cannot be read (not a summary"),
        "{}",
        stdout(&o)
    );
}

/// Results lines without their timings.
fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            for e in v["execution"].as_object_mut().unwrap().values_mut() {
                e["duration_ms"] = Value::from(0);
            }
            v
        })
        .collect()
}

/// A summary without what differs between two runs of the same data.
fn comparable(mut s: Value) -> Value {
    for k in ["duration_s", "run", "comparison"] {
        s.as_object_mut().unwrap().remove(k);
    }
    s
}

/// Rows recorded so far for run 1, read with the binary.
fn rows_recorded(d: &Path, store: &Path) -> u64 {
    let o = at(d, store, &["runs", "show", "latest", "--format", "json"]);
    serde_json::from_str::<Value>(&stdout(&o))
        .ok()
        .and_then(|v| v["run"]["rows"].as_u64())
        .unwrap_or(0)
}

#[test]
fn kill_9_at_random_points_then_resume_evaluates_every_row_exactly_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let n: u64 = 12_000;
    let mut text = String::new();
    for i in 0..n {
        text.push_str(&format!(
            "{{\"id\": \"r{i}\", \"output\": {{\"a\": {}, \"b\": [{{\"k\": 1, \"v\": {i}}}, {{\"k\": 2, \"v\": 2}}], \"s\": \"{}\"}}, \"reference\": {{\"a\": {i}, \"b\": [{{\"k\": 2, \"v\": 2}}, {{\"k\": 1, \"v\": {i}}}], \"s\": \"xyz\"}}}}\n",
            i % 7,
            "xyz".repeat((i % 3 + 1) as usize)
        ));
    }
    write(d, "data.jsonl", &text);
    write(
        d,
        "suite.yaml",
        "dataset: data.jsonl\nid: id\nevaluators:\n  - {name: m, metric: json_match}\n  - {name: s, metric: json_similarity}\n",
    );
    let clean_store = d.join("clean.db");
    let o = at(d, &clean_store, &["run", "suite.yaml", "-o", "clean", "-q"]);
    assert!(code(&o) <= 1, "{}", stderr(&o));
    let store = d.join("runs.db");
    // Kill points from a fixed seed (xorshift), printed on failure.
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut kills = Vec::new();
    for round in 0..3 {
        let mut args = vec!["run", "suite.yaml", "-o", "out", "-q", "--threads", "1"];
        if round > 0 {
            args.push("--resume");
        }
        let before = rows_recorded(d, &store);
        let mut child = spawn(d, &store, &args);
        // Wait until this part recorded at least one more batch, then a
        // random extra delay of 0-150 ms.
        let start = Instant::now();
        while rows_recorded(d, &store) <= before && start.elapsed() < Duration::from_secs(60) {
            std::thread::sleep(Duration::from_millis(5));
        }
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        std::thread::sleep(Duration::from_millis(seed % 150));
        child.kill().expect("kill -9");
        child.wait().expect("waits");
        kills.push(rows_recorded(d, &store));
    }
    assert!(kills.windows(2).all(|w| w[0] < w[1]), "each part got further: {kills:?}");
    assert!(*kills.last().unwrap() < n, "killed before the end: {kills:?}");
    let o = at(d, &store, &["run", "suite.yaml", "-o", "out", "-q", "--resume"]);
    assert!(code(&o) <= 1, "kills at {kills:?}: {}", stderr(&o));
    let got = lines(&d.join("out/results.jsonl"));
    let want = lines(&d.join("clean/results.jsonl"));
    assert_eq!(got.len() as u64, n, "kills at {kills:?}");
    let ids: std::collections::HashSet<&str> =
        got.iter().map(|v| v["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len() as u64, n, "every id exactly once (kills at {kills:?})");
    assert!(got == want, "same results as a clean run (kills at {kills:?})");
    let s = json(&d.join("out/summary.json"));
    assert_eq!(s["run"]["resumed"], 3);
    assert_eq!(comparable(s), comparable(json(&d.join("clean/summary.json"))));
    // Nothing left to resume; a changed dataset is refused.
    let o = at(d, &store, &["run", "suite.yaml", "-o", "out", "-q", "--resume"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("no unfinished run"), "{}", stderr(&o));
    let mut child = spawn(d, &store, &["run", "suite.yaml", "-o", "out2", "-q", "--threads", "1"]);
    let start = Instant::now();
    while rows_recorded(d, &store) == 0 || rows_recorded(d, &store) == n {
        std::thread::sleep(Duration::from_millis(5));
        if start.elapsed() > Duration::from_secs(60) {
            break;
        }
    }
    child.kill().expect("kill");
    child.wait().expect("waits");
    std::fs::write(d.join("data.jsonl"), text.replace("\"r0\"", "\"r0x\"")).unwrap();
    let o = at(d, &store, &["run", "suite.yaml", "-q", "--resume"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("the dataset") && stderr(&o).contains("changed"), "{}", stderr(&o));
}

#[test]
fn three_runs_at_once_on_one_new_store_all_complete() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "data.jsonl", &dataset(5_000, |i| i % 10 == 0));
    write(d, "suite.yaml", SUITE);
    let store = d.join("runs.db");
    // All three create the store at once.
    let runs: Vec<Child> = ["a", "b", "c"]
        .iter()
        .map(|o| spawn(d, &store, &["run", "suite.yaml", "-o", o, "-q", "--threads", "1"]))
        .collect();
    for c in runs {
        let o = c.wait_with_output().expect("waits");
        assert_eq!(code(&o), 0, "{}", stderr(&o));
    }
    let o = at(d, &store, &["runs", "list", "--format", "json"]);
    let runs: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(runs.as_array().unwrap().len(), 3);
    for r in runs.as_array().unwrap() {
        assert_eq!(r["status"], "completed");
        assert_eq!(r["rows"], 5_000);
    }
}

#[test]
fn a_store_that_cannot_be_used_is_a_clear_error_and_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "data.jsonl", &dataset(10, |_| false));
    write(d, "suite.yaml", SUITE);
    // Not SQLite.
    let junk = d.join("junk.db");
    std::fs::write(&junk, "important notes, not a database\n").unwrap();
    let o = at(d, &junk, &["run", "suite.yaml", "-o", "o", "-q"]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("junk.db") && stderr(&o).contains("not a refscore run store"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read_to_string(&junk).unwrap(), "important notes, not a database\n");
    assert!(!d.join("o/summary.json").exists(), "nothing was evaluated");
    // A truncated store.
    let good = d.join("good.db");
    assert_eq!(code(&at(d, &good, &["run", "suite.yaml", "-o", "g", "-q"])), 0);
    // Checkpoint the WAL into the main file first, as a finished process does.
    let bytes = std::fs::read(&good).unwrap();
    let cut = d.join("cut.db");
    std::fs::write(&cut, &bytes[..bytes.len().min(4096 + 100)]).unwrap();
    let before = std::fs::read(&cut).unwrap();
    let o = at(d, &cut, &["runs", "list"]);
    let o2 = at(d, &cut, &["run", "suite.yaml", "-o", "c", "-q"]);
    for o in [&o, &o2] {
        assert_eq!(code(o), 2, "{}{}", stdout(o), stderr(o));
        assert!(stderr(o).contains("cut.db"), "{}", stderr(o));
    }
    assert_eq!(std::fs::read(&cut).unwrap(), before, "never overwritten");
    // A location where nothing can be written.
    let file = d.join("a-file");
    std::fs::write(&file, "x").unwrap();
    let o = at(d, &file.join("runs.db"), &["run", "suite.yaml", "-o", "r", "-q"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("a-file"), "{}", stderr(&o));
    // --no-store writes nothing.
    let none = d.join("never.db");
    let o = at(d, &none, &["run", "suite.yaml", "-o", "n", "-q", "--no-store"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(!none.exists());
}

#[test]
fn the_default_store_sits_beside_the_suite() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("suites")).unwrap();
    write(&d.join("suites"), "data.jsonl", &dataset(3, |_| false));
    write(&d.join("suites"), "suite.yaml", SUITE);
    let o = Command::new(env!("CARGO_BIN_EXE_refscore"))
        .args(["run", "suites/suite.yaml", "-o", "o", "-q"])
        .env_remove("REFSCORE_STORE")
        .current_dir(d)
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let store: PathBuf = d.join("suites/.refscore/runs.db");
    assert!(store.is_file());
    let o = Command::new(env!("CARGO_BIN_EXE_refscore"))
        .args(["runs", "list", "--suite", "suites/suite.yaml"])
        .env_remove("REFSCORE_STORE")
        .current_dir(d)
        .output()
        .unwrap();
    assert!(stdout(&o).contains("invoices"), "{}{}", stdout(&o), stderr(&o));
}

/// Suite names, tags, links and baseline reasons come from the user: the
/// console shows their control characters escaped, as it does row ids,
/// never as raw escape sequences, bells or line breaks.
#[test]
fn the_console_shows_names_tags_and_links_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let store = d.join("runs.db");
    write(d, "d.jsonl", "{\"id\": 1, \"output\": {\"a\": 1}, \"reference\": {\"a\": 1}}\n");
    write(
        d,
        "suite.yaml",
        "name: \"\\e[31mRED\\e]0;t\\a\"\ndataset: d.jsonl\nlinks: {\"l\\nk\": \"http://x\\ny\\e[2J\"}\nevaluators:\n  - {metric: json_diff}\n",
    );
    let name = "\\u{1b}[31mRED\\u{1b}]0;t\\u{7}";
    let raw = |text: &str| text.chars().any(|c| c.is_control() && c != '\n');
    let first = at(
        d,
        &store,
        &[
            "run",
            "suite.yaml",
            "-o",
            "o1",
            "--tag",
            "k=\u{1b}]0;pwned\u{7}\u{1b}[31mRED",
            "--tag",
            "t\nx=1",
        ],
    );
    assert_eq!(code(&first), 0, "{}", stderr(&first));
    // The user's own output folder is shown escaped too.
    let second = at(d, &store, &["run", "suite.yaml", "-o", "o\u{1b}[2J2"]);
    for o in [&first, &second] {
        let out = stdout(o);
        assert!(!raw(&out), "{out:?}");
        assert!(out.starts_with(&format!("{name}  1 row in")), "{out}");
    }
    assert!(stdout(&second).contains("results: o\\u{1b}[2J2/results.jsonl"), "{}", stdout(&second));
    let report = at(d, &store, &["report", "1", "-o", "r\u{1b}[2J", "--report", "md"]);
    assert_eq!(stdout(&report), "r\\u{1b}[2J/report.md\n");
    let out = stdout(&second);
    assert!(
        out.contains(&format!("the latest completed run of suite `{name}` whose gate passed")),
        "{out}"
    );
    let show = stdout(&at(d, &store, &["runs", "show", "1"]));
    assert!(!raw(&show), "{show:?}");
    assert!(show.starts_with(&format!("Run 1 {name}\n")), "{show}");
    for line in [
        "  tag         k=\\u{1b}]0;pwned\\u{7}\\u{1b}[31mRED\n",
        "  tag         t\\nx=1\n",
        "  link        l\\nk: http://x\\ny\\u{1b}[2J\n",
    ] {
        assert!(show.contains(line), "{line:?} in {show}");
    }
    for args in [&["runs", "list"][..], &["runs", "pin", "2"], &["runs", "show", "2"]] {
        let out = stdout(&at(d, &store, args));
        assert!(!raw(&out) && out.contains(name), "{args:?}: {out:?}");
    }
}

/// Runs the binary in `dir` with no `REFSCORE_STORE`: the store is found
/// as a user without that variable finds it.
fn bare(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_refscore"))
        .args(args)
        .env_remove("REFSCORE_STORE")
        .current_dir(dir)
        .output()
        .expect("runs")
}

/// From the folder above a suite's (the repository root above
/// `examples/invoices/`), every command that reads recorded runs finds
/// the store beside the suite with `--suite FILE`, as `runs list` does;
/// without it, the "no run store here" error says to give `--suite`.
/// `--suite` also means "only runs of this suite": `latest` is its latest
/// run, a run of another suite is refused, and a prune that would delete
/// another suite's runs deletes nothing.
#[test]
fn every_command_reading_runs_finds_the_store_beside_its_suite_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let s = d.join("suites");
    std::fs::create_dir(&s).unwrap();
    write(&s, "data.jsonl", &dataset(5, |_| false));
    write(&s, "suite.yaml", SUITE);
    write(&s, "other.yaml", &SUITE.replace("name: invoices", "name: receipts"));
    for (suite, out) in
        [("suites/suite.yaml", "o1"), ("suites/suite.yaml", "o2"), ("suites/other.yaml", "o3")]
    {
        let o = bare(d, &["run", suite, "-o", out, "-q"]);
        assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    }
    assert!(s.join(".refscore/runs.db").is_file());
    let file = ["--suite", "suites/suite.yaml"];
    let with = |args: &[&str]| bare(d, &[args, &file[..]].concat());

    // Without --suite: no store in the current folder, and the error says
    // how to name it, for every command that takes --suite.
    for args in [
        &["runs", "list"][..],
        &["runs", "show", "1"],
        &["runs", "pin", "1"],
        &["runs", "unpin", "1"],
        &["runs", "prune", "--keep", "1"],
    ] {
        let o = bare(d, args);
        assert_eq!(code(&o), 2, "{args:?}: {}", stdout(&o));
        let e = stderr(&o);
        assert!(e.contains("no run store here") && e.contains("--suite FILE"), "{args:?}: {e}");
    }
    // Given what may be an output folder, as `run --baseline` says it.
    for args in [&["runs", "diff", "1", "2"][..], &["report", "1"]] {
        let e = stderr(&bare(d, args));
        assert!(
            e.contains("no run store at .refscore/runs.db") && e.contains("--suite FILE"),
            "{args:?}: {e}"
        );
    }

    // With it: the store beside the suite file.
    let o = with(&["runs", "show", "1"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).starts_with("Run 1 invoices"), "{}", stdout(&o));
    // `latest` is the suite's latest run, not the store's (3, of `receipts`).
    let o = with(&["runs", "show", "latest", "--format", "json"]);
    assert_eq!(serde_json::from_str::<Value>(&stdout(&o)).unwrap()["run"]["id"], 2);
    let o = with(&["runs", "pin", "latest"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o), "run 2 pinned as the baseline of suite `invoices`\n");
    // Unpinning a run that is not pinned says so, naming the pinned one.
    let o = with(&["runs", "unpin", "1"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(
        stdout(&o),
        "run 1 was not pinned; run 2 is the pinned baseline of suite `invoices`\n"
    );
    let o = with(&["runs", "unpin", "2"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stdout(&o), "run 2 unpinned from suite `invoices`\n");
    let o = with(&["runs", "unpin", "2"]);
    assert_eq!(stdout(&o), "run 2 was not pinned; no run of suite `invoices` is pinned\n");
    let o = with(&["runs", "diff", "1", "latest", "--format", "json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let diff: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(diff["baseline"]["run_id"], 1);
    assert_eq!(diff["rows"]["matched"], 5);
    let o = with(&["report", "latest", "-o", "rep", "--report", "md"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(d.join("rep/report.md").is_file());
    // A suite's name reads the store named otherwise.
    let o = bare(
        d,
        &["runs", "show", "latest", "--suite", "receipts", "--store", "suites/.refscore/runs.db"],
    );
    assert!(stdout(&o).starts_with("Run 3 receipts"), "{}{}", stdout(&o), stderr(&o));

    // Run 3 is of another suite.
    for args in [
        &["runs", "show", "3"][..],
        &["runs", "pin", "3"],
        &["runs", "diff", "1", "3"],
        &["report", "3", "-o", "rep3"],
    ] {
        let o = with(args);
        assert_eq!(code(&o), 2, "{args:?}: {}", stdout(&o));
        let e = stderr(&o);
        assert!(
            e.contains("run 3 is a run of suite `receipts`, not of `invoices` (--suite)"),
            "{args:?}: {e}"
        );
    }
    assert!(!d.join("rep3").exists());
    // A mistyped suite file is no suite name that matches nothing.
    let o = bare(d, &["runs", "show", "1", "--suite", "suites/suit.yaml"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("--suite suites/suit.yaml: no suite file there"), "{}", stderr(&o));

    // A prune for one suite prunes that suite's runs alone: run 1 goes,
    // run 2 (its newest, and its baseline) and `receipts`' run 3 stay.
    let ids = |o: &Output| -> Vec<i64> {
        let runs: Value = serde_json::from_str(&stdout(o)).unwrap();
        runs.as_array().unwrap().iter().map(|r| r["id"].as_i64().unwrap()).collect()
    };
    let all = ["runs", "list", "--format", "json", "--store", "suites/.refscore/runs.db"];
    assert_eq!(ids(&bare(d, &all)), [3, 2, 1]);
    let o = with(&["runs", "prune", "--keep", "0"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).starts_with("deleted 1 run(s)"), "{}", stdout(&o));
    assert_eq!(ids(&bare(d, &all)), [3, 2]);
}

/// `report` given neither a folder nor a run says so as `--baseline` and
/// `runs diff` do (it said `nothere/summary.json: No such file or
/// directory`), with a store or without one.
#[test]
fn report_of_neither_a_folder_nor_a_run_says_so() {
    let (dir, store) = ten_rows_two_suites();
    let d = dir.path();
    let neither = "`nothere` is neither an output folder (a folder holding a run's summary.json) nor a run id";
    let o = at(d, &store, &["report", "nothere"]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains(neither) && stderr(&o).contains("no run store at"),
        "{}",
        stderr(&o)
    );
    let o = at(d, &store, &["run", "suite.yaml", "-o", "o1", "-q"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    for args in [
        &["report", "nothere"][..],
        &["runs", "diff", "1", "nothere"],
        &["run", "suite.yaml", "-o", "o2", "-q", "--baseline", "nothere"],
    ] {
        let o = at(d, &store, args);
        assert_eq!(code(&o), 2, "{args:?}");
        let e = stderr(&o);
        assert!(
            e.starts_with(&format!("refscore: {neither} of {}", store.display())),
            "{args:?}: {e}"
        );
    }
}

/// `report --help` says where `report` finds the store, not where `run`
/// and `runs` do.
#[test]
fn report_help_says_where_report_finds_the_store() {
    let o = bare(Path::new("."), &["report", "--help"]);
    assert_eq!(code(&o), 0);
    let help = stdout(&o).split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        help.contains("--store <PATH> The run store (default: `.refscore/runs.db` beside the `--suite` file, else in the current folder)"),
        "{help}"
    );
    assert!(!help.contains("for `run`") && !help.contains("for `runs`"), "{help}");
}

#[test]
fn repeated_ids_are_warned_of_in_the_console_summary_and_reports() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let store = d.join("store/runs.db");
    let mut data = dataset(6, |_| false);
    data.push_str(&data.lines().take(2).map(|l| format!("{l}\n")).collect::<String>());
    write(d, "data.jsonl", &data);
    write(d, "suite.yaml", SUITE);
    let o = at(d, &store, &["run", "suite.yaml", "-o", "out", "--report", "md,html"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            "warning: 2 row(s) repeat the id of an earlier row (`r0`, `r1`); a baseline comparison pairs rows that share an id by their order alone"
        ),
        "{}",
        stderr(&o)
    );
    let summary = json(&d.join("out/summary.json"));
    assert_eq!(summary["repeated_ids"], serde_json::json!({"rows": 2, "examples": ["r0", "r1"]}));
    let md = std::fs::read_to_string(d.join("out/report.md")).unwrap();
    assert!(md.contains("**2 rows repeat an earlier row's id** (`r0`, `r1`)"), "{md}");
    let html = std::fs::read_to_string(d.join("out/report.html")).unwrap();
    assert!(html.contains("2 rows repeat an earlier row&#x27;s id</strong>"), "{html}");
    // The recorded run's report says the same.
    let o = at(d, &store, &["report", "latest", "-o", "rep", "--report", "md"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let md = std::fs::read_to_string(d.join("rep/report.md")).unwrap();
    assert!(md.contains("**2 rows repeat an earlier row's id**"), "{md}");
    // Unique ids: no warning.
    write(d, "data.jsonl", &dataset(6, |_| false));
    let o = at(d, &store, &["run", "suite.yaml", "-o", "out2"]);
    assert!(!stderr(&o).contains("repeat the id"), "{}", stderr(&o));
    assert!(json(&d.join("out2/summary.json")).get("repeated_ids").is_none());
}

#[test]
fn a_baseline_that_is_neither_folder_nor_run_id_says_so_plainly() {
    let (dir, store) = ten_rows_two_suites();
    let d = dir.path();
    let o = at(d, &store, &["run", "suite.yaml", "-o", "o1", "-q"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = at(d, &store, &["run", "suite.yaml", "-o", "o2", "-q", "--baseline", "nothere"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("`nothere` is not a run id (a number, or `latest`)"), "{e}");
    assert!(!e.contains("invalid digit"), "{e}");
}

#[test]
fn a_baseline_of_another_suite_is_warned_of() {
    let (dir, store) = ten_rows_two_suites();
    let d = dir.path();
    let o = at(d, &store, &["run", "suite.yaml", "-o", "o1", "-q"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    // The same suite and dataset: nothing to say.
    let o = at(d, &store, &["run", "suite.yaml", "-o", "o2", "-q", "--baseline", "1"]);
    assert!(!stderr(&o).contains("the baseline"), "{}", stderr(&o));
    write(d, "other.yaml", &SUITE.replace("name: invoices", "name: receipts"));
    let o = at(d, &store, &["run", "other.yaml", "-o", "o3", "-q", "--baseline", "1"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stderr(&o)
            .contains("warning: the baseline, run 1, is a run of suite `invoices`, not `receipts`"),
        "{}",
        stderr(&o)
    );
    let summary = json(&d.join("o3/summary.json"));
    assert_eq!(summary["comparison"]["baseline"]["suite"], "invoices");
    // A dataset changed since the last passing run (new outputs, the
    // usual case) is no cause for a warning; its hash is recorded.
    write(d, "data.jsonl", &dataset(12, |_| false));
    let o = at(d, &store, &["run", "suite.yaml", "-o", "o4", "-q"]);
    assert!(!stderr(&o).contains("the baseline"), "{}", stderr(&o));
    let summary = json(&d.join("o4/summary.json"));
    let hashes =
        (&summary["comparison"]["baseline"]["dataset_hash"], &summary["run"]["dataset_hash"]);
    assert!(hashes.0.is_string() && hashes.0 != hashes.1, "{hashes:?}");
    // A folder named as the baseline.
    let o = at(d, &store, &["run", "other.yaml", "-o", "o5", "-q", "--baseline", "o1"]);
    assert!(
        stderr(&o).contains(
            "warning: the baseline, the output folder o1, is a run of suite `invoices`, not `receipts`"
        ),
        "{}",
        stderr(&o)
    );
}

/// A folder named like a run id (`-o 1` beside run 1 of the store) is
/// ambiguous: every command taking a folder or a run says so, and takes
/// `./1` for the folder and `run:1` for the run.
#[test]
fn a_folder_named_like_a_run_id_is_ambiguous_until_written_as_a_path() {
    let (dir, store) = ten_rows_two_suites();
    let d = dir.path();
    let o = at(d, &store, &["run", "suite.yaml", "-o", "1", "-q"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = at(d, &store, &["run", "suite.yaml", "-o", "latest", "-q"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    for (args, name) in [
        (vec!["runs", "diff", "1", "2"], "1"),
        (vec!["runs", "diff", "2", "latest"], "latest"),
        (vec!["report", "1", "-o", "rep"], "1"),
        (vec!["run", "suite.yaml", "-o", "o3", "-q", "--baseline", "1"], "1"),
    ] {
        let o = at(d, &store, &args);
        assert_eq!(code(&o), 2, "{args:?}: {}", stderr(&o));
        let e = stderr(&o);
        assert!(e.contains(&format!("`{name}` names both the folder {name} and run")), "{e}");
        assert!(e.contains(&format!("`./{name}` for the folder or `run:{name}` for the run")));
    }
    assert!(!d.join("o3").exists() && !d.join("rep").exists());
    // Written as a path, the folder; after `run:`, the run.
    let o = at(d, &store, &["runs", "diff", "./1", "run:1"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("Baseline folder ./1 (the output folder ./1)"), "{out}");
    for what in ["./1", "run:1", "run:latest"] {
        let o = at(d, &store, &["report", what, "-o", "rep", "--report", "md"]);
        assert_eq!(code(&o), 0, "{what}: {}", stderr(&o));
    }
    let o = at(d, &store, &["run", "suite.yaml", "-o", "o3", "-q", "--baseline", "run:1"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(json(&d.join("o3/summary.json"))["comparison"]["baseline"]["run_id"], 1);
    // `run:` names a run, also where there is no store to find it in.
    let o = at(
        d,
        &store,
        &["run", "suite.yaml", "-o", "o5", "-q", "--baseline", "run:1", "--no-store"],
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("`run:1` names a run, and the run store is off"), "{}", stderr(&o));
    // Without a store, the folder is meant.
    let o =
        at(d, &store, &["run", "suite.yaml", "-o", "o4", "-q", "--baseline", "1", "--no-store"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
}

/// Two suite files with the same stem and no `name:` are one suite to the
/// store: the run says so when the other file's run is its baseline.
#[test]
fn a_baseline_run_from_another_file_of_the_same_name_is_warned_of() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let store = d.join("runs.db");
    let unnamed = SUITE.replace("name: invoices\n", "").replace("data.jsonl", "../data.jsonl");
    assert!(!unnamed.contains("name: invoices"));
    write(d, "data.jsonl", &dataset(10, |_| false));
    for sub in ["a", "b"] {
        std::fs::create_dir(d.join(sub)).unwrap();
        write(&d.join(sub), "suite.yaml", &unnamed);
    }
    let o = at(d, &store, &["run", "a/suite.yaml", "-o", "oa", "-q"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(!stderr(&o).contains("warning"), "{}", stderr(&o));
    let o = at(d, &store, &["run", "b/suite.yaml", "-o", "ob", "-q"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let a = d.join("a/suite.yaml").canonicalize().unwrap();
    let e = stderr(&o);
    assert!(
        e.contains(&format!("warning: the baseline, run 1, was run from {}, not ", a.display()))
            && e.contains("both are suite `suite`")
            && e.contains("give each its own `name:`"),
        "{e}"
    );
    // The same file again: its own run 2 is the baseline, nothing to say;
    // nor when the same file is reached by another path.
    let o = at(d, &store, &["run", "b/suite.yaml", "-o", "ob2", "-q"]);
    assert!(!stderr(&o).contains("warning"), "{}", stderr(&o));
    let o = at(d, &store, &["run", "a/../b/suite.yaml", "-o", "ob4", "-q"]);
    assert!(!stderr(&o).contains("warning"), "{}", stderr(&o));
    // A baseline named on the command line is the user's choice.
    let o = at(d, &store, &["run", "b/suite.yaml", "-o", "ob5", "-q", "--baseline", "1"]);
    assert!(!stderr(&o).contains("was run from"), "{}", stderr(&o));
    // A file no longer there (another CI workspace, a moved repository)
    // is not another suite.
    at(d, &store, &["run", "a/suite.yaml", "-o", "oa1", "-q"]);
    std::fs::rename(d.join("a"), d.join("a-moved")).unwrap();
    let o = at(d, &store, &["run", "b/suite.yaml", "-o", "ob6", "-q"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(!stderr(&o).contains("warning"), "{}", stderr(&o));
    std::fs::rename(d.join("a-moved"), d.join("a")).unwrap();
    // Named suites chose to share a history (a file moved, say).
    let named = SUITE.replace("data.jsonl", "../data.jsonl");
    write(&d.join("a"), "suite.yaml", &named);
    write(&d.join("b"), "suite.yaml", &named);
    at(d, &store, &["run", "a/suite.yaml", "-o", "oa2", "-q"]);
    let o = at(d, &store, &["run", "b/suite.yaml", "-o", "ob3", "-q"]);
    assert!(!stderr(&o).contains("warning"), "{}", stderr(&o));
}

/// What is said when nothing is listed, a store that is a folder, a
/// report folder that is a file, and a run of no row.
#[test]
fn messages_say_what_was_asked_for() {
    let (dir, store) = ten_rows_two_suites();
    let d = dir.path();
    let o = at(d, &store, &["run", "suite.yaml", "-o", "o1", "-q"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let listed = |args: &[&str]| {
        let o = at(d, &store, args);
        assert_eq!(code(&o), 0, "{args:?}: {}", stderr(&o));
        stdout(&o)
    };
    assert!(listed(&["runs", "list", "--limit", "0"]).contains("--limit 0: no runs listed"));
    let other = listed(&["runs", "list", "--suite", "receipts"]);
    assert!(other.contains("no runs of suite `receipts` recorded in"), "{other}");
    assert!(listed(&["runs", "list"]).contains("invoices"));
    // A store path that is a folder.
    std::fs::create_dir(d.join("folder.db")).unwrap();
    for args in [vec!["runs", "list"], vec!["run", "suite.yaml", "-o", "o2", "-q"]] {
        let o = at(d, &d.join("folder.db"), &args);
        assert_eq!(code(&o), 2, "{args:?}");
        assert!(stderr(&o).contains("folder.db: a folder, not a run store"), "{}", stderr(&o));
    }
    // Reports into a file, or into a folder below one.
    write(d, "afile", "");
    for out in ["afile", "afile/sub"] {
        let o = at(d, &store, &["report", "o1", "-o", out]);
        assert_eq!(code(&o), 2);
        let e = stderr(&o);
        assert!(e.contains("afile: not a folder: `-o` names the folder"), "{e}");
    }
    // A store path ending in `/` names a folder: refused before anything.
    let o = at(d, &d.join("newdir/"), &["run", "suite.yaml", "-o", "o9", "-q"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("a folder, not a run store"), "{}", stderr(&o));
    assert!(!d.join("newdir").exists() && !d.join("o9").exists());
    // An empty folder named like a run id is no output folder: the run.
    std::fs::create_dir(d.join("1")).unwrap();
    let o = at(d, &store, &["report", "1", "-o", "rep1", "--report", "md"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    // `run:` names a run, whatever follows it.
    let o = at(d, &store, &["report", "run:abc", "-o", "rep2"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("`run:abc` names a run of"), "{}", stderr(&o));
    assert!(!stderr(&o).contains("output folder"), "{}", stderr(&o));
    // A run of no row has no rule selector to warn of.
    write(d, "rules.json", r#"{"rules": [{"path": "$.nothere", "compare": "exact"}]}"#);
    write(
        d,
        "rules.yaml",
        &SUITE.replace("metric: json_match,", "metric: json_match, options: {rules: rules.json},"),
    );
    let o = at(d, &store, &["run", "rules.yaml", "-o", "o3", "-q", "--limit", "0"]);
    assert!(!stderr(&o).contains("matched nothing"), "{}", stderr(&o));
    let o = at(d, &store, &["run", "rules.yaml", "-o", "o4", "-q", "--limit", "2"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stderr(&o).contains("rule selector `$.nothere` matched nothing"), "{}", stderr(&o));
}

/// `runs list` and `runs show` tell a run whose process is gone (killed
/// outright: its folder's lock went with it) from one going on.
#[test]
fn runs_list_and_show_tell_a_run_whose_process_is_gone_from_one_going_on() {
    let (dir, store) =
        one_run_then("UPDATE runs SET status = 'running', summary = NULL, ended_at = NULL");
    let d = dir.path();
    // Going on: its process holds the folder's lock (as `run` does).
    let live = std::fs::OpenOptions::new().write(true).open(d.join("o1/results.jsonl")).unwrap();
    live.lock().unwrap();
    let list = at(d, &store, &["runs", "list"]);
    assert!(stdout(&list).contains(" running "), "{}", stdout(&list));
    assert!(!stdout(&list).contains("process gone"), "{}", stdout(&list));
    let show = stdout(&at(d, &store, &["runs", "show", "1"]));
    assert!(show.contains("still running: its process holds its output folder"), "{show}");
    let json = stdout(&at(d, &store, &["runs", "list", "--format", "json"]));
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v[0]["status"], "running");
    assert!(v[0].get("process_gone").is_none(), "{json}");
    // Killed outright: the lock went with it.
    drop(live);
    let list = stdout(&at(d, &store, &["runs", "list"]));
    assert!(list.contains("running (process gone)"), "{list}");
    let show = stdout(&at(d, &store, &["runs", "show", "1"]));
    assert!(show.contains("status      running (process gone)"), "{show}");
    assert!(show.contains("did not finish: its process is gone (killed or crashed)"), "{show}");
    assert!(show.contains("suite.yaml --resume 1`"), "{show}");
    let json = stdout(&at(d, &store, &["runs", "list", "--format", "json"]));
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        (&v[0]["status"], &v[0]["process_gone"]),
        (&Value::from("running"), &Value::Bool(true))
    );
    let json = stdout(&at(d, &store, &["runs", "show", "1", "--format", "json"]));
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["run"]["process_gone"], true, "{json}");
}

/// `report latest` while the latest run has not finished (another CI job
/// is running it) names the latest run that did.
#[test]
fn report_latest_of_an_unfinished_run_names_the_latest_finished_one() {
    let (dir, store) = ten_rows_two_suites();
    let d = dir.path();
    for out in ["o1", "o2", "o3"] {
        let o = at(d, &store, &["run", "suite.yaml", "-o", out, "-q"]);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
    }
    // Run 3 as a run still going looks in the store, run 2 as one that
    // failed (no summary: no report either).
    let sql = |q: &str| {
        rusqlite::Connection::open(&store).unwrap().execute(q, []).unwrap();
    };
    sql("UPDATE runs SET status = 'running', summary = NULL, ended_at = NULL WHERE id = 3");
    sql("UPDATE runs SET status = 'failed', summary = NULL WHERE id = 2");
    // A run going on holds its folder's lock (as `run` does).
    let live = std::fs::OpenOptions::new().write(true).open(d.join("o3/results.jsonl")).unwrap();
    live.lock().unwrap();
    let o = at(d, &store, &["report", "latest", "-o", "rep"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("run 3 is still running"), "{e}");
    assert!(e.contains("the latest run with a report is 1: `refscore report run:1`"), "{e}");
    // Named with --store, the suggested command names it too.
    let o = Command::new(env!("CARGO_BIN_EXE_refscore"))
        .args(["report", "latest", "-o", "rep", "--store", store.to_str().unwrap()])
        .env_remove("REFSCORE_STORE")
        .current_dir(d)
        .output()
        .unwrap();
    let e = stderr(&o);
    assert!(e.contains(&format!("`refscore report run:1 --store {}`", store.display())), "{e}");
    let o = at(d, &store, &["report", "1", "-o", "rep", "--report", "md"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    // Its process gone (killed outright: the lock went with it), the run
    // is not said to be running: it is said how to continue it.
    drop(live);
    let o = at(d, &store, &["report", "latest", "-o", "rep"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    let e = stderr(&o);
    assert!(!e.contains("still running"), "{e}");
    assert!(e.contains("run 3 did not finish (its process is gone: killed or crashed"), "{e}");
    assert!(e.contains("suite.yaml --resume 3`)"), "{e}");
    assert!(e.contains("the latest run with a report is 1: `refscore report run:1`"), "{e}");
    // A run id named outright is not replaced, nor a latest run that
    // failed (it is no run still going).
    let o = at(d, &store, &["report", "3", "-o", "rep"]);
    assert_eq!(code(&o), 2);
    assert!(!stderr(&o).contains("latest run with a report"), "{}", stderr(&o));
    sql("UPDATE runs SET status = 'failed' WHERE id = 3");
    let o = at(d, &store, &["report", "latest", "-o", "rep"]);
    assert_eq!(code(&o), 2);
    assert!(!stderr(&o).contains("latest run with a report"), "{}", stderr(&o));
}
