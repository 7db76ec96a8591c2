//! Tests of the whole `format` metric.

use serde_json::{Value, json};

use crate::error::{ConfigError, EvalError};
use crate::evaluator::{EvalInput, Evaluator};
use crate::metrics::{BuildContext, build};
use crate::score::Score;

fn metric(options: Value) -> Result<Box<dyn Evaluator>, ConfigError> {
    let map = options.as_object().cloned().unwrap_or_default();
    build("format", &map, &BuildContext::default())
}

fn run(options: Value, input: EvalInput) -> Score {
    metric(options).unwrap().evaluate(&input).unwrap().scores.remove(0)
}

#[test]
fn score_is_passed_over_enabled() {
    let s = run(
        json!({"json_validity": true, "required_fields": ["total"], "forbidden_content": ["sorry"],
               "regex_match": "INV-\\d+"}),
        EvalInput::new().with("output", json!("Sorry! {\"total\": 3}")),
    );
    assert_eq!(s.score, Some(0.5));
    assert_eq!(s.label.as_deref(), Some("fail"));
    let expl = s.explanation.clone().unwrap();
    assert!(expl.starts_with("Format: 2/4 sub-checks passed\n"), "{expl}");
    assert!(expl.contains("✗ format.forbidden_content"), "{expl}");
    assert_eq!(s.metadata["checks"]["json_validity"], json!(true));
    assert_eq!(s.metadata["checks"]["regex_match"], json!(false));
    assert_eq!(s.metadata["extraction"]["method"], json!("prose"));
    assert_eq!(s.details.len(), 4);
    assert_eq!(s.name, "format");
}

#[test]
fn all_pass_gives_one() {
    let s = run(
        json!({"length": {"unit": "words", "tolerance": 0.5}, "json_schema": true, "json_validity": true}),
        EvalInput::pair(
            json!("```json\n{\"a\": 1, \"b\": \"x\"}\n```"),
            json!("```json\n{\"a\": 2, \"b\": \"y\"}\n```"),
        ),
    );
    assert_eq!((s.score, s.label.as_deref()), (Some(1.0), Some("pass")), "{:?}", s.explanation);
}

#[test]
fn non_string_output_is_its_json() {
    let s = run(
        json!({"json_validity": true, "json_schema": {"schema": {"type": "object", "required": ["id"]}},
               "length": {"max": 9}}),
        EvalInput::new().with("output", json!({"id": 12})),
    );
    assert_eq!(s.score, Some(1.0), "{:?}", s.details);
    assert_eq!(s.metadata["extraction"]["method"], json!("whole"));
}

