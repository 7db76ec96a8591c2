//! A run's batches in the store: written by the [`Recorder`] on its own
//! thread as the run goes, read back to resume a run, to rewrite its
//! `results.jsonl` and to compare it with another.
//!
//! Each batch row holds four zstd-compressed blobs: `records` (what the
//! summary needs of each row, JSON, for resuming), `cells` (each row's id
//! and outcome per evaluator in a compact binary form, for comparisons),
//! `fields` (the batch's field statistics) and `lines` (the rows' lines of
//! `results.jsonl`).

use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::thread::JoinHandle;
use std::time::Instant;

use rusqlite::{Transaction, TransactionBehavior, params};

use super::baseline_summary;
use super::scores::{Cell, RowRecord, RowScores, RunScores};
use super::store::{Damage, Store};
use super::store_error::{StoreError, describe};
use crate::runner::{BatchRecord, BatchSink, PriorBatch};

/// zstd level of stored batches: fast, and lines of JSON shrink 5-40×.
const ZSTD_LEVEL: i32 = 1;

/// The least a stored blob may decompress to before it is refused as
/// damaged: far beyond any batch of 1,024 rows' cells, records or field
/// statistics, and beyond its result lines unless they are huge.
const MIN_UNPACKED_BOUND: usize = 256 << 20;

/// How many times its compressed size a blob may decompress to, past
/// [`MIN_UNPACKED_BOUND`] (JSON lines at zstd level 1 come to a few
/// times; rows repeated a thousand times, to a few hundred).
const MAX_UNPACK_RATIO: usize = 4096;

/// The most bytes `data`, a stored zstd frame, may decompress to: a
/// damaged or hostile store (a few kilobytes that expand to gigabytes)
/// costs at most this much memory before it is called damaged.
fn unpacked_bound(data: &[u8]) -> usize {
    MIN_UNPACKED_BOUND.max(data.len().saturating_mul(MAX_UNPACK_RATIO))
}

/// Decompresses `data` into `out` (cleared first), refusing it once it
/// passes [`unpacked_bound`].
fn decode_bounded(data: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
    decode_within(data, unpacked_bound(data), out)
}

/// Decompresses `data` into `out` (cleared first), refusing it once it
/// passes `bound` bytes.
fn decode_within(data: &[u8], bound: usize, out: &mut Vec<u8>) -> Result<(), String> {
    use std::io::Read;
    out.clear();
    let decoder = zstd::stream::read::Decoder::with_buffer(data).map_err(|e| e.to_string())?;
    let limit = u64::try_from(bound).unwrap_or(u64::MAX).saturating_add(1);
    decoder.take(limit).read_to_end(out).map_err(|e| e.to_string())?;
    if out.len() > bound {
        out.clear();
        return Err(format!(
            "a blob of {} bytes that decompresses to more than {bound} bytes",
            data.len()
        ));
    }
    Ok(())
}

/// Batches waiting for the writer thread: memory stays bounded when the
/// disk is slower than the evaluation.
const QUEUE: usize = 4;

/// The blob columns of `batches` that can be read.
#[derive(Clone, Copy)]
enum Column {
    Records,
    Cells,
    Fields,
    Lines,
}

impl Column {
    fn name(self) -> &'static str {
        match self {
            Column::Records => "records",
            Column::Cells => "cells",
            Column::Fields => "fields",
            Column::Lines => "lines",
        }
    }

    /// What the column holds, as a damaged-record error names it.
    fn what(self) -> &'static str {
        match self {
            Column::Records => "rows",
            Column::Cells => "scores",
            Column::Fields => "field statistics",
            Column::Lines => "result lines",
        }
    }
}

