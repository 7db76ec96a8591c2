//! `parse-baseline FILE [--threads N]`: parses every JSONL line into a
//! `serde_json::Value`, drops it, and prints rows/s and MB/s — the floor
//! under any scorer reading the same file.
//!
//! The last line of output is `key=value` pairs for scripts:
//! `rows= bytes= errors= threads= seconds= rows_per_s= mb_per_s=`.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser as _;
use refscore_bench::baseline::{self, ParseStats, Parser, Source};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Options.
#[derive(Debug, clap::Parser)]
#[command(about = "Parse-only throughput of a JSONL file.")]
struct Args {
    /// JSONL file.
    file: PathBuf,
    /// Parsing threads (default: RAYON_NUM_THREADS, else all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Read the whole file into memory before timing (split + parse only).
    #[arg(long)]
    in_memory: bool,
    /// Parse with `refscore::json::parse` instead of `serde_json::from_str`
    /// (the same as `--parser refscore`).
    #[arg(long)]
    refscore_parser: bool,
    /// The parser: `serde_json` (into `serde_json::Value`, the default),
    /// `refscore` (`refscore::json::parse`), `validate` (`serde_json` into
    /// `IgnoredAny`: the tokenizer alone) or `fast-tree` (refscore's fast
    /// reader and its tree).
    #[arg(long, value_parser = ["serde_json", "refscore", "validate", "fast-tree"])]
    parser: Option<String>,
    /// Runs; the fastest is reported.
    #[arg(long, default_value_t = 1)]
    repeat: u32,
}

fn run(args: &Args) -> anyhow::Result<bool> {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(args.threads.unwrap_or(0)).build()?;
    let parser = match args.parser.as_deref() {
        Some("refscore") => Parser::Refscore,
        Some("validate") => Parser::Validate,
        Some("fast-tree") => Parser::FastTree,
        _ if args.refscore_parser => Parser::Refscore,
        _ => Parser::SerdeJson,
    };
    let source = if args.in_memory { Source::Memory } else { Source::Stream };
    let mut best: Option<ParseStats> = None;
    for _ in 0..args.repeat.max(1) {
        let s = baseline::parse_file(&args.file, &pool, parser, source)?;
        if best.is_none_or(|b| s.seconds < b.seconds) {
            best = Some(s);
        }
    }
    let s = best.unwrap_or_default();
    let mut out = io::stdout().lock();
    writeln!(
        out,
        "rows={} bytes={} errors={} threads={} seconds={:.3} rows_per_s={:.0} mb_per_s={:.1}",
        s.rows,
        s.bytes,
        s.errors,
        pool.current_num_threads(),
        s.seconds,
        s.rows_per_sec(),
        s.mb_per_sec()
    )?;
    Ok(s.errors == 0)
}

fn main() -> ExitCode {
    match run(&Args::parse()) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => {
            let _ = writeln!(io::stderr(), "error: some lines did not parse");
            ExitCode::FAILURE
        }
        Err(e) => {
            let _ = writeln!(io::stderr(), "error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
