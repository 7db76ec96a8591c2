//! Tests of the report formats over a real run of the shipped example.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::*;
use crate::runner::{RunOptions, run};
use crate::suite::Suite;

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/invoices/suite.yaml")
}

/// Where a run came from, as `refscore run` records it.
fn info(suite: &Suite) -> crate::history::RunInfo {
    crate::history::RunInfo {
        id: Some(7),
        store: None,
        suite: String::from("invoices"),
        suite_path: suite.path.display().to_string(),
        suite_hash: String::from("00"),
        dataset: suite.dataset.display().to_string(),
        dataset_hash: String::from("00"),
        git: Some(crate::history::GitInfo {
            commit: String::from("0123456789abcdef"),
            branch: Some(String::from("main")),
            dirty: false,
        }),
        tags: [(String::from("model"), String::from("m-1"))].into(),
        links: Default::default(),
        started_at: String::from("2026-11-23T02:32:35Z"),
        ended_at: None,
        version: String::from("0.1.0"),
        limit: None,
        output: None,
        resumed: 0,
    }
}

/// The example's summary and its `results.jsonl` lines.
fn example_run() -> (Suite, RunSummary, Vec<String>) {
    let suite = Suite::load(&example()).unwrap();
    let mut lines = Vec::new();
    let summary = run(
        &suite,
        &RunOptions::default(),
        &mut |_, line| {
            lines.push(line.to_owned());
            Ok(())
        },
        &|_| {},
    )
    .unwrap();
    let mut summary = summary;
    summary.run = Some(info(&suite));
    (suite, summary, lines)
}

fn rows_of(lines: &[String]) -> impl Iterator<Item = Result<RowResult, ReportError>> + '_ {
    let text = lines.join("\n");
    let n = lines.iter().filter(|l| !l.trim().is_empty()).count() as u64;
    read_rows(std::io::Cursor::new(text.into_bytes()), Path::new("results.jsonl"), n)
}

#[test]
fn a_results_file_with_a_row_lost_or_added_is_refused() {
    let (_, summary, lines) = example_run();
    let read = |lines: &[String]| -> Result<Vec<RowResult>, ReportError> {
        let text = lines.join("\n");
        read_rows(std::io::Cursor::new(text.into_bytes()), Path::new("results.jsonl"), summary.rows)
            .collect()
    };
    assert_eq!(read(&lines).unwrap().len() as u64, summary.rows);
    let mut lost = lines.clone();
    lost.remove(1);
    let e = read(&lost).unwrap_err().to_string();
    assert!(e.starts_with("results.jsonl: holds"), "{e}");
    assert!(e.contains(&format!("where the run's summary counts {}", summary.rows)), "{e}");
    let mut added = lines.clone();
    added.push(lines[0].clone());
    assert!(read(&added).is_err());
    // Blank lines are no rows.
    let mut blank = lines.clone();
    blank.insert(1, String::from("  "));
    assert_eq!(read(&blank).unwrap().len() as u64, summary.rows);
}

#[test]
fn summary_and_rows_read_back_as_written() {
    let (_, summary, lines) = example_run();
    let text = serde_json::to_string_pretty(&summary).unwrap();
    let back = read_summary(&text, Path::new("summary.json")).unwrap();
    assert_eq!(back, summary);
    let rows: Vec<RowResult> = rows_of(&lines).collect::<Result<_, _>>().unwrap();
    assert_eq!(rows.len(), 66);
    for (row, line) in rows.iter().zip(&lines) {
        assert_eq!(&serde_json::to_string(row).unwrap(), line);
    }
    // Every row carries its metric results, failed details capped.
    let r4 = rows.iter().find(|r| r.id == "inv-004").unwrap();
    let fields = &r4.metric_results["distance"];
    assert_eq!((fields.score, fields.passed), (Some(3.0), Some(false)));
    assert_eq!(fields.details.len(), 3);
    let r2 = rows.iter().find(|r| r.id == "inv-002").unwrap();
    let (listed, more) = r2.metric_results["distance"].listed();
    assert_eq!((listed.len(), more), (10, 20));
    assert_eq!(
        summary.run.as_ref().unwrap().dataset,
        Suite::load(&example()).unwrap().dataset.display().to_string()
    );
}

