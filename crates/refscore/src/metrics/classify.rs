//! `classify`: an LLM judge that picks one label among choices.
//!
//! A prompt template's `{placeholders}` are the evaluator's inputs (each
//! required, mapped from the row as usual). The judge is asked for its
//! label (and, with `explanation: true`, a short rationale) as a forced
//! tool call whose parameters are a JSON Schema (label enum +
//! explanation); a server that rejects tools is asked again with
//! `response_format: json_schema`, then for plain text, and the judge
//! remembers what the server accepts. A reply is read from a tool call, a
//! content that is wholly one JSON object, or else text whose first line
//! is exactly one label ([`read_said`]): JSON inside prose never overrides
//! that first line. A label outside the choices, a reply that names none,
//! or a judgement object that repeats a key is a failed evaluation with
//! the raw reply in the error: never a guessed score.
//!
//! `choices` is a list of labels (the score is then empty: a label-only
//! judgement), a map label → score, or label → `{score, description}`
//! (descriptions are given to the judge).

use std::sync::Arc;

use serde_json::{Map, Value, json};
use unicode_normalization::UnicodeNormalization;

use super::BuildContext;
use super::options::Opts;
use super::registry::{MetricSpec, OptionSpec, OptionType};
use crate::error::{ConfigError, EvalError};
use crate::evaluator::{EvalInput, Evaluation, Evaluator, InputSpec, InputType};
use crate::judge::template::Template;
use crate::judge::{AskError, DEFAULT_JUDGE, Judge, Reply, StructuredMode};
use crate::score::{Direction, Kind, Score};

mod reply;

pub(crate) use reply::{JUDGEMENT_TOOL, Said, read_said};

/// Options every judge metric takes.
pub(crate) const JUDGE_OPTIONS: [OptionSpec; 4] = [
    OptionSpec::new("judge", OptionType::String, Some("default"), "the suite's judge to ask"),
    OptionSpec::new(
        "explanation",
        OptionType::Bool,
        Some("true"),
        "ask the judge for a short rationale with its label",
    ),
    OptionSpec::new(
        "mode",
        OptionType::Choice(&["auto", "tools", "json_schema", "text"]),
        Some("auto"),
        "how the reply is asked for; auto starts with tools and falls back as the server requires",
    ),
    OptionSpec::new("system", OptionType::String, None, "a system message sent before the prompt"),
];

/// The declaration of `classify`.
pub const SPEC: MetricSpec = MetricSpec {
    name: "classify",
    description: "an LLM judge picks one label among choices from a prompt template",
    inputs: &[],
    options: &[
        OptionSpec::new(
            "template",
            OptionType::String,
            None,
            "the prompt; {name} placeholders are the evaluator's inputs",
        ),
        OptionSpec::new(
            "choices",
            OptionType::Object,
            None,
            "labels: a list, a map label → score, or label → {score, description}",
        ),
        OptionSpec::new(
            "direction",
            OptionType::Choice(&["maximize", "minimize", "neutral"]),
            Some("maximize"),
            "whether higher choice scores are better",
        ),
        JUDGE_OPTIONS[0],
        JUDGE_OPTIONS[1],
        JUDGE_OPTIONS[2],
        JUDGE_OPTIONS[3],
    ],
    json: false,
    kind: Kind::Llm,
    direction: Direction::Maximize,
    threshold: None,
    extra_scores: &[],
    example: "- metric: classify\n  options:\n    template: \"Is this answer polite? {output}\"\n    choices: {polite: 1, rude: 0}\n  threshold: 1",
    build: |o, ctx| Ok(Box::new(Classify::from_options(o, ctx)?) as Box<dyn Evaluator>),
};

/// One label the judge may pick.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    /// The label.
    pub label: String,
    /// Its score, if the choices give scores.
    pub score: Option<f64>,
    /// What it means, for the judge.
    pub description: Option<String>,
}

/// A built classification judge.
#[derive(Debug)]
pub struct Classify {
    name: &'static str,
    caller: String,
    template: Template,
    system: Option<String>,
    choices: Vec<Choice>,
    explanation: bool,
    direction: Direction,
    mode: Option<StructuredMode>,
    judge: Arc<Judge>,
    inputs: Vec<InputSpec>,
}

