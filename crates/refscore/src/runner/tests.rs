use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde_json::json;

use super::*;
use crate::error::EvalError;
use crate::evaluator::{EvalInput, Evaluation, Evaluator, InputSpec, InputType};
use crate::mapping::InputMapping;
use crate::suite::SuiteFormat;
use crate::summary::Gate;

/// Scores `output` as a number; errors on "boom", panics on "panic",
/// gives an invalid score on "invalid".
struct Flaky;

const FLAKY_INPUTS: &[InputSpec] =
    &[InputSpec::required("output", InputType::Text, "a number, or boom, panic, invalid")];

impl Evaluator for Flaky {
    fn name(&self) -> &str {
        "flaky"
    }
    fn inputs(&self) -> &[InputSpec] {
        FLAKY_INPUTS
    }
    fn compute(&self, input: &EvalInput) -> Result<Evaluation, EvalError> {
        match input.require("output")? {
            Value::String(s) if s == "boom" => Err(EvalError::Failed("boom".into())),
            Value::String(s) if s == "panic" => panic!("flaky panicked"),
            Value::String(s) if s == "invalid" => {
                Ok(Evaluation::one(Score::invalid("flaky", "not a number")))
            }
            v => Ok(Evaluation::of(vec![
                Score::new("flaky", v.as_f64()),
                Score::new("extra", Some(1.0)),
            ])),
        }
    }
}

fn write_jsonl(dir: &Path, lines: &[String]) -> PathBuf {
    let path = dir.join("data.jsonl");
    let mut f = std::fs::File::create(&path).unwrap();
    for l in lines {
        writeln!(f, "{l}").unwrap();
    }
    path
}

fn flaky_suite(dataset: PathBuf, gate: Gate) -> Suite {
    Suite {
        path: PathBuf::from("suite.yaml"),
        name: None,
        dataset,
        format: None,
        id_column: Some("id".into()),
        evaluators: vec![SuiteEvaluator {
            name: "f".into(),
            metric: "flaky".into(),
            evaluator: Box::new(Flaky),
            mapping: InputMapping::new(),
            threshold: Some(0.5),
            weight: 1.0,
        }],
        gate,
        judges: std::sync::Arc::default(),
        regression: crate::history::RegressionPolicy::default(),
        tags: std::collections::BTreeMap::new(),
        links: std::collections::BTreeMap::new(),
        config_files: Vec::new(),
    }
}

fn collect(suite: &Suite, opts: &RunOptions) -> (Vec<RowResult>, RunSummary) {
    let mut out = Vec::new();
    let summary = run(
        suite,
        opts,
        &mut |r, _| {
            out.push(r.clone());
            Ok(())
        },
        &|_| {},
    )
    .unwrap();
    (out, summary)
}

#[test]
fn failing_evaluations_and_unreadable_rows_never_stop_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let lines: Vec<String> = [
        r#"{"id": "a", "output": 1}"#,
        r#"{"id": "b", "output": "boom"}"#,
        r#"{"id": "c", "output": "panic"}"#,
        r#"{"id": "d"}"#,
        r#"{"id": "e", "output": 0.25}"#,
        r#"{"id": "f", oops}"#,
        r#"{"id": "g", "output": "invalid"}"#,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let path = write_jsonl(dir.path(), &lines);
    let gate = Gate { max_failed_rows: Some(3), ..Gate::default() };
    let (rows, summary) = collect(&flaky_suite(path.clone(), gate), &RunOptions::default());
    let ids: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["a", "b", "c", "d", "e", "6", "g"]);
    let a = &rows[0];
    assert_eq!(a.scores.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["f", "f.extra"]);
    assert_eq!(a.execution["f"].status, Status::Completed);
    assert!(a.passed["f"]);
    assert_eq!(rows[1].execution["f"].error.as_deref(), Some("boom"));
    assert!(rows[2].execution["f"].error.as_deref().unwrap().contains("flaky panicked"));
    let missing = rows[3].execution["f"].error.as_deref().unwrap();
    assert!(missing.starts_with("input `output` from `output`: no column"), "{missing}");
    assert!(!rows[4].passed["f"]);
    let bad = &rows[5];
    assert!(bad.scores.is_empty() && bad.execution.is_empty());
    let err = bad.error.as_deref().unwrap();
    assert!(err.starts_with(&format!("{}:6: invalid JSON", path.display())), "{err}");
    assert!(!rows[6].passed["f"]);

    assert_eq!((summary.rows, summary.rows_unreadable, summary.rows_with_failures), (7, 1, 3));
    let f = &summary.evaluators[0];
    assert_eq!((f.count, f.invalid, f.failed, f.passed), (2, 1, 3, Some(1)));
    assert_eq!(f.mean, Some(0.625));
    assert!((f.pass_rate.unwrap() - 1.0 / 7.0).abs() < 1e-12);
    assert!(!summary.cancelled);
    let check = summary.gate.checks.iter().find(|c| c.name == "max_failed_rows").unwrap();
    assert_eq!((check.actual, check.passed), (Some(4.0), false));
    assert!(!summary.gate.passed);

    let json = serde_json::to_value(&rows[5]).unwrap();
    assert_eq!(json["row"], 6);
    assert!(json.get("passed").is_none());
    let json = serde_json::to_value(&rows[1]).unwrap();
    assert_eq!(json["execution"]["f"]["status"], "failed");
    assert!(json.get("error").is_none());
}