impl Store {
    /// A sink recording run `id`'s batches on a thread of its own, with
    /// its own connection to the store.
    ///
    /// # Errors
    /// The store cannot be read.
    pub fn recorder(&self, id: i64) -> Result<Recorder, StoreError> {
        let base = self
            .conn
            .query_row("SELECT duration_s FROM runs WHERE id = ?1", [id], |r| r.get::<_, f64>(0))
            .map_err(|e| self.io(&e))?;
        let (tx, rx) = sync_channel::<BatchRecord>(QUEUE);
        let path = self.path.clone();
        let started = Instant::now();
        // The writer shares what this connection knows of the file: whether
        // it was checked, and damage either of them finds.
        let shared = (std::sync::Arc::clone(&self.damage), self.checked.get(), self.wrote.get());
        let worker = std::thread::Builder::new()
            .name("refscore-store".to_owned())
            .spawn(move || write_batches(&path, id, rx, base, started, shared))
            .map_err(|e| StoreError::Io { path: self.path.clone(), message: e.to_string() })?;
        Ok(Recorder { tx: Some(tx), worker: Some(worker), started, base_duration: base })
    }

    /// Calls `f` with one column of each recorded batch of a run, in order,
    /// one batch at a time.
    fn each_batch(
        &self,
        id: i64,
        column: Column,
        mut f: impl FnMut(&[u8]) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let sql = format!("SELECT {} FROM batches WHERE run = ?1 ORDER BY first", column.name());
        let mut stmt = self.conn.prepare(&sql).map_err(|e| self.io(&e))?;
        let mut rows = stmt.query([id]).map_err(|e| self.io(&e))?;
        while let Some(r) = rows.next().map_err(|e| self.io(&e))? {
            // Bytes of any type are handed on (their decoding then says
            // they are damaged); a value that holds none is damaged here.
            let bytes = match r.get_ref(0).map_err(|e| self.io(&e))? {
                rusqlite::types::ValueRef::Blob(b) | rusqlite::types::ValueRef::Text(b) => b,
                other => {
                    let found = format!("a batch holds {:?}, not bytes", other.data_type());
                    return Err(self.damaged(id, column.what(), found));
                }
            };
            f(bytes)?;
        }
        Ok(())
    }

    fn damaged(&self, id: i64, what: &'static str, e: impl std::fmt::Display) -> StoreError {
        StoreError::Damaged { path: self.path.clone(), id, what, message: e.to_string() }
    }

    fn unpack(&self, id: i64, what: &'static str, data: &[u8]) -> Result<Vec<u8>, StoreError> {
        let mut out = Vec::new();
        decode_bounded(data, &mut out).map_err(|e| self.damaged(id, what, e))?;
        Ok(out)
    }

    /// The recorded batches of a run, for resuming it.
    ///
    /// # Errors
    /// The store cannot be read or a batch is damaged.
    pub fn prior_batches(&self, id: i64) -> Result<Vec<PriorBatch>, StoreError> {
        let mut records = Vec::new();
        self.each_batch(id, Column::Records, |r| {
            records.push(self.records(id, r)?);
            Ok(())
        })?;
        let mut fields = Vec::new();
        self.each_batch(id, Column::Fields, |f| {
            let text = String::from_utf8(self.unpack(id, "field statistics", f)?)
                .map_err(|e| self.damaged(id, "field statistics", e))?;
            fields.push(text);
            Ok(())
        })?;
        Ok(records
            .into_iter()
            .zip(fields)
            .map(|(records, fields)| PriorBatch { records, fields })
            .collect())
    }

    fn records(&self, id: i64, data: &[u8]) -> Result<Vec<RowRecord>, StoreError> {
        let raw = self.unpack(id, "rows", data)?;
        serde_json::from_slice(&raw).map_err(|e| self.damaged(id, "rows", e))
    }

    /// Calls `f` with each recorded line of `results.jsonl`, in order.
    ///
    /// # Errors
    /// The store cannot be read, a batch is damaged, or `f` fails.
    pub fn for_each_line(
        &self,
        id: i64,
        mut f: impl FnMut(&str) -> std::io::Result<()>,
    ) -> Result<(), StoreError> {
        self.each_batch(id, Column::Lines, |lines| {
            let raw = self.unpack(id, "results", lines)?;
            let text = String::from_utf8_lossy(&raw);
            for line in text.split('\n').filter(|l| !l.is_empty()) {
                f(line).map_err(|e| StoreError::Io {
                    path: self.path.clone(),
                    message: e.to_string(),
                })?;
            }
            Ok(())
        })
    }

