//! Suite files: a dataset, the evaluators to run over it, how rows map to
//! their inputs, and the gate a run must pass.
//!
//! Suites are YAML (`.yaml`, `.yml`) or TOML (`.toml`); see
//! `docs/suite.md` for the reference. Relative paths (the dataset, files
//! named in metric options) resolve against the suite file's folder.

mod dataset_check;
mod raw;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use std::sync::Arc;

use crate::dataset::DatasetFormat;
use crate::error::ConfigError;
use crate::evaluator::Evaluator;
use crate::history::{FailOn, RegressionPolicy, Strategy};
use crate::judge::{CacheSettings, Judges};
use crate::mapping::InputMapping;
use crate::metrics::{self, BuildContext};
use crate::score::Direction;
use crate::summary::Gate;

/// The syntax of a suite file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SuiteFormat {
    /// YAML.
    Yaml,
    /// TOML.
    Toml,
}

impl SuiteFormat {
    /// The syntax for a file name: `.yaml`/`.yml` or `.toml`.
    pub fn from_path(path: &Path) -> Option<SuiteFormat> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "yaml" | "yml" => Some(SuiteFormat::Yaml),
            "toml" => Some(SuiteFormat::Toml),
            _ => None,
        }
    }
}

/// A loaded, validated suite.
#[derive(Debug)]
pub struct Suite {
    /// The suite file.
    pub path: PathBuf,
    /// The suite's name, if given.
    pub name: Option<String>,
    /// The dataset file, resolved against the suite's folder.
    pub dataset: PathBuf,
    /// The dataset format, when set in the suite (else from the extension).
    pub format: Option<DatasetFormat>,
    /// The column holding each row's id; else the line/record number.
    pub id_column: Option<String>,
    /// The evaluators, in file order.
    pub evaluators: Vec<SuiteEvaluator>,
    /// The gate, resolved per evaluator.
    pub gate: Gate,
    /// The judges its LLM evaluators ask (none when it has no `judge`).
    pub judges: Arc<Judges>,
    /// How runs are compared with their baseline.
    pub regression: RegressionPolicy,
    /// Labels recorded with every run.
    pub tags: BTreeMap<String, String>,
    /// Links recorded with every run (label → address).
    pub links: BTreeMap<String, String>,
    /// The files its evaluators' options named (rules files, JSON
    /// Schemas and their `$ref`s), in the order they were read: with the
    /// suite file, what [`Suite::hash`] covers.
    pub config_files: Vec<PathBuf>,
}

/// How a suite is loaded: settings from the command line, not the file.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// Where the judges' reply cache lives and what it may do.
    pub cache: CacheSettings,
    /// The suite's judges will not be asked (a suite loaded to read its
    /// recorded runs, or to render a report): their API keys and TLS
    /// roots are not read, so a key that is not set here is no error.
    pub no_judging: bool,
}

/// One evaluator of a suite.
pub struct SuiteEvaluator {
    /// Its unique name in the suite (also the name of its main score).
    pub name: String,
    /// The metric it runs.
    pub metric: String,
    /// The built metric.
    pub evaluator: Box<dyn Evaluator>,
    /// Where its inputs come from (the suite's mapping, overridden by its own).
    pub mapping: InputMapping,
    /// Pass threshold: `score >= t` when higher is better, `<= t` when lower is.
    pub threshold: Option<f64>,
    /// Weight of this evaluator's main score in the row score (the
    /// weighted average of [`crate::row_score`]); default 1.
    pub weight: f64,
}

impl fmt::Debug for SuiteEvaluator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SuiteEvaluator")
            .field("name", &self.name)
            .field("metric", &self.metric)
            .field("mapping", &self.mapping)
            .field("threshold", &self.threshold)
            .finish_non_exhaustive()
    }
}

impl SuiteEvaluator {
    /// Whether higher or lower scores are better.
    pub fn direction(&self) -> Direction {
        self.evaluator.direction()
    }
}

