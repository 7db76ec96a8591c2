//! OpenAI-shaped response bodies: chat completions, embedding lists, model
//! lists and error objects, serialised straight into a buffer.

use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;

/// What a chat completion's single choice says.
#[derive(Debug, Clone, Copy)]
pub(crate) enum ChatOutput<'a> {
    /// Assistant text content.
    Content(&'a str),
    /// A function call; `arguments` is JSON text.
    ToolCall { name: &'a str, arguments: &'a str },
    /// No choices at all.
    Nothing,
}

/// Token counts of a response.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub(crate) struct TokenUsage {
    pub(crate) prompt_tokens: u64,
    pub(crate) completion_tokens: u64,
    pub(crate) total_tokens: u64,
}

impl TokenUsage {
    pub(crate) fn new(prompt_tokens: u64, completion_tokens: u64) -> Self {
        Self {
            prompt_tokens,
            completion_tokens,
            total_tokens: prompt_tokens.saturating_add(completion_tokens),
        }
    }
}

#[derive(Serialize)]
struct ChatCompletion<'a> {
    id: &'a str,
    object: &'static str,
    created: u64,
    model: &'a str,
    choices: Vec<Choice<'a>>,
    usage: TokenUsage,
}

#[derive(Serialize, Clone, Copy)]
struct Choice<'a> {
    index: u32,
    message: Message<'a>,
    finish_reason: &'static str,
    logprobs: Option<()>,
}

#[derive(Serialize, Clone, Copy)]
struct Message<'a> {
    role: &'static str,
    content: Option<&'a str>,
    refusal: Option<()>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_calls: Option<[ToolCall<'a>; 1]>,
}

#[derive(Serialize, Clone, Copy)]
struct ToolCall<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    function: Function<'a>,
}

#[derive(Serialize, Clone, Copy)]
struct Function<'a> {
    name: &'a str,
    arguments: &'a str,
}

/// Write a `chat.completion` object for request number `seq`, with `n`
/// identical choices (indexes 0..n), as a request with `n` asks; the
/// completion tokens count every choice.
pub(crate) fn chat_completion(
    out: &mut Vec<u8>,
    seq: usize,
    model: &str,
    output: ChatOutput<'_>,
    usage: TokenUsage,
    n: u32,
) {
    let id = format!("chatcmpl-scripted-{seq}");
    let call_id = format!("call_scripted_{seq}");
    let choice =
        |message, finish_reason| Choice { index: 0, message, finish_reason, logprobs: None };
    let mut choices = match output {
        ChatOutput::Content(content) => vec![choice(
            Message { role: "assistant", content: Some(content), refusal: None, tool_calls: None },
            "stop",
        )],
        ChatOutput::ToolCall { name, arguments } => vec![choice(
            Message {
                role: "assistant",
                content: None,
                refusal: None,
                tool_calls: Some([ToolCall {
                    id: &call_id,
                    kind: "function",
                    function: Function { name, arguments },
                }]),
            },
            "tool_calls",
        )],
        ChatOutput::Nothing => Vec::new(),
    };
    let usage = if n > 1 && !choices.is_empty() {
        TokenUsage::new(usage.prompt_tokens, usage.completion_tokens.saturating_mul(u64::from(n)))
    } else {
        usage
    };
    if let Some(first) = choices.pop() {
        choices = (0..n.max(1)).map(|index| Choice { index, ..first }).collect();
    }
    write_json(
        out,
        &ChatCompletion {
            id: &id,
            object: "chat.completion",
            created: unix_seconds(),
            model,
            choices,
            usage,
        },
    );
}

#[derive(Serialize)]
struct EmbeddingList<'a, E: Serialize> {
    object: &'static str,
    data: Vec<Embedding<E>>,
    model: &'a str,
    usage: EmbeddingUsage,
}

#[derive(Serialize)]
struct Embedding<E: Serialize> {
    object: &'static str,
    embedding: E,
    index: usize,
}

#[derive(Serialize)]
struct EmbeddingUsage {
    prompt_tokens: u64,
    total_tokens: u64,
}

/// Write an embedding `list` with one item per vector, in order.
pub(crate) fn embedding_list<E: Serialize>(
    out: &mut Vec<u8>,
    model: &str,
    vectors: Vec<E>,
    prompt_tokens: u64,
) {
    let data = vectors
        .into_iter()
        .enumerate()
        .map(|(index, embedding)| Embedding { object: "embedding", embedding, index })
        .collect();
    write_json(
        out,
        &EmbeddingList {
            object: "list",
            data,
            model,
            usage: EmbeddingUsage { prompt_tokens, total_tokens: prompt_tokens },
        },
    );
}

#[derive(Serialize)]
struct ModelList {
    object: &'static str,
    data: [Model<'static>; 1],
}

#[derive(Serialize)]
struct Model<'a> {
    id: &'a str,
    object: &'static str,
    created: u64,
    owned_by: &'static str,
}

/// Write the `model` object of `id` (`GET /v1/models/{id}`): every id is
/// served.
pub(crate) fn model(out: &mut Vec<u8>, id: &str) {
    write_json(out, &Model { id, object: "model", created: 0, owned_by: "refscore" });
}

/// Write a model `list` naming the one model `scripted`.
pub(crate) fn model_list(out: &mut Vec<u8>) {
    write_json(
        out,
        &ModelList {
            object: "list",
            data: [Model { id: "scripted", object: "model", created: 0, owned_by: "refscore" }],
        },
    );
}

