//! JSONL (one JSON object per line), read line by line with one reused
//! buffer.

use std::io::BufRead;
use std::path::Path;
use std::sync::Arc;

use super::{Pending, row_error};

/// Rows of a JSONL file.
pub(crate) struct JsonlRows<R> {
    path: Arc<Path>,
    reader: R,
    buf: Vec<u8>,
    line: u64,
    done: bool,
}

impl<R: BufRead> JsonlRows<R> {
    pub(crate) fn from_reader(path: &Path, reader: R) -> Self {
        JsonlRows { path: Arc::from(path), reader, buf: Vec::new(), line: 0, done: false }
    }
}

impl<R: BufRead> Iterator for JsonlRows<R> {
    type Item = Pending;

    fn next(&mut self) -> Option<Self::Item> {
        while !self.done {
            self.buf.clear();
            match self.reader.read_until(b'\n', &mut self.buf) {
                Ok(0) => self.done = true,
                Ok(_) => {
                    self.line += 1;
                    if self.line == 1 && self.buf.starts_with(b"\xEF\xBB\xBF") {
                        self.buf.drain(..3);
                    }
                    if self.buf.iter().all(u8::is_ascii_whitespace) {
                        continue;
                    }
                    // The line's buffer goes with the row (no copy); the next
                    // line gets a new one of a typical size.
                    let next = self.buf.len().clamp(256, 1 << 16);
                    let bytes = std::mem::replace(&mut self.buf, Vec::with_capacity(next));
                    return Some(Pending::Line {
                        path: Arc::clone(&self.path),
                        number: self.line,
                        bytes,
                    });
                }
                Err(e) => {
                    self.done = true;
                    return Some(Pending::Ready(Err(row_error(
                        &self.path,
                        self.line + 1,
                        format!("read error: {e}"),
                    ))));
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(text: &[u8]) -> Vec<Result<super::super::Row, super::super::RowError>> {
        JsonlRows::from_reader(Path::new("d.jsonl"), text).map(Pending::resolve).collect()
    }

    #[test]
    fn reads_objects_skips_blank_lines_and_keeps_going_after_bad_lines() {
        let r = rows(b"\xEF\xBB\xBF{\"a\":1}\n\n  \n{\"a\": oops}\r\n[1]\n{\"a\":3}\r\n{\"a\":4}");
        assert_eq!(r.len(), 5);
        let ok = r[0].as_ref().unwrap();
        assert_eq!((ok.number, &ok.value["a"], ok.text_cells), (1, &serde_json::json!(1), false));
        let e = r[1].as_ref().unwrap_err();
        assert_eq!(e.number, 4);
        assert!(e.to_string().starts_with("d.jsonl:4: invalid JSON"), "{e}");
        let e = r[2].as_ref().unwrap_err();
        assert_eq!(e.number, 5);
        assert!(e.message.contains("array, not an object"), "{e}");
        assert_eq!(r[3].as_ref().unwrap().number, 6);
        assert_eq!(r[3].as_ref().unwrap().value["a"], 3);
        assert_eq!(r[4].as_ref().unwrap().value["a"], 4);
    }

    #[test]
    fn invalid_utf8_is_a_row_error() {
        let r = rows(b"{\"a\":\"\xff\"}\n{\"a\":2}\n");
        assert!(r[0].as_ref().unwrap_err().message.contains("UTF-8"));
        assert_eq!(r[1].as_ref().unwrap().value["a"], 2);
    }

    #[test]
    fn deep_line_parses() {
        let depth = 20_000;
        let text = format!("{{\"a\":{}1{}}}\n", "[".repeat(depth), "]".repeat(depth));
        let r = rows(text.as_bytes());
        assert!(r[0].is_ok());
        for row in r.into_iter().flatten() {
            crate::json::drop_deep(row.value);
        }
    }
}
