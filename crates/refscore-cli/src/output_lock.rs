//! One writer per output folder: a run holds an exclusive advisory lock on
//! its folder's `results.jsonl` from before it records or truncates
//! anything until its summary and reports are written; `refscore report`
//! holds a shared one on the folder it reads and the folder it writes into
//! while it reads and writes. A second run on a locked folder, or a report
//! of a folder a run is writing, is refused instead of interleaving its
//! lines with the first one's. The lock is released when the process ends,
//! however it ends.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::overwrite::Inputs;

/// The file a folder's lock is taken on.
const LOCKED: &str = "results.jsonl";

/// Times a run tries for its folder's lock, 20 ms apart, before it is
/// refused as taken: a look by another command holds it for far less.
const LOOK_TRIES: u32 = 10;

/// Creates `dir` (refused when it is a file, see
/// [`refuse_non_folder`]: one of the run's `inputs` is named so) and its
/// `results.jsonl` (without truncating it) and locks the file for this run
/// alone. The file is returned, unchanged: the run
/// truncates it once it holds it, and the lock lasts as long as it (or a
/// clone of it) is open.
pub(crate) fn for_run(dir: &Path, inputs: &Inputs) -> anyhow::Result<File> {
    refuse_non_folder(dir, inputs)?;
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let path = dir.join(LOCKED);
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .with_context(|| format!("creating {}", path.display()))?;
    // A reader's look (`runs list` asking whether a run's process is
    // gone) holds the lock for a moment: that is waited out.
    let mut tries = 0;
    let locked = loop {
        match file.try_lock() {
            Err(TryLockError::WouldBlock) if tries < LOOK_TRIES => {
                tries += 1;
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            other => break other,
        }
    };
    match locked {
        Ok(()) => Ok(file),
        Err(TryLockError::WouldBlock) => anyhow::bail!(
            "another refscore run is writing to {} (or `refscore report` is reading it): wait for it to end, or choose another output folder with -o",
            dir.display()
        ),
        Err(TryLockError::Error(e)) => unlocked(file, &path, e),
    }
}

/// What [`for_run`] is about to create in an output folder (the folder
/// and the folders above it that do not exist yet, its `results.jsonl`),
/// to be taken back when the run fails before it writes anything (its
/// record refused by a store another process holds): a failed start
/// leaves no empty folder or file behind.
pub(crate) struct Created {
    /// Folders to create, deepest first.
    dirs: Vec<PathBuf>,
    file: Option<PathBuf>,
}

impl Created {
    /// What a run in `dir` would create; `fresh` when the folder was just
    /// claimed for it (created, and empty). A path that cannot be looked
    /// at counts as there: only what surely did not exist is taken back.
    pub(crate) fn before(dir: &Path, fresh: bool) -> Self {
        let there = |p: &Path| {
            std::fs::symlink_metadata(p)
                .map_or_else(|e| e.kind() != std::io::ErrorKind::NotFound, |_| true)
        };
        let file = dir.join(LOCKED);
        let mut dirs = Vec::new();
        if fresh {
            dirs.push(dir.to_path_buf());
        } else {
            let mut at = Some(dir);
            while let Some(p) = at.filter(|p| !p.as_os_str().is_empty() && !there(p)) {
                dirs.push(p.to_path_buf());
                at = p.parent();
            }
        }
        Created { dirs, file: (!there(&file)).then_some(file) }
    }

    /// Removes what the run created, its `lock` still held while its
    /// `results.jsonl` goes (a run that takes the folder meanwhile finds
    /// no file of this one's), then the folders it made, deepest first,
    /// each only when empty.
    pub(crate) fn undo(self, lock: File) {
        if let Some(file) = self.file {
            let _ = std::fs::remove_file(file);
        }
        drop(lock);
        for dir in self.dirs {
            if std::fs::remove_dir(dir).is_err() {
                break;
            }
        }
    }
}

/// Who holds an output folder's `results.jsonl`.
pub(crate) enum Writer {
    /// There is no such file.
    NoFile,
    /// No run: the file, locked for reading.
    Free(File),
    /// A run writing it.
    Held,
    /// It cannot be told: the file could not be opened (`file` is
    /// `None`) or locked (a file system without locks, say).
    Unknown { file: Option<File>, error: std::io::Error },
}

/// Who holds `dir`'s `results.jsonl` (see [`Writer`]).
pub(crate) fn writer(dir: &Path) -> Writer {
    // Only a regular file is opened: a named pipe there would wait for a
    // writer, forever.
    let file = match refscore::limits::open_regular(&dir.join(LOCKED)) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Writer::NoFile,
        Err(error) => return Writer::Unknown { file: None, error },
    };
    match file.try_lock_shared() {
        Ok(()) => Writer::Free(file),
        Err(TryLockError::WouldBlock) => Writer::Held,
        Err(TryLockError::Error(error)) => Writer::Unknown { file: Some(file), error },
    }
}

