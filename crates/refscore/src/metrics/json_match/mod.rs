//! `json_match`: field-level comparison of structured extractions.
//!
//! Arrays of objects are matched regardless of order (best assignment by
//! similarity, or by key fields), rules per path set comparators,
//! normalizers, tolerances, weights and null policies, and every leaf of
//! both documents ends as `match`, `partial`, `wrong`, `missing` or
//! `extra`. The score is the weighted share of credit earned; the
//! metadata carries field-level precision, recall and F1. A model's raw
//! text output is searched for its JSON first. Rules may also compare a
//! field by embeddings or ask a judge about the pairs the deterministic
//! comparators leave unresolved (module `field_judge`). See
//! `docs/json_match.md`.

pub mod comparators;
mod field_judge;
mod field_rule;
mod rules;
mod schema_rules;
mod selector;
mod tool_calls;

use std::sync::{Mutex, PoisonError};

use serde_json::{Map, Value};

use self::comparators::{Comparator, Normalizer, NullPolicy};
use self::field_judge::{FieldJudges, Settled};
use self::rules::{CompiledRules, DEFAULT_MIN_SIMILARITY};
use super::json_metric::{JsonMetric, JsonSettings, Pair, Prepared};
use super::options::Opts;
use super::registry::{MetricSpec, OptionSpec, OptionType};
use crate::decode::Method;
use crate::detail::{Detail, Outcome, push_failure_lines};
use crate::engine::{
    self, Absent, Aggregate, Align, Comparison, Cost, Empty, Keep, KeySet, Leaf, NodeRule, Pairing,
    Policy, Rules,
};
use crate::error::{ConfigError, EvalError};
use crate::evaluator::{EvalInput, Evaluation, Evaluator, InputSpec, TreeInput};
use crate::json::with_values;
use crate::metrics::BuildContext;
use crate::number::{push_fixed3, push_integer};
use crate::path::Seg;
use crate::score::{Direction, Kind, Score};
use crate::tree::{Node, Tree};

/// Deepest nesting json_match compares under path rules: a rule lookup
/// reads the whole path, so deeper documents would cost time quadratic in
/// their depth. Without rules, any depth is compared, in linear time.
pub const MAX_RULE_DEPTH: usize = 1_000;

/// The declaration of `json_match`.
pub const SPEC: MetricSpec = MetricSpec {
    name: "json_match",
    description: "field-level credit with order-free arrays and per-path rules; precision, recall and F1 of fields",
    inputs: crate::metrics::json_metric::PAIR,
    options: &[
        OptionSpec::new(
            "rules",
            OptionType::FileOrValue,
            None,
            "per-path rules: a rules file (YAML, TOML, JSON) or the rules inline (docs/json_match.md)",
        ),
        OptionSpec::new(
            "rules_from_schema",
            OptionType::FileOrValue,
            None,
            "derive comparators from a JSON Schema (a file or the schema inline); explicit rules override them",
        ),
        OptionSpec::new(
            "strict",
            OptionType::Bool,
            Some("false"),
            "compare raw values: no zero-config readings (numbers as text, dates, free text), absent is not null",
        ),
        OptionSpec::new(
            "preset",
            OptionType::Choice(&["tool_calls"]),
            None,
            "tool_calls: lists of tool calls in OpenAI or Anthropic shape, paired by name and arguments",
        ),
    ],
    json: true,
    kind: Kind::Code,
    direction: Direction::Maximize,
    threshold: Some(1.0),
    extra_scores: &[],
    example: "- metric: json_match\n  options:\n    rules:   # or a rules file: rules.yaml\n      rules:\n        - {path: $.line_items, array: by_key, keys: [sku]}\n        - {path: $.total, compare: {type: numeric, abs_tol: 0.01}}\n  threshold: 0.95",
    build: |o, ctx| Ok(Box::new(JsonMatch::from_options(o, ctx)?) as Box<dyn Evaluator>),
};

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
    settings: JsonSettings,
    preset: Option<Preset>,
    /// The judges of embedding and judge rules, when the rules have any.
    judges: Option<FieldJudges>,
}

