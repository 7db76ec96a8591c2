use serde_json::json;

use super::*;
use crate::evaluator::EvalInput;

const YAML: &str = r#"
name: invoices
dataset: data/rows.jsonl
id: doc_id
mapping: {output: prediction, reference: gold}
evaluators:
  - name: fields
    metric: json_similarity
    threshold: 0.9
  - name: dist
    metric: json_distance
    mapping:
      output: "$.prediction.body"
    threshold: 2
  - metric: json_diff
    options: {details: failed}
gate:
  min_mean: 0.8
  max_mean: {dist: 1.5}
  min_pass_rate: {fields: 0.75}
  max_failed_rows: 0
"#;

fn yaml(text: &str) -> Result<Suite, ConfigError> {
    Suite::from_str(text, SuiteFormat::Yaml, Path::new("/suites"))
}

fn err(text: &str) -> String {
    yaml(text).unwrap_err().to_string()
}

#[test]
fn loads_a_full_yaml_suite() {
    let s = yaml(YAML).unwrap();
    assert_eq!(s.name.as_deref(), Some("invoices"));
    assert_eq!(s.dataset, Path::new("/suites/data/rows.jsonl"));
    assert_eq!(s.format, None);
    assert_eq!(s.id_column.as_deref(), Some("doc_id"));
    let names: Vec<&str> = s.evaluators.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["fields", "dist", "json_diff"]);
    assert_eq!(s.evaluators[0].mapping.source("output"), Some("prediction"));
    assert_eq!(s.evaluators[1].mapping.source("output"), Some("$.prediction.body"));
    assert_eq!(s.evaluators[1].mapping.source("reference"), Some("gold"));
    assert_eq!(s.evaluators[1].threshold, Some(2.0));
    assert_eq!(s.evaluators[1].direction(), Direction::Minimize);
    // A number applies to every evaluator where higher is better.
    assert_eq!(s.gate.min_mean.keys().collect::<Vec<_>>(), ["fields", "json_diff"]);
    assert_eq!(s.gate.max_mean.get("dist"), Some(&1.5));
    assert_eq!(s.gate.min_pass_rate.get("fields"), Some(&0.75));
    assert_eq!(s.gate.max_failed_rows, Some(0));
    assert!(s.evaluator("dist").is_some());
}

#[test]
fn json_metrics_report_every_leaf_unless_told_otherwise() {
    let s = yaml(YAML).unwrap();
    let input = EvalInput::pair(json!({"a": 1, "b": 2}), json!({"a": 1, "b": 3}));
    let mut details = Vec::new();
    for ev in &s.evaluators {
        let e = ev.evaluator.evaluate(&input).unwrap();
        // Every leaf is tallied per field, whatever `details` says; only
        // failures become details.
        let fields = e.fields.to_tallies().0;
        let a = fields.iter().find(|f| f.path == "$.a").expect("a tally for $.a");
        assert_eq!((a.counts.total(), a.counts.matched), (1, 1), "{}", ev.name);
        assert!(fields.iter().any(|f| f.path == "$.b" && f.failed()), "{fields:?}");
        for d in &e.scores[0].details {
            details.push((ev.name.as_str(), d.check.to_string(), d.passed, d.outcome.as_str()));
        }
    }
    // One failed detail per evaluator, for `$.b`; none for the matched `$.a`.
    let b = || String::from("json_path.$.b");
    assert_eq!(
        details,
        [
            ("fields", b(), false, "partial"),
            ("dist", b(), false, "value_mismatch"),
            ("json_diff", b(), false, "partial"),
        ]
    );
}

#[test]
fn loads_toml_from_a_file_with_relative_paths() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("suites");
    std::fs::create_dir(&sub).unwrap();
    let path = sub.join("suite.toml");
    std::fs::write(
        &path,
        r#"
dataset = "../data.csv"
format = "csv"

[mapping]
reference = { source = "expected_json", parse = "json" }

[[evaluators]]
name = "structure"
metric = "json_structural"
threshold = 0.5

[[evaluators]]
name = "informational"
metric = "json_diff"
threshold = "none"

[gate]
min_pass_rate = { structure = 0.9 }
"#,
    )
    .unwrap();
    let s = Suite::load(&path).unwrap();
    assert_eq!(s.path, path);
    assert_eq!(s.dataset, sub.join("../data.csv"));
    assert_eq!(s.format, Some(DatasetFormat::Csv));
    assert_eq!(s.evaluators[0].mapping.source("reference"), Some("expected_json"));
    assert_eq!(s.gate.min_pass_rate.get("structure"), Some(&0.9));
    assert_eq!(s.evaluators[1].threshold, None);
}

