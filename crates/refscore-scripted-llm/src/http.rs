//! The HTTP/1.1 the server speaks: request heads in, responses out.
//!
//! Bodies must come with `Content-Length`: a request with
//! `Transfer-Encoding` (chunked bodies) is answered `411 Length Required`.

use std::io::Write;

use crate::limits::{MAX_BODY_BYTES, MAX_HEADERS};

/// A parsed request head.
#[derive(Debug, PartialEq)]
pub(crate) struct Head {
    /// Request method as sent.
    pub(crate) method: String,
    /// Request target as sent (path and query).
    pub(crate) target: String,
    /// Headers in order; names lowercased, values trimmed.
    pub(crate) headers: Vec<(String, String)>,
    /// Body length (0 without `Content-Length`).
    pub(crate) content_length: usize,
    /// Whether the connection stays open after the response.
    pub(crate) keep_alive: bool,
    /// Whether the client waits for `100 Continue` before the body.
    pub(crate) expect_continue: bool,
}

/// A request head the server refuses; the connection is closed after the
/// error response.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
pub(crate) enum HeadError {
    /// `400`: not a request this server understands.
    Malformed(&'static str),
    /// `431`: head or header count over the limits.
    HeadTooLarge,
    /// `411`: a `Transfer-Encoding` body.
    LengthRequired,
    /// `413`: `Content-Length` over [`MAX_BODY_BYTES`].
    BodyTooLarge,
    /// `505`: not HTTP/1.0 or HTTP/1.1.
    Version,
    /// `408`: the client stopped sending mid-request.
    Timeout,
}

impl HeadError {
    /// The status code of the error response.
    pub(crate) fn status(self) -> u16 {
        match self {
            HeadError::Malformed(_) => 400,
            HeadError::HeadTooLarge => 431,
            HeadError::LengthRequired => 411,
            HeadError::BodyTooLarge => 413,
            HeadError::Version => 505,
            HeadError::Timeout => 408,
        }
    }

    /// A short explanation for the error body.
    pub(crate) fn message(self) -> &'static str {
        match self {
            HeadError::Malformed(why) => why,
            HeadError::HeadTooLarge => "request head too large",
            HeadError::LengthRequired => {
                "request bodies need Content-Length (chunked is not supported)"
            }
            HeadError::BodyTooLarge => "request body too large",
            HeadError::Version => "only HTTP/1.0 and HTTP/1.1 are supported",
            HeadError::Timeout => "request not received in time",
        }
    }
}

/// The length of the head at the start of `buf` (through the blank line),
/// if it is all there.
pub(crate) fn head_len(buf: &[u8]) -> Option<usize> {
    buf.windows(4).position(|w| w == b"\r\n\r\n").map(|i| i + 4)
}

