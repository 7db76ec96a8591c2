//! The JSON parser, the fast reader (held to the parser), the text-to-JSON
//! extraction (fences, prose, repair) and the decode layer on arbitrary
//! text, with options picked by the first byte.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| refscore_fuzz::parse(data));