#[test]
fn a_bad_line_names_its_file_and_line() {
    let lines = vec![String::from("{\"id\":\"a\"}"), String::new(), String::from("not json")];
    let errs: Vec<String> =
        rows_of(&lines).filter_map(Result::err).map(|e| e.to_string()).collect();
    assert_eq!(errs.len(), 2, "{errs:?}");
    assert!(errs[0].starts_with("results.jsonl:1: not a row result"), "{}", errs[0]);
    assert!(errs[1].starts_with("results.jsonl:3:"), "{}", errs[1]);
}

#[test]
fn markdown_puts_the_gate_first_and_folds_failed_checks() {
    let (_, summary, lines) = example_run();
    let opts = Options { max_rows: 5, ..Options::default() };
    let md = markdown::to_string(&summary, &mut rows_of(&lines), &opts).unwrap();
    let gate = md.find("Gate passed").unwrap();
    assert!(gate < md.find("## Evaluators").unwrap());
    assert!(md.find("## Evaluators").unwrap() < md.find("## Fields that fail most").unwrap());
    assert!(md.contains("| `fields` | `json_match` | 0.948 |"), "{md}");
    assert_eq!(md.matches("\n### `").count(), 5);
    assert!(md.contains("<details><summary>❌ distance: 3 (needs ≤ 2), 3 failed checks</summary>"));
    assert!(md.contains("| `$.total` | `3874.68` | `\"3,874.68\"` | Type mismatch |"), "{md}");
    assert!(md.contains("\n+ 20 more\n"));
    let failed = summary.rows - 35;
    assert!(md.contains(&format!("+ {} more failed rows", failed - 5)), "{md}");
    assert!(!md.contains("Report cut"));
}

#[test]
fn markdown_stays_under_its_size_limit_with_a_note() {
    let (_, summary, lines) = example_run();
    let mut among_rows = 0;
    for max_bytes in [2_000, 6_000, 20_000] {
        let opts = Options { max_rows: 1000, max_bytes, ..Options::default() };
        let md = markdown::to_string(&summary, &mut rows_of(&lines), &opts).unwrap();
        assert!(md.len() <= max_bytes, "{} > {max_bytes}", md.len());
        assert!(md.contains("Report cut"), "{max_bytes}");
        assert!(md.contains("Gate passed"));
        // Cut among the failed rows, the note says how many were shown.
        let shown = md.matches("\n### `").count();
        if md.contains("## Failed rows") {
            let failed = summary.rows - 35;
            let said = format!("**Report cut** after {shown} of the {failed} failed rows");
            assert!(md.contains(&said), "{max_bytes}: {said}\n{md}");
            among_rows += 1;
        }
    }
    assert!(among_rows > 0, "no limit cut among the failed rows");
    let whole = markdown::to_string(
        &summary,
        &mut rows_of(&lines),
        &Options { max_rows: 1000, ..Options::default() },
    )
    .unwrap();
    assert!(!whole.contains("Report cut"));
    assert!(whole.len() < DEFAULT_MAX_BYTES);
}

#[test]
fn markdown_escapes_what_the_data_says() {
    let (_, mut summary, lines) = example_run();
    summary.run.as_mut().unwrap().suite = String::from("a <script>|b");
    let md = markdown::to_string(&summary, &mut rows_of(&lines), &Options::default()).unwrap();
    assert!(md.starts_with("# refscore: a &lt;script&gt;&#124;b\n"), "{}", &md[..60]);
}

#[test]
fn junit_has_a_suite_per_evaluator_and_a_case_per_row() {
    let (_, summary, lines) = example_run();
    let mut out = Vec::new();
    junit::render(&summary, &mut rows_of(&lines), &Options::default(), &mut out).unwrap();
    let xml = String::from_utf8(out).unwrap();
    let report = quick_junit::Report::deserialize_from_str(&xml).unwrap();
    assert_eq!(report.test_suites.len(), 5);
    assert_eq!(report.test_suites[0].name.as_str(), junit::GATE_SUITE);
    assert_eq!(report.test_suites[0].test_cases.len(), summary.gate.checks.len());
    assert_eq!(report.test_suites[0].failures, 0);
    for (suite, e) in report.test_suites[1..].iter().zip(&summary.evaluators) {
        assert_eq!(suite.name.as_str(), e.name);
        assert_eq!(suite.test_cases.len(), 66);
        assert_eq!(suite.failures as u64, summary.rows - e.passed.unwrap(), "{}", e.name);
        assert_eq!(suite.errors, 0);
    }
    let case =
        report.test_suites[2].test_cases.iter().find(|c| c.name.as_str() == "inv-004").unwrap();
    // `<suite>.<evaluator>`: each evaluator's case of a row is its own
    // test in a CI's history.
    let class = format!("{}.{}", title(&summary), summary.evaluators[1].name);
    assert_eq!(case.classname.as_ref().unwrap().as_str(), class);
    let gate = &report.test_suites[0].test_cases[0];
    assert_eq!(gate.classname.as_ref().unwrap().as_str(), format!("{}.gate", title(&summary)));
    match &case.status {
        quick_junit::TestCaseStatus::NonSuccess { kind, message, description, .. } => {
            assert_eq!(*kind, quick_junit::NonSuccessKind::Failure);
            assert_eq!(message.as_ref().unwrap().as_str(), "distance scored 3, needs <= 2");
            assert!(description.as_ref().unwrap().as_str().contains("✗ json_path.$.total"));
        }
        other => panic!("{other:?}"),
    }
}

