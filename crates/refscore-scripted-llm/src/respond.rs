//! Turn a chosen [`Reply`] into response bytes (or a dropped connection).

use std::borrow::Cow;

use serde_json::Value;

use crate::auto::{AutoChat, auto_chat, default_tool_name};
use crate::embedding;
use crate::openai::{self, ChatOutput, TokenUsage};
use crate::reply::{Reply, Usage};
use crate::request::RequestView;
use crate::stream;

/// `usage.completion_tokens` unless a reply says otherwise.
const DEFAULT_COMPLETION_TOKENS: u64 = 10;

const JSON: &str = "application/json";
const TEXT: &str = "text/plain; charset=utf-8";

/// What to do with the connection once the body is built.
#[derive(Debug, PartialEq)]
pub(crate) enum Action<'s> {
    /// Send a response with the built body.
    Send {
        /// Status code.
        status: u16,
        /// `Content-Type`.
        content_type: &'static str,
        /// `Retry-After`, if any.
        retry_after: Option<&'s str>,
    },
    /// Close the connection without answering.
    Close,
}

/// The reply inside any `Delay` and `WithUsage` wrappers, with the total
/// delay in milliseconds and the token counts the outermost wrappers set.
pub(crate) fn unwrap(mut reply: &Reply) -> (u64, Usage, &Reply) {
    let mut delay = 0u64;
    let mut usage = Usage::default();
    loop {
        match reply {
            Reply::Finish { then, .. } => reply = then,
            Reply::Delay { ms, then } => {
                delay = delay.saturating_add(*ms);
                reply = then;
            }
            Reply::WithUsage { usage: u, then } => {
                usage.prompt_tokens = usage.prompt_tokens.or(u.prompt_tokens);
                usage.completion_tokens = usage.completion_tokens.or(u.completion_tokens);
                reply = then;
            }
            _ => return (delay, usage, reply),
        }
    }
}

/// Build the answer to request number `seq` into `body` from the rule's
/// whole reply (its wrappers included; `usage` from [`unwrap`]): a chat
/// completion asked for as a stream is sent as one ([`crate::stream`]).
pub(crate) fn build<'s>(
    reply: &'s Reply,
    request: &RequestView<'_>,
    usage: Usage,
    seq: usize,
    body: &mut Vec<u8>,
) -> Action<'s> {
    let mut action = build_whole(reply, request, usage, seq, body);
    if let Some(reason) = finish_reason(reply)
        && let Action::Send { status: 200, content_type: JSON, .. } = action
    {
        action = with_finish_reason(body, reason).unwrap_or(action);
    }
    // Only answers the server makes up are streamed; a scripted status or
    // garbage body is sent as it is, whatever it holds.
    let generated = matches!(
        unwrap(reply).2,
        Reply::ToolCall { .. } | Reply::Json(_) | Reply::Text(_) | Reply::Empty | Reply::Auto
    );
    if let Action::Send { status: 200, content_type: JSON, .. } = action
        && generated
        && request.is_chat()
        && let Some(include_usage) = stream::asked(request.body)
        && let Some(events) = stream::events(body, include_usage)
    {
        *body = events;
        return Action::Send { status: 200, content_type: stream::EVENT_STREAM, retry_after: None };
    }
    action
}

/// The finish reason the outermost [`Reply::Finish`] around the answer
/// sets, if any.
fn finish_reason(mut reply: &Reply) -> Option<&str> {
    loop {
        match reply {
            Reply::Finish { reason, .. } => return Some(reason),
            Reply::Delay { then, .. } | Reply::WithUsage { then, .. } => reply = then,
            _ => return None,
        }
    }
}

/// `body` (a chat completion) with every choice ending with `reason`;
/// `None` (the body unchanged) when it is not a chat completion.
fn with_finish_reason(body: &mut Vec<u8>, reason: &str) -> Option<Action<'static>> {
    let mut v: Value = serde_json::from_slice(body).ok()?;
    if v.get("object").and_then(Value::as_str) != Some("chat.completion") {
        return None;
    }
    for choice in v.get_mut("choices")?.as_array_mut()? {
        choice["finish_reason"] = Value::from(reason);
    }
    *body = serde_json::to_vec(&v).ok()?;
    Some(ok())
}

