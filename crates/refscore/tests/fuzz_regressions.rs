//! Inputs that made a cargo-fuzz target fail, replayed: every file under
//! the repository's `fuzz/regressions/<target>/` is a trial of its own,
//! named `fuzz_regressions::<target>::<file>`, that drives the library the
//! way the target does (see `fuzz/fuzz_targets/`) and fails on a panic or a
//! non-finite score.

use std::io::Cursor;
use std::path::{Path, PathBuf};

use libtest_mimic::{Failed, Trial};
use refscore::dataset::{DatasetFormat, from_reader, open};
use refscore::decode::{DecodeOptions, Mode, decode};
use refscore::extract::{ExtractOptions, Pick, extract_json};
use refscore::metrics::{BuildContext, build, registry};
use refscore::{EvalInput, Evaluator, Row, RowError};
use serde_json::{Map, Value};

fn folder() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/regressions")
}

/// One trial per kept input.
pub(crate) fn trials() -> Vec<Trial> {
    let mut trials = Vec::new();
    let Ok(targets) = std::fs::read_dir(folder()) else { return trials };
    let mut targets: Vec<PathBuf> = targets.filter_map(|e| e.ok().map(|e| e.path())).collect();
    targets.sort();
    for dir in targets {
        let target = dir.file_name().unwrap_or_default().to_string_lossy().into_owned();
        let Ok(files) = std::fs::read_dir(&dir) else { continue };
        let mut files: Vec<PathBuf> = files.filter_map(|e| e.ok().map(|e| e.path())).collect();
        files.sort();
        for file in files {
            let name = file.file_name().unwrap_or_default().to_string_lossy().into_owned();
            let target = target.clone();
            trials.push(Trial::test(format!("fuzz_regressions::{target}::{name}"), move || {
                let bytes = std::fs::read(&file).map_err(|e| Failed::from(e.to_string()))?;
                replay(&target, &bytes)
            }));
        }
    }
    trials
}

fn replay(target: &str, data: &[u8]) -> Result<(), Failed> {
    match target {
        "parse" => parse(data),
        "json_metrics" => {
            let parts = split(data, 2);
            let input = EvalInput::pair(text_value(parts[0]), text_value(parts[1]));
            json_metrics().iter().try_for_each(|m| check(m.as_ref(), &input))
        }
        "json_match_rules" => json_match_rules(data),
        "dataset_jsonl" => [DatasetFormat::Jsonl, DatasetFormat::JsonArray]
            .into_iter()
            .try_for_each(|f| stream(data, f)),
        "dataset_csv" => stream(data, DatasetFormat::Csv),
        "dataset_parquet" => {
            let dir = tempfile::tempdir().map_err(|e| Failed::from(e.to_string()))?;
            let path = dir.path().join("input.parquet");
            std::fs::write(&path, data).map_err(|e| Failed::from(e.to_string()))?;
            match open(&path, Some(DatasetFormat::Parquet)) {
                Ok(rows) => read_rows(rows.take(10_000)),
                Err(_) => Ok(()),
            }
        }
        other => Err(Failed::from(format!("no replay for fuzz target `{other}`"))),
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn text_value(bytes: &[u8]) -> Value {
    Value::String(text(bytes))
}

fn split(bytes: &[u8], n: usize) -> Vec<&[u8]> {
    let mut parts: Vec<&[u8]> = bytes.splitn(n, |b| *b == 0).collect();
    parts.resize(n, &[]);
    parts
}

fn check(m: &dyn Evaluator, input: &EvalInput<'_>) -> Result<(), Failed> {
    let Ok(e) = m.evaluate(input) else { return Ok(()) };
    match e.scores.iter().find(|s| s.score.is_some_and(|x| !x.is_finite())) {
        Some(s) => Err(Failed::from(format!("{}: score {:?}", s.name, s.score))),
        None => Ok(()),
    }
}

/// The two ways the CLI builds metrics, as the fuzz targets build them:
/// gathering field tallies (`run`) and without (`compare`).
fn contexts() -> [BuildContext; 2] {
    [BuildContext { field_tallies: true, ..BuildContext::default() }, BuildContext::default()]
}

fn json_metrics() -> Vec<Box<dyn Evaluator>> {
    contexts()
        .iter()
        .flat_map(|ctx| {
            registry::all()
                .iter()
                .filter(|s| s.json)
                .filter_map(|s| build(s.name, &Map::new(), ctx).ok())
        })
        .collect()
}

fn parse(data: &[u8]) -> Result<(), Failed> {
    let (choice, rest) = data.split_first().map_or((0, data), |(c, r)| (*c, r));
    let t = text(rest);
    let _ = refscore::json::parse(&t);
    let pick = [Pick::First, Pick::Last, Pick::Only][usize::from(choice % 3)];
    let (repair, strict) = (choice & 4 != 0, choice & 8 != 0);
    let _ = extract_json(&t, &ExtractOptions { strict, pick, repair });
    let mode = [Mode::Auto, Mode::Json, Mode::Value][usize::from((choice >> 4) % 3)];
    let _ = decode(&Value::String(t), &DecodeOptions { mode, repair, pick });
    Ok(())
}

fn json_match_rules(data: &[u8]) -> Result<(), Failed> {
    let parts = split(data, 3);
    let rules = match refscore::json::parse(&text(parts[0])) {
        Ok(Value::Object(map)) => map,
        Ok(other) => Map::from_iter([("rules".to_owned(), other)]),
        Err(_) => return Ok(()),
    };
    let side = |b: &[u8]| refscore::json::parse(&text(b)).unwrap_or_else(|_| text_value(b));
    let (a, b) = (side(parts[1]), side(parts[2]));
    for ctx in contexts() {
        let Ok(m) = build("json_match", &rules, &ctx) else { return Ok(()) };
        check(m.as_ref(), &EvalInput::pair(a.clone(), b.clone()))?;
        check(m.as_ref(), &EvalInput::pair(b.clone(), a.clone()))?;
    }
    Ok(())
}

fn stream(data: &[u8], format: DatasetFormat) -> Result<(), Failed> {
    match from_reader(Path::new("input"), Box::new(Cursor::new(data.to_vec())), format) {
        Ok(rows) => read_rows(rows.take(data.len() + 1)),
        Err(_) => Ok(()),
    }
}

fn read_rows(rows: impl Iterator<Item = Result<Row, RowError>>) -> Result<(), Failed> {
    let metrics = json_metrics();
    for row in rows.flatten() {
        let side = |k: &str| row.value.get(k).cloned().unwrap_or(Value::Null);
        let input = EvalInput::pair(side("output"), side("reference"));
        metrics.iter().try_for_each(|m| check(m.as_ref(), &input))?;
    }
    Ok(())
}