#[test]
fn order_is_kept_across_threads_and_batches() {
    let dir = tempfile::tempdir().unwrap();
    let n = BATCH_ROWS * 3 + 28; // a multiple of 10: pass rate exactly 0.5
    let lines: Vec<String> = (0..n)
        .map(|i| json!({"id": format!("r{i}"), "output": (i % 10) as f64 / 10.0}).to_string())
        .collect();
    let path = write_jsonl(dir.path(), &lines);
    let suite = flaky_suite(path, Gate::default());
    let progress = Mutex::new(Vec::new());
    let mut seen = Vec::new();
    let opts = RunOptions { threads: Some(4), ..RunOptions::default() };
    let summary = run(
        &suite,
        &opts,
        &mut |r, _| {
            seen.push((r.id.clone(), r.row));
            Ok(())
        },
        &|p| progress.lock().unwrap().push(p.rows_done),
    )
    .unwrap();
    assert_eq!(seen.len(), n);
    assert!(
        seen.iter()
            .enumerate()
            .all(|(i, (id, row))| *id == format!("r{i}") && *row == i as u64 + 1)
    );
    assert_eq!(summary.rows, n as u64);
    assert_eq!(summary.evaluators[0].pass_rate, Some(0.5));
    assert_eq!(summary.evaluators[0].median, Some(0.45));
    let progress = progress.into_inner().unwrap();
    assert_eq!(progress, vec![1024, 2048, 3072, n as u64]);
    assert!(summary.gate.passed);
}

#[test]
fn cancellation_stops_after_the_current_batch() {
    let dir = tempfile::tempdir().unwrap();
    let lines: Vec<String> =
        (0..BATCH_ROWS * 3).map(|i| json!({"id": i, "output": 1}).to_string()).collect();
    let suite = flaky_suite(write_jsonl(dir.path(), &lines), Gate::default());
    let opts = RunOptions::default();
    let cancel = opts.cancel.clone();
    let mut count = 0;
    let summary = run(
        &suite,
        &opts,
        &mut |_, _| {
            count += 1;
            cancel.store(true, Ordering::Relaxed);
            Ok(())
        },
        &|_| {},
    )
    .unwrap();
    assert_eq!(count, BATCH_ROWS);
    assert!(summary.cancelled);
    assert_eq!(summary.rows, BATCH_ROWS as u64);
    assert!(!summary.gate.passed);
    assert!(summary.gate.checks.iter().any(|c| c.name == "run_completed" && !c.passed));
}

#[test]
fn limit_and_id_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let lines: Vec<String> = (0..10).map(|i| json!({"output": i}).to_string()).collect();
    let suite = flaky_suite(write_jsonl(dir.path(), &lines), Gate::default());
    let opts = RunOptions { limit: Some(3), ..RunOptions::default() };
    let (rows, summary) = collect(&suite, &opts);
    assert_eq!(rows.iter().map(|r| r.id.as_str()).collect::<Vec<_>>(), ["1", "2", "3"]);
    assert_eq!(summary.rows, 3);
}

#[test]
fn a_blank_id_is_the_row_number_whichever_reader_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    let lines: Vec<String> = [json!("a"), json!(""), json!("  "), json!(null), json!(7)]
        .iter()
        .map(|id| json!({"id": id, "output": 1}).to_string())
        .collect();
    let mut suite = flaky_suite(write_jsonl(dir.path(), &lines), Gate::default());
    suite.id_column = Some(String::from("id"));
    for value_reader in [false, true] {
        let opts = RunOptions { value_reader, ..RunOptions::default() };
        let (rows, _) = collect(&suite, &opts);
        let ids: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["a", "2", "3", "4", "7"], "value reader {value_reader}");
    }
}