/// Test cases moved to temporary files as they are written come back
/// whole and in order: the same bytes as a report kept in memory.
#[test]
fn junit_spilled_to_files_is_the_same_report() {
    let (_, summary, lines) = example_run();
    let mut kept = Vec::new();
    junit::render_spilling(&summary, &mut rows_of(&lines), &mut kept, usize::MAX).unwrap();
    for spill in [0, 1, 500] {
        let mut spilled = Vec::new();
        junit::render_spilling(&summary, &mut rows_of(&lines), &mut spilled, spill).unwrap();
        assert!(spilled == kept, "spilling past {spill} bytes changed the report");
    }
    assert!(kept.len() > 20_000, "{}", kept.len());
}

#[test]
fn junit_reports_failed_evaluations_and_unreadable_rows_as_errors() {
    let (_, summary, lines) = example_run();
    let mut rows: Vec<RowResult> = rows_of(&lines).collect::<Result<_, _>>().unwrap();
    rows[0].execution.get_mut("fields").unwrap().status = crate::runner::Status::Failed;
    rows[0].execution.get_mut("fields").unwrap().error = Some(String::from("judge timed out"));
    rows[1].error = Some(String::from("dataset.jsonl:2: bad JSON"));
    let mut out = Vec::new();
    junit::render(&summary, &mut rows.into_iter().map(Ok), &Options::default(), &mut out).unwrap();
    let report =
        quick_junit::Report::deserialize_from_str(&String::from_utf8(out).unwrap()).unwrap();
    assert_eq!(report.test_suites[1].errors, 2);
    assert_eq!(report.test_suites[2].errors, 1);
    let xml = String::from_utf8_lossy(&{
        let mut v = Vec::new();
        report.serialize(&mut v).unwrap();
        v
    })
    .into_owned();
    assert!(xml.contains("judge timed out"));
    assert!(xml.contains("type=\"unreadable_row\""));
}

#[test]
fn html_embeds_rows_and_sides_safely() {
    let (suite, summary, lines) = example_run();
    let wanted = failed_rows(&mut rows_of(&lines), 3).unwrap();
    assert_eq!(wanted, BTreeSet::from([2, 4, 7]));
    let sides = Sides::read(&suite, &wanted).unwrap();
    assert_eq!(sides.rows.len(), 3);
    let mut out = Vec::new();
    html::render(&summary, &mut rows_of(&lines), Some(&sides), &Options::default(), &mut out)
        .unwrap();
    let page = String::from_utf8(out).unwrap();
    assert!(page.starts_with("<!doctype html>"));
    assert_eq!(page.matches("<svg class=\"hist\"").count(), 4);
    assert!(!page.contains("http://") && !page.contains("https://"), "nothing fetched");
    let start = page.find("<script id=\"data\" type=\"application/json\">").unwrap();
    let body = &page[start..];
    let body = &body[body.find('>').unwrap() + 1..body.find("</script>").unwrap()];
    let data: serde_json::Value = serde_json::from_str(body).unwrap();
    assert_eq!(data["rows"].as_array().unwrap().len(), 66);
    assert_eq!(data["evaluators"][0], "fields");
    let r4 = data["rows"].as_array().unwrap().iter().find(|r| r[0] == "inv-004").unwrap();
    let extra = &data["extra"][r4[6].as_u64().unwrap() as usize];
    assert_eq!(extra["ev"]["distance"]["d"][2][0], "$.total");
    assert!(extra.get("o").is_some() && extra.get("r").is_some());
    // Text from the data never closes the script element.
    let (_, mut summary2, mut lines2) = (0, summary.clone(), lines.clone());
    summary2.run.as_mut().unwrap().suite = String::from("</script><b>x");
    lines2[0] = lines2[0].replacen("\"id\":\"inv-001\"", "\"id\":\"</script><!--\"", 1);
    let mut out = Vec::new();
    html::render(&summary2, &mut rows_of(&lines2), None, &Options::default(), &mut out).unwrap();
    let page = String::from_utf8(out).unwrap();
    assert_eq!(page.matches("</script>").count(), 2);
    assert!(page.contains("&lt;&#x2f;script&gt;&lt;b&gt;x"));
}

