//! What an error reply says beyond its status: a server that cannot do a
//! structured-output mode at all (llama.cpp without `--jinja`, an
//! OpenRouter model without tool use), a generation that failed once
//! (Groq's `tool_use_failed`), a model the server does not know, and an
//! error a provider reported inside a `200` reply (OpenRouter).

use serde_json::Value;

/// Words naming a structured-output feature in an error message.
const FEATURES: [&str; 12] = [
    "tools",
    "tool use",
    "tool_use",
    "tool_choice",
    "tool calling",
    "tool call",
    "function calling",
    "response_format",
    "json_schema",
    "structured output",
    "json mode",
    "guided decoding",
];

/// Words saying the server cannot do a feature (not that one request
/// failed).
const CANNOT: [&str; 11] = [
    "requires --jinja",
    "requires the --jinja",
    "unsupported param",
    "unsupported",
    "not supported",
    "does not support",
    "doesn't support",
    "no endpoints found that support",
    "not implemented",
    "not enabled",
    "is not available",
];

/// How far apart (in bytes) a feature and a word saying it cannot be done
/// may be.
const NEAR: usize = 64;

/// An error a provider reported inside a `200` reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct BodyError {
    /// The error's code when it is an HTTP status (`502`, `"429"`).
    pub(super) code: Option<u16>,
    /// Its message, with the provider's name when given.
    pub(super) message: String,
}

impl BodyError {
    /// Whether the same status would be retried (429, 408, 5xx but 501).
    pub(super) fn transient(&self) -> bool {
        self.code.is_some_and(transient_status)
    }
}

/// Whether a status is worth a retry: 429, 408, and 5xx but 501.
pub(super) fn transient_status(status: u16) -> bool {
    status == 429 || status == 408 || (500..600).contains(&status) && status != 501
}

/// The error object of a body: `error` (an object, or Google's list of
/// them), else the body itself.
fn error_object(v: &Value) -> &Value {
    let v = match v {
        Value::Array(items) => items.first().unwrap_or(&Value::Null),
        other => other,
    };
    v.get("error").filter(|e| e.is_object()).unwrap_or(v)
}

/// The texts an error body says things in, lower-cased: its `message`,
/// `detail`, `error` (a text), `code` and `type`; a body that is not JSON
/// whole.
fn said(body: &str) -> String {
    let Ok(v) = serde_json::from_str::<Value>(body) else {
        return body.to_ascii_lowercase();
    };
    let e = error_object(&v);
    let mut out = String::new();
    for k in ["message", "detail", "error", "code", "type"] {
        if let Some(s) = e.get(k).or_else(|| v.get(k)).and_then(Value::as_str) {
            out.push_str(s);
            out.push('\n');
        }
    }
    out.to_ascii_lowercase()
}

/// Whether an error (of any 4xx or 5xx status but 401, 403, 408 and 429)
/// says the server cannot do a structured-output feature: llama.cpp's
/// `500 tools param requires --jinja flag` (older: `Unsupported param:
/// tools`), OpenRouter's `404 No endpoints found that support tool use`
/// (or `... the provided 'tool_choice' value`), a server saying
/// `response_format` is not supported. The next mode may do.
pub(super) fn cannot_do_mode(status: u16, body: &str) -> bool {
    if !(400..600).contains(&status) || matches!(status, 401 | 403 | 408 | 429) {
        return false;
    }
    if generation_failed(status, body) {
        return false;
    }
    let text = said(body);
    let at = |words: &[&str]| -> Vec<usize> {
        words.iter().flat_map(|w| text.match_indices(w).map(|(i, _)| i)).collect()
    };
    let (features, cannot) = (at(&FEATURES), at(&CANNOT));
    features.iter().any(|f| cannot.iter().any(|c| f.abs_diff(*c) <= NEAR))
}

/// Whether a 400 says that one generation failed, not that the request's
/// shape is refused: Groq's `tool_use_failed` (the model wrote a tool call
/// that does not parse) and `json_validate_failed`. Such a request is
/// retried in the same mode.
pub(super) fn generation_failed(status: u16, body: &str) -> bool {
    status == 400 && (body.contains("tool_use_failed") || body.contains("json_validate_failed"))
}

/// Whether a 404 says the model is not known: OpenAI's `model_not_found`,
/// Ollama's `model "x" not found, try pulling it first`, vLLM's `The model
/// `x` does not exist.`.
pub(super) fn model_not_found(body: &str) -> bool {
    let text = said(body);
    // Azure OpenAI names the model by its deployment: `DeploymentNotFound`.
    text.contains("model_not_found")
        || deployment_not_found(body)
        || text.contains("model")
            && ["not found", "does not exist", "no such model", "unknown model", "not exist"]
                .iter()
                .any(|w| text.contains(w))
}

/// Whether a 400 says the model is not known, in the words of servers
/// that refuse an unknown model with 400: LiteLLM's proxy (`Invalid model
/// name passed in model=x`), or OpenAI's `model_not_found` code. Narrower
/// than [`model_not_found`]: a 400 that refuses a mode often names the
/// model too (`tools are not supported for this model`).
pub(super) fn model_refused(body: &str) -> bool {
    let text = said(body);
    text.contains("invalid model name") || text.contains("model_not_found")
}

/// Whether a 404 says that an Azure deployment does not exist.
pub(super) fn deployment_not_found(body: &str) -> bool {
    said(body).contains("deploymentnotfound")
}

