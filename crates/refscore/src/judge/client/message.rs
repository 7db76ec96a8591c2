//! A chat completion's messages as the readers take them, made so before
//! any secret is removed: content given as text parts is joined into one
//! text (a key split across two parts is then removed whole).

use serde_json::{Map, Value};

/// Normalises every choice's message of a decoded reply body.
pub(super) fn normalize(v: &mut Value) {
    let Some(choices) = v.get_mut("choices").and_then(Value::as_array_mut) else { return };
    for m in choices.iter_mut().filter_map(|c| c.get_mut("message")?.as_object_mut()) {
        normalize_message(m);
    }
}

fn normalize_message(m: &mut Map<String, Value>) {
    // The legacy `function_call` (servers that still answer a tool call
    // in the form from before tools) is the one tool call it stands for.
    if !m.contains_key("tool_calls")
        && let Some(call) = m.get("function_call").filter(|c| c.is_object()).cloned()
    {
        let call = serde_json::json!([{"type": "function", "function": call}]);
        m.insert("tool_calls".into(), call);
    }
    if let Some(Value::Array(parts)) = m.get_mut("content")
        && let Some(joined) = join_parts(parts)
    {
        m.insert("content".into(), Value::String(joined));
    }
}

/// The text of a content made only of text parts (`[{"type": "text",
/// "text": ...}, ...]`), joined. A list holding other parts keeps them;
/// its text parts are then joined into the first one (the readers refuse
/// such a content, and its text is redacted whole).
fn join_parts(parts: &mut Vec<Value>) -> Option<String> {
    let text_of = |p: &Value| -> Option<String> {
        (p.get("type").and_then(Value::as_str) == Some("text"))
            .then(|| p.get("text").and_then(Value::as_str).map(str::to_owned))
            .flatten()
    };
    let texts: Vec<Option<String>> = parts.iter().map(text_of).collect();
    if texts.iter().all(Option::is_some) {
        return Some(texts.into_iter().flatten().collect());
    }
    let joined: String = texts.iter().flatten().map(String::as_str).collect();
    let mut first = true;
    let mut kept = Vec::with_capacity(parts.len());
    for (part, text) in std::mem::take(parts).into_iter().zip(&texts) {
        match text {
            None => kept.push(part),
            Some(_) if first => {
                first = false;
                let mut part = part;
                part["text"] = Value::String(joined.clone());
                kept.push(part);
            }
            Some(_) => {}
        }
    }
    *parts = kept;
    None
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn content(v: Value) -> Value {
        let mut body = json!({"choices": [{"message": {"role": "assistant", "content": v}}]});
        normalize(&mut body);
        body["choices"][0]["message"]["content"].clone()
    }

    #[test]
    fn text_parts_are_joined_and_other_parts_kept() {
        let parts =
            json!([{"type": "text", "text": "rude\nsk-pr"}, {"type": "text", "text": "oj"}]);
        assert_eq!(content(parts), json!("rude\nsk-proj"));
        let mixed = json!([{"type": "text", "text": "a"}, {"type": "image_url"}, {"type": "text", "text": "b"}]);
        assert_eq!(content(mixed), json!([{"type": "text", "text": "ab"}, {"type": "image_url"}]));
        assert_eq!(content(json!([])), json!(""));
    }

    #[test]
    fn a_legacy_function_call_is_its_tool_call() {
        let call = json!({"name": "record_judgement", "arguments": "{\"label\": \"polite\"}"});
        let mut v = json!({"choices": [{"message": {"role": "assistant", "content": null, "function_call": call}}]});
        normalize(&mut v);
        assert_eq!(
            v["choices"][0]["message"]["tool_calls"],
            json!([{"type": "function", "function": call}])
        );
        // A reply with tool calls keeps them as they are.
        let mut both = json!({"choices": [{"message": {"tool_calls": [], "function_call": call}}]});
        normalize(&mut both);
        assert_eq!(both["choices"][0]["message"]["tool_calls"], json!([]));
    }
}
