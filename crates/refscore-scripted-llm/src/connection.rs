//! One connection: read requests, answer them, until the client closes, a
//! response closes, the connection idles out or the server stops.

use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::http::{self, Head, HeadError, ResponseHead};
use crate::limits::{IDLE_TIMEOUT, MAX_HEAD_BYTES, POLL, REQUEST_TIMEOUT, WRITE_TIMEOUT};
use crate::openai;
use crate::request::RequestView;
use crate::respond::{self, Action};
use crate::shared::Shared;

/// Initial size of a connection's read buffer; it grows up to
/// [`MAX_HEAD_BYTES`] for a large head.
const READ_BUFFER: usize = 16 * 1024;

/// Serve one accepted connection to the end.
pub(crate) fn serve(stream: TcpStream, shared: &Shared) {
    let _ = stream.set_nodelay(true);
    // Without a read timeout the stop flag could not be polled: give up.
    if stream.set_nonblocking(false).is_err() || stream.set_read_timeout(Some(POLL)).is_err() {
        return;
    }
    let _ = stream.set_write_timeout(Some(WRITE_TIMEOUT));
    let mut conn = Connection {
        stream,
        shared,
        buf: vec![0; READ_BUFFER],
        start: 0,
        end: 0,
        out: Vec::with_capacity(1024),
        body_out: Vec::with_capacity(1024),
    };
    conn.run();
    let _ = conn.stream.shutdown(Shutdown::Both);
}

/// The outcome of waiting for bytes.
enum Got {
    /// This many bytes arrived.
    Bytes(usize),
    /// The peer closed (or the socket failed).
    Eof,
    /// The server is stopping.
    Stop,
    /// Nothing arrived within the time limit.
    Timeout,
}

/// Read into `dst`, waking every [`POLL`] to look at the stop flag, for at
/// most `limit`.
fn read_some(stream: &mut TcpStream, shared: &Shared, dst: &mut [u8], limit: Duration) -> Got {
    let began = Instant::now();
    loop {
        if shared.stopped() {
            return Got::Stop;
        }
        match stream.read(dst) {
            Ok(0) => return Got::Eof,
            Ok(n) => return Got::Bytes(n),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                if began.elapsed() >= limit {
                    return Got::Timeout;
                }
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(_) => return Got::Eof,
        }
    }
}

/// Why a connection ends without an error response.
enum End {
    /// Closed, idle too long, or the server is stopping.
    Quietly,
    /// Answer this error, then close.
    With(HeadError),
}

struct Connection<'s> {
    stream: TcpStream,
    shared: &'s Shared,
    /// Bytes read; `start..end` is not yet consumed.
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// The response being written.
    out: Vec<u8>,
    /// The response body being built.
    body_out: Vec<u8>,
}

