//! Every JSON metric of the registry on two documents split from the input
//! (at the first NUL byte), as text and, when both parse, as JSON values.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let parts = refscore_fuzz::split(data, 2);
    refscore_fuzz::score_pair(parts[0], parts[1]);
});
