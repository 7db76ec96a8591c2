//! `gen-dataset --count N --seed S --out FILE`: the same seeded invoice
//! pairs as a dataset for `refscore run` (`{"id", "input", "output",
//! "reference"}` per line), written in bounded memory whatever the count.

use std::process::ExitCode;

use clap::Parser;
use refscore_bench::RowFormat;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[path = "../cli_gen.rs"]
mod cli_gen;

fn main() -> ExitCode {
    cli_gen::main(cli_gen::Args::parse(), RowFormat::Dataset)
}