#[test]
fn html_caps_embedded_checks() {
    let (_, summary, lines) = example_run();
    let opts = Options { max_detail_rows: 2, ..Options::default() };
    let mut out = Vec::new();
    html::render(&summary, &mut rows_of(&lines), None, &opts, &mut out).unwrap();
    let page = String::from_utf8(out).unwrap();
    let start = page.find("type=\"application/json\">").unwrap() + 24;
    let data: serde_json::Value =
        serde_json::from_str(&page[start..page[start..].find("</script>").unwrap() + start])
            .unwrap();
    assert_eq!(data["extra"].as_array().unwrap().len(), 2);
    let r2 = &data["extra"][0]["ev"]["distance"];
    assert_eq!(r2["d"].as_array().unwrap().len(), html::CHECKS_PER_EVALUATOR);
    assert_eq!(r2["m"], 25);
    let late = data["rows"].as_array().unwrap().iter().filter(|r| r[2] != 0 && r[6] == -1).count();
    assert_eq!(late, 29);
}

#[test]
fn row_status_follows_errors_then_thresholds() {
    let (_, _, lines) = example_run();
    let rows: Vec<RowResult> = rows_of(&lines).collect::<Result<_, _>>().unwrap();
    let count = |s: RowStatus| rows.iter().filter(|r| RowStatus::of(r) == s).count();
    assert_eq!(
        (count(RowStatus::Passed), count(RowStatus::Failed), count(RowStatus::Error)),
        (35, 31, 0)
    );
    let mut r = rows[0].clone();
    r.error = Some(String::from("bad"));
    assert_eq!(RowStatus::of(&r), RowStatus::Error);
    assert_eq!(EvalStatus::of(&r, "fields"), EvalStatus::Error);
    assert_eq!(Format::from_name("md"), Some(Format::Markdown));
    assert_eq!(Format::from_name("JUnit").map(Format::file_name), Some("junit.xml"));
    assert_eq!(Format::from_name("pdf"), None);
}

/// The example compared with a baseline where every `fields` score was 1
/// and every field perfect.
fn with_baseline(summary: &mut RunSummary, lines: &[String]) {
    use crate::history::{BaselineInfo, Cell, Comparison, RegressionPolicy, RowScores};
    let rows: Vec<RowResult> = rows_of(lines).collect::<Result<_, _>>().unwrap();
    let names: Vec<String> = summary.evaluators.iter().map(|e| e.name.clone()).collect();
    let cells = |r: &RowResult| -> Vec<Cell> {
        names.iter().map(|n| main_score(r, n).map_or(Cell::Invalid, Cell::Score)).collect()
    };
    let current = summary
        .scores(rows.iter().map(|r| RowScores { id: r.id.clone(), cells: cells(r) }).collect());
    let mut baseline = current.clone();
    for row in &mut baseline.rows {
        row.cells[0] = Cell::Score(1.0);
    }
    baseline.evaluators[0].mean = Some(1.0);
    for f in &mut baseline.fields {
        f.accuracy = 1.0;
    }
    let info = BaselineInfo {
        run_id: Some(6),
        folder: None,
        chosen_by: String::from("last_passing"),
        reason: String::from("the last run whose gate passed"),
        started_at: None,
        git_commit: Some(String::from("fedcba9876543210")),
        suite: None,
        dataset_hash: None,
        suite_hash: None,
    };
    let policy = RegressionPolicy::default();
    summary
        .set_comparison(Comparison::new(&baseline, info, &current, &policy), &Default::default());
}

