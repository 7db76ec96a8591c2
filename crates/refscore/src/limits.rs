//! The declared size limits on what one row may hold.
//!
//! Every metric's cost grows at most about linearly with its inputs once
//! the limits of its own (edit distances, pairing by similarity, claim
//! checks) apply; these two bound the inputs themselves, so that no single
//! row can stall a run or exhaust its memory. Past a limit, the row (or
//! the evaluation) gets a clear error of its own and the run goes on.

/// The largest text one input may be, in bytes: 8 MiB.
///
/// An input given as a string longer than this (an `output` of 20 MB,
/// say) is not evaluated: the evaluation fails with
/// [`crate::error::EvalError::InputTooLarge`], naming the input. At this
/// size the slowest text metrics take seconds for one row (`factuality`
/// about 8 s and 800 MB on two texts of prose). Values that are not strings are bounded by
/// [`MAX_ROW_BYTES`] when read from a file.
pub const MAX_TEXT_BYTES: usize = 8 << 20;

/// The largest row a dataset or a `--pairs` file may hold, in bytes:
/// 64 MiB, for one line of a JSONL file.
///
/// A longer line is skipped without being held in memory (only the
/// bytes after its end are kept), and its row is an error that names the
/// line and its length; the rows after it are read as usual.
pub const MAX_ROW_BYTES: usize = 64 << 20;

/// Why a row read from a file was refused: its `part` (`line`, `element`,
/// `record`) is `length` bytes long, over `limit`; the one message every
/// dataset reader gives.
pub(crate) fn too_long(part: &str, length: u64, limit: impl std::fmt::Display) -> String {
    format!("the {part} is {length} bytes long, over the limit of {limit} bytes for one row")
}
