//! The output folder of a run: a fresh one claimed when none is given;
//! the files an earlier run left removed before `results.jsonl` is emptied
//! (so that a failure leaves that run's results as they were); and
//! `results.jsonl` written so that a failed write can be cut back to its
//! last whole line.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;
use refscore::history::Store;

/// Creates the first of `base`, `base-2`, `base-3`, ... that does not
/// exist yet and returns it: two runs started in the same second keep
/// their own outputs.
pub(crate) fn claim_fresh_dir(base: &Path) -> anyhow::Result<PathBuf> {
    if let Some(parent) = base.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("creating {}", parent.display()))?;
    }
    let candidates = std::iter::once(base.to_path_buf())
        .chain((2..10_000).map(|n| PathBuf::from(format!("{}-{n}", base.display()))));
    for dir in candidates {
        // Creating the folder claims it: of two runs started in the same
        // second, one gets `<time>`, the other `<time>-2`.
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e).with_context(|| format!("creating {}", dir.display())),
        }
    }
    anyhow::bail!("no free output folder next to {}: pass -o DIR", base.display())
}

/// Empties the output folder's `results.jsonl` (checked beforehand not to
/// be an input, and `locked` for this run) and returns a writer of it; a
/// resumed run's file starts with the rows recorded before.
///
/// What an earlier run left beside its results describes other rows: a run
/// that ends early must not leave them to be read as its own, so they are
/// removed first, and `results.jsonl` is emptied only once they are gone. A
/// failure leaves the earlier run's `results.jsonl` and `summary.json` as
/// they were: the reports go first (`refscore report` writes them again),
/// then the summary, and only then are the results emptied.
pub(crate) fn open_results(
    locked: &File,
    results_path: &Path,
    recorded: Option<(&Store, i64)>,
    resumed: bool,
) -> anyhow::Result<BufWriter<ResultsFile>> {
    if let Some(dir) = results_path.parent() {
        remove_stale(dir)?;
    }
    let file = locked
        .try_clone()
        .and_then(|f| f.set_len(0).map(|()| f))
        .with_context(|| format!("creating {}", results_path.display()))?;
    let mut results = BufWriter::with_capacity(1 << 20, ResultsFile { file, written: 0, whole: 0 });
    if let (Some((store, id)), true) = (recorded, resumed) {
        let replayed = store.for_each_line(id, |line| {
            results.write_all(line.as_bytes())?;
            results.write_all(b"\n")
        });
        if let Err(e) = replayed {
            // No half line is left, nor written after the cut.
            let (file, _) = results.into_parts();
            let _ = file.cut();
            return Err(e.into());
        }
    }
    Ok(results)
}

/// Removes the `summary.json` and reports an earlier run left in `dir`,
/// the reports before the summary. Anything there that is not a file (a
/// folder) is refused before any of them is removed.
fn remove_stale(dir: &Path) -> anyhow::Result<()> {
    let kept = "the earlier run's results.jsonl and summary.json were left as they were";
    let mut stale: Vec<&str> =
        crate::overwrite::output_files().filter(|n| *n != "results.jsonl").collect();
    // Reports first: `refscore report` writes them again from the results
    // and summary, which go last.
    stale.sort_by_key(|n| *n == "summary.json");
    for name in &stale {
        let path = dir.join(name);
        match std::fs::symlink_metadata(&path) {
            Ok(m) if m.is_dir() => anyhow::bail!(
                "{} is a folder, not a file a run writes: remove it or choose another output folder with -o ({kept})",
                path.display()
            ),
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(e).with_context(|| format!("reading {} ({kept})", path.display()));
            }
        }
    }
    // Files half written by a run killed outright go too (see
    // `reports::write_whole`).
    let files = stale.iter().map(|n| dir.join(n));
    let partials: Vec<PathBuf> = files.clone().map(|p| crate::reports::partial_path(&p)).collect();
    for path in files.chain(partials) {
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(e).with_context(|| format!("removing {} ({kept})", path.display()));
            }
            _ => {}
        }
    }
    Ok(())
}

/// `results.jsonl` being written (from its start): where its last whole
/// line ends, so that a write that fails part-way through a line can be cut
/// back to it.
pub(crate) struct ResultsFile {
    file: File,
    /// Bytes written so far.
    written: u64,
    /// Bytes up to the end of the last whole line written.
    whole: u64,
}

impl ResultsFile {
    /// Cuts the file back to the end of its last whole line; returns
    /// whether there was anything after it.
    pub(crate) fn cut(&self) -> std::io::Result<bool> {
        if self.whole < self.written {
            self.file.set_len(self.whole)?;
            Ok(true)
        } else {
            Ok(false)
        }
    }
}

impl Write for ResultsFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.file.write(buf)?;
        if let Some(at) = buf[..n].iter().rposition(|b| *b == b'\n') {
            self.whole = self.written + at as u64 + 1;
        }
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}
