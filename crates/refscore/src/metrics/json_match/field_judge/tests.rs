//! Field judges without a server: rule options, the unresolved-pair rule,
//! the bookkeeping of a decision, and failing closed on a judge that
//! cannot be reached.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use serde_json::{Map, json};

use super::*;
use crate::engine::Keep;
use crate::evaluator::{EvalInput, Evaluator};
use crate::judge::{CacheMode, JudgeConfig, Judges};
use crate::metrics::json_match::JsonMatch;
use crate::metrics::json_match::field_rule::{
    EMBEDDING_FLOOR, EMBEDDING_THRESHOLD, EmbeddingRule, JudgeRule,
};
use crate::metrics::json_match::rules::compile;

fn context() -> BuildContext {
    crate::metrics::classify::tests::context()
}

fn json_match(rules: Value) -> Result<JsonMatch, ConfigError> {
    let mut o = Map::new();
    o.insert("rules".into(), rules);
    JsonMatch::from_options(&o, &context())
}

#[test]
fn embedding_specs_and_their_errors() {
    let r = EmbeddingRule::from_spec(&json!("embedding"), "rule 1").unwrap().unwrap();
    assert_eq!(
        (r.judge.as_str(), r.threshold, r.floor),
        (DEFAULT_JUDGE, EMBEDDING_THRESHOLD, EMBEDDING_FLOOR)
    );
    let r = EmbeddingRule::from_spec(
        &json!({"type": "embedding", "threshold": 0.9, "floor": 0.2, "judge": "emb"}),
        "rule 1",
    )
    .unwrap()
    .unwrap();
    assert_eq!((r.judge.as_str(), r.threshold, r.floor), ("emb", 0.9, 0.2));
    assert_eq!(EmbeddingRule::from_spec(&json!("string"), "r").unwrap(), None);
    assert_eq!(EmbeddingRule::from_spec(&json!({"type": "numeric"}), "r").unwrap(), None);
    for (bad, says) in [
        (
            json!({"type": "embedding", "threshold": 1.5}),
            "\"threshold\" must be a number from 0 to 1",
        ),
        (json!({"type": "embedding", "floor": "low"}), "\"floor\" must be a number from 0 to 1"),
        (json!({"type": "embedding", "judge": ""}), "\"judge\" must be a judge's name"),
        (json!({"type": "embedding", "cutoff": 1}), "unknown field \"cutoff\""),
        (json!({"type": "embedding", "threshold": 0.4, "floor": 0.6}), "must not exceed"),
    ] {
        let e = EmbeddingRule::from_spec(&bad, "r").unwrap_err();
        assert!(e.contains(says), "{bad}: {e}");
    }
}

#[test]
fn judge_specs_and_their_errors() {
    assert_eq!(JudgeRule::from_spec(None, None, None, "r").unwrap(), None);
    let r = JudgeRule::from_spec(None, Some("same city?"), None, "r").unwrap().unwrap();
    assert_eq!((r.judge.as_str(), r.floor), (DEFAULT_JUDGE, JUDGE_FLOOR));
    assert_eq!(r.criterion.as_deref(), Some("same city?"));
    let r = JudgeRule::from_spec(Some("strict"), None, Some(0.0), "r").unwrap().unwrap();
    assert_eq!((r.judge.as_str(), r.criterion, r.floor), ("strict", None, 0.0));
    assert!(JudgeRule::from_spec(None, None, Some(0.5), "r").unwrap_err().contains("needs"));
    assert!(JudgeRule::from_spec(Some(" "), None, None, "r").is_err());
    assert!(JudgeRule::from_spec(Some("j"), Some(""), None, "r").is_err());
    assert!(JudgeRule::from_spec(Some("j"), None, Some(1.5), "r").is_err());
}

