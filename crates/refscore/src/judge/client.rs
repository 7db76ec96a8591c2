//! [`Judge`]: one client for `POST {base_url}/chat/completions` and
//! `POST {base_url}/embeddings`, with the cache, bounded concurrency,
//! retries and accounting.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use serde_json::{Map, Value};

use super::cache::Cache;
use super::config::{JudgeConfig, is_credential_header};
#[cfg(test)]
use super::io::{MAX_RETRY_AFTER, parse_retry_after, parse_retry_after_ms};
use super::limiter::Limiter;
use super::secret::{ApiKey, Redactor};
use super::usage::{CallRecord, JudgeUsage, Usage};

mod adapt;
mod ask;
mod embeddings;
mod message;
mod reply_text;
mod send;
mod status;
mod stream;

pub(crate) use ask::AskError;

/// Longest error body kept in an error message, in characters.
const BODY_IN_ERRORS: usize = 500;
/// First backoff delay; doubled each retry, up to [`MAX_BACKOFF`].
const BASE_BACKOFF: Duration = Duration::from_millis(250);
/// Longest backoff delay.
const MAX_BACKOFF: Duration = Duration::from_secs(20);

/// Why a judgement could not be had.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum JudgeError {
    /// The server answered with an error status (after the last retry
    /// for 429 and 5xx).
    #[error("judge `{judge}`: HTTP {status} after {attempts} attempt(s): {body}{hint}")]
    Status {
        /// The judge.
        judge: String,
        /// The status code.
        status: u16,
        /// Requests sent.
        attempts: u32,
        /// The start of the reply body.
        body: String,
        /// What to check, for a status that usually means a wrong
        /// setting (404: the address); empty otherwise.
        hint: String,
    },
    /// No answer in time, or the connection failed, after the last retry.
    /// The text names the address asked and what to check
    /// ([`JudgeError::is_transport_message`] recognizes it).
    #[error(
        "judge `{judge}`: {lead}{url} after {attempts} attempt(s): {reason}{hint}",
        lead = TRANSPORT_LEAD
    )]
    Transport {
        /// The judge.
        judge: String,
        /// Timeout, connection refused or dropped, ...
        reason: String,
        /// Requests sent.
        attempts: u32,
        /// The address asked, as it may be shown: without its query and
        /// user part, secrets redacted.
        url: String,
        /// What to check (the base URL, where it came from, the network,
        /// the timeout).
        hint: String,
    },
    /// The reply is not a chat completion (not JSON, no choices, no
    /// message); `raw` is what was received.
    #[error("judge `{judge}`: malformed reply ({reason}): {raw}")]
    Malformed {
        /// The judge.
        judge: String,
        /// What is wrong.
        reason: String,
        /// The reply as received (cut).
        raw: String,
    },
    /// The server answered with a redirect (3xx). Redirects are not
    /// followed: a client would replay the request as a bodyless `GET`
    /// elsewhere and take that answer for the judgement.
    #[error(
        "judge `{judge}`: HTTP {status} redirect to {location} (redirects are not followed: set the judge's base_url to the final address)"
    )]
    Redirect {
        /// The judge.
        judge: String,
        /// The status code.
        status: u16,
        /// The `Location` header (redacted, cut), or `(no Location)`.
        location: String,
    },
    /// The server answered `200` but its reply reports an error instead of
    /// a completion (OpenRouter's `{"error": {"code": 502, "message":
    /// "Provider returned error"}}`, or a choice with `finish_reason:
    /// "error"`); retried as its code would be as an HTTP status.
    #[error(
        "judge `{judge}`: the server's reply reports an error{} after {attempts} attempt(s): {message}",
        code_note(*.code)
    )]
    Provider {
        /// The judge.
        judge: String,
        /// The error's code, when it is an HTTP status.
        code: Option<u16>,
        /// The error's message (redacted, cut).
        message: String,
        /// Requests sent.
        attempts: u32,
    },
    /// The judge cannot send requests as configured (an API key that
    /// cannot be an HTTP header value); nothing was sent.
    #[error("judge `{judge}`: {message}")]
    Setting {
        /// The judge.
        judge: String,
        /// What is wrong (never a secret's value).
        message: String,
    },
    /// The run was stopped before the judgement's first request was
    /// sent: nothing was asked (the row did not run).
    #[error("judge `{judge}`: cancelled")]
    Cancelled {
        /// The judge.
        judge: String,
    },
    /// The run was stopped after the judgement's request was sent (in
    /// flight, or waiting to be sent again): it was given up unanswered.
    #[error("judge `{judge}`: cancelled with its request unanswered")]
    GivenUp {
        /// The judge.
        judge: String,
    },
}

