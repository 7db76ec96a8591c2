//! Deep JSON equality, the one equality the engine and the comparators share.

use serde_json::Value;

use crate::number::exact_eq;
use crate::tree::{Kind, Node, Tree};

/// Deep JSON equality with numbers compared by value (`1 == 1.0`, as
/// [`exact_eq`]) and strings as written. Iterative: any depth is safe.
pub fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Array(_) | Value::Object(_), Value::Array(_) | Value::Object(_)) => {
            nodes_equal(Tree::from_value(a).root(), Tree::from_value(b).root())
        }
        (Value::Number(p), Value::Number(q)) => exact_eq(p, q),
        _ => a == b,
    }
}

/// [`json_equal`] of two tree nodes. A node is equal to itself at once
/// (the fast reader gives two members written alike one node).
pub fn nodes_equal(a: Node<'_>, b: Node<'_>) -> bool {
    a.id() == b.id() || shallow_equal(a, b, 0).unwrap_or_else(|| deep_equal(a, b))
}

/// Nesting below which [`shallow_equal`] recurses; deeper documents are
/// compared with a heap stack.
const SHALLOW: u32 = 48;

/// Equality without allocating (leaves and the usual shallow documents):
/// `None` when the documents nest deeper than [`SHALLOW`] before they
/// differ.
fn shallow_equal(x: Node<'_>, y: Node<'_>, depth: u32) -> Option<bool> {
    if let Some(same) = same_leaf(x, y) {
        return Some(same);
    }
    Some(match x.kind() {
        _ if depth >= SHALLOW => return None,
        Kind::Array => {
            if x.len() != y.len() {
                return Some(false);
            }
            for (v, w) in x.items().zip(y.items()) {
                if !shallow_equal(v, w, depth + 1)? {
                    return Some(false);
                }
            }
            true
        }
        Kind::Object => {
            if x.len() != y.len() {
                return Some(false);
            }
            for ((k, v), (l, w)) in x.entries().zip(y.entries()) {
                if k != l || !shallow_equal(v, w, depth + 1)? {
                    return Some(false);
                }
            }
            true
        }
        _ => false,
    })
}

/// Equality of two nodes when either is no container (different kinds
/// differ); `None` for two containers of one kind, whose items decide.
fn same_leaf(x: Node<'_>, y: Node<'_>) -> Option<bool> {
    if x.kind() != y.kind() {
        return Some(false);
    }
    Some(match x.kind() {
        Kind::Null => true,
        Kind::Bool => x.as_bool() == y.as_bool(),
        Kind::Number => match (x.as_number(), y.as_number()) {
            (Some(p), Some(q)) => exact_eq(p, q),
            _ => false,
        },
        Kind::String => x.as_str() == y.as_str(),
        Kind::Array | Kind::Object => return None,
    })
}

/// Equality at any depth, iterative.
fn deep_equal(a: Node<'_>, b: Node<'_>) -> bool {
    let mut stack = vec![(a, b)];
    while let Some((x, y)) = stack.pop() {
        if let Some(same) = same_leaf(x, y) {
            if !same {
                return false;
            }
            continue;
        }
        let same = match x.kind() {
            Kind::Array => {
                x.len() == y.len() && {
                    stack.extend(x.items().zip(y.items()));
                    true
                }
            }
            Kind::Object => {
                x.len() == y.len()
                    && x.entries().zip(y.entries()).all(|((k, v), (l, w))| {
                        stack.push((v, w));
                        k == l
                    })
            }
            _ => false,
        };
        if !same {
            return false;
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
        // Deeper than the shallow walk, differing at the bottom only.
        let nest = |leaf: Value| (0..60).fold(leaf, |v, _| json!([0, {"k": v}]));
        assert!(json_equal(&nest(json!(1)), &nest(json!(1.0))));
        assert!(!json_equal(&nest(json!(1)), &nest(json!(2))));
        assert!(!json_equal(&nest(json!({"a": 1})), &nest(json!({"b": 1}))));
        crate::json::drop_deep(deep);
    }
}