/// The error a `200` reply carries instead of (or in its first choice
/// beside) a completion: OpenRouter's `{"error": {"code": 502, "message":
/// "Provider returned error"}}` and its choice with `finish_reason:
/// "error"` and an `error` object.
pub(super) fn in_body_error(text: &str) -> Option<BodyError> {
    if !text.contains("\"error\"") {
        return None;
    }
    let v: Value = serde_json::from_str(text).ok()?;
    let choice = v.get("choices").and_then(Value::as_array).and_then(|c| c.first());
    let error = match choice {
        Some(c) => {
            let e = c.get("error").filter(|e| e.is_object() || e.is_string());
            if e.is_none() && c.get("finish_reason").and_then(Value::as_str) != Some("error") {
                return None;
            }
            e.unwrap_or(&Value::Null)
        }
        None => v.get("error").filter(|e| e.is_object() || e.is_string())?,
    };
    let code = match error.get("code") {
        Some(Value::Number(n)) => n.as_u64(),
        Some(Value::String(s)) => s.trim().parse().ok(),
        _ => None,
    }
    .and_then(|c| u16::try_from(c).ok())
    .filter(|c| (100..600).contains(c));
    let mut message = error
        .get("message")
        .and_then(Value::as_str)
        .or_else(|| error.as_str())
        .filter(|m| !m.trim().is_empty())
        .unwrap_or("(no message)")
        .trim()
        .to_owned();
    let provider = error.get("metadata").and_then(|m| m.get("provider_name"));
    if let Some(p) = provider.and_then(Value::as_str) {
        message.push_str(&format!(" (provider: {p})"));
    }
    Some(BodyError { code, message })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn servers_that_cannot_do_a_mode_are_told_from_other_errors() {
        for (status, body) in [
            (
                500,
                r#"{"error":{"code":500,"message":"tools param requires --jinja flag","type":"server_error"}}"#,
            ),
            (
                500,
                r#"{"error":{"code":500,"message":"Unsupported param: tools","type":"server_error"}}"#,
            ),
            (
                404,
                r#"{"error":{"message":"No endpoints found that support tool use. To learn more about provider routing, visit: https://openrouter.ai/docs/provider-routing","code":404}}"#,
            ),
            (
                404,
                r#"{"error":{"message":"No endpoints found that support the provided 'tool_choice' value.","code":404}}"#,
            ),
            (500, r#"{"error":{"message":"response_format is not supported by this backend"}}"#),
            (400, r#"{"error":{"message":"tools are not supported"}}"#),
        ] {
            assert!(cannot_do_mode(status, body), "{status} {body}");
        }
        for (status, body) in [
            (500, r#"{"error":{"message":"CUDA out of memory"}}"#),
            (
                404,
                r#"{"error":{"code":"model_not_found","message":"The model `x` does not exist"}}"#,
            ),
            (401, r#"{"error":{"message":"tools are not supported for this key"}}"#),
            (
                400,
                r#"{"error":{"message":"Failed to call a function. Please adjust your prompt.","type":"invalid_request_error","code":"tool_use_failed","failed_generation":"<tool_call>unsupported"}}"#,
            ),
            (503, "upstream connect error"),
        ] {
            assert!(!cannot_do_mode(status, body), "{status} {body}");
        }
    }

    #[test]
    fn models_not_found_and_errors_in_200_replies_are_read() {
        assert!(model_not_found(
            r#"{"error":{"message":"The model `gpt-4o-mimi` does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}"#
        ));
        assert!(model_not_found(
            r#"{"error":"model \"llama3.1:8b\" not found, try pulling it first"}"#
        ));
        let azure = r#"{"error":{"code":"DeploymentNotFound","message":"The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again."}}"#;
        assert!(model_not_found(azure) && deployment_not_found(azure));
        assert!(!deployment_not_found(r#"{"error":{"code":"model_not_found"}}"#));
        assert!(!model_not_found(r#"{"detail":"Not Found"}"#));
        let litellm = r#"{"error":{"message":"/chat/completions: Invalid model name passed in model=gpt-4o-typo. Call `/v1/models` to view available models for your key.","type":"invalid_request_error","param":"model","code":"400"}}"#;
        assert!(model_refused(litellm));
        assert!(!model_refused(
            r#"{"error":{"message":"tools are not supported for this model"}}"#
        ));
        assert!(!model_not_found("404 page not found"));
        let e = in_body_error(
            r#"{"choices":[{"finish_reason":"error","error":{"code":502,"message":"Provider returned error","metadata":{"provider_name":"Fireworks"}},"message":{"role":"assistant","content":""}}]}"#,
        )
        .unwrap();
        assert_eq!(
            (e.code, e.message.as_str(), e.transient()),
            (Some(502), "Provider returned error (provider: Fireworks)", true)
        );
        let e = in_body_error(r#"{"error":{"code":"429","message":"Rate limited"}}"#).unwrap();
        assert_eq!((e.code, e.transient()), (Some(429), true));
        let e = in_body_error(r#"{"error":{"code":400,"message":"bad"}}"#).unwrap();
        assert!(!e.transient());
        assert_eq!(
            in_body_error(r#"{"choices":[{"message":{"content":"error"}}],"error":null}"#),
            None
        );
        assert_eq!(in_body_error(r#"{"choices":[{"message":{"content":"\"error\""}}]}"#), None);
    }
}
