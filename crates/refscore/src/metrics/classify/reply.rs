//! What a judge's reply says: a tool call's arguments, a content that is
//! wholly one JSON object, or plain text ([`read_said`]); the judgement
//! objects are checked for repeated keys.

use serde_json::{Map, Value};

use crate::judge::Reply;

/// The one tool a judge is offered in `tools` mode, to record its
/// judgement in: a call to any other is no judgement.
pub(crate) const JUDGEMENT_TOOL: &str = "record_judgement";

/// What a reply says, before its meaning is checked.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Said {
    /// A JSON object: a tool call's arguments, or a content that is
    /// wholly one object.
    Object(Map<String, Value>),
    /// Plain text (trimmed, not empty).
    Text(String),
}

/// What a reply says:
///
/// * a tool call: its arguments, which must be one JSON object (a reply
///   making several calls is refused: which one is the judgement?; so is
///   a call to a tool other than [`JUDGEMENT_TOOL`]);
/// * else the content: a JSON object when the content is wholly one
///   (trimmed, or one code fence with nothing around it), else its text.
///   A JSON example inside prose is text, never read as the judgement.
///
/// A JSON object that repeats a key is refused (`{"label": "a", "label":
/// "b"}` names two judgements; JSON readers keep the last one).
///
/// Content in text parts is joined, and a leading `<think>…</think>` block
/// is skipped. A text cut off at `max_tokens` inside its first line is
/// refused (the line might have gone on past a label), and a failure says
/// what the finish reason (`length`, `content_filter`) tells of it.
///
/// # Errors
/// Why nothing can be read: an empty reply, arguments that are not one
/// JSON object, a repeated key, an unclosed reasoning block, a first line
/// cut off, a refusal.
pub(crate) fn read_said(reply: &Reply) -> Result<Said, String> {
    let cut = reply.finish_reason.as_deref() == Some("length");
    match read_message(reply) {
        // A first line cut off may be a label the whole line was not
        // ("yes, but actually no" cut to "yes"): never taken.
        Ok(Said::Text(text)) if cut && !text.contains('\n') => Err(String::from(
            "the reply was cut off at max_tokens in its first line (finish_reason `length`): \
             raise max_tokens",
        )),
        said => said.map_err(|why| hint(reply, why)),
    }
}

/// `why` with what the finish reason says about it.
fn hint(reply: &Reply, why: String) -> String {
    match reply.finish_reason.as_deref() {
        Some("length") => format!(
            "{why} (the reply was cut off at max_tokens, finish_reason `length`: raise max_tokens)"
        ),
        Some("content_filter") => {
            format!(
                "{why} (the server's content filter withheld the reply, finish_reason `content_filter`)"
            )
        }
        _ => why,
    }
}

/// [`read_said`] without the finish reason's hint.
fn read_message(reply: &Reply) -> Result<Said, String> {
    let m = &reply.message;
    if let Some(calls) = m.get("tool_calls").and_then(Value::as_array).filter(|c| !c.is_empty()) {
        if calls.len() > 1 {
            return Err(format!("the reply makes {} tool calls, not one", calls.len()));
        }
        let not_object = || String::from("the tool call's arguments are not a JSON object");
        let function = calls[0].get("function");
        // A server that leaves the name out is taken at its word; one that
        // names another tool answered something else.
        if let Some(name) = function.and_then(|f| f.get("name")).and_then(Value::as_str)
            && name != JUDGEMENT_TOOL
        {
            return Err(format!(
                "the reply calls a tool named `{}`, not `{JUDGEMENT_TOOL}`, the one offered",
                crate::detail::truncate(name)
            ));
        }
        return match function.and_then(|f| f.get("arguments")) {
            Some(Value::String(text)) => {
                let (value, repeated) =
                    crate::duplicate_keys::parse(text).map_err(|_| not_object())?;
                refuse_repeats(repeated.as_ref())?;
                match value {
                    Value::Object(map) => Ok(Said::Object(map)),
                    _ => Err(not_object()),
                }
            }
            Some(Value::Object(map)) => Ok(Said::Object(map.clone())),
            _ => Err(not_object()),
        };
    }
    let parts;
    let text = match m.get("content") {
        None | Some(Value::Null) => "",
        Some(Value::String(s)) => s.as_str(),
        Some(Value::Array(list)) => {
            parts = text_parts(list)?;
            parts.as_str()
        }
        Some(_) => return Err(String::from("the reply's content is not text")),
    };
    let text = after_reasoning(text.trim())?.trim();
    if text.is_empty()
        && let Some(refusal) =
            m.get("refusal").and_then(Value::as_str).filter(|r| !r.trim().is_empty())
    {
        return Err(format!("the model refused to judge: {}", refusal.trim()));
    }
    if text.is_empty() {
        return Err(String::from("the reply is empty"));
    }
    let options = crate::extract::ExtractOptions {
        pick: crate::extract::Pick::Only,
        ..crate::extract::ExtractOptions::default()
    };
    if let Ok(x) = crate::extract::extract_json(text, &options)
        && let Value::Object(map) = x.value
        && wholly(text, x.method, x.start, x.end)
    {
        refuse_repeats(x.duplicate_keys.as_ref())?;
        return Ok(Said::Object(map));
    }
    Ok(Said::Text(text.to_owned()))
}

