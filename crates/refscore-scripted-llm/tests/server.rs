//! The server over real sockets, with a tiny HTTP/1.1 client written here.

use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use refscore_scripted_llm::{Reply, Rule, Script, ScriptedServer, ServerLimits, When};
use serde_json::{Value, json};

/// One response as the test client read it.
#[derive(Debug)]
struct Response {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Response {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }
}

/// A keep-alive HTTP/1.1 client on one connection.
struct Client {
    reader: BufReader<TcpStream>,
}

impl Client {
    fn connect(addr: SocketAddr) -> Self {
        let stream = TcpStream::connect(addr).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        Self { reader: BufReader::new(stream) }
    }

    fn send(&mut self, path: &str, body: &str, extra_headers: &str) {
        let request = format!(
            "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
             {extra_headers}Content-Length: {}\r\n\r\n{body}",
            body.len()
        );
        self.reader.get_mut().write_all(request.as_bytes()).unwrap();
    }

    /// The next response, or `None` on EOF before any byte of it.
    fn read(&mut self) -> std::io::Result<Option<Response>> {
        let mut status_line = String::new();
        if self.reader.read_line(&mut status_line)? == 0 {
            return Ok(None);
        }
        let status = status_line
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("bad status line {status_line:?}"));
        let mut headers = Vec::new();
        loop {
            let mut line = String::new();
            self.reader.read_line(&mut line)?;
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            let (name, value) = line.split_once(':').unwrap();
            headers.push((name.to_owned(), value.trim().to_owned()));
        }
        let mut response = Response { status, headers, body: String::new() };
        let len: usize = response.header("content-length").map_or(0, |v| v.parse().unwrap());
        let mut body = vec![0; len];
        self.reader.read_exact(&mut body)?;
        response.body = String::from_utf8(body).unwrap();
        Ok(Some(response))
    }

    fn post(&mut self, path: &str, body: &Value) -> Response {
        self.send(path, &body.to_string(), "");
        self.read().unwrap().expect("a response")
    }

    /// Whether the server closed the connection (EOF within 3 s).
    fn sees_eof(&mut self) -> bool {
        let mut byte = [0u8; 1];
        matches!(self.reader.read(&mut byte), Ok(0))
    }
}

const CHAT: &str = "/v1/chat/completions";

fn server(rules: Vec<Rule>) -> ScriptedServer {
    ScriptedServer::start(Script::new(rules)).unwrap()
}

fn chat(prompt: &str) -> Value {
    json!({"model": "judge-1", "messages": [{"role": "user", "content": prompt}]})
}

fn judge_tools(prompt: &str) -> Value {
    let mut body = chat(prompt);
    body["tools"] = json!([{"type": "function", "function": {
        "name": "record_verdict",
        "parameters": {
            "type": "object",
            "properties": {
                "label": {"type": "string", "enum": ["pass", "fail", "unsure"]},
                "explanation": {"type": "string"}
            },
            "required": ["label", "explanation"]
        }
    }}]);
    body
}

fn tool_arguments(response: &Response) -> Value {
    let v = response.json();
    let arguments = v["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"]
        .as_str()
        .unwrap_or_else(|| panic!("arguments are not a string: {v}"))
        .to_owned();
    serde_json::from_str(&arguments).unwrap()
}

fn content(response: &Response) -> String {
    response.json()["choices"][0]["message"]["content"]
        .as_str()
        .unwrap_or_else(|| panic!("no content: {}", response.body))
        .to_owned()
}

#[test]
fn tool_call_reply_has_openai_shape_and_string_arguments() {
    let s = server(vec![Rule::always(Reply::tool_call(json!({"label": "fail", "score": 2})))]);
    assert!(s.base_url().starts_with("http://127.0.0.1:"));
    assert!(s.base_url().ends_with("/v1"));
    let request = judge_tools("grade this");
    let r = Client::connect(s.addr()).post(CHAT, &request);
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("application/json"));
    let v = r.json();
    assert!(v["id"].as_str().is_some_and(|id| !id.is_empty()));
    assert_eq!(v["object"], "chat.completion");
    assert_eq!(v["model"], "judge-1");
    let choice = &v["choices"][0];
    assert_eq!(choice["finish_reason"], "tool_calls");
    let call = &choice["message"]["tool_calls"][0];
    assert_eq!(call["type"], "function");
    assert_eq!(call["function"]["name"], "record_verdict");
    assert!(call["function"]["arguments"].is_string());
    assert_eq!(tool_arguments(&r), json!({"label": "fail", "score": 2}));
    let usage = &v["usage"];
    assert_eq!(usage["prompt_tokens"], request.to_string().len() as u64 / 4);
    assert_eq!(usage["completion_tokens"], 10);
    assert_eq!(usage["total_tokens"].as_u64(), Some(usage["prompt_tokens"].as_u64().unwrap() + 10));
}

