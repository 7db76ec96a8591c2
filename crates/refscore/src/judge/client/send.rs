//! Sending a request: retries with backoff, `Retry-After`, cancellation
//! and the accounting of every attempt.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::reply_text::reply_text;
use super::{BASE_BACKOFF, Judge, JudgeError, MAX_BACKOFF, cut, status};
use crate::judge::io::{Answer, BodyFailure, Exchange};
use crate::judge::usage::CallRecord;

/// What to do after an answer.
enum Step {
    /// The reply body, redacted.
    Done(String),
    /// Send again after this wait (`None`: the backoff).
    Retry(Option<Duration>),
}

impl Judge {
    /// Sends to `{base_url}/{endpoint}` with retries; the reply body on a
    /// 2xx, with every form of the secrets removed ([`Redactor::text`]).
    ///
    /// A request that fails because the connection was closed before any
    /// answer, once the server has kept connections open, is sent once
    /// more at once on a new connection without counting as a retry: a
    /// server that closes kept-alive connections silently costs nothing.
    pub(super) fn send(
        &self,
        endpoint: &str,
        body: &Value,
        record: &mut CallRecord,
    ) -> Result<String, JudgeError> {
        if let Some(message) = &self.unusable {
            return Err(JudgeError::Setting { judge: self.name.clone(), message: message.clone() });
        }
        let url = crate::judge::JudgeConfig::endpoint_url(&self.base_url, endpoint);
        let retries = self.config.retries();
        let mut attempt: u32 = 0;
        let mut fresh = false;
        loop {
            let stop = || self.cancel.load(Ordering::Relaxed);
            let Some(permit) = self.limiter.acquire(&stop) else {
                return Err(self.stopped(record));
            };
            if !fresh {
                attempt += 1;
            }
            record.requests += 1;
            let started = Instant::now();
            let mut headers: Vec<(String, String)> =
                vec![("content-type".into(), "application/json".into())];
            if let Some(k) = &self.key {
                match &self.config.api_key_header {
                    Some(h) => headers.push((h.to_ascii_lowercase(), k.secret().to_owned())),
                    None => headers.push(("authorization".into(), k.bearer())),
                }
            }
            headers.extend(self.config.headers.iter().map(|(h, v)| (h.clone(), v.clone())));
            let request = Exchange {
                url: url.clone(),
                fresh,
                headers,
                body: serde_json::to_vec(body).unwrap_or_default(),
            };
            let Some(outcome) = self.io.run(request, &self.cancel) else {
                return Err(self.stopped(record));
            };
            drop(permit);
            let was_fresh = std::mem::replace(&mut fresh, false);
            let wait = match outcome {
                Ok(answer) => {
                    match self.answered(answer, endpoint, &url, body, attempt, record, started)? {
                        Step::Done(text) => return Ok(text),
                        Step::Retry(wait) => wait.unwrap_or_else(|| self.backoff(attempt)),
                    }
                }
                Err(e) if e.dropped && !was_fresh && self.kept_alive.load(Ordering::Relaxed) => {
                    // Likely a kept connection the server had closed: the
                    // request is sent again at once on a new one.
                    fresh = true;
                    continue;
                }
                Err(e) => {
                    let reason = self.redactor.text(&e.reason);
                    if attempt > retries {
                        return Err(self.transport(reason, attempt, &url));
                    }
                    self.backoff(attempt)
                }
            };
            record.retries += 1;
            if !self.pause(wait, None) {
                return Err(self.stopped(record));
            }
        }
    }

    /// The error of a judgement the run stopped: [`JudgeError::Cancelled`]
    /// before its first request was sent, [`JudgeError::GivenUp`] after.
    fn stopped(&self, record: &CallRecord) -> JudgeError {
        let judge = self.name.clone();
        if record.requests == 0 {
            JudgeError::Cancelled { judge }
        } else {
            JudgeError::GivenUp { judge }
        }
    }

