//! `refscore-scripted-llm`: serve a script on 127.0.0.1 until a signal or
//! the limits.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use clap::Parser;
use refscore_scripted_llm::{Script, ScriptedServer, ServerLimits};
use signal_hook::consts::{SIGINT, SIGTERM};

/// A scripted OpenAI-compatible server for tests and dry runs.
///
/// Prints one line, `http://127.0.0.1:PORT/v1`, once listening; serves until
/// SIGINT/SIGTERM or the limits; then prints the request count on stderr.
#[derive(Debug, Parser)]
#[command(version)]
struct Args {
    /// Port on 127.0.0.1 (0: any free port).
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// Script file (JSON: {"rules": [{"when": ..., "reply": ..., "times": N}]}).
    /// Without one, every request gets the automatic reply.
    #[arg(long, value_name = "FILE.json")]
    script: Option<PathBuf>,
    /// Stop after answering this many requests.
    #[arg(long, default_value_t = ServerLimits::default().max_requests)]
    max_requests: usize,
    /// Stop after this many seconds.
    #[arg(long, default_value_t = ServerLimits::default().max_seconds)]
    max_seconds: u64,
    /// Do not print the request count at exit.
    #[arg(long)]
    quiet: bool,
    /// At exit, write every request received to FILE, one JSON object a
    /// line (method, path, headers, body). Credential headers and query
    /// parameters (Authorization, api-key, ...) are written as `***`;
    /// bodies as sent. A second signal exits without writing it.
    #[arg(long, value_name = "FILE.jsonl")]
    record: Option<PathBuf>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let script = match &args.script {
        Some(path) => match Script::from_file(path) {
            Ok(script) => script,
            Err(e) => {
                eprintln!("refscore-scripted-llm: {e}");
                return ExitCode::from(2);
            }
        },
        None => Script::default(),
    };
    let limits = ServerLimits { max_requests: args.max_requests, max_seconds: args.max_seconds };

    let signalled = Arc::new(AtomicBool::new(false));
    for signal in [SIGINT, SIGTERM] {
        // A second signal while stopping ends the process at once.
        let registered =
            signal_hook::flag::register_conditional_shutdown(signal, 130, Arc::clone(&signalled))
                .and_then(|_| signal_hook::flag::register(signal, Arc::clone(&signalled)));
        if let Err(e) = registered {
            eprintln!("refscore-scripted-llm: installing signal handlers: {e}");
            return ExitCode::FAILURE;
        }
    }

    let server = match ScriptedServer::start_on(args.port, script, limits) {
        Ok(server) => server,
        Err(e) => {
            eprintln!("refscore-scripted-llm: {e}");
            return ExitCode::FAILURE;
        }
    };
    {
        let mut stdout = std::io::stdout().lock();
        // A closed stdout does not stop the server.
        let _ = writeln!(stdout, "{}", server.base_url());
        let _ = stdout.flush();
    }
    // Bounded: the server stops by itself after `max_seconds`.
    while server.is_running() && !signalled.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(20));
    }
    server.stop();
    if !args.quiet {
        eprintln!("requests: {}", server.request_count());
    }
    if let Some(path) = &args.record {
        let mut text = String::new();
        for r in server.requests() {
            text.push_str(&r.to_record_line());
            text.push('\n');
        }
        if let Err(e) = std::fs::write(path, text) {
            eprintln!("refscore-scripted-llm: writing {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}
