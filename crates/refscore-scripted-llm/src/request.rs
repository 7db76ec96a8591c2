//! A received request as rules and replies see it.

use std::cell::OnceCell;

use serde_json::Value;

/// The parts of a request that matching and replying look at.
pub(crate) struct RequestView<'a> {
    /// Request method (`POST`).
    pub(crate) method: &'a str,
    /// Request path without its query string.
    pub(crate) path: &'a str,
    /// The body as JSON (`Null` when not JSON).
    pub(crate) body: &'a Value,
    /// Body length in bytes, for the default token counts.
    pub(crate) body_len: usize,
    prompt: OnceCell<String>,
}

impl<'a> RequestView<'a> {
    /// A view of one request; `target` may carry a query string.
    pub(crate) fn new(method: &'a str, target: &'a str, body: &'a Value, body_len: usize) -> Self {
        let path = target.split_once('?').map_or(target, |(p, _)| p);
        Self { method, path, body, body_len, prompt: OnceCell::new() }
    }

    /// All prompt text of the request, computed once: every message's
    /// content (strings, and the `text` of content parts), a legacy `prompt`
    /// and embedding `input` strings, joined by newlines.
    pub(crate) fn prompt(&self) -> &str {
        self.prompt.get_or_init(|| prompt_text(self.body))
    }

    /// The model the request asked for, or `"scripted"`.
    pub(crate) fn model(&self) -> &str {
        self.body.get("model").and_then(Value::as_str).unwrap_or("scripted")
    }

    /// Whether this is a request for embeddings.
    pub(crate) fn is_embeddings(&self) -> bool {
        self.path == "/v1/embeddings" || self.path == "/embeddings"
    }

    /// Whether this is a request for a chat completion.
    pub(crate) fn is_chat(&self) -> bool {
        self.path == "/v1/chat/completions" || self.path == "/chat/completions"
    }
}

fn prompt_text(body: &Value) -> String {
    let mut out = String::new();
    let mut push = |s: &str| {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(s);
    };
    if let Some(messages) = body.get("messages").and_then(Value::as_array) {
        for message in messages {
            match message.get("content") {
                Some(Value::String(s)) => push(s),
                Some(Value::Array(parts)) => {
                    for part in parts {
                        if let Some(s) = part.get("text").and_then(Value::as_str) {
                            push(s);
                        }
                    }
                }
                _ => {}
            }
        }
    }
    for key in ["prompt", "input"] {
        match body.get(key) {
            Some(Value::String(s)) => push(s),
            Some(Value::Array(items)) => {
                for s in items.iter().filter_map(Value::as_str) {
                    push(s);
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn prompt_joins_string_and_part_contents() {
        let body = json!({"messages": [
            {"role": "system", "content": "be strict"},
            {"role": "user", "content": [{"type": "text", "text": "LABEL=bad"}, {"type": "image_url"}]},
            {"role": "assistant", "content": null}
        ]});
        let view = RequestView::new("POST", "/v1/chat/completions?x=1", &body, 0);
        assert_eq!(view.prompt(), "be strict\nLABEL=bad");
        assert_eq!(view.path, "/v1/chat/completions");
        assert!(view.is_chat());
        assert_eq!(view.model(), "scripted");
    }

    #[test]
    fn prompt_includes_embedding_inputs() {
        let body = json!({"model": "e", "input": ["a", "b"]});
        let view = RequestView::new("POST", "/v1/embeddings", &body, 0);
        assert_eq!(view.prompt(), "a\nb");
        assert!(view.is_embeddings());
        assert_eq!(view.model(), "e");
    }
}
