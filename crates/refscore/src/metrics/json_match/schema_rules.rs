//! Rules derived from a JSON Schema: json_match's `rules_from_schema`.
//!
//! | schema | derived rule |
//! |---|---|
//! | `enum` of strings | `compare: {type: enum, values: [...]}` |
//! | `enum` of other values | `compare: exact` |
//! | `format: date` or `date-time` | `compare: date` |
//! | `type: number` / `integer` (with or without `null`) | `compare: numeric` |
//! | a property not in its object's `required` | `optional: true` |
//! | `type: array` with `x-refscore-key: sku` (or a list) | `array: by_key, keys: [sku]` |
//!
//! Local references (`$ref: "#/$defs/money"`) are followed; `allOf`,
//! `anyOf` and `oneOf` are not read. Any other `x-refscore-*` keyword is
//! an error. The derived rules go before the rules file's, so that
//! explicit rules override them.

use serde_json::{Value, json};

/// The schema keywords of refscore's own.
const KEYWORDS: [&str; 1] = ["x-refscore-key"];

/// Nesting (and reference hops) beyond which the schema is not read.
const MAX_DEPTH: usize = 64;

/// The rules a schema implies, in the order of the schema, as
/// `(selector, rule)`.
///
/// # Errors
/// An unknown `x-refscore-*` keyword, an `x-refscore-key` that is not a
/// field name or a list of them, or one on a schema that is not an array;
/// the message names the schema location.
pub(crate) fn derive(schema: &Value) -> Result<Vec<(String, Value)>, String> {
    let mut out = Vec::new();
    walk(schema, schema, "$", "#", 0, &mut out)?;
    Ok(out)
}

/// `$.name`, or `$["odd name"]` when the name is not a plain word.
fn member(selector: &str, name: &str) -> String {
    if !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_') {
        format!("{selector}.{name}")
    } else {
        format!("{selector}[{}]", Value::String(name.to_owned()))
    }
}

/// The schema `node` refers to, following local `$ref`s.
fn resolve<'s>(root: &'s Value, mut node: &'s Value) -> &'s Value {
    for _ in 0..MAX_DEPTH {
        match node.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix('#')) {
            Some(pointer) => match root.pointer(pointer) {
                Some(target) => node = target,
                None => return node,
            },
            None => return node,
        }
    }
    node
}

fn types(node: &Value) -> Vec<&str> {
    match node.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

fn walk(
    root: &Value,
    node: &Value,
    selector: &str,
    at: &str,
    depth: usize,
    out: &mut Vec<(String, Value)>,
) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Ok(());
    }
    let own = node;
    let node = resolve(root, node);
    for n in [own, node] {
        if let Some(k) = n
            .as_object()
            .into_iter()
            .flat_map(|m| m.keys())
            .find(|k| k.starts_with("x-refscore-") && !KEYWORDS.contains(&k.as_str()))
        {
            return Err(format!("unknown keyword `{k}` at {at} (known: {})", KEYWORDS.join(", ")));
        }
    }
    let ts = types(node);
    if let Some(values) = node.get("enum").and_then(Value::as_array) {
        let strings: Option<Vec<Value>> =
            values.iter().map(|v| v.as_str().map(|s| json!(s))).collect();
        let compare = match strings {
            Some(v) if !v.is_empty() => json!({"type": "enum", "values": v}),
            _ => json!("exact"),
        };
        out.push((selector.to_owned(), json!({"compare": compare})));
    } else if matches!(node.get("format").and_then(Value::as_str), Some("date" | "date-time")) {
        out.push((selector.to_owned(), json!({"compare": "date"})));
    } else if !ts.is_empty()
        && ts.iter().all(|t| matches!(*t, "number" | "integer" | "null"))
        && ts.iter().any(|t| *t != "null")
    {
        out.push((selector.to_owned(), json!({"compare": "numeric"})));
    }
    let key = own.get("x-refscore-key").or_else(|| node.get("x-refscore-key"));
    if let Some(key) = key {
        let keys: Option<Vec<String>> = match key {
            Value::String(k) => Some(vec![k.clone()]),
            Value::Array(ks) => ks.iter().map(|k| k.as_str().map(str::to_owned)).collect(),
            _ => None,
        };
        let keys = keys.filter(|k| !k.is_empty()).ok_or_else(|| {
            format!("`x-refscore-key` at {at} must be a field name or a list of them, not {key}")
        })?;
        if !ts.contains(&"array") && node.get("items").is_none() {
            return Err(format!("`x-refscore-key` at {at} belongs on an array schema"));
        }
        out.push((selector.to_owned(), json!({"array": "by_key", "keys": keys})));
    }
    if let Some(props) = node.get("properties").and_then(Value::as_object) {
        let required: Vec<&str> = node
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for (name, sub) in props {
            let sel = member(selector, name);
            walk(root, sub, &sel, &format!("{at}/properties/{name}"), depth + 1, out)?;
            if !required.contains(&name.as_str()) {
                out.push((sel, json!({"optional": true})));
            }
        }
    }
    if let Some(items) = node.get("items").filter(|i| i.is_object()) {
        walk(root, items, &format!("{selector}[*]"), &format!("{at}/items"), depth + 1, out)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_follow_the_schema() {
        let schema = json!({
            "type": "object",
            "required": ["total", "items"],
            "properties": {
                "total": {"$ref": "#/$defs/money"},
                "date": {"type": "string", "format": "date"},
                "currency": {"enum": ["USD", "EUR"]},
                "odd key": {"type": "integer"},
                "items": {
                    "type": "array",
                    "x-refscore-key": "sku",
                    "items": {"type": "object", "properties": {"qty": {"type": ["number", "null"]}}}
                }
            },
            "$defs": {"money": {"type": "number"}}
        });
        let rules = derive(&schema).unwrap();
        let want = vec![
            ("$.currency", json!({"compare": {"type": "enum", "values": ["USD", "EUR"]}})),
            ("$.currency", json!({"optional": true})),
            ("$.date", json!({"compare": "date"})),
            ("$.date", json!({"optional": true})),
            ("$.items", json!({"array": "by_key", "keys": ["sku"]})),
            ("$.items[*].qty", json!({"compare": "numeric"})),
            ("$.items[*].qty", json!({"optional": true})),
            ("$[\"odd key\"]", json!({"compare": "numeric"})),
            ("$[\"odd key\"]", json!({"optional": true})),
            ("$.total", json!({"compare": "numeric"})),
        ];
        let got: Vec<(&str, Value)> = rules.iter().map(|(s, v)| (s.as_str(), v.clone())).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn refscore_keywords_are_checked() {
        let bad = json!({"properties": {"a": {"type": "array", "x-refscore-keys": ["id"]}}});
        let e = derive(&bad).unwrap_err();
        assert!(e.contains("x-refscore-keys") && e.contains("#/properties/a"), "{e}");
        let bad = json!({"properties": {"a": {"type": "string", "x-refscore-key": "id"}}});
        assert!(derive(&bad).unwrap_err().contains("array schema"));
        let bad = json!({"type": "array", "x-refscore-key": 3});
        assert!(derive(&bad).unwrap_err().contains("field name"));
        // A schema that refers to itself ends.
        let cyclic = json!({"properties": {"a": {"$ref": "#"}}});
        assert!(derive(&cyclic).is_ok());
    }
}
