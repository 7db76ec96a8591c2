//! Runs every case file in the repository's top-level `tests/cases/`.
//!
//! A case file is a JSON array of cases:
//!
//! ```text
//! {"name": "...", "metric": "json_diff", "options": {...},
//!  "output": any, "reference": any, "inputs": {"weights": ...},
//!  "expect": {"score": number|null, "tolerance": 1e-9, "label": "...",
//!             "explanation": "exact text", "explanation_contains": ["..."],
//!             "details": [{"check": "...", "passed": false, "outcome": "...",
//!                          "message": "text the message contains"}],
//!             "metadata": {subset}, "name": "score name", "error": "text"},
//!  "source": "where the expected values come from"}
//! ```
//!
//! The metric is built by name with [`refscore::metrics::build`] (relative
//! files in its options resolve against the cases folder). `expect.name`
//! picks one of several scores by name (default: the first); `expect.error`
//! expects building or evaluating to fail with a message containing that
//! text. Each case is a trial of its own, named `file::case name`; its
//! failure lists every expectation the case misses.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use libtest_mimic::Trial;
use refscore::metrics::{BuildContext, build};
use refscore::{EvalInput, Score};
use serde_json::{Map, Value};

const CASE_KEYS: &[&str] =
    &["name", "metric", "options", "output", "reference", "inputs", "expect", "source", "notes"];
const EXPECT_KEYS: &[&str] = &[
    "score",
    "tolerance",
    "label",
    "explanation",
    "explanation_contains",
    "details",
    "metadata",
    "name",
    "error",
];
const DEFAULT_TOLERANCE: f64 = 1e-9;

/// The repository's `tests/cases` folder.
fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/cases")
}

fn case_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.extension().is_some_and(|x| x == "json") {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

/// The cases of one file.
fn load(file: &Path) -> Result<Vec<Value>, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("cannot read: {e}"))?;
    match refscore::json::parse(&text) {
        Ok(Value::Array(cases)) => Ok(cases),
        Ok(_) => Err(String::from("not a JSON array of cases")),
        Err(e) => Err(format!("invalid JSON: {e}")),
    }
}

/// A trial that fails with `message`.
fn failing(name: String, message: String) -> Trial {
    Trial::test(name, move || Err(message.into()))
}

/// One trial per case, named `file::case name` (`file` without `.json`),
/// a trial per unreadable file, and one checking that case names are
/// unique within each file.
pub(crate) fn trials() -> Vec<Trial> {
    let mut trials =
        vec![crate::plain("cases::runner_reports_mismatches", runner_reports_mismatches)];
    let dir = cases_dir();
    let files = match case_files(&dir) {
        Ok(files) if !files.is_empty() => files,
        Ok(_) => {
            let msg = format!("no case files in {}", dir.display());
            trials.push(failing(String::from("cases::case_files"), msg));
            return trials;
        }
        Err(e) => {
            let msg = format!("cannot list {}: {e}", dir.display());
            trials.push(failing(String::from("cases::case_files"), msg));
            return trials;
        }
    };
    let ctx = BuildContext { base_dir: Some(dir), field_tallies: true, ..BuildContext::default() };
    // Per file, the problems with its case names.
    let mut name_problems = Vec::new();
    for file in &files {
        let stem = file.file_stem().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let cases = match load(file) {
            Ok(cases) => cases,
            Err(e) => {
                trials.push(failing(format!("{stem}::<file>"), format!("{}: {e}", file.display())));
                continue;
            }
        };
        let mut seen: HashMap<String, usize> = HashMap::new();
        for (i, case) in cases.into_iter().enumerate() {
            let name = match case.get("name").and_then(Value::as_str) {
                Some(n) => n.to_owned(),
                None => {
                    name_problems.push(format!("{stem}: case #{i} has no \"name\""));
                    format!("case #{i}")
                }
            };
            // A repeated name still gets a trial of its own.
            let trial_name = match seen.get(&name) {
                Some(first) => {
                    name_problems
                        .push(format!("{stem}: cases #{first} and #{i} are both named {name:?}"));
                    format!("{stem}::{name} (case #{i})")
                }
                None => {
                    let trial_name = format!("{stem}::{name}");
                    seen.insert(name, i);
                    trial_name
                }
            };
            let ctx = ctx.clone();
            trials.push(Trial::test(trial_name, move || {
                run_case(&case, &ctx).map_err(|problems| {
                    let source = case.get("source").and_then(Value::as_str).unwrap_or("?");
                    format!("{}\n(expected values from: {source})", problems.join("\n")).into()
                })
            }));
        }
    }
    trials.push(Trial::test("cases::case_names_are_unique_in_each_file", move || {
        if name_problems.is_empty() { Ok(()) } else { Err(name_problems.join("\n").into()) }
    }));
    trials
}

