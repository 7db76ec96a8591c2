//! `gen-pairs --count N --seed S --out FILE`: seeded invoice pairs as JSONL
//! (`{"id", "output", "reference"}` per line), the input of
//! `refscore compare --metric M --pairs FILE`.

use std::process::ExitCode;

use clap::Parser;
use refscore_bench::RowFormat;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[path = "../cli_gen.rs"]
mod cli_gen;

fn main() -> ExitCode {
    cli_gen::main(cli_gen::Args::parse(), RowFormat::Pairs)
}
