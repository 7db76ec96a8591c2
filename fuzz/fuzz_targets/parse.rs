//! The JSON parser, the fast reader (held to the parser), the text-to-JSON
//! extraction (fences, prose, repair) and the decode layer on arbitrary
//! text, with options picked by the first byte.
#![no_main]

use libfuzzer_sys::fuzz_target;
use refscore::decode::{DecodeOptions, Mode, decode};
use refscore::extract::{ExtractOptions, Pick, extract_json};
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let (choice, rest) = data.split_first().map_or((0, data), |(c, r)| (*c, r));
    let text = refscore_fuzz::text(rest);
    if let Ok(v) = refscore::json::parse(&text) {
        // What parses prints and parses back to itself.
        let again = refscore::json::parse(&refscore::json::compact(&v));
        assert!(again.is_ok(), "compact output does not parse: {again:?}");
        refscore::json::drop_deep(v);
    }
    // The fast reader takes only what serde_json takes, and reads the same
    // value (it refuses nesting past 128 levels, so no deep recursion here).
    if let Some(tree) = refscore::fast_json::read(&text) {
        let slow = refscore::json::parse(&text);
        assert!(slow.is_ok(), "the fast reader took text serde_json refuses: {slow:?}");
        if let Ok(slow) = slow {
            assert_eq!(tree.root().to_value(), slow, "the two readers disagree");
        }
    }
    let pick = [Pick::First, Pick::Last, Pick::Only][usize::from(choice % 3)];
    let repair = choice & 4 != 0;
    let strict = choice & 8 != 0;
    let _ = extract_json(&text, &ExtractOptions { strict, pick, repair });
    let mode = [Mode::Auto, Mode::Json, Mode::Value][usize::from((choice >> 4) % 3)];
    let value = Value::String(text);
    let _ = decode(&value, &DecodeOptions { mode, repair, pick });
});
