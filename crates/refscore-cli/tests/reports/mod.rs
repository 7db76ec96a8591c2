//! Reports: `run --report`, `--format markdown`, `GITHUB_STEP_SUMMARY`,
//! `refscore report FOLDER`, and the JSON Schemas of what a run writes.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

use super::{code, refscore, root, stderr, stdout};

/// Runs the example with the given extra arguments and environment.
fn run_example(out: &Path, extra: &[&str], env: &[(&str, &Path)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_refscore"));
    cmd.args([
        "run",
        "examples/invoices/suite.yaml",
        "-q",
        "--no-store",
        "-o",
        out.to_str().unwrap(),
    ])
    .args(extra)
    .current_dir(root())
    .env_remove("GITHUB_STEP_SUMMARY");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("runs")
}

/// Runs `refscore ARGS` in `dir`, with no step summary.
fn refscore_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_refscore"))
        .args(args)
        .current_dir(dir)
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap()
}

#[test]
fn run_writes_the_reports_asked_for_and_the_step_summary() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let step = dir.path().join("step.md");
    std::fs::write(&step, "earlier step\n").unwrap();
    let o = run_example(&out, &["--report", "md,junit,html"], &[("GITHUB_STEP_SUMMARY", &step)]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).contains("report: "), "{}", stdout(&o));
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.starts_with("# refscore: invoice-extraction\n\n✅ **Gate passed**"), "{md}");
    let junit = std::fs::read_to_string(out.join("junit.xml")).unwrap();
    assert!(
        junit
            .contains(r#"<testsuite name="fields" tests="66" skipped="0" errors="0" failures="7""#),
        "{junit}"
    );
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains(r#"<script id="data" type="application/json">"#));
    let step = std::fs::read_to_string(&step).unwrap();
    assert!(step.starts_with("earlier step\n# refscore: "), "appended: {step}");
    assert!(step.contains("## Failed rows"));

    // Without --report, no report files; only the step summary.
    let plain = dir.path().join("plain");
    let o = run_example(&plain, &[], &[]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(!plain.join("report.md").exists() && !plain.join("report.html").exists());
}

#[test]
fn format_markdown_prints_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let o = run_example(&dir.path().join("out"), &["--format", "markdown"], &[]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.starts_with("# refscore: "), "{text}");
    assert!(text.contains("<details><summary>❌ distance: "));
    assert!(!text.contains("EVALUATOR"), "no console table");
}

#[test]
fn report_renders_again_from_an_output_folder() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let o = run_example(&out, &["--report", "md,html"], &[]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let again = dir.path().join("again");
    let folder = out.to_str().unwrap();
    let o =
        refscore(&["report", folder, "--report", "md,junit,html", "-o", again.to_str().unwrap()]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    for f in ["report.md", "junit.xml", "report.html"] {
        assert!(stdout(&o).contains(f), "{}", stdout(&o));
    }
    let first = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert_eq!(std::fs::read_to_string(again.join("report.md")).unwrap(), first);
    assert_eq!(
        std::fs::read_to_string(again.join("report.html")).unwrap(),
        std::fs::read_to_string(out.join("report.html")).unwrap()
    );
    // Fewer rows shown on request; nothing is evaluated again.
    let o = refscore(&["report", folder, "--report", "md", "--max-rows", "2"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert_eq!(md.matches("\n### `").count(), 2);

    let o = refscore(&["report", dir.path().join("nothing").to_str().unwrap()]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("summary.json"), "{}", stderr(&o));
    // Results that lost rows: the error names them, not the report, and
    // no folder is left for reports not written.
    let results = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    let first_line = results.lines().next().unwrap();
    std::fs::write(out.join("results.jsonl"), format!("{first_line}\n")).unwrap();
    let lost = dir.path().join("lost");
    let o = refscore(&["report", folder, "--report", "md", "-o", lost.to_str().unwrap()]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("results.jsonl: holds 1 row where"), "{}", stderr(&o));
    assert!(!stderr(&o).contains("writing"), "{}", stderr(&o));
    assert!(!lost.exists());
    std::fs::write(out.join("results.jsonl"), "{\"id\": 3}\n").unwrap();
    let o = refscore(&["report", folder, "--report", "md"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("results.jsonl:1: not a row result"), "{}", stderr(&o));
    // No results at all: named as a file of the run, not a report written.
    std::fs::remove_file(out.join("results.jsonl")).unwrap();
    let o = refscore(&["report", folder, "--report", "md", "-o", lost.to_str().unwrap()]);
    assert_eq!(code(&o), 2);
    let e = stderr(&o);
    assert!(e.contains("results.jsonl: No such file or directory"), "{e}");
    assert!(!e.contains("writing") && !e.contains("opening"), "{e}");
    assert!(!lost.exists());
}

/// The HTML report shows failed rows' output and reference only while the
/// dataset is the one the run read: rows are found again by number.
#[test]
fn report_shows_no_side_by_side_from_a_dataset_changed_since_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for f in ["suite.yaml", "dataset.jsonl", "rules.yaml", "invoice.schema.json"] {
        std::fs::copy(root().join("examples/invoices").join(f), d.join(f)).unwrap();
    }
    let at = |args: &[&str]| refscore_in(d, args);
    let o = at(&["run", "suite.yaml", "-q", "--no-store", "-o", "out", "--report", "html"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let has_sides = |p: &str| std::fs::read_to_string(d.join(p)).unwrap().contains(r#","o":"#);
    assert!(has_sides("out/report.html"));
    let o = at(&["report", "out", "--report", "html", "-o", "same"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
    assert!(has_sides("same/report.html"));
    // The dataset's rows in another order: row numbers no longer match.
    let text = std::fs::read_to_string(d.join("dataset.jsonl")).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.reverse();
    std::fs::write(d.join("dataset.jsonl"), lines.join("\n") + "\n").unwrap();
    let o = at(&["report", "out", "--report", "html", "-o", "changed"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("dataset.jsonl changed since this run (its BLAKE3 hash differs); report.html shows failed checks without output and reference"),
        "{}",
        stderr(&o)
    );
    assert!(!has_sides("changed/report.html"));
    // The same when the suite changed: its mapping may read other columns.
    std::fs::write(d.join("dataset.jsonl"), text).unwrap();
    let o = at(&["report", "out", "--report", "html", "-o", "back"]);
    assert!(stderr(&o).is_empty() && has_sides("back/report.html"), "{}", stderr(&o));
    let suite = std::fs::read_to_string(d.join("suite.yaml")).unwrap();
    std::fs::write(d.join("suite.yaml"), format!("{suite}\n# edited\n")).unwrap();
    let o = at(&["report", "out", "--report", "html", "-o", "edited"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stderr(&o).contains("suite.yaml changed since this run"), "{}", stderr(&o));
    assert!(!has_sides("edited/report.html"));
}

fn schema(name: &str) -> jsonschema::Validator {
    let path = root().join("docs/schema").join(name);
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    jsonschema::validator_for(&schema).unwrap()
}

#[test]
fn written_files_validate_against_the_published_schemas() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let o = run_example(&out, &["--all-details"], &[]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let lines = schema("results-line.v1.schema.json");
    let results = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    for (n, line) in results.lines().enumerate() {
        let v: Value = serde_json::from_str(line).unwrap();
        if let Some(e) = lines.iter_errors(&v).next() {
            panic!("results.jsonl:{}: {e} at {}", n + 1, e.instance_path());
        }
        assert!(v["metric_results"]["fields"].get("score").is_some());
    }
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let s = schema("summary.v1.schema.json");
    if let Some(e) = s.iter_errors(&summary).next() {
        panic!("summary.json: {e} at {}", e.instance_path());
    }
    // The schemas are strict enough to reject a broken file.
    let mut bad = summary.clone();
    bad["gate"]["checks"][0]["op"] = Value::from("≈");
    assert!(!s.is_valid(&bad));
    bad = summary;
    bad["rows"] = Value::from("many");
    assert!(!s.is_valid(&bad));
}

#[test]
fn reports_show_the_comparison_with_a_baseline_folder() {
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("first");
    let o = run_example(&first, &[], &[]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let second = dir.path().join("second");
    let base = first.to_str().unwrap();
    let o = run_example(&second, &["--baseline", base, "--report", "md,html"], &[]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let md = std::fs::read_to_string(second.join("report.md")).unwrap();
    assert!(md.contains("| Baseline | Change | Status |"), "{md}");
    assert!(md.contains("| 0.948 | → 0 | ✅ clean |"), "{md}");
    assert!(md.contains("## Against the baseline: ✅ clean"), "{md}");
    let html = std::fs::read_to_string(second.join("report.html")).unwrap();
    assert!(html.contains(r#"<section id="baseline">"#));
}

/// A run whose suite name, row ids and values hold characters a report
/// must not pass on as they are: U+FFFE and U+FFFF (XML 1.0 forbids
/// them), terminal escape sequences and a bell.
fn hostile_run(dir: &Path) -> Output {
    let rows = [
        r#"{"id": "r\ufffe1", "output": {"a": "x"}, "reference": {"a": "\uffff"}}"#,
        r#"{"id": "r\u001b[31mRED\u0007", "output": {"a": "\u000b\u001b]0;t\u0007"}, "reference": {"a": "y\ufffe"}}"#,
    ];
    std::fs::write(dir.join("d.jsonl"), rows.join("\n") + "\n").unwrap();
    let suite = "name: \"s\\uffff\\e[31mRED\"\ndataset: d.jsonl\nid: id\nevaluators:\n  - {metric: json_match, threshold: 1}\n";
    std::fs::write(dir.join("suite.yaml"), suite).unwrap();
    Command::new(env!("CARGO_BIN_EXE_refscore"))
        .args(["run", "suite.yaml", "-o", "out", "--no-store", "--report", "md,junit"])
        .args(["--format", "markdown"])
        .current_dir(dir)
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .expect("runs")
}

#[test]
fn junit_xml_holds_only_characters_xml_allows() {
    let dir = tempfile::tempdir().unwrap();
    let o = hostile_run(dir.path());
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let xml = std::fs::read_to_string(dir.path().join("out/junit.xml")).unwrap();
    // XML 1.0's `Char`: what a well-formed document may hold.
    let allowed = |c: char| matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..);
    let bad: Vec<char> = xml.chars().filter(|&c| !allowed(c)).collect();
    assert!(bad.is_empty(), "{bad:?} in {xml}");
    // What XML forbids shows as an escape, as in the other reports and on
    // the console: ids that differ stay apart.
    assert!(xml.contains("name=\"r\\u{fffe}1\""), "{xml}");
    assert!(xml.contains("name=\"r\\u{1b}[31mRED\\u{7}\""), "{xml}");
}

#[test]
fn markdown_shows_control_characters_escaped_whole() {
    let dir = tempfile::tempdir().unwrap();
    let o = hostile_run(dir.path());
    let md = stdout(&o);
    assert_eq!(md, std::fs::read_to_string(dir.path().join("out/report.md")).unwrap());
    assert!(!md.chars().any(|c| c.is_control() && c != '\n'), "{md:?}");
    // As on the console: `\u{1b}[31m`, never a stray `[31m`.
    // (In code spans as written; in text with `[` as a reference.)
    assert!(md.contains("s\\u{ffff}\\u{1b}&#91;31mRED"), "{md}");
    assert!(md.contains("r\\u{1b}[31mRED\\u{7}"), "{md}");
    let rest = md.replace("\\u{1b}&#91;31m", "").replace("\\u{1b}[31m", "");
    assert!(!rest.contains("&#91;31m") && !rest.contains("[31m"), "{md}");
}

/// Runs suite `name` (its evaluator `f`, a JSON metric, and `gate`) over
/// `rows` in `dir`, writing `out-NAME/junit.xml`; `args` are added.
fn run_gate(dir: &Path, name: &str, gate: &str, rows: &[&str], args: &[&str]) -> String {
    std::fs::write(dir.join(format!("{name}.jsonl")), rows.join("\n")).unwrap();
    let suite = format!(
        "name: {name}\ndataset: {name}.jsonl\nid: id\nevaluators:\n  - {{name: f, metric: json_similarity, threshold: 0.4}}\ngate: {gate}\n"
    );
    std::fs::write(dir.join(format!("{name}.yaml")), suite).unwrap();
    let out = format!("out-{name}");
    let o = Command::new(env!("CARGO_BIN_EXE_refscore"))
        .args(["run", &format!("{name}.yaml"), "-q", "--no-store", "-o", &out])
        .args(["--report", "junit,md,html"])
        .args(args)
        .current_dir(dir)
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    assert_ne!(code(&o), 2, "{}", stderr(&o));
    std::fs::read_to_string(dir.join(out).join("junit.xml")).unwrap()
}

/// A run whose gate failed fails in JUnit too: a `gate` test suite holds a
/// test case per check, failing with what it required and found.
#[test]
fn junit_fails_when_the_gate_fails() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let half = r#"{"id": "h", "output": {"a": 1, "b": 1}, "reference": {"a": 1, "b": 2}}"#;
    let good = r#"{"id": "g", "output": {"a": 1, "b": 2}, "reference": {"a": 1, "b": 2}}"#;
    let bad = r#"{"id": "g", "output": {"a": 0, "b": 0}, "reference": {"a": 1, "b": 2}}"#;
    // The baseline of the regression case.
    run_gate(d, "base", "{}", &[good, good], &[]);
    // (suite name, gate, dataset rows, extra arguments, failure message)
    type Case<'a> = (&'a str, &'a str, &'a [&'a str], &'a [&'a str], &'a str);
    let cases: [Case<'_>; 5] = [
        (
            "mean",
            "{min_mean: {f: 0.9}}",
            &[half, half],
            &[],
            "min_mean.f: required ≥ 0.900, actual 0.750",
        ),
        ("empty", "{}", &[], &[], "rows_scored: required ≥ 1, actual 0"),
        ("unreadable", "{}", &[good, "not json"], &[], "max_failed_rows: required ≤ 0, actual 1"),
        (
            "rate",
            "{min_pass_rate: {f: 1}}",
            &[good, bad],
            &[],
            "min_pass_rate.f: required ≥ 1, actual 0.500",
        ),
        (
            "regression",
            "{regression: {fail_on: critical}}",
            &[bad, bad],
            &["--baseline", "out-base"],
            "regression.f: required not critical, actual critical",
        ),
    ];
    for (name, gate, rows, args, message) in cases {
        let xml = run_gate(d, name, gate, rows, args);
        let suite = &xml[xml.find("<testsuite name=\"gate\"").expect(name)..];
        let suite = &suite[..suite.find("</testsuite>").unwrap()];
        assert!(suite.contains("failures=\"1\""), "{name}: {suite}");
        let failure = format!("<failure message=\"{message}\" type=\"gate_check_failed\">");
        assert!(suite.contains(&failure), "{name}: {failure} in {suite}");
        let all = &xml[xml.find("<testsuites ").unwrap()..];
        let all = &all[..all.find('>').unwrap()];
        assert!(!all.contains(" failures=\"0\""), "{name}: {all}");
    }
    // A passing gate: its checks pass.
    let xml = run_gate(d, "pass", "{}", &[good], &[]);
    assert!(
        xml.contains(
            "<testsuite name=\"gate\" tests=\"2\" skipped=\"0\" errors=\"0\" failures=\"0\""
        ),
        "{xml}"
    );
    assert!(xml.contains("<testcase name=\"rows_scored\" classname=\"pass.gate\"/>"), "{xml}");
}

/// The console, report.md and report.html say a regression check's status
/// in words, never its rank.
#[test]
fn regression_checks_read_as_status_words() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let good = r#"{"id": "g", "output": {"a": 1, "b": 2}, "reference": {"a": 1, "b": 2}}"#;
    let bad = r#"{"id": "g", "output": {"a": 0, "b": 0}, "reference": {"a": 1, "b": 2}}"#;
    run_gate(d, "base", "{}", &[good, good], &[]);
    let gate = "{regression: {fail_on: critical}}";
    run_gate(d, "now", gate, &[bad, bad], &["--baseline", "out-base"]);
    let md = std::fs::read_to_string(d.join("out-now/report.md")).unwrap();
    assert!(md.contains("| `regression.f` | not critical | critical | ❌ |"), "{md}");
    let html = std::fs::read_to_string(d.join("out-now/report.html")).unwrap();
    assert!(html.contains("<td>not critical</td><td>critical</td>"), "{html}");
    assert!(md.contains(" pts |") && html.contains(" pts</td>"), "{md}");
}

/// Tabs and line breaks in JUnit attributes are character references, so
/// a parser gives them back; in text they are kept.
#[test]
fn junit_keeps_tabs_and_carriage_returns() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let rows = [
        r#"{"id": "a\tb\rc", "output": {"v": "x\ty\rz"}, "reference": {"v": "q"}}"#,
        r#"{"id": "abc", "output": {"v": "x"}, "reference": {"v": "q"}}"#,
    ];
    let xml = run_gate(d, "tabs", "{}", &rows, &[]);
    assert!(xml.contains("<testcase name=\"a&#9;b&#13;c\""), "{xml}");
    assert!(xml.contains("<testcase name=\"abc\""), "{xml}");
    assert!(xml.contains("(expected q, got x\ty&#13;z)</failure>"), "{xml}");
}

/// A report's job has no judge's API key: the suite still loads for the
/// HTML report's side-by-side view (its judges are not asked), and
/// `runs list --suite` reads its runs.
#[test]
fn report_and_runs_load_a_suite_whose_judge_key_is_not_set_here() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("data.jsonl"),
        "{\"id\": 1, \"output\": {\"a\": 1}, \"reference\": {\"a\": 2}}\n",
    )
    .unwrap();
    std::fs::write(
        d.join("suite.yaml"),
        "dataset: data.jsonl\nid: id\njudge: {model: m, base_url: \"http://127.0.0.1:9/v1\", api_key_env: REFSCORE_TEST_REPORT_KEY}\nevaluators:\n  - {name: m, metric: json_match}\n",
    )
    .unwrap();
    let at = |args: &[&str], key: bool| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_refscore"));
        cmd.args(args).current_dir(d).env_remove("GITHUB_STEP_SUMMARY");
        if key {
            cmd.env("REFSCORE_TEST_REPORT_KEY", "sk-test");
        } else {
            cmd.env_remove("REFSCORE_TEST_REPORT_KEY");
        }
        cmd.output().unwrap()
    };
    let o = at(&["run", "suite.yaml", "-q", "-o", "out"], true);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = at(&["report", "out", "--report", "html", "-o", "rep"], false);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stderr(&o).is_empty(), "{}", stderr(&o));
    let html = std::fs::read_to_string(d.join("rep/report.html")).unwrap();
    assert!(html.contains(r#","o":"#), "the side-by-side view is there");
    let o = at(&["runs", "list", "--suite", "suite.yaml", "--format", "json"], false);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(serde_json::from_str::<Value>(&stdout(&o)).unwrap().as_array().unwrap().len(), 1);
    // A run still needs the key.
    let o = at(&["run", "suite.yaml", "-q", "-o", "again"], false);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("REFSCORE_TEST_REPORT_KEY"), "{}", stderr(&o));
}

/// A report is never written over the run's dataset or suite, even when
/// the suite no longer loads: the run's summary names both.
#[test]
fn report_refuses_to_write_over_the_dataset_of_a_suite_that_no_longer_loads() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let rows = "{\"id\": 1, \"output\": {\"a\": 1}, \"reference\": {\"a\": 2}}\n";
    std::fs::write(d.join("junit.xml"), rows).unwrap();
    std::fs::write(
        d.join("suite.yaml"),
        "dataset: junit.xml\nformat: jsonl\nid: id\nevaluators:\n  - {name: m, metric: json_match}\n",
    )
    .unwrap();
    let at = |args: &[&str]| refscore_in(d, args);
    let o = at(&["run", "suite.yaml", "-q", "--no-store", "-o", "out"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    std::fs::write(d.join("suite.yaml"), "evaluators: [\n").unwrap();
    let o = at(&["report", "out", "--report", "junit", "-o", "."]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("junit.xml"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(d.join("junit.xml")).unwrap(), rows);
    // The HTML report says why the suite does not load.
    let o = at(&["report", "out", "--report", "html", "-o", "rep"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stderr(&o).contains("the suite of this run cannot be loaded ("), "{}", stderr(&o));
}
