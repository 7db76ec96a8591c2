//! A reply streamed though no stream was asked for (some proxies stream
//! whatever they are asked): its server-sent events (`data: {...}` lines,
//! OpenAI's `chat.completion.chunk`s) put together into the one chat
//! completion they stand for, when the stream is whole.

use serde_json::{Map, Value, json};

/// The chat completion a whole stream of chunks stands for, as JSON text;
/// `None` when `text` is not such a stream, holds an error or is cut off
/// (no `data: [DONE]` and no `finish_reason`).
pub(super) fn assemble(text: &str) -> Option<String> {
    let mut content: Option<String> = None;
    // Tool calls by their index: id, name and arguments as streamed.
    let mut calls: Vec<(Option<Value>, String, String)> = Vec::new();
    let mut finish: Option<Value> = None;
    let mut usage: Option<Value> = None;
    let mut done = false;
    let mut chunks = 0usize;
    for line in text.lines() {
        let Some(data) = line.strip_prefix("data:") else { continue };
        let data = data.trim();
        if data == "[DONE]" {
            done = true;
            break;
        }
        let chunk: Value = serde_json::from_str(data).ok()?;
        if chunk.get("error").is_some() {
            return None;
        }
        chunks += 1;
        if let Some(u) = chunk.get("usage").filter(|u| u.is_object()) {
            usage = Some(u.clone());
        }
        let choices = chunk.get("choices").and_then(Value::as_array)?;
        let Some(choice) =
            choices.iter().find(|c| c.get("index").and_then(Value::as_u64).unwrap_or(0) == 0)
        else {
            continue;
        };
        if let Some(f) = choice.get("finish_reason").filter(|f| !f.is_null()) {
            finish = Some(f.clone());
        }
        let Some(delta) = choice.get("delta").and_then(Value::as_object) else { continue };
        if let Some(s) = delta.get("content").and_then(Value::as_str) {
            content.get_or_insert_with(String::new).push_str(s);
        }
        for call in delta.get("tool_calls").and_then(Value::as_array).into_iter().flatten() {
            add_call(&mut calls, call)?;
        }
    }
    if chunks == 0 || !(done || finish.is_some()) {
        return None;
    }
    let mut message = Map::new();
    message.insert("role".into(), json!("assistant"));
    message.insert("content".into(), content.map_or(Value::Null, Value::String));
    if !calls.is_empty() {
        let calls: Vec<Value> = calls
            .into_iter()
            .map(|(id, name, arguments)| {
                json!({"id": id.unwrap_or(Value::Null), "type": "function",
                       "function": {"name": name, "arguments": arguments}})
            })
            .collect();
        message.insert("tool_calls".into(), Value::Array(calls));
    }
    let mut completion = json!({"object": "chat.completion", "choices": [
        {"index": 0, "message": message, "finish_reason": finish.unwrap_or(Value::Null)}]});
    if let Some(u) = usage {
        completion["usage"] = u;
    }
    serde_json::to_string(&completion).ok()
}

/// Most tool calls one streamed reply may build (a judgement asks one).
const MAX_CALLS: usize = 64;

/// Adds one streamed piece of a tool call (`{"index", "id", "function":
/// {"name", "arguments"}}`) to the calls being built; `None` for an index
/// past [`MAX_CALLS`].
fn add_call(calls: &mut Vec<(Option<Value>, String, String)>, call: &Value) -> Option<()> {
    let at = usize::try_from(call.get("index").and_then(Value::as_u64).unwrap_or(0)).ok()?;
    if at >= MAX_CALLS {
        return None;
    }
    if calls.len() <= at {
        calls.resize_with(at + 1, || (None, String::new(), String::new()));
    }
    let slot = calls.get_mut(at)?;
    if let Some(id) = call.get("id").filter(|i| !i.is_null()) {
        slot.0 = Some(id.clone());
    }
    let function = call.get("function");
    if let Some(n) = function.and_then(|f| f.get("name")).and_then(Value::as_str) {
        slot.1.push_str(n);
    }
    if let Some(a) = function.and_then(|f| f.get("arguments")).and_then(Value::as_str) {
        slot.2.push_str(a);
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sse(chunks: &[Value], done: bool) -> String {
        let mut t: String = chunks.iter().map(|c| format!("data: {c}\n\n")).collect();
        if done {
            t.push_str("data: [DONE]\n\n");
        }
        t
    }

    #[test]
    fn a_whole_stream_of_text_or_tool_call_pieces_is_one_completion() {
        let text = sse(
            &[
                json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": "pol"}}]}),
                json!({"choices": [{"index": 0, "delta": {"content": "ite"}, "finish_reason": "stop"}]}),
            ],
            true,
        );
        let v: Value = serde_json::from_str(&assemble(&text).unwrap()).unwrap();
        assert_eq!(v["choices"][0]["message"]["content"], "polite");
        assert_eq!(v["choices"][0]["finish_reason"], "stop");
        let calls = sse(
            &[
                json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "c1",
                    "type": "function", "function": {"name": "judge", "arguments": ""}}]}}]}),
                json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0,
                    "function": {"arguments": "{\"label\": "}}]}}]}),
                json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0,
                    "function": {"arguments": "\"polite\"}"}}]}, "finish_reason": "tool_calls"}]}),
                json!({"choices": [], "usage": {"prompt_tokens": 7, "completion_tokens": 3}}),
            ],
            true,
        );
        let v: Value = serde_json::from_str(&assemble(&calls).unwrap()).unwrap();
        let call = &v["choices"][0]["message"]["tool_calls"][0];
        assert_eq!(call["function"]["name"], "judge");
        assert_eq!(call["function"]["arguments"], "{\"label\": \"polite\"}");
        assert_eq!(call["id"], "c1");
        assert_eq!(v["usage"]["prompt_tokens"], 7);
    }

    #[test]
    fn a_cut_off_or_failed_stream_is_none() {
        let piece = json!({"choices": [{"index": 0, "delta": {"content": "pol"}}]});
        assert_eq!(assemble(&sse(std::slice::from_ref(&piece), false)), None);
        assert_eq!(assemble(&sse(&[json!({"error": {"message": "overloaded"}})], true)), None);
        assert_eq!(assemble("data: {not json\n\ndata: [DONE]\n"), None);
        assert_eq!(assemble("data: [DONE]\n"), None);
        let far = json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 1000}]}}]});
        assert_eq!(assemble(&sse(&[far], true)), None);
    }
}
