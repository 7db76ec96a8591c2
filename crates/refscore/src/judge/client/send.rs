//! Sending a request: retries with backoff, `Retry-After`, cancellation
//! and the accounting of every attempt.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{BASE_BACKOFF, Judge, JudgeError, MAX_BACKOFF, cut};
use crate::judge::io::{Answer, Exchange};
use crate::judge::usage::CallRecord;

impl Judge {
    /// Sends to `{base_url}/{endpoint}` with retries; the reply body on a
    /// 2xx, with every form of the secrets removed ([`Redactor::text`]).
    pub(super) fn send(
        &self,
        endpoint: &str,
        body: &Value,
        record: &mut CallRecord,
    ) -> Result<String, JudgeError> {
        let url = crate::judge::JudgeConfig::endpoint_url(&self.base_url, endpoint);
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
            let mut headers: Vec<(String, String)> =
                vec![("content-type".into(), "application/json".into())];
            if let Some(k) = &self.key {
                headers.push(("authorization".into(), k.bearer()));
            }
            headers.extend(self.config.headers.iter().map(|(h, v)| (h.clone(), v.clone())));
            let request = Exchange {
                url: url.clone(),
                headers,
                body: serde_json::to_vec(body).unwrap_or_default(),
            };
            let Some(outcome) = self.io.run(request, &self.cancel) else {
                return Err(JudgeError::Cancelled { judge: self.name.clone() });
            };
            drop(permit);
            let wait = match outcome {
                Ok(Answer { status, retry_after, location, text }) => {
                    if (300..400).contains(&status) {
                        let location = location.map_or_else(
                            || String::from("(no Location)"),
                            |l| format!("`{}`", cut(&self.redactor.text(&l))),
                        );
                        return Err(JudgeError::Redirect {
                            judge: self.name.clone(),
                            status,
                            location,
                        });
                    }
                    let text = match text {
                        Ok(t) => t,
                        // An error status whose body cannot be read (not
                        // UTF-8, compressed unasked) is still that status:
                        // a 400 must still move the judge to the next mode.
                        Err(e) if !(200..300).contains(&status) => {
                            format!("(the body could not be read: {e})")
                        }
                        Err(e) => {
                            let reason = self.redactor.text(&e);
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
                        // A server that echoes the key back must not carry it
                        // into scores, errors or the cache.
                        return Ok(self.redactor.text(&text));
                    }
                    // 501 Not Implemented will not change on a retry, nor
                    // will a 429 that says the account's quota is spent.
                    let quota = status == 429 && text.contains("insufficient_quota");
                    let transient = (status == 429 && !quota)
                        || status == 408
                        || (status >= 500 && status != 501);
                    if !transient || attempt > retries {
                        let hint = if status == 404 {
                            // Without its query or user: they may hold a
                            // credential the redactor does not know.
                            let at = self.redactor.text(&crate::judge::config::shown_url(&url));
                            format!(
                                " (no such address: {at}; is base_url right? \
                                 OpenAI-compatible servers usually serve under /v1)"
                            )
                        } else {
                            String::new()
                        };
                        return Err(JudgeError::Status {
                            judge: self.name.clone(),
                            status,
                            attempts: attempt,
                            body: cut(&self.redactor.body(&text)),
                            hint,
                        });
                    }
                    retry_after.unwrap_or_else(|| self.backoff(attempt))
                }
                Err(e) => {
                    let reason = self.redactor.text(&e);
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

    pub(super) fn transport(&self, reason: String, attempts: u32) -> JudgeError {
        JudgeError::Transport { judge: self.name.clone(), reason, attempts }
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