    /// A reader of a run's `results.jsonl`, as recorded: batches are
    /// decompressed one at a time as the reader goes.
    ///
    /// # Errors
    /// The store cannot be read.
    pub fn results_reader(&self, id: i64) -> Result<ResultsReader, StoreError> {
        let mut batches = Vec::new();
        self.each_batch(id, Column::Lines, |b| {
            batches.push(b.to_vec());
            Ok(())
        })?;
        batches.reverse();
        Ok(ResultsReader { batches, current: Vec::new(), pos: 0 })
    }

    /// A finished run reduced to what a comparison reads.
    ///
    /// The batches are read and decoded one at a time, each row straight
    /// into one list sized for the rows recorded: beyond that list, the
    /// memory used is one batch's, however long the run. A list larger
    /// than the memory available is an error, not an abort.
    ///
    /// # Errors
    /// No such run, it has not finished, or its data cannot be read.
    pub fn scores(&self, id: i64) -> Result<RunScores, StoreError> {
        let mut scores = {
            let summary = self.summary(id)?;
            baseline_summary(&summary)
                .map_err(|e| self.damaged(id, "summary", e))?
                .scores(Vec::new())
        };
        // The rows its batches say they hold, and at most the rows the run
        // says it recorded: a damaged count alone reserves no more.
        let recorded: i64 = self
            .conn
            .query_row(
                "SELECT min(coalesce((SELECT sum(count) FROM batches WHERE run = ?1), 0),
                            coalesce((SELECT rows_done FROM runs WHERE id = ?1), 0))",
                [id],
                |r| r.get(0),
            )
            .map_err(|e| self.io(&e))?;
        let recorded = usize::try_from(recorded).unwrap_or(0);
        scores.rows.try_reserve_exact(recorded).map_err(|e| StoreError::Io {
            path: self.path.clone(),
            message: format!(
                "run {id}: not enough memory for the scores of its {recorded} rows ({e})"
            ),
        })?;
        let mut unpack = Unpacker::new().map_err(|e| self.io_message(e))?;
        self.each_batch(id, Column::Cells, |c| {
            let raw = unpack.unpack(c).map_err(|e| self.damaged(id, "scores", e))?;
            decode_cells_into(raw, &mut scores.rows).map_err(|e| self.damaged(id, "scores", e))
        })?;
        Ok(scores)
    }

    fn io_message(&self, message: String) -> StoreError {
        StoreError::Io { path: self.path.clone(), message }
    }
}

/// Decompresses blobs one after another with one zstd context and one
/// buffer, failing (never aborting) when memory runs short.
struct Unpacker {
    ctx: zstd::zstd_safe::DCtx<'static>,
    buf: Vec<u8>,
}

impl Unpacker {
    fn new() -> Result<Unpacker, String> {
        let ctx = zstd::zstd_safe::DCtx::try_create()
            .ok_or_else(|| "not enough memory to decompress the store's data".to_owned())?;
        Ok(Unpacker { ctx, buf: Vec::new() })
    }

    /// One blob's bytes (a zstd frame that says its size, as the recorder
    /// writes them).
    fn unpack(&mut self, data: &[u8]) -> Result<&[u8], String> {
        self.unpack_within(data, unpacked_bound(data))
    }

    /// One blob's bytes, refused past `bound` bytes (before any is
    /// decompressed when the frame says its size).
    fn unpack_within(&mut self, data: &[u8], bound: usize) -> Result<&[u8], String> {
        self.buf.clear();
        match zstd::zstd_safe::get_frame_content_size(data) {
            Ok(Some(size)) => {
                let size = usize::try_from(size).map_err(|e| e.to_string())?;
                if size > bound {
                    return Err(format!(
                        "a blob of {} bytes that says it decompresses to {size} bytes, more \
                         than {bound}",
                        data.len()
                    ));
                }
                self.buf
                    .try_reserve_exact(size)
                    .map_err(|e| format!("a batch of {size} bytes: {e}"))?;
                self.ctx
                    .decompress(&mut self.buf, data)
                    .map_err(|code| zstd::zstd_safe::get_error_name(code).to_owned())?;
            }
            // Written without its size: decoded as a stream.
            Ok(None) => decode_within(data, bound, &mut self.buf)?,
            Err(_) => return Err("not a zstd frame".to_owned()),
        }
        Ok(&self.buf)
    }
}

