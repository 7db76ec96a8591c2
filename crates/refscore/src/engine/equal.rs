//! Deep JSON equality, the one equality the engine and the comparators share.

use serde_json::Value;

use crate::number::exact_eq;

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