impl Default for JsonMatch {
    fn default() -> Self {
        JsonMatch::assemble(CompiledRules::default(), None, JsonSettings::default(), false)
    }
}

impl JsonMatch {
    /// From options: `rules` (a rules file path, or the rules inline),
    /// `preset` (`tool_calls`) and the shared JSON options.
    ///
    /// # Errors
    /// Unknown options, an unreadable rules file, or invalid rules (the
    /// error names the rule).
    pub fn from_options(
        options: &Map<String, Value>,
        ctx: &BuildContext,
    ) -> Result<Self, ConfigError> {
        let o = Opts::for_metric(&SPEC, options)?;
        let preset = match o.string("preset")?.as_deref() {
            None => None,
            Some("tool_calls") => Some(Preset::ToolCalls),
            Some(other) => {
                return Err(
                    o.error("preset", format!("unknown preset `{other}` (known: tool_calls)"))
                );
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
                return Err(
                    o.error("rules", format!("expected a file path or an object, got {other}"))
                );
            }
        };
        let strict = o.bool("strict", false)?;
        let settings = JsonSettings::from_opts(&o, ctx)?;
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
        if let Some((schema, path)) = match o.value("rules_from_schema") {
            None => None,
            Some(Value::String(p)) => {
                let p = ctx.resolve(p);
                Some((rules::read_file(&p)?, Some(p)))
            }
            Some(v @ Value::Object(_)) => Some((v.clone(), None)),
            Some(other) => {
                return Err(o.error(
                    "rules_from_schema",
                    format!("expected a file path or a schema object, got {other}"),
                ));
            }
        } {
            let in_file = |e: ConfigError| match &path {
                Some(p) => e.in_file(p),
                None => e,
            };
            let derived = schema_rules::derive(&schema)
                .map_err(|m| in_file(ConfigError::invalid("rules_from_schema", m)))?;
            let derived: Vec<(&str, Value)> =
                derived.iter().map(|(s, v)| (s.as_str(), v.clone())).collect();
            // Before the rules file's, so that explicit rules override them;
            // a derived rule that matches nothing is no warning.
            compiled.prepend(&derived, true).map_err(in_file)?;
        }
        if preset == Some(Preset::ToolCalls) {
            // Preset rules go first so that the user's rules override them.
            compiled.prepend(&tool_calls::preset_rules(), false)?;
        }
        let judges = FieldJudges::build(&compiled, ctx).map_err(|e| {
            match rules_value.as_ref().and_then(|(_, path)| path.as_deref()) {
                Some(p) => e.in_file(p),
                None => e,
            }
        })?;
        let mut m = JsonMatch::assemble(compiled, preset, settings, strict);
        m.judges = judges;
        Ok(m)
    }

    /// The metric from compiled rules: defaults become the policy. Unless
    /// `strict`, leaves without a comparator compare as `auto`, and an
    /// absent key and an empty string equal `null` (where the rules'
    /// defaults do not say).
    fn assemble(
        mut compiled: CompiledRules,
        preset: Option<Preset>,
        settings: JsonSettings,
        strict: bool,
    ) -> Self {
        if !strict {
            let base = &mut compiled.base;
            base.absent_is_null = base.absent_is_null.or(Some(true));
            base.empty_string_is_null = base.empty_string_is_null.or(Some(true));
        }
        compiled.fallback = if strict { Comparator::Default } else { Comparator::Auto };
        let extra = compiled.base.extra.unwrap_or(Cost::LeavesAtLeastOne);
        let align = compiled.default_align.clone().unwrap_or(Align::Auto(Pairing {
            min_similarity: DEFAULT_MIN_SIMILARITY,
            identity: true,
        }));
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
        JsonMatch { rules: compiled, policy, settings, preset, judges: None }
    }

    /// Compares two JSON values (already parsed) under the rules, with the
    /// deterministic comparators only (no judge is asked: embedding rules
    /// compare as `string`, judge rules keep the comparator's verdict).
    pub fn compare_values(&self, output: &Value, reference: &Value, keep: Keep) -> Comparison {
        engine::compare(self, reference, output, None, keep, false)
    }

