//! The default comparator, used where no rule names one.

use serde_json::{Number, Value};

use super::numeric::ROUNDING;
use super::{Normalizer, below_one, normalize};
use crate::engine::Leaf;
use crate::number::{exact_eq, to_f64};
use crate::text::normalized_levenshtein_at_least;

/// Relative difference within which unequal numbers get partial credit.
pub const NUMBER_PARTIAL_WITHIN: f64 = 0.01;

/// String similarity from which unequal strings get partial credit.
pub const STRING_PARTIAL_FROM: f64 = 0.8;

/// Strict types; numbers equal by value match, and within 1 % of the
/// expected value get `1 − |e−a|/|e|`; strings equal after the normalizers
/// match, and with normalized Levenshtein similarity `s ≥ 0.8` get `s`;
/// everything else is a value or type mismatch.
pub(super) fn compare(e: &Value, a: &Value, normalizers: &[Normalizer]) -> Leaf {
    match (e, a) {
        (Value::Number(x), Value::Number(y)) => numbers(x, y),
        (Value::String(x), Value::String(y)) => {
            strings(&normalize(x, normalizers), &normalize(y, normalizers))
        }
        (Value::Bool(x), Value::Bool(y)) => Leaf::exact(x == y),
        (Value::Null, Value::Null) => Leaf::MATCH,
        _ => Leaf::TYPE,
    }
}

/// Two numbers as the default comparator compares them: equal by value
/// match, within 1 % of the expected value get `1 − |e−a|/|e|`, others
/// are wrong.
pub(super) fn numbers(x: &Number, y: &Number) -> Leaf {
    if exact_eq(x, y) {
        return Leaf::MATCH;
    }
    match relative_difference(to_f64(x), to_f64(y)) {
        Some(d) if d <= NUMBER_PARTIAL_WITHIN * (1.0 + ROUNDING) => below_one(1.0 - d),
        _ => Leaf::WRONG,
    }
}

/// Two strings as the default comparator compares them once normalized:
/// equal ones match, others with normalized Levenshtein similarity
/// `s ≥ 0.8` get `s`, the rest are wrong.
pub(super) fn strings(x: &str, y: &str) -> Leaf {
    if x == y {
        return Leaf::MATCH;
    }
    let s = normalized_levenshtein_at_least(x, y, STRING_PARTIAL_FROM);
    if s >= STRING_PARTIAL_FROM { below_one(s) } else { Leaf::WRONG }
}

/// `|e − a| / |e|` computed on halves (no overflow); `None` when `e = 0`.
fn relative_difference(e: f64, a: f64) -> Option<f64> {
    let he = (e / 2.0).abs();
    if he == 0.0 || !he.is_finite() {
        return None;
    }
    let d = (e / 2.0 - a / 2.0).abs() / he;
    d.is_finite().then_some(d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detail::Outcome;
    use serde_json::json;

    fn partial(score: f64) -> Leaf {
        Leaf { score, outcome: Outcome::Partial }
    }

    #[test]
    fn table() {
        let cases = [
            (json!(null), json!(null), Leaf::MATCH),
            (json!(true), json!(true), Leaf::MATCH),
            (json!(true), json!(false), Leaf::WRONG),
            (json!(1), json!(1.0), Leaf::MATCH),
            (json!(12.5), json!(12.5), Leaf::MATCH),
            (json!(100), json!(99), partial(0.99)),
            (json!(100), json!(101), partial(0.99)),
            (json!(100), json!(99.5), partial(0.995)),
            (json!(100), json!(98.9), Leaf::WRONG),
            (json!(100), json!(-100), Leaf::WRONG),
            (json!(0), json!(1e-300), Leaf::WRONG),
            (json!(1e-300), json!(0), Leaf::WRONG),
            (json!(1e308), json!(-1e308), Leaf::WRONG),
            (json!(12.5), json!("12.50"), Leaf::TYPE),
            (json!("12.50"), json!(12.5), Leaf::TYPE),
            (json!(1), json!(true), Leaf::TYPE),
            (json!("true"), json!(true), Leaf::TYPE),
            (json!("ACME"), json!("ACME"), Leaf::MATCH),
            (json!(""), json!(""), Leaf::MATCH),
            (json!(""), json!("x"), Leaf::WRONG),
            (json!("ACME Corp"), json!("ACME Corp."), partial(0.9)),
            (json!("pepperoni"), json!("peppers"), Leaf::WRONG),
            (json!("acme"), json!("ACME"), Leaf::WRONG),
        ];
        for (e, a, want) in cases {
            let got = compare(&e, &a, &[]);
            assert_eq!(got.outcome, want.outcome, "{e} vs {a}");
            assert!((got.score - want.score).abs() < 1e-12, "{e} vs {a}: {got:?}");
        }
    }

    #[test]
    fn normalizers_decide_string_equality() {
        let n = [Normalizer::Casefold];
        assert_eq!(compare(&json!("ACME"), &json!("acme"), &n), Leaf::MATCH);
        let got = compare(&json!("Cancelled"), &json!("canceled"), &n);
        assert_eq!(got.outcome, Outcome::Partial);
        assert!((got.score - 8.0 / 9.0).abs() < 1e-12);
    }

    #[test]
    fn near_equal_numbers_stay_below_one() {
        let got =
            compare(&json!(9_007_199_254_740_993_u64), &json!(9_007_199_254_740_992_u64), &[]);
        assert_eq!(got.outcome, Outcome::Partial);
        assert!(got.score < 1.0);
        let got = compare(&json!(1.7e308), &json!(1.7e308 * 0.995), &[]);
        assert_eq!(got.outcome, Outcome::Partial);
        assert!((got.score - 0.995).abs() < 1e-12);
    }
}
