//! [`Judge`]: one client for `POST {base_url}/chat/completions`, with the
//! cache, bounded concurrency, retries and accounting.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use super::cache::Cache;
use super::config::JudgeConfig;
use super::limiter::Limiter;
use super::secret::{ApiKey, redact};
use super::usage::{CallRecord, JudgeUsage, Usage};

/// Longest error body kept in an error message, in characters.
const BODY_IN_ERRORS: usize = 500;
/// Longest wait a `Retry-After` may ask for.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(120);
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
    #[error("judge `{judge}`: HTTP {status} after {attempts} attempt(s): {body}")]
    Status {
        /// The judge.
        judge: String,
        /// The status code.
        status: u16,
        /// Requests sent.
        attempts: u32,
        /// The start of the reply body.
        body: String,
    },
    /// No answer in time, or the connection failed, after the last retry.
    #[error("judge `{judge}`: {reason} after {attempts} attempt(s)")]
    Transport {
        /// The judge.
        judge: String,
        /// Timeout, connection refused or dropped, ...
        reason: String,
        /// Requests sent.
        attempts: u32,
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
    /// The run was stopped before the request could be sent.
    #[error("judge `{judge}`: cancelled")]
    Cancelled {
        /// The judge.
        judge: String,
    },
}

impl JudgeError {
    /// Whether the server rejected the request's shape (a 4xx other than
    /// 408 and 429): the caller may try another structured-output mode.
    pub fn is_rejection(&self) -> bool {
        matches!(self, JudgeError::Status { status, .. } if (400..500).contains(status) && *status != 408 && *status != 429)
    }
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
    /// Whether it came from the cache.
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
    agent: ureq::Agent,
    limiter: Limiter,
    cache: Option<Arc<Cache>>,
    cache_mode: CacheMode,
    cancel: Arc<AtomicBool>,
    usage: Usage,
    jitter: AtomicU64,
    /// The structured-output mode the server accepted last (see
    /// [`Judge::preferred_mode`]).
    mode: std::sync::atomic::AtomicU8,
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
    /// A judge from its settings; the key is read from the environment now.
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