#[test]
fn auto_label_comes_from_the_marker() {
    let s = server(vec![]);
    let r = Client::connect(s.addr()).post(CHAT, &judge_tools("Answer. LABEL=unsure"));
    assert_eq!(tool_arguments(&r), json!({"label": "unsure", "explanation": "scripted"}));
}

#[test]
fn auto_label_comes_from_the_schema_enum() {
    let s = server(vec![]);
    let mut client = Client::connect(s.addr());
    let r = client.post(CHAT, &judge_tools("no marker here"));
    assert_eq!(tool_arguments(&r), json!({"label": "pass", "explanation": "scripted"}));
    // Without an explanation property, none is added.
    let mut body = chat("x");
    body["tools"] = json!([{"type": "function", "function": {"name": "f", "parameters":
        {"type": "object", "properties": {"verdict": {"enum": ["yes", "no"]}}}}}]);
    assert_eq!(tool_arguments(&client.post(CHAT, &body)), json!({"verdict": "yes"}));
    // Without tools or formats: plain text.
    assert_eq!(content(&client.post(CHAT, &chat("x LABEL=fail"))), "LABEL=fail");
    assert_eq!(content(&client.post(CHAT, &chat("x"))), "ok");
}

#[test]
fn json_schema_requests_get_json_content() {
    let s = server(vec![Rule::new(
        When::PromptContains("scripted json".into()),
        Reply::Json(json!({"label": "fail", "explanation": "because"})),
    )]);
    let mut client = Client::connect(s.addr());
    let r = client.post(CHAT, &chat("scripted json please"));
    let parsed: Value = serde_json::from_str(&content(&r)).unwrap();
    assert_eq!(parsed, json!({"label": "fail", "explanation": "because"}));
    assert_eq!(r.json()["choices"][0]["finish_reason"], "stop");

    let mut body = chat("auto json LABEL=fail");
    body["response_format"] = json!({"type": "json_schema", "json_schema": {"name": "verdict",
        "schema": {"type": "object", "properties": {
            "label": {"enum": ["pass", "fail"]}, "explanation": {"type": "string"}},
            "required": ["label"]}}});
    let parsed: Value = serde_json::from_str(&content(&client.post(CHAT, &body))).unwrap();
    assert_eq!(parsed, json!({"label": "fail", "explanation": "scripted"}));
}

#[test]
fn rate_limit_has_retry_after_and_server_errors_are_500() {
    let s = server(vec![
        Rule::new(When::PromptContains("limit".into()), Reply::rate_limited("1")),
        Rule::always(Reply::status(500)),
    ]);
    let mut client = Client::connect(s.addr());
    let r = client.post(CHAT, &chat("limit me"));
    assert_eq!(r.status, 429);
    assert_eq!(r.header("retry-after"), Some("1"));
    assert!(r.json()["error"]["message"].is_string());
    // OpenAI's type and code for the status, as SDKs branch on them.
    assert_eq!(
        (&r.json()["error"]["type"], &r.json()["error"]["code"]),
        (&json!("requests"), &json!("rate_limit_exceeded"))
    );
    // The connection survives an error status.
    let r = client.post(CHAT, &chat("other"));
    assert_eq!(r.status, 500);
    assert_eq!(r.header("retry-after"), None);
    assert_eq!(r.json()["error"]["type"], "server_error");
}

