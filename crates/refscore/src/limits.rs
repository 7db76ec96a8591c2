//! The declared size limits on what one row may hold.
//!
//! Every metric's cost grows at most about linearly with its inputs once
//! the limits of its own (edit distances, pairing by similarity, claim
//! checks) apply; these two bound the inputs themselves, so that no single
//! row can stall a run or exhaust its memory. Past a limit, the row (or
//! the evaluation) gets a clear error of its own and the run goes on.
//!
//! Files are read whole only through [`read_text`], which never reads past
//! its limit: [`MAX_CONFIG_BYTES`] for configuration files,
//! [`MAX_TEXT_BYTES`] for the inputs `refscore compare` reads.

mod read;

pub use read::{
    ReadError, ReadErrorKind, bounded_lines, open_regular, read_regular_text, read_text,
    read_text_from,
};

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

/// The longest line of a `results.jsonl` read back (`report FOLDER`,
/// `run --baseline FOLDER`), in bytes: 256 MiB, four times the largest
/// row. A run's lines are far shorter (their details' values are cut
/// short); a longer one is damage, refused before it is held whole.
pub const MAX_RESULT_LINE_BYTES: usize = 4 * MAX_ROW_BYTES;

/// The most row bytes one batch of a run holds: 16 MiB.
///
/// A run reads and evaluates its rows a batch at a time (at most
/// [`crate::runner::BATCH_ROWS`] rows) and holds a batch's results until
/// its last row is done. A row's evaluation takes several times its text
/// in memory (an object nested 5,000 levels, 148 KB of text, about
/// 3.4 MB), so 1,024 such rows held gigabytes at once. A batch therefore
/// also ends once its rows weigh this bound and it has a row for every
/// worker, and the reader holds at most twice this bound ahead of the
/// batch being gathered, besides the chunk of rows it is reading and the
/// rest of a chunk that a batch ended in the middle of (which the next
/// batch takes first). Rows of a
/// few kilobytes still make batches of 1,024. A JSONL row weighs its
/// line's bytes (it is parsed by the workers); a row of another format is
/// parsed as it is read, and weighs about what its value holds in memory
/// ([`crate::json::held_bytes`]), several times its text.
pub const MAX_BATCH_BYTES: usize = 16 << 20;

/// The largest configuration file read, in bytes: 16 MiB.
///
/// Applies to a suite file, a json_match rules file (`rules`,
/// `rules_from_schema`, `compare --rules`), a JSON Schema file (the format
/// metric's `json_schema: {file}` and the files its `$ref`s name) and a
/// `compare --weights` file. A longer file is refused with a configuration
/// error naming it and this limit (exit code 2), before any of a regular
/// file is read; a pipe or a device is read no further than the limit.
pub const MAX_CONFIG_BYTES: usize = 16 << 20;

/// The longest `summary.json` read back from an output folder (by
/// `refscore report` and a folder given as a baseline): 64 MiB. A run's
/// summary holds aggregates only (its field table is the largest part, a
/// few hundred bytes a field), so a longer file, or a device, is not one.
pub const MAX_SUMMARY_BYTES: usize = 64 << 20;

/// The most nodes a mapping's JSONPath may visit in one row: 10 million.
///
/// A path with two or more descendant segments (`$..a..b`) visits, per
/// segment after the first, every node below each node the one before
/// matched: on a deep row that is the row's size times its depth to the
/// power of the segments after the first (`$..*..*..*` on a row nested
/// 800 levels took 21 s and 850 MB; 3,000 levels exhausted memory). Such a
/// path is queried only when that bound, nodes × (depth + 1)^(segments − 1),
/// is at most this; otherwise the row's input fails with a
/// [`crate::MappingError`] naming the path. Paths with one descendant
/// segment or none cost at most one visit per node and are never refused.
pub const MAX_PATH_VISITS: u64 = 10_000_000;

/// The most distinct judgements json_match's field judges ask for one
/// document: 100.
///
/// Each is one LLM request, and a row's requests are sent one after the
/// other: a document with 100,000 array elements under a `judge:` rule
/// would otherwise ask 100,000 questions for one row. Past this, the
/// remaining unresolved fields keep the comparator's verdict (wrong, or
/// its partial credit) and their detail says why; the score's
/// metadata counts them in `judge_skipped`.
pub const MAX_FIELD_JUDGEMENTS: usize = 100;

/// The most fields json_match's embedding rules compare in one document:
/// 4,096 (at most 8,192 distinct texts, 32 requests). Past this, the
/// remaining fields keep the comparator's verdict, as past
/// [`MAX_FIELD_JUDGEMENTS`], and are counted in `judge_skipped`.
pub const MAX_EMBEDDED_FIELDS: usize = 4_096;

/// The most details one comparison of a JSON metric keeps: 10,000; and
/// the most failed details `format` keeps of its `json_schema` sub-check
/// and of each Markdown rule (a `format` score keeps at most this many per
/// such part).
///
/// A detail holds its path and both values shown as text, some hundreds of
/// bytes: two 57 MB arrays of numbers that differ everywhere made 3.3
/// million of them, 1.6 GB for one row, though a row's result lists 10.
/// Past this, the differences are still counted (score, field counts,
/// field statistics) and one closing `+ N more` detail stands for those
/// not kept.
pub const MAX_KEPT_DETAILS: usize = 10_000;

/// The most bytes of printed paths one comparison of a JSON metric keeps:
/// 1 MiB, for its details, and again for the per-field tallies of one
/// evaluation (the run's field table; for json_similarity, every target's
/// together, each path with its target's prefix). A detail's path is
/// measured by what it holds in memory ([`crate::path::Seg::kept_len`]:
/// each segment's own size and its key's bytes, never less than it prints
/// in unquoted; a key that needs quotes prints four bytes more, and its
/// escapes): measured as printed, an object nested 5,000 levels kept 26 MB
/// of paths in memory a row. A field's path is measured as printed.
///
/// A path is as long as the node is deep, and every compared leaf below a
/// long key repeats it: a 0.9 MB row whose 20,000 differing leaves sat
/// under one 200 KB key made 4 GB of details and field paths (75 s, 19 GB
/// of memory), and an object nested 20,000 levels with a leaf at each
/// made 500 MB. Past this, details are omitted as past
/// [`MAX_KEPT_DETAILS`] (counted, still scored, one closing `+ N more`
/// detail), and the comparisons of fields whose paths did not fit are
/// counted in the run's `fields_dropped` instead of its field table.
pub const MAX_KEPT_PATH_BYTES: usize = 1 << 20;

/// Why a row read from a file was refused: its `part` (`line`, `element`,
/// `record`) is `length` bytes long, over `limit`; the one message every
/// dataset reader gives.
pub(crate) fn too_long(part: &str, length: u64, limit: impl std::fmt::Display) -> String {
    format!("the {part} is {length} bytes long, over the limit of {limit} bytes for one row")
}
