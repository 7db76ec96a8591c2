//! The metrics, each an [`Evaluator`](crate::Evaluator), and [`build`] to
//! make one by name from its options.

pub(crate) mod input;
pub(crate) mod options;

pub mod factuality;
pub mod format;
pub mod json_diff;
pub mod json_distance;
pub mod json_match;
pub mod json_similarity;
pub mod json_structural;
pub mod tone;

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::engine::Keep;
use crate::error::ConfigError;
use crate::evaluator::Evaluator;

/// Names of the metrics [`build`] knows.
pub const METRICS: &[&str] = &[
    "json_match",
    "json_distance",
    "json_diff",
    "json_similarity",
    "json_structural",
    "format",
    "factuality",
    "tone",
];

/// Where a metric's configuration comes from: relative file paths in its
/// options (schemas, rules files) resolve against `base_dir`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BuildContext {
    /// Folder of the file that holds the options, if any.
    pub base_dir: Option<PathBuf>,
}

impl BuildContext {
    /// Resolves a path from the options against [`BuildContext::base_dir`].
    pub fn resolve(&self, path: &str) -> PathBuf {
        let p = Path::new(path);
        match &self.base_dir {
            Some(base) if p.is_relative() => base.join(p),
            _ => p.to_path_buf(),
        }
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
    Ok(match name {
        "json_distance" => Box::new(json_distance::JsonDistance::from_options(options)?),
        "json_diff" => Box::new(json_diff::JsonDiff::from_options(options)?),
        "json_similarity" => Box::new(json_similarity::JsonSimilarity::from_options(options)?),
        "json_structural" => Box::new(json_structural::JsonStructural::from_options(options)?),
        "json_match" => Box::new(json_match::JsonMatch::from_options(options, ctx)?),
        "format" => Box::new(format::Format::from_options(options, ctx)?),
        "factuality" => Box::new(factuality::Factuality::from_options(options, ctx)?),
        "tone" => Box::new(tone::Tone::from_options(options, ctx)?),
        other => {
            return Err(ConfigError::UnknownMetric {
                name: other.to_owned(),
                known: METRICS.join(", "),
            });
        }
    })
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

/// The `details` option: `failed` (default), `all`, `fields` (every
/// leaf, passed ones by path only) or `none`.
pub(crate) fn keep_option(o: &options::Opts<'_>) -> Result<Keep, ConfigError> {
    Ok(match o.choice("details", &["failed", "all", "fields", "none"], "failed")?.as_str() {
        "all" => Keep::All,
        "fields" => Keep::Fields,
        "none" => Keep::None,
        _ => Keep::Failed,
    })
}