/// Parse a request head (request line, header lines, blank line).
pub(crate) fn parse_head(head: &[u8]) -> Result<Head, HeadError> {
    let text = std::str::from_utf8(head).map_err(|_| HeadError::Malformed("head is not UTF-8"))?;
    let mut lines = text.split("\r\n");
    let request_line = lines.next().unwrap_or_default();
    let mut parts = request_line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(HeadError::Malformed("bad request line"));
    };
    if method.is_empty() || !method.bytes().all(|b| b.is_ascii_alphabetic()) || target.is_empty() {
        return Err(HeadError::Malformed("bad request line"));
    }
    let http11 = match version {
        "HTTP/1.1" => true,
        "HTTP/1.0" => false,
        v if v.starts_with("HTTP/") => return Err(HeadError::Version),
        _ => return Err(HeadError::Malformed("bad request line")),
    };

    let mut headers = Vec::new();
    let mut content_length: Option<usize> = None;
    let mut close = false;
    let mut keep_alive_token = false;
    let mut expect_continue = false;
    for line in lines.take_while(|l| !l.is_empty()) {
        if headers.len() >= MAX_HEADERS {
            return Err(HeadError::HeadTooLarge);
        }
        let Some((name, value)) = line.split_once(':') else {
            return Err(HeadError::Malformed("bad header line"));
        };
        if name.is_empty() || name.bytes().any(|b| b.is_ascii_whitespace() || b.is_ascii_control())
        {
            return Err(HeadError::Malformed("bad header name"));
        }
        let name = name.to_ascii_lowercase();
        let value = value.trim_matches([' ', '\t']);
        match name.as_str() {
            "content-length" => {
                if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(HeadError::Malformed("bad Content-Length"));
                }
                // All digits: a parse failure can only be overflow.
                let n = value.parse::<usize>().map_err(|_| HeadError::BodyTooLarge)?;
                if content_length.is_some_and(|old| old != n) {
                    return Err(HeadError::Malformed("conflicting Content-Length"));
                }
                content_length = Some(n);
            }
            "transfer-encoding" => return Err(HeadError::LengthRequired),
            "connection" => {
                for token in value.split(',').map(str::trim) {
                    close |= token.eq_ignore_ascii_case("close");
                    keep_alive_token |= token.eq_ignore_ascii_case("keep-alive");
                }
            }
            "expect" => expect_continue = value.eq_ignore_ascii_case("100-continue"),
            _ => {}
        }
        headers.push((name, value.to_owned()));
    }
    let content_length = content_length.unwrap_or(0);
    if content_length > MAX_BODY_BYTES {
        return Err(HeadError::BodyTooLarge);
    }
    Ok(Head {
        method: method.to_owned(),
        target: target.to_owned(),
        headers,
        content_length,
        keep_alive: !close && (http11 || keep_alive_token),
        expect_continue,
    })
}

/// The reason phrase of a status code.
pub(crate) fn reason(status: u16) -> &'static str {
    match status {
        100 => "Continue",
        200 => "OK",
        201 => "Created",
        202 => "Accepted",
        204 => "No Content",
        301 => "Moved Permanently",
        302 => "Found",
        304 => "Not Modified",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        409 => "Conflict",
        411 => "Length Required",
        413 => "Payload Too Large",
        422 => "Unprocessable Entity",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        505 => "HTTP Version Not Supported",
        _ => "Scripted",
    }
}

/// A response's status line and headers, short of the body.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ResponseHead<'a> {
    /// Status code.
    pub(crate) status: u16,
    /// `Content-Type`.
    pub(crate) content_type: &'a str,
    /// `Retry-After`, if any.
    pub(crate) retry_after: Option<&'a str>,
    /// Whether to send `Connection: close` (and close after).
    pub(crate) close: bool,
    /// The request's number, sent as `x-request-id: req_scripted_N` (what
    /// the OpenAI SDKs show as a reply's request id).
    pub(crate) request_id: Option<usize>,
    /// Whether the request was a `HEAD`: the headers are sent, the body
    /// is not.
    pub(crate) head_only: bool,
}

