//! The run store under I/O faults: a damaged file, a read-only folder, a
//! run killed outright.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{SUITE, at, dataset, spawn};
use crate::{code, stderr, stdout, write};

/// Pages of the store's `batches` b-tree: its root, and the leaf its first
/// cell leads to (read from the file: SQLite's b-tree page format).
fn batches_pages(path: &Path) -> (u32, u32) {
    let root: u32 = rusqlite::Connection::open(path)
        .unwrap()
        .query_row("SELECT rootpage FROM sqlite_master WHERE name = 'batches'", [], |r| r.get(0))
        .unwrap();
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

#[test]
fn a_damaged_store_is_refused_before_a_run_writes_to_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "data.jsonl", &dataset(3_000, |_| false));
    write(d, "suite.yaml", SUITE);
    let pristine = d.join("pristine.db");
    for out in ["o1", "o2", "o3"] {
        let o = at(d, &pristine, &["run", "suite.yaml", "-o", out, "-q"]);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
    }
    let (root, leaf) = batches_pages(&pristine);
    // A leaf no new run reads or writes (the probe's page 6: the run went
    // on and wrote), and the root every batch goes through.
    for (what, page) in [("a leaf of `batches`", leaf), ("the root of `batches`", root)] {
        let name = format!("p{page}.db");
        let path = d.join(&name);
        std::fs::copy(&pristine, &path).unwrap();
        {
            use std::io::{Seek, SeekFrom, Write};
            let mut f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
            f.seek(SeekFrom::Start(u64::from(page - 1) * 4096)).unwrap();
            f.write_all(&b"garbage!".repeat(512)).unwrap();
        }
        let before = std::fs::read(&path).unwrap();
        let out = format!("c{page}");
        let o = at(d, &path, &["run", "suite.yaml", "-o", &out, "-q"]);
        let err = stderr(&o);
        assert_eq!(code(&o), 2, "{what}: {}{err}", stdout(&o));
        assert!(
            err.contains(&name) && err.contains("damaged") && err.contains("left untouched"),
            "{what}: {err}"
        );
        assert_eq!(std::fs::read(&path).unwrap(), before, "{what}: the store was written");
        let wal = d.join(format!("{name}-wal"));
        assert!(std::fs::metadata(&wal).map_or(true, |m| m.len() == 0), "{what}: a WAL was left");
        assert!(!d.join(&out).join("summary.json").exists(), "{what}: nothing was evaluated");
    }
}

