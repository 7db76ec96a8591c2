//! A JSON array of row objects, streamed element by element.
//!
//! A small splitter finds where each top-level element ends (tracking
//! strings, escapes and bracket depth) without building the array, and
//! each element is then parsed on its own. A malformed element is one
//! row error; the next element is read as usual.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use super::{Row, RowError, object_row, row_error};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before the opening `[`.
    Start,
    /// After `[` (false) or after a `,` (true).
    Before { after_comma: bool },
    /// Inside an element.
    Element,
    /// After the closing `]`.
    End,
    /// Nothing more to read.
    Done,
}

/// Rows of a JSON array file.
pub(crate) struct JsonArrayRows<R> {
    path: PathBuf,
    reader: R,
    buf: Vec<u8>,
    state: State,
    depth: usize,
    in_str: bool,
    escaped: bool,
    index: u64,
}

impl JsonArrayRows<BufReader<File>> {
    pub(crate) fn new(path: &Path, file: File) -> Self {
        JsonArrayRows::from_reader(path, BufReader::with_capacity(1 << 16, file))
    }
}

impl<R: BufRead> JsonArrayRows<R> {
    pub(crate) fn from_reader(path: &Path, reader: R) -> Self {
        JsonArrayRows {
            path: path.to_path_buf(),
            reader,
            buf: Vec::new(),
            state: State::Start,
            depth: 0,
            in_str: false,
            escaped: false,
            index: 0,
        }
    }

    fn fail(&mut self, number: u64, message: impl Into<String>) -> Option<Result<Row, RowError>> {
        self.state = State::Done;
        Some(Err(row_error(&self.path, number, message)))
    }

    /// Reads up to the end of the next element into `buf`.
    /// `Ok(true)`: an element is in `buf`; `Ok(false)`: no more elements.
    fn split_next(&mut self) -> Result<bool, String> {
        loop {
            let chunk = match self.reader.fill_buf() {
                Ok(c) => c,
                Err(e) => return Err(format!("read error: {e}")),
            };
            if chunk.is_empty() {
                return match self.state {
                    State::Start => {
                        Err("expected a JSON array of row objects, found an empty file".into())
                    }
                    State::Before { .. } | State::Element => {
                        Err("unexpected end of file: the array is not closed".into())
                    }
                    State::End | State::Done => Ok(false),
                };
            }
            let mut used = 0;
            let mut found = false;
            let mut i = 0;
            while i < chunk.len() {
                let b = chunk[i];
                match self.state {
                    State::Start => {
                        if b == b'[' {
                            self.state = State::Before { after_comma: false };
                        } else if !(b.is_ascii_whitespace() || matches!(b, 0xEF | 0xBB | 0xBF)) {
                            return Err(format!(
                                "expected a JSON array of row objects, found `{}`",
                                char::from(b)
                            ));
                        }
                    }
                    State::Before { after_comma } => {
                        if b == b']' && !after_comma {
                            self.state = State::End;
                        } else if !b.is_ascii_whitespace() {
                            self.state = State::Element;
                            self.depth = 0;
                            self.in_str = false;
                            self.escaped = false;
                            self.index += 1;
                            self.buf.clear();
                            continue; // scan this byte as part of the element
                        }
                    }
                    State::Element => {
                        if self.in_str {
                            if self.escaped {
                                self.escaped = false;
                            } else if b == b'\\' {
                                self.escaped = true;
                            } else if b == b'"' {
                                self.in_str = false;
                            }
                        } else {
                            match b {
                                b'"' => self.in_str = true,
                                b'[' | b'{' => self.depth += 1,
                                b']' | b'}' if self.depth > 0 => self.depth -= 1,
                                b',' | b']' if self.depth == 0 => {
                                    self.state = if b == b']' {
                                        State::End
                                    } else {
                                        State::Before { after_comma: true }
                                    };
                                    used = i + 1;
                                    found = true;
                                    break;
                                }
                                _ => {}
                            }
                        }
                        self.buf.push(b);
                    }
                    State::End => {
                        if !b.is_ascii_whitespace() {
                            return Err("unexpected text after the closing `]`".into());
                        }
                    }
                    State::Done => return Ok(false),
                }
                i += 1;
                used = i;
            }
            self.reader.consume(used);
            if found {
                return Ok(true);
            }
        }
    }
}

impl<R: BufRead> Iterator for JsonArrayRows<R> {
    type Item = Result<Row, RowError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.state == State::Done {
            return None;
        }
        match self.split_next() {
            Ok(false) => {
                self.state = State::Done;
                None
            }
            Err(message) => {
                let number = if self.state == State::End { self.index } else { self.index.max(1) };
                self.fail(number, message)
            }
            Ok(true) => {
                let number = self.index;
                let item = match std::str::from_utf8(&self.buf) {
                    Err(e) => Err(format!("not UTF-8: {e}")),
                    Ok(text) if text.trim().is_empty() => Err("empty array element".to_owned()),
                    Ok(text) => crate::json::parse(text)
                        .map_err(|e| format!("invalid JSON: {e}"))
                        .and_then(|v| object_row(number, v, false)),
                };
                if self.buf.capacity() > 1 << 24 {
                    self.buf = Vec::new();
                }
                Some(item.map_err(|m| row_error(&self.path, number, m)))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rows(text: &str) -> Vec<Result<Row, RowError>> {
        // A tiny buffer so that elements straddle chunk boundaries.
        let reader = BufReader::with_capacity(3, text.as_bytes());
        JsonArrayRows::from_reader(Path::new("d.json"), reader).collect()
    }

    #[test]
    fn streams_elements_across_chunks() {
        let r = rows(" [ {\"a\": \"x,]}\\\"\"}, {\"b\": [1, {\"c\": 2}]} ,{}]\n ");
        let v: Vec<_> = r.into_iter().map(|r| r.unwrap()).collect();
        assert_eq!(v.len(), 3);
        assert_eq!(v[0].value, json!({"a": "x,]}\""}));
        assert_eq!(v[1].value, json!({"b": [1, {"c": 2}]}));
        assert_eq!((v[2].number, &v[2].value), (3, &json!({})));
    }

    #[test]
    fn bad_element_in_the_middle_is_one_error() {
        let r = rows("[{\"a\":1}, {\"a\": nope}, 5, {\"a\":4}]");
        assert_eq!(r.len(), 4);
        assert_eq!(r[0].as_ref().unwrap().value["a"], 1);
        let e = r[1].as_ref().unwrap_err();
        assert_eq!(e.number, 2);
        assert!(e.to_string().starts_with("d.json:2: invalid JSON"), "{e}");
        assert!(r[2].as_ref().unwrap_err().message.contains("number, not an object"));
        assert_eq!(r[3].as_ref().unwrap().number, 4);
    }

    #[test]
    fn empty_array_and_structural_errors() {
        assert!(rows("[ ]").is_empty());
        let r = rows("{\"a\":1}");
        assert_eq!(r.len(), 1);
        assert!(r[0].as_ref().unwrap_err().message.contains("expected a JSON array"));
        let r = rows("[{\"a\":1}, {\"a\":2");
        assert_eq!(r.len(), 2);
        assert!(r[1].as_ref().unwrap_err().message.contains("not closed"));
        let r = rows("[{\"a\":1},]");
        assert!(r[1].as_ref().unwrap_err().message.contains("empty array element"));
        let r = rows("[{\"a\":1}] x");
        assert_eq!(r.len(), 2);
        assert!(r[1].as_ref().unwrap_err().message.contains("after the closing"));
        assert!(rows("").first().unwrap().is_err());
    }
}
