//! Tests of the real `refscore` binary.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

mod external;
mod hardening;
mod history;
mod judge;
mod reports;
mod streams;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The run store of tests that do not name one: outside the checkout,
/// new for each run of the tests.
fn test_store() -> PathBuf {
    static FRESH: std::sync::Once = std::sync::Once::new();
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli-tests-runs.db");
    FRESH.call_once(|| {
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
        }
    });
    path
}

fn refscore(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_refscore"))
        .args(args)
        .env("REFSCORE_STORE", test_store())
        .current_dir(root())
        .output()
        .expect("runs")
}

fn refscore_stdin(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_refscore"))
        .args(args)
        .env("REFSCORE_STORE", test_store())
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawns");
    // A command that refuses its arguments may exit before it reads its
    // input: the pipe is then closed under the writer, which is no failure.
    match child.stdin.take().expect("stdin").write_all(stdin.as_bytes()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        other => other.expect("writes"),
    }
    child.wait_with_output().expect("runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn code(o: &Output) -> i32 {
    o.status.code().unwrap_or(-1)
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("writes");
    p.to_string_lossy().into_owned()
}

const PAIR: [&str; 2] = ["examples/pair/output.json", "examples/pair/reference.json"];

#[test]
fn compare_prints_a_readable_field_table() {
    let o = refscore(&["compare", "--metric", "json_match", PAIR[0], PAIR[1]]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    // Not a terminal: no colours.
    assert!(!out.contains('\u{1b}'), "{out:?}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[..2],
        [
            "json_match  score 0.969697  partial",
            "32 matched, 0 partial, 1 wrong, 0 missing, 0 extra; precision 0.970, recall 0.970, F1 0.970",
        ],
        "{out}"
    );
    // One row per failed path: path, verdict, expected, actual (the
    // swapped line items, the written date, the number as text and the
    // name in capitals are no difference). Columns start where their
    // headers do; values may hold double spaces.
    let header = lines[3];
    let starts: Vec<usize> = ["PATH", "VERDICT", "EXPECTED", "ACTUAL"]
        .iter()
        .map(|h| header.find(h).unwrap_or_else(|| panic!("no {h} in {header:?}")))
        .collect();
    let rows: Vec<Vec<&str>> = lines[4..]
        .iter()
        .map(|l| {
            (0..starts.len())
                .map(|i| {
                    l.get(starts[i]..*starts.get(i + 1).unwrap_or(&l.len())).unwrap_or("").trim()
                })
                .collect()
        })
        .collect();
    assert_eq!(lines[2], "", "{out}");
    assert_eq!(rows, [["$.due_date", "value_mismatch", "2024-04-04", "2024-04-14"]], "{out}");
    // Exactly as the README shows it.
    assert_eq!(
        out,
        "json_match  score 0.969697  partial
32 matched, 0 partial, 1 wrong, 0 missing, 0 extra; precision 0.970, recall 0.970, F1 0.970

  PATH        VERDICT         EXPECTED    ACTUAL
  $.due_date  value_mismatch  2024-04-04  2024-04-14
"
    );
}

/// Values from the documents are data: their control characters are
/// shown escaped in the field table, never sent to the terminal raw.
#[test]
fn compare_shows_control_characters_in_values_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let o = write(dir.path(), "o.json", r#"{"a": "x\u001b]0;t\u0007\u001b[31mRED"}"#);
    let r = write(dir.path(), "r.json", r#"{"a": "y"}"#);
    let out = stdout(&refscore(&["compare", "-m", "json_match", &o, &r]));
    assert!(!out.chars().any(|c| c.is_control() && c != '\n'), "{out:?}");
    assert!(out.contains("x\\u{1b}]0;t\\u{7}\\u{1b}[31mRED"), "{out}");
}

#[test]
fn compare_json_prints_the_score_object_for_every_metric() {
    for metric in ["json_match", "json_distance", "json_diff", "json_similarity", "json_structural"]
    {
        let o = refscore(&["compare", "--metric", metric, "--json", PAIR[0], PAIR[1]]);
        assert_eq!(code(&o), 0, "{metric}: {}", stderr(&o));
        let v: Value = serde_json::from_str(&stdout(&o)).expect("JSON");
        assert_eq!(v["name"], metric);
        assert_eq!(v["kind"], "code");
        let s = v["score"].as_f64().expect("a score");
        assert!(s.is_finite());
        assert!(v["details"].as_array().is_some_and(|d| !d.is_empty()), "{metric}: {v}");
    }
}

#[test]
fn compare_refuses_an_llm_metric_and_says_where_judges_are_set() {
    for metric in ["toxicity", "classify", "semantic_similarity"] {
        let o = refscore_stdin(&["compare", "-m", metric, "--pairs", "-"], "{\"output\":\"x\"}\n");
        assert_eq!(o.status.code(), Some(2), "{metric}");
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(
            e.contains(&format!("metric `{metric}` asks an LLM judge, and `compare` has none: score it with `refscore run`")),
            "{e}"
        );
    }
    // A metric that needs a judge only under some options says so too,
    // not "add one to the suite" (there is none).
    let o = refscore_stdin(
        &[
            "compare",
            "-m",
            "factuality",
            "--opt",
            "depth=deep",
            "--opt",
            "fallback=fail",
            "--pairs",
            "-",
        ],
        "{\"output\":\"x\",\"reference\":\"y\"}\n",
    );
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("`fail` needs a judge, and none is defined: `compare` has none"), "{e}");
    assert!(!e.contains("to the suite"), "{e}");
}

#[test]
fn compare_reads_standard_input() {
    let o = refscore_stdin(
        &["compare", "--json", "-", PAIR[1]],
        &std::fs::read_to_string(root().join(PAIR[1])).unwrap(),
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["score"], 0.0);
    assert_eq!(v["label"], "match");
}

#[test]
fn compare_of_text_that_is_not_json_is_invalid_and_exits_1_as_with_pairs() {
    let dir = tempfile::tempdir().unwrap();
    let bad = write(dir.path(), "bad.json", "{\"a\": ");
    let o = refscore(&["compare", "--json", &bad, PAIR[1]]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let named = format!("the pair (output {bad}, reference {}) could not be scored", PAIR[1]);
    assert!(stderr(&o).contains(&named), "{}", stderr(&o));
    // An input the metric refuses outright (an empty file) names them too.
    let empty = write(dir.path(), "empty.json", "");
    let refused = refscore(&["compare", PAIR[0], &empty]);
    assert_eq!(code(&refused), 1, "{}", stderr(&refused));
    let named = format!("the pair (output {}, reference {empty}) could not be scored", PAIR[0]);
    assert!(stderr(&refused).contains(&named), "{}", stderr(&refused));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert!(v["score"].is_null());
    assert_eq!(v["label"], "invalid");
    assert!(v["explanation"].as_str().unwrap().contains("Failed to parse JSON"), "{v}");
    // An empty input fails the pair as it fails a line of --pairs.
    let empty = write(dir.path(), "empty.json", "");
    for args in [[&empty, PAIR[1]], [PAIR[0], &empty]] {
        let o = refscore(&["compare", args[0], args[1]]);
        assert_eq!(code(&o), 1, "{}", stderr(&o));
        assert!(stderr(&o).contains("is empty"), "{}", stderr(&o));
    }
}

#[test]
fn weights_and_target_key_reach_their_metrics() {
    let dir = tempfile::tempdir().unwrap();
    let o = write(dir.path(), "o.json", r#"{"a": "x", "b": 1}"#);
    let r = write(dir.path(), "r.json", r#"{"a": "y", "b": 1}"#);
    let w = write(dir.path(), "w.json", r#"{"a": 0.0, "b": 1.0}"#);
    let out = refscore(&["compare", "-m", "json_diff", "--json", "--weights", &w, &o, &r]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(serde_json::from_str::<Value>(&stdout(&out)).unwrap()["score"], 1.0);
    let out =
        refscore(&["compare", "-m", "json_similarity", "--json", "--target-key", "b", &o, &r]);
    assert_eq!(serde_json::from_str::<Value>(&stdout(&out)).unwrap()["score"], 1.0);
}

#[test]
fn json_match_takes_a_rules_file_and_strict_mode() {
    let dir = tempfile::tempdir().unwrap();
    let o = write(dir.path(), "o.txt", "Sure! ```json\n{\"total\": \"1,234.50\"}\n```");
    let r = write(dir.path(), "r.json", r#"{"total": 1234.5}"#);
    let rules =
        write(dir.path(), "rules.yaml", "rules:\n  - path: $.total\n    compare: number_string\n");
    let out = refscore(&["compare", "-m", "json_match", "--json", "--rules", &rules, &o, &r]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["score"], 1.0, "{v}");
    assert_eq!(v["metadata"]["decode"]["output"]["method"], "fence");
    let out =
        refscore(&["compare", "-m", "json_match", "--json", "--strict", "--rules", &rules, &o, &r]);
    assert_eq!(serde_json::from_str::<Value>(&stdout(&out)).unwrap()["label"], "no_json");
    let bad = write(dir.path(), "bad.yaml", "rules:\n  - path: $.total\n    compare: fuzzy\n");
    let out = refscore(&["compare", "-m", "json_match", "--rules", &bad, &o, &r]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("rule 1") && stderr(&out).contains("bad.yaml"),
        "{}",
        stderr(&out)
    );
}

/// A pair whose output is text that is not JSON gets an `invalid` score:
/// not scored, so `--pairs` exits 1 as `compare` of that one pair does.
#[test]
fn pairs_with_an_invalid_score_exit_1_as_one_pair_does() {
    let dir = tempfile::tempdir().unwrap();
    let text = "{\"id\": \"good\", \"output\": {\"a\": 1}, \"reference\": {\"a\": 1}}\n\
                {\"id\": \"text\", \"output\": \"no JSON in this answer\", \"reference\": {\"a\": 1}}\n";
    let p = write(dir.path(), "pairs.jsonl", text);
    for metric in ["json_distance", "json_diff"] {
        let o = refscore(&["compare", "-m", metric, "--opt", "decode=json", "--pairs", &p]);
        assert_eq!(code(&o), 1, "{metric}: {}", stderr(&o));
        assert!(stderr(&o).contains("1 of 2 line(s) could not be scored"), "{}", stderr(&o));
        let lines: Vec<Value> =
            stdout(&o).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines[1]["label"], "invalid", "{metric}: {lines:?}");
    }
    let good = write(dir.path(), "good.jsonl", text.lines().next().unwrap());
    let o = refscore(&["compare", "-m", "json_distance", "--pairs", &good]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
}

#[test]
fn pairs_keep_order_ids_and_bad_lines() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::new();
    for i in 0..5000 {
        text.push_str(&format!(
            "{{\"id\": \"p{i}\", \"output\": {{\"n\": {i}}}, \"reference\": {{\"n\": {}}}}}\n",
            i % 7
        ));
    }
    text.push_str("not json\n\n{\"id\": \"no-ref\", \"output\": 1}\n");
    let p = write(dir.path(), "pairs.jsonl", &text);
    let o = refscore(&["compare", "-m", "json_distance", "--pairs", &p, "--threads", "2"]);
    // Two lines could not be scored: the command fails, as `run` would.
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("2 of 5002 line(s) could not be scored"), "{}", stderr(&o));
    let lines: Vec<Value> = stdout(&o).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 5002);
    for (i, l) in lines.iter().take(5000).enumerate() {
        assert_eq!(l["id"], format!("p{i}"));
        assert_eq!(l["score"], if i % 7 == i { 0.0 } else { 1.0 });
    }
    assert_eq!(lines[5000]["label"], "invalid");
    assert_eq!(lines[5000]["metadata"]["line"], 5001);
    assert_eq!(lines[5001]["id"], "no-ref");
    assert!(lines[5001]["explanation"].as_str().unwrap().contains("no column `reference`"));
}

/// Workers past the core count only add switching and memory to metrics
/// that are all computation: the command starts one per core and says so.
#[test]
fn threads_past_the_core_count_run_on_one_worker_per_core_and_say_so() {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let dir = tempfile::tempdir().unwrap();
    let text: String = (0..300)
        .map(|i| {
            format!("{{\"id\": {i}, \"output\": {{\"n\": {i}}}, \"reference\": {{\"n\": 3}}}}\n")
        })
        .collect();
    let p = write(dir.path(), "pairs.jsonl", &text);
    let one = refscore(&["compare", "-m", "json_diff", "--pairs", &p, "--threads", "1"]);
    assert_eq!(code(&one), 0, "{}", stderr(&one));
    assert!(!stderr(&one).contains("note: --threads"), "{}", stderr(&one));
    let many = refscore(&["compare", "-m", "json_diff", "--pairs", &p, "--threads", "512"]);
    assert_eq!(stdout(&many), stdout(&one));
    let note =
        format!("note: --threads 512: {cores} workers, one per core: nothing here asks an LLM");
    assert!(stderr(&many).contains(&note), "{}", stderr(&many));
    let suite = write(
        dir.path(),
        "suite.yaml",
        "dataset: pairs.jsonl\nevaluators:\n  - metric: json_diff\ngate: {max_failed_rows: 1000}\n",
    );
    let out = dir.path().join("out");
    let o = refscore(&[
        "run",
        &suite,
        "-q",
        "--no-store",
        "--threads",
        "512",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stderr(&o).contains(&note), "{}", stderr(&o));
    let lines = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    assert_eq!(lines.lines().count(), 300);
}

#[test]
fn pairs_decode_json_text_unless_told_strings_are_values() {
    let line = "{\"id\": 1, \"output\": \"{\\\"a\\\": 1}\", \"reference\": {\"a\": 1}}\n";
    let o = refscore_stdin(&["compare", "--pairs", "-"], line);
    let v: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["score"], 0.0, "{v}");
    assert_eq!(v["metadata"]["decode"]["output"]["method"], "whole", "{v}");
    let o = refscore_stdin(&["compare", "--pairs", "-", "--decode", "value"], line);
    assert_eq!(serde_json::from_str::<Value>(stdout(&o).trim()).unwrap()["score"], 1.0);
}

#[test]
fn pairs_keep_passed_details_with_details_all_as_one_pair_does() {
    let line = r#"{"id":"a","output":{"v":1,"w":2},"reference":{"v":1,"w":3}}"#;
    for metric in ["json_distance", "json_match"] {
        for flags in [&["--opt", "details=all"][..], &["--all"][..]] {
            let args = [&["compare", "-m", metric, "--pairs", "-"][..], flags].concat();
            let o = refscore_stdin(&args, &format!("{line}\n"));
            let score: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
            let checks: Vec<&str> = score["details"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d["check"].as_str().unwrap())
                .collect();
            assert!(checks.iter().any(|c| c.ends_with("$.v")), "{metric} {flags:?}: {checks:?}");
            assert!(checks.iter().any(|c| c.ends_with("$.w")), "{metric} {flags:?}: {checks:?}");
        }
    }
}

#[test]
fn pairs_record_repeated_keys_whichever_reader_reads_them() {
    let text = concat!(
        r#"{"id": "value", "output": {"total": 1, "total": 2}, "reference": {"total": 2}}"#,
        "\n",
        r#"{"id": "text", "output": "{\"a\": [{\"k\": 1, \"k\": 2, \"k\": 3}]}", "reference": {"a": [{"k": 3}]}}"#,
        "\n",
    );
    let mut seen = Vec::new();
    for reader in [&[][..], &["--value-reader"][..]] {
        let args = [&["compare", "-m", "json_distance", "--pairs", "-"][..], reader].concat();
        let o = refscore_stdin(&args, text);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        let lines: Vec<Value> =
            stdout(&o).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        let keys = |i: usize| lines[i]["metadata"]["decode"]["output"].clone();
        assert_eq!(
            keys(0),
            serde_json::json!({"method": "value", "duplicate_keys":
                {"count": 1, "paths": [{"path": "$.total", "occurrences": 2}]}}),
            "{reader:?}"
        );
        assert_eq!(
            keys(1),
            serde_json::json!({"method": "whole", "duplicate_keys":
                {"count": 1, "paths": [{"path": "$.a[0].k", "occurrences": 3}]}}),
            "{reader:?}"
        );
        // The last member wins: no score changes.
        assert_eq!(
            (&lines[0]["score"], &lines[1]["score"]),
            (&Value::from(0.0), &Value::from(0.0))
        );
        seen.push(stdout(&o));
    }
    assert_eq!(seen[0], seen[1], "both readers print the same lines");
    // Files compared directly are text, decoded as such.
    let dir = tempfile::tempdir().unwrap();
    let a = write(dir.path(), "a.json", r#"{"n": 1, "n": 2}"#);
    let b = write(dir.path(), "b.json", r#"{"n": 2}"#);
    let o = refscore(&["compare", "--json", &a, &b]);
    let v: Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(v["metadata"]["decode"]["output"]["duplicate_keys"]["count"], 1, "{v}");
}

#[test]
fn usage_and_io_errors_exit_2() {
    assert_eq!(code(&refscore(&["compare", "-m", "nope", PAIR[0], PAIR[1]])), 2);
    assert_eq!(code(&refscore(&["compare", "missing.json", PAIR[1]])), 2);
    assert_eq!(code(&refscore(&["compare", "--opt", "novalue", PAIR[0], PAIR[1]])), 2);
    assert_eq!(code(&refscore(&["compare", "--opt", "colour=1", PAIR[0], PAIR[1]])), 2);
    assert_eq!(code(&refscore(&["compare"])), 2);
    let o = refscore_stdin(&["compare", "--pairs", "-"], "");
    assert_eq!(code(&o), 1, "an empty pairs file evaluated nothing: it fails as `run` does");
    assert!(stderr(&o).contains("no pairs to compare"), "{}", stderr(&o));
    let o = refscore(&["compare", "--help"]);
    assert_eq!(code(&o), 0);
    assert!(stdout(&o).contains("Exit codes"));
}

#[test]
fn deep_nesting_does_not_crash() {
    let dir = tempfile::tempdir().unwrap();
    let deep = format!("{}1{}", "[".repeat(10_000), "]".repeat(10_000));
    let a = write(dir.path(), "a.json", &deep);
    let b = write(dir.path(), "b.json", &deep.replace('1', "2"));
    let n = 10_000;
    let obj = format!("{}1{}", "{\"a\":".repeat(n), "}".repeat(n));
    let c = write(dir.path(), "c.json", &obj);
    let d = write(dir.path(), "d.json", &obj.replace('1', "2"));
    let call = write(dir.path(), "call.json", &format!("[{{\"name\":\"f\",\"arguments\":{obj}}}]"));
    let mut runs: Vec<Vec<&str>> = Vec::new();
    for m in [
        "json_match",
        "json_distance",
        "json_diff",
        "json_similarity",
        "json_structural",
        "factuality",
        "tone",
    ] {
        runs.push(vec!["-m", m, &a, &b]);
        runs.push(vec!["-m", m, &c, &d]);
    }
    runs.push(vec!["-m", "json_match", "--opt", "preset=tool_calls", &call, &call]);
    runs.push(vec![
        "-m",
        "format",
        "--opt",
        "json_validity=true",
        "--opt",
        "json_schema=true",
        &c,
        &d,
    ]);
    for args in runs {
        let mut full = vec!["compare", "--json"];
        full.extend(args.iter().copied());
        let o = refscore(&full);
        let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
        // A text metric may find nothing to measure in brackets: `invalid`,
        // which exits 1; anything else exits 0.
        let scored = v["score"].as_f64().is_some_and(f64::is_finite);
        assert!(scored || v["label"] == "invalid", "{args:?}: {v}");
        assert_eq!(code(&o), if scored { 0 } else { 1 }, "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn run_the_example_suite_passes_its_gate() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let o =
        refscore(&["run", "examples/invoices/suite.yaml", "-o", out.to_str().unwrap(), "--quiet"]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("Fields that fail most (fields)") && text.contains("Gate"), "{text}");
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["gate"]["passed"], true);
    assert_eq!(summary["rows"], 66);
    let results = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    assert_eq!(results.lines().count(), 66);
    let first: Value = serde_json::from_str(results.lines().next().unwrap()).unwrap();
    assert_eq!(first["id"], "inv-001");
    assert_eq!(first["execution"]["fields"]["status"], "completed");
    // As examples/README.md says: `well_formed` is strict, so a fenced or
    // chatty answer (inv-008, inv-017, inv-057) fails it; `fields` reads it.
    let rows: Vec<Value> = results.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    for id in ["inv-008", "inv-017", "inv-057"] {
        let row = rows.iter().find(|r| r["id"] == id).unwrap();
        assert_eq!(row["passed"]["well_formed"], false, "{row}");
        assert_eq!(row["passed"]["fields"], true, "{row}");
    }
    let formed = rows.iter().filter(|r| r["passed"]["well_formed"] == true).count();
    assert_eq!(formed, 42);
}

#[test]
fn run_never_writes_over_its_own_dataset() {
    let dir = tempfile::tempdir().unwrap();
    let data = "{\"id\": 1, \"output\": {\"a\": 1}, \"reference\": {\"a\": 1}}\n";
    write(dir.path(), "results.jsonl", data);
    let suite =
        write(dir.path(), "s.yaml", "dataset: results.jsonl\nevaluators: [{metric: json_diff}]\n");
    let out_dir = dir.path().to_string_lossy().into_owned();
    let o = refscore(&["run", &suite, "-o", &out_dir, "--quiet"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("would be overwritten"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(dir.path().join("results.jsonl")).unwrap(), data);
}

/// A file the suite's options name (a rules file, a JSON Schema) is an
/// input too: `run -o`, `report -o` and the step summary never write
/// over it.
#[test]
fn outputs_never_write_over_a_file_the_options_name() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let rules = "{\"rules\": []}\n";
    write(d, "summary.json", rules);
    write(d, "report.html", "{}\n");
    write(d, "d.jsonl", "{\"id\": 1, \"output\": {\"a\": 1}, \"reference\": {\"a\": 1}}\n");
    let suite = write(
        d,
        "s.yaml",
        "dataset: d.jsonl\nevaluators:\n  - {name: f, metric: json_match, options: {rules: summary.json}}\n  - {name: s, metric: format, options: {json_schema: {file: report.html}}}\n",
    );
    let here = d.to_string_lossy().into_owned();
    let o = refscore(&["run", &suite, "-o", &here, "--no-store", "--quiet"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("a file the suite's options name"), "{}", stderr(&o));
    let out = d.join("out").to_string_lossy().into_owned();
    let o = Command::new(env!("CARGO_BIN_EXE_refscore"))
        .args(["run", &suite, "-o", &out, "--no-store", "--quiet"])
        .env("GITHUB_STEP_SUMMARY", d.join("summary.json"))
        .output()
        .unwrap();
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    let o = refscore(&["run", &suite, "-o", &out, "--no-store", "--quiet"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = refscore(&["report", &out, "-o", &here, "--report", "html"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(d.join("summary.json")).unwrap(), rules);
    assert_eq!(std::fs::read_to_string(d.join("report.html")).unwrap(), "{}\n");
}

/// `-o` naming the run's dataset (or suite) is refused saying what the
/// file is, and advising only another folder: removing the file, which it
/// advised before, would lose an input. Any other file is refused with
/// the same advice.
#[test]
fn run_refuses_an_output_folder_that_is_its_dataset_and_never_advises_removing_it() {
    let dir = tempfile::tempdir().unwrap();
    let data = "{\"id\": 1, \"output\": {\"a\": 1}, \"reference\": {\"a\": 1}}\n";
    let dataset = write(dir.path(), "data.jsonl", data);
    let suite =
        write(dir.path(), "s.yaml", "dataset: data.jsonl\nevaluators: [{metric: json_diff}]\n");
    let notes = write(dir.path(), "notes.txt", "mine\n");
    let inside = format!("{dataset}/out");
    for (out, what) in [
        (&dataset, Some("the dataset")),
        (&inside, Some("the dataset")),
        (&suite, Some("the suite")),
        (&notes, None),
    ] {
        let o = refscore(&["run", &suite, "-o", out, "--quiet", "--no-store"]);
        assert_eq!(code(&o), 2, "-o {out}: {}", stdout(&o));
        let e = stderr(&o);
        assert!(e.contains("is a file, not a folder"), "-o {out}: {e}");
        match what {
            Some(role) => assert!(e.contains(&format!("(it is {role} of this run)")), "{e}"),
            None => assert!(!e.contains("(it is"), "{e}"),
        }
        assert!(e.trim_end().ends_with("choose another folder with -o"), "-o {out}: {e}");
        assert!(!e.contains("remove"), "-o {out}: {e}");
    }
    assert_eq!(std::fs::read_to_string(&dataset).unwrap(), data);
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "mine\n");
}

#[test]
fn run_a_failing_gate_exits_1_and_json_summary() {
    let dir = tempfile::tempdir().unwrap();
    let o = refscore(&[
        "run",
        "examples/invoices/suite-strict.yaml",
        "-o",
        dir.path().to_str().unwrap(),
        "--quiet",
        "--format",
        "json",
    ]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let v: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["gate"]["passed"], false);
}

#[test]
fn run_with_nothing_to_evaluate_is_not_a_pass() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "empty.jsonl", "");
    let suite = write(
        dir.path(),
        "suite.yaml",
        "dataset: empty.jsonl\nevaluators:\n  - name: d\n    metric: json_distance\n",
    );
    let o = refscore(&["run", &suite, "-o", dir.path().join("o").to_str().unwrap(), "--quiet"]);
    assert_eq!(code(&o), 1, "{}{}", stdout(&o), stderr(&o));
    write(dir.path(), "bad.jsonl", "nope\n{also bad\n");
    let suite = write(
        dir.path(),
        "s2.yaml",
        "dataset: bad.jsonl\nevaluators:\n  - name: d\n    metric: json_distance\n",
    );
    let o = refscore(&["run", &suite, "-o", dir.path().join("o2").to_str().unwrap(), "--quiet"]);
    assert_eq!(code(&o), 1, "every row errored: {}", stdout(&o));
}

#[test]
fn run_rejects_a_bad_suite_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "d.jsonl", "{\"output\": 1, \"reference\": 1}\n");
    let suite = write(dir.path(), "suite.yaml", "dataset: d.jsonl\nevaluatorz: []\n");
    let o = refscore(&["run", &suite]);
    assert_eq!(code(&o), 2);
    let err = stderr(&o);
    assert!(err.contains("evaluatorz") && err.contains("suite.yaml"), "{err}");
    let o = refscore(&["run", "no/such/suite.yaml"]);
    assert_eq!(code(&o), 2);
}

#[test]
fn metrics_lists_every_metric_and_describes_each() {
    let out = stdout(&refscore(&["metrics"]));
    for spec in refscore::metrics::registry::all() {
        let line = out.lines().find(|l| l.split_whitespace().next() == Some(spec.name));
        let line = line.unwrap_or_else(|| panic!("{} missing from {out}", spec.name));
        assert!(line.ends_with(spec.description), "{line}");
        let o = refscore(&["metrics", spec.name]);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        let text = stdout(&o);
        for input in spec.inputs {
            assert!(text.contains(&format!("  {:<10} ", input.name)), "{}: {text}", spec.name);
        }
        for option in spec.all_options() {
            assert!(text.contains(&format!("  {:<18} ", option.name)), "{}: {text}", spec.name);
        }
        assert!(text.contains(&format!("- metric: {}", spec.name)), "{text}");
        let json: Value =
            serde_json::from_str(&stdout(&refscore(&["metrics", spec.name, "--json"])))
                .expect("metrics NAME --json prints JSON");
        // The same declaration as in the list of all, own options only.
        assert_eq!(json, serde_json::to_value(spec).unwrap());
        assert_eq!(json["options"].as_array().map(Vec::len), Some(spec.options.len()));
    }
    let text = stdout(&refscore(&["metrics", "json_distance", "--json"]));
    let documented =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/metrics.md"))
            .unwrap();
    assert!(documented.contains(text.trim_end()), "docs/metrics.md shows another output:\n{text}");
    let o = refscore(&["metrics", "nope"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("unknown metric `nope`"), "{}", stderr(&o));
    assert!(!stderr(&o).contains("did you mean"), "nothing is close: {}", stderr(&o));
}

/// A misspelt metric name gets the name it most likely meant, after the
/// list of all of them.
#[test]
fn an_unknown_metric_close_to_a_known_one_says_which_was_meant() {
    for args in [
        &["compare", "--metric", "json_mach", PAIR[0], PAIR[1]][..],
        &["compare", "-m", "Json-Match", PAIR[0], PAIR[1]],
        &["metrics", "json_mach"],
    ] {
        let o = refscore(args);
        assert_eq!(code(&o), 2, "{args:?}");
        let e = stderr(&o);
        assert!(e.contains("(known: json_match, "), "{args:?}: {e}");
        assert!(e.trim_end().ends_with("; did you mean `json_match`?"), "{args:?}: {e}");
    }
}

#[test]
fn ctrl_c_stops_cleanly_and_keeps_what_is_done() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::new();
    for i in 0..300_000 {
        text.push_str(&format!("{{\"id\": {i}, \"output\": {{\"a\": {i}, \"b\": [1, 2, 3]}}, \"reference\": {{\"a\": 1, \"b\": [3, 2, 1]}}}}\n"));
    }
    write(dir.path(), "big.jsonl", &text);
    let suite = write(
        dir.path(),
        "suite.yaml",
        "dataset: big.jsonl\nid: id\nevaluators:\n  - name: m\n    metric: json_match\n",
    );
    let out = dir.path().join("out");
    let child = Command::new(env!("CARGO_BIN_EXE_refscore"))
        .args(["run", &suite, "-o", out.to_str().unwrap(), "--quiet", "--threads", "1"])
        .env("REFSCORE_STORE", test_store())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawns");
    // Wait until rows are being written, then interrupt.
    let results = out.join("results.jsonl");
    let start = std::time::Instant::now();
    while std::fs::metadata(&results).map_or(0, |m| m.len()) == 0 && start.elapsed().as_secs() < 60
    {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let killed =
        Command::new("kill").args(["-INT", &child.id().to_string()]).status().expect("kill");
    assert!(killed.success());
    let o = child.wait_with_output().expect("waits");
    assert_eq!(code(&o), 1, "a cancelled run is not a pass: {}", stderr(&o));
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["cancelled"], true);
    let done = summary["rows"].as_u64().unwrap();
    assert!(done > 0 && done < 300_000, "{done} rows");
    let lines = std::fs::read_to_string(&results).unwrap().lines().count() as u64;
    assert_eq!(lines, done, "every evaluated row is in results.jsonl");
}