/// Reads `choices`.
fn read_choices(o: &Opts<'_>, v: &Value) -> Result<Vec<Choice>, ConfigError> {
    let bad = |m: String| o.error("choices", m);
    let choices: Vec<Choice> = match v {
        // A list keeps the order the judge sees; a map is read in label order.
        Value::Array(items) => items
            .iter()
            .map(|i| match i {
                Value::String(s) => Ok(Choice { label: s.clone(), score: None, description: None }),
                Value::Object(m) => {
                    let label = m
                        .get("label")
                        .and_then(Value::as_str)
                        .ok_or_else(|| bad(format!("a choice needs a `label` string, got {i}")))?;
                    if let Some(k) =
                        m.keys().find(|k| !["label", "score", "description"].contains(&k.as_str()))
                    {
                        return Err(bad(format!("`{label}`: unknown key `{k}`")));
                    }
                    let score = match m.get("score") {
                        None | Some(Value::Null) => None,
                        Some(s) => Some(s.as_f64().filter(|x| x.is_finite()).ok_or_else(|| {
                            bad(format!("`{label}`: the score must be a finite number"))
                        })?),
                    };
                    let description =
                        m.get("description").and_then(Value::as_str).map(str::to_owned);
                    Ok(Choice { label: label.to_owned(), score, description })
                }
                other => Err(bad(format!(
                    "a choice must be a label or {{label, score, description}}, got {other}"
                ))),
            })
            .collect::<Result<_, _>>()?,
        Value::Object(map) => map
            .iter()
            .map(|(label, v)| {
                let (score, description) = match v {
                    Value::Number(n) => (n.as_f64(), None),
                    Value::Object(m) => (
                        m.get("score").and_then(Value::as_f64),
                        m.get("description").and_then(Value::as_str).map(str::to_owned),
                    ),
                    other => {
                        return Err(bad(format!(
                            "`{label}`: expected a score or {{score, description}}, got {other}"
                        )));
                    }
                };
                if score.is_some_and(|x| !x.is_finite()) {
                    return Err(bad(format!("`{label}`: the score must be finite")));
                }
                Ok(Choice { label: label.clone(), score, description })
            })
            .collect::<Result<_, _>>()?,
        other => return Err(bad(format!("expected a list or a map of labels, got {other}"))),
    };
    if choices.len() < 2 {
        return Err(bad(String::from("at least two labels are needed")));
    }
    for (i, c) in choices.iter().enumerate() {
        if c.label.trim().is_empty() {
            return Err(bad(String::from("a label is empty")));
        }
        if choices[..i].iter().any(|d| d.label.eq_ignore_ascii_case(&c.label)) {
            return Err(bad(format!("label `{}` is given twice", c.label)));
        }
        // A plain-text reply is also read without the decoration around
        // its first line (`**pass.**`): two labels differing only there
        // could not be told apart.
        let plain = undecorated(&c.label).to_lowercase();
        if let Some(d) = choices[..i].iter().find(|d| undecorated(&d.label).to_lowercase() == plain)
        {
            return Err(bad(format!(
                "labels `{}` and `{}` differ only in quotes, emphasis or closing punctuation: a reply could not tell them apart",
                d.label, c.label
            )));
        }
    }
    Ok(choices)
}

/// A reply's first line without what a model puts around a word:
/// Markdown emphasis, code ticks, quotes, brackets, a heading's `#`, and
/// closing punctuation (`**Pass.**` → `Pass`, `"rude"` → `rude`). A
/// label's own characters (`+`, `-`, `?`, `#` after a letter) stay.
fn undecorated(s: &str) -> &str {
    const AROUND: &[char] = &['*', '`', '"', '\'', '“', '”', '‘', '’', '«', '»'];
    const BEFORE: &[char] = &['[', '(', '#', '>'];
    const AFTER: &[char] = &[']', ')', '.', '!', ':', ';', ','];
    s.trim()
        .trim_start_matches(|c: char| {
            c.is_whitespace() || AROUND.contains(&c) || BEFORE.contains(&c)
        })
        .trim_end_matches(|c: char| c.is_whitespace() || AROUND.contains(&c) || AFTER.contains(&c))
}

/// The judge options shared by every judge metric: the judge, the
/// explanation flag, the mode and the system message.
pub(crate) struct JudgeOptions {
    pub(crate) judge: Arc<Judge>,
    pub(crate) explanation: bool,
    pub(crate) mode: Option<StructuredMode>,
    pub(crate) system: Option<String>,
}

impl JudgeOptions {
    pub(crate) fn read(o: &Opts<'_>, ctx: &BuildContext) -> Result<Self, ConfigError> {
        let name = o.string("judge")?.unwrap_or_else(|| DEFAULT_JUDGE.to_owned());
        let judge = ctx.judge(&name).map_err(|m| o.error("judge", m))?;
        let mode =
            match o.choice("mode", &["auto", "tools", "json_schema", "text"], "auto")?.as_str() {
                "tools" => Some(StructuredMode::Tools),
                "json_schema" => Some(StructuredMode::JsonSchema),
                "text" => Some(StructuredMode::Text),
                _ => None,
            };
        Ok(JudgeOptions {
            judge,
            explanation: o.bool("explanation", true)?,
            mode,
            system: o.string("system")?,
        })
    }
}