/// What the text of a [`JudgeError::Transport`] says right after
/// ``judge `NAME`: ``.
const TRANSPORT_LEAD: &str = "no answer from ";

impl JudgeError {
    /// Whether `message`, the text of an evaluation's error (metrics pass
    /// a judge's error on as text), is that of a [`JudgeError::Transport`]:
    /// the judge's server could not be reached, or did not answer in time,
    /// after the last retry. For callers that only see the text (the
    /// Python binding chooses its exception type by it).
    pub fn is_transport_message(message: &str) -> bool {
        message
            .strip_prefix("judge `")
            .and_then(|rest| rest.split_once("`: "))
            .is_some_and(|(_, said)| said.starts_with(TRANSPORT_LEAD))
    }

    /// Whether the server rejected the request's shape (a 4xx other than
    /// 408 and 429): the caller may try another structured-output mode.
    ///
    /// 400 and 422 are what servers answer to a field they do not support,
    /// 501 what some answer to a feature they lack (tools); any error
    /// status whose body says the server cannot do tools or
    /// `response_format` (llama.cpp's `500 tools param requires --jinja
    /// flag`, OpenRouter's `404 No endpoints found that support tool use`)
    /// too. A generation that failed (Groq's `400 tool_use_failed`) is not
    /// a rejection; 401, 403, other 404s or 413 say something else.
    pub fn is_rejection(&self) -> bool {
        match self {
            JudgeError::Status { status, body, .. } => {
                // An unknown model is refused in every mode alike.
                if *status == 400 && status::model_refused(body) {
                    return false;
                }
                (matches!(status, 400 | 422 | 501) && !status::generation_failed(*status, body))
                    || status::cannot_do_mode(*status, body)
            }
            _ => false,
        }
    }
}

/// ` (code N)` for an error code, nothing without one.
fn code_note(code: Option<u16>) -> String {
    code.map(|c| format!(" (code {c})")).unwrap_or_default()
}

/// A chat completion's first message and its token counts.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    /// `choices[0].message`.
    pub message: Value,
    /// Prompt tokens (0 when the server did not say).
    pub prompt_tokens: u64,
    /// Completion tokens.
    pub completion_tokens: u64,
    /// `choices[0].finish_reason`, when the server gave one (`stop`,
    /// `length`: cut off at `max_tokens`, `content_filter`, ...).
    pub finish_reason: Option<String>,
    /// Whether it came from the cache.
    pub cached: bool,
}

/// The vectors of one embeddings request, one per input, in input order.
#[derive(Debug, Clone, PartialEq)]
pub struct Embeddings {
    /// One vector per input.
    pub vectors: Vec<Vec<f32>>,
    /// The model asked.
    pub model: String,
    /// Prompt tokens the server reported (0 from the cache).
    pub prompt_tokens: u64,
    /// Whether they came from the cache.
    pub cached: bool,
}

/// What the cache may do for a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CacheMode {
    /// Read and write.
    #[default]
    Use,
    /// Write only: every request is sent again and its reply replaces
    /// the stored one (`--refresh-cache`).
    Refresh,
    /// Neither (`--no-cache`).
    Off,
}