    /// Rule selectors that have matched no node in any evaluation so far.
    pub fn unmatched_selectors(&self) -> Vec<String> {
        self.rules.unmatched()
    }
}

impl Rules for JsonMatch {
    fn policy(&self) -> &Policy {
        &self.policy
    }

    fn leaf(&self, e: Node<'_>, a: Node<'_>, rule: &NodeRule) -> Leaf {
        self.leaf_explained(e, a, rule, &|_| false).0
    }

    /// The note of the comparator that decided a leaf: which reading made
    /// two values equal, or why it compared them as text.
    fn explain(&self, e: Node<'_>, a: Node<'_>, rule: &NodeRule) -> Option<String> {
        self.leaf_explained(e, a, rule, &|_| true).1
    }

    /// One comparator check gives the leaf and its note: a kept record's
    /// note costs no second comparison.
    fn leaf_explained(
        &self,
        e: Node<'_>,
        a: Node<'_>,
        rule: &NodeRule,
        explain: &dyn Fn(Outcome) -> bool,
    ) -> (Leaf, Option<String>) {
        let (cmp, norms, nulls) = self.leaf_rule(rule);
        if !explain(Outcome::Match)
            && cmp.matches_equal_values()
            && crate::engine::nodes_equal(e, a)
        {
            return (Leaf::MATCH, None);
        }
        let c = with_values(e, a, |e, a| cmp.check(e, a, norms, &nulls));
        let why = if explain(c.leaf.outcome) { c.note.map(|n| n.to_string()) } else { None };
        (c.leaf, why)
    }

    fn costly_leaves(&self) -> bool {
        true
    }

    /// Equal values match under the comparators a rule-free comparison
    /// uses (see [`JsonMatch::leaf_explained`]), whatever the null policy
    /// of zero config; with a rule on any path, or defaults that set more
    /// than the null policy, the walk compares leaf by leaf.
    fn equal_leaves_match(&self) -> bool {
        let base = NodeRule { absent_is_null: None, empty_string_is_null: None, ..self.rules.base };
        !self.rules.has_rules()
            && base == NodeRule::default()
            && self.leaf_rule(&self.rules.base).0.matches_equal_values()
    }

    fn report_pairs(&self) -> bool {
        true
    }

