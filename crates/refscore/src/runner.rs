//! Running a suite over its dataset: rows are read in batches and
//! evaluated in parallel, results come back in input order.
//!
//! A failing evaluator (error, missing input, panic) never stops the run:
//! it is recorded in the row's execution details. A row that cannot be
//! read gives a result with an `error`. Reading the next batch overlaps
//! with evaluating the current one.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::dataset::{self, DatasetError, Pending, Rows};
use crate::history::{RowRecord, RowScores};
use crate::metric_result::{DEFAULT_MAX_DETAILS, MetricResult};
use crate::score::Score;
use crate::suite::{Suite, SuiteEvaluator};
use crate::summary::{Collector, FieldStats, RunSummary};

mod ahead;
mod batches;
mod evaluate_row;
mod pool;
mod recording;
mod result_line;
mod standing;
mod warnings;

use ahead::Ahead;
use batches::{Batches, CHUNK_ROWS, READ_AHEAD_BYTES, SLOW_BATCH, Source, Weighed, chunk_weight};
use evaluate_row::{Evaluated, evaluate_item, fast_reader_columns};
pub use pool::{MAX_THREADS, WORKER_STACK, worker_pool};
pub use recording::{BatchRecord, BatchSink, PriorBatch, RecordedRun, Recording, Resume};
use standing::Standing;
pub use warnings::{EvaluatorWarnings, RunWarnings, WarningScope};

/// Rows read and evaluated together (fewer when an evaluator asks an LLM).
pub const BATCH_ROWS: usize = 1024;

/// Rows per worker in a batch when an evaluator asks an LLM: such a row
/// takes seconds, and a batch's lines are written when its last row is
/// done, so smaller batches keep lines and the run store moving (a worker
/// idles about half a row at the end of each batch: a few per cent).
const LLM_ROWS_PER_WORKER: usize = 16;

/// Stack size of the thread that reads rows (CSV and JSON-array readers
/// parse as they read).
const READER_STACK: usize = 16 * 1024 * 1024;

/// How to run a suite.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Worker threads; `None`: one per core.
    pub threads: Option<usize>,
    /// Set to stop the run: the rows of the current batch not yet begun,
    /// and those whose evaluation failed while the stop was asked for (a
    /// judge request given up), are skipped; the rows before the first
    /// skipped one are written and recorded, and the run ends as cancelled
    /// (a resume goes on from the first row not written).
    pub cancel: Arc<AtomicBool>,
    /// Read at most this many rows (unreadable ones included).
    pub limit: Option<u64>,
    /// Keep passed details in the row results (they always count in the
    /// field statistics).
    pub keep_passed_details: bool,
    /// What each row's serialised line holds.
    pub lines: LineFormat,
    /// Failed details listed per evaluator in a row's `metric_results`;
    /// `None`: [`crate::metric_result::DEFAULT_MAX_DETAILS`].
    pub max_details: Option<usize>,
    /// Read every JSONL row with `serde_json` into a value, never with the
    /// fast reader ([`crate::fast_json`]). The results are the same; this
    /// is for comparing the two.
    pub value_reader: bool,
    /// Workers started beforehand with [`start_workers`] (a caller that
    /// must know they start before it writes anything); `None`: the run
    /// starts them from `threads`.
    pub workers: Option<Arc<rayon::ThreadPool>>,
}

/// What the line handed to the row callback holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LineFormat {
    /// The whole [`RowResult`] (a line of `results.jsonl`).
    #[default]
    RowResult,
    /// One line per score, each the [`Score`] with the row's `id` first;
    /// a row that could not be read, or an evaluation that failed, gives
    /// an `invalid` score saying why (`compare --pairs`).
    Scores,
}

/// Whether an evaluation completed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// The evaluator returned its scores.
    Completed,
    /// It returned an error, its inputs could not be mapped, or it panicked.
    Failed,
}

/// How one evaluator's run on one row went.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Execution {
    /// Completed or failed.
    pub status: Status,
    /// Time spent, in milliseconds.
    pub duration_ms: f64,
    /// Why it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// How string inputs were decoded into JSON (input → decision), for
    /// JSON metrics given text; also inputs whose JSON repeated keys
    /// (`duplicate_keys`), values included.
    #[serde(default, skip_serializing_if = "serde_json::Map::is_empty")]
    pub decode: serde_json::Map<String, Value>,
}

