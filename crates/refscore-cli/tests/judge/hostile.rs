//! Hostile judge servers: credentials echoed JSON-escaped, JSON examples
//! inside text verdicts, unusable replies and the cache, repeated keys,
//! structured-output fallbacks in the accounting, absurd token counts.

use super::*;

/// A key with characters JSON writers escape (`/`), and a credential
/// header's value.
const SLASHED_KEY: &str = "sk-proj/SECRET-1234+Zz";
const HEADER_SECRET: &str = "hdr-SECRET-5678";

/// `text` written as `\uXXXX` escapes.
fn unicode(text: &str) -> String {
    text.chars().map(|c| format!("\\u{:04x}", u32::from(c))).collect()
}

fn error(r: &[Value], i: usize) -> String {
    r[i]["execution"]["polite"]["error"].as_str().unwrap_or("").to_owned()
}

#[test]
fn credentials_echoed_json_escaped_reach_no_output_and_not_the_cache() {
    // PHP-style `\/` in the tool call's arguments and around them.
    let args = json!({"label": "polite",
                      "explanation": format!("you sent Bearer {SLASHED_KEY} and {HEADER_SECRET}")})
    .to_string()
    .replace('/', r"\/");
    let escaped = json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": null,
        "tool_calls": [{"id": "c1", "type": "function",
                        "function": {"name": "record_judgement", "arguments": args}}]}}]})
    .to_string()
    .replace('/', r"\/");
    // The key as `\uXXXX` escapes inside a JSON content.
    let content = format!(r#"{{"label": "polite", "explanation": "{}"}}"#, unicode(SLASHED_KEY));
    let ascii = json!({"choices": [{"message": {"role": "assistant", "content": content}}]});
    let refused = format!(
        r#"{{"error": {{"message": "Incorrect API key provided: Bearer {}", "headers": {{"api-key": "{}"}}}}}}"#,
        SLASHED_KEY.replace('/', r"\/"),
        unicode(HEADER_SECRET)
    );
    let server = ScriptedServer::start(Script::new(vec![
        Rule::new(When::PromptContains("echo-escaped".into()), Reply::Garbage(escaped)),
        Rule::new(When::PromptContains("echo-unicode".into()), Reply::Garbage(ascii.to_string())),
        Rule::new(
            When::PromptContains("echo-401".into()),
            Reply::Status { code: 401, retry_after: None, body: refused },
        ),
    ]))
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let rows = ["echo-escaped", "echo-unicode", "echo-401"];
    let headers = json!({"headers": {"api-key": HEADER_SECRET}});
    setup(dir.path(), &server.base_url(), &rows, &headers, "{}");
    let o = run_with_key(dir.path(), SLASHED_KEY, &["--report", "md,junit,html"]);
    assert_eq!(code(&o), 1, "{}{}", stdout(&o), stderr(&o));
    let req = &server.requests()[0];
    assert_eq!(req.header("api-key"), Some(HEADER_SECRET));
    let r = results(dir.path());
    assert_eq!(r[0]["scores"][0]["explanation"], "you sent Bearer *** and ***", "{}", r[0]);
    assert_eq!(r[1]["scores"][0]["explanation"], "***", "{}", r[1]);
    assert!(error(&r, 2).contains("HTTP 401") && error(&r, 2).contains("Bearer ***"));
    // The suite holds the header's value; nothing else may.
    std::fs::remove_file(dir.path().join("suite.yaml")).unwrap();
    assert!(dir.path().join(".refscore/cache.db").exists());
    let all = everything(dir.path(), &o);
    assert!(!all.contains("SECRET"), "a credential leaked");
    assert!(!all.contains(&unicode("SECRET")[..24]), "a credential leaked escaped");
}

