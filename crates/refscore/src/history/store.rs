//! The run store: an SQLite file (`.refscore/runs.db` beside the suite by
//! default) holding every run, batch by batch.
//!
//! * WAL mode and a busy timeout: several runs can record at once.
//! * Versioned schema: `PRAGMA user_version` counts the migrations
//!   applied, `PRAGMA application_id` marks the file as a refscore store.
//!   A file that is not SQLite, or an SQLite database of another program,
//!   is refused and never written to.
//! * Each batch of rows is one transaction: its rows' results (the lines
//!   of `results.jsonl`, zstd-compressed), what the summary needs of each
//!   row, and the batch's field statistics. A run killed at any point
//!   keeps every batch committed before, and resumes after the last one.
//! * A damaged file is never written to: `PRAGMA quick_check` runs before
//!   a command's first write, and once SQLite has reported the file
//!   malformed, nothing more is written through any connection of the
//!   command.
//! * A store that cannot be written (a read-only folder or mount) can
//!   still be read ([`Store::open_read_only`]).

use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

// Write transactions are IMMEDIATE: they take the write lock at once and
// wait for it (busy timeout), instead of failing when another process
// wrote between their read and their write.
use rusqlite::{
    Connection, OpenFlags, OptionalExtension, Transaction, TransactionBehavior, params,
};

use super::policy::RegressionPolicy;
use super::run_info::{RunInfo, RunStatus};
use super::store_error::StoreError;
use super::store_error::describe;

/// `PRAGMA application_id` of a refscore store ("RSC1").
const APPLICATION_ID: i32 = 0x5253_4331;

/// The schema, one migration per version; `user_version` counts those applied.
const MIGRATIONS: &[&str] = &[
    // 1: runs and their batches.
    "CREATE TABLE runs (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        suite TEXT NOT NULL,
        status TEXT NOT NULL,
        started_at TEXT NOT NULL,
        ended_at TEXT,
        pinned INTEGER NOT NULL DEFAULT 0,
        gate_passed INTEGER,
        rows_done INTEGER NOT NULL DEFAULT 0,
        duration_s REAL NOT NULL DEFAULT 0,
        suite_hash TEXT NOT NULL,
        dataset_hash TEXT NOT NULL,
        git_commit TEXT,
        git_branch TEXT,
        info TEXT NOT NULL,
        policy TEXT NOT NULL,
        summary TEXT
    );
    CREATE INDEX runs_by_suite ON runs (suite, id);
    CREATE TABLE batches (
        run INTEGER NOT NULL,
        first INTEGER NOT NULL,
        count INTEGER NOT NULL,
        records BLOB NOT NULL,
        cells BLOB NOT NULL,
        fields BLOB NOT NULL,
        lines BLOB NOT NULL,
        PRIMARY KEY (run, first)
    ) WITHOUT ROWID;",
];

/// The largest store whose whole file is checked before the first write
/// (`PRAGMA quick_check`: about 0.3 s per 176 MB from the page cache, 2-3 s
/// from a slow disk); a larger one has its `runs` table checked.
const FULL_CHECK_MAX_BYTES: u64 = 1 << 30;

/// How long a writer waits for another one to finish, in milliseconds.
const BUSY_TIMEOUT_MS: u64 = 60_000;

/// One run as listed.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RunEntry {
    /// The run's id.
    pub id: i64,
    /// The suite's name.
    pub suite: String,
    /// Its status.
    pub status: RunStatus,
    /// When it started (RFC 3339).
    pub started_at: String,
    /// When it ended.
    pub ended_at: Option<String>,
    /// Whether it is the suite's pinned baseline.
    pub pinned: bool,
    /// Whether its gate passed (finished runs).
    pub gate_passed: Option<bool>,
    /// Rows recorded.
    pub rows: u64,
    /// Time spent evaluating, in seconds.
    pub duration_s: f64,
    /// The git commit it ran at.
    pub git_commit: Option<String>,
    /// The git branch.
    pub git_branch: Option<String>,
    /// Everything else known about it (its suite and start time only when
    /// `damaged`).
    pub info: RunInfo,
    /// Which part of the run's record cannot be read and why
    /// (`summary: …`, `information: …`), when one cannot: such a run is
    /// listed, but no command uses it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub damaged: Option<String>,
}

/// What [`Store::state`] found.
struct StoreState {
    /// `PRAGMA user_version`: migrations applied (0: the file holds no
    /// tables yet).
    version: i64,
}

/// What SQLite found wrong with a damaged file, shared by a command's
/// connections to it (the recorder's thread has its own): once set,
/// nothing more is written.
pub(super) type Damage = Arc<Mutex<Option<String>>>;

/// An open run store.
#[derive(Debug)]
pub struct Store {
    pub(super) conn: Connection,
    pub(super) path: PathBuf,
    /// Set when SQLite reports the file damaged.
    pub(super) damage: Damage,
    /// Whether `PRAGMA quick_check` passed (it runs before the first write).
    pub(super) checked: Cell<bool>,
    /// Whether this command wrote anything yet (through this connection,
    /// or the one that started the recorder's).
    pub(super) wrote: Cell<bool>,
    /// The code of the last SQLite error seen, for [`Store::open_existing`]'s
    /// fallback.
    last_code: Cell<Option<rusqlite::ErrorCode>>,
    /// The file opened, as (device, inode), for [`Store::moved`].
    identity: Option<(u64, u64)>,
}

/// The (device, inode) of the file at `path`; `None` where it cannot be
/// read (or files have no such identity: not Unix).
fn file_identity(path: &Path) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