    /// What an answer means: the body of a 2xx, a retry, or the error.
    #[allow(clippy::too_many_arguments)]
    fn answered(
        &self,
        answer: Answer,
        endpoint: &str,
        url: &str,
        body: &Value,
        attempt: u32,
        record: &mut CallRecord,
        started: Instant,
    ) -> Result<Step, JudgeError> {
        let Answer { status, retry_after, location, content_encoding, keep_alive, body: bytes } =
            answer;
        let retries = self.config.retries();
        if (300..400).contains(&status) {
            let location = location.map_or_else(
                || String::from("(no Location)"),
                |l| format!("`{}`", cut(&self.redactor.text(&l))),
            );
            return Err(JudgeError::Redirect { judge: self.name.clone(), status, location });
        }
        let ok = (200..300).contains(&status);
        let encoding = content_encoding.as_deref();
        let text = match bytes {
            Ok(bytes) => {
                if keep_alive {
                    self.kept_alive.store(true, Ordering::Relaxed);
                }
                match reply_text(bytes, encoding) {
                    Ok(t) => t,
                    // A 2xx that is not text will not become text on a retry.
                    Err(e) if ok => return Err(self.malformed(&e.reason, &e.lossy)),
                    // An error status whose body cannot be read is still that
                    // status: a 400 must still move the judge to the next mode.
                    Err(e) => e.lossy,
                }
            }
            Err(BodyFailure::TooLarge(n)) if ok => {
                return Err(self.malformed(&format!("reply larger than {n} bytes"), ""));
            }
            Err(BodyFailure::Undecodable(why)) if ok => {
                return Err(self.malformed(&self.redactor.text(&why), ""));
            }
            Err(BodyFailure::Transport(why)) if ok => {
                if attempt > retries {
                    // The server answered: its reply was cut, not missing.
                    let why = format!(
                        "the reply was cut off: HTTP {status} and its headers came, then the \
                         body broke off ({})",
                        self.redactor.text(&why)
                    );
                    return Err(self.transport(why, attempt, url));
                }
                return Ok(Step::Retry(None));
            }
            Err(failure) => {
                let why = match failure {
                    BodyFailure::TooLarge(n) => format!("larger than {n} bytes"),
                    BodyFailure::Undecodable(why) => why,
                    BodyFailure::Transport(why) => why,
                };
                format!("(the body could not be read: {})", self.redactor.text(&why))
            }
        };
        if ok {
            // OpenRouter reports a provider's failure inside a 200.
            if let Some(e) = status::in_body_error(&text) {
                if e.transient() && attempt <= retries {
                    return Ok(Step::Retry(retry_after));
                }
                return Err(JudgeError::Provider {
                    judge: self.name.clone(),
                    code: e.code,
                    message: cut(&self.redactor.text(&e.message)),
                    attempts: attempt,
                });
            }
            record.latency_ms = Some(started.elapsed().as_secs_f64() * 1000.0);
            // A server that echoes the key back must not carry it into
            // scores, errors or the cache: its whole forms go now, its
            // parts once the reply's content parts are joined (`parse`).
            return Ok(Step::Done(self.redactor.whole(&text)));
        }
        // 501 Not Implemented will not change on a retry, nor will a 429
        // that says the account's quota is spent, nor a server saying it
        // cannot do tools. A generation that failed (Groq's
        // `tool_use_failed`) may succeed when asked again.
        let quota = status == 429 && text.contains("insufficient_quota");
        let transient =
            (status::transient_status(status) && !quota && !status::cannot_do_mode(status, &text))
                || status::generation_failed(status, &text);
        if !transient || attempt > retries {
            return Err(JudgeError::Status {
                judge: self.name.clone(),
                status,
                attempts: attempt,
                body: cut(&self.redactor.body(&text)),
                hint: self.hint(status, &text, endpoint, url, body),
            });
        }
        // Google's APIs say how long to wait in the body alone
        // (`"retryDelay": "37s"` in a `RetryInfo` detail).
        Ok(Step::Retry(retry_after.or_else(|| super::super::io::retry_delay_in_body(&text))))
    }

    /// What to check for an error status that usually means a wrong
    /// setting; empty for the others.
    fn hint(&self, status: u16, text: &str, endpoint: &str, url: &str, body: &Value) -> String {
        match status {
            404 if status::model_not_found(text) => self.model_hint(text, endpoint, body),
            400 if status::model_refused(text) => self.model_hint(text, endpoint, body),
            // The server cannot do the mode asked: the next is tried.
            404 if status::cannot_do_mode(status, text) => String::new(),
            404 => {
                // Without its query or user: they may hold a credential the
                // redactor does not know.
                let at = self.redactor.text(&crate::judge::config::shown_url(url));
                format!(
                    " (no such address: {at}; is base_url right? \
                     OpenAI-compatible servers usually serve under /v1)"
                )
            }
            401 if self.key.is_none() => match self.config.api_key_env.as_deref() {
                Some("") => String::from(" (no key was sent: api_key_env is empty)"),
                _ => format!(
                    " (no key was sent: the environment variable {} is not set)",
                    self.config.key_var()
                ),
            },
            _ => String::new(),
        }
    }

    /// The hint of a reply saying the model is not known.
    fn model_hint(&self, text: &str, endpoint: &str, body: &Value) -> String {
        let model = body.get("model").and_then(Value::as_str).unwrap_or_default();
        let setting = if endpoint == "embeddings" { "embedding_model" } else { "model" };
        // Azure serves a deployment, named in the address.
        let what = if status::deployment_not_found(text) { "deployment" } else { "model" };
        format!(
            " (the {what} `{}` was not found on the server: check the judge's {setting})",
            self.redactor.text(model)
        )
    }

    /// A 2xx reply that cannot be read.
    fn malformed(&self, reason: &str, raw: &str) -> JudgeError {
        JudgeError::Malformed {
            judge: self.name.clone(),
            reason: reason.to_owned(),
            raw: cut(&self.redactor.body(raw)),
        }
    }

    /// The server at `url` could not be reached, or did not answer in
    /// time, after `attempts` requests: the error names the address (as
    /// the 404 hint does: without its query and user part, secrets
    /// redacted) and says what to check.
    pub(super) fn transport(&self, reason: String, attempts: u32, url: &str) -> JudgeError {
        let shown = self.redactor.text(&crate::judge::config::shown_url(url));
        let hint = if reason.starts_with("the reply was cut off") {
            String::from(
                " (the server or a proxy between closed the connection mid-reply: check its \
                 logs, its timeouts and its limits on a reply's size)",
            )
        } else if reason.starts_with("timed out") {
            format!(
                " (no answer within the judge's timeout of {} s: raise `timeout` for a slow \
                 server; else {})",
                self.config.timeout().as_secs_f64(),
                self.check_address
            )
        } else {
            format!(" ({})", self.check_address)
        };
        JudgeError::Transport { judge: self.name.clone(), reason, attempts, url: shown, hint }
    }

    /// Sleeps `wait` in short steps; `false` when the run was cancelled.
    pub(super) fn pause(&self, wait: Duration, _: Option<()>) -> bool {
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
    pub(super) fn backoff(&self, attempt: u32) -> Duration {
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
}
