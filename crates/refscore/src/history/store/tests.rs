use super::*;
use crate::history::Cell;
use crate::history::run_info::RunInfo;

fn info(suite: &str) -> RunInfo {
    RunInfo {
        id: None,
        store: None,
        suite: suite.to_owned(),
        suite_path: "suite.yaml".into(),
        suite_hash: "s".into(),
        dataset: "data.jsonl".into(),
        dataset_hash: "d".into(),
        git: None,
        tags: Default::default(),
        links: Default::default(),
        started_at: "2026-11-23T00:00:00Z".into(),
        ended_at: None,
        version: "test".into(),
        limit: None,
        output: None,
        resumed: 0,
    }
}

/// A summary such as `run` writes: one evaluator, `fields`, and no row.
fn a_summary() -> String {
    let c = crate::summary::Collector::new(vec![(
        "fields".into(),
        "json_match".into(),
        crate::score::Direction::Maximize,
        None,
    )]);
    let summary = c.finish(false, 0.0, &crate::summary::Gate::default(), Vec::new());
    serde_json::to_string(&summary).unwrap()
}

#[test]
fn foreign_files_are_refused_and_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("notes.db");
    std::fs::write(&text, "hello, this is not a database at all").unwrap();
    let e = Store::open(&text).unwrap_err();
    assert!(matches!(e, StoreError::Foreign { .. }), "{e}");
    assert_eq!(std::fs::read_to_string(&text).unwrap(), "hello, this is not a database at all");
    // Another program's SQLite database.
    let other = dir.path().join("other.db");
    {
        let c = Connection::open(&other).unwrap();
        c.execute_batch("CREATE TABLE t (x); INSERT INTO t VALUES (1);").unwrap();
    }
    let before = std::fs::read(&other).unwrap();
    let e = Store::open(&other).unwrap_err();
    assert!(e.to_string().contains("another program"), "{e}");
    assert_eq!(std::fs::read(&other).unwrap(), before);
    // A truncated header.
    let short = dir.path().join("short.db");
    std::fs::write(&short, b"SQLite for").unwrap();
    assert!(matches!(Store::open(&short).unwrap_err(), StoreError::Foreign { .. }));
}

#[test]
fn schema_is_versioned_and_reopened() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested/runs.db");
    let s = Store::open(&path).unwrap();
    let id = s.begin(&info("a"), &RegressionPolicy::default()).unwrap();
    drop(s);
    let s = Store::open_existing(&path).unwrap();
    assert_eq!(s.get(id).unwrap().status, RunStatus::Running);
    let v: i64 = s.conn.query_row("PRAGMA user_version", [], |r| r.get(0)).unwrap();
    assert_eq!(v, MIGRATIONS.len() as i64);
    s.conn.execute_batch("PRAGMA user_version = 99").unwrap();
    drop(s);
    assert!(matches!(Store::open(&path).unwrap_err(), StoreError::Newer { found: 99, .. }));
    assert!(matches!(
        Store::open_existing(&dir.path().join("absent.db")).unwrap_err(),
        StoreError::Missing { .. }
    ));
}