/// What a file opened for reading holds.
enum Holds {
    /// A store of this build's schema.
    Store,
    /// Nothing yet: an empty file, or an SQLite file with no tables.
    Nothing,
}

/// A store with no runs, in memory: what a file that holds nothing yet
/// reads as (a reading command writes nothing to it).
fn empty_schema() -> Result<Connection, rusqlite::Error> {
    let conn = Connection::open_in_memory()?;
    for sql in MIGRATIONS {
        conn.execute_batch(sql)?;
    }
    Ok(conn)
}

impl Store {
    /// Opens the store at `path`, creating it (and its folder) when absent.
    ///
    /// # Errors
    /// The file is not a refscore store, is newer than this build, or
    /// cannot be created or opened.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        // `runs/` names a folder even before it exists.
        let folder_path = path.as_os_str().as_encoded_bytes().last() == Some(&b'/');
        if path.is_dir() || folder_path {
            return Err(StoreError::Io {
                path: path.to_path_buf(),
                message: "a folder, not a run store (a run store is one file, such as \
                          `.refscore/runs.db`: name the file)"
                    .to_owned(),
            });
        }
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| StoreError::Io {
                path: path.to_path_buf(),
                message: format!("creating folder {}: {e}", dir.display()),
            })?;
        }
        Store::open_with(path, OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE)
    }

    /// Opens an existing store. A store that cannot be written here (a
    /// read-only folder or mount: SQLite cannot create its `-shm` file
    /// beside it) is opened read-only as by [`Store::open_read_only`]: it
    /// can be read, and a write fails with SQLite's "read-only" error (a
    /// file that holds nothing yet then reads as a store with no runs,
    /// where nothing is found to write).
    ///
    /// # Errors
    /// No store at `path`, or as [`Store::open`].
    pub fn open_existing(path: &Path) -> Result<Store, StoreError> {
        if !path.is_file() {
            return Err(StoreError::Missing { path: path.to_path_buf() });
        }
        match Store::connect(path, OpenFlags::SQLITE_OPEN_READ_WRITE) {
            Ok(store) => Ok(store),
            Err((e, Some(rusqlite::ErrorCode::CannotOpen | rusqlite::ErrorCode::ReadOnly))) => {
                Store::open_read_only(path).map_err(|_| e)
            }
            Err((e, _)) => Err(e),
        }
    }

    /// Opens an existing store for reading only: nothing is written to it,
    /// nor beside it when its folder cannot be written.
    ///
    /// SQLite reads a store in WAL mode through an index file beside it
    /// (`runs.db-shm`), which it creates when absent. When it cannot (a
    /// read-only folder or mount) and no write-ahead log beside the store
    /// holds changes (`runs.db-wal` absent or empty: every commit is in the
    /// file), the store is read as an immutable file, without locks: a
    /// process that can write there after all (one with more rights) and
    /// writes while it is read could make the reading command fail; it
    /// never changes the file. With changes in its write-ahead log, such a
    /// store cannot be read here, and the error says to copy it.
    ///
    /// # Errors
    /// No store at `path`, not a refscore store, newer than this build, or
    /// it cannot be read.
    pub fn open_read_only(path: &Path) -> Result<Store, StoreError> {
        if !path.is_file() {
            return Err(StoreError::Missing { path: path.to_path_buf() });
        }
        match Store::connect(path, OpenFlags::SQLITE_OPEN_READ_ONLY) {
            Ok(store) => Ok(store),
            // CANTOPEN on a read-only mount (or an immutable file); READONLY
            // (`SQLITE_READONLY_DIRECTORY`) in a folder this user cannot
            // write: SQLite cannot create the `-shm` file in either.
            Err((e, Some(rusqlite::ErrorCode::CannotOpen | rusqlite::ErrorCode::ReadOnly))) => {
                let wal = wal_path(path);
                if std::fs::metadata(&wal).is_ok_and(|m| m.len() > 0) {
                    return Err(StoreError::Io {
                        path: path.to_path_buf(),
                        message: format!(
                            "cannot be read here: its folder cannot be written, and its write-ahead log {} holds changes that SQLite reads only with a writable folder; copy the store together with that file to a writable folder and read the copy ({e})",
                            wal.display()
                        ),
                    });
                }
                Store::connect(path, IMMUTABLE).map_err(|(e, _)| e)
            }
            Err((e, _)) => Err(e),
        }
    }

    fn open_with(path: &Path, flags: OpenFlags) -> Result<Store, StoreError> {
        Store::connect(path, flags).map_err(|(e, _)| e)
    }

    /// Opens the file with `flags` ([`IMMUTABLE`]: read-only, as an
    /// immutable file) and checks it; on failure, the error and SQLite's
    /// code for it.
    fn connect(
        path: &Path,
        flags: OpenFlags,
    ) -> Result<Store, (StoreError, Option<rusqlite::ErrorCode>)> {
        check_header(path).map_err(|e| (e, None))?;
        let io = |e: rusqlite::Error| {
            let code = e.sqlite_error_code();
            (StoreError::Io { path: path.to_path_buf(), message: describe(&e) }, code)
        };
        let conn = if flags == IMMUTABLE {
            let uri = immutable_uri(path).ok_or_else(|| {
                (
                    StoreError::Io {
                        path: path.to_path_buf(),
                        message: "its folder cannot be written, and its path cannot be given to SQLite as an immutable file (not UTF-8, or not a Unix path): it cannot be read here".to_owned(),
                    },
                    None,
                )
            })?;
            Connection::open_with_flags(
                uri,
                OpenFlags::SQLITE_OPEN_READ_ONLY
                    | OpenFlags::SQLITE_OPEN_URI
                    | OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )
        } else {
            Connection::open_with_flags(path, flags | OpenFlags::SQLITE_OPEN_NO_MUTEX)
        }
        .map_err(io)?;
        conn.busy_timeout(std::time::Duration::from_millis(BUSY_TIMEOUT_MS)).map_err(io)?;
        let mut store = Store {
            conn,
            path: path.to_path_buf(),
            damage: Arc::default(),
            checked: Cell::new(false),
            wrote: Cell::new(false),
            last_code: Cell::new(None),
            identity: file_identity(path),
        };
        let opened = if flags.contains(OpenFlags::SQLITE_OPEN_READ_WRITE) {
            store.migrate()
        } else {
            match store.current() {
                Ok(Holds::Store) => Ok(()),
                // Read as the store it becomes at its first run: one
                // with no runs (a command that writes creates it).
                Ok(Holds::Nothing) => empty_schema().map(|conn| store.conn = conn).map_err(|e| {
                    StoreError::Io { path: path.to_path_buf(), message: describe(&e) }
                }),
                Err(e) => Err(e),
            }
        };
        match opened {
            Ok(()) => Ok(store),
            Err(e) => Err((e, store.last_code.get())),
        }
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Empties the write-ahead log beside the store's path into the file
    /// this store opened (`PRAGMA wal_checkpoint(TRUNCATE)`), once the path
    /// names another file ([`Store::moved`]): the log is found by name, so
    /// frames of this file left in it would be read into the other one.
    /// Best effort: a failure leaves the log as it was.
    pub fn release_log(&self) {
        let _ = self.conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()));
    }

    /// Whether the store's path no longer names the file this store opened
    /// (it was deleted, or another file put in its place): what was written
    /// since went into a file no later command will find. Always `false`
    /// where that cannot be told (files without an identity: not Unix).
    pub fn moved(&self) -> bool {
        self.identity.is_some() && file_identity(&self.path) != self.identity
    }

    pub(super) fn io(&self, e: &rusqlite::Error) -> StoreError {
        let code = e.sqlite_error_code();
        self.last_code.set(code);
        if matches!(
            code,
            Some(rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase)
        ) {
            let mut damage = self.damage.lock().unwrap_or_else(PoisonError::into_inner);
            damage.get_or_insert_with(|| e.to_string());
        }
        StoreError::Io { path: self.path.clone(), message: describe(e) }
    }

    /// Called before each write: refuses to write to a damaged file.
    ///
    /// The first time, the file is checked ([`Store::check`]). Once SQLite
    /// has reported the file malformed to any connection of this command,
    /// nothing more is written.
    pub(super) fn before_write(&self) -> Result<(), StoreError> {
        // Writing on into a file whose path now names another would put
        // this file's pages into the log the other one reads (`-wal` is
        // found by name): the replacement would be damaged.
        if self.moved() {
            return Err(StoreError::Moved { path: self.path.clone() });
        }
        let seen = self.damage.lock().unwrap_or_else(PoisonError::into_inner).clone();
        if let Some(found) = seen {
            return Err(self.corrupt(found));
        }
        if !self.checked.get() {
            self.check(FULL_CHECK_MAX_BYTES)?;
            self.checked.set(true);
        }
        Ok(())
    }

    /// `PRAGMA quick_check` of a store of at most `full_max` bytes: the
    /// structure of the whole file (every b-tree page, overflow chain and
    /// the free list; not the bytes of the values stored, which their
    /// decoders check). A larger store: of the `runs` table and its index
    /// alone (`PRAGMA quick_check(runs)`), whose cost does not grow with
    /// the rows recorded.
    fn check(&self, full_max: u64) -> Result<(), StoreError> {
        let fail = |e: rusqlite::Error| {
            let io = self.io(&e);
            let seen = self.damage.lock().unwrap_or_else(PoisonError::into_inner).clone();
            seen.map_or(io, |found| self.corrupt(found))
        };
        let bytes: i64 = self
            .conn
            .query_row(
                "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()",
                [],
                |r| r.get(0),
            )
            .map_err(fail)?;
        let sql = if u64::try_from(bytes).unwrap_or(u64::MAX) <= full_max {
            "PRAGMA quick_check(1)"
        } else {
            "PRAGMA quick_check(runs)"
        };
        let found = self.conn.query_row(sql, [], |r| r.get::<_, String>(0)).map_err(fail)?;
        if found == "ok" {
            return Ok(());
        }
        // Its report begins with `*** in database main ***`.
        let found = found
            .lines()
            .filter(|l| !l.starts_with("***") && !l.trim().is_empty())
            .collect::<Vec<_>>()
            .join("; ");
        let found = format!("PRAGMA quick_check: {found}");
        *self.damage.lock().unwrap_or_else(PoisonError::into_inner) = Some(found.clone());
        Err(self.corrupt(found))
    }

    /// Notes that this connection wrote.
    fn wrote(&self) {
        self.wrote.set(true);
    }

    fn corrupt(&self, found: String) -> StoreError {
        StoreError::Corrupt { path: self.path.clone(), found, untouched: !self.wrote.get() }
    }

    /// Checks, without writing, that the file is a refscore store of this
    /// build's schema, or holds nothing yet (an empty file, or an SQLite
    /// file with no tables: a store before its first run).
    fn current(&self) -> Result<Holds, StoreError> {
        let tx = Transaction::new_unchecked(&self.conn, TransactionBehavior::Deferred)
            .map_err(|e| self.io(&e))?;
        let state = self.state(&tx)?;
        tx.commit().map_err(|e| self.io(&e))?;
        let known = MIGRATIONS.len() as i64;
        if state.version == 0 {
            return Ok(Holds::Nothing);
        }
        if state.version < known {
            return Err(StoreError::Io {
                path: self.path.clone(),
                message: format!(
                    "store schema version {} is older than this refscore's ({known}), and only a command that writes (`refscore run`) brings it up to date",
                    state.version
                ),
            });
        }
        Ok(Holds::Store)
    }

    /// Checks that the file is ours and brings its schema up to date.
    fn migrate(&self) -> Result<(), StoreError> {
        let known = MIGRATIONS.len() as i64;
        // A consistent look at the file: another process may be creating
        // the same store right now (its tables and its application id are
        // committed together).
        let state = {
            let tx = Transaction::new_unchecked(&self.conn, TransactionBehavior::Deferred)
                .map_err(|e| self.io(&e))?;
            let state = self.state(&tx)?;
            tx.commit().map_err(|e| self.io(&e))?;
            state
        };
        if state.version == known {
            return self.wal();
        }
        // WAL lets readers and one writer work at once; NORMAL syncs at
        // checkpoints, so a power loss can lose the last commits but never
        // corrupts the file.
        self.wal()?;
        let tx = Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)
            .map_err(|e| self.io(&e))?;
        // Looked at again under the write lock: another process may have
        // created or migrated the store while this one waited.
        let state = self.state(&tx)?;
        for (i, sql) in
            MIGRATIONS.iter().enumerate().skip(usize::try_from(state.version).unwrap_or(0))
        {
            tx.execute_batch(sql).map_err(|e| self.io(&e))?;
            tx.execute_batch(&format!("PRAGMA user_version = {}", i + 1))
                .map_err(|e| self.io(&e))?;
        }
        tx.execute_batch(&format!("PRAGMA application_id = {APPLICATION_ID}"))
            .map_err(|e| self.io(&e))?;
        tx.commit().map_err(|e| self.io(&e))
    }

    /// Switches the file to WAL mode (once: the mode is kept in the file)
    /// and this connection to NORMAL syncing.
    ///
    /// SQLite answers "busy" at once, without waiting, when another process
    /// holds the file while the journal mode changes (two runs creating one
    /// store together): that is retried here for as long as the busy
    /// timeout.
    fn wal(&self) -> Result<(), StoreError> {
        let start = std::time::Instant::now();
        let mut pause = std::time::Duration::from_millis(5);
        loop {
            let mode: Result<String, rusqlite::Error> =
                self.conn.query_row("PRAGMA journal_mode", [], |r| r.get(0));
            let switched = match mode {
                Ok(m) if m.eq_ignore_ascii_case("wal") => Ok(()),
                Ok(_) => self.conn.query_row("PRAGMA journal_mode = WAL", [], |_| Ok(())),
                Err(e) => Err(e),
            };
            match switched {
                Ok(()) => break,
                Err(e)
                    if matches!(
                        e.sqlite_error_code(),
                        Some(
                            rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
                        )
                    ) && start.elapsed() < std::time::Duration::from_millis(BUSY_TIMEOUT_MS) =>
                {
                    std::thread::sleep(pause);
                    pause = (pause * 2).min(std::time::Duration::from_millis(200));
                }
                Err(e) => return Err(self.io(&e)),
            }
        }
        self.conn.execute_batch("PRAGMA synchronous = NORMAL;").map_err(|e| self.io(&e))
    }

    /// The file's schema version, checking that it is a refscore store
    /// (or an empty file that becomes one).
    fn state(&self, tx: &Transaction<'_>) -> Result<StoreState, StoreError> {
        let pragma = |name: &str| -> Result<i64, StoreError> {
            tx.query_row(&format!("PRAGMA {name}"), [], |r| r.get::<_, i64>(0))
                .map_err(|e| self.io(&e))
        };
        let app = pragma("application_id")?;
        let tables: i64 = tx
            .query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))
            .map_err(|e| self.io(&e))?;
        if app != i64::from(APPLICATION_ID) && (app != 0 || tables > 0) {
            return Err(StoreError::Foreign {
                path: self.path.clone(),
                why: if app == 0 {
                    "an SQLite database of another program".to_owned()
                } else {
                    format!("application id {app:#x}")
                },
            });
        }
        let version = pragma("user_version")?;
        let known = MIGRATIONS.len() as i64;
        if version > known {
            return Err(StoreError::Newer { path: self.path.clone(), found: version, known });
        }
        if version == 0 && tables > 0 {
            // Migrations set the version with the tables they create.
            return Err(self.corrupt(format!(
                "it holds {} without a schema version",
                crate::text::counted(tables.unsigned_abs(), "table", "tables")
            )));
        }
        Ok(StoreState { version })
    }

    /// Records the start of a run; returns its id.
    ///
    /// # Errors
    /// The store cannot be written.
    pub fn begin(&self, info: &RunInfo, policy: &RegressionPolicy) -> Result<i64, StoreError> {
        self.before_write()?;
        let info_json = serde_json::to_string(info).unwrap_or_default();
        let policy_json = serde_json::to_string(policy).unwrap_or_default();
        self.conn
            .execute(
                "INSERT INTO runs (suite, status, started_at, suite_hash, dataset_hash, git_commit, git_branch, info, policy)
                 VALUES (?1, 'running', ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                params![
                    info.suite,
                    info.started_at,
                    info.suite_hash,
                    info.dataset_hash,
                    info.git.as_ref().map(|g| g.commit.as_str()),
                    info.git.as_ref().and_then(|g| g.branch.as_deref()),
                    info_json,
                    policy_json
                ],
            )
            .map_err(|e| self.io(&e))?;
        self.wrote();
        let id = self.conn.last_insert_rowid();
        let mut info = info.clone();
        info.id = Some(id);
        self.set_info(id, &info)?;
        Ok(id)
    }

    /// Claims run `id` for a resume: records `info` (whose `resumed`
    /// count is one more than the record read) and marks the run
    /// `running`, only if no other process resumed it since it was read.
    /// Two resumes of one run started together cannot both go on: the
    /// second would score the rows again and fail on the first's batches.
    ///
    /// # Errors
    /// [`StoreError::Run`] when another process claimed the run first;
    /// the store cannot be written.
    pub fn claim_resume(&self, id: i64, info: &RunInfo) -> Result<(), StoreError> {
        self.before_write()?;
        let json = serde_json::to_string(info).unwrap_or_default();
        let seen = i64::from(info.resumed.saturating_sub(1));
        let changed = self
            .conn
            .execute(
                "UPDATE runs SET info = ?1, status = 'running'
                 WHERE id = ?2 AND json_valid(info)
                   AND coalesce(json_extract(info, '$.resumed'), 0) = ?3",
                params![json, id, seen],
            )
            .map_err(|e| self.io(&e))?;
        self.wrote();
        if changed == 0 {
            return Err(StoreError::Run {
                path: self.path.clone(),
                id,
                message: "was resumed by another process just now; it goes on there".to_owned(),
            });
        }
        Ok(())
    }

    /// Replaces a run's recorded information.
    ///
    /// # Errors
    /// The store cannot be written.
    pub fn set_info(&self, id: i64, info: &RunInfo) -> Result<(), StoreError> {
        self.before_write()?;
        let json = serde_json::to_string(info).unwrap_or_default();
        self.conn
            .execute(
                "UPDATE runs SET info = ?1, status = 'running' WHERE id = ?2",
                params![json, id],
            )
            .map_err(|e| self.io(&e))?;
        self.wrote();
        Ok(())
    }

    /// Records the end of a run: its status, summary and gate verdict.
    ///
    /// # Errors
    /// The store cannot be written.
    pub fn finish(
        &self,
        id: i64,
        status: RunStatus,
        summary: &crate::summary::RunSummary,
    ) -> Result<(), StoreError> {
        self.before_write()?;
        let ended = summary.run.as_ref().and_then(|r| r.ended_at.clone());
        let json = serde_json::to_string(summary).unwrap_or_default();
        let info = summary.run.as_ref().map(|r| serde_json::to_string(r).unwrap_or_default());
        self.conn
            .execute(
                "UPDATE runs SET status = ?1, ended_at = ?2, gate_passed = ?3, summary = ?4,
                    duration_s = ?5, info = coalesce(?6, info) WHERE id = ?7",
                params![
                    status.as_str(),
                    ended,
                    summary.gate.passed,
                    json,
                    summary.duration_s,
                    info,
                    id
                ],
            )
            .map_err(|e| self.io(&e))?;
        self.wrote();
        Ok(())
    }

    /// Marks a run failed without a summary (the run stopped on an error).
    ///
    /// # Errors
    /// The store cannot be written.
    pub fn mark(&self, id: i64, status: RunStatus) -> Result<(), StoreError> {
        self.before_write()?;
        self.conn
            .execute(
                "UPDATE runs SET status = ?1, ended_at = ?2 WHERE id = ?3",
                params![status.as_str(), super::now_rfc3339(), id],
            )
            .map_err(|e| self.io(&e))?;
        self.wrote();
        Ok(())
    }

    /// Runs, newest first, optionally of one suite, at most `limit`.
    ///
    /// # Errors
    /// The store cannot be read.
    pub fn list(
        &self,
        suite: Option<&str>,
        limit: Option<usize>,
    ) -> Result<Vec<RunEntry>, StoreError> {
        let limit = limit.map_or(-1, |l| i64::try_from(l).unwrap_or(i64::MAX));
        let mut stmt = self
            .conn
            .prepare(&format!(
                "SELECT id, suite, status, started_at, ended_at, pinned, gate_passed, rows_done,
                        duration_s, git_commit, git_branch, info, {SUMMARY_OK}
                 FROM runs WHERE ?1 IS NULL OR suite = ?1 ORDER BY id DESC LIMIT ?2"
            ))
            .map_err(|e| self.io(&e))?;
        let rows = stmt
            .query_map(params![suite, limit], entry)
            .map_err(|e| self.io(&e))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.io(&e))?;
        Ok(rows)
    }

    /// One run.
    ///
    /// # Errors
    /// No such run, its stored information or summary is damaged, or the
    /// store cannot be read.
    pub fn get(&self, id: i64) -> Result<RunEntry, StoreError> {
        let entry = self
            .conn
            .query_row(
                &format!(
                    "SELECT id, suite, status, started_at, ended_at, pinned, gate_passed, rows_done,
                        duration_s, git_commit, git_branch, info, {SUMMARY_OK}
                 FROM runs WHERE id = ?1"
                ),
                [id],
                entry,
            )
            .optional()
            .map_err(|e| self.io(&e))?
            .ok_or(StoreError::NoRun { path: self.path.clone(), id })?;
        match entry.damaged {
            Some(why) => {
                let (what, message) = why.split_once(": ").unwrap_or((INFORMATION, &why));
                let what = if what == SUMMARY { SUMMARY } else { INFORMATION };
                Err(StoreError::Damaged {
                    path: self.path.clone(),
                    id,
                    what,
                    message: message.into(),
                })
            }
            None => Ok(entry),
        }
    }

    /// The latest run's id, optionally of one suite.
    ///
    /// # Errors
    /// The store cannot be read.
    pub fn latest(&self, suite: Option<&str>) -> Result<Option<i64>, StoreError> {
        self.conn
            .query_row(
                "SELECT max(id) FROM runs WHERE ?1 IS NULL OR suite = ?1",
                params![suite],
                |r| r.get::<_, Option<i64>>(0),
            )
            .map_err(|e| self.io(&e))
    }

    /// A finished run's summary (JSON text).
    ///
    /// # Errors
    /// No such run, it has no summary yet, its summary is damaged (not a
    /// JSON object with an `evaluators` list), or the store cannot be read.
    pub fn summary(&self, id: i64) -> Result<String, StoreError> {
        // Whether the summary is readable is the one check `list` and `get`
        // make too ([`SUMMARY_OK`]), done by SQLite: no parse here.
        let s: Option<(Option<String>, bool)> = self
            .conn
            .query_row(
                &format!("SELECT summary, {SUMMARY_OK} FROM runs WHERE id = ?1"),
                [id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .map_err(|e| self.io(&e))?;
        match s {
            None => Err(StoreError::NoRun { path: self.path.clone(), id }),
            Some((None, _)) => Err(StoreError::Run {
                path: self.path.clone(),
                id,
                message: "has not finished (resume it with `refscore run --resume`)".to_owned(),
            }),
            Some((Some(s), true)) => Ok(s),
            Some((Some(_), false)) => Err(StoreError::Damaged {
                path: self.path.clone(),
                id,
                what: SUMMARY,
                message: String::from(NOT_A_SUMMARY),
            }),
        }
    }

    /// The regression policy a run was started with.
    ///
    /// # Errors
    /// No such run, or the store cannot be read.
    pub fn policy(&self, id: i64) -> Result<RegressionPolicy, StoreError> {
        let text: Option<String> = self
            .conn
            .query_row("SELECT policy FROM runs WHERE id = ?1", [id], |r| r.get(0))
            .optional()
            .map_err(|e| self.io(&e))?;
        let text = text.ok_or(StoreError::NoRun { path: self.path.clone(), id })?;
        Ok(serde_json::from_str(&text).unwrap_or_default())
    }

    /// The completed runs of `suite` whose gate passed, newest first,
    /// started before the run `before` (when given: a resumed run is not
    /// compared with a run started after it), with the same row limit as
    /// the run they are for
    /// (`limit`): a smoke run of 10 rows is no baseline for a full run, nor
    /// the reverse. A run whose stored information is damaged has no known
    /// limit and is always among them: the caller reads each and can say
    /// which it passed over.
    ///
    /// # Errors
    /// The store cannot be read.
    pub fn passing(
        &self,
        suite: &str,
        before: Option<i64>,
        limit: Option<u64>,
    ) -> Result<Vec<i64>, StoreError> {
        let limit = limit.map(|l| i64::try_from(l).unwrap_or(i64::MAX));
        let mut stmt = self
            .conn
            .prepare(
                "SELECT id FROM runs WHERE suite = ?1 AND status = 'completed'
                   AND gate_passed = 1 AND (?2 IS NULL OR id < ?2)
                   AND (NOT json_valid(info) OR json_extract(info, '$.limit') IS ?3)
                 ORDER BY id DESC",
            )
            .map_err(|e| self.io(&e))?;
        let ids = stmt
            .query_map(params![suite, before, limit], |r| r.get::<_, i64>(0))
            .map_err(|e| self.io(&e))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| self.io(&e))?;
        Ok(ids)
    }

    /// How many completed runs of `suite` came before the run `before`
    /// (every one when `None`), and how many of those passed their gate:
    /// what a run with no baseline is told of its suite's history.
    ///
    /// # Errors
    /// The store cannot be read.
    pub fn completed(&self, suite: &str, before: Option<i64>) -> Result<(u64, u64), StoreError> {
        self.conn
            .query_row(
                "SELECT count(*), count(CASE WHEN gate_passed = 1 THEN 1 END) FROM runs
                 WHERE suite = ?1 AND status = 'completed' AND (?2 IS NULL OR id < ?2)",
                params![suite, before],
                |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)),
            )
            .map(|(all, passed)| (all.unsigned_abs(), passed.unsigned_abs()))
            .map_err(|e| self.io(&e))
    }

    /// The pinned run of `suite`.
    ///
    /// # Errors
    /// The store cannot be read.
    pub fn pinned(&self, suite: &str) -> Result<Option<i64>, StoreError> {
        self.conn
            .query_row(
                "SELECT max(id) FROM runs WHERE suite = ?1 AND pinned = 1",
                params![suite],
                |r| r.get::<_, Option<i64>>(0),
            )
            .map_err(|e| self.io(&e))
    }

    /// Pins a finished run as its suite's baseline (unpinning any other
    /// run of that suite), or unpins it.
    ///
    /// # Errors
    /// No such run, it has not finished, or the store cannot be written.
    pub fn pin(&self, id: i64, pinned: bool) -> Result<(), StoreError> {
        let run = self.get(id)?;
        if pinned && run.status != RunStatus::Completed {
            return Err(StoreError::Run {
                path: self.path.clone(),
                id,
                message: format!(
                    "is {}: only a completed run can be a baseline",
                    run.status.as_str()
                ),
            });
        }
        self.before_write()?;
        let tx = Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)
            .map_err(|e| self.io(&e))?;
        if pinned {
            tx.execute("UPDATE runs SET pinned = 0 WHERE suite = ?1", [&run.suite])
                .map_err(|e| self.io(&e))?;
        }
        tx.execute("UPDATE runs SET pinned = ?1 WHERE id = ?2", params![pinned, id])
            .map_err(|e| self.io(&e))?;
        tx.commit().map_err(|e| self.io(&e))?;
        self.wrote();
        Ok(())
    }

    /// Deletes all but the `keep` newest runs of each suite; pinned runs,
    /// runs still running and each suite's baselines are kept: the newest
    /// completed run whose gate passed, per row limit (the run the next
    /// run with that limit compares with, see [`Store::passing`]), so that
    /// a smoke run kept as the newest does not cost the full runs their
    /// baseline. Returns the ids deleted.
    ///
    /// # Errors
    /// The store cannot be written.
    pub fn prune(&self, keep: usize) -> Result<Vec<i64>, StoreError> {
        self.prune_with(keep, &[], None)
    }

    /// As [`Store::prune`], where the runs `abandoned`, still marked
    /// `running` but known to the caller to have no process behind them (a
    /// run killed outright), are deleted like finished runs (ids of runs
    /// that are not `running` change nothing), and, given `suite` (a suite
    /// name), only that suite's runs are pruned.
    ///
    /// # Errors
    /// The store cannot be written.
    pub fn prune_with(
        &self,
        keep: usize,
        abandoned: &[i64],
        suite: Option<&str>,
    ) -> Result<Vec<i64>, StoreError> {
        self.before_write()?;
        let keep = i64::try_from(keep).unwrap_or(i64::MAX);
        let abandoned = serde_json::to_string(abandoned).unwrap_or_else(|_| "[]".to_owned());
        let tx = Transaction::new_unchecked(&self.conn, TransactionBehavior::Immediate)
            .map_err(|e| self.io(&e))?;
        let ids: Vec<i64> = {
            let mut stmt = tx
                .prepare(
                    "SELECT id FROM runs r WHERE pinned = 0 AND (?3 IS NULL OR r.suite = ?3)
                       AND (status != 'running' OR id IN (SELECT value FROM json_each(?2)))
                       AND (SELECT count(*) FROM runs n WHERE n.suite = r.suite AND n.id > r.id) >= ?1
                       AND NOT (r.status = 'completed' AND r.gate_passed = 1 AND r.id = (
                           SELECT max(b.id) FROM runs b
                            WHERE b.suite = r.suite AND b.status = 'completed' AND b.gate_passed = 1
                              AND (CASE WHEN json_valid(b.info) THEN json_extract(b.info, '$.limit') END)
                                  IS (CASE WHEN json_valid(r.info) THEN json_extract(r.info, '$.limit') END)))
                     ORDER BY id",
                )
                .map_err(|e| self.io(&e))?;
            stmt.query_map(params![keep, abandoned, suite], |r| r.get(0))
                .map_err(|e| self.io(&e))?
                .collect::<Result<_, _>>()
                .map_err(|e| self.io(&e))?
        };
        for id in &ids {
            tx.execute("DELETE FROM batches WHERE run = ?1", [id]).map_err(|e| self.io(&e))?;
            tx.execute("DELETE FROM runs WHERE id = ?1", [id]).map_err(|e| self.io(&e))?;
        }
        tx.commit().map_err(|e| self.io(&e))?;
        self.wrote();
        Ok(ids)
    }

    /// Gives the pages that deleted runs left free back to the file system
    /// (SQLite's `VACUUM`: the file is rewritten, which needs about its
    /// size in free space): after a prune, the file shrinks instead of
    /// keeping its largest size for good.
    ///
    /// # Errors
    /// The store cannot be written, another process holds it, or there is
    /// not enough space to rewrite it.
    pub fn compact(&self) -> Result<(), StoreError> {
        self.before_write()?;
        self.conn.execute_batch("VACUUM").map_err(|e| self.io(&e))?;
        self.wrote();
        Ok(())
    }

    /// The hashes a run was started with: (suite, dataset).
    ///
    /// # Errors
    /// No such run, or the store cannot be read.
    pub fn hashes(&self, id: i64) -> Result<(String, String), StoreError> {
        self.conn
            .query_row("SELECT suite_hash, dataset_hash FROM runs WHERE id = ?1", [id], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .optional()
            .map_err(|e| self.io(&e))?
            .ok_or(StoreError::NoRun { path: self.path.clone(), id })
    }
}

