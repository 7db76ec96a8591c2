//! Command-line arguments.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Score LLM outputs against golden references.
#[derive(Debug, Parser)]
#[command(name = "refscore", version, about, after_help = EXIT_CODES)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

const EXIT_CODES: &str = "Exit codes:\n  0    the command ran (run: the gate passed; compare: every pair was scored)\n  1    run: the gate failed, or nothing was evaluated; compare: a pair or line\n       could not be read or scored, or nothing was scored\n  2    usage, configuration or I/O error\n  130  run: stopped by a second Ctrl-C or signal";

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Compare one output with its reference, or every pair of a JSONL file.
    #[command(after_help = EXIT_CODES)]
    Compare(CompareArgs),
    /// Score a golden dataset with a suite file; exit 1 when its gate fails.
    #[command(after_help = EXIT_CODES)]
    Run(RunArgs),
    /// List the metrics, or describe one: inputs, options, an example.
    Metrics(MetricsArgs),
    /// Render the reports of a finished run again, from its output folder
    /// or the run store.
    Report(ReportArgs),
    /// The run store: list, show, pin, compare and prune recorded runs.
    #[command(subcommand, after_help = EXIT_CODES)]
    Runs(RunsCommand),
}

/// Arguments of `refscore compare`.
#[derive(Debug, Args)]
pub(crate) struct CompareArgs {
    /// Metric name (see `refscore metrics`); the LLM metrics need a judge, which only a suite (`refscore run`) sets up.
    #[arg(long, short = 'm', default_value = refscore::metrics::DEFAULT_COMPARE)]
    pub(crate) metric: String,
    /// Output file (JSON text), or `-` for standard input.
    #[arg(required_unless_present = "pairs", conflicts_with = "pairs")]
    pub(crate) output: Option<PathBuf>,
    /// Reference file (JSON text), or `-` for standard input.
    #[arg(required_unless_present = "pairs", conflicts_with = "pairs")]
    pub(crate) reference: Option<PathBuf>,
    /// JSONL file of pairs: each line `{"id", "output", "reference", "weights"?}`; `-` for standard input.
    /// Writes one JSON score per line, in input order.
    #[arg(long)]
    pub(crate) pairs: Option<PathBuf>,
    /// JSON metrics: how string inputs become JSON: auto (JSON text, a fenced
    /// or embedded document, else the string), json (the whole text must be
    /// JSON), value (strings stay strings).
    #[arg(long, value_parser = ["auto", "json", "value"])]
    pub(crate) decode: Option<String>,
    /// Weights file for json_diff (per-key weights, `__key` loopback weights).
    #[arg(long)]
    pub(crate) weights: Option<PathBuf>,
    /// json_similarity: compare only this key of both sides.
    #[arg(long)]
    pub(crate) target_key: Option<String>,
    /// Rules file for json_match (TOML, YAML or JSON).
    #[arg(long)]
    pub(crate) rules: Option<PathBuf>,
    /// Accept only an output that is entirely one JSON document (no code
    /// fences, no surrounding prose): `--decode json` for JSON metrics.
    /// json_match's own `strict` option (no zero-config readings: dates,
    /// numbers written as text, free text) is `--opt strict=true`.
    #[arg(long)]
    pub(crate) strict: bool,
    /// Close truncated JSON before comparing (the `repair` option: in the
    /// output and in the reference; the score's `decode` record says which
    /// side was repaired).
    #[arg(long)]
    pub(crate) repair: bool,
    /// A metric option as KEY=VALUE (VALUE is JSON if it parses, else a string); repeatable.
    #[arg(long = "opt", value_name = "KEY=VALUE")]
    pub(crate) opts: Vec<String>,
    /// Print the Score as JSON instead of the readable result.
    #[arg(long)]
    pub(crate) json: bool,
    /// Show every compared field, not only the differing ones.
    #[arg(long)]
    pub(crate) all: bool,
    /// Worker threads for --pairs, 1 to 1024 (default and at most: one per
    /// core).
    #[arg(long, value_parser = threads)]
    pub(crate) threads: Option<usize>,
    /// Read every --pairs line with serde_json, not refscore's own
    /// one-pass reader (same scores; for comparing the two).
    #[arg(long)]
    pub(crate) value_reader: bool,
}