#[test]
fn automatic_replies_refuse_what_openai_refuses_and_name_the_field() {
    let s = server(vec![]);
    let mut client = Client::connect(s.addr());
    let cases = [
        (json!([1, 2]), Value::Null, "JSON body"),
        (json!({"messages": [{"role": "user", "content": "x"}]}), Value::Null, "model"),
        (json!({"model": "m"}), json!("messages"), "Missing required parameter: 'messages'"),
        (json!({"model": "m", "messages": "hi"}), json!("messages"), "expected an array"),
        (json!({"model": "m", "messages": []}), json!("messages"), "empty array"),
        (
            json!({"model": "m", "messages": [{"role": "wizard", "content": "x"}]}),
            json!("messages"),
            "'wizard'",
        ),
        (
            json!({"model": "m", "messages": [{"role": "user", "content": "x"}], "temperature": 5}),
            json!("temperature"),
            "from 0 to 2",
        ),
        (
            json!({"model": "m", "messages": [{"role": "user", "content": "x"}], "n": 0}),
            json!("n"),
            "'n'",
        ),
    ];
    for (body, param, says) in cases {
        let r = client.post(CHAT, &body);
        assert_eq!(r.status, 400, "{body}: {}", r.body);
        let e = &r.json()["error"];
        assert_eq!(
            (&e["type"], &e["param"], &e["code"]),
            (&json!("invalid_request_error"), &param, &Value::Null),
            "{body}"
        );
        assert!(e["message"].as_str().unwrap().contains(says), "{body}: {e}");
    }
    client.send(CHAT, "not json", "");
    assert_eq!(client.read().unwrap().unwrap().status, 400);
    for (body, param) in [
        (json!({"model": "e", "input": []}), "input"),
        (json!({"model": "e", "input": ""}), "input"),
        (json!({"model": "e", "input": "a", "dimensions": 0}), "dimensions"),
        (json!({"model": "e", "input": "a", "dimensions": 5000}), "dimensions"),
    ] {
        let r = client.post("/v1/embeddings", &body);
        assert_eq!((r.status, &r.json()["error"]["param"]), (400, &json!(param)), "{body}");
    }
    // A scripted reply is sent as scripted, whatever the request.
    let s = server(vec![Rule::always(Reply::Text("as scripted".into()))]);
    let mut client = Client::connect(s.addr());
    assert_eq!(content(&client.post(CHAT, &json!({"messages": []}))), "as scripted");
}

