//! The rules of json_match: a rules file (TOML, YAML or JSON) compiled into
//! per-path [`NodeRule`] overrides.
//!
//! ```yaml
//! defaults:
//!   array: assignment          # ordered | unordered | by_key | assignment | auto
//!   min_similarity: 0.5       # pairs at least this similar are plausible
//!   identity_pairing: true    # so are pairs agreeing on an identifying field
//!   absent_is_null: true
//!   empty_string_is_null: false
//!   extra_keys: penalize       # or ignore
//!   normalize: [trim]
//!   compare: exact             # comparator for every leaf without a rule
//! rules:
//!   - path: $.line_items
//!     array: by_key
//!     keys: [sku]
//!     exact_keys: false        # leftovers pair by similarity (key typos)
//!   - path: $.line_items[*].unit_price
//!     compare: {type: numeric, abs_tol: 0.01}
//!     weight: 2
//!   - path: $..notes
//!     ignore: true
//! ```
//!
//! A rule applies to the nodes its selector selects; when several rules
//! select a node, later rules override earlier ones field by field.
//!
//! Two kinds of rules ask a suite's judge (see [`super::field_judge`]):
//! `compare: {type: embedding, threshold, floor, judge}` and
//! `judge: NAME` with `criterion` and `judge_floor`.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use serde::Deserialize;
use serde_json::Value;

use super::comparators::Comparator;
use super::field_rule::{EmbeddingRule, FieldRule, JudgeRule};
use super::selector::Selector;
use crate::engine::{Align, Cost, NodeRule, Pairing};
use crate::error::ConfigError;
use crate::normalize::Normalizer;
use crate::path::Seg;

/// Default least similarity for two array elements to be paired.
pub(crate) const DEFAULT_MIN_SIMILARITY: f64 = 0.5;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RulesFile {
    /// Read as a [`Spec`] apart, so that its errors name `defaults`.
    #[serde(default)]
    defaults: Option<Value>,
    #[serde(default)]
    rules: Vec<Value>,
}

/// Fields shared by `defaults` and each rule.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Spec {
    #[serde(default)]
    path: Option<String>,
    ignore: Option<bool>,
    weight: Option<f64>,
    array: Option<String>,
    keys: Option<Vec<String>>,
    min_similarity: Option<f64>,
    identity_pairing: Option<bool>,
    exact_keys: Option<bool>,
    compare: Option<Value>,
    normalize: Option<Vec<String>>,
    absent_is_null: Option<bool>,
    empty_string_is_null: Option<bool>,
    extra_keys: Option<String>,
    optional: Option<bool>,
    judge: Option<String>,
    criterion: Option<String>,
    judge_floor: Option<f64>,
}

/// What one rule sets.
#[derive(Debug, Clone, Default)]
struct Patch {
    ignore: Option<bool>,
    weight: Option<f64>,
    align: Option<u16>,
    absent_is_null: Option<bool>,
    empty_string_is_null: Option<bool>,
    extra: Option<Cost>,
    comparator: Option<u16>,
    normalize: Option<u16>,
    optional: Option<bool>,
    /// `Some(Some(i))`: `compare: embedding` (embedding rule `i`);
    /// `Some(None)`: another comparator, which ends an earlier embedding.
    embedding: Option<Option<u16>>,
    /// The judge rule asked for unresolved pairs.
    judge: Option<u16>,
}

impl Patch {
    fn apply_field(&self, f: &mut FieldRule) {
        if let Some(e) = self.embedding {
            f.embedding = e;
        }
        if self.judge.is_some() {
            f.judge = self.judge;
        }
    }

    fn apply(&self, r: &mut NodeRule) {
        if let Some(v) = self.ignore {
            r.ignore = v;
        }
        if let Some(v) = self.weight {
            r.weight = Some(v);
        }
        if self.align.is_some() {
            r.align = self.align;
        }
        if self.absent_is_null.is_some() {
            r.absent_is_null = self.absent_is_null;
        }
        if self.empty_string_is_null.is_some() {
            r.empty_string_is_null = self.empty_string_is_null;
        }
        if self.extra.is_some() {
            r.extra = self.extra;
        }
        if self.comparator.is_some() {
            r.comparator = self.comparator;
        }
        if self.normalize.is_some() {
            r.normalize = self.normalize;
        }
        if let Some(v) = self.optional {
            r.optional = v;
        }
    }
}

