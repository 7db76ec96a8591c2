//! json_match with rules built from the input: the input is split at NUL
//! bytes into rules (JSON: an object of options, or an array of rules),
//! output and reference.
#![no_main]

use libfuzzer_sys::fuzz_target;
use refscore::EvalInput;
use refscore::metrics::build;
use serde_json::{Map, Value};

fuzz_target!(|data: &[u8]| {
    let parts = refscore_fuzz::split(data, 3);
    let rules = match refscore::json::parse(&refscore_fuzz::text(parts[0])) {
        Ok(Value::Object(map)) => map,
        Ok(other) => Map::from_iter([("rules".to_owned(), other)]),
        Err(_) => return,
    };
    let side = |b: &[u8]| {
        let t = refscore_fuzz::text(b);
        refscore::json::parse(&t).unwrap_or(Value::String(t))
    };
    let (a, b) = (side(parts[1]), side(parts[2]));
    // As `run` builds it (field tallies) and as `compare` does: the same
    // scores either way.
    let mut scores = Vec::new();
    for ctx in refscore_fuzz::contexts() {
        let Ok(metric) = build("json_match", &rules, &ctx) else { return };
        for input in [EvalInput::pair(a.clone(), b.clone()), EvalInput::pair(b.clone(), a.clone())]
        {
            refscore_fuzz::check(metric.as_ref(), &input);
            scores.push(metric.evaluate(&input).ok().map(|e| e.scores));
        }
    }
    assert_eq!(scores[..2], scores[2..], "field tallies changed a score");
});
