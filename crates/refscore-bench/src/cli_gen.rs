//! Command line shared by `gen-pairs` and `gen-dataset`.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use refscore_bench::{Generator, ItemCount, RowFormat, write_rows};

/// Options of the generators.
#[derive(Debug, clap::Parser)]
#[command(about = "Write seeded invoice-extraction pairs as JSONL.")]
pub(crate) struct Args {
    /// Rows to write.
    #[arg(long, default_value_t = 10_000)]
    count: u64,
    /// Seed; the same seed gives the same file.
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Output file (`-` for stdout).
    #[arg(long, short)]
    out: PathBuf,
    /// Line items per reference, `MIN-MAX` (default: 1 to 40, skewed small).
    #[arg(long, value_parser = parse_range)]
    items: Option<(usize, usize)>,
    /// Generation threads (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
}

fn parse_range(s: &str) -> Result<(usize, usize), String> {
    let (a, b) = s.split_once('-').unwrap_or((s, s));
    let a = a.trim().parse().map_err(|_| format!("bad range {s:?}"))?;
    let b = b.trim().parse().map_err(|_| format!("bad range {s:?}"))?;
    if a == 0 || b < a { Err(format!("bad range {s:?}: want 1 <= MIN <= MAX")) } else { Ok((a, b)) }
}

fn run(args: &Args, format: RowFormat) -> anyhow::Result<()> {
    let generator = Generator {
        items: args.items.map_or(ItemCount::Realistic, |(a, b)| ItemCount::Range(a, b)),
        ..Generator::default()
    };
    rayon::ThreadPoolBuilder::new().num_threads(args.threads.unwrap_or(0)).build_global()?;
    let start = Instant::now();
    let written = if args.out.as_os_str() == "-" {
        let out = BufWriter::with_capacity(1 << 20, io::stdout().lock());
        write_rows(out, &generator, format, args.seed, args.count)?
    } else {
        if let Some(dir) = args.out.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        let file =
            File::create(&args.out).with_context(|| format!("creating {}", args.out.display()))?;
        let out = BufWriter::with_capacity(1 << 20, file);
        write_rows(out, &generator, format, args.seed, args.count)
            .with_context(|| format!("writing {}", args.out.display()))?
    };
    let secs = start.elapsed().as_secs_f64();
    let mut err = io::stderr().lock();
    writeln!(
        err,
        "wrote {} rows, {:.1} MB ({:.0} B/row) in {secs:.1} s to {}",
        written.rows,
        written.bytes as f64 / 1e6,
        written.bytes as f64 / written.rows.max(1) as f64,
        args.out.display()
    )?;
    Ok(())
}

/// Runs a generator binary.
pub(crate) fn main(args: Args, format: RowFormat) -> ExitCode {
    match run(&args, format) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e)
            if e.downcast_ref::<io::Error>()
                .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe) =>
        {
            ExitCode::SUCCESS
        }
        Err(e) => {
            let _ = writeln!(io::stderr(), "error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