/// A server that quotes part of the key (OpenAI's 401 quotes its first
/// characters; another echoes all but its last) leaves no 12 characters
/// of it together anywhere: not in results, reports, console or cache.
#[test]
fn parts_of_the_key_echoed_back_reach_no_output_and_not_the_cache() {
    let quoted = format!(
        r#"{{"error": {{"message": "Incorrect API key provided: {}****{}", "type": "invalid_request_error"}}}}"#,
        &KEY[..12],
        &KEY[KEY.len() - 4..]
    );
    let most = json!({"choices": [{"index": 0, "finish_reason": "stop", "message": {
        "role": "assistant",
        "content": format!("{{\"label\": \"polite\", \"explanation\": \"key {}\"}}", &KEY[..KEY.len() - 1])}}]});
    let server = ScriptedServer::start(Script::new(vec![
        Rule::new(
            When::PromptContains("echo-401".into()),
            Reply::Status { code: 401, retry_after: None, body: quoted },
        ),
        Rule::new(When::PromptContains("echo-most".into()), Reply::Garbage(most.to_string())),
    ]))
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path(), &server.base_url(), &["echo-401", "echo-most"], &json!({}), "{}");
    let o = run_with_key(dir.path(), KEY, &["--report", "md,junit,html"]);
    assert_eq!(code(&o), 1, "{}{}", stdout(&o), stderr(&o));
    let r = results(dir.path());
    assert!(error(&r, 0).contains("HTTP 401"), "{}", error(&r, 0));
    assert!(error(&r, 0).contains("Incorrect API key provided: ***"), "{}", error(&r, 0));
    assert_eq!(r[1]["scores"][0]["label"], "polite", "{}", r[1]);
    assert_eq!(r[1]["scores"][0]["explanation"], "key ***", "{}", r[1]);
    assert!(dir.path().join(".refscore/cache.db").exists());
    let all = everything(dir.path(), &o);
    let chars: Vec<char> = KEY.chars().collect();
    for part in chars.windows(12) {
        let part: String = part.iter().collect();
        assert!(!all.contains(&part), "`{part}` of the key leaked");
    }
}

