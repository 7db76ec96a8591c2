//! `json_match`: field-level comparison of structured extractions.
//!
//! Arrays of objects are matched regardless of order (best assignment by
//! similarity, or by key fields), rules per path set comparators,
//! normalizers, tolerances, weights and null policies, and every leaf of
//! both documents ends as `match`, `partial`, `wrong`, `missing` or
//! `extra`. The score is the weighted share of credit earned; the
//! metadata carries field-level precision, recall and F1. A model's raw
//! text output is searched for its JSON first. See `docs/json_match.md`.

mod rules;
mod selector;
mod tool_calls;

use std::borrow::Cow;

use serde_json::{Map, Value};

use self::rules::{CompiledRules, DEFAULT_MIN_SIMILARITY};
use super::options::Opts;
use crate::compare::{Comparator, NullPolicy};
use crate::detail::failure_lines;
use crate::engine::{
    self, Absent, Aggregate, Align, Comparison, Cost, Empty, Keep, KeySet, Leaf, NodeRule, Policy,
    Rules,
};
use crate::error::{ConfigError, EvalError};
use crate::evaluator::{EvalInput, Evaluator, InputSpec};
use crate::extract::{ExtractOptions, extract_json};
use crate::metrics::BuildContext;
use crate::path::Seg;
use crate::score::Score;

const INPUTS: &[InputSpec] =
    &[InputSpec::required("output", true), InputSpec::required("reference", true)];

/// A preset: rules and input shapes for a common task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Preset {
    /// Lists of tool calls (OpenAI and Anthropic shapes), paired by name
    /// and argument similarity.
    ToolCalls,
}

/// The json_match metric, compiled from its options.
#[derive(Debug)]
pub struct JsonMatch {
    rules: CompiledRules,
    policy: Policy,
    extract: ExtractOptions,
    keep: Keep,
    preset: Option<Preset>,
}

impl Default for JsonMatch {
    fn default() -> Self {
        JsonMatch::assemble(CompiledRules::default(), None, ExtractOptions::default(), Keep::Failed)
    }
}

impl JsonMatch {
    /// From options: `rules` (a rules file path, or the rules inline),
    /// `preset` (`tool_calls`), `strict`, `pick`, `repair` (extraction of
    /// JSON from text), `details` (`failed`, `all`, `none`).
    ///
    /// # Errors
    /// Unknown options, an unreadable rules file, or invalid rules (the
    /// error names the rule).
    pub fn from_options(
        options: &Map<String, Value>,
        ctx: &BuildContext,
    ) -> Result<Self, ConfigError> {
        let o = Opts::new("json_match", options);
        let preset = match o.string("preset")?.as_deref() {
            None => None,
            Some("tool_calls") => Some(Preset::ToolCalls),
            Some(other) => {
                return Err(ConfigError::invalid(
                    "metric `json_match`, option `preset`",
                    format!("unknown preset `{other}` (known: tool_calls)"),
                ));
            }
        };
        let rules_value = match o.value("rules") {
            None => None,
            Some(Value::String(path)) => {
                let p = ctx.resolve(path);
                Some(rules::read_file(&p)?).map(|v| (v, Some(p)))
            }
            Some(v @ Value::Object(_)) => Some((v.clone(), None)),
            Some(other) => {
                return Err(ConfigError::invalid(
                    "metric `json_match`, option `rules`",
                    format!("expected a file path or an object, got {other}"),
                ));
            }
        };
        let extract = ExtractOptions::from_opts(&o)?;
        let keep = super::keep_option(&o)?;
        o.finish()?;
        let mut compiled = match &rules_value {
            Some((v, path)) => {
                let c = rules::compile(v);
                match path {
                    Some(p) => c.map_err(|e| e.in_file(p))?,
                    None => c?,
                }
            }
            None => CompiledRules::default(),
        };
        if preset == Some(Preset::ToolCalls) {
            // Preset rules go first so that the user's rules override them.
            compiled.prepend(&tool_calls::preset_rules())?;
        }
        Ok(JsonMatch::assemble(compiled, preset, extract, keep))
    }