impl Connection<'_> {
    fn run(&mut self) {
        // Each turn answers one request or ends the connection; requests are
        // bounded by `max_requests` and time by `max_seconds`.
        loop {
            let head = match self.read_head().and_then(|head| {
                let body = self.read_body(&head)?;
                Ok((head, body))
            }) {
                Ok(request) => request,
                Err(End::Quietly) => return,
                Err(End::With(error)) => {
                    self.send_error(error.status(), error.message());
                    return;
                }
            };
            if !self.answer(head.0, head.1) {
                return;
            }
        }
    }

    /// Wait for and parse the next request head.
    fn read_head(&mut self) -> Result<Head, End> {
        loop {
            // Stray line breaks between requests are allowed and skipped.
            while self.start < self.end && matches!(self.buf[self.start], b'\r' | b'\n') {
                self.start += 1;
            }
            let pending = &self.buf[self.start..self.end];
            if let Some(len) = http::head_len(pending) {
                let head = http::parse_head(&pending[..len]).map_err(End::With)?;
                self.start += len;
                return Ok(head);
            }
            if pending.len() >= MAX_HEAD_BYTES {
                return Err(End::With(HeadError::HeadTooLarge));
            }
            let started = !pending.is_empty();
            self.make_room();
            let limit = if started { REQUEST_TIMEOUT } else { IDLE_TIMEOUT };
            match read_some(&mut self.stream, self.shared, &mut self.buf[self.end..], limit) {
                Got::Bytes(n) => self.end += n,
                Got::Timeout if started => return Err(End::With(HeadError::Timeout)),
                Got::Eof | Got::Stop | Got::Timeout => return Err(End::Quietly),
            }
        }
    }

    /// Make space after `end`: move unconsumed bytes to the front, or grow
    /// (up to [`MAX_HEAD_BYTES`]); at least one byte is always free after.
    fn make_room(&mut self) {
        const ENOUGH: usize = 2048;
        if self.start == self.end {
            self.start = 0;
            self.end = 0;
        }
        if self.buf.len() - self.end >= ENOUGH {
            return;
        }
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
        if self.buf.len() - self.end < ENOUGH && self.buf.len() < MAX_HEAD_BYTES {
            self.buf.resize((self.buf.len() * 2).min(MAX_HEAD_BYTES), 0);
        }
        if self.end == self.buf.len() {
            self.buf.push(0);
        }
    }

    /// Read the body the head announces.
    fn read_body(&mut self, head: &Head) -> Result<Vec<u8>, End> {
        let wanted = head.content_length;
        let buffered = (self.end - self.start).min(wanted);
        let mut body = Vec::with_capacity(wanted);
        body.extend_from_slice(&self.buf[self.start..self.start + buffered]);
        self.start += buffered;
        if body.len() == wanted {
            return Ok(body);
        }
        if head.expect_continue && self.stream.write_all(b"HTTP/1.1 100 Continue\r\n\r\n").is_err()
        {
            return Err(End::Quietly);
        }
        let mut filled = body.len();
        body.resize(wanted, 0);
        while filled < wanted {
            match read_some(&mut self.stream, self.shared, &mut body[filled..], REQUEST_TIMEOUT) {
                Got::Bytes(n) => filled += n,
                Got::Timeout => return Err(End::With(HeadError::Timeout)),
                Got::Eof | Got::Stop => return Err(End::Quietly),
            }
        }
        Ok(body)
    }

    /// Answer one request; whether the connection stays open.
    fn answer(&mut self, head: Head, body: Vec<u8>) -> bool {
        let shared = self.shared;
        let Some((seq, last)) = shared.admit() else {
            shared.trigger_stop();
            self.send_error(503, "the scripted server reached its request limit");
            return false;
        };
        let keep_alive = head.keep_alive && !last;
        let head_only = head.method == "HEAD";
        let value = if body.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&body).unwrap_or(Value::Null)
        };
        let view = RequestView::new(&head.method, &head.target, &value, body.len());
        let picked = shared.pick(&view);
        let (delay, usage, _) = respond::unwrap(picked);
        self.body_out.clear();
        let action = respond::build(picked, &view, usage, seq, &mut self.body_out);
        shared.record(head.method, head.target, head.headers, value, body);

        let open = self.wait(delay)
            && match action {
                Action::Close => false,
                Action::Send { status, content_type, retry_after } => {
                    let head = ResponseHead {
                        status,
                        content_type,
                        retry_after,
                        close: !keep_alive,
                        request_id: Some(seq),
                        head_only,
                    };
                    self.out.clear();
                    http::write_response(&mut self.out, head, &self.body_out);
                    self.stream.write_all(&self.out).is_ok() && keep_alive
                }
            };
        if last {
            shared.trigger_stop();
        }
        open
    }

    /// Sleep `ms` milliseconds in slices; false if the server stopped.
    fn wait(&self, ms: u64) -> bool {
        if ms == 0 {
            return true;
        }
        let began = Instant::now();
        let total = Duration::from_millis(ms);
        loop {
            if self.shared.stopped() {
                return false;
            }
            let elapsed = began.elapsed();
            if elapsed >= total {
                return true;
            }
            std::thread::sleep((total - elapsed).min(POLL));
        }
    }

    /// Send an error response that closes the connection.
    fn send_error(&mut self, status: u16, message: &str) {
        self.body_out.clear();
        let (kind, code) = openai::error_kind(status);
        openai::error(&mut self.body_out, message, kind, code);
        self.out.clear();
        let head = ResponseHead {
            status,
            content_type: "application/json",
            retry_after: (status == 503).then_some("1"),
            close: true,
            request_id: None,
            head_only: false,
        };
        http::write_response(&mut self.out, head, &self.body_out);
        let _ = self.stream.write_all(&self.out);
    }
}
