//! A JSON array of row objects, streamed element by element.
//!
//! A small splitter finds where each top-level element ends (tracking
//! strings, escapes and bracket depth) without building the array, and
//! each element is then parsed on its own. A malformed element is one
//! row error; the next element is read as usual.
//!
//! A file that is empty (or white space only) or does not open with `[`
//! is no dataset: [`JsonArrayRows::from_reader`] refuses it before any row
//! is read, as an empty CSV file is refused. What goes wrong after the
//! last element (a comma before the closing `]`, an array never closed,
//! text after the closing `]`) is one row error numbered after the last
//! element, never reusing a row's number nor counted as an element; a
//! trailing comma is located by its line and byte offset, text after the
//! `]` by its byte offset.

use std::io::BufRead;
use std::path::{Path, PathBuf};

use super::{DatasetError, Row, RowError, object_row, row_error};
use crate::limits::MAX_ROW_BYTES;

/// Bytes skipped before the opening `[`: white space and a UTF-8
/// byte-order mark.
fn before_array(b: u8) -> bool {
    b.is_ascii_whitespace() || matches!(b, 0xEF | 0xBB | 0xBF)
}

/// How many line feeds `bytes` holds.
fn newlines(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|&&b| b == b'\n').count() as u64
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// After `[` (false) or after a `,` (true).
    Before { after_comma: bool },
    /// Inside an element.
    Element,
    /// After the closing `]`.
    End,
    /// The file ended after a whole element with no `]`: that element was
    /// read; the array's missing end is the next error.
    Unclosed,
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
    /// Bytes consumed from `reader`.
    offset: u64,
    /// The 1-based line of the next byte to consume.
    line: u64,
    /// Where the comma after the last element read is: its byte offset
    /// and its line.
    comma: (u64, u64),
    /// The current element's length; only its first `max_row` bytes are
    /// kept in `buf`.
    length: u64,
    /// The white space at the end of the element so far (not counted in
    /// its length once it ends).
    trailing: u64,
    /// The current element's last byte that is not white space.
    last: u8,
    /// The longest element read: [`MAX_ROW_BYTES`] (in tests, less).
    max_row: usize,
}

impl<R: BufRead> JsonArrayRows<R> {
    /// Reads up to the array's opening `[`.
    ///
    /// # Errors
    /// The file is empty or white space only, does not start with `[`, or
    /// cannot be read.
    pub(crate) fn from_reader(path: &Path, mut reader: R) -> Result<Self, DatasetError> {
        let invalid = |message: String| DatasetError::Invalid { path: path.to_path_buf(), message };
        let mut offset = 0u64;
        let mut line = 1u64;
        loop {
            let chunk = reader.fill_buf().map_err(|e| DatasetError::Io {
                path: path.to_path_buf(),
                message: e.to_string(),
            })?;
            if chunk.is_empty() {
                return Err(invalid(String::from(
                    "the file is empty: a JSON dataset needs an array of row objects (`[]` for none)",
                )));
            }
            match chunk.iter().position(|&b| !before_array(b)) {
                None => {
                    let n = chunk.len();
                    line += newlines(chunk);
                    reader.consume(n);
                    offset += n as u64;
                }
                Some(i) if chunk[i] == b'[' => {
                    line += newlines(&chunk[..i]);
                    reader.consume(i + 1);
                    offset += i as u64 + 1;
                    break;
                }
                Some(i) => {
                    return Err(invalid(format!(
                        "expected a JSON array of row objects, found `{}` at byte offset {}",
                        char::from(chunk[i]),
                        offset + i as u64
                    )));
                }
            }
        }
        Ok(JsonArrayRows {
            path: path.to_path_buf(),
            reader,
            buf: Vec::new(),
            state: State::Before { after_comma: false },
            depth: 0,
            in_str: false,
            escaped: false,
            index: 0,
            offset,
            line,
            comma: (0, 0),
            length: 0,
            trailing: 0,
            last: 0,
            max_row: MAX_ROW_BYTES,
        })
    }