/// One configured judge. Shared by every evaluator and thread of a run.
#[derive(Debug)]
pub struct Judge {
    name: String,
    config: JudgeConfig,
    base_url: String,
    key: Option<ApiKey>,
    /// Removes the key and the credential headers' values from replies.
    redactor: Redactor,
    limiter: Limiter,
    cache: Option<Arc<Cache>>,
    cache_mode: CacheMode,
    cancel: Arc<AtomicBool>,
    usage: Usage,
    jitter: AtomicU64,
    /// The structured-output mode the server accepted last (see
    /// [`Judge::preferred_mode`]).
    mode: std::sync::atomic::AtomicU8,
    /// The settings its server refused ([`adapt::Adaptation`] bits).
    adapted: std::sync::atomic::AtomicU8,
    /// Threads that do the HTTP exchanges, so that a caller can stop
    /// waiting when the run is cancelled.
    io: super::io::IoPool,
    /// Why no request can be sent (a key that cannot be a header value).
    unusable: Option<String>,
    /// What to check when the server cannot be reached: the base URL,
    /// named by where it came from (see [`Judge::transport`]).
    check_address: &'static str,
    /// Whether the server kept a connection open after an answer: a
    /// request that then finds its connection closed is sent again on a
    /// new one without counting as a retry.
    kept_alive: AtomicBool,
}

/// How a judge is asked for a structured reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum StructuredMode {
    /// A forced tool call whose parameters are a JSON Schema.
    Tools,
    /// `response_format: {type: json_schema}`.
    JsonSchema,
    /// A plain-text answer.
    Text,
}

impl StructuredMode {
    /// The name recorded in metadata.
    pub fn as_str(self) -> &'static str {
        match self {
            StructuredMode::Tools => "tools",
            StructuredMode::JsonSchema => "json_schema",
            StructuredMode::Text => "text",
        }
    }

    /// The next mode to fall back to.
    pub fn next(self) -> Option<StructuredMode> {
        match self {
            StructuredMode::Tools => Some(StructuredMode::JsonSchema),
            StructuredMode::JsonSchema => Some(StructuredMode::Text),
            StructuredMode::Text => None,
        }
    }
}

impl Judge {
    /// A judge from its settings; the key is read from the environment now
    /// (see [`ApiKey::from_env`]; [`ApiKey::for_judge`] also refuses an
    /// unusable key or an unset `api_key_env`, as a suite's judges do). A
    /// key that cannot be sent in a header makes every request fail at once
    /// ([`JudgeError::Setting`]), naming its variable.
    pub fn new(
        name: &str,
        config: JudgeConfig,
        cache: Option<Arc<Cache>>,
        cache_mode: CacheMode,
        cancel: Arc<AtomicBool>,
    ) -> Judge {
        let key = ApiKey::from_env(config.key_var());
        Judge::with_key(name, config, key, cache, cache_mode, cancel)
    }

    /// A judge with an explicit key (or none). A key that cannot be sent in
    /// an HTTP header makes every request fail at once
    /// ([`JudgeError::Setting`]).
    pub fn with_key(
        name: &str,
        config: JudgeConfig,
        key: Option<ApiKey>,
        cache: Option<Arc<Cache>>,
        cache_mode: CacheMode,
        cancel: Arc<AtomicBool>,
    ) -> Judge {
        let concurrency = config.concurrency();
        // A private certificate authority (SSL_CERT_FILE, SSL_CERT_DIR); one
        // that cannot be read makes every request fail, saying why.
        let (roots, roots_problem) = match super::tls::root_certs() {
            Ok(roots) => (roots, None),
            Err(e) => (None, Some(e)),
        };
        let mut tls = ureq::tls::TlsConfig::builder();
        if let Some(roots) = roots {
            tls = tls.root_certs(roots);
        }
        let agent_config = ureq::Agent::config_builder()
            .tls_config(tls.build())
            .timeout_global(Some(config.timeout()))
            .http_status_as_error(false)
            // A redirect is an error of the judgement (see
            // [`JudgeError::Redirect`]), never followed.
            .max_redirects(0)
            .max_idle_connections(concurrency.max(8))
            .max_idle_connections_per_host(concurrency.max(8))
            .user_agent(concat!("refscore/", env!("CARGO_PKG_VERSION")))
            // Gzip replies are decoded, but asked for only by a suite's
            // own Accept-Encoding header.
            .accept_encoding(ureq::config::AutoHeaderValue::None)
            .build();
        let unusable = key
            .as_ref()
            .and_then(|k| k.problem())
            .map(|what| {
                format!("the API key (from {}) {what}; it cannot be sent", config.key_var())
            })
            .or(roots_problem);
        let credentials = config.credentials();
        let redactor = Redactor::new(
            key.iter().map(ApiKey::secret).chain(credentials.iter().map(String::as_str)),
        );
        Judge {
            name: name.to_owned(),
            redactor,
            base_url: config.base_url(),
            limiter: Limiter::new(concurrency, config.requests_per_minute),
            key,
            cache,
            cache_mode,
            cancel,
            usage: Usage::default(),
            jitter: AtomicU64::new(0x2545_F491_4F6C_DD1D),
            mode: std::sync::atomic::AtomicU8::new(0),
            adapted: std::sync::atomic::AtomicU8::new(0),
            io: super::io::IoPool::new(concurrency, agent_config),
            unusable,
            check_address: check_address(&config),
            kept_alive: AtomicBool::new(false),
            config,
        }
    }

