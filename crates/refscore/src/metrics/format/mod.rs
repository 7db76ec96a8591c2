//! `format`: deterministic structural checks on the output.
//!
//! Each sub-check is enabled by its option: `length`, `json_validity`,
//! `json_schema`, `markdown_structure`, `required_fields`,
//! `forbidden_content`, `regex_match`. A sub-check passes when every one
//! of its assertions passes. The score is passed sub-checks / enabled
//! sub-checks, the label `pass` when all passed and `fail` otherwise.
//! Every assertion is a [`Detail`](crate::detail::Detail); see
//! `docs/metrics.md` (section `format`) for the exact rules.

mod json_checks;
mod length;
mod markdown;
mod regex_check;
mod schema_infer;
mod terms;

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::BuildContext;
use super::options::Opts;
use super::registry::{MetricSpec, OptionSpec, OptionType};
use crate::detail::{Detail, push_failure_lines};
use crate::error::{ConfigError, EvalError};
use crate::evaluator::{EvalInput, Evaluation, Evaluator, InputSpec, InputType};
use crate::extract::{ExtractError, ExtractOptions, Extracted, Method, extract_json};
use crate::score::{Direction, Kind, Score};

/// The declaration of `format`.
pub const SPEC: MetricSpec = MetricSpec {
    name: "format",
    description: "length, JSON validity, JSON Schema, Markdown structure, required/forbidden terms, regex",
    inputs: &[
        InputSpec::required("output", InputType::Text, "the model's answer"),
        InputSpec::optional(
            "reference",
            InputType::Text,
            "the expected answer (for relative length)",
        ),
        InputSpec::optional("schema", InputType::Json, "a JSON Schema for this row"),
    ],
    options: &[
        OptionSpec::new(
            "length",
            OptionType::Object,
            None,
            "length limits: min, max, unit (chars or words), tolerance",
        ),
        OptionSpec::new(
            "json_validity",
            OptionType::Bool,
            Some("false"),
            "the output must hold a JSON document",
        ),
        OptionSpec::new(
            "json_schema",
            OptionType::FileOrValue,
            None,
            "a JSON Schema (file or inline), or infer: true from the reference",
        ),
        OptionSpec::new(
            "markdown_structure",
            OptionType::Object,
            None,
            "Markdown rules: headings, lists, code blocks, tables",
        ),
        OptionSpec::new("required_fields", OptionType::List, None, "terms the output must contain"),
        OptionSpec::new(
            "forbidden_content",
            OptionType::List,
            None,
            "terms the output must not contain",
        ),
        OptionSpec::new(
            "regex_match",
            OptionType::FileOrValue,
            None,
            "patterns the output must (or must not) match",
        ),
        OptionSpec::new(
            "strict",
            OptionType::Bool,
            Some("false"),
            "JSON checks: only a whole-text document counts",
        ),
        OptionSpec::new(
            "pick",
            OptionType::Choice(&["first", "last", "only"]),
            Some("first"),
            "JSON checks: which document when there are several",
        ),
        OptionSpec::new(
            "repair",
            OptionType::Bool,
            Some("false"),
            "JSON checks: close a document cut off at the end",
        ),
    ],
    json: false,
    kind: Kind::Code,
    direction: Direction::Maximize,
    threshold: Some(1.0),
    extra_scores: &[],
    example: "- metric: format
  options: {json_validity: true, length: {max: 200, unit: words}}",
    build: |o, ctx| Ok(Box::new(Format::from_options(o, ctx)?) as Box<dyn Evaluator>),
};

/// The format metric, built once from its options.
#[derive(Debug)]
pub struct Format {
    length: Option<length::Length>,
    json_validity: bool,
    json_schema: Option<json_checks::JsonSchema>,
    markdown: Option<markdown::Markdown>,
    required: Option<terms::Terms>,
    forbidden: Option<terms::Terms>,
    regex: Option<regex_check::RegexCheck>,
    extract: ExtractOptions,
}

/// A sub-check option: absent/`false`, `true`, or a value to read.
pub(super) enum Setting<'a> {
    /// Not enabled.
    Off,
    /// Enabled with defaults.
    On,
    /// Enabled with this configuration.
    With(&'a Value),
}

impl<'a> Setting<'a> {
    fn of(v: Option<&'a Value>) -> Self {
        match v {
            None | Some(Value::Null | Value::Bool(false)) => Setting::Off,
            Some(Value::Bool(true)) => Setting::On,
            Some(other) => Setting::With(other),
        }
    }
}

/// The error for a sub-check option that has the wrong shape.
pub(super) fn bad(option: &str, message: impl Into<String>) -> ConfigError {
    ConfigError::invalid(format!("metric `format`, option `{option}`"), message)
}

/// The JSON document of the output, borrowed when the output already is JSON.
pub(super) struct Doc<'a> {
    value: Cow<'a, Value>,
    meta: Value,
}

impl Doc<'_> {
    /// The document.
    pub(super) fn value(&self) -> &Value {
        &self.value
    }
}

