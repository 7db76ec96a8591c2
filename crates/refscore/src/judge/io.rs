//! The threads that do a judge's HTTP exchanges.
//!
//! A blocking request cannot be interrupted, so a run stopped with Ctrl-C
//! would wait for every request in flight (up to the judge's timeout). The
//! exchanges run on these threads instead; the caller waits for the answer
//! and, once the run is cancelled, gives up after [`CANCEL_GRACE`]: the
//! row fails as cancelled and the run ends with what is finished. The
//! abandoned exchange ends by its own timeout.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How long a cancelled run still waits for a request in flight.
pub(super) const CANCEL_GRACE: Duration = Duration::from_secs(2);

/// Largest reply body read, in bytes.
const BODY_LIMIT: u64 = 64 << 20;

/// One HTTP exchange to run.
pub(super) struct Exchange {
    pub(super) url: String,
    /// Sent on a new connection, not on one the pool kept.
    pub(super) fresh: bool,
    pub(super) headers: Vec<(String, String)>,
    pub(super) body: Vec<u8>,
}

/// What the server answered: status, `Retry-After`, `Location` (of a
/// redirect), `Content-Encoding`, and the body's bytes (or why they could
/// not be read).
pub(super) struct Answer {
    pub(super) status: u16,
    pub(super) retry_after: Option<Duration>,
    pub(super) location: Option<String>,
    /// The `Content-Encoding` the server declared, if any.
    pub(super) content_encoding: Option<String>,
    /// Whether the connection may be kept for another request (the server
    /// did not say `Connection: close`).
    pub(super) keep_alive: bool,
    pub(super) body: Result<Vec<u8>, BodyFailure>,
}

/// Why a reply's body could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum BodyFailure {
    /// Larger than this many bytes (decoded).
    TooLarge(u64),
    /// Its bytes could not be decoded (a compressed body that is not what
    /// its `Content-Encoding` says): why, in words.
    Undecodable(String),
    /// The connection failed while it was read (dropped, timed out).
    Transport(String),
}

impl Exchange {
    /// Sends the request and reads the reply; `Err` is a transport failure.
    fn send(self, agent: &ureq::Agent) -> Result<Answer, Failure> {
        let mut req = agent.post(&self.url);
        for (h, v) in &self.headers {
            req = req.header(h.as_str(), v.as_str());
        }
        match req.send(self.body) {
            Ok(mut resp) => {
                let status = resp.status().as_u16();
                let header = |name: &str| {
                    resp.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_owned)
                };
                // OpenAI and Azure also say it in milliseconds; that one is
                // more precise when both are given. LiteLLM's proxy passes
                // the provider's on as `llm_provider-retry-after`.
                let retry_after = header("retry-after-ms")
                    .as_deref()
                    .and_then(parse_retry_after_ms)
                    .or_else(|| header("retry-after").as_deref().and_then(parse_retry_after))
                    .or_else(|| {
                        header("llm_provider-retry-after").as_deref().and_then(parse_retry_after)
                    });
                let location = resp
                    .headers()
                    .get("location")
                    .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
                let content_encoding = header("content-encoding")
                    .map(|e| e.trim().to_ascii_lowercase())
                    .filter(|e| !e.is_empty() && e != "identity");
                let keep_alive = resp.version() != ureq::http::Version::HTTP_10
                    && !header("connection").is_some_and(|c| c.eq_ignore_ascii_case("close"));
                let body = resp
                    .body_mut()
                    .with_config()
                    .limit(BODY_LIMIT)
                    .read_to_vec()
                    .map_err(|e| body_failure(&e));
                Ok(Answer { status, retry_after, location, content_encoding, keep_alive, body })
            }
            Err(e) => Err(Failure { reason: describe(&e), dropped: dropped(&e) }),
        }
    }
}

/// A request that got no answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Failure {
    /// Why, in words.
    pub(super) reason: String,
    /// Whether the connection was closed or reset before any answer came
    /// (what a server that silently closes a kept-alive connection causes).
    pub(super) dropped: bool,
}

/// Whether `e` is a connection closed or reset under the request.
fn dropped(e: &ureq::Error) -> bool {
    use std::io::ErrorKind::{BrokenPipe, ConnectionAborted, ConnectionReset, UnexpectedEof};
    matches!(e, ureq::Error::Io(io)
        if matches!(io.kind(), UnexpectedEof | ConnectionReset | ConnectionAborted | BrokenPipe))
}

