//! Tests of `classify` that need no server: options, request bodies and
//! reply reading. The HTTP round trips are tested against the scripted
//! server in the CLI tests.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use serde_json::json;

use super::*;
use crate::judge::{CacheMode, JudgeConfig, Judges};

/// A context with one judge named `default` that is never called.
pub(crate) fn context() -> BuildContext {
    let judge = Judge::with_key(
        "default",
        JudgeConfig::new("test-model"),
        None,
        None,
        CacheMode::Off,
        Arc::new(AtomicBool::new(false)),
    );
    BuildContext {
        judges: Arc::new(Judges::from_judges(vec![judge], Arc::new(AtomicBool::new(false)))),
        ..BuildContext::default()
    }
}

fn classify(options: Value) -> Result<Classify, ConfigError> {
    Classify::from_options(options.as_object().unwrap(), &context())
}

fn polite() -> Classify {
    classify(json!({
        "template": "Is this polite? {output}",
        "choices": {"polite": {"score": 1, "description": "courteous"}, "rude": 0},
    }))
    .unwrap()
}

fn reply(message: Value) -> Reply {
    Reply { message, prompt_tokens: 1, completion_tokens: 1, finish_reason: None, cached: false }
}

#[test]
fn choices_come_as_a_list_a_map_of_scores_or_of_settings() {
    let c = classify(json!({"template": "{x}", "choices": ["yes", "no"]})).unwrap();
    assert_eq!(
        c.choices.iter().map(|c| (c.label.as_str(), c.score)).collect::<Vec<_>>(),
        [("yes", None), ("no", None)]
    );
    let ordered = classify(json!({"template": "{x}", "choices": [
        {"label": "resolved", "score": 1, "description": "fixed"},
        {"label": "partial", "score": 0.5},
        {"label": "deflected", "score": 0}]}))
    .unwrap();
    let labels: Vec<&str> = ordered.choices.iter().map(|c| c.label.as_str()).collect();
    assert_eq!(labels, ["resolved", "partial", "deflected"], "a list keeps its order");
    assert_eq!(ordered.choices[1].score, Some(0.5));
    let schema = ordered.schema();
    assert_eq!(schema["properties"]["label"]["enum"], json!(["resolved", "partial", "deflected"]));
    let c = polite();
    assert_eq!(c.choices[0].description.as_deref(), Some("courteous"));
    assert_eq!((c.choices[0].score, c.choices[1].score), (Some(1.0), Some(0.0)));
    assert_eq!(c.inputs().iter().map(|i| i.name.as_ref()).collect::<Vec<_>>(), ["output"]);
    for (bad, says) in [
        (json!({"choices": ["a", "b"]}), "template"),
        (json!({"template": "{x}"}), "choices"),
        (json!({"template": "{x}", "choices": ["a"]}), "at least two"),
        (json!({"template": "{x}", "choices": ["a", "A"]}), "twice"),
        (json!({"template": "{x}", "choices": [1, 2]}), "a choice must be a label"),
        (json!({"template": "{x}", "choices": [{"score": 1}, "b"]}), "needs a `label`"),
        (
            json!({"template": "{x}", "choices": [{"label": "a", "colour": 1}, "b"]}),
            "unknown key `colour`",
        ),
        (json!({"template": "no placeholder", "choices": ["a", "b"]}), "no {placeholder}"),
        (
            json!({"template": "{x}", "choices": ["a", "b"], "judge": "other"}),
            "judge `other` is not defined",
        ),
    ] {
        let e = classify(bad).unwrap_err().to_string();
        assert!(e.contains(says), "{e}");
    }
}

