//! Tests of what the reports make of hostile data (markup, control and
//! bidirectional characters, long ids) and of how they show the gate and
//! the comparison with a baseline.

use super::*;
use crate::history::RegressionStatus;
use crate::summary::GateCheck;

fn md(summary: &RunSummary, lines: &[String]) -> String {
    markdown::to_string(summary, &mut rows_of(lines), &Options::default()).unwrap()
}

fn page(summary: &RunSummary, rows: Vec<RowResult>) -> String {
    let mut out = Vec::new();
    html::render(summary, &mut rows.into_iter().map(Ok), None, &Options::default(), &mut out)
        .unwrap();
    String::from_utf8(out).unwrap()
}

fn junit_xml(summary: &RunSummary, rows: Vec<RowResult>) -> String {
    let mut out = Vec::new();
    junit::render(summary, &mut rows.into_iter().map(Ok), &Options::default(), &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

fn rows(lines: &[String]) -> Vec<RowResult> {
    rows_of(lines).collect::<Result<_, _>>().unwrap()
}

/// The section of `md` from `heading` to the next heading.
fn section<'a>(md: &'a str, heading: &str) -> &'a str {
    let from = md.find(heading).unwrap_or_else(|| panic!("no {heading} in {md}"));
    let rest = &md[from + heading.len()..];
    &rest[..rest.find("\n#").unwrap_or(rest.len())]
}

#[test]
fn markdown_shows_paths_and_example_ids_literally_in_code() {
    let (_, mut summary, lines) = example_run();
    let f = &mut summary.fields[0];
    f.accuracy = 0.0;
    f.matched = 0;
    f.total = 1_000;
    f.path = String::from("$.items[*].tags[*]");
    f.examples = vec![String::from("[click](https://evil.example)"), String::from("a\\|b")];
    let md = md(&summary, &lines);
    let fields = section(&md, "## Fields that fail most");
    let row = fields.lines().find(|l| l.contains("items")).unwrap();
    // Code spans: literal on GitHub (no emphasis, link or image inside),
    // readable as written in the raw file; a pipe of the data as `\|`.
    assert!(row.contains("| `$.items[*].tags[*]` |"), "{row}");
    assert!(row.ends_with("| `[click](https://evil.example)`, `a\\\\|b` |"), "{row}");
}

/// A regression check as `summary.json` holds it: ranks, and the status.
fn regression_check(status: RegressionStatus, passed: bool) -> GateCheck {
    GateCheck {
        name: String::from("regression.fields"),
        op: "<=",
        required: 2.0,
        actual: Some(f64::from(status as u8)),
        passed,
        status: Some(status),
    }
}

#[test]
fn regression_checks_show_status_words() {
    let (_, mut summary, lines) = example_run();
    summary.gate.checks.push(regression_check(RegressionStatus::Critical, false));
    summary.gate.passed = false;
    let md = md(&summary, &lines);
    assert!(md.contains("\n| `regression.fields` | not critical | critical | ❌ |\n"), "{md}");
    let page = page(&summary, rows(&lines));
    assert!(
        page.contains(
            "<td><code>regression.fields</code></td><td>not critical</td><td>critical</td>"
        ),
        "{page}"
    );
}

#[test]
fn accuracy_changes_show_as_points() {
    let (_, mut summary, lines) = example_run();
    with_baseline(&mut summary, &lines);
    let md = md(&summary, &lines);
    let worse = section(&md, "### Fields that got worse");
    let first = worse.lines().nth(4).unwrap();
    assert!(first.ends_with(" pts |") && first.contains("| ↓ -"), "{worse}");
    assert!(!worse.contains("| ↓ -1 |") && !worse.contains("| ↓ -0."), "{worse}");
    let page = page(&summary, rows(&lines));
    let moves = &page[page.find("Field accuracy moves").unwrap()..];
    let moves = &moves[..moves.find("</table>").unwrap()];
    assert!(moves.contains(" pts</td>"), "{moves}");
    assert!(!moves.contains("↓ -1</td>"), "{moves}");
}

/// A gate check of each kind that fails, and what the `gate` test suite's
/// failure says about it.
/// Durations no run writes (an edited or damaged summary or result line)
/// render without a panic: negative or NaN as 0, past what a duration
/// holds as its largest value.
#[test]
fn junit_renders_durations_no_run_writes() {
    let (_, summary, lines) = example_run();
    for (secs, ms, want) in [
        (1e308, 1e30, "time=\"18446744073709551616.000\""),
        (f64::INFINITY, f64::INFINITY, "time=\"18446744073709551616.000\""),
        (-5.0, -1.0, "time=\"0.000\""),
        (f64::NAN, f64::NAN, "time=\"0.000\""),
    ] {
        let s = RunSummary { duration_s: secs, ..summary.clone() };
        let mut r = rows(&lines);
        for x in r.iter_mut().flat_map(|row| row.execution.values_mut()) {
            x.duration_ms = ms;
        }
        let xml = junit_xml(&s, r);
        assert!(xml.contains(want), "{secs}: {}", &xml[..xml.len().min(400)]);
    }
}