    /// The most structured mode the server has not rejected yet.
    pub fn preferred_mode(&self) -> StructuredMode {
        match self.mode.load(Ordering::Relaxed) {
            0 => StructuredMode::Tools,
            1 => StructuredMode::JsonSchema,
            _ => StructuredMode::Text,
        }
    }

    /// Records that the server rejected `mode`: later requests start with
    /// the next one.
    pub fn reject_mode(&self, mode: StructuredMode) {
        let next = match mode {
            StructuredMode::Tools => 1,
            StructuredMode::JsonSchema | StructuredMode::Text => 2,
        };
        self.mode.fetch_max(next, Ordering::Relaxed);
    }

    /// Whether the run was cancelled: requests not yet sent fail.
    pub fn is_cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    /// A warning when its API key, or a password in its base URL, would
    /// go over plain HTTP to another machine.
    pub fn plaintext_warning(&self) -> Option<String> {
        super::plaintext::warning(&self.name, &self.base_url, self.key.is_some())
    }

    /// The judge's name in the suite.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its settings.
    pub fn config(&self) -> &JudgeConfig {
        &self.config
    }

    /// Its model.
    pub fn model(&self) -> &str {
        &self.config.model
    }

    /// The model embedding requests name by default (`embedding_model`,
    /// else `model`).
    pub fn embedding_model(&self) -> &str {
        self.config.embedding_model()
    }

    /// What it cost so far, per evaluator.
    pub fn usage(&self) -> Vec<JudgeUsage> {
        let adapted = self.adaptations_described();
        self.usage.report(&self.name, &self.config.model, self.config.prices, &adapted)
    }

    /// The request body: `body` (messages, tools, ...) with the judge's
    /// model and sampling settings, as its server takes them (a setting
    /// the server refused is sent as it takes it, or left out).
    pub fn body(&self, mut body: Map<String, Value>) -> Value {
        body.insert("model".into(), Value::String(self.config.model.clone()));
        self.add_settings(&mut body);
        Value::Object(body)
    }

    /// Sends a chat completion request for `caller` (an evaluator's name,
    /// for the accounting), from the cache when it can. Any chat
    /// completion is a usable reply here (and is stored): the crate's
    /// judges store a reply only once they read a judgement from it.
    ///
    /// # Errors
    /// See [`JudgeError`]; the key never appears in the message.
    pub fn chat(&self, caller: &str, body: Map<String, Value>) -> Result<Reply, JudgeError> {
        let mut record = CallRecord::default();
        let result = self
            .exchange(body, &mut record, &|_: &Reply| Ok(()))
            .map(|((), reply)| reply)
            .map_err(|e| e.into_judge_error(self));
        record.ended(result.is_err(), result.as_ref().err());
        self.usage.record(caller, record);
        result
    }

