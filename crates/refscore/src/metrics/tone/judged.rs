//! `method: judge`: the tone dimensions rated by an LLM judge.
//!
//! One request per row. The judge rates the output (and, for the
//! dimensions whose target comes from it, the reference) on each wanted
//! dimension, from 0 to 1, as one JSON object:
//!
//! ```json
//! {"output": {"formality": 0.8, "sentiment": 0.6},
//!  "reference": {"formality": 0.9},
//!  "explanation": "..."}
//! ```
//!
//! asked for as a forced tool call whose parameters are a JSON Schema
//! (a number property per dimension, `minimum` 0, `maximum` 1), falling
//! back to `response_format: json_schema` and then text, as `classify`
//! does (a text reply must be wholly the JSON object). A missing
//! dimension or a value outside [0, 1] makes the reply unusable: the
//! judgement fails and the reply is not cached.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::profile::Dimension;
use crate::error::EvalError;
use crate::judge::{Judge, StructuredMode};
use crate::metrics::classify::{JudgeOptions, ask_object};

/// What each dimension means to the judge: 0 … 1.
fn scale(d: Dimension) -> &'static str {
    match d {
        Dimension::Formality => {
            "0 = casual and chatty (slang, contractions, emoji), 0.5 = neutral, 1 = formal, businesslike register"
        }
        Dimension::Sentiment => "0 = negative, 0.5 = neutral, 1 = positive",
        Dimension::Assertiveness => {
            "0 = tentative and hedged, 0.5 = neutral, 1 = confident and categorical"
        }
        Dimension::PersonaConsistency => {
            "0 = the voice, register and attitude change from sentence to sentence, 1 = one steady voice throughout"
        }
        Dimension::Verbosity => {
            "0 = terse, far shorter than the content needs, 0.5 = as long as the content needs, 1 = padded and long-winded"
        }
    }
}

/// The judge of `method: judge`, built once.
#[derive(Debug)]
pub(crate) struct ToneJudge {
    judge: Arc<Judge>,
    caller: String,
    mode: Option<StructuredMode>,
    system: Option<String>,
    explanation: bool,
}

/// What a request asked and what came back.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Rated {
    /// The reply's JSON object.
    pub(crate) object: Map<String, Value>,
    /// Prompt tokens.
    pub(crate) prompt_tokens: u64,
    /// Completion tokens.
    pub(crate) completion_tokens: u64,
    /// Whether the reply came from the cache.
    pub(crate) cached: bool,
    /// The structured-output mode used.
    pub(crate) mode: &'static str,
}

/// Ratings read from a reply: per dimension, in [0, 1].
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Ratings {
    /// Of the output.
    pub(crate) output: Vec<(Dimension, f64)>,
    /// Of the reference.
    pub(crate) reference: Vec<(Dimension, f64)>,
    /// The judge's explanation, if any.
    pub(crate) explanation: Option<String>,
}

impl Ratings {
    /// The output's rating of `d`.
    pub(crate) fn output(&self, d: Dimension) -> Option<f64> {
        self.output.iter().find(|(x, _)| *x == d).map(|(_, v)| *v)
    }

    /// The reference's rating of `d`.
    pub(crate) fn reference(&self, d: Dimension) -> Option<f64> {
        self.reference.iter().find(|(x, _)| *x == d).map(|(_, v)| *v)
    }
}

impl ToneJudge {
    /// From the judge options; `caller` names the evaluator in the
    /// accounting.
    pub(crate) fn new(j: JudgeOptions, caller: String) -> Self {
        ToneJudge {
            judge: j.judge,
            caller,
            mode: j.mode,
            system: j.system,
            explanation: j.explanation,
        }
    }

    /// The judge's name in the suite.
    pub(crate) fn name(&self) -> &str {
        self.judge.name()
    }

    /// Its model.
    pub(crate) fn model(&self) -> &str {
        self.judge.model()
    }

    /// Whether a short explanation is asked for.
    pub(crate) fn explanation(&self) -> bool {
        self.explanation
    }

