use serde_json::{Value, json};

use crate::detail::Outcome;
use crate::engine::{
    Absent, Aggregate, Align, Comparison, Cost, Counts, Empty, FieldTally, Keep, KeySet, Leaf,
    NodeRule, Pairing, Policy, Rules, compare, json_equal,
};
use crate::path::{Seg, format_path};
use crate::tree::{Node, Tree};

use Outcome::{Extra, Match, Missing, Partial, TypeMismatch, ValueMismatch};

/// Leaves: equal values match, strings equal but for case earn half
/// credit, other values of one type are wrong, of two types mismatched.
fn exact_leaf(e: &Value, a: &Value) -> Leaf {
    match (e, a) {
        _ if json_equal(e, a) => Leaf::MATCH,
        (Value::String(x), Value::String(y)) if x.to_lowercase() == y.to_lowercase() => {
            Leaf::graded(0.5)
        }
        _ if std::mem::discriminant(e) == std::mem::discriminant(a) => Leaf::WRONG,
        _ => Leaf::TYPE,
    }
}

/// A policy and [`exact_leaf`]; no per-path rules.
struct Exact(Policy);

impl Rules for Exact {
    fn policy(&self) -> &Policy {
        &self.0
    }

    fn leaf(&self, e: Node<'_>, a: Node<'_>, _: &NodeRule) -> Leaf {
        crate::json::with_values(e, a, exact_leaf)
    }
}