impl Suite {
    /// What a run records of its configuration: the BLAKE3 of the suite
    /// file (see [`crate::history::hash_input`]) or, when its evaluators'
    /// options name files ([`Suite::config_files`]), the BLAKE3 of every
    /// such file's hash, in order, with the suite's: a rules file edited
    /// since a run changes it, so that run is not resumed under other rules.
    ///
    /// # Errors
    /// The suite file or one of its files cannot be read.
    pub fn hash(&self, threads: usize) -> std::io::Result<String> {
        let suite = crate::history::hash_input(&self.path, threads)?;
        if self.config_files.is_empty() {
            return Ok(suite);
        }
        let mut all = blake3::Hasher::new();
        all.update(b"refscore suite and files\n");
        all.update(suite.as_bytes());
        for f in &self.config_files {
            let hash = crate::history::hash_input(f, threads)
                .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", f.display())))?;
            // The contents only, in the order the options name them: the
            // same suite loaded from another folder resolves its files to
            // other paths, and is the same configuration.
            all.update(b"\n");
            all.update(hash.as_bytes());
        }
        Ok(all.finalize().to_hex().to_string())
    }

    /// Loads a suite file; the syntax follows the extension.
    ///
    /// # Errors
    /// The file cannot be read or is not a valid suite; the error names
    /// the file.
    pub fn load(path: &Path) -> Result<Suite, ConfigError> {
        Suite::load_with(path, &LoadOptions::default())
    }

    /// Loads a suite file with settings from the command line. The
    /// dataset is not read: a run checks it first with
    /// [`Suite::check_dataset`].
    ///
    /// # Errors
    /// The file cannot be read or is not a valid suite; the error names
    /// the file.
    pub fn load_with(path: &Path, opts: &LoadOptions) -> Result<Suite, ConfigError> {
        let file_err = |message: String| ConfigError::File { path: path.to_path_buf(), message };
        let format = SuiteFormat::from_path(path).ok_or_else(|| {
            file_err("unknown suite format (use .yaml, .yml or .toml)".to_owned())
        })?;
        let text = crate::limits::read_text(path, crate::limits::MAX_CONFIG_BYTES)?;
        let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Suite::parse(&text, format, path, &base, opts)
    }

    /// Parses suite text; relative paths resolve against `base_dir`.
    /// Errors name the file `<suite>`.
    ///
    /// # Errors
    /// The text is not a valid suite.
    #[allow(clippy::should_implement_trait)]
    pub fn from_str(
        text: &str,
        format: SuiteFormat,
        base_dir: &Path,
    ) -> Result<Suite, ConfigError> {
        Suite::parse(text, format, Path::new("<suite>"), base_dir, &LoadOptions::default())
    }

    fn parse(
        text: &str,
        format: SuiteFormat,
        path: &Path,
        base_dir: &Path,
        opts: &LoadOptions,
    ) -> Result<Suite, ConfigError> {
        let raw: raw::RawSuite = match format {
            SuiteFormat::Yaml => {
                serde_saphyr::from_str(text).map_err(|e| yaml_message(&e.to_string(), path))
            }
            SuiteFormat::Toml => toml::from_str(text).map_err(|e| e.to_string()),
        }
        .map_err(|message| ConfigError::File { path: path.to_path_buf(), message })?;
        build(raw, path, base_dir, opts).map_err(|e| e.in_file(path))
    }

    /// The evaluator with this name.
    pub fn evaluator(&self, name: &str) -> Option<&SuiteEvaluator> {
        self.evaluators.iter().find(|e| e.name == name)
    }
}