#[test]
fn baselines_pins_and_pruning() {
    let dir = tempfile::tempdir().unwrap();
    let s = Store::open(&dir.path().join("runs.db")).unwrap();
    let p = RegressionPolicy::default();
    let finish = |id: i64, passed: bool, status: RunStatus| {
        s.conn
            .execute(
                "UPDATE runs SET status = ?1, gate_passed = ?2, summary = ?3 WHERE id = ?4",
                params![status.as_str(), passed, a_summary(), id],
            )
            .unwrap();
    };
    let a1 = s.begin(&info("a"), &p).unwrap();
    finish(a1, true, RunStatus::Completed);
    let a2 = s.begin(&info("a"), &p).unwrap();
    finish(a2, false, RunStatus::Completed);
    let b1 = s.begin(&info("b"), &p).unwrap();
    finish(b1, true, RunStatus::Completed);
    let a3 = s.begin(&info("a"), &p).unwrap();
    finish(a3, true, RunStatus::Cancelled);
    assert_eq!(s.passing("a", None, None).unwrap().first().copied(), Some(a1));
    assert_eq!(s.passing("a", Some(a1), None).unwrap().first().copied(), None);
    // A run with a row limit is the baseline of runs with that limit only.
    let limited = s.begin(&RunInfo { limit: Some(10), ..info("a") }, &p).unwrap();
    finish(limited, true, RunStatus::Completed);
    assert_eq!(s.passing("a", None, None).unwrap().first().copied(), Some(a1));
    assert_eq!(s.passing("a", None, Some(10)).unwrap().first().copied(), Some(limited));
    assert_eq!(s.passing("a", None, Some(11)).unwrap().first().copied(), None);
    s.conn.execute("DELETE FROM runs WHERE id = ?1", params![limited]).unwrap();
    // A run whose stored information is not JSON is listed and marked,
    // cannot be read by id, and stays among the passing runs for every
    // limit (the caller passes over it, naming it).
    let a4 = s.begin(&info("a"), &p).unwrap();
    finish(a4, true, RunStatus::Completed);
    assert_eq!(s.passing("a", None, None).unwrap(), vec![a4, a1]);
    // A run (resumed after a4 passed) is compared with runs before it only.
    assert_eq!(s.passing("a", Some(a4), None).unwrap(), vec![a1]);
    assert_eq!(s.passing("a", Some(a2), None).unwrap(), vec![a1]);
    assert_eq!(s.passing("a", Some(a1), None).unwrap(), Vec::<i64>::new());
    s.conn.execute("UPDATE runs SET info = '{broken' WHERE id = ?1", params![a4]).unwrap();
    assert_eq!(s.passing("a", None, None).unwrap(), vec![a4, a1]);
    assert_eq!(s.passing("a", None, Some(10)).unwrap(), vec![a4]);
    let listed = s.list(Some("a"), None).unwrap();
    assert_eq!(listed[0].id, a4);
    assert!(listed[0].damaged.is_some());
    assert_eq!(listed[0].info.suite, "a");
    assert!(matches!(
        s.get(a4),
        Err(StoreError::Damaged { id, what: "information", .. }) if id == a4
    ));
    assert!(s.get(a1).unwrap().damaged.is_none());
    // So is one whose summary is not JSON, or no summary of evaluators;
    // such a run cannot be pinned or read.
    for summary in ["{broken", "{}", "[]"] {
        s.conn
            .execute(
                "UPDATE runs SET info = ?1, summary = ?2 WHERE id = ?3",
                params![serde_json::to_string(&info("a")).unwrap(), summary, a4],
            )
            .unwrap();
        let listed = s.list(Some("a"), None).unwrap();
        assert!(listed[0].damaged.as_deref().unwrap().starts_with("summary: "), "{summary}");
        assert!(matches!(s.get(a4), Err(StoreError::Damaged { what: "summary", .. })), "{summary}");
        assert!(matches!(s.summary(a4), Err(StoreError::Damaged { what: "summary", .. })));
        assert!(s.pin(a4, true).is_err(), "{summary}");
    }
    s.conn.execute("DELETE FROM runs WHERE id = ?1", params![a4]).unwrap();
    assert_eq!(s.pinned("a").unwrap(), None);
    assert!(s.pin(a3, true).is_err(), "a cancelled run is no baseline");
    s.pin(a2, true).unwrap();
    s.pin(a1, true).unwrap();
    assert_eq!(s.pinned("a").unwrap(), Some(a1), "one pinned run per suite");
    s.pin(a1, false).unwrap();
    assert_eq!(s.pinned("a").unwrap(), None);
    s.pin(a1, true).unwrap();
    let deleted = s.prune(1).unwrap();
    // Suite a keeps its newest (a3) and its pinned run (a1); b keeps b1.
    assert_eq!(deleted, vec![a2]);
    let left: Vec<i64> = s.list(None, None).unwrap().iter().map(|r| r.id).collect();
    assert_eq!(left, vec![a3, b1, a1]);
    assert_eq!(s.list(Some("b"), Some(5)).unwrap().len(), 1);
    assert!(matches!(s.get(a2).unwrap_err(), StoreError::NoRun { .. }));
}