/// Runs one case; the error lists every expectation it misses.
fn run_case(case: &Value, ctx: &BuildContext) -> Result<(), Vec<String>> {
    let Some(obj) = case.as_object() else {
        return Err(vec![String::from("a case must be an object")]);
    };
    let mut problems = Vec::new();
    for k in obj.keys() {
        if !CASE_KEYS.contains(&k.as_str()) {
            problems.push(format!("unknown case member `{k}`"));
        }
    }
    let Some(metric) = obj.get("metric").and_then(Value::as_str) else {
        return Err(vec![String::from("missing \"metric\"")]);
    };
    let empty = Map::new();
    let options = obj.get("options").and_then(Value::as_object).unwrap_or(&empty);
    let Some(expect) = obj.get("expect").and_then(Value::as_object) else {
        return Err(vec![String::from("missing \"expect\" object")]);
    };
    for k in expect.keys() {
        if !EXPECT_KEYS.contains(&k.as_str()) {
            problems.push(format!("unknown expect member `{k}`"));
        }
    }
    let want_error = expect.get("error").and_then(Value::as_str);
    let evaluator = match build(metric, options, ctx) {
        Ok(m) => m,
        Err(e) => {
            return check_error(want_error, &e.to_string(), "build", problems);
        }
    };
    let mut input = EvalInput::new();
    for side in ["output", "reference"] {
        if let Some(v) = obj.get(side) {
            input.set(side, v.clone());
        }
    }
    if let Some(extra) = obj.get("inputs").and_then(Value::as_object) {
        for (k, v) in extra {
            input.set(k, v.clone());
        }
    }
    let scores = match evaluator.evaluate(&input) {
        Ok(s) => s,
        Err(e) => return check_error(want_error, &e.to_string(), "evaluate", problems),
    };
    if let Some(w) = want_error {
        problems.push(format!("expected an error containing {w:?}, got scores"));
        return Err(problems);
    }
    let wanted_name = expect.get("name").and_then(Value::as_str);
    let score = match wanted_name {
        Some(n) => scores.scores.iter().find(|s| s.name == n),
        None => scores.scores.first(),
    };
    let Some(score) = score else {
        problems
            .push(format!("no score named {wanted_name:?} among {} score(s)", scores.scores.len()));
        return Err(problems);
    };
    check_score(score, expect, &mut problems);
    if problems.is_empty() { Ok(()) } else { Err(problems) }
}

fn check_error(
    want: Option<&str>,
    got: &str,
    stage: &str,
    mut problems: Vec<String>,
) -> Result<(), Vec<String>> {
    match want {
        Some(w) if got.contains(w) => {}
        Some(w) => problems.push(format!("{stage} error {got:?} does not contain {w:?}")),
        None => problems.push(format!("{stage} failed: {got}")),
    }
    if problems.is_empty() { Ok(()) } else { Err(problems) }
}

