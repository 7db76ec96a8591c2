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

const EXIT_CODES: &str = "Exit codes:\n  0  the command ran (run: the gate passed)\n  1  run: the gate failed, or nothing was evaluated\n  2  usage, configuration or I/O error";

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
    /// Render the reports of a finished run again from its output folder.
    Report(ReportArgs),
}

/// Arguments of `refscore compare`.
#[derive(Debug, Args)]
pub(crate) struct CompareArgs {
    /// Metric name (see `refscore metrics`).
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
    #[arg(long)]
    pub(crate) strict: bool,
    /// Close truncated JSON in the output before comparing.
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
    /// Worker threads for --pairs (default: all cores).
    #[arg(long)]
    pub(crate) threads: Option<usize>,
}

/// Arguments of `refscore run`.
#[derive(Debug, Args)]
pub(crate) struct RunArgs {
    /// Suite file (YAML or TOML).
    pub(crate) suite: PathBuf,
    /// Output folder for results.jsonl and summary.json (default: refscore-out/<UTC timestamp>/).
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
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub(crate) threads: Option<usize>,
    /// Evaluate at most this many rows.
    #[arg(long)]
    pub(crate) limit: Option<u64>,
    /// Keep passed details in results.jsonl (by default only failed ones are written).
    #[arg(long)]
    pub(crate) all_details: bool,
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
    /// An output folder of `refscore run` (holding summary.json and results.jsonl).
    pub(crate) folder: PathBuf,
    /// Reports to write: any of md, junit, html, comma-separated (default: all three).
    #[arg(long, value_delimiter = ',', value_parser = ["md", "markdown", "junit", "html"])]
    pub(crate) report: Vec<String>,
    /// Folder to write the reports into (default: FOLDER).
    #[arg(long, short = 'o')]
    pub(crate) output: Option<PathBuf>,
    /// Markdown: failed rows shown in full.
    #[arg(long, default_value_t = refscore::report::DEFAULT_MAX_ROWS)]
    pub(crate) max_rows: usize,
}
