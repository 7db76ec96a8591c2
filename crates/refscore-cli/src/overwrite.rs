//! Output files are never opened over an input: before `run` records or
//! writes anything, each file it is about to create or truncate (the output
//! folder's `results.jsonl`, `summary.json` and reports, and the run store)
//! is compared with each file it reads (the suite, the dataset, the files
//! its evaluators' options name, the run store, the judges' reply cache);
//! before `report` writes a report, each report file is compared with the
//! run's `results.jsonl` and `summary.json` (or the run store), the suite,
//! its files and the dataset. Two paths
//! are one file when they
//! resolve to the same place (symbolic links followed) or, on Unix, name
//! the same device and inode (hard links).

use std::path::{Path, PathBuf};

/// The files a run reads, each with what it is ("the dataset").
pub(crate) struct Inputs {
    files: Vec<(&'static str, PathBuf)>,
}

impl Inputs {
    /// No inputs yet.
    pub(crate) fn new() -> Self {
        Inputs { files: Vec::new() }
    }

    /// Adds `path`, described as `role` in messages.
    pub(crate) fn add(&mut self, role: &'static str, path: &Path) {
        self.files.push((role, path.to_path_buf()));
    }

    /// Adds a loaded suite's files: the suite, its dataset, and the files
    /// its evaluators' options name (rules files, JSON Schemas).
    pub(crate) fn add_suite(&mut self, suite: &refscore::Suite) {
        self.add("the suite", &suite.path);
        self.add("the dataset", &suite.dataset);
        for file in &suite.config_files {
            self.add("a file the suite's options name", file);
        }
    }

    /// What `path` is when it is one of the inputs (`the dataset`).
    pub(crate) fn role_of(&self, path: &Path) -> Option<&'static str> {
        self.files.iter().find(|(_, input)| same_file(path, input)).map(|(role, _)| *role)
    }

    /// Refuses `output` (described as `what`) when it is one of the inputs;
    /// the message names both paths and `remedy`.
    pub(crate) fn refuse_overlap(
        &self,
        what: &str,
        output: &Path,
        remedy: &str,
    ) -> anyhow::Result<()> {
        match self.files.iter().find(|(_, input)| same_file(output, input)) {
            Some((role, input)) => anyhow::bail!(
                "refusing to write {what} {}: it is the same file as {role} {}, which would be overwritten; {remedy}",
                output.display(),
                input.display()
            ),
            None => Ok(()),
        }
    }

    /// Refuses a `GITHUB_STEP_SUMMARY` (see [`step_summary_path`]) that is
    /// an input or one of the files a run writes into `dir`.
    pub(crate) fn refuse_step_summary(&self, dir: Option<&Path>) -> anyhow::Result<()> {
        let Some(path) = step_summary_path() else { return Ok(()) };
        let what = "the step summary (GITHUB_STEP_SUMMARY)";
        let remedy = "point GITHUB_STEP_SUMMARY at another file";
        self.refuse_overlap(what, &path, remedy)?;
        for name in output_files() {
            let output = dir.map(|d| d.join(name));
            if let Some(output) = output.filter(|o| same_file(&path, o)) {
                anyhow::bail!(
                    "refusing to append {what} to {}: it is the output file {}; {remedy}",
                    path.display(),
                    output.display()
                );
            }
        }
        // One that cannot be appended to fails now, not after every row was
        // evaluated (opening it creates it, as the runner would).
        if let Err(e) = std::fs::OpenOptions::new().create(true).append(true).open(&path) {
            anyhow::bail!("cannot append {what} to {}: {e}; {remedy}", path.display());
        }
        Ok(())
    }

    /// Refuses every file a run writes into `dir`: `results.jsonl`,
    /// `summary.json` and the report files `reports`.
    pub(crate) fn refuse_output_folder(&self, dir: &Path, reports: &[&str]) -> anyhow::Result<()> {
        self.refuse_in_folder(dir, &["results.jsonl", "summary.json"])?;
        self.refuse_in_folder(dir, reports)
    }

    /// Refuses each of the files `names` in `dir` that is an input.
    pub(crate) fn refuse_in_folder(&self, dir: &Path, names: &[&str]) -> anyhow::Result<()> {
        for name in names {
            self.refuse_overlap(
                "the output file",
                &dir.join(name),
                "choose another output folder with -o",
            )?;
        }
        Ok(())
    }
}

/// Every file a run writes into its output folder: `results.jsonl`,
/// `summary.json` and each report.
pub(crate) fn output_files() -> impl Iterator<Item = &'static str> {
    ["results.jsonl", "summary.json"]
        .into_iter()
        .chain(refscore::report::Format::ALL.map(refscore::report::Format::file_name))
}

/// The file `GITHUB_STEP_SUMMARY` names, when it is set and not empty:
/// where GitHub Actions reads a job's Markdown summary from.
pub(crate) fn step_summary_path() -> Option<PathBuf> {
    std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty()).map(PathBuf::from)
}

/// Whether `a` and `b` are the same file, existing or about to be created.
pub(crate) fn same_file(a: &Path, b: &Path) -> bool {
    if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            if (x.dev(), x.ino()) == (y.dev(), y.ino()) {
                return true;
            }
        }
        #[cfg(not(unix))]
        let _ = (x, y);
    }
    match (resolved(a), resolved(b)) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

/// `path` with its symbolic links resolved: the file itself when it exists,
/// else its folder's resolved path and its name, else the absolute path.
fn resolved(path: &Path) -> Option<PathBuf> {
    if let Ok(p) = std::fs::canonicalize(path) {
        return Some(p);
    }
    let name = path.file_name()?;
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    match std::fs::canonicalize(parent) {
        Ok(p) => Some(p.join(name)),
        Err(_) => std::path::absolute(path).ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_and_spellings_of_one_file_are_the_same_file() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("a.jsonl"), "x\n").unwrap();
        std::fs::write(d.join("b.jsonl"), "x\n").unwrap();
        std::fs::create_dir(d.join("sub")).unwrap();
        assert!(same_file(&d.join("a.jsonl"), &d.join("sub/../a.jsonl")));
        assert!(!same_file(&d.join("a.jsonl"), &d.join("b.jsonl")));
        // Not created yet: the same path, however spelled.
        assert!(same_file(&d.join("new.db"), &d.join("sub/../new.db")));
        assert!(!same_file(&d.join("new.db"), &d.join("sub/new.db")));
        #[cfg(unix)]
        {
            std::fs::hard_link(d.join("a.jsonl"), d.join("sub/hard.jsonl")).unwrap();
            std::os::unix::fs::symlink(d.join("a.jsonl"), d.join("sub/soft.jsonl")).unwrap();
            assert!(same_file(&d.join("sub/hard.jsonl"), &d.join("a.jsonl")));
            assert!(same_file(&d.join("sub/soft.jsonl"), &d.join("a.jsonl")));
        }
    }

    #[test]
    fn an_output_over_an_input_is_refused_naming_both() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir(d.join("out")).unwrap();
        std::fs::write(d.join("out/summary.json"), "{}").unwrap();
        let mut inputs = Inputs::new();
        inputs.add("the dataset", &d.join("out/summary.json"));
        let err = inputs.refuse_output_folder(&d.join("out"), &[]).unwrap_err().to_string();
        assert!(err.contains("summary.json") && err.contains("the dataset"), "{err}");
        assert!(inputs.refuse_output_folder(&d.join("other"), &["report.md"]).is_ok());
    }
}