/// The whole (not streamed) answer to request number `seq`.
fn build_whole<'s>(
    reply: &'s Reply,
    request: &RequestView<'_>,
    usage: Usage,
    seq: usize,
    body: &mut Vec<u8>,
) -> Action<'s> {
    let tokens = TokenUsage::new(
        usage.prompt_tokens.unwrap_or((request.body_len / 4) as u64),
        usage.completion_tokens.unwrap_or(DEFAULT_COMPLETION_TOKENS),
    );
    let chat = |body: &mut Vec<u8>, output| {
        openai::chat_completion(body, seq, request.model(), output, tokens, 1);
        ok()
    };
    match reply {
        Reply::ToolCall { name, arguments } => {
            let name =
                name.as_deref().or_else(|| default_tool_name(request.body)).unwrap_or("tool");
            let arguments: Cow<'_, str> = match arguments {
                Value::String(raw) => Cow::Borrowed(raw),
                other => Cow::Owned(other.to_string()),
            };
            chat(body, ChatOutput::ToolCall { name, arguments: &arguments })
        }
        Reply::Json(value) => chat(body, ChatOutput::Content(&value.to_string())),
        Reply::Text(text) => chat(body, ChatOutput::Content(text)),
        Reply::Empty if request.is_embeddings() => {
            openai::embedding_list::<Vec<f32>>(
                body,
                request.model(),
                Vec::new(),
                tokens.prompt_tokens,
            );
            ok()
        }
        Reply::Empty => chat(body, ChatOutput::Nothing),
        Reply::Auto => auto(request, seq, tokens, body),
        Reply::Status { code, retry_after, body: text } => {
            let content_type = if text.is_empty() {
                let message = format!("scripted status {code}");
                let (kind, error_code) = openai::error_kind(*code);
                openai::error(body, &message, kind, error_code);
                JSON
            } else {
                body.extend_from_slice(text.as_bytes());
                let trimmed = text.trim_start();
                if trimmed.starts_with('{') || trimmed.starts_with('[') { JSON } else { TEXT }
            };
            Action::Send { status: *code, content_type, retry_after: retry_after.as_deref() }
        }
        Reply::Garbage(text) => {
            body.extend_from_slice(text.as_bytes());
            ok()
        }
        Reply::Drop => Action::Close,
        // Unwrapped by the caller; answered without waiting if not.
        Reply::Delay { then, .. } | Reply::WithUsage { then, .. } | Reply::Finish { then, .. } => {
            build_whole(then, request, usage, seq, body)
        }
    }
}

fn ok() -> Action<'static> {
    Action::Send { status: 200, content_type: JSON, retry_after: None }
}

fn error(body: &mut Vec<u8>, status: u16, message: &str) -> Action<'static> {
    openai::error(body, message, "invalid_request_error", None);
    Action::Send { status, content_type: JSON, retry_after: None }
}

/// A 400 naming the request field at fault, as OpenAI answers one.
fn invalid(body: &mut Vec<u8>, (message, param): (String, Option<&str>)) -> Action<'static> {
    openai::invalid(body, &message, "invalid_request_error", param, None);
    Action::Send { status: 400, content_type: JSON, retry_after: None }
}