#[test]
fn n_choices_a_model_of_any_id_and_request_ids() {
    let s = server(vec![]);
    let mut client = Client::connect(s.addr());
    let mut body = chat("hello LABEL=pass");
    body["n"] = json!(3);
    let r = client.post(CHAT, &body);
    let v = r.json();
    let indexes: Vec<u64> =
        v["choices"].as_array().unwrap().iter().map(|c| c["index"].as_u64().unwrap()).collect();
    assert_eq!(indexes, [0, 1, 2], "{v}");
    assert_eq!(v["choices"][2]["message"], v["choices"][0]["message"]);
    assert_eq!(v["usage"]["completion_tokens"], 30);
    assert!(
        r.header("x-request-id").is_some_and(|id| id.starts_with("req_scripted_")),
        "{:?}",
        r.headers
    );
    let other = client.post(CHAT, &chat("again"));
    assert_ne!(other.header("x-request-id"), r.header("x-request-id"));
    // GET /v1/models/{id}, as `client.models.retrieve(id)` asks.
    let get = "GET /v1/models/gpt-4o-mini HTTP/1.1\r\nHost: x\r\n\r\n";
    client.reader.get_mut().write_all(get.as_bytes()).unwrap();
    let r = client.read().unwrap().unwrap();
    assert_eq!(
        (r.status, r.json()["id"].as_str(), r.json()["object"].as_str()),
        (200, Some("gpt-4o-mini"), Some("model"))
    );
    // HEAD: the headers without the body, and the connection still in step.
    client.reader.get_mut().write_all(b"HEAD /v1/models HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
    let mut head = String::new();
    loop {
        let mut line = String::new();
        client.reader.read_line(&mut line).unwrap();
        head.push_str(&line);
        if line == "\r\n" {
            break;
        }
    }
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    let r = client.post(CHAT, &chat("after the head LABEL=fail"));
    assert_eq!(r.status, 200, "{}", r.body);
}

#[test]
fn delay_holds_the_reply_back() {
    let s = server(vec![Rule::always(Reply::Text("late".into()).delayed(400))]);
    let mut client = Client::connect(s.addr());
    // A client whose timeout is shorter than the delay times out...
    client.reader.get_ref().set_read_timeout(Some(Duration::from_millis(100))).unwrap();
    client.send(CHAT, &chat("x").to_string(), "");
    let err = client.read().expect_err("the reply should be late");
    assert!(matches!(err.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut));
    // ...and the reply still comes after the delay.
    let began = Instant::now();
    let r = Client::connect(s.addr()).post(CHAT, &chat("y"));
    assert!(began.elapsed() >= Duration::from_millis(380), "{:?}", began.elapsed());
    assert_eq!(content(&r), "late");
}

#[test]
fn drop_closes_without_answering() {
    let s = server(vec![Rule::always(Reply::Drop).times(1)]);
    let mut client = Client::connect(s.addr());
    client.send(CHAT, &chat("x").to_string(), "");
    assert!(client.read().unwrap().is_none(), "expected EOF");
    // The next request (new connection) is answered normally.
    let r = Client::connect(s.addr()).post(CHAT, &chat("x"));
    assert_eq!(r.status, 200);
    assert_eq!(s.request_count(), 2);
}

#[test]
fn garbage_is_a_200_that_is_not_json() {
    let s = server(vec![Rule::always(Reply::Garbage("<html>oops".into()))]);
    let r = Client::connect(s.addr()).post(CHAT, &chat("x"));
    assert_eq!(r.status, 200);
    assert_eq!(r.body, "<html>oops");
    assert!(serde_json::from_str::<Value>(&r.body).is_err());
}

#[test]
fn empty_has_no_choices() {
    let s = server(vec![Rule::always(Reply::Empty)]);
    let r = Client::connect(s.addr()).post(CHAT, &chat("x"));
    assert_eq!(r.status, 200);
    let v = r.json();
    assert_eq!(v["choices"], json!([]));
    assert_eq!(v["object"], "chat.completion");
    assert!(v["usage"]["total_tokens"].is_u64());
}

#[test]
fn used_up_rules_fall_through_to_the_next() {
    let s = server(vec![
        Rule::new(When::PromptContains("judge".into()), Reply::Text("first".into())).times(2),
        Rule::new(When::Path("/v1/embeddings".into()), Reply::Text("never".into())),
        Rule::always(Reply::Text("second".into())),
    ]);
    let mut client = Client::connect(s.addr());
    let answers: Vec<String> =
        (0..4).map(|_| content(&client.post(CHAT, &chat("judge")))).collect();
    assert_eq!(answers, ["first", "first", "second", "second"]);
}

#[test]
fn keep_alive_serves_three_requests_on_one_connection() {
    let s = server(vec![]);
    let mut client = Client::connect(s.addr());
    for i in 0..3 {
        let r = client.post(CHAT, &chat(&format!("LABEL=n{i}")));
        assert_eq!(r.status, 200);
        assert_eq!(r.header("connection"), Some("keep-alive"));
        assert_eq!(content(&r), format!("LABEL=n{i}"));
    }
    assert_eq!(s.request_count(), 3);
    // Connection: close is honoured.
    client.send(CHAT, &chat("bye").to_string(), "Connection: close\r\n");
    let r = client.read().unwrap().unwrap();
    assert_eq!(r.header("connection"), Some("close"));
    assert!(client.sees_eof());
}

#[test]
fn requests_are_recorded_in_order_with_lowercase_headers() {
    let s = server(vec![]);
    let mut client = Client::connect(s.addr());
    client.send(
        CHAT,
        &chat("first").to_string(),
        "X-Trace-ID: AbC\r\nAuthorization: Bearer sk\r\n",
    );
    client.read().unwrap().unwrap();
    client.send("/v1/embeddings", "not json", "");
    client.read().unwrap().unwrap();
    let requests = s.requests();
    assert_eq!(requests.len(), 2);
    let first = &requests[0];
    assert_eq!(first.method, "POST");
    assert_eq!(first.path, CHAT);
    assert!(first.headers.iter().all(|(n, _)| *n == n.to_lowercase()));
    assert!(first.headers.contains(&("x-trace-id".to_owned(), "AbC".to_owned())));
    assert_eq!(first.header("Authorization"), Some("Bearer sk"));
    assert_eq!(first.body, chat("first"));
    assert_eq!(first.raw_body, chat("first").to_string());
    assert_eq!(requests[1].path, "/v1/embeddings");
    assert_eq!(requests[1].body, Value::Null);
    assert_eq!(requests[1].raw_body, "not json");
}

#[test]
fn body_recording_can_be_turned_off() {
    let s = ScriptedServer::start(Script::default().record(false)).unwrap();
    Client::connect(s.addr()).post(CHAT, &chat("x"));
    let requests = s.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].body, Value::Null);
    assert!(requests[0].raw_body.is_empty());
    assert!(requests[0].header("content-type").is_some());
}

