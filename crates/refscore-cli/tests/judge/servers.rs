//! Real servers' behaviours end to end: R1-style reasoning closed but
//! never opened, a key echoed split across content parts, llama.cpp
//! without `--jinja`, keys that cannot be sent and key variables not set.

use super::*;

fn error(r: &[Value], i: usize) -> String {
    r[i]["execution"]["polite"]["error"].as_str().unwrap_or("").to_owned()
}

#[test]
fn reasoning_closed_but_never_opened_is_skipped() {
    let server = ScriptedServer::start(Script::new(vec![
        Rule::new(
            When::PromptContains("r1-plain".into()),
            Reply::Text(
                "Okay, let me judge this reply.\nIt thanks the user.\n</think>\n\npolite".into(),
            ),
        ),
        // The reasoning opens with a label: never taken for the answer.
        Rule::new(
            When::PromptContains("r1-label-first".into()),
            Reply::Text(
                "polite\nat first sight, but it insults.\n</think>\n\nrude\nIt insults.".into(),
            ),
        ),
        Rule::new(
            When::PromptContains("r1-nothing-after".into()),
            Reply::Text("polite\n</think>\n".into()),
        ),
    ]))
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let rows = ["r1-plain", "r1-label-first", "r1-nothing-after"];
    setup(dir.path(), &server.base_url(), &rows, &json!({}), "{}");
    let o = run(dir.path(), &["--no-cache"]);
    assert_eq!(code(&o), 1, "{}{}", stdout(&o), stderr(&o));
    let r = results(dir.path());
    assert_eq!(r[0]["scores"][0]["label"], "polite", "{}", r[0]);
    assert_eq!(r[1]["scores"][0]["label"], "rude", "{}", r[1]);
    assert_eq!(r[1]["scores"][0]["explanation"], "It insults.", "{}", r[1]);
    assert!(r[2]["scores"].as_array().unwrap().is_empty(), "{}", r[2]);
    assert!(error(&r, 2).contains("the reply is empty"), "{}", error(&r, 2));
}

#[test]
fn a_key_echoed_across_content_parts_is_removed_whole() {
    let parts = json!({"choices": [{"index": 0, "finish_reason": "stop", "message": {
        "role": "assistant",
        "content": [{"type": "text", "text": format!("rude\n{}", &KEY[..12])},
                    {"type": "text", "text": &KEY[12..]}]}}]});
    let server =
        ScriptedServer::start(Script::new(vec![Rule::always(Reply::Garbage(parts.to_string()))]))
            .unwrap();
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path(), &server.base_url(), &["Hello"], &json!({}), "{}");
    let o = run(dir.path(), &["--report", "md,junit,html"]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let r = results(dir.path());
    assert_eq!(r[0]["scores"][0]["label"], "rude", "{}", r[0]);
    assert_eq!(r[0]["scores"][0]["explanation"], "***", "{}", r[0]);
    assert!(!everything(dir.path(), &o).contains(KEY), "the key leaked");
}

