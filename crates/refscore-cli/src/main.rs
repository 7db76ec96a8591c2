//! The `refscore` command line: score LLM outputs against golden references.
//!
//! Exit codes:
//! - 0: the command ran (for `run`: the suite's gate passed);
//! - 1: `run` only: the gate failed (including an empty run or one where
//!   every row errored);
//! - 2: a usage, configuration or I/O error.

mod args;
mod color;
mod compare;
mod dataset_stamp;
mod describe;
mod history;
mod output_folder;
mod output_lock;
mod overwrite;
mod pairs;
mod regression;
mod render;
mod report;
mod reports;
mod run;
mod runs;
mod table;
mod wait_note;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

// The allocator matters for allocation-heavy work (bench/README.md, "The
// allocator"); the library itself stays allocator-neutral.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    quiet_worker_panics();
    let cli = match args::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match run(cli) {
        Ok(code) => code,
        Err(err) => {
            if is_broken_pipe(&err) {
                return ExitCode::SUCCESS;
            }
            // Names from the suite or the data may hold control
            // characters: shown escaped, line by line.
            let message = format!("{err:#}");
            let lines: Vec<_> = message.split('\n').map(table::printable).collect();
            let _ = writeln!(std::io::stderr(), "refscore: {}", lines.join("\n"));
            ExitCode::from(2)
        }
    }
}

fn run(cli: args::Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        args::Command::Compare(c) => compare::run(&c),
        args::Command::Run(r) => run::run(&r),
        args::Command::Metrics(m) => describe::run(&m),
        args::Command::Report(r) => reports::command(&r),
        args::Command::Runs(r) => runs::run(&r),
    }
}

/// `run` catches a panicking evaluator and records it as a failed
/// evaluation with the panic's message; the default hook would also print
/// it, once per row, in the middle of the progress output.
fn quiet_worker_panics() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let worker = std::thread::current().name().is_some_and(|n| n.starts_with("refscore-"));
        if !worker {
            default(info);
        }
    }));
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
