//! The `tool_calls` preset: lists of `{name, arguments}` calls in the
//! shapes model APIs use, brought to one canonical form.
//!
//! Accepted on either side: a list of calls; an assistant message holding
//! `tool_calls` (OpenAI) or `content` blocks of type `tool_use`
//! (Anthropic); or one call. A call is `{"name", "arguments"}`,
//! `{"type": "function", "function": {"name", "arguments"}}` (arguments
//! as an object or as JSON text) or `{"type": "tool_use", "name",
//! "input"}`. The canonical form is `[{"name": …, "arguments": {…}}]`.

use serde_json::{Map, Value, json};

/// The canonical call list of `v`, or why it is not one.
pub(crate) fn canonical(v: &Value) -> Result<Value, String> {
    let calls: Vec<&Value> = match v {
        Value::Array(items) => items.iter().collect(),
        Value::Object(m) => {
            if let Some(Value::Array(tc)) = m.get("tool_calls") {
                tc.iter().collect()
            } else if let Some(Value::Array(blocks)) = m.get("content") {
                blocks
                    .iter()
                    .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
                    .collect()
            } else {
                vec![v]
            }
        }
        Value::Null => Vec::new(),
        other => return Err(format!("expected tool calls, got {}", crate::json::type_name(other))),
    };
    calls
        .into_iter()
        .enumerate()
        .map(|(i, c)| call(c).map_err(|e| format!("call {i}: {e}")))
        .collect::<Result<Vec<_>, _>>()
        .map(Value::Array)
}

fn call(c: &Value) -> Result<Value, String> {
    let Value::Object(m) = c else {
        return Err(format!("expected an object, got {}", crate::json::type_name(c)));
    };
    let inner = match m.get("function") {
        Some(Value::Object(f)) => f,
        _ => m,
    };
    let name =
        inner.get("name").and_then(Value::as_str).ok_or_else(|| String::from("no `name`"))?;
    let args =
        inner.get("arguments").or_else(|| inner.get("input")).or_else(|| inner.get("parameters"));
    let arguments = match args {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(Value::String(s)) if s.trim().is_empty() => Value::Object(Map::new()),
        Some(Value::String(s)) => {
            crate::json::parse(s).unwrap_or_else(|_| Value::String(s.clone()))
        }
        Some(v) => crate::json::clone_deep(v),
    };
    // Built by hand: `json!` would copy `arguments` by serialising it,
    // recursively.
    let mut out = Map::new();
    out.insert(String::from("name"), Value::String(name.to_owned()));
    out.insert(String::from("arguments"), arguments);
    Ok(Value::Object(out))
}

/// Rules the preset installs before the user's own.
pub(crate) fn preset_rules() -> Vec<(&'static str, Value)> {
    vec![
        ("$", json!({"array": "by_key", "keys": ["name"]})),
        ("$[*].name", json!({"compare": "exact"})),
        ("$[*].arguments.*", json!({"absent_is_null": false})),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        let openai = json!({"role": "assistant", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}]});
        let anthropic = json!({"content": [{"type": "text", "text": "hi"},
            {"type": "tool_use", "id": "t1", "name": "get_weather", "input": {"city": "Paris"}}]});
        let plain = json!([{"name": "get_weather", "arguments": {"city": "Paris"}}]);
        let want = json!([{"name": "get_weather", "arguments": {"city": "Paris"}}]);
        assert_eq!(canonical(&openai).unwrap(), want);
        assert_eq!(canonical(&anthropic).unwrap(), want);
        assert_eq!(canonical(&plain).unwrap(), want);
        assert_eq!(
            canonical(&json!({"name": "f"})).unwrap(),
            json!([{"name": "f", "arguments": {}}])
        );
        assert!(canonical(&json!(3)).is_err());
        assert!(canonical(&json!([{"arguments": {}}])).is_err());
    }
}
