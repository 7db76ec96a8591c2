//! The `exact` comparator.

use serde_json::Value;

use super::{Normalizer, normalize};
use crate::engine::{Leaf, json_equal};
use crate::number::exact_eq;

/// Exact comparison of two scalars: strings equal after the normalizers,
/// numbers equal by value (`1 == 1.0`, integers exactly), booleans equal;
/// different types are a type mismatch.
pub(super) fn compare(e: &Value, a: &Value, normalizers: &[Normalizer]) -> Leaf {
    match (e, a) {
        (Value::String(x), Value::String(y)) => {
            Leaf::exact(normalize(x, normalizers) == normalize(y, normalizers))
        }
        (Value::Number(x), Value::Number(y)) => Leaf::exact(exact_eq(x, y)),
        (Value::Bool(x), Value::Bool(y)) => Leaf::exact(x == y),
        (Value::Null, Value::Null) => Leaf::MATCH,
        _ if json_equal(e, a) => Leaf::MATCH,
        _ => Leaf::TYPE,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn table() {
        let cases = [
            (json!(1), json!(1.0), Leaf::MATCH),
            (json!(-0.0), json!(0), Leaf::MATCH),
            (json!(0.1), json!(0.1), Leaf::MATCH),
            (json!(1), json!(2), Leaf::WRONG),
            (json!(9_007_199_254_740_993_u64), json!(9_007_199_254_740_992_u64), Leaf::WRONG),
            (json!(9_007_199_254_740_993_u64), json!(9_007_199_254_740_992.0), Leaf::WRONG),
            (json!(u64::MAX), json!(u64::MAX), Leaf::MATCH),
            (json!(1e308), json!(1e308), Leaf::MATCH),
            (json!("a"), json!("a"), Leaf::MATCH),
            (json!("a"), json!("A"), Leaf::WRONG),
            (json!(""), json!(""), Leaf::MATCH),
            (json!(true), json!(true), Leaf::MATCH),
            (json!(true), json!(false), Leaf::WRONG),
            (json!(true), json!(1), Leaf::TYPE),
            (json!(1), json!("1"), Leaf::TYPE),
            (json!("null"), json!(null), Leaf::TYPE),
        ];
        for (e, a, want) in cases {
            assert_eq!(compare(&e, &a, &[]), want, "{e} vs {a}");
        }
    }

    #[test]
    fn normalizers_apply_to_strings() {
        let n = [Normalizer::Casefold, Normalizer::Trim];
        assert_eq!(compare(&json!(" ACME "), &json!("acme"), &n), Leaf::MATCH);
        assert_eq!(compare(&json!("ACME"), &json!("acme."), &n), Leaf::WRONG);
    }
}
