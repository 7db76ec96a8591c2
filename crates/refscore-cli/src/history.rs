//! The run store from the command line: where it is, what a new run
//! records about itself, and which baseline a run is compared with.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Context;
use refscore::Suite;
use refscore::history::{
    BaselineInfo, GitInfo, RunInfo, RunScores, RunStatus, Store, StoreError, Strategy, hash_input,
    now_rfc3339, read_folder,
};
use refscore::judge::{CacheMode, CacheSettings};
use refscore::suite::LoadOptions;

use crate::args::RecordedArgs;

/// The store's file name inside `.refscore/`.
const STORE_FILE: &str = "runs.db";

/// The default store of a suite: `.refscore/runs.db` beside it.
pub(crate) fn store_beside(suite_file: &Path) -> PathBuf {
    suite_file.parent().unwrap_or_else(|| Path::new("")).join(".refscore").join(STORE_FILE)
}

/// Where the commands that read recorded runs (`runs ...`, `report RUN`)
/// find them: the store, and the suite `--suite` names.
pub(crate) struct Recorded {
    /// The store's file: `--store`/`REFSCORE_STORE`, else
    /// `.refscore/runs.db` beside the `--suite` file, else in the current
    /// folder.
    pub(crate) path: PathBuf,
    /// The name of the suite whose runs are meant (`--suite`).
    pub(crate) suite: Option<String>,
    /// The suite file `--suite` named, if it named one.
    suite_file: Option<PathBuf>,
}

impl Recorded {
    /// Resolves `--store` and `--suite`: a `--suite` that is a suite file
    /// (`.yaml`, `.yml`, `.toml`) is loaded for its name, and the store
    /// beside it is read unless `--store`/`REFSCORE_STORE` names one;
    /// anything else is a suite's name. A `--suite` that names no file but
    /// looks like one (a suite file's extension) is refused: a mistyped
    /// path would otherwise match no run.
    pub(crate) fn locate(args: &RecordedArgs) -> anyhow::Result<Recorded> {
        let Some(given) = &args.suite else {
            return Ok(Recorded {
                path: default_store(args.store.as_ref()),
                suite: None,
                suite_file: None,
            });
        };
        let file = Path::new(given);
        if refscore::SuiteFormat::from_path(file).is_none() {
            return Ok(Recorded {
                path: default_store(args.store.as_ref()),
                suite: Some(given.clone()),
                suite_file: None,
            });
        }
        if !file.is_file() {
            anyhow::bail!(
                "--suite {given}: no suite file there (--suite takes a suite file, or a suite's name)"
            );
        }
        // Only its name and path are needed: its judges' reply cache is
        // not opened, nor their API keys read.
        let load = LoadOptions {
            cache: CacheSettings { path: None, mode: CacheMode::Off },
            no_judging: true,
        };
        let suite = Suite::load_with(file, &load)?;
        Ok(Recorded {
            path: args.store.clone().unwrap_or_else(|| store_beside(&suite.path)),
            suite: Some(suite_name(&suite)),
            suite_file: Some(suite.path),
        })
    }

    /// Where runs are recorded, and how to name their store: said when
    /// there is no store at [`Recorded::path`].
    fn hint(&self) -> String {
        match &self.suite_file {
            Some(file) => format!(
                "no run of {} is recorded yet: `refscore run {}` records its runs there",
                file.display(),
                file.display()
            ),
            None => String::from(
                "`refscore run` records runs in `.refscore/runs.db` beside the suite file: name the suite file with --suite FILE, or the store with --store or REFSCORE_STORE",
            ),
        }
    }

    /// There is no store at [`Recorded::path`]: the error.
    fn missing(&self) -> anyhow::Error {
        if self.path.is_dir() {
            return anyhow::anyhow!(
                "{}: a folder, not a run store (a run store is one file, such as \
                 `.refscore/runs.db`: name the file)",
                self.path.display()
            );
        }
        anyhow::anyhow!("{}: no run store here ({})", self.path.display(), self.hint())
    }

    /// The store, read-only: a store on a read-only mount or in a
    /// read-only folder is read too.
    pub(crate) fn read(&self) -> anyhow::Result<Store> {
        self.explained(Store::open_read_only(&self.path))
    }

