//! A run's batches in the store: written by the [`Recorder`] as the run
//! goes, read back to resume a run, to rewrite its `results.jsonl` and to
//! compare it with another.

use std::time::Instant;

use rusqlite::{Transaction, TransactionBehavior, params};

use super::scores::{RowRecord, RowScores, RunScores};
use super::store::Store;
use super::store_error::{StoreError, describe};
use super::summary_header;
use crate::runner::{BatchRecord, BatchSink, PriorBatch};

/// zstd level of stored batches: fast, and lines of JSON shrink 5-10×.
const ZSTD_LEVEL: i32 = 1;

impl Store {
    /// A sink recording run `id`'s batches.
    pub fn recorder(&self, id: i64) -> Recorder<'_> {
        let base = self
            .conn
            .query_row("SELECT duration_s FROM runs WHERE id = ?1", [id], |r| r.get::<_, f64>(0))
            .unwrap_or(0.0);
        Recorder { store: self, id, started: Instant::now(), base_duration: base }
    }

    /// Calls `f` with each recorded batch of a run, in order.
    fn each_batch(
        &self,
        id: i64,
        mut f: impl FnMut(u64, Vec<u8>, Vec<u8>, Vec<u8>) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT first, records, fields, lines FROM batches WHERE run = ?1 ORDER BY first",
            )
            .map_err(|e| self.io(&e))?;
        let mut rows = stmt.query([id]).map_err(|e| self.io(&e))?;
        while let Some(r) = rows.next().map_err(|e| self.io(&e))? {
            let first: i64 = r.get(0).map_err(|e| self.io(&e))?;
            let records: Vec<u8> = r.get(1).map_err(|e| self.io(&e))?;
            let fields: Vec<u8> = r.get(2).map_err(|e| self.io(&e))?;
            let lines: Vec<u8> = r.get(3).map_err(|e| self.io(&e))?;
            f(u64::try_from(first).unwrap_or(0), records, fields, lines)?;
        }
        Ok(())
    }

    fn unpack(&self, id: i64, what: &str, data: &[u8]) -> Result<Vec<u8>, StoreError> {
        zstd::decode_all(data).map_err(|e| StoreError::Run {
            path: self.path.clone(),
            id,
            message: format!("stored {what} cannot be read: {e}"),
        })
    }

    /// The recorded batches of a run, for resuming it.
    ///
    /// # Errors
    /// The store cannot be read or a batch is damaged.
    pub fn prior_batches(&self, id: i64) -> Result<Vec<PriorBatch>, StoreError> {
        let mut out = Vec::new();
        self.each_batch(id, |_, records, fields, _| {
            let records = self.records(id, &records)?;
            let fields = String::from_utf8(self.unpack(id, "field statistics", &fields)?)
                .unwrap_or_default();
            out.push(PriorBatch { records, fields });
            Ok(())
        })?;
        Ok(out)
    }

    fn records(&self, id: i64, data: &[u8]) -> Result<Vec<RowRecord>, StoreError> {
        let raw = self.unpack(id, "rows", data)?;
        serde_json::from_slice(&raw).map_err(|e| StoreError::Run {
            path: self.path.clone(),
            id,
            message: format!("stored rows cannot be read: {e}"),
        })
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
        self.each_batch(id, |_, _, _, lines| {
            let raw = self.unpack(id, "results", &lines)?;
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

    /// A finished run reduced to what a comparison reads.
    ///
    /// # Errors
    /// No such run, it has not finished, or its data cannot be read.
    pub fn scores(&self, id: i64) -> Result<RunScores, StoreError> {
        let summary = self.summary(id)?;
        let value: serde_json::Value =
            serde_json::from_str(&summary).map_err(|e| StoreError::Run {
                path: self.path.clone(),
                id,
                message: format!("stored summary cannot be read: {e}"),
            })?;
        let mut scores = summary_header(&value);
        let mut rows: Vec<RowScores> = Vec::new();
        self.each_batch(id, |_, records, _, _| {
            rows.extend(self.records(id, &records)?.into_iter().map(|r| r.scores));
            Ok(())
        })?;
        scores.rows = rows;
        Ok(scores)
    }
}

/// Records one run's batches (see [`Store::recorder`]).
#[derive(Debug)]
pub struct Recorder<'a> {
    store: &'a Store,
    id: i64,
    started: Instant,
    base_duration: f64,
}

impl Recorder<'_> {
    /// Time spent on the run so far, in seconds: the parts before a
    /// resume and this one.
    pub fn total_duration(&self) -> f64 {
        self.base_duration + self.started.elapsed().as_secs_f64()
    }

    fn write(&self, b: &BatchRecord<'_>) -> Result<(), rusqlite::Error> {
        let pack = |bytes: &[u8]| {
            zstd::encode_all(bytes, ZSTD_LEVEL)
                .map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))
        };
        let records = pack(&serde_json::to_vec(b.records).unwrap_or_default())?;
        let fields = pack(b.fields.as_bytes())?;
        let lines = pack(b.lines.join("\n").as_bytes())?;
        let count = b.records.len() as i64;
        let tx = Transaction::new_unchecked(&self.store.conn, TransactionBehavior::Immediate)?;
        tx.prepare_cached(
            "INSERT INTO batches (run, first, count, records, fields, lines) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?
        .execute(params![self.id, b.first as i64, count, records, fields, lines])?;
        tx.prepare_cached("UPDATE runs SET rows_done = ?1, duration_s = ?2 WHERE id = ?3")?
            .execute(params![
                b.first as i64 + count,
                self.base_duration + self.started.elapsed().as_secs_f64(),
                self.id
            ])?;
        tx.commit()
    }
}

impl BatchSink for Recorder<'_> {
    fn batch(&mut self, b: &BatchRecord<'_>) -> Result<(), String> {
        self.write(b).map_err(|e| format!("{}: {}", self.store.path.display(), describe(&e)))
    }
}