    /// Sets the longest element read, for tests.
    #[cfg(test)]
    fn with_max_row(mut self, max_row: usize) -> Self {
        self.max_row = max_row;
        self
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
                    // A whole object, array or string: the element is read
                    // (a number or a word could have been cut short).
                    State::Element
                        if self.depth == 0
                            && !self.in_str
                            && matches!(self.last, b'}' | b']' | b'"') =>
                    {
                        self.state = State::Unclosed;
                        Ok(true)
                    }
                    State::Before { .. } | State::Element | State::Unclosed => {
                        Err("unexpected end of file: the array is not closed".into())
                    }
                    State::End | State::Done => Ok(false),
                };
            }
            let mut used = 0;
            let mut found = false;
            // The comma that ended the element, at this byte offset.
            let mut comma = None;
            let mut i = 0;
            while i < chunk.len() {
                let b = chunk[i];
                match self.state {
                    State::Before { after_comma } => {
                        if b == b']' && after_comma {
                            // Not an empty element: nothing follows the comma.
                            let (at, line) = self.comma;
                            return Err(format!(
                                "trailing comma after the last element (element {}), at line {line} (byte offset {at}): a JSON array has no comma before its closing `]`",
                                self.index
                            ));
                        } else if b == b']' {
                            self.state = State::End;
                        } else if !b.is_ascii_whitespace() {
                            self.state = State::Element;
                            self.depth = 0;
                            self.in_str = false;
                            self.escaped = false;
                            self.index += 1;
                            self.buf.clear();
                            self.length = 0;
                            self.trailing = 0;
                            self.last = 0;
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
                                        comma = Some(self.offset + i as u64);
                                        State::Before { after_comma: true }
                                    };
                                    used = i + 1;
                                    found = true;
                                    break;
                                }
                                _ => {}
                            }
                        }
                        if self.buf.len() < self.max_row {
                            self.buf.push(b);
                        }
                        self.length += 1;
                        if b.is_ascii_whitespace() {
                            self.trailing += 1;
                        } else {
                            self.trailing = 0;
                            self.last = b;
                        }
                    }
                    State::End => {
                        if !b.is_ascii_whitespace() {
                            return Err(format!(
                                "unexpected text after the array's closing `]`, at byte offset {}: a JSON dataset is one array",
                                self.offset + i as u64
                            ));
                        }
                    }
                    State::Unclosed | State::Done => return Ok(false),
                }
                i += 1;
                used = i;
            }
            self.line += newlines(&chunk[..used]);
            self.reader.consume(used);
            self.offset += used as u64;
            if let Some(at) = comma {
                // The comma ends what was consumed: it is on the last line.
                self.comma = (at, self.line);
            }
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
                // An element cut short keeps its own number; anything else
                // (a comma before `]`, a missing element or `]`, text after
                // the array) is numbered after the last element.
                let number = if self.state == State::Element { self.index } else { self.index + 1 };
                self.fail(number, message)
            }
            Ok(true) => {
                let number = self.index;
                let item = match std::str::from_utf8(&self.buf) {
                    _ if self.length - self.trailing > self.max_row as u64 => Err(format!(
                        "{}; it was skipped",
                        crate::limits::too_long(
                            "element",
                            self.length - self.trailing,
                            self.max_row
                        )
                    )),
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

    fn open(text: &str) -> Result<JsonArrayRows<impl BufRead>, DatasetError> {
        // A tiny buffer so that elements straddle chunk boundaries.
        let reader = std::io::BufReader::with_capacity(3, text.as_bytes());
        JsonArrayRows::from_reader(Path::new("d.json"), reader)
    }

    fn rows(text: &str) -> Vec<Result<Row, RowError>> {
        open(text).unwrap().collect()
    }

    #[test]
    fn an_element_over_the_limit_is_a_row_error_and_is_never_held() {
        let big = format!("{{\"a\":\"{}\"}}", "x".repeat(200));
        let text = format!("[{{\"a\":1}}, {big} ,{{\"a\":3}}]");
        let reader = std::io::BufReader::with_capacity(7, text.as_bytes());
        let mut rows =
            JsonArrayRows::from_reader(Path::new("d.json"), reader).unwrap().with_max_row(50);
        let mut got = Vec::new();
        while let Some(r) = rows.next() {
            assert!(rows.buf.len() <= 50);
            got.push(r.map(|r| r.value).map_err(|e| (e.number, e.message)));
        }
        assert_eq!(got[0], Ok(json!({"a": 1})));
        let (number, message) = got[1].clone().unwrap_err();
        assert_eq!(number, 2);
        let want = format!("the element is {} bytes long, over the limit of 50 bytes", big.len());
        assert!(message.starts_with(&want), "{message}");
        assert_eq!(got[2], Ok(json!({"a": 3})));
        assert_eq!(got.len(), 3);
        // White space around an element is not part of it: one of exactly
        // the limit, pretty-printed, is read.
        let at = format!("{{\"a\":\"{}\"}}", "x".repeat(42));
        assert_eq!(at.len(), 50);
        let text = format!("[\r\n  {at}\r\n]\n");
        let reader = std::io::BufReader::with_capacity(7, text.as_bytes());
        let mut rows =
            JsonArrayRows::from_reader(Path::new("d.json"), reader).unwrap().with_max_row(50);
        assert!(rows.next().unwrap().is_ok());
        assert!(rows.next().is_none());
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
        assert!(rows("\u{feff} \n[]\n").is_empty());
        let r = rows("[{\"a\":1}, {\"a\":2");
        assert_eq!(r.len(), 2);
        let e = r[1].as_ref().unwrap_err();
        assert_eq!(e.number, 2);
        assert!(e.message.contains("not closed"), "{e}");
        // An empty element between two commas is one, numbered as such.
        let r = rows("[{\"a\":1}, ,{\"a\":3}]");
        assert_eq!(r.len(), 3);
        let e = r[1].as_ref().unwrap_err();
        assert_eq!((e.number, e.message.as_str()), (2, "empty array element"));
        assert_eq!(r[2].as_ref().unwrap().number, 3);
    }

    #[test]
    fn a_trailing_comma_is_named_and_is_no_element() {
        // Pretty-printed, as an editor leaves it: the comma after the last
        // element is one error numbered after it, saying where the comma is.
        let text = "[\n  {\"a\": 1},\n  {\"a\": 2},\n]\n";
        let r = rows(text);
        assert_eq!(r.len(), 3);
        assert_eq!(r[0].as_ref().unwrap().value, json!({"a": 1}));
        assert_eq!(r[1].as_ref().unwrap().value, json!({"a": 2}));
        let e = r[2].as_ref().unwrap_err();
        assert_eq!(text.find("},\n]").unwrap() + 1, 24);
        assert_eq!(
            e.to_string(),
            "d.json:3: trailing comma after the last element (element 2), at line 3 (byte offset 24): a JSON array has no comma before its closing `]`"
        );
        // On one line, with white space before the `]`, after a first line
        // of white space before the `[`.
        let r = rows("\n[{\"a\":1} ,  ]");
        assert_eq!(r.len(), 2);
        let e = r[1].as_ref().unwrap_err();
        assert_eq!(e.number, 2);
        assert!(
            e.message.starts_with(
                "trailing comma after the last element (element 1), at line 2 (byte offset 10):"
            ),
            "{e}"
        );
        // Whatever the chunks the file is read in.
        let text = "[{\"a\":1},\r\n{\"b\":[1,2]}\t,\r\n\r\n]";
        for capacity in 1..text.len() + 2 {
            let reader = std::io::BufReader::with_capacity(capacity, text.as_bytes());
            let r: Vec<_> =
                JsonArrayRows::from_reader(Path::new("d.json"), reader).unwrap().collect();
            assert_eq!(r.len(), 3, "capacity {capacity}");
            assert_eq!(r[1].as_ref().unwrap().value, json!({"b": [1, 2]}));
            let e = r[2].as_ref().unwrap_err();
            assert_eq!(e.number, 3);
            assert!(
                e.message.starts_with(
                    "trailing comma after the last element (element 2), at line 2 (byte offset 23):"
                ),
                "capacity {capacity}: {e}"
            );
        }
        // A comma inside the last element is the element's own error.
        let r = rows("[{\"a\":[1,]}]");
        assert_eq!(r.len(), 1);
        assert!(r[0].as_ref().unwrap_err().message.starts_with("invalid JSON"));
    }

    #[test]
    fn an_empty_file_or_one_that_is_not_an_array_is_no_dataset() {
        for text in ["", "  \n\t", "\u{feff}"] {
            let e = open(text).err().unwrap();
            assert!(matches!(e, DatasetError::Invalid { .. }), "{text:?}: {e:?}");
            assert_eq!(
                e.to_string(),
                "d.json: the file is empty: a JSON dataset needs an array of row objects (`[]` for none)"
            );
        }
        let e = open("  {\"a\":1}").err().unwrap();
        assert_eq!(
            e.to_string(),
            "d.json: expected a JSON array of row objects, found `{` at byte offset 2"
        );
    }

    #[test]
    fn what_follows_the_last_element_never_takes_its_number() {
        // Text after the array: one error, numbered after the last row,
        // at its byte offset.
        let r = rows("[{\"a\":1}] garbage");
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].as_ref().unwrap().number, 1);
        let e = r[1].as_ref().unwrap_err();
        assert_eq!(e.number, 2);
        assert_eq!(
            e.to_string(),
            "d.json:2: unexpected text after the array's closing `]`, at byte offset 10: a JSON dataset is one array"
        );
        let r = rows("[]\n[]");
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].as_ref().unwrap_err().number, 1);
        assert!(r[0].as_ref().unwrap_err().message.contains("at byte offset 3"));
        // An array cut short after a comma, or after `[`.
        let r = rows("[{\"a\":1},");
        assert_eq!(r.len(), 2);
        let e = r[1].as_ref().unwrap_err();
        assert_eq!(
            (e.number, e.message.as_str()),
            (2, "unexpected end of file: the array is not closed")
        );
        // A whole last element with no `]` after it is read; the missing
        // `]` comes after it. A number could be cut short: it is not read.
        let r = rows("[{\"a\":1}");
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].as_ref().unwrap().value, json!({"a": 1}));
        let e = r[1].as_ref().unwrap_err();
        assert_eq!(
            (e.number, e.message.as_str()),
            (2, "unexpected end of file: the array is not closed")
        );
        let r = rows("[{\"a\":1},\n {\"b\":\"x\"}\n");
        assert_eq!(r.len(), 3);
        assert_eq!(r[1].as_ref().unwrap().value, json!({"b": "x"}));
        assert_eq!(r[2].as_ref().unwrap_err().number, 3);
        let r = rows("[{\"a\":1}, {\"b\":");
        assert_eq!(r.len(), 2);
        assert_eq!(r[1].as_ref().unwrap_err().number, 2, "the element cut short is row 2");
        let r = rows("[{\"a\":1}, 12");
        assert_eq!(r.len(), 2);
        assert_eq!(r[1].as_ref().unwrap_err().number, 2, "a number at the end may be cut short");
    }
}