#[test]
fn requests_ask_for_a_tool_call_a_json_schema_or_text() {
    let c = polite();
    let tools = c.request("P", StructuredMode::Tools);
    let f = &tools["tools"][0]["function"];
    assert_eq!(f["parameters"]["properties"]["label"]["enum"], json!(["polite", "rude"]));
    assert_eq!(f["parameters"]["required"], json!(["explanation", "label"]));
    assert_eq!(tools["tool_choice"]["function"]["name"], f["name"]);
    let content = tools["messages"][0]["content"].as_str().unwrap();
    assert!(content.starts_with("P\n\nLabels:\n- polite: courteous\n- rude"), "{content}");
    let js = c.request("P", StructuredMode::JsonSchema);
    assert_eq!(js["response_format"]["json_schema"]["schema"], f["parameters"]);
    assert!(js.get("tools").is_none());
    let text = c.request("P", StructuredMode::Text);
    let content = text["messages"][0]["content"].as_str().unwrap();
    assert!(content.contains("exactly one of these labels: polite, rude"), "{content}");
    // The labels are named in every mode: a server that takes the schema
    // or the tool without enforcing it still reads them.
    for mode in [StructuredMode::Tools, StructuredMode::JsonSchema] {
        let body = c.request("P", mode);
        let content = body["messages"][0]["content"].as_str().unwrap();
        assert!(
            content.ends_with("Answer with exactly one of these labels: polite, rude."),
            "{content}"
        );
    }
}

#[test]
fn labels_in_json_are_read_as_those_in_text() {
    let c = classify(json!({"template": "{x}", "choices": {"höflich": 1, "5": 0.5, "true": 0}}))
        .unwrap();
    let said = |label: Value| reply(json!({"content": json!({"label": label}).to_string()}));
    // Another Unicode form of the same label (o + combining diaeresis).
    assert_eq!(c.read_reply(&said(json!("ho\u{308}flich"))).unwrap().0.label, "höflich");
    assert_eq!(
        c.read_reply(&reply(json!({"content": "HO\u{308}FLICH"}))).unwrap().0.label,
        "höflich"
    );
    // Closing punctuation and emphasis, as on a text reply's first line.
    assert_eq!(c.read_reply(&said(json!("höflich."))).unwrap().0.label, "höflich");
    assert_eq!(c.read_reply(&said(json!("**höflich**"))).unwrap().0.label, "höflich");
    // A number or boolean for a choice written so.
    assert_eq!(c.read_reply(&said(json!(5))).unwrap().0.label, "5");
    assert_eq!(c.read_reply(&said(json!(true))).unwrap().0.label, "true");
    // Still never a guess.
    assert!(c.read_reply(&said(json!(6))).is_err());
    assert!(c.read_reply(&said(json!(null))).is_err());
    assert!(c.read_reply(&said(json!("not höflich"))).is_err());
}

#[test]
fn replies_are_read_from_tool_calls_json_or_text() {
    let c = polite();
    let tool = reply(json!({"tool_calls": [{"type": "function", "function": {
        "name": "record_judgement", "arguments": "{\"explanation\": \"kind words\", \"label\": \"polite\"}"}}]}));
    let (choice, why) = c.read_reply(&tool).unwrap();
    assert_eq!((choice.label.as_str(), why.as_deref()), ("polite", Some("kind words")));
    let json_content = reply(json!({"content": "{\"label\": \"RUDE\"}"}));
    assert_eq!(c.read_reply(&json_content).unwrap().0.label, "rude");
    let first_line = reply(json!({"content": "Rude.\nIt insults the reader."}));
    let (choice, why) = c.read_reply(&first_line).unwrap();
    assert_eq!((choice.label.as_str(), why.as_deref()), ("rude", Some("It insults the reader.")));
    let bold = reply(json!({"content": "**polite**"}));
    assert_eq!(c.read_reply(&bold).unwrap().0.label, "polite");
}

/// A call to a tool other than the one offered is no judgement, however
/// well its arguments read; a call that leaves the name out is read.
#[test]
fn a_call_to_another_tool_is_no_judgement() {
    let c = polite();
    let call = |function: Value| {
        reply(json!({"tool_calls": [{"type": "function", "function": function}]}))
    };
    let args = "{\"label\": \"polite\"}";
    let other = call(json!({"name": "get_weather", "arguments": args}));
    let e = c.read_reply(&other).unwrap_err();
    assert!(e.contains("`get_weather`, not `record_judgement`"), "{e}");
    let unnamed = call(json!({"arguments": args}));
    assert_eq!(c.read_reply(&unnamed).unwrap().0.label, "polite");
    let named = call(json!({"name": JUDGEMENT_TOOL, "arguments": args}));
    assert_eq!(c.read_reply(&named).unwrap().0.label, "polite");
}