#[test]
fn unknown_keys_are_errors_naming_the_key_and_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.yaml");
    std::fs::write(&path, "dataset: d.jsonl\nevaluators: [{metric: json_diff}]\ntreshold: 1\n")
        .unwrap();
    let e = Suite::load(&path).unwrap_err().to_string();
    assert!(e.contains("treshold") && e.contains("s.yaml"), "{e}");
    // The snippet points into the file; a repeated key says so plainly.
    assert!(e.contains(&format!("--> {}:3:1", path.display())) && !e.contains("<input>"), "{e}");
    std::fs::write(
        &path,
        "dataset: d.jsonl\ndataset: e.jsonl\nevaluators: [{metric: json_diff}]\n",
    )
    .unwrap();
    let e = Suite::load(&path).unwrap_err().to_string();
    assert!(e.contains("duplicate mapping key: dataset (a key may appear once)"), "{e}");
    assert!(!e.contains("DuplicateKeyPolicy"), "{e}");
    // The YAML reader's own words for a null, a negative count and an
    // alias bomb are said as a suite's author would say them.
    let e = err("dataset: ~\nevaluators: [{metric: json_diff}]\n");
    assert!(e.contains("expected a string, got null") && !e.contains("Option<"), "{e}");
    let e =
        err("dataset: d.jsonl\nevaluators: [{metric: json_diff}]\ngate: {max_failed_rows: -1}\n");
    assert!(e.contains("expected a whole number, 0 or more") && !e.contains("u64"), "{e}");
    // Options hold any YAML: aliases nested eight deep expand to 10^8 nodes.
    let mut lists = vec![String::from("&a0 [x, x, x, x, x, x, x, x, x, x]")];
    for i in 1..8 {
        lists.push(format!("&a{i} [{}]", vec![format!("*a{}", i - 1); 10].join(", ")));
    }
    let bomb = format!(
        "dataset: d.jsonl\nevaluators: [{{metric: exact_match, options: {{normalize: [{}]}}}}]\n",
        lists.join(", ")
    );
    let e = err(&bomb);
    assert!(e.contains("too large once its aliases are expanded") && !e.contains("Nodes {"), "{e}");
    let e = err("dataset: d.jsonl\nevaluators: [{metric: json_diff, thresold: 1}]\n");
    assert!(e.contains("thresold") && e.starts_with("<suite>: "), "{e}");
    let e = err("dataset: d.jsonl\nevaluators: [{metric: json_diff}]\ngate: {min_men: 1}\n");
    assert!(e.contains("min_men"), "{e}");
    let e = err("dataset: d.jsonl\nevaluators: [{metric: json_diff, options: {wieghts: 1}}]\n");
    assert!(e.contains("wieghts") && e.contains("`json_diff`"), "{e}");
    let path = dir.path().join("s.toml");
    std::fs::write(&path, "dataset = 'd.jsonl'\nextra = 1\n[[evaluators]]\nmetric = 'json_diff'\n")
        .unwrap();
    let e = Suite::load(&path).unwrap_err().to_string();
    assert!(e.contains("extra") && e.contains("s.toml"), "{e}");
}

