//! Inferring a JSON Schema from a reference document.
//!
//! Types come from the reference (every number is `number`); an object
//! requires all of its keys; an array's `items` is the union of its
//! elements' schemas (objects merged: properties united, required = keys
//! present in every element; several types become `anyOf`). Below
//! [`MAX_INFER_DEPTH`] levels anything is accepted.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

/// Nesting below which the inferred schema accepts anything.
pub(super) const MAX_INFER_DEPTH: usize = 64;

/// The shapes seen at one position.
#[derive(Debug, Default)]
struct Shape {
    any: bool,
    null: bool,
    boolean: bool,
    number: bool,
    string: bool,
    /// Some when an array was seen: the union of its elements (None inside
    /// when every array seen was empty).
    array: Option<Option<Box<Shape>>>,
    object: Option<Obj>,
}

/// Object shapes merged.
#[derive(Debug, Default)]
struct Obj {
    props: BTreeMap<String, (Shape, usize)>,
    seen: usize,
}

impl Shape {
    fn add(&mut self, v: &Value, depth: usize) {
        if depth >= MAX_INFER_DEPTH {
            self.any = true;
            return;
        }
        match v {
            Value::Null => self.null = true,
            Value::Bool(_) => self.boolean = true,
            Value::Number(_) => self.number = true,
            Value::String(_) => self.string = true,
            Value::Array(items) => {
                let slot = self.array.get_or_insert(None);
                for item in items {
                    slot.get_or_insert_with(Box::default).add(item, depth + 1);
                }
            }
            Value::Object(map) => {
                let obj = self.object.get_or_insert_with(Obj::default);
                obj.seen += 1;
                for (k, item) in map {
                    let entry = obj.props.entry(k.clone()).or_default();
                    entry.0.add(item, depth + 1);
                    entry.1 += 1;
                }
            }
        }
    }

    fn to_schema(&self, additional: bool) -> Value {
        if self.any {
            return json!({});
        }
        let mut scalar_types: Vec<&str> = Vec::new();
        for (on, name) in [
            (self.null, "null"),
            (self.boolean, "boolean"),
            (self.number, "number"),
            (self.string, "string"),
        ] {
            if on {
                scalar_types.push(name);
            }
        }
        let mut branches: Vec<Value> = Vec::new();
        if !scalar_types.is_empty() {
            branches.push(match scalar_types.as_slice() {
                [one] => json!({ "type": one }),
                many => json!({ "type": many }),
            });
        }
        if let Some(items) = &self.array {
            let mut s = Map::new();
            s.insert("type".into(), json!("array"));
            if let Some(items) = items {
                s.insert("items".into(), items.to_schema(additional));
            }
            branches.push(Value::Object(s));
        }
        if let Some(obj) = &self.object {
            let props: Map<String, Value> = obj
                .props
                .iter()
                .map(|(k, (shape, _))| (k.clone(), shape.to_schema(additional)))
                .collect();
            let required: Vec<&String> =
                obj.props.iter().filter(|(_, (_, n))| *n == obj.seen).map(|(k, _)| k).collect();
            branches.push(json!({
                "type": "object",
                "properties": props,
                "required": required,
                "additionalProperties": additional,
            }));
        }
        match branches.len() {
            0 => json!({}),
            1 => branches.pop().unwrap_or_else(|| json!({})),
            _ => json!({ "anyOf": branches }),
        }
    }
}

/// The schema a reference document implies (draft 2020-12).
pub(super) fn infer_schema(reference: &Value, additional_properties: bool) -> Value {
    let mut shape = Shape::default();
    shape.add(reference, 0);
    let mut schema = shape.to_schema(additional_properties);
    if let Value::Object(m) = &mut schema {
        m.insert("$schema".into(), json!("https://json-schema.org/draft/2020-12/schema"));
    }
    schema
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_require_all_keys_and_numbers_are_numbers() {
        let s = infer_schema(&json!({"id": 3, "name": "x", "ok": true, "n": null}), false);
        assert_eq!(s["type"], "object");
        assert_eq!(s["required"], json!(["id", "n", "name", "ok"]));
        assert_eq!(s["properties"]["id"], json!({"type": "number"}));
        assert_eq!(s["properties"]["n"], json!({"type": "null"}));
        assert_eq!(s["additionalProperties"], json!(false));
    }

    #[test]
    fn array_items_are_a_union() {
        let s = infer_schema(&json!([{"a": 1, "b": "x"}, {"a": 2}, "s", 4]), true);
        let items = &s["items"];
        let branches = items["anyOf"].as_array().unwrap();
        assert_eq!(branches[0], json!({"type": ["number", "string"]}));
        assert_eq!(branches[1]["required"], json!(["a"]));
        assert_eq!(branches[1]["properties"]["b"], json!({"type": "string"}));
        assert_eq!(infer_schema(&json!([]), true)["type"], "array");
        assert!(infer_schema(&json!([]), true).get("items").is_none());
    }

    #[test]
    fn depth_is_capped() {
        let mut v = json!(1);
        for _ in 0..100 {
            v = json!([v]);
        }
        let s = infer_schema(&v, true);
        assert!(!crate::json::container_depth_exceeds(&s, 2 * MAX_INFER_DEPTH + 4));
        crate::json::drop_deep(v);
    }
}
