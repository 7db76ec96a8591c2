//! The server handle and its accept loop.

use std::io::{ErrorKind, Read, Write};
use std::net::{Ipv4Addr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::connection;
use crate::error::ServerError;
use crate::limits::{
    ACCEPT_BACKOFF_MIN, CONNECTION_STACK, MAX_CONNECTIONS, POLL, STOP_GRACE, ServerLimits,
};
use crate::recorded::RecordedRequest;
use crate::script::Script;
use crate::shared::Shared;

/// A scripted OpenAI-compatible server on `127.0.0.1`, running on its own
/// threads until [`stop`](ScriptedServer::stop), drop, or its
/// [`ServerLimits`].
pub struct ScriptedServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    accept: Mutex<Option<JoinHandle<()>>>,
}

impl ScriptedServer {
    /// Start serving `script` on an ephemeral port with default limits.
    pub fn start(script: Script) -> Result<Self, ServerError> {
        Self::start_with(script, ServerLimits::default())
    }

    /// Start serving `script` on an ephemeral port with these limits.
    pub fn start_with(script: Script, limits: ServerLimits) -> Result<Self, ServerError> {
        Self::start_on(0, script, limits)
    }

    /// Start serving `script` on `127.0.0.1:port` (0: an ephemeral port).
    pub fn start_on(port: u16, script: Script, limits: ServerLimits) -> Result<Self, ServerError> {
        script.validate()?;
        let wanted = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
        let bind_error = |source| ServerError::Bind { addr: wanted, source };
        let listener = TcpListener::bind(wanted).map_err(bind_error)?;
        listener.set_nonblocking(true).map_err(bind_error)?;
        let addr = listener.local_addr().map_err(bind_error)?;
        let shared = Arc::new(Shared::new(script, limits, Instant::now()));
        let accept = {
            let shared = Arc::clone(&shared);
            std::thread::Builder::new()
                .name("scripted-llm-accept".into())
                .spawn(move || accept_loop(&listener, &shared))
                .map_err(ServerError::Spawn)?
        };
        Ok(Self { addr, shared, accept: Mutex::new(Some(accept)) })
    }

    /// The OpenAI base URL, `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// The address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The requests answered so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.lock().clone()
    }

    /// How many requests were answered (or are being answered).
    pub fn request_count(&self) -> usize {
        self.shared.admitted()
    }

    /// Whether the server still accepts requests: false once stopped, or
    /// once its limits are reached.
    pub fn is_running(&self) -> bool {
        !self.shared.stopped()
    }

    /// Stop accepting, close every connection and wait for the threads:
    /// returns within about [`STOP_GRACE`] plus 50 ms (under 2 s). Idempotent; also done on drop. Recorded requests stay
    /// readable.
    pub fn stop(&self) {
        self.shared.trigger_stop();
        let handle = self.accept.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some(handle) = handle {
            let _ = handle.join();
        }
    }
}

impl Drop for ScriptedServer {
    fn drop(&mut self) {
        self.stop();
    }
}

impl std::fmt::Debug for ScriptedServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScriptedServer")
            .field("addr", &self.addr)
            .field("running", &self.is_running())
            .field("requests", &self.request_count())
            .finish()
    }
}

/// Accept connections until stopped or past the deadline, each on its own
/// thread; then wait (bounded) for those threads.
fn accept_loop(listener: &TcpListener, shared: &Arc<Shared>) {
    let mut connections: Vec<JoinHandle<()>> = Vec::new();
    let mut backoff = ACCEPT_BACKOFF_MIN;
    loop {
        if shared.past_deadline() {
            shared.trigger_stop();
        }
        if shared.stopped() {
            break;
        }
        match listener.accept() {
            Ok((stream, _)) => {
                backoff = ACCEPT_BACKOFF_MIN;
                connections.retain(|c| !c.is_finished());
                if connections.len() >= MAX_CONNECTIONS {
                    refuse_busy(stream);
                    continue;
                }
                let conn_shared = Arc::clone(shared);
                let spawned = std::thread::Builder::new()
                    .name("scripted-llm-conn".into())
                    .stack_size(CONNECTION_STACK)
                    .spawn(move || connection::serve(stream, &conn_shared));
                match spawned {
                    Ok(handle) => connections.push(handle),
                    // The stream moved into the failed closure and is closed.
                    Err(_) => std::thread::sleep(backoff),
                }
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            // WouldBlock: nobody waiting. Anything else (e.g. out of file
            // descriptors): back off the same way rather than spin.
            Err(_) => {
                std::thread::sleep(backoff);
                backoff = (backoff * 2).min(POLL);
            }
        }
    }
    let deadline = Instant::now() + STOP_GRACE;
    while connections.iter().any(|c| !c.is_finished()) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    for connection in connections {
        if connection.is_finished() {
            let _ = connection.join();
        }
    }
}

/// Answer a connection over the cap with `503` and close it.
fn refuse_busy(mut stream: TcpStream) {
    let _ = stream.set_write_timeout(Some(Duration::from_millis(100)));
    let body = br#"{"error":{"message":"too many connections","type":"server_error","param":null,"code":null}}"#;
    let mut out = Vec::with_capacity(256);
    crate::http::write_response(
        &mut out,
        crate::http::ResponseHead {
            status: 503,
            content_type: "application/json",
            retry_after: Some("1"),
            close: true,
            request_id: None,
            head_only: false,
        },
        body,
    );
    let _ = stream.write_all(&out);
    let _ = stream.shutdown(Shutdown::Write);
    // Read what already arrived so closing does not reset the connection
    // before the client reads the 503.
    if stream.set_nonblocking(true).is_ok() {
        let mut sink = [0u8; 4096];
        for _ in 0..16 {
            match stream.read(&mut sink) {
                Ok(n) if n > 0 => {}
                _ => break,
            }
        }
    }
}