/// The result of one row (one line of `results.jsonl`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RowResult {
    /// The row's id: the id column's value, else the line/record number.
    pub id: String,
    /// 1-based line (JSONL) or record number.
    pub row: u64,
    /// The scores of every evaluator; each evaluator's main score carries
    /// the evaluator's name, its other scores `<evaluator>.<score>`.
    pub scores: Vec<Score>,
    /// Per evaluator: status, duration and error.
    pub execution: BTreeMap<String, Execution>,
    /// Per evaluator with a threshold: whether the row passed it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub passed: BTreeMap<String, bool>,
    /// Weighted average of the evaluators' main scores that are
    /// similarities in [0, 1] (see [`crate::row_score`]); `None` if none is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub row_score: Option<f64>,
    /// Why the row could not be read (`file:line: message`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Per evaluator: its main score, whether the row passed, and its
    /// failed details (at most `max_details`, then one `+ N more` entry).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub metric_results: BTreeMap<String, MetricResult>,
}

/// Progress after a batch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Progress {
    /// Rows read and evaluated so far (a resumed run's include those
    /// recorded before it: [`Progress::rows_resumed`]).
    pub rows_done: u64,
    /// Of `rows_done`, the rows a resumed run found recorded: not
    /// evaluated in `elapsed`, so no part of its rate.
    pub rows_resumed: u64,
    /// Of these, rows unreadable or with a failed evaluation.
    pub rows_failed: u64,
    /// Time since the start.
    pub elapsed: Duration,
    /// Share of the dataset file read so far, where it can be known.
    pub fraction_read: Option<f64>,
}