    /// The store, to write to (or read only when it cannot be written).
    pub(crate) fn open(&self) -> anyhow::Result<Store> {
        self.explained(Store::open_existing(&self.path))
    }

    /// The store when there is one (a command given output folders needs
    /// none), else why not, as [`run_not_folder`] says it; `open` opens it.
    pub(crate) fn if_any(
        &self,
        open: fn(&Recorded) -> anyhow::Result<Store>,
    ) -> anyhow::Result<Result<Store, String>> {
        if !self.path.exists() {
            return Ok(Err(format!(
                "no run store at {} to find a run in ({})",
                self.path.display(),
                self.hint()
            )));
        }
        open(self).map(Ok)
    }

    fn explained(&self, opened: Result<Store, StoreError>) -> anyhow::Result<Store> {
        match opened {
            Err(StoreError::Missing { .. }) => Err(self.missing()),
            other => Ok(other?),
        }
    }

    /// The run `what` names (an id, or `latest`: the latest run of the
    /// `--suite`), refused when it is a run of another suite.
    pub(crate) fn run(&self, store: &Store, what: &str) -> anyhow::Result<i64> {
        stored_run(store, what, self.suite.as_deref())
    }
}

/// The store `.refscore/runs.db` in the current folder, unless `--store`
/// or `REFSCORE_STORE` names one.
fn default_store(explicit: Option<&PathBuf>) -> PathBuf {
    explicit.cloned().unwrap_or_else(|| Path::new(".refscore").join(STORE_FILE))
}

/// The name runs of a suite are grouped by: its `name`, else its file's stem.
pub(crate) fn suite_name(suite: &Suite) -> String {
    suite.name.clone().unwrap_or_else(|| {
        suite.path.file_stem().map_or_else(|| "suite".to_owned(), |s| s.to_string_lossy().into())
    })
}

/// Threads to hash a dataset on: the run's (`--threads`, 0 or none: one
/// per core), at most one per core.
pub(crate) fn hash_threads(threads: Option<usize>) -> usize {
    // Hashing is computation: the rule of workers that ask no LLM.
    refscore::runner::workers_for(threads.filter(|&t| t > 0), 0)
}

/// What a new run records about where it came from; its files are hashed
/// on `threads` threads (see [`hash_threads`]).
pub(crate) fn run_info(
    suite: &Suite,
    tags: &[String],
    limit: Option<u64>,
    threads: usize,
) -> anyhow::Result<RunInfo> {
    let mut all: BTreeMap<String, String> = suite.tags.clone();
    // A command-line tag overrides the suite's; of one key given more than
    // once on the command line, the last is kept, and said.
    let mut given: BTreeMap<&str, (usize, &str)> = BTreeMap::new();
    for t in tags {
        let (k, v) = t
            .split_once('=')
            .filter(|(k, _)| !k.trim().is_empty())
            .with_context(|| format!("--tag {t}: expected KEY=VALUE"))?;
        let k = k.trim();
        let seen = given.entry(k).or_insert((0, t));
        *seen = (seen.0 + 1, t);
        all.insert(k.to_owned(), v.to_owned());
    }
    for (k, (n, last)) in given.into_iter().filter(|(_, (n, _))| *n > 1) {
        eprintln!(
            "warning: --tag {} given {n} times: the last, `{}`, is kept",
            crate::table::printable(k),
            crate::table::printable(last)
        );
    }
    let suite_hash =
        suite.hash(threads).with_context(|| format!("reading {}", suite.path.display()))?;
    let dataset_hash = hash_input(&suite.dataset, threads)
        .with_context(|| format!("reading the dataset {}", suite.dataset.display()))?;
    let folder =
        suite.path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    Ok(RunInfo {
        id: None,
        store: None,
        suite: suite_name(suite),
        suite_path: absolute(&suite.path),
        suite_hash,
        dataset: absolute(&suite.dataset),
        dataset_hash,
        git: git_info(folder),
        tags: all,
        links: suite.links.clone(),
        started_at: now_rfc3339(),
        ended_at: None,
        version: env!("CARGO_PKG_VERSION").to_owned(),
        limit,
        output: None,
        resumed: 0,
    })
}

/// `path` made absolute against the current folder (symbolic links are
/// kept), as recorded: a run resumed or reported from another folder
/// still finds its suite, dataset and output folder.
pub(crate) fn absolute(path: &Path) -> String {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()).display().to_string()
}

