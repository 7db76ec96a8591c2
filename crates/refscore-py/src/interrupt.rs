//! Ctrl-C during a long call: evaluating a frame whose rows ask an LLM
//! takes minutes, and Python only sees a KeyboardInterrupt once the call
//! returns to it.
//!
//! The work runs on a thread of its own while the calling thread, with the
//! interpreter released, waits for it and asks Python every [`TICK`]
//! whether a signal arrived. On a KeyboardInterrupt (or any exception a
//! signal handler raises) the rows not yet started are skipped and the
//! judges stop sending; requests in flight are given up after
//! `refscore::judge::CANCEL_GRACE`, and the exception is raised. The
//! judges are then ready for the next call.
//!
//! A call made on a worker thread (the awaitable frame evaluation runs
//! its built-in rows in `asyncio.to_thread`) sees no signal: there a
//! [`Stop`] handle, set when the awaiting task is cancelled, stops it the
//! same way.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::time::Duration;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

/// How often the waiting thread asks Python about signals.
const TICK: Duration = Duration::from_millis(100);

/// A handle that stops a native call from another thread: `stop()` has
/// the call skip the rows not yet started, stop its judges and raise
/// `RuntimeError` instead of returning.
#[pyclass(module = "refscore._refscore", frozen)]
#[derive(Default)]
pub(crate) struct Stop {
    flag: AtomicBool,
}

#[pymethods]
impl Stop {
    /// A handle not yet stopped.
    #[new]
    fn new() -> Self {
        Self::default()
    }

    /// Asks the call holding this handle to stop (within about 100 ms,
    /// plus the grace given to requests in flight).
    fn stop(&self) {
        self.flag.store(true, Ordering::SeqCst);
    }

    /// Whether `stop()` was called.
    #[getter]
    fn stopped(&self) -> bool {
        self.flag.load(Ordering::SeqCst)
    }
}

/// Runs `work` on a thread with the workers' stack size, the interpreter
/// released, and returns its result; raises what a signal handler raised
/// (or a `RuntimeError` once `handle` is stopped) instead, after telling
/// `work` to stop (the flag it is given) and the judges to stop
/// (`cancels`, set back once `work` has returned).
///
/// # Errors
/// The exception a signal handler raised (KeyboardInterrupt), a
/// `RuntimeError` when `handle` was stopped, or when the thread cannot be
/// started or panicked.
pub(crate) fn interruptible<R: Send>(
    py: Python<'_>,
    cancels: &[Arc<AtomicBool>],
    handle: Option<&Stop>,
    work: impl FnOnce(&AtomicBool) -> R + Send,
) -> PyResult<R> {
    let (result, raised) = interruptible_partial(py, cancels, handle, work);
    match raised {
        Some(e) => Err(e),
        None => result,
    }
}

/// As [`interruptible`], but what `work` returned once told to stop is
/// kept: `(its result, the exception to raise)`. The rows it finished
/// before the stop can then be handed back with the exception.
pub(crate) fn interruptible_partial<R: Send>(
    py: Python<'_>,
    cancels: &[Arc<AtomicBool>],
    handle: Option<&Stop>,
    work: impl FnOnce(&AtomicBool) -> R + Send,
) -> (PyResult<R>, Option<PyErr>) {
    if let Err(e) = wait_for_wind_down(py, cancels, handle) {
        return (Err(e), None);
    }
    let stop = AtomicBool::new(false);
    let mut raised: Option<PyErr> = None;
    let result = py.detach(|| {
        std::thread::scope(|s| {
            let (done, finished) = channel::<()>();
            let stop = &stop;
            let worker = std::thread::Builder::new()
                .name(String::from("refscore-call"))
                .stack_size(refscore::runner::WORKER_STACK)
                .spawn_scoped(s, move || {
                    let out = work(stop);
                    let _ = done.send(());
                    out
                })
                .map_err(|e| format!("starting a thread: {e}"))?;
            loop {
                match finished.recv_timeout(TICK) {
                    Ok(()) | Err(RecvTimeoutError::Disconnected) => break,
                    Err(RecvTimeoutError::Timeout) => {
                        if raised.is_none()
                            && let Some(e) = stop_asked(handle)
                        {
                            raised = Some(e);
                            stop.store(true, Ordering::SeqCst);
                            for c in cancels {
                                c.store(true, Ordering::SeqCst);
                            }
                        }
                    }
                }
            }
            worker.join().map_err(|_| String::from("the evaluation thread panicked"))
        })
    });
    if raised.is_some() {
        for c in cancels {
            c.store(false, Ordering::SeqCst);
        }
    }
    (result.map_err(PyRuntimeError::new_err), raised)
}

/// Waits while a call stopped earlier winds down (the judges' stop flags,
/// which their evaluators share, stay set until its requests in flight are
/// given up, at most `refscore::judge::CANCEL_GRACE`): a call started
/// meanwhile would fail at once as cancelled. Past the grace and a little
/// more, it goes on whatever the flags say. Ctrl-C and `handle` are heard
/// while it waits.
///
/// # Errors
/// As [`stop_asked`].
fn wait_for_wind_down(
    py: Python<'_>,
    cancels: &[Arc<AtomicBool>],
    handle: Option<&Stop>,
) -> PyResult<()> {
    let limit = refscore::judge::CANCEL_GRACE + 5 * TICK;
    let start = std::time::Instant::now();
    while cancels.iter().any(|c| c.load(Ordering::SeqCst)) && start.elapsed() < limit {
        py.detach(|| std::thread::sleep(Duration::from_millis(10)));
        if let Some(e) = stop_asked(handle) {
            return Err(e);
        }
    }
    Ok(())
}

/// Why the call should stop now, if it should: `handle` was stopped, or a
/// signal handler raised.
fn stop_asked(handle: Option<&Stop>) -> Option<PyErr> {
    if handle.is_some_and(Stop::stopped) {
        return Some(PyRuntimeError::new_err("the evaluation was stopped"));
    }
    Python::attach(|py| py.check_signals()).err()
}