/// A column of a run's record edited to a value of another type (or a
/// duration or row count no run writes) marks that run damaged; the
/// others stay listed and readable.
#[test]
fn a_run_whose_columns_were_edited_to_other_types_is_listed_as_damaged() {
    let dir = tempfile::tempdir().unwrap();
    let s = Store::open(&dir.path().join("runs.db")).unwrap();
    let p = RegressionPolicy::default();
    let good = s.begin(&info("a"), &p).unwrap();
    let edited = s.begin(&info("a"), &p).unwrap();
    let cases = [
        ("duration_s = 'abc'", "`duration_s` holds text"),
        ("duration_s = 1e999", "`duration_s` is inf"),
        ("duration_s = -2.5", "`duration_s` is -2.5"),
        ("pinned = 'yes'", "`pinned` holds text"),
        ("gate_passed = x'00'", "`gate_passed` holds blob"),
        ("rows_done = -5", "`rows_done` is -5"),
        ("rows_done = 1.5", "`rows_done` holds real"),
        ("ended_at = x'01'", "`ended_at` holds blob"),
        ("git_commit = x'ff'", "`git_commit` holds blob"),
        ("status = x'00'", "`status` holds blob"),
    ];
    for (set, why) in cases {
        s.conn.execute("SAVEPOINT edit", []).unwrap();
        s.conn.execute(&format!("UPDATE runs SET {set} WHERE id = ?1"), params![edited]).unwrap();
        let listed = s.list(Some("a"), None).unwrap();
        assert_eq!(listed.len(), 2, "{set}");
        assert_eq!(listed[0].id, edited);
        let damage = listed[0].damaged.as_deref().unwrap_or_default();
        assert_eq!(damage, format!("information: {why}"), "{set}");
        assert!(listed[0].duration_s.is_finite() && listed[0].duration_s >= 0.0);
        assert!(listed[1].damaged.is_none(), "{set}");
        assert!(
            matches!(s.get(edited), Err(StoreError::Damaged { what: "information", .. })),
            "{set}"
        );
        assert_eq!(s.get(good).unwrap().id, good);
        s.conn.execute("ROLLBACK TO edit", []).unwrap();
        s.conn.execute("RELEASE edit", []).unwrap();
    }
    assert!(s.get(edited).unwrap().damaged.is_none());
}

#[test]
fn an_empty_batch_recorded_by_an_older_version_does_not_block_a_resume() {
    use crate::runner::{BatchRecord, BatchSink};
    let dir = tempfile::tempdir().unwrap();
    let s = Store::open(&dir.path().join("runs.db")).unwrap();
    let id = s.begin(&info("a"), &RegressionPolicy::default()).unwrap();
    let batch = |first: u64, ids: &[&str]| BatchRecord {
        first,
        records: ids
            .iter()
            .map(|i| crate::history::RowRecord {
                scores: crate::history::RowScores { id: (*i).to_owned(), cells: Vec::new() },
                row_score: None,
                extra: Vec::new(),
                unreadable: false,
            })
            .collect(),
        lines: ids.iter().map(|i| format!("{{\"id\": \"{i}\"}}")).collect(),
        fields: String::new(),
    };
    let mut r = s.recorder(id).unwrap();
    r.batch(batch(0, &["r0", "r1"])).unwrap();
    // A stop before the next batch's first row, as older versions recorded it.
    r.batch(batch(2, &[])).unwrap();
    r.finish().unwrap();
    // The resumed run records its first batch at the same row.
    let mut r = s.recorder(id).unwrap();
    r.batch(batch(2, &["r2"])).unwrap();
    r.finish().unwrap();
    let prior = s.prior_batches(id).unwrap();
    let counts: Vec<usize> = prior.iter().map(|b| b.records.len()).collect();
    assert_eq!(counts, [2, 1]);
}

