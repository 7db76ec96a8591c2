//! Judge settings, as a suite writes them (`judge:` or `judges:`).

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use crate::error::ConfigError;

/// The base URL used when neither the suite nor `OPENAI_BASE_URL` sets one.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// Prices in a currency of the suite's choosing per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Prices {
    /// Per million prompt (input) tokens.
    #[serde(default)]
    pub prompt: f64,
    /// Per million completion (output) tokens.
    #[serde(default)]
    pub completion: f64,
}

/// One judge: an OpenAI-compatible chat completions endpoint and a model.
/// Its `Debug` shows header names, not their values (one may hold a key).
#[derive(Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JudgeConfig {
    /// `https://host/v1`; default `OPENAI_BASE_URL`, else [`DEFAULT_BASE_URL`].
    pub base_url: Option<String>,
    /// The model name sent with every request.
    pub model: String,
    /// Environment variable holding the API key (default `OPENAI_API_KEY`);
    /// no key is sent when it is unset (local servers).
    pub api_key_env: Option<String>,
    /// The header the key is sent in, as it is (Azure OpenAI's classic
    /// endpoints: `api-key`); default `Authorization: Bearer KEY`.
    pub api_key_header: Option<String>,
    /// Sampling temperature (default 0).
    #[serde(default)]
    pub temperature: f64,
    /// Reply length limit in tokens (default: the server's).
    pub max_tokens: Option<u32>,
    /// Sampling seed, sent when set.
    pub seed: Option<u64>,
    /// Per-request timeout in seconds (default 60).
    pub timeout: Option<f64>,
    /// Requests in flight at once across the whole run (default 8).
    pub max_concurrency: Option<usize>,
    /// Requests started per minute at most (default: no limit).
    pub requests_per_minute: Option<u32>,
    /// Retries after a 429, a 5xx, a timeout or a dropped connection
    /// (default 4).
    pub retries: Option<u32>,
    /// Extra HTTP headers (`api-key` for Azure, an organisation header, ...).
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// Prices per million tokens, for the cost in the summary.
    pub prices: Option<Prices>,
    /// Cache replies even when sampling is not deterministic
    /// (temperature > 0 without a seed).
    #[serde(default)]
    pub cache_nondeterministic: bool,
    /// The model `POST {base_url}/embeddings` requests name (embedding
    /// rules of json_match, `semantic_similarity`); default: [`Self::model`].
    #[serde(default)]
    pub embedding_model: Option<String>,
    /// Further members of every chat request's body, for what a server
    /// takes beyond the settings above (`reasoning_effort`, vLLM's
    /// `chat_template_kwargs`, `top_p`). They enter the cache key. Members
    /// the judge sets itself (`model`, `messages`, `tools`, `tool_choice`,
    /// `response_format`, `stream`, `n`, and the sampling settings above)
    /// are refused.
    #[serde(default)]
    pub extra_body: serde_json::Map<String, Value>,
}

/// The request members a judge sets itself, which `extra_body` may not
/// name: the conversation and the structured-output request, and the
/// sampling settings that have settings of their own.
pub(crate) const EXTRA_BODY_RESERVED: [&str; 11] = [
    "model",
    "messages",
    "tools",
    "tool_choice",
    "response_format",
    "stream",
    "n",
    "temperature",
    "max_tokens",
    "max_completion_tokens",
    "seed",
];

