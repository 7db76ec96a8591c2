use super::*;
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
                "UPDATE runs SET status = ?1, gate_passed = ?2, summary = '{\"evaluators\": []}'
                 WHERE id = ?3",
                params![status.as_str(), passed, id],
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