#[test]
fn rules_compile_field_judges_and_later_rules_override() {
    let c = compile(&json!({"rules": [
        {"path": "$..name", "compare": {"type": "embedding", "threshold": 0.9}},
        {"path": "$.address", "judge": "default", "criterion": "same street address?"},
        {"path": "$.b.name", "compare": "exact"},
        {"path": "$.c.name", "judge": "default"}
    ]}))
    .unwrap();
    assert!(c.has_field_judges());
    let at = |segs: &[Seg<'_>]| c.field_at(segs);
    assert_eq!(
        at(&[Seg::Key("a"), Seg::Key("name")]),
        FieldRule { embedding: Some(0), judge: None }
    );
    // A later comparator ends the embedding.
    assert_eq!(at(&[Seg::Key("b"), Seg::Key("name")]), FieldRule::default());
    assert_eq!(
        at(&[Seg::Key("c"), Seg::Key("name")]),
        FieldRule { embedding: Some(0), judge: Some(1) }
    );
    assert_eq!(at(&[Seg::Key("address")]), FieldRule { embedding: None, judge: Some(0) });
    // The walk compares an embedding field as `string`.
    let node = c.at(&[Seg::Key("a"), Seg::Key("name")]);
    let cmp = &c.comparators[usize::from(node.comparator.unwrap())];
    assert_eq!(cmp, &Comparator::String { threshold: None });
    // Defaults may set them too.
    let d = compile(&json!({"defaults": {"judge": "default", "judge_floor": 0.5}})).unwrap();
    assert_eq!(d.field_at(&[Seg::Key("x")]), FieldRule { embedding: None, judge: Some(0) });
    assert_eq!(d.judges[0].floor, 0.5);
    let plain = compile(&json!({"rules": [{"path": "$.a", "compare": "string"}]})).unwrap();
    assert!(!plain.has_field_judges());
    for (bad, says) in [
        (json!({"rules": [{"path": "$.a", "judge_floor": 0.2}]}), "needs `judge`"),
        (
            json!({"rules": [{"path": "$.a", "compare": {"type": "embedding", "floor": 2}}]}),
            "rule 1 (`$.a`)",
        ),
    ] {
        let e = compile(&bad).unwrap_err().to_string();
        assert!(e.contains(says), "{e}");
    }
}

#[test]
fn unknown_judges_are_configuration_errors_naming_the_rule() {
    assert!(json_match(json!({"rules": [{"path": "$.a", "judge": "default"}]})).is_ok());
    let e = json_match(json!({"rules": [{"path": "$.a", "judge": "strict"}]})).unwrap_err();
    let e = e.to_string();
    assert!(e.contains("rule 1 (`$.a`)") && e.contains("judge `strict` is not defined"), "{e}");
    let e = json_match(json!({"rules": [
        {"path": "$.a", "compare": {"type": "embedding", "judge": "emb"}}
    ]}))
    .unwrap_err()
    .to_string();
    assert!(e.contains("judge `emb` is not defined"), "{e}");
    let m = json_match(json!({"rules": [{"path": "$.a", "judge": "default"}]})).unwrap();
    assert_eq!(m.kind(), crate::score::Kind::Llm);
    assert_eq!(JsonMatch::default().kind(), crate::score::Kind::Code);
}

#[test]
fn text_similarity_sees_reordered_words() {
    assert_eq!(text_similarity("Office chair, ergonomic", "Ergonomic office chair"), 1.0);
    assert!((text_similarity("kitten", "sitting") - 4.0 / 7.0).abs() < 1e-12);
    assert_eq!(text_similarity("Paris", "London"), 0.0);
    assert!(text_similarity("Acme Corp", "Globex Inc") < JUDGE_FLOOR);
    assert_eq!(text_similarity("", "x"), 0.0);
    assert_eq!(text_similarity("...", "!!!"), 0.0);
}

#[test]
fn the_unresolved_pair_rule() {
    let nulls = NullPolicy::default();
    let f = JUDGE_FLOOR;
    let run = |cmp: &Comparator, e: Value, a: Value| unresolved(cmp, &e, &a, &[], &nulls, f);
    let d = Comparator::Default;
    // Equal after the normalizers: resolved (a match), never sent.
    assert_eq!(run(&d, json!("Main St"), json!("Main St")), None);
    let casefold = [Normalizer::Casefold];
    assert_eq!(unresolved(&d, &json!("A"), &json!("a"), &casefold, &nulls, f), None);
    // Similar strings, under the text comparators: unresolved.
    for cmp in [d.clone(), Comparator::Exact, Comparator::String { threshold: None }] {
        let s = run(&cmp, json!("123 Main St."), json!("123 Main Street")).unwrap();
        assert!((s - 11.0 / 15.0).abs() < 1e-9, "{cmp:?} {s}");
    }
    assert_eq!(
        run(&d, json!("Office chair, ergonomic"), json!("Ergonomic office chair")),
        Some(1.0)
    );
    // Clearly different (below the floor): resolved as wrong.
    assert_eq!(run(&d, json!("Paris"), json!("London")), None);
    assert_eq!(unresolved(&d, &json!("Paris"), &json!("London"), &[], &nulls, 0.0), Some(0.0));
    // A string threshold that matched: resolved.
    let loose = Comparator::String { threshold: Some(0.7) };
    assert_eq!(run(&loose, json!("123 Main St."), json!("123 Main Street")), None);
    // Not strings: numbers, booleans, a string against a number, null.
    assert_eq!(run(&d, json!(12), json!(13)), None);
    assert_eq!(run(&d, json!(true), json!(false)), None);
    assert_eq!(run(&d, json!("12"), json!(12)), None);
    assert_eq!(run(&d, json!("x"), json!(null)), None);
    let empty = NullPolicy { absent_is_null: false, empty_string_is_null: true };
    assert_eq!(unresolved(&d, &json!("x"), &json!(""), &[], &empty, 0.0), None);
    // Typed comparators decide what they can read ...
    let date = Comparator::from_spec(&json!("date")).unwrap();
    assert_eq!(run(&date, json!("2024-03-05"), json!("2024-03-06")), None);
    let money = Comparator::from_spec(&json!("number_string")).unwrap();
    assert_eq!(run(&money, json!("$1,234.50"), json!("$1,234.00")), None);
    let labels = Comparator::from_spec(&json!("enum")).unwrap();
    assert_eq!(run(&labels, json!("shipped"), json!("shipping")), None);
    // ... and leave to the judge what they compared as text.
    assert!(run(&date, json!("early March"), json!("early in March")).is_some());
    assert!(run(&money, json!("twelve dollars"), json!("twelve dollar")).is_some());
    let numeric = Comparator::from_spec(&json!("numeric")).unwrap();
    assert!(run(&numeric, json!("about ten"), json!("about 10")).is_some());
    assert_eq!(run(&numeric, json!(10), json!(11)), None);
}

#[test]
fn prompts_show_the_field_the_question_and_both_values() {
    let p = prompt("$.items[*].description", Some("same product?"), "Blue mug", "Mug, blue");
    assert!(p.contains("Field: $.items[*].description"), "{p}");
    assert!(p.contains("Question: same product?"), "{p}");
    assert!(p.contains("Reference value:\n\"\"\"\nBlue mug\n\"\"\""), "{p}");
    assert!(p.contains("Extracted value:\n\"\"\"\nMug, blue\n\"\"\""), "{p}");
    assert!(p.contains("`same`") && p.contains("`different`"), "{p}");
    assert!(prompt("$.a", None, "x", "y").contains(DEFAULT_CRITERION));
    let long = "é".repeat(PROMPT_VALUE_CHARS + 10);
    let p = prompt("$.a", None, &long, "y");
    assert!(p.contains(&format!("{}…", "é".repeat(PROMPT_VALUE_CHARS))));
    assert!(!p.contains(&long));
}

/// A decision applied after the walk leaves the comparison as a walk that
/// had scored the leaf so would have: tally (with rule weights), counts,
/// field tallies and records.
#[test]
fn a_decision_rescores_the_leaf_everywhere() {
    let rules = json!({"rules": [
        {"path": "$.items", "array": "ordered"},
        {"path": "$.items[*]", "weight": 2},
        {"path": "$.items[*].name", "weight": 3, "judge": "default"}
    ]});
    let m = json_match(rules.clone()).unwrap();
    let reference = json!({"id": 1, "items": [{"name": "Blue mug", "qty": 1}]});
    let output = json!({"id": 1, "items": [{"name": "Mug, blue", "qty": 1}]});
    let mut c = engine_compare(&m, &reference, &output);
    let r = c.records.iter().position(|r| r.path.wildcard() == "$.items[*].name").unwrap();
    assert_eq!(c.records[r].outcome, Outcome::ValueMismatch);
    let d = Decision { record: r, leaf: Leaf::MATCH, message: String::from("same") };
    let path = apply(&mut c, &m.rules, &d).unwrap();
    assert_eq!(path.wildcard(), "$.items[*].name");
    // The same comparison when the output has the reference's name.
    let same = json!({"id": 1, "items": [{"name": "Blue mug", "qty": 1}]});
    let want = engine_compare(&m, &reference, &same);
    assert!((c.tally.matched - want.tally.matched).abs() < 1e-12, "{:?} {:?}", c.tally, want.tally);
    assert_eq!(c.tally.total, want.tally.total);
    assert_eq!(c.counts, want.counts);
    assert_eq!(c.fields, want.fields);
    assert_eq!(c.records[r].outcome, Outcome::Match);
    // And back: a match judged different is wrong.
    let d = Decision { record: r, leaf: Leaf::WRONG, message: String::from("different") };
    apply(&mut c, &m.rules, &d).unwrap();
    let wrong = json!({"id": 1, "items": [{"name": "zzzzzzzz", "qty": 1}]});
    let want = engine_compare(&m, &reference, &wrong);
    assert!((c.tally.matched - want.tally.matched).abs() < 1e-12);
    assert_eq!(c.counts, want.counts);
    assert_eq!(c.fields, want.fields);
}

fn engine_compare(m: &JsonMatch, reference: &Value, output: &Value) -> Comparison {
    crate::engine::compare(m, reference, output, None, Keep::All, true)
}

/// A suite context whose judge `default` listens nowhere (connection
/// refused at once, no retry).
fn unreachable() -> BuildContext {
    let mut config = JudgeConfig::new("judge-model");
    config.base_url = Some(String::from("http://127.0.0.1:1/v1"));
    config.retries = Some(0);
    config.timeout = Some(2.0);
    let judge = Judge::with_key(
        "default",
        config,
        None,
        None,
        CacheMode::Off,
        Arc::new(AtomicBool::new(false)),
    );
    BuildContext {
        judges: Arc::new(Judges::from_judges(vec![judge], Arc::new(AtomicBool::new(false)))),
        ..BuildContext::default()
    }
}

#[test]
fn a_failed_request_fails_closed_for_its_field_only() {
    let mut o = Map::new();
    o.insert(
        "rules".into(),
        json!({"rules": [
            {"path": "$.address", "judge": "default", "criterion": "same street address?"},
            {"path": "$.city", "compare": {"type": "embedding"}}
        ]}),
    );
    let m = JsonMatch::from_options(&o, &unreachable()).unwrap();
    let reference = json!({"address": "123 Main St.", "city": "Springfield", "zip": "12345"});
    // Equal fields send nothing: a perfect output scores 1 with no request.
    let ev = m.compute(&EvalInput::pair(reference.clone(), reference.clone())).unwrap();
    let s = &ev.scores[0];
    assert_eq!(s.score, Some(1.0));
    assert_eq!(
        (s.metadata["judge_requests"].as_u64(), s.metadata["embedding_requests"].as_u64()),
        (Some(0), Some(0))
    );
    // Unresolved fields: the requests fail, the fields count wrong with
    // the error in their details, and the other fields keep their credit.
    let output = json!({"address": "123 Main Street", "city": "Springfield, IL", "zip": "12345"});
    let ev = m.compute(&EvalInput::pair(output, reference)).unwrap();
    let s = &ev.scores[0];
    assert!((s.score.unwrap() - 1.0 / 3.0).abs() < 1e-12, "{s:?}");
    assert_eq!(s.metadata["fields"]["wrong"], 2);
    assert_eq!(s.metadata["judge_requests"], 1);
    assert_eq!(s.metadata["judge_failures"], 1);
    assert_eq!(s.metadata["embedding_failures"], 1);
    assert_eq!(s.kind, crate::score::Kind::Llm);
    let detail = |p: &str| {
        s.details.iter().find(|d| d.check.to_string() == format!("json_path.{p}")).unwrap()
    };
    let a = detail("$.address");
    assert_eq!(a.outcome, Outcome::ValueMismatch);
    let msg = a.message.as_deref().unwrap();
    assert!(msg.starts_with("judge `default` failed, counted wrong:"), "{msg}");
    let msg = detail("$.city").message.as_deref().unwrap();
    assert!(msg.starts_with("embeddings failed, counted wrong:"), "{msg}");
    assert!(s.explanation.as_deref().unwrap().contains("judge `default` failed"), "{s:?}");
}

/// One document asks at most `MAX_FIELD_JUDGEMENTS` distinct questions and
/// embeds at most `MAX_EMBEDDED_FIELDS` fields; the fields past that keep
/// the comparator's verdict, with a detail that says why.
#[test]
fn field_judgements_per_document_are_bounded() {
    let mut o = Map::new();
    o.insert(
        "rules".into(),
        json!({"rules": [
            {"path": "$.items", "array": "ordered"},
            {"path": "$.items[*].name", "judge": "default"},
            {"path": "$.tags", "array": "ordered"},
            {"path": "$.tags[*]", "compare": {"type": "embedding"}}
        ]}),
    );
    let m = JsonMatch::from_options(&o, &unreachable()).unwrap();
    let over = 30;
    let n = crate::limits::MAX_FIELD_JUDGEMENTS + over;
    let items = |w: &str| {
        (0..n).map(|i| json!({"name": format!("{w} product number {i}")})).collect::<Vec<_>>()
    };
    let e = crate::limits::MAX_EMBEDDED_FIELDS + over;
    let tags = |w: &str| (0..e).map(|i| json!(format!("{w} tag {i}"))).collect::<Vec<_>>();
    let reference = json!({"items": items("blue"), "tags": tags("red")});
    let output = json!({"items": items("bleu"), "tags": tags("rouge")});
    let mut c = engine_compare(&m, &reference, &output);
    let judges = m.judges.as_ref().unwrap();
    let settled = judges.settle(&m.rules, &mut c, &reference, &output);
    assert_eq!(settled.stats.judge_requests, crate::limits::MAX_FIELD_JUDGEMENTS as u64);
    assert_eq!(settled.stats.embedded_fields, crate::limits::MAX_EMBEDDED_FIELDS as u64);
    assert_eq!(settled.stats.skipped, 2 * over as u64);
    let note = |p: &str| settled.messages.iter().find(|(q, _)| q.to_string() == p).unwrap();
    let (_, m1) = note(&format!("$.items[{}].name", n - 1));
    assert!(m1.starts_with("not sent to the judge: over the limit of 100 per document"), "{m1}");
    let (_, m2) = note(&format!("$.tags[{}]", e - 1));
    assert!(m2.starts_with("not sent to the embedding: over the limit of 4096"), "{m2}");
    // Every field is still counted: the failed requests count wrong, the
    // skipped fields keep the comparator's partial credit.
    assert_eq!(c.counts.wrong as usize, n + e - 2 * over);
    assert_eq!(c.counts.partial as usize, 2 * over);
}

/// Past the details kept, the records a metric did not keep are counted
/// only when they failed, and not at all when no detail is reported: with
/// field judges and `details: none` the walk keeps the failed records for
/// the judges, and its count of those past the limit is dropped with them.
#[test]
fn records_not_kept_are_counted_only_when_failed_and_reported() {
    use crate::limits::MAX_KEPT_DETAILS;
    use crate::metric_result::is_more_entry;
    let n = MAX_KEPT_DETAILS + 30;
    let reference: Map<String, serde_json::Value> =
        (0..n).map(|i| (format!("k{i:05}"), json!(i))).collect();
    let mut output = reference.clone();
    for i in 0..5 {
        output.insert(format!("k{i:05}"), json!(-1));
    }
    let pair = EvalInput::pair(
        serde_json::Value::Object(output.clone()),
        serde_json::Value::Object(reference.clone()),
    );
    // details: all keeps 10,000 of them, 5 failed: nothing failed is left.
    let mut o = Map::new();
    o.insert("details".into(), json!("all"));
    let m = JsonMatch::from_options(&o, &BuildContext::default()).unwrap();
    let s = m.compute(&pair).unwrap().scores.remove(0);
    assert_eq!(s.details.len(), MAX_KEPT_DETAILS);
    assert!(!s.details.iter().any(is_more_entry));
    assert!(!s.explanation.unwrap().contains("more"));
    // All wrong: the 30 past the limit are one closing entry.
    let wrong: Map<String, serde_json::Value> =
        (0..n).map(|i| (format!("k{i:05}"), json!(-1))).collect();
    let all_wrong = EvalInput::pair(
        serde_json::Value::Object(wrong.clone()),
        serde_json::Value::Object(reference.clone()),
    );
    let s = m.compute(&all_wrong).unwrap().scores.remove(0);
    assert_eq!(s.details.last().map(|d| d.check.to_string()).as_deref(), Some("+ 30 more"));
    // Field judges and details: none: no detail, no entry, no tail.
    o.insert("details".into(), json!("none"));
    o.insert(
        "rules".into(),
        json!({"rules": [{"path": "$.unused", "judge": "default", "criterion": "same?"}]}),
    );
    let m = JsonMatch::from_options(&o, &unreachable()).unwrap();
    let s = m.compute(&all_wrong).unwrap().scores.remove(0);
    assert!(s.details.is_empty(), "{:?}", s.details.last());
    assert!(!s.explanation.unwrap().contains("more"));
}
