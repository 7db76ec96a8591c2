//! The CSV reader on raw bytes; each readable row's `output` and
//! `reference` cells are scored with the JSON metrics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use refscore::DatasetFormat;

fuzz_target!(|data: &[u8]| refscore_fuzz::dataset(data, DatasetFormat::Csv));