    /// Where the comparator is `auto` (zero config, unless `strict`), as
    /// numbers and dates written as text are read there.
    fn reads_json_text(&self, rule: &NodeRule) -> bool {
        matches!(self.leaf_rule(rule).0, Comparator::Auto)
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

impl JsonMetric for JsonMatch {
    fn spec(&self) -> &'static MetricSpec {
        &SPEC
    }

    fn settings(&self) -> &JsonSettings {
        &self.settings
    }

    /// An output with no usable JSON scores 0: every reference field is
    /// missing.
    fn undecodable(&self, reason: &str, reference: Option<Node<'_>>) -> Score {
        match (reason.strip_prefix("output: "), reference) {
            (Some(why), Some(r)) => no_json(r, why),
            _ => Score::invalid(SPEC.name, reason),
        }
    }

    fn prepare(&self, pair: Pair<'_>, output: Method) -> Result<Prepared, EvalError> {
        if self.rules.has_rules() {
            for (side, node) in [("output", pair.output), ("reference", pair.reference)] {
                if node.depth_exceeds(MAX_RULE_DEPTH) {
                    let why = format!(
                        "the {side} nests deeper than {MAX_RULE_DEPTH} levels; json_match with \
                         path rules compares documents up to {MAX_RULE_DEPTH} levels deep"
                    );
                    return Ok(Prepared::Score(Score::invalid(SPEC.name, why)));
                }
            }
        }
        let wants_json = pair.reference.is_container() || self.preset.is_some();
        if output == Method::String && wants_json {
            let why = "no JSON object or array found in the text";
            return Ok(Prepared::Score(no_json(pair.reference, why)));
        }
        if self.preset != Some(Preset::ToolCalls) {
            return Ok(Prepared::Compare);
        }
        let canonical = with_values(pair.output, pair.reference, |o, r| {
            (tool_calls::canonical(r), tool_calls::canonical(o))
        });
        match canonical {
            (Err(reason), _) => {
                Err(EvalError::InvalidInput { input: String::from("reference"), reason })
            }
            (Ok(r), Err(e)) => {
                let s = no_json(Tree::from_value(&r).root(), &e);
                crate::json::drop_deep(r);
                Ok(Prepared::Score(s))
            }
            (Ok(reference), Ok(output)) => Ok(Prepared::Replace { output, reference }),
        }
    }

    fn compare(&self, pair: Pair<'_>, _: Option<&Value>) -> Result<Comparison, String> {
        Ok(self.walk(pair, self.keep()))
    }

    fn present(&self, c: &Comparison, details: &[Detail], pair: Pair<'_>) -> Score {
        if let Some(why) = &c.over_limit {
            return Score::invalid(SPEC.name, why.clone());
        }
        if !(c.tally.matched.is_finite() && c.tally.total.is_finite()) {
            // Weights multiply down the tree and add up across it: past
            // f64's range the score would be a guess.
            return Score::invalid(
                SPEC.name,
                "the rules' weights multiply or add up past 1e308 (a container's weight \
                 multiplies every field under it, and the fields' weights add up): use smaller \
                 weights",
            );
        }
        if c.tally.total == 0.0 && c.counts.total() > 0 {
            // Fields were compared, and every one weighs nothing: no score
            // says anything about them (a full match would hide mistakes).
            return Score::invalid(
                SPEC.name,
                format!(
                    "every compared field weighs 0 under the rules' weights ({} compared, {} not \
                     matched): give some field a weight above 0",
                    c.counts.total(),
                    c.counts.total() - c.counts.matched
                ),
            );
        }
        let score = c.tally.ratio_or(1.0);
        let k = &c.counts;
        let (p, r, f) = (k.precision(), k.recall(), k.f1());
        let mut head = String::with_capacity(160);
        for (n, what) in [
            (k.matched, " matched, "),
            (k.partial, " partial, "),
            (k.wrong, " wrong, "),
            (k.missing, " missing, "),
            (k.extra, " extra; precision "),
        ] {
            push_integer(&mut head, n);
            head.push_str(what);
        }
        push_fixed3(&mut head, p);
        head.push_str(", recall ");
        push_fixed3(&mut head, r);
        head.push_str(", F1 ");
        push_fixed3(&mut head, f);
        push_failure_lines(&mut head, details);
        let mut s = Score::new(SPEC.name, Some(score))
            .with_label(super::similarity_label(score))
            .with_explanation(head)
            .with_meta("precision", p)
            .with_meta("recall", r)
            .with_meta("f1", f)
            .with_meta("fields", serde_json::to_value(k).unwrap_or(Value::Null));
        if self.preset == Some(Preset::ToolCalls) {
            s = s.with_meta("calls", call_counts(details, pair.output, pair.reference));
        }
        s
    }

    fn warnings(&self) -> Vec<String> {
        self.unmatched_selectors()
            .into_iter()
            .map(|s| format!("json_match: rule selector `{s}` matched nothing"))
            .collect()
    }
}

impl JsonMatch {
    /// The comparator, normalizers and null policy of a leaf under `rule`.
    fn leaf_rule(&self, rule: &NodeRule) -> (&Comparator, &[Normalizer], NullPolicy) {
        let cmp = rule
            .comparator
            .and_then(|i| self.rules.comparators.get(usize::from(i)))
            .unwrap_or(&self.rules.fallback);
        let norms = rule
            .normalize
            .and_then(|i| self.rules.normalizers.get(usize::from(i)))
            .map_or(&[][..], Vec::as_slice);
        let nulls = NullPolicy {
            absent_is_null: rule.absent_is_null.unwrap_or(false),
            empty_string_is_null: rule.empty_string_is_null.unwrap_or(false),
        };
        (cmp, norms, nulls)
    }