/// [`Store::connect`]'s flags for a store read as an immutable file.
const IMMUTABLE: OpenFlags = OpenFlags::SQLITE_OPEN_READ_ONLY.union(OpenFlags::SQLITE_OPEN_URI);

/// The write-ahead log beside a store.
fn wal_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push("-wal");
    PathBuf::from(name)
}

/// `file:PATH?immutable=1`, the path absolute and percent-encoded; `None`
/// for a path that is not UTF-8, and off Unix (where a path is not a URI
/// path as it is).
fn immutable_uri(path: &Path) -> Option<String> {
    use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
    if !cfg!(unix) {
        return None;
    }
    const KEEP: &AsciiSet = &NON_ALPHANUMERIC.remove(b'/').remove(b'-').remove(b'_').remove(b'.');
    let absolute = std::path::absolute(path).ok()?;
    let text = absolute.to_str()?;
    Some(format!("file:{}?immutable=1", utf8_percent_encode(text, KEEP)))
}

/// The parts of a run's record [`RunEntry::damaged`] names.
const SUMMARY: &str = "summary";
const INFORMATION: &str = "information";

/// Why a summary [`SUMMARY_OK`] refuses is damaged.
const NOT_A_SUMMARY: &str = "not a summary of evaluators (not JSON, or no `evaluators` list)";

