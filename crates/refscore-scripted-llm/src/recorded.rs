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

    /// The request as one JSON line (no newline) for a record file:
    /// `method`, `path`, `headers` (an object) and `body` (the JSON body,
    /// else its text). A header, or a query parameter of the path, whose
    /// name holds `key`, `auth`, `token`, `secret`, `pass`, `sign`,
    /// `credential`, `session` or `cookie` has its value replaced by
    /// `***`, so a key sent there never reaches the file. Bodies are kept
    /// as sent.
    pub fn to_record_line(&self) -> String {
        let headers: serde_json::Map<String, Value> = self
            .headers
            .iter()
            .map(|(n, v)| (n.clone(), Value::from(if secret(n) { "***" } else { v.as_str() })))
            .collect();
        let path = match self.path.split_once('?') {
            None => self.path.clone(),
            Some((base, query)) => {
                let params: Vec<String> = query
                    .split('&')
                    .map(|p| match p.split_once('=') {
                        Some((name, _)) if secret(name) => format!("{name}=***"),
                        _ => p.to_owned(),
                    })
                    .collect();
                format!("{base}?{}", params.join("&"))
            }
        };
        let body = if self.body.is_null() {
            Value::from(self.raw_body.as_str())
        } else {
            self.body.clone()
        };
        serde_json::json!({"method": self.method, "path": path, "headers": headers, "body": body})
            .to_string()
    }
}

/// Whether a header or parameter of this name carries a credential.
fn secret(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    ["key", "auth", "token", "secret", "pass", "sign", "credential", "session", "cookie"]
        .iter()
        .any(|w| name.contains(w))
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

    #[test]
    fn record_lines_never_hold_credentials() {
        let r = RecordedRequest {
            method: "POST".into(),
            path: "/v1/chat/completions?api-version=1&api_key=SECRET3&sig=x".into(),
            headers: vec![
                ("authorization".into(), "Bearer sk-SECRET".into()),
                ("x-password".into(), "SECRET4".into()),
                ("api-key".into(), "SECRET2".into()),
                ("x-trace".into(), "t1".into()),
            ],
            body: serde_json::json!({"model": "m"}),
            raw_body: r#"{"model": "m"}"#.into(),
        };
        let line = r.to_record_line();
        assert!(!line.contains("SECRET"), "{line}");
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["headers"]["authorization"], "***");
        assert_eq!(v["headers"]["x-trace"], "t1");
        assert_eq!(v["path"], "/v1/chat/completions?api-version=1&api_key=***&sig=x");
        assert_eq!(v["body"]["model"], "m");
    }
}
