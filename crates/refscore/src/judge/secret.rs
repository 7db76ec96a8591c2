//! The API key: read from the environment, sent in one header, shown
//! nowhere else.

use std::fmt;

/// An API key. Its `Debug` is redacted and it has no `Display` nor
/// `Serialize`, so it cannot reach an output, a log or the cache by
/// accident; [`redact`] removes it from text a server sent back.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Reads the key from environment variable `var` (empty counts as unset).
    pub fn from_env(var: &str) -> Option<ApiKey> {
        std::env::var(var)
            .ok()
            .filter(|k| !k.trim().is_empty())
            .map(|k| ApiKey(k.trim().to_owned()))
    }

    /// A key from a value (tests, embedding applications).
    pub fn new(key: impl Into<String>) -> ApiKey {
        ApiKey(key.into())
    }

    /// The `Authorization` header's value.
    pub(crate) fn bearer(&self) -> String {
        format!("Bearer {}", self.0)
    }

    /// `text` with every occurrence of the key replaced by `***`.
    pub fn redact(&self, text: &str) -> String {
        if self.0.len() < 4 { text.to_owned() } else { text.replace(&self.0, "***") }
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(***)")
    }
}

/// `text` without `key`, when there is one.
pub(crate) fn redact(key: Option<&ApiKey>, text: &str) -> String {
    key.map_or_else(|| text.to_owned(), |k| k.redact(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_shown() {
        let k = ApiKey::new("sk-secret-123");
        assert_eq!(format!("{k:?}"), "ApiKey(***)");
        assert_eq!(k.redact("bad key sk-secret-123 given"), "bad key *** given");
        assert_eq!(redact(None, "x"), "x");
    }
}
