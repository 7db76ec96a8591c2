//! Properties of json_match: identity, order-freedom, range, and
//! precision/recall/F1 consistent with the verdict counts.

use libtest_mimic::Trial;
use proptest::prelude::*;
use proptest::test_runner::TestCaseResult;
use refscore::metrics::{BuildContext, build};
use refscore::{EvalInput, Evaluator, Score};
use serde_json::{Map, Value, json};

use crate::properties::json_value;

fn json_match(options: Value) -> Box<dyn Evaluator> {
    let opts: Map<String, Value> = serde_json::from_value(options).expect("options");
    build("json_match", &opts, &BuildContext::default()).expect("json_match builds")
}

fn score(m: &dyn Evaluator, output: &Value, reference: &Value) -> Score {
    m.evaluate(&EvalInput::pair(output.clone(), reference.clone()))
        .expect("evaluates")
        .scores
        .remove(0)
}

fn field(s: &Score, name: &str) -> u64 {
    s.metadata["fields"][name].as_u64().expect("a count")
}

/// Line items with unique ids and fields drawn from a space large enough
/// that two different items never look alike by chance.
fn items() -> impl Strategy<Value = Vec<Value>> {
    prop::collection::vec(("[a-z]{8}", 0u32..1_000_000, "[a-z]{10}"), 1..12).prop_map(|rows| {
        rows.into_iter()
            .enumerate()
            .map(|(i, (name, price, note))| json!({"id": format!("item-{i}"), "name": name, "price": price, "note": note}))
            .collect()
    })
}

/// An output made from the reference items: some kept, some with one
/// field changed, some dropped, plus some invented ones.
fn output_items(reference: Vec<Value>) -> impl Strategy<Value = (Vec<Value>, Vec<Value>)> {
    let n = reference.len();
    (prop::collection::vec(0u8..4, n), prop::collection::vec("[A-Z]{9}", 0..3), any::<u64>())
        .prop_map(move |(fates, invented, seed)| {
            let mut out = Vec::new();
            for (item, fate) in reference.iter().zip(&fates) {
                match fate {
                    0 | 1 => out.push(item.clone()),
                    2 => {
                        let mut changed = item.clone();
                        changed["price"] = json!(item["price"].as_u64().unwrap_or(0) + 1_000_001);
                        out.push(changed);
                    }
                    _ => {}
                }
            }
            for (k, name) in invented.into_iter().enumerate() {
                out.push(
                    json!({"id": format!("new-{k}"), "name": name, "price": 7, "note": "invented"}),
                );
            }
            // A deterministic shuffle of the output order.
            let mut shuffled = out.clone();
            let mut s = seed | 1;
            for i in (1..shuffled.len()).rev() {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                let j = usize::try_from(s % (i as u64 + 1)).unwrap_or(0);
                shuffled.swap(i, j);
            }
            (out, shuffled)
        })
}

const CASES: u32 = 128;

/// The json_match property tests, one trial each.
pub(crate) fn trials() -> Vec<Trial> {
    let config = || ProptestConfig::with_cases(CASES);
    vec![
        crate::property(
            "match_properties::a_value_scores_one_against_itself",
            file!(),
            config(),
            json_value,
            a_value_scores_one_against_itself,
        ),
        crate::property(
            "match_properties::scores_stay_in_range_and_agree_with_counts",
            file!(),
            config(),
            || (json_value(), json_value()),
            scores_stay_in_range_and_agree_with_counts,
        ),
        crate::property(
            "match_properties::shuffling_scalars_under_unordered_changes_nothing",
            file!(),
            config(),
            || {
                (
                    prop::collection::vec(0i32..6, 0..10),
                    prop::collection::vec(0i32..6, 0..10),
                    0usize..10,
                )
            },
            shuffling_scalars_under_unordered_changes_nothing,
        ),
        crate::property(
            "match_properties::shuffling_line_items_under_assignment_changes_nothing",
            file!(),
            config(),
            || items().prop_flat_map(|r| (Just(r.clone()), output_items(r))),
            shuffling_line_items_under_assignment_changes_nothing,
        ),
        crate::property(
            "match_properties::a_single_value_change_is_flagged_at_its_path",
            file!(),
            config(),
            || (invoice(), any::<prop::sample::Index>(), 1u32..400, any::<prop::sample::Index>()),
            a_single_value_change_is_flagged_at_its_path,
        ),
    ]
}