    /// The metric from compiled rules: defaults become the policy.
    fn assemble(
        compiled: CompiledRules,
        preset: Option<Preset>,
        extract: ExtractOptions,
        keep: Keep,
    ) -> Self {
        let extra = compiled.base.extra.unwrap_or(Cost::LeavesAtLeastOne);
        let align = compiled
            .default_align
            .clone()
            .unwrap_or(Align::Auto { min_similarity: DEFAULT_MIN_SIMILARITY });
        let policy = Policy {
            aggregate: Aggregate::Sum,
            keys: KeySet::Union,
            absent: Absent::Missing,
            missing: Cost::LeavesAtLeastOne,
            extra,
            mismatch: Cost::LeavesAtLeastOne,
            surplus_elements: true,
            align,
            empty_arrays: Empty::Leaf,
            empty_expected_object: Empty::IfBoth,
        };
        JsonMatch { rules: compiled, policy, extract, keep, preset }
    }

    /// Compares two JSON values (already parsed) under the rules.
    pub fn compare_values(&self, output: &Value, reference: &Value, keep: Keep) -> Comparison {
        engine::compare(self, reference, output, None, keep)
    }

    /// Rule selectors that have matched no node in any evaluation so far.
    pub fn unmatched_selectors(&self) -> Vec<String> {
        self.rules.unmatched()
    }

    /// Builds the Score of a comparison.
    fn score(&self, c: Comparison, extraction: Option<Value>) -> Score {
        let score = c.tally.ratio_or(1.0);
        let k = &c.counts;
        let (p, r, f) = (k.precision(), k.recall(), k.f1());
        let details: Vec<_> = c.records.iter().map(engine::Record::to_detail).collect();
        let mut lines = vec![format!(
            "{} matched, {} partial, {} wrong, {} missing, {} extra; precision {:.3}, recall {:.3}, F1 {:.3}",
            k.matched, k.partial, k.wrong, k.missing, k.extra, p, r, f
        )];
        lines.extend(failure_lines(&details));
        let mut s = Score::new("json_match", Some(score))
            .with_label(super::similarity_label(score))
            .with_explanation(lines.join("\n"))
            .with_meta("precision", p)
            .with_meta("recall", r)
            .with_meta("f1", f)
            .with_meta("fields", serde_json::to_value(k).unwrap_or(Value::Null));
        if let Some(x) = extraction {
            s = s.with_meta("extraction", x);
        }
        s.details = details;
        s.fields = c.fields;
        s
    }
}

impl Rules for JsonMatch {
    fn policy(&self) -> &Policy {
        &self.policy
    }

    fn leaf(&self, e: &Value, a: &Value, rule: &NodeRule) -> Leaf {
        let cmp = rule
            .comparator
            .and_then(|i| self.rules.comparators.get(usize::from(i)))
            .unwrap_or(&Comparator::Default);
        let norms = rule
            .normalize
            .and_then(|i| self.rules.normalizers.get(usize::from(i)))
            .map_or(&[][..], Vec::as_slice);
        let nulls = NullPolicy {
            absent_is_null: rule.absent_is_null.unwrap_or(false),
            empty_string_is_null: rule.empty_string_is_null.unwrap_or(false),
        };
        cmp.compare_with(e, a, norms, &nulls)
    }

    fn has_rules(&self) -> bool {
        self.rules.has_rules() || self.rules.base != NodeRule::default()
    }

    fn rule_at(&self, path: &[Seg<'_>]) -> NodeRule {
        self.rules.at(path)
    }

    fn alignment(&self, index: u16) -> &Align {
        self.rules.aligns.get(usize::from(index)).unwrap_or(&self.policy.align)
    }
}

/// The reference as JSON: text holding a JSON object or array is parsed,
/// other text stays a string.
fn reference_value(v: &Value) -> Cow<'_, Value> {
    match v {
        Value::String(s) => match crate::json::parse(s.trim()) {
            Ok(p @ (Value::Object(_) | Value::Array(_))) => Cow::Owned(p),
            _ => Cow::Borrowed(v),
        },
        other => Cow::Borrowed(other),
    }
}