/// A batch handed over while the writer is behind (another connection
/// holds the store, the queue is full) runs the caller's guard, once, and
/// keeps it until the batch is handed over; a batch with room does not.
#[test]
fn a_batch_that_waits_for_the_writer_runs_the_guard_until_it_is_handed_over() {
    use crate::runner::BatchRecord;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("runs.db");
    let s = Store::open(&path).unwrap();
    let id = s.begin(&info("a"), &RegressionPolicy::default()).unwrap();
    let batch = |first: u64| BatchRecord {
        first,
        records: vec![crate::history::RowRecord {
            scores: crate::history::RowScores { id: format!("r{first}"), cells: Vec::new() },
            row_score: None,
            extra: Vec::new(),
            unreadable: false,
        }],
        lines: vec![format!("{{\"id\": \"r{first}\"}}")],
        fields: String::new(),
    };
    let mut r = s.recorder(id).unwrap();
    let calls = AtomicUsize::new(0);
    let count = || {
        calls.fetch_add(1, Ordering::SeqCst);
    };
    // A first batch committed: the writer is open and idle.
    r.batch_noting(batch(0), count).unwrap();
    let start = std::time::Instant::now();
    while s.prior_batches(id).unwrap().is_empty() {
        assert!(start.elapsed() < std::time::Duration::from_secs(30));
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    // Another connection takes the store for a second.
    let holder = rusqlite::Connection::open(&path).unwrap();
    holder.execute_batch("BEGIN EXCLUSIVE; SELECT 1;").unwrap();
    let release = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_secs(1));
        holder.execute_batch("COMMIT").unwrap();
    });
    // The writer takes the next batch and waits for the store; the queue
    // holds four more.
    r.batch_noting(batch(1), count).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(200));
    for first in 2..6 {
        r.batch_noting(batch(first), count).unwrap();
    }
    assert_eq!(calls.load(Ordering::SeqCst), 0, "every batch found room");
    let guards = std::sync::Arc::new(());
    let held = std::sync::Arc::clone(&guards);
    r.batch_noting(batch(6), || {
        calls.fetch_add(1, Ordering::SeqCst);
        held
    })
    .unwrap();
    // It waited for the store, and its guard was dropped once it was
    // handed over.
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    assert!(start.elapsed() >= std::time::Duration::from_secs(1));
    assert_eq!(std::sync::Arc::strong_count(&guards), 1);
    release.join().unwrap();
    r.finish().unwrap();
    let counts: Vec<usize> = s.prior_batches(id).unwrap().iter().map(|b| b.records.len()).collect();
    assert_eq!(counts, [1; 7]);
}

/// A store of `runs` completed runs of suite `a` (gate passed), each of
/// `batches` batches of 100 rows with two cells and a line of some 200
/// bytes: a `batches` b-tree of several pages.
fn recorded(path: &Path, runs: usize, batches: u64) -> Vec<i64> {
    use crate::runner::{BatchRecord, BatchSink};
    let s = Store::open(path).unwrap();
    let mut ids = Vec::new();
    for _ in 0..runs {
        let id = s.begin(&info("a"), &RegressionPolicy::default()).unwrap();
        let mut r = s.recorder(id).unwrap();
        for b in 0..batches {
            let rows = (b * 100..b * 100 + 100).collect::<Vec<u64>>();
            r.batch(BatchRecord {
                first: b * 100,
                records: rows
                    .iter()
                    .map(|i| crate::history::RowRecord {
                        scores: crate::history::RowScores {
                            id: format!("row-{i}"),
                            cells: vec![Cell::Score(*i as f64 / 7.0), Cell::Failed],
                        },
                        row_score: None,
                        extra: Vec::new(),
                        unreadable: false,
                    })
                    .collect(),
                lines: rows
                    .iter()
                    .map(|i| {
                        format!("{{\"id\": \"row-{i}\", \"v\": \"{}\"}}", i * 7_919 % 1_000_003)
                            .repeat(6)
                    })
                    .collect(),
                fields: String::new(),
            })
            .unwrap();
        }
        r.finish().unwrap();
        s.conn
            .execute(
                "UPDATE runs SET status = 'completed', gate_passed = 1, summary = ?1 WHERE id = ?2",
                params![a_summary(), id],
            )
            .unwrap();
        ids.push(id);
    }
    ids
}