/// What OpenAI would refuse in a chat request: a body that is not a JSON
/// object, no `model`, `messages` missing, not a list, empty, or holding
/// a message without a known `role`, a `temperature` outside 0..=2, an
/// `n` outside 1..=128.
fn check_chat(body: &Value) -> Result<(), (String, Option<&'static str>)> {
    let Some(fields) = body.as_object() else {
        return Err((
            "We could not parse the JSON body of your request: it must be a JSON object.".into(),
            None,
        ));
    };
    if !fields.get("model").is_some_and(Value::is_string) {
        return Err(("you must provide a model parameter".into(), None));
    }
    let messages = match fields.get("messages") {
        None => return Err(("Missing required parameter: 'messages'.".into(), Some("messages"))),
        Some(Value::Array(m)) if m.is_empty() => {
            return Err((
                "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.".into(),
                Some("messages"),
            ));
        }
        Some(Value::Array(m)) => m,
        Some(_) => {
            return Err((
                "Invalid type for 'messages': expected an array of objects.".into(),
                Some("messages"),
            ));
        }
    };
    const ROLES: [&str; 6] = ["system", "developer", "user", "assistant", "tool", "function"];
    for (i, m) in messages.iter().enumerate() {
        let role = m.get("role").and_then(Value::as_str);
        if !role.is_some_and(|r| ROLES.contains(&r)) {
            return Err((
                format!(
                    "Invalid value for 'messages[{i}].role': {}. Supported values are: 'system', 'developer', 'user', 'assistant', 'tool' and 'function'.",
                    role.map_or_else(|| String::from("missing"), |r| format!("'{r}'"))
                ),
                Some("messages"),
            ));
        }
    }
    if let Some(t) = fields.get("temperature").filter(|t| !t.is_null())
        && !t.as_f64().is_some_and(|t| (0.0..=2.0).contains(&t))
    {
        return Err((
            format!("Invalid 'temperature': expected a number from 0 to 2, but got {t} instead."),
            Some("temperature"),
        ));
    }
    if let Some(n) = fields.get("n").filter(|n| !n.is_null())
        && !n.as_u64().is_some_and(|n| (1..=MAX_CHOICES).contains(&n))
    {
        return Err((
            format!(
                "Invalid 'n': expected an integer from 1 to {MAX_CHOICES}, but got {n} instead."
            ),
            Some("n"),
        ));
    }
    Ok(())
}

/// The most choices a request may ask for (`n`), as OpenAI allows.
const MAX_CHOICES: u64 = 128;

/// The choices a request asks for (`n`, default 1).
fn choices(body: &Value) -> u32 {
    body.get("n").and_then(Value::as_u64).and_then(|n| u32::try_from(n).ok()).unwrap_or(1).max(1)
}

