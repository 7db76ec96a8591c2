//! How far the reader thread reads ahead of the run, in bytes: chunks
//! handed on but not yet taken into a batch weigh against a bound, and
//! the reader waits while they are past it.

use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

/// How long the reader waits before it checks again whether the run
/// still wants rows.
const RECHECK: Duration = Duration::from_millis(50);

/// The bytes read ahead, shared by the reader and the run.
#[derive(Debug)]
pub(super) struct Ahead {
    /// Most bytes held ahead before the reader waits (one chunk may pass
    /// it: a chunk is let through whenever nothing else is held).
    limit: usize,
    state: Mutex<State>,
    taken: Condvar,
}

/// What the reader holds ahead, and whether the run still takes rows.
#[derive(Debug, Default)]
struct State {
    held: usize,
    closed: bool,
}

impl Ahead {
    /// A bound of `limit` bytes.
    pub(super) fn new(limit: usize) -> Ahead {
        Ahead { limit, state: Mutex::default(), taken: Condvar::new() }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Counts `bytes` as held ahead, once what is held leaves room for
    /// them (or nothing is held): false, without counting them, when the
    /// run has stopped taking rows.
    pub(super) fn hold(&self, bytes: usize) -> bool {
        let mut state = self.state();
        loop {
            if state.closed {
                return false;
            }
            if state.held == 0 || state.held.saturating_add(bytes) <= self.limit {
                state.held = state.held.saturating_add(bytes);
                return true;
            }
            state =
                self.taken.wait_timeout(state, RECHECK).unwrap_or_else(PoisonError::into_inner).0;
        }
    }

    /// `bytes` held are taken by the run.
    pub(super) fn take(&self, bytes: usize) {
        let mut state = self.state();
        state.held = state.held.saturating_sub(bytes);
        self.taken.notify_all();
    }

    /// The run takes no more rows: a waiting reader gives up.
    pub(super) fn close(&self) {
        self.state().closed = true;
        self.taken.notify_all();
    }

    /// Bytes held ahead now.
    #[cfg(test)]
    pub(super) fn held(&self) -> usize {
        self.state().held
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::mpsc;

    /// Bound on every wait of these tests: they fail, they do not hang.
    const BOUND: Duration = Duration::from_secs(30);

    #[test]
    fn the_reader_waits_while_the_bytes_ahead_are_past_the_bound() {
        let ahead = Arc::new(Ahead::new(100));
        assert!(ahead.hold(60));
        assert!(ahead.hold(40));
        let (done, held) = mpsc::channel();
        let reader = Arc::clone(&ahead);
        std::thread::spawn(move || done.send(reader.hold(30)));
        // Full: the third chunk waits until bytes are taken.
        assert!(held.recv_timeout(Duration::from_millis(200)).is_err());
        assert_eq!(ahead.held(), 100);
        ahead.take(60);
        assert_eq!(held.recv_timeout(BOUND), Ok(true));
        assert_eq!(ahead.held(), 70);
    }

    #[test]
    fn a_chunk_past_the_bound_passes_alone() {
        let ahead = Ahead::new(100);
        assert!(ahead.hold(500));
        assert_eq!(ahead.held(), 500);
        ahead.take(500);
        assert!(ahead.hold(500));
    }

    #[test]
    fn a_waiting_reader_gives_up_once_the_run_stops_taking_rows() {
        let ahead = Arc::new(Ahead::new(10));
        assert!(ahead.hold(10));
        let (done, held) = mpsc::channel();
        let reader = Arc::clone(&ahead);
        std::thread::spawn(move || done.send(reader.hold(5)));
        assert!(held.recv_timeout(Duration::from_millis(200)).is_err());
        ahead.close();
        assert_eq!(held.recv_timeout(BOUND), Ok(false));
        assert!(!ahead.hold(1), "closed: nothing more is held");
        assert_eq!(ahead.held(), 10);
    }
}