/// Compiled rules: immutable but for the record of which selectors ever
/// matched, kept with atomics so one scorer serves many threads.
#[derive(Debug, Default)]
pub(crate) struct CompiledRules {
    rules: Vec<(Selector, Patch)>,
    hits: Vec<AtomicBool>,
    /// Base rule from `defaults`.
    pub(crate) base: NodeRule,
    /// The default array alignment.
    pub(crate) default_align: Option<Align>,
    pub(crate) aligns: Vec<Align>,
    pub(crate) comparators: Vec<Comparator>,
    pub(crate) normalizers: Vec<Vec<Normalizer>>,
    /// Embedding rules, referred to by [`FieldRule::embedding`].
    pub(crate) embeddings: Vec<EmbeddingRule>,
    /// Judge rules, referred to by [`FieldRule::judge`].
    pub(crate) judges: Vec<JudgeRule>,
    /// The field judges `defaults` sets.
    pub(crate) base_field: FieldRule,
    /// The comparator of leaves no rule gives one: `auto`, or `default`
    /// under `strict` (the metric sets it).
    pub(crate) fallback: Comparator,
}

impl CompiledRules {
    /// Whether any per-path rule exists.
    pub(crate) fn has_rules(&self) -> bool {
        !self.rules.is_empty()
    }

