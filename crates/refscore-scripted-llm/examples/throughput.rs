//! Requests per second through a scripted server with keep-alive clients.
//!
//! `cargo run --release -p refscore-scripted-llm --example throughput [SECONDS] [record]`
//!
//! Runs 1 and then 8 client threads, each on one keep-alive connection,
//! posting a judge-style chat request with a tool (answered by
//! `Reply::Auto`) for SECONDS (default 3) each, and prints requests/s.
//! Then 1 client thread opening a new connection per request. Request
//! bodies are not recorded unless `record` is given.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use refscore_scripted_llm::{Script, ScriptedServer, ServerLimits};
use serde_json::json;

/// Most requests one client thread sends, whatever the time.
const MAX_PER_THREAD: u64 = 5_000_000;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let seconds: u64 = std::env::args().nth(1).map(|s| s.parse()).transpose()?.unwrap_or(3);
    let record = std::env::args().nth(2).as_deref() == Some("record");
    let body = json!({
        "model": "judge",
        "messages": [
            {"role": "system", "content": "You grade answers."},
            {"role": "user", "content": "Question: 2+2? Answer: 4. LABEL=correct"}
        ],
        "tools": [{"type": "function", "function": {"name": "verdict", "parameters": {
            "type": "object",
            "properties": {"label": {"enum": ["correct", "incorrect"]}, "explanation": {"type": "string"}},
            "required": ["label", "explanation"]}}}]
    })
    .to_string();
    let request = format!(
        "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Authorization: Bearer test\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let closing = request.replacen("\r\n\r\n", "\r\nConnection: close\r\n\r\n", 1);
    for (threads, reconnect) in [(1, false), (8, false), (1, true)] {
        let limits = ServerLimits { max_requests: usize::MAX, max_seconds: seconds + 30 };
        let server = ScriptedServer::start_with(Script::default().record(record), limits)?;
        let addr = server.addr();
        let began = Instant::now();
        let deadline = began + Duration::from_secs(seconds);
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                let request = if reconnect { closing.clone() } else { request.clone() };
                std::thread::spawn(move || client(addr, &request, deadline, reconnect))
            })
            .collect();
        let mut total = 0u64;
        for handle in handles {
            total += handle.join().map_err(|_| "client thread panicked")??;
        }
        let elapsed = began.elapsed().as_secs_f64();
        println!(
            "{threads} client thread(s), {}: {total} requests in {elapsed:.2} s = {:.0} requests/s (server counted {})",
            if reconnect { "a new connection per request" } else { "keep-alive" },
            total as f64 / elapsed,
            server.request_count()
        );
        server.stop();
    }
    Ok(())
}

/// Post `request` until `deadline`, on one connection or (`reconnect`) on a
/// new one each time; the count.
fn client(
    addr: SocketAddr,
    request: &str,
    deadline: Instant,
    reconnect: bool,
) -> std::io::Result<u64> {
    let connect = || -> std::io::Result<BufReader<TcpStream>> {
        let stream = TcpStream::connect(addr)?;
        stream.set_nodelay(true)?;
        stream.set_read_timeout(Some(Duration::from_secs(5)))?;
        Ok(BufReader::new(stream))
    };
    let mut reader = connect()?;
    let mut sent = 0u64;
    let mut line = String::new();
    let mut body = Vec::new();
    while Instant::now() < deadline && sent < MAX_PER_THREAD {
        if reconnect && sent > 0 {
            reader = connect()?;
        }
        reader.get_mut().write_all(request.as_bytes())?;
        let mut length = 0usize;
        let mut status_seen = false;
        loop {
            line.clear();
            if reader.read_line(&mut line)? == 0 {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
            if !status_seen {
                status_seen = true;
                if !line.starts_with("HTTP/1.1 200") {
                    return Err(std::io::Error::other(format!("unexpected {line:?}")));
                }
                continue;
            }
            let trimmed = line.trim_end();
            if trimmed.is_empty() {
                break;
            }
            if let Some(v) = trimmed.strip_prefix("Content-Length: ") {
                length = v.parse().map_err(std::io::Error::other)?;
            }
        }
        body.resize(length, 0);
        reader.read_exact(&mut body)?;
        sent += 1;
    }
    Ok(sent)
}