impl Format {
    /// Builds the metric from its options; file paths resolve with `ctx`.
    ///
    /// # Errors
    /// An unknown option, a malformed sub-check option, an unreadable or
    /// invalid schema, a rejected regex, or no sub-check enabled.
    pub fn from_options(
        options: &Map<String, Value>,
        ctx: &BuildContext,
    ) -> Result<Self, ConfigError> {
        let o = Opts::for_metric(&SPEC, options)?;
        let f = Format {
            length: length::Length::from_setting(Setting::of(o.value("length")))?,
            json_validity: o.bool("json_validity", false)?,
            json_schema: json_checks::JsonSchema::from_setting(
                Setting::of(o.value("json_schema")),
                ctx,
            )?,
            markdown: markdown::Markdown::from_setting(Setting::of(o.value("markdown_structure")))?,
            required: terms::Terms::from_setting(
                "required_fields",
                Setting::of(o.value("required_fields")),
            )?,
            forbidden: terms::Terms::from_setting(
                "forbidden_content",
                Setting::of(o.value("forbidden_content")),
            )?,
            regex: regex_check::RegexCheck::from_setting(Setting::of(o.value("regex_match")))?,
            extract: ExtractOptions {
                strict: o.bool("strict", false)?,
                pick: super::json_metric::pick_option(&o)?,
                repair: o.bool("repair", false)?,
            },
        };
        o.finish()?;
        if f.enabled() == 0 {
            return Err(ConfigError::invalid(
                "metric `format`",
                "no sub-check enabled (enable one of length, json_validity, json_schema, \
                 markdown_structure, required_fields, forbidden_content, regex_match)",
            ));
        }
        Ok(f)
    }

    fn enabled(&self) -> usize {
        [
            self.length.is_some(),
            self.json_validity,
            self.json_schema.is_some(),
            self.markdown.is_some(),
            self.required.is_some(),
            self.forbidden.is_some(),
            self.regex.is_some(),
        ]
        .iter()
        .filter(|&&on| on)
        .count()
    }

    /// The output's JSON document, extracted from text when it is text.
    fn document<'a>(&self, output: &'a Value, text: &str) -> Result<Doc<'a>, ExtractError> {
        if let Value::String(_) = output {
            let e = extract_json(text, &self.extract)?;
            let meta = e.metadata();
            return Ok(Doc { value: Cow::Owned(e.value), meta });
        }
        let whole = Extracted {
            value: Value::Null,
            method: Method::Whole,
            start: 0,
            end: text.len(),
            candidates: 1,
            repaired: false,
            duplicate_keys: None,
        };
        Ok(Doc { value: Cow::Borrowed(output), meta: whole.metadata() })
    }
}

/// Text of an input: a string as is, any other value as compact JSON.
pub(super) fn text_of(v: &Value) -> Cow<'_, str> {
    match v {
        Value::String(s) => Cow::Borrowed(s),
        other => Cow::Owned(crate::json::compact(other)),
    }
}

impl Evaluator for Format {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn inputs(&self) -> &[InputSpec] {
        SPEC.inputs
    }

    fn compute(&self, inp: &EvalInput) -> Result<Evaluation, EvalError> {
        let output = inp.require("output")?;
        let text = text_of(output);
        let mut details: Vec<Detail> = Vec::new();
        let mut checks = Map::new();
        let mut meta = Map::new();
        let mut record = |name: &str, ds: Vec<Detail>, details: &mut Vec<Detail>| {
            checks.insert(name.to_owned(), Value::Bool(ds.iter().all(|d| d.passed)));
            details.extend(ds);
        };
        if let Some(l) = &self.length {
            let reference = inp.get("reference").filter(|v| !v.is_null());
            record("length", l.check(&text, reference)?, &mut details);
        }
        if self.json_validity || self.json_schema.is_some() {
            let doc = self.document(output, &text);
            meta.insert(
                "extraction".into(),
                match &doc {
                    Ok(d) => d.meta.clone(),
                    Err(e) => serde_json::json!({ "error": e.to_string() }),
                },
            );
            if self.json_validity {
                record("json_validity", json_checks::validity(&doc), &mut details);
            }
            let result = self.json_schema.as_ref().map(|s| s.check(doc.as_ref().ok(), inp));
            if let Ok(Doc { value: Cow::Owned(v), .. }) = doc {
                crate::json::drop_deep(v);
            }
            if let Some(r) = result {
                record("json_schema", r?, &mut details);
            }
        }
        if let Some(m) = &self.markdown {
            record("markdown_structure", m.check(&text), &mut details);
        }
        if let Some(t) = &self.required {
            record("required_fields", t.check(&text, true), &mut details);
        }
        if let Some(t) = &self.forbidden {
            record("forbidden_content", t.check(&text, false), &mut details);
        }
        if let Some(r) = &self.regex {
            record("regex_match", r.check(&text), &mut details);
        }
        let enabled = checks.len();
        let passed = checks.values().filter(|v| v.as_bool() == Some(true)).count();
        #[allow(clippy::cast_precision_loss)]
        let score = if enabled == 0 { 0.0 } else { passed as f64 / enabled as f64 };
        // Sub-checks past their limit of details each closed them with a
        // `+ N more` entry: one closes the score's.
        crate::metric_result::close_more(&mut details);
        let mut explanation = format!("Format: {passed}/{enabled} sub-checks passed");
        push_failure_lines(&mut explanation, &details);
        let mut s = Score::new(SPEC.name, Some(score))
            .with_label(if passed == enabled { "pass" } else { "fail" })
            .with_explanation(explanation)
            .with_meta("checks", Value::Object(checks))
            .with_meta("passed", passed)
            .with_meta("enabled", enabled);
        s.metadata.extend(meta);
        s.details = details;
        Ok(Evaluation::one(s))
    }
}

#[cfg(test)]
mod tests;
