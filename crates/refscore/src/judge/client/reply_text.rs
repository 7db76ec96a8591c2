//! A reply body's bytes as text: UTF-8, a byte order mark before it
//! dropped; what cannot be read says why (a `Content-Encoding` the client
//! does not decode, an invalid byte) and keeps the bytes read lossily.

/// A body that is not UTF-8 text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct NotText {
    /// Why, in words.
    pub(super) reason: String,
    /// The body read lossily (each invalid sequence as `U+FFFD`).
    pub(super) lossy: String,
}

/// The body as text, without a leading UTF-8 byte order mark; `encoding`
/// is the `Content-Encoding` the server declared (gzip bodies arrive
/// decoded).
pub(super) fn reply_text(bytes: Vec<u8>, encoding: Option<&str>) -> Result<String, NotText> {
    let bytes = match bytes.strip_prefix(b"\xef\xbb\xbf") {
        Some(rest) => rest.to_vec(),
        None => bytes,
    };
    match String::from_utf8(bytes) {
        Ok(text) => Ok(text),
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let lossy = String::from_utf8_lossy(e.as_bytes()).into_owned();
            let reason = match encoding {
                Some(enc) => format!(
                    "the body is not UTF-8 text: it was sent with `content-encoding: {enc}`, \
                     which the judge does not decode (configure the server not to compress \
                     replies, or remove an Accept-Encoding header)"
                ),
                None => format!("the body is not UTF-8 text (an invalid byte at offset {at})"),
            };
            Err(NotText { reason, lossy })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boms_are_dropped_and_invalid_bytes_explained() {
        assert_eq!(reply_text(b"\xef\xbb\xbf{}".to_vec(), None).unwrap(), "{}");
        assert_eq!(reply_text(b"{}".to_vec(), None).unwrap(), "{}");
        let e = reply_text(b"{\"a\": \"x\xff\"}".to_vec(), None).unwrap_err();
        assert_eq!(e.reason, "the body is not UTF-8 text (an invalid byte at offset 8)");
        assert_eq!(e.lossy, "{\"a\": \"x\u{fffd}\"}");
        let e = reply_text(vec![0x28, 0xb5, 0x2f, 0xfd], Some("zstd")).unwrap_err();
        assert!(e.reason.contains("`content-encoding: zstd`"), "{}", e.reason);
    }
}