/// The YAML reader's message as a suite's author reads it: its snippet
/// points into the suite file (not `<input>`), and a repeated key, a null,
/// a negative count and an alias bomb say so without the reader's own
/// type and option names.
fn yaml_message(message: &str, path: &Path) -> String {
    let mut text = message
        .replace("--> <input>:", &format!("--> {}:", path.display()))
        .replace(", set DuplicateKeyPolicy in Options if acceptable", " (a key may appear once)");
    // The YAML reader's words for a few common mistakes, said as a
    // suite's author would say them.
    text = reword(&text, "cannot deserialize null into ", |rest| {
        let what = rest.split(';').next().unwrap_or("");
        let what = if what == "string" { "a string" } else { what };
        format!("expected {what}, got null (`~` or nothing)")
    });
    for (kind, says) in [
        ("u64", "a whole number, 0 or more"),
        ("u32", "a whole number, 0 or more"),
        ("usize", "a whole number, 0 or more"),
        ("i64", "a whole number"),
        ("f64", "a number"),
    ] {
        text = text.replace(&format!("invalid {kind}"), &format!("expected {says}"));
    }
    text = reword(&text, "non-finite float ", |rest| {
        // "`.nan` rejected by the configured policy"
        let value = rest.split(" rejected").next().unwrap_or(rest);
        format!("expected a finite number, got {value}")
    });
    reword(&text, "budget breached: ", |rest| {
        // `Nodes { nodes: 250001 }`: the count reached, and of what.
        let count: String = rest.chars().filter(char::is_ascii_digit).collect();
        let kind = rest.split_whitespace().next().unwrap_or("").to_lowercase();
        format!("the YAML is too large once its aliases are expanded ({count} {kind})")
    })
}

/// `text` with the phrase that starts at `marker` and runs to the end of
/// its line said as `say` puts it (given what follows the marker), at
/// every place it stands: the message, and again under a snippet's caret.
fn reword(text: &str, marker: &str, say: impl Fn(&str) -> String) -> String {
    let Some(at) = text.find(marker) else { return text.to_owned() };
    let end = text[at..].find('\n').map_or(text.len(), |n| at + n);
    let said = &text[at..end];
    text.replace(said, &say(&said[marker.len()..]))
}

