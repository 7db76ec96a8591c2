//! The Parquet reader on raw bytes (written to a temporary file: Parquet is
//! read by seeking); each readable row's `output` and `reference` are
//! scored with the JSON metrics.
//!
//! The `parquet` crate's decoder panics on some malformed pages, and the
//! reader catches those panics and turns them into errors. libfuzzer-sys's
//! panic hook aborts on every panic, caught or not, so this target installs
//! a silent hook: a panic the library does not catch still fails the run
//! (libfuzzer-sys aborts when it reaches the target's boundary), and its
//! message is shown by replaying the input with the library's test binary
//! (`fuzz/regressions/`).
#![no_main]

use std::path::PathBuf;
use std::sync::{Once, OnceLock};

use libfuzzer_sys::fuzz_target;

fn file() -> &'static PathBuf {
    static FILE: OnceLock<PathBuf> = OnceLock::new();
    FILE.get_or_init(|| {
        std::env::temp_dir().join(format!("refscore-fuzz-{}.parquet", std::process::id()))
    })
}

static QUIET: Once = Once::new();

fuzz_target!(|data: &[u8]| {
    QUIET.call_once(|| std::panic::set_hook(Box::new(|_| {})));
    if std::fs::write(file(), data).is_err() {
        return;
    }
    refscore_fuzz::parquet_file(file());
});
