//! A finished run read back from its output folder (`summary.json` and
//! `results.jsonl`), so that CI can compare with an artifact of another
//! run without any store.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::run_info::RunInfo;
use super::scores::{Cell, EvaluatorScores, RowScores, RunScores};
use crate::summary::RunSummary;

/// An output folder that cannot be read as a run.
#[derive(Debug, thiserror::Error)]
#[error("{}{}: {message}", path.display(), line.map(|l| format!(":{l}")).unwrap_or_default())]
pub struct FolderError {
    /// The file.
    pub path: PathBuf,
    /// The line, for `results.jsonl`.
    pub line: Option<u64>,
    /// What is wrong.
    pub message: String,
}

/// A run's `summary.json` text read as a baseline, as strictly as
/// `report` reads it: a summary it could not render is no baseline either.
///
/// # Errors
/// The text is not a run summary (not JSON, a member missing or of another
/// type), lists no evaluator, or gives an evaluator scores without a mean.
pub(crate) fn baseline_summary(text: &str) -> Result<RunSummary, String> {
    let summary = RunSummary::from_json(text).map_err(|e| format!("not a summary: {e}"))?;
    if summary.evaluators.is_empty() {
        return Err("not a summary: it lists no evaluator".to_owned());
    }
    if let Some(e) = summary.evaluators.iter().find(|e| e.count > 0 && e.mean.is_none()) {
        return Err(format!(
            "not a summary: evaluator `{}` counts {} scores but has no mean",
            e.name, e.count
        ));
    }
    Ok(summary)
}

/// The cells of one `results.jsonl` line, one per evaluator.
pub(crate) fn line_cells(line: &Value, evaluators: &[EvaluatorScores]) -> Vec<Cell> {
    if line.get("error").is_some_and(|e| !e.is_null()) {
        return vec![Cell::Failed; evaluators.len()];
    }
    let scores = line["scores"].as_array();
    evaluators
        .iter()
        .map(|e| {
            if line["execution"][&e.name]["status"].as_str() == Some("failed") {
                return Cell::Failed;
            }
            let main = scores.and_then(|s| s.iter().find(|s| s["name"].as_str() == Some(&e.name)));
            match main {
                Some(s) => Cell::completed(s["score"].as_f64(), s["label"].as_str()),
                None => Cell::Failed,
            }
        })
        .collect()
}

/// Reads a run from an output folder: the comparison's view of it, and
/// where it came from when its summary says.
///
/// # Errors
/// A file is missing or is not what `refscore run` writes.
pub fn read_folder(dir: &Path) -> Result<(RunScores, Option<RunInfo>), FolderError> {
    let summary_path = dir.join("summary.json");
    let err = |path: &Path, line: Option<u64>, message: String| FolderError {
        path: path.to_path_buf(),
        line,
        message,
    };
    let text = crate::limits::read_regular_text(&summary_path, crate::limits::MAX_SUMMARY_BYTES)
        .map_err(|e| {
            err(&summary_path, None, format!("{} (is this a refscore output folder?)", e.kind))
        })?;
    let summary = baseline_summary(&text).map_err(|m| err(&summary_path, None, m))?;
    // As a stored run: a cancelled run covers only the rows it reached,
    // and the rows it never reached would count as new, unchecked.
    if summary.cancelled {
        return Err(err(
            &summary_path,
            None,
            format!(
                "the run was cancelled after {}: {}",
                crate::text::counted(summary.rows, "row", "rows"),
                super::ONLY_COMPLETED
            ),
        ));
    }
    let rows_counted = summary.rows;
    let mut scores = summary.scores(Vec::new());
    let results = dir.join("results.jsonl");
    let file =
        crate::limits::open_regular(&results).map_err(|e| err(&results, None, e.to_string()))?;
    let mut n = 0;
    let reader = std::io::BufReader::with_capacity(1 << 20, file);
    for line in crate::limits::bounded_lines(reader, crate::limits::MAX_RESULT_LINE_BYTES) {
        n += 1;
        let line = line.map_err(|e| err(&results, Some(n), e.to_string()))?;
        if line.trim().is_empty() {
            continue;
        }
        let v: Value =
            serde_json::from_str(&line).map_err(|e| err(&results, Some(n), e.to_string()))?;
        let id = match &v["id"] {
            Value::String(s) => s.clone(),
            Value::Null => return Err(err(&results, Some(n), "no `id`".to_owned())),
            other => other.to_string(),
        };
        let cells = line_cells(&v, &scores.evaluators);
        scores.rows.push(RowScores { id, cells });
    }
    // A line lost or added would pair the others wrongly, or leave rows
    // out of the comparison unsaid (`report` refuses the same folder).
    if rows_counted != scores.rows.len() as u64 {
        return Err(err(
            &results,
            None,
            crate::summary::rows_miscounted(scores.rows.len() as u64, rows_counted),
        ));
    }
    Ok((scores, summary.run))
}