    /// Asks for the ratings `schema` describes (see [`schema`]); a reply
    /// is usable only when [`read_ratings`] reads every rating the schema
    /// asks for.
    ///
    /// # Errors
    /// The request failed, or the reply is unusable.
    pub(crate) fn ask(&self, prompt: &str, schema: &Value) -> Result<Rated, EvalError> {
        let (out, reference) = (asked(schema, "output"), asked(schema, "reference"));
        let check = |object: &Map<String, Value>| {
            read_ratings(object, &out, &reference).map(|_| object.clone())
        };
        let (object, reply, mode) = ask_object(
            &self.judge,
            &self.caller,
            self.mode,
            self.system.as_deref(),
            prompt,
            schema,
            check,
        )?;
        Ok(Rated {
            object,
            prompt_tokens: reply.prompt_tokens,
            completion_tokens: reply.completion_tokens,
            cached: reply.cached,
            mode: mode.as_str(),
        })
    }

    /// The error of a reply that could not be used.
    pub(crate) fn unusable(&self, why: &str, object: &Map<String, Value>) -> EvalError {
        unusable_error(self.judge.name(), why, object)
    }
}

/// The dimensions a [`schema`] asks to rate on `side` (`output` or
/// `reference`).
fn asked(schema: &Value, side: &str) -> Vec<Dimension> {
    schema["properties"][side]["required"]
        .as_array()
        .map(|names| names.iter().filter_map(Value::as_str).filter_map(Dimension::parse).collect())
        .unwrap_or_default()
}

/// The error of an unusable reply, with the reply's object (cut).
pub(crate) fn unusable_error(judge: &str, why: &str, object: &Map<String, Value>) -> EvalError {
    let raw = crate::detail::truncate(&crate::json::compact(&Value::Object(object.clone())));
    EvalError::Failed(format!("judge `{judge}`: {why}; reply: {raw}"))
}

/// The ratings object of one text: a number in [0, 1] per dimension.
fn side_schema(dims: &[Dimension]) -> Value {
    let mut props = Map::new();
    for d in dims {
        props.insert(
            d.name().to_owned(),
            json!({"type": "number", "minimum": 0, "maximum": 1, "description": scale(*d)}),
        );
    }
    let required: Vec<&str> = dims.iter().map(|d| d.name()).collect();
    json!({"type": "object", "properties": props, "required": required, "additionalProperties": false})
}

/// The JSON Schema of a reply rating `out` on the output and `reference`
/// on the reference (none: no `reference` property).
pub(crate) fn schema(out: &[Dimension], reference: &[Dimension], explanation: bool) -> Value {
    let mut props = Map::new();
    let mut required = Vec::new();
    props.insert("output".into(), side_schema(out));
    required.push("output");
    if !reference.is_empty() {
        props.insert("reference".into(), side_schema(reference));
        required.push("reference");
    }
    if explanation {
        props.insert(
            "explanation".into(),
            json!({"type": "string", "description": "one or two sentences on the tone of the output"}),
        );
        required.insert(0, "explanation");
    }
    json!({"type": "object", "properties": props, "required": required, "additionalProperties": false})
}

/// The prompt: the scales, the output and, when some targets come from
/// it, the reference.
pub(crate) fn prompt(
    output: &str,
    reference: Option<&str>,
    out: &[Dimension],
    on_reference: &[Dimension],
) -> String {
    let mut p = String::from(
        "You rate the tone of a text on a few scales, each a number from 0 to 1. Rate how the text sounds, not whether it is correct.\n\nScales:\n",
    );
    let mut all: Vec<Dimension> = out.to_vec();
    all.extend(on_reference.iter().filter(|d| !out.contains(d)));
    for d in &all {
        p.push_str(&format!("- {}: {}\n", d.name(), scale(*d)));
    }
    p.push_str("\nThe text to rate (\"output\"):\n<<<\n");
    p.push_str(output.trim());
    p.push_str("\n>>>\n");
    if let (Some(r), false) = (reference, on_reference.is_empty()) {
        let names: Vec<&str> = on_reference.iter().map(|d| d.name()).collect();
        p.push_str(&format!(
            "\nA second text (\"reference\"), to rate separately on {}:\n<<<\n",
            names.join(", ")
        ));
        p.push_str(r.trim());
        p.push_str("\n>>>\n");
    }
    let names: Vec<&str> = out.iter().map(|d| d.name()).collect();
    p.push_str(&format!("\nRate the output on {}", names.join(", ")));
    if !on_reference.is_empty() {
        p.push_str(", and the reference on its scales, each text on its own");
    }
    p.push('.');
    p
}