#[test]
fn bad_metrics_names_thresholds_and_gates_are_errors() {
    let e = err("dataset: d.jsonl\nevaluators: [{metric: json_magic}]\n");
    assert!(e.contains("unknown metric `json_magic`"), "{e}");
    // A misspelling names the metric meant, once.
    let e = err("dataset: d.jsonl\nevaluators: [{metric: json_mach}]\n");
    assert_eq!(e.matches("did you mean `json_match`?").count(), 1, "{e}");
    assert!(!err("dataset: d.jsonl\nevaluators: [{metric: nope}]\n").contains("did you mean"));
    let e = err("dataset: d.jsonl\nevaluators: [{metric: json_diff}, {metric: json_diff}]\n");
    assert!(e.contains("duplicate evaluator name") && e.contains("`json_diff`"), "{e}");
    for evaluators in [
        "[{name: t, metric: precision_recall_fscore}, {name: t.precision, metric: json_diff}]",
        "[{name: t.precision, metric: json_diff}, {name: t, metric: precision_recall_fscore}]",
    ] {
        let e = err(&format!("dataset: d.jsonl\nevaluators: {evaluators}\n"));
        assert!(
            e.contains("evaluator names `t` and `t.precision` collide: the other scores of `t` are named `t.<score>`"),
            "{e}"
        );
    }
    // A shared beginning without the dot is no collision.
    let ok = "dataset: d.jsonl\nevaluators: [{name: t, metric: json_diff}, {name: tp, metric: json_diff}, {name: t_x.y, metric: json_diff}]\n";
    assert!(yaml(ok).is_ok());
    for (bad, shown) in [(".nan", "`.nan`"), (".inf", "`.inf`"), ("-.inf", "`-.inf`")] {
        let text =
            format!("dataset: d.jsonl\nevaluators: [{{metric: json_diff, threshold: {bad}}}]\n");
        let e = err(&text);
        assert!(e.contains(&format!("expected a finite number, got {shown}")), "{e}");
        assert!(!e.contains("policy"), "{e}");
    }
    let e =
        err("dataset: d.jsonl\nevaluators: [{metric: json_diff}]\ngate: {min_mean: {nope: 1}}\n");
    assert!(e.contains("unknown evaluator `nope`"), "{e}");
    // Without a threshold of its own, an evaluator takes its metric's
    // declared default, so a pass-rate gate applies to it.
    let s =
        yaml("dataset: d.jsonl\nevaluators: [{metric: json_diff}]\ngate: {min_pass_rate: 0.5}\n")
            .unwrap();
    assert_eq!(s.evaluators[0].threshold, crate::metrics::json_diff::SPEC.threshold);
    assert_eq!(s.gate.min_pass_rate.get("json_diff"), Some(&0.5));
    // `null` (YAML), `none` (TOML has no null): no threshold, so no pass
    // rate to gate on; a number, written as an integer too, is taken.
    for t in ["null", "~", "none", "'none'"] {
        let s = yaml(&format!(
            "dataset: d.jsonl\nevaluators: [{{metric: json_diff, threshold: {t}}}]\n"
        ))
        .unwrap();
        assert_eq!(s.evaluators[0].threshold, None, "{t}");
    }
    let s = yaml("dataset: d.jsonl\nevaluators: [{metric: json_diff, threshold: 1}]\n").unwrap();
    assert_eq!(s.evaluators[0].threshold, Some(1.0));
    let e = err(
        "dataset: d.jsonl\nevaluators: [{metric: json_diff, threshold: null}]\ngate: {min_pass_rate: 0.5}\n",
    );
    assert!(e.contains("has no threshold"), "{e}");
    let e = err("dataset: d.jsonl\nevaluators: [{metric: json_diff, threshold: high}]\n");
    assert!(e.contains("a number, or null"), "{e}");
    let e = err(
        "dataset: d.jsonl\nevaluators: [{metric: json_diff, threshold: 1}]\ngate: {min_pass_rate: 2}\n",
    );
    assert!(e.contains("not in [0, 1]"), "{e}");
    let e = err(
        "dataset: d.jsonl\nevaluators: [{metric: json_distance}]\ngate: {min_mean: {json_distance: 1}}\n",
    );
    assert!(e.contains("use max_mean"), "{e}");
    let e = err("dataset: d.jsonl\nformat: xml\nevaluators: [{metric: json_diff}]\n");
    assert!(e.contains("`xml`"), "{e}");
    let e = err("dataset: d.jsonl\nevaluators: []\n");
    assert!(e.contains("at least one"), "{e}");
}

