//! Real servers' quirks: keys split across content parts or
//! percent-encoded, servers that cannot do tools (llama.cpp without
//! `--jinja`, OpenRouter), unknown models, keys that cannot be a header,
//! bodies that are not plain UTF-8 JSON, errors inside a 200 (OpenRouter),
//! Groq's `tool_use_failed`, and kept-alive connections closed silently.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};

use serde_json::json;

use super::*;

fn content(text: &str) -> String {
    json!({"choices": [{"message": {"role": "assistant", "content": text}}]}).to_string()
}

fn http_bytes(status: &str, headers: &str, body: &[u8]) -> Vec<u8> {
    let mut out = format!(
        "HTTP/1.1 {status}\r\n{headers}Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    out.extend_from_slice(body);
    out
}

fn ask_any(j: &Judge, fixed: Option<StructuredMode>) -> Result<(Value, StructuredMode), AskError> {
    j.ask(
        "ev",
        fixed,
        |m| Map::from_iter([("mode".to_owned(), json!(m.as_str()))]),
        |r| Ok(r.message.clone()),
    )
    .map(|(v, _, m)| (v, m))
}

fn request_error(r: Result<(Value, StructuredMode), AskError>) -> JudgeError {
    match r {
        Err(AskError::Request(e)) => e,
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_key_split_across_text_parts_or_percent_encoded_is_removed_whole() {
    let j = judge("http://127.0.0.1:9/v1");
    let parts = json!({"choices": [{"message": {"role": "assistant", "content": [
        {"type": "text", "text": format!("rude\n{}", &KEY[..9])},
        {"type": "text", "text": &KEY[9..]}]}}]})
    .to_string();
    let (reply, clean) = j.parse(&parts).unwrap();
    assert_eq!(reply.message["content"], "rude\n***");
    assert!(!clean.contains("SECRET") && clean.contains("rude\\n***"), "{clean}");
    // A key percent-encoded in a redirect's address.
    let encoded: String = KEY.bytes().map(|b| format!("%{b:02X}")).collect();
    let (base, _) = serve(move |base| {
        let location = format!("Location: {base}/cb?k={encoded}&h=hdr%2DSECRET%2d5678\r\n");
        vec![http("302 Found", &location, "")]
    });
    let e = request_error(ask_any(&judge(&base), Some(StructuredMode::Text))).to_string();
    assert!(e.contains("/cb?k=***&h=***`"), "{e}");
    assert!(!e.contains("SECRET") && !e.contains("%53%45"), "{e}");
}

#[test]
fn servers_that_cannot_do_tools_fall_back_at_once() {
    let answered = || http("200 OK", "", &content(r#"{"label": "polite"}"#));
    for refusal in [
        http(
            "500 Internal Server Error",
            "",
            r#"{"error":{"code":500,"message":"tools param requires --jinja flag","type":"server_error"}}"#,
        ),
        http(
            "500 Internal Server Error",
            "",
            r#"{"error":{"code":500,"message":"Unsupported param: tools","type":"server_error"}}"#,
        ),
        http(
            "404 Not Found",
            "",
            r#"{"error":{"message":"No endpoints found that support tool use. To learn more about provider routing, visit: https://openrouter.ai/docs/provider-routing","code":404}}"#,
        ),
    ] {
        let (base, seen) = serve(move |_| vec![refusal, answered()]);
        let j = judge(&base);
        let (_, mode) = ask_any(&j, None).unwrap();
        assert_eq!(mode, StructuredMode::JsonSchema);
        assert_eq!(seen.lock().unwrap().len(), 2, "no retry of the refusal");
        assert_eq!(j.preferred_mode(), StructuredMode::JsonSchema);
        assert_eq!(j.usage()[0].retries, 0);
    }
}

#[test]
fn an_unknown_model_is_named_and_no_base_url_is_blamed() {
    for body in [
        r#"{"error":{"message":"The model `gpt-4o-mimi` does not exist or you do not have access to it.","type":"invalid_request_error","param":null,"code":"model_not_found"}}"#,
        r#"{"error":"model \"llama3.1:8b\" not found, try pulling it first"}"#,
    ] {
        let (base, _) = serve(move |_| vec![http("404 Not Found", "", body)]);
        let j = keyless("gpt-4o-mimi", base, |_| {});
        let e = j.chat("ev", Map::new()).unwrap_err().to_string();
        assert!(e.contains("the model `gpt-4o-mimi` was not found on the server"), "{e}");
        assert!(!e.contains("base_url"), "{e}");
    }
}

#[test]
fn a_key_that_cannot_be_a_header_fails_at_once_naming_its_variable() {
    for (key, says) in [
        ("sk-abc\nsk-def", "a line break"),
        ("sk-abc\u{1}def", "a control character (U+0001)"),
        ("sk-abc\u{200b}def", "not visible ASCII (U+200B"),
        ("sk-abc def", "a space"),
    ] {
        let k = ApiKey::new(key);
        assert!(k.problem().is_some_and(|p| p.contains(says)), "{key:?}: {:?}", k.problem());
        let (base, seen) = serve(|_| vec![http("200 OK", "", &content("polite"))]);
        let mut c = JudgeConfig::new("m");
        c.base_url = Some(base);
        c.api_key_env = Some("MY_JUDGE_KEY".into());
        let j = Judge::with_key("j", c, Some(k), None, CacheMode::Off, Arc::default());
        let e = j.chat("ev", Map::new()).unwrap_err();
        let text = e.to_string();
        assert!(matches!(e, JudgeError::Setting { .. }), "{text}");
        assert!(text.contains("MY_JUDGE_KEY") && text.contains(says), "{text}");
        assert!(!text.contains("sk-abc") && !text.contains("def"), "{text}");
        assert!(seen.lock().unwrap().is_empty(), "nothing sent");
        assert_eq!(j.usage()[0].requests, 0);
    }
    assert_eq!(ApiKey::new("sk-proj-AZaz09_-").problem(), None);
    assert_eq!(ApiKey::for_judge(Some("")), Ok(None));
    let unset = ApiKey::for_judge(Some("REFSCORE_TEST_SURELY_UNSET_VAR")).unwrap_err();
    assert!(unset.contains("`REFSCORE_TEST_SURELY_UNSET_VAR`, which is not set"), "{unset}");
}

#[test]
fn a_401_without_a_key_says_the_variable_was_not_set() {
    let (base, _) =
        serve(|_| vec![http("401 Unauthorized", "", r#"{"error":{"message":"no key"}}"#)]);
    let e = keyless("m", base, |_| {}).chat("ev", Map::new()).unwrap_err().to_string();
    assert!(
        e.contains("no key was sent: the environment variable OPENAI_API_KEY is not set"),
        "{e}"
    );
}

/// Gzip of `data` in one stored (uncompressed) deflate block.
fn gzip(data: &[u8]) -> Vec<u8> {
    let crc = data.iter().fold(!0u32, |mut c, b| {
        c ^= u32::from(*b);
        for _ in 0..8 {
            c = if c & 1 == 1 { (c >> 1) ^ 0xEDB8_8320 } else { c >> 1 };
        }
        c
    });
    let len = u16::try_from(data.len()).unwrap();
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff, 1];
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&(!len).to_le_bytes());
    out.extend_from_slice(data);
    out.extend_from_slice(&(!crc).to_le_bytes());
    out.extend_from_slice(&u32::try_from(data.len()).unwrap().to_le_bytes());
    out
}

#[test]
fn bodies_that_are_not_plain_utf8_json_are_decoded_or_refused_without_retry() {
    let polite = content("polite");
    let mut bom = b"\xef\xbb\xbf".to_vec();
    bom.extend_from_slice(polite.as_bytes());
    let mut invalid = content("polite\nX").into_bytes();
    let x = invalid.iter().rposition(|b| *b == b'X').unwrap();
    invalid[x] = 0xff;
    let gzipped = gzip(polite.as_bytes());
    let cases: Vec<(Vec<u8>, Result<&str, &str>)> = vec![
        (http_bytes("200 OK", "Content-Encoding: gzip\r\n", &gzipped), Ok("polite")),
        (http_bytes("200 OK", "", &bom), Ok("polite")),
        (
            http_bytes("200 OK", "", &invalid),
            Err("malformed reply (the body is not UTF-8 text (an invalid byte at offset"),
        ),
        (
            http_bytes("200 OK", "Content-Encoding: br\r\n", &[0x8b, 0xff, 0x01, 0x80]),
            Err("sent with `content-encoding: br`, which the judge does not decode"),
        ),
        (
            // A deflate block of the reserved type 3.
            http_bytes(
                "200 OK",
                "Content-Encoding: gzip\r\n",
                b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff\x07garbage, garbage",
            ),
            Err("could not be decoded as `content-encoding: gzip`"),
        ),
    ];
    for (answer, want) in cases {
        let (base, seen) = serve(move |_| vec![answer.clone(), answer]);
        let j = judge(&base);
        match (ask_any(&j, Some(StructuredMode::Text)), want) {
            (Ok((m, _)), Ok(text)) => assert_eq!(m["content"], text),
            (Err(AskError::Request(e)), Err(says)) => {
                let e = e.to_string();
                assert!(e.contains(says), "{e}");
                assert_eq!(seen.lock().unwrap().len(), 1, "not retried: {e}");
            }
            (got, want) => panic!("{want:?}: {got:?}"),
        }
    }
}

#[test]
fn errors_inside_a_200_are_reported_and_retried_as_their_code() {
    let in_choice = r#"{"choices":[{"finish_reason":"error","error":{"code":502,"message":"Provider returned error","metadata":{"provider_name":"Fireworks"}},"message":{"role":"assistant","content":""}}]}"#;
    let (base, seen) =
        serve(move |_| vec![http("200 OK", "", in_choice), http("200 OK", "", &content("polite"))]);
    let j = judge(&base);
    let (m, _) = ask_any(&j, Some(StructuredMode::Text)).unwrap();
    assert_eq!((m["content"].as_str(), seen.lock().unwrap().len()), (Some("polite"), 2));
    assert_eq!(j.usage()[0].retries, 1);
    // Retried until the budget is spent, then reported with its words.
    let (base, seen) = serve(move |_| vec![http("200 OK", "", in_choice); 3]);
    let e = request_error(ask_any(&judge(&base), Some(StructuredMode::Text))).to_string();
    assert!(
        e.contains("reply reports an error (code 502) after 3 attempt(s): Provider returned error (provider: Fireworks)"),
        "{e}"
    );
    assert_eq!(seen.lock().unwrap().len(), 3);
    // A code that is not transient: at once.
    let top = r#"{"error":{"code":400,"message":"Input validation failed"}}"#;
    let (base, seen) = serve(move |_| vec![http("200 OK", "", top); 2]);
    let e = request_error(ask_any(&judge(&base), Some(StructuredMode::Text))).to_string();
    assert!(e.contains("(code 400) after 1 attempt(s): Input validation failed"), "{e}");
    assert_eq!(seen.lock().unwrap().len(), 1);
}

#[test]
fn a_failed_tool_call_is_asked_again_in_the_same_mode() {
    let failed = r#"{"error":{"message":"Failed to call a function. Please adjust your prompt. See 'failed_generation' for more details.","type":"invalid_request_error","code":"tool_use_failed","failed_generation":"<function=record_judgement>{\"label\": polite}"}}"#;
    let (base, seen) = serve(move |_| {
        vec![
            http("400 Bad Request", "", failed),
            http("200 OK", "", &completion(r#"{"label": "polite"}"#)),
        ]
    });
    let j = judge(&base);
    let (_, mode) = ask_any(&j, None).unwrap();
    assert_eq!(mode, StructuredMode::Tools);
    assert_eq!(seen.lock().unwrap().len(), 2);
    assert_eq!(j.preferred_mode(), StructuredMode::Tools, "the mode is not given up");
    // Past the retry budget: that judgement fails, the mode stays.
    let (base, seen) = serve(move |_| vec![http("400 Bad Request", "", failed); 4]);
    let j = judge(&base);
    let e = request_error(ask_any(&j, None)).to_string();
    assert!(e.contains("HTTP 400 after 3 attempt(s)") && e.contains("tool_use_failed"), "{e}");
    assert_eq!(seen.lock().unwrap().len(), 3);
    assert_eq!(j.preferred_mode(), StructuredMode::Tools);
}

#[test]
fn refused_in_every_mode_says_so() {
    let refused = http(
        "400 Bad Request",
        "",
        r#"{"error": {"message": "maximum context length is 8192 tokens"}}"#,
    );
    let (base, _) = serve(move |_| vec![refused; 3]);
    let e = request_error(ask_any(&judge(&base), None)).to_string();
    assert!(e.contains("HTTP 400 after 3 attempt(s)"), "{e}");
    assert!(
        e.contains("the same refusal in every mode tried (tools, json_schema, text): the request itself was refused, not its structured output"),
        "{e}"
    );
    // Different refusals: each mode was refused for what it asked.
    let (base, _) = serve(move |_| {
        ["tools are not supported", "response_format is not supported", "bad request"]
            .map(|why| {
                http("400 Bad Request", "", &format!(r#"{{"error": {{"message": "{why}"}}}}"#))
            })
            .to_vec()
    });
    let e = request_error(ask_any(&judge(&base), None)).to_string();
    assert!(e.contains("(refused in every mode tried: tools, json_schema, text)"), "{e}");
}

/// Reads one request from `reader`; `false` at the end of the stream.
fn read_request(reader: &mut BufReader<TcpStream>) -> bool {
    let mut length = 0usize;
    let mut first = true;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return false;
        }
        if line == "\r\n" {
            break;
        }
        first = false;
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length];
    !first && reader.read_exact(&mut body).is_ok()
}

#[test]
fn a_kept_connection_closed_silently_costs_no_retry() {
    // Each connection: one answer that keeps it open, then the next
    // request on it is read and the connection closed without an answer.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    let answer = content("polite");
    std::thread::spawn(move || {
        for _ in 0..4 {
            let Ok((stream, _)) = listener.accept() else { return };
            let mut reader = BufReader::new(stream);
            if !read_request(&mut reader) {
                continue;
            }
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
                answer.len()
            );
            let _ = reader.get_mut().write_all(format!("{head}{answer}").as_bytes());
            let _ = read_request(&mut reader);
        }
    });
    let j = keyless("m", base, |c| {
        c.retries = Some(0);
        c.timeout = Some(5.0);
    });
    for _ in 0..2 {
        let (m, _) = ask_any(&j, Some(StructuredMode::Text)).unwrap();
        assert_eq!(m["content"], "polite");
    }
    let u = &j.usage()[0];
    assert_eq!((u.requests, u.retries, u.failures), (3, 0, 0));
}

/// Credentials in the base URL (a password in its user part, sent as Basic
/// authentication; a key in its query) are redacted from what the server
/// echoes, as the API key is.
#[test]
fn credentials_in_the_base_url_are_redacted_from_echoes() {
    let (base, seen) = serve(|_| {
        let echo = "bad credentials: Basic dXNlcjpodW50ZXIy, url /v1/chat/completions?api-key=hunt%2Fer3&v=1, pw hunter2, key hunt/er3";
        vec![http("401 Unauthorized", "", &json!({"error": {"message": echo}}).to_string())]
    });
    let with_credentials =
        base.replacen("http://", "http://user:hunter2@", 1) + "?api-key=hunt%2Fer3&v=1";
    let j = keyless("m", with_credentials, |_| {});
    let e = request_error(ask_any(&j, Some(StructuredMode::Tools))).to_string();
    assert_eq!(seen.lock().unwrap().len(), 1);
    for secret in ["hunter2", "dXNlcjpodW50ZXIy", "hunt%2Fer3", "hunt/er3"] {
        assert!(!e.contains(secret), "{secret} in {e}");
    }
    assert!(e.contains("v=1"), "{e}");
}

#[test]
fn several_choices_are_read_at_the_one_numbered_0() {
    let j = judge("http://127.0.0.1:9/v1");
    let two = json!({"choices": [
        {"index": 1, "message": {"role": "assistant", "content": "rude"}},
        {"index": 0, "message": {"role": "assistant", "content": "polite"}}]})
    .to_string();
    assert_eq!(j.parse(&two).unwrap().0.message["content"], "polite");
    // Without indexes, the first.
    let bare = json!({"choices": [{"message": {"content": "a"}}, {"message": {"content": "b"}}]});
    assert_eq!(j.parse(&bare.to_string()).unwrap().0.message["content"], "a");
}

#[test]
fn a_whole_stream_is_read_and_a_cut_off_one_says_it_was_streamed() {
    let j = judge("http://127.0.0.1:9/v1");
    let sse = "data: {\"choices\":[{\"delta\":{\"content\":\"polite\"}}]}\n\ndata: [DONE]\n\n";
    let (reply, clean) = j.parse(sse).unwrap();
    assert_eq!(reply.message["content"], "polite");
    assert!(clean.starts_with('{'), "what is cached is the completion: {clean}");
    let cut = "data: {\"choices\":[{\"delta\":{\"content\":\"pol\"}}]}\n\n";
    let e = j.parse(cut).unwrap_err().to_string();
    assert!(e.contains("streamed its reply as server-sent events"), "{e}");
    assert!(e.contains("the stream is not whole"), "{e}");
    assert!(!j.parse("<html>").unwrap_err().to_string().contains("streamed"));
}