impl std::fmt::Debug for JudgeConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let headers: Vec<&str> = self.headers.keys().map(String::as_str).collect();
        f.debug_struct("JudgeConfig")
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key_env", &self.api_key_env)
            .field("api_key_header", &self.api_key_header)
            .field("temperature", &self.temperature)
            .field("max_tokens", &self.max_tokens)
            .field("seed", &self.seed)
            .field("timeout", &self.timeout)
            .field("max_concurrency", &self.max_concurrency)
            .field("requests_per_minute", &self.requests_per_minute)
            .field("retries", &self.retries)
            .field("headers", &headers)
            .field("extra_body", &self.extra_body.keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

/// Whether a header holds a credential: its name says key, auth, token,
/// secret or cookie (case aside). Such a header never enters the cache
/// key, and its value is redacted like the API key wherever a reply could
/// carry it.
pub(crate) fn is_credential_header(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    ["key", "auth", "token", "secret", "cookie"].iter().any(|s| name.contains(s))
}

impl JudgeConfig {
    /// The secrets a reply could echo besides the API key: the values of
    /// the credential headers ([`is_credential_header`]) and those the base
    /// URL holds ([`url_credentials`]).
    pub(crate) fn credentials(&self) -> Vec<String> {
        let headers = self.headers.iter().filter(|(h, _)| is_credential_header(h));
        headers.map(|(_, v)| v.clone()).chain(url_credentials(&self.base_url())).collect()
    }

    /// A judge for `model` with every other setting at its default.
    pub fn new(model: impl Into<String>) -> Self {
        JudgeConfig {
            base_url: None,
            model: model.into(),
            api_key_env: None,
            api_key_header: None,
            temperature: 0.0,
            max_tokens: None,
            seed: None,
            timeout: None,
            max_concurrency: None,
            requests_per_minute: None,
            retries: None,
            headers: BTreeMap::new(),
            prices: None,
            cache_nondeterministic: false,
            embedding_model: None,
            extra_body: serde_json::Map::new(),
        }
    }

    /// Reads a judge's settings; `name` is used in errors.
    ///
    /// A `base_url` must be an `http://` or `https://` address without a
    /// fragment, and must not name an endpoint itself (requests go to
    /// `{base_url}/chat/completions`).
    ///
    /// # Errors
    /// Unknown keys, wrong types or values out of range.
    pub fn from_value(name: &str, v: &Value) -> Result<Self, ConfigError> {
        JudgeConfig::read(&format!("judges.{name}"), v)
    }

    /// [`JudgeConfig::from_value`], its errors starting with `ctx` (where
    /// the settings were written: `judges.NAME`, or `judge` for a suite's
    /// single judge).
    pub(crate) fn read(ctx: &str, v: &Value) -> Result<Self, ConfigError> {
        let ctx = ctx.to_owned();
        // Headers are checked first: serde's message would quote a bad
        // value, and a header's value may be a credential.
        if let Some(h) = v.get("headers") {
            let Some(map) = h.as_object() else {
                let what = crate::json::type_name(h);
                return Err(ConfigError::invalid(
                    format!("{ctx}.headers"),
                    format!("expected a map of header names to texts, got {what}"),
                ));
            };
            if let Some((k, x)) = map.iter().find(|(_, x)| !x.is_string()) {
                let what = crate::json::type_name(x);
                return Err(ConfigError::invalid(
                    format!("{ctx}.headers.{k}"),
                    format!("expected a text, got {what} (its value is not shown)"),
                ));
            }
        }
        let c: JudgeConfig = serde_json::from_value(v.clone())
            .map_err(|e| ConfigError::invalid(&ctx, e.to_string()))?;
        if c.model.trim().is_empty() {
            return Err(ConfigError::invalid(&ctx, "model must not be empty"));
        }
        if c.embedding_model.as_deref().is_some_and(|m| m.trim().is_empty()) {
            return Err(ConfigError::invalid(&ctx, "embedding_model must not be empty"));
        }
        if !(c.temperature.is_finite() && (0.0..=2.0).contains(&c.temperature)) {
            return Err(ConfigError::invalid(&ctx, "temperature must be in [0, 2]"));
        }
        if c.timeout.is_some_and(|t| !(t.is_finite() && t > 0.0 && t <= 3600.0)) {
            return Err(ConfigError::invalid(&ctx, "timeout must be in (0, 3600] seconds"));
        }
        if c.max_concurrency == Some(0) || c.max_concurrency.is_some_and(|n| n > 1024) {
            return Err(ConfigError::invalid(&ctx, "max_concurrency must be in [1, 1024]"));
        }
        if c.requests_per_minute == Some(0) {
            return Err(ConfigError::invalid(&ctx, "requests_per_minute must be ≥ 1"));
        }
        if c.retries.is_some_and(|r| r > 20) {
            return Err(ConfigError::invalid(&ctx, "retries must be at most 20"));
        }
        if let Some(p) = c.prices
            && !(p.prompt.is_finite()
                && p.prompt >= 0.0
                && p.completion.is_finite()
                && p.completion >= 0.0)
        {
            return Err(ConfigError::invalid(&ctx, "prices must be numbers ≥ 0"));
        }
        if let Some(k) = c.extra_body.keys().find(|k| EXTRA_BODY_RESERVED.contains(&k.as_str())) {
            let hint = match k.as_str() {
                "temperature" | "max_tokens" | "seed" => format!("use the judge's `{k}` setting"),
                "max_completion_tokens" => String::from(
                    "use `max_tokens`: it is sent as max_completion_tokens to a server that \
                     refuses max_tokens",
                ),
                _ => String::from("the judge sets it for each request"),
            };
            return Err(ConfigError::invalid(
                format!("{ctx}.extra_body"),
                format!("`{k}` cannot be set here: {hint}"),
            ));
        }
        if let Some(h) = &c.api_key_header
            && (h.eq_ignore_ascii_case("authorization")
                || c.headers.keys().any(|k| k.eq_ignore_ascii_case(h))
                || ureq::http::HeaderName::from_bytes(h.as_bytes()).is_err())
        {
            return Err(ConfigError::invalid(
                format!("{ctx}.api_key_header"),
                format!(
                    "{h:?} cannot carry the key: give a header name such as api-key \
                     (leave api_key_header out for Authorization: Bearer)"
                ),
            ));
        }
        // The address used: the suite's, else the environment's.
        let from = if c.base_url.is_some() { "base_url" } else { "OPENAI_BASE_URL" };
        check_base_url(&c.base_url(), from).map_err(|m| ConfigError::invalid(&ctx, m))?;
        for (k, v) in &c.headers {
            if k.eq_ignore_ascii_case("authorization") {
                return Err(ConfigError::invalid(
                    &ctx,
                    "set the key with api_key_env, not an Authorization header",
                ));
            }
            // Checked here, not at the first request (where every row would
            // fail alike). The value is never shown: it may be a key.
            // The client frames and routes each request itself: these
            // would break every request (a fixed Content-Length times out).
            const MANAGED: [&str; 8] = [
                "content-length",
                "transfer-encoding",
                "host",
                "connection",
                "keep-alive",
                "te",
                "trailer",
                "upgrade",
            ];
            if MANAGED.iter().any(|m| k.eq_ignore_ascii_case(m)) {
                return Err(ConfigError::invalid(
                    format!("{ctx}.headers"),
                    format!("{k:?} is set by the HTTP client for each request; leave it out"),
                ));
            }
            if k.eq_ignore_ascii_case("accept-encoding") && !decodable(v) {
                return Err(ConfigError::invalid(
                    format!("{ctx}.headers"),
                    "Accept-Encoding may ask only for gzip (or identity): replies in other \
                     encodings cannot be decoded",
                ));
            }
            if ureq::http::HeaderName::from_bytes(k.as_bytes()).is_err() {
                return Err(ConfigError::invalid(
                    format!("{ctx}.headers"),
                    format!(
                        "{k:?} is not an HTTP header name (letters, digits and !#$%&'*+-.^_`|~ only)"
                    ),
                ));
            }
            if ureq::http::HeaderValue::from_str(v).is_err() {
                return Err(ConfigError::invalid(
                    format!("{ctx}.headers.{k}"),
                    "the value is not a valid HTTP header value (no line breaks or control characters)",
                ));
            }
        }
        Ok(c)
    }

    /// The base URL without a trailing slash.
    pub fn base_url(&self) -> String {
        let url = self
            .base_url
            .clone()
            .or_else(|| std::env::var("OPENAI_BASE_URL").ok().filter(|u| !u.trim().is_empty()))
            .unwrap_or_else(|| DEFAULT_BASE_URL.to_owned());
        url.trim().trim_end_matches('/').to_owned()
    }

    /// The address of `endpoint` (`chat/completions`, `embeddings`) under
    /// `base_url`, keeping a query the base URL holds at the end
    /// (`…/deployments/d?api-version=…` → `…/deployments/d/chat/completions?api-version=…`).
    pub fn endpoint_url(base_url: &str, endpoint: &str) -> String {
        match base_url.split_once('?') {
            Some((path, query)) => format!("{}/{endpoint}?{query}", path.trim_end_matches('/')),
            None => format!("{base_url}/{endpoint}"),
        }
    }

    /// The model embedding requests name: `embedding_model`, else `model`.
    pub fn embedding_model(&self) -> &str {
        self.embedding_model.as_deref().unwrap_or(&self.model)
    }

    /// The environment variable holding the key.
    pub fn key_var(&self) -> &str {
        self.api_key_env.as_deref().unwrap_or(super::secret::DEFAULT_KEY_ENV)
    }

    /// The per-request timeout.
    pub fn timeout(&self) -> Duration {
        Duration::from_secs_f64(self.timeout.unwrap_or(60.0))
    }

    /// Requests in flight at once.
    pub fn concurrency(&self) -> usize {
        self.max_concurrency.unwrap_or(8)
    }

    /// Retries after a transient failure.
    pub fn retries(&self) -> u32 {
        self.retries.unwrap_or(4)
    }

    /// Whether the same request always gets the same reply, as far as the
    /// settings can say (temperature 0, or a seed). What a judge caches is
    /// decided by the request it actually sends: a server that refuses the
    /// temperature gets none (see `docs/judges.md`).
    pub fn deterministic(&self) -> bool {
        deterministic(Some(self.temperature), self.seed.is_some())
    }
}

/// Whether an `Accept-Encoding` value asks only for codings the judge
/// decodes (gzip, identity), or refuses the others (`br;q=0`).
fn decodable(accept: &str) -> bool {
    accept.split(',').all(|item| {
        let mut parts = item.split(';');
        let coding = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        let refused = parts.any(|p| {
            p.trim().strip_prefix("q=").is_some_and(|q| q.trim().parse::<f64>() == Ok(0.0))
        });
        refused || matches!(coding.as_str(), "" | "gzip" | "x-gzip" | "identity")
    })
}

/// Whether replies are reproducible: sampled at temperature 0, or with a
/// seed (`temperature` `None`: not sent, the model's own default).
pub(crate) fn deterministic(temperature: Option<f64>, seeded: bool) -> bool {
    temperature == Some(0.0) || seeded
}

/// An address as it may be shown in messages: without its query (it may
/// hold a signature or a key) and without user and password.
pub(crate) fn shown_url(url: &str) -> String {
    let no_query = url.split(['?', '#']).next().unwrap_or(url);
    match no_query.split_once("://") {
        Some((scheme, rest)) => {
            let authority_end = rest.find('/').unwrap_or(rest.len());
            let host = match rest[..authority_end].rsplit_once('@') {
                Some((_, host)) => host,
                None => &rest[..authority_end],
            };
            format!("{scheme}://{host}{}", &rest[authority_end..])
        }
        None => no_query.to_owned(),
    }
}

/// The secrets a base URL holds, as a server could echo them: the
/// password of its user part (`https://user:pass@host/v1`), also as the
/// `user:pass` an HTTP client sends in base64 for Basic authentication,
/// and the values of query parameters named like a credential
/// (`?api-key=…`, `?sig=…`), each as written and percent-decoded.
pub(crate) fn url_credentials(url: &str) -> Vec<String> {
    use base64::Engine as _;
    let mut out = Vec::new();
    let push = |out: &mut Vec<String>, raw: &str| {
        out.push(raw.to_owned());
        let decoded = percent_decode(raw);
        if decoded != raw {
            out.push(decoded);
        }
    };
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = &rest[..rest.find(['/', '?', '#']).unwrap_or(rest.len())];
    if let Some((user, password)) =
        authority.rsplit_once('@').and_then(|(userinfo, _)| userinfo.split_once(':'))
    {
        push(&mut out, password);
        let basic = format!("{}:{}", percent_decode(user), percent_decode(password));
        out.push(base64::engine::general_purpose::STANDARD.encode(basic));
    }
    if let Some((_, query)) = url.split_once('?') {
        let query = query.split('#').next().unwrap_or(query);
        for (name, value) in query.split('&').filter_map(|p| p.split_once('=')) {
            let name = percent_decode(name).to_ascii_lowercase();
            if is_credential_header(&name)
                || ["sig", "password", "pass", "pwd"].contains(&name.as_str())
            {
                push(&mut out, value);
            }
        }
    }
    out
}

/// `%XX` escapes decoded (invalid escapes kept as written).
fn percent_decode(text: &str) -> String {
    percent_encoding::percent_decode_str(text).decode_utf8_lossy().into_owned()
}

/// Why a base URL cannot be used, if it cannot; `from` says where it was
/// given (`base_url`, `OPENAI_BASE_URL`).
fn check_base_url(url: &str, from: &str) -> Result<(), String> {
    let shown = shown_url(url);
    let lower = url.to_ascii_lowercase();
    if !(lower.starts_with("http://") || lower.starts_with("https://")) {
        return Err(format!("{from} `{shown}` must start with http:// or https://"));
    }
    if url.contains('#') {
        return Err(format!("{from} `{shown}` must not hold a fragment (`#…`)"));
    }
    let path = url.split('?').next().unwrap_or(url).trim_end_matches('/');
    for endpoint in ["/chat/completions", "/embeddings", "/completions"] {
        if path.to_ascii_lowercase().ends_with(endpoint) {
            return Err(format!(
                "{from} `{shown}` names the endpoint `{}`: give the address before it \
                 (requests go to {{base_url}}/chat/completions)",
                &endpoint[1..]
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_credentials_a_base_url_holds() {
        assert!(url_credentials("https://api.example.com/v1?api-version=2024-06-01").is_empty());
        let c = url_credentials("https://us%40r:p%40ss@h.example/v1?api-key=k%2F1&sig=s1&x=y#f");
        // `us@r:p@ss` in base64, as Basic authentication sends it.
        assert_eq!(c, ["p%40ss", "p@ss", "dXNAcjpwQHNz", "k%2F1", "k/1", "s1"]);
    }
    use serde_json::json;

    #[test]
    fn reads_and_checks_settings() {
        let c = JudgeConfig::from_value(
            "j",
            &json!({"base_url": "http://127.0.0.1:9/v1/", "model": "m", "timeout": 2.5,
                    "max_concurrency": 64, "headers": {"api-version": "1"},
                    "prices": {"prompt": 0.15, "completion": 0.6}}),
        )
        .unwrap();
        assert_eq!(c.base_url(), "http://127.0.0.1:9/v1");
        assert_eq!(c.timeout(), Duration::from_millis(2500));
        assert_eq!((c.concurrency(), c.retries(), c.key_var()), (64, 4, "OPENAI_API_KEY"));
        assert!(c.deterministic());
        assert_eq!(c.embedding_model(), "m");
        for ok in ["gzip", "identity", "gzip;q=1.0, identity", "gzip, br;q=0"] {
            let h = json!({"model": "m", "headers": {"Accept-Encoding": ok}});
            assert!(JudgeConfig::from_value("j", &h).is_ok(), "{ok}");
        }
        let e =
            JudgeConfig::from_value("j", &json!({"model": "m", "embedding_model": "emb"})).unwrap();
        assert_eq!(e.embedding_model(), "emb");
        for bad in [
            json!({"model": ""}),
            json!({"model": "m", "temperature": 3}),
            json!({"model": "m", "max_concurrency": 0}),
            json!({"model": "m", "headers": {"Authorization": "Bearer x"}}),
            json!({"model": "m", "headers": {"api key": "x"}}),
            json!({"model": "m", "headers": {"Content-Length": "999"}}),
            json!({"model": "m", "headers": {"host": "evil"}}),
            json!({"model": "m", "headers": {"": "x"}}),
            json!({"model": "m", "headers": {"api-key": "secret\r\nX-Evil: 1"}}),
            json!({"model": "m", "colour": 1}),
            json!({"model": "m", "prices": {"prompt": -1}}),
            json!({"model": "m", "embedding_model": " "}),
            json!({"model": "m", "headers": {"api-key": 12_345_678}}),
            json!({"model": "m", "headers": {"api-key": ["secret"]}}),
            json!({"model": "m", "headers": "api-key: secret"}),
            json!({"model": "m", "headers": {"Accept-Encoding": "br"}}),
            json!({"model": "m", "headers": {"accept-encoding": "gzip, deflate"}}),
        ] {
            let e = JudgeConfig::from_value("j", &bad).unwrap_err().to_string();
            assert!(e.starts_with("judges.j"), "{e}");
            assert!(!e.contains("secret"), "a header's value is never shown: {e}");
            assert!(!e.contains("12345678"), "a header's value is never shown: {e}");
        }
    }

    #[test]
    fn base_urls_are_checked_and_keep_their_query_at_the_end() {
        let load =
            |url: &str| JudgeConfig::from_value("j", &json!({"model": "m", "base_url": url}));
        for ok in
            ["http://127.0.0.1:8000/v1", "HTTPS://x.openai.azure.com/openai/v1/", " http://h/v1 "]
        {
            assert!(load(ok).is_ok(), "{ok}");
        }
        for (bad, says) in [
            ("127.0.0.1:8000/v1", "must start with http:// or https://"),
            ("ftp://h/v1", "must start with http:// or https://"),
            ("http://h/v1/chat/completions", "names the endpoint `chat/completions`"),
            ("http://h/v1/embeddings/", "names the endpoint `embeddings`"),
            ("http://h/v1#x", "fragment"),
        ] {
            let e = load(bad).unwrap_err().to_string();
            assert!(e.contains(says), "{bad}: {e}");
        }
        let q = "https://x/openai/deployments/d?api-version=2024-06-01";
        assert_eq!(
            JudgeConfig::endpoint_url(q, "chat/completions"),
            "https://x/openai/deployments/d/chat/completions?api-version=2024-06-01"
        );
        assert_eq!(
            JudgeConfig::endpoint_url("http://h/v1", "embeddings"),
            "http://h/v1/embeddings"
        );
        // Messages never show a query or a user's password.
        let e = load("https://me:pw@h/v1/chat/completions?sig=abc").unwrap_err().to_string();
        assert!(e.contains("`https://h/v1/chat/completions` names the endpoint"), "{e}");
        assert_eq!(shown_url("http://u@h:8/a?k=1#f"), "http://h:8/a");
    }
}