#[test]
fn mapping_errors_name_the_input_and_path() {
    let e = err("dataset: d.jsonl\nevaluators: [{metric: json_diff, mapping: {output: '$.a['}}]\n");
    assert!(e.contains("`output`") && e.contains("`$.a[`") && e.starts_with("<suite>: "), "{e}");
    let e = err("dataset: d.jsonl\nevaluators: [{metric: json_diff, mapping: {ouput: a}}]\n");
    assert!(e.contains("`ouput`") && e.contains("inputs: output, reference"), "{e}");
    let e = err("dataset: d.jsonl\nmapping: {contxt: a}\nevaluators: [{metric: json_diff}]\n");
    assert!(e.contains("`contxt`"), "{e}");
    // An input only some evaluators read is fine in the suite mapping.
    let s = yaml("dataset: d.jsonl\nmapping: {weights: w}\nevaluators: [{metric: json_diff}, {metric: json_distance}]\n")
        .unwrap();
    assert_eq!(s.evaluators[0].mapping.source("weights"), Some("w"));
    assert_eq!(s.evaluators[1].mapping.source("weights"), None);
}

#[test]
fn unknown_suite_extension_and_missing_file() {
    let e = Suite::load(Path::new("suite.json")).unwrap_err().to_string();
    assert!(e.contains("suite.json") && e.contains(".yaml"), "{e}");
    let e = Suite::load(Path::new("/nonexistent/suite.yaml")).unwrap_err().to_string();
    assert!(e.starts_with("/nonexistent/suite.yaml: "), "{e}");
}

#[test]
fn the_hash_covers_the_files_the_options_name() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("rows.jsonl"), "{}\n").unwrap();
    std::fs::write(
        d.join("rules.yaml"),
        "rules:\n  - {path: $.t, compare: {type: numeric, abs_tol: 0.01}}\n",
    )
    .unwrap();
    std::fs::write(d.join("schema.json"), r#"{"type": "object"}"#).unwrap();
    let suite_file = d.join("suite.yaml");
    std::fs::write(
        &suite_file,
        "dataset: rows.jsonl\nevaluators:\n  - {name: m, metric: json_match, options: {rules: rules.yaml}}\n  - {name: f, metric: format, options: {json_schema: {file: schema.json}}}\n",
    )
    .unwrap();
    let hash = |s: &Suite| s.hash(1).unwrap();
    let suite = Suite::load(&suite_file).unwrap();
    assert_eq!(suite.config_files, [d.join("rules.yaml"), d.join("schema.json")]);
    let before = hash(&suite);
    assert_ne!(before, crate::history::hash_input(&suite_file, 1).unwrap());
    // The same files, the same hash (loaded from another folder too);
    // a rules file edited, another.
    assert_eq!(hash(&Suite::load(&suite_file).unwrap()), before);
    let cwd = std::env::current_dir().unwrap();
    if let Some(relative) = pathdiff(&suite_file, &cwd) {
        assert_eq!(hash(&Suite::load(&relative).unwrap()), before);
    }
    std::fs::write(
        d.join("rules.yaml"),
        "rules:\n  - {path: $.t, compare: {type: numeric, abs_tol: 0}}\n",
    )
    .unwrap();
    let edited = hash(&Suite::load(&suite_file).unwrap());
    assert_ne!(edited, before);
    std::fs::write(d.join("schema.json"), r#"{"type": "array"}"#).unwrap();
    assert_ne!(hash(&Suite::load(&suite_file).unwrap()), edited);
    // A suite that names no file: the suite file's own hash, as runs
    // recorded before files were covered.
    std::fs::write(&suite_file, "dataset: rows.jsonl\nevaluators:\n  - {metric: json_match}\n")
        .unwrap();
    let plain = Suite::load(&suite_file).unwrap();
    assert!(plain.config_files.is_empty());
    assert_eq!(hash(&plain), crate::history::hash_input(&suite_file, 1).unwrap());
}

/// `path` relative to `base`, by `..` steps, when both are absolute.
fn pathdiff(path: &Path, base: &Path) -> Option<PathBuf> {
    let (p, b): (Vec<_>, Vec<_>) = (path.components().collect(), base.components().collect());
    let common = p.iter().zip(&b).take_while(|(x, y)| x == y).count();
    if common == 0 {
        return None;
    }
    let mut out = PathBuf::new();
    for _ in common..b.len() {
        out.push("..");
    }
    for c in &p[common..] {
        out.push(c);
    }
    Some(out)
}