#[test]
fn empty_dataset_never_passes_and_write_errors_stop() {
    let dir = tempfile::tempdir().unwrap();
    let suite = flaky_suite(write_jsonl(dir.path(), &[]), Gate::default());
    let (rows, summary) = collect(&suite, &RunOptions::default());
    assert!(rows.is_empty());
    assert!(!summary.gate.passed);
    let suite =
        flaky_suite(write_jsonl(dir.path(), &[r#"{"output": 1}"#.to_string()]), Gate::default());
    let e = run(
        &suite,
        &RunOptions::default(),
        &mut |_, _| Err(std::io::Error::other("disk full")),
        &|_| {},
    )
    .unwrap_err();
    assert!(e.to_string().contains("disk full"));
    let mut missing = flaky_suite(dir.path().join("nope.jsonl"), Gate::default());
    missing.format = None;
    assert!(matches!(
        run(&missing, &RunOptions::default(), &mut |_, _| Ok(()), &|_| {}),
        Err(RunError::Dataset(_))
    ));
}

#[test]
fn json_metrics_feed_field_statistics_and_passed_details_are_stripped() {
    let dir = tempfile::tempdir().unwrap();
    let lines: Vec<String> = vec![
        json!({"doc": "inv-1", "pred": {"vendor": "ACME", "items": [{"price": 1}, {"price": 2}]},
               "gold": {"vendor": "ACME", "items": [{"price": 1}, {"price": 3}]}})
        .to_string(),
        json!({"doc": "inv-2", "pred": {"vendor": "Acme Inc", "items": [{"price": 5}]},
               "gold": {"vendor": "ACME", "items": [{"price": 5}]}})
        .to_string(),
    ];
    write_jsonl(dir.path(), &lines);
    let text = "dataset: data.jsonl\nid: doc\nmapping: {output: pred, reference: gold}\n\
                evaluators:\n  - {name: sim, metric: json_similarity, threshold: 0.99}\n\
                gate: {min_pass_rate: 0.5}\n";
    let suite = Suite::from_str(text, SuiteFormat::Yaml, dir.path()).unwrap();
    let (rows, summary) = collect(&suite, &RunOptions::default());
    assert!(rows[0].scores[0].details.iter().all(|d| !d.passed));
    assert!(!rows[0].scores[0].details.is_empty());
    let price = summary.fields.iter().find(|f| f.path == "$.items[*].price").unwrap();
    assert_eq!((price.evaluator.as_str(), price.total, price.matched), ("sim", 3, 2));
    assert_eq!(price.examples, vec!["inv-1"]);
    let vendor = summary.fields.iter().find(|f| f.path == "$.vendor").unwrap();
    assert_eq!(vendor.total, 2);
    assert_eq!(vendor.examples, vec!["inv-2"]);
    assert!(summary.fields[0].accuracy <= summary.fields[summary.fields.len() - 1].accuracy);
    assert_eq!(summary.evaluators[0].pass_rate, Some(0.0));
    assert!(!summary.gate.passed);

    // With `details: all`, passed details exist; they are written only
    // when asked, and the field table is the same either way.
    let all = text.replace("threshold: 0.99}", "threshold: 0.99, options: {details: all}}");
    let suite = Suite::from_str(&all, SuiteFormat::Yaml, dir.path()).unwrap();
    let (rows, again) = collect(&suite, &RunOptions::default());
    assert!(rows[0].scores[0].details.iter().all(|d| !d.passed));
    assert_eq!(again.fields, summary.fields);
    let opts = RunOptions { keep_passed_details: true, ..RunOptions::default() };
    let (rows, _) = collect(&suite, &opts);
    assert!(rows[0].scores[0].details.iter().any(|d| d.passed));

    // The field table counts every comparison whatever `details` keeps:
    // with `details: failed` written out, matched fields still count.
    for details in ["failed", "none"] {
        let t = text.replace(
            "threshold: 0.99}",
            &format!("threshold: 0.99, options: {{details: {details}}}}}"),
        );
        let suite = Suite::from_str(&t, SuiteFormat::Yaml, dir.path()).unwrap();
        let (_, s) = collect(&suite, &RunOptions::default());
        assert_eq!(s.fields, summary.fields, "details: {details}");
        let price = s.fields.iter().find(|f| f.path == "$.items[*].price").unwrap();
        assert_eq!((price.total, price.matched), (3, 2), "details: {details}");
    }
}

#[test]
fn several_scores_and_decode_decisions_reach_results_and_summary() {
    let dir = tempfile::tempdir().unwrap();
    let lines: Vec<String> = vec![
        json!({"id": "a", "out": ["x", "y"], "gold": ["x", "z"], "doc": "{\"k\": 1}", "want": {"k": 1}})
            .to_string(),
        json!({"id": "b", "out": ["x"], "gold": ["x"], "doc": "```json\n{\"k\": 2}\n```", "want": {"k": 1}})
            .to_string(),
    ];
    write_jsonl(dir.path(), &lines);
    let text = "dataset: data.jsonl\nid: id\nevaluators:\n\
                - {name: prf, metric: precision_recall_fscore, options: {mode: set},\n   \
                   mapping: {output: out, reference: gold}}\n\
                - {name: doc, metric: json_diff, mapping: {output: doc, reference: want}}\n";
    let suite = Suite::from_str(text, SuiteFormat::Yaml, dir.path()).unwrap();
    let (rows, summary) = collect(&suite, &RunOptions::default());
    let names: Vec<&str> = rows[0].scores.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["prf", "prf.precision", "prf.recall", "doc"]);
    assert_eq!(rows[0].scores[1].score, Some(0.5));
    let decode = &rows[0].execution["doc"].decode;
    assert_eq!(decode["output"]["method"], "whole", "{decode:?}");
    assert!(decode.get("reference").is_none());
    assert_eq!(rows[1].execution["doc"].decode["output"]["method"], "fence");
    assert!(rows[0].execution["prf"].decode.is_empty());
    let prf = &summary.evaluators[0];
    let extra: Vec<(&str, u64)> = prf.scores.iter().map(|s| (s.name.as_str(), s.count)).collect();
    assert_eq!(extra, [("prf.precision", 2), ("prf.recall", 2)]);
    assert_eq!(prf.scores[0].mean, Some(0.75));
    let json = serde_json::to_value(&rows[1]).unwrap();
    assert_eq!(json["execution"]["doc"]["decode"]["output"]["method"], "fence");
}

#[test]
fn csv_rows_with_json_cells_are_scored() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("d.csv"),
        "id,output,expected\nx,\"{\"\"a\"\": 1}\",\"{\"\"a\"\": 1}\"\ny,not json,\"{\"\"a\"\": 1}\"\n",
    )
    .unwrap();
    let text =
        "dataset = 'd.csv'\nid = 'id'\n[[evaluators]]\nmetric = 'json_distance'\nthreshold = 0\n";
    let suite = Suite::from_str(text, SuiteFormat::Toml, dir.path()).unwrap();
    let (rows, summary) = collect(&suite, &RunOptions::default());
    assert_eq!(rows[0].scores[0].score, Some(0.0));
    assert!(rows[0].passed["json_distance"]);
    assert_eq!(rows[1].execution["json_distance"].status, Status::Completed);
    assert_eq!(summary.evaluators[0].passed, Some(1));
}

