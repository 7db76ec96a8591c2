//! The JUnit XML report, for CI test tabs: first a `gate` test suite with
//! one test case per gate check, failing when the check failed, so a run
//! whose gate failed never shows green; then one test suite per evaluator,
//! one test case per row (classname: `<suite>.<evaluator>`, name: the row
//! id; a gate check's classname is `<suite>.gate`). A row
//! that missed the evaluator's threshold is a failure carrying its failed
//! checks; a failed evaluation or an unreadable row is an error.
//!
//! The XML is written here, every text through [`xml`]: the file is
//! well-formed XML 1.0 whatever the data holds, and a parser gives back
//! the text as written, tabs and line breaks included.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::Write;
use std::time::Duration;

use super::text::{gate_actual, gate_required, hidden, num, opt, push_escaped};
use super::{EvalStatus, Options, ReportError, RowIter, failed_details, main_score};
use crate::runner::RowResult;
use crate::score::Direction;
use crate::summary::{EvaluatorSummary, GateCheck, RunSummary};

/// The name of the test suite that holds the gate's checks.
pub const GATE_SUITE: &str = "gate";

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
    render_spilling(summary, rows, out, SPILL)
}

/// [`render`], moving a suite's test cases to its temporary file past
/// `spill` bytes.
pub(super) fn render_spilling(
    summary: &RunSummary,
    rows: &mut RowIter<'_>,
    out: &mut dyn Write,
    spill: usize,
) -> Result<(), ReportError> {
    let title = super::title(summary);
    // A case's identity in a CI's test history is its classname and name:
    // the row id alone would be one test for every evaluator.
    let gate_class = format!("{title}.{GATE_SUITE}");
    let mut gate = Suite::new(GATE_SUITE);
    for c in &summary.gate.checks {
        gate.add(&c.name, &gate_class, None, None, gate_failure(c).as_ref());
    }
    let mut suites: Vec<Suite> = summary.evaluators.iter().map(|e| Suite::new(&e.name)).collect();
    let classes: Vec<String> =
        summary.evaluators.iter().map(|e| format!("{title}.{}", e.name)).collect();
    for row in rows {
        let row = row?;
        for ((e, suite), class) in summary.evaluators.iter().zip(&mut suites).zip(&classes) {
            let time = row.execution.get(&e.name).map(|x| duration(x.duration_ms / 1000.0));
            let score = main_score(&row, &e.name);
            suite.add(&row.id, class, time, score, problem(e, &row).as_ref());
            if suite.body.len() >= spill {
                suite.spill().map_err(|e| ReportError::TempFile {
                    dir: std::env::temp_dir(),
                    message: e.to_string(),
                })?;
            }
        }
    }
    let total = |f: fn(&Suite) -> u64| f(&gate) + suites.iter().map(f).sum::<u64>();
    let mut head = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        head,
        "<testsuites name=\"{}\" tests=\"{}\" skipped=\"0\" failures=\"{}\" errors=\"{}\" time=\"{}\">",
        self::xml(title, true),
        total(|s| s.tests),
        total(|s| s.failures),
        total(|s| s.errors),
        seconds(duration(summary.duration_s))
    );
    out.write_all(head.as_bytes())?;
    for s in std::iter::once(&mut gate).chain(&mut suites) {
        let head = format!(
            "    <testsuite name=\"{}\" tests=\"{}\" skipped=\"0\" errors=\"{}\" failures=\"{}\" time=\"{}\">\n",
            self::xml(&s.name, true),
            s.tests,
            s.errors,
            s.failures,
            seconds(s.time)
        );
        out.write_all(head.as_bytes())?;
        s.write_body(out)?;
        out.write_all(b"    </testsuite>\n")?;
    }
    out.write_all(b"</testsuites>\n")?;
    Ok(())
}

/// How much of a suite's test cases' XML is kept in memory before it moves
/// to a temporary file: the counts a suite's opening tag carries are known
/// only once every row has been read, and a run of a million rows and ten
/// evaluators writes gigabytes of test cases, which memory must not hold.
const SPILL: usize = 4 << 20;