    /// The records a comparison keeps: the `details` option, but at least
    /// the failed ones for the tool_calls preset (call counts come from
    /// them).
    fn keep(&self) -> Keep {
        let keep = self.settings.keep;
        if self.preset == Some(Preset::ToolCalls) && keep == Keep::None {
            return Keep::Failed;
        }
        keep
    }

    /// The engine walk of a pair.
    fn walk(&self, pair: Pair<'_>, keep: Keep) -> Comparison {
        engine::compare_nodes(self, pair.reference, pair.output, None, keep, self.settings.fields)
    }
}

impl Evaluator for JsonMatch {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn inputs(&self) -> &[InputSpec] {
        SPEC.inputs
    }

    fn direction(&self) -> Direction {
        SPEC.direction
    }

    /// `llm` when a rule embeds or asks a judge.
    fn kind(&self) -> Kind {
        if self.judges.is_some() { Kind::Llm } else { SPEC.kind }
    }

    fn compute(&self, input: &EvalInput<'_>) -> Result<Evaluation, EvalError> {
        self.run(
            |m| super::json_metric::evaluate(m, input),
            |j| super::json_metric::evaluate(j, input),
        )
    }

    fn evaluate_tree(&self, input: &TreeInput<'_>) -> Result<Evaluation, EvalError> {
        self.run(
            |m| super::json_metric::evaluate_tree(m, input),
            |j| super::json_metric::evaluate_tree(j, input),
        )
    }

    fn warnings(&self) -> Vec<String> {
        JsonMetric::warnings(self)
    }
}

impl JsonMatch {
    /// Runs the JSON layer through `plain`, or through `judged` with the
    /// field judges, then adds the judges' decisions to the details.
    fn run(
        &self,
        plain: impl FnOnce(&JsonMatch) -> Result<Evaluation, EvalError>,
        judged: impl FnOnce(&Judging<'_>) -> Result<Evaluation, EvalError>,
    ) -> Result<Evaluation, EvalError> {
        let Some(judges) = &self.judges else {
            return plain(self);
        };
        let judging = Judging { m: self, judges, settled: Mutex::new(None) };
        let mut ev = judged(&judging)?;
        let settled = judging.settled.into_inner().unwrap_or_else(PoisonError::into_inner);
        if let Some(s) = settled {
            if let Some(why) = s.cancelled {
                return Err(EvalError::Failed(why));
            }
            for score in &mut ev.scores {
                s.annotate(&mut score.details);
            }
        }
        Ok(ev)
    }
}

/// One evaluation of a json_match with field judges: the walk, then the
/// judges' decisions ([`FieldJudges::settle`]), kept for the details.
struct Judging<'m> {
    m: &'m JsonMatch,
    judges: &'m FieldJudges,
    settled: Mutex<Option<Settled>>,
}

impl Rules for Judging<'_> {
    fn policy(&self) -> &Policy {
        self.m.policy()
    }

    fn leaf(&self, e: Node<'_>, a: Node<'_>, rule: &NodeRule) -> Leaf {
        self.m.leaf(e, a, rule)
    }

    fn has_rules(&self) -> bool {
        self.m.has_rules()
    }