#[test]
fn labels_outside_the_choices_are_never_guessed() {
    let c = polite();
    for (message, says) in [
        (
            json!({"tool_calls": [{"function": {"arguments": "{\"label\": \"neutral\"}"}}]}),
            "`neutral` is not one of",
        ),
        (json!({"content": "{\"label\": \"maybe\"}"}), "`maybe` is not one of"),
        (json!({"content": "polite or rude, hard to say"}), "first line is not one of the labels"),
        (json!({"content": "impolite"}), "first line is not one of the labels"),
        // A label mentioned in a sentence is never the verdict.
        (json!({"content": "The answer is not polite."}), "first line is not one of the labels"),
        (
            json!({"content": "I would call this answer polite overall"}),
            "first line is not one of the labels",
        ),
        (json!({"content": ""}), "empty"),
        (
            json!({"tool_calls": [{"function": {"arguments": "{\"explanation\": \"x\"}"}}]}),
            "no label",
        ),
    ] {
        let e = c.read_reply(&reply(message.clone())).unwrap_err();
        assert!(e.contains(says), "{message}: {e}");
    }
}

#[test]
fn a_json_example_in_prose_never_overrides_the_first_line() {
    let c = polite();
    // The first line is the verdict; the JSON further down is an example.
    let text = "rude\nIt insults the reader; a polite answer would get {\"label\": \"polite\"}.";
    let (choice, why) = c.read_reply(&reply(json!({"content": text}))).unwrap();
    assert_eq!(choice.label, "rude");
    assert!(why.unwrap().starts_with("It insults"));
    // No label on the first line: JSON inside prose does not stand in.
    for content in [
        "My verdict follows.\n{\"label\": \"polite\"}",
        "Sure! {\"label\": \"polite\", \"explanation\": \"kind\"}",
        "Here:\n```json\n{\"label\": \"polite\"}\n```",
        "```json\n{\"label\": \"polite\"}\n```\nor perhaps {\"label\": \"rude\"}",
    ] {
        let e = c.read_reply(&reply(json!({"content": content}))).unwrap_err();
        assert!(e.contains("first line is not one of the labels"), "{content}: {e}");
    }
    // A content that is wholly JSON (or wholly one fence) is read as JSON.
    for content in ["  {\"label\": \"polite\"}\n", "```json\n{\"label\": \"polite\"}\n```"] {
        assert_eq!(c.read_reply(&reply(json!({"content": content}))).unwrap().0.label, "polite");
    }
    let e = c.read_reply(&reply(json!({"content": "{\"verdict\": \"polite\"}"}))).unwrap_err();
    assert!(e.contains("no label"), "{e}");
}