impl JudgeOptions {
    /// Like [`JudgeOptions::read`], for metrics that judge only in some
    /// configurations: the structured-output mode is read from option
    /// `mode_key` (a metric whose `mode` means something else names it
    /// otherwise). Every value is checked; the judge is looked up only
    /// when `wanted`, and a suite without any judge gives `Ok(None)` so
    /// the caller can fall back. A judge name the suite does not define,
    /// when it defines others, is an error.
    ///
    /// # Errors
    /// A bad option value, or (when wanted) an unknown judge name.
    pub(crate) fn read_optional(
        o: &Opts<'_>,
        ctx: &BuildContext,
        mode_key: &'static str,
        wanted: bool,
    ) -> Result<Option<Self>, ConfigError> {
        let name = o.string("judge")?.unwrap_or_else(|| DEFAULT_JUDGE.to_owned());
        let mode =
            match o.choice(mode_key, &["auto", "tools", "json_schema", "text"], "auto")?.as_str() {
                "tools" => Some(StructuredMode::Tools),
                "json_schema" => Some(StructuredMode::JsonSchema),
                "text" => Some(StructuredMode::Text),
                _ => None,
            };
        let explanation = o.bool("explanation", true)?;
        let system = o.string("system")?;
        if !wanted || ctx.judges.is_empty() {
            return Ok(None);
        }
        let judge = ctx.judge(&name).map_err(|m| o.error("judge", m))?;
        Ok(Some(JudgeOptions { judge, explanation, mode, system }))
    }
}

/// The request body (without model and sampling) asking for one JSON
/// object that follows `schema`, in `mode`: a forced tool call, a
/// `response_format: json_schema`, or text that should hold the object.
pub(crate) fn object_request(
    prompt: &str,
    system: Option<&str>,
    schema: &Value,
    mode: StructuredMode,
) -> Map<String, Value> {
    let mut text = prompt.to_owned();
    if mode == StructuredMode::Text {
        text.push_str(&format!(
            "\n\nAnswer with only a JSON object that follows this JSON Schema:\n{}",
            crate::json::compact(schema)
        ));
    }
    chat_body(&text, system, schema, mode, "Record the judgement of the item.")
}

/// A chat request body (without model and sampling): an optional system
/// message, the user's `text`, and the structured-output request of
/// `mode` for `schema` (a forced tool call described by `tool`, or a
/// `response_format: json_schema`; nothing for text).
fn chat_body(
    text: &str,
    system: Option<&str>,
    schema: &Value,
    mode: StructuredMode,
    tool: &str,
) -> Map<String, Value> {
    let mut messages = Vec::new();
    if let Some(s) = system {
        messages.push(json!({"role": "system", "content": s}));
    }
    messages.push(json!({"role": "user", "content": text}));
    let mut body = Map::new();
    body.insert("messages".into(), Value::Array(messages));
    match mode {
        StructuredMode::Tools => {
            body.insert(
                "tools".into(),
                json!([{"type": "function", "function": {
                    "name": JUDGEMENT_TOOL,
                    "description": tool,
                    "parameters": schema,
                }}]),
            );
            body.insert(
                "tool_choice".into(),
                json!({"type": "function", "function": {"name": JUDGEMENT_TOOL}}),
            );
        }
        StructuredMode::JsonSchema => {
            body.insert(
                "response_format".into(),
                json!({"type": "json_schema", "json_schema": {
                    "name": "judgement", "schema": schema, "strict": true}}),
            );
        }
        StructuredMode::Text => {}
    }
    body
}

/// The error of a judgement that could not be had: the request's, or why
/// the reply is unusable with the raw reply.
pub(crate) fn ask_error(judge: &Judge, e: AskError) -> EvalError {
    match e {
        AskError::Request(e) => EvalError::Failed(e.to_string()),
        AskError::Unusable { why, reply } => EvalError::Failed(format!(
            "judge `{}`: {why}; reply: {}",
            judge.name(),
            raw_reply(&reply)
        )),
    }
}

