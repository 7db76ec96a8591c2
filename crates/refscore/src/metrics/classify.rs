//! `classify`: an LLM judge that picks one label among choices.
//!
//! A prompt template's `{placeholders}` are the evaluator's inputs (each
//! required, mapped from the row as usual). The judge is asked for its
//! label (and, with `explanation: true`, a short rationale) as a forced
//! tool call whose parameters are a JSON Schema (label enum +
//! explanation); a server that rejects tools is asked again with
//! `response_format: json_schema`, then for plain text, and the judge
//! remembers what the server accepts. A reply is read from a tool call, a
//! JSON content or, last, text naming exactly one label. A label outside
//! the choices, or a reply that names none, is a failed evaluation with
//! the raw reply in the error: never a guessed score.
//!
//! `choices` is a list of labels (the score is then empty: a label-only
//! judgement), a map label → score, or label → `{score, description}`
//! (descriptions are given to the judge).

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::BuildContext;
use super::options::Opts;
use super::registry::{MetricSpec, OptionSpec, OptionType};
use crate::error::{ConfigError, EvalError};
use crate::evaluator::{EvalInput, Evaluation, Evaluator, InputSpec, InputType};
use crate::judge::template::Template;
use crate::judge::{DEFAULT_JUDGE, Judge, Reply, StructuredMode};
use crate::score::{Direction, Kind, Score};

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
    }
    Ok(choices)
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
        let judge = ctx.judges.get(&name).map_err(|m| o.error("judge", m))?;
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
        let judge = ctx.judges.get(&name).map_err(|m| o.error("judge", m))?;
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
                    "name": "record_judgement",
                    "description": tool,
                    "parameters": schema,
                }}]),
            );
            body.insert(
                "tool_choice".into(),
                json!({"type": "function", "function": {"name": "record_judgement"}}),
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

/// The JSON object of a reply: a tool call's arguments, else a JSON
/// document in the content (whole, fenced or inside prose).
pub(crate) fn reply_object(reply: &Reply) -> Option<Map<String, Value>> {
    let m = &reply.message;
    let from_tool = m
        .get("tool_calls")
        .and_then(|t| t.get(0))
        .and_then(|c| c.get("function"))
        .and_then(|f| f.get("arguments"))
        .and_then(|a| match a {
            Value::String(s) => serde_json::from_str::<Value>(s).ok(),
            other => Some(other.clone()),
        });
    let value = from_tool.or_else(|| {
        let text = m.get("content").and_then(Value::as_str)?;
        crate::decode::decode(&Value::String(text.to_owned()), &Default::default())
            .ok()
            .map(|d| d.value.into_owned())
    })?;
    match value {
        Value::Object(map) => Some(map),
        _ => None,
    }
}

/// Asks `judge` for one JSON object that follows `schema`, falling back
/// through the structured-output modes as [`Classify`] does (unless `mode`
/// fixes one). Returns the object, the reply and the mode used. A reply
/// with no JSON object is counted as unusable and is an error holding
/// the raw reply; checking the object against the schema is the caller's.
///
/// # Errors
/// The request failed, or the reply holds no JSON object.
pub(crate) fn ask_object(
    judge: &Judge,
    caller: &str,
    mode: Option<StructuredMode>,
    system: Option<&str>,
    prompt: &str,
    schema: &Value,
) -> Result<(Map<String, Value>, Reply, StructuredMode), EvalError> {
    let mut current = mode.unwrap_or_else(|| judge.preferred_mode());
    let reply = loop {
        match judge.chat(caller, object_request(prompt, system, schema, current)) {
            Ok(r) => break r,
            Err(e) if e.is_rejection() && mode.is_none() => match current.next() {
                Some(next) => {
                    judge.reject_mode(current);
                    current = next;
                }
                None => return Err(EvalError::Failed(e.to_string())),
            },
            Err(e) => return Err(EvalError::Failed(e.to_string())),
        }
    };
    match reply_object(&reply) {
        Some(object) => Ok((object, reply, current)),
        None => {
            judge.reply_unusable(caller);
            let raw = raw_reply(&reply);
            Err(EvalError::Failed(format!(
                "judge `{}`: the reply holds no JSON object; reply: {raw}",
                judge.name()
            )))
        }
    }
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
        let labels: Vec<&str> = self.choices.iter().map(|c| c.label.as_str()).collect();
        if mode == StructuredMode::Text {
            text.push_str(&format!(
                "\n\nAnswer with exactly one of these labels: {}.{}",
                labels.join(", "),
                if self.explanation {
                    " Put the label on the first line, then a short reason."
                } else {
                    ""
                }
            ));
        }
        chat_body(
            &text,
            self.system.as_deref(),
            &self.schema(),
            mode,
            "Record the label chosen for the item.",
        )
    }

    /// The label and explanation of a reply, or why there is none.
    fn read_reply(&self, reply: &Reply) -> Result<(&Choice, Option<String>), String> {
        let m = &reply.message;
        // A tool call is read whatever it holds; a JSON content only when
        // it carries a label (else the content is a plain-text verdict).
        let called = m.get("tool_calls").and_then(|t| t.get(0)).is_some();
        let structured = reply_object(reply).filter(|o| called || o.contains_key("label"));
        if let Some(v) = structured {
            let label = v.get("label").and_then(Value::as_str).ok_or("the reply has no label")?;
            let explanation = v.get("explanation").and_then(Value::as_str).map(str::to_owned);
            let choice = self
                .choice(label)
                .ok_or_else(|| format!("label `{label}` is not one of the choices"))?;
            return Ok((choice, explanation));
        }
        let text = m.get("content").and_then(Value::as_str).unwrap_or("").trim();
        if text.is_empty() {
            return Err(String::from("the reply is empty"));
        }
        let first = text
            .lines()
            .next()
            .unwrap_or("")
            .trim()
            .trim_matches(|c: char| !c.is_alphanumeric() && c != '_' && c != '-');
        // Plain text: the label must stand alone on the first line, as
        // asked. A label merely mentioned in a sentence ("not factual") is
        // never read as the verdict.
        if let Some(c) = self.choice(first) {
            let rest = text.lines().skip(1).collect::<Vec<_>>().join("\n").trim().to_owned();
            return Ok((c, (!rest.is_empty()).then_some(rest)));
        }
        Err(String::from("the reply's first line is not one of the labels"))
    }

    /// The choice whose label equals `label` (case aside).
    fn choice(&self, label: &str) -> Option<&Choice> {
        let label = label.trim();
        self.choices.iter().find(|c| c.label == label).or_else(|| {
            self.choices.iter().find(|c| c.label.to_lowercase() == label.to_lowercase())
        })
    }

    /// Asks the judge, falling back through the structured-output modes.
    pub(crate) fn ask(&self, prompt: &str) -> Result<(Reply, StructuredMode), EvalError> {
        let mut mode = self.mode.unwrap_or_else(|| self.judge.preferred_mode());
        loop {
            match self.judge.chat(&self.caller, self.request(prompt, mode)) {
                Ok(r) => return Ok((r, mode)),
                Err(e) if e.is_rejection() && self.mode.is_none() => match mode.next() {
                    Some(next) => {
                        self.judge.reject_mode(mode);
                        mode = next;
                    }
                    None => return Err(EvalError::Failed(e.to_string())),
                },
                Err(e) => return Err(EvalError::Failed(e.to_string())),
            }
        }
    }

    /// The score of one judgement.
    pub(crate) fn judge_prompt(&self, prompt: &str) -> Result<Score, EvalError> {
        let (reply, mode) = self.ask(prompt)?;
        let (choice, explanation) = self.read_reply(&reply).map_err(|why| {
            self.judge.reply_unusable(&self.caller);
            let raw = raw_reply(&reply);
            EvalError::Failed(format!("judge `{}`: {why}; reply: {raw}", self.judge.name()))
        })?;
        let mut s = Score::new(self.name, choice.score)
            .with_label(choice.label.clone())
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
