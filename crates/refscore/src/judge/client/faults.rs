//! Hostile servers: redirects, echoed credentials in every escaped form,
//! repeated keys, absurd token counts. A raw one-connection-per-answer
//! server on 127.0.0.1 stands in where the scripted server cannot (a
//! `Location` header).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use serde_json::json;

use super::*;

/// A server answering each connection with the next of `answers` (built
/// from its base URL); the request lines it got.
fn serve<A: AsRef<[u8]> + Send + 'static>(
    answers: impl FnOnce(&str) -> Vec<A>,
) -> (String, Arc<Mutex<Vec<String>>>) {
    let (base, seen, _) = serve_logging_bodies(answers);
    (base, seen)
}

/// [`serve`], also keeping the request bodies.
#[allow(clippy::type_complexity)]
fn serve_logging_bodies<A: AsRef<[u8]> + Send + 'static>(
    answers: impl FnOnce(&str) -> Vec<A>,
) -> (String, Arc<Mutex<Vec<String>>>, Arc<Mutex<Vec<Value>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let answers = answers(&base);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    let bodies = Arc::new(Mutex::new(Vec::new()));
    let body_log = Arc::clone(&bodies);
    std::thread::spawn(move || {
        for answer in answers {
            let Ok((stream, _)) = listener.accept() else { return };
            let mut reader = BufReader::new(stream);
            let mut head = String::new();
            let mut length = 0usize;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap_or(0);
                }
                if head.is_empty() {
                    head = line.trim_end().to_owned();
                }
            }
            let mut body = vec![0; length];
            let _ = reader.read_exact(&mut body);
            log.lock().unwrap().push(head);
            body_log.lock().unwrap().push(serde_json::from_slice(&body).unwrap_or(Value::Null));
            let _ = reader.get_mut().write_all(answer.as_ref());
        }
    });
    (format!("{base}/v1"), seen, bodies)
}

fn http(status: &str, headers: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status}\r\n{headers}Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

const KEY: &str = "sk-proj/SECRET-1234+Zz";
const HEADER: &str = "hdr-SECRET-5678";

fn judge(base_url: &str) -> Judge {
    let mut c = JudgeConfig::new("m");
    c.base_url = Some(base_url.to_owned());
    c.retries = Some(2);
    c.timeout = Some(5.0);
    c.headers.insert("api-key".into(), HEADER.into());
    c.headers.insert("api-version".into(), "2024-06-01".into());
    let key = Some(ApiKey::new(KEY));
    Judge::with_key("j", c, key, None, CacheMode::Off, Arc::new(AtomicBool::new(false)))
}

/// A judge of `model` at `base`, without a key, cache or retries beyond
/// the defaults, its settings changed by `configure`.
fn keyless(model: &str, base: String, configure: impl FnOnce(&mut JudgeConfig)) -> Judge {
    let mut c = JudgeConfig::new(model);
    c.base_url = Some(base);
    configure(&mut c);
    Judge::with_key("j", c, None, None, CacheMode::Off, Arc::new(AtomicBool::new(false)))
}

fn completion(arguments: &str) -> String {
    json!({"choices": [{"message": {"role": "assistant", "tool_calls": [
        {"function": {"name": "record_judgement", "arguments": arguments}}]}}]})
    .to_string()
}

