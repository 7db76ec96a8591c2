//! What the server answers when a rule matches.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The answer a [`Rule`](crate::Rule) gives.
///
/// In script JSON (externally tagged, snake_case): `"auto"`, `"drop"`,
/// `"empty"`, `{"tool_call": {"name": "judge", "arguments": {...}}}`,
/// `{"json": {...}}`, `{"text": "..."}`,
/// `{"status": {"code": 429, "retry_after": "1", "body": ""}}`,
/// `{"delay": {"ms": 500, "then": "auto"}}`, `{"garbage": "<html>"}`,
/// `{"with_usage": {"usage": {"prompt_tokens": 7}, "then": {"text": "hi"}}}`,
/// `{"finish": {"reason": "length", "then": {"text": "The answ"}}}`.
///
/// Chat-completion replies carry `id`, `object: "chat.completion"`,
/// `created`, `model` (the request's), `choices` and `usage`. Unless
/// [`Reply::WithUsage`] says otherwise, `usage.prompt_tokens` is the request
/// body's length / 4 and `usage.completion_tokens` is 10.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Reply {
    /// A chat completion whose `choices[0].message.tool_calls[0]` calls a
    /// function with `arguments` serialised to a JSON string, as OpenAI
    /// does (a JSON *string* value is sent verbatim, so malformed arguments
    /// can be scripted); `finish_reason: "tool_calls"`.
    ToolCall {
        /// The function's name; by default the tool named by the request's
        /// `tool_choice`, else the request's first tool, else `"tool"`.
        #[serde(default)]
        name: Option<String>,
        /// The call's arguments.
        #[serde(default = "empty_object")]
        arguments: Value,
    },
    /// A chat completion whose content is this value serialised (as a
    /// `response_format: json_schema` answer is).
    Json(Value),
    /// A chat completion with this text content.
    Text(String),
    /// A sensible answer to the request (the default when no rule matches):
    ///
    /// - chat with `tools`: a call of the first tool (or the one
    ///   `tool_choice` names) whose arguments fill the tool's parameter
    ///   schema: the label slot (the property whose `enum` holds the word
    ///   after a `LABEL=` marker in the prompt, else the first property
    ///   with an `enum`, a property named `label` first) gets the marker's
    ///   word if there is one, else the enum's first value; an
    ///   `explanation` property gets `"scripted"`; other required properties
    ///   get plain values of their type;
    /// - chat with `response_format.json_schema`: the same object as JSON
    ///   content; with `response_format: json_object`, `{"label": ...}`;
    /// - other chat: the content `LABEL=<word>` if the prompt has the
    ///   marker, else `ok`;
    /// - `/v1/embeddings`: a deterministic unit vector per input string
    ///   (8 dimensions, or the request's `dimensions` up to 4096; base64 when
    ///   `encoding_format` is `"base64"`);
    /// - `GET /v1/models`: a one-model list; `GET /v1/models/{id}`: that
    ///   model; any other path: `404`;
    /// - a request OpenAI would refuse (no `model`, no `messages`, an
    ///   empty input, ...): `400` naming the field (see the crate's
    ///   documentation); `n` choices when asked.
    #[default]
    Auto,
    /// An HTTP error status (any of 200..=599).
    Status {
        /// The status code, e.g. 429 or 500.
        code: u16,
        /// A `Retry-After` header value, e.g. `"1"`.
        #[serde(default)]
        retry_after: Option<String>,
        /// The response body; empty means an OpenAI-style error object.
        #[serde(default)]
        body: String,
    },
    /// Wait `ms` milliseconds, then answer with `then` (the wait ends early,
    /// closing the connection, when the server stops).
    Delay {
        /// Milliseconds to wait.
        ms: u64,
        /// The answer after the wait.
        #[serde(default)]
        then: Box<Reply>,
    },
    /// Close the connection without answering (the client sees EOF).
    Drop,
    /// A `200` whose body is this text (sent as `application/json`, so a
    /// client sees a body that does not parse).
    Garbage(String),
    /// A `200` chat completion with `choices: []` (on `/v1/embeddings`, an
    /// embedding list with `data: []`).
    Empty,
    /// Answer with `then`, its choices ending with this `finish_reason`
    /// (`length`: cut off at the token limit; `content_filter`: withheld),
    /// streamed or not. Only a chat completion is changed.
    Finish {
        /// One of `stop`, `length`, `content_filter`, `tool_calls`,
        /// `function_call`.
        reason: String,
        /// The answer.
        #[serde(default)]
        then: Box<Reply>,
    },
    /// Answer with `then`, reporting these token counts.
    WithUsage {
        /// Token counts to report; unset ones keep their defaults.
        usage: Usage,
        /// The answer.
        #[serde(default)]
        then: Box<Reply>,
    },
}

/// Token counts a reply reports instead of the defaults.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Usage {
    /// `usage.prompt_tokens` (default: request body length / 4).
    #[serde(default)]
    pub prompt_tokens: Option<u64>,
    /// `usage.completion_tokens` (default: 10).
    #[serde(default)]
    pub completion_tokens: Option<u64>,
}

