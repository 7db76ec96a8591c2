//! Reports of a finished run, rendered from its summary and row results:
//! Markdown for pull requests ([`markdown`]), JUnit XML for CI test tabs
//! ([`junit`]) and one self-contained HTML page ([`html`]).
//!
//! Every renderer reads the [`RunSummary`] and streams the rows once, so a
//! report can be rendered again from an output folder (`summary.json` and
//! `results.jsonl`, read back with [`read_summary`] and [`read_rows`])
//! without evaluating anything. Renderers write to a `&mut dyn Write`; the
//! caller opens the files.

pub mod html;
pub mod junit;
pub mod markdown;
pub mod sides;

mod histogram;
mod text;

use std::collections::BTreeSet;
use std::io::BufRead;
use std::path::{Path, PathBuf};

use crate::runner::{RowResult, Status};
use crate::summary::RunSummary;

pub use sides::Sides;
pub use text::visible;

/// A report format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// Markdown (`report.md`).
    Markdown,
    /// JUnit XML (`junit.xml`).
    Junit,
    /// Self-contained HTML (`report.html`).
    Html,
}

impl Format {
    /// Every format, in the order they are written.
    pub const ALL: [Format; 3] = [Format::Markdown, Format::Junit, Format::Html];

    /// Reads a format name: `md`/`markdown`, `junit`/`xml`, `html`.
    pub fn from_name(name: &str) -> Option<Format> {
        match name.trim().to_ascii_lowercase().as_str() {
            "md" | "markdown" => Some(Format::Markdown),
            "junit" | "xml" => Some(Format::Junit),
            "html" => Some(Format::Html),
            _ => None,
        }
    }

    /// The file the format is written to in an output folder.
    pub fn file_name(self) -> &'static str {
        match self {
            Format::Markdown => "report.md",
            Format::Junit => "junit.xml",
            Format::Html => "report.html",
        }
    }
}

/// How reports are rendered.
#[derive(Debug, Clone)]
pub struct Options {
    /// Markdown: failed rows shown in full, then a `+ N more` line.
    pub max_rows: usize,
    /// Markdown: the most bytes written; the report is cut with a note
    /// before it. GitHub's step summary takes at most 1 MiB.
    pub max_bytes: usize,
    /// HTML: failed rows whose output and reference are embedded for the
    /// side-by-side view.
    pub max_sides: usize,
    /// HTML: failed rows whose failed checks are embedded (the first ones
    /// in the run); later failed rows show their scores only.
    pub max_detail_rows: usize,
}

/// Failed rows shown in a Markdown report by default.
pub const DEFAULT_MAX_ROWS: usize = 50;

/// The largest Markdown report by default: under GitHub's 1 MiB limit for a
/// step summary, with room for what other steps append.
pub const DEFAULT_MAX_BYTES: usize = 900 * 1024;

/// Failed rows with output and reference embedded in the HTML report by
/// default.
pub const DEFAULT_MAX_SIDES: usize = 2_000;

/// Failed rows with their failed checks embedded in the HTML report by
/// default: with [`html::CHECKS_PER_EVALUATOR`], this keeps the report of a
/// 100,000-row run under 30 MB.
pub const DEFAULT_MAX_DETAIL_ROWS: usize = 10_000;

impl Default for Options {
    fn default() -> Self {
        Options {
            max_rows: DEFAULT_MAX_ROWS,
            max_bytes: DEFAULT_MAX_BYTES,
            max_sides: DEFAULT_MAX_SIDES,
            max_detail_rows: DEFAULT_MAX_DETAIL_ROWS,
        }
    }
}

