//! Writing the Markdown, JUnit and HTML reports of a run: after `run`, and
//! again from an output folder with `refscore report`.

use std::fs::{File, OpenOptions};
use std::io::{BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use refscore::history::Store;
use refscore::judge::{CacheMode, CacheSettings};
use refscore::report::{self, Format, Options, Sides};
use refscore::suite::{LoadOptions, Suite};
use refscore::summary::RunSummary;

use crate::args::ReportArgs;
use crate::history::{Recorded, run_not_folder};
use crate::output_lock;
use crate::overwrite::Inputs;
use crate::table::printable;
use refscore::history::RunStatus;

/// The formats named on the command line, each once, in a fixed order.
pub(crate) fn formats(names: &[String]) -> Vec<Format> {
    let wanted: Vec<Format> = names.iter().filter_map(|n| Format::from_name(n)).collect();
    Format::ALL.into_iter().filter(|f| wanted.contains(f)).collect()
}

/// Where a finished run's rows are read from.
pub(crate) enum Source<'a> {
    /// `results.jsonl` of an output folder.
    Folder(&'a Path),
    /// A run of the store.
    Store(&'a Store, i64),
}

impl Source<'_> {
    /// The run's rows, read back one by one; `rows` is how many its
    /// summary counts.
    fn rows(
        &self,
        rows: u64,
    ) -> anyhow::Result<
        Box<dyn Iterator<Item = Result<refscore::RowResult, report::ReportError>> + '_>,
    > {
        match *self {
            Source::Folder(dir) => {
                let path = dir.join("results.jsonl");
                // An input of the report: said as every read error is
                // (`FILE: why`), not as a failure to write the report.
                let file = refscore::limits::open_regular(&path).map_err(|e| {
                    report::ReportError::Read { file: path.clone(), message: e.to_string() }
                })?;
                let reader = BufReader::with_capacity(1 << 20, file);
                Ok(Box::new(report::read_rows(reader, &path, rows)))
            }
            Source::Store(store, id) => {
                let shown = PathBuf::from(format!("{} (run {id})", store.path().display()));
                let reader = store.results_reader(id)?;
                let reader = BufReader::with_capacity(1 << 20, reader);
                Ok(Box::new(report::read_rows(reader, &shown, rows)))
            }
        }
    }
}

/// Writes the reports `formats` of the run in `dir` into `out_dir`; the
/// HTML report embeds output and reference of failed rows when `suite` is
/// given. Returns the files written.
pub(crate) fn write(
    source: &Source<'_>,
    out_dir: &Path,
    summary: &RunSummary,
    suite: Option<&Suite>,
    formats: &[Format],
    opts: &Options,
) -> anyhow::Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    for &format in formats {
        let path = out_dir.join(format.file_name());
        // A report is renamed into place once whole (a process ended while
        // writing it leaves none); one that could not be rendered whole is
        // not left behind, nor is an earlier one of that name.
        let rendered = write_whole(&path, |out| render(source, summary, suite, format, opts, out));
        if let Err(e) = rendered {
            let _ = std::fs::remove_file(&path);
            // A file of the run that could not be read names itself:
            // "writing" would blame the report.
            let read = matches!(
                e.downcast_ref::<report::ReportError>(),
                Some(
                    report::ReportError::Read { .. }
                        | report::ReportError::Line { .. }
                        | report::ReportError::Row { .. }
                )
            );
            return Err(if read { e } else { e.context(format!("writing {}", path.display())) });
        }
        written.push(path);
    }
    Ok(written)
}

/// Writes `path` whole or not at all: `write` fills `<name>.partial`
/// beside it, which is renamed over `path` once flushed and synced. When
/// anything fails the partial file is removed and `path` is left as it was.
pub(crate) fn write_whole(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let partial = partial_path(path);
    // A partial file left by a process killed while writing is replaced,
    // never written through (it could be a link to another file).
    match std::fs::remove_file(&partial) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            return Err(e).with_context(|| format!("removing {}", partial.display()));
        }
        _ => {}
    }
    let file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&partial)
        .with_context(|| format!("creating {}", partial.display()))?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    let done = write(&mut out)
        .and_then(|()| {
            let file = out.into_inner().map_err(std::io::IntoInnerError::into_error)?;
            file.sync_all()?;
            Ok(())
        })
        .and_then(|()| Ok(std::fs::rename(&partial, path)?));
    if done.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    done
}

/// Where [`write_whole`] writes `path` before it is whole: `<name>.partial`
/// beside it.
pub(crate) fn partial_path(path: &Path) -> std::path::PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".partial");
    path.with_file_name(name)
}

