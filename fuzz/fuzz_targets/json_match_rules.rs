//! json_match with rules built from the input: the input is split at NUL
//! bytes into rules (JSON: an object of options, or an array of rules),
//! output and reference.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| refscore_fuzz::json_match_rules(data));
