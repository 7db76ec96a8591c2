//! Streaming (`"stream": true`): a chat completion sent as server-sent
//! events, the way OpenAI's API streams it, so that clients reading a
//! stream (the official SDKs' `stream=True`) get the same answer.

use serde_json::{Value, json};

/// `Content-Type` of a stream.
pub(crate) const EVENT_STREAM: &str = "text/event-stream; charset=utf-8";

/// Whether a chat request asks for a stream; and whether for the usage
/// chunk at its end (`stream_options.include_usage`).
pub(crate) fn asked(body: &Value) -> Option<bool> {
    (body.get("stream") == Some(&Value::Bool(true)))
        .then(|| body.pointer("/stream_options/include_usage") == Some(&Value::Bool(true)))
}

/// The `chat.completion` in `whole` as the events of a stream: the role,
/// then the content or the tool call, then the finish reason, the usage
/// when asked for, and `data: [DONE]`. `None` when `whole` is not a chat
/// completion (an error body is sent as it is).
pub(crate) fn events(whole: &[u8], include_usage: bool) -> Option<Vec<u8>> {
    let completion: Value = serde_json::from_slice(whole).ok()?;
    if completion.get("object")?.as_str()? != "chat.completion" {
        return None;
    }
    let chunk = |choices: Value, usage: Option<&Value>| {
        let mut c = json!({
            "id": completion["id"],
            "object": "chat.completion.chunk",
            "created": completion["created"],
            "model": completion["model"],
            "system_fingerprint": null,
            "choices": choices,
        });
        if include_usage {
            c["usage"] = usage.cloned().unwrap_or(Value::Null);
        }
        c
    };
    let choice = |delta: Value, finish: Value| json!([{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}]);
    let mut out = Vec::new();
    let mut send = |event: &Value| {
        out.extend_from_slice(b"data: ");
        out.extend_from_slice(event.to_string().as_bytes());
        out.extend_from_slice(b"\n\n");
    };
    if let Some(first) = completion["choices"].as_array().and_then(|c| c.first()) {
        let message = &first["message"];
        if let Some(call) = message.pointer("/tool_calls/0") {
            let opening = json!({"role": "assistant", "content": null, "tool_calls": [{
                "index": 0, "id": call["id"], "type": "function",
                "function": {"name": call["function"]["name"], "arguments": ""}}]});
            send(&chunk(choice(opening, Value::Null), None));
            let arguments = json!({"tool_calls": [{"index": 0,
                "function": {"arguments": call["function"]["arguments"]}}]});
            send(&chunk(choice(arguments, Value::Null), None));
        } else {
            send(&chunk(choice(json!({"role": "assistant", "content": ""}), Value::Null), None));
            send(&chunk(choice(json!({"content": message["content"]}), Value::Null), None));
        }
        send(&chunk(choice(json!({}), first["finish_reason"].clone()), None));
    }
    if include_usage {
        send(&chunk(json!([]), completion.get("usage")));
    }
    out.extend_from_slice(b"data: [DONE]\n\n");
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::openai::{ChatOutput, TokenUsage, chat_completion};

    fn data(stream: &[u8]) -> Vec<String> {
        let text = std::str::from_utf8(stream).unwrap();
        assert!(text.ends_with("\n\n"), "{text}");
        text.split("\n\n")
            .filter(|e| !e.is_empty())
            .map(|e| e.strip_prefix("data: ").expect("a data event").to_owned())
            .collect()
    }

    #[test]
    fn content_streams_as_role_text_finish_usage_and_done() {
        let mut whole = Vec::new();
        chat_completion(
            &mut whole,
            3,
            "m",
            ChatOutput::Content("LABEL=good"),
            TokenUsage::new(5, 2),
            1,
        );
        let events = data(&events(&whole, true).unwrap());
        assert_eq!(events.len(), 5, "{events:?}");
        let chunk = |i: usize| serde_json::from_str::<Value>(&events[i]).unwrap();
        assert_eq!(chunk(0)["object"], "chat.completion.chunk");
        assert_eq!(chunk(0)["id"], "chatcmpl-scripted-3");
        assert_eq!(chunk(0)["choices"][0]["delta"]["role"], "assistant");
        assert_eq!(chunk(1)["choices"][0]["delta"]["content"], "LABEL=good");
        assert_eq!(chunk(2)["choices"][0]["finish_reason"], "stop");
        assert_eq!(chunk(2)["usage"], Value::Null);
        assert_eq!(chunk(3)["choices"], json!([]));
        assert_eq!(chunk(3)["usage"]["total_tokens"], 7);
        assert_eq!(events[4], "[DONE]");
    }

    #[test]
    fn a_tool_call_streams_its_name_then_its_arguments() {
        let mut whole = Vec::new();
        let call = ChatOutput::ToolCall { name: "record", arguments: r#"{"label":"good"}"# };
        chat_completion(&mut whole, 1, "m", call, TokenUsage::new(1, 1), 1);
        let events = data(&events(&whole, false).unwrap());
        assert_eq!(events.len(), 4, "{events:?}");
        let chunk = |i: usize| serde_json::from_str::<Value>(&events[i]).unwrap();
        let opening = &chunk(0)["choices"][0]["delta"]["tool_calls"][0];
        assert_eq!(
            (opening["index"].clone(), opening["function"]["name"].clone()),
            (json!(0), json!("record"))
        );
        assert_eq!(opening["id"], "call_scripted_1");
        let args = &chunk(1)["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"];
        assert_eq!(args, r#"{"label":"good"}"#);
        assert_eq!(chunk(2)["choices"][0]["finish_reason"], "tool_calls");
        assert!(chunk(2).get("usage").is_none());
    }

    #[test]
    fn only_chat_completions_are_streamed() {
        let mut error = Vec::new();
        crate::openai::error(&mut error, "no", "invalid_request_error", None);
        assert_eq!(events(&error, false), None);
        assert_eq!(asked(&json!({"stream": true})), Some(false));
        assert_eq!(
            asked(&json!({"stream": true, "stream_options": {"include_usage": true}})),
            Some(true)
        );
        assert_eq!(asked(&json!({"stream": false})), None);
    }
}