/// Pages of the `batches` b-tree: its root, and the leaf its first cell
/// leads to (read from the file: SQLite's b-tree page format).
fn batches_pages(path: &Path) -> (u32, u32) {
    let root: u32 = {
        let c = Connection::open(path).unwrap();
        c.query_row("SELECT rootpage FROM sqlite_master WHERE name = 'batches'", [], |r| r.get(0))
            .unwrap()
    };
    let file = std::fs::read(path).unwrap();
    let page = |n: u32| &file[(n as usize - 1) * 4096..n as usize * 4096];
    let mut at = root;
    // 0x02: an interior page of an index b-tree (a WITHOUT ROWID table);
    // its first cell begins with the page number of its left child.
    while page(at)[0] == 0x02 {
        let p = page(at);
        let first = usize::from(u16::from_be_bytes([p[12], p[13]]));
        at = u32::from_be_bytes([p[first], p[first + 1], p[first + 2], p[first + 3]]);
    }
    assert_ne!(at, root, "the test needs a b-tree of more than one page");
    (root, at)
}

/// Overwrites page `n` of the file with garbage, as the I/O probe did.
fn overwrite_page(path: &Path, n: u32) {
    use std::io::{Seek, SeekFrom, Write};
    let mut f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    f.seek(SeekFrom::Start(u64::from(n - 1) * 4096)).unwrap();
    f.write_all(&b"garbage!".repeat(512)).unwrap();
}

#[test]
fn a_damaged_store_is_found_before_the_first_write_and_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let pristine = dir.path().join("pristine.db");
    recorded(&pristine, 3, 5);
    let (root, leaf) = batches_pages(&pristine);
    // A leaf that no new run reads or writes, and the root every batch
    // goes through.
    for (what, page) in [("a leaf of `batches`", leaf), ("the root of `batches`", root)] {
        let path = dir.path().join(format!("p{page}.db"));
        std::fs::copy(&pristine, &path).unwrap();
        overwrite_page(&path, page);
        let before = std::fs::read(&path).unwrap();
        {
            let s = Store::open(&path).unwrap();
            let e = s.begin(&info("a"), &RegressionPolicy::default()).unwrap_err();
            assert!(matches!(&e, StoreError::Corrupt { untouched: true, .. }), "{what}: {e:?}");
            let text = e.to_string();
            assert!(text.contains(&format!("p{page}.db")) && text.contains("damaged"), "{text}");
            assert!(text.contains("it was left untouched"), "{text}");
            // Nor any other write.
            assert!(matches!(s.mark(1, RunStatus::Failed), Err(StoreError::Corrupt { .. })));
            assert!(matches!(s.prune(0), Err(StoreError::Corrupt { .. })));
            assert!(matches!(s.pin(1, true), Err(StoreError::Corrupt { .. })));
        }
        assert_eq!(std::fs::read(&path).unwrap(), before, "{what}: the file is unchanged");
    }
    // An undamaged store passes the check once, then is written.
    let s = Store::open(&pristine).unwrap();
    s.begin(&info("a"), &RegressionPolicy::default()).unwrap();
    assert!(s.checked.get());
}

