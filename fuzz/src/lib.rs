//! Helpers shared by the fuzz targets: splitting one input into several
//! documents, the registry's JSON metrics built once in each of the ways
//! the CLI builds them (with field tallies, as `run` does, and without,
//! as `compare` does), and the check every target makes on a score
//! (finite, never NaN or infinite, and written as `serde_json` writes it)
//! and on its field tallies (printed within their bound).

#![forbid(unsafe_code)]

use std::sync::OnceLock;

use refscore::metrics::{BuildContext, build, registry};
use refscore::{EvalInput, Evaluator};
use serde_json::{Map, Value};

/// The input's text: itself when it is UTF-8, else with each bad sequence
/// replaced (the decode layer only ever sees `str`).
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Splits `bytes` on NUL into at most `n` parts (missing parts are empty).
pub fn split(bytes: &[u8], n: usize) -> Vec<&[u8]> {
    let mut parts: Vec<&[u8]> = bytes.splitn(n, |b| *b == 0).collect();
    parts.resize(n, &[]);
    parts
}

/// Panics on a non-finite score, or on a score whose line (written by the
/// library's own writer) is not what `serde_json` writes for it: the
/// properties every target checks.
pub fn check(evaluator: &dyn Evaluator, input: &EvalInput<'_>) {
    if let Ok(e) = evaluator.evaluate(input) {
        for s in &e.scores {
            if let Some(x) = s.score {
                assert!(x.is_finite(), "{}: score {} is not finite", evaluator.name(), x);
            }
            let by_serde = serde_json::to_string(s).unwrap_or_default();
            assert_eq!(s.to_json(), by_serde, "{}: the score's line", evaluator.name());
        }
        check_fields(evaluator.name(), &e.fields);
    }
}

/// Panics unless the tallies print within their bound: every field kept
/// when nothing is left out, each path a `$` path.
fn check_fields(name: &str, fields: &refscore::engine::FieldTallies) {
    let (printed, dropped) = fields.to_tallies();
    let bytes: usize = printed.iter().map(|t| t.path.len()).sum();
    assert!(bytes <= refscore::limits::MAX_KEPT_PATH_BYTES, "{name}: {bytes} bytes of paths");
    assert!(printed.len() <= fields.len(), "{name}: more tallies printed than kept");
    if dropped == 0 {
        assert_eq!(printed.len(), fields.len(), "{name}: a field lost in printing");
    }
    assert!(printed.iter().all(|t| t.path.starts_with('$')), "{name}: a path not from the root");
}

/// The two ways the CLI builds metrics: gathering field tallies, as
/// `run` does, and without, as `compare` does (the walk takes other paths
/// without them).
pub fn contexts() -> [BuildContext; 2] {
    [BuildContext { field_tallies: true, ..BuildContext::default() }, BuildContext::default()]
}

/// Every JSON metric of the registry, built once with its default
/// options in each of [`contexts`].
pub fn json_metrics() -> &'static [Box<dyn Evaluator>] {
    static METRICS: OnceLock<Vec<Box<dyn Evaluator>>> = OnceLock::new();
    METRICS.get_or_init(|| {
        contexts()
            .iter()
            .flat_map(|ctx| {
                registry::all()
                    .iter()
                    .filter(|s| s.json)
                    .filter_map(|s| build(s.name, &Map::new(), ctx).ok())
            })
            .collect()
    })
}

/// Scores `output` against `reference` with every JSON metric, as given
/// and, when both parse, as the parsed documents.
pub fn score_pair(output: &[u8], reference: &[u8]) -> usize {
    let (a, b) = (text(output), text(reference));
    let strings = EvalInput::pair(Value::String(a.clone()), Value::String(b.clone()));
    let parsed = match (refscore::json::parse(&a), refscore::json::parse(&b)) {
        (Ok(x), Ok(y)) => Some(EvalInput::pair(x, y)),
        _ => None,
    };
    for m in json_metrics() {
        check(m.as_ref(), &strings);
        if let Some(p) = &parsed {
            check(m.as_ref(), p);
        }
    }
    json_metrics().len()
}

/// Reads at most `limit` rows of a dataset and scores the `output` and
/// `reference` of each readable row with the JSON metrics.
pub fn read_rows(
    rows: impl Iterator<Item = Result<refscore::Row, refscore::RowError>>,
    limit: usize,
) {
    let mut n = 0;
    for row in rows {
        n += 1;
        assert!(n <= limit, "more rows than the input has bytes");
        let Ok(row) = row else { continue };
        assert!(row.value.is_object(), "a row is an object: {}", row.value);
        let side = |k: &str| row.value.get(k).cloned().unwrap_or(Value::Null);
        let input = EvalInput::pair(side("output"), side("reference"));
        for m in json_metrics() {
            check(m.as_ref(), &input);
        }
    }
}
