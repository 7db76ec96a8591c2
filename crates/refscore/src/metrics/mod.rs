//! The metrics, each an [`Evaluator`](crate::Evaluator), and [`build`] to
//! make one by name from its options.

pub(crate) mod json_metric;
pub(crate) mod options;
pub(crate) mod python_repr;
pub mod registry;

pub mod classify;
pub mod exact_match;
pub mod factuality;
pub mod format;
pub mod json_diff;
pub mod json_distance;
pub mod json_match;
pub mod json_similarity;
pub mod json_structural;
pub mod llm_judges;
pub mod matches_regex;
pub mod precision_recall_fscore;
pub mod semantic_similarity;
pub mod tone;

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use std::sync::Arc;

use crate::error::ConfigError;
use crate::evaluator::Evaluator;
use crate::judge::Judges;

pub use json_metric::JsonSettings;
pub use registry::{MetricSpec, OptionSpec, OptionType};

/// Every built-in metric, declared once: the registry's contents.
pub(crate) static REGISTRY: &[MetricSpec] = &[
    json_match::SPEC,
    json_distance::SPEC,
    json_diff::SPEC,
    json_similarity::SPEC,
    json_structural::SPEC,
    format::SPEC,
    factuality::SPEC,
    tone::SPEC,
    classify::SPEC,
    llm_judges::HALLUCINATION,
    llm_judges::CORRECTNESS,
    llm_judges::RELEVANCE,
    llm_judges::TOXICITY,
    exact_match::SPEC,
    matches_regex::SPEC,
    precision_recall_fscore::SPEC,
    semantic_similarity::SPEC,
];

/// The metric `refscore compare` uses when none is named.
pub const DEFAULT_COMPARE: &str = json_distance::SPEC.name;

/// Where a metric's configuration comes from, and what a run wants of it.
#[derive(Debug, Clone, Default)]
pub struct BuildContext {
    /// Folder of the file that holds the options, if any: relative file
    /// paths in the options (schemas, rules files) resolve against it.
    pub base_dir: Option<PathBuf>,
    /// Whether JSON metrics gather per-field tallies on every evaluation
    /// (a run's field table needs them; a single comparison does not).
    pub field_tallies: bool,
    /// The judges LLM metrics may name.
    pub judges: Arc<Judges>,
    /// The evaluator's name in its suite (judge accounting uses it).
    pub evaluator: Option<String>,
    /// Every file the options named (rules files, schemas), as
    /// [`BuildContext::resolve`] resolved it: a suite records them, so
    /// that what a run records of its configuration covers them too.
    pub files: Arc<std::sync::Mutex<Vec<PathBuf>>>,
    /// How a judge is defined where the metric is built, for the error of
    /// a metric that needs one when there is none: `None` is a suite's
    /// words (add `judge: {model: ...}` or `judges:` to the suite).
    pub define_judge: Option<&'static str>,
}

impl BuildContext {
    /// The judge named `name`.
    ///
    /// # Errors
    /// No such judge: the message lists the known ones, or, when there are
    /// none, says how to define one ([`BuildContext::define_judge`]).
    pub fn judge(&self, name: &str) -> Result<Arc<crate::judge::Judge>, String> {
        if self.judges.is_empty() {
            return Err(format!("judge `{name}` is not defined: {}", self.how_to_define_judge()));
        }
        self.judges.get(name)
    }

    /// What to do when a metric needs a judge and none is defined.
    pub fn how_to_define_judge(&self) -> &'static str {
        self.define_judge.unwrap_or("add `judge: {model: ...}` (or `judges:`) to the suite")
    }

    /// Resolves a path from the options against [`BuildContext::base_dir`]
    /// and notes it in [`BuildContext::files`].
    pub fn resolve(&self, path: &str) -> PathBuf {
        let p = Path::new(path);
        let resolved = match &self.base_dir {
            Some(base) if p.is_relative() => base.join(p),
            _ => p.to_path_buf(),
        };
        let mut files = self.files.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if !files.contains(&resolved) {
            files.push(resolved.clone());
        }
        resolved
    }
}

/// Builds a metric by name from its options (a JSON object).
///
/// # Errors
/// An unknown metric or option, or a bad option value.
pub fn build(
    name: &str,
    options: &Map<String, Value>,
    ctx: &BuildContext,
) -> Result<Box<dyn Evaluator>, ConfigError> {
    (registry::find(name)?.build)(options, ctx)
}

/// `match` at 1, `mismatch` at 0, `partial` between.
pub(crate) fn similarity_label(score: f64) -> &'static str {
    if score >= 1.0 {
        "match"
    } else if score > 0.0 {
        "partial"
    } else {
        "mismatch"
    }
}