#[test]
fn once_sqlite_finds_the_file_malformed_nothing_more_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("runs.db");
    let ids = recorded(&path, 3, 5);
    let (_, leaf) = batches_pages(&path);
    overwrite_page(&path, leaf);
    let before = std::fs::read(&path).unwrap();
    {
        let s = Store::open(&path).unwrap();
        // Stands in for damage the check before the first write cannot
        // see (changed bytes inside a stored value) but SQLite trips on
        // when it reads them: here the check is skipped.
        s.checked.set(true);
        let e = s.scores(ids[0]).unwrap_err();
        assert!(e.to_string().contains("malformed"), "{e}");
        let e = s.begin(&info("a"), &RegressionPolicy::default()).unwrap_err();
        assert!(matches!(e, StoreError::Corrupt { .. }), "{e:?}");
        assert!(matches!(s.mark(ids[2], RunStatus::Failed), Err(StoreError::Corrupt { .. })));
        // The recorder's own connection writes nothing either.
        let mut r = s.recorder(ids[2]).unwrap();
        use crate::runner::BatchSink;
        let refused = r.batch(crate::runner::BatchRecord {
            first: 1_000,
            records: Vec::new(),
            lines: Vec::new(),
            fields: String::new(),
        });
        let finished = r.finish();
        assert!(refused.is_err() || finished.is_err(), "the recorder wrote");
    }
    assert_eq!(std::fs::read(&path).unwrap(), before, "the file is unchanged");
}

#[test]
fn scores_are_read_batch_by_batch_into_a_list_of_their_size() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("runs.db");
    let ids = recorded(&path, 1, 13);
    let s = Store::open(&path).unwrap();
    let scores = s.scores(ids[0]).unwrap();
    assert_eq!(scores.rows.len(), 1_300);
    // One allocation of the rows' size, not a list grown by doubling.
    assert_eq!(scores.rows.capacity(), scores.rows.len());
    assert_eq!(scores.rows[1_299].id, "row-1299");
    assert_eq!(scores.rows[7].cells, vec![Cell::Score(1.0), Cell::Failed]);
    assert!(scores.rows.iter().all(|r| r.cells.capacity() == 2 && r.id.capacity() == r.id.len()));
}

#[test]
fn abandoned_running_runs_are_pruned_when_the_caller_names_them() {
    let dir = tempfile::tempdir().unwrap();
    let s = Store::open(&dir.path().join("runs.db")).unwrap();
    let p = RegressionPolicy::default();
    let done = s.begin(&info("a"), &p).unwrap();
    s.mark(done, RunStatus::Cancelled).unwrap();
    let killed = s.begin(&info("a"), &p).unwrap();
    let live = s.begin(&info("a"), &p).unwrap();
    assert_eq!(s.prune(0).unwrap(), vec![done], "running runs stay");
    // A finished run named as abandoned changes nothing.
    let kept = s.begin(&info("b"), &p).unwrap();
    s.mark(kept, RunStatus::Failed).unwrap();
    // Only suite b's runs, when asked: suite a's killed run stays.
    assert_eq!(s.prune_with(0, &[killed, kept], Some("b")).unwrap(), vec![kept]);
    assert_eq!(s.prune_with(1, &[killed, kept], None).unwrap(), vec![killed]);
    let left: Vec<i64> = s.list(None, None).unwrap().iter().map(|r| r.id).collect();
    assert_eq!(left, vec![live]);
}

/// Makes a folder immutable (`chattr +i`: nothing can be created in it,
/// even by root, for whom permissions do not count) for as long as it
/// lives; `None` where the file system or the process cannot.
struct Immutable(PathBuf);

impl Immutable {
    fn new(dir: &Path) -> Option<Immutable> {
        let ok = std::process::Command::new("chattr")
            .arg("+i")
            .arg(dir)
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        ok.then(|| Immutable(dir.to_path_buf()))
    }
}

impl Drop for Immutable {
    fn drop(&mut self) {
        let _ = std::process::Command::new("chattr").arg("-i").arg(&self.0).status();
    }
}