/// `path` relative to the current folder when it lies inside it (as a
/// user gave it), else as it is. From the root folder, where every
/// absolute path lies, a path stays absolute, as the others shown.
pub(crate) fn shown(path: &Path) -> PathBuf {
    std::env::current_dir()
        .ok()
        .filter(|cwd| cwd.parent().is_some())
        .and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf))
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or_else(|| path.to_path_buf())
}

/// The git commit, branch and dirtiness of `dir`, when it is in a
/// repository and git is installed.
fn git_info(dir: &Path) -> Option<GitInfo> {
    let git = |args: &[&str]| -> Option<String> {
        let out = Command::new("git").arg("-C").arg(dir).args(args).output().ok()?;
        out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
    };
    let commit = git(&["rev-parse", "HEAD"]).filter(|c| !c.is_empty())?;
    let branch =
        git(&["rev-parse", "--abbrev-ref", "HEAD"]).filter(|b| !b.is_empty() && b != "HEAD");
    let dirty =
        git(&["status", "--porcelain", "--untracked-files=no"]).is_some_and(|s| !s.is_empty());
    Some(GitInfo { commit, branch, dirty })
}

/// A run id from the command line: a number or `latest` (the latest run
/// of `suite`, when given), either after `run:` when a folder has the same
/// name (`run:1`, `run:latest`).
pub(crate) fn run_id(store: &Store, s: &str, suite: Option<&str>) -> anyhow::Result<i64> {
    let s = s.strip_prefix("run:").unwrap_or(s);
    if s == "latest" {
        return store.latest(suite)?.with_context(|| match suite {
            Some(name) => {
                format!("{}: no run of suite `{name}` recorded yet", store.path().display())
            }
            None => format!("{}: no run recorded yet", store.path().display()),
        });
    }
    // The parser's own reason ("invalid digit found in string") says
    // nothing more.
    s.parse::<i64>().ok().with_context(|| format!("`{s}` is not a run id (a number, or `latest`)"))
}

/// ` --store PATH` when the store was named with `--store` (not the one
/// `REFSCORE_STORE` names, which a command suggested to the user still
/// sees), else nothing: what a suggested command needs to find the same
/// store.
pub(crate) fn store_flag(given: Option<&Path>) -> String {
    let from_env = std::env::var_os("REFSCORE_STORE");
    match given {
        Some(path) if from_env.as_deref() != Some(path.as_os_str()) => {
            let shown = crate::table::printable_path(path);
            if shown.chars().any(|c| c.is_whitespace() || "'\"$`\\;&|<>()*?".contains(c)) {
                format!(" --store '{}'", shown.replace('\'', "'\\''"))
            } else {
                format!(" --store {shown}")
            }
        }
        _ => String::new(),
    }
}