#[test]
fn a_run_killed_outright_is_pruned_once_nothing_holds_its_folder() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "data.jsonl", &dataset(60_000, |i| i % 10 == 0));
    write(d, "suite.yaml", SUITE);
    let store = d.join("runs.db");
    let o = at(d, &store, &["run", "suite.yaml", "-o", "done", "-q", "--limit", "10"]);
    assert!(code(&o) <= 1, "{}", stderr(&o));
    // Run 2 is killed with SIGKILL once it recorded a batch.
    let mut child =
        spawn(d, &store, &["run", "suite.yaml", "-o", "killed", "-q", "--threads", "1"]);
    let recorded = || {
        let o = at(d, &store, &["runs", "show", "2", "--format", "json"]);
        serde_json::from_str::<Value>(&stdout(&o)).ok().and_then(|v| v["run"]["rows"].as_u64())
    };
    let start = Instant::now();
    while recorded().unwrap_or(0) == 0 && start.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().expect("kill -9");
    child.wait().expect("waits");
    let status = |id: u64| -> Option<String> {
        let o = at(d, &store, &["runs", "list", "--format", "json"]);
        let runs: Value = serde_json::from_str(&stdout(&o)).unwrap();
        runs.as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id)
            .map(|r| r["status"].as_str().unwrap().to_owned())
    };
    assert_eq!(status(2).as_deref(), Some("running"), "a killed run stays `running`");
    // Run 3, `running` too, whose folder a live run holds (this test takes
    // the run's lock, as `refscore run` does).
    let o = at(d, &store, &["run", "suite.yaml", "-o", "live", "-q", "--limit", "10"]);
    assert!(code(&o) <= 1, "{}", stderr(&o));
    rusqlite::Connection::open(&store)
        .unwrap()
        .execute("UPDATE runs SET status = 'running' WHERE id = 3", [])
        .unwrap();
    let lock = std::fs::OpenOptions::new().write(true).open(d.join("live/results.jsonl")).unwrap();
    lock.lock().unwrap();
    let o = at(d, &store, &["runs", "prune", "--keep", "0"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).contains("deleted 1 run(s)"), "{}", stdout(&o));
    // Run 1 passed, with --limit 10: the suite's baseline for that limit
    // (run 3 is not completed), which a prune keeps.
    assert_eq!(status(1).as_deref(), Some("completed"), "the suite's baseline is kept");
    assert_eq!(status(2), None, "the killed run is pruned");
    assert_eq!(status(3).as_deref(), Some("running"), "a live run is kept");
    drop(lock);
    let o = at(d, &store, &["runs", "prune", "--keep", "0"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(status(3), None, "its process is gone: pruned");
}

/// Makes a folder immutable (`chattr +i`: nothing can be created in it,
/// even by root, whom permissions do not stop) for as long as it lives;
/// `None` where the file system or the process cannot.
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
fn a_store_in_a_read_only_folder_is_read_by_the_commands_that_only_read() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "data.jsonl", &dataset(20, |i| i % 4 == 0));
    write(d, "suite.yaml", SUITE);
    let folder = d.join("ro");
    let store = folder.join("runs.db");
    for out in ["o1", "o2"] {
        let o = at(d, &store, &["run", "suite.yaml", "-o", out, "-q"]);
        assert!(code(&o) <= 1, "{}", stderr(&o));
    }
    let before = std::fs::read(&store).unwrap();
    // A read-only folder (or mount): SQLite cannot create `runs.db-shm`.
    // As root, permissions do not stop a write; `chattr +i` does. Where it
    // cannot be set, this test proves nothing and says so.
    let Some(frozen) = Immutable::new(&folder) else {
        eprintln!("SKIPPED: `chattr +i` is not available on {}", folder.display());
        return;
    };
    assert!(std::fs::write(folder.join("probe"), "x").is_err(), "the folder is read-only");
    for args in [
        vec!["runs", "list"],
        vec!["runs", "show", "2"],
        vec!["runs", "diff", "1", "2", "--format", "json"],
        vec!["report", "2", "-o", "rep", "--report", "md"],
    ] {
        let o = at(d, &store, &args);
        assert_eq!(code(&o), 0, "{args:?}: {}", stderr(&o));
    }
    let o = at(d, &store, &["runs", "list", "--format", "json"]);
    assert_eq!(serde_json::from_str::<Value>(&stdout(&o)).unwrap().as_array().unwrap().len(), 2);
    assert!(std::fs::read_to_string(d.join("rep/report.md")).unwrap().contains("fields"));
    // A command that writes says the store cannot be written.
    let o = at(d, &store, &["runs", "pin", "1"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("runs.db") && stderr(&o).contains("readonly"), "{}", stderr(&o));
    drop(frozen);
    assert_eq!(std::fs::read(&store).unwrap(), before);
}

