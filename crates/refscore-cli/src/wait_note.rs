//! A note on stderr when a step waits longer than it should: the run
//! store held by another process is waited for up to a minute, and a
//! silent minute looks like a hang.

use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

/// Says `message` on stderr, once, if it is still alive `after` its
/// start; says nothing when dropped sooner.
pub(crate) struct WaitNote {
    done: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl WaitNote {
    /// Starts the wait; `quiet` says nothing at all.
    pub(crate) fn after(after: Duration, message: String, quiet: bool) -> Self {
        if quiet {
            return WaitNote { done: None, thread: None };
        }
        let (done, waiting) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name(String::from("refscore-wait-note"))
            .spawn(move || {
                if waiting.recv_timeout(after) == Err(mpsc::RecvTimeoutError::Timeout) {
                    eprintln!("note: {}", crate::table::printable(&message));
                }
            })
            .ok();
        WaitNote { done: Some(done), thread }
    }
}

impl Drop for WaitNote {
    fn drop(&mut self) {
        drop(self.done.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