/// A column that is 1 when a run's summary is absent (not finished) or
/// readable (a JSON object with its `evaluators` list), else 0.
const SUMMARY_OK: &str = "CASE WHEN summary IS NULL THEN 1 \
     WHEN json_valid(summary) THEN json_type(summary, '$.evaluators') IS 'array' ELSE 0 END";

/// A column of a `runs` row read as `T`, or `None` with the column named
/// in `damage` when it holds another type (a hand-edited or damaged
/// record: the run is then listed as damaged, never used).
fn column<T: rusqlite::types::FromSql>(
    r: &rusqlite::Row<'_>,
    index: usize,
    damage: &mut Vec<String>,
) -> rusqlite::Result<Option<T>> {
    match r.get::<_, T>(index) {
        Ok(v) => Ok(Some(v)),
        Err(rusqlite::Error::InvalidColumnType(_, name, kind)) => {
            damage.push(format!("`{name}` holds {kind}", kind = kind.to_string().to_lowercase()));
            Ok(None)
        }
        Err(rusqlite::Error::FromSqlConversionFailure(_, _, e)) => {
            let name = r.as_ref().column_name(index).unwrap_or("?");
            damage.push(format!("`{name}`: {e}"));
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// A `runs` row.
fn entry(r: &rusqlite::Row<'_>) -> rusqlite::Result<RunEntry> {
    let mut bad = Vec::new();
    let info: String = column(r, 11, &mut bad)?.unwrap_or_default();
    let status: String = column(r, 2, &mut bad)?.unwrap_or_default();
    let suite: String = column(r, 1, &mut bad)?.unwrap_or_default();
    let started_at: String = column(r, 3, &mut bad)?.unwrap_or_default();
    let summary_ok: bool = column(r, 12, &mut bad)?.unwrap_or(false);
    let ended_at: Option<String> = column(r, 4, &mut bad)?.flatten();
    let pinned: bool = column(r, 5, &mut bad)?.unwrap_or(false);
    let gate_passed: Option<bool> = column(r, 6, &mut bad)?.flatten();
    let rows = column::<i64>(r, 7, &mut bad)?.map_or(0, |n| {
        u64::try_from(n).unwrap_or_else(|_| {
            bad.push(format!("`rows_done` is {n}"));
            0
        })
    });
    let duration_s = column::<f64>(r, 8, &mut bad)?.map_or(0.0, |s| {
        if s.is_finite() && s >= 0.0 {
            s
        } else {
            bad.push(format!("`duration_s` is {s}"));
            0.0
        }
    });
    let git_commit: Option<String> = column(r, 9, &mut bad)?.flatten();
    let git_branch: Option<String> = column(r, 10, &mut bad)?.flatten();
    let (info, damaged) = match serde_json::from_str::<RunInfo>(&info) {
        Ok(info) if !bad.is_empty() => (info, Some(format!("{INFORMATION}: {}", bad.join(", ")))),
        Ok(info) if summary_ok => (info, None),
        Ok(info) => (info, Some(format!("{SUMMARY}: {NOT_A_SUMMARY}"))),
        Err(e) => (
            RunInfo {
                id: None,
                store: None,
                suite: suite.clone(),
                suite_path: String::new(),
                suite_hash: String::new(),
                dataset: String::new(),
                dataset_hash: String::new(),
                git: None,
                tags: std::collections::BTreeMap::new(),
                links: std::collections::BTreeMap::new(),
                started_at: started_at.clone(),
                ended_at: None,
                version: String::new(),
                limit: None,
                output: None,
                resumed: 0,
            },
            Some(format!("{INFORMATION}: {e}")),
        ),
    };
    Ok(RunEntry {
        id: r.get(0)?,
        suite,
        status: RunStatus::parse(&status).unwrap_or(RunStatus::Failed),
        started_at,
        ended_at,
        pinned,
        gate_passed,
        rows,
        duration_s,
        git_commit,
        git_branch,
        info,
        damaged,
    })
}

/// Refuses a file that exists and is not an SQLite database, before
/// SQLite sees it.
fn check_header(path: &Path) -> Result<(), StoreError> {
    use std::io::Read;
    let Ok(mut f) = std::fs::File::open(path) else { return Ok(()) };
    let mut head = [0u8; 16];
    let mut n = 0;
    while n < head.len() {
        match f.read(&mut head[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) => {
                return Err(StoreError::Io { path: path.to_path_buf(), message: e.to_string() });
            }
        }
    }
    if n == 0 {
        return Ok(());
    }
    if head[..n] != b"SQLite format 3\0"[..n] || n < head.len() {
        return Err(StoreError::Foreign {
            path: path.to_path_buf(),
            why: "the file is not an SQLite database".to_owned(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests;
