//! The dataset file as a run found it: refused for a resume when it is a
//! pipe or a device, and compared after the run to tell whether it
//! changed while the run read it.

use std::path::Path;
use std::time::SystemTime;

/// Refuses to resume a run whose dataset is not a file: a pipe or a
/// device cannot be checked against the run's hash nor read again. Its
/// type is read without opening it (opening a pipe waits for a writer).
pub(crate) fn refuse_stream_resume(dataset: &Path) -> anyhow::Result<()> {
    let Ok(meta) = std::fs::metadata(dataset) else { return Ok(()) };
    if meta.is_file() || meta.is_dir() {
        return Ok(());
    }
    #[cfg(unix)]
    let what = {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if t.is_fifo() {
            "a pipe"
        } else if t.is_socket() {
            "a socket"
        } else {
            "a device"
        }
    };
    #[cfg(not(unix))]
    let what = "not a regular file";
    anyhow::bail!(
        "refusing to resume: the dataset {} is {what}, not a file, so the rows the run scored cannot be checked or read again (start a new run instead)",
        dataset.display()
    )
}

/// A dataset file as the run found it before opening and hashing it. The
/// run records that hash as its dataset's, so a file written while the
/// run reads it (cut short, appended to, rewritten) fails the run: its
/// rows need not be those the hash describes. A file removed, or renamed
/// away, leaves the run reading the one it opened, which is the one hashed.
#[derive(Debug, PartialEq)]
pub(crate) struct DatasetStamp {
    len: u64,
    modified: Option<SystemTime>,
    /// Device and inode: which file the path names.
    #[cfg(unix)]
    file: (u64, u64),
}

impl DatasetStamp {
    /// The stamp of the regular file at `path` (none for a pipe or a
    /// device, which is not hashed, nor for a path that cannot be read).
    pub(crate) fn of(path: &Path) -> Option<Self> {
        let meta = std::fs::metadata(path).ok().filter(std::fs::Metadata::is_file)?;
        Some(DatasetStamp {
            len: meta.len(),
            modified: meta.modified().ok(),
            #[cfg(unix)]
            file: {
                use std::os::unix::fs::MetadataExt;
                (meta.dev(), meta.ino())
            },
        })
    }

    /// How the file at `path` differs from this stamp, if it does.
    pub(crate) fn change(&self, path: &Path) -> Option<String> {
        let now = match std::fs::metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
            Err(e) => return Some(format!("it can no longer be read: {e}")),
            Ok(meta) if !meta.is_file() => return Some(String::from("it is no longer a file")),
            Ok(_) => Self::of(path)?,
        };
        #[cfg(unix)]
        if now.file != self.file {
            return Some(String::from("another file took its place"));
        }
        if now.len != self.len {
            return Some(format!("its size went from {} to {} bytes", self.len, now.len));
        }
        (now.modified != self.modified).then(|| String::from("it was modified"))
    }
}