/// The text of a content given as a list of parts (`[{"type": "text",
/// "text": "..."}]`, as some servers send it), joined.
///
/// # Errors
/// A part that is not text.
fn text_parts(list: &[Value]) -> Result<String, String> {
    let mut text = String::new();
    for part in list {
        match (part.get("type").and_then(Value::as_str), part.get("text").and_then(Value::as_str)) {
            (Some("text"), Some(t)) => text.push_str(t),
            _ => return Err(String::from("the reply's content holds a part that is not text")),
        }
    }
    Ok(text)
}

/// Reasoning blocks as models write them: opening and closing tags.
const REASONING: [(&str, &str); 2] = [("<think>", "</think>"), ("<thinking>", "</thinking>")];

/// A trimmed text without the reasoning a model may open it with
/// (`<think>…</think>` or `<thinking>…</thinking>`, as reasoning models
/// served without a reasoning parser write it): the answer follows it.
/// A closing tag with no opening tag before it also ends reasoning that
/// began with the text (`Okay, let me judge…\n</think>\n\npolite`, as
/// DeepSeek-R1 distills and QwQ write it when the chat template opened
/// the block in the prompt), so a label on the reasoning's first line is
/// never read.
///
/// # Errors
/// The reasoning is never closed: the reply was cut off before the answer.
fn after_reasoning(text: &str) -> Result<&str, String> {
    for (open, close) in REASONING {
        if let Some(rest) = text.strip_prefix(open) {
            return match rest.find(close) {
                Some(i) => Ok(&rest[i + close.len()..]),
                None => Err(format!(
                    "the reply is only reasoning: `{open}` is never closed (cut off? a larger \
                     max_tokens leaves room for the answer)"
                )),
            };
        }
    }
    for (open, close) in REASONING {
        if let Some(i) = text.find(close)
            && !text[..i].contains(open)
        {
            return Ok(&text[i + close.len()..]);
        }
    }
    Ok(text)
}

/// Whether a document found at `start..end` of a trimmed `text` is the
/// whole of it: the whole text, or the body of one fence with nothing
/// around it but the fence's lines.
fn wholly(text: &str, method: crate::extract::Method, start: usize, end: usize) -> bool {
    match method {
        crate::extract::Method::Whole => true,
        crate::extract::Method::Fence => {
            let (before, after) = (text.get(..start).unwrap_or(""), text.get(end..).unwrap_or(""));
            let fence = |s: &str| s.starts_with("```") || s.starts_with("~~~");
            fence(before.trim()) && !before.trim().contains('\n') && {
                let after = after.trim();
                !after.is_empty() && after.chars().all(|c| c == '`' || c == '~')
            }
        }
        _ => false,
    }
}

/// An error naming the first key a judgement object repeats, if any.
fn refuse_repeats(repeated: Option<&crate::duplicate_keys::DuplicateKeys>) -> Result<(), String> {
    match repeated.and_then(|d| d.listed.first()) {
        None => Ok(()),
        Some(r) => {
            let key = match r.path.0.last() {
                Some(crate::path::PathSeg::Key(k)) => k.to_string(),
                _ => r.path.to_string(),
            };
            Err(format!(
                "the reply repeats the key `{key}` (at {}): which value was meant cannot be known",
                r.path
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lone_closing_tag_closes_reasoning_from_the_start() {
        let r1 = "Okay, let me judge...\n</think>\n\npolite";
        assert_eq!(after_reasoning(r1), Ok("\n\npolite"));
        assert_eq!(after_reasoning("polite\nhmm</thinking>rude"), Ok("rude"));
        assert_eq!(after_reasoning("<think>a</think>polite"), Ok("polite"));
        // Kept whole: no reasoning, or a block opened after the start.
        for kept in ["polite", "x <think>y</think> z"] {
            assert_eq!(after_reasoning(kept), Ok(kept), "{kept}");
        }
    }
}