    fn rule_at(&self, path: &[Seg<'_>]) -> NodeRule {
        self.m.rule_at(path)
    }

    fn alignment(&self, index: u16) -> &Align {
        self.m.alignment(index)
    }

    fn explain(&self, e: Node<'_>, a: Node<'_>, rule: &NodeRule) -> Option<String> {
        self.m.explain(e, a, rule)
    }

    fn leaf_explained(
        &self,
        e: Node<'_>,
        a: Node<'_>,
        rule: &NodeRule,
        explain: &dyn Fn(Outcome) -> bool,
    ) -> (Leaf, Option<String>) {
        self.m.leaf_explained(e, a, rule, explain)
    }

    fn costly_leaves(&self) -> bool {
        self.m.costly_leaves()
    }

    fn report_pairs(&self) -> bool {
        true
    }

    fn reads_json_text(&self, rule: &NodeRule) -> bool {
        self.m.reads_json_text(rule)
    }
}

impl JsonMetric for Judging<'_> {
    fn spec(&self) -> &'static MetricSpec {
        &SPEC
    }

    fn settings(&self) -> &JsonSettings {
        &self.m.settings
    }

    fn undecodable(&self, reason: &str, reference: Option<Node<'_>>) -> Score {
        let mut s = self.m.undecodable(reason, reference);
        s.kind = Kind::Llm;
        field_judge::Stats::default().annotate(s)
    }

    fn prepare(&self, pair: Pair<'_>, output: Method) -> Result<Prepared, EvalError> {
        self.m.prepare(pair, output)
    }

    fn compare(&self, pair: Pair<'_>, _: Option<&Value>) -> Result<Comparison, String> {
        let keep = self.m.keep();
        // The judges decide failed leaves: keep those records at least.
        let mut c = self.m.walk(pair, if keep == Keep::None { Keep::Failed } else { keep });
        let settled = with_values(pair.reference, pair.output, |r, o| {
            self.judges.settle(&self.m.rules, &mut c, r, o)
        });
        match keep {
            Keep::None => {
                // Nothing is reported: nor the records past the limit.
                c.records.clear();
                c.omitted = 0;
                c.omitted_failed = 0;
            }
            Keep::Failed => c.records.retain(|r| r.outcome != Outcome::Match),
            Keep::All => {}
        }
        *self.settled.lock().unwrap_or_else(PoisonError::into_inner) = Some(settled);
        Ok(c)
    }

    fn present(&self, c: &Comparison, details: &[Detail], pair: Pair<'_>) -> Score {
        let guard = self.settled.lock().unwrap_or_else(PoisonError::into_inner);
        let mut details = details.to_vec();
        let stats = guard.as_ref().map(|s| {
            s.annotate(&mut details);
            s.stats
        });
        let mut s = self.m.present(c, &details, pair);
        s.kind = Kind::Llm;
        stats.unwrap_or_default().annotate(s)
    }

    fn warnings(&self) -> Vec<String> {
        JsonMetric::warnings(self.m)
    }
}

/// The score of an output with no usable JSON: every reference field is
/// missing.
fn no_json(reference: Node<'_>, why: &str) -> Score {
    let fields = reference.leaves().max(1);
    Score::new(SPEC.name, Some(0.0))
        .with_label("no_json")
        .with_explanation(format!("No JSON found in the output: {why}"))
        .with_meta("precision", 0.0)
        .with_meta("recall", 0.0)
        .with_meta("f1", 0.0)
        .with_meta(
            "fields",
            serde_json::json!({"matched": 0, "partial": 0, "wrong": 0, "missing": fields, "extra": 0}),
        )
}

/// Call-level counts for the tool_calls preset, from the failed details.
fn call_counts(details: &[Detail], output: Node<'_>, reference: Node<'_>) -> Value {
    let paths =
        |o: Outcome| details.iter().filter(move |d| d.outcome == o).filter_map(|d| d.check.path());
    // A whole call: a path of one element step. An argument: the
    // `arguments` member of a call, then the argument's own step.
    let top = |o: Outcome| {
        paths(o).filter(|p| p.0.len() == 1 && p.segs().all(|s| s.index().is_some())).count()
    };
    let missing = top(Outcome::Missing);
    let extra = top(Outcome::Extra);
    let args_extra = paths(Outcome::Extra)
        .filter(|p| {
            let segs: Vec<Seg<'_>> = p.segs().collect();
            segs.len() >= 3 && segs[0].index().is_some() && segs[1] == Seg::Key("arguments")
        })
        .count();
    let n_ref = if reference.is_array() { reference.len() } else { 0 };
    let n_out = if output.is_array() { output.len() } else { 0 };
    serde_json::json!({
        "expected": n_ref, "output": n_out, "paired": n_ref.saturating_sub(missing),
        "missing": missing, "hallucinated": extra, "hallucinated_arguments": args_extra
    })
}