#[test]
fn a_judgement_that_repeats_a_key_or_calls_twice_fails_closed() {
    let c = polite();
    let args = |a: &str| json!({"tool_calls": [{"function": {"arguments": a}}]});
    for message in [
        args(r#"{"label":"rude","explanation":"x","label":"polite"}"#),
        json!({"content": "{\"label\": \"rude\", \"label\": \"polite\"}"}),
        json!({"content": "```json\n{\"label\": \"rude\", \"label\": \"polite\"}\n```"}),
    ] {
        let e = c.read_reply(&reply(message.clone())).unwrap_err();
        assert!(e.contains("the reply repeats the key `label`"), "{message}: {e}");
    }
    let two = json!({"tool_calls": [
        {"function": {"arguments": "{\"label\": \"rude\"}"}},
        {"function": {"arguments": "{\"label\": \"polite\"}"}}]});
    let e = c.read_reply(&reply(two)).unwrap_err();
    assert!(e.contains("2 tool calls"), "{e}");
    let e = c.read_reply(&reply(args("polite"))).unwrap_err();
    assert!(e.contains("arguments are not a JSON object"), "{e}");
}

#[test]
fn reasoning_before_the_answer_and_content_in_parts_are_read() {
    let c = polite();
    // A reasoning model served without a reasoning parser: the answer
    // follows its `<think>` block, and what the block says never counts.
    for content in [
        "<think>\nThe user says thanks. {\"label\": \"polite\"}\n</think>\n\nRude.\nIt insults.",
        "<thinking>polite?</thinking>{\"label\": \"rude\"}",
    ] {
        let r = reply(json!({"content": content}));
        assert_eq!(c.read_reply(&r).unwrap().0.label, "rude", "{content}");
    }
    let cut = reply(json!({"content": "<think>The user says thanks, so polite"}));
    let e = c.read_reply(&cut).unwrap_err();
    assert!(e.contains("only reasoning: `<think>` is never closed"), "{e}");
    let only = reply(json!({"content": "<think>polite</think>  "}));
    assert!(c.read_reply(&only).unwrap_err().contains("empty"));
    // Content as a list of text parts.
    let parts = reply(
        json!({"content": [{"type": "text", "text": "Po"}, {"type": "text", "text": "lite"}]}),
    );
    assert_eq!(c.read_reply(&parts).unwrap().0.label, "polite");
    let image = reply(json!({"content": [{"type": "image_url", "image_url": {"url": "x"}}]}));
    assert!(c.read_reply(&image).unwrap_err().contains("part that is not text"));
    // A reply cut off at max_tokens, or withheld by a filter, says so.
    let cut = Reply {
        finish_reason: Some("length".into()),
        ..reply(json!({"tool_calls": [{"function": {"arguments": "{\"label\": \"pol"}}]}))
    };
    let e = c.read_reply(&cut).unwrap_err();
    assert!(e.contains("not a JSON object (the reply was cut off at max_tokens"), "{e}");
    let first_line_cut =
        Reply { finish_reason: Some("length".into()), ..reply(json!({"content": "Polite"})) };
    let e = c.read_reply(&first_line_cut).unwrap_err();
    assert!(e.contains("cut off at max_tokens in its first line"), "{e}");
    let explanation_cut = Reply {
        finish_reason: Some("length".into()),
        ..reply(json!({"content": "Polite\nThe reply thanks the"}))
    };
    assert_eq!(c.read_reply(&explanation_cut).unwrap().0.label, "polite");
    let filtered =
        Reply { finish_reason: Some("content_filter".into()), ..reply(json!({"content": ""})) };
    assert!(c.read_reply(&filtered).unwrap_err().contains("content filter withheld"));
    // A refusal says so, not "empty".
    let refused = reply(json!({"content": null, "refusal": "I can't help with that."}));
    let e = c.read_reply(&refused).unwrap_err();
    assert!(e.contains("the model refused to judge: I can't help with that."), "{e}");
}

/// A label with punctuation of its own is read as written, and a reply
/// is never matched to a label by dropping the label's own characters;
/// labels a reply could not tell apart are refused.
#[test]
fn labels_with_punctuation_are_read_as_written() {
    let e =
        classify(json!({"template": "{x}", "choices": ["pass", "pass."]})).unwrap_err().to_string();
    assert!(e.contains("labels `pass` and `pass.` differ only in quotes"), "{e}");
    // A grade scale is fine: `+` and `-` are the labels' own.
    let c = classify(json!({"template": "{x}", "choices": ["A+", "A", "B-", "C?"]})).unwrap();
    for (content, label) in [
        ("A+", "A+"),
        ("A", "A"),
        ("**A+**", "A+"),
        ("`B-`.", "B-"),
        ("\"a\"", "A"),
        ("# A+", "A+"),
        ("C?", "C?"),
        ("c?", "C?"),
    ] {
        let (choice, _) = c.read_reply(&reply(json!({"content": content}))).unwrap();
        assert_eq!(choice.label, label, "{content}");
    }
    // Not offered: never the nearest label.
    for (choices, content) in [
        (json!(["A+", "B-"]), "A"),
        (json!(["C++", "Rust"]), "C"),
        (json!(["C", "Java"]), "C#"),
        (json!(["pass?", "fail"]), "pass"),
        (json!(["B-", "A"]), "B"),
    ] {
        let c = classify(json!({"template": "{x}", "choices": choices})).unwrap();
        let e = c.read_reply(&reply(json!({"content": content}))).unwrap_err();
        assert!(e.contains("first line is not one of the labels"), "{content}: {e}");
    }
}