/// Renders one report into `out` and flushes it.
fn render(
    source: &Source<'_>,
    summary: &RunSummary,
    suite: Option<&Suite>,
    format: Format,
    opts: &Options,
    out: &mut BufWriter<File>,
) -> anyhow::Result<()> {
    match format {
        Format::Markdown => {
            report::markdown::render(summary, &mut source.rows(summary.rows)?, opts, out)?
        }
        Format::Junit => {
            report::junit::render(summary, &mut source.rows(summary.rows)?, opts, out)?
        }
        Format::Html => {
            let sides = match suite {
                Some(suite) => {
                    let wanted =
                        report::failed_rows(&mut source.rows(summary.rows)?, opts.max_sides)?;
                    Some(Sides::read(suite, &wanted)?)
                }
                None => None,
            };
            report::html::render(
                summary,
                &mut source.rows(summary.rows)?,
                sides.as_ref(),
                opts,
                out,
            )?;
        }
    }
    out.flush()?;
    Ok(())
}

/// The Markdown report of the run in `dir`.
pub(crate) fn markdown(
    source: &Source<'_>,
    summary: &RunSummary,
    opts: &Options,
) -> anyhow::Result<String> {
    Ok(report::markdown::to_string(summary, &mut source.rows(summary.rows)?, opts)?)
}

/// Appends the Markdown report to the file `GITHUB_STEP_SUMMARY` names,
/// when it is set.
pub(crate) fn step_summary(source: &Source<'_>, summary: &RunSummary) -> anyhow::Result<()> {
    let Some(path) = crate::overwrite::step_summary_path() else {
        return Ok(());
    };
    let text = markdown(source, summary, &Options::default())?;
    let mut file =
        OpenOptions::new().create(true).append(true).open(&path).with_context(|| {
            format!("opening GITHUB_STEP_SUMMARY {}", Path::new(&path).display())
        })?;
    file.write_all(text.as_bytes())
        .and_then(|()| file.write_all(b"\n"))
        .with_context(|| format!("writing GITHUB_STEP_SUMMARY {}", Path::new(&path).display()))?;
    Ok(())
}

/// Runs looked at for the latest finished one when `latest` has not
/// finished.
const LATEST_LOOKED_AT: usize = 100;