/// A report that could not be rendered.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReportError {
    /// A file of the run could not be read.
    #[error("{}: {message}", file.display())]
    Read {
        /// The file.
        file: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// A line of `results.jsonl` could not be read (longer than
    /// [`crate::limits::MAX_RESULT_LINE_BYTES`], or the read failed).
    #[error("{}:{line}: {message}", file.display())]
    Line {
        /// The file.
        file: PathBuf,
        /// 1-based line number.
        line: u64,
        /// What went wrong.
        message: String,
    },
    /// A line of `results.jsonl` is not a row result.
    #[error("{}:{line}: not a row result: {message}", file.display())]
    Row {
        /// The file.
        file: PathBuf,
        /// 1-based line number.
        line: u64,
        /// What is wrong.
        message: String,
    },
    /// Writing the report failed. (Not a `source`: the message holds the
    /// cause once, however the error is printed.)
    #[error("writing the report: {0}")]
    Write(std::io::Error),
    /// A temporary file the report needed (the JUnit report's test cases
    /// past a few MiB per suite) could not be made or written.
    #[error("a temporary file of the report in {} (set TMPDIR to use another folder): {message}", dir.display())]
    TempFile {
        /// The folder of temporary files.
        dir: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// The HTML template failed (a bug).
    #[error("rendering the HTML template: {0}")]
    Template(String),
}

impl From<std::io::Error> for ReportError {
    fn from(e: std::io::Error) -> Self {
        ReportError::Write(e)
    }
}

/// The rows of a run, each read back or the error that stopped it.
pub type RowIter<'a> = dyn Iterator<Item = Result<RowResult, ReportError>> + 'a;

/// Reads `summary.json` back.
///
/// # Errors
/// The text is not a run summary; the error names `file`.
pub fn read_summary(text: &str, file: &Path) -> Result<RunSummary, ReportError> {
    let read = |message: String| ReportError::Read { file: file.to_path_buf(), message };
    // A summary is a JSON object: anything else is said in those words,
    // not in the deserializer's (`expected struct RunSummary`).
    let first = text.trim_start().chars().next();
    if first.is_some_and(|c| c != '{') && serde_json::from_str::<serde_json::Value>(text).is_ok() {
        return Err(read(String::from("not a run summary: it holds JSON that is not an object")));
    }
    RunSummary::from_json(text).map_err(|e| read(format!("not a run summary: {e}")))
}

/// Reads the lines of `results.jsonl` back, one [`RowResult`] each (blank
/// lines skipped); errors name `file` and the line. `rows` is how many the
/// run's summary counts: read to its end, a file holding another number
/// (a line lost or added) ends with an error saying so.
pub fn read_rows<R: BufRead>(
    reader: R,
    file: &Path,
    rows: u64,
) -> impl Iterator<Item = Result<RowResult, ReportError>> + use<R> {
    let file = file.to_path_buf();
    let mut read = 0u64;
    let mut lines =
        crate::limits::bounded_lines(reader, crate::limits::MAX_RESULT_LINE_BYTES).zip(1u64..);
    std::iter::from_fn(move || {
        loop {
            let Some((line, n)) = lines.next() else {
                if read == rows {
                    return None;
                }
                let message = crate::summary::rows_miscounted(read, rows);
                // Said once; the iterator then ends.
                read = rows;
                return Some(Err(ReportError::Read { file: file.clone(), message }));
            };
            return Some(match line {
                Err(e) => {
                    Err(ReportError::Line { file: file.clone(), line: n, message: e.to_string() })
                }
                Ok(text) if text.trim().is_empty() => continue,
                Ok(text) => {
                    read += 1;
                    serde_json::from_str::<RowResult>(&text).map_err(|e| ReportError::Row {
                        file: file.clone(),
                        line: n,
                        message: e.to_string(),
                    })
                }
            });
        }
    })
}

/// The numbers of the first `max` rows that did not pass (missed a
/// threshold or had an error): the rows worth embedding side by side.
///
/// # Errors
/// A row cannot be read back.
pub fn failed_rows(rows: &mut RowIter<'_>, max: usize) -> Result<BTreeSet<u64>, ReportError> {
    let mut out = BTreeSet::new();
    for row in rows {
        let row = row?;
        if out.len() >= max {
            break;
        }
        if RowStatus::of(&row) != RowStatus::Passed {
            out.insert(row.row);
        }
    }
    Ok(out)
}

/// The title of a run's reports: the suite's name, else `run`.
pub fn title(summary: &RunSummary) -> &str {
    summary.run.as_ref().map_or("run", |r| r.suite.as_str())
}

/// What the report header says of rows whose id an earlier row had:
/// `1 row repeats an earlier row's id`, `3 rows repeat …`.
pub(crate) fn repeated_ids_said(rows: u64) -> String {
    let rows = crate::text::counted(rows, "row repeats", "rows repeat");
    format!("{rows} an earlier row's id")
}

/// Whether the run's baseline ran another version of its suite
/// ([`crate::history::BaselineInfo::suite_changed`]): what both reports
/// note in their baseline section ([`crate::history::SUITE_CHANGED`]).
pub(crate) fn suite_changed(s: &RunSummary) -> bool {
    let baseline = s.comparison.as_ref().and_then(|c| c.baseline.as_ref());
    match (baseline, &s.run) {
        (Some(b), Some(run)) => b.suite_changed(&run.suite, &run.suite_hash),
        _ => false,
    }
}

/// What the report header says about where a run came from, as
/// (label, value) pairs: suite file, dataset, commit, tags, run id, start,
/// version. Empty without `run` information.
pub(crate) fn run_facts(summary: &RunSummary) -> Vec<(&'static str, String)> {
    let Some(r) = &summary.run else { return Vec::new() };
    let mut facts = vec![("suite", r.suite_path.clone()), ("dataset", r.dataset.clone())];
    if let Some(g) = &r.git {
        let mut commit: String = g.commit.chars().take(12).collect();
        if let Some(b) = &g.branch {
            commit.push_str(&format!(" ({b})"));
        }
        if g.dirty {
            commit.push_str(" + uncommitted changes");
        }
        facts.push(("commit", commit));
    }
    if !r.tags.is_empty() {
        let tags: Vec<String> = r.tags.iter().map(|(k, v)| format!("{k}={v}")).collect();
        facts.push(("tags", tags.join(", ")));
    }
    if let Some(id) = r.id {
        facts.push(("run", id.to_string()));
    }
    facts.push(("started", r.started_at.clone()));
    facts.push(("refscore", r.version.clone()));
    facts
}

/// How a row came out, over all evaluators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowStatus {
    /// Every evaluator with a threshold passed.
    Passed,
    /// At least one threshold was missed.
    Failed,
    /// The row could not be read, or an evaluation failed.
    Error,
}