#[test]
fn deeply_nested_rows_do_not_overflow() {
    let dir = tempfile::tempdir().unwrap();
    let depth = 20_000;
    let deep = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
    let line = format!("{{\"output\": {deep}, \"reference\": {deep}}}");
    write_jsonl(dir.path(), &[line]);
    let text = "dataset: data.jsonl\nevaluators: [{metric: json_structural}]\n";
    let suite = Suite::from_str(text, SuiteFormat::Yaml, dir.path()).unwrap();
    let (rows, summary) =
        collect(&suite, &RunOptions { threads: Some(1), ..RunOptions::default() });
    assert_eq!(rows.len(), 1);
    assert_eq!(summary.rows, 1);
}

#[test]
fn row_score_is_the_weighted_average_of_similarities() {
    let dir = tempfile::tempdir().unwrap();
    write_jsonl(
        dir.path(),
        &[
            json!({"id": "a", "output": {"x": 1, "y": 2}, "reference": {"x": 1, "y": 3}})
                .to_string(),
            json!({"id": "b", "output": {"x": 1, "y": 3}, "reference": {"x": 1, "y": 3}})
                .to_string(),
        ],
    );
    let yaml = "dataset: data.jsonl\nid: id\nevaluators:\n  - name: m\n    metric: json_match\n    weight: 3\n  - name: s\n    metric: json_structural\n  - name: d\n    metric: json_distance\n";
    let suite = Suite::from_str(yaml, SuiteFormat::Yaml, dir.path()).unwrap();
    let (rows, summary) = collect(&suite, &RunOptions::default());
    // Row a: json_match 0.5 (one of two fields), json_structural 0.5; the
    // distance (lower is better) stays out: (3·0.5 + 1·0.5) / 4 = 0.5.
    assert_eq!(rows[0].row_score, Some(0.5));
    assert_eq!(rows[1].row_score, Some(1.0));
    let rs = summary.row_score.unwrap();
    assert_eq!(rs.count, 2);
    assert!((rs.mean - 0.75).abs() < 1e-12);
    assert!(
        Suite::from_str(&yaml.replace("weight: 3", "weight: -1"), SuiteFormat::Yaml, dir.path())
            .is_err()
    );
}

/// Keeps batches in memory; fails on batch `fail_at` (a crash).
struct MemorySink {
    batches: Vec<PriorBatch>,
    lines: Vec<String>,
    fail_at: Option<usize>,
}

impl BatchSink for MemorySink {
    fn batch(&mut self, b: BatchRecord) -> Result<(), String> {
        if self.fail_at == Some(self.batches.len()) {
            return Err("disk full".into());
        }
        assert_eq!(b.first, self.batches.iter().map(|p| p.records.len() as u64).sum::<u64>());
        assert!(!b.records.is_empty(), "an empty batch is never recorded");
        self.batches.push(PriorBatch { records: b.records, fields: b.fields });
        self.lines.extend(b.lines);
        Ok(())
    }
}

