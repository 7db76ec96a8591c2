//! A finished run read back from its output folder (`summary.json` and
//! `results.jsonl`), so that CI can compare with an artifact of another
//! run without any store.

use std::io::BufRead;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::run_info::RunInfo;
use super::scores::{Cell, EvaluatorScores, FieldAccuracy, RowScores, RunScores};
use crate::score::Direction;

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

/// The evaluators and field accuracies of a `summary.json` value (rows
/// empty).
pub(crate) fn summary_header(summary: &Value) -> RunScores {
    let evaluators = summary["evaluators"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|e| EvaluatorScores {
                    name: e["name"].as_str().unwrap_or_default().to_owned(),
                    metric: e["metric"].as_str().unwrap_or_default().to_owned(),
                    direction: serde_json::from_value(e["direction"].clone())
                        .unwrap_or(Direction::Maximize),
                    mean: e["mean"].as_f64(),
                })
                .collect()
        })
        .unwrap_or_default();
    let fields = summary["fields"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|f| {
                    Some(FieldAccuracy {
                        evaluator: f["evaluator"].as_str()?.to_owned(),
                        path: f["path"].as_str()?.to_owned(),
                        accuracy: f["accuracy"].as_f64()?,
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    RunScores { evaluators, rows: Vec::new(), fields }
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
    let text =
        crate::limits::read_text(&summary_path, crate::limits::MAX_SUMMARY_BYTES).map_err(|e| {
            err(&summary_path, None, format!("{} (is this a refscore output folder?)", e.kind))
        })?;
    let summary: Value = serde_json::from_str(&text)
        .map_err(|e| err(&summary_path, None, format!("not a summary: {e}")))?;
    if !summary["evaluators"].is_array() {
        return Err(err(&summary_path, None, "not a refscore summary: no `evaluators`".to_owned()));
    }
    let info = serde_json::from_value::<RunInfo>(summary["run"].clone()).ok();
    let mut scores = summary_header(&summary);
    let results = dir.join("results.jsonl");
    let file = std::fs::File::open(&results).map_err(|e| err(&results, None, e.to_string()))?;
    let mut n = 0;
    for line in std::io::BufReader::with_capacity(1 << 20, file).lines() {
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
    Ok((scores, info))
}
