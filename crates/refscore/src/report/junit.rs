//! The JUnit XML report, for CI test tabs: one test suite per evaluator,
//! one test case per row (classname: the suite, name: the row id). A row
//! that missed the evaluator's threshold is a failure carrying its failed
//! checks; a failed evaluation or an unreadable row is an error.
//!
//! The document `quick_junit` writes goes through `xml_text` before it
//! is written, so the file is well-formed XML 1.0 whatever the data holds.

use std::borrow::Cow;
use std::io::Write;
use std::time::Duration;

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use super::text::{num, opt};
use super::{EvalStatus, Options, ReportError, RowIter, failed_details, main_score};
use crate::runner::RowResult;
use crate::score::Direction;
use crate::summary::{EvaluatorSummary, RunSummary};

/// Renders the JUnit XML report of a run into `out`.
///
/// # Errors
/// A row cannot be read back, or writing fails.
pub fn render(
    summary: &RunSummary,
    rows: &mut RowIter<'_>,
    _opts: &Options,
    out: &mut dyn Write,
) -> Result<(), ReportError> {
    let classname = super::title(summary).to_owned();
    let mut suites: Vec<TestSuite> =
        summary.evaluators.iter().map(|e| TestSuite::new(e.name.as_str())).collect();
    let mut times = vec![Duration::ZERO; suites.len()];
    for row in rows {
        let row = row?;
        for ((e, suite), time) in summary.evaluators.iter().zip(&mut suites).zip(&mut times) {
            let case = case(e, &row, &classname);
            *time += case.time.unwrap_or_default();
            suite.add_test_case(case);
        }
    }
    let mut report = Report::new(classname.as_str());
    report.set_time(Duration::from_secs_f64(summary.duration_s.max(0.0)));
    for (mut suite, time) in suites.into_iter().zip(times) {
        suite.set_time(time);
        report.add_test_suite(suite);
    }
    let mut xml = Vec::new();
    report.serialize(&mut xml).map_err(|e| ReportError::Junit(e.to_string()))?;
    let xml = String::from_utf8(xml).map_err(|e| ReportError::Junit(e.to_string()))?;
    out.write_all(xml_text(&xml).as_bytes())?;
    Ok(())
}

fn case(e: &EvaluatorSummary, row: &RowResult, classname: &str) -> TestCase {
    let status = match EvalStatus::of(row, &e.name) {
        EvalStatus::Passed => TestCaseStatus::success(),
        EvalStatus::Error => {
            let why = row
                .error
                .as_deref()
                .or_else(|| row.execution.get(&e.name).and_then(|x| x.error.as_deref()))
                .unwrap_or("evaluation failed");
            let mut s = TestCaseStatus::non_success(NonSuccessKind::Error);
            s.set_message(why);
            s.set_type(if row.error.is_some() { "unreadable_row" } else { "evaluation_failed" });
            s
        }
        EvalStatus::Failed => {
            let score = main_score(row, &e.name);
            let op = if e.direction == Direction::Minimize { "<=" } else { ">=" };
            let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
            s.set_message(format!(
                "{} scored {}, needs {op} {}",
                e.name,
                opt(score),
                opt(e.threshold)
            ));
            s.set_type("below_threshold");
            let (details, more) = failed_details(row, &e.name);
            let mut text: Vec<String> = details.iter().map(|d| d.line()).collect();
            if more > 0 {
                text.push(format!("+ {more} more"));
            }
            if !text.is_empty() {
                s.set_description(text.join("\n"));
            }
            s
        }
    };
    let mut case = TestCase::new(row.id.as_str(), status);
    case.set_classname(classname);
    if let Some(x) = row.execution.get(&e.name) {
        case.set_time(Duration::from_secs_f64((x.duration_ms / 1000.0).max(0.0)));
    }
    if let Some(x) = main_score(row, &e.name) {
        case.add_property(("score", num(x).as_str()));
    }
    case
}

/// XML text without the characters XML 1.0 forbids, which are dropped:
/// the controls other than tab, line feed and carriage return, and the
/// noncharacters U+FFFE and U+FFFF (a Rust string holds no surrogates).
/// `quick_junit` already drops ANSI escape sequences and control
/// characters from each text it is given, but not U+FFFE and U+FFFF; this
/// applies to the whole document it wrote, markup included (which holds
/// none of them).
fn xml_text(text: &str) -> Cow<'_, str> {
    if text.chars().all(xml_allowed) {
        text.into()
    } else {
        text.chars().filter(|&c| xml_allowed(c)).collect::<String>().into()
    }
}

/// Whether XML 1.0 allows `c` in a document (its `Char` production).
fn xml_allowed(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_keeps_only_what_xml_allows() {
        assert_eq!(xml_text("a\u{ffff}b\u{fffe}c\u{1b}d\u{0}e\u{b}f"), "abcdef");
        assert_eq!(
            xml_text("tab\tlf\ncr\r\u{fffd}\u{e000}\u{10ffff}é"),
            "tab\tlf\ncr\r\u{fffd}\u{e000}\u{10ffff}é"
        );
    }
}
