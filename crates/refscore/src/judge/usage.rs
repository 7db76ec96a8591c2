//! What a judge cost: requests, retries, failures, cache hits, tokens,
//! latency and money, per evaluator that called it.

use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError};

use serde::{Deserialize, Serialize};

/// Latency samples kept per evaluator for the percentiles; past it, a
/// sample is overwritten in turn (memory stays flat).
const LATENCY_SAMPLES: usize = 100_000;

#[derive(Debug, Default, Clone)]
struct Tally {
    evaluations: u64,
    requests: u64,
    retries: u64,
    failures: u64,
    cache_hits: u64,
    prompt_tokens: u64,
    completion_tokens: u64,
    latencies_ms: Vec<f64>,
    seen: u64,
}

/// Per-evaluator counters of one judge, apart for each model an
/// evaluator's embedding requests named (`None`: the judge's chat model);
/// safe to update from many threads.
#[derive(Debug, Default)]
pub(crate) struct Usage {
    by_caller: Mutex<BTreeMap<(String, Option<String>), Tally>>,
}

/// What happened to one judgement ([`super::Judge::ask`], [`super::Judge::chat`],
/// [`super::Judge::embeddings`]): every request it sent, retries and
/// structured-output fallbacks included.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct CallRecord {
    pub(crate) requests: u64,
    pub(crate) retries: u64,
    pub(crate) failed: bool,
    pub(crate) cache_hit: bool,
    pub(crate) prompt_tokens: u64,
    pub(crate) completion_tokens: u64,
    pub(crate) latency_ms: Option<f64>,
    /// The run was stopped before the judgement's first request
    /// ([`super::JudgeError::Cancelled`]): no evaluation, no failure.
    pub(crate) unsent: bool,
    /// The run was stopped with the judgement's request sent and
    /// unanswered ([`super::JudgeError::GivenUp`]): its requests count,
    /// but it is neither an evaluation nor a failure (its row is left to a
    /// resume, which asks again).
    pub(crate) given_up: bool,
}

impl CallRecord {
    /// Settles how the judgement ended: `failed`, unless `cause` says the
    /// run stopped it ([`super::JudgeError::Cancelled`] before its first
    /// request, [`super::JudgeError::GivenUp`] after), which is no failure
    /// of the judge.
    pub(crate) fn ended(&mut self, failed: bool, cause: Option<&super::JudgeError>) {
        self.unsent = matches!(cause, Some(super::JudgeError::Cancelled { .. }));
        self.given_up = matches!(cause, Some(super::JudgeError::GivenUp { .. }));
        self.failed = failed && !self.unsent && !self.given_up;
    }
}

impl Usage {
    /// Counts one judgement. Every count saturates: whatever token counts
    /// a server reports, a total never wraps (nor panics).
    pub(crate) fn record(&self, caller: &str, c: CallRecord) {
        self.record_for(caller, None, c);
    }

    /// [`Usage::record`], for a judgement that named `model` (an
    /// embedding request): reported apart, under that model.
    pub(crate) fn record_for(&self, caller: &str, model: Option<&str>, c: CallRecord) {
        if c.unsent {
            return;
        }
        let mut map = self.by_caller.lock().unwrap_or_else(PoisonError::into_inner);
        let t = map.entry((caller.to_owned(), model.map(str::to_owned))).or_default();
        t.requests = t.requests.saturating_add(c.requests);
        t.retries = t.retries.saturating_add(c.retries);
        if c.given_up {
            return;
        }
        t.evaluations = t.evaluations.saturating_add(1);
        t.failures = t.failures.saturating_add(u64::from(c.failed));
        t.cache_hits = t.cache_hits.saturating_add(u64::from(c.cache_hit));
        t.prompt_tokens = t.prompt_tokens.saturating_add(c.prompt_tokens);
        t.completion_tokens = t.completion_tokens.saturating_add(c.completion_tokens);
        if let Some(ms) = c.latency_ms.filter(|x| x.is_finite()) {
            t.seen = t.seen.saturating_add(1);
            if t.latencies_ms.len() < LATENCY_SAMPLES {
                t.latencies_ms.push(ms);
            } else {
                let i = usize::try_from(t.seen % LATENCY_SAMPLES as u64).unwrap_or(0);
                t.latencies_ms[i] = ms;
            }
        }
    }

    /// The report, one entry per evaluator, in name order.
    pub(crate) fn report(
        &self,
        judge: &str,
        model: &str,
        prices: Option<super::Prices>,
        adapted: &[String],
    ) -> Vec<JudgeUsage> {
        let map = self.by_caller.lock().unwrap_or_else(PoisonError::into_inner);
        map.iter()
            .map(|((caller, named), t)| {
                let mut l = t.latencies_ms.clone();
                l.sort_by(f64::total_cmp);
                #[allow(clippy::cast_precision_loss)]
                let cost = prices.map(|p| {
                    crate::number::finite(
                        (t.prompt_tokens as f64 * p.prompt
                            + t.completion_tokens as f64 * p.completion)
                            / 1e6,
                    )
                });
                JudgeUsage {
                    judge: judge.to_owned(),
                    model: named.clone().unwrap_or_else(|| model.to_owned()),
                    evaluator: caller.clone(),
                    evaluations: t.evaluations,
                    requests: t.requests,
                    retries: t.retries,
                    failures: t.failures,
                    cache_hits: t.cache_hits,
                    prompt_tokens: t.prompt_tokens,
                    completion_tokens: t.completion_tokens,
                    latency_p50_ms: percentile(&l, 0.50),
                    latency_p95_ms: percentile(&l, 0.95),
                    cost,
                    adapted: adapted.to_vec(),
                }
            })
            .collect()
    }
}

