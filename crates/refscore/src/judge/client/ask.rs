//! One judgement: a chat request in the structured-output modes the
//! server accepts, the reply read by the caller, the cache written only
//! once a judgement was read, and the whole accounted as one evaluation.

use serde_json::{Map, Value};

use super::adapt::{Adaptation, deterministic};
use super::{CacheMode, Judge, JudgeError, Reply, StructuredMode, cut};
use crate::judge::cache::Cache;
use crate::judge::usage::CallRecord;

/// Why a judgement could not be had.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum AskError {
    /// The request failed (after its retries and, unless the mode was
    /// fixed, every mode the server could be asked in).
    Request(JudgeError),
    /// A reply came, but no judgement could be read from it: why, and
    /// the reply (its secrets already removed).
    Unusable {
        /// What is wrong with the reply.
        why: String,
        /// The reply.
        reply: Reply,
    },
}

impl AskError {
    /// As a [`JudgeError`]: an unusable reply is a malformed one.
    pub(crate) fn into_judge_error(self, judge: &Judge) -> JudgeError {
        match self {
            AskError::Request(e) => e,
            AskError::Unusable { why, reply } => JudgeError::Malformed {
                judge: judge.name.clone(),
                reason: why,
                raw: cut(&crate::json::compact(&reply.message)),
            },
        }
    }
}

impl Judge {
    /// Asks for one judgement for `caller` (an evaluator's name, for the
    /// accounting): the body `request` builds for a mode, sent in `fixed`
    /// mode, or else starting with [`Judge::preferred_mode`] and falling
    /// back to the next mode when the server rejects one
    /// ([`JudgeError::is_rejection`]). `read` takes the judgement out of a
    /// reply, or says why it cannot.
    ///
    /// The judgement counts once in the accounting (its requests, retries
    /// and fallbacks are the `requests`), as a failure only when it
    /// finally failed. A reply is stored in the cache only once `read`
    /// accepted it; a stored reply `read` refuses is asked again.
    ///
    /// # Errors
    /// The request failed, or `read` refused the reply.
    pub(crate) fn ask<T>(
        &self,
        caller: &str,
        fixed: Option<StructuredMode>,
        request: impl Fn(StructuredMode) -> Map<String, Value>,
        read: impl Fn(&Reply) -> Result<T, String>,
    ) -> Result<(T, Reply, StructuredMode), AskError> {
        let mut record = CallRecord::default();
        let mut mode = fixed.unwrap_or_else(|| self.preferred_mode());
        // Modes this judgement's server refused. They are remembered for
        // later judgements only once a plainer mode got an answer: a 400
        // every mode gets (a prompt over the context length, a sampling
        // parameter the model refuses) is this request's fault, not the
        // mode's, and must not downgrade the rest of the run.
        let mut refused = Vec::new();
        // Whether every mode got the very same refusal (status and body).
        let mut first: Option<(u16, String)> = None;
        let mut same = true;
        let result = loop {
            match self.exchange(request(mode), &mut record, &read) {
                Err(AskError::Request(e)) if e.is_rejection() && fixed.is_none() => {
                    if let JudgeError::Status { status, body, .. } = &e {
                        let this = (*status, body.clone());
                        same &= first.get_or_insert_with(|| this.clone()) == &this;
                    }
                    match mode.next() {
                        Some(next) => {
                            refused.push(mode);
                            mode = next;
                        }
                        None => {
                            let e = self.every_mode(e, &refused, same, &record);
                            break Err(AskError::Request(e));
                        }
                    }
                }
                other => {
                    if matches!(other, Ok(_) | Err(AskError::Unusable { .. })) {
                        refused.iter().for_each(|m| self.reject_mode(*m));
                    }
                    break other.map(|(value, reply)| (value, reply, mode));
                }
            }
        };
        let cause = match &result {
            Err(AskError::Request(e)) => Some(e),
            _ => None,
        };
        record.ended(result.is_err(), cause);
        self.usage.record(caller, record);
        result
    }

