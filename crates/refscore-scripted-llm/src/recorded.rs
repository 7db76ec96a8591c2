//! What the server remembers of each request it answered.

use serde::Serialize;
use serde_json::Value;

/// One request as the server received it, kept in arrival order by
/// [`ScriptedServer::requests`](crate::ScriptedServer::requests).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RecordedRequest {
    /// The request method, as sent (`"POST"`).
    pub method: String,
    /// The request target as sent, query string included
    /// (`"/v1/chat/completions"`).
    pub path: String,
    /// Headers in the order sent; names lowercased, values trimmed.
    pub headers: Vec<(String, String)>,
    /// The body parsed as JSON; `Null` when it is empty or not JSON, or when
    /// body recording is off ([`Script::record`](crate::Script::record)).
    pub body: Value,
    /// The body as text (invalid UTF-8 replaced); empty when body recording
    /// is off.
    pub raw_body: String,
}

impl RecordedRequest {
    /// The first header named `name` (compared case-insensitively).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_lookup_ignores_case() {
        let r = RecordedRequest {
            method: "POST".into(),
            path: "/v1/embeddings".into(),
            headers: vec![("authorization".into(), "Bearer k".into())],
            body: Value::Null,
            raw_body: String::new(),
        };
        assert_eq!(r.header("Authorization"), Some("Bearer k"));
        assert_eq!(r.header("x-missing"), None);
    }
}