fn build(
    raw: raw::RawSuite,
    path: &Path,
    base_dir: &Path,
    opts: &LoadOptions,
) -> Result<Suite, ConfigError> {
    if raw.dataset.trim().is_empty() {
        return Err(ConfigError::invalid("dataset", "must name a file"));
    }
    let format = match &raw.format {
        None => None,
        Some(f) => Some(DatasetFormat::from_name(f).ok_or_else(|| {
            ConfigError::invalid("format", format!("`{f}` is not one of jsonl, json, csv, parquet"))
        })?),
    };
    if raw.evaluators.is_empty() {
        return Err(ConfigError::invalid("evaluators", "at least one evaluator is needed"));
    }
    // A run's field table needs every JSON metric's per-field tallies.
    let judges = Arc::new(Judges::from_suite(
        raw.judge.as_ref(),
        raw.judges.as_ref(),
        base_dir,
        &opts.cache,
        !opts.no_judging,
    )?);
    let ctx = BuildContext {
        base_dir: Some(base_dir.to_path_buf()),
        field_tallies: true,
        judges: Arc::clone(&judges),
        evaluator: None,
        files: Arc::default(),
        define_judge: None,
    };
    let mut evaluators: Vec<SuiteEvaluator> = Vec::new();
    for (i, e) in raw.evaluators.into_iter().enumerate() {
        let name = e.name.clone().unwrap_or_else(|| e.metric.clone());
        let context = format!("evaluators[{i}] `{name}`");
        let wrap = |err: ConfigError| ConfigError::invalid(context.clone(), err.to_string());
        if name.is_empty() {
            return Err(ConfigError::invalid(context, "empty name"));
        }
        if evaluators.iter().any(|other| other.name == name) {
            return Err(ConfigError::invalid(
                context,
                "duplicate evaluator name (give each evaluator a unique `name`)",
            ));
        }
        // An evaluator's other scores are named `<evaluator>.<score>`:
        // `t.precision` beside `t` would write two scores of one name.
        if let Some(other) = evaluators.iter().find(|o| {
            name.strip_prefix(o.name.as_str()).is_some_and(|r| r.starts_with('.'))
                || o.name.strip_prefix(name.as_str()).is_some_and(|r| r.starts_with('.'))
        }) {
            let (short, long) = if other.name.len() < name.len() {
                (&other.name, &name)
            } else {
                (&name, &other.name)
            };
            return Err(ConfigError::invalid(
                context,
                format!(
                    "evaluator names `{short}` and `{long}` collide: the other scores of `{short}` are named `{short}.<score>` (rename one)"
                ),
            ));
        }
        if let Some(w) = e.weight
            && !(w.is_finite() && w >= 0.0)
        {
            return Err(ConfigError::invalid(context, "weight must be a finite number ≥ 0"));
        }
        if let Some(Some(t)) = e.threshold
            && !t.is_finite()
        {
            return Err(ConfigError::invalid(context, "threshold must be a finite number"));
        }
        let spec = metrics::registry::find(&e.metric).map_err(wrap)?;
        let ctx = BuildContext { evaluator: Some(name.clone()), ..ctx.clone() };
        let evaluator = (spec.build)(&e.options, &ctx).map_err(wrap)?;
        let inputs: Vec<&str> = evaluator.inputs().iter().map(|s| s.name.as_ref()).collect();
        for key in e.mapping.keys() {
            if !inputs.contains(&key.as_str()) {
                return Err(ConfigError::invalid(
                    context,
                    format!(
                        "mapping names input `{key}`, which metric `{}` does not read (inputs: {})",
                        e.metric,
                        inputs.join(", ")
                    ),
                ));
            }
        }
        let mut merged: Map<String, Value> = raw
            .mapping
            .iter()
            .filter(|(k, _)| inputs.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        merged.extend(e.mapping);
        let mapping = InputMapping::from_config(&merged).map_err(wrap)?;
        evaluators.push(SuiteEvaluator {
            name,
            metric: e.metric,
            evaluator,
            mapping,
            // The metric's declared default when the suite says nothing;
            // `null` is no threshold.
            threshold: e.threshold.unwrap_or(spec.threshold),
            weight: e.weight.unwrap_or(1.0),
        });
    }
    for key in raw.mapping.keys() {
        let used =
            evaluators.iter().any(|e| e.evaluator.inputs().iter().any(|s| s.name == key.as_str()));
        if !used {
            return Err(ConfigError::invalid(
                "mapping",
                format!("no evaluator reads an input named `{key}`"),
            ));
        }
    }
    let gate = build_gate(&raw.gate, &evaluators)?;
    let regression = build_regression(&raw.regression, &evaluators)?;
    Ok(Suite {
        path: path.to_path_buf(),
        name: raw.name,
        dataset: base_dir.join(&raw.dataset),
        format,
        id_column: raw.id.filter(|s| !s.is_empty()),
        evaluators,
        gate,
        judges,
        regression,
        tags: raw.tags,
        links: raw.links,
        config_files: ctx.files.lock().map_or_else(|e| e.into_inner().clone(), |f| f.clone()),
    })
}

fn build_regression(
    raw: &raw::RawRegression,
    evaluators: &[SuiteEvaluator],
) -> Result<RegressionPolicy, ConfigError> {
    let baseline = match raw.baseline.as_deref() {
        None | Some("last_passing") => Strategy::LastPassing,
        Some("pinned") => Strategy::Pinned,
        Some(other) => {
            return Err(ConfigError::invalid(
                "regression.baseline",
                format!("`{other}` is not one of last_passing, pinned"),
            ));
        }
    };
    let any = |_: &SuiteEvaluator| true;
    let unit = Some((0.0, 1.0e9));
    let tolerance =
        per_evaluator("regression.tolerance", raw.tolerance.as_ref(), evaluators, any, "", unit)?;
    let critical_threshold = per_evaluator(
        "regression.critical_threshold",
        raw.critical_threshold.as_ref(),
        evaluators,
        any,
        "",
        unit,
    )?;
    let policy = RegressionPolicy {
        baseline,
        tolerance,
        critical_threshold,
        alpha: match &raw.significance {
            None => Some(crate::history::DEFAULT_ALPHA),
            Some(Value::Bool(false)) => None,
            Some(v) => match v.as_f64().filter(|a| *a > 0.0 && *a < 1.0) {
                Some(a) => Some(a),
                None => {
                    return Err(ConfigError::invalid(
                        "regression.significance",
                        format!("expected a level in (0, 1) such as 0.05, or false; got {v}"),
                    ));
                }
            },
        },
    };
    for e in evaluators {
        let (t, c) = (policy.tolerance_of(&e.name), policy.critical_of(&e.name));
        if c < t {
            return Err(ConfigError::invalid(
                "regression",
                format!(
                    "evaluator `{}`: critical_threshold {c} is below tolerance {t} (a drop is a warning beyond the tolerance and critical beyond the critical threshold)",
                    e.name
                ),
            ));
        }
    }
    Ok(policy)
}

/// One per-evaluator gate limit: a number for every evaluator it applies
/// to, or a map evaluator → number.
fn per_evaluator(
    key: &str,
    value: Option<&Value>,
    evaluators: &[SuiteEvaluator],
    applies: impl Fn(&SuiteEvaluator) -> bool,
    why_not: &str,
    range: Option<(f64, f64)>,
) -> Result<BTreeMap<String, f64>, ConfigError> {
    let ctx = key.to_owned();
    let number = |v: &Value, what: &str| -> Result<f64, ConfigError> {
        let x = v.as_f64().filter(|x| x.is_finite()).ok_or_else(|| {
            ConfigError::invalid(&ctx, format!("{what}: expected a finite number, got {v}"))
        })?;
        if let Some((lo, hi)) = range
            && !(lo..=hi).contains(&x)
        {
            return Err(ConfigError::invalid(&ctx, format!("{what}: {x} is not in [{lo}, {hi}]")));
        }
        Ok(x)
    };
    let mut out = BTreeMap::new();
    match value {
        None => {}
        Some(Value::Object(map)) => {
            for (name, v) in map {
                let Some(e) = evaluators.iter().find(|e| &e.name == name) else {
                    let known: Vec<&str> = evaluators.iter().map(|e| e.name.as_str()).collect();
                    return Err(ConfigError::invalid(
                        &ctx,
                        format!("unknown evaluator `{name}` (evaluators: {})", known.join(", ")),
                    ));
                };
                if !applies(e) {
                    return Err(ConfigError::invalid(
                        &ctx,
                        format!("evaluator `{name}` {why_not}"),
                    ));
                }
                out.insert(name.clone(), number(v, &format!("`{name}`"))?);
            }
        }
        Some(v) => {
            let x = number(v, "value")?;
            for e in evaluators.iter().filter(|e| applies(e)) {
                out.insert(e.name.clone(), x);
            }
            if out.is_empty() {
                return Err(ConfigError::invalid(
                    &ctx,
                    format!("no evaluator it applies to: every evaluator {why_not}"),
                ));
            }
        }
    }
    Ok(out)
}

fn build_gate(raw: &raw::RawGate, evaluators: &[SuiteEvaluator]) -> Result<Gate, ConfigError> {
    let minimize = |e: &SuiteEvaluator| e.direction() == Direction::Minimize;
    let gate = Gate {
        min_mean: per_evaluator(
            "gate.min_mean",
            raw.min_mean.as_ref(),
            evaluators,
            |e| !minimize(e),
            "is a distance (lower is better): use max_mean",
            None,
        )?,
        max_mean: per_evaluator(
            "gate.max_mean",
            raw.max_mean.as_ref(),
            evaluators,
            minimize,
            "is not a distance (higher is better): use min_mean",
            None,
        )?,
        min_pass_rate: per_evaluator(
            "gate.min_pass_rate",
            raw.min_pass_rate.as_ref(),
            evaluators,
            |e| e.threshold.is_some(),
            "has no threshold, so no pass rate",
            Some((0.0, 1.0)),
        )?,
        max_failed_rows: raw.max_failed_rows,
        max_judge_failures: raw.max_judge_failures,
        regression: match raw.regression.as_ref().map(|r| r.fail_on.as_str()) {
            None => None,
            Some("warning") => Some(FailOn::Warning),
            Some("critical") => Some(FailOn::Critical),
            Some(other) => {
                return Err(ConfigError::invalid(
                    "gate.regression.fail_on",
                    format!("`{other}` is not one of warning, critical"),
                ));
            }
        },
    };
    Ok(gate)
}

#[cfg(test)]
mod tests;