/// An invoice-like reference: identifiers, free text, a date, numbers and
/// line items.
fn invoice() -> impl Strategy<Value = Value> {
    (
        "[A-Z]{3}-[0-9]{4}",
        "[A-Z][a-z]{3,8} [A-Z][a-z]{3,8}",
        0i64..20_000,
        0u64..100_000_000,
        items(),
    )
        .prop_map(|(number, name, days, cents, items)| {
            let date = civil(days);
            #[allow(clippy::cast_precision_loss)]
            let total = cents as f64 / 100.0;
            json!({"number": number, "vendor": {"name": name}, "date": date, "total": total, "items": items})
        })
}

/// `YYYY-MM-DD` of `days` after 1970-01-01.
fn civil(days: i64) -> String {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    format!("{:04}-{m:02}-{d:02}", yoe + era * 400 + i64::from(m <= 2))
}

/// Every leaf of `v` as (printed path, JSON pointer).
fn leaves(v: &Value, path: &str, ptr: &str, out: &mut Vec<(String, String)>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                leaves(x, &format!("{path}.{k}"), &format!("{ptr}/{k}"), out);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                leaves(x, &format!("{path}[{i}]"), &format!("{ptr}/{i}"), out);
            }
        }
        _ => out.push((path.to_owned(), ptr.to_owned())),
    }
}

/// One value changed: a number moved by `step` cents or units, a date by
/// `step` days, a string with one character replaced by another letter
/// (whatever the case) or digit.
fn changed(v: &Value, step: u32, at: prop::sample::Index) -> Value {
    match v {
        Value::Number(n) => match n.as_u64() {
            Some(x) => json!(x + u64::from(step)),
            None => json!(n.as_f64().unwrap_or(0.0) + f64::from(step) / 100.0),
        },
        Value::String(s) if s.len() == 10 && s.as_bytes()[4] == b'-' && s.as_bytes()[7] == b'-' => {
            let days: i64 = (0..40_000).find(|d| civil(*d) == *s).unwrap_or(0);
            json!(civil(days + i64::from(step)))
        }
        Value::String(s) => {
            let mut chars: Vec<char> = s.chars().collect();
            let spots: Vec<usize> =
                (0..chars.len()).filter(|&i| chars[i].is_ascii_alphanumeric()).collect();
            let i = spots[at.index(spots.len())];
            let c = chars[i];
            chars[i] = if c.is_ascii_digit() {
                if c == '9' { '0' } else { char::from(c as u8 + 1) }
            } else if c.eq_ignore_ascii_case(&'q') {
                'x'
            } else {
                'q'
            };
            json!(chars.into_iter().collect::<String>())
        }
        other => other.clone(),
    }
}

fn a_single_value_change_is_flagged_at_its_path(
    (reference, which, step, at): (Value, prop::sample::Index, u32, prop::sample::Index),
) -> TestCaseResult {
    let mut paths = Vec::new();
    leaves(&reference, "$", "", &mut paths);
    let (path, ptr) = &paths[which.index(paths.len())];
    let mut output = reference.clone();
    let target = output.pointer_mut(ptr).expect("a leaf");
    *target = changed(target, step, at);
    let m = json_match(json!({}));
    let s = score(m.as_ref(), &output, &reference);
    let failed: Vec<String> = s
        .details
        .iter()
        .filter(|d| !d.passed)
        .filter_map(|d| d.check.path().map(ToString::to_string))
        .collect();
    prop_assert_eq!(&failed, &vec![path.clone()], "{} in {}", path, output);
    Ok(())
}

