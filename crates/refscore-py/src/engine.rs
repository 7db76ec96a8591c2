//! Evaluating many rows with Rust evaluators on Rust threads.
//!
//! Rows are evaluated in parallel on a rayon pool with the interpreter
//! released; a failing evaluation (an error, an input that cannot be
//! mapped, a panic) is recorded for its row and the others go on.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use rayon::prelude::*;
use refscore::{Evaluator, InputMapping, InputSpec, MappingError, Row, Score};
use serde_json::Value;

/// Stack that must be left for work on the caller's thread to run on it;
/// with less (a Python thread started after `threading.stack_size(256 KiB)`,
/// or deep inside recursive Python code) the work runs on a fresh stack.
/// The library's own guards grow the stack by small steps only, which a
/// small thread stack does not survive.
const RED_ZONE: usize = 1024 * 1024;

/// Runs `f` on the calling thread with at least [`RED_ZONE`] bytes of stack,
/// switching to a fresh stack of the size the worker threads get when the
/// thread's own is shorter. Every entry point that does Rust work on the
/// caller's (Python) thread goes through here.
pub(crate) fn on_big_stack<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(RED_ZONE, refscore::runner::WORKER_STACK, f)
}

/// An evaluator with its name and input mapping: what one column of
/// results comes from.
#[derive(Clone)]
pub(crate) struct Bound {
    /// The evaluator's name (the name of its main score).
    pub(crate) name: String,
    /// The built metric.
    pub(crate) evaluator: Arc<dyn Evaluator>,
    /// Requests its judges keep in flight at most (0: it asks no LLM).
    pub(crate) concurrency: usize,
    /// Where its inputs come from.
    pub(crate) mapping: InputMapping,
    /// Its judges' cancel flag: set, they stop sending.
    pub(crate) cancel: Arc<AtomicBool>,
}

/// How one evaluator's run on one row went.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Outcome {
    /// Its scores: the main one first, named after the evaluator, the
    /// others `<evaluator>.<score>`.
    pub(crate) scores: Vec<Score>,
    /// Why it failed, if it did.
    pub(crate) error: Option<String>,
    /// Time spent, in milliseconds.
    pub(crate) duration_ms: f64,
}

/// Every column name of a frame or batch (or key of a row) as a row of
/// nulls: what a mapping error lists, where only the columns the
/// evaluators read were converted ([`listing_all`]).
pub(crate) fn names_row(names: Vec<String>) -> Row {
    let value = Value::Object(names.into_iter().map(|n| (n, Value::Null)).collect());
    Row { number: 0, value, text_cells: false }
}

/// `e`, the error of an input of `specs` that `mapping` could not find in
/// a row holding only the columns converted, listing instead the columns
/// of `all` ([`names_row`]: every column of the frame): the input that
/// failed is looked up again there. As the CLI lists a row's columns.
pub(crate) fn listing_all(
    mapping: &InputMapping,
    specs: &[InputSpec],
    e: MappingError,
    all: Option<&Row>,
) -> MappingError {
    let Some(all) = all else { return e };
    let Some(spec) = specs.iter().find(|s| s.name == e.input.as_str()) else { return e };
    mapping.resolve(all, std::slice::from_ref(spec)).err().unwrap_or(e)
}

/// Evaluates one row with one evaluator, never panicking; a mapping
/// error lists the columns of `all` (see [`listing_all`]).
pub(crate) fn evaluate_one(b: &Bound, row: &Row, all: Option<&Row>) -> Outcome {
    let t0 = Instant::now();
    let result = catch_unwind(AssertUnwindSafe(|| {
        let specs = b.evaluator.inputs();
        let input = b
            .mapping
            .resolve(row, specs)
            .map_err(|e| listing_all(&b.mapping, specs, e, all).to_string())?;
        b.evaluator.evaluate(&input).map_err(|e| e.to_string())
    }));
    let duration_ms = refscore::number::finite(t0.elapsed().as_secs_f64() * 1000.0);
    match result {
        Ok(Ok(evaluation)) => {
            Outcome { scores: rename(b, evaluation.scores), error: None, duration_ms }
        }
        Ok(Err(message)) => Outcome { scores: Vec::new(), error: Some(message), duration_ms },
        Err(panic) => {
            let why = refscore::error::panic_message(panic.as_ref())
                .unwrap_or_else(|| String::from("unknown cause"));
            Outcome {
                scores: Vec::new(),
                error: Some(format!("evaluator panicked: {why}")),
                duration_ms,
            }
        }
    }
}

