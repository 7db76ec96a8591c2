//! The `exact` comparator and deep JSON equality.

use serde_json::Value;

use super::{Normalizer, normalize};
use crate::engine::Leaf;
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

/// Deep JSON equality with numbers compared by value (`1 == 1.0`, as
/// [`exact_eq`]) and strings as written. Iterative: any depth is safe.
pub fn json_equal(a: &Value, b: &Value) -> bool {
    let mut stack = vec![(a, b)];
    while let Some((x, y)) = stack.pop() {
        match (x, y) {
            (Value::Null, Value::Null) => {}
            (Value::Bool(p), Value::Bool(q)) if p == q => {}
            (Value::Number(p), Value::Number(q)) if exact_eq(p, q) => {}
            (Value::String(p), Value::String(q)) if p == q => {}
            (Value::Array(p), Value::Array(q)) if p.len() == q.len() => {
                stack.extend(p.iter().zip(q));
            }
            (Value::Object(p), Value::Object(q)) if p.len() == q.len() => {
                for (k, v) in p {
                    match q.get(k) {
                        Some(w) => stack.push((v, w)),
                        None => return false,
                    }
                }
            }
            _ => return false,
        }
    }
    true
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

    #[test]
    fn deep_equality() {
        assert!(json_equal(&json!({"a": [1, {"b": null}]}), &json!({"a": [1.0, {"b": null}]})));
        assert!(!json_equal(&json!({"a": 1}), &json!({"b": 1})));
        assert!(!json_equal(&json!({"a": 1}), &json!({"a": 1, "b": 2})));
        assert!(!json_equal(&json!([1, 2]), &json!([2, 1])));
        assert!(!json_equal(&json!([1]), &json!([1, 1])));
        assert!(!json_equal(&json!("1"), &json!(1)));
        let deep = (0..200_000).fold(json!("x"), |v, _| {
            Value::Object(std::iter::once(("k".to_string(), v)).collect())
        });
        assert!(json_equal(&deep, &deep));
        crate::json::drop_deep(deep);
    }
}
