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
    // The fast reader takes exactly what serde_json takes (up to 128
    // levels of nesting) and reads the same value; the deep reader takes
    // all of it.
    let slow = refscore::json::parse(&text);
    let fast = refscore::fast_json::read(&text).map(|t| t.root().to_value());
    match (&slow, &fast) {
        (Ok(slow), Some(fast)) => assert_eq!(fast, slow, "the two readers disagree"),
        (Ok(_), None) => assert!(
            refscore::json::nesting_depth(text.as_bytes()) > 128,
            "the fast reader refused JSON"
        ),
        (Err(e), Some(_)) => panic!("the fast reader took text serde_json refuses: {e}"),
        (Err(_), None) => {}
    }
    if let Some(fast) = fast {
        refscore::json::drop_deep(fast);
    }
    if let Ok(slow) = slow {
        let deep = refscore::fast_json::read_deep(&text).map(|t| t.root().to_value());
        assert_eq!(deep.as_ref(), Some(&slow), "the deep reader disagrees");
        if let Some(deep) = deep {
            refscore::json::drop_deep(deep);
        }
        refscore::json::drop_deep(slow);
    }
    let pick = [Pick::First, Pick::Last, Pick::Only][usize::from(choice % 3)];
    let repair = choice & 4 != 0;
    let strict = choice & 8 != 0;
    let _ = extract_json(&text, &ExtractOptions { strict, pick, repair });
    let mode = [Mode::Auto, Mode::Json, Mode::Value][usize::from((choice >> 4) % 3)];
    let value = Value::String(text);
    let _ = decode(&value, &DecodeOptions { mode, repair, pick });
});