#[test]
fn a_store_in_a_folder_that_cannot_be_written_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("ro");
    let path = folder.join("runs.db");
    let ids = recorded(&path, 2, 2);
    let before = std::fs::read(&path).unwrap();
    let Some(_frozen) = Immutable::new(&folder) else {
        // Proves nothing here: say so rather than pass silently.
        eprintln!("SKIPPED: `chattr +i` is not available on {}", folder.display());
        return;
    };
    // SQLite cannot create `runs.db-shm` beside it.
    assert!(std::fs::write(folder.join("probe"), "x").is_err(), "the folder is read-only");
    for s in [Store::open_read_only(&path).unwrap(), Store::open_existing(&path).unwrap()] {
        assert_eq!(s.list(None, None).unwrap().len(), 2);
        assert_eq!(s.scores(ids[1]).unwrap().rows.len(), 200);
        let mut lines = 0;
        s.for_each_line(ids[0], |_| {
            lines += 1;
            Ok(())
        })
        .unwrap();
        assert_eq!(lines, 200);
        // A write fails and says why.
        let e = s.mark(ids[0], RunStatus::Failed).unwrap_err().to_string();
        assert!(e.contains("readonly") || e.contains("read-only"), "{e}");
    }
    assert!(Store::open(&path).is_err(), "a run cannot record here");
    assert!(!folder.join("runs.db-shm").exists() && !folder.join("runs.db-wal").exists());
    drop(_frozen);
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

#[test]
fn a_read_only_store_whose_log_holds_changes_is_refused_with_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("runs.db");
    recorded(&path, 1, 1);
    // A writer still open: its last commit is in the write-ahead log only.
    let writer = Store::open(&path).unwrap();
    writer.conn.execute_batch("PRAGMA wal_autocheckpoint = 0").unwrap();
    writer.begin(&info("late"), &RegressionPolicy::default()).unwrap();
    let copy = dir.path().join("copy");
    std::fs::create_dir(&copy).unwrap();
    for name in ["runs.db", "runs.db-wal"] {
        std::fs::copy(dir.path().join(name), copy.join(name)).unwrap();
    }
    drop(writer);
    let Some(_frozen) = Immutable::new(&copy) else {
        eprintln!("SKIPPED: `chattr +i` is not available on {}", copy.display());
        return;
    };
    // Read as an immutable file, the store would miss run 2.
    let e = Store::open_read_only(&copy.join("runs.db")).unwrap_err().to_string();
    assert!(e.contains("runs.db-wal") && e.contains("copy the store"), "{e}");
}

#[test]
fn a_store_too_large_for_the_whole_check_has_its_runs_table_checked() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("runs.db");
    recorded(&path, 3, 5);
    let (_, leaf) = batches_pages(&path);
    let runs_root: u32 = Connection::open(&path)
        .unwrap()
        .query_row("SELECT rootpage FROM sqlite_master WHERE name = 'runs'", [], |r| r.get(0))
        .unwrap();
    let s = Store::open(&path).unwrap();
    assert!(s.check(0).is_ok());
    drop(s);
    // Past the size bound (here 0 bytes), a damaged `batches` leaf is not
    // seen before writing (SQLite finds it when it reads it) ...
    overwrite_page(&path, leaf);
    let s = Store::open(&path).unwrap();
    assert!(s.check(0).is_ok(), "only the runs table is checked");
    assert!(matches!(s.check(u64::MAX), Err(StoreError::Corrupt { untouched: true, .. })));
    drop(s);
    // ... a damaged `runs` table is.
    overwrite_page(&path, runs_root);
    let s = Store::open(&path).unwrap();
    let e = s.check(0).unwrap_err();
    assert!(matches!(e, StoreError::Corrupt { .. }), "{e:?}");
}

