//! `refscore run`: score a whole golden dataset with a suite.

use std::io::{BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use anyhow::Context;
use refscore::history::{
    BaselineInfo, Comparison, Recorder, RowScores, RunInfo, RunStatus, Store, compact_timestamp,
    unix_now,
};
use refscore::judge::{CacheMode, CacheSettings};
use refscore::runner::{
    self, BatchRecord, BatchSink, Progress, RecordedRun, Recording, Resume, RowResult, RunOptions,
    WarningScope,
};
use refscore::suite::{LoadOptions, Suite};

use crate::args::RunArgs;
use crate::color::Palette;
use crate::dataset_stamp::{DatasetStamp, refuse_stream_resume};
use crate::history;
use crate::output_folder::{ResultsFile, claim_fresh_dir, open_results};
use crate::output_lock;
use crate::overwrite::Inputs;
use crate::table::printable_path;

/// Signals closer together than this are one stop, delivered twice.
const SAME_STOP: Duration = Duration::from_millis(250);

pub(crate) fn run(args: &RunArgs) -> anyhow::Result<ExitCode> {
    let mode = if args.no_cache {
        CacheMode::Off
    } else if args.refresh_cache {
        CacheMode::Refresh
    } else {
        CacheMode::Use
    };
    let load =
        LoadOptions { cache: CacheSettings { path: args.cache.clone(), mode }, no_judging: false };
    // Nothing is opened before the paths are checked: the suite is read
    // first without its judges' reply cache (opening the cache creates
    // its file), and read again with it once the checks are done.
    let unopened = LoadOptions {
        cache: CacheSettings { path: args.cache.clone(), mode: CacheMode::Off },
        ..load.clone()
    };
    let mut suite = Suite::load_with(&args.suite, &unopened)?;
    suite.check_dataset()?;
    // Nothing is opened for writing over a file the run reads: the store
    // and each output file are checked before any of them is touched.
    let mut inputs = Inputs::new();
    inputs.add_suite(&suite);
    let store_path = (!args.no_store)
        .then(|| args.store.store.clone().unwrap_or_else(|| history::store_beside(&suite.path)));
    if let Some(path) = &store_path {
        inputs.refuse_overlap("the run store", path, "choose another store with --store")?;
        inputs.add("the run store", path);
    }
    let cache = (!suite.judges.is_empty() && mode != CacheMode::Off).then(|| {
        let default = suite.path.parent().unwrap_or(Path::new("")).join(".refscore/cache.db");
        args.cache.clone().unwrap_or(default)
    });
    if let Some(path) = &cache {
        inputs.refuse_overlap(
            "the judges' reply cache",
            path,
            "choose another cache with --cache",
        )?;
        inputs.add("the judges' reply cache", path);
    }
    // Every report file: those not asked for are removed, if an earlier
    // run left them (see `open_results`), so none may be an input either.
    let report_files: Vec<&str> =
        refscore::report::Format::ALL.into_iter().map(|f| f.file_name()).collect();
    // A new run's output folder given with `-o` is checked now; a resumed
    // run's once its record is read. A folder of its own (no `-o`) is new,
    // so it holds no input: it is claimed once the dataset is open.
    if let (None, Some(dir)) = (&args.resume, &args.output) {
        crate::output_lock::refuse_non_folder(dir, &inputs)?;
        inputs.refuse_output_folder(dir, &report_files)?;
    }
    // A baseline folder is read too: nothing may be appended to its files.
    if let Some(dir) = args.baseline.as_deref().map(Path::new).filter(|p| p.is_dir()) {
        inputs.add("the baseline's summary", &dir.join("summary.json"));
        inputs.add("the baseline's results", &dir.join("results.jsonl"));
    }
    inputs.refuse_step_summary(args.output.as_deref())?;
    // A resume reads its dataset again and checks it against the run's
    // hash: a pipe or a device cannot be either. It is refused from the
    // file's type, before it is opened (opening a pipe waits for a writer).
    if args.resume.is_some() {
        refuse_stream_resume(&suite.dataset)?;
    }
    // A resumed run's cache is opened once its record and output folder
    // are checked (below): a resume refused leaves no cache file behind.
    if cache.is_some() && args.resume.is_none() {
        suite = Suite::load_with(&args.suite, &load)?;
    }
    for w in suite.judges.warnings() {
        eprintln!("warning: {}", crate::table::printable(&w));
    }
    // What the dataset file is before it is opened and hashed: a file
    // that changes while the run reads it fails the run (see
    // `DatasetStamp`).
    let stamp = DatasetStamp::of(&suite.dataset);
    // The dataset is opened before the store, a run record or any output
    // file: a dataset that cannot be read leaves nothing behind.
    let dataset = refscore::dataset::open(&suite.dataset, suite.format)
        .with_context(|| format!("the dataset of {}", args.suite.display()))?;
    // So are the workers: a run whose threads cannot start (an address-
    // space limit) leaves the earlier results in its folder as they were.
    let workers = runner::start_workers(&suite, args.threads)?;
    note_workers(args.threads, workers.current_num_threads());
    // The stop signals are caught from here on, before the store records
    // the run or the output folder is touched: a stop at any moment after
    // this ends the run as cancelled (exit 1), never killed half-way with
    // a `running` record. (Before it, nothing is recorded or written, and
    // opening a dataset that is a pipe, which waits for a writer, can
    // still be stopped.)
    let cancel = Arc::new(AtomicBool::new(false));
    let results: Arc<Mutex<Option<BufWriter<ResultsFile>>>> = Arc::new(Mutex::new(None));
    // The output folder, once known: a second signal removes the summary
    // or report being written there (under its `.partial` name).
    let out_dir: Arc<OnceLock<PathBuf>> = Arc::new(OnceLock::new());
    {
        let cancel = Arc::clone(&cancel);
        let judges = suite.judges.cancel_flag();
        let results = Arc::clone(&results);
        let out_dir = Arc::clone(&out_dir);
        // The first Ctrl-C, SIGTERM or SIGHUP stops reading rows and sending
        // judge requests (those in flight finish), and the run ends as
        // cancelled with its summary; a second one flushes the whole lines
        // written so far and ends the process at once. One stop can arrive
        // twice at once (`timeout` signals the process and then its group;
        // so does a kill of the group): a signal within
        // `SAME_STOP` of the first is the same stop.
        let mut first: Option<Instant> = None;
        let _ = ctrlc::set_handler(move || {
            judges.store(true, Ordering::SeqCst);
            cancel.store(true, Ordering::SeqCst);
            match first {
                None => first = Some(Instant::now()),
                Some(at) if at.elapsed() < SAME_STOP => {}
                Some(_) => {
                    let mut w = results.lock().unwrap_or_else(PoisonError::into_inner);
                    if let Some(w) = w.as_mut()
                        && w.flush().is_err()
                    {
                        let _ = w.get_ref().cut();
                    }
                    if let Some(dir) = out_dir.get() {
                        for name in crate::overwrite::output_files() {
                            let _ =
                                std::fs::remove_file(crate::reports::partial_path(&dir.join(name)));
                        }
                    }
                    std::process::exit(130);
                }
            }
        });
    }
    let store = match &store_path {
        None => None,
        Some(path) => Some(Store::open(path)?),
    };
    // A --baseline is found first: a bad one fails before any run is
    // recorded or any row evaluated. The suite's own strategy is applied
    // once the run's row limit is known (a resumed run keeps its own).
    let explicit = match args.baseline.as_deref() {
        Some(what) => {
            let store = store.as_ref().ok_or("the run store is off (--no-store)");
            Some(history::load_run(store, what, None)?)
        }
        None => None,
    };
    // A new run, or the continuation of an interrupted one. The output
    // folder is locked for this run before the store records anything
    // about it: a folder another run is writing leaves no trace.
    let (mut info, run_id, prior, locked) = match (&store, &args.resume) {
        (Some(store), Some(which)) => {
            let (info, id) = resume(store, &suite, which, args)?;
            let dir = Path::new(info.output.as_deref().unwrap_or("refscore-out"));
            inputs.refuse_output_folder(dir, &report_files)?;
            if cache.is_some() {
                suite = Suite::load_with(&args.suite, &load)?;
            }
            let locked = output_lock::for_run(dir, &inputs)?;
            store.claim_resume(id, &info)?;
            let prior = store.prior_batches(id)?;
            (info, Some(id), prior, locked)
        }
        (None, Some(_)) => anyhow::bail!("--resume needs the run store"),
        (store, None) => {
            let mut info = history::run_info(
                &suite,
                &args.tags,
                args.limit,
                history::hash_threads(args.threads),
            )?;
            let (dir, created) = match &args.output {
                Some(dir) => (dir.clone(), output_lock::Created::before(dir, false)),
                None => {
                    let dir = claim_fresh_dir(
                        &PathBuf::from("refscore-out").join(compact_timestamp(unix_now())),
                    )?;
                    let created = output_lock::Created::before(&dir, true);
                    (dir, created)
                }
            };
            info.output = Some(crate::history::absolute(&dir));
            let locked = output_lock::for_run(&dir, &inputs)?;
            let id = match store {
                Some(s) => {
                    let waiting = crate::wait_note::WaitNote::after(
                        STORE_WAIT_NOTE,
                        store_wait_message(s.path()),
                        args.quiet,
                    );
                    let begun = s.begin(&info, &suite.regression);
                    drop(waiting);
                    let id = match begun {
                        Ok(id) => id,
                        Err(e) => {
                            created.undo(locked);
                            return Err(e.into());
                        }
                    };
                    info.id = Some(id);
                    info.store = Some(crate::history::absolute(s.path()));
                    Some(id)
                }
                None => None,
            };
            (info, id, Vec::new(), locked)
        }
    };
    let baseline = match explicit {
        Some(found) => Ok(found),
        None => match history::suite_baseline(
            store.as_ref(),
            &history::suite_name(&suite),
            suite.regression.baseline,
            run_id,
            info.limit,
        ) {
            Ok(found) => found,
            Err(e) => {
                // A recorded run that cannot look for its baseline failed; it
                // does not stay `running`.
                if let (Some(store), Some(id)) = (&store, run_id) {
                    let _ = store.mark(id, RunStatus::Failed);
                }
                return Err(e);
            }
        },
    };
    if let Some(w) = baseline.as_ref().ok().and_then(|(_, found)| baseline_differs(found, &info)) {
        eprintln!("warning: {}", crate::table::printable(&w));
    }
    if let Some(w) = baseline.as_ref().ok().and_then(|(_, found)| suite_changed(found, &info)) {
        eprintln!("note: {}", crate::table::printable(&w));
    }
    if let (Ok((_, found)), Some(store), None) = (&baseline, &store, &suite.name)
        && let Some(w) = baseline_of_another_file(store, found, &info)
    {
        eprintln!("warning: {}", crate::table::printable(&w));
    }
    // Recorded absolute; shown (and used) relative to the current folder
    // when inside it, as the user wrote it.
    let dir = crate::history::shown(Path::new(info.output.as_deref().unwrap_or("refscore-out")));
    let results_path = dir.join("results.jsonl");
    let _ = out_dir.set(dir.clone());
    match open_results(&locked, &results_path, store.as_ref().zip(run_id), !prior.is_empty()) {
        Ok(w) => *results.lock().unwrap_or_else(PoisonError::into_inner) = Some(w),
        Err(e) => {
            // A recorded run that cannot write its results failed; it does
            // not stay `running`.
            if let (Some(store), Some(id)) = (&store, run_id) {
                let _ = store.mark(id, RunStatus::Failed);
            }
            return Err(e);
        }
    }

    let opts = RunOptions {
        threads: args.threads,
        cancel: Arc::clone(&cancel),
        limit: info.limit,
        keep_passed_details: args.all_details,
        lines: runner::LineFormat::RowResult,
        max_details: None,
        value_reader: args.value_reader,
        workers: Some(workers),
    };
    let progress = ProgressView::new(args.quiet);
    let (mut first_errors, mut errors) = (Vec::new(), 0u64);
    let mut on_row = |r: &RowResult, line: &str| -> std::io::Result<()> {
        errors += note_errors(&mut first_errors, r);
        // One lock per line: a flush from the signal handler sees whole lines.
        let mut w = results.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(w) = w.as_mut() {
            w.write_all(line.as_bytes())?;
            w.write_all(b"\n")?;
        }
        Ok(())
    };
    let mut rows: Vec<RowScores> =
        prior.iter().flat_map(|b| b.records.iter().map(|r| r.scores.clone())).collect();
    let mut recorder = match (&store, run_id) {
        (Some(s), Some(id)) => Some(s.recorder(id)?),
        _ => None,
    };
    let waiting_note = store.as_ref().map(|s| store_wait_message(s.path()));
    let mut sink = Collect {
        rows: &mut rows,
        inner: recorder.as_mut(),
        note: waiting_note.as_deref(),
        quiet: args.quiet,
    };
    let mut replay = prior.into_iter().map(Ok);
    let resume = (run_id.is_some() && args.resume.is_some())
        .then_some(Resume { batches: &mut replay as &mut dyn Iterator<Item = _> });
    let started = std::time::Instant::now();
    // Each batch's lines reach the file once the batch is done: a stream's
    // rows show as they are scored, and the file keeps up with the store.
    // A write error here shows again at the last flush, which reports it.
    let on_batch = |p: &Progress| {
        progress.update(p);
        if let Some(w) = results.lock().unwrap_or_else(PoisonError::into_inner).as_mut() {
            let _ = w.flush();
        }
    };
    let outcome = runner::run_recorded(
        &suite,
        dataset,
        &opts,
        &mut on_row,
        &on_batch,
        Recording { sink: Some(&mut sink), resume },
    );
    progress.finish();
    // Every batch handed to the store is committed before the run's end is.
    let recorded = recorder.as_mut().map_or(Ok(()), |r| {
        let _note = waiting_note
            .clone()
            .map(|m| crate::wait_note::WaitNote::after(STORE_WAIT_NOTE, m, args.quiet));
        r.finish()
    });
    let written = results.lock().unwrap_or_else(PoisonError::into_inner).take();
    let (flushed, cut) = match written {
        None => (Ok(()), false),
        Some(mut w) => {
            let flushed = w.flush();
            // A write that failed part-way (a full disk) may have left half
            // a line: the file is cut back to its last whole line, and what
            // is still buffered is dropped, not written after it.
            let cut = if flushed.is_err() || outcome.is_err() {
                let (file, _) = w.into_parts();
                file.cut().unwrap_or(false)
            } else {
                false
            };
            (flushed, cut)
        }
    };
    let whole = if cut { "; it was cut back to its last whole line" } else { "" };
    let in_results =
        |e: std::io::Error| anyhow::anyhow!("writing {}: {e}{whole}", results_path.display());
    let flushed = flushed.map_err(in_results);
    let outcome = outcome.map_err(|e| match e {
        runner::RunError::Output(e) => in_results(e),
        e => anyhow::Error::from(e),
    });
    let RecordedRun { mut summary, warnings } = match outcome.and_then(|s| {
        flushed?;
        recorded.map_err(|e| anyhow::anyhow!("recording the run: {e}"))?;
        if let Some(change) = stamp.as_ref().and_then(|s| s.change(&suite.dataset)) {
            anyhow::bail!(
                "the dataset {} changed while the run read it ({change}): the rows scored need not be those of the file the run hashed, so the run is not recorded as completed and writes no summary; run it again once the file no longer changes",
                suite.dataset.display()
            );
        }
        Ok(s)
    }) {
        Ok(s) => s,
        Err(e) => {
            if let (Some(store), Some(id)) = (&store, run_id) {
                let _ = store.mark(id, RunStatus::Failed);
            }
            return Err(e);
        }
    };
    if let Some(r) = &recorder {
        summary.duration_s = r.total_duration();
    } else {
        summary.duration_s = started.elapsed().as_secs_f64();
    }
    info.ended_at = Some(refscore::history::now_rfc3339());
    summary.run = Some(info);
    let current = summary.scores(rows);
    let comparison = match baseline {
        Ok((base, why)) => Comparison::new(&base, why, &current, &suite.regression),
        Err(why) => Comparison::without_baseline(&current, &suite.regression, &why),
    };
    summary.set_comparison(comparison, &suite.gate);
    // The summary and the reports are written before the store records
    // the run's end: a run whose outputs could not be written is `failed`
    // there (it exits 2), never `completed` with a gate that passed. Each
    // file is written whole or not at all.
    let summary_path = dir.join("summary.json");
    let written = (|| -> anyhow::Result<Vec<PathBuf>> {
        crate::reports::write_whole(&summary_path, |w| {
            serde_json::to_writer_pretty(&mut *w, &summary)?;
            Ok(())
        })
        .with_context(|| format!("writing {}", summary_path.display()))?;
        let formats = crate::reports::formats(&args.report);
        let reports = crate::reports::write(
            &crate::reports::Source::Folder(&dir),
            &dir,
            &summary,
            Some(&suite),
            &formats,
            &refscore::report::Options::default(),
        )?;
        crate::reports::step_summary(&crate::reports::Source::Folder(&dir), &summary)?;
        Ok(reports)
    })();
    let finished = written.and_then(|reports| {
        if let (Some(store), Some(id)) = (&store, run_id) {
            let status =
                if summary.cancelled { RunStatus::Cancelled } else { RunStatus::Completed };
            match store.finish(id, status, &summary) {
                // Deleted or replaced while the run recorded: said below.
                Ok(()) => {}
                Err(refscore::history::StoreError::Moved { .. }) => store.release_log(),
                Err(e) => return Err(e.into()),
            }
        }
        Ok(reports)
    });
    let reports = match finished {
        Ok(reports) => reports,
        Err(e) => {
            if let (Some(store), Some(id)) = (&store, run_id) {
                let _ = store.mark(id, RunStatus::Failed);
            }
            return Err(e);
        }
    };
    let opts = refscore::report::Options::default();
    // The store deleted (or another file put in its place) while the run
    // recorded: the run is in no store a later command will read. Asked
    // once, so that every line below says the same.
    let moved = store.as_ref().is_some_and(Store::moved);

    let mut out = std::io::stdout().lock();
    if args.format.as_deref() == Some("json") {
        writeln!(out, "{}", serde_json::to_string_pretty(&summary)?)?;
    } else if args.format.as_deref() == Some("markdown") {
        write!(
            out,
            "{}",
            crate::reports::markdown(&crate::reports::Source::Folder(&dir), &summary, &opts)?
        )?;
    } else {
        crate::report::summary(&mut out, &summary, &suite, Palette::detect())?;
        let id = run_id
            .filter(|_| !moved)
            .map(|i| {
                format!(
                    "\nrun: {i} in {}",
                    store.as_ref().map_or(String::new(), |s| printable_path(s.path()))
                )
            })
            .unwrap_or_default();
        writeln!(
            out,
            "\nresults: {}\nsummary: {}{id}",
            printable_path(&results_path),
            printable_path(&summary_path)
        )?;
        for path in &reports {
            writeln!(out, "report: {}", printable_path(path))?;
        }
    }
    let mut err = std::io::stderr().lock();
    if let (Some(store), Some(id)) = (&store, run_id)
        && moved
    {
        writeln!(
            err,
            "warning: the run store {} was deleted or replaced while the run recorded: run {id} is \
             not in it (its results and summary are in {})",
            printable_path(store.path()),
            printable_path(&dir)
        )?;
    }
    if !first_errors.is_empty() {
        let shown = first_errors.len();
        writeln!(
            err,
            "refscore: {errors} error(s){} (every error is in {}):",
            if errors > shown as u64 { format!(", the first {shown}") } else { String::new() },
            printable_path(&results_path)
        )?;
        for e in &first_errors {
            writeln!(err, "  {}", crate::table::printable(e))?;
        }
    }
    // Over every row of the run, the rows of its earlier parts included;
    // those of this part alone when the rows recorded before it were
    // recorded without the warnings they left standing (by an earlier
    // version), said so.
    let caveat = match warnings.scope {
        WarningScope::Run => "",
        WarningScope::SinceResume => {
            " in the rows scored since the resume (the rows recorded before it were not checked)"
        }
    };
    for e in &warnings.evaluators {
        for w in &e.warnings {
            let (name, w) = (crate::table::printable(&e.name), crate::table::printable(w));
            // A warning names its metric; an evaluator named after its
            // metric is named once.
            if w.strip_prefix(name.as_ref()).is_some_and(|rest| rest.starts_with(": ")) {
                writeln!(err, "warning: {w}{caveat}")?;
            } else {
                writeln!(err, "warning: {name}: {w}{caveat}")?;
            }
        }
    }
    let repeated = &summary.repeated_ids;
    if !repeated.is_empty() {
        let named: Vec<String> = repeated
            .examples
            .iter()
            .map(|id| format!("`{}`", crate::table::printable(id)))
            .collect();
        writeln!(
            err,
            "warning: {} row(s) repeat the id of an earlier row ({}); a baseline comparison pairs rows that share an id by their order alone",
            repeated.rows,
            named.join(", ")
        )?;
    }
    // A run from a pipe or a device cannot be resumed (see `resume`).
    let resumable = run_id.is_some()
        && summary.run.as_ref().is_some_and(|r| r.unhashed_input().is_none())
        && !moved;
    if summary.cancelled && resumable {
        writeln!(
            err,
            "refscore: run cancelled; continue it with `refscore run {} --resume{}`",
            args.suite.display(),
            crate::history::store_flag(args.store.store.as_deref())
        )?;
    } else if summary.cancelled && moved {
        writeln!(err, "refscore: run cancelled; it cannot be resumed without its record")?;
    } else if summary.cancelled && run_id.is_some() {
        writeln!(
            err,
            "refscore: run cancelled; it read a pipe or a device, which cannot be read again, so it cannot be resumed"
        )?;
    }
    Ok(if summary.gate.passed { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// Finds the run to resume and checks that the suite and dataset did not
/// change since it started; returns its record as the continuation will
/// store it, with the output folder it writes to.
fn resume(
    store: &Store,
    suite: &Suite,
    which: &str,
    args: &RunArgs,
) -> anyhow::Result<(RunInfo, i64)> {
    let name = history::suite_name(suite);
    let id = if which == "latest" {
        store
            .list(Some(&name), None)?
            .into_iter()
            .find(|r| r.status != RunStatus::Completed)
            .map(|r| r.id)
            .with_context(|| {
                format!("{}: no unfinished run of suite `{name}` to resume", store.path().display())
            })?
    } else {
        history::run_id(store, which, None)?
    };
    let entry = store.get(id)?;
    if entry.status == RunStatus::Completed {
        anyhow::bail!("{}: run {id} is completed: nothing to resume", store.path().display());
    }
    // A run still being written holds its folder's lock: resuming it too
    // (into another folder) would score its rows twice and collide in the
    // store.
    if let (RunStatus::Running, Some(recorded)) = (entry.status, entry.info.output.as_deref()) {
        let dir = crate::history::shown(Path::new(recorded));
        if let Err(e) = crate::output_lock::for_reading(&dir) {
            anyhow::bail!(
                "refusing to resume run {id}: it is still running ({e:#}); stop it first, then resume it"
            );
        }
    }
    if entry.suite != name {
        anyhow::bail!(
            "{}: run {id} is of suite `{}`, not `{name}`",
            store.path().display(),
            entry.suite
        );
    }
    // A suite or dataset read from a pipe or a device was not hashed: the
    // rows it gave cannot be checked, nor read again.
    if let Some(what) = entry.info.unhashed_input() {
        anyhow::bail!(
            "refusing to resume run {id}: its {what} was read from a pipe or a device, not a file, so it cannot be checked or read again (start a new run instead)"
        );
    }
    let (suite_hash, dataset_hash) = store.hashes(id)?;
    let now = history::run_info(
        suite,
        &args.tags,
        entry.info.limit,
        history::hash_threads(args.threads),
    )?;
    if now.suite_hash != suite_hash {
        let files: Vec<String> =
            suite.config_files.iter().map(|f| f.display().to_string()).collect();
        let which = if files.is_empty() {
            format!("the suite file {}", suite.path.display())
        } else {
            format!(
                "the suite file {} or a file it names ({})",
                suite.path.display(),
                files.join(", ")
            )
        };
        anyhow::bail!(
            "refusing to resume run {id}: {which} changed since the run started (start a new run instead)"
        );
    }
    if now.dataset_hash != dataset_hash {
        anyhow::bail!(
            "refusing to resume run {id}: the dataset {} changed since the run started (start a new run instead)",
            suite.dataset.display()
        );
    }
    if args.limit.is_some() && args.limit != entry.info.limit {
        let own =
            entry.info.limit.map_or_else(|| String::from("no limit"), |n| format!("{n} rows"));
        anyhow::bail!("--limit differs from the run's own ({own}): a resumed run keeps its limit");
    }
    let mut info = entry.info;
    info.resumed += 1;
    info.id = Some(id);
    info.store = Some(crate::history::absolute(store.path()));
    if let Some(o) = &args.output {
        info.output = Some(crate::history::absolute(o));
    }
    // A folder a later run wrote holds that run's results now (a run killed
    // outright, then run again into its folder): the resume does not write
    // over them.
    if let Some(folder) = info.output.as_deref() {
        let later = store.list(None, None)?.into_iter().find(|r| {
            r.id > id
                && r.info.output.as_deref().is_some_and(|o| {
                    o == folder || crate::overwrite::same_file(Path::new(o), Path::new(folder))
                })
        });
        if let Some(later) = later {
            let shown = crate::history::shown(Path::new(folder));
            // A `running` run reaches here only when no process holds its
            // folder (see above): `runs prune` deletes it like a finished one.
            anyhow::bail!(
                "refusing to resume run {id} into {}: run {} (started {}, {}) wrote that folder since, and resuming would overwrite its results; resume run {id} into another folder with `refscore run {} --resume {id} -o DIR`, or leave it for `refscore runs prune` to delete",
                shown.display(),
                later.id,
                later.started_at,
                later.status.as_str(),
                args.suite.display()
            );
        }
    }
    Ok((info, id))
}

/// Hands batches to the store (when there is one) and keeps each row's
/// cells for the comparison; says so when the store's writer holds the
/// run up (see [`store_wait_message`]).
struct Collect<'a> {
    rows: &'a mut Vec<RowScores>,
    inner: Option<&'a mut Recorder>,
    note: Option<&'a str>,
    quiet: bool,
}

impl BatchSink for Collect<'_> {
    fn batch(&mut self, b: BatchRecord) -> Result<(), String> {
        self.rows.extend(b.records.iter().map(|r| r.scores.clone()));
        let (note, quiet) = (self.note, self.quiet);
        self.inner.as_deref_mut().map_or(Ok(()), |store| {
            store.batch_noting(b, || {
                note.map(|m| {
                    crate::wait_note::WaitNote::after(STORE_WAIT_NOTE, m.to_owned(), quiet)
                })
            })
        })
    }
}

/// What a run says when it has waited [`STORE_WAIT_NOTE`] for the run
/// store: for its record, a batch's rows, or its end.
fn store_wait_message(store: &Path) -> String {
    format!(
        "waiting for the run store {}: another process is writing to it (the run waits up to a minute)",
        store.display()
    )
}

/// Progress on standard error: a bar on a terminal, a line every few
/// seconds otherwise, nothing with --quiet.
struct ProgressView {
    bar: Option<indicatif::ProgressBar>,
    plain: bool,
    last: std::sync::Mutex<Instant>,
    /// The first progress seen: its time and share of the file read. A
    /// resumed run's ETA runs from it, so that the part it read past
    /// before its first batch does not count as speed.
    first: std::sync::Mutex<Option<(f64, f64)>>,
}

impl ProgressView {
    fn new(quiet: bool) -> Self {
        let tty = std::io::stderr().is_terminal();
        let bar = (!quiet && tty).then(|| {
            let b = indicatif::ProgressBar::new_spinner();
            b.set_style(
                indicatif::ProgressStyle::with_template("{spinner} {msg}")
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
            );
            b.enable_steady_tick(Duration::from_millis(120));
            b
        });
        ProgressView {
            bar,
            plain: !quiet && !tty,
            last: std::sync::Mutex::new(Instant::now()),
            first: std::sync::Mutex::new(None),
        }
    }

    fn line(&self, p: &Progress) -> String {
        let secs = p.elapsed.as_secs_f64().max(1e-9);
        #[allow(clippy::cast_precision_loss)]
        let rate = p.rows_done.saturating_sub(p.rows_resumed) as f64 / secs;
        let mut s = format!(
            "{} rows, {rate:.0} rows/s, {} failed, {:.1}s",
            p.rows_done, p.rows_failed, secs
        );
        if let Some(frac) = p.fraction_read.filter(|f| *f > 0.0) {
            let mut first = self.first.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let (secs0, frac0) = *first.get_or_insert((secs, frac));
            s.push_str(&format!(", {:.0}% read", frac * 100.0));
            let (t, f) =
                if p.rows_resumed == 0 { (secs, frac) } else { (secs - secs0, frac - frac0) };
            if f > 0.0 {
                s.push_str(&format!(", ETA {:.0}s", t * (1.0 - frac) / f));
            }
        }
        s
    }

    fn update(&self, p: &Progress) {
        if let Some(b) = &self.bar {
            b.set_message(self.line(p));
        } else if self.plain {
            let mut last = self.last.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if last.elapsed() >= Duration::from_secs(5) {
                *last = Instant::now();
                let _ = writeln!(std::io::stderr(), "refscore: {}", self.line(p));
            }
        }
    }

    fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

/// How long a run waits for the run store before it says so.
const STORE_WAIT_NOTE: Duration = Duration::from_secs(2);

/// Errors shown on the console at the end of a run (all of them are in
/// `results.jsonl`).
const SHOWN_ERRORS: usize = 5;

/// Keeps why `r` could not be read or an evaluator failed on it, while
/// fewer than [`SHOWN_ERRORS`] are kept; returns how many errors `r` has.
fn note_errors(kept: &mut Vec<String>, r: &RowResult) -> u64 {
    let mut count = 0;
    if let Some(e) = &r.error {
        kept.push(e.clone());
        count += 1;
    }
    for (name, execution) in &r.execution {
        if let Some(e) = &execution.error {
            kept.push(format!("row {} (id {}), evaluator {name}: {e}", r.row, r.id));
            count += 1;
        }
    }
    kept.truncate(SHOWN_ERRORS);
    count
}

/// What sets a baseline apart from this run: a run of another suite (a
/// `--baseline` can name any run). `None` when it is of the same suite,
/// or its suite is not known. A dataset of another hash is not said: the
/// dataset holds the outputs, so its hash changes whenever they do.
fn baseline_differs(found: &BaselineInfo, current: &RunInfo) -> Option<String> {
    let which = baseline_named(found)?;
    let suite = found.suite.as_ref().filter(|s| **s != current.suite)?;
    Some(format!("the baseline, {which}, is a run of suite `{suite}`, not `{}`", current.suite))
}

/// A baseline as the warnings name it: `the output folder F` or `run N`;
/// `None` when it is neither.
fn baseline_named(found: &BaselineInfo) -> Option<String> {
    match (found.run_id, &found.folder) {
        (_, Some(folder)) => Some(format!("the output folder {folder}")),
        (Some(id), None) => Some(format!("run {id}")),
        (None, None) => None,
    }
}

/// What to say when the baseline ran the same suite as it was then: its
/// file, or a rules file or JSON Schema it names, has changed since (the
/// suites' hashes differ), so a score may have moved with the suite
/// rather than with the outputs. `None` for a baseline of another suite
/// ([`baseline_differs`] says that) or whose suite hash is not known.
fn suite_changed(found: &BaselineInfo, current: &RunInfo) -> Option<String> {
    if !found.suite_changed(&current.suite, &current.suite_hash) {
        return None;
    }
    let theirs = found.suite_hash.as_deref().unwrap_or_default();
    let which = baseline_named(found)?;
    Some(format!(
        "suite `{}` has changed since the baseline, {which}: its file, or a file its options \
         name, differs ({} then, {} now), so a score may have moved with the suite rather \
         than with the outputs",
        current.suite,
        crate::runs::short(theirs),
        crate::runs::short(&current.suite_hash)
    ))
}

/// What to say when the store chose as baseline a run of another suite
/// file with the same name: a suite without `name:` is named by its
/// file's stem, so `a/suite.yaml` and `b/suite.yaml` share one history.
/// `None` when the baseline was run from this file, named on the command
/// line, not a run of the store, or run from a file no longer there.
fn baseline_of_another_file(
    store: &Store,
    found: &BaselineInfo,
    current: &RunInfo,
) -> Option<String> {
    let id = found.run_id.filter(|_| found.folder.is_none() && found.chosen_by != "explicit")?;
    let entry = store.get(id).ok()?;
    // Only another file that is still there: the same file reached by
    // another path (a link, `..`), or a suite file that has moved since
    // (another CI workspace, a repository moved), is not another suite.
    let theirs = Path::new(&entry.info.suite_path).canonicalize().ok()?;
    let ours = Path::new(&current.suite_path).canonicalize().ok()?;
    (theirs != ours).then(|| {
        format!(
            "the baseline, run {id}, was run from {}, not {}: both are suite `{}` (a suite \
             without `name:` is named by its file's stem); give each its own `name:` if \
             they are different suites",
            entry.info.suite_path, current.suite_path, current.suite
        )
    })
}

/// Says so when fewer workers start than `--threads` asked for: a suite
/// that asks no LLM runs on at most one per core
/// ([`runner::worker_count`]).
pub(crate) fn note_workers(asked: Option<usize>, started: usize) {
    if let Some(asked) = asked
        && started < asked
    {
        eprintln!(
            "note: --threads {asked}: {started} workers, one per core: nothing here asks an \
             LLM, so more would only add switching and memory"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rate_counts_the_rows_evaluated_not_those_a_resume_found_recorded() {
        let view = ProgressView::new(true);
        let p = Progress {
            rows_done: 1_000,
            rows_resumed: 900,
            rows_failed: 0,
            elapsed: Duration::from_secs(2),
            fraction_read: None,
        };
        assert!(view.line(&p).starts_with("1000 rows, 50 rows/s,"), "{}", view.line(&p));
    }

    #[test]
    fn a_resumed_runs_eta_runs_from_its_first_progress() {
        let view = ProgressView::new(true);
        let at = |secs: u64, rows_done: u64, frac: f64| Progress {
            rows_done,
            rows_resumed: 900,
            rows_failed: 0,
            elapsed: Duration::from_secs(secs),
            fraction_read: Some(frac),
        };
        // 90% read past in the first second: no ETA from that alone.
        assert!(!view.line(&at(1, 910, 0.91)).contains("ETA"), "{}", view.line(&at(1, 910, 0.91)));
        // Then 1% in 2 s: 8% left takes 16 s.
        assert!(
            view.line(&at(3, 920, 0.92)).ends_with("92% read, ETA 16s"),
            "{}",
            view.line(&at(3, 920, 0.92))
        );
        // A run started afresh has an ETA from its first progress on.
        let fresh = ProgressView::new(true);
        let p = Progress { rows_resumed: 0, ..at(2, 100, 0.25) };
        assert!(fresh.line(&p).ends_with("25% read, ETA 6s"), "{}", fresh.line(&p));
    }
}