    /// What besides the body decides a reply: the base URL and the extra
    /// headers that are not credentials (an API version, say). Headers
    /// whose name says key, auth, token, secret or cookie never enter it.
    fn cache_scope(&self) -> String {
        let mut scope = self.base_url.clone();
        for (h, v) in &self.config.headers {
            if is_credential_header(h) {
                continue;
            }
            let name = h.to_ascii_lowercase();
            scope.push('\n');
            scope.push_str(&name);
            scope.push(':');
            scope.push_str(v);
        }
        scope
    }

    /// The first choice's message and the usage of a reply body, and the
    /// body as it may be stored: decoded, every string redacted
    /// ([`Redactor::value`]) and written again. A body that repeats a key
    /// is malformed: which member was meant cannot be known.
    fn parse(&self, text: &str) -> Result<(Reply, String), JudgeError> {
        // A whole stream sent though none was asked for is the completion
        // its chunks stand for; a cut-off one stays refused (below).
        let assembled = text.trim_start().starts_with("data:").then(|| stream::assemble(text));
        let text = match &assembled {
            Some(Some(whole)) => whole.as_str(),
            _ => text,
        };
        let malformed = |reason: &str| JudgeError::Malformed {
            judge: self.name.clone(),
            reason: reason.to_owned(),
            raw: cut(&self.redactor.body(text)),
        };
        // A server that streams whatever it is asked sends server-sent
        // events (`data: {...}` lines), not one JSON body.
        let not_json = || {
            let streamed = text.trim_start().starts_with("data:");
            malformed(if streamed {
                "not JSON: the server streamed its reply as server-sent events (`data:` \
                 lines) though no stream was asked for, and the stream is not whole (no \
                 `data: [DONE]`, no finish_reason) or reports an error"
            } else {
                "not JSON"
            })
        };
        // serde_json's depth limit first: the value below stays shallow.
        serde_json::from_str::<serde::de::IgnoredAny>(text).map_err(|_| not_json())?;
        let (mut v, repeated) = crate::duplicate_keys::parse(text).map_err(|_| not_json())?;
        if let Some(r) = repeated.as_ref().and_then(|d| d.listed.first()) {
            return Err(malformed(&format!("the reply repeats the key `{}`", r.path)));
        }
        // Text parts joined before the secrets are removed: a key split
        // across two parts is removed whole.
        message::normalize(&mut v);
        self.redactor.value(&mut v);
        let choices =
            v.get("choices").and_then(Value::as_array).ok_or_else(|| malformed("no choices"))?;
        // One choice is asked for; a server that sends several anyway is
        // read at the one it numbers 0, else at its first.
        let choice = choices
            .iter()
            .find(|c| c.get("index").and_then(Value::as_u64) == Some(0))
            .or_else(|| choices.first())
            .ok_or_else(|| malformed("no choices"))?;
        let message = choice
            .get("message")
            .filter(|m| m.is_object())
            .ok_or_else(|| malformed("no message"))?;
        let finish_reason = choice.get("finish_reason").and_then(Value::as_str).map(str::to_owned);
        let usage = |k: &str| token_count(v.get("usage").and_then(|u| u.get(k)));
        let reply = Reply {
            message: message.clone(),
            prompt_tokens: usage("prompt_tokens"),
            completion_tokens: usage("completion_tokens"),
            finish_reason,
            cached: false,
        };
        let clean = serde_json::to_string(&v).map_err(|_| malformed("not JSON"))?;
        Ok((reply, clean))
    }
}

/// What to check when a judge's server cannot be reached, by where its
/// base URL came from: the judge's `base_url`, `OPENAI_BASE_URL`, or
/// neither (the default, OpenAI's).
fn check_address(config: &JudgeConfig) -> &'static str {
    let from_env = std::env::var("OPENAI_BASE_URL").is_ok_and(|u| !u.trim().is_empty());
    if config.base_url.is_some() {
        "check the judge's base_url, and that the server is running and reachable from here"
    } else if from_env {
        "the judge has no base_url, so OPENAI_BASE_URL was asked: check it, and that the \
         server is running and reachable from here"
    } else {
        "the judge has no base_url (nor OPENAI_BASE_URL), so the default was asked: set \
         base_url to ask another server, or check the network"
    }
}