    /// The rule for the node at `path`.
    pub(crate) fn at(&self, path: &[Seg<'_>]) -> NodeRule {
        if self.rules.is_empty() {
            return self.base;
        }
        let mut r = self.base;
        for ((sel, patch), hit) in self.rules.iter().zip(&self.hits) {
            if sel.matches(path) {
                patch.apply(&mut r);
                if !hit.load(Ordering::Relaxed) {
                    hit.store(true, Ordering::Relaxed);
                }
            }
        }
        r
    }

    /// Whether any rule embeds or asks a judge.
    pub(crate) fn has_field_judges(&self) -> bool {
        !self.embeddings.is_empty() || !self.judges.is_empty()
    }

    /// The field judges of the node at `path` (later rules override
    /// earlier ones); unlike [`CompiledRules::at`], no selector is marked
    /// as matched.
    pub(crate) fn field_at(&self, path: &[Seg<'_>]) -> FieldRule {
        let mut f = self.base_field;
        for (sel, patch) in &self.rules {
            if (patch.embedding.is_some() || patch.judge.is_some()) && sel.matches(path) {
                patch.apply_field(&mut f);
            }
        }
        f
    }

    /// Selectors that have not matched any node so far.
    pub(crate) fn unmatched(&self) -> Vec<String> {
        self.rules
            .iter()
            .zip(&self.hits)
            .filter(|(_, h)| !h.load(Ordering::Relaxed))
            .map(|((s, _), _)| s.text().to_owned())
            .collect()
    }

    /// Adds a rule programmatically (presets).
    pub(crate) fn push(&mut self, selector: &str, spec: &Value) -> Result<(), ConfigError> {
        let n = self.rules.len() + 1;
        let spec: Spec = serde_json::from_value(spec.clone())
            .map_err(|e| rule_err(n, selector, &e.to_string()))?;
        let sel = Selector::parse(selector).map_err(|e| rule_err(n, selector, &e))?;
        let origin = format!("rule {n} (`{selector}`)");
        let patch = self.patch(&spec, &origin).map_err(|e| rule_err(n, selector, &e))?;
        self.rules.push((sel, patch));
        self.hits.push(AtomicBool::new(false));
        Ok(())
    }

    /// Puts rules before all others, so that later rules override them;
    /// `quiet` ones are never reported as matching nothing.
    pub(crate) fn prepend(
        &mut self,
        rules: &[(&str, Value)],
        quiet: bool,
    ) -> Result<(), ConfigError> {
        let mut front = Vec::with_capacity(rules.len());
        for (n, (selector, spec)) in rules.iter().enumerate() {
            let parsed: Spec = serde_json::from_value(spec.clone())
                .map_err(|e| rule_err(n + 1, selector, &e.to_string()))?;
            let sel = Selector::parse(selector).map_err(|e| rule_err(n + 1, selector, &e))?;
            let origin = format!("rule {} (`{selector}`)", n + 1);
            let patch = self.patch(&parsed, &origin).map_err(|e| rule_err(n + 1, selector, &e))?;
            front.push((sel, patch));
        }
        let hits: Vec<AtomicBool> = front.iter().map(|_| AtomicBool::new(quiet)).collect();
        self.rules.splice(0..0, front);
        self.hits.splice(0..0, hits);
        Ok(())
    }

    fn patch(&mut self, s: &Spec, origin: &str) -> Result<Patch, String> {
        let mut p = Patch {
            ignore: s.ignore,
            weight: s.weight,
            absent_is_null: s.absent_is_null,
            empty_string_is_null: s.empty_string_is_null,
            optional: s.optional,
            ..Patch::default()
        };
        if let Some(w) = s.weight
            && (!w.is_finite() || w < 0.0)
        {
            return Err(format!("weight must be a finite number ≥ 0, got {w}"));
        }
        if let Some(a) = align(s)? {
            self.aligns.push(a);
            p.align = Some(index(self.aligns.len() - 1)?);
        } else if s.keys.is_some()
            || s.min_similarity.is_some()
            || s.identity_pairing.is_some()
            || s.exact_keys.is_some()
        {
            return Err(String::from(
                "`keys`, `min_similarity`, `identity_pairing` and `exact_keys` need `array`",
            ));
        }
        if let Some(e) = &s.extra_keys {
            p.extra = Some(match e.as_str() {
                "ignore" => Cost::Free,
                "penalize" | "penalise" => Cost::LeavesAtLeastOne,
                other => return Err(format!("extra_keys `{other}` is not `ignore` or `penalize`")),
            });
        }
        if let Some(c) = &s.compare {
            let c = match EmbeddingRule::from_spec(c, origin)? {
                Some(e) => {
                    self.embeddings.push(e);
                    p.embedding = Some(Some(index(self.embeddings.len() - 1)?));
                    // Before (and instead of) the embeddings, in array
                    // alignment: text similarity.
                    Comparator::String { threshold: None }
                }
                None => {
                    p.embedding = Some(None);
                    Comparator::from_spec(c)?
                }
            };
            self.comparators.push(c);
            p.comparator = Some(index(self.comparators.len() - 1)?);
        }
        if let Some(j) =
            JudgeRule::from_spec(s.judge.as_deref(), s.criterion.as_deref(), s.judge_floor, origin)?
        {
            self.judges.push(j);
            p.judge = Some(index(self.judges.len() - 1)?);
        }
        if let Some(ns) = &s.normalize {
            let ns = ns
                .iter()
                .map(|n| n.parse::<Normalizer>().map_err(|e| e.to_string()))
                .collect::<Result<Vec<_>, _>>()?;
            self.normalizers.push(ns);
            p.normalize = Some(index(self.normalizers.len() - 1)?);
        }
        Ok(p)
    }
}

fn index(i: usize) -> Result<u16, String> {
    u16::try_from(i).map_err(|_| String::from("too many rules (at most 65,535)"))
}

fn align(s: &Spec) -> Result<Option<Align>, String> {
    let min = s.min_similarity.unwrap_or(DEFAULT_MIN_SIMILARITY);
    if !(0.0..=1.0).contains(&min) {
        return Err(format!("min_similarity must be within [0, 1], got {min}"));
    }
    let Some(kind) = s.array.as_deref() else { return Ok(None) };
    let pairing = Pairing { min_similarity: min, identity: s.identity_pairing.unwrap_or(true) };
    if s.exact_keys.is_some() && kind != "by_key" {
        return Err(String::from("`exact_keys` needs `array: by_key`"));
    }
    Ok(Some(match kind {
        "ordered" | "positional" => Align::Positional,
        "unordered" => Align::Unordered,
        "assignment" => Align::Assignment(pairing),
        "auto" => Align::Auto(pairing),
        "by_key" => {
            let keys = s.keys.clone().unwrap_or_default();
            if keys.is_empty() {
                return Err(String::from("array `by_key` needs `keys`"));
            }
            let fallback = (!s.exact_keys.unwrap_or(false)).then_some(pairing);
            Align::ByKey { keys, fallback }
        }
        other => {
            return Err(format!(
                "array `{other}` is not one of ordered, unordered, by_key, assignment, auto"
            ));
        }
    }))
}

fn rule_err(n: usize, selector: &str, msg: &str) -> ConfigError {
    ConfigError::invalid(format!("rule {n} (`{selector}`)"), msg)
}

/// Compiles rules given as a JSON value (already read from a file or inline).
pub(crate) fn compile(value: &Value) -> Result<CompiledRules, ConfigError> {
    let file: RulesFile = serde_json::from_value(value.clone())
        .map_err(|e| ConfigError::invalid("rules", e.to_string()))?;
    let defaults: Spec = match file.defaults {
        None => Spec::default(),
        Some(d) => serde_json::from_value(d).map_err(|e| {
            // `path` is a field of a rule, not one `defaults` may have.
            ConfigError::invalid("rules defaults", e.to_string().replace("`path`, ", ""))
        })?,
    };
    let mut c = CompiledRules::default();
    if defaults.path.is_some() {
        return Err(ConfigError::invalid(
            "rules defaults",
            "`path` belongs in a rule, not in defaults",
        ));
    }
    let base = c
        .patch(&defaults, "rules defaults")
        .map_err(|e| ConfigError::invalid("rules defaults", e))?;
    base.apply_field(&mut c.base_field);
    if base.align.is_some() {
        c.default_align = c.aligns.first().cloned();
        c.aligns.clear();
    }
    let mut b = NodeRule::default();
    Patch { align: None, ..base }.apply(&mut b);
    c.base = b;
    for (n, rule) in file.rules.iter().enumerate() {
        let selector = rule.get("path").and_then(Value::as_str).unwrap_or("");
        if selector.is_empty() {
            return Err(rule_err(n + 1, "", "every rule needs a `path`"));
        }
        c.push(selector, rule).map_err(|e| match e {
            ConfigError::Invalid { message, .. } => rule_err(n + 1, selector, &message),
            other => other,
        })?;
    }
    Ok(c)
}

/// Reads a rules file: `.toml`, `.yaml`/`.yml` or `.json` by extension
/// (checked before the file is opened), at most
/// [`crate::limits::MAX_CONFIG_BYTES`] long.
pub(crate) fn read_file(path: &Path) -> Result<Value, ConfigError> {
    let file_err = |m: String| ConfigError::File { path: path.to_path_buf(), message: m };
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    if !matches!(ext.as_str(), "toml" | "yaml" | "yml" | "json") {
        return Err(file_err(format!(
            "unknown rules file extension `{ext}` (use .toml, .yaml, .yml or .json)"
        )));
    }
    let text = crate::limits::read_text(path, crate::limits::MAX_CONFIG_BYTES)?;
    match ext.as_str() {
        "toml" => {
            let v: toml::Value = toml::from_str(&text).map_err(|e| file_err(e.to_string()))?;
            serde_json::to_value(v).map_err(|e| file_err(e.to_string()))
        }
        "yaml" | "yml" => {
            serde_saphyr::from_str::<Value>(&text).map_err(|e| file_err(e.to_string()))
        }
        _ => crate::json::parse(&text).map_err(file_err),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_unknown_field_in_defaults_is_named_there() {
        let e = compile(&json!({"defaults": {"arary": "ordered"}})).unwrap_err().to_string();
        assert!(e.starts_with("rules defaults: unknown field `arary`"), "{e}");
        assert!(!e.contains("`path`"), "{e}");
        let e = compile(&json!({"defaults": {"path": "$.a"}})).unwrap_err().to_string();
        assert!(e.contains("`path` belongs in a rule, not in defaults"), "{e}");
        let e = compile(&json!({"rules": [{"path": "$", "arary": "ordered"}]})).unwrap_err();
        assert!(e.to_string().contains("unknown field `arary`"), "{e}");
    }

    #[test]
    fn later_rules_override() {
        let c = compile(&json!({
            "defaults": {"absent_is_null": true, "array": "ordered"},
            "rules": [
                {"path": "$..price", "compare": {"type": "numeric", "abs_tol": 0.01}, "weight": 2},
                {"path": "$.items[*].price", "weight": 3},
                {"path": "$.never", "ignore": true}
            ]
        }))
        .unwrap();
        assert_eq!(c.default_align, Some(Align::Positional));
        let r = c.at(&[Seg::Key("items"), Seg::Index(0), Seg::Key("price")]);
        assert_eq!(r.weight, Some(3.0));
        assert_eq!(r.comparator, Some(0));
        assert_eq!(r.absent_is_null, Some(true));
        assert_eq!(c.unmatched(), vec![String::from("$.never")]);
    }

    #[test]
    fn errors_name_the_rule() {
        let e = compile(&json!({"rules": [{"path": "$.a", "compare": "fuzzy"}]}))
            .unwrap_err()
            .to_string();
        assert!(e.contains("rule 1 (`$.a`)"), "{e}");
        let e = compile(&json!({"rules": [{"path": "a.b"}]})).unwrap_err().to_string();
        assert!(e.contains("rule 1"), "{e}");
        let e = compile(&json!({"rules": [{"path": "$.a", "colour": 1}]})).unwrap_err().to_string();
        assert!(e.contains("colour"), "{e}");
        let e = compile(&json!({"rules": [{"path": "$.a", "array": "by_key"}]}))
            .unwrap_err()
            .to_string();
        assert!(e.contains("keys"), "{e}");
        assert!(compile(&json!({"rules": [{"path": "$.a", "normalize": ["upper"]}]})).is_err());
        assert!(compile(&json!({"rules": [{"path": "$.a", "weight": -1}]})).is_err());
        assert!(compile(&json!({"oops": 1})).is_err());
    }
}