#[test]
fn junit_has_a_gate_suite_whose_failed_checks_fail() {
    let (_, summary, lines) = example_run();
    let at_least = |name: &str, required: f64, actual: Option<f64>| GateCheck {
        name: name.into(),
        op: ">=",
        required,
        actual,
        passed: false,
        status: None,
    };
    let cases = [
        (at_least("rows_scored", 1.0, Some(0.0)), "rows_scored: required ≥ 1, actual 0"),
        (
            at_least("min_mean.fields", 0.99, Some(0.948)),
            "min_mean.fields: required ≥ 0.990, actual 0.948",
        ),
        (
            at_least("min_mean.similarity", 0.5, None),
            "min_mean.similarity: required ≥ 0.500, actual —",
        ),
        (
            GateCheck { op: "<=", ..at_least("max_failed_rows", 0.0, Some(3.0)) },
            "max_failed_rows: required ≤ 0, actual 3",
        ),
        (
            regression_check(RegressionStatus::Critical, false),
            "regression.fields: required not critical, actual critical",
        ),
    ];
    for (check, message) in cases {
        let mut s = summary.clone();
        s.gate.checks.push(check.clone());
        s.gate.passed = false;
        let xml = junit_xml(&s, rows(&lines));
        let report = quick_junit::Report::deserialize_from_str(&xml).unwrap();
        let gate = &report.test_suites[0];
        assert_eq!(gate.name.as_str(), junit::GATE_SUITE);
        assert_eq!(gate.test_cases.len(), summary.gate.checks.len() + 1);
        assert_eq!(gate.failures, 1, "{}", check.name);
        let case = gate.test_cases.last().unwrap();
        assert_eq!(case.name.as_str(), check.name);
        match &case.status {
            quick_junit::TestCaseStatus::NonSuccess { kind, message: m, ty, .. } => {
                assert_eq!(*kind, quick_junit::NonSuccessKind::Failure);
                assert_eq!(m.as_ref().unwrap().as_str(), message);
                assert_eq!(ty.as_ref().unwrap().as_str(), "gate_check_failed");
            }
            other => panic!("{other:?}"),
        }
        assert!(report.failures > 0);
    }
}

#[test]
fn junit_keeps_tabs_and_line_breaks_apart() {
    let (_, summary, lines) = example_run();
    let mut rows = rows(&lines);
    rows[0].id = String::from("a\tb");
    rows[1].id = String::from("ab");
    rows[2].id = String::from("a\r\nb\u{1b}[31m\u{202e}");
    let xml = junit_xml(&summary, rows);
    for name in ["name=\"a&#9;b\"", "name=\"ab\"", "name=\"a&#13;&#10;b\\u{1b}[31m\\u{202e}\""] {
        assert!(xml.contains(name), "{name} in {xml}");
    }
    assert!(!xml.chars().any(|c| text::hidden(c) && c != '\n'), "{xml}");
}

#[test]
fn html_writes_no_hidden_character_raw() {
    let (_, mut summary, lines) = example_run();
    let bad = "x\u{0}y\u{1b}[31m\u{202e}z\u{9b}";
    let shown = "x\\u{0}y\\u{1b}[31m\\u{202e}z\\u{9b}";
    summary.run.as_mut().unwrap().suite = bad.to_owned();
    summary.fields[0].path = format!("$.{bad}");
    summary.fields[0].examples = vec![bad.to_owned()];
    summary.gate.checks[0].name = bad.to_owned();
    let mut rows = rows(&lines);
    let failed = rows.iter_mut().find(|r| r.id == "inv-004").unwrap();
    failed.id = bad.to_owned();
    let d = &mut failed.metric_results.get_mut("distance").unwrap().details[0];
    d.expected = Some(bad.to_owned());
    d.actual = Some(format!("\u{7f}{bad}\u{2066}"));
    let page = page(&summary, rows);
    let raw: Vec<char> = page.chars().filter(|&c| text::hidden(c) && c != '\n').collect();
    assert!(raw.is_empty(), "{raw:?}");
    assert!(page.contains(&format!("<h1>{shown}</h1>")), "title");
    assert!(page.contains(&format!("title=\"{shown}\">{shown}</code>")), "example rows");
    // The data keeps the characters, escaped as JSON.
    assert!(page.contains(r#""x\u0000y\u001b[31m\u202ez\u009b""#), "data");
}

#[test]
fn markdown_shows_hidden_characters_escaped() {
    let (_, mut summary, lines) = example_run();
    summary.run.as_mut().unwrap().suite = String::from("id\u{202e}gnp.exe\tx\ny");
    let md = md(&summary, &lines);
    assert!(md.starts_with("# refscore: id\\u{202e}gnp.exe\\tx\\ny\n"), "{}", &md[..80]);
}