/// Whether `what` reads as a run id (`1`, `latest`) as well as a name.
pub(crate) fn like_run_id(what: &str) -> bool {
    what == "latest" || (!what.is_empty() && what.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether a `RUN_OR_FOLDER` argument names an output folder: a folder by
/// that name exists. A folder named like a run id (`1`, `latest`) when
/// `store` holds that run is refused as ambiguous, saying how to name
/// either (`./1`, `run:1`), unless it holds no run's files (then the run
/// is meant); `run:ID` never names a folder.
pub(crate) fn names_folder(
    store: Result<&Store, &str>,
    what: &str,
    suite: Option<&str>,
) -> anyhow::Result<bool> {
    if what.starts_with("run:") || !Path::new(what).is_dir() {
        return Ok(false);
    }
    let dir = Path::new(what);
    let output_folder = dir.join("summary.json").exists() || dir.join("results.jsonl").exists();
    if like_run_id(what)
        && let Ok(store) = store
        && let Ok(id) = run_id(store, what, suite)
        && store.get(id).is_ok()
    {
        // A folder that holds no run's files is no output folder: the run.
        if !output_folder {
            return Ok(false);
        }
        anyhow::bail!(
            "`{what}` names both the folder {} and run {id} of {}: write `./{what}` for the \
             folder or `run:{what}` for the run",
            dir.display(),
            store.path().display()
        );
    }
    Ok(true)
}

/// The run of `store` that `what` names ([`run_id`]); with `suite`, a run
/// of another suite is refused.
fn stored_run(store: &Store, what: &str, suite: Option<&str>) -> anyhow::Result<i64> {
    let id = run_id(store, what, suite)?;
    of_suite(store, id, suite)?;
    Ok(id)
}

/// Refuses run `id` when `suite` is given and the run is of another suite.
fn of_suite(store: &Store, id: i64, suite: Option<&str>) -> anyhow::Result<()> {
    let Some(name) = suite else { return Ok(()) };
    let entry = store.get(id)?;
    if entry.suite != name {
        anyhow::bail!(
            "{}: run {id} is a run of suite `{}`, not of `{name}` (--suite)",
            store.path().display(),
            entry.suite
        );
    }
    Ok(())
}

/// The run a `RUN_OR_FOLDER` argument that is not a folder names: a run
/// of `store` ([`stored_run`]), or, without a store (`Err`: why there is
/// none, a clause: `the run store is off (--no-store)`), an error saying
/// that `what` is neither. Every command taking an output folder or a run
/// id (`run --baseline`, `runs diff`, `report`) says it so.
pub(crate) fn run_not_folder<'s>(
    store: Result<&'s Store, &str>,
    what: &str,
    suite: Option<&str>,
) -> anyhow::Result<(&'s Store, i64)> {
    match store {
        Ok(store) => {
            let id = run_id(store, what, suite).with_context(|| {
                if what.starts_with("run:") {
                    format!("`{what}` names a run of {}", store.path().display())
                } else {
                    format!(
                        "`{what}` is neither an output folder (a folder holding a run's summary.json) nor a run id of {}",
                        store.path().display()
                    )
                }
            })?;
            of_suite(store, id, suite)?;
            Ok((store, id))
        }
        Err(why) if what.starts_with("run:") => {
            anyhow::bail!("`{what}` names a run, and {why}")
        }
        Err(why) => anyhow::bail!(
            "`{what}` is neither an output folder (a folder holding a run's summary.json) nor a run id: there is no folder `{what}`, and {why}"
        ),
    }
}

/// A run to compare: from the store by id (of `suite`, when given), or
/// from an output folder; `store` is `Err(why)` when there is none.
pub(crate) fn load_run(
    store: Result<&Store, &str>,
    what: &str,
    suite: Option<&str>,
) -> anyhow::Result<(RunScores, BaselineInfo)> {
    let path = Path::new(what);
    if names_folder(store, what, suite)? {
        let (scores, info) = read_folder(path)?;
        return Ok((
            scores,
            BaselineInfo {
                run_id: info.as_ref().and_then(|i| i.id),
                folder: Some(path.display().to_string()),
                chosen_by: "explicit".to_owned(),
                reason: format!("the output folder {}", path.display()),
                started_at: info.as_ref().map(|i| i.started_at.clone()),
                git_commit: info.as_ref().and_then(|i| i.git.as_ref().map(|g| g.commit.clone())),
                suite: info.as_ref().map(|i| i.suite.clone()),
                dataset_hash: info.as_ref().map(|i| i.dataset_hash.clone()),
                suite_hash: info.map(|i| i.suite_hash).filter(|h| !h.is_empty()),
            },
        ));
    }
    let (store, id) = run_not_folder(store, what, suite)?;
    let entry = store.get(id)?;
    if entry.status != RunStatus::Completed {
        anyhow::bail!(
            "{}: run {id} is {}: {}",
            store.path().display(),
            entry.status.as_str(),
            refscore::history::ONLY_COMPLETED
        );
    }
    Ok((
        store.scores(id)?,
        stored_info(&entry, "explicit", format!("run {id}, named on the command line")),
    ))
}

/// What the comparison says of a stored baseline. One chosen by name
/// or pinned may have failed its gate (`last_passing` never takes one):
/// the reason then says so.
fn stored_info(
    entry: &refscore::history::RunEntry,
    chosen_by: &str,
    mut reason: String,
) -> BaselineInfo {
    if entry.gate_passed == Some(false) {
        reason = format!("{reason}; {GATE_FAILED}");
    }
    BaselineInfo {
        run_id: Some(entry.id),
        folder: None,
        chosen_by: chosen_by.to_owned(),
        reason,
        started_at: Some(entry.started_at.clone()),
        git_commit: entry.git_commit.clone(),
        suite: Some(entry.suite.clone()),
        dataset_hash: Some(entry.info.dataset_hash.clone()).filter(|h| !h.is_empty()),
        suite_hash: Some(entry.info.suite_hash.clone()).filter(|h| !h.is_empty()),
    }
}

/// Said of a baseline (a pinned run, one named) whose own gate failed:
/// runs are compared with a run that did not pass.
pub(crate) const GATE_FAILED: &str = "its own gate failed";

/// A baseline found: its scores, and what the comparison says of it.
pub(crate) type Found = (RunScores, BaselineInfo);

/// The baseline the suite's strategy finds in the store for the run
/// `current` (`last_passing` among the runs with the same `limit`), or why
/// there is none: no store, no run pinned, no passing run yet, or the
/// pinned run's record is damaged. A damaged passing run is passed over,
/// and the reason names it: one bad record never stops later runs.
pub(crate) fn suite_baseline(
    store: Option<&Store>,
    suite: &str,
    strategy: Strategy,
    current: Option<i64>,
    limit: Option<u64>,
) -> anyhow::Result<Result<Found, String>> {
    let Some(store) = store else {
        return Ok(Err(String::from(
            "no baseline: the run store is off (--no-store); give one with --baseline FOLDER",
        )));
    };
    match strategy {
        Strategy::LastPassing => {
            let rows = limit.map_or(String::new(), |l| format!(" with --limit {l}"));
            let mut passed_over = Vec::new();
            for id in store.passing(suite, current, limit)? {
                match readable(store, id)? {
                    Ok((scores, entry)) => {
                        let mut reason = format!(
                            "the latest completed run of suite `{suite}`{rows} whose gate passed"
                        );
                        if !passed_over.is_empty() {
                            reason += &format!("; passed over: {}", passed_over.join("; "));
                        }
                        return Ok(Ok((scores, stored_info(&entry, strategy.as_str(), reason))));
                    }
                    Err(why) => passed_over.push(why),
                }
            }
            let mut why = match limit {
                Some(n) => {
                    format!(
                        "no baseline run yet: no passing run of suite `{suite}` with --limit {n}"
                    )
                }
                None => match store.completed(suite, current)? {
                    // A run that failed its gate is never a baseline: a
                    // suite that never passed is told so, not "yet".
                    (all, 0) if all > 0 => format!(
                        "no baseline run yet: none of the {} of suite `{suite}` passed its gate \
                         (a run whose gate failed is never a baseline)",
                        refscore::text::counted(
                            all,
                            "earlier completed run",
                            "earlier completed runs"
                        )
                    ),
                    _ => String::from("no baseline run to compare with yet"),
                },
            };
            if !passed_over.is_empty() {
                why += &format!(" (passed over: {})", passed_over.join("; "));
            }
            Ok(Err(why))
        }
        Strategy::Pinned => {
            let Some(id) = store.pinned(suite)? else {
                return Ok(Err(format!(
                    "no run of suite `{suite}` is pinned: pin one with `refscore runs pin RUN`"
                )));
            };
            Ok(match readable(store, id)? {
                Ok((scores, entry)) => {
                    let reason = format!("the run pinned for suite `{suite}`");
                    Ok((scores, stored_info(&entry, strategy.as_str(), reason)))
                }
                Err(why) => Err(format!(
                    "the pinned {why}, is no baseline; pin another with `refscore runs pin RUN`"
                )),
            })
        }
    }
}

/// A recorded run's entry and scores, or, when its record is damaged, why
/// (`run 7: stored summary cannot be read: …`). Other failures of the
/// store are errors (a baseline too large for the memory left among them).
/// The scores read are the baseline the run is compared with, not only a
/// check that they decode: [`Store::scores`] decodes them one batch at a
/// time into a list of their size, so a damaged run passed over costs at
/// most what it decoded before its damage.
fn readable(
    store: &Store,
    id: i64,
) -> anyhow::Result<Result<(RunScores, refscore::history::RunEntry), String>> {
    let read = store.get(id).and_then(|entry| Ok((store.scores(id)?, entry)));
    match read {
        Ok(found) => Ok(Ok(found)),
        Err(refscore::history::StoreError::Damaged { id, what, message, .. }) => {
            Ok(Err(format!("run {id}, whose stored {what} cannot be read ({message})")))
        }
        Err(e) => Err(e.into()),
    }
}