/// Why a body could not be read, from the HTTP client's error.
fn body_failure(e: &ureq::Error) -> BodyFailure {
    match e {
        ureq::Error::BodyExceedsLimit(n) => BodyFailure::TooLarge(*n),
        ureq::Error::Decompress(enc, io) => BodyFailure::Undecodable(format!(
            "the body could not be decoded as `content-encoding: {enc}`: {io}"
        )),
        ureq::Error::Io(io)
            if matches!(
                io.kind(),
                std::io::ErrorKind::InvalidData | std::io::ErrorKind::InvalidInput
            ) =>
        {
            BodyFailure::Undecodable(format!("the body could not be decoded: {io}"))
        }
        other => BodyFailure::Transport(describe(other)),
    }
}

/// Longest wait a `Retry-After` may ask for.
pub(super) const MAX_RETRY_AFTER: Duration = Duration::from_secs(120);

/// Seconds in a `Retry-After` header (an HTTP date is not honoured: the
/// backoff applies), at most [`MAX_RETRY_AFTER`].
pub(super) fn parse_retry_after(v: &str) -> Option<Duration> {
    wait(v, 1.0).or_else(|| {
        // Or an HTTP date (RFC 9110 allows both): the wait until then,
        // none when it is past.
        let at = httpdate::parse_http_date(v.trim()).ok()?;
        let wait = at.duration_since(std::time::SystemTime::now()).unwrap_or(Duration::ZERO);
        Some(wait.min(MAX_RETRY_AFTER))
    })
}

/// The wait a 429's body asks for, as Google's APIs give it: a
/// `retryDelay` of seconds (`"37s"`, `"1.5s"`) in the error's details
/// (the first member so named, at any depth of the JSON body).
pub(super) fn retry_delay_in_body(text: &str) -> Option<Duration> {
    let body: serde_json::Value = serde_json::from_str(text).ok()?;
    let mut open = vec![&body];
    while let Some(v) = open.pop() {
        match v {
            serde_json::Value::Object(m) => {
                if let Some(delay) = m.get("retryDelay") {
                    return wait(delay.as_str()?.strip_suffix('s')?, 1.0);
                }
                open.extend(m.values().rev());
            }
            serde_json::Value::Array(items) => open.extend(items.iter().rev()),
            _ => {}
        }
    }
    None
}

/// Milliseconds in a `retry-after-ms` header (OpenAI, Azure), at most
/// [`MAX_RETRY_AFTER`]; preferred to `Retry-After` when both are given.
pub(super) fn parse_retry_after_ms(v: &str) -> Option<Duration> {
    wait(v, 1000.0)
}

/// A non-negative number of `per_second` units, as a wait of at most
/// [`MAX_RETRY_AFTER`].
fn wait(v: &str, per_second: f64) -> Option<Duration> {
    let n: f64 = v.trim().parse().ok().filter(|s: &f64| s.is_finite() && *s >= 0.0)?;
    Some(Duration::from_secs_f64((n / per_second).min(MAX_RETRY_AFTER.as_secs_f64())))
}

/// One exchange to run; `true` when its caller had given up waiting.
type Job = Box<dyn FnOnce() -> bool + Send>;

/// A fixed set of threads, started on first use, and the HTTP agent
/// whose pooled connections they use.
///
/// Both belong to the process that started them. A child made by
/// `fork()` (Python's `multiprocessing` on Linux) inherits the pool but
/// not its threads, and shares the parent's open connections: a child
/// starts threads and an agent of its own, and leaves the parent's
/// untouched (dropping them would wait for threads that do not exist, or
/// close connections the parent still uses).
#[derive(Debug)]
pub(super) struct IoPool {
    size: usize,
    /// What every agent of the pool is made from.
    config: ureq::config::Config,
    started: Mutex<Option<Started>>,
}

/// The threads and agent of one process.
#[derive(Debug)]
struct Started {
    pid: u32,
    sender: mpsc::Sender<Job>,
    /// The queue the threads take jobs from.
    jobs: Arc<Mutex<mpsc::Receiver<Job>>>,
    /// Threads started beyond the pool's size, one per exchange given up
    /// on a cancel (its thread stays blocked until the server answers or
    /// the timeout ends it); the blocked thread leaves once that exchange
    /// ends.
    extra: Arc<AtomicUsize>,
    agent: ureq::Agent,
}