/// A run that could not go on.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// The dataset cannot be opened.
    #[error(transparent)]
    Dataset(#[from] DatasetError),
    /// The row callback failed (writing results).
    #[error("writing results: {0}")]
    Output(#[from] std::io::Error),
    /// The worker threads could not be started.
    #[error("starting worker threads: {0}")]
    Threads(String),
    /// The batch sink (the run store) failed.
    #[error("recording the run: {0}")]
    Record(String),
    /// The stored part of a resumed run cannot be read back.
    #[error("resuming the run: {0}")]
    Resume(String),
}

/// Runs a suite: every row through every evaluator.
///
/// `on_row` receives each row's result in input order, with the result
/// already serialised as one line of JSON (passed details removed unless
/// `keep_passed_details`); `on_progress` is
/// called after each batch. Setting `opts.cancel` stops the run after the
/// current batch; the summary then says `cancelled: true`.
///
/// # Errors
/// The dataset cannot be opened, the worker threads cannot start, or
/// `on_row` fails.
pub fn run(
    suite: &Suite,
    opts: &RunOptions,
    on_row: &mut dyn FnMut(&RowResult, &str) -> std::io::Result<()>,
    on_progress: &(dyn Fn(&Progress) + Sync),
) -> Result<RunSummary, RunError> {
    let rows = dataset::open(&suite.dataset, suite.format)?;
    run_rows(suite, rows, opts, on_row, on_progress)
}

/// Runs a suite over rows already opened (a stream, say) instead of its
/// dataset file; otherwise as [`run`].
///
/// # Errors
/// The worker threads cannot start, or `on_row` fails.
pub fn run_rows(
    suite: &Suite,
    rows: Rows,
    opts: &RunOptions,
    on_row: &mut dyn FnMut(&RowResult, &str) -> std::io::Result<()>,
    on_progress: &(dyn Fn(&Progress) + Sync),
) -> Result<RunSummary, RunError> {
    run_recorded(suite, rows, opts, on_row, on_progress, Recording::default()).map(|r| r.summary)
}

/// Runs a suite over rows, handing each batch to `recording.sink` and,
/// when `recording.resume` is set, continuing an interrupted run: its
/// recorded batches are replayed into the summary (not handed to
/// `on_row`) and as many rows skipped in `rows`. Otherwise as [`run`].
///
/// Gives the summary and the warnings that only a whole run reveals
/// ([`RunWarnings`]): each recorded batch keeps those standing after it,
/// so that a resumed run gives them over every row, as an uninterrupted
/// one does, where the evaluators' own [`crate::Evaluator::warnings`]
/// only know the rows evaluated since the resume.
///
/// # Errors
/// The worker threads cannot start, `on_row` or the sink fails, or the
/// recorded batches cannot be read.
pub fn run_recorded(
    suite: &Suite,
    mut rows: Rows,
    opts: &RunOptions,
    on_row: &mut dyn FnMut(&RowResult, &str) -> std::io::Result<()>,
    on_progress: &(dyn Fn(&Progress) + Sync),
    recording: Recording<'_>,
) -> Result<RecordedRun, RunError> {
    let Recording { mut sink, resume } = recording;
    let start = Instant::now();
    let pool = match &opts.workers {
        Some(pool) => Arc::clone(pool),
        None => start_workers(suite, opts.threads)?,
    };
    let batch_rows = batch_rows(suite, pool.current_num_threads());
    let mut collector = Collector::new(
        suite
            .evaluators
            .iter()
            .map(|e| (e.name.clone(), e.metric.clone(), e.direction(), e.threshold))
            .collect(),
    );
    let mut remaining = opts.limit;
    let mut next_index: u64 = 0;
    let mut standing = Standing::new();
    if let Some(resume) = resume {
        for prior in resume.batches {
            let prior = prior.map_err(RunError::Resume)?;
            collector.fields(FieldStats::from_snapshot(&prior.fields).map_err(RunError::Resume)?);
            standing.replayed(&prior.fields);
            for r in &prior.records {
                record(&mut collector, r);
            }
            next_index += prior.records.len() as u64;
        }
        for _ in 0..next_index {
            if rows.next_pending().is_none() {
                return Err(RunError::Resume(format!(
                    "the dataset has fewer rows than the {next_index} already recorded"
                )));
            }
        }
        if let Some(r) = &mut remaining {
            *r = r.saturating_sub(next_index);
        }
    }
    let resumed_rows = next_index;
    let progress = rows.progress();
    let fast_columns = (!opts.value_reader).then(|| fast_reader_columns(suite)).flatten();
    // Rows are read on a thread of their own, handed on in chunks up to two
    // batches ahead of the workers (reading overlaps evaluation even with
    // one worker), in rows and in bytes. The run does not wait for it once
    // stopped: a stream (a pipe, standard input) may hold it in a read for
    // as long as its writer is silent; it ends when that read returns.
    let chunk_rows = CHUNK_ROWS.min(batch_rows);
    let (tx, rx) =
        std::sync::mpsc::sync_channel::<Vec<Weighed>>((2 * batch_rows).div_ceil(chunk_rows).max(2));
    let slow = rows.is_stream().then_some(SLOW_BATCH);
    let mut source = Source { rows, remaining, file: suite.dataset.clone(), read: next_index };
    let ahead = Arc::new(Ahead::new(READ_AHEAD_BYTES));
    let reader_ahead = Arc::clone(&ahead);
    let reader = std::thread::Builder::new()
        .name(String::from("refscore-read"))
        .stack_size(READER_STACK)
        .spawn(move || {
            loop {
                let chunk = source.chunk(chunk_rows);
                let last = chunk.is_empty();
                if !reader_ahead.hold(chunk_weight(&chunk)) {
                    drop_chunk(chunk);
                    break;
                }
                if let Err(unsent) = tx.send(chunk) {
                    drop_chunk(unsent.0);
                    break;
                }
                if last {
                    break;
                }
            }
        })
        .map_err(|e| RunError::Threads(e.to_string()))?;
    let min_rows = pool.current_num_threads();
    let mut batches = Batches { rx, rows: batch_rows, min_rows, slow, left: Vec::new(), ahead };
    let cancelled = {
        let mut cancelled = false;
        let mut evaluate_batches = || -> Result<(), RunError> {
            while let Some(current) = batches.next(&opts.cancel) {
                if opts.cancel.load(Ordering::Relaxed) {
                    cancelled = true;
                    pool.install(|| current.into_par_iter().for_each(drop_item));
                    break;
                }
                let keep_passed = opts.keep_passed_details;
                // Score lines carry no `metric_results`: none are built.
                let max_details = (opts.lines == LineFormat::RowResult)
                    .then(|| opts.max_details.unwrap_or(DEFAULT_MAX_DETAILS));
                let format = opts.lines;
                let fast = fast_columns.as_ref();
                let stop = &opts.cancel;
                let (mut evaluated, records, fields, stopped) = pool.install(|| {
                    // Evaluation, field statistics and serialisation all run
                    // on the workers; this thread only writes. A stop asked
                    // for during the batch skips the rows not yet begun: the
                    // rows before the first skipped one are kept, the others
                    // are left to a resume.
                    let mut evaluated: Vec<Option<Evaluated>> = current
                        .into_par_iter()
                        .map(|item| {
                            if stop.load(Ordering::Relaxed) {
                                drop_item(item);
                                return None;
                            }
                            let ev = evaluate_item(suite, item, max_details, fast);
                            // A row that failed while the stop was asked for
                            // failed because of it (its judge requests were
                            // given up): it is left to a resume, which asks
                            // again, like the rows not begun.
                            if stop.load(Ordering::Relaxed) && !ev.unreadable && ev.failed() {
                                return None;
                            }
                            Some(ev)
                        })
                        .collect();
                    let kept = evaluated.iter().position(Option::is_none);
                    let skipped = kept.map_or_else(Vec::new, |at| evaluated.split_off(at));
                    skipped.into_par_iter().for_each(drop);
                    let stopped = kept.is_some();
                    // Every row left is `Some`: taken in place (one
                    // allocation per batch, not a vector grown row by row).
                    let mut evaluated: Vec<Evaluated> =
                        evaluated.into_iter().map_while(|ev| ev).collect();
                    let fields = evaluated
                        .par_iter()
                        .fold(FieldStats::default, |mut acc, ev| {
                            add_fields(&mut acc, ev);
                            acc
                        })
                        .reduce(FieldStats::default, |mut a, b| {
                            a.merge(b);
                            a
                        });
                    // Each row's line and record, made on the workers; the
                    // records come back in row order, one allocation.
                    let records: Vec<RowRecord> = evaluated
                        .par_iter_mut()
                        .map(|ev| {
                            if !keep_passed {
                                for s in &mut ev.result.scores {
                                    s.details.retain(|d| !d.passed);
                                }
                            }
                            ev.line = match format {
                                LineFormat::RowResult => result_line::result_line(&ev.result),
                                LineFormat::Scores => score_lines(suite, &ev.result),
                            };
                            row_record(ev)
                        })
                        .collect();
                    (evaluated, records, fields, stopped)
                });
                let snapshot = if sink.is_some() { fields.to_snapshot() } else { String::new() };
                collector.fields(fields);
                for (ev, r) in evaluated.iter().zip(&records) {
                    record(&mut collector, r);
                    on_row(&ev.result, &ev.line).map_err(RunError::Output)?;
                }
                let first = next_index;
                next_index += records.len() as u64;
                standing.scored(records.len() as u64);
                // A stop before the batch's first row leaves nothing to
                // record: an empty batch would hold the next one's `first`,
                // and the resumed run could not record that one.
                if let Some(sink) = sink.as_deref_mut().filter(|_| !records.is_empty()) {
                    let lines: Vec<String> =
                        evaluated.iter_mut().map(|ev| std::mem::take(&mut ev.line)).collect();
                    // The batch's rows are evaluated: the evaluators'
                    // warnings are those of every row up to its last.
                    let fields = standing.record(suite, snapshot);
                    let b = BatchRecord { first, records, lines, fields };
                    sink.batch(b).map_err(RunError::Record)?;
                }
                // Freed where it was made: the allocator frees fastest on the
                // thread that allocated.
                pool.install(|| evaluated.into_par_iter().for_each(drop));
                let (rows_done, rows_failed) = collector.progress();
                on_progress(&Progress {
                    rows_done,
                    rows_resumed: resumed_rows,
                    rows_failed,
                    elapsed: start.elapsed(),
                    fraction_read: progress.fraction_read(),
                });
                if stopped {
                    cancelled = true;
                    break;
                }
            }
            Ok(())
        };
        let result = evaluate_batches();
        // Rows read ahead are freed without deep recursion; dropping the
        // receiver then stops the reader.
        drop_chunk(std::mem::take(&mut batches.left));
        for chunk in batches.rx.try_iter() {
            drop_chunk(chunk);
        }
        drop(batches);
        // A reader that sent its last batch is done (or about to be).
        if result.is_ok() && !cancelled && !opts.cancel.load(Ordering::Relaxed) {
            let _ = reader.join();
        }
        result.map(|()| cancelled)?
    };
    // A stop asked for during the last batch (its judge requests then
    // failed as cancelled) is a cancelled run too.
    let cancelled = cancelled || opts.cancel.load(Ordering::Relaxed);
    let summary = collector.finish(
        cancelled,
        start.elapsed().as_secs_f64(),
        &suite.gate,
        suite.judges.usage(),
    );
    Ok(RecordedRun { summary, warnings: standing.finish(suite) })
}

/// The [`LineFormat::Scores`] lines of a row, written into one buffer:
/// each score's JSON with the row's `id` as its first member.
fn score_lines(suite: &Suite, r: &RowResult) -> String {
    let mut out = String::with_capacity(1024);
    let mut write = |s: &Score| {
        if !out.is_empty() {
            out.push('\n');
        }
        crate::score_line::write_score(&mut out, Some(&r.id), s);
    };
    let invalid = |ev: &SuiteEvaluator, why: String| {
        Score::invalid(ev.name.clone(), why).with_direction(ev.direction()).with_meta("line", r.row)
    };
    if let Some(e) = &r.error {
        // The error names the file and line already.
        for ev in &suite.evaluators {
            write(&invalid(ev, e.clone()));
        }
    }
    for ev in &suite.evaluators {
        if let Some(Execution { error: Some(e), .. }) = r.execution.get(&ev.name) {
            write(&invalid(ev, format!("line {}: {e}", r.row)));
        }
    }
    r.scores.iter().for_each(&mut write);
    out
}

/// Starts the worker threads of a run of `suite`: [`worker_count`] of
/// them.
///
/// # Errors
/// [`RunError::Threads`]: too many asked for, or they cannot start (an
/// address-space limit too small for their stacks).
pub fn start_workers(
    suite: &Suite,
    threads: Option<usize>,
) -> Result<Arc<rayon::ThreadPool>, RunError> {
    // More than the bound is refused whatever the suite would start.
    let n = threads.filter(|&t| t > MAX_THREADS).unwrap_or_else(|| worker_count(suite, threads));
    worker_pool(n, "refscore").map(Arc::new).map_err(RunError::Threads)
}

/// The workers a run of `suite` starts for `threads` asked (`None`: the
/// default): [`workers_for`], with the judges' requests in flight when an
/// evaluator asks an LLM.
pub fn worker_count(suite: &Suite, threads: Option<usize>) -> usize {
    let in_flight = if asks_llm(suite) { suite.judges.concurrency().max(1) } else { 0 };
    workers_for(threads, in_flight)
}

/// The workers for `threads` asked (`None`: the default) when the
/// evaluators keep up to `in_flight` judge requests in flight (0: none
/// asks an LLM). `Some(0)` gives 0, which [`worker_pool`] reads as one
/// per core (or `RAYON_NUM_THREADS`).
///
/// Workers that ask an LLM mostly wait on the network: they get what is
/// asked, by default one per core or as many as the requests in flight.
/// Other work is all computation: at most one worker per core, by default
/// one per core. Workers past the core count only add switching and
/// memory there (1,024 workers on 2 cores spent 35 times the CPU time of
/// 2 on the same rows, with 2.9 GB resident).
pub fn workers_for(threads: Option<usize>, in_flight: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    match threads {
        None => cores.max(in_flight),
        Some(t) if in_flight == 0 => t.min(cores),
        Some(t) => t,
    }
}

/// Whether an evaluator of the suite asks an LLM.
fn asks_llm(suite: &Suite) -> bool {
    suite.evaluators.iter().any(|e| e.evaluator.kind() == crate::score::Kind::Llm)
}

/// Rows read and evaluated together: [`BATCH_ROWS`], or
/// [`LLM_ROWS_PER_WORKER`] per worker when an evaluator asks an LLM.
fn batch_rows(suite: &Suite, workers: usize) -> usize {
    if asks_llm(suite) {
        workers.max(1).saturating_mul(LLM_ROWS_PER_WORKER).min(BATCH_ROWS)
    } else {
        BATCH_ROWS
    }
}

/// What the summary needs of an evaluated row.
fn row_record(ev: &Evaluated) -> RowRecord {
    let mut extra = Vec::new();
    for (i, (_, range)) in ev.outcomes.iter().enumerate() {
        // The first score of an evaluator is its main one; the others are
        // summarised by name.
        for s in ev.result.scores.get(range.clone()).unwrap_or(&[]).iter().skip(1) {
            if let Some(x) = s.score {
                extra.push((u32::try_from(i).unwrap_or(u32::MAX), s.name.clone(), x));
            }
        }
    }
    RowRecord {
        scores: RowScores {
            id: ev.result.id.clone(),
            cells: ev.outcomes.iter().map(|(o, _)| *o).collect(),
        },
        row_score: ev.result.row_score,
        extra,
        unreadable: ev.unreadable,
    }
}

/// Feeds one row into the summary.
fn record(collector: &mut Collector, r: &RowRecord) {
    collector.id(&r.scores.id);
    if r.unreadable {
        collector.unreadable();
        return;
    }
    collector.row(&r.scores.cells);
    for (i, name, x) in &r.extra {
        collector.extra_score(*i as usize, name, *x);
    }
    if let Some(x) = r.row_score {
        collector.row_score(x);
    }
}

/// Feeds one row's per-field tallies into field statistics.
fn add_fields(acc: &mut FieldStats, ev: &Evaluated) {
    for (i, tallies) in ev.tallies.iter().enumerate() {
        acc.add_tallies(i, ev.result.row, &ev.result.id, tallies);
    }
}

/// Frees rows read ahead (see [`drop_item`]).
fn drop_chunk(chunk: Vec<Weighed>) {
    chunk.into_iter().for_each(|(item, _)| drop_item(item));
}

fn drop_item(item: Pending) {
    if let Pending::Ready(Ok(row)) = item {
        crate::json::drop_deep(row.value);
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod stream_tests;