/// A token count a server reported: a number ≥ 0, rounded down, and
/// `u64::MAX` at most (a larger one never wraps); anything else (a
/// negative number, text, null) counts 0.
fn token_count(v: Option<&Value>) -> u64 {
    match v {
        Some(Value::Number(n)) => n.as_u64().unwrap_or_else(|| {
            // `as` saturates: a huge count is u64::MAX, never a wrap.
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            n.as_f64().filter(|f| f.is_finite() && *f >= 1.0).map_or(0, |f| f as u64)
        }),
        _ => 0,
    }
}

fn cut(text: &str) -> String {
    match text.char_indices().nth(BODY_IN_ERRORS) {
        None => text.to_owned(),
        Some((i, _)) => format!("{}…", &text[..i]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_and_backoff_bounds() {
        assert_eq!(parse_retry_after("2"), Some(Duration::from_secs(2)));
        assert_eq!(parse_retry_after("0.5"), Some(Duration::from_millis(500)));
        assert_eq!(parse_retry_after("9999"), Some(MAX_RETRY_AFTER));
        // An HTTP date: the wait until then; past, none.
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), Some(Duration::ZERO));
        let soon = httpdate::fmt_http_date(std::time::SystemTime::now() + Duration::from_secs(10));
        let w = parse_retry_after(&soon).unwrap();
        assert!(w > Duration::from_secs(8) && w <= Duration::from_secs(10), "{w:?}");
        let far = httpdate::fmt_http_date(std::time::SystemTime::now() + Duration::from_secs(9999));
        assert_eq!(parse_retry_after(&far), Some(MAX_RETRY_AFTER));
        assert_eq!(parse_retry_after("soon"), None);
        // Google's retryDelay in a 429's body.
        let gemini = r#"{"error": {"code": 429, "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "37s"}]}}"#;
        assert_eq!(crate::judge::io::retry_delay_in_body(gemini), Some(Duration::from_secs(37)));
        assert_eq!(
            crate::judge::io::retry_delay_in_body(r#"{"retryDelay":"1.5s"}"#),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(crate::judge::io::retry_delay_in_body(r#"{"retryDelay": 3}"#), None);
        assert_eq!(crate::judge::io::retry_delay_in_body("busy"), None);
        assert_eq!(parse_retry_after_ms("1500"), Some(Duration::from_millis(1500)));
        assert_eq!(parse_retry_after_ms("150000"), Some(MAX_RETRY_AFTER));
        assert_eq!(parse_retry_after_ms("-1"), None);
        let j = Judge::with_key(
            "j",
            JudgeConfig::new("m"),
            None,
            None,
            CacheMode::Off,
            Arc::new(AtomicBool::new(false)),
        );
        for attempt in 1..10 {
            let d = j.backoff(attempt);
            let full = BASE_BACKOFF.saturating_mul(1 << (attempt - 1)).min(MAX_BACKOFF);
            assert!(d >= full / 2 && d <= full, "{attempt}: {d:?}");
        }
    }

    fn nowhere(cache: Option<Arc<Cache>>) -> Judge {
        let mut c = JudgeConfig::new("chat-model");
        c.base_url = Some(String::from("http://127.0.0.1:1/v1"));
        c.retries = Some(0);
        c.embedding_model = Some(String::from("embed-model"));
        Judge::with_key("j", c, None, cache, CacheMode::Use, Arc::new(AtomicBool::new(false)))
    }

    #[test]
    fn embedding_replies_are_read_in_index_order_and_checked() {
        let j = nowhere(None);
        let (v, tokens) = j
            .parse_embeddings(
                r#"{"data": [{"index": 1, "embedding": [0, 1]}, {"index": 0, "embedding": [1, 0.5]}],
                    "usage": {"prompt_tokens": 4}}"#,
                2,
            )
            .unwrap();
        assert_eq!((v, tokens), (vec![vec![1.0, 0.5], vec![0.0, 1.0]], 4));
        for (bad, says) in [
            ("<html>", "not JSON"),
            (r#"{"object": "list"}"#, "no data"),
            (r#"{"data": [{"embedding": [1]}]}"#, "1 embedding(s) for 2 input(s)"),
            (r#"{"data": [{"embedding": [1]}, {"embedding": [1, 2]}]}"#, "different lengths"),
            (r#"{"data": [{"embedding": [1]}, {"embedding": ["x"]}]}"#, "non-finite"),
            (r#"{"data": [{"embedding": [1]}, {"embedding": [1e300]}]}"#, "non-finite"),
            (r#"{"data": [{"embedding": [1]}, {"embedding": []}]}"#, "not a list"),
            (r#"{"data": [{"embedding": [1]}, {"embedding": "AACAPw=="}]}"#, "not a list"),
            // No vector for input 1: an index twice, or past the inputs.
            (
                r#"{"data": [{"index": 0, "embedding": [1]}, {"index": 0, "embedding": [1]}]}"#,
                "indexes",
            ),
            (
                r#"{"data": [{"index": 0, "embedding": [1]}, {"index": 7, "embedding": [1]}]}"#,
                "indexes",
            ),
            (r#"{"data": [{"embedding": [1]}, {"index": 0, "embedding": [1]}]}"#, "indexes"),
        ] {
            let e = j.parse_embeddings(bad, 2).unwrap_err().to_string();
            assert!(e.contains("malformed reply (embeddings: ") && e.contains(says), "{bad}: {e}");
        }
    }

    #[test]
    fn embeddings_use_the_embedding_model_and_the_cache() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Arc::new(Cache::open(&dir.path().join("c.db")).unwrap());
        let j = nowhere(Some(Arc::clone(&cache)));
        assert_eq!(j.embedding_model(), "embed-model");
        // No input: no request.
        assert_eq!(j.embed("ev", None, &[]).unwrap(), Vec::<Vec<f32>>::new());
        // Nothing listens: the request fails and is accounted as failed.
        let e = j.embed("ev", None, &["a", "b"]).unwrap_err();
        assert!(matches!(e, JudgeError::Transport { attempts: 1, .. }), "{e}");
        // A stored reply for the same body answers without a request.
        let body = serde_json::json!({"model": "embed-model", "input": ["a", "b"]});
        cache
            .put(&Cache::key(&j.cache_scope(), &body), "embed-model", "[[1.0, 0.25], [0.5, 2.0]]")
            .unwrap();
        let got = j.embeddings("ev", None, &["a", "b"]).unwrap();
        assert_eq!(got.vectors, vec![vec![1.0, 0.25], vec![0.5, 2.0]]);
        assert!(got.cached);
        assert_eq!(got.model, "embed-model");
        // Another model is another request, accounted under that model.
        assert!(j.embed("ev", Some("other"), &["a", "b"]).is_err());
        let rows: Vec<_> = j
            .usage()
            .into_iter()
            .map(|u| (u.model, u.evaluations, u.requests, u.failures, u.cache_hits))
            .collect();
        assert_eq!(
            rows,
            [(String::from("embed-model"), 2, 1, 1, 1), (String::from("other"), 1, 1, 1, 0)]
        );
    }

    #[test]
    fn headers_that_change_replies_are_in_the_cache_key_and_credentials_never() {
        let judge = |headers: &[(&str, &str)]| {
            let mut c = JudgeConfig::new("m");
            c.base_url = Some("http://127.0.0.1:9/v1".into());
            c.headers = headers.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
            Judge::with_key("j", c, None, None, CacheMode::Off, Arc::new(AtomicBool::new(false)))
        };
        let plain = judge(&[]).cache_scope();
        assert_eq!(plain, "http://127.0.0.1:9/v1");
        let versioned = judge(&[("api-version", "2024-06-01")]).cache_scope();
        assert_ne!(versioned, plain);
        assert!(versioned.ends_with("api-version:2024-06-01"));
        let secret = judge(&[("api-key", "sk-very-secret"), ("X-Auth-Token", "t0k")]).cache_scope();
        assert_eq!(secret, plain);
        assert!(!secret.contains("sk-very-secret"));
    }

    #[test]
    fn transport_failures_are_told_from_other_failures_by_their_text() {
        let transport = JudgeError::Transport {
            judge: String::from("strict"),
            reason: String::from("timed out"),
            attempts: 2,
            url: String::from("http://h/v1/chat/completions"),
            hint: String::new(),
        };
        let text = transport.to_string();
        assert_eq!(
            text,
            "judge `strict`: no answer from http://h/v1/chat/completions after 2 attempt(s): timed out"
        );
        assert!(JudgeError::is_transport_message(&text));
        let status = JudgeError::Status {
            judge: String::from("strict"),
            status: 400,
            attempts: 1,
            body: String::from("no answer from anyone"),
            hint: String::new(),
        };
        let malformed = JudgeError::Malformed {
            judge: String::from("j"),
            reason: String::from("no answer from http://h"),
            raw: String::new(),
        };
        for other in [status.to_string(), malformed.to_string()] {
            assert!(!JudgeError::is_transport_message(&other), "{other}");
        }
        assert!(!JudgeError::is_transport_message("no answer from http://h/v1 after 1 attempt(s)"));
        assert!(!JudgeError::is_transport_message(
            &JudgeError::Cancelled { judge: "j".into() }.to_string()
        ));
    }

    #[test]
    fn what_to_check_says_where_the_base_url_came_from() {
        let mut c = JudgeConfig::new("m");
        c.base_url = Some(String::from("http://127.0.0.1:9/v1"));
        assert!(check_address(&c).starts_with("check the judge's base_url"));
        // The environment is the process's, shared with every test.
        if std::env::var_os("OPENAI_BASE_URL").is_none() {
            c.base_url = None;
            assert!(
                check_address(&c)
                    .starts_with("the judge has no base_url (nor OPENAI_BASE_URL), so the default"),
                "{}",
                check_address(&c)
            );
        }
    }

    #[test]
    fn bodies_carry_the_model_and_sampling() {
        let mut c = JudgeConfig::new("gpt-x");
        c.max_tokens = Some(50);
        c.seed = Some(7);
        let j =
            Judge::with_key("j", c, None, None, CacheMode::Off, Arc::new(AtomicBool::new(false)));
        let b = j.body(Map::new());
        assert_eq!(b["model"], "gpt-x");
        assert_eq!(
            (b["temperature"].as_f64(), b["max_tokens"].as_u64(), b["seed"].as_u64()),
            (Some(0.0), Some(50), Some(7))
        );
    }

    #[test]
    fn extra_body_members_are_sent_and_reserved_ones_refused() {
        let v = serde_json::json!({"model": "m", "extra_body": {
            "reasoning_effort": "low", "chat_template_kwargs": {"enable_thinking": false}}});
        let c = JudgeConfig::from_value("default", &v).unwrap();
        let j =
            Judge::with_key("j", c, None, None, CacheMode::Off, Arc::new(AtomicBool::new(false)));
        let b = j.body(Map::new());
        assert_eq!(b["reasoning_effort"], "low");
        assert_eq!(b["chat_template_kwargs"]["enable_thinking"], false);
        assert_eq!((b["model"].as_str(), b["temperature"].as_f64()), (Some("m"), Some(0.0)));
        for (k, hint) in [
            ("temperature", "use the judge's `temperature` setting"),
            ("messages", "the judge sets it"),
            ("max_completion_tokens", "use `max_tokens`"),
        ] {
            let v = serde_json::json!({"model": "m", "extra_body": {k: 1}});
            let e = JudgeConfig::from_value("default", &v).unwrap_err().to_string();
            assert!(e.contains(&format!("`{k}` cannot be set here")) && e.contains(hint), "{e}");
        }
    }
}

#[cfg(test)]
mod faults;
