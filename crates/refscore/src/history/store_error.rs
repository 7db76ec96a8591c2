//! Why a run store cannot be used, in words that name the file.

use std::path::PathBuf;

/// A store that cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The file is not a refscore store (not SQLite, or another
    /// program's database); it is left untouched.
    #[error("{}: not a refscore run store ({why}); it was left untouched: move it away or choose another store with --store", path.display())]
    Foreign {
        /// The file.
        path: PathBuf,
        /// What gave it away.
        why: String,
    },
    /// The store was written by a newer refscore.
    #[error("{}: store schema version {found} is newer than this refscore understands ({known}); upgrade refscore", path.display())]
    Newer {
        /// The file.
        path: PathBuf,
        /// Its schema version.
        found: i64,
        /// The newest this build knows.
        known: i64,
    },
    /// No store at the path (for commands that only read).
    #[error("{}: no run store here (`refscore run` records runs in `.refscore/runs.db` beside the suite file: name that file with --store or REFSCORE_STORE, or the suite with `runs list --suite FILE`)", path.display())]
    Missing {
        /// The path looked at.
        path: PathBuf,
    },
    /// The path no longer names the file this store opened (deleted, or
    /// another file put in its place): nothing more is written, so that a
    /// replacement is never mixed with this file's log (see
    /// [`crate::history::Store::moved`]).
    #[error("{}: the run store was deleted or replaced since it was opened; nothing more is written to it", path.display())]
    Moved {
        /// The store's path.
        path: PathBuf,
    },
    /// No run with this id.
    #[error("{}: no run {id}", path.display())]
    NoRun {
        /// The store.
        path: PathBuf,
        /// The id asked for.
        id: i64,
    },
    /// A run that cannot be used for what was asked; `message` completes
    /// the sentence `run N …`.
    #[error("{}: run {id} {message}", path.display())]
    Run {
        /// The store.
        path: PathBuf,
        /// The run.
        id: i64,
        /// Why not.
        message: String,
    },
    /// A recorded run whose stored data cannot be decoded (written by a
    /// damaged disk or edited by hand). Commands that choose among runs
    /// pass over it; commands that name it fail with this.
    #[error("{}: run {id}: stored {what} cannot be read: {message}", path.display())]
    Damaged {
        /// The store.
        path: PathBuf,
        /// The run.
        id: i64,
        /// Which part: `summary`, `scores`, `rows`, `information`.
        what: &'static str,
        /// The decoder's complaint.
        message: String,
    },
    /// The file is damaged: `PRAGMA quick_check`, run before a command's
    /// first write, found a fault in its structure, or SQLite reported the
    /// file malformed while reading it. The command writes nothing to it
    /// from then on.
    #[error("{}: the store is damaged ({found}); {}: move it away to start a new one", path.display(), if *untouched { "it was left untouched" } else { "nothing more was written to it" })]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What SQLite found.
        found: String,
        /// Whether the damage was found before this command wrote
        /// anything (else it wrote before the damage showed).
        untouched: bool,
    },
    /// SQLite or file-system failure (read-only location, full disk,
    /// corrupt file).
    #[error("{}: {message}", path.display())]
    Io {
        /// The store.
        path: PathBuf,
        /// What failed.
        message: String,
    },
}

/// SQLite's error in words, with a hint for the usual causes.
pub(super) fn describe(e: &rusqlite::Error) -> String {
    use rusqlite::ErrorCode;
    let hint = match e.sqlite_error_code() {
        Some(ErrorCode::ReadOnly | ErrorCode::CannotOpen | ErrorCode::PermissionDenied) => {
            " (is the location writable? choose another store with --store, or --no-store)"
        }
        Some(ErrorCode::DiskFull) => " (the disk is full)",
        Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase) => {
            " (the store is damaged; refscore writes nothing more to it: move it away to start a new one)"
        }
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => {
            " (another process held the store for too long)"
        }
        _ => "",
    };
    format!("{e}{hint}")
}
