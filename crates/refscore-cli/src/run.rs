//! `refscore run`: score a whole golden dataset with a suite.

use std::fs::File;
use std::io::{BufWriter, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context;
use refscore::judge::{CacheMode, CacheSettings};
use refscore::runner::{self, Progress, RowResult, RunOptions};
use refscore::suite::{LoadOptions, Suite};

use crate::args::RunArgs;
use crate::color::Palette;

pub(crate) fn run(args: &RunArgs) -> anyhow::Result<ExitCode> {
    let mode = if args.no_cache {
        CacheMode::Off
    } else if args.refresh_cache {
        CacheMode::Refresh
    } else {
        CacheMode::Use
    };
    let load = LoadOptions { cache: CacheSettings { path: args.cache.clone(), mode } };
    let suite = Suite::load_with(&args.suite, &load)?;
    let dir = match &args.output {
        Some(d) => d.clone(),
        None => fresh_dir(&PathBuf::from("refscore-out").join(timestamp())),
    };
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let results_path = dir.join("results.jsonl");
    // Writing the results must never overwrite the data being read.
    for out in [&results_path, &dir.join("summary.json")] {
        if same_file(out, &suite.dataset) {
            anyhow::bail!(
                "the output folder {} holds the dataset {}: writing {} would overwrite it; choose another folder with -o",
                dir.display(),
                suite.dataset.display(),
                out.display()
            );
        }
    }
    let mut results = BufWriter::with_capacity(
        1 << 20,
        File::create(&results_path)
            .with_context(|| format!("creating {}", results_path.display()))?,
    );

    let cancel = Arc::new(AtomicBool::new(false));
    {
        let cancel = Arc::clone(&cancel);
        let judges = suite.judges.cancel_flag();
        // The first Ctrl-C stops reading rows and sending judge requests
        // (those in flight finish); a second one ends the process at once.
        let _ = ctrlc::set_handler(move || {
            judges.store(true, Ordering::SeqCst);
            if cancel.swap(true, Ordering::SeqCst) {
                std::process::exit(130);
            }
        });
    }
    let opts = RunOptions {
        threads: args.threads,
        cancel: Arc::clone(&cancel),
        limit: args.limit,
        keep_passed_details: args.all_details,
        lines: runner::LineFormat::RowResult,
        max_details: None,
    };
    let progress = ProgressView::new(args.quiet);
    let mut on_row = |_: &RowResult, line: &str| -> std::io::Result<()> {
        results.write_all(line.as_bytes())?;
        results.write_all(b"\n")
    };
    let summary = runner::run(&suite, &opts, &mut on_row, &|p: &Progress| progress.update(p))?;
    progress.finish();
    results.flush()?;
    drop(results);
    let summary_path = dir.join("summary.json");
    std::fs::write(&summary_path, serde_json::to_string_pretty(&summary)?)
        .with_context(|| format!("writing {}", summary_path.display()))?;

    let formats = crate::reports::formats(&args.report);
    let opts = refscore::report::Options::default();
    let reports = crate::reports::write(&dir, &dir, &summary, Some(&suite), &formats, &opts)?;
    crate::reports::step_summary(&dir, &summary)?;

    let mut out = std::io::stdout().lock();
    if args.format.as_deref() == Some("json") {
        writeln!(out, "{}", serde_json::to_string_pretty(&summary)?)?;
    } else if args.format.as_deref() == Some("markdown") {
        write!(out, "{}", crate::reports::markdown(&dir, &summary, &opts)?)?;
    } else {
        crate::report::summary(&mut out, &summary, &suite, Palette::detect())?;
        writeln!(
            out,
            "\nresults: {}\nsummary: {}",
            results_path.display(),
            summary_path.display()
        )?;
        for path in &reports {
            writeln!(out, "report: {}", path.display())?;
        }
    }
    let mut err = std::io::stderr().lock();
    for e in &suite.evaluators {
        for w in e.evaluator.warnings() {
            writeln!(err, "warning: {}: {w}", e.name)?;
        }
    }
    Ok(if summary.gate.passed { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

/// Progress on standard error: a bar on a terminal, a line every few
/// seconds otherwise, nothing with --quiet.
struct ProgressView {
    bar: Option<indicatif::ProgressBar>,
    plain: bool,
    last: std::sync::Mutex<Instant>,
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
        ProgressView { bar, plain: !quiet && !tty, last: std::sync::Mutex::new(Instant::now()) }
    }

    fn line(&self, p: &Progress) -> String {
        let secs = p.elapsed.as_secs_f64().max(1e-9);
        #[allow(clippy::cast_precision_loss)]
        let rate = p.rows_done as f64 / secs;
        let mut s = format!(
            "{} rows, {rate:.0} rows/s, {} failed, {:.1}s",
            p.rows_done, p.rows_failed, secs
        );
        if let Some(frac) = p.fraction_read.filter(|f| *f > 0.0) {
            let eta = secs * (1.0 - frac) / frac;
            s.push_str(&format!(", {:.0}% read, ETA {eta:.0}s", frac * 100.0));
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

/// `base`, or `base-2`, `base-3`, ... when it exists already: two runs in
/// the same second keep their own outputs.
fn fresh_dir(base: &std::path::Path) -> PathBuf {
    if !base.exists() {
        return base.to_path_buf();
    }
    (2..10_000)
        .map(|n| PathBuf::from(format!("{}-{n}", base.display())))
        .find(|p| !p.exists())
        .unwrap_or_else(|| base.to_path_buf())
}

/// Whether two paths name the same existing file.
fn same_file(a: &std::path::Path, b: &std::path::Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// `YYYYMMDD-HHMMSS` in UTC.
fn timestamp() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rem = secs % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}{m:02}{d:02}-{:02}{:02}{:02}", rem / 3600, rem % 3600 / 60, rem % 60)
}
