//! LLM judges over any OpenAI-compatible server.
//!
//! A suite names its judges (`judges: {NAME: {model, base_url, ...}}`, or
//! one `judge:` named `default`). Each becomes a [`Judge`]: one client for
//! `POST {base_url}/chat/completions` shared by every evaluator and thread
//! of a run, with bounded concurrency and rate, retries with backoff and
//! jitter (honouring `Retry-After`), a persistent SQLite [`Cache`] of
//! replies and per-evaluator accounting ([`JudgeUsage`]). The API key is
//! read from the environment and appears nowhere else ([`ApiKey`]).
//!
//! A judge also embeds texts (`POST {base_url}/embeddings`,
//! [`Judge::embed`]) with its `embedding_model`, under the same cache,
//! limits, retries and accounting; [`cosine_similarity`] compares two
//! vectors.

mod cache;
mod client;
mod config;
mod explanation;
mod io;
mod limiter;
mod plaintext;
mod secret;
pub mod template;
mod tls;
mod usage;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::Value;

pub use cache::{Cache, CacheError};
pub(crate) use client::AskError;
pub use client::{CacheMode, Embeddings, Judge, JudgeError, Reply, StructuredMode};
pub use config::{DEFAULT_BASE_URL, JudgeConfig, Prices};
pub use explanation::MAX_EXPLANATION_BYTES;
pub(crate) use explanation::kept as kept_explanation;
/// How long a cancelled run still waits for a judge request in flight.
pub const CANCEL_GRACE: std::time::Duration = io::CANCEL_GRACE;
pub use secret::ApiKey;
pub use usage::JudgeUsage;

use crate::error::ConfigError;

/// The name of a suite's single `judge:`.
pub const DEFAULT_JUDGE: &str = "default";

/// Where a suite's single judge is written (`judge:`), as its errors say.
const SINGLE_JUDGE: &str = "judge";

/// Cosine similarity of two embeddings, computed in `f64`: in [−1, 1] and
/// always finite. Vectors of different lengths, empty vectors and vectors
/// of norm 0 (or whose products overflow) give 0.
pub fn cosine_similarity(a: &[f32], b: &[f32]) -> f64 {
    if a.len() != b.len() || a.is_empty() {
        return 0.0;
    }
    let (mut dot, mut na, mut nb) = (0.0_f64, 0.0_f64, 0.0_f64);
    for (x, y) in a.iter().zip(b) {
        let (x, y) = (f64::from(*x), f64::from(*y));
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    let norm = na.sqrt() * nb.sqrt();
    let c = dot / norm;
    if norm > 0.0 && c.is_finite() { c.clamp(-1.0, 1.0) } else { 0.0 }
}

/// Where the cache lives and what it may do, as the command line says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CacheSettings {
    /// The cache file; `None`: `.refscore/cache.db` beside the suite.
    pub path: Option<std::path::PathBuf>,
    /// Use, refresh or bypass.
    pub mode: CacheMode,
}

/// The judges of a suite, by name, with the cancel flag they share.
#[derive(Debug, Default)]
pub struct Judges {
    judges: BTreeMap<String, Arc<Judge>>,
    cancel: Arc<AtomicBool>,
}

impl Judges {
    /// No judge.
    pub fn none() -> Self {
        Judges::default()
    }

