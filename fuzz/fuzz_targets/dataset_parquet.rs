//! The Parquet reader on raw bytes (written to a temporary file: Parquet is
//! read by seeking); each readable row's `output` and `reference` are
//! scored with the JSON metrics.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use refscore::DatasetFormat;

fn file() -> &'static PathBuf {
    static FILE: OnceLock<PathBuf> = OnceLock::new();
    FILE.get_or_init(|| {
        std::env::temp_dir().join(format!("refscore-fuzz-{}.parquet", std::process::id()))
    })
}

fuzz_target!(|data: &[u8]| {
    if std::fs::write(file(), data).is_err() {
        return;
    }
    if let Ok(rows) = refscore::dataset::open(file(), Some(DatasetFormat::Parquet)) {
        // A Parquet file's rows are bounded by its declared row counts, not
        // its size: read a bounded number.
        refscore_fuzz::read_rows(rows.take(10_000), usize::MAX);
    }
});
