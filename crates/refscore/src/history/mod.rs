//! Run history: every run recorded in an embedded store, compared with a
//! baseline row by row and field by field, and resumable after a crash.
//!
//! * [`RunScores`]: what a comparison reads of a run, from the run being
//!   recorded, the store or an output folder;
//! * [`Comparison`]: per-evaluator status (Regtrace's clean / warning /
//!   critical / new), row deltas, field moves, the paired test;
//! * [`RegressionPolicy`]: the suite's baseline strategy, tolerances and
//!   the status that fails the gate.

mod batches;
mod compare;
mod file_hash;
mod folder;
mod policy;
mod run_info;
mod scores;
mod significance;
mod store;
mod store_error;

pub use batches::{Recorder, ResultsReader};
pub use compare::{
    BaselineInfo, Comparison, EvaluatorComparison, FieldDelta, MAX_FIELD_DELTAS,
    MAX_REGRESSED_ROWS, ONLY_COMPLETED, RowChange, RowCounts, RowDelta, SUITE_CHANGED,
    evaluator_gone,
};
pub use file_hash::{hash_file, hash_input};
pub(crate) use folder::baseline_summary;
pub use folder::{FolderError, read_folder};
pub use policy::{
    DEFAULT_ALPHA, DEFAULT_CRITICAL, DEFAULT_TOLERANCE, FailOn, RegressionPolicy, RegressionStatus,
    Strategy, relative_change, status_for,
};
pub use run_info::{
    GitInfo, RunInfo, RunStatus, compact_timestamp, now_rfc3339, rfc3339, unix_now,
};
pub use scores::{Cell, EvaluatorScores, FieldAccuracy, RowRecord, RowScores, RunScores};
pub use significance::{PairedTest, PairedTestKind, paired_t};
pub use store::{RunEntry, Store};
pub use store_error::StoreError;