#[test]
fn pruning_keeps_the_baseline_of_each_row_limit() {
    let dir = tempfile::tempdir().unwrap();
    let s = Store::open(&dir.path().join("runs.db")).unwrap();
    let p = RegressionPolicy::default();
    let run = |limit: Option<u64>, passed: bool| {
        let id = s.begin(&RunInfo { limit, ..info("a") }, &p).unwrap();
        let info = serde_json::to_string(&RunInfo { limit, ..info("a") }).unwrap();
        s.conn
            .execute(
                "UPDATE runs SET status = 'completed', gate_passed = ?1, info = ?2 WHERE id = ?3",
                params![passed, info, id],
            )
            .unwrap();
        id
    };
    let (full_old, full, full_failed) = (run(None, true), run(None, true), run(None, false));
    let (smoke, smoke_failed) = (run(Some(5), true), run(Some(5), false));
    // The newest run is a smoke run whose gate failed: kept as the newest.
    // The full runs' baseline (`full`) and the smoke runs' (`smoke`) stay.
    assert_eq!(s.prune(1).unwrap(), vec![full_old, full_failed]);
    let left: Vec<i64> = s.list(None, None).unwrap().iter().map(|r| r.id).collect();
    assert_eq!(left, vec![smoke_failed, smoke, full]);
    assert_eq!(s.passing("a", None, None).unwrap(), vec![full]);
}

/// Two resumes of one run read the same record; only the first to claim
/// it goes on, the second is told so before it writes anything.
#[test]
fn a_run_is_claimed_by_one_resume_only() {
    let dir = tempfile::tempdir().unwrap();
    let s = Store::open(&dir.path().join("runs.db")).unwrap();
    let id = s.begin(&info("a"), &RegressionPolicy::default()).unwrap();
    s.mark(id, RunStatus::Cancelled).unwrap();
    let read = s.get(id).unwrap().info;
    let resumed = RunInfo { resumed: read.resumed + 1, output: Some("A".into()), ..read.clone() };
    let other = RunInfo { resumed: read.resumed + 1, output: Some("B".into()), ..read };
    s.claim_resume(id, &resumed).unwrap();
    let e = s.claim_resume(id, &other).unwrap_err();
    assert!(e.to_string().contains("run 1 was resumed by another process just now"), "{e}");
    let now = s.get(id).unwrap();
    assert_eq!((now.status, now.info.output.as_deref()), (RunStatus::Running, Some("A")));
    // Read again, it can be claimed again (a later resume of a stopped run).
    s.mark(id, RunStatus::Cancelled).unwrap();
    let again = RunInfo { resumed: now.info.resumed + 1, ..now.info };
    s.claim_resume(id, &again).unwrap();
}

/// A prune followed by `compact` gives the deleted runs' pages back: the
/// file shrinks, and the runs kept read as before.
#[test]
fn compacting_after_a_prune_shrinks_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("runs.db");
    let ids = recorded(&path, 6, 4);
    let s = Store::open(&path).unwrap();
    let kept = *ids.last().unwrap();
    let before_scores = s.scores(kept).unwrap();
    // Checkpoint the log into the file, so that sizes are the file's.
    s.conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)").unwrap();
    let size = || std::fs::metadata(&path).unwrap().len();
    let full = size();
    let gone = s.prune(1).unwrap();
    assert_eq!(gone.len(), 5, "{gone:?}");
    s.conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)").unwrap();
    assert_eq!(size(), full, "deleting alone leaves the file as large");
    s.compact().unwrap();
    s.conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE)").unwrap();
    assert!(size() * 3 < full, "{} bytes of {full}", size());
    assert_eq!(s.scores(kept).unwrap(), before_scores);
}

#[cfg(unix)]
#[test]
fn a_store_deleted_or_replaced_after_opening_has_moved() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("runs.db");
    let store = Store::open(&path).unwrap();
    assert!(!store.moved());
    std::fs::rename(&path, dir.path().join("old.db")).unwrap();
    assert!(store.moved(), "deleted (moved away)");
    let other = Store::open(&path).unwrap();
    assert!(store.moved(), "another file in its place");
    assert!(!other.moved());
}