#[test]
fn a_redirect_is_an_error_never_followed() {
    let (base, seen) = serve(|base| {
        let location = format!("Location: {base}/elsewhere?key={KEY}\r\n");
        vec![
            http("302 Found", &location, ""),
            http("200 OK", "", &completion(r#"{"label": "polite"}"#)),
        ]
    });
    let j = judge(&base);
    let e = j
        .ask("ev", Some(StructuredMode::Tools), |_| Map::new(), |r| Ok(r.message.clone()))
        .unwrap_err();
    let AskError::Request(e) = e else { panic!("{e:?}") };
    let text = e.to_string();
    assert!(matches!(e, JudgeError::Redirect { status: 302, .. }), "{text}");
    assert!(text.contains("HTTP 302 redirect to `http://127.0.0.1:"), "{text}");
    assert!(text.contains("/elsewhere?key=***`"), "{text}");
    assert!(!text.contains("SECRET"), "{text}");
    // One request: not replayed elsewhere, not retried.
    assert_eq!(seen.lock().unwrap().as_slice(), ["POST /v1/chat/completions HTTP/1.1"]);
    let u = &j.usage()[0];
    assert_eq!((u.evaluations, u.requests, u.failures), (1, 1, 1));
}

#[test]
fn credentials_echoed_in_an_error_body_are_removed_in_every_form() {
    let escaped = KEY.replace('/', r"\/");
    let unicode: String = HEADER.chars().map(|c| format!("\\u{:04x}", u32::from(c))).collect();
    let body = format!(
        r#"{{"error": {{"message": "Incorrect API key provided: Bearer {escaped}", "headers": {{"api-key": "{unicode}"}}}}}}"#
    );
    let (base, _) = serve(|_| vec![http("401 Unauthorized", "", &body)]);
    let e = judge(&base).chat("ev", Map::new()).unwrap_err().to_string();
    assert!(e.contains("HTTP 401") && e.contains("Bearer ***"), "{e}");
    assert!(!e.contains("SECRET") && !e.contains("\\u0068"), "{e}");
}

#[test]
fn replies_are_decoded_redacted_and_checked_for_repeated_keys() {
    let j = judge("http://127.0.0.1:9/v1");
    // The key in a tool call's arguments, escaped once more inside them.
    let args = json!({"label": "polite", "explanation": format!("you sent Bearer {KEY}")})
        .to_string()
        .replace('/', r"\/");
    let ascii: String = HEADER.chars().map(|c| format!("\\u{:04x}", u32::from(c))).collect();
    let content = format!(r#"{{"label": "polite", "explanation": "{ascii}"}}"#);
    for body in
        [completion(&args), json!({"choices": [{"message": {"content": content}}]}).to_string()]
    {
        let (reply, clean) = j.parse(&body).unwrap();
        let message = crate::json::compact(&reply.message);
        for text in [&message, &clean] {
            assert!(!text.contains("SECRET") && !text.contains("\\\\u0068"), "{text}");
        }
    }
    let twice = r#"{"choices": [{"message": {"content": "rude"}}], "choices": [{"message": {"content": "polite"}}]}"#;
    let e = j.parse(twice).unwrap_err().to_string();
    assert!(e.contains("malformed reply (the reply repeats the key `$.choices`)"), "{e}");
}

#[test]
fn token_counts_never_wrap_nor_panic() {
    let j = judge("http://127.0.0.1:9/v1");
    for (usage, want) in [
        (r#"{"prompt_tokens": 18446744073709551615, "completion_tokens": 7}"#, (u64::MAX, 7)),
        (
            r#"{"prompt_tokens": 1e300, "completion_tokens": 99999999999999999999999}"#,
            (u64::MAX, u64::MAX),
        ),
        (r#"{"prompt_tokens": -5, "completion_tokens": "12"}"#, (0, 0)),
        (r#"{"prompt_tokens": 2.9, "completion_tokens": null}"#, (2, 0)),
        (r#""lots""#, (0, 0)),
    ] {
        let body =
            format!(r#"{{"choices": [{{"message": {{"content": "x"}}}}], "usage": {usage}}}"#);
        let (reply, _) = j.parse(&body).unwrap();
        assert_eq!((reply.prompt_tokens, reply.completion_tokens), want, "{usage}");
    }
}

#[test]
fn a_request_every_mode_refuses_does_not_downgrade_later_ones() {
    let refused = http(
        "400 Bad Request",
        "",
        r#"{"error": {"message": "maximum context length is 8192 tokens"}}"#,
    );
    let no_tools =
        http("400 Bad Request", "", r#"{"error": {"message": "tools are not supported"}}"#);
    let (base, seen) = serve(|_| {
        vec![
            // One judgement's prompt is too long: every mode gets a 400.
            refused.clone(),
            refused.clone(),
            refused,
            // The next one is answered in tools mode, as the server can.
            http("200 OK", "", &completion(r#"{"label": "polite"}"#)),
            // Then the server refuses tools: json_schema answers, and
            // is what the judgements after it start with.
            no_tools,
            http(
                "200 OK",
                "",
                &json!({"choices": [{"message": {"content": "{\"label\": \"rude\"}"}}]})
                    .to_string(),
            ),
        ]
    });
    let j = judge(&base);
    let ask = || {
        j.ask(
            "ev",
            None,
            |m| Map::from_iter([("mode".to_owned(), json!(m.as_str()))]),
            |r| Ok(r.message.clone()),
        )
    };
    let AskError::Request(e) = ask().unwrap_err() else { panic!() };
    assert!(e.to_string().contains("maximum context length"), "{e}");
    assert_eq!(
        j.preferred_mode(),
        StructuredMode::Tools,
        "nothing learnt from a request's own fault"
    );
    let (_, _, mode) = ask().unwrap();
    assert_eq!(mode, StructuredMode::Tools);
    let (_, _, mode) = ask().unwrap();
    assert_eq!(mode, StructuredMode::JsonSchema);
    assert_eq!(
        j.preferred_mode(),
        StructuredMode::JsonSchema,
        "a mode refused and the next answered"
    );
    assert_eq!(seen.lock().unwrap().len(), 6);
}

#[test]
fn a_404_names_the_address_without_its_query_and_suggests_v1() {
    let (base, seen) = serve(|_| vec![http("404 Not Found", "", r#"{"detail": "Not Found"}"#)]);
    let base = base.trim_end_matches("/v1").to_owned() + "/api?token=hush";
    let j = judge(&base);
    let AskError::Request(e) = j
        .ask("ev", Some(StructuredMode::Text), |_| Map::new(), |r| Ok(r.message.clone()))
        .unwrap_err()
    else {
        panic!()
    };
    let text = e.to_string();
    assert!(text.contains("HTTP 404 after 1 attempt(s)"), "{text}");
    assert!(text.contains("/api/chat/completions; is base_url right?"), "{text}");
    assert!(text.contains("serve under /v1"), "{text}");
    assert!(!text.contains("hush"), "{text}");
    assert_eq!(seen.lock().unwrap().as_slice(), ["POST /api/chat/completions?token=hush HTTP/1.1"]);
}

#[test]
fn a_501_to_tools_falls_back_at_once_and_is_not_retried() {
    let (base, seen) = serve(|_| {
        vec![
            http("501 Not Implemented", "", r#"{"error": {"message": "tools not implemented"}}"#),
            http(
                "200 OK",
                "",
                &json!({"choices": [{"message": {"content": "{\"label\": \"polite\"}"}}]})
                    .to_string(),
            ),
        ]
    });
    let j = judge(&base);
    let (_, _, mode) = j.ask("ev", None, |_| Map::new(), |r| Ok(r.message.clone())).unwrap();
    assert_eq!(mode, StructuredMode::JsonSchema);
    assert_eq!(seen.lock().unwrap().len(), 2, "one 501, no retry, then the next mode");
}

/// A model LiteLLM's proxy does not know is a 400 in every mode: one
/// request, not one per mode, and the error names the judge's `model`.
#[test]
fn a_model_a_proxy_refuses_with_400_is_named_and_not_tried_in_every_mode() {
    let refusal = r#"{"error":{"message":"/chat/completions: Invalid model name passed in model=judge-model. Call `/v1/models` to view available models for your key.","type":"invalid_request_error","param":"model","code":"400"}}"#;
    let (base, seen) = serve(move |_| vec![http("400 Bad Request", "", refusal); 3]);
    let j = judge(&base);
    let Err(AskError::Request(e)) = j.ask("ev", None, |_| Map::new(), |r| Ok(r.message.clone()))
    else {
        panic!("the request should fail")
    };
    let text = e.to_string();
    assert!(text.contains("the model `m` was not found on the server"), "{text}");
    assert_eq!(seen.lock().unwrap().len(), 1, "{text}");
}

/// An embeddings reply that cannot be used was still billed: its prompt
/// tokens count, with the failure.
#[test]
fn a_malformed_embeddings_reply_keeps_its_tokens() {
    let reply = r#"{"data": [{"index": 0, "embedding": [1, 0]}], "usage": {"prompt_tokens": 10}}"#;
    let (base, _) = serve(move |_| vec![http("200 OK", "", reply)]);
    let j = judge(&base);
    let e = j.embeddings("ev", None, &["a", "b"]).unwrap_err().to_string();
    assert!(e.contains("1 embedding(s) for 2 input(s)"), "{e}");
    let u = &j.usage()[0];
    assert_eq!((u.requests, u.failures, u.prompt_tokens), (1, 1, 10), "{u:?}");
}

/// How long a judgement took whose first answer is `first` (a 429) and
/// whose second is a verdict; asserts the two requests.
fn retried_after(first: String) -> std::time::Duration {
    let (base, seen) =
        serve(move |_| vec![first, http("200 OK", "", &completion(r#"{"label": "polite"}"#))]);
    let j = judge(&base);
    let started = std::time::Instant::now();
    j.ask("ev", Some(StructuredMode::Tools), |_| Map::new(), |r| Ok(r.message.clone())).unwrap();
    assert_eq!(seen.lock().unwrap().len(), 2);
    started.elapsed()
}

#[test]
fn retry_after_ms_is_honoured() {
    let waited = retried_after(http(
        "429 Too Many Requests",
        "retry-after-ms: 1200\r\nRetry-After: 0\r\n",
        "{}",
    ));
    // The millisecond header wins over `Retry-After: 0` (and over the
    // 125-250 ms backoff): a lower bound, whatever the machine's load.
    assert!(waited >= std::time::Duration::from_millis(1150), "{waited:?}");
}

#[test]
fn a_retry_after_a_proxy_passed_on_is_honoured() {
    // LiteLLM's proxy gives the provider's `Retry-After` under its own name.
    let waited =
        retried_after(http("429 Too Many Requests", "llm_provider-retry-after: 1\r\n", "{}"));
    assert!(waited >= std::time::Duration::from_millis(950), "{waited:?}");
}

#[test]
fn a_retry_delay_in_the_body_is_honoured_without_a_header() {
    let gemini = r#"{"error": {"code": 429, "status": "RESOURCE_EXHAUSTED", "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "1.2s"}]}}"#;
    let waited = retried_after(http("429 Too Many Requests", "", gemini));
    // Longer than the 125-250 ms backoff it fell back to.
    assert!(waited >= std::time::Duration::from_millis(1150), "{waited:?}");
}

#[test]
fn a_spent_quota_is_not_retried_and_an_unreadable_400_still_falls_back() {
    let quota = r#"{"error": {"message": "You exceeded your current quota", "type": "insufficient_quota", "code": "insufficient_quota"}}"#;
    let (base, seen) = serve(|_| vec![http("429 Too Many Requests", "", quota)]);
    let j = judge(&base);
    let AskError::Request(e) = j
        .ask("ev", Some(StructuredMode::Tools), |_| Map::new(), |r| Ok(r.message.clone()))
        .unwrap_err()
    else {
        panic!()
    };
    assert!(e.to_string().contains("HTTP 429 after 1 attempt(s)"), "{e}");
    assert_eq!(seen.lock().unwrap().len(), 1);
    // A 400 whose body is not UTF-8: still a 400, so the next mode is asked.
    let mut garbled = http("400 Bad Request", "", "..").into_bytes();
    let n = garbled.len();
    garbled[n - 2..].copy_from_slice(&[0xff, 0xfe]);
    let answered = http(
        "200 OK",
        "",
        &json!({"choices": [{"message": {"content": "{\"label\": \"polite\"}"}}]}).to_string(),
    );
    let (base, seen) = serve(|_| vec![garbled, answered.into_bytes()]);
    let j = judge(&base);
    let (_, _, mode) = j.ask("ev", None, |_| Map::new(), |r| Ok(r.message.clone())).unwrap();
    assert_eq!(mode, StructuredMode::JsonSchema);
    assert_eq!(seen.lock().unwrap().len(), 2, "no retry of the unreadable 400");
}

#[test]
fn settings_a_reasoning_model_refuses_are_learnt_once_and_sent_as_it_takes_them() {
    let max = r#"{"error": {"message": "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", "type": "invalid_request_error", "param": "max_tokens", "code": "unsupported_parameter"}}"#;
    let temp = r#"{"error": {"message": "Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.", "type": "invalid_request_error", "param": "temperature", "code": "unsupported_value"}}"#;
    let (base, seen, bodies) = serve_logging_bodies(|_| {
        vec![
            http("400 Bad Request", "", max),
            http("400 Bad Request", "", temp),
            http("200 OK", "", &completion(r#"{"label": "polite"}"#)),
            http("200 OK", "", &completion(r#"{"label": "rude"}"#)),
        ]
    });
    let j = keyless("o4-mini", base, |c| {
        c.max_tokens = Some(300);
        c.seed = Some(7);
    });
    let ask = || {
        j.ask("ev", Some(StructuredMode::Tools), |_| Map::new(), |r| Ok(r.message.clone()))
            .map(|(m, _, _)| crate::json::compact(&m))
    };
    assert!(ask().unwrap().contains("polite"));
    assert!(ask().unwrap().contains("rude"));
    let sent = bodies.lock().unwrap().clone();
    let keys = |b: &Value| {
        ["max_tokens", "max_completion_tokens", "temperature", "seed"]
            .into_iter()
            .filter(|k| b.get(*k).is_some())
            .collect::<Vec<_>>()
    };
    assert_eq!(keys(&sent[0]), ["max_tokens", "temperature", "seed"]);
    assert_eq!(keys(&sent[1]), ["max_completion_tokens", "temperature", "seed"]);
    assert_eq!(sent[1]["max_completion_tokens"], 300);
    // Learnt: the next judgement is sent as the server takes it at once.
    assert_eq!(keys(&sent[2]), ["max_completion_tokens", "seed"]);
    assert_eq!(keys(&sent[3]), ["max_completion_tokens", "seed"]);
    assert_eq!(seen.lock().unwrap().len(), 4);
    // Settings, not the structured-output mode, were refused.
    assert_eq!(j.preferred_mode(), StructuredMode::Tools);
    let u = &j.usage()[0];
    assert_eq!((u.evaluations, u.requests, u.retries, u.failures), (2, 4, 0, 0));
    assert_eq!(u.adapted.len(), 2, "{:?}", u.adapted);
    assert!(u.adapted[0].contains("max_completion_tokens"), "{:?}", u.adapted);
    assert!(u.adapted[1].contains("temperature"), "{:?}", u.adapted);
}

#[test]
fn a_model_that_refuses_the_system_role_is_sent_its_instructions_in_the_user_message() {
    let refusal = r#"{"error": {"message": "Unsupported value: 'messages[0].role' does not support 'system' with this model.", "type": "invalid_request_error", "param": "messages[0].role", "code": "unsupported_value"}}"#;
    let (base, seen, bodies) = serve_logging_bodies(|_| {
        vec![
            http("400 Bad Request", "", refusal),
            http("200 OK", "", &completion(r#"{"label": "polite"}"#)),
            http("200 OK", "", &completion(r#"{"label": "rude"}"#)),
        ]
    });
    let j = keyless("o1-mini", base, |_| {});
    let body = || {
        let mut b = Map::new();
        b.insert(
            "messages".into(),
            json!([{"role": "system", "content": "Be strict."}, {"role": "user", "content": "Judge."}]),
        );
        b
    };
    assert!(j.chat("ev", body()).is_ok());
    assert!(j.chat("ev", body()).is_ok());
    let sent = bodies.lock().unwrap().clone();
    assert_eq!(sent[0]["messages"][0]["role"], "system");
    let folded = json!([{"role": "user", "content": "Be strict.\n\nJudge."}]);
    assert_eq!(sent[1]["messages"], folded);
    // Learnt: the next request is sent as the model takes it at once.
    assert_eq!(sent[2]["messages"], folded);
    assert_eq!(seen.lock().unwrap().len(), 3);
    let u = &j.usage()[0];
    assert_eq!(u.adapted.len(), 1, "{:?}", u.adapted);
    assert!(u.adapted[0].contains("system role"), "{:?}", u.adapted);
}

#[test]
fn a_value_out_of_range_is_an_error_not_a_setting_to_drop() {
    let big = r#"{"error": {"message": "'max_tokens' is too large: 100000. This model supports at most 16384 completion tokens.", "param": "max_tokens", "code": "invalid_value"}}"#;
    let (base, seen) = serve(|_| vec![http("400 Bad Request", "", big)]);
    let j = keyless("m", base, |c| c.max_tokens = Some(100_000));
    let e = j.chat("ev", Map::new()).unwrap_err().to_string();
    assert!(e.contains("HTTP 400") && e.contains("too large"), "{e}");
    assert_eq!(seen.lock().unwrap().len(), 1);
    assert!(j.usage()[0].adapted.is_empty());
}

#[test]
fn a_refusal_that_comes_back_is_an_error_not_a_loop() {
    // The server refuses max_tokens whatever it is sent; the caller's own
    // body holds max_tokens too.
    let refusal = r#"{"error": {"message": "Unsupported parameter: 'max_tokens'", "param": "max_tokens", "code": "unsupported_parameter"}}"#;
    let (base, seen, bodies) =
        serve_logging_bodies(|_| vec![http("400 Bad Request", "", refusal); 5]);
    let j = keyless("m", base, |_| {});
    let mut body = Map::new();
    body.insert("max_tokens".into(), json!(9));
    let e = j.chat("ev", body).unwrap_err().to_string();
    assert!(e.contains("HTTP 400"), "{e}");
    assert_eq!(seen.lock().unwrap().len(), 2, "the request, and once more as the server takes it");
    let sent = bodies.lock().unwrap().clone();
    assert_eq!((sent[1].get("max_tokens"), &sent[1]["max_completion_tokens"]), (None, &json!(9)));
}

#[test]
fn a_422_from_a_closed_request_model_drops_the_seed() {
    let extra = r#"{"detail": [{"type": "extra_forbidden", "loc": ["body", "seed"], "msg": "Extra inputs are not permitted", "input": 7}]}"#;
    let (base, _, bodies) = serve_logging_bodies(|_| {
        vec![
            http("422 Unprocessable Entity", "", extra),
            http("200 OK", "", &completion(r#"{"label": "polite"}"#)),
        ]
    });
    let j = keyless("m", base, |c| c.seed = Some(7));
    j.chat("ev", Map::new()).unwrap();
    let sent = bodies.lock().unwrap().clone();
    assert_eq!((sent[0]["seed"].as_u64(), sent[1].get("seed")), (Some(7), None));
    assert_eq!(sent[1]["temperature"], 0.0);
    assert_eq!(j.usage()[0].adapted, ["the server refused seed: left out"]);
}

/// A port of 127.0.0.1 nothing listens on (bound, then closed).
/// A 200 whose body breaks off (the connection closed before its
/// Content-Length) is retried, then said to be cut off: the server did
/// answer, so its address is not what to check.
#[test]
fn a_reply_cut_off_mid_body_says_so_not_that_no_answer_came() {
    let cut = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{\"choices\": [";
    let (base, seen) = serve(|_| vec![cut; 3]);
    let j = judge(&base);
    let e = j.chat("ev", Map::new()).unwrap_err();
    assert!(matches!(e, JudgeError::Transport { attempts: 3, .. }), "{e}");
    let text = e.to_string();
    assert!(text.contains("the reply was cut off: HTTP 200 and its headers came"), "{text}");
    assert!(text.contains("closed the connection mid-reply"), "{text}");
    assert!(!text.contains("base_url"), "{text}");
    assert_eq!(seen.lock().unwrap().len(), 3);
}

fn closed_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

#[test]
fn a_server_that_cannot_be_reached_is_named_with_what_to_check_never_its_secrets() {
    let port = closed_port();
    let base = format!("http://me:pw-SECRET-1@127.0.0.1:{port}/v1?api-key=SECRET-2&api-version=1");
    let j = keyless("m", base, |c| c.retries = Some(0));
    let AskError::Request(e) = j
        .ask("ev", Some(StructuredMode::Text), |_| Map::new(), |r| Ok(r.message.clone()))
        .unwrap_err()
    else {
        panic!()
    };
    let text = e.to_string();
    assert!(matches!(e, JudgeError::Transport { attempts: 1, .. }), "{text}");
    let at = format!("http://127.0.0.1:{port}/v1/chat/completions");
    assert!(
        text.starts_with(&format!("judge `j`: no answer from {at} after 1 attempt(s): ")),
        "{text}"
    );
    assert!(
        text.ends_with(
            " (check the judge's base_url, and that the server is running and reachable from here)"
        ),
        "{text}"
    );
    // The address without its user part and query: they may hold secrets.
    assert!(!text.contains("SECRET") && !text.contains("me:") && !text.contains('?'), "{text}");
    assert!(JudgeError::is_transport_message(&text), "{text}");
    // Embeddings likewise, at their own address.
    let e = j.embed("ev", None, &["a", "b"]).unwrap_err().to_string();
    assert!(
        e.contains(&format!("no answer from http://127.0.0.1:{port}/v1/embeddings after")),
        "{e}"
    );
}

#[test]
fn a_server_that_does_not_answer_in_time_is_named_and_the_timeout_suggested() {
    // Connections are taken (the kernel's backlog) but never answered.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    let j = keyless("m", base.clone(), |c| {
        c.retries = Some(0);
        c.timeout = Some(0.3);
    });
    let text = j.chat("ev", Map::new()).unwrap_err().to_string();
    assert!(
        text.starts_with(&format!(
            "judge `j`: no answer from {base}/chat/completions after 1 attempt(s): timed out"
        )),
        "{text}"
    );
    assert!(
        text.contains("(no answer within the judge's timeout of 0.3 s: raise `timeout` for a slow server; else check the judge's base_url"),
        "{text}"
    );
    assert!(JudgeError::is_transport_message(&text), "{text}");
    drop(listener);
}

mod quirks;