/// Locks `dir`'s `results.jsonl`, when there is one, against runs for as
/// long as the returned file is open; other readers may hold it too.
pub(crate) fn for_reading(dir: &Path) -> anyhow::Result<Option<File>> {
    let path = dir.join(LOCKED);
    match writer(dir) {
        Writer::NoFile => Ok(None),
        Writer::Free(file) => Ok(Some(file)),
        Writer::Held => anyhow::bail!(
            "a refscore run is writing to {}: wait for it to end, then write the reports",
            dir.display()
        ),
        Writer::Unknown { file: Some(file), error } => unlocked(file, &path, error).map(Some),
        Writer::Unknown { file: None, error } => {
            Err(error).with_context(|| format!("opening {}", path.display()))
        }
    }
}

/// A file system without advisory locks leaves the file unlocked rather
/// than refusing every run; any other failure to lock is an error.
fn unlocked(file: File, path: &Path, e: std::io::Error) -> anyhow::Result<File> {
    if e.kind() == std::io::ErrorKind::Unsupported {
        Ok(file)
    } else {
        Err(e).with_context(|| format!("locking {}", path.display()))
    }
}

/// Refuses an output folder `dir` that exists but is not a folder (a
/// file, or a folder path through one): a run writes its files into it.
/// A file that is one of the run's `inputs` (the dataset, the suite) is
/// named as such. The only advice is another folder: the file may be
/// anything, an input of this run or another's included.
/// Read only, so nothing is created or written before the refusal.
pub(crate) fn refuse_non_folder(dir: &Path, inputs: &Inputs) -> anyhow::Result<()> {
    let remedy = "-o names the folder a run writes results.jsonl and summary.json into: choose another folder with -o";
    let which = |file: &Path| match inputs.role_of(file) {
        Some(role) => format!(" (it is {role} of this run)"),
        None => String::new(),
    };
    // The nearest of `dir` and its parents that exists must be a folder.
    for at in dir.ancestors().filter(|a| !a.as_os_str().is_empty()) {
        match std::fs::metadata(at) {
            Ok(m) if m.is_dir() => return Ok(()),
            Ok(_) if at == dir => {
                anyhow::bail!(
                    "the output folder {} is a file, not a folder{}; {remedy}",
                    dir.display(),
                    which(at)
                )
            }
            Ok(_) => anyhow::bail!(
                "the output folder {} is inside {}, which is a file, not a folder{}; {remedy}",
                dir.display(),
                at.display(),
                which(at)
            ),
            // Missing, or under a file (looked for further up).
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
                ) => {}
            // Anything else (no permission) is left to creating the folder,
            // which says what it is.
            Err(_) => return Ok(()),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_has_one_writer_and_no_reader_while_it_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        assert!(for_reading(&out).unwrap().is_none(), "nothing to lock yet");
        std::fs::create_dir(&out).unwrap();
        std::fs::write(out.join("results.jsonl"), "kept\n").unwrap();
        let none = Inputs::new();
        let first = for_run(&out, &none).unwrap();
        assert_eq!(std::fs::read_to_string(out.join("results.jsonl")).unwrap(), "kept\n");
        let e = for_run(&out, &none).unwrap_err().to_string();
        assert!(e.contains("another refscore run is writing to") && e.contains("out"), "{e}");
        let e = for_reading(&out).unwrap_err().to_string();
        assert!(e.contains("a refscore run is writing to"), "{e}");
        drop(first);
        let readers = (for_reading(&out).unwrap(), for_reading(&out).unwrap());
        assert!(readers.0.is_some() && readers.1.is_some(), "readers share the folder");
        assert!(for_run(&out, &none).is_err(), "no run while it is read");
        drop(readers);
        assert!(for_run(&out, &none).is_ok());
    }
}