    /// A judge with an explicit key (or none).
    pub fn with_key(
        name: &str,
        config: JudgeConfig,
        key: Option<ApiKey>,
        cache: Option<Arc<Cache>>,
        cache_mode: CacheMode,
        cancel: Arc<AtomicBool>,
    ) -> Judge {
        let concurrency = config.concurrency();
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(config.timeout()))
            .http_status_as_error(false)
            .max_idle_connections(concurrency.max(8))
            .max_idle_connections_per_host(concurrency.max(8))
            .user_agent(concat!("refscore/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Judge {
            name: name.to_owned(),
            base_url: config.base_url(),
            limiter: Limiter::new(concurrency, config.requests_per_minute),
            key,
            agent,
            cache,
            cache_mode,
            cancel,
            usage: Usage::default(),
            jitter: AtomicU64::new(0x2545_F491_4F6C_DD1D),
            mode: std::sync::atomic::AtomicU8::new(0),
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

    /// What it cost so far, per evaluator.
    pub fn usage(&self) -> Vec<JudgeUsage> {
        self.usage.report(&self.name, &self.config.model, self.config.prices)
    }

    /// Records that `caller` could not use a reply (it counts as a failed
    /// judgement in the accounting).
    pub fn reply_unusable(&self, caller: &str) {
        self.usage.unusable(caller);
    }

    /// The request body: `body` (messages, tools, ...) with the judge's
    /// model and sampling settings.
    pub fn body(&self, mut body: Map<String, Value>) -> Value {
        body.insert("model".into(), Value::String(self.config.model.clone()));
        body.insert("temperature".into(), Value::from(self.config.temperature));
        if let Some(n) = self.config.max_tokens {
            body.insert("max_tokens".into(), Value::from(n));
        }
        if let Some(s) = self.config.seed {
            body.insert("seed".into(), Value::from(s));
        }
        Value::Object(body)
    }

    /// Sends a chat completion request for `caller` (an evaluator's name,
    /// for the accounting), from the cache when it can.
    ///
    /// # Errors
    /// See [`JudgeError`]; the key never appears in the message.
    pub fn chat(&self, caller: &str, body: Map<String, Value>) -> Result<Reply, JudgeError> {
        let body = self.body(body);
        let cacheable = self.config.deterministic() || self.config.cache_nondeterministic;
        let cache = self.cache.as_ref().filter(|_| cacheable && self.cache_mode != CacheMode::Off);
        let key = cache.map(|_| Cache::key(&self.base_url, &body));
        if let (Some(c), Some(k), CacheMode::Use) = (cache, &key, self.cache_mode)
            && let Some(text) = c.get(k)
            && let Ok(reply) = self.parse(&text)
        {
            self.usage.record(caller, CallRecord { cache_hit: true, ..CallRecord::default() });
            return Ok(Reply { cached: true, ..reply });
        }
        let mut record = CallRecord::default();
        let result = self.send(&body, &mut record);
        let result = result.and_then(|text| {
            let reply = self.parse(&text)?;
            if let (Some(c), Some(k)) = (cache, &key) {
                // A cache that cannot be written costs a rerun, not this judgement.
                let _ = c.put(k, &self.config.model, &text);
            }
            Ok(reply)
        });
        match &result {
            Ok(r) => {
                record.prompt_tokens = r.prompt_tokens;
                record.completion_tokens = r.completion_tokens;
            }
            Err(_) => record.failed = true,
        }
        self.usage.record(caller, record);
        result
    }

    /// Sends with retries; the reply body on a 2xx.
    fn send(&self, body: &Value, record: &mut CallRecord) -> Result<String, JudgeError> {
        let url = format!("{}/chat/completions", self.base_url);
        let retries = self.config.retries();
        let mut attempt: u32 = 0;
        loop {
            let stop = || self.cancel.load(Ordering::Relaxed);
            let Some(permit) = self.limiter.acquire(&stop) else {
                return Err(JudgeError::Cancelled { judge: self.name.clone() });
            };
            attempt += 1;
            record.requests += 1;
            let started = Instant::now();
            let mut req = self.agent.post(&url).header("content-type", "application/json");
            if let Some(k) = &self.key {
                req = req.header("authorization", k.bearer());
            }
            for (h, v) in &self.config.headers {
                req = req.header(h.as_str(), v.as_str());
            }
            let outcome = req.send(serde_json::to_vec(body).unwrap_or_default());
            let wait = match outcome {
                Ok(mut resp) => {
                    let status = resp.status().as_u16();
                    let retry_after = resp
                        .headers()
                        .get("retry-after")
                        .and_then(|v| v.to_str().ok())
                        .and_then(parse_retry_after);
                    let text = resp.body_mut().with_config().limit(64 << 20).read_to_string();
                    drop(permit);
                    let text = match text {
                        Ok(t) => t,
                        Err(e) => {
                            let reason = redact(self.key.as_ref(), &e.to_string());
                            if attempt > retries {
                                return Err(self.transport(reason, attempt));
                            }
                            record.retries += 1;
                            self.pause(self.backoff(attempt), None);
                            continue;
                        }
                    };
                    if (200..300).contains(&status) {
                        record.latency_ms = Some(started.elapsed().as_secs_f64() * 1000.0);
                        return Ok(text);
                    }
                    let transient = status == 429 || status == 408 || status >= 500;
                    if !transient || attempt > retries {
                        return Err(JudgeError::Status {
                            judge: self.name.clone(),
                            status,
                            attempts: attempt,
                            body: cut(&redact(self.key.as_ref(), &text)),
                        });
                    }
                    retry_after.unwrap_or_else(|| self.backoff(attempt))
                }
                Err(e) => {
                    drop(permit);
                    let reason = redact(self.key.as_ref(), &describe(&e));
                    if attempt > retries {
                        return Err(self.transport(reason, attempt));
                    }
                    self.backoff(attempt)
                }
            };
            record.retries += 1;
            if !self.pause(wait, None) {
                return Err(JudgeError::Cancelled { judge: self.name.clone() });
            }
        }
    }

    fn transport(&self, reason: String, attempts: u32) -> JudgeError {
        JudgeError::Transport { judge: self.name.clone(), reason, attempts }
    }

    /// Sleeps `wait` in short steps; `false` when the run was cancelled.
    fn pause(&self, wait: Duration, _: Option<()>) -> bool {
        let end = Instant::now() + wait;
        while Instant::now() < end {
            if self.cancel.load(Ordering::Relaxed) {
                return false;
            }
            std::thread::sleep((end - Instant::now()).min(Duration::from_millis(50)));
        }
        true
    }

    /// Exponential backoff with full jitter: uniform in
    /// [delay/2, delay], delay = 250 ms · 2^(attempt−1), at most 20 s.
    fn backoff(&self, attempt: u32) -> Duration {
        let exp = BASE_BACKOFF.saturating_mul(1u32 << attempt.saturating_sub(1).min(16));
        let cap = exp.min(MAX_BACKOFF);
        // xorshift64*: per-judge state, no global randomness.
        let mut x = self.jitter.load(Ordering::Relaxed);
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.jitter.store(x, Ordering::Relaxed);
        #[allow(clippy::cast_precision_loss)]
        let unit = (x.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64;
        cap.mul_f64(0.5 + 0.5 * unit)
    }

    /// The first choice's message and the usage of a reply body.
    fn parse(&self, text: &str) -> Result<Reply, JudgeError> {
        let malformed = |reason: &str| JudgeError::Malformed {
            judge: self.name.clone(),
            reason: reason.to_owned(),
            raw: cut(&redact(self.key.as_ref(), text)),
        };
        let v: Value = serde_json::from_str(text).map_err(|_| malformed("not JSON"))?;
        let message = v
            .get("choices")
            .and_then(Value::as_array)
            .ok_or_else(|| malformed("no choices"))?
            .first()
            .ok_or_else(|| malformed("no choices"))?
            .get("message")
            .filter(|m| m.is_object())
            .ok_or_else(|| malformed("no message"))?
            .clone();
        let usage =
            |k: &str| v.get("usage").and_then(|u| u.get(k)).and_then(Value::as_u64).unwrap_or(0);
        Ok(Reply {
            message,
            prompt_tokens: usage("prompt_tokens"),
            completion_tokens: usage("completion_tokens"),
            cached: false,
        })
    }
}

/// Seconds in a `Retry-After` header (an HTTP date is not honoured: the
/// backoff applies), at most [`MAX_RETRY_AFTER`].
fn parse_retry_after(v: &str) -> Option<Duration> {
    let secs: f64 = v.trim().parse().ok().filter(|s: &f64| s.is_finite() && *s >= 0.0)?;
    Some(Duration::from_secs_f64(secs).min(MAX_RETRY_AFTER))
}

fn describe(e: &ureq::Error) -> String {
    match e {
        ureq::Error::Timeout(_) => String::from("timed out"),
        ureq::Error::ConnectionFailed => String::from("connection failed"),
        ureq::Error::HostNotFound => String::from("host not found"),
        ureq::Error::Io(io) => format!("connection error: {io}"),
        other => other.to_string(),
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
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), None);
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
}