/// [`Exact`] with per-path rules, by printed path.
struct Ruled(Policy, Vec<(&'static str, NodeRule)>);

impl Rules for Ruled {
    fn policy(&self) -> &Policy {
        &self.0
    }

    fn leaf(&self, e: Node<'_>, a: Node<'_>, _: &NodeRule) -> Leaf {
        crate::json::with_values(e, a, exact_leaf)
    }

    fn has_rules(&self) -> bool {
        true
    }

    fn rule_at(&self, path: &[Seg<'_>]) -> NodeRule {
        let p = format_path(path);
        self.1.iter().find(|(at, _)| *at == p).map(|(_, r)| *r).unwrap_or_default()
    }
}

/// Sums leaves over the union of keys; absent keys, extra keys and
/// mistyped containers cost one; positional arrays; no empty leaves.
fn sum() -> Policy {
    Policy {
        aggregate: Aggregate::Sum,
        keys: KeySet::Union,
        absent: Absent::Missing,
        missing: Cost::One,
        extra: Cost::One,
        mismatch: Cost::One,
        surplus_elements: true,
        align: Align::Positional,
        empty_arrays: Empty::Nothing,
        empty_expected_object: Empty::Nothing,
    }
}

fn mean() -> Policy {
    Policy { aggregate: Aggregate::Mean, ..sum() }
}

fn counts(matched: u64, partial: u64, wrong: u64, missing: u64, extra: u64) -> Counts {
    #[allow(clippy::cast_precision_loss)]
    let credit = matched as f64 + 0.5 * partial as f64;
    Counts { matched, partial, wrong, missing, extra, credit }
}

/// A record as `(path, outcome, expected, actual)`.
type Rec<'a> = (&'a str, Outcome, Option<&'a str>, Option<&'a str>);

/// One comparison and what it must come to.
struct Case {
    label: &'static str,
    policy: Policy,
    expected: Value,
    actual: Value,
    weights: Option<Value>,
    keep: Keep,
    tally: (f64, f64),
    counts: Counts,
    records: Vec<Rec<'static>>,
}

impl Case {
    #[allow(clippy::too_many_arguments)]
    fn new(
        label: &'static str,
        policy: Policy,
        expected: Value,
        actual: Value,
        keep: Keep,
        tally: (f64, f64),
        counts: Counts,
        records: Vec<Rec<'static>>,
    ) -> Self {
        Case { label, policy, expected, actual, weights: None, keep, tally, counts, records }
    }

    fn weights(mut self, w: Value) -> Self {
        self.weights = Some(w);
        self
    }

    fn check(&self) {
        let c = compare(
            &Exact(self.policy.clone()),
            &self.expected,
            &self.actual,
            self.weights.as_ref(),
            self.keep,
            false,
        );
        check(self.label, &c, self.tally, &self.counts, &self.records);
        assert!(c.fields.is_empty(), "{}: field tallies without `fields`", self.label);
    }
}

#[track_caller]
fn check(label: &str, c: &Comparison, tally: (f64, f64), counts: &Counts, records: &[Rec<'_>]) {
    assert!(
        (c.tally.matched - tally.0).abs() < 1e-12 && (c.tally.total - tally.1).abs() < 1e-12,
        "{label}: tally {:?}, expected {tally:?}",
        c.tally
    );
    assert_eq!(&c.counts, counts, "{label}: counts");
    assert_eq!(shown(c), owned(records), "{label}: records");
}

fn shown(c: &Comparison) -> Vec<(String, Outcome, Option<String>, Option<String>)> {
    c.records
        .iter()
        .map(|r| (r.path.to_string(), r.outcome, r.expected.clone(), r.actual.clone()))
        .collect()
}

fn owned(records: &[Rec<'_>]) -> Vec<(String, Outcome, Option<String>, Option<String>)> {
    records
        .iter()
        .map(|&(p, o, e, a)| (p.to_owned(), o, e.map(str::to_owned), a.map(str::to_owned)))
        .collect()
}

fn field(path: &str, counts: Counts) -> FieldTally {
    FieldTally { path: path.to_owned(), counts }
}

#[test]
fn union_and_expected_key_sets() {
    let e = json!({"a": 1, "b": 2, "s": "Abc"});
    let a = json!({"a": 1, "c": 3, "s": "abc"});
    let expected_keys = Policy { keys: KeySet::Expected, ..sum() };
    let cases = [
        Case::new(
            "union: output-only keys are extra",
            sum(),
            e.clone(),
            a.clone(),
            Keep::All,
            (1.5, 4.0),
            counts(1, 1, 0, 1, 1),
            vec![
                ("$.a", Match, Some("1"), Some("1")),
                ("$.b", Missing, Some("2"), None),
                ("$.s", Partial, Some("Abc"), Some("abc")),
                ("$.c", Extra, None, Some("3")),
            ],
        ),
        Case::new(
            "expected: output-only keys are free",
            expected_keys.clone(),
            e.clone(),
            a.clone(),
            Keep::All,
            (1.5, 3.0),
            counts(1, 1, 0, 1, 0),
            vec![
                ("$.a", Match, Some("1"), Some("1")),
                ("$.b", Missing, Some("2"), None),
                ("$.s", Partial, Some("Abc"), Some("abc")),
            ],
        ),
        Case::new(
            "expected: free at every level",
            expected_keys,
            json!({"o": {"x": 1}}),
            json!({"o": {"x": 1, "y": 2}, "z": 3}),
            Keep::All,
            (1.0, 1.0),
            counts(1, 0, 0, 0, 0),
            vec![("$.o.x", Match, Some("1"), Some("1"))],
        ),
    ];
    cases.iter().for_each(Case::check);
}

#[test]
fn absent_as_null_or_missing() {
    let e = json!({"a": 1, "b": 2, "n": null, "o": {"x": 1, "y": 2}});
    let a = json!({"a": 1, "c": null, "d": 4});
    let as_null = Policy { absent: Absent::AsNull, ..sum() };
    let cases = [
        Case::new(
            "as null: absent equals null; a subtree costs `mismatch`, counts its leaves",
            as_null.clone(),
            e.clone(),
            a.clone(),
            Keep::All,
            (3.0, 6.0),
            counts(3, 0, 0, 3, 1),
            vec![
                ("$.a", Match, Some("1"), Some("1")),
                ("$.b", Missing, Some("2"), None),
                ("$.n", Match, Some("null"), None),
                ("$.o", Missing, Some(r#"{"x":1,"y":2}"#), None),
                ("$.c", Match, None, Some("null")),
                ("$.d", Extra, None, Some("4")),
            ],
        ),
        Case::new(
            "missing: absent is missing, even where the other side is null",
            sum(),
            e,
            a,
            Keep::All,
            (1.0, 6.0),
            counts(1, 0, 0, 4, 2),
            vec![
                ("$.a", Match, Some("1"), Some("1")),
                ("$.b", Missing, Some("2"), None),
                ("$.n", Missing, Some("null"), None),
                ("$.o", Missing, Some(r#"{"x":1,"y":2}"#), None),
                ("$.c", Extra, None, Some("null")),
                ("$.d", Extra, None, Some("4")),
            ],
        ),
        Case::new(
            "as null: array elements are still missing and extra",
            as_null,
            json!({"l": [1, 2], "m": [3]}),
            json!({"l": [1], "m": [3, null]}),
            Keep::Failed,
            (2.0, 4.0),
            counts(2, 0, 0, 1, 1),
            vec![("$.l[1]", Missing, Some("2"), None), ("$.m[1]", Extra, None, Some("null"))],
        ),
    ];
    cases.iter().for_each(Case::check);
}

#[test]
fn costs_of_missing_extra_and_mistyped_subtrees() {
    let e = json!({"e": {}, "k": 1, "m": [1, 2], "o": {"x": 1, "y": [2, 3]}});
    let a = json!({"k": 1, "m": "x", "p": {"q": [1, 2, 3]}});
    let costs = |c: Cost| Policy { missing: c, extra: c, mismatch: c, ..sum() };
    let every: Vec<Rec<'static>> = vec![
        ("$.e", Missing, Some("{}"), None),
        ("$.k", Match, Some("1"), Some("1")),
        ("$.m", TypeMismatch, Some("[1,2]"), Some("\"x\"")),
        ("$.o", Missing, Some(r#"{"x":1,"y":[2,3]}"#), None),
        ("$.p", Extra, None, Some(r#"{"q":[1,2,3]}"#)),
    ];
    let cases = [
        // Free: absent and extra subtrees are not compared at all; a
        // mistyped one is, at no cost.
        Case::new(
            "free",
            costs(Cost::Free),
            e.clone(),
            a.clone(),
            Keep::All,
            (1.0, 1.0),
            counts(1, 0, 0, 2, 1),
            vec![every[1], every[2]],
        ),
        Case::new(
            "one per subtree",
            costs(Cost::One),
            e.clone(),
            a.clone(),
            Keep::All,
            (1.0, 5.0),
            counts(1, 0, 0, 6, 4),
            every.clone(),
        ),
        Case::new(
            "leaves (an empty subtree costs nothing)",
            costs(Cost::Leaves),
            e.clone(),
            a.clone(),
            Keep::All,
            (1.0, 9.0),
            counts(1, 0, 0, 6, 4),
            every.clone(),
        ),
        Case::new(
            "leaves, at least one",
            costs(Cost::LeavesAtLeastOne),
            e,
            a,
            Keep::All,
            (1.0, 10.0),
            counts(1, 0, 0, 6, 4),
            every,
        ),
    ];
    cases.iter().for_each(Case::check);
}

#[test]
fn surplus_elements_count_or_not() {
    let e = json!({"l": [1, 2, 3], "m": [7]});
    let a = json!({"l": [1, 5], "m": [7, 8]});
    let cases = [
        Case::new(
            "on",
            sum(),
            e.clone(),
            a.clone(),
            Keep::Failed,
            (2.0, 5.0),
            counts(2, 0, 1, 1, 1),
            vec![
                ("$.l[1]", ValueMismatch, Some("2"), Some("5")),
                ("$.l[2]", Missing, Some("3"), None),
                ("$.m[1]", Extra, None, Some("8")),
            ],
        ),
        Case::new(
            "off",
            Policy { surplus_elements: false, ..sum() },
            e.clone(),
            a.clone(),
            Keep::Failed,
            (2.0, 3.0),
            counts(2, 0, 1, 0, 0),
            vec![("$.l[1]", ValueMismatch, Some("2"), Some("5"))],
        ),
        Case::new(
            "off under the mean: unpaired elements change nothing",
            Policy { surplus_elements: false, ..mean() },
            json!({"l": [1, 2, 3]}),
            json!({"l": [1]}),
            Keep::Failed,
            (1.0, 1.0),
            counts(1, 0, 0, 0, 0),
            vec![],
        ),
    ];
    cases.iter().for_each(Case::check);
    // Records of elements say so; records of keys do not.
    let c = compare(&Exact(sum()), &e, &a, None, Keep::All, false);
    let elements: Vec<(String, bool)> =
        c.records.iter().map(|r| (r.path.to_string(), r.element)).collect();
    assert_eq!(
        elements,
        [("$.l[0]", true), ("$.l[1]", true), ("$.l[2]", true), ("$.m[0]", true), ("$.m[1]", true)]
            .map(|(p, e)| (p.to_owned(), e))
    );
    let c = compare(&Exact(sum()), &json!({"k": 1}), &json!({}), None, Keep::All, false);
    assert!(!c.records[0].element);
}

#[test]
fn positional_set_and_unordered_alignment() {
    let e = json!({"t": ["a", "b", "b", "c"]});
    let a = json!({"t": ["c", "a", "d"]});
    let align = |align: Align| Policy { align, ..sum() };
    let cases = [
        Case::new(
            "positional",
            align(Align::Positional),
            e.clone(),
            a.clone(),
            Keep::All,
            (0.0, 4.0),
            counts(0, 0, 3, 1, 0),
            vec![
                ("$.t[0]", ValueMismatch, Some("a"), Some("c")),
                ("$.t[1]", ValueMismatch, Some("b"), Some("a")),
                ("$.t[2]", ValueMismatch, Some("b"), Some("d")),
                ("$.t[3]", Missing, Some("c"), None),
            ],
        ),
        // Each distinct value once; the records sit at the array's path.
        Case::new(
            "set of scalars",
            align(Align::SetIfScalars),
            e.clone(),
            a.clone(),
            Keep::All,
            (2.0, 4.0),
            counts(2, 0, 0, 1, 1),
            vec![
                ("$.t", Match, Some("a"), Some("a")),
                ("$.t", Missing, Some("b"), None),
                ("$.t", Match, Some("c"), Some("c")),
                ("$.t", Extra, None, Some("d")),
            ],
        ),
        Case::new(
            "set of scalars: containers inside align by position",
            align(Align::SetIfScalars),
            json!({"t": [{"a": 1}, 2]}),
            json!({"t": [2, {"a": 1}]}),
            Keep::All,
            (0.0, 2.0),
            counts(0, 0, 0, 2, 2),
            vec![
                ("$.t[0]", TypeMismatch, Some(r#"{"a":1}"#), Some("2")),
                ("$.t[1]", TypeMismatch, Some("2"), Some(r#"{"a":1}"#)),
            ],
        ),
        // A multiset: equal elements pair wherever they are; the rest
        // are missing and extra (reference index, else output index).
        Case::new(
            "unordered",
            align(Align::Unordered),
            e.clone(),
            a.clone(),
            Keep::All,
            (2.0, 5.0),
            counts(2, 0, 0, 2, 1),
            vec![
                ("$.t[0]", Match, Some("a"), Some("a")),
                ("$.t[3]", Match, Some("c"), Some("c")),
                ("$.t[1]", Missing, Some("b"), None),
                ("$.t[2]", Missing, Some("b"), None),
                ("$.t[2]", Extra, None, Some("d")),
            ],
        ),
    ];
    cases.iter().for_each(Case::check);
    // Similarities computed to pair elements leave no field tallies.
    let c = compare(&Exact(align(Align::Unordered)), &e, &a, None, Keep::None, true);
    assert_eq!(c.fields.to_tallies().0, [field("$.t[*]", counts(2, 0, 0, 2, 1))]);
    let c = compare(&Exact(align(Align::SetIfScalars)), &e, &a, None, Keep::None, true);
    assert_eq!(c.fields.to_tallies().0, [field("$.t", counts(2, 0, 0, 1, 1))]);
}

#[test]
fn sum_and_mean_with_weights() {
    let e = json!({"a": 1, "b": 2, "o": {"x": 1, "y": 2}});
    let a = json!({"a": 1, "b": 3, "o": {"x": 1, "y": 0}});
    // `__o` is the weight of `o` itself; `x` and `y` weigh inside it.
    let w = json!({"a": 3, "b": 1, "o": {"__o": 2, "x": 1, "y": 3}});
    let zero = json!({"a": 0, "b": 0, "o": 0});
    let hide = json!({"b": 0, "o": {"__o": 4, "y": 0}});
    let odd = json!({"a": -1, "b": "x", "o": null});
    let wrong = vec![
        ("$.b", ValueMismatch, Some("2"), Some("3")),
        ("$.o.y", ValueMismatch, Some("2"), Some("0")),
    ];
    let case = |label, policy, tally| {
        Case::new(
            label,
            policy,
            e.clone(),
            a.clone(),
            Keep::Failed,
            tally,
            counts(2, 0, 2, 0, 0),
            wrong.clone(),
        )
    };
    let cases = [
        case("sum", sum(), (2.0, 4.0)),
        // a 3·1/3 + b 1·0/1 + o 2·(1·1 + 3·0)/(2·4).
        case("sum, weighted", sum(), (5.0, 12.0)).weights(w.clone()),
        case("mean", mean(), (0.5, 1.0)),
        // (3·1 + 1·0 + 2·(1·1 + 3·0)/4) / (3 + 1 + 2).
        case("mean, weighted", mean(), (7.0 / 12.0, 1.0)).weights(w),
        case("sum, zero weights", sum(), (0.0, 0.0)).weights(zero.clone()),
        // All weights 0: the plain mean.
        case("mean, zero weights", mean(), (0.5, 1.0)).weights(zero),
        case("sum, wrong fields weigh 0", sum(), (5.0, 5.0)).weights(hide.clone()),
        case("mean, wrong fields weigh 0", mean(), (1.0, 1.0)).weights(hide),
        // A negative weight is 0, one that is not a number is 1.
        case("sum, odd weights", sum(), (1.0, 3.0)).weights(odd.clone()),
        case("mean, odd weights", mean(), (0.5 / 2.0, 1.0)).weights(odd),
    ];
    cases.iter().for_each(Case::check);
    // Array elements take the array's own weights.
    let e = json!({"l": [{"p": 1, "q": 2}]});
    let a = json!({"l": [{"p": 1, "q": 3}]});
    let w = json!({"l": {"__l": 1, "p": 3, "q": 1}});
    let rec = vec![("$.l[0].q", ValueMismatch, Some("2"), Some("3"))];
    let per_element = [
        Case::new(
            "sum, elements",
            sum(),
            e.clone(),
            a.clone(),
            Keep::Failed,
            (3.0, 4.0),
            counts(1, 0, 1, 0, 0),
            rec.clone(),
        )
        .weights(w.clone()),
        Case::new(
            "mean, elements",
            mean(),
            e,
            a,
            Keep::Failed,
            (0.75, 1.0),
            counts(1, 0, 1, 0, 0),
            rec,
        )
        .weights(w),
    ];
    per_element.iter().for_each(Case::check);
}

#[test]
fn path_rules_ignore_and_weigh() {
    let ignore = NodeRule { ignore: true, ..NodeRule::default() };
    let heavy = NodeRule { weight: Some(3.0), ..NodeRule::default() };
    let rules = Ruled(sum(), vec![("$.skip", ignore), ("$.z", ignore), ("$.b", heavy)]);
    let e = json!({"a": 1, "b": 2, "skip": 1});
    let a = json!({"a": 1, "b": 3, "skip": 2, "z": 1});
    let c = compare(&rules, &e, &a, None, Keep::Failed, false);
    check(
        "ignored paths and a weight",
        &c,
        (1.0, 4.0),
        &counts(1, 0, 1, 0, 0),
        &[("$.b", ValueMismatch, Some("2"), Some("3"))],
    );
    // A rule's weight wins over the weight tree's.
    let w = json!({"b": 0.5});
    let c = compare(&rules, &e, &a, Some(&w), Keep::None, false);
    assert_eq!((c.tally.matched, c.tally.total), (1.0, 4.0));
}

#[test]
fn empty_arrays_and_objects() {
    let both = (json!({"o": {}}), json!({"o": {}}));
    let extra = (json!({"o": {}}), json!({"o": {"z": 1}}));
    let arrays = (json!({"l": []}), json!({"l": []}));
    let objects = |empty: Empty, keys: KeySet, aggregate: Aggregate| Policy {
        empty_expected_object: empty,
        keys,
        aggregate,
        ..sum()
    };
    let leaf_at = |p| (p, Match, Some("null"), Some("null"));
    let z = ("$.o.z", Extra, None, Some("1"));
    use Aggregate::{Mean, Sum};
    use Empty::{IfBoth, Nothing};
    use KeySet::{Expected, Union};
    #[rustfmt::skip]
    let cases = [
        ("nothing, both empty", objects(Nothing, Union, Sum), &both, (0.0, 0.0), counts(0, 0, 0, 0, 0), vec![]),
        ("nothing, output keys", objects(Nothing, Union, Sum), &extra, (0.0, 1.0), counts(0, 0, 0, 0, 1), vec![z]),
        ("if both, both empty", objects(IfBoth, Union, Sum), &both, (1.0, 1.0), counts(1, 0, 0, 0, 0), vec![leaf_at("$.o")]),
        ("if both, output keys", objects(IfBoth, Union, Sum), &extra, (0.0, 1.0), counts(0, 0, 0, 0, 1), vec![z]),
        ("if both, output keys free", objects(IfBoth, Expected, Sum), &extra, (0.0, 0.0), counts(0, 0, 0, 0, 0), vec![]),
        ("leaf, both empty", objects(Empty::Leaf, Union, Sum), &both, (1.0, 1.0), counts(1, 0, 0, 0, 0), vec![leaf_at("$.o")]),
        ("leaf, output keys", objects(Empty::Leaf, Union, Sum), &extra, (1.0, 2.0), counts(1, 0, 0, 0, 1), vec![leaf_at("$.o"), z]),
        // Under an empty reference object, output keys count even when
        // only expected keys are compared.
        ("leaf, output keys, expected keys", objects(Empty::Leaf, Expected, Sum), &extra, (1.0, 2.0), counts(1, 0, 0, 0, 1), vec![leaf_at("$.o"), z]),
        // The mean of nothing is 1 when both sides are empty, else 0.
        ("mean, both empty", objects(Nothing, Union, Mean), &both, (1.0, 1.0), counts(0, 0, 0, 0, 0), vec![]),
        ("mean, output keys free", objects(Nothing, Expected, Mean), &extra, (0.0, 1.0), counts(0, 0, 0, 0, 0), vec![]),
        ("arrays, nothing", sum(), &arrays, (0.0, 0.0), counts(0, 0, 0, 0, 0), vec![]),
        ("arrays, leaf", Policy { empty_arrays: Empty::Leaf, ..sum() }, &arrays, (1.0, 1.0), counts(1, 0, 0, 0, 0), vec![leaf_at("$.l")]),
        // Under the mean, two empty arrays are always a matched leaf.
        ("arrays, mean", mean(), &arrays, (1.0, 1.0), counts(1, 0, 0, 0, 0), vec![leaf_at("$.l")]),
    ];
    for (label, policy, (e, a), tally, counts, records) in cases {
        Case::new(label, policy, e.clone(), a.clone(), Keep::All, tally, counts, records).check();
    }
}

#[test]
fn keep_chooses_records_not_results() {
    let e = json!({"a": 1, "b": 2, "c": "X"});
    let a = json!({"a": 1, "b": 3, "c": "x"});
    let all = vec![
        ("$.a", Match, Some("1"), Some("1")),
        ("$.b", ValueMismatch, Some("2"), Some("3")),
        ("$.c", Partial, Some("X"), Some("x")),
    ];
    for (keep, records) in
        [(Keep::None, vec![]), (Keep::Failed, all[1..].to_vec()), (Keep::All, all.clone())]
    {
        let c = compare(&Exact(sum()), &e, &a, None, keep, false);
        check(&format!("{keep:?}"), &c, (1.5, 3.0), &counts(1, 1, 1, 0, 0), &records);
    }
    let c = compare(&Exact(sum()), &e, &a, None, Keep::All, false);
    let scores: Vec<f64> = c.records.iter().map(|r| r.score).collect();
    assert_eq!(scores, [1.0, 0.0, 0.5]);
}

#[test]
fn field_tallies_use_wildcards_whatever_is_kept() {
    let e = json!({
        "a b": 1,
        "items": [{"price": 1, "sku": "A"}, {"price": 2, "sku": "B"}],
        "total": 3
    });
    let a = json!({
        "a b": 2,
        "items": [{"price": 1, "sku": "A"}, {"price": 5, "sku": "b"}, {"price": 7, "sku": "C"}],
        "total": 3
    });
    // One verdict per comparison: the extra element is one extra at
    // `$.items[*]`, though the walk's counts give it its two leaves.
    let want = [
        field("$['a b']", counts(0, 0, 1, 0, 0)),
        field("$.items[*].price", counts(1, 0, 1, 0, 0)),
        field("$.items[*].sku", counts(1, 1, 0, 0, 0)),
        field("$.items[*]", counts(0, 0, 0, 0, 1)),
        field("$.total", counts(1, 0, 0, 0, 0)),
    ];
    for keep in [Keep::None, Keep::Failed, Keep::All] {
        let c = compare(&Exact(sum()), &e, &a, None, keep, true);
        assert_eq!(c.fields.to_tallies().0, want, "{keep:?}");
        assert!((c.tally.matched - 3.5).abs() < 1e-12 && c.tally.total == 7.0, "{:?}", c.tally);
        assert_eq!(c.counts, counts(3, 1, 2, 0, 2), "{keep:?}");
    }
    let c = compare(&Exact(sum()), &e, &a, None, Keep::Failed, false);
    assert!(c.fields.is_empty());
    let failed: Vec<String> = c.records.iter().map(|r| r.path.to_string()).collect();
    assert_eq!(failed, ["$['a b']", "$.items[1].price", "$.items[1].sku", "$.items[2]"]);
}

/// `depth` levels of `{"a": …}` or `[…]` around `leaf`, built without
/// recursion.
fn nested(depth: usize, object: bool, leaf: Value) -> Value {
    let mut v = leaf;
    for _ in 0..depth {
        v = if object {
            Value::Object(std::iter::once((String::from("a"), v)).collect())
        } else {
            Value::Array(vec![v])
        };
    }
    v
}

#[test]
fn arrays_too_large_to_pair_by_similarity_say_so_and_pair_by_position() {
    // Elements of equal `k` are half alike: plausible pairs.
    let pairing = Pairing { min_similarity: 0.4, identity: true };
    let rules = Exact(Policy { align: Align::Assignment(pairing), ..sum() });
    let side = |n: usize, tag: &str| -> Value {
        let items: Vec<Value> = (0..n).map(|i| json!({"k": i, "v": tag})).collect();
        json!({"items": items, "same": [1, 2]})
    };
    // 256 × 256 unmatched elements: at the limit, paired by similarity.
    let c = compare(&rules, &side(256, "a"), &side(256, "b"), None, Keep::None, false);
    assert_eq!(c.over_limit, None);
    assert_eq!((c.counts.matched, c.counts.wrong), (256 + 2, 256));
    // 257 × 257: past it, the rest paired by position and the reason
    // given, naming the array.
    let c = compare(&rules, &side(257, "a"), &side(257, "b"), None, Keep::None, false);
    let why = c.over_limit.expect("over the limit");
    assert!(why.starts_with("the array at $.items has 257 reference and 257 output"), "{why}");
    assert!(why.contains("66049 pairs, past the limit of 65536"), "{why}");
    assert_eq!((c.counts.matched, c.counts.wrong), (257 + 2, 257));
    // Equal elements pair first and do not count against the limit.
    let mut e = side(300, "a");
    e["items"].as_array_mut().unwrap().truncate(300);
    let c = compare(&rules, &e, &e, None, Keep::None, false);
    assert_eq!(c.over_limit, None);
}

/// Identifiers numbered in sequence identify their elements: `SKU-00414`
/// and `SKU-00499` once hashed alike, so that neither identified its item,
/// and two items with two of three fields wrong were missing and extra.
#[test]
fn numbered_identifiers_identify_their_elements() {
    let pairing = Pairing { min_similarity: 0.5, identity: true };
    let rules = Exact(Policy { align: Align::Assignment(pairing), ..sum() });
    let e = json!([{"sku": "SKU-00414", "a": 1, "b": 2}, {"sku": "SKU-00499", "a": 3, "b": 4}]);
    let a = json!([{"sku": "SKU-00499", "a": 5, "b": 6}, {"sku": "SKU-00414", "a": 7, "b": 8}]);
    let c = compare(&rules, &e, &a, None, Keep::None, false);
    assert_eq!((c.counts.matched, c.counts.wrong, c.counts.missing), (2, 4, 0));
}

/// Past the limit, elements that share an identifying field pair on it (in
/// linear time) and only the rest must fit the limit: 400 reordered line
/// items, each with one wrong field, score as 400 items with one wrong
/// field each, not as an invalid score paired by position.
#[test]
fn arrays_too_large_to_weigh_pair_first_on_identifying_fields() {
    let rules = |identity: bool| {
        let pairing = Pairing { min_similarity: 0.5, identity };
        Exact(Policy { align: Align::Assignment(pairing), ..sum() })
    };
    // Item `i`: an identifying `sku` (or none), a quantity and a price.
    let item = |i: usize, sku: bool, qty: usize| -> Value {
        let mut v = json!({"qty": qty, "price": i * 3});
        if sku {
            v["sku"] = json!(format!("SKU-{i:04}"));
        }
        v
    };
    // The output holds the items in reverse, every quantity one more;
    // `plain` items (at the end of the reference) carry no sku.
    let sides = |n: usize, plain: usize| -> (Value, Value) {
        let e: Vec<Value> = (0..n).map(|i| item(i, i < n - plain, i)).collect();
        let a: Vec<Value> = (0..n).rev().map(|i| item(i, i < n - plain, i + 1)).collect();
        (json!({ "items": e }), json!({ "items": a }))
    };
    let (e, a) = sides(400, 0);
    let c = compare(&rules(true), &e, &a, None, Keep::None, false);
    assert_eq!(c.over_limit, None);
    // Every sku and price matches, every quantity is wrong: each item was
    // paired with its own.
    assert_eq!((c.counts.matched, c.counts.wrong), (800, 400));
    // Ten items without a sku are left over: 10 × 10 pairs are weighed
    // (each half like its own, by price, and half like the next, by
    // quantity: one field matched and one wrong either way).
    let (e, a) = sides(400, 10);
    let c = compare(&rules(true), &e, &a, None, Keep::None, false);
    assert_eq!(c.over_limit, None);
    assert_eq!((c.counts.matched, c.counts.wrong), (390 + 400, 400));
    // 257 items without one are still too many: the score says so, with
    // the count of those left.
    let (e, a) = sides(400, 257);
    let c = compare(&rules(true), &e, &a, None, Keep::None, false);
    let why = c.over_limit.expect("over the limit");
    assert!(
        why.starts_with(
            "the array at $.items has 257 reference and 257 output elements that neither an \
             equal one nor an identifying field paired"
        ),
        "{why}"
    );
    // Without identity pairing, the limit holds as before, and the
    // message names no identifying field.
    let (e, a) = sides(400, 0);
    let c = compare(&rules(false), &e, &a, None, Keep::None, false);
    let why = c.over_limit.expect("over the limit");
    assert!(why.contains("400 reference and 400 output"), "{why}");
    assert!(why.contains("400 output elements without an equal one: pairing"), "{why}");
}

/// [`Exact`] that notes why array elements were paired.
struct Paired(Policy);

impl Rules for Paired {
    fn policy(&self) -> &Policy {
        &self.0
    }

    fn leaf(&self, e: Node<'_>, a: Node<'_>, _: &NodeRule) -> Leaf {
        crate::json::with_values(e, a, exact_leaf)
    }

    fn report_pairs(&self) -> bool {
        true
    }
}

/// A pair made on its identifying field because its array was too large
/// to weigh says so; under the limit, the same pair was weighed.
#[test]
fn pairs_made_on_an_identifying_field_past_the_limit_say_so() {
    let pairing = Pairing { min_similarity: 0.5, identity: true };
    let m = Paired(Policy { align: Align::Assignment(pairing), ..sum() });
    let item = |i: usize, qty: usize| json!({"sku": format!("SKU-{i:04}"), "qty": qty});
    let first_note = |n: usize| {
        let e: Vec<Value> = (0..n).map(|i| item(i, i)).collect();
        let a: Vec<Value> = (0..n).rev().map(|i| item(i, i + 1)).collect();
        let c = compare(&m, &json!(e), &json!(a), None, Keep::Failed, false);
        assert_eq!(c.over_limit, None);
        c.records.iter().find_map(|r| r.note.clone()).expect("a pair's note")
    };
    let head = "reference element 0 paired with output element";
    assert_eq!(
        first_note(300),
        format!(
            "{head} 299: similarity 0.500, paired on an identifying field (too many elements \
             to weigh); identifying field `sku` agrees"
        )
    );
    assert_eq!(
        first_note(200),
        format!(
            "{head} 199: similarity 0.500, paired by similarity; identifying field `sku` agrees"
        )
    );
}

/// An array whose pairing asks about more fields than it may read for
/// identifying fields gives no score to trust, and says why.
#[test]
fn an_array_asking_about_too_many_fields_says_so() {
    let pairing = Pairing { min_similarity: 0.5, identity: true };
    let rules = Exact(Policy { align: Align::Assignment(pairing), ..sum() });
    // 8,000 equal elements, then 200 each with a field of its own that
    // agrees (and one that does not): 40,000 pairs weighed, each pair
    // that agrees reading its own field, past the 64 that 16,400
    // elements may read.
    let side = |x: u64| -> Value {
        let mut v: Vec<Value> = (0..8_000).map(|i| json!(i)).collect();
        for i in 0..200 {
            let mut m = serde_json::Map::new();
            m.insert(format!("f{i:03}"), json!(format!("v{i}")));
            m.insert("x".into(), json!(x));
            v.push(Value::Object(m));
        }
        Value::Array(v)
    };
    let c = compare(&rules, &side(1), &side(2), None, Keep::None, false);
    let why = c.over_limit.expect("over the limit");
    assert!(
        why.starts_with(
            "the array at $ has 8200 reference and 8200 output elements, whose pairing asked \
             about more than 64 fields"
        ),
        "{why}"
    );
}

#[test]
fn nested_arrays_paired_by_similarity_cost_time_linear_in_depth() {
    // Each level's pairing asks for the similarity of the pair below
    // it, whose walk asks for the one below that: with the tallies of
    // similarity walks kept, every level is walked a bounded number
    // of times, equal or not.
    const DEPTH: usize = 2_000;
    let pairing = Pairing { min_similarity: 0.5, identity: true };
    let policy = Policy { align: Align::Assignment(pairing), ..sum() };
    let rules = Exact(policy);
    let (ev, av) = (
        nested(DEPTH, false, json!({"k": 1, "j": 1, "m": 1})),
        nested(DEPTH, false, json!({"k": 1, "j": 1, "m": 2})),
    );
    let (e, a) = (Tree::from_value(&ev), Tree::from_value(&av));
    let null = Tree::from_value(&Value::Null);
    let texts = super::Texts::new(e.root(), a.root());
    for (e, a) in [(e.root(), e.root()), (e.root(), a.root())] {
        let walk = super::Walk::new(&rules, Keep::Failed, true, null.root(), &texts);
        let steps = std::rc::Rc::clone(&walk.steps);
        let c = walk.run(e, a, None);
        assert_eq!(c.counts.matched + c.counts.wrong, 3, "every level paired");
        let per_level = steps.get() as f64 / DEPTH as f64;
        assert!(per_level < 4.0, "{per_level} walks per level");
    }
    crate::json::drop_deep(ev);
    crate::json::drop_deep(av);
}

/// `n` arrays of `n` objects, each `{"items": [...]}` of `n` objects:
/// pairing the outer arrays by similarity pairs every inner array with
/// every other, `n⁴` element pairs in all.
fn nested_grid(n: u64, offset: u64) -> Value {
    (0..n)
        .map(|i| json!({"items": (0..n).map(|j| json!({"a": i * 1000 + j + offset})).collect::<Vec<_>>()}))
        .collect()
}

#[test]
fn similarity_walks_within_similarity_walks_stop_at_the_step_budget() {
    let pairing = Pairing { min_similarity: 0.5, identity: true };
    let rules = Exact(Policy { align: Align::Assignment(pairing), ..sum() });
    let (ev, av) = (nested_grid(24, 0), nested_grid(24, 1));
    let (e, a) = (Tree::from_value(&ev), Tree::from_value(&av));
    let null = Tree::from_value(&Value::Null);
    let texts = super::Texts::new(e.root(), a.root());
    let run = |budget: u64| {
        let mut walk = super::Walk::new(&rules, Keep::Failed, true, null.root(), &texts);
        walk.budget = budget;
        let steps = std::rc::Rc::clone(&walk.steps);
        (walk.run(e.root(), a.root(), None), steps.get())
    };
    // Under a budget it needs, the comparison is made.
    let (c, needed) = run(u64::MAX);
    assert_eq!(c.over_limit, None);
    assert!(needed > 24 * 24 * 24 * 24, "{needed} steps");
    // Under a smaller one, it stops there and says where and why.
    let (c, took) = run(needed / 10);
    let why = c.over_limit.expect("over the budget");
    assert!(why.starts_with("pairing the elements of the array at $ by similarity"), "{why}");
    assert!(why.contains(&format!("took more than {} steps", needed / 10)), "{why}");
    assert!(took <= needed / 10 + 100, "{took} steps for a budget of {}", needed / 10);
}

#[test]
fn keys_shared_by_many_elements_pair_by_position_past_the_pair_limit() {
    let keyed = |fallback: bool| {
        let pairing = Pairing { min_similarity: 0.5, identity: false };
        let keys = vec![String::from("k")];
        let align = Align::ByKey { keys, fallback: fallback.then_some(pairing) };
        Exact(Policy { align, ..sum() })
    };
    let side = |n: usize, v: u64| -> Value {
        (0..n).map(|i| json!({"k": "same", "v": i as u64 * 10 + v})).collect()
    };
    // 256 elements sharing one key: at the limit, paired by similarity.
    let c = compare(&keyed(false), &side(256, 0), &side(256, 1), None, Keep::None, false);
    assert_eq!(c.over_limit, None);
    // 257: past it, paired by position, saying why.
    for fallback in [false, true] {
        let c = compare(&keyed(fallback), &side(257, 0), &side(257, 1), None, Keep::None, false);
        let why = c.over_limit.expect("over the limit");
        assert!(
            why.starts_with(
                "the array at $ has 257 reference and 257 output elements that share a key"
            ),
            "{why}"
        );
        assert!(why.contains("66049 pairs, past the limit of 65536"), "{why}");
        assert_eq!(c.counts.wrong, 257);
    }
    // Without a shared key, the fallback's pairs count against the same limit.
    let unkeyed = |n: usize, v: u64| -> Value {
        (0..n).map(|i| json!({"k": format!("{i}-{v}"), "v": i as u64})).collect()
    };
    let c = compare(&keyed(true), &unkeyed(300, 0), &unkeyed(300, 1), None, Keep::None, false);
    let why = c.over_limit.expect("over the limit");
    assert!(
        why.contains(
            "300 reference and 300 output elements that share a key (or that no key paired)"
        ),
        "{why}"
    );
}

#[test]
fn a_10000_deep_document_does_not_overflow_the_stack() {
    const DEPTH: usize = 10_000;
    // A 2 MiB stack: the walk must grow its own.
    std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(|| {
            let objects = format!("${}", ".a".repeat(DEPTH));
            let arrays = format!("${}", "[0]".repeat(DEPTH));
            let e = nested(DEPTH, true, json!(1));
            let a = nested(DEPTH, true, json!(2));
            let c = compare(&Exact(sum()), &e, &a, None, Keep::Failed, true);
            let rec = (objects.as_str(), ValueMismatch, Some("1"), Some("2"));
            check("objects", &c, (0.0, 1.0), &counts(0, 0, 1, 0, 0), &[rec]);
            assert_eq!(c.fields.to_tallies().0, [field(&objects, counts(0, 0, 1, 0, 0))]);
            let c = compare(&Exact(mean()), &e, &a, None, Keep::None, false);
            assert_eq!((c.tally.matched, c.tally.total), (0.0, 1.0));
            // A deep subtree against a scalar: one mistyped container.
            let flat = json!({"a": 1});
            let c = compare(&Exact(sum()), &e, &flat, None, Keep::Failed, false);
            check(
                "deep against flat",
                &c,
                (0.0, 1.0),
                &counts(0, 0, 0, 1, 1),
                &[("$.a", TypeMismatch, Some("<object nested deeper than 64 levels>"), Some("1"))],
            );
            crate::json::drop_deep(e);
            crate::json::drop_deep(a);
            let e = nested(DEPTH, false, json!("x"));
            let c = compare(&Exact(sum()), &e, &e, None, Keep::All, true);
            assert_eq!((c.tally.matched, c.tally.total), (1.0, 1.0));
            assert_eq!(c.counts, counts(1, 0, 0, 0, 0));
            assert_eq!(c.records.len(), 1);
            assert_eq!(c.records[0].path.to_string(), arrays);
            let wild = format!("${}", "[*]".repeat(DEPTH));
            assert_eq!(c.fields.to_tallies().0, [field(&wild, counts(1, 0, 0, 0, 0))]);
            crate::json::drop_deep(e);
        })
        .expect("spawns")
        .join()
        .expect("no stack overflow");
}

/// Printed bytes of the kept records' paths.
fn kept_path_bytes(c: &Comparison) -> usize {
    c.records.iter().map(|r| r.path.to_string().len()).sum()
}

/// What the records' paths take in memory, measured on the paths as
/// allocated (not by the walk's own reckoning): each path's vector of
/// segments by its capacity, and its keys' bytes.
fn allocated_path_bytes(c: &Comparison) -> usize {
    use crate::path::{JsonPath, PathSeg};
    let key = |s: &PathSeg| if let PathSeg::Key(k) = s { k.len() } else { 0 };
    c.records
        .iter()
        .map(|r| {
            std::mem::size_of::<JsonPath>()
                + r.path.0.capacity() * std::mem::size_of::<PathSeg>()
                + r.path.0.iter().map(key).sum::<usize>()
        })
        .sum()
}

/// Every leaf under one long key repeats it in its path: past
/// `MAX_KEPT_PATH_BYTES`, records are omitted and counted, and the field
/// tallies whose paths did not fit are counted as dropped; the score and
/// counts still see every leaf.
#[test]
fn paths_under_a_long_key_are_kept_within_their_byte_budget() {
    let key = "k".repeat(100_000);
    let leaves = 60;
    let side = |v: u64| {
        let inner: serde_json::Map<String, Value> =
            (0..leaves).map(|i| (format!("f{i}"), json!(v))).collect();
        json!({ key.clone(): inner })
    };
    let (e, a) = (side(1), side(2));
    let c = compare(&Exact(sum()), &e, &a, None, Keep::Failed, true);
    let limit = crate::limits::MAX_KEPT_PATH_BYTES;
    assert_eq!(c.counts.wrong, leaves);
    assert!(!c.records.is_empty() && c.records.len() < 11, "{}", c.records.len());
    assert!(kept_path_bytes(&c) <= limit);
    assert!(allocated_path_bytes(&c) <= limit, "{}", allocated_path_bytes(&c));
    assert_eq!(c.records.len() as u64 + c.omitted, leaves);
    // Every field is tallied; printed, only those that fit are kept.
    assert_eq!(c.fields.len() as u64, leaves);
    let (fields, dropped) = c.fields.to_tallies();
    let printed: usize = fields.iter().map(|f| f.path.len()).sum();
    assert!(!fields.is_empty() && printed <= limit, "{printed}");
    let tallied: u64 = fields.iter().map(|f| f.counts.total()).sum();
    assert_eq!(tallied + dropped, leaves);
    assert!(dropped > 0);
    // Short paths are all kept.
    let short = compare(
        &Exact(sum()),
        &json!({"a": [1, 2]}),
        &json!({"a": [3, 4]}),
        None,
        Keep::Failed,
        true,
    );
    assert_eq!((short.records.len(), short.omitted, short.fields.to_tallies().1), (2, 0, 0));
}

/// An object nested 20,000 levels with a differing leaf at each: the
/// kept paths and the field paths stay within the budget (they were the
/// square of the depth: 400 MB).
#[test]
fn paths_of_a_deep_document_are_kept_within_their_byte_budget() {
    let nest = |leaf: u64| {
        let mut text = String::new();
        let depth = 20_000;
        for _ in 0..depth {
            text.push_str(&format!("{{\"v\":{leaf},\"n\":"));
        }
        text.push_str("null");
        text.push_str(&"}".repeat(depth));
        text
    };
    let (e, a) = (nest(1), nest(2));
    let (e, a) =
        (crate::fast_json::read_deep(&e).unwrap(), crate::fast_json::read_deep(&a).unwrap());
    let c =
        crate::engine::compare_nodes(&Exact(sum()), e.root(), a.root(), None, Keep::Failed, true);
    let limit = crate::limits::MAX_KEPT_PATH_BYTES;
    assert_eq!(c.counts.wrong, 20_000);
    assert!(kept_path_bytes(&c) <= limit);
    assert_eq!(c.records.len() as u64 + c.omitted, 20_000);
    // `n` is walked before `v`: the deepest paths (40 KB printed, 20,000
    // segments) come first, and what they hold in memory is bounded too.
    assert!(!c.records.is_empty());
    let held: usize = c
        .records
        .iter()
        .map(|r| {
            let segs = r.path.segs();
            std::mem::size_of::<crate::path::JsonPath>() + segs.map(|s| s.kept_len()).sum::<usize>()
        })
        .sum();
    assert!(held <= limit, "{held} bytes of paths held");
    let allocated = allocated_path_bytes(&c);
    assert!(allocated <= limit, "{allocated} bytes of paths allocated");
    let (fields, dropped) = c.fields.to_tallies();
    let printed: usize = fields.iter().map(|f| f.path.len()).sum();
    assert!(printed <= limit, "{printed}");
    // The shallowest fields are kept: `$.v`, `$.n.v`, ...
    assert!(fields.len() > 1_000 && fields.iter().any(|f| f.path == "$.v"));
    let tallied: u64 = fields.iter().map(|f| f.counts.total()).sum();
    assert_eq!(tallied + dropped, 20_000 + 1);
}

/// [`Exact`] whose leaves count their comparisons, declared costly or
/// not, with a note on every leaf that is not a match.
struct Counted {
    policy: Policy,
    costly: bool,
    compared: std::sync::atomic::AtomicUsize,
}

impl Rules for Counted {
    fn policy(&self) -> &Policy {
        &self.policy
    }

    fn leaf(&self, e: Node<'_>, a: Node<'_>, _: &NodeRule) -> Leaf {
        self.compared.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        crate::json::with_values(e, a, exact_leaf)
    }

    fn explain(&self, e: Node<'_>, a: Node<'_>, _: &NodeRule) -> Option<String> {
        Some(format!("{} against {}", e.compact(), a.compact()))
    }

    fn costly_leaves(&self) -> bool {
        self.costly
    }
}

#[test]
fn costly_leaves_compared_for_pairing_are_not_compared_again() {
    let pairing = Pairing { min_similarity: 0.3, identity: false };
    let policy = Policy { align: Align::Assignment(pairing), ..sum() };
    let e = json!([{"id": "a", "x": 1, "y": "p"}, {"id": "b", "x": 2, "y": "q"}]);
    let a = json!([{"id": "b", "x": 3, "y": "Q"}, {"id": "a", "x": 1, "y": "r"}]);
    let run = |costly: bool| {
        let m = Counted { policy: policy.clone(), costly, compared: 0.into() };
        let c = compare(&m, &e, &a, None, Keep::Failed, true);
        (format!("{c:?}"), m.compared.into_inner())
    };
    let (again, plain_count) = run(false);
    let (kept, costly_count) = run(true);
    assert_eq!(kept, again, "the same comparison, records and notes");
    assert!(again.contains("\"3\" against") || again.contains("2 against 3"), "{again}");
    // Pairing weighs all four pairs (12 leaves); the two pairs made are
    // compared again for the score (6 leaves) unless kept.
    assert_eq!((plain_count, costly_count), (18, 12));
}