/// The `q` quantile of sorted values (nearest rank).
fn percentile(sorted: &[f64], q: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    #[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted.get(rank - 1).copied()
}

/// One evaluator's use of one judge over a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct JudgeUsage {
    /// The judge's name in the suite.
    pub judge: String,
    /// Its model.
    pub model: String,
    /// The evaluator that called it.
    pub evaluator: String,
    /// Judgements asked for (cache hits included), each counted once
    /// however many requests it took.
    pub evaluations: u64,
    /// HTTP requests sent (retries and structured-output fallbacks
    /// included).
    pub requests: u64,
    /// Requests sent again after a transient failure.
    pub retries: u64,
    /// Judgements that finally failed (after the last retry and the last
    /// fallback, or with a reply no judgement could be read from).
    pub failures: u64,
    /// Judgements answered from the cache (no request).
    pub cache_hits: u64,
    /// Prompt tokens the server reported.
    pub prompt_tokens: u64,
    /// Completion tokens the server reported.
    pub completion_tokens: u64,
    /// Median latency of answered requests, in milliseconds.
    pub latency_p50_ms: Option<f64>,
    /// 95th percentile latency, in milliseconds.
    pub latency_p95_ms: Option<f64>,
    /// Cost from the suite's prices per million tokens, when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<f64>,
    /// Settings the judge's server refused and the judge then sent
    /// differently or left out (`max_tokens` as `max_completion_tokens`,
    /// say), in words; absent when there were none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub adapted: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tallies_and_percentiles() {
        let u = Usage::default();
        for i in 1..=100 {
            u.record(
                "ev",
                CallRecord {
                    requests: 1,
                    prompt_tokens: 10,
                    completion_tokens: 2,
                    latency_ms: Some(f64::from(i)),
                    ..CallRecord::default()
                },
            );
        }
        u.record("ev", CallRecord { cache_hit: true, ..CallRecord::default() });
        // Stopped before a request: nothing; given up after two: requests.
        let mut stopped = CallRecord::default();
        stopped.ended(true, Some(&super::super::JudgeError::Cancelled { judge: "j".into() }));
        u.record("ev", stopped);
        let mut given_up = CallRecord { requests: 2, retries: 1, ..CallRecord::default() };
        given_up.ended(true, Some(&super::super::JudgeError::GivenUp { judge: "j".into() }));
        assert!(!given_up.failed);
        u.record("ev", given_up);
        u.record(
            "ev",
            CallRecord { requests: 3, retries: 2, failed: true, ..CallRecord::default() },
        );
        // Embedding requests naming another model: a row of their own.
        u.record_for(
            "ev",
            Some("emb"),
            CallRecord { requests: 1, prompt_tokens: 7, ..CallRecord::default() },
        );
        let rows = u.report("j", "m", None, &[]);
        assert_eq!(rows.len(), 2);
        assert_eq!(
            (rows[1].model.as_str(), rows[1].requests, rows[1].prompt_tokens),
            ("emb", 1, 7)
        );
        u.by_caller.lock().unwrap().retain(|(_, model), _| model.is_none());
        let prices = super::super::Prices { prompt: 1.0, completion: 2.0 };
        let r = &u.report("j", "m", Some(prices), &[])[0];
        assert_eq!(
            (r.evaluations, r.requests, r.retries, r.failures, r.cache_hits),
            (102, 105, 3, 1, 1)
        );
        assert_eq!((r.prompt_tokens, r.completion_tokens), (1000, 200));
        assert_eq!((r.latency_p50_ms, r.latency_p95_ms), (Some(50.0), Some(95.0)));
        assert!((r.cost.unwrap() - 0.0014).abs() < 1e-12);
    }

    #[test]
    fn totals_saturate_instead_of_wrapping() {
        let u = Usage::default();
        for _ in 0..3 {
            u.record(
                "ev",
                CallRecord {
                    requests: u64::MAX,
                    prompt_tokens: (1 << 63) - 1,
                    completion_tokens: u64::MAX,
                    ..CallRecord::default()
                },
            );
        }
        let prices = super::super::Prices { prompt: 1.0, completion: 1.0 };
        let r = &u.report("j", "m", Some(prices), &[])[0];
        assert_eq!((r.prompt_tokens, r.completion_tokens), (u64::MAX, u64::MAX));
        assert_eq!(r.requests, u64::MAX);
        assert!(r.cost.unwrap() > 3.6e13, "{:?}", r.cost);
    }
}