/// Arguments of `refscore run`.
#[derive(Debug, Args)]
pub(crate) struct RunArgs {
    /// Suite file (YAML or TOML).
    pub(crate) suite: PathBuf,
    /// Output folder for results.jsonl and summary.json (default: a new refscore-out/<UTC timestamp>/, with -2, -3, ... for runs started in the same second).
    #[arg(long, short = 'o')]
    pub(crate) output: Option<PathBuf>,
    /// Summary on standard output: `text` (default), `json` or `markdown`.
    #[arg(long, value_parser = ["text", "json", "markdown"])]
    pub(crate) format: Option<String>,
    /// Reports to write into the output folder: any of md, junit, html,
    /// comma-separated (report.md, junit.xml, report.html).
    #[arg(long, value_delimiter = ',', value_parser = ["md", "markdown", "junit", "html"])]
    pub(crate) report: Vec<String>,
    /// No progress output.
    #[arg(long, short = 'q')]
    pub(crate) quiet: bool,
    /// Worker threads, 1 to 1024 (default: all cores; with LLM judges, at
    /// least their max_concurrency; without them, at most one per core).
    #[arg(long, value_parser = threads)]
    pub(crate) threads: Option<usize>,
    /// Evaluate at most this many rows (0 to 2^63 - 1).
    #[arg(long, value_parser = row_limit)]
    pub(crate) limit: Option<u64>,
    /// Keep passed details in results.jsonl (by default only failed ones are written).
    #[arg(long)]
    pub(crate) all_details: bool,
    /// Read every JSONL row with serde_json, not refscore's own one-pass
    /// reader (same results; for comparing the two).
    #[arg(long)]
    pub(crate) value_reader: bool,
    /// Judges: the reply cache file (default `.refscore/cache.db` beside the
    /// suite; also `REFSCORE_CACHE`).
    #[arg(long, env = "REFSCORE_CACHE")]
    pub(crate) cache: Option<PathBuf>,
    /// Judges: neither read nor write the reply cache.
    #[arg(long, conflicts_with = "refresh_cache")]
    pub(crate) no_cache: bool,
    /// Judges: ask again and replace every cached reply used.
    #[arg(long)]
    pub(crate) refresh_cache: bool,
    #[command(flatten)]
    pub(crate) store: StoreArgs,
    /// Record nothing in the run store (a `--baseline` folder can still be compared).
    #[arg(long, conflicts_with = "resume")]
    pub(crate) no_store: bool,
    /// Compare with this baseline instead of the suite's strategy: a run id
    /// of the store, or a previous run's output folder.
    #[arg(long, value_name = "RUN_OR_FOLDER")]
    pub(crate) baseline: Option<String>,
    /// A label recorded with the run, as KEY=VALUE; repeatable (added to the suite's `tags`).
    #[arg(long = "tag", value_name = "KEY=VALUE")]
    pub(crate) tags: Vec<String>,
    /// Continue an interrupted run of this suite: the latest unfinished one, or RUN.
    #[arg(long, value_name = "RUN", num_args = 0..=1, default_missing_value = "latest")]
    pub(crate) resume: Option<String>,
}

/// Where `run` records its run.
#[derive(Debug, Args)]
pub(crate) struct StoreArgs {
    /// The run store (default: `.refscore/runs.db` beside the suite; also
    /// `REFSCORE_STORE`).
    #[arg(long, env = "REFSCORE_STORE", value_name = "PATH")]
    pub(crate) store: Option<PathBuf>,
}

/// Where the commands that read recorded runs (`runs ...`, `report RUN`)
/// find them, and whose runs they mean: `--store` and `--suite`, resolved
/// by `history::Recorded::locate`.
#[derive(Debug, Args)]
pub(crate) struct RecordedArgs {
    /// The run store (default: `.refscore/runs.db` beside the `--suite`
    /// file, else in the current folder). Also `REFSCORE_STORE`; either
    /// wins over the store beside a `--suite` file.
    #[arg(long, env = "REFSCORE_STORE", value_name = "PATH")]
    pub(crate) store: Option<PathBuf>,
    /// Only runs of this suite: its suite file (then the run store beside
    /// it is used) or its name. `latest` is then its latest run, and a
    /// run of another suite is refused.
    #[arg(long, value_name = "FILE|NAME")]
    pub(crate) suite: Option<String>,
}

