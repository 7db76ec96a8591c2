//! Reading a run's rows: the reader thread's chunks ([`Source`]) and
//! their gathering into batches ([`Batches`]), with a stop checked while
//! the run waits and a stream's rows handed on as they come.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use crate::dataset::{self, Pending, Rows};

/// Rows the reader hands on at once (fewer when a stream has no more
/// ready).
pub(super) const CHUNK_ROWS: usize = 64;

/// How long the run waits for rows before it checks for a stop again.
const STOP_CHECK: Duration = Duration::from_millis(50);

/// How long a batch of a stream's rows waits to be full once it has
/// rows: rows that come slowly (a pipe from a program still writing) are
/// scored and written within this time of their arrival, not once a whole
/// batch has come. A file's batches are always whole (but the last), so
/// that a run's batches, and so a resume, do not depend on timing.
pub(super) const SLOW_BATCH: Duration = Duration::from_millis(200);

/// The rows the reader thread reads.
pub(super) struct Source {
    pub(super) rows: Rows,
    /// Rows still to read (`--limit`).
    pub(super) remaining: Option<u64>,
    /// The dataset, for an error row.
    pub(super) file: std::path::PathBuf,
    /// Rows read so far.
    pub(super) read: u64,
}

impl Source {
    /// Up to `n` rows (and at most `remaining`); fewer when the next row
    /// would wait for a stream's writer. A reader that fails (panics)
    /// ends the rows with an unreadable one: the rows before it are
    /// scored, and the run does not pass as if the dataset ended there.
    pub(super) fn chunk(&mut self, n: usize) -> Vec<Pending> {
        let n = self.remaining.map_or(n, |r| n.min(usize::try_from(r).unwrap_or(usize::MAX)));
        let mut chunk = Vec::with_capacity(n);
        while chunk.len() < n {
            let next =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.rows.next_pending()));
            let row = match next {
                Ok(Some(row)) => row,
                Ok(None) => break,
                Err(panic) => {
                    let why = crate::error::panic_message(panic.as_ref())
                        .unwrap_or_else(|| String::from("unknown panic"));
                    let number = self.read + chunk.len() as u64 + 1;
                    let message = format!(
                        "the dataset reader failed ({why}); the rest of the dataset was not read"
                    );
                    chunk
                        .push(Pending::Ready(Err(dataset::row_error(&self.file, number, message))));
                    self.remaining = Some(0);
                    break;
                }
            };
            chunk.push(row);
            if self.rows.would_wait() {
                break;
            }
        }
        self.read += chunk.len() as u64;
        if let Some(r) = &mut self.remaining {
            *r = r.saturating_sub(chunk.len() as u64);
        }
        chunk
    }
}

/// The reader's chunks gathered into batches of `rows` rows.
pub(super) struct Batches {
    pub(super) rx: Receiver<Vec<Pending>>,
    pub(super) rows: usize,
    /// For a stream: [`SLOW_BATCH`].
    pub(super) slow: Option<Duration>,
    /// Rows received past the last batch's end.
    pub(super) left: Vec<Pending>,
}

impl Batches {
    /// The next batch: `rows` rows, or fewer at the end of the rows, when
    /// a stream's rows come slowly (see [`SLOW_BATCH`]), or once a stop is
    /// asked for (the caller then drops it). `None`: no rows are left, or
    /// a stop came while none were waiting.
    pub(super) fn next(&mut self, stop: &AtomicBool) -> Option<Vec<Pending>> {
        let mut batch = std::mem::take(&mut self.left);
        let mut since = (!batch.is_empty()).then(Instant::now);
        // How long the batch may still wait for rows, if it has any.
        let left = |since: Option<Instant>| Some(self.slow?.saturating_sub(since?.elapsed()));
        while batch.len() < self.rows {
            let wait = left(since).map_or(STOP_CHECK, |w| w.min(STOP_CHECK));
            match self.rx.recv_timeout(wait) {
                Ok(chunk) if !chunk.is_empty() => {
                    since.get_or_insert_with(Instant::now);
                    batch.extend(chunk);
                }
                Err(RecvTimeoutError::Timeout)
                    if !stop.load(Ordering::Relaxed) && left(since) != Some(Duration::ZERO) => {}
                // The end of the rows, a stop, or a batch that waited long
                // enough.
                _ => break,
            }
        }
        if batch.len() > self.rows {
            self.left = batch.split_off(self.rows);
        }
        (!batch.is_empty()).then_some(batch)
    }
}