/// Append a whole response (head and body) to `out`. Statuses 204 and 304
/// are sent without body or `Content-Length`.
pub(crate) fn write_response(out: &mut Vec<u8>, head: ResponseHead<'_>, body: &[u8]) {
    // Writing to a Vec cannot fail.
    let _ = write!(out, "HTTP/1.1 {} {}\r\n", head.status, reason(head.status));
    let bodiless = matches!(head.status, 204 | 304);
    if !bodiless {
        let _ = write!(
            out,
            "Content-Type: {}\r\nContent-Length: {}\r\n",
            head.content_type,
            body.len()
        );
    }
    if let Some(retry_after) = head.retry_after {
        let _ = write!(out, "Retry-After: {retry_after}\r\n");
    }
    if let Some(id) = head.request_id {
        let _ = write!(out, "x-request-id: req_scripted_{id}\r\n");
    }
    out.extend_from_slice(if head.close {
        b"Connection: close\r\n\r\n"
    } else {
        b"Connection: keep-alive\r\n\r\n"
    });
    if !bodiless && !head.head_only {
        out.extend_from_slice(body);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Head, HeadError> {
        parse_head(text.as_bytes())
    }

    #[test]
    fn parses_a_post_head() {
        let head = parse(
            "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\
             X-Trace:  Abc \r\nContent-Length: 12\r\n\r\n",
        )
        .unwrap();
        assert_eq!(head.method, "POST");
        assert_eq!(head.target, "/v1/chat/completions");
        assert_eq!(head.content_length, 12);
        assert!(head.keep_alive);
        assert!(!head.expect_continue);
        assert_eq!(head.headers[2], ("x-trace".to_owned(), "Abc".to_owned()));
    }

    #[test]
    fn connection_rules_follow_the_version() {
        assert!(!parse("GET / HTTP/1.1\r\nConnection: close\r\n\r\n").unwrap().keep_alive);
        assert!(!parse("GET / HTTP/1.0\r\n\r\n").unwrap().keep_alive);
        assert!(parse("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n").unwrap().keep_alive);
        assert!(parse("POST / HTTP/1.1\r\nExpect: 100-continue\r\n\r\n").unwrap().expect_continue);
    }

    #[test]
    fn refuses_what_it_cannot_serve() {
        assert_eq!(
            parse("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"),
            Err(HeadError::LengthRequired)
        );
        assert_eq!(
            parse("POST / HTTP/1.1\r\nContent-Length: 9999999999\r\n\r\n"),
            Err(HeadError::BodyTooLarge)
        );
        assert_eq!(
            parse("POST / HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n"),
            Err(HeadError::BodyTooLarge)
        );
        assert_eq!(parse("GET / HTTP/2.0\r\n\r\n"), Err(HeadError::Version));
        for bad in [
            "GET /\r\n\r\n",
            "GET  / HTTP/1.1\r\n\r\n",
            "G:T / HTTP/1.1\r\n\r\n",
            "GET / HTTP/1.1\r\nNoColon\r\n\r\n",
            "GET / HTTP/1.1\r\nBad Name: x\r\n\r\n",
            "POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
            "POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
        ] {
            assert!(matches!(parse(bad), Err(HeadError::Malformed(_))), "{bad:?}");
        }
        let many: String = (0..=MAX_HEADERS).map(|i| format!("H{i}: v\r\n")).collect();
        assert_eq!(parse(&format!("GET / HTTP/1.1\r\n{many}\r\n")), Err(HeadError::HeadTooLarge));
        assert!(parse_head(b"GET /\xff HTTP/1.1\r\n\r\n").is_err());
    }

    #[test]
    fn finds_the_end_of_a_head() {
        assert_eq!(head_len(b"GET / HTTP/1.1\r\n\r\nbody"), Some(18));
        assert_eq!(head_len(b"GET / HTTP/1.1\r\n"), None);
    }

    #[test]
    fn writes_status_headers_and_body() {
        let mut out = Vec::new();
        let head = ResponseHead {
            status: 429,
            content_type: "application/json",
            retry_after: Some("1"),
            close: true,
            request_id: None,
            head_only: false,
        };
        write_response(&mut out, head, b"{}");
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\n\
             Content-Length: 2\r\nRetry-After: 1\r\nConnection: close\r\n\r\n{}"
        );
        let mut out = Vec::new();
        write_response(
            &mut out,
            ResponseHead {
                status: 204,
                content_type: "text/plain",
                retry_after: None,
                close: false,
                request_id: None,
                head_only: false,
            },
            b"ignored",
        );
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "HTTP/1.1 204 No Content\r\nConnection: keep-alive\r\n\r\n"
        );
        // A HEAD gets the headers (its length included) and no body; an
        // answered request names its id.
        let mut out = Vec::new();
        let head = ResponseHead {
            status: 200,
            content_type: "application/json",
            retry_after: None,
            close: false,
            request_id: Some(7),
            head_only: true,
        };
        write_response(&mut out, head, b"{}");
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\
             x-request-id: req_scripted_7\r\nConnection: keep-alive\r\n\r\n"
        );
    }
}
