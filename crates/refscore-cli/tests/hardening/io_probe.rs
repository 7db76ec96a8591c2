//! `run` against inputs and outputs that are not what they seem: an
//! output folder that is a file, a resume of a run read from a pipe, a
//! dataset written while the run reads it, and the warnings of a resumed
//! run.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use refscore_scripted_llm::{Reply, Rule, Script, ScriptedServer, When};
use serde_json::json;

use super::{at, code, runs, spawn_run, stderr, stdout, write};

/// The `warning:` lines of a command's standard error.
fn warnings(o: &Output) -> Vec<String> {
    stderr(o).lines().filter(|l| l.starts_with("warning:")).map(str::to_owned).collect()
}

/// A suite whose json_match rules name `$.a` (in every row), `$.early`
/// (in the first row only) and `$.never` (in no row), over `rows` rows.
fn rules_suite(dir: &Path, rows: usize) {
    let mut text = String::new();
    for i in 0..rows {
        let early = if i == 0 { ", \"early\": 1" } else { "" };
        text.push_str(&format!(
            "{{\"id\": {i}, \"output\": {{\"a\": {i}{early}}}, \"reference\": {{\"a\": 1{early}}}}}\n"
        ));
    }
    write(dir, "big.jsonl", &text);
    write(
        dir,
        "suite.yaml",
        "dataset: big.jsonl\nid: id\nevaluators:\n  - name: m\n    metric: json_match\n    options:\n      rules:\n        rules:\n          - {path: $.a, weight: 1}\n          - {path: $.early, weight: 1}\n          - {path: $.never, weight: 1}\n",
    );
}

/// A resumed run warns of the rule selectors that matched nothing in the
/// whole run, as an uninterrupted run does: the rows replayed from the
/// store count (every selector was reported as matching nothing when all
/// the rows were replayed, and `$.early` when only the first was).
#[test]
fn a_resumed_run_warns_of_the_selectors_a_fresh_run_warns_of() {
    let expected = ["warning: m: json_match: rule selector `$.never` matched nothing"];
    // (case, rows, how the first part of the run ends)
    let cases: [(&str, usize, &str); 2] = [
        ("every row recorded, then the run failed at its step summary", 3, "failed"),
        ("stopped part-way by SIGTERM", 30_000, "cancelled"),
    ];
    for (case, rows, status) in cases {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        rules_suite(d, rows);
        let first = if status == "failed" {
            // A step summary that takes no byte (`/dev/full`): the run's
            // rows are all recorded before its end fails.
            Command::new(env!("CARGO_BIN_EXE_refscore"))
                .args(["run", "suite.yaml", "-o", "out", "--quiet"])
                .env("REFSCORE_STORE", d.join("runs.db"))
                .env("GITHUB_STEP_SUMMARY", "/dev/full")
                .current_dir(d)
                .output()
                .expect("runs")
        } else {
            let child = spawn_run(d, "suite.yaml", &[]);
            let sent =
                Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
            assert!(sent.success());
            child.wait_with_output().expect("waits")
        };
        assert_eq!(
            code(&first),
            if status == "failed" { 2 } else { 1 },
            "{case}: {}",
            stderr(&first)
        );
        assert_eq!(runs(d)[0]["status"], status, "{case}");
        let resumed = Command::new(env!("CARGO_BIN_EXE_refscore"))
            .args(["run", "suite.yaml", "--resume", "--quiet"])
            .env("REFSCORE_STORE", d.join("runs.db"))
            .env_remove("GITHUB_STEP_SUMMARY")
            .current_dir(d)
            .output()
            .expect("runs");
        assert!(code(&resumed) <= 1, "{case}: {}", stderr(&resumed));
        let done = std::fs::read_to_string(d.join("out/results.jsonl")).unwrap().lines().count();
        assert_eq!(done, rows, "{case}: the resumed run finished every row");
        let fresh = at(d, &["run", "suite.yaml", "-o", "fresh", "--quiet", "--no-store"]);
        assert!(code(&fresh) <= 1, "{case}: {}", stderr(&fresh));
        assert_eq!(warnings(&fresh), expected, "{case}: a fresh run");
        assert_eq!(warnings(&resumed), expected, "{case}: the resumed run");
    }
}

