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

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{RecvTimeoutError, channel};
use std::time::Duration;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

/// How often the waiting thread asks Python about signals.
const TICK: Duration = Duration::from_millis(100);

/// Runs `work` on a thread with the workers' stack size, the interpreter
/// released, and returns its result; raises what a signal handler raised
/// instead, after telling `work` to stop (the flag it is given) and the
/// judges to stop (`cancels`, set back once `work` has returned).
///
/// # Errors
/// The exception a signal handler raised (KeyboardInterrupt), or a
/// `RuntimeError` when the thread cannot be started or panicked.
pub(crate) fn interruptible<R: Send>(
    py: Python<'_>,
    cancels: &[Arc<AtomicBool>],
    work: impl FnOnce(&AtomicBool) -> R + Send,
) -> PyResult<R> {
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
                            && let Err(e) = Python::attach(|py| py.check_signals())
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
    if let Some(e) = raised {
        for c in cancels {
            c.store(false, Ordering::SeqCst);
        }
        return Err(e);
    }
    result.map_err(PyRuntimeError::new_err)
}