#[test]
fn a_server_that_needs_jinja_for_tools_gets_json_schema_at_once() {
    let jinja = r#"{"error":{"code":500,"message":"tools param requires --jinja flag","type":"server_error"}}"#;
    let server = ScriptedServer::start(Script::new(vec![Rule::new(
        When::BodyHas("tools".into()),
        Reply::Status { code: 500, retry_after: None, body: jinja.into() },
    )]))
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    setup(
        dir.path(),
        &server.base_url(),
        &["Thanks LABEL=polite", "Go LABEL=rude"],
        &json!({}),
        "{}",
    );
    let o = run(dir.path(), &["--no-cache", "--threads", "1"]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let r = results(dir.path());
    assert_eq!(r[0]["scores"][0]["label"], "polite", "{}", r[0]);
    assert_eq!(r[0]["scores"][0]["metadata"]["mode"], "json_schema");
    assert_eq!(r[1]["scores"][0]["metadata"]["mode"], "json_schema");
    // One refusal, not retried; the second row starts with json_schema.
    assert_eq!(server.request_count(), 3);
    assert_eq!(summary(dir.path())["judges"][0]["retries"], 0);
}

#[test]
fn a_key_that_cannot_be_sent_or_is_not_set_fails_the_load_naming_its_variable() {
    let server = ScriptedServer::start(Script::new(vec![])).unwrap();
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path(), &server.base_url(), &["Hello LABEL=polite"], &json!({}), "{}");
    for (key, says) in [
        ("sk-first-half-0123\nsk-second-half-4567", "a line break"),
        ("sk-first-half-0123\u{200b}", "not visible ASCII (U+200B"),
        ("sk-first-half-0123\u{7f}4567", "a control character (U+007F)"),
    ] {
        let o = run_with_key(dir.path(), key, &[]);
        let err = stderr(&o);
        assert_eq!(code(&o), 2, "{key:?}: {}{err}", stdout(&o));
        assert!(err.contains("`TEST_JUDGE_KEY`") && err.contains(says), "{err}");
        assert!(!err.contains("first-half") && !err.contains("4567"), "{err}");
    }
    // `api_key_env` naming a variable that is not set, or is empty.
    for key in ["", "  "] {
        let o = run_with_key(dir.path(), key, &[]);
        assert_eq!(code(&o), 2, "{}{}", stdout(&o), stderr(&o));
        assert!(stderr(&o).contains("`TEST_JUDGE_KEY`, which is not set"), "{}", stderr(&o));
    }
    assert_eq!(server.request_count(), 0, "nothing sent");
    // `api_key_env: ""`: no key, as documented.
    setup(
        dir.path(),
        &server.base_url(),
        &["Hello LABEL=polite"],
        &json!({"api_key_env": ""}),
        "{}",
    );
    let o = run_with_key(dir.path(), "", &["--no-cache"]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    assert_eq!(server.requests()[0].header("authorization"), None);
}

#[test]
fn a_401_without_the_default_key_says_it_was_not_set() {
    let server =
        ScriptedServer::start(Script::new(vec![Rule::always(Reply::status(401))])).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let judge = json!({"api_key_env": null});
    setup(dir.path(), &server.base_url(), &["Hello"], &judge, "{}");
    let o = run(dir.path(), &["--no-cache"]);
    assert_eq!(code(&o), 1, "{}{}", stdout(&o), stderr(&o));
    let e = error(&results(dir.path()), 0);
    assert!(e.contains("HTTP 401") && e.contains("OPENAI_API_KEY is not set"), "{e}");
}

#[test]
fn an_unreachable_judge_names_its_address_and_what_to_check() {
    // A port nothing listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let base = format!("http://127.0.0.1:{port}/v1");
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path(), &base, &["Hello"], &json!({"retries": 0}), "{}");
    let o = run(dir.path(), &["--no-cache"]);
    assert_eq!(code(&o), 1, "{}{}", stdout(&o), stderr(&o));
    let e = error(&results(dir.path()), 0);
    assert!(
        e.starts_with(&format!(
            "judge `default`: no answer from {base}/chat/completions after 1 attempt(s): "
        )),
        "{e}"
    );
    assert!(
        e.ends_with(
            "(check the judge's base_url, and that the server is running and reachable from here)"
        ),
        "{e}"
    );
    // An address from OPENAI_BASE_URL (the judge has no base_url) says so.
    setup(dir.path(), "unused", &["Hello"], &json!({"retries": 0, "base_url": null}), "{}");
    let o = Command::new(env!("CARGO_BIN_EXE_refscore"))
        .arg("run")
        .arg(dir.path().join("suite.yaml"))
        .arg("-o")
        .arg(dir.path().join("out"))
        .arg("--no-cache")
        .env("TEST_JUDGE_KEY", KEY)
        .env("OPENAI_BASE_URL", &base)
        .output()
        .expect("runs");
    assert_eq!(code(&o), 1, "{}{}", stdout(&o), stderr(&o));
    let e = error(&results(dir.path()), 0);
    assert!(
        e.contains(&format!("no answer from {base}/chat/completions after 1 attempt(s)")),
        "{e}"
    );
    assert!(
        e.contains("(the judge has no base_url, so OPENAI_BASE_URL was asked: check it"),
        "{e}"
    );
    // A load error of the suite's `judge:` says `judge`, as written.
    setup(
        dir.path(),
        &base,
        &["Hello"],
        &json!({"api_key_env": "REFSCORE_TEST_SURELY_UNSET"}),
        "{}",
    );
    let o = run(dir.path(), &[]);
    assert_eq!(code(&o), 2, "{}{}", stdout(&o), stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains(
            "judge: api_key_env names the environment variable `REFSCORE_TEST_SURELY_UNSET`"
        ),
        "{err}"
    );
    assert!(!err.contains("judges.default"), "{err}");
}