/// Asks `judge` for one JSON object that follows `schema`, falling back
/// through the structured-output modes as [`Classify`] does (unless `mode`
/// fixes one); `check` reads the object (the schema's constraints are the
/// caller's). Returns what `check` read, the reply and the mode used. A
/// reply with no JSON object, or one `check` refuses, is a failed
/// judgement whose error holds the raw reply (and is not cached).
///
/// # Errors
/// The request failed, or the reply is unusable.
pub(crate) fn ask_object<T>(
    judge: &Judge,
    caller: &str,
    mode: Option<StructuredMode>,
    system: Option<&str>,
    prompt: &str,
    schema: &Value,
    check: impl Fn(&Map<String, Value>) -> Result<T, String>,
) -> Result<(T, Reply, StructuredMode), EvalError> {
    let read = |reply: &Reply| match read_said(reply)? {
        Said::Object(object) => check(&object),
        Said::Text(_) => Err(String::from("the reply holds no JSON object")),
    };
    judge
        .ask(caller, mode, |m| object_request(prompt, system, schema, m), read)
        .map_err(|e| ask_error(judge, e))
}

impl Classify {
    /// From options: `template`, `choices`, `direction` and the judge
    /// options (`judge`, `explanation`, `mode`, `system`).
    ///
    /// # Errors
    /// A missing template or choices, bad choices, or an unknown judge.
    pub fn from_options(
        options: &Map<String, Value>,
        ctx: &BuildContext,
    ) -> Result<Self, ConfigError> {
        let o = Opts::for_metric(&SPEC, options)?;
        let template = o
            .string("template")?
            .ok_or_else(|| o.error("template", "a prompt template is required"))?;
        let choices =
            o.value("choices").ok_or_else(|| o.error("choices", "the labels are required"))?;
        let choices = read_choices(&o, choices)?;
        let direction =
            match o.choice("direction", &["maximize", "minimize", "neutral"], "maximize")?.as_str()
            {
                "minimize" => Direction::Minimize,
                "neutral" => Direction::Neutral,
                _ => Direction::Maximize,
            };
        let j = JudgeOptions::read(&o, ctx)?;
        Classify::new(SPEC.name, Template::parse(&template), choices, direction, j, ctx, &[])
            .map_err(|m| o.error("template", m))
    }

    /// A judge from its parts (the built-in judges use this).
    pub(crate) fn new(
        name: &'static str,
        template: Template,
        choices: Vec<Choice>,
        direction: Direction,
        j: JudgeOptions,
        ctx: &BuildContext,
        declared: &[InputSpec],
    ) -> Result<Self, String> {
        let inputs: Vec<InputSpec> = template
            .placeholders()
            .into_iter()
            .map(|p| {
                declared.iter().find(|d| d.name == p).cloned().unwrap_or_else(|| {
                    InputSpec::named(
                        p.to_owned(),
                        true,
                        InputType::Text,
                        "a placeholder of the template",
                    )
                })
            })
            .collect();
        if inputs.is_empty() {
            return Err(String::from(
                "the template has no {placeholder}: it would ask the same for every row",
            ));
        }
        Ok(Classify {
            name,
            caller: ctx.evaluator.clone().unwrap_or_else(|| name.to_owned()),
            template,
            system: j.system,
            choices,
            explanation: j.explanation,
            direction,
            mode: j.mode,
            judge: j.judge,
            inputs,
        })
    }

    /// The JSON Schema of a reply.
    fn schema(&self) -> Value {
        let labels: Vec<&str> = self.choices.iter().map(|c| c.label.as_str()).collect();
        let mut props = Map::new();
        props.insert("label".into(), json!({"type": "string", "enum": labels}));
        let mut required = vec!["label"];
        if self.explanation {
            props.insert(
                "explanation".into(),
                json!({"type": "string", "description": "one or two sentences on why"}),
            );
            required.insert(0, "explanation");
        }
        json!({"type": "object", "properties": props, "required": required, "additionalProperties": false})
    }

    /// The request body (without model and sampling) for `mode`.
    fn request(&self, prompt: &str, mode: StructuredMode) -> Map<String, Value> {
        let mut text = prompt.to_owned();
        if self.choices.iter().any(|c| c.description.is_some()) {
            text.push_str("\n\nLabels:");
            for c in &self.choices {
                text.push_str(&format!("\n- {}", c.label));
                if let Some(d) = &c.description {
                    text.push_str(&format!(": {d}"));
                }
            }
        }
        // The labels are named in every mode: a server that takes the
        // schema or the tool without enforcing it still reads them.
        let labels: Vec<&str> = self.choices.iter().map(|c| c.label.as_str()).collect();
        text.push_str(&format!(
            "\n\nAnswer with exactly one of these labels: {}.",
            labels.join(", ")
        ));
        if mode == StructuredMode::Text && self.explanation {
            text.push_str(" Put the label on the first line, then a short reason.");
        }
        chat_body(
            &text,
            self.system.as_deref(),
            &self.schema(),
            mode,
            "Record the label chosen for the item.",
        )
    }

