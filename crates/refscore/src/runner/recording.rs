//! What a recorded run hands to its store and what a resumed one reads
//! back: the batches ([`BatchRecord`], [`PriorBatch`]), the sink that
//! takes them, and what [`super::run_recorded`] gives.

use crate::history::RowRecord;
use crate::summary::RunSummary;

use super::warnings::RunWarnings;

/// One finished batch, handed over to a [`BatchSink`] (owned: a sink
/// that writes on another thread takes it as is, without copying).
#[derive(Debug)]
pub struct BatchRecord {
    /// Rows of the dataset before this batch (0-based index of its first row).
    pub first: u64,
    /// Per row: what the summary needs to be rebuilt.
    pub records: Vec<RowRecord>,
    /// Per row: its line of `results.jsonl`.
    pub lines: Vec<String>,
    /// What a resume needs besides the rows, serialised (opaque; a sink
    /// keeps it as is and gives it back as [`PriorBatch::fields`]): the
    /// batch's per-field statistics and, when they changed, the warnings
    /// standing over the run after it (see [`RunWarnings`]).
    pub fields: String,
}

/// Receives each batch once its rows went to `on_row`, in order: the run
/// store records them so that an interrupted run can resume.
pub trait BatchSink {
    /// Records one batch.
    ///
    /// # Errors
    /// The batch could not be recorded; the run stops with
    /// [`super::RunError::Record`].
    fn batch(&mut self, batch: BatchRecord) -> Result<(), String>;
}

impl std::fmt::Debug for dyn BatchSink + '_ {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("BatchSink")
    }
}

/// A batch recorded by an earlier, interrupted part of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct PriorBatch {
    /// Its rows.
    pub records: Vec<RowRecord>,
    /// Its per-field statistics and standing warnings, as the
    /// [`BatchRecord`] gave them.
    pub fields: String,
}

/// How an interrupted run continues: its recorded batches are replayed
/// into the summary (and the warnings they left standing into the
/// run's warnings) and their rows skipped in the dataset.
pub struct Resume<'a> {
    /// The recorded batches, in order.
    pub batches: &'a mut dyn Iterator<Item = Result<PriorBatch, String>>,
}

impl std::fmt::Debug for Resume<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Resume").finish_non_exhaustive()
    }
}

/// Where a recorded run's batches go and where a resumed one starts.
#[derive(Debug, Default)]
pub struct Recording<'a> {
    /// The sink receiving each batch.
    pub sink: Option<&'a mut dyn BatchSink>,
    /// The recorded part of an interrupted run.
    pub resume: Option<Resume<'a>>,
}

/// What [`super::run_recorded`] gives: the run's summary and the warnings
/// standing over the whole run, its resumed parts included.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedRun {
    /// The summary, over every row of the run (replayed ones included).
    pub summary: RunSummary,
    /// The warnings about the suite's configuration over every row of
    /// the run, as an uninterrupted run gives them.
    pub warnings: RunWarnings,
}