#[test]
fn embeddings_are_deterministic() {
    let s = server(vec![]);
    let mut client = Client::connect(s.addr());
    let one = client.post("/v1/embeddings", &json!({"model": "emb", "input": "hello"})).json();
    let many =
        client.post("/v1/embeddings", &json!({"model": "emb", "input": ["other", "hello"]})).json();
    assert_eq!(one["model"], "emb");
    assert_eq!(one["data"][0]["index"], 0);
    let vector = one["data"][0]["embedding"].as_array().unwrap();
    assert_eq!(vector.len(), 8);
    let norm: f64 = vector.iter().map(|x| x.as_f64().unwrap().powi(2)).sum();
    assert!((norm - 1.0).abs() < 1e-4, "norm {norm}");
    assert_eq!(many["data"][1]["index"], 1);
    assert_eq!(many["data"][1]["embedding"], one["data"][0]["embedding"]);
    assert_ne!(many["data"][0]["embedding"], one["data"][0]["embedding"]);
    assert!(one["usage"]["prompt_tokens"].is_u64());
    // Another server gives the same vector.
    let other = server(vec![]);
    let again =
        Client::connect(other.addr()).post("/v1/embeddings", &json!({"input": "hello"})).json();
    assert_eq!(again["data"][0]["embedding"], one["data"][0]["embedding"]);
}

