//! `refscore compare --pairs`: every line of a JSONL file through the
//! runner (parallel, in order, panic-isolated, memory flat), one JSON score
//! per line.

use std::io::{BufWriter, Write};
use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use refscore::dataset::{self, DatasetFormat};
use refscore::mapping::InputMapping;
use refscore::runner::{self, LineFormat, RowResult, RunOptions};
use refscore::suite::{Suite, SuiteEvaluator};
use refscore::{Evaluator, Gate};

/// Scores every pair of `path` (`-`: standard input) with `metric`.
///
/// Exit codes: 0 when every pair was scored, 1 when a line could not be
/// read, an evaluation failed or gave an `invalid` score (its line says
/// why), or there was nothing to score, 2 for usage and I/O errors.
pub(crate) fn run(
    metric: Box<dyn Evaluator>,
    metric_name: &str,
    path: &Path,
    threads: Option<usize>,
    all_details: bool,
    value_reader: bool,
) -> anyhow::Result<ExitCode> {
    let stdin = path.as_os_str() == "-";
    let shown = if stdin { Path::new("<stdin>") } else { path };
    let rows = if stdin {
        dataset::from_reader(shown, Box::new(std::io::stdin()), DatasetFormat::Jsonl)?
    } else {
        dataset::open(path, Some(DatasetFormat::Jsonl))
            .with_context(|| format!("opening {}", path.display()))?
    };
    let suite = Suite {
        path: shown.to_path_buf(),
        name: None,
        dataset: shown.to_path_buf(),
        format: Some(DatasetFormat::Jsonl),
        id_column: Some(String::from("id")),
        evaluators: vec![SuiteEvaluator {
            name: metric.name().to_owned(),
            metric: metric_name.to_owned(),
            evaluator: metric,
            mapping: InputMapping::new(),
            threshold: None,
            weight: 1.0,
        }],
        // Any unreadable line or failed evaluation fails the command.
        gate: Gate { max_failed_rows: Some(0), ..Gate::default() },
        judges: std::sync::Arc::default(),
        regression: refscore::history::RegressionPolicy::default(),
        tags: std::collections::BTreeMap::new(),
        links: std::collections::BTreeMap::new(),
        config_files: Vec::new(),
    };
    crate::run::note_workers(threads, refscore::runner::worker_count(&suite, threads));
    let opts = RunOptions {
        threads,
        keep_passed_details: all_details,
        lines: LineFormat::Scores,
        max_details: None,
        value_reader,
        ..RunOptions::default()
    };
    let out = std::sync::Mutex::new(BufWriter::with_capacity(1 << 20, std::io::stdout()));
    let lines = || out.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    // Whether a line given out was not scored: a reader that stops early
    // (`| head -1`) must not turn that into a success.
    let mut told_unscored = false;
    let mut on_row = |row: &RowResult, line: &str| -> std::io::Result<()> {
        let unscored = row.error.is_some()
            || row.execution.values().any(|x| x.error.is_some())
            || row.scores.iter().any(refscore::Score::is_invalid);
        let mut out = lines();
        out.write_all(line.as_bytes())?;
        out.write_all(b"\n")?;
        told_unscored |= unscored;
        Ok(())
    };
    // Each batch's lines go out once it is done: pairs piped in from a
    // program still writing are answered as they come. A write error here
    // shows again at the last flush, which reports it.
    let on_batch = |_: &runner::Progress| {
        let _ = lines().flush();
    };
    let ran = runner::run_rows(&suite, rows, &opts, &mut on_row, &on_batch)
        .map_err(anyhow::Error::from)
        .and_then(|summary| Ok(lines().flush().map(|()| summary)?));
    let summary = match ran {
        Ok(summary) => summary,
        // The reader went away (`| head -1`) after a line that was not
        // scored: the command failed, whatever it could not write after.
        Err(e) if told_unscored && crate::is_broken_pipe(&e) => return Ok(ExitCode::from(1)),
        Err(e) => return Err(e),
    };
    drop(out);
    let mut err = std::io::stderr().lock();
    for e in &suite.evaluators {
        for w in e.evaluator.warnings() {
            writeln!(err, "warning: {}", crate::table::printable(&w))?;
        }
    }
    // As for one pair: a pair whose score is `invalid` (an output that is
    // not JSON, say) was not scored.
    let invalid = summary.evaluators.first().map_or(0, |e| e.invalid);
    let not_scored = summary.rows_unreadable + summary.rows_with_failures + invalid;
    if summary.rows == 0 {
        writeln!(err, "refscore: {}: no pairs to compare", shown.display())?;
    } else if not_scored > 0 {
        writeln!(
            err,
            "refscore: {not_scored} of {} line(s) could not be scored (see their `invalid` scores and errors)",
            summary.rows
        )?;
    }
    Ok(if summary.gate.passed && invalid == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