/// Names scores as a suite run does: the main score (named like the
/// metric, else the first) takes the evaluator's name and goes first, the
/// others become `<evaluator>.<score>`.
pub(crate) fn rename(b: &Bound, mut scores: Vec<Score>) -> Vec<Score> {
    let metric = b.evaluator.name();
    if let Some(main) = scores.iter().position(|s| s.name == metric) {
        scores.swap(0, main);
    }
    for (i, s) in scores.iter_mut().enumerate() {
        if i == 0 {
            s.name.clone_from(&b.name);
        } else {
            s.name = format!("{}.{}", b.name, s.name);
        }
    }
    scores
}

/// A row, or why it could not be built (a cell with no JSON form).
pub(crate) type RowInput = Result<Row, String>;

/// Evaluates every row with every evaluator; `result[row][evaluator]`.
/// Once `stop` is set, the rows not yet started fail as cancelled; with
/// `stop_on_error` (phoenix-evals' `exit_on_error`), a failed evaluation
/// sets it. A mapping error lists the columns of `all`, when given (the
/// frame's every column: the rows hold only those read).
///
/// # Errors
/// The worker threads cannot be started.
pub(crate) fn evaluate_rows(
    evaluators: &[Bound],
    rows: &[RowInput],
    threads: Option<usize>,
    stop: &AtomicBool,
    stop_on_error: bool,
    all: Option<&Row>,
) -> Result<Vec<Vec<Outcome>>, String> {
    // Rows that ask an LLM mostly wait on the network: each goes to a
    // thread of its own, and there are as many threads as the judges keep
    // requests in flight (unless `threads` says otherwise).
    let in_flight = evaluators.iter().map(|b| b.concurrency).max().unwrap_or(0);
    let min_len = if in_flight > 0 { 1 } else { 16 };
    let work = || {
        rows.par_iter()
            .with_min_len(min_len)
            .map(|row| {
                let out: Vec<Outcome> = match row {
                    _ if stop.load(Ordering::Relaxed) => return failed(evaluators, "cancelled"),
                    Ok(row) => evaluators.iter().map(|b| evaluate_one(b, row, all)).collect(),
                    Err(e) => failed(evaluators, e),
                };
                if stop_on_error && out.iter().any(|o| o.error.is_some()) {
                    stop.store(true, Ordering::Relaxed);
                }
                out
            })
            .collect()
    };
    match pool_size(threads, in_flight) {
        None => Ok(default_pool()?.install(work)),
        Some(n) => Ok(pool(n)?.install(work)),
    }
}

/// The threads of a pool of its own for `threads` asked, when evaluators
/// keep up to `in_flight` judge requests in flight
/// ([`refscore::runner::workers_for`]: code metrics at most one per core);
/// `None`: the shared pool, one thread per core.
fn pool_size(threads: Option<usize>, in_flight: usize) -> Option<usize> {
    (threads.is_some() || in_flight > 0).then(|| refscore::runner::workers_for(threads, in_flight))
}

/// A row every evaluator failed on, for `why`.
fn failed(evaluators: &[Bound], why: &str) -> Vec<Outcome> {
    evaluators
        .iter()
        .map(|_| Outcome { scores: Vec::new(), error: Some(why.to_owned()), duration_ms: 0.0 })
        .collect()
}

fn pool(threads: usize) -> Result<rayon::ThreadPool, String> {
    refscore::runner::worker_pool(threads, "refscore-py")
        .map_err(|e| format!("starting worker threads: {e}"))
}

/// One pool per process, one thread per core, made on first use.
///
/// The pool remembers the process that built it: a child made by `fork()`
/// (multiprocessing's default start method on Linux) inherits the pool but
/// not its threads, so a child builds its own. The parent's is leaked
/// there: dropping it would wait for threads that do not exist.
fn default_pool() -> Result<&'static rayon::ThreadPool, String> {
    static POOL: Mutex<Option<(u32, &'static rayon::ThreadPool)>> = Mutex::new(None);
    let pid = std::process::id();
    // A panic while the lock was held left no half-built pool behind.
    let mut slot = POOL.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((owner, p)) = *slot
        && owner == pid
    {
        return Ok(p);
    }
    let p: &'static rayon::ThreadPool = Box::leak(Box::new(pool(0)?));
    *slot = Some((pid, p));
    Ok(p)
}

/// Frees the rows on the pool's threads: large nested values are freed
/// without recursion.
pub(crate) fn drop_rows(rows: Vec<RowInput>) {
    let free = move || {
        rows.into_par_iter().for_each(|r| {
            if let Ok(r) = r {
                refscore::json::drop_deep(r.value);
            }
        });
    };
    match default_pool() {
        Ok(p) => p.install(free),
        Err(_) => free(),
    }
}