fn empty_object() -> Value {
    Value::Object(serde_json::Map::new())
}

impl Reply {
    /// A call of the request's (first) tool with these arguments.
    pub fn tool_call(arguments: Value) -> Self {
        Reply::ToolCall { name: None, arguments }
    }

    /// An HTTP status with the default error body and no `Retry-After`.
    pub fn status(code: u16) -> Self {
        Reply::Status { code, retry_after: None, body: String::new() }
    }

    /// A `429 Too Many Requests` with this `Retry-After` value.
    pub fn rate_limited(retry_after: &str) -> Self {
        Reply::Status { code: 429, retry_after: Some(retry_after.to_owned()), body: String::new() }
    }

    /// This reply, sent after `ms` milliseconds.
    pub fn delayed(self, ms: u64) -> Self {
        Reply::Delay { ms, then: Box::new(self) }
    }

    /// This reply, its choices ending with `finish_reason` `reason`.
    pub fn finished(self, reason: &str) -> Self {
        Reply::Finish { reason: reason.to_owned(), then: Box::new(self) }
    }

    /// This reply, reporting these token counts.
    pub fn with_usage(self, prompt_tokens: u64, completion_tokens: u64) -> Self {
        Reply::WithUsage {
            usage: Usage {
                prompt_tokens: Some(prompt_tokens),
                completion_tokens: Some(completion_tokens),
            },
            then: Box::new(self),
        }
    }

    /// Why the server could not send this reply, if it could not.
    pub(crate) fn problem(&self) -> Option<String> {
        match self {
            Reply::Status { code, retry_after, .. } => {
                if !(200..=599).contains(code) {
                    return Some(format!("status code {code} is not in 200..=599"));
                }
                match retry_after {
                    Some(v) if v.chars().any(char::is_control) => {
                        Some("retry_after contains control characters".to_owned())
                    }
                    _ => None,
                }
            }
            Reply::Finish { reason, then } => {
                const REASONS: [&str; 5] =
                    ["stop", "length", "content_filter", "tool_calls", "function_call"];
                if REASONS.contains(&reason.as_str()) {
                    then.problem()
                } else {
                    Some(format!("finish reason `{reason}` is not one of {}", REASONS.join(", ")))
                }
            }
            Reply::Delay { then, .. } | Reply::WithUsage { then, .. } => then.problem(),
            Reply::ToolCall { name: Some(n), .. } if n.is_empty() => {
                Some("tool_call name is empty".to_owned())
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_variant_reads_from_snake_case_json() {
        let replies: Vec<Reply> = serde_json::from_value(json!([
            "auto", "drop", "empty",
            {"tool_call": {"arguments": {"label": "good"}}},
            {"tool_call": {"name": "judge"}},
            {"json": {"a": 1}},
            {"text": "hi"},
            {"status": {"code": 429, "retry_after": "1"}},
            {"delay": {"ms": 5, "then": {"text": "late"}}},
            {"garbage": "<html>"},
            {"with_usage": {"usage": {"prompt_tokens": 3}, "then": "auto"}}
        ]))
        .unwrap();
        assert_eq!(
            replies,
            vec![
                Reply::Auto,
                Reply::Drop,
                Reply::Empty,
                Reply::tool_call(json!({"label": "good"})),
                Reply::ToolCall { name: Some("judge".into()), arguments: json!({}) },
                Reply::Json(json!({"a": 1})),
                Reply::Text("hi".into()),
                Reply::rate_limited("1"),
                Reply::Text("late".into()).delayed(5),
                Reply::Garbage("<html>".into()),
                Reply::WithUsage {
                    usage: Usage { prompt_tokens: Some(3), completion_tokens: None },
                    then: Box::new(Reply::Auto)
                },
            ]
        );
    }

    #[test]
    fn unknown_fields_and_tags_are_rejected() {
        assert!(serde_json::from_value::<Reply>(json!({"status": {"code": 500, "x": 1}})).is_err());
        assert!(serde_json::from_value::<Reply>(json!("teapot")).is_err());
    }

    #[test]
    fn problems_are_found_inside_wrappers() {
        assert!(Reply::status(500).problem().is_none());
        assert!(Reply::status(99).problem().is_some());
        assert!(Reply::status(600).delayed(1).problem().is_some());
        let bad =
            Reply::Status { code: 429, retry_after: Some("1\r\nX: y".into()), body: String::new() };
        assert!(bad.with_usage(1, 1).problem().is_some());
        assert!(Reply::Text("x".into()).finished("length").problem().is_none());
        assert!(Reply::Text("x".into()).finished("cut").problem().is_some());
        let parsed: Reply =
            serde_json::from_value(json!({"finish": {"reason": "length", "then": {"text": "a"}}}))
                .unwrap();
        assert_eq!(parsed, Reply::Text("a".into()).finished("length"));
    }
}