/// Starts one pool thread taking jobs from `jobs` until the queue closes,
/// or until it ends an exchange its caller gave up while `extra` says the
/// pool is larger than its size.
fn worker(
    i: usize,
    jobs: &Arc<Mutex<mpsc::Receiver<Job>>>,
    extra: &Arc<AtomicUsize>,
) -> std::io::Result<()> {
    let (jobs, extra) = (Arc::clone(jobs), Arc::clone(extra));
    std::thread::Builder::new()
        .name(format!("refscore-judge-{i}"))
        .stack_size(256 * 1024)
        .spawn(move || {
            loop {
                let next = jobs.lock().unwrap_or_else(PoisonError::into_inner).recv();
                let given_up = match next {
                    Ok(job) => job(),
                    Err(_) => return,
                };
                // A thread that was left blocked by a given-up exchange
                // has been replaced: it leaves.
                if given_up
                    && extra
                        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
                        .is_ok()
                {
                    return;
                }
            }
        })
        .map(drop)
}

impl IoPool {
    pub(super) fn new(size: usize, config: ureq::config::Config) -> Self {
        IoPool { size: size.max(1), config, started: Mutex::new(None) }
    }

    /// Runs `x` on a pool thread and waits for it; `None` when the run was
    /// cancelled and the answer did not come within [`CANCEL_GRACE`].
    pub(super) fn run(&self, x: Exchange, cancel: &AtomicBool) -> Option<Result<Answer, Failure>> {
        let (tx, rx) = mpsc::channel();
        let fresh = x.fresh;
        let job = |agent: ureq::Agent| -> Job {
            Box::new(move || {
                // The caller may have given up: then nobody reads the answer.
                tx.send(x.send(&agent)).is_err()
            })
        };
        let unsent = {
            let mut guard = self.started.lock().unwrap_or_else(PoisonError::into_inner);
            match self.own(&mut guard) {
                // A fresh agent has no kept connection: the request opens one.
                Some(s) if fresh => {
                    let agent = ureq::Agent::new_with_config(self.config.clone());
                    s.sender.send(job(agent)).err().map(|e| e.0)
                }
                Some(s) => s.sender.send(job(s.agent.clone())).err().map(|e| e.0),
                // No thread could be started: a fresh agent, on this thread.
                None => Some(job(ureq::Agent::new_with_config(self.config.clone()))),
            }
        };
        if let Some(job) = unsent {
            let _ = job();
        }
        let mut cancelled_at: Option<Instant> = None;
        loop {
            match rx.recv_timeout(Duration::from_millis(50)) {
                Ok(answer) => return Some(answer),
                Err(RecvTimeoutError::Disconnected) => {
                    return Some(Err(Failure {
                        reason: String::from("the request's thread ended without an answer"),
                        dropped: false,
                    }));
                }
                Err(RecvTimeoutError::Timeout) => {
                    if cancel.load(Ordering::Relaxed) {
                        let since = *cancelled_at.get_or_insert_with(Instant::now);
                        if since.elapsed() >= CANCEL_GRACE {
                            self.replace_blocked_thread();
                            return None;
                        }
                    }
                }
            }
        }
    }

    /// Starts a thread in place of one left blocked by an exchange given
    /// up, so that the next requests (the next call, after a Ctrl-C) do
    /// not queue behind it; the pool shrinks back as jobs finish.
    fn replace_blocked_thread(&self) {
        let guard = self.started.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(s) = guard.as_ref().filter(|s| s.pid == std::process::id()) {
            s.extra.fetch_add(1, Ordering::SeqCst);
            if worker(self.size, &s.jobs, &s.extra).is_err() {
                let _ =
                    s.extra.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1));
            }
        }
    }

    /// The threads and agent of this process, started if need be; `None`
    /// when no thread can be started.
    fn own<'g>(&self, guard: &'g mut Option<Started>) -> Option<&'g Started> {
        let pid = std::process::id();
        if let Some(parent) = guard.take_if(|s| s.pid != pid) {
            // The parent's, inherited by a fork: never used nor dropped here.
            std::mem::forget(parent);
        }
        if guard.is_none() {
            let (tx, rx) = mpsc::channel::<Job>();
            let jobs = Arc::new(Mutex::new(rx));
            let extra = Arc::new(AtomicUsize::new(0));
            for i in 0..self.size {
                if worker(i, &jobs, &extra).is_err() && i == 0 {
                    return None;
                }
            }
            let agent = ureq::Agent::new_with_config(self.config.clone());
            *guard = Some(Started { pid, sender: tx, jobs, extra, agent });
        }
        guard.as_ref()
    }
}

fn describe(e: &ureq::Error) -> String {
    match e {
        ureq::Error::Timeout(_) => String::from("timed out"),
        ureq::Error::ConnectionFailed => String::from("connection failed"),
        ureq::Error::HostNotFound => String::from("host not found"),
        ureq::Error::Io(io) => format!("connection error: {io}"),
        other => other.to_string(),
    }
}