/// `--resume` of a run whose dataset is a pipe is refused from the file's
/// type: the pipe is not opened (that waited for a writer, forever when
/// none came, before the refusal).
#[cfg(unix)]
#[test]
fn a_resume_of_a_run_read_from_a_pipe_is_refused_without_opening_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let fifo = d.join("rows.jsonl");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    write(
        d,
        "suite.yaml",
        "dataset: rows.jsonl\nformat: jsonl\nid: id\nevaluators:\n  - {name: m, metric: json_match}\n",
    );
    // The run reads three rows from the pipe, whose writer then waits: it
    // is stopped with SIGTERM (exit 1, cancelled, not resumable).
    let (done, wait) = std::sync::mpsc::channel::<()>();
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            use std::io::Write;
            let mut f = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
            for i in 0..3 {
                writeln!(
                    f,
                    "{{\"id\": {i}, \"output\": {{\"a\": 1}}, \"reference\": {{\"a\": 1}}}}"
                )
                .unwrap();
            }
            f.flush().unwrap();
            let _ = wait.recv_timeout(Duration::from_secs(60));
        })
    };
    let child = spawn_run(d, "suite.yaml", &[]);
    let sent = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(sent.success());
    let o = child.wait_with_output().expect("waits");
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("cannot be resumed"), "{}", stderr(&o));
    done.send(()).unwrap();
    writer.join().unwrap();
    // No writer now: opening the pipe would wait for ever.
    let mut resume = Command::new(env!("CARGO_BIN_EXE_refscore"))
        .args(["run", "suite.yaml", "--resume", "--quiet"])
        .env("REFSCORE_STORE", d.join("runs.db"))
        .current_dir(d)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawns");
    let start = Instant::now();
    while resume.try_wait().unwrap().is_none() && start.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let blocked = resume.try_wait().unwrap().is_none();
    if blocked {
        resume.kill().unwrap();
    }
    let o = resume.wait_with_output().unwrap();
    assert!(!blocked, "--resume still waiting on the pipe after 20 s: {}", stderr(&o));
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    let e = stderr(&o);
    assert!(e.contains("refusing to resume") && e.contains("rows.jsonl is a pipe"), "{e}");
    assert_eq!(runs(d)[0]["status"], "cancelled", "the run is left as it was");
}

/// `-o` naming a file, or a path through one, is refused naming it
/// (`creating out: File exists (os error 17)` before): exit 2, before the
/// store or anything else is created, and the file is left as it was.
#[test]
fn an_output_folder_that_is_a_file_is_refused_naming_it() {
    // (-o, what the message says)
    let cases: [(&str, &str); 2] = [
        ("taken", "the output folder taken is a file, not a folder"),
        ("taken/sub", "the output folder taken/sub is inside taken, which is a file, not a folder"),
    ];
    for (out, message) in cases {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        rules_suite(d, 2);
        write(d, "taken", "a file of the user's\n");
        let o = at(d, &["run", "suite.yaml", "-o", out, "--quiet"]);
        assert_eq!(code(&o), 2, "-o {out}: {}{}", stdout(&o), stderr(&o));
        assert!(stderr(&o).contains(message), "-o {out}: {}", stderr(&o));
        assert_eq!(std::fs::read_to_string(d.join("taken")).unwrap(), "a file of the user's\n");
        assert!(!d.join("runs.db").exists(), "-o {out}: no store created, no run recorded");
    }
}