impl RowStatus {
    /// The status of a row.
    pub fn of(row: &RowResult) -> RowStatus {
        if row.error.is_some() || row.execution.values().any(|e| e.status == Status::Failed) {
            RowStatus::Error
        } else if row.passed.values().any(|p| !p) {
            RowStatus::Failed
        } else {
            RowStatus::Passed
        }
    }

    /// `passed`, `failed` or `error`.
    pub fn as_str(self) -> &'static str {
        match self {
            RowStatus::Passed => "passed",
            RowStatus::Failed => "failed",
            RowStatus::Error => "error",
        }
    }
}

/// What one evaluator came to on one row, as reports show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EvalStatus {
    /// Passed its threshold, or completed without one.
    Passed,
    /// Missed its threshold.
    Failed,
    /// The evaluation failed, or the row could not be read.
    Error,
}

impl EvalStatus {
    /// The status of evaluator `name` on a row.
    pub fn of(row: &RowResult, name: &str) -> EvalStatus {
        if row.error.is_some() {
            return EvalStatus::Error;
        }
        match row.execution.get(name) {
            Some(e) if e.status == Status::Failed => EvalStatus::Error,
            _ if row.passed.get(name) == Some(&false) => EvalStatus::Failed,
            _ => EvalStatus::Passed,
        }
    }
}

/// The main score of evaluator `name` on a row.
pub fn main_score(row: &RowResult, name: &str) -> Option<f64> {
    match row.metric_results.get(name) {
        Some(m) => m.score,
        None => row.scores.iter().find(|s| s.name == name).and_then(|s| s.score),
    }
}

/// The failed details of evaluator `name` on a row (from `metric_results`,
/// else from its scores), and how many more were not listed.
pub fn failed_details<'r>(row: &'r RowResult, name: &str) -> (Vec<&'r crate::Detail>, u64) {
    if let Some(m) = row.metric_results.get(name) {
        let (listed, more) = m.listed();
        return (listed.iter().collect(), more);
    }
    let prefix = format!("{name}.");
    let details = row
        .scores
        .iter()
        .filter(|s| s.name == name || s.name.starts_with(&prefix))
        .flat_map(|s| s.details.iter())
        .filter(|d| !d.passed)
        .collect();
    (details, 0)
}

#[cfg(test)]
pub(crate) mod tests;
