//! The JSONL reader (and the JSON-array reader) on raw bytes; each readable
//! row's `output` and `reference` are scored with the JSON metrics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use refscore::DatasetFormat;

fuzz_target!(|data: &[u8]| {
    for format in [DatasetFormat::Jsonl, DatasetFormat::JsonArray] {
        refscore_fuzz::dataset(data, format);
    }
});