/// A dataset file written while the run reads it fails the run (exit 2,
/// `failed`, no summary): the run records the hash of the file as it was
/// before its first row, which need not describe the rows it scored (a
/// file cut to half its rows was scored in part and recorded under the
/// whole file's hash, with a passing gate). A file removed while it is
/// read is read to its end, and the run completes.
#[test]
fn a_dataset_written_during_the_run_fails_it() {
    let row = |i: usize, text: &str| json!({"id": format!("r{i}"), "answer": text}).to_string();
    let rows = format!("{}\n{}\n", row(0, "slow LABEL=polite"), row(1, "quick LABEL=polite"));
    // (case, what happens to the dataset while the first row's judge
    // request waits, the exit code, the run's status)
    type Change = fn(&Path, &str);
    let cases: [(&str, Change, i32, &str); 4] = [
        (
            "appended to",
            |p, rows| {
                std::fs::write(p, format!("{rows}{}\n", r#"{"id": "r2", "answer": "x"}"#)).unwrap()
            },
            2,
            "failed",
        ),
        (
            "cut to its first row",
            |p, rows| std::fs::write(p, rows.lines().next().unwrap()).unwrap(),
            2,
            "failed",
        ),
        (
            "rewritten in place, same size",
            |p, rows| std::fs::write(p, rows.replace("quick", "QUICK")).unwrap(),
            2,
            "failed",
        ),
        ("removed", |p, _| std::fs::remove_file(p).unwrap(), 0, "completed"),
    ];
    for (case, change, exit, status) in cases {
        let server = ScriptedServer::start(Script::new(vec![
            Rule::new(When::PromptContains("slow".into()), Reply::Auto.delayed(1_500)).times(1),
        ]))
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        write(d, "data.jsonl", &rows);
        let suite = json!({
            "dataset": "data.jsonl",
            "id": "id",
            "judge": {"base_url": server.base_url(), "model": "judge-model", "timeout": 10,
                      "api_key_env": "TEST_JUDGE_KEY"},
            "evaluators": [{
                "name": "polite",
                "metric": "classify",
                "mapping": {"output": "answer"},
                "options": {"template": "Is this polite?\n{output}", "choices": {"polite": 1, "rude": 0}},
            }],
        });
        write(d, "suite.yaml", &suite.to_string());
        let child = Command::new(env!("CARGO_BIN_EXE_refscore"))
            .args(["run", "suite.yaml", "-o", "out", "--quiet", "--no-cache"])
            .env("REFSCORE_STORE", d.join("runs.db"))
            .env("TEST_JUDGE_KEY", "sk-test")
            .env_remove("OPENAI_API_KEY")
            .env_remove("OPENAI_BASE_URL")
            .current_dir(d)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawns");
        // The dataset is hashed before the first row is evaluated.
        let start = Instant::now();
        while server.request_count() < 2 && start.elapsed() < Duration::from_secs(20) {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert_eq!(server.request_count(), 2, "{case}: both rows asked");
        change(&d.join("data.jsonl"), &rows);
        let o = child.wait_with_output().expect("waits");
        assert_eq!(code(&o), exit, "{case}: {}{}", stdout(&o), stderr(&o));
        assert_eq!(runs(d)[0]["status"], status, "{case}");
        if exit == 2 {
            let e = stderr(&o);
            assert!(
                e.contains("the dataset data.jsonl changed while the run read it"),
                "{case}: {e}"
            );
            assert!(!d.join("out/summary.json").exists(), "{case}: no summary");
        } else {
            assert!(d.join("out/summary.json").exists(), "{case}: a summary");
        }
    }
}

/// `refscore run suite.yaml -o out --no-store --quiet` in `dir`, which
/// must pass.
fn run_without_store(dir: &Path) -> Output {
    let o = Command::new(env!("CARGO_BIN_EXE_refscore"))
        .args(["run", "suite.yaml", "-o", "out", "--no-store", "--quiet"])
        .current_dir(dir)
        .output()
        .expect("runs");
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    o
}

/// A warning names its metric; an evaluator named after its metric (no
/// `name:`) is named once (it read `json_match: json_match: …`).
#[test]
fn an_evaluator_named_after_its_metric_is_named_once_in_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "data.jsonl", "{\"id\": 1, \"output\": {\"a\": 1}, \"reference\": {\"a\": 1}}\n");
    write(
        d,
        "suite.yaml",
        "dataset: data.jsonl\nevaluators:\n  - metric: json_match\n    options:\n      rules:\n        rules:\n          - {path: $.never, weight: 1}\n",
    );
    let o = run_without_store(d);
    assert_eq!(warnings(&o), ["warning: json_match: rule selector `$.never` matched nothing"]);
}

/// A json_similarity target path with characters UiPath's splitter skips
/// is read as UiPath reads it, with a warning that says so (the row still
/// scores on the path as read).
#[test]
fn a_target_path_read_differently_from_how_it_is_written_is_warned_of() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(
        d,
        "data.jsonl",
        "{\"id\": 1, \"output\": {\"a\": {\"b\": 1}}, \"reference\": {\"a\": {\"b\": 1}}}\n",
    );
    write(
        d,
        "suite.yaml",
        "dataset: data.jsonl\nevaluators:\n  - metric: json_similarity\n    options: {target_output_key: a..b}\n",
    );
    let o = run_without_store(d);
    assert_eq!(
        warnings(&o),
        [
            "warning: json_similarity: target_output_key `a..b`: a `.` with no key after it at byte 1 is skipped (and 1 more), as UiPath skips it; the path is read as $.a.b"
        ]
    );
    let results = std::fs::read_to_string(d.join("out/results.jsonl")).unwrap();
    assert!(results.contains("\"score\":1.0"), "{results}");
}