    /// The error of the last mode, once every mode was refused: its
    /// attempts are the judgement's requests, and it names the modes.
    /// When every mode got the same refusal (`same`), the request itself
    /// was refused (a prompt over the context length, a content filter),
    /// not its structured output: the error says so.
    fn every_mode(
        &self,
        e: JudgeError,
        refused: &[StructuredMode],
        same: bool,
        record: &CallRecord,
    ) -> JudgeError {
        match e {
            JudgeError::Status { judge, status, body, hint, .. } if !refused.is_empty() => {
                let mut modes: Vec<&str> = refused.iter().map(|m| m.as_str()).collect();
                modes.push(StructuredMode::Text.as_str());
                let modes = modes.join(", ");
                let why = if same {
                    format!(
                        "the same refusal in every mode tried ({modes}): the request itself \
                         was refused, not its structured output"
                    )
                } else {
                    format!("refused in every mode tried: {modes}")
                };
                JudgeError::Status {
                    judge,
                    status,
                    attempts: u32::try_from(record.requests).unwrap_or(u32::MAX),
                    body,
                    hint: format!("{hint} ({why})"),
                }
            }
            other => other,
        }
    }

    /// One reply for `body` read by `read`: from the cache when it holds
    /// one `read` accepts, else from the server (stored once `read`
    /// accepted it). Requests and tokens are added to `record`. A 400 or
    /// 422 that refuses one of the judge's settings ([`Adaptation`]) is
    /// learnt and the request sent again without it, at most once per
    /// setting.
    pub(super) fn exchange<T>(
        &self,
        body: Map<String, Value>,
        record: &mut CallRecord,
        read: &impl Fn(&Reply) -> Result<T, String>,
    ) -> Result<(T, Reply), AskError> {
        // What this exchange learnt: a refusal that comes back after the
        // setting was changed is an error, not a loop.
        let mut learnt = 0u8;
        let mut sent = self.body(body);
        loop {
            match self.exchange_once(&sent, record, read) {
                Err(AskError::Request(JudgeError::Status {
                    status: 400 | 422,
                    body: text,
                    ..
                })) if let Some(a) = Adaptation::for_refusal(&text, &sent)
                    && learnt & a.bit() == 0 =>
                {
                    learnt |= a.bit();
                    self.adapt(a);
                    // The same body, its settings as the server now takes them.
                    if let Value::Object(m) = &mut sent {
                        self.add_settings(m);
                    }
                }
                other => return other,
            }
        }
    }

    /// [`Judge::exchange`] of one request body.
    fn exchange_once<T>(
        &self,
        body: &Value,
        record: &mut CallRecord,
        read: &impl Fn(&Reply) -> Result<T, String>,
    ) -> Result<(T, Reply), AskError> {
        let cacheable = deterministic(body) || self.config.cache_nondeterministic;
        let cache = self.cache.as_ref().filter(|_| cacheable && self.cache_mode != CacheMode::Off);
        let key = cache.map(|_| Cache::key(&self.cache_scope(), body));
        if let (Some(c), Some(k), CacheMode::Use) = (cache, &key, self.cache_mode)
            && let Some(text) = c.get(k)
            && let Ok((reply, _)) = self.parse(&text)
        {
            let reply = Reply { cached: true, ..reply };
            // A stored reply no judgement can be read from (older versions
            // stored any chat completion) is asked again.
            if let Ok(value) = read(&reply) {
                record.cache_hit = true;
                return Ok((value, reply));
            }
        }
        let text = self.send("chat/completions", body, record).map_err(AskError::Request)?;
        let (reply, clean) = self.parse(&text).map_err(AskError::Request)?;
        record.prompt_tokens = record.prompt_tokens.saturating_add(reply.prompt_tokens);
        record.completion_tokens = record.completion_tokens.saturating_add(reply.completion_tokens);
        match read(&reply) {
            Ok(value) => {
                if let (Some(c), Some(k)) = (cache, &key) {
                    // A cache that cannot be written costs a rerun, not this judgement.
                    let _ = c.put(k, &self.config.model, &clean);
                }
                Ok((value, reply))
            }
            Err(why) => Err(AskError::Unusable { why, reply }),
        }
    }
}