/// A proxy that streams every reply, asked or not: a whole stream is the
/// completion its chunks stand for, label and all.
#[test]
fn a_reply_streamed_unasked_is_read_when_whole() {
    let chunk = |delta: Value, finish: Value| {
        format!(
            "data: {}\n\n",
            json!({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
        )
    };
    let stream = [
        chunk(json!({"role": "assistant", "content": "pol"}), Value::Null),
        chunk(json!({"content": "ite\nIt is courteous."}), json!("stop")),
        String::from("data: [DONE]\n\n"),
    ]
    .concat();
    let server =
        ScriptedServer::start(Script::new(vec![Rule::always(Reply::Garbage(stream))])).unwrap();
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path(), &server.base_url(), &["a"], &json!({}), "{}");
    let o = run(dir.path(), &["--no-cache"]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let r = results(dir.path());
    assert_eq!(r[0]["scores"][0]["label"], "polite", "{}", r[0]);
    assert_eq!(r[0]["scores"][0]["explanation"], "It is courteous.", "{}", r[0]);
}

/// A server that ignores `max_tokens` and explains at length: the score
/// keeps the first 16 KiB and says how much it left out.
#[test]
fn a_runaway_explanation_is_cut_and_says_so() {
    let long = format!("polite\n{}", "because ".repeat(50_000));
    let server = ScriptedServer::start(Script::new(vec![Rule::always(Reply::Text(long))])).unwrap();
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path(), &server.base_url(), &["a"], &json!({}), "{}");
    let o = run(dir.path(), &["--no-cache"]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let r = results(dir.path());
    let e = r[0]["scores"][0]["explanation"].as_str().unwrap();
    assert!(e.len() < refscore::judge::MAX_EXPLANATION_BYTES + 100, "{}", e.len());
    assert!(
        e.ends_with("more bytes of the judge's explanation not kept)"),
        "{}",
        &e[e.len() - 80..]
    );
    assert_eq!(r[0]["scores"][0]["label"], "polite");
}

#[test]
fn a_text_verdict_is_its_first_line_whatever_json_follows() {
    // The server ignores tools and answers text: a JSON example further
    // down never overrides the label on the first line, and JSON inside
    // prose is never a verdict of its own.
    let server = ScriptedServer::start(Script::new(vec![
        Rule::new(
            When::PromptContains("first-line".into()),
            Reply::Text(
                "rude\nIt insults; a polite answer would get {\"label\": \"polite\"}.".into(),
            ),
        ),
        Rule::new(
            When::PromptContains("prose-json".into()),
            Reply::Text("My verdict:\n{\"label\": \"polite\"}".into()),
        ),
    ]))
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path(), &server.base_url(), &["first-line", "prose-json"], &json!({}), "{}");
    let o = run(dir.path(), &["--no-cache"]);
    assert_eq!(code(&o), 1, "{}{}", stdout(&o), stderr(&o));
    let r = results(dir.path());
    assert_eq!(r[0]["scores"][0]["label"], "rude", "{}", r[0]);
    assert_eq!(r[0]["passed"]["polite"], false);
    assert!(error(&r, 1).contains("first line is not one of the labels"), "{}", error(&r, 1));
    assert_eq!(r[1]["passed"]["polite"], false);
}

#[test]
fn an_unusable_reply_is_not_cached_and_a_rerun_recovers() {
    let server = ScriptedServer::start(Script::new(vec![
        Rule::new(
            When::PromptContains("off-choices".into()),
            Reply::tool_call(json!({"label": "neutral"})),
        )
        .times(1),
        Rule::new(When::PromptContains("no-content".into()), Reply::Text(String::new())).times(1),
    ]))
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let rows = ["off-choices LABEL=polite", "no-content LABEL=polite"];
    setup(dir.path(), &server.base_url(), &rows, &json!({}), "{}");
    let o = run(dir.path(), &[]);
    assert_eq!(code(&o), 1, "{}{}", stdout(&o), stderr(&o));
    let r = results(dir.path());
    assert!(error(&r, 0).contains("`neutral` is not one of the choices"), "{}", error(&r, 0));
    assert!(error(&r, 1).contains("the reply is empty"), "{}", error(&r, 1));
    assert_eq!(server.request_count(), 2);
    // The server is healthy again: the rerun asks again and recovers.
    let o = run(dir.path(), &[]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    assert_eq!(server.request_count(), 4);
    let r = results(dir.path());
    assert_eq!(
        (&r[0]["scores"][0]["label"], &r[1]["scores"][0]["label"]),
        (&json!("polite"), &json!("polite"))
    );
    // Those replies were usable: stored, and the next run asks nothing.
    assert_eq!(code(&run(dir.path(), &[])), 0);
    assert_eq!(server.request_count(), 4);
}

#[test]
fn a_judgement_that_repeats_its_label_fails_closed() {
    let server = ScriptedServer::start(Script::new(vec![Rule::always(Reply::tool_call(json!(
        r#"{"label":"rude","explanation":"x","label":"polite"}"#
    )))]))
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path(), &server.base_url(), &["Hello"], &json!({}), "{}");
    let o = run(dir.path(), &["--no-cache"]);
    assert_eq!(code(&o), 1, "{}{}", stdout(&o), stderr(&o));
    let r = results(dir.path());
    assert_eq!(r[0]["passed"]["polite"], false, "{}", r[0]);
    assert!(error(&r, 0).contains("the reply repeats the key `label`"), "{}", error(&r, 0));
}

#[test]
fn structured_output_fallbacks_are_requests_not_failed_judgements() {
    let server = ScriptedServer::start(Script::new(vec![
        Rule::new(
            When::PromptContains("Put the label on the first line".into()),
            Reply::Text("polite".into()),
        ),
        Rule::always(Reply::Status {
            code: 400,
            retry_after: None,
            body: "tools are not supported".into(),
        }),
    ]))
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path(), &server.base_url(), &["a", "b", "c"], &json!({}), "{}");
    let o = run(dir.path(), &["--no-cache"]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let j = &summary(dir.path())["judges"][0];
    assert_eq!((j["evaluations"].as_u64(), j["failures"].as_u64()), (Some(3), Some(0)), "{j}");
    let requests = j["requests"].as_u64().unwrap();
    assert!((5..=9).contains(&requests), "{j}");
    assert_eq!(requests, server.request_count() as u64);
    // The mode the judge moved to is said, as a refused setting is.
    let moved = "the server refused tools and response_format: judgements asked as plain text";
    assert_eq!(j["adapted"], json!([moved]), "{j}");
    assert!(stdout(&o).contains(moved), "{}", stdout(&o));
}

#[test]
fn absurd_token_counts_saturate() {
    let server = ScriptedServer::start(Script::new(vec![Rule::always(
        Reply::Auto.with_usage((1 << 63) - 1, u64::MAX),
    )]))
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let rows = ["a LABEL=polite", "b LABEL=polite", "c LABEL=polite"];
    setup(dir.path(), &server.base_url(), &rows, &json!({}), "{}");
    let o = run(dir.path(), &["--no-cache"]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let j = &summary(dir.path())["judges"][0];
    assert_eq!(
        (j["prompt_tokens"].as_u64(), j["completion_tokens"].as_u64()),
        (Some(u64::MAX), Some(u64::MAX)),
        "{j}"
    );
    assert!(j["cost"].as_f64().unwrap() > 5e13, "{j}");
}

#[test]
fn a_reasoning_model_that_refuses_max_tokens_and_temperature_is_judged_all_the_same() {
    let refusal = |param: &str, code: &str| {
        Reply::Status {
        code: 400,
        retry_after: None,
        body: json!({"error": {"message": format!("Unsupported parameter: '{param}' is not supported with this model."),
                               "type": "invalid_request_error", "param": param, "code": code}})
        .to_string(),
    }
    };
    let server = ScriptedServer::start(Script::new(vec![
        Rule::new(
            When::BodyHas("max_tokens".into()),
            refusal("max_tokens", "unsupported_parameter"),
        ),
        Rule::new(When::BodyHas("temperature".into()), refusal("temperature", "unsupported_value")),
        Rule::always(Reply::Auto),
    ]))
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let rows = ["a LABEL=polite", "b LABEL=rude", "c LABEL=polite"];
    setup(dir.path(), &server.base_url(), &rows, &json!({"max_tokens": 64}), "{}");
    let o = run(dir.path(), &[]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let r = results(dir.path());
    let labels: Vec<&Value> = r.iter().map(|r| &r["scores"][0]["label"]).collect();
    assert_eq!(labels, ["polite", "rude", "polite"], "{r:?}");
    let j = &summary(dir.path())["judges"][0];
    assert_eq!((j["evaluations"].as_u64(), j["failures"].as_u64()), (Some(3), Some(0)), "{j}");
    let first = server.request_count() as u64;
    assert_eq!(j["requests"].as_u64(), Some(first), "{j}");
    assert!((5..=9).contains(&first), "two refusals, learnt once: {j}");
    let adapted = j["adapted"].as_array().unwrap();
    assert_eq!(adapted.len(), 2, "{j}");
    assert!(
        stdout(&o).contains("judge `default`: the server refused max_tokens"),
        "{}",
        stdout(&o)
    );
    // Without its temperature the judge is not deterministic: nothing was
    // cached, and a rerun asks again.
    std::fs::remove_dir_all(dir.path().join("out")).unwrap();
    let o = run(dir.path(), &[]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let j = &summary(dir.path())["judges"][0];
    assert_eq!(j["cache_hits"].as_u64(), Some(0), "{j}");
    assert!(server.request_count() as u64 >= first + 3 + 2);
    // With a seed the replies are reproducible: cached, and a rerun sends
    // only the refused requests that teach the new judge.
    setup(dir.path(), &server.base_url(), &rows, &json!({"max_tokens": 64, "seed": 3}), "{}");
    for hits in [0, 3] {
        std::fs::remove_dir_all(dir.path().join("out")).unwrap_or_default();
        let o = run(dir.path(), &[]);
        assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
        let j = &summary(dir.path())["judges"][0];
        assert_eq!(j["cache_hits"].as_u64(), Some(hits), "{j}");
    }
}

#[test]
fn a_reply_cut_off_at_the_token_limit_fails_saying_so() {
    let server = ScriptedServer::start(Script::new(vec![Rule::always(
        Reply::Text("The reply is pol".into()).finished("length"),
    )]))
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path(), &server.base_url(), &["Hello"], &json!({"max_tokens": 5}), "{}");
    let o = run(dir.path(), &["--no-cache"]);
    assert_eq!(code(&o), 1, "{}{}", stdout(&o), stderr(&o));
    let r = results(dir.path());
    assert_eq!(r[0]["passed"]["polite"], false, "{}", r[0]);
    let e = error(&r, 0);
    assert!(e.contains("cut off at max_tokens") && e.contains("raise max_tokens"), "{e}");
}