#[test]
fn resumed_runs_equal_uninterrupted_ones() {
    let dir = tempfile::tempdir().unwrap();
    let n = BATCH_ROWS * 3 + 17;
    let lines: Vec<String> = (0..n)
        .map(|i| match i % 97 {
            0 => "{not json".to_owned(),
            5 => json!({"id": format!("r{i}"), "pred": {"a": i, "b": [1, 2]}, "gold": {"a": i, "b": [2, 1]}}).to_string(),
            _ => json!({"id": format!("r{i}"), "pred": {"a": i % 7, "b": "x"}, "gold": {"a": i % 5, "b": "x"}}).to_string(),
        })
        .collect();
    let data = write_jsonl(dir.path(), &lines);
    let text = "dataset: data.jsonl\nid: id\nmapping: {output: pred, reference: gold}\n\
                evaluators:\n  - {name: m, metric: json_match, threshold: 0.9}\n  - {name: d, metric: json_distance}\n";
    let suite = Suite::from_str(text, SuiteFormat::Yaml, dir.path()).unwrap();
    assert_eq!(suite.dataset, data);
    let opts = RunOptions { threads: Some(2), ..RunOptions::default() };
    let run_with = |sink: &mut MemorySink, resume: Option<Vec<PriorBatch>>| {
        let mut written = Vec::new();
        let mut on_row = |_: &RowResult, line: &str| {
            written.push(line.to_owned());
            Ok(())
        };
        let mut prior = resume.map(|b| b.into_iter().map(Ok));
        let recording = Recording {
            sink: Some(sink),
            resume: prior.as_mut().map(|p| Resume { batches: p as &mut dyn Iterator<Item = _> }),
        };
        let rows = dataset::open(&suite.dataset, None).unwrap();
        let r =
            run_recorded(&suite, rows, &opts, &mut on_row, &|_| {}, recording).map(|r| r.summary);
        (r, written)
    };
    let mut clean = MemorySink { batches: Vec::new(), lines: Vec::new(), fail_at: None };
    let (full, full_lines) = run_with(&mut clean, None);
    let full = full.unwrap();
    assert_eq!(full.rows, n as u64);
    assert_eq!(clean.lines, full_lines);
    // Crash while recording the third batch, then resume.
    let mut crashed = MemorySink { batches: Vec::new(), lines: Vec::new(), fail_at: Some(2) };
    let (r, _) = run_with(&mut crashed, None);
    assert!(matches!(r, Err(RunError::Record(_))));
    assert_eq!(crashed.batches.len(), 2);
    let prior = crashed.batches.clone();
    crashed.fail_at = None;
    let (resumed, new_lines) = run_with(&mut crashed, Some(prior));
    let mut resumed = resumed.unwrap();
    // Every row exactly once, same lines, same summary (but the time).
    assert_eq!(new_lines.len(), n - 2 * BATCH_ROWS);
    let strip = |l: &str| {
        let mut v: Value = serde_json::from_str(l).unwrap();
        if let Some(ex) = v.get_mut("execution").and_then(Value::as_object_mut) {
            for e in ex.values_mut() {
                e["duration_ms"] = json!(0);
            }
        }
        v
    };
    let a: Vec<Value> = crashed.lines.iter().map(|l| strip(l)).collect();
    let b: Vec<Value> = clean.lines.iter().map(|l| strip(l)).collect();
    assert_eq!(a, b);
    resumed.duration_s = full.duration_s;
    assert_eq!(resumed, full);
    // A dataset shorter than what was recorded is refused.
    write_jsonl(dir.path(), &lines[..10]);
    let (r, _) = run_with(&mut crashed, Some(clean.batches.clone()));
    assert!(matches!(r, Err(RunError::Resume(m)) if m.contains("fewer rows")));
}