    /// Judges from a suite's `judge` and `judges` values; the cache is
    /// opened only when a judge exists and caching is on. Without
    /// `to_ask`, the judges will not be asked (a suite loaded to read its
    /// runs): no API key and no TLS root is read.
    ///
    /// # Errors
    /// Bad settings, a name used twice, an API key that cannot be used
    /// ([`ApiKey::for_judge`]), an `SSL_CERT_FILE` or `SSL_CERT_DIR` that
    /// cannot be read or holds no certificate, or a cache that cannot be
    /// opened.
    pub fn from_suite(
        single: Option<&Value>,
        named: Option<&Value>,
        base_dir: &Path,
        cache: &CacheSettings,
        to_ask: bool,
    ) -> Result<Self, ConfigError> {
        let mut configs: Vec<(String, JudgeConfig)> = Vec::new();
        if let Some(v) = single {
            // Named `default`, but errors say where it was written: `judge`
            // (a suite's `judge:`, or the settings given inline to a Python
            // evaluator), not a `judges.default` nobody wrote.
            configs.push((DEFAULT_JUDGE.to_owned(), JudgeConfig::read(SINGLE_JUDGE, v)?));
        }
        match named {
            None => {}
            Some(Value::Object(map)) => {
                for (name, v) in map {
                    if configs.iter().any(|(n, _)| n == name) {
                        return Err(ConfigError::invalid(
                            format!("judges.{name}"),
                            "defined twice (`judge` is the judge named `default`)",
                        ));
                    }
                    configs.push((name.clone(), JudgeConfig::from_value(name, v)?));
                }
            }
            Some(other) => {
                return Err(ConfigError::invalid(
                    "judges",
                    format!("expected a map of judge name to settings, got {other}"),
                ));
            }
        }
        // Keys are read and checked first: a bad one fails the load, naming
        // its variable, before any cache is touched.
        if to_ask && !configs.is_empty() {
            tls::root_certs().map_err(|m| ConfigError::invalid("judges", m))?;
        }
        let mut keyed = Vec::with_capacity(configs.len());
        for (i, (name, c)) in configs.into_iter().enumerate() {
            let at = if i == 0 && single.is_some() {
                SINGLE_JUDGE.to_owned()
            } else {
                format!("judges.{name}")
            };
            let key = if to_ask {
                ApiKey::for_judge(c.api_key_env.as_deref())
                    .map_err(|m| ConfigError::invalid(at, m))?
            } else {
                None
            };
            keyed.push((name, c, key));
        }
        let cancel = Arc::new(AtomicBool::new(false));
        let shared = if keyed.is_empty() || cache.mode == CacheMode::Off {
            None
        } else {
            let path = cache.path.clone().unwrap_or_else(|| base_dir.join(".refscore/cache.db"));
            Some(Arc::new(
                Cache::open(&path)
                    .map_err(|e| ConfigError::File { path: path.clone(), message: e.message })?,
            ))
        };
        let judges = keyed
            .into_iter()
            .map(|(name, c, key)| {
                let j =
                    Judge::with_key(&name, c, key, shared.clone(), cache.mode, Arc::clone(&cancel));
                (name, Arc::new(j))
            })
            .collect();
        Ok(Judges { judges, cancel })
    }

    /// Warnings about the judges' settings, to show before a run: a
    /// credential that would travel unencrypted to another machine.
    pub fn warnings(&self) -> Vec<String> {
        self.judges.values().filter_map(|j| j.plaintext_warning()).collect()
    }

    /// Judges given directly (tests, embedding applications).
    pub fn from_judges(judges: Vec<Judge>, cancel: Arc<AtomicBool>) -> Self {
        Judges {
            judges: judges.into_iter().map(|j| (j.name().to_owned(), Arc::new(j))).collect(),
            cancel,
        }
    }

    /// The judge named `name` (a metric asks through
    /// [`crate::metrics::BuildContext::judge`], which says how to define
    /// one when there is none).
    ///
    /// # Errors
    /// No such judge; the message lists the known ones.
    pub fn get(&self, name: &str) -> Result<Arc<Judge>, String> {
        self.judges.get(name).cloned().ok_or_else(|| {
            if self.judges.is_empty() {
                format!("judge `{name}` is not defined, and there is no judge")
            } else {
                let known: Vec<&str> = self.judges.keys().map(String::as_str).collect();
                format!("judge `{name}` is not defined (judges: {})", known.join(", "))
            }
        })
    }

