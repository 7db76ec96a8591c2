//! Long conversions under the GIL give other Python threads their turn,
//! and hear signals, at a steady pace.

use std::time::{Duration, Instant};

use pyo3::prelude::*;

/// How long a conversion holds the GIL before it lets go: twice CPython's
/// default switch interval (5 ms).
///
/// A thread waiting for the GIL asks for it only after it has waited a
/// whole switch interval without the GIL changing hands. Letting go more
/// often than that starves it: the GIL is taken back at once, the waiting
/// thread's wait starts over, and it never asks (20,000 rows of results,
/// let go every 256 rows, held another thread off for 0.25 s at a time).
/// After twice the interval, a waiting thread has asked, and letting go
/// hands the GIL to it.
const TURN: Duration = Duration::from_millis(10);

/// Rows between two looks at the clock.
const ROWS_PER_LOOK: usize = 16;

/// Gives other Python threads their turn, and raises what a signal
/// handler raised (a KeyboardInterrupt on Ctrl-C), every [`TURN`] of a
/// conversion.
pub(crate) struct GilTurns {
    since: Instant,
    rows: usize,
}

impl GilTurns {
    /// Turns counted from now.
    pub(crate) fn new() -> Self {
        GilTurns { since: Instant::now(), rows: 0 }
    }

    /// Called once per row: lets go of the GIL when it has been held for
    /// [`TURN`].
    ///
    /// # Errors
    /// The exception a signal handler raised.
    pub(crate) fn row(&mut self, py: Python<'_>) -> PyResult<()> {
        self.rows += 1;
        if !self.rows.is_multiple_of(ROWS_PER_LOOK) || self.since.elapsed() < TURN {
            return Ok(());
        }
        py.check_signals()?;
        py.detach(|| ());
        self.since = Instant::now();
        Ok(())
    }
}