/// Rows the fast reader takes and rows it leaves to `serde_json`: the two
/// readers must give the same lines and the same summary.
#[test]
fn the_fast_reader_and_the_value_reader_give_the_same_results() {
    let dir = tempfile::tempdir().unwrap();
    let deep = format!("{}1{}", "[".repeat(300), "]".repeat(300));
    let mut lines: Vec<String> = vec![
        json!({"id": "same", "output": {"a": 1, "b": [1, 2]}, "reference": {"a": 1, "b": [1, 2]}})
            .to_string(),
        json!({"id": 7, "output": {"a": 1.0, "b": [2, 1], "x": null},
               "reference": {"a": 1, "b": [1, 2], "c": "é"}})
        .to_string(),
        json!({"output": "{\"a\": 2}", "reference": {"a": 1}}).to_string(),
        json!({"id": null, "output": "Here you go: {\"a\": 1} thanks", "expected": {"a": 1}})
            .to_string(),
        json!({"id": "text", "output": "no json here", "reference": {"a": [1, {"b": true}]}})
            .to_string(),
        json!({"id": "null", "output": null, "reference": {"a": 1}}).to_string(),
        json!({"id": "blank", "output": "  ", "reference": {"a": 1}}).to_string(),
        json!({"id": "absent", "reference": {"a": 1}}).to_string(),
        json!({"id": ["weird", 1], "output": [1, "2", true, 1e300], "reference": [1, 2, 1, 1e300]})
            .to_string(),
        json!({"id": "calls", "output": [{"name": "f", "arguments": "{\"x\": 1}"}],
               "reference": [{"name": "f", "arguments": {"x": 2}}]})
        .to_string(),
        json!({"id": "scalars", "output": "12.50", "reference": 12.5}).to_string(),
        json!({"id": "weights", "output": {"a": 1, "b": 2}, "reference": {"a": 1, "b": 3},
               "weights": {"a": 2, "b": 1}})
        .to_string(),
        r#"{"id":"dup","output":{"a":1,"a":2,"b":{"c":0.0,"c":-0}},"reference":{"a":2,"b":{"c":-0.0}}}"#
            .to_string(),
        r#"{"id":"esc","output":{"s":"a\u00e9\ud83d\ude00\n"},"reference":{"s":"aé😀\n"}}"#.to_string(),
        r#"{"id":"big","output":{"n":123456789012345678901234567890,"m":-9223372036854775809},"reference":{"n":1.2345678901234568e29,"m":18446744073709551615}}"#
            .to_string(),
        format!(r#"{{"id":"deep","output":{deep},"reference":{deep}}}"#),
        r#"{"id":"lone","output":"\ud800","reference":"x"}"#.to_string(),
        "[1, 2]".to_string(),
        "{not json".to_string(),
        r#"{"id":"trailing","output":{"a":1},"reference":{"a":1}}   "#.to_string(),
    ];
    lines.push(String::from_utf8_lossy(b"{\"id\":\"bad\xff\"}").into_owned());
    write_jsonl(dir.path(), &lines);
    let metrics = [
        "json_distance",
        "json_distance_prebuilt",
        "json_diff",
        "json_similarity",
        "json_structural",
        "json_match",
        "json_match_calls",
        "exact_match",
    ];
    let evaluators: Vec<String> = metrics
        .iter()
        .map(|m| match *m {
            "json_distance_prebuilt" => {
                format!("  - {{name: {m}, metric: json_distance, options: {{variant: prebuilt}}}}")
            }
            "json_match_calls" => {
                format!("  - {{name: {m}, metric: json_match, options: {{preset: tool_calls}}}}")
            }
            _ => format!("  - {{name: {m}, metric: {m}}}"),
        })
        .collect();
    let text = format!("dataset: data.jsonl\nevaluators:\n{}\n", evaluators.join("\n"));
    let suite = Suite::from_str(&text, SuiteFormat::Yaml, dir.path()).unwrap();
    let run_lines = |value_reader: bool| {
        let opts = RunOptions { value_reader, keep_passed_details: true, ..RunOptions::default() };
        let mut out = Vec::new();
        let summary = run(
            &suite,
            &opts,
            &mut |_, line| {
                out.push(line.to_owned());
                Ok(())
            },
            &|_| {},
        )
        .unwrap();
        (out, serde_json::to_value(&summary.fields).unwrap(), summary.rows_unreadable)
    };
    let (fast, fast_fields, fast_bad) = run_lines(false);
    let (slow, slow_fields, slow_bad) = run_lines(true);
    assert_eq!(fast.len(), lines.len());
    for (i, (f, s)) in fast.iter().zip(&slow).enumerate() {
        let strip = |l: &str| {
            let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
            // Durations differ between any two runs.
            if let Some(ex) = v.get_mut("execution").and_then(|e| e.as_object_mut()) {
                for e in ex.values_mut() {
                    e.as_object_mut().unwrap().remove("duration_ms");
                }
            }
            v
        };
        assert_eq!(strip(f), strip(s), "line {}: {}", i + 1, lines[i]);
    }
    assert_eq!(fast_fields, slow_fields);
    assert_eq!((fast_bad, slow_bad), (3, 3));
}

/// A row whose objects repeat keys: each input's decode record says where,
/// identically whichever reader read the row (the fast reader; the value
/// reader and its fallbacks, such as lines nested deeper than 128 levels;
/// a suite mapped with JSONPath, always read as values).
#[test]
fn repeated_keys_are_recorded_whichever_reader_reads_the_row() {
    let dir = tempfile::tempdir().unwrap();
    let deep = format!("{}{{\"k\":1,\"k\":2}}{}", "[".repeat(200), "]".repeat(200));
    let lines: Vec<String> = vec![
        r#"{"id":"dup","output":{"a":1,"a":2,"b":{"c":0.0,"c":-0}},"reference":{"a":2,"b":{"c":-0.0}}}"#.into(),
        format!(r#"{{"id":"deep","output":{deep},"reference":{{"r":1,"r":1}}}}"#),
        r#"{"id":"text","output":"{\"t\":1,\"t\":2}","reference":{"t":2}}"#.into(),
        r#"{"id":"column","output":{"x":1},"output":{"y":1},"reference":{"y":1}}"#.into(),
        r#"{"id":"gone","output":{"a":{"k":1,"k":2},"a":1},"reference":{"a":1}}"#.into(),
        r#"{"id":"none","output":{"a":1},"reference":{"a":1}}"#.into(),
    ];
    write_jsonl(dir.path(), &lines);
    let one = |path: &str| json!({"count": 1, "paths": [{"path": path, "occurrences": 2}]});
    let value = |path: &str| json!({"method": "value", "duplicate_keys": one(path)});
    let expected: Vec<Value> = vec![
        json!({"output": {"method": "value", "duplicate_keys": {"count": 2, "paths": [
            {"path": "$.a", "occurrences": 2}, {"path": "$.b.c", "occurrences": 2}]}}}),
        json!({"output": value(&format!("${}.k", "[0]".repeat(200))), "reference": value("$.r")}),
        json!({"output": {"method": "whole", "duplicate_keys": one("$.t")}}),
        Value::Null,
        json!({"output": value("$.a")}),
        Value::Null,
    ];
    let suites = [
        "evaluators:\n  - {name: d, metric: json_distance}\n",
        "evaluators:\n  - {name: d, metric: json_distance, mapping: {output: $.output, reference: $.reference}}\n",
    ];
    for (s, text) in suites.iter().enumerate() {
        let text = format!("dataset: data.jsonl\nid: id\n{text}");
        let suite = Suite::from_str(&text, SuiteFormat::Yaml, dir.path()).unwrap();
        for value_reader in [false, true] {
            let opts = RunOptions { value_reader, ..RunOptions::default() };
            let mut out: Vec<RowResult> = Vec::new();
            run(
                &suite,
                &opts,
                &mut |r, _| {
                    out.push(r.clone());
                    Ok(())
                },
                &|_| {},
            )
            .unwrap();
            assert_eq!(out.len(), lines.len());
            for (r, want) in out.iter().zip(&expected) {
                let how = format!("suite {s}, value reader {value_reader}, row {}", r.id);
                let score = &r.scores[0];
                assert_eq!(score.metadata.get("decode").unwrap_or(&Value::Null), want, "{how}");
                let execution = Value::Object(r.execution["d"].decode.clone());
                let want = if want.is_null() { json!({}) } else { want.clone() };
                assert_eq!(execution, want, "{how}");
            }
            assert_eq!(out[0].scores[0].score, Some(0.0), "last wins: no score change");
        }
    }
}

/// Flaky, said to ask an LLM (without asking one).
struct AsksLlm;

impl Evaluator for AsksLlm {
    fn name(&self) -> &str {
        "asks"
    }
    fn inputs(&self) -> &[InputSpec] {
        FLAKY_INPUTS
    }
    fn kind(&self) -> crate::score::Kind {
        crate::score::Kind::Llm
    }
    fn compute(&self, input: &EvalInput) -> Result<Evaluation, EvalError> {
        Flaky.compute(input)
    }
}

#[test]
fn rows_that_ask_an_llm_are_written_sixteen_per_worker_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let lines: Vec<String> = (0..100).map(|i| json!({"id": i, "output": 1}).to_string()).collect();
    let mut suite = flaky_suite(write_jsonl(dir.path(), &lines), Gate::default());
    let progress = Mutex::new(Vec::new());
    let steps = |suite: &Suite| {
        progress.lock().unwrap().clear();
        let opts = RunOptions { threads: Some(2), ..RunOptions::default() };
        run(suite, &opts, &mut |_, _| Ok(()), &|p| progress.lock().unwrap().push(p.rows_done))
            .unwrap();
        progress.lock().unwrap().clone()
    };
    assert_eq!(steps(&suite), vec![100], "code metrics: one batch of up to {BATCH_ROWS}");
    suite.evaluators[0].evaluator = Box::new(AsksLlm);
    assert_eq!(steps(&suite), vec![32, 64, 96, 100]);
}

#[test]
fn rows_of_large_text_make_smaller_batches() {
    let dir = tempfile::tempdir().unwrap();
    let pad = "x".repeat(1 << 20);
    let lines: Vec<String> =
        (0..20).map(|i| json!({"id": i, "output": 1, "pad": pad}).to_string()).collect();
    let suite = flaky_suite(write_jsonl(dir.path(), &lines), Gate::default());
    let progress = Mutex::new(Vec::new());
    let opts = RunOptions { threads: Some(2), ..RunOptions::default() };
    let mut ids = Vec::new();
    let mut on_row = |r: &RowResult, _: &str| {
        ids.push(r.id.clone());
        Ok(())
    };
    let summary =
        run(&suite, &opts, &mut on_row, &|p| progress.lock().unwrap().push(p.rows_done)).unwrap();
    // Each row's line weighs a little over 1 MiB: sixteen fill a batch.
    assert_eq!(progress.into_inner().unwrap(), vec![16, 20]);
    assert_eq!(ids, (0..20).map(|i| i.to_string()).collect::<Vec<_>>());
    assert_eq!(summary.rows, 20);
}

#[test]
fn a_suite_that_asks_no_llm_gets_at_most_one_worker_per_core() {
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let dir = tempfile::tempdir().unwrap();
    let mut suite = flaky_suite(write_jsonl(dir.path(), &[String::from("{}")]), Gate::default());
    assert_eq!(worker_count(&suite, None), cores);
    assert_eq!(worker_count(&suite, Some(1)), 1);
    assert_eq!(worker_count(&suite, Some(cores + 1)), cores);
    assert_eq!(worker_count(&suite, Some(MAX_THREADS)), cores);
    let pool = start_workers(&suite, Some(cores + 7)).unwrap();
    assert_eq!(pool.current_num_threads(), cores);
    // Workers that wait on a judge are started as asked.
    suite.evaluators[0].evaluator = Box::new(AsksLlm);
    assert_eq!(worker_count(&suite, Some(cores + 7)), cores + 7);
    assert_eq!(start_workers(&suite, Some(cores + 7)).unwrap().current_num_threads(), cores + 7);
    assert_eq!(workers_for(None, 0), cores);
    assert_eq!(workers_for(None, cores + 3), cores + 3);
    assert_eq!(workers_for(Some(cores + 3), 0), cores);
    assert_eq!(workers_for(Some(cores + 3), 1), cores + 3);
    assert_eq!(workers_for(Some(1), 50), 1);
}

#[test]
fn worker_threads_are_bounded() {
    assert!(worker_pool(MAX_THREADS, "t").is_ok());
    let e = worker_pool(MAX_THREADS + 1, "t").unwrap_err();
    assert_eq!(e, "1025 asked for, at most 1024");
    let dir = tempfile::tempdir().unwrap();
    let suite = flaky_suite(write_jsonl(dir.path(), &[String::from("{}")]), Gate::default());
    let opts = RunOptions { threads: Some(usize::MAX), ..RunOptions::default() };
    let e = run(&suite, &opts, &mut |_, _| Ok(()), &|_| {}).unwrap_err();
    assert!(e.to_string().starts_with("starting worker threads: "), "{e}");
}

/// Flaky, that asks the run to stop when it reads `"stop"`.
struct StopsTheRun(Arc<AtomicBool>);

impl Evaluator for StopsTheRun {
    fn name(&self) -> &str {
        "stops"
    }
    fn inputs(&self) -> &[InputSpec] {
        FLAKY_INPUTS
    }
    fn compute(&self, input: &EvalInput) -> Result<Evaluation, EvalError> {
        if input.require("output")? == "stop" {
            self.0.store(true, Ordering::Relaxed);
            return Flaky.compute(&EvalInput::new().with("output", json!(1)));
        }
        Flaky.compute(input)
    }
}

#[test]
fn a_stop_during_a_batch_skips_the_rows_not_yet_begun() {
    let dir = tempfile::tempdir().unwrap();
    let lines: Vec<String> = (0..BATCH_ROWS)
        .map(|i| json!({"id": i, "output": if i == 300 { json!("stop") } else { json!(1) }}))
        .map(|v| v.to_string())
        .collect();
    let mut suite = flaky_suite(write_jsonl(dir.path(), &lines), Gate::default());
    let opts = RunOptions { threads: Some(1), ..RunOptions::default() };
    suite.evaluators[0].evaluator = Box::new(StopsTheRun(Arc::clone(&opts.cancel)));
    let (rows, summary) = collect(&suite, &opts);
    // One worker evaluates in order: the rows up to the one that asked to
    // stop are written, in order, and no other.
    assert_eq!(rows.len(), 301);
    assert!(rows.iter().enumerate().all(|(i, r)| r.id == i.to_string()));
    assert!(summary.cancelled);
    assert_eq!(summary.rows, 301);
}

/// A judge that fails on every request (nothing listens at its address)
/// behind `fallback: heuristic`: every row still gets a heuristic score,
/// but the run does not pass unless the gate allows the failed judgements.
#[test]
fn a_judge_that_failed_fails_the_gate_even_behind_a_fallback() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let data = write_jsonl(
        dir.path(),
        &[json!({"id": "1", "answer": "Paris is the capital.", "expected": "Paris is the capital."})
            .to_string()],
    );
    let suite_with = |gate: &str| {
        let text = format!(
            "dataset: {}\njudge: {{model: m, base_url: 'http://{closed}/v1', api_key_env: '', retries: 0, timeout: 5}}\n\
             evaluators:\n  - name: fact\n    metric: factuality\n    mapping: {{output: answer, reference: expected}}\n    options: {{depth: deep}}\n    threshold: 0.5\n{gate}",
            data.display()
        );
        Suite::from_str(&text, SuiteFormat::Yaml, dir.path()).unwrap()
    };
    let (rows, summary) = collect(&suite_with(""), &RunOptions::default());
    assert_eq!(rows.len(), 1);
    let score = &rows[0].scores[0];
    assert_eq!(score.metadata.get("method"), Some(&json!("heuristic")), "{score:?}");
    assert_eq!(summary.rows_with_failures, 0);
    assert_eq!(summary.judges.iter().map(|j| j.failures).sum::<u64>(), 1);
    let check = summary.gate.checks.iter().find(|c| c.name == "max_judge_failures").unwrap();
    assert_eq!((check.passed, check.actual), (false, Some(1.0)));
    assert!(!summary.gate.passed);
    // Allowed explicitly, the fallback's score passes.
    let (_, summary) =
        collect(&suite_with("gate: {max_judge_failures: 1}\n"), &RunOptions::default());
    assert!(summary.gate.passed, "{:?}", summary.gate);
}

