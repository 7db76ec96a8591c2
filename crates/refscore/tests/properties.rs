//! Properties every seed JSON metric keeps, on arbitrary JSON.

use libtest_mimic::Trial;
use proptest::prelude::*;
use proptest::test_runner::TestCaseResult;
use refscore::engine::{Align, Keep, Leaf, NodeRule, Policy, Rules, compare};
use refscore::metrics::{BuildContext, build};
use refscore::path::Seg;
use refscore::tree::Node;
use refscore::{EvalInput, Evaluator, Score};
use serde_json::{Map, Value, json};

/// Seed metrics as `(label, name, options)`; strings stay strings so that
/// any JSON value, top-level strings included, is a valid input.
const METRICS: &[(&str, &str, &str)] = &[
    ("json_distance", "json_distance", r#"{"decode": "value"}"#),
    ("json_distance prebuilt", "json_distance", r#"{"decode": "value", "variant": "prebuilt"}"#),
    ("json_diff", "json_diff", r#"{"decode": "value"}"#),
    ("json_similarity", "json_similarity", r#"{"decode": "value"}"#),
    ("json_structural", "json_structural", r#"{"decode": "value"}"#),
];

fn metric(name: &str, options: &str) -> Box<dyn Evaluator> {
    let opts: Map<String, Value> = serde_json::from_str(options).expect("options");
    build(name, &opts, &BuildContext::default()).expect("metric builds")
}

fn score_of(m: &dyn Evaluator, input: &EvalInput) -> Score {
    let mut scores = m.evaluate(input).expect("evaluates");
    assert_eq!(scores.scores.len(), 1);
    scores.scores.remove(0)
}

fn number() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (-1e6..1e6_f64).prop_map(Value::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
        prop::sample::select(vec![
            0.0,
            -0.0,
            1e308,
            -1e308,
            1.7e308,
            f64::MAX,
            f64::MIN,
            f64::MIN_POSITIVE,
            5e-324,
            1e-13,
            0.01,
        ])
        .prop_map(Value::from),
    ]
}

pub(crate) fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "\\PC{0,10}",
        prop::sample::select(vec![
            "", " ", " x ", "😀", "😃", "ключ", "true", "2", "null", "\u{85}"
        ])
        .prop_map(str::to_owned),
    ]
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(vec!["a", "b", "c", "__a", "0", "x y", "é"]).prop_map(str::to_owned),
        "\\PC{0,4}"
    ]
}

/// Arbitrary JSON as a whole input: any value but an empty one (`null` or
/// a blank string), which a required input may not be.
pub(crate) fn json_value() -> impl Strategy<Value = Value> {
    any_json()
        .prop_filter("a required input is not empty", |v| !refscore::evaluator::is_empty_value(v))
}

/// Arbitrary JSON: scalars of every kind, nested up to 4 levels.
pub(crate) fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        number(),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 40, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map(key(), inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A valid JSON Difference weight tree.
fn weights() -> impl Strategy<Value = Value> {
    let w = prop_oneof![Just(0.0), Just(1.0), 0.0..=1.0_f64].prop_map(Value::from);
    let level = |inner: BoxedStrategy<Value>| {
        prop::collection::btree_map(key(), inner, 0..4)
            .prop_map(|m| Value::Object(m.into_iter().collect()))
    };
    let nested = level(w.clone().boxed()).boxed();
    level(prop_oneof![w, nested].boxed())
}

const CASES: u32 = 256;

/// The property tests and the edge-case tests, one trial each.
pub(crate) fn trials() -> Vec<Trial> {
    let config = || ProptestConfig::with_cases(CASES);
    vec![
        crate::property(
            "properties::a_value_compared_with_itself_is_perfect",
            file!(),
            config(),
            json_value,
            a_value_compared_with_itself_is_perfect,
        ),
        crate::property(
            "properties::scores_are_finite_and_in_range",
            file!(),
            config(),
            || (json_value(), json_value(), weights()),
            scores_are_finite_and_in_range,
        ),
        crate::property(
            "properties::distance_and_diff_are_symmetric",
            file!(),
            config(),
            || (json_value(), json_value()),
            distance_and_diff_are_symmetric,
        ),
        crate::property(
            "properties::equal_subtrees_counted_at_once_give_what_the_walk_gives",
            file!(),
            config(),
            || (json_value(), json_value(), json_value()),
            equal_subtrees_counted_at_once_give_what_the_walk_gives,
        ),
        crate::plain(
            "properties::deep_nesting_on_either_side_does_not_overflow_the_stack",
            deep_nesting_on_either_side_does_not_overflow_the_stack,
        ),
        crate::plain(
            "properties::json_match_cost_is_linear_in_depth",
            json_match_cost_is_linear_in_depth,
        ),
        crate::plain(
            "properties::deep_identical_documents_score_perfectly",
            deep_identical_documents_score_perfectly,
        ),
        crate::plain(
            "properties::number_range_and_empty_container_edges",
            number_range_and_empty_container_edges,
        ),
    ]
}

fn a_value_compared_with_itself_is_perfect(v: Value) -> TestCaseResult {
    for (label, name, options) in METRICS {
        let m = metric(name, options);
        let s = score_of(m.as_ref(), &EvalInput::pair(v.clone(), v.clone()));
        let want = if *name == "json_distance" { 0.0 } else { 1.0 };
        prop_assert_eq!(s.score, Some(want), "{} on {}", label, v);
    }
    Ok(())
}

fn scores_are_finite_and_in_range((a, b, w): (Value, Value, Value)) -> TestCaseResult {
    for (label, name, options) in METRICS {
        let m = metric(name, options);
        let mut input = EvalInput::pair(a.clone(), b.clone());
        if *name == "json_diff" {
            input = input.with("weights", w.clone());
        }
        let s = score_of(m.as_ref(), &input);
        let x = s.score.expect("a score");
        prop_assert!(x.is_finite(), "{} gave {}", label, x);
        if *name == "json_distance" {
            prop_assert!(x >= 0.0 && x.fract() == 0.0, "{} gave {}", label, x);
        } else {
            prop_assert!((0.0..=1.0).contains(&x), "{} gave {}", label, x);
        }
        for d in &s.details {
            prop_assert!(d.score.is_none_or(f64::is_finite));
        }
    }
    Ok(())
}

fn distance_and_diff_are_symmetric((a, b): (Value, Value)) -> TestCaseResult {
    for (label, name, options) in METRICS {
        if *name != "json_distance" && *name != "json_diff" {
            continue;
        }
        let m = metric(name, options);
        let ab = score_of(m.as_ref(), &EvalInput::pair(a.clone(), b.clone())).score.unwrap();
        let ba = score_of(m.as_ref(), &EvalInput::pair(b.clone(), a.clone())).score.unwrap();
        prop_assert!((ab - ba).abs() <= 1e-12, "{}: {} vs {}", label, ab, ba);
    }
    Ok(())
}

/// Nesting `depth` levels of `[...]` or `{"a": ...}` around `inner`, as text.
fn deep_text(depth: usize, object: bool, inner: &str) -> String {
    if object {
        format!("{}{inner}{}", r#"{"a":"#.repeat(depth), "}".repeat(depth))
    } else {
        format!("{}{inner}{}", "[".repeat(depth), "]".repeat(depth))
    }
}

/// Frees a test input on a large stack: a 10,000-deep `Value` is dropped
/// recursively by serde_json, which is test plumbing, not the code under test.
fn drop_on_big_stack(input: EvalInput<'static>) {
    std::thread::Builder::new()
        .stack_size(256 * 1024 * 1024)
        .spawn(move || drop(input))
        .expect("spawn")
        .join()
        .expect("drop");
}

fn deep_nesting_on_either_side_does_not_overflow_the_stack() {
    const DEPTH: usize = 10_000;
    // The default thread stack (2 MiB): the walk must grow its stack itself.
    let handle = std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(|| {
            let mut leftovers = Vec::new();
            let mut checked = 0;
            for object in [false, true] {
                let deep = deep_text(DEPTH, object, "1");
                let deep2 = deep_text(DEPTH, object, "2");
                let pairs = [
                    (deep.clone(), deep.clone()),
                    (deep.clone(), deep2.clone()),
                    (deep.clone(), String::from("[]")),
                    (String::from("{\"a\": 1}"), deep.clone()),
                ];
                for (out, reference) in &pairs {
                    for (label, name, _) in METRICS {
                        // As JSON text, parsed by the metric.
                        let m = metric(name, r#"{"decode": "json"}"#);
                        let text_input = EvalInput::pair(json!(out), json!(reference));
                        let s = score_of(m.as_ref(), &text_input);
                        let x = s.score.unwrap_or_else(|| panic!("{label}: {:?}", s.explanation));
                        assert!(x.is_finite(), "{label}");
                        // As parsed values.
                        let o = refscore::json::parse(out).expect("parses");
                        let r = refscore::json::parse(reference).expect("parses");
                        let m = metric(name, "{}");
                        let input = EvalInput::pair(o, r);
                        let y = score_of(m.as_ref(), &input).score.expect("a score");
                        assert!((x - y).abs() < 1e-12, "{label}: {x} vs {y}");
                        leftovers.push(input);
                        checked += 1;
                    }
                }
            }
            (checked, leftovers)
        })
        .expect("spawn");
    let (checked, leftovers) = handle.join().expect("no stack overflow");
    assert_eq!(checked, 2 * 4 * METRICS.len());
    for input in leftovers {
        drop_on_big_stack(input);
    }
}

/// Two 50,000-deep arrays that differ at the bottom, under json_match:
/// every level pairs its one element by similarity. A path copied per
/// level would need memory quadratic in the depth (tens of GB here); the
/// walk lends one path to its similarity sub-walks instead. With path
/// rules, documents past the declared depth get an invalid score.
fn json_match_cost_is_linear_in_depth() {
    const DEPTH: usize = 50_000;
    let handle = std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(move || {
            let mut leftovers = Vec::new();
            let rules = r#"{"rules": {"rules": [{"path": "$..x", "compare": "exact"}]}}"#;
            for (options, depth) in [("{}", DEPTH), (rules, 1_000), (rules, DEPTH)] {
                let m = metric("json_match", options);
                let o = refscore::json::parse(&deep_text(depth, false, "1")).expect("parses");
                let r = refscore::json::parse(&deep_text(depth, false, "2")).expect("parses");
                let input = EvalInput::pair(o, r);
                let s = score_of(m.as_ref(), &input);
                if options == rules && depth > refscore::metrics::json_match::MAX_RULE_DEPTH {
                    // Rule lookups read the whole path: past the limit, a
                    // clear invalid score, not quadratic time.
                    assert_eq!(s.score, None, "{options}");
                    let why = s.explanation.unwrap_or_default();
                    assert!(why.contains("deeper than 1000 levels"), "{why}");
                } else {
                    assert_eq!(s.score, Some(0.0), "{options}: {:?}", s.explanation);
                }
                leftovers.push(input);
            }
            leftovers
        })
        .expect("spawn");
    for input in handle.join().expect("no stack overflow") {
        drop_on_big_stack(input);
    }
}

fn deep_identical_documents_score_perfectly() {
    let text = deep_text(10_000, true, "\"x\"");
    for (label, name, _) in METRICS {
        let m = metric(name, r#"{"decode": "json"}"#);
        let s = score_of(m.as_ref(), &EvalInput::pair(json!(text), json!(text)));
        let want = if *name == "json_distance" { 0.0 } else { 1.0 };
        assert_eq!(s.score, Some(want), "{label}");
    }
}

/// `(output, reference)` texts at the edges of the number range and with
/// empty containers, and what each metric gives for them:
/// json_distance, prebuilt, json_diff, json_similarity, json_structural.
#[allow(clippy::type_complexity)]
const EDGES: &[(&str, &str, [f64; 5])] = &[
    // Integers beyond 2^64 are read as the nearest f64 (equal here).
    ("18446744073709551617", "18446744073709551616", [0.0, 0.0, 1.0, 1.0, 1.0]),
    ("-18446744073709551617", "18446744073709551616", [1.0, 1.0, 0.0, 0.0, 0.0]),
    ("99999999999999999999999", "1e23", [0.0, 0.0, 1.0, 1.0, 1.0]),
    // Floats near the top of the range: no overflow, no NaN.
    ("1.7976931348623157e308", "-1.7976931348623157e308", [1.0, 1.0, 0.0, 0.0, 0.0]),
    ("1.7e308", "1e308", [1.0, 1.0, 1.0 - 0.7 / 2.7, 0.3, 0.0]),
    ("1.7976931348623157e308", "1.7976931348623157e308", [0.0, 0.0, 1.0, 1.0, 1.0]),
    ("5e-324", "1e-323", [1.0, 1.0, 2.0 / 3.0, 1.0, 1.0]),
    // Empty containers on either side.
    ("[]", "[1, 2]", [2.0, 2.0, 0.0, 0.0, 0.0]),
    ("[1, 2]", "[]", [2.0, 2.0, 0.0, 1.0, 0.0]),
    ("{}", "{\"a\": 1}", [1.0, 1.0, 0.0, 0.0, 0.0]),
    ("{\"a\": 1}", "{}", [1.0, 1.0, 0.0, 1.0, 0.5]),
    ("[]", "{}", [1.0, 1.0, 0.0, 1.0, 0.0]),
    ("{}", "[]", [1.0, 1.0, 0.0, 1.0, 0.0]),
    ("[]", "[]", [0.0, 0.0, 1.0, 1.0, 1.0]),
    ("{}", "{}", [0.0, 0.0, 1.0, 1.0, 1.0]),
    ("[[]]", "[[], []]", [1.0, 1.0, 1.0, 1.0, 0.5]),
    ("{\"a\": []}", "{\"a\": {}}", [1.0, 1.0, 0.0, 1.0, 0.0]),
];

fn number_range_and_empty_container_edges() {
    for (out, reference, want) in EDGES {
        for ((label, name, options), want) in METRICS.iter().zip(want) {
            let opts = options.replace("\"decode\": \"value\"", "\"decode\": \"json\"");
            let m = metric(name, &opts);
            let s = score_of(m.as_ref(), &EvalInput::pair(json!(out), json!(reference)));
            let got = s.score.unwrap_or_else(|| panic!("{label} {out} vs {reference}: no score"));
            assert!(
                (got - want).abs() < 1e-12,
                "{label}: {out} vs {reference}: expected {want}, got {got}"
            );
        }
    }
}

/// Rules that delegate to `M` but never count an equal subtree at once:
/// the leaf-by-leaf walk the shortcut must agree with.
struct LeafByLeaf<'m, M: Rules>(&'m M);

impl<M: Rules> Rules for LeafByLeaf<'_, M> {
    fn policy(&self) -> &Policy {
        self.0.policy()
    }
    fn leaf(&self, e: Node<'_>, a: Node<'_>, rule: &NodeRule) -> Leaf {
        self.0.leaf(e, a, rule)
    }
    fn has_rules(&self) -> bool {
        self.0.has_rules()
    }
    fn rule_at(&self, path: &[Seg<'_>]) -> NodeRule {
        self.0.rule_at(path)
    }
    fn alignment(&self, index: u16) -> &Align {
        self.0.alignment(index)
    }
    fn explain(&self, e: Node<'_>, a: Node<'_>, rule: &NodeRule) -> Option<String> {
        self.0.explain(e, a, rule)
    }
    fn report_pairs(&self) -> bool {
        self.0.report_pairs()
    }
    fn leaf_explained(
        &self,
        e: Node<'_>,
        a: Node<'_>,
        rule: &NodeRule,
        explain: &dyn Fn(refscore::detail::Outcome) -> bool,
    ) -> (Leaf, Option<String>) {
        self.0.leaf_explained(e, a, rule, explain)
    }
    fn costly_leaves(&self) -> bool {
        self.0.costly_leaves()
    }
    fn reads_json_text(&self, rule: &NodeRule) -> bool {
        self.0.reads_json_text(rule)
    }
}

/// The metrics that count equal subtrees at once give the tally, counts,
/// records and field tallies of the leaf-by-leaf walk, on documents that share some
/// subtrees and differ in others (and on equal documents).
fn equal_subtrees_counted_at_once_give_what_the_walk_gives(
    (v, w, x): (Value, Value, Value),
) -> TestCaseResult {
    use refscore::metrics::json_diff::JsonDiff;
    use refscore::metrics::json_distance::JsonDistance;
    use refscore::metrics::json_match::JsonMatch;
    use refscore::metrics::json_similarity::JsonSimilarity;
    use refscore::metrics::json_structural::JsonStructural;
    let pairs = [
        (v.clone(), v.clone()),
        (json!([v, {"k": v, "m": w, "n": [v, w]}]), json!([v, {"k": v, "m": x, "n": [v, x]}])),
        (json!({"a": v, "b": [w, v]}), json!({"a": v, "b": [x, v, w], "c": v})),
        (w.clone(), x.clone()),
        // Deeper than the levels the walk looks for equal subtrees at.
        (nest(&v, &w, 20), nest(&v, &x, 20)),
        // Repeated scalars: one point each by assignment, once as a set.
        (
            json!({"d": ["x", "x", 1, 1, [2, 2]], "v": v}),
            json!({"d": ["x", "x", 1, 1, [2, 2]], "v": w}),
        ),
    ];
    let distance = JsonDistance::new(false);
    let similarity = JsonSimilarity::new(None);
    let diff = JsonDiff::default();
    let structural = JsonStructural::default();
    let matching = JsonMatch::default();
    prop_assert!(matching.equal_leaves_match(), "json_match in zero config counts them at once");
    for (e, a) in &pairs {
        for (keep, fields) in [(Keep::None, false), (Keep::Failed, false), (Keep::Failed, true)] {
            for (once, walked) in [
                both_ways(&distance, e, a, keep, fields),
                both_ways(&similarity, e, a, keep, fields),
                both_ways(&diff, e, a, keep, fields),
                both_ways(&structural, e, a, keep, fields),
                both_ways(&matching, e, a, keep, fields),
            ] {
                prop_assert_eq!(once, walked, "{} vs {}", e, a);
            }
        }
    }
    Ok(())
}

/// `m`'s comparison of `a` with `e`, and the leaf-by-leaf walk's, printed
/// (with their field tallies when `fields`).
fn both_ways<M: Rules>(m: &M, e: &Value, a: &Value, keep: Keep, fields: bool) -> (String, String) {
    let once = compare(m, e, a, None, keep, fields);
    let walked = compare(&LeafByLeaf(m), e, a, None, keep, fields);
    (format!("{once:?}"), format!("{walked:?}"))
}

/// `depth` levels of `{"k": [shared, ...]}` around `bottom`.
fn nest(shared: &Value, bottom: &Value, depth: usize) -> Value {
    (0..depth).fold(bottom.clone(), |inner, _| json!({"k": [shared, inner], "s": shared}))
}