/// `refscore runs ...`.
#[derive(Debug, Subcommand)]
pub(crate) enum RunsCommand {
    /// Recorded runs, newest first.
    List(RunsListArgs),
    /// One run: where it came from, its summary and gate.
    Show(RunsShowArgs),
    /// Make a completed run its suite's pinned baseline (`regression: {baseline: pinned}`).
    Pin(RunsPinArgs),
    /// Unpin a run.
    Unpin(RunsPinArgs),
    /// Compare run B with baseline A (run ids or output folders).
    Diff(RunsDiffArgs),
    /// Delete all but the newest runs of each suite (or of `--suite` alone); pinned runs, runs
    /// still running and each suite's baselines are kept (a run whose process is gone is not
    /// running).
    Prune(RunsPruneArgs),
}

/// Output format of the `runs` commands.
#[derive(Debug, Args)]
pub(crate) struct FormatArg {
    /// `text` (default) or `json`.
    #[arg(long, value_parser = ["text", "json"], default_value = "text")]
    pub(crate) format: String,
}

/// `refscore runs list`.
#[derive(Debug, Args)]
pub(crate) struct RunsListArgs {
    #[command(flatten)]
    pub(crate) at: RecordedArgs,
    /// At most this many runs.
    #[arg(long, default_value_t = 20)]
    pub(crate) limit: usize,
    #[command(flatten)]
    pub(crate) format: FormatArg,
}

/// `refscore runs show`.
#[derive(Debug, Args)]
pub(crate) struct RunsShowArgs {
    #[command(flatten)]
    pub(crate) at: RecordedArgs,
    /// The run: its id, or `latest`.
    pub(crate) run: String,
    #[command(flatten)]
    pub(crate) format: FormatArg,
}

/// `refscore runs pin` / `unpin`.
#[derive(Debug, Args)]
pub(crate) struct RunsPinArgs {
    #[command(flatten)]
    pub(crate) at: RecordedArgs,
    /// The run: its id, or `latest`.
    pub(crate) run: String,
}

/// `refscore runs diff`.
#[derive(Debug, Args)]
pub(crate) struct RunsDiffArgs {
    #[command(flatten)]
    pub(crate) at: RecordedArgs,
    /// The baseline: a run id, `latest`, or an output folder.
    pub(crate) a: String,
    /// The run compared with it: a run id, `latest`, or an output folder.
    pub(crate) b: String,
    #[command(flatten)]
    pub(crate) format: FormatArg,
}

/// `refscore runs prune`.
#[derive(Debug, Args)]
pub(crate) struct RunsPruneArgs {
    #[command(flatten)]
    pub(crate) at: RecordedArgs,
    /// Runs kept per suite.
    #[arg(long)]
    pub(crate) keep: usize,
}

/// `refscore metrics [NAME]`.
#[derive(Debug, clap::Args)]
pub(crate) struct MetricsArgs {
    /// The metric to describe; without it, every metric is listed.
    pub(crate) name: Option<String>,
    /// Print the description as JSON.
    #[arg(long)]
    pub(crate) json: bool,
}

/// `refscore report FOLDER`.
#[derive(Debug, clap::Args)]
pub(crate) struct ReportArgs {
    /// An output folder of `refscore run` (holding summary.json and
    /// results.jsonl), or a run id of the run store (or `latest`).
    pub(crate) run: String,
    #[command(flatten)]
    pub(crate) at: RecordedArgs,
    /// Reports to write: any of md, junit, html, comma-separated (default: all three).
    #[arg(long, value_delimiter = ',', value_parser = ["md", "markdown", "junit", "html"])]
    pub(crate) report: Vec<String>,
    /// Folder to write the reports into (default: the output folder; for a
    /// run of the store: the current folder).
    #[arg(long, short = 'o')]
    pub(crate) output: Option<PathBuf>,
    /// Markdown: failed rows shown in full.
    #[arg(long, default_value_t = refscore::report::DEFAULT_MAX_ROWS)]
    pub(crate) max_rows: usize,
}

/// A `--limit`: the run store keeps it as a signed 64-bit integer, and
/// finds a run's baseline among the runs with the same limit.
fn row_limit(text: &str) -> Result<u64, String> {
    match text.parse::<u64>() {
        Ok(n) if i64::try_from(n).is_ok() => Ok(n),
        _ => Err(format!("expected a whole number from 0 to {}", i64::MAX)),
    }
}

/// A `--threads` value: 1 to [`refscore::runner::MAX_THREADS`].
fn threads(text: &str) -> Result<usize, String> {
    let max = refscore::runner::MAX_THREADS;
    match text.parse::<usize>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        _ => Err(format!("expected a whole number from 1 to {max}")),
    }
}