fn check_score(score: &Score, expect: &Map<String, Value>, problems: &mut Vec<String>) {
    let tol = expect.get("tolerance").and_then(Value::as_f64).unwrap_or(DEFAULT_TOLERANCE);
    if let Some(s) = score.score
        && !s.is_finite()
    {
        problems.push(format!("score is not finite: {s}"));
    }
    if let Some(want) = expect.get("score") {
        match (want.as_f64(), score.score) {
            (None, None) if want.is_null() => {}
            (Some(w), Some(g)) if (w - g).abs() <= tol => {}
            (w, g) => problems.push(format!(
                "score: expected {}, got {} (tolerance {tol})",
                w.map_or_else(|| String::from("null"), |x| x.to_string()),
                g.map_or_else(|| String::from("null"), |x| x.to_string())
            )),
        }
    }
    if let Some(want) = expect.get("label") {
        let got = score.label.as_deref();
        if want.as_str() != got {
            problems.push(format!("label: expected {want}, got {got:?}"));
        }
    }
    if let Some(want) = expect.get("explanation") {
        let got = score.explanation.as_deref();
        if want.as_str() != got {
            problems.push(format!("explanation: expected {want}, got {got:?}"));
        }
    }
    if let Some(parts) = expect.get("explanation_contains").and_then(Value::as_array) {
        let got = score.explanation.as_deref().unwrap_or("");
        for p in parts.iter().filter_map(Value::as_str) {
            if !got.contains(p) {
                problems.push(format!("explanation {got:?} does not contain {p:?}"));
            }
        }
    }
    if let Some(details) = expect.get("details").and_then(Value::as_array) {
        for want in details {
            if !score.details.iter().any(|d| detail_matches(d, want)) {
                let have: Vec<String> = score
                    .details
                    .iter()
                    .map(|d| format!("{} {} {}", d.check, d.passed, d.outcome.as_str()))
                    .collect();
                problems.push(format!("detail {want} not found among [{}]", have.join("; ")));
            }
        }
    }
    if let Some(meta) = expect.get("metadata").and_then(Value::as_object) {
        for (k, want) in meta {
            match score.metadata.get(k) {
                Some(got) if values_match(want, got, tol) => {}
                got => problems.push(format!("metadata.{k}: expected {want}, got {got:?}")),
            }
        }
    }
}

fn detail_matches(d: &refscore::Detail, want: &Value) -> bool {
    let check = want.get("check").and_then(Value::as_str);
    let passed = want.get("passed").and_then(Value::as_bool);
    let outcome = want.get("outcome").and_then(Value::as_str);
    let message = want.get("message").and_then(Value::as_str);
    message.is_none_or(|m| d.message.as_deref().is_some_and(|got| got.contains(m)))
        && check.is_none_or(|c| d.check == c)
        && passed.is_none_or(|p| p == d.passed)
        && outcome.is_none_or(|o| o == d.outcome.as_str())
}

/// JSON equality with numbers compared within `tol`.
fn values_match(want: &Value, got: &Value, tol: f64) -> bool {
    match (want, got) {
        (Value::Number(w), Value::Number(g)) => match (w.as_f64(), g.as_f64()) {
            (Some(w), Some(g)) => (w - g).abs() <= tol,
            _ => w == g,
        },
        (Value::Array(w), Value::Array(g)) => {
            w.len() == g.len() && w.iter().zip(g).all(|(a, b)| values_match(a, b, tol))
        }
        // Objects match as subsets: every expected key, recursively.
        (Value::Object(w), Value::Object(g)) => {
            w.iter().all(|(k, a)| g.get(k).is_some_and(|b| values_match(a, b, tol)))
        }
        _ => want == got,
    }
}

fn runner_reports_mismatches() {
    let ctx = BuildContext::default();
    let case = serde_json::json!({
        "name": "x", "metric": "json_distance", "output": {"a": 1}, "reference": {"a": 2},
        "expect": {"score": 0, "label": "match", "details": [{"check": "json_path.$.b"}],
                   "metadata": {"differences": 2}, "bogus": 1},
        "source": "test"
    });
    let problems = run_case(&case, &ctx).unwrap_err();
    assert_eq!(problems.len(), 5, "{problems:#?}");
    assert!(problems.iter().any(|p| p.contains("unknown expect member `bogus`")));
    assert!(problems.iter().any(|p| p.starts_with("score: expected 0, got 1")));
    let ok = serde_json::json!({
        "name": "y", "metric": "json_distance", "output": {"a": 1}, "reference": {"a": 2},
        "expect": {"score": 1, "label": "mismatch", "metadata": {"differences": 1},
                   "details": [{"check": "json_path.$.a", "passed": false, "outcome": "value_mismatch"}]},
        "source": "test"
    });
    assert_eq!(run_case(&ok, &ctx), Ok(()));
    let unknown = serde_json::json!({
        "name": "z", "metric": "no_such_metric", "output": 1, "reference": 1,
        "expect": {"error": "unknown metric"}, "source": "test"
    });
    assert_eq!(run_case(&unknown, &ctx), Ok(()));
}
