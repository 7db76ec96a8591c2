//! What the fuzz targets do, and what the library's regression replay
//! (`crates/refscore/tests/fuzz_regressions.rs`, which includes this file)
//! does with a kept input: the targets' bodies, splitting one input into
//! several documents, the registry's JSON metrics built once in each of
//! the ways the CLI builds them (with field tallies, as `run` does, and
//! without, as `compare` does), and the check every target makes on a
//! score (finite, never NaN or infinite, and written as `serde_json` writes
//! it) and on its field tallies (printed within their bound).

#![forbid(unsafe_code)]

use std::path::Path;
use std::sync::OnceLock;

use refscore::decode::{DecodeOptions, Mode, decode};
use refscore::extract::{ExtractOptions, Pick, extract_json};
use refscore::metrics::{BuildContext, build, registry};
use refscore::{DatasetFormat, EvalInput, Evaluator, Score};
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
/// properties every target checks. The scores, when it evaluated.
pub fn check(evaluator: &dyn Evaluator, input: &EvalInput<'_>) -> Option<Vec<Score>> {
    let e = evaluator.evaluate(input).ok()?;
    for s in &e.scores {
        if let Some(x) = s.score {
            assert!(x.is_finite(), "{}: score {} is not finite", evaluator.name(), x);
        }
        let by_serde = serde_json::to_string(s).unwrap_or_default();
        assert_eq!(s.to_json(), by_serde, "{}: the score's line", evaluator.name());
    }
    check_fields(evaluator.name(), &e.fields);
    Some(e.scores)
}

/// The `parse` target: the first byte chooses the extraction's and the
/// decode layer's options, the rest is the text. What parses prints and
/// parses back; the fast reader takes exactly what serde_json takes (up to
/// 128 levels) and reads the same value, the deep reader all of it.
pub fn parse(data: &[u8]) {
    let (choice, rest) = data.split_first().map_or((0, data), |(c, r)| (*c, r));
    let text = text(rest);
    if let Ok(v) = refscore::json::parse(&text) {
        let again = refscore::json::parse(&refscore::json::compact(&v));
        assert!(again.is_ok(), "compact output does not parse: {again:?}");
        refscore::json::drop_deep(v);
    }
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
}

/// The `json_match_rules` target: the input split at NUL bytes into rules
/// (JSON: an object of options, or an array of rules), output and
/// reference, scored both ways in each of [`contexts`]: the same scores
/// with field tallies as without.
pub fn json_match_rules(data: &[u8]) {
    let parts = split(data, 3);
    let rules = match refscore::json::parse(&text(parts[0])) {
        Ok(Value::Object(map)) => map,
        Ok(other) => Map::from_iter([("rules".to_owned(), other)]),
        Err(_) => return,
    };
    let side = |b: &[u8]| {
        let t = text(b);
        refscore::json::parse(&t).unwrap_or(Value::String(t))
    };
    let (a, b) = (side(parts[1]), side(parts[2]));
    let mut scores = Vec::new();
    for ctx in contexts() {
        let Ok(metric) = build("json_match", &rules, &ctx) else { return };
        for input in [EvalInput::pair(a.clone(), b.clone()), EvalInput::pair(b.clone(), a.clone())]
        {
            scores.push(check(metric.as_ref(), &input));
        }
    }
    assert_eq!(scores[..2], scores[2..], "field tallies changed a score");
}

/// The dataset targets: `data` read as a dataset of `format`, its rows
/// scored (see [`read_rows`]).
pub fn dataset(data: &[u8], format: DatasetFormat) {
    let reader = Box::new(std::io::Cursor::new(data.to_vec()));
    if let Ok(rows) = refscore::dataset::from_reader(Path::new("fuzz.input"), reader, format) {
        read_rows(rows, data.len() + 1);
    }
}

/// The `dataset_parquet` target, on the file at `path`: a Parquet file's
/// rows are bounded by its declared row counts, not its size, so a bounded
/// number is read.
pub fn parquet_file(path: &Path) {
    if let Ok(rows) = refscore::dataset::open(path, Some(DatasetFormat::Parquet)) {
        read_rows(rows.take(10_000), usize::MAX);
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