    /// Whether the suite has any judge.
    pub fn is_empty(&self) -> bool {
        self.judges.is_empty()
    }

    /// The largest concurrency of any judge (0 without judges): how many
    /// evaluations a run should keep in flight.
    pub fn concurrency(&self) -> usize {
        self.judges.values().map(|j| j.config().concurrency()).max().unwrap_or(0)
    }

    /// Stops sending: requests not yet sent fail as cancelled.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::SeqCst);
    }

    /// The shared cancel flag.
    pub fn cancel_flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.cancel)
    }

    /// Every judge's accounting, per evaluator.
    pub fn usage(&self) -> Vec<JudgeUsage> {
        self.judges.values().flat_map(|j| j.usage()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_of_the_single_judge_say_judge_and_of_named_ones_judges_name() {
        use serde_json::json;
        let off = CacheSettings { path: None, mode: CacheMode::Off };
        let load = |single: Option<Value>, named: Option<Value>| {
            Judges::from_suite(single.as_ref(), named.as_ref(), Path::new("."), &off, true)
                .unwrap_err()
                .to_string()
        };
        let unset = "REFSCORE_TEST_SURELY_UNSET_VARIABLE";
        // `judge:` (or settings given inline in Python) is written `judge`,
        // never `judges.default`.
        assert_eq!(load(Some(json!({"model": ""})), None), "judge: model must not be empty");
        let e = load(Some(json!({"model": "m", "api_key_env": unset})), None);
        assert!(
            e.starts_with(&format!("judge: api_key_env names the environment variable `{unset}`")),
            "{e}"
        );
        let e = load(Some(json!({"model": "m", "extra_body": {"seed": 1}})), None);
        assert!(e.starts_with("judge.extra_body: `seed` cannot be set here"), "{e}");
        let e = load(Some(json!({"model": "m", "headers": {"api-key": 5}})), None);
        assert!(e.starts_with("judge.headers.api-key: expected a text"), "{e}");
        // Named judges keep their names, beside a single one too.
        let named = json!({"strict": {"model": "m", "api_key_env": unset}});
        let e = load(Some(json!({"model": "m"})), Some(named));
        assert!(e.starts_with("judges.strict: api_key_env names"), "{e}");
        let e = load(None, Some(json!({"strict": {"model": ""}})));
        assert_eq!(e, "judges.strict: model must not be empty");
    }

    #[test]
    fn cosine_is_bounded_and_finite() {
        let close = |x: f64, y: f64| (x - y).abs() < 1e-9;
        assert!(close(cosine_similarity(&[1.0, 0.0], &[1.0, 0.0]), 1.0));
        assert!(close(cosine_similarity(&[1.0, 2.0, 3.0], &[2.0, 4.0, 6.0]), 1.0));
        assert!(close(cosine_similarity(&[1.0, 0.0], &[0.0, 1.0]), 0.0));
        assert!(close(cosine_similarity(&[1.0, 0.0], &[-1.0, 0.0]), -1.0));
        assert!(close(cosine_similarity(&[3.0, 4.0], &[4.0, 3.0]), 24.0 / 25.0));
        // Zero, empty, mismatched and overflowing vectors: 0, never NaN.
        assert_eq!(cosine_similarity(&[0.0, 0.0], &[1.0, 0.0]), 0.0);
        assert_eq!(cosine_similarity(&[0.0, 0.0], &[0.0, 0.0]), 0.0);
        assert_eq!(cosine_similarity(&[], &[]), 0.0);
        assert_eq!(cosine_similarity(&[1.0], &[1.0, 0.0]), 0.0);
        let big = [f32::MAX; 4];
        let c = cosine_similarity(&big, &big);
        assert!(c.is_finite() && (-1.0..=1.0).contains(&c), "{c}");
        let tiny = [f32::MIN_POSITIVE, 0.0];
        assert!(close(cosine_similarity(&tiny, &tiny), 1.0));
    }
}
