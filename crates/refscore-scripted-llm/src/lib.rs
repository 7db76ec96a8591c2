//! A scripted OpenAI-compatible HTTP server for tests and dry runs.
//!
//! [`ScriptedServer::start`] binds `127.0.0.1` on an ephemeral port and
//! answers `POST /v1/chat/completions` and `POST /v1/embeddings` (and
//! `GET /v1/models`) from a [`Script`]: an ordered list of [`Rule`]s, each
//! a condition ([`When`]) and an answer ([`Reply`]), optionally used only a
//! few `times`. A request gets the first matching rule that is not used up,
//! or [`Reply::Auto`], a sensible answer derived from the request (a tool
//! call choosing a label, a JSON-schema object, deterministic embeddings).
//! Replies can also be HTTP errors with `Retry-After`, delays, dropped
//! connections, non-JSON bodies and empty choices, to test a client's error
//! handling. Every request is recorded for inspection.
//!
//! ```
//! use std::io::{Read, Write};
//! use std::net::TcpStream;
//! use refscore_scripted_llm::{Reply, Rule, ScriptedServer, Script, When};
//! use serde_json::{json, Value};
//!
//! let server = ScriptedServer::start(Script::new(vec![
//!     Rule::new(When::PromptContains("flaky".into()), Reply::rate_limited("1")).times(1),
//!     Rule::always(Reply::tool_call(json!({"label": "good"}))),
//! ]))?;
//! assert!(server.base_url().starts_with("http://127.0.0.1:"));
//!
//! // Any HTTP client works; here, a raw request on its own connection.
//! let body = json!({"model": "judge", "messages": [{"role": "user", "content": "grade"}],
//!                   "tools": [{"type": "function", "function": {"name": "verdict"}}]});
//! let body = body.to_string();
//! let mut stream = TcpStream::connect(server.addr())?;
//! write!(stream, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\
//!                 Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}", body.len())?;
//! let mut response = String::new();
//! stream.read_to_string(&mut response)?;
//! let (head, json_text) = response.split_once("\r\n\r\n").ok_or("no head")?;
//! assert!(head.starts_with("HTTP/1.1 200 OK"));
//! let reply: Value = serde_json::from_str(json_text)?;
//! let call = &reply["choices"][0]["message"]["tool_calls"][0]["function"];
//! assert_eq!(call["name"], "verdict");
//! assert_eq!(call["arguments"], r#"{"label":"good"}"#);
//!
//! let requests = server.requests();
//! assert_eq!(requests[0].header("content-type"), Some("application/json"));
//! assert_eq!(requests[0].body["model"], "judge");
//! assert_eq!(server.request_count(), 1);
//! server.stop();
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Protocol
//!
//! HTTP/1.1 with keep-alive (HTTP/1.0 closes unless asked to keep alive);
//! `Connection: close` is honoured; `Expect: 100-continue` is answered.
//! Request bodies need `Content-Length`: chunked (any `Transfer-Encoding`)
//! bodies are refused with `411`. Bodies over [`limits::MAX_BODY_BYTES`]
//! (8 MiB) get `413`, heads over 64 KiB `431`. A chat completion asked for
//! with `stream: true` is sent as server-sent events (`text/event-stream`:
//! the role, the content or the tool call, the finish reason, the usage
//! when `stream_options.include_usage` is set, then `data: [DONE]`), in
//! one response with a `Content-Length`; scripted statuses and other
//! bodies are sent as they are. Every admitted request carries
//! `x-request-id: req_scripted_N` (what the OpenAI SDKs show as a reply's
//! request id); a `HEAD` gets the headers without the body.
//!
//! # The automatic reply
//!
//! [`Reply::Auto`] answers as OpenAI would:
//!
//! * It refuses what OpenAI refuses, with a `400` whose error object names
//!   the field (`param`): a chat body that is not a JSON object, has no
//!   `model`, no `messages` (or not a list, or an empty one, or a message
//!   without a known `role`), a `temperature` outside 0..=2, an `n`
//!   outside 1..=128; an embeddings `input` that is empty, or `dimensions`
//!   outside 1..=4096. A scripted reply is sent whatever the request.
//! * `n` gives that many identical choices (a stream carries one).
//! * A tool's parameters or a `json_schema` response format are filled
//!   with values that meet the schema's types, enums, `required`, common
//!   string `format`s, `minLength`/`maxLength` (up to 4,096), numeric
//!   bounds (exclusive ones too, draft 4's boolean form included) and
//!   `minItems`/`maxItems` (up to 64 items); `pattern`, `multipleOf` and
//!   `uniqueItems` are not met, nor a format cut or padded by a length. A
//!   `LABEL=word` marker in the prompt picks the enum value (the enum that
//!   holds it, `label` first), and a marker outside every enum is sent as
//!   it is (how a test makes a judge answer outside its choices).
//! * `GET /v1/models` lists the model `scripted`; `GET /v1/models/{id}`
//!   describes any id.
//! * A scripted status with no body gets OpenAI's error `type` and `code`
//!   for it (401 `invalid_api_key`, 404 `model_not_found`, 429 type
//!   `requests` code `rate_limit_exceeded`, 5xx `server_error`).
//!
//! # Bounds
//!
//! One thread per connection, at most [`limits::MAX_CONNECTIONS`] (256) at
//! once; more are answered `503`. Reads poll the stop flag every 50 ms; an
//! idle keep-alive connection is closed after [`limits::IDLE_TIMEOUT`]. The
//! server stops by itself after [`ServerLimits`]`::max_requests` requests or
//! `max_seconds` seconds (defaults 1,000,000 and 600 s); requests after the
//! last allowed one get `503`. [`ScriptedServer::stop`] (also run on drop)
//! returns within 2 s.
//!
//! The binary `refscore-scripted-llm` serves a script file; see its
//! `--help`, and [`Script`] for the JSON format. With `--record FILE` it
//! writes every request it received to FILE when it stops, one JSON line
//! each, credential headers as `***`.

#![forbid(unsafe_code)]

mod auto;
mod connection;
mod embedding;
mod error;
mod http;
pub mod limits;
mod openai;
mod recorded;
mod reply;
mod request;
mod respond;
mod script;
mod server;
mod shared;
mod stream;
mod when;

pub use error::{ScriptError, ServerError};
pub use limits::ServerLimits;
pub use recorded::RecordedRequest;
pub use reply::{Reply, Usage};
pub use script::{Rule, Script};
pub use server::ScriptedServer;
pub use when::When;