/// The same for a user who cannot write the folder, the usual case (SQLite
/// then says `SQLITE_READONLY_DIRECTORY`, not `CANTOPEN`): run as `nobody`
/// through `setpriv`, which needs root. Where it cannot, this test proves
/// nothing and says so.
#[cfg(unix)]
#[test]
fn a_store_in_a_folder_this_user_cannot_write_is_read() {
    use std::os::unix::fs::PermissionsExt;
    let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].into_iter().find(|p| Path::new(p).exists());
    let is_root = std::process::Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    let (Some(setpriv), true) = (setpriv, is_root) else {
        eprintln!("SKIPPED: needs root and setpriv to run a command as another user");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "data.jsonl", &dataset(5, |_| false));
    write(d, "suite.yaml", SUITE);
    let folder = d.join("ro");
    let store = folder.join("runs.db");
    let o = at(d, &store, &["run", "suite.yaml", "-o", "o1", "-q"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let mode =
        |p: &Path, m: u32| std::fs::set_permissions(p, PermissionsExt::from_mode(m)).unwrap();
    mode(d, 0o777);
    mode(&store, 0o444);
    mode(&folder, 0o555);
    let before = std::fs::read(&store).unwrap();
    let as_nobody = |args: &[&str]| {
        std::process::Command::new(setpriv)
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(env!("CARGO_BIN_EXE_refscore"))
            .args(args)
            .env("REFSCORE_STORE", &store)
            .current_dir(d)
            .output()
            .unwrap()
    };
    let o = as_nobody(&["runs", "list", "--format", "json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(serde_json::from_str::<Value>(&stdout(&o)).unwrap().as_array().unwrap().len(), 1);
    let o = as_nobody(&["runs", "show", "1"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = as_nobody(&["runs", "pin", "1"]);
    assert_eq!(code(&o), 2, "a write is refused: {}", stdout(&o));
    mode(&folder, 0o755);
    assert_eq!(std::fs::read(&store).unwrap(), before);
    assert!(!folder.join("runs.db-shm").exists());
}

/// An output folder whose `results.jsonl` or `summary.json` is a device
/// (a link to `/dev/zero`, which never ends) or a named pipe (whose open
/// waits for a writer) is refused at once by `report` and `--baseline`,
/// naming the file: never read without end, never waited on.
#[cfg(unix)]
#[test]
fn an_output_folder_holding_a_device_or_a_pipe_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "data.jsonl", &dataset(5, |_| false));
    write(d, "suite.yaml", SUITE);
    let store = d.join("runs.db");
    let o = at(d, &store, &["run", "suite.yaml", "-o", "good", "-q"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    for (folder, file) in
        [("zero", "results.jsonl"), ("fifo", "summary.json"), ("fifo2", "results.jsonl")]
    {
        let f = d.join(folder);
        std::fs::create_dir_all(&f).unwrap();
        for name in ["summary.json", "results.jsonl"] {
            std::fs::copy(d.join("good").join(name), f.join(name)).unwrap();
        }
        std::fs::remove_file(f.join(file)).unwrap();
        if folder == "zero" {
            std::os::unix::fs::symlink("/dev/zero", f.join(file)).unwrap();
        } else {
            let made = std::process::Command::new("mkfifo").arg(f.join(file)).status().unwrap();
            assert!(made.success());
        }
        for args in [
            vec!["report", folder, "-o", "rep", "--report", "md"],
            vec!["run", "suite.yaml", "-o", "o2", "-q", "--no-store", "--baseline", folder],
        ] {
            let started = Instant::now();
            let o = at(d, &store, &args);
            assert_eq!(code(&o), 2, "{args:?}: {}", stderr(&o));
            assert!(
                stderr(&o).contains(file) && stderr(&o).contains("not a regular file"),
                "{args:?}: {}",
                stderr(&o)
            );
            assert!(started.elapsed() < Duration::from_secs(30), "{args:?} took its time");
        }
    }
}

#[test]
fn a_store_file_that_holds_nothing_yet_reads_as_a_store_with_no_runs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // An empty file (`touch`, or a store created and not yet written) and
    // an SQLite file with no tables: a store before its first run.
    let empty = d.join("empty.db");
    std::fs::write(&empty, "").unwrap();
    let bare = d.join("bare.db");
    rusqlite::Connection::open(&bare).unwrap().execute_batch("PRAGMA user_version = 0").unwrap();
    let bare_bytes = std::fs::read(&bare).unwrap();
    for store in [&empty, &bare] {
        let o = at(d, store, &["runs", "list"]);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        assert!(stdout(&o).contains("no runs recorded in"), "{}", stdout(&o));
        let o = at(d, store, &["runs", "list", "--format", "json"]);
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        assert_eq!(serde_json::from_str::<Value>(&stdout(&o)).unwrap(), serde_json::json!([]));
        for args in [vec!["runs", "show", "1"], vec!["runs", "diff", "1", "2"]] {
            let o = at(d, store, &args);
            assert_eq!(code(&o), 2, "{args:?}");
            assert!(stderr(&o).contains("no run 1"), "{args:?}: {}", stderr(&o));
        }
    }
    // Reading wrote nothing, to the files or beside them.
    assert_eq!(std::fs::read(&empty).unwrap(), b"");
    assert_eq!(std::fs::read(&bare).unwrap(), bare_bytes);
    let mut names: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["bare.db", "empty.db"]);
    // The first run makes the empty file a store.
    write(d, "data.jsonl", &dataset(4, |_| false));
    write(d, "suite.yaml", SUITE);
    let o = at(d, &empty, &["run", "suite.yaml", "-o", "out", "-q"]);
    assert!(code(&o) <= 1, "{}", stderr(&o));
    let o = at(d, &empty, &["runs", "list", "--format", "json"]);
    assert_eq!(serde_json::from_str::<Value>(&stdout(&o)).unwrap().as_array().unwrap().len(), 1);
    // A store whose schema version was lost keeps its tables: damaged, not
    // a store with no runs.
    let lost = d.join("lost.db");
    std::fs::copy(&empty, &lost).unwrap();
    rusqlite::Connection::open(&lost).unwrap().execute_batch("PRAGMA user_version = 0").unwrap();
    let before = std::fs::read(&lost).unwrap();
    for args in [vec!["runs", "list"], vec!["run", "suite.yaml", "-o", "again", "-q"]] {
        let o = at(d, &lost, &args);
        assert_eq!(code(&o), 2, "{args:?}: {}", stdout(&o));
        assert!(
            stderr(&o).contains("damaged") && stderr(&o).contains("without a schema version"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
    assert_eq!(std::fs::read(&lost).unwrap(), before);
}