#[derive(Serialize)]
struct ErrorBody<'a> {
    error: ErrorDetail<'a>,
}

#[derive(Serialize)]
struct ErrorDetail<'a> {
    message: &'a str,
    #[serde(rename = "type")]
    kind: &'a str,
    param: Option<&'a str>,
    code: Option<&'a str>,
}

/// Write an OpenAI-style error object.
pub(crate) fn error(out: &mut Vec<u8>, message: &str, kind: &str, code: Option<&str>) {
    invalid(out, message, kind, None, code);
}

/// Write an OpenAI-style error object naming the request field at fault.
pub(crate) fn invalid(
    out: &mut Vec<u8>,
    message: &str,
    kind: &str,
    param: Option<&str>,
    code: Option<&str>,
) {
    write_json(out, &ErrorBody { error: ErrorDetail { message, kind, param, code } });
}

/// The `type` and `code` OpenAI gives an error of `status`: 401
/// `invalid_api_key`, 404 `model_not_found`, 429 `rate_limit_exceeded`
/// (type `requests`), 5xx `server_error`, other 4xx
/// `invalid_request_error`.
pub(crate) fn error_kind(status: u16) -> (&'static str, Option<&'static str>) {
    match status {
        401 => ("invalid_request_error", Some("invalid_api_key")),
        404 => ("invalid_request_error", Some("model_not_found")),
        429 => ("requests", Some("rate_limit_exceeded")),
        500..=599 => ("server_error", None),
        _ => ("invalid_request_error", None),
    }
}

fn write_json<T: Serialize>(out: &mut Vec<u8>, value: &T) {
    let start = out.len();
    if serde_json::to_writer(&mut *out, value).is_err() {
        // Not expected for these types; never leave half a document.
        out.truncate(start);
        out.extend_from_slice(
            br#"{"error":{"message":"scripted server could not serialise its reply"}}"#,
        );
    }
}

fn unix_seconds() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn parse(out: &[u8]) -> Value {
        serde_json::from_slice(out).unwrap()
    }

    #[test]
    fn tool_call_completion_has_openai_shape() {
        let mut out = Vec::new();
        let output = ChatOutput::ToolCall { name: "judge", arguments: r#"{"label":"good"}"# };
        chat_completion(&mut out, 7, "m", output, TokenUsage::new(3, 10), 1);
        let v = parse(&out);
        assert_eq!(v["id"], "chatcmpl-scripted-7");
        assert_eq!(v["object"], "chat.completion");
        assert_eq!(v["model"], "m");
        assert!(v["created"].as_u64().unwrap() > 0);
        let choice = &v["choices"][0];
        assert_eq!(choice["finish_reason"], "tool_calls");
        assert_eq!(choice["message"]["role"], "assistant");
        assert_eq!(choice["message"]["content"], Value::Null);
        let call = &choice["message"]["tool_calls"][0];
        assert_eq!(call["type"], "function");
        assert_eq!(call["id"], "call_scripted_7");
        assert_eq!(call["function"]["name"], "judge");
        assert_eq!(call["function"]["arguments"], r#"{"label":"good"}"#);
        assert_eq!(
            v["usage"],
            json!({"prompt_tokens": 3, "completion_tokens": 10, "total_tokens": 13})
        );
    }

    #[test]
    fn content_and_empty_completions() {
        let mut out = Vec::new();
        chat_completion(&mut out, 1, "m", ChatOutput::Content("hi"), TokenUsage::new(1, 1), 1);
        let v = parse(&out);
        assert_eq!(v["choices"][0]["message"]["content"], "hi");
        assert_eq!(v["choices"][0]["finish_reason"], "stop");
        assert!(v["choices"][0]["message"].get("tool_calls").is_none());
        out.clear();
        chat_completion(&mut out, 1, "m", ChatOutput::Nothing, TokenUsage::new(1, 1), 1);
        assert_eq!(parse(&out)["choices"], json!([]));
    }

    #[test]
    fn embedding_and_error_bodies() {
        let mut out = Vec::new();
        embedding_list(&mut out, "e", vec![vec![1.0f32], vec![0.5]], 4);
        assert_eq!(
            parse(&out),
            json!({"object": "list", "model": "e",
                   "data": [{"object": "embedding", "embedding": [1.0], "index": 0},
                            {"object": "embedding", "embedding": [0.5], "index": 1}],
                   "usage": {"prompt_tokens": 4, "total_tokens": 4}})
        );
        out.clear();
        error(&mut out, "nope", "invalid_request_error", None);
        assert_eq!(parse(&out)["error"]["code"], Value::Null);
        out.clear();
        invalid(&mut out, "no", "invalid_request_error", Some("messages"), None);
        assert_eq!(parse(&out)["error"]["param"], "messages");
        out.clear();
        model(&mut out, "gpt-x");
        assert_eq!(
            parse(&out),
            json!({"id": "gpt-x", "object": "model", "created": 0, "owned_by": "refscore"})
        );
        assert_eq!(error_kind(429), ("requests", Some("rate_limit_exceeded")));
        assert_eq!(error_kind(503), ("server_error", None));
        out.clear();
        model_list(&mut out);
        assert_eq!(parse(&out)["data"][0]["id"], "scripted");
    }
}