/// Frees a value made during an evaluation without deep recursion.
fn release(v: Cow<'_, Value>) {
    if let Cow::Owned(v) = v {
        crate::json::drop_deep(v);
    }
}

impl Evaluator for JsonMatch {
    fn name(&self) -> &str {
        "json_match"
    }

    fn inputs(&self) -> &[InputSpec] {
        INPUTS
    }

    fn evaluate(&self, input: &EvalInput<'_>) -> Result<Vec<Score>, EvalError> {
        let mut reference = reference_value(input.require("reference")?);
        let raw = input.require("output")?;
        let mut extraction = None;
        let mut output = match raw {
            Value::String(text)
                if crate::json::is_container(&reference) || self.preset.is_some() =>
            {
                match extract_json(text, &self.extract) {
                    Ok(x) => {
                        extraction = Some(x.metadata());
                        Cow::Owned(x.value)
                    }
                    Err(e) => {
                        let s = self.no_json(&reference, &e.to_string());
                        release(reference);
                        return Ok(vec![s]);
                    }
                }
            }
            other => Cow::Borrowed(other),
        };
        if self.preset == Some(Preset::ToolCalls) {
            let canonical = tool_calls::canonical(&reference).map_err(|reason| {
                EvalError::InvalidInput { input: String::from("reference"), reason }
            })?;
            release(std::mem::replace(&mut reference, Cow::Owned(canonical)));
            match tool_calls::canonical(&output) {
                Ok(v) => release(std::mem::replace(&mut output, Cow::Owned(v))),
                Err(e) => {
                    let s = self.no_json(&reference, &e);
                    release(reference);
                    release(output);
                    return Ok(vec![s]);
                }
            }
        }
        let tool_calls = self.preset == Some(Preset::ToolCalls);
        // Call counts come from the failed records, so keep those at least.
        let keep = if tool_calls && self.keep == Keep::None { Keep::Failed } else { self.keep };
        let c = self.compare_values(&output, &reference, keep);
        let calls = tool_calls.then(|| call_counts(&c.records, &output, &reference));
        let mut s = self.score(c, extraction);
        if let Some(calls) = calls {
            s = s.with_meta("calls", calls);
            if self.keep == Keep::None {
                s.details.clear();
            }
        }
        release(output);
        release(reference);
        Ok(vec![s])
    }

    fn warnings(&self) -> Vec<String> {
        self.unmatched_selectors()
            .into_iter()
            .map(|s| format!("json_match: rule selector `{s}` matched nothing"))
            .collect()
    }
}

impl JsonMatch {
    /// The score of an output with no usable JSON: every reference field
    /// is missing.
    fn no_json(&self, reference: &Value, why: &str) -> Score {
        let fields = crate::json::leaves(reference).max(1);
        Score::new("json_match", Some(0.0))
            .with_label("no_json")
            .with_explanation(format!("No JSON found in the output: {why}"))
            .with_meta("precision", 0.0)
            .with_meta("recall", 0.0)
            .with_meta("f1", 0.0)
            .with_meta("fields", serde_json::json!({"matched": 0, "partial": 0, "wrong": 0, "missing": fields, "extra": 0}))
    }
}

/// Call-level counts for the tool_calls preset, from the failed records.
fn call_counts(records: &[engine::Record], output: &Value, reference: &Value) -> Value {
    let top = |o: crate::Outcome| {
        records
            .iter()
            .filter(|r| r.outcome == o && r.path.starts_with("$[") && !r.path[2..].contains('.'))
            .count()
    };
    let missing = top(crate::Outcome::Missing);
    let extra = top(crate::Outcome::Extra);
    let args_extra = records
        .iter()
        .filter(|r| r.outcome == crate::Outcome::Extra && r.path.contains("].arguments."))
        .count();
    let n_ref = reference.as_array().map_or(0, Vec::len);
    let n_out = output.as_array().map_or(0, Vec::len);
    serde_json::json!({
        "expected": n_ref, "output": n_out, "paired": n_ref.saturating_sub(missing),
        "missing": missing, "hallucinated": extra, "hallucinated_arguments": args_extra
    })
}