#[test]
fn schema_violations_one_detail_each() {
    let schema = json!({"type": "object", "properties": {"line_items": {"type": "array", "items": {
        "type": "object", "required": ["price"], "properties": {"price": {"type": "number"}}}}}});
    let s = run(
        json!({"json_schema": {"schema": schema}}),
        EvalInput::new()
            .with("output", json!(r#"{"line_items": [{"price": "9"}, {}, {"price": 1}]}"#)),
    );
    assert_eq!(s.score, Some(0.0));
    let msgs: Vec<&str> = s.details.iter().filter_map(|d| d.message.as_deref()).collect();
    assert_eq!(msgs.len(), 2, "{msgs:?}");
    assert!(
        msgs[0].starts_with("/line_items/0/price:") || msgs[1].starts_with("/line_items/0/price:")
    );
    assert!(msgs.iter().any(|m| m.starts_with("/line_items/1:")), "{msgs:?}");
}

#[test]
fn missing_reference_for_length_is_an_error() {
    let m = metric(json!({"length": true})).unwrap();
    let e = m.evaluate(&EvalInput::new().with("output", json!("x"))).unwrap_err();
    assert_eq!(e, EvalError::MissingInput { input: "reference".into() });
    let e = m.evaluate(&EvalInput::new()).unwrap_err();
    assert_eq!(e, EvalError::MissingInput { input: "output".into() });
}

#[test]
fn configuration_errors() {
    let e = |o: Value| metric(o).err().map(|e| e.to_string()).unwrap_or_default();
    assert!(e(json!({})).contains("no sub-check enabled"));
    assert!(e(json!({"json_validity": false})).contains("no sub-check enabled"));
    assert!(e(json!({"lenght": true})).contains("unknown option `lenght`"));
    assert!(e(json!({"json_validity": true, "pick": "middle"})).contains("pick"));
    assert!(e(json!({"markdown_structure": {"rulez": []}})).contains("rulez"));
    assert!(
        e(json!({"json_schema": {"file": "/nonexistent/s.json"}})).contains("/nonexistent/s.json")
    );
    // A path alone is a file, as `{file}` (the option's type says "file or
    // value"); a number is neither.
    assert!(e(json!({"json_schema": "/nonexistent/s.json"})).contains("/nonexistent/s.json"));
    assert!(e(json!({"json_schema": 3})).contains("expected true, a file path or an object"));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.json");
    std::fs::write(&path, r#"{"type": "object", "required": ["id"]}"#).unwrap();
    let options = json!({"json_schema": path.to_str().unwrap()});
    let s = run(options, EvalInput::new().with("output", json!({"name": "x"})));
    assert_eq!(s.score, Some(0.0), "{:?}", s.details);
    assert!(e(json!({"regex_match": "x".repeat(501)})).contains("501 characters"));
    assert!(crate::metrics::registry::names().any(|n| n == "format"));
}

#[test]
fn extraction_options_apply() {
    let out = json!("```json\n{\"a\": 1}\n```\n```json\n{\"b\": 2}\n```");
    let s = run(
        json!({"json_validity": true, "pick": "only"}),
        EvalInput::new().with("output", out.clone()),
    );
    assert_eq!(s.score, Some(0.0));
    assert!(s.details[0].message.as_deref().unwrap_or("").contains("2 JSON documents"));
    let s =
        run(json!({"json_validity": true, "strict": true}), EvalInput::new().with("output", out));
    assert_eq!(s.score, Some(0.0));
    let s = run(
        json!({"json_validity": true, "repair": true}),
        EvalInput::new().with("output", json!("{\"a\": [1, 2")),
    );
    assert_eq!(s.score, Some(1.0));
    assert_eq!(s.metadata["extraction"]["repaired"], json!(true));
}

#[test]
fn markdown_and_explanation_cap() {
    let text = (0..15).map(|i| format!("# H{i}\n")).collect::<String>();
    let s = run(
        json!({"markdown_structure": {"rules": ["headings"]}}),
        EvalInput::new().with("output", json!(text)),
    );
    assert_eq!(s.details.len(), 14);
    let expl = s.explanation.unwrap();
    assert!(expl.ends_with("  + 4 more"), "{expl}");
    assert!(s.details.iter().all(|d| d.check == "format.markdown_structure.headings"));
}

/// Violations past the details a score keeps are counted, not kept: one
/// `+ N more` entry closes the details, and the explanation counts them.
#[test]
fn details_past_the_limit_are_counted_not_kept() {
    use crate::limits::MAX_KEPT_DETAILS;
    use crate::metric_result::is_more_entry;
    let n = MAX_KEPT_DETAILS + 30;
    let items: Vec<Value> = (0..n).map(|i| json!({"i": i})).collect();
    let s = run(
        json!({"json_schema": {"schema": {"type": "array", "items": {"type": "string"}}},
               "markdown_structure": {"rules": ["tables"]}}),
        EvalInput::new().with("output", json!(items)),
    );
    assert_eq!(s.details.len(), MAX_KEPT_DETAILS + 2, "a pass for the tables and one entry");
    let last = s.details.last().unwrap();
    assert!(is_more_entry(last), "{last:?}");
    assert_eq!(last.check.to_string(), "+ 30 more");
    assert!(s.explanation.unwrap().ends_with(&format!("  + {} more", n - 10)));
    assert_eq!(s.details.iter().filter(|d| is_more_entry(d)).count(), 1);
    // Two rules past the limit: one entry for both, last.
    let text =
        format!("| a | b |\n|---|---|\n{}\n{}", "| 1 | 2 | 3 |\n".repeat(n), "# H\n".repeat(n + 1));
    let s = run(
        json!({"markdown_structure": {"rules": ["tables", "headings"]}}),
        EvalInput::new().with("output", json!(text)),
    );
    assert_eq!(s.details.len(), 2 * MAX_KEPT_DETAILS + 1);
    assert_eq!(s.details.last().unwrap().check.to_string(), "+ 60 more");
    assert_eq!(s.details.iter().filter(|d| is_more_entry(d)).count(), 1);
    assert!(s.explanation.unwrap().ends_with(&format!("  + {} more", 2 * n - 10)));
}

/// A violation's message does not repeat a large value whole: it shows
/// it cut, as `actual` does; a short value's message is the validator's.
#[test]
fn schema_messages_show_large_values_cut() {
    let big: serde_json::Map<String, Value> =
        (0..5_000).map(|i| (format!("key{i:05}"), json!("v".repeat(50)))).collect();
    let s = run(
        json!({"json_schema": {"schema": {"type": "array"}}}),
        EvalInput::new().with("output", Value::Object(big)),
    );
    let d = &s.details[0];
    let message = d.message.as_deref().unwrap();
    assert!(message.len() < 300, "{} bytes", message.len());
    assert!(message.starts_with("/: {\"key00000\":\"vvv"), "{message}");
    assert!(message.ends_with("… is not of type \"array\""), "{message}");
    let actual = d.actual.as_deref().unwrap();
    assert_eq!(actual.chars().count(), crate::detail::DETAIL_TEXT_LIMIT + 1);
    let s = run(
        json!({"json_schema": {"schema": {"type": "object", "required": ["x"]}}}),
        EvalInput::new().with("output", json!({"a": 1, "b": 2})),
    );
    assert_eq!(s.details[0].message.as_deref(), Some("/: \"x\" is a required property"));
    assert_eq!(s.details[0].actual.as_deref(), Some(r#"{"a":1,"b":2}"#));
}

proptest::proptest! {
    #[test]
    fn any_text_scores_without_panic(text in "[#\\-*+|`~ 1.)\\n\\t=:a{}\\[\\]\"é\\\\]{0,80}") {
        let m = metric(json!({
            "markdown_structure": true, "json_validity": true, "repair": true,
            "required_fields": {"terms": ["a"], "whole_word": true}, "regex_match": "^#",
            "length": {"max": 40},
        }))
        .unwrap();
        let input = EvalInput::new().with("output", json!(text));
        if text.trim().is_empty() {
            proptest::prop_assert!(m.evaluate(&input).is_err());
            return Ok(());
        }
        let s = m.evaluate(&input).unwrap().scores.remove(0);
        let score = s.score.unwrap_or(-1.0);
        proptest::prop_assert!((0.0..=1.0).contains(&score));
        proptest::prop_assert_eq!(s.label.as_deref() == Some("pass"), score == 1.0);
    }
}
