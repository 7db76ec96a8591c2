//! Bounds that keep a scripted server small and stop it by itself.

use std::time::Duration;

/// Most connections served at once; a connection beyond this is answered
/// `503 Service Unavailable` (with `Retry-After: 1`) and closed.
pub const MAX_CONNECTIONS: usize = 256;

/// Largest request body accepted; a larger `Content-Length` is answered
/// `413 Payload Too Large` and the connection is closed.
pub const MAX_BODY_BYTES: usize = 8 * 1024 * 1024;

/// Largest request head (request line and headers); larger is answered
/// `431 Request Header Fields Too Large`.
pub const MAX_HEAD_BYTES: usize = 64 * 1024;

/// Most header lines in one request; more is answered `431`.
pub const MAX_HEADERS: usize = 128;

/// How long a keep-alive connection may sit idle between requests before
/// the server closes it. Longer than common client pool idle times (90 s),
/// so a pooled connection is not closed under a client's feet.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(120);

/// How long a started request may go without the client sending more bytes
/// before the server answers `408 Request Timeout` and closes.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// How long writing one response may block (a client that does not read).
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(5);

/// How long stopping waits for connection threads to finish; threads still
/// running then (e.g. blocked writing to a client that does not read) are
/// left to end on their own, which they do within [`WRITE_TIMEOUT`].
pub const STOP_GRACE: Duration = Duration::from_millis(1500);

/// How often blocked reads, delays and the accept loop look at the stop flag.
pub(crate) const POLL: Duration = Duration::from_millis(50);

/// Shortest sleep of the accept loop when no connection is waiting; it
/// doubles up to [`POLL`] while the listener stays quiet.
pub(crate) const ACCEPT_BACKOFF_MIN: Duration = Duration::from_micros(100);

/// Stack size of a connection thread.
pub(crate) const CONNECTION_STACK: usize = 1024 * 1024;

/// When a server stops by itself: after serving `max_requests` requests or
/// after `max_seconds` seconds, whichever comes first, so a forgotten server
/// never runs forever.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ServerLimits {
    /// Requests answered before the server stops; later requests get `503`.
    pub max_requests: usize,
    /// Seconds from start after which the server stops.
    pub max_seconds: u64,
}

impl Default for ServerLimits {
    /// 1,000,000 requests or 600 seconds.
    fn default() -> Self {
        Self { max_requests: 1_000_000, max_seconds: 600 }
    }
}