#[test]
fn ids_repeated_in_a_run_are_counted_and_named() {
    let dir = tempfile::tempdir().unwrap();
    let lines: Vec<String> = [
        r#"{"id": "a", "output": 1}"#,
        r#"{"id": "b", "output": 1}"#,
        r#"{"id": "a", "output": 1}"#,
        r#"{"id": "b", oops}"#,
        r#"{"id": 4, "output": 1}"#,
        r#"{"output": 1}"#,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let path = write_jsonl(dir.path(), &lines);
    let (rows, summary) = collect(&flaky_suite(path, Gate::default()), &RunOptions::default());
    let ids: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["a", "b", "a", "4", "4", "6"]);
    // The unreadable row 4 is identified by its number, as is the row
    // whose id is the number 4: the two repeat one id.
    assert_eq!(summary.repeated_ids.rows, 2);
    assert_eq!(summary.repeated_ids.examples, ["a", "4"]);
    let json = serde_json::to_value(&summary).unwrap();
    assert_eq!(json["repeated_ids"], json!({"rows": 2, "examples": ["a", "4"]}));
}

#[test]
fn unique_ids_leave_no_trace_in_the_summary() {
    let dir = tempfile::tempdir().unwrap();
    let lines: Vec<String> = (0..50).map(|i| format!(r#"{{"id": "r{i}", "output": 1}}"#)).collect();
    let path = write_jsonl(dir.path(), &lines);
    let (_, summary) = collect(&flaky_suite(path, Gate::default()), &RunOptions::default());
    assert!(summary.repeated_ids.is_empty());
    assert!(serde_json::to_value(&summary).unwrap().get("repeated_ids").is_none());
}