/// A test case that did not pass: a failure or an error.
struct Problem {
    /// `failure` or `error`.
    element: &'static str,
    kind: &'static str,
    message: String,
    text: Option<String>,
}

/// A test suite being written: its counts and its test cases' XML, the
/// latest in `body`, the rest (past [`SPILL`] bytes) in a temporary file.
struct Suite {
    name: String,
    tests: u64,
    failures: u64,
    errors: u64,
    time: Duration,
    body: String,
    spilled: Option<std::fs::File>,
}

impl Suite {
    fn new(name: &str) -> Suite {
        Suite {
            name: name.to_owned(),
            tests: 0,
            failures: 0,
            errors: 0,
            time: Duration::ZERO,
            body: String::new(),
            spilled: None,
        }
    }

    /// Moves `body` to the suite's temporary file (made on first use; the
    /// system removes it when it is closed).
    fn spill(&mut self) -> std::io::Result<()> {
        let file = match &mut self.spilled {
            Some(f) => f,
            None => self.spilled.insert(tempfile::tempfile()?),
        };
        file.write_all(self.body.as_bytes())?;
        self.body.clear();
        Ok(())
    }

    /// Writes every test case of the suite into `out`, in order.
    fn write_body(&mut self, out: &mut dyn Write) -> std::io::Result<()> {
        if self.spilled.is_some() {
            self.spill()?;
        }
        if let Some(file) = &mut self.spilled {
            use std::io::{Seek, SeekFrom};
            file.seek(SeekFrom::Start(0))?;
            std::io::copy(file, out)?;
            return Ok(());
        }
        out.write_all(self.body.as_bytes())
    }

    /// Adds a test case.
    fn add(
        &mut self,
        name: &str,
        classname: &str,
        time: Option<Duration>,
        score: Option<f64>,
        problem: Option<&Problem>,
    ) {
        self.tests += 1;
        let b = &mut self.body;
        let _ = write!(
            b,
            "        <testcase name=\"{}\" classname=\"{}\"",
            xml(name, true),
            xml(classname, true)
        );
        if let Some(t) = time {
            self.time = self.time.saturating_add(t);
            let _ = write!(b, " time=\"{}\"", seconds(t));
        }
        if score.is_none() && problem.is_none() {
            b.push_str("/>\n");
            return;
        }
        b.push_str(">\n");
        if let Some(x) = score {
            let _ = writeln!(
                b,
                "            <properties>\n                <property name=\"score\" value=\"{}\"/>\n            </properties>",
                num(x)
            );
        }
        if let Some(p) = problem {
            if p.element == "error" {
                self.errors += 1;
            } else {
                self.failures += 1;
            }
            let _ = write!(
                b,
                "            <{} message=\"{}\" type=\"{}\"",
                p.element,
                xml(&p.message, true),
                p.kind
            );
            match &p.text {
                Some(t) => {
                    let _ = writeln!(b, ">{}</{}>", xml(t, false), p.element);
                }
                None => b.push_str("/>\n"),
            }
        }
        b.push_str("        </testcase>\n");
    }
}

/// Why a row did not pass evaluator `e`, if it did not.
fn problem(e: &EvaluatorSummary, row: &RowResult) -> Option<Problem> {
    match EvalStatus::of(row, &e.name) {
        EvalStatus::Passed => None,
        EvalStatus::Error => {
            let why = row
                .error
                .as_deref()
                .or_else(|| row.execution.get(&e.name).and_then(|x| x.error.as_deref()))
                .unwrap_or("evaluation failed");
            Some(Problem {
                element: "error",
                kind: if row.error.is_some() { "unreadable_row" } else { "evaluation_failed" },
                message: why.to_owned(),
                text: None,
            })
        }
        EvalStatus::Failed => {
            let op = if e.direction == Direction::Minimize { "<=" } else { ">=" };
            let message = format!(
                "{} scored {}, needs {op} {}",
                e.name,
                opt(main_score(row, &e.name)),
                opt(e.threshold)
            );
            let (details, more) = failed_details(row, &e.name);
            let mut text: Vec<String> = details.iter().map(|d| d.line()).collect();
            if more > 0 {
                text.push(format!("+ {more} more"));
            }
            Some(Problem {
                element: "failure",
                kind: "below_threshold",
                message,
                text: (!text.is_empty()).then(|| text.join("\n")),
            })
        }
    }
}