fn a_value_scores_one_against_itself(v: Value) -> TestCaseResult {
    // Arbitrary values, strings included, are values: text that starts like
    // broken JSON would be `invalid` under the default decode rule.
    let m = json_match(json!({"decode": "value"}));
    let s = score(m.as_ref(), &v, &v);
    prop_assert_eq!(s.score, Some(1.0), "{}", v);
    prop_assert_eq!(field(&s, "wrong") + field(&s, "missing") + field(&s, "extra"), 0);
    Ok(())
}

fn scores_stay_in_range_and_agree_with_counts((a, b): (Value, Value)) -> TestCaseResult {
    // Arbitrary values, strings included, are values: text that starts like
    // broken JSON would be `invalid` under the default decode rule.
    let m = json_match(json!({"decode": "value"}));
    let s = score(m.as_ref(), &a, &b);
    let x = s.score.expect("a score");
    prop_assert!((0.0..=1.0).contains(&x), "{}", x);
    let (matched, partial, wrong) =
        (field(&s, "matched"), field(&s, "partial"), field(&s, "wrong"));
    let (missing, extra) = (field(&s, "missing"), field(&s, "extra"));
    let p = s.metadata["precision"].as_f64().unwrap();
    let r = s.metadata["recall"].as_f64().unwrap();
    let f = s.metadata["f1"].as_f64().unwrap();
    for v in [p, r, f] {
        prop_assert!((0.0..=1.0).contains(&v));
    }
    if partial == 0 {
        // Without partial credit, credit is the matched count.
        let out_fields = matched + wrong + extra;
        let ref_fields = matched + wrong + missing;
        #[allow(clippy::cast_precision_loss)]
        let (want_p, want_r) = (
            if out_fields == 0 {
                if ref_fields == 0 { 1.0 } else { 0.0 }
            } else {
                matched as f64 / out_fields as f64
            },
            if ref_fields == 0 {
                if out_fields == 0 { 1.0 } else { 0.0 }
            } else {
                matched as f64 / ref_fields as f64
            },
        );
        prop_assert!((p - want_p).abs() < 1e-12, "precision {} vs {}", p, want_p);
        prop_assert!((r - want_r).abs() < 1e-12, "recall {} vs {}", r, want_r);
    }
    let want_f = if p + r > 0.0 { 2.0 * p * r / (p + r) } else { 0.0 };
    prop_assert!((f - want_f).abs() < 1e-12);
    if x == 1.0 {
        prop_assert_eq!(wrong + missing + extra + partial, 0);
    }
    Ok(())
}

fn shuffling_scalars_under_unordered_changes_nothing(
    (reference, output, rot): (Vec<i32>, Vec<i32>, usize),
) -> TestCaseResult {
    let m = json_match(json!({"rules": {"defaults": {"array": "unordered"}}}));
    let mut turned = output.clone();
    if !turned.is_empty() {
        let k = rot % turned.len();
        turned.rotate_left(k);
        turned.reverse();
    }
    let a = score(m.as_ref(), &json!({"tags": output}), &json!({"tags": reference}));
    let b = score(m.as_ref(), &json!({"tags": turned}), &json!({"tags": reference}));
    prop_assert_eq!(a.score, b.score);
    Ok(())
}

fn shuffling_line_items_under_assignment_changes_nothing(
    (reference, (output, shuffled)): (Vec<Value>, (Vec<Value>, Vec<Value>)),
) -> TestCaseResult {
    let m = json_match(json!({"rules": {"defaults": {"array": "assignment"}}}));
    let a = score(m.as_ref(), &json!({"items": output}), &json!({"items": reference}));
    let b = score(m.as_ref(), &json!({"items": shuffled}), &json!({"items": reference}));
    prop_assert_eq!(a.score, b.score);
    prop_assert_eq!(&a.metadata["fields"], &b.metadata["fields"]);
    let auto = json_match(json!({}));
    let c = score(auto.as_ref(), &json!({"items": shuffled}), &json!({"items": reference}));
    prop_assert_eq!(a.score, c.score);
    Ok(())
}
