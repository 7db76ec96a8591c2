//! The CSV reader on raw bytes; each readable row's `output` and
//! `reference` cells are scored with the JSON metrics.
#![no_main]

use std::io::Cursor;
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use refscore::DatasetFormat;
use refscore::dataset::from_reader;

fuzz_target!(|data: &[u8]| {
    let reader = Box::new(Cursor::new(data.to_vec()));
    if let Ok(rows) = from_reader(Path::new("fuzz.csv"), reader, DatasetFormat::Csv) {
        refscore_fuzz::read_rows(rows, data.len() + 1);
    }
});