/// Reads the ratings of a reply, or says why it cannot be used: a
/// missing side or dimension, or a value that is not a number in [0, 1].
pub(crate) fn read_ratings(
    object: &Map<String, Value>,
    out: &[Dimension],
    reference: &[Dimension],
) -> Result<Ratings, String> {
    let side = |key: &str, dims: &[Dimension]| -> Result<Vec<(Dimension, f64)>, String> {
        if dims.is_empty() {
            return Ok(Vec::new());
        }
        let map = object
            .get(key)
            .and_then(Value::as_object)
            .ok_or_else(|| format!("the reply has no `{key}` ratings"))?;
        dims.iter()
            .map(|d| {
                let v = map
                    .get(d.name())
                    .ok_or_else(|| format!("the reply does not rate {} of the {key}", d.name()))?;
                match v.as_f64() {
                    Some(x) if (0.0..=1.0).contains(&x) => Ok((*d, x)),
                    _ => Err(format!(
                        "{} of the {key} must be a number from 0 to 1, got {v}",
                        d.name()
                    )),
                }
            })
            .collect()
    };
    Ok(Ratings {
        output: side("output", out)?,
        reference: side("reference", reference)?,
        explanation: object
            .get("explanation")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|e| !e.is_empty())
            .map(crate::judge::kept_explanation),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const F: Dimension = Dimension::Formality;
    const S: Dimension = Dimension::Sentiment;

    #[test]
    fn the_schema_has_a_bounded_number_per_dimension() {
        let s = schema(&[F, S], &[F], true);
        assert_eq!(s["required"], json!(["explanation", "output", "reference"]));
        let out = &s["properties"]["output"];
        assert_eq!(out["required"], json!(["formality", "sentiment"]));
        assert_eq!(out["properties"]["sentiment"]["type"], "number");
        assert_eq!(
            (
                &out["properties"]["sentiment"]["minimum"],
                &out["properties"]["sentiment"]["maximum"]
            ),
            (&json!(0), &json!(1))
        );
        assert_eq!(s["properties"]["reference"]["required"], json!(["formality"]));
        assert_eq!(s["additionalProperties"], false);
        let bare = schema(&[S], &[], false);
        assert_eq!(bare["required"], json!(["output"]));
        assert!(bare["properties"].get("reference").is_none());
        assert!(bare["properties"].get("explanation").is_none());
    }

    #[test]
    fn the_prompt_names_the_scales_and_the_texts() {
        let p = prompt(" Dear Sir, ", Some("Hi!"), &[F, S], &[F]);
        assert!(p.contains("- formality: 0 = casual"), "{p}");
        assert!(p.contains("- sentiment: 0 = negative"), "{p}");
        assert!(!p.contains("- verbosity"), "{p}");
        assert!(p.contains("(\"output\"):\n<<<\nDear Sir,\n>>>\n"), "{p}");
        assert!(
            p.contains("(\"reference\"), to rate separately on formality:\n<<<\nHi!\n>>>"),
            "{p}"
        );
        assert!(p.ends_with("Rate the output on formality, sentiment, and the reference on its scales, each text on its own."), "{p}");
        let alone = prompt("Hello there", Some("unused"), &[Dimension::Verbosity], &[]);
        assert!(!alone.contains("unused") && !alone.contains("reference"), "{alone}");
        assert!(alone.ends_with("Rate the output on verbosity."), "{alone}");
    }

    #[test]
    fn ratings_are_read_and_checked() {
        let obj = |v: Value| v.as_object().cloned().unwrap();
        let r = read_ratings(
            &obj(
                json!({"output": {"formality": 0.9, "sentiment": 0}, "reference": {"formality": 1},
                        "explanation": " Stiff. "}),
            ),
            &[F, S],
            &[F],
        )
        .unwrap();
        assert_eq!((r.output(F), r.output(S), r.reference(F)), (Some(0.9), Some(0.0), Some(1.0)));
        assert_eq!(r.reference(S), None);
        assert_eq!(r.explanation.as_deref(), Some("Stiff."));
        for (bad, says) in [
            (json!({"output": {"formality": 1.2}}), "must be a number from 0 to 1, got 1.2"),
            (json!({"output": {"formality": -0.1}}), "got -0.1"),
            (json!({"output": {"formality": "high"}}), "got \"high\""),
            (json!({"output": {"sentiment": 0.5}}), "does not rate formality of the output"),
            (json!({"formality": 0.5}), "no `output` ratings"),
        ] {
            let e = read_ratings(&obj(bad.clone()), &[F], &[]).unwrap_err();
            assert!(e.contains(says), "{bad}: {e}");
        }
        let e = read_ratings(&obj(json!({"output": {"formality": 0.5}})), &[F], &[F]).unwrap_err();
        assert!(e.contains("no `reference` ratings"), "{e}");
        let err = unusable_error("default", "why", &obj(json!({"a": 1})));
        assert_eq!(err.to_string(), "judge `default`: why; reply: {\"a\":1}");
    }
}

#[cfg(test)]
mod request_tests {
    use super::*;
    use crate::judge::Reply;
    use crate::metrics::classify::{Said, object_request, read_said};

    fn reply(message: Value) -> Reply {
        Reply {
            message,
            prompt_tokens: 1,
            completion_tokens: 1,
            finish_reason: None,
            cached: false,
        }
    }

    #[test]
    fn objects_are_asked_for_in_each_mode() {
        let s = schema(&[Dimension::Sentiment], &[], false);
        let tools = object_request("P", Some("Be fair."), &s, StructuredMode::Tools);
        assert_eq!(tools["messages"][0], json!({"role": "system", "content": "Be fair."}));
        assert_eq!(tools["messages"][1]["content"], "P");
        assert_eq!(tools["tools"][0]["function"]["parameters"], s);
        assert_eq!(tools["tool_choice"]["function"]["name"], "record_judgement");
        let js = object_request("P", None, &s, StructuredMode::JsonSchema);
        assert_eq!(js["response_format"]["json_schema"]["schema"], s);
        assert!(js.get("tools").is_none());
        let text = object_request("P", None, &s, StructuredMode::Text);
        let content = text["messages"][0]["content"].as_str().unwrap();
        assert!(content.starts_with("P\n\nAnswer with only a JSON object"), "{content}");
        assert!(content.contains("\"minimum\":0"), "{content}");
    }

    #[test]
    fn objects_are_read_from_tool_calls_or_a_content_that_is_wholly_json() {
        let object = |r: &Reply| match read_said(r) {
            Ok(Said::Object(o)) => Some(o),
            _ => None,
        };
        let args = |a: Value| reply(json!({"tool_calls": [{"function": {"arguments": a}}]}));
        let want = json!({"output": {"sentiment": 0.5}});
        assert_eq!(
            object(&args(json!("{\"output\": {\"sentiment\": 0.5}}"))),
            want.as_object().cloned()
        );
        assert_eq!(object(&args(want.clone())), want.as_object().cloned());
        let fenced = reply(json!({"content": "```json\n{\"output\": {\"sentiment\": 0.5}}\n```"}));
        assert_eq!(object(&fenced), want.as_object().cloned());
        assert_eq!(object(&args(json!("not json"))), None);
        assert_eq!(object(&reply(json!({"content": "[1, 2]"}))), None);
        assert_eq!(object(&reply(json!({"content": "no idea"}))), None);
        assert_eq!(object(&reply(json!({}))), None);
    }

    #[test]
    fn json_inside_prose_is_not_the_ratings() {
        // A fence inside prose, or an example after a sentence, is not the
        // reply's object: which one would be meant?
        for content in [
            "Here:\n```json\n{\"output\": {\"sentiment\": 0.5}}\n```",
            "Quite negative. A positive text would get {\"output\": {\"sentiment\": 0.9}}.",
        ] {
            let r = reply(json!({"content": content}));
            assert_eq!(read_said(&r), Ok(Said::Text(content.to_owned())), "{content}");
        }
        let twice = args_text(r#"{"output": {"sentiment": 0.1}, "output": {"sentiment": 0.9}}"#);
        let e = read_said(&twice).unwrap_err();
        assert!(e.contains("repeats the key `output`"), "{e}");
    }

    fn args_text(text: &str) -> Reply {
        reply(json!({"tool_calls": [{"function": {"arguments": text}}]}))
    }
}
