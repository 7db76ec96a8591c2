//! Reading a run's rows: the reader thread's chunks ([`Source`]) and
//! their gathering into batches ([`Batches`]) of a bounded number of rows
//! and bytes, with a stop checked while the run waits and a stream's rows
//! handed on as they come.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use super::ahead::Ahead;
use crate::dataset::{self, Pending, Rows};
use crate::limits::MAX_BATCH_BYTES;

/// Rows the reader hands on at once (fewer when a stream has no more
/// ready, or past [`CHUNK_BYTES`]).
pub(super) const CHUNK_ROWS: usize = 64;

/// Row bytes past which a chunk is handed on with fewer rows.
const CHUNK_BYTES: usize = MAX_BATCH_BYTES / 16;

/// Row bytes the reader holds ahead of the batch being gathered before
/// it waits (see [`Ahead`]): two batches' worth. Rows are weighed up to
/// this, so that one row past it holds the reader on its own.
pub(super) const READ_AHEAD_BYTES: usize = 2 * MAX_BATCH_BYTES;

/// A row as read, and what it weighs ([`Pending::weight`]).
pub(super) type Weighed = (Pending, usize);

/// What a chunk's rows weigh together.
pub(super) fn chunk_weight(chunk: &[Weighed]) -> usize {
    chunk.iter().map(|(_, w)| *w).fold(0, usize::saturating_add)
}

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
    /// Up to `n` rows (and at most `remaining`), each with its weight;
    /// fewer once they weigh [`CHUNK_BYTES`], or when the next row would
    /// wait for a stream's writer. A reader that fails (panics) ends the
    /// rows with an unreadable one: the rows before it are scored, and the
    /// run does not pass as if the dataset ended there.
    pub(super) fn chunk(&mut self, n: usize) -> Vec<Weighed> {
        let n = self.remaining.map_or(n, |r| n.min(usize::try_from(r).unwrap_or(usize::MAX)));
        let mut chunk = Vec::with_capacity(n);
        let mut bytes = 0usize;
        while chunk.len() < n && bytes < CHUNK_BYTES {
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
                    let row = Pending::Ready(Err(dataset::row_error(&self.file, number, message)));
                    let weight = row.weight(READ_AHEAD_BYTES);
                    chunk.push((row, weight));
                    self.remaining = Some(0);
                    break;
                }
            };
            let weight = row.weight(READ_AHEAD_BYTES);
            bytes = bytes.saturating_add(weight);
            chunk.push((row, weight));
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

/// The reader's chunks gathered into batches of at most `rows` rows that
/// end once their rows weigh [`MAX_BATCH_BYTES`] and number `min_rows`.
pub(super) struct Batches {
    pub(super) rx: Receiver<Vec<Weighed>>,
    pub(super) rows: usize,
    /// Rows a batch takes whatever they weigh: one per worker.
    pub(super) min_rows: usize,
    /// For a stream: [`SLOW_BATCH`].
    pub(super) slow: Option<Duration>,
    /// Rows received past the last batch's end.
    pub(super) left: Vec<Weighed>,
    /// The bytes the reader holds ahead: chunks are taken off it as they
    /// are received, and it is closed when the batches are dropped.
    pub(super) ahead: Arc<Ahead>,
}

/// A batch being gathered: its rows and their weight.
struct Gathering {
    rows: Vec<Pending>,
    bytes: usize,
}

impl Batches {
    /// The next batch: `rows` rows, or fewer once they weigh
    /// [`MAX_BATCH_BYTES`] (and number at least `min_rows`), at the end of
    /// the rows, when a stream's rows come slowly (see [`SLOW_BATCH`]), or
    /// once a stop is asked for (the caller then drops it). `None`: no
    /// rows are left, or a stop came while none were waiting.
    pub(super) fn next(&mut self, stop: &AtomicBool) -> Option<Vec<Pending>> {
        let mut batch = Gathering { rows: Vec::new(), bytes: 0 };
        let left = std::mem::take(&mut self.left);
        self.gather(&mut batch, left);
        let mut since = (!batch.rows.is_empty()).then(Instant::now);
        // How long the batch may still wait for rows, if it has any.
        let slow = self.slow;
        let wait_left = |since: Option<Instant>| Some(slow?.saturating_sub(since?.elapsed()));
        while !self.full(&batch) {
            let wait = wait_left(since).map_or(STOP_CHECK, |w| w.min(STOP_CHECK));
            match self.rx.recv_timeout(wait) {
                Ok(chunk) if !chunk.is_empty() => {
                    since.get_or_insert_with(Instant::now);
                    self.ahead.take(chunk_weight(&chunk));
                    self.gather(&mut batch, chunk);
                }
                Err(RecvTimeoutError::Timeout)
                    if !stop.load(Ordering::Relaxed)
                        && wait_left(since) != Some(Duration::ZERO) => {}
                // The end of the rows, a stop, or a batch that waited long
                // enough.
                _ => break,
            }
        }
        (!batch.rows.is_empty()).then_some(batch.rows)
    }

    /// Whether `batch` takes no more rows.
    fn full(&self, batch: &Gathering) -> bool {
        batch.rows.len() >= self.rows
            || (batch.bytes >= MAX_BATCH_BYTES && batch.rows.len() >= self.min_rows)
    }