#[test]
fn a_baseline_adds_change_status_and_regressed_rows() {
    let (_, mut summary, lines) = example_run();
    with_baseline(&mut summary, &lines);
    let md = markdown::to_string(&summary, &mut rows_of(&lines), &Options::default()).unwrap();
    assert!(md.contains("| Failures | Baseline | Change | Status |"), "{md}");
    assert!(md.contains("| 7 | 1 | ↓ -0.052 | ⚠️ warning |"), "{md}");
    assert!(md.contains("## Against the baseline: ⚠️ warning"));
    assert!(md.contains("Baseline: run 6, commit `fedcba987654` (last&#95;passing: "), "{md}");
    assert!(md.contains("### Regressed rows"));
    assert!(md.contains("| `fields` | `inv-047` | 1 | 0 | ↓ -1 |"), "{md}");
    assert!(md.contains("### Fields that got worse"));
    let mut out = Vec::new();
    html::render(&summary, &mut rows_of(&lines), None, &Options::default(), &mut out).unwrap();
    let page = String::from_utf8(out).unwrap();
    assert!(page.contains(r#"<section id="baseline">"#));
    assert!(page.contains(r#"<span class="badge warning">warning</span> baseline 1"#), "cards");
    // Without a baseline: one line, no columns.
    let (_, mut summary, lines) = example_run();
    let current = summary.scores(Vec::new());
    summary.comparison = Some(crate::history::Comparison::without_baseline(
        &current,
        &Default::default(),
        "no baseline run to compare with",
    ));
    let md = markdown::to_string(&summary, &mut rows_of(&lines), &Options::default()).unwrap();
    assert!(md.contains("No baseline run to compare with"));
    assert!(!md.contains("| Baseline |"));
}

mod hostile;

/// A write error says its cause once however it is printed (it is no
/// `source` of its own), and a temporary file's error names the folder
/// and how to choose another.
#[test]
fn report_errors_say_their_cause_once_and_name_the_temporary_folder() {
    use std::error::Error as _;
    let e = ReportError::from(std::io::Error::other("disk full"));
    assert_eq!(e.to_string(), "writing the report: disk full");
    assert!(e.source().is_none());
    let e = ReportError::TempFile { dir: "/tmp/x".into(), message: String::from("disk full") };
    assert_eq!(
        e.to_string(),
        "a temporary file of the report in /tmp/x (set TMPDIR to use another folder): disk full"
    );
}

#[test]
fn a_run_of_one_row_says_one_row() {
    let (_, mut summary, lines) = example_run();
    let one = &lines[..1];
    summary.rows = 1;
    let md = markdown::to_string(&summary, &mut rows_of(one), &Options::default()).unwrap();
    assert!(md.contains("\n1 row (0 unreadable"), "{md}");
    let mut out = Vec::new();
    html::render(&summary, &mut rows_of(one), None, &Options::default(), &mut out).unwrap();
    let html = String::from_utf8(out).unwrap();
    assert!(html.contains("1 row (0 unreadable"), "{html}");
    assert!(!html.contains(" 1 rows ("));
}

#[test]
fn one_repeated_id_is_one_row() {
    assert_eq!(repeated_ids_said(1), "1 row repeats an earlier row's id");
    assert_eq!(repeated_ids_said(2), "2 rows repeat an earlier row's id");
}

#[test]
fn a_summary_that_is_not_one_says_so_in_words() {
    let at = Path::new("o/summary.json");
    let e = read_summary("[]", at).unwrap_err().to_string();
    assert_eq!(e, "o/summary.json: not a run summary: it holds JSON that is not an object");
    let e = read_summary("{}", at).unwrap_err().to_string();
    assert!(e.starts_with("o/summary.json: not a run summary: missing field"), "{e}");
    assert!(!e.contains("struct RunSummary"), "{e}");
}

#[test]
fn a_damaged_summary_names_the_member_at_fault_by_its_path() {
    let (_, summary, _) = example_run();
    let mut value = serde_json::to_value(&summary).unwrap();
    let at = Path::new("o/summary.json");
    let said = |v: &serde_json::Value| read_summary(&v.to_string(), at).unwrap_err().to_string();
    value["run"].as_object_mut().unwrap().remove("suite_hash");
    let e = said(&value);
    assert!(
        e.starts_with("o/summary.json: not a run summary: `run`: missing field `suite_hash`"),
        "{e}"
    );
    let mut value = serde_json::to_value(&summary).unwrap();
    value["evaluators"][0]["count"] = serde_json::json!("many");
    let e = said(&value);
    assert!(
        e.starts_with("o/summary.json: not a run summary: `evaluators[0].count`: invalid type"),
        "{e}"
    );
    // Text after the summary is refused, as before.
    let text = format!("{} x", serde_json::to_string(&summary).unwrap());
    assert!(read_summary(&text, at).unwrap_err().to_string().contains("trailing characters"));
}