    /// The label and explanation of a reply, or why there is none: a JSON
    /// object's `label`, else the first line of the text, which must be
    /// exactly one label ([`read_said`]).
    fn read_reply(&self, reply: &Reply) -> Result<(&Choice, Option<String>), String> {
        match read_said(reply)? {
            Said::Object(v) => {
                // A label written as a number or a boolean (`5` for the
                // choice `"5"`) is read as its JSON text.
                let label = match v.get("label") {
                    Some(Value::String(s)) => s.clone(),
                    Some(n @ (Value::Number(_) | Value::Bool(_))) => n.to_string(),
                    _ => return Err(String::from("the reply has no label")),
                };
                let explanation = v
                    .get("explanation")
                    .and_then(Value::as_str)
                    .map(crate::judge::kept_explanation);
                let choice = self
                    .choice(&label)
                    .or_else(|| self.choice(undecorated(&label)))
                    .ok_or_else(|| format!("label `{label}` is not one of the choices"))?;
                Ok((choice, explanation))
            }
            Said::Text(text) => {
                let first = text.lines().next().unwrap_or("").trim();
                // Plain text: the label must stand alone on the first line,
                // as asked (as written, else without the quotes, emphasis
                // and closing punctuation around it: `**Pass.**`). A label
                // merely mentioned in a sentence ("not factual"), or in a
                // JSON example further down, is never read as the verdict,
                // nor a label's own punctuation dropped (`A` is not `A+`).
                let choice = self
                    .choice(first)
                    .or_else(|| self.choice(undecorated(first)))
                    .ok_or("the reply's first line is not one of the labels")?;
                let rest = text.lines().skip(1).collect::<Vec<_>>().join("\n");
                let rest = rest.trim();
                Ok((choice, (!rest.is_empty()).then(|| crate::judge::kept_explanation(rest))))
            }
        }
    }

    /// The choice whose label equals `label`: as written, else in the
    /// same Unicode normal form (NFC: `ö` written as `o` and a combining
    /// mark is `ö`), case aside.
    fn choice(&self, label: &str) -> Option<&Choice> {
        let label = label.trim();
        self.choices.iter().find(|c| c.label == label).or_else(|| {
            let folded = |s: &str| s.nfc().collect::<String>().to_lowercase();
            let wanted = folded(label);
            self.choices.iter().find(|c| folded(&c.label) == wanted)
        })
    }

    /// The score of one judgement: asked in the structured-output modes
    /// the server accepts, read by [`Classify::read_reply`].
    pub(crate) fn judge_prompt(&self, prompt: &str) -> Result<Score, EvalError> {
        let read =
            |reply: &Reply| self.read_reply(reply).map(|(c, e)| (c.label.clone(), c.score, e));
        let ((label, score, explanation), reply, mode) = self
            .judge
            .ask(&self.caller, self.mode, |m| self.request(prompt, m), read)
            .map_err(|e| ask_error(&self.judge, e))?;
        let mut s = Score::new(self.name, score)
            .with_label(label)
            .with_direction(self.direction)
            .with_meta("judge", self.judge.name())
            .with_meta("model", self.judge.model())
            .with_meta("mode", mode.as_str())
            .with_meta("cached", reply.cached)
            .with_meta("prompt_tokens", reply.prompt_tokens)
            .with_meta("completion_tokens", reply.completion_tokens);
        s.kind = Kind::Llm;
        if self.explanation
            && let Some(e) = explanation
        {
            s = s.with_explanation(e);
        }
        Ok(s)
    }
}

/// A reply's message as kept in an error: compact JSON, at most 500
/// characters (enough to show a tool call's arguments).
pub(crate) fn raw_reply(reply: &Reply) -> String {
    const KEPT: usize = 500;
    let text = crate::json::compact(&reply.message);
    match text.char_indices().nth(KEPT) {
        None => text,
        Some((i, _)) => format!("{}…", &text[..i]),
    }
}

impl Evaluator for Classify {
    fn name(&self) -> &str {
        self.name
    }

    fn inputs(&self) -> &[InputSpec] {
        &self.inputs
    }

    fn direction(&self) -> Direction {
        self.direction
    }

    fn kind(&self) -> Kind {
        Kind::Llm
    }

    fn compute(&self, input: &EvalInput<'_>) -> Result<Evaluation, EvalError> {
        let prompt = self.template.render(|n| input.get(n));
        Ok(Evaluation::one(self.judge_prompt(&prompt)?))
    }
}

#[cfg(test)]
pub(crate) mod tests;