    /// Adds `rows` to `batch` while it is not full; the rest are left for
    /// the next.
    fn gather(&mut self, batch: &mut Gathering, rows: Vec<Weighed>) {
        let mut rows = rows.into_iter();
        for (row, weight) in rows.by_ref() {
            batch.rows.push(row);
            batch.bytes = batch.bytes.saturating_add(weight);
            if self.full(batch) {
                break;
            }
        }
        self.left.extend(rows);
    }
}

impl Drop for Batches {
    fn drop(&mut self) {
        self.ahead.close();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row numbered `n`.
    fn row(n: u64) -> Pending {
        Pending::Ready(Err(dataset::row_error(std::path::Path::new("d.jsonl"), n, String::new())))
    }

    fn number(p: &Pending) -> u64 {
        match p {
            Pending::Ready(Err(e)) => e.number,
            _ => unreachable!("only error rows are sent"),
        }
    }

    /// The batches of `chunks` (rows numbered from 1, each of `weight`).
    fn batches(rows: usize, min_rows: usize, chunks: &[(usize, usize)]) -> Vec<Vec<u64>> {
        let (tx, rx) = std::sync::mpsc::sync_channel(chunks.len() + 1);
        let ahead = Arc::new(Ahead::new(usize::MAX));
        let mut n = 0;
        for &(count, weight) in chunks {
            let chunk: Vec<Weighed> = (0..count)
                .map(|_| {
                    n += 1;
                    (row(n), weight)
                })
                .collect();
            assert!(ahead.hold(chunk_weight(&chunk)));
            tx.send(chunk).unwrap();
        }
        drop(tx);
        let mut b = Batches { rx, rows, min_rows, slow: None, left: Vec::new(), ahead };
        let stop = AtomicBool::new(false);
        let out = std::iter::from_fn(|| b.next(&stop))
            .map(|batch| batch.iter().map(number).collect())
            .collect();
        assert_eq!(b.ahead.held(), 0, "every chunk received is taken off what is held ahead");
        out
    }

    #[test]
    fn a_batch_holds_its_rows_up_to_the_row_bound() {
        let got = batches(4, 1, &[(3, 10), (3, 10), (3, 10)]);
        assert_eq!(got, vec![vec![1, 2, 3, 4], vec![5, 6, 7, 8], vec![9]]);
    }

    #[test]
    fn a_batch_ends_once_its_rows_weigh_the_byte_bound() {
        let quarter = MAX_BATCH_BYTES / 4;
        let got = batches(1024, 1, &[(6, quarter), (1, 10), (5, quarter)]);
        assert_eq!(got, vec![vec![1, 2, 3, 4], vec![5, 6, 7, 8, 9], vec![10, 11, 12]]);
        // One row past the bound is a batch of its own.
        let got = batches(1024, 1, &[(3, MAX_BATCH_BYTES + 1)]);
        assert_eq!(got, vec![vec![1], vec![2], vec![3]]);
    }

    #[test]
    fn a_batch_has_a_row_for_every_worker_whatever_they_weigh() {
        let got = batches(1024, 3, &[(2, MAX_BATCH_BYTES), (5, MAX_BATCH_BYTES)]);
        assert_eq!(got, vec![vec![1, 2, 3], vec![4, 5, 6], vec![7]]);
    }

    #[test]
    fn rows_are_weighed_up_to_the_read_ahead_bound_not_the_batch_bound() {
        // A line past a batch's bound but within the read-ahead bound
        // weighs all of it (capped at the batch bound it would weigh
        // less); the gate's own tests show that two rows of more than half
        // its bound are not held ahead at once.
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("d.jsonl");
        let line = format!("{{\"pad\": \"{}\"}}", "x".repeat(MAX_BATCH_BYTES + (1 << 20)));
        std::fs::write(&file, format!("{line}\n{{}}\n")).unwrap();
        let rows = dataset::open(&file, None).unwrap();
        let mut source = Source { rows, remaining: None, file, read: 0 };
        let chunk = source.chunk(CHUNK_ROWS);
        let weights: Vec<usize> = chunk.iter().map(|(_, w)| *w).collect();
        assert_eq!(weights, vec![line.len()]);
        assert!(weights[0] > MAX_BATCH_BYTES && 2 * weights[0] > READ_AHEAD_BYTES);
        // A parsed row weighs what its value holds, up to the same bound.
        let big = Pending::Ready(Ok(dataset::Row {
            number: 1,
            value: serde_json::json!({"s": "x".repeat(READ_AHEAD_BYTES)}),
            text_cells: false,
        }));
        assert_eq!(big.weight(READ_AHEAD_BYTES), READ_AHEAD_BYTES);
    }

    #[test]
    fn a_chunk_ends_once_its_rows_weigh_its_byte_bound() {
        let line = format!("{{\"pad\": \"{}\"}}", "x".repeat(CHUNK_BYTES / 4));
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("d.jsonl");
        std::fs::write(&file, format!("{line}\n").repeat(10)).unwrap();
        let rows = dataset::open(&file, None).unwrap();
        let mut source = Source { rows, remaining: None, file, read: 0 };
        let sizes: Vec<usize> = std::iter::from_fn(|| Some(source.chunk(CHUNK_ROWS).len()))
            .take_while(|&n| n > 0)
            .collect();
        assert_eq!(sizes, vec![4, 4, 2]);
        assert_eq!(source.read, 10);
    }
}