/// Reads a recorded run's `results.jsonl` (see [`Store::results_reader`]).
#[derive(Debug)]
pub struct ResultsReader {
    /// Compressed batches still to read, last first.
    batches: Vec<Vec<u8>>,
    current: Vec<u8>,
    pos: usize,
}

impl std::io::Read for ResultsReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while self.pos >= self.current.len() {
            let Some(next) = self.batches.pop() else { return Ok(0) };
            decode_bounded(&next, &mut self.current).map_err(|e| {
                std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("the stored result lines are damaged ({e})"),
                )
            })?;
            // Each batch's lines are joined without a final newline.
            self.current.push(b'\n');
            self.pos = 0;
        }
        let n = buf.len().min(self.current.len() - self.pos);
        buf[..n].copy_from_slice(&self.current[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// Records one run's batches on its own thread (see [`Store::recorder`]):
/// the run goes on evaluating while a batch is compressed and committed.
/// Call [`Recorder::finish`] before recording the end of the run.
#[derive(Debug)]
pub struct Recorder {
    tx: Option<SyncSender<BatchRecord>>,
    worker: Option<JoinHandle<Result<(), String>>>,
    started: Instant,
    base_duration: f64,
}

impl Recorder {
    /// Time spent on the run so far, in seconds: the parts before a
    /// resume and this one.
    pub fn total_duration(&self) -> f64 {
        self.base_duration + self.started.elapsed().as_secs_f64()
    }

    /// Waits until every batch handed over is committed.
    ///
    /// # Errors
    /// A batch could not be written.
    pub fn finish(&mut self) -> Result<(), String> {
        self.tx = None;
        match self.worker.take() {
            None => Ok(()),
            Some(w) => w.join().unwrap_or_else(|_| Err("the store writer panicked".to_owned())),
        }
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        let _ = self.finish();
    }
}

impl Recorder {
    /// Hands a batch to the writer, as [`BatchSink::batch`]; when the
    /// writer is behind (its queue full: another process holds the store,
    /// or the disk is slow), `waiting` is called before this waits for
    /// room, and what it returns is dropped once the batch is handed over
    /// (a note that the run waits, say).
    ///
    /// # Errors
    /// The writer stopped: why.
    pub fn batch_noting<G>(
        &mut self,
        b: BatchRecord,
        waiting: impl FnOnce() -> G,
    ) -> Result<(), String> {
        let sent = match self.tx.as_ref().map(|tx| (tx, tx.try_send(b))) {
            Some((_, Ok(()))) => true,
            Some((tx, Err(TrySendError::Full(b)))) => {
                let _note = waiting();
                tx.send(b).is_ok()
            }
            _ => false,
        };
        if sent {
            return Ok(());
        }
        // The writer stopped: say why.
        Err(self.finish().err().unwrap_or_else(|| "the store writer stopped".to_owned()))
    }
}

impl BatchSink for Recorder {
    fn batch(&mut self, b: BatchRecord) -> Result<(), String> {
        self.batch_noting(b, || ())
    }
}

/// The writer thread: one transaction per batch, in order. Nothing is
/// written once the file is known to be damaged (`shared`: what the run's
/// connection found, whether it checked the file, and whether it wrote).
fn write_batches(
    path: &std::path::Path,
    id: i64,
    rx: Receiver<BatchRecord>,
    base: f64,
    started: Instant,
    shared: (Damage, bool, bool),
) -> Result<(), String> {
    let mut store = Store::open_existing(path).map_err(|e| e.to_string())?;
    store.damage = shared.0;
    store.checked.set(shared.1);
    store.wrote.set(shared.2);
    let store = store;
    let fail = |e: rusqlite::Error| {
        // Notes damage for both connections.
        let _ = store.io(&e);
        format!("{}: {}", path.display(), describe(&e))
    };
    // One compression context for the whole run: creating one per blob
    // costs more than compressing a small batch.
    let mut zstd = zstd::bulk::Compressor::new(ZSTD_LEVEL).map_err(|e| e.to_string())?;
    let mut pack =
        |bytes: &[u8]| zstd.compress(bytes).map_err(|e| format!("{}: {e}", path.display()));
    let mut joined: Vec<u8> = Vec::new();
    for job in &rx {
        let records = pack(&serde_json::to_vec(&job.records).unwrap_or_default())?;
        let cells = pack(&encode_cells(&job.records))?;
        let fields = pack(job.fields.as_bytes())?;
        // The lines joined with newlines in a buffer kept for the whole run.
        joined.clear();
        for (i, line) in job.lines.iter().enumerate() {
            if i > 0 {
                joined.push(b'\n');
            }
            joined.extend_from_slice(line.as_bytes());
        }
        let lines = pack(&joined)?;
        let count = job.records.len() as i64;
        let first = i64::try_from(job.first).unwrap_or(i64::MAX);
        match store.before_write() {
            Ok(()) => {}
            // The store was deleted or replaced: nothing more is recorded
            // (the run says so at its end); the batches still handed over
            // are taken and dropped, so that the run never waits on them.
            Err(StoreError::Moved { .. }) => {
                store.release_log();
                rx.iter().for_each(drop);
                return Ok(());
            }
            Err(e) => return Err(e.to_string()),
        }
        let tx = Transaction::new_unchecked(&store.conn, TransactionBehavior::Immediate)
            .map_err(fail)?;
        // Earlier versions could record an empty batch when a stop came
        // before a batch's first row; it holds this batch's `first`.
        tx.prepare_cached("DELETE FROM batches WHERE run = ?1 AND first = ?2 AND count = 0")
            .and_then(|mut s| s.execute(params![id, first]))
            .map_err(fail)?;
        tx.prepare_cached(
            "INSERT INTO batches (run, first, count, records, cells, fields, lines)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )
        .and_then(|mut s| s.execute(params![id, first, count, records, cells, fields, lines]))
        .map_err(fail)?;
        tx.prepare_cached("UPDATE runs SET rows_done = ?1, duration_s = ?2 WHERE id = ?3")
            .and_then(|mut s| {
                s.execute(params![first + count, base + started.elapsed().as_secs_f64(), id])
            })
            .map_err(fail)?;
        tx.commit().map_err(fail)?;
    }
    Ok(())
}

/// Each row's id and cells, compactly: per row the id's length (u32 LE)
/// and bytes, the number of cells (u16 LE), then per cell a tag (0 score,
/// 1 invalid, 2 failed, 3 label) and, for a score, its f64 LE.
fn encode_cells(records: &[RowRecord]) -> Vec<u8> {
    let mut out = Vec::with_capacity(records.len() * 32);
    for r in records {
        let id = r.scores.id.as_bytes();
        out.extend_from_slice(&u32::try_from(id.len()).unwrap_or(u32::MAX).to_le_bytes());
        out.extend_from_slice(id);
        let n = u16::try_from(r.scores.cells.len()).unwrap_or(u16::MAX);
        out.extend_from_slice(&n.to_le_bytes());
        for c in r.scores.cells.iter().take(usize::from(n)) {
            match c {
                Cell::Score(x) => {
                    out.push(0);
                    out.extend_from_slice(&x.to_le_bytes());
                }
                Cell::Invalid => out.push(1),
                Cell::Failed => out.push(2),
                Cell::Label => out.push(3),
            }
        }
    }
    out
}

/// The rows of [`encode_cells`]; an error for damaged bytes.
#[cfg(test)]
fn decode_cells(b: &[u8]) -> Result<Vec<RowScores>, String> {
    let mut out = Vec::new();
    decode_cells_into(b, &mut out)?;
    Ok(out)
}

/// The rows of [`encode_cells`], appended to `out`; an error for damaged
/// bytes.
fn decode_cells_into(mut b: &[u8], out: &mut Vec<RowScores>) -> Result<(), String> {
    fn take<'a>(b: &mut &'a [u8], n: usize) -> Result<&'a [u8], String> {
        if b.len() < n {
            return Err("truncated scores".to_owned());
        }
        let (head, rest) = b.split_at(n);
        *b = rest;
        Ok(head)
    }
    while !b.is_empty() {
        let len = u32::from_le_bytes(take(&mut b, 4)?.try_into().map_err(|_| "bad length")?);
        let id =
            std::str::from_utf8(take(&mut b, len as usize)?).map_err(|e| e.to_string())?.to_owned();
        let n = u16::from_le_bytes(take(&mut b, 2)?.try_into().map_err(|_| "bad count")?);
        let mut cells = Vec::with_capacity(usize::from(n));
        for _ in 0..n {
            cells.push(match take(&mut b, 1)?[0] {
                0 => {
                    let x =
                        f64::from_le_bytes(take(&mut b, 8)?.try_into().map_err(|_| "bad score")?);
                    // No run records one: statistics over it would be nonsense.
                    if !x.is_finite() {
                        return Err(format!("a score of {x} for row `{id}`"));
                    }
                    Cell::Score(x)
                }
                1 => Cell::Invalid,
                2 => Cell::Failed,
                3 => Cell::Label,
                t => return Err(format!("unknown outcome tag {t}")),
            });
        }
        out.push(RowScores { id, cells });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_round_trip_and_damage_is_an_error() {
        let rows = vec![
            RowRecord {
                scores: RowScores {
                    id: "inv-é1".into(),
                    cells: vec![Cell::Score(0.25), Cell::Invalid, Cell::Failed, Cell::Label],
                },
                row_score: None,
                extra: Vec::new(),
                unreadable: false,
            },
            RowRecord {
                scores: RowScores { id: String::new(), cells: vec![Cell::Score(-0.0)] },
                row_score: Some(1.0),
                extra: Vec::new(),
                unreadable: true,
            },
        ];
        let bytes = encode_cells(&rows);
        let back = decode_cells(&bytes).unwrap();
        assert_eq!(back, rows.iter().map(|r| r.scores.clone()).collect::<Vec<_>>());
        assert!(decode_cells(&bytes[..bytes.len() - 3]).is_err());
        let mut bad = bytes.clone();
        bad[4 + 7 + 2] = 9;
        assert!(decode_cells(&bad).unwrap_err().contains("tag 9"));
        // A score no run writes (NaN, an infinity) is damage too.
        for x in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let mut bad = bytes.clone();
            bad[4 + 7 + 2 + 1..4 + 7 + 2 + 9].copy_from_slice(&x.to_le_bytes());
            let e = decode_cells(&bad).unwrap_err();
            assert!(e.contains(&format!("a score of {x} for row `inv-é1`")), "{e}");
        }
    }

    /// A blob that expands past its bound (a few bytes of zstd that say
    /// gigabytes) is refused, whether its frame says its size or not,
    /// having used at most the bound; one within it decodes whole.
    #[test]
    fn blobs_that_expand_past_their_bound_are_refused() {
        let zeros = vec![0u8; 100_000];
        let sized = zstd::bulk::compress(&zeros, ZSTD_LEVEL).unwrap();
        let mut streamed = Vec::new();
        zstd::stream::copy_encode(&zeros[..], &mut streamed, ZSTD_LEVEL).unwrap();
        assert!(sized.len() < 200 && streamed.len() < 200, "{} {}", sized.len(), streamed.len());
        let mut u = Unpacker::new().unwrap();
        for frame in [&sized, &streamed] {
            let e = u.unpack_within(frame, 99_999).unwrap_err();
            assert!(e.contains("more than 99999"), "{e}");
            assert_eq!(u.unpack_within(frame, 100_000).unwrap(), &zeros[..]);
            let mut out = Vec::new();
            let e = decode_within(frame, 1_000, &mut out).unwrap_err();
            assert!(e.contains("decompresses to more than 1000 bytes"), "{e}");
            assert!(out.is_empty());
            decode_within(frame, 100_000, &mut out).unwrap();
            assert_eq!(out, zeros);
        }
        // The bound: at least 256 MiB, else 4,096 times the blob.
        assert_eq!(unpacked_bound(&sized), MIN_UNPACKED_BOUND);
        assert_eq!(unpacked_bound(&vec![0; 1 << 20]), (1 << 20) * MAX_UNPACK_RATIO);
    }
}