#[test]
fn server_stops_after_max_requests() {
    let limits = ServerLimits { max_requests: 2, max_seconds: 60 };
    let s = ScriptedServer::start_with(Script::default(), limits).unwrap();
    let mut client = Client::connect(s.addr());
    assert_eq!(client.post(CHAT, &chat("1")).header("connection"), Some("keep-alive"));
    // The last allowed request is answered, with Connection: close.
    let last = client.post(CHAT, &chat("2"));
    assert_eq!(last.status, 200);
    assert_eq!(last.header("connection"), Some("close"));
    assert!(client.sees_eof());
    let began = Instant::now();
    while s.is_running() && began.elapsed() < Duration::from_secs(2) {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(!s.is_running());
    // No third request is answered: refused, closed, or 503.
    std::thread::sleep(Duration::from_millis(200));
    if let Ok(stream) = TcpStream::connect(s.addr()) {
        stream.set_read_timeout(Some(Duration::from_secs(3))).unwrap();
        let mut late = Client { reader: BufReader::new(stream) };
        late.send(CHAT, &chat("3").to_string(), "");
        if let Ok(Some(r)) = late.read() {
            assert_eq!(r.status, 503);
        }
    }
    assert_eq!(s.request_count(), 2);
    assert_eq!(s.requests().len(), 2);
}

#[test]
fn server_stops_after_max_seconds() {
    let limits = ServerLimits { max_requests: 100, max_seconds: 1 };
    let s = ScriptedServer::start_with(Script::default(), limits).unwrap();
    let mut idle = Client::connect(s.addr());
    assert_eq!(idle.post(CHAT, &chat("x")).status, 200);
    let began = Instant::now();
    while s.is_running() && began.elapsed() < Duration::from_secs(3) {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(!s.is_running());
    assert!(idle.sees_eof());
}

#[test]
fn stop_is_quick_with_an_idle_keep_alive_connection() {
    let s = server(vec![]);
    let mut idle = Client::connect(s.addr());
    assert_eq!(idle.post(CHAT, &chat("x")).status, 200);
    let mut silent = Client::connect(s.addr()); // connected, never sends
    std::thread::sleep(Duration::from_millis(200)); // accepted, not in the backlog
    let began = Instant::now();
    s.stop();
    assert!(began.elapsed() < Duration::from_secs(2), "{:?}", began.elapsed());
    assert!(idle.sees_eof());
    assert!(silent.sees_eof());
    assert!(!s.is_running());
    assert_eq!(s.requests().len(), 1);
    s.stop(); // idempotent
}

#[test]
fn stop_interrupts_a_delay() {
    let s = server(vec![Rule::always(Reply::Text("never".into()).delayed(60_000))]);
    let mut client = Client::connect(s.addr());
    client.send(CHAT, &chat("x").to_string(), "");
    std::thread::sleep(Duration::from_millis(100));
    let began = Instant::now();
    s.stop();
    assert!(began.elapsed() < Duration::from_secs(2));
    assert!(client.read().unwrap().is_none());
}

#[test]
fn a_request_per_new_connection_works() {
    let s = server(vec![]);
    for i in 0..20 {
        let mut client = Client::connect(s.addr());
        client.send(CHAT, &chat(&format!("LABEL=c{i}")).to_string(), "Connection: close\r\n");
        let r = client.read().unwrap().unwrap();
        assert_eq!(content(&r), format!("LABEL=c{i}"));
        assert!(client.sees_eof());
    }
    assert_eq!(s.request_count(), 20);
}

#[test]
fn large_split_and_pipelined_requests() {
    let s = server(vec![]);
    let mut client = Client::connect(s.addr());
    // A 1 MiB prompt and a 20 KiB header, sent in small pieces.
    let big = chat(&format!("{} LABEL=big", "x".repeat(1 << 20))).to_string();
    let request = format!(
        "POST {CHAT} HTTP/1.1\r\nX-Long: {}\r\nContent-Length: {}\r\n\r\n{big}",
        "h".repeat(20_000),
        big.len()
    );
    for piece in request.as_bytes().chunks(300_000) {
        client.reader.get_mut().write_all(piece).unwrap();
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(content(&client.read().unwrap().unwrap()), "LABEL=big");
    // Two requests in one write are answered in order.
    let one = chat("LABEL=one").to_string();
    let two = chat("LABEL=two").to_string();
    let both = format!(
        "POST {CHAT} HTTP/1.1\r\nContent-Length: {}\r\n\r\n{one}\
         POST {CHAT} HTTP/1.1\r\nContent-Length: {}\r\n\r\n{two}",
        one.len(),
        two.len()
    );
    client.reader.get_mut().write_all(both.as_bytes()).unwrap();
    assert_eq!(content(&client.read().unwrap().unwrap()), "LABEL=one");
    assert_eq!(content(&client.read().unwrap().unwrap()), "LABEL=two");
    let requests = s.requests();
    assert_eq!(requests.len(), 3);
    assert_eq!(requests[0].raw_body.len(), big.len());
    assert_eq!(requests[0].header("x-long").map(str::len), Some(20_000));
}

#[test]
fn protocol_errors_get_4xx() {
    let s = server(vec![]);
    // Chunked bodies are refused.
    let mut client = Client::connect(s.addr());
    client
        .reader
        .get_mut()
        .write_all(
            b"POST /v1/chat/completions HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        )
        .unwrap();
    assert_eq!(client.read().unwrap().unwrap().status, 411);
    // Oversized bodies are refused before they are sent.
    let mut client = Client::connect(s.addr());
    client
        .reader
        .get_mut()
        .write_all(b"POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 9000000\r\n\r\n")
        .unwrap();
    assert_eq!(client.read().unwrap().unwrap().status, 413);
    // Nonsense.
    let mut client = Client::connect(s.addr());
    client.reader.get_mut().write_all(b"hello there\r\n\r\n").unwrap();
    assert_eq!(client.read().unwrap().unwrap().status, 400);
    // Unknown paths.
    let r = Client::connect(s.addr()).post("/v1/completions/other", &json!({}));
    assert_eq!(r.status, 404);
    assert_eq!(s.request_count(), 1);
}

#[test]
fn expect_continue_is_answered() {
    let s = server(vec![Rule::always(Reply::Text("done".into()))]);
    let mut client = Client::connect(s.addr());
    let body = chat("x").to_string();
    let head = format!(
        "POST {CHAT} HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    client.reader.get_mut().write_all(head.as_bytes()).unwrap();
    let interim = client.read().unwrap().unwrap();
    assert_eq!(interim.status, 100);
    client.reader.get_mut().write_all(body.as_bytes()).unwrap();
    assert_eq!(content(&client.read().unwrap().unwrap()), "done");
}

#[test]
fn connections_over_the_cap_get_503() {
    let s = server(vec![]);
    let cap = refscore_scripted_llm::limits::MAX_CONNECTIONS;
    let mut held: Vec<Client> = (0..cap).map(|_| Client::connect(s.addr())).collect();
    // Make sure every held connection has been accepted.
    for client in held.iter_mut().step_by(64) {
        assert_eq!(client.post(CHAT, &chat("x")).status, 200);
    }
    std::thread::sleep(Duration::from_millis(100));
    let mut extra = Client::connect(s.addr());
    extra.send(CHAT, &chat("x").to_string(), "");
    let r = extra.read().unwrap().unwrap();
    assert_eq!(r.status, 503);
    assert_eq!(r.header("retry-after"), Some("1"));
    drop(held);
    // Once connections close, new ones are served again.
    let began = Instant::now();
    loop {
        let mut client = Client::connect(s.addr());
        client.send(CHAT, &chat("x").to_string(), "");
        if client.read().unwrap().unwrap().status == 200 {
            break;
        }
        assert!(began.elapsed() < Duration::from_secs(3));
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn binary_prints_its_url_and_serves_a_script_file() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("script.json");
    std::fs::write(
        &script,
        json!({"rules": [
            {"when": {"prompt_contains": "rate"}, "reply": {"status": {"code": 429, "retry_after": "2"}}, "times": 1},
            {"when": "any", "reply": {"tool_call": {"arguments": {"label": "from-file"}}}}
        ]})
        .to_string(),
    )
    .unwrap();
    let record = dir.path().join("requests.jsonl");
    let mut child = Command::new(env!("CARGO_BIN_EXE_refscore-scripted-llm"))
        .args(["--max-requests", "2", "--max-seconds", "20", "--script"])
        .arg(&script)
        .arg("--record")
        .arg(&record)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let url = line.trim_end();
    let addr: SocketAddr = url
        .strip_prefix("http://")
        .and_then(|rest| rest.strip_suffix("/v1"))
        .unwrap_or_else(|| panic!("bad url line {line:?}"))
        .parse()
        .unwrap();
    let mut client = Client::connect(addr);
    client.send(CHAT, &judge_tools("rate me").to_string(), "Authorization: Bearer sk-SECRET\r\n");
    let r = client.read().unwrap().unwrap();
    assert_eq!(r.status, 429);
    assert_eq!(r.header("retry-after"), Some("2"));
    let r = client.post(CHAT, &judge_tools("again"));
    assert_eq!(tool_arguments(&r), json!({"label": "from-file"}));
    // The request limit stops the process by itself.
    let began = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if began.elapsed() > Duration::from_secs(5) {
            let _ = child.kill();
            panic!("server did not stop after --max-requests");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success());
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    assert_eq!(stderr.trim(), "requests: 2");
    // --record: every request, its key never written.
    let text = std::fs::read_to_string(&record).unwrap();
    assert!(!text.contains("SECRET"), "{text}");
    let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert_eq!(lines[0]["headers"]["authorization"], "***");
    assert_eq!(lines[1]["body"]["messages"][0]["content"], "again");
}

#[test]
fn binary_rejects_a_bad_script() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("bad.json");
    std::fs::write(&script, r#"{"rules": [{"reply": {"status": {"code": 42}}}]}"#).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_refscore-scripted-llm"))
        .arg("--script")
        .arg(&script)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid script"));
}

#[cfg(unix)]
#[test]
fn binary_stops_on_sigterm() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_refscore-scripted-llm"))
        .args(["--max-seconds", "20", "--quiet"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    assert!(line.starts_with("http://127.0.0.1:"), "{line:?}");
    let killed = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(killed.success());
    let began = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if began.elapsed() > Duration::from_secs(3) {
            let _ = child.kill();
            panic!("server did not stop on SIGTERM");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success());
    let mut stderr = String::new();
    child.stderr.take().unwrap().read_to_string(&mut stderr).unwrap();
    assert_eq!(stderr, "", "--quiet prints nothing");
}