/// A failed gate check as a failure saying what it required and found.
fn gate_failure(c: &GateCheck) -> Option<Problem> {
    if c.passed {
        return None;
    }
    let (required, actual) = (gate_required(c), gate_actual(c));
    Some(Problem {
        element: "failure",
        kind: "gate_check_failed",
        message: format!("{}: required {required}, actual {actual}", c.name),
        text: Some(format!("required: {required}\nactual: {actual}")),
    })
}

/// `secs` seconds as a duration, whatever a damaged or edited summary or
/// result line holds: negative or NaN as zero, past `Duration::MAX` (or
/// infinite) as `Duration::MAX`.
fn duration(secs: f64) -> Duration {
    Duration::try_from_secs_f64(secs.max(0.0)).unwrap_or(Duration::MAX)
}

/// A duration in seconds with three decimals.
fn seconds(t: Duration) -> String {
    format!("{:.3}", t.as_secs_f64())
}

/// `text` escaped for XML 1.0, in an attribute value (`attribute`) or as
/// element text: `&`, `<`, `>` (and `"` in an attribute) as entities; tab,
/// line feed and carriage return kept, written as `&#9;`, `&#10;` and
/// `&#13;` where a parser would change them (in an attribute, all three,
/// which a parser turns into spaces; in text, the carriage return, which
/// it turns into a line feed); every other control character (those XML
/// forbids, with the ones it merely discourages), bidirectional control and
/// the noncharacters U+FFFE and U+FFFF written visibly as an escape
/// (`\u{1b}`), as the other reports and the console show them.
fn xml(text: &str, attribute: bool) -> Cow<'_, str> {
    let plain = |c: char| !matches!(c, '&' | '<' | '>' | '"') && !hidden(c);
    if text.chars().all(plain) {
        return text.into();
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if attribute => out.push_str("&quot;"),
            '\t' | '\n' if attribute => {
                let _ = write!(out, "&#{};", u32::from(c));
            }
            '\t' | '\n' => out.push(c),
            '\r' => out.push_str("&#13;"),
            c if hidden(c) => push_escaped(&mut out, c),
            c => out.push(c),
        }
    }
    out.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_keeps_whitespace_and_shows_what_xml_forbids() {
        let cases = [
            ("a\tb\nc\rd", "a&#9;b&#10;c&#13;d", "a\tb\nc&#13;d"),
            ("<a href=\"x\">&", "&lt;a href=&quot;x&quot;&gt;&amp;", "&lt;a href=\"x\"&gt;&amp;"),
            ("\u{1b}[31mRED\u{0}\u{b}", "\\u{1b}[31mRED\\u{0}\\u{b}", "\\u{1b}[31mRED\\u{0}\\u{b}"),
            ("a\u{ffff}b\u{fffe}", "a\\u{ffff}b\\u{fffe}", "a\\u{ffff}b\\u{fffe}"),
            ("r\u{202e}tl", "r\\u{202e}tl", "r\\u{202e}tl"),
            (
                "\u{fffd}\u{e000}\u{10ffff}é",
                "\u{fffd}\u{e000}\u{10ffff}é",
                "\u{fffd}\u{e000}\u{10ffff}é",
            ),
        ];
        for (text, attribute, element) in cases {
            assert_eq!(xml(text, true), attribute, "{text:?}");
            assert_eq!(xml(text, false), element, "{text:?}");
        }
    }
}
