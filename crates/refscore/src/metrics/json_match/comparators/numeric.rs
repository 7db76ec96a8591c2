//! The `numeric` comparator: absolute and relative tolerance, optional
//! partial credit.

use serde_json::{Number, Value};

use super::{Normalizer, below_one, exact};
use crate::engine::Leaf;
use crate::number::{as_i128, exact_eq, normalized_difference, to_f64};

/// Rounding allowance, in units of the larger magnitude, so that decimal
/// tolerances behave as written (`1.0` vs `1.01` with `abs_tol` 0.01 is
/// within: the doubles differ by 0.010000000000000009).
pub(super) const ROUNDING: f64 = 4.0 * f64::EPSILON;

/// Two numbers: a match when `|e − a| ≤ max(abs_tol, rel_tol·|e|)`;
/// otherwise `1 − |e−a|/(|e|+|a|)` (kept below 1) when `partial`, else a
/// value mismatch. Other values are compared as `exact` does.
pub(super) fn compare(
    e: &Value,
    a: &Value,
    normalizers: &[Normalizer],
    abs_tol: f64,
    rel_tol: f64,
    partial: bool,
) -> Leaf {
    let (Value::Number(x), Value::Number(y)) = (e, a) else {
        return exact::compare(e, a, normalizers);
    };
    if exact_eq(x, y) {
        return Leaf::MATCH;
    }
    let (fe, fa) = (to_f64(x), to_f64(y));
    let tol = sane(abs_tol).max(sane(rel_tol) * fe.abs());
    if within(x, y, tol) {
        Leaf::MATCH
    } else if partial {
        below_one(normalized_difference(fe, fa))
    } else {
        Leaf::WRONG
    }
}

/// A tolerance as given, with NaN and negatives read as 0.
fn sane(t: f64) -> f64 {
    if t.is_nan() { 0.0 } else { t.max(0.0) }
}

/// Whether `|x − y| ≤ tol`. Integers (i64/u64) are subtracted exactly;
/// other numbers as doubles, on halves so nothing overflows, with the
/// [`ROUNDING`] allowance when `tol > 0`.
pub(super) fn within(x: &Number, y: &Number, tol: f64) -> bool {
    if let (Some(i), Some(j)) = (as_i128(x), as_i128(y)) {
        // i64/u64 values: the difference fits i128 and its magnitude u128.
        return (i.abs_diff(j) as f64) <= tol;
    }
    let (fx, fy) = (to_f64(x), to_f64(y));
    if tol <= 0.0 {
        return fx == fy;
    }
    let half_diff = (fx / 2.0 - fy / 2.0).abs();
    let slack = ROUNDING * fx.abs().max(fy.abs());
    half_diff.is_finite() && half_diff <= tol / 2.0 + slack / 2.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detail::Outcome;
    use serde_json::json;

    fn num(e: Value, a: Value, abs: f64, rel: f64, partial: bool) -> Leaf {
        compare(&e, &a, &[], abs, rel, partial)
    }

    #[test]
    fn tolerance_table() {
        let cases = [
            (json!(100.0), json!(100.004), 0.01, 0.0, true),
            (json!(1.0), json!(1.01), 0.01, 0.0, true),
            (json!(1.0), json!(0.99), 0.01, 0.0, true),
            (json!(1.0), json!(1.02), 0.01, 0.0, false),
            (json!(1000), json!(1010), 0.0, 0.01, true),
            (json!(1000), json!(1011), 0.0, 0.01, false),
            (json!(1000), json!(990), 0.0, 0.01, true),
            (json!(0), json!(0.001), 0.0, 0.5, false),
            (json!(0), json!(0.001), 0.001, 0.5, true),
            (json!(0.1), json!(0.30000000000000004 - 0.2), 1e-9, 0.0, true),
            (json!(5), json!(5.0), 0.0, 0.0, true),
            (json!(9_007_199_254_740_993_u64), json!(9_007_199_254_740_992_u64), 0.0, 0.0, false),
            (json!(9_007_199_254_740_993_u64), json!(9_007_199_254_740_992_u64), 1.0, 0.0, true),
            (json!(u64::MAX), json!(i64::MIN), 0.0, 0.0, false),
            (json!(u64::MAX), json!(i64::MIN), f64::INFINITY, 0.0, true),
            (json!(1e308), json!(-1e308), 1e300, 0.5, false),
            (json!(1e308), json!(1.5e308), 0.0, 0.5, true),
            (json!(f64::MAX), json!(-f64::MAX), f64::MAX, 0.0, false),
        ];
        for (e, a, abs, rel, want) in cases {
            let got = num(e.clone(), a.clone(), abs, rel, false);
            assert_eq!(got == Leaf::MATCH, want, "{e} vs {a} abs {abs} rel {rel}");
        }
    }

    #[test]
    fn partial_credit() {
        let got = num(json!(19), json!(39), 0.0, 0.0, true);
        assert_eq!(got.outcome, Outcome::Partial);
        assert!((got.score - (1.0 - 20.0 / 58.0)).abs() < 1e-12);
        assert_eq!(num(json!(19), json!(39), 0.0, 0.0, false), Leaf::WRONG);
        assert_eq!(num(json!(5), json!(-5), 0.0, 0.0, true), Leaf::WRONG);
        assert_eq!(num(json!(0), json!(0.5), 0.0, 0.0, true), Leaf::WRONG);
        // Differs by 1 in 2^53: the similarity rounds to 1 but is no match.
        let got =
            num(json!(9_007_199_254_740_993_u64), json!(9_007_199_254_740_992_u64), 0.0, 0.0, true);
        assert_eq!(got.outcome, Outcome::Partial);
        assert!(got.score < 1.0 && got.score > 0.999);
        let big = num(json!(1.7e308), json!(1e308), 0.0, 0.0, true);
        assert!((big.score - (1.0 - 0.7 / 2.7)).abs() < 1e-12);
    }

    #[test]
    fn insane_tolerances_are_safe() {
        assert_eq!(num(json!(1), json!(2), f64::NAN, f64::NAN, false), Leaf::WRONG);
        assert_eq!(num(json!(1), json!(2), -5.0, -1.0, false), Leaf::WRONG);
        assert_eq!(num(json!(0), json!(2), 0.0, f64::INFINITY, false), Leaf::WRONG);
        assert_eq!(num(json!(1), json!(2), 0.0, f64::INFINITY, false), Leaf::MATCH);
    }

    #[test]
    fn other_types() {
        assert_eq!(num(json!(1), json!("1"), 1.0, 0.0, true), Leaf::TYPE);
        assert_eq!(num(json!(true), json!(1), 1.0, 0.0, true), Leaf::TYPE);
        assert_eq!(num(json!("a"), json!("a"), 1.0, 0.0, true), Leaf::MATCH);
        assert_eq!(num(json!(true), json!(false), 1.0, 0.0, true), Leaf::WRONG);
    }
}