/// [`Reply::Auto`]: a sensible answer for the request's path.
fn auto(
    request: &RequestView<'_>,
    seq: usize,
    tokens: TokenUsage,
    body: &mut Vec<u8>,
) -> Action<'static> {
    let post = request.method == "POST";
    if request.is_chat() {
        if !post {
            return error(body, 405, "use POST for chat completions");
        }
        if let Err(why) = check_chat(request.body) {
            return invalid(body, why);
        }
        // A stream carries one choice: `n` is for whole replies.
        let n =
            if crate::stream::asked(request.body).is_some() { 1 } else { choices(request.body) };
        match auto_chat(request.body, request.prompt()) {
            AutoChat::ToolCall { name, arguments } => openai::chat_completion(
                body,
                seq,
                request.model(),
                ChatOutput::ToolCall { name, arguments: &arguments },
                tokens,
                n,
            ),
            AutoChat::Content(content) => openai::chat_completion(
                body,
                seq,
                request.model(),
                ChatOutput::Content(&content),
                tokens,
                n,
            ),
        }
        return ok();
    }
    if request.is_embeddings() {
        if !post {
            return error(body, 405, "use POST for embeddings");
        }
        let inputs = match embedding::inputs(request.body) {
            Some(inputs) if !inputs.is_empty() && inputs.iter().all(|i| !i.is_empty()) => inputs,
            Some(_) => {
                let why = "'$.input' is invalid: an input must be a non-empty string or list.";
                return invalid(body, (why.into(), Some("input")));
            }
            None => {
                let why = "input must be a string, a list of strings or token lists";
                return invalid(body, (why.into(), Some("input")));
            }
        };
        let Some(dims) = embedding::dimensions(request.body) else {
            let why = format!(
                "Invalid 'dimensions': expected an integer from 1 to {}.",
                embedding::MAX_DIMENSIONS
            );
            return invalid(body, (why, Some("dimensions")));
        };
        let vectors = inputs.iter().map(|text| embedding::embed(text, dims));
        let base64 = request.body.get("encoding_format").and_then(Value::as_str) == Some("base64");
        if base64 {
            let encoded = vectors.map(|v| embedding::base64_f32(&v)).collect();
            openai::embedding_list::<String>(body, request.model(), encoded, tokens.prompt_tokens);
        } else {
            openai::embedding_list(body, request.model(), vectors.collect(), tokens.prompt_tokens);
        }
        return ok();
    }
    // HEAD is answered as GET (its body is left off when sent).
    let get = matches!(request.method, "GET" | "HEAD");
    if matches!(request.path, "/v1/models" | "/models") && get {
        openai::model_list(body);
        return ok();
    }
    let id =
        request.path.strip_prefix("/v1/models/").or_else(|| request.path.strip_prefix("/models/"));
    if let Some(id) = id.filter(|id| !id.is_empty()) {
        if !get {
            return error(body, 405, "use GET for a model");
        }
        openai::model(body, id);
        return ok();
    }
    error(body, 404, "no such endpoint on the scripted server")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run<'r>(reply: &'r Reply, path: &str, request: Value) -> (Action<'r>, Value, Vec<u8>) {
        let text = request.to_string();
        let view = RequestView::new("POST", path, &request, text.len());
        let (_, usage, _) = unwrap(reply);
        let mut body = Vec::new();
        let action = build(reply, &view, usage, 1, &mut body);
        let parsed = serde_json::from_slice(&body).unwrap_or(Value::Null);
        (action, parsed, body)
    }

    #[test]
    fn unwrap_sums_delays_and_keeps_outer_usage() {
        let reply =
            Reply::Text("x".into()).with_usage(1, 2).delayed(5).with_usage(7, 8).delayed(10);
        let (delay, usage, inner) = unwrap(&reply);
        assert_eq!(delay, 15);
        assert_eq!(usage.prompt_tokens, Some(7));
        assert_eq!(usage.completion_tokens, Some(8));
        assert_eq!(inner, &Reply::Text("x".into()));
    }

    #[test]
    fn tool_call_arguments_are_a_json_string() {
        let req = json!({"model": "judge-model", "tools": [{"type": "function", "function": {"name": "grade"}}]});
        let reply = Reply::tool_call(json!({"label": "good", "n": 1}));
        let (action, v, _) = run(&reply, "/v1/chat/completions", req.clone());
        assert_eq!(action, ok());
        let function = &v["choices"][0]["message"]["tool_calls"][0]["function"];
        assert_eq!(function["name"], "grade");
        assert_eq!(function["arguments"], r#"{"label":"good","n":1}"#);
        assert_eq!(v["model"], "judge-model");
        let len = req.to_string().len() as u64;
        assert_eq!(v["usage"]["prompt_tokens"], len / 4);
        assert_eq!(v["usage"]["completion_tokens"], 10);
        let raw = Reply::tool_call(json!("{not json"));
        let (_, v, _) = run(&raw, "/v1/chat/completions", json!({}));
        let function = &v["choices"][0]["message"]["tool_calls"][0]["function"];
        assert_eq!(function["arguments"], "{not json");
        assert_eq!(function["name"], "tool");
    }

    #[test]
    fn usage_overrides_apply() {
        let reply = Reply::Text("t".into()).with_usage(100, 5);
        let (_, v, _) = run(&reply, "/v1/chat/completions", json!({}));
        assert_eq!(
            v["usage"],
            json!({"prompt_tokens": 100, "completion_tokens": 5, "total_tokens": 105})
        );
    }

    #[test]
    fn status_bodies_and_headers() {
        let reply = Reply::rate_limited("2");
        let (action, v, _) = run(&reply, "/v1/chat/completions", json!({}));
        assert_eq!(
            action,
            Action::Send { status: 429, content_type: JSON, retry_after: Some("2") }
        );
        assert_eq!(v["error"]["message"], "scripted status 429");
        let text = Reply::Status { code: 503, retry_after: None, body: "busy".into() };
        let (action, _, raw) = run(&text, "/v1/chat/completions", json!({}));
        assert_eq!(raw, b"busy");
        assert!(matches!(action, Action::Send { status: 503, content_type: TEXT, .. }));
    }

    #[test]
    fn garbage_drop_and_empty() {
        let garbage = Reply::Garbage("<html>".into());
        let (action, v, raw) = run(&garbage, "/v1/chat/completions", json!({}));
        assert_eq!(action, ok());
        assert_eq!(v, Value::Null);
        assert_eq!(raw, b"<html>");
        assert_eq!(run(&Reply::Drop, "/v1/chat/completions", json!({})).0, Action::Close);
        let (_, v, _) = run(&Reply::Empty, "/v1/chat/completions", json!({}));
        assert_eq!(v["choices"], json!([]));
        let (_, v, _) = run(&Reply::Empty, "/v1/embeddings", json!({"input": "a"}));
        assert_eq!(v["data"], json!([]));
    }

    #[test]
    fn only_made_up_answers_are_streamed() {
        let stream =
            json!({"stream": true, "messages": [{"role": "user", "content": "LABEL=good"}]});
        let text_reply = Reply::Text("hi".into());
        let (action, _, raw) = run(&text_reply, "/v1/chat/completions", stream.clone());
        assert!(matches!(action, Action::Send { content_type: stream::EVENT_STREAM, .. }));
        assert!(raw.ends_with(b"data: [DONE]\n\n"));
        // A scripted body that happens to be a chat completion goes as it is.
        let mut completion = Vec::new();
        openai::chat_completion(
            &mut completion,
            1,
            "m",
            ChatOutput::Content("x"),
            TokenUsage::new(1, 1),
            1,
        );
        let text = String::from_utf8(completion.clone()).unwrap();
        for reply in [
            Reply::Garbage(text.clone()),
            Reply::Status { code: 200, retry_after: None, body: text.clone() },
        ] {
            let (action, _, raw) = run(&reply, "/v1/chat/completions", stream.clone());
            assert!(matches!(action, Action::Send { content_type: JSON, .. }), "{reply:?}");
            assert_eq!(raw, completion);
        }
    }

    #[test]
    fn auto_embeddings_are_deterministic() {
        let req = json!({"model": "emb", "input": ["same", "other", "same"]});
        let (_, v, _) = run(&Reply::Auto, "/v1/embeddings", req);
        let data = v["data"].as_array().unwrap();
        assert_eq!(data.len(), 3);
        assert_eq!(data[0]["embedding"], data[2]["embedding"]);
        assert_ne!(data[0]["embedding"], data[1]["embedding"]);
        assert_eq!(data[2]["index"], 2);
        assert_eq!(data[0]["embedding"].as_array().unwrap().len(), 8);
        let (_, v, _) =
            run(&Reply::Auto, "/v1/embeddings", json!({"input": "a", "encoding_format": "base64"}));
        assert!(v["data"][0]["embedding"].is_string());
        let (action, _, _) = run(&Reply::Auto, "/v1/embeddings", json!({"input": 5}));
        assert!(matches!(action, Action::Send { status: 400, .. }));
    }

    #[test]
    fn a_finish_reason_is_set_on_chat_completions_only() {
        let cut = Reply::Text("The answ".into()).finished("length").with_usage(3, 64);
        let (_, v, _) = run(&cut, "/v1/chat/completions", json!({"model": "m", "messages": []}));
        assert_eq!(v["choices"][0]["finish_reason"], "length");
        assert_eq!(v["choices"][0]["message"]["content"], "The answ");
        assert_eq!(v["usage"]["completion_tokens"], 64);
        let failed = Reply::status(500).finished("length");
        let (action, v, _) = run(&failed, "/v1/chat/completions", json!({}));
        assert!(matches!(action, Action::Send { status: 500, .. }));
        assert!(v.get("choices").is_none());
    }

    #[test]
    fn auto_unknown_path_is_404() {
        let (action, v, _) = run(&Reply::Auto, "/v2/other", json!({}));
        assert!(matches!(action, Action::Send { status: 404, .. }));
        // As OpenAI answers an unknown address: no code.
        assert_eq!(v["error"]["code"], Value::Null);
        assert_eq!(v["error"]["type"], "invalid_request_error");
    }
}