/// `refscore report RUN_OR_FOLDER`: renders the reports again without
/// evaluating, from an output folder or a run of the store.
pub(crate) fn command(args: &ReportArgs) -> anyhow::Result<ExitCode> {
    let folder = Path::new(&args.run);
    let at = Recorded::locate(&args.at)?;
    // The store (for a folder named, only to see whether a name like a
    // run id is ambiguous: a store that cannot be read does not keep a
    // folder from being read).
    let store = match at.if_any(Recorded::read) {
        Ok(store) => store,
        Err(e) if folder.is_dir() && !args.run.starts_with("run:") => Err(e.to_string()),
        Err(e) => return Err(e),
    };
    let store = store.as_ref().map_err(String::as_str);
    // A folder a run is still writing is neither read nor written into:
    // its summary and rows would not belong together.
    let mut locks = Vec::new();
    let (source, summary, default_out) = if crate::history::names_folder(
        store,
        &args.run,
        at.suite.as_deref(),
    )? {
        locks.extend(output_lock::for_reading(folder)?);
        let summary_path = folder.join("summary.json");
        if !summary_path.exists() && folder.join("results.jsonl").exists() {
            anyhow::bail!(
                "{} is missing: the run that wrote {} ended before its summary \
                 (killed, or it failed); `refscore run --resume` continues a recorded run",
                summary_path.display(),
                folder.join("results.jsonl").display()
            );
        }
        let absent = std::fs::symlink_metadata(&summary_path)
            .is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound);
        if absent {
            anyhow::bail!(
                "{} is no output folder: it holds no summary.json (`refscore run` writes summary.json and results.jsonl into its output folder)",
                folder.display()
            );
        }
        let text = refscore::limits::read_regular_text(
            &summary_path,
            refscore::limits::MAX_SUMMARY_BYTES,
        )?;
        (Source::Folder(folder), report::read_summary(&text, &summary_path)?, folder.to_path_buf())
    } else {
        // Not a folder: a run of the store, or neither (said as by
        // `--baseline` and `runs diff`).
        let (store, id) = run_not_folder(store, &args.run, at.suite.as_deref())?;
        let text = match store.summary(id) {
            Ok(text) => text,
            // `latest` is a run that has not finished (running now, in
            // another CI job): name the latest one that did.
            Err(_)
                if args.run.trim_start_matches("run:") == "latest"
                    && store.get(id).is_ok_and(|r| r.status == RunStatus::Running) =>
            {
                let flag = crate::history::store_flag(args.at.store.as_deref());
                // Running now (another CI job), or marked running by a
                // process that is gone (killed outright): said apart.
                let state = match store.get(id).ok().filter(|r| crate::runs::gone(r).is_some()) {
                    Some(r) => format!(
                        "run {id} did not finish (its process is gone: killed or crashed; \
                         continue it with `refscore run {} --resume {id}{flag}`)",
                        printable(&r.info.suite_path)
                    ),
                    None => format!("run {id} is still running"),
                };
                // The latest of the newest runs that has a summary to read
                // (a failed run has none).
                let done = store
                    .list(at.suite.as_deref(), Some(LATEST_LOOKED_AT))?
                    .into_iter()
                    .find(|r| r.id != id && r.damaged.is_none() && store.summary(r.id).is_ok());
                match done {
                    Some(r) => anyhow::bail!(
                        "{}: {state}; the latest run with a report is {}: \
                         `refscore report run:{}{flag}`",
                        store.path().display(),
                        r.id,
                        r.id,
                    ),
                    None => anyhow::bail!(
                        "{}: {state}, and no earlier run has a report",
                        store.path().display()
                    ),
                }
            }
            Err(e) => return Err(e.into()),
        };
        let shown = PathBuf::from(format!("{} (run {id})", store.path().display()));
        (Source::Store(store, id), report::read_summary(&text, &shown)?, PathBuf::from("."))
    };
    let out_dir = args.output.clone().unwrap_or(default_out);
    let formats = if args.report.is_empty() { Format::ALL.to_vec() } else { formats(&args.report) };
    // The suite, when it can still be loaded, gives the HTML report each
    // failed row's output and reference. Its judges are never asked: their
    // reply cache is not opened, nor their API keys read.
    let load =
        LoadOptions { cache: CacheSettings { path: None, mode: CacheMode::Off }, no_judging: true };
    let loaded = summary.run.as_ref().map(|r| Suite::load_with(Path::new(&r.suite_path), &load));
    let (suite, unloadable) = match loaded {
        Some(Ok(suite)) => (Some(suite), None),
        Some(Err(e)) => (None, Some(e.to_string())),
        None => (None, None),
    };
    // No report is written over a file this command reads.
    let mut inputs = Inputs::new();
    match source {
        Source::Folder(dir) => {
            inputs.add("the run's results", &dir.join("results.jsonl"));
            inputs.add("the run's summary", &dir.join("summary.json"));
        }
        Source::Store(store, _) => inputs.add("the run store", store.path()),
    }
    // The run's own record of its suite and dataset, whether or not the
    // suite loads now.
    if let Some(run) = &summary.run {
        inputs.add("the suite", Path::new(&run.suite_path));
        inputs.add("the dataset", Path::new(&run.dataset));
    }
    if let Some(suite) = &suite {
        inputs.add_suite(suite);
    }
    let names: Vec<&str> = formats.iter().map(|f| f.file_name()).collect();
    inputs.refuse_in_folder(&out_dir, &names)?;
    inputs.refuse_step_summary(Some(&out_dir))?;
    // `-o` or a folder above it that is a file (`-o afile/sub`).
    if let Some(file) = out_dir.ancestors().find(|a| a.exists()).filter(|a| !a.is_dir()) {
        anyhow::bail!(
            "{}: not a folder: `-o` names the folder the reports are written into",
            file.display()
        );
    }
    locks.extend(output_lock::for_reading(&out_dir)?);
    let created = !out_dir.exists();
    std::fs::create_dir_all(&out_dir).with_context(|| format!("creating {}", out_dir.display()))?;
    // Rows are read again from the dataset by number, through the suite's
    // mapping: a dataset or a suite edited since the run would show other
    // documents than the run compared.
    let changed = match (&suite, &summary.run) {
        (Some(suite), Some(run)) if formats.contains(&Format::Html) => [
            ("suite", &suite.path, &run.suite_hash),
            ("dataset", &suite.dataset, &run.dataset_hash),
        ]
        .into_iter()
        .find_map(|(what, path, recorded)| {
            if recorded.is_empty() {
                return Some(format!(
                    "the {what} {} was read from a pipe or a device, not a file, so it cannot be read again",
                    path.display()
                ));
            }
            let threads = crate::history::hash_threads(None);
            // The suite's hash covers the files its options name (see
            // `Suite::hash`), as the run recorded it.
            let now = if what == "suite" {
                suite.hash(threads)
            } else {
                refscore::history::hash_file(path, threads)
            };
            let why = match now {
                Ok(hash) if hash == *recorded => return None,
                Ok(_) => "changed since this run (its BLAKE3 hash differs)",
                Err(_) => "cannot be read",
            };
            Some(format!("the {what} {} {why}", path.display()))
        }),
        _ => None,
    };
    if formats.contains(&Format::Html) {
        let why = match (&suite, &changed) {
            (None, _) => Some(match &unloadable {
                Some(e) => format!("the suite of this run cannot be loaded ({e})"),
                None => "the summary names no suite".to_owned(),
            }),
            (Some(_), Some(why)) => Some(why.clone()),
            (Some(_), None) => None,
        };
        if let Some(why) = why {
            writeln!(
                std::io::stderr(),
                "refscore: note: {why}; report.html shows failed checks without output and reference"
            )?;
        }
    }
    let sides = suite.as_ref().filter(|_| changed.is_none());
    let opts = Options { max_rows: args.max_rows, ..Options::default() };
    let written = write(&source, &out_dir, &summary, sides, &formats, &opts);
    if written.is_err() && created {
        // A folder made for reports that were not written goes too (only
        // when empty: a report written before the failure stays).
        let _ = std::fs::remove_dir(&out_dir);
    }
    for path in written? {
        writeln!(std::io::stdout(), "{}", crate::table::printable_path(&path))?;
    }
    Ok(ExitCode::SUCCESS)
}
