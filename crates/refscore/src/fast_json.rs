//! The fast reader: JSON text read straight into a [`Tree`], with no
//! `serde_json::Value` built on the way.
//!
//! One forward pass over the bytes writes every value into the tree's
//! arena: strings without escapes are borrowed from the text (their end
//! found eight bytes at a time), containers become index ranges, and the
//! containers being read are kept on a heap stack, so no depth can
//! overflow the call stack. Reading a row, the members of the root no
//! evaluator reads are checked and then dropped from the arena, and a
//! member written byte for byte as an earlier one (an output equal to its
//! reference) shares its node instead of being read again.
//!
//! The reader takes a subset of what [`crate::json::parse`] takes and
//! reads it to exactly the same value: numbers as `serde_json` reads them
//! with `float_roundtrip` (a `u64`, else a negative `i64`, else the
//! nearest `f64`, and `-0` as the float `-0.0`), escapes decoded alike,
//! the last of repeated keys kept. What it does not take (invalid JSON, a
//! lone surrogate, a number out of range, nesting past its limit) it
//! leaves to [`crate::json::parse`], which says what is wrong. Unit tests
//! and the fuzz harnesses check that the two agree.

use std::borrow::Cow;

use serde_json::Number;

use crate::tree::{Mark, Slot, Tree};

mod guide;

use guide::{GUIDE_DEPTH, Guide, Spans};

/// Deepest nesting [`read`] and [`read_columns`] take, as `serde_json`'s
/// default limit; deeper text is left to [`crate::json::parse`].
const SHALLOW: usize = 128;

/// Reads one JSON document into a tree, or `None` when the text is not
/// one the fast reader takes (parse it with [`crate::json::parse`]).
pub fn read(text: &str) -> Option<Tree<'_>> {
    Reader::new(text, SHALLOW).document(None)
}

/// Reads one JSON document into a tree; when it is an object and
/// `columns` is given, only those members of it are kept (the others are
/// checked for validity and dropped). `None` as [`read`].
/// A kept member that is an object or an array is read beside the one
/// before it (see `guide`): where their texts agree, they share nodes.
pub fn read_columns<'s>(text: &'s str, columns: Option<&[&str]>) -> Option<Tree<'s>> {
    let mut reader = Reader::new(text, SHALLOW);
    reader.guided = true;
    reader.document(columns)
}

/// Reads one JSON document of any depth up to [`crate::json::MAX_DEPTH`]
/// into a tree: for a document that [`crate::json::parse`] took, when the
/// tree is needed (where its repeated keys were). `None` when the text is
/// not JSON or nests deeper.
pub fn read_deep(text: &str) -> Option<Tree<'_>> {
    Reader::new(text, crate::json::MAX_DEPTH).document(None)
}

/// Reads one JSON document nesting at most `depth` levels (and at most
/// [`crate::json::MAX_DEPTH`]) into a tree; `None` when the text is not
/// JSON or nests deeper.
pub fn read_within(text: &str, depth: usize) -> Option<Tree<'_>> {
    Reader::new(text, depth.min(crate::json::MAX_DEPTH)).document(None)
}

/// A container being read: where its text starts, and its guide (see
/// `guide`).
#[derive(Clone, Copy)]
enum Open {
    /// An array whose items so far are `items[mark..]`.
    Array { mark: usize, start: usize, guide: Option<Guide> },
    /// An object whose members so far are `entries[mark..]`.
    Object { mark: usize, start: usize, guide: Option<Guide> },
}

/// One pass over one text.
struct Reader<'s> {
    text: &'s str,
    bytes: &'s [u8],
    pos: usize,
    /// Deepest nesting taken.
    limit: usize,
    tree: Tree<'s>,
    /// Items of the open arrays, innermost last.
    items: Vec<u32>,
    /// Members of the open objects, innermost last; a member whose value
    /// is being read holds [`WAITING`].
    entries: Vec<(Cow<'s, str>, u32)>,
    /// The open containers, innermost last.
    open: Vec<Open>,
    /// Where the value of the root member being read starts, and how many
    /// repeated keys the tree had noted then.
    member_start: Option<(usize, usize)>,
    /// Values of kept root members worth sharing ([`SHARED_MIN`] bytes
    /// or more, no repeated key inside): their text and their node.
    shared: Vec<(usize, usize, u32)>,
    /// Whether root members guide the next (see `guide`).
    guided: bool,
    /// Where each node's text is, while `guided`.
    spans: Spans,
    /// The last kept root member that is a container with no repeated key
    /// inside: the guide of the next.
    leader: Option<u32>,
}

/// Shortest text of a root member's value that a later member with the
/// same text shares instead of reading it again (an output equal to its
/// reference, byte for byte, is common in golden datasets). Shorter
/// values cost less to read than to compare.
const SHARED_MIN: usize = 64;

/// Most root members noted for sharing. Rows have a few columns that can
/// be written alike (output, reference, input); the cap keeps what each
/// member's start compares bounded, whatever the row (20,000 members
/// alike but for their last byte would otherwise cost 20,000² scans).
const SHARED_MAX: usize = 4;

/// A number's digits as one integer, while it fits in a `u64`.
struct Digits {
    value: u64,
    exact: bool,
}

/// The powers of ten a `f64` holds exactly.
const POWERS_OF_TEN: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// A member's value index while its value is being read.
const WAITING: u32 = u32::MAX;

/// Every byte of a word set to `b`.
const fn splat(b: u8) -> u64 {
    u64::from_ne_bytes([b; 8])
}

impl<'s> Reader<'s> {
    fn new(text: &'s str, limit: usize) -> Reader<'s> {
        Reader {
            text,
            bytes: text.as_bytes(),
            pos: 0,
            limit,
            // About one value per 12 bytes of typical JSON.
            tree: Tree::with_capacity(text.len() / 12 + 4),
            // Room for typical rows at once, not grown a few at a time.
            items: Vec::with_capacity(32),
            entries: Vec::with_capacity(32),
            open: Vec::with_capacity(16),
            member_start: None,
            shared: Vec::new(),
            guided: false,
            spans: Spans::default(),
            leader: None,
        }
    }

    /// The whole text as one document.
    fn document(mut self, columns: Option<&[&str]>) -> Option<Tree<'s>> {
        let root = self.value(columns)?;
        self.skip_space();
        if self.pos != self.bytes.len() {
            return None;
        }
        let mut tree = self.tree;
        tree.set_root(root);
        Some(tree)
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn skip_space(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.peek() {
            self.pos += 1;
        }
    }

    /// Reads one value, containers and all; its index. With `columns`,
    /// a root object keeps only those members.
    fn value(&mut self, columns: Option<&[&str]>) -> Option<u32> {
        // Where the arena stood before the value of a root member that
        // `columns` leaves out.
        let mut dropped: Option<Mark> = None;
        'value: loop {
            self.skip_space();
            let start = self.pos;
            let mut shared = None;
            // The container at the same place in the guide, if any (scalars
            // are read: about as quick as looking them up).
            let mut counterpart = None;
            let opens = matches!(self.peek(), Some(b'{' | b'['));
            if self.open.len() == 1
                && dropped.is_none()
                && let Some(Open::Object { .. }) = self.open.first()
            {
                self.member_start = Some((self.pos, self.tree.repeats_noted()));
                shared = self.same_as_earlier();
                counterpart = self.leader.filter(|_| opens);
            } else if self.guided && dropped.is_none() && opens {
                counterpart = self.counterpart();
            }
            if shared.is_none()
                && let Some(node) = counterpart
                && let Some(len) = self.spans.same_text(self.bytes, self.pos, node)
            {
                self.pos += len;
                if self.open.len() == 1 {
                    self.member_start = None;
                }
                shared = Some(node);
            }
            let mut at = match (shared, self.peek()?) {
                (Some(node), _) => node,
                (None, open @ (b'{' | b'[')) => {
                    if self.open.len() >= self.limit {
                        return None;
                    }
                    self.pos += 1;
                    self.skip_space();
                    let object = open == b'{';
                    match (open, self.peek()?) {
                        (b'{', b'}') | (b'[', b']') => {
                            self.pos += 1;
                            let at = if object {
                                let mark = self.entries.len();
                                self.tree.push_object(&mut self.entries, mark)
                            } else {
                                self.tree.push_array(std::iter::empty())
                            };
                            self.noted(at, start)
                        }
                        _ => {
                            let guide = counterpart.and_then(|node| {
                                (self.open.len() < GUIDE_DEPTH)
                                    .then(|| Guide::of(&self.tree, node, object))?
                            });
                            if object {
                                let mark = self.entries.len();
                                self.open.push(Open::Object { mark, start, guide });
                                if let Some(before) = self.key(columns)? {
                                    dropped = Some(before);
                                }
                            } else {
                                let mark = self.items.len();
                                self.open.push(Open::Array { mark, start, guide });
                            }
                            continue 'value;
                        }
                    }
                }
                (None, b'"') => {
                    let s = self.string()?;
                    self.tree.push(Slot::Str(s))
                }
                (None, b't') => self.literal(b"true", Slot::Bool(true))?,
                (None, b'f') => self.literal(b"false", Slot::Bool(false))?,
                (None, b'n') => self.literal(b"null", Slot::Null)?,
                (None, b'-' | b'0'..=b'9') => {
                    let n = self.number()?;
                    self.tree.push(Slot::Number(n))
                }
                (None, _) => return None,
            };
            // `at` is complete: hand it to its container, and on to the
            // containers it closes.
            loop {
                let Some(&open) = self.open.last() else { return Some(at) };
                if self.open.len() == 1 {
                    self.note_member(at);
                }
                self.skip_space();
                let next = self.peek()?;
                match open {
                    Open::Array { mark, start, .. } => {
                        self.items.push(at);
                        match next {
                            b',' => {
                                self.pos += 1;
                                continue 'value;
                            }
                            b']' => {
                                self.pos += 1;
                                at = self.tree.push_array(self.items[mark..].iter().copied());
                                at = self.noted(at, start);
                                self.items.truncate(mark);
                            }
                            _ => return None,
                        }
                    }
                    Open::Object { mark, start, .. } => {
                        match dropped.take() {
                            // Only a root member is ever dropped, and it
                            // completes when the root is the one open.
                            Some(before) if self.open.len() == 1 => {
                                self.tree.reset(before);
                                self.spans.truncate(self.tree.len());
                            }
                            other => {
                                dropped = other;
                                if let Some(last) = self.entries.last_mut() {
                                    last.1 = at;
                                }
                            }
                        }
                        match next {
                            b',' => {
                                self.pos += 1;
                                if let Some(before) = self.key(columns)? {
                                    dropped = Some(before);
                                }
                                continue 'value;
                            }
                            b'}' => {
                                self.pos += 1;
                                at = self.tree.push_object(&mut self.entries, mark);
                                at = self.noted(at, start);
                            }
                            _ => return None,
                        }
                    }
                }
                self.open.pop();
            }
        }
    }

    /// Notes where container `at`, just added, was written (from
    /// `start` to here), when the reader is guided; `at`.
    fn noted(&mut self, at: u32, start: usize) -> u32 {
        if self.guided {
            self.spans.note(at, start, self.pos);
        }
        at
    }

    /// The guide's value at the place of the value about to be read: its
    /// member of the key just read, or its element at the same index.
    fn counterpart(&mut self) -> Option<u32> {
        match self.open.last_mut()? {
            Open::Object { guide: Some(guide), .. } => {
                guide.member(&self.tree, &self.entries.last()?.0)
            }
            Open::Array { guide: Some(guide), mark, .. } => {
                guide.item(&self.tree, self.items.len() - *mark)
            }
            _ => None,
        }
    }

    /// The node of an earlier root member whose value's text is the text
    /// at `pos` (then `pos` moves past it): the same bytes, followed by
    /// what may follow a value, are the same value, read and checked once.
    fn same_as_earlier(&mut self) -> Option<u32> {
        let (len, node) = self.shared.iter().find_map(|&(start, end, node)| {
            Some((guide::written_again(self.bytes, self.pos, start..end)?, node))
        })?;
        self.pos += len;
        self.member_start = None;
        Some(node)
    }

    /// Notes the value `at` of a root member just read, to be shared by a
    /// later member written the same way.
    /// It guides the next member too, when it is a container.
    fn note_member(&mut self, at: u32) {
        let Some((start, repeats)) = self.member_start.take() else { return };
        if self.tree.repeats_noted() != repeats {
            return;
        }
        if self.shared.len() < SHARED_MAX && self.pos - start >= SHARED_MIN {
            self.shared.push((start, self.pos, at));
        }
        if self.guided && self.tree.container_at(at).is_some() {
            self.leader = Some(at);
        }
    }

    /// Reads an object's key and the colon after it. The member waits in
    /// `entries` for its value, unless the object is the root and
    /// `columns` leaves the key out: then where the arena stands, to go
    /// back to once the value is read.
    // Inlined, as `string` is: a call per key and per string cost about
    // 12% of the reader's instructions on the bench pairs.
    #[inline(always)]
    fn key(&mut self, columns: Option<&[&str]>) -> Option<Option<Mark>> {
        self.skip_space();
        if self.peek()? != b'"' {
            return None;
        }
        let key = self.string()?;
        self.skip_space();
        if self.peek()? != b':' {
            return None;
        }
        self.pos += 1;
        if self.open.len() == 1 && columns.is_some_and(|c| !c.contains(&key.as_ref())) {
            return Some(Some(self.tree.mark()));
        }
        self.entries.push((key, WAITING));
        Some(None)
    }

    /// `word` (`true`, `false` or `null`) as `slot`.
    fn literal(&mut self, word: &[u8], slot: Slot<'s>) -> Option<u32> {
        let end = self.pos + word.len();
        (self.bytes.get(self.pos..end)? == word).then(|| {
            self.pos = end;
            self.tree.push(slot)
        })
    }

    /// Reads a string from its opening quote: borrowed from the text when
    /// it has no escapes.
    #[inline(always)]
    fn string(&mut self) -> Option<Cow<'s, str>> {
        let start = self.pos + 1;
        let end = self.plain_run(start);
        match self.peek_at(end)? {
            b'"' => {
                self.pos = end + 1;
                Some(Cow::Borrowed(self.text.get(start..end)?))
            }
            b'\\' => {
                let mut owned = String::with_capacity(end - start + 16);
                owned.push_str(self.text.get(start..end)?);
                self.pos = end;
                self.escaped(owned).map(Cow::Owned)
            }
            // A control character: not JSON.
            _ => None,
        }
    }

    fn peek_at(&self, at: usize) -> Option<u8> {
        self.bytes.get(at).copied()
    }

    /// Where the run of string bytes from `at` ends: see [`plain_run`].
    // Inlined into `string` whatever else calls the reader: left to the
    // compiler, it was a call per string once the walk read JSON text
    // with the same reader (+2.9 M instructions on the bench pairs).
    #[inline(always)]
    fn plain_run(&self, at: usize) -> usize {
        plain_run(self.bytes, at)
    }

    /// Reads the rest of a string from a backslash, appending to `out`.
    fn escaped(&mut self, mut out: String) -> Option<String> {
        loop {
            match self.peek()? {
                b'"' => {
                    self.pos += 1;
                    return Some(out);
                }
                b'\\' => {
                    let b = self.peek_at(self.pos + 1)?;
                    self.pos += 2;
                    match b {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'u' => out.push(self.unicode_escape()?),
                        _ => return None,
                    }
                }
                _ => {
                    let end = self.plain_run(self.pos);
                    if end == self.pos {
                        // A control character: not JSON.
                        return None;
                    }
                    out.push_str(self.text.get(self.pos..end)?);
                    self.pos = end;
                }
            }
        }
    }

    /// The character of a `\u` escape whose hex digits start at `pos`: a
    /// surrogate pair taken whole, a lone surrogate refused.
    fn unicode_escape(&mut self) -> Option<char> {
        let first = self.hex4()?;
        match first {
            0xD800..=0xDBFF => {
                if self.bytes.get(self.pos..self.pos + 2)? != b"\\u" {
                    return None;
                }
                self.pos += 2;
                let second = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&second) {
                    return None;
                }
                char::from_u32(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
            }
            0xDC00..=0xDFFF => None,
            c => char::from_u32(c),
        }
    }

    /// Four hex digits.
    fn hex4(&mut self) -> Option<u32> {
        let digits = self.bytes.get(self.pos..self.pos + 4)?;
        let mut n = 0;
        for &d in digits {
            n = n * 16 + char::from(d).to_digit(16)?;
        }
        self.pos += 4;
        Some(n)
    }

    /// Reads a number, as `serde_json` with `float_roundtrip` reads it.
    fn number(&mut self) -> Option<Number> {
        let start = self.pos;
        let negative = self.peek() == Some(b'-');
        if negative {
            self.pos += 1;
        }
        // Every digit, as one integer while it fits.
        let mut digits = Digits { value: 0, exact: true };
        match self.peek()? {
            b'0' => self.pos += 1,
            b'1'..=b'9' => self.digits(&mut digits),
            _ => return None,
        }
        let mut float = false;
        // The power of ten the digits are scaled by.
        let mut scale: i64 = 0;
        if self.peek() == Some(b'.') {
            self.pos += 1;
            let first = self.pos;
            self.digits(&mut digits);
            if self.pos == first {
                return None;
            }
            scale -= i64::try_from(self.pos - first).ok()?;
            float = true;
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            let sign = match self.peek() {
                Some(b'-') => {
                    self.pos += 1;
                    -1
                }
                Some(b'+') => {
                    self.pos += 1;
                    1
                }
                _ => 1,
            };
            let first = self.pos;
            let mut exponent: i64 = 0;
            while let Some(d @ b'0'..=b'9') = self.peek() {
                exponent = (exponent * 10 + i64::from(d - b'0')).min(1 << 32);
                self.pos += 1;
            }
            if self.pos == first {
                return None;
            }
            scale += sign * exponent;
            float = true;
        }
        if digits.exact {
            let n = digits.value;
            if !float {
                if !negative {
                    return Some(Number::from(n));
                }
                // `-0` and magnitudes past `i64` are floats, as in serde_json.
                return match 0i64.checked_sub_unsigned(n) {
                    Some(i) if n != 0 => Some(Number::from(i)),
                    _ => Number::from_f64(-(n as f64)),
                };
            }
            // Exact digits and an exact power of ten: one correctly
            // rounded operation gives the nearest float.
            if n <= 1 << 53 && (-22..=22).contains(&scale) {
                let power = POWERS_OF_TEN[scale.unsigned_abs() as usize];
                let v = if scale < 0 { n as f64 / power } else { n as f64 * power };
                return Number::from_f64(if negative { -v } else { v });
            }
        }
        // Infinite (out of range): left to serde_json, which refuses it.
        Number::from_f64(self.text.get(start..self.pos)?.parse::<f64>().ok()?)
    }

    /// Reads a run of digits into `digits`.
    fn digits(&mut self, digits: &mut Digits) {
        while let Some(d @ b'0'..=b'9') = self.peek() {
            match digits.value.checked_mul(10).and_then(|v| v.checked_add(u64::from(d - b'0'))) {
                Some(v) => digits.value = v,
                None => digits.exact = false,
            }
            self.pos += 1;
        }
    }
}

/// Where the run of string bytes of `bytes` from `at` ends: at the first
/// quote, backslash or control character (or the end): the bytes a JSON
/// string holds as they are, without an escape. Read eight at a time.
#[inline(always)]
pub(crate) fn plain_run(bytes: &[u8], mut at: usize) -> usize {
    while let Some(chunk) = bytes.get(at..at + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let w = u64::from_le_bytes(word);
        let quote = w ^ splat(b'"');
        let slash = w ^ splat(b'\\');
        // A byte's high bit is set where it is 0 (in `quote`, `slash`)
        // or below 0x20 (in `w`); the lowest such bit is exact.
        let hits = (quote.wrapping_sub(splat(1)) & !quote)
            | (slash.wrapping_sub(splat(1)) & !slash)
            | (w.wrapping_sub(splat(0x20)) & !w);
        let hits = hits & splat(0x80);
        if hits != 0 {
            return at + (hits.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    while let Some(&b) = bytes.get(at) {
        if b == b'"' || b == b'\\' || b < 0x20 {
            break;
        }
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// The fast reader and `serde_json` agree on `text`: both refuse it
    /// (the fast reader may refuse more), or both read the same value,
    /// written the same way.
    fn same(text: &str) {
        let slow = crate::json::parse(text);
        match read(text) {
            None => assert!(slow.is_err() || crate::json::nesting_depth(text.as_bytes()) > 127),
            Some(tree) => {
                let fast = tree.root().to_value();
                let slow = slow.unwrap_or_else(|e| panic!("{text:?}: fast ok, serde_json: {e}"));
                assert_eq!(fast, slow, "{text:?}");
                assert_eq!(
                    serde_json::to_string(&fast).unwrap(),
                    serde_json::to_string(&slow).unwrap(),
                    "{text:?}"
                );
            }
        }
    }

    #[test]
    fn numbers_read_alike() {
        for t in [
            "0",
            "-0",
            "1",
            "-1",
            "0.0",
            "-0.0",
            "1.0",
            "1e5",
            "1E5",
            "1e-5",
            "-1.5e+10",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775808",
            "-9223372036854775809",
            "123456789012345678901234567890",
            "0.1",
            "0.30000000000000004",
            "2.2250738585072014e-308",
            "4.9e-324",
            "1e-400",
            "1.7976931348623157e308",
            "1.00000000000000011102230246251565404236316680908203125",
            "9007199254740993",
            "9007199254740993.0",
            "3.141592653589793238462643383279",
            "1e308",
            "123.456e-7",
            "-0.0e5",
            "-0E+2",
            "-0.000",
            "0e7",
            "0.0e-3",
            "-0.5",
            "9007199254740993e-2",
            "9007199254740995e-1",
            "18014398509481983e-3",
            "9007199254740992e-22",
            "9007199254740992e22",
            "1e22",
            "1e23",
            "1e-22",
            "1e-23",
            "123456789e-22",
            "0.000000000000000000000000000001",
            "1234567890123456789e-5",
            "12345678901234567890e-5",
            "-12.5e+3",
        ] {
            same(t);
            same(&format!("[{t}]"));
            same(&format!("{{\"n\":{t}}}"));
        }
    }

    #[test]
    fn refused_texts_are_refused() {
        for t in [
            "",
            " ",
            "01",
            "1.",
            ".5",
            "+1",
            "1e",
            "1e400",
            "-1e400",
            "NaN",
            "Infinity",
            "[1,]",
            "{\"a\":1,}",
            "{a:1}",
            "'a'",
            "\"\\ud800\"",
            "\"\\udc00x\"",
            "\"\\x\"",
            "\"a\u{1}b\"",
            "[",
            "]",
            "{\"a\":1} x",
            "tru",
            "nul",
            "[1 2]",
            "\u{a0}1",
        ] {
            same(t);
            assert!(read(t).is_none(), "fast reader took {t:?}");
        }
    }

    #[test]
    fn strings_and_duplicates() {
        for t in [
            r#""a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00""#,
            r#"{"a":1,"a":2}"#,
            r#"{"b":{"x":1},"a":[{"k":"v","k":"w"}],"b":3}"#,
            "\"\u{4e2d}\u{6587} \u{1f600}\"",
            r#"{"":0," ":1,"é":2,"e":3,"e\u0301":4}"#,
            r#"{"a\nb":1,"a\\nb":2}"#,
        ] {
            same(t);
        }
        let tree = read(r#"{"a":1,"a":2,"b":{"c":1,"c":2}}"#).unwrap();
        assert_eq!(tree.duplicate_keys(), 2);
        assert_eq!(tree.root().get("a").unwrap().to_value(), Value::from(2));
    }

    #[test]
    fn repeated_keys_are_noted_per_object() {
        let tree =
            read(r#"{"b":{"c":1,"c":2,"c":3},"a":[{"k":1,"k":2}],"b":{"x":1,"x":2}}"#).unwrap();
        // Every object read counts, the dropped first `b` included.
        assert_eq!(tree.duplicate_keys(), 5);
        let root = tree.root();
        let keys = |n: crate::tree::Node<'_>| {
            n.repeated_keys().iter().map(|r| (r.key.to_string(), r.occurrences)).collect::<Vec<_>>()
        };
        assert_eq!(keys(root), [(String::from("b"), 2)]);
        assert_eq!(keys(root.get("b").unwrap()), [(String::from("x"), 2)]);
        assert_eq!(keys(root.get("a").unwrap().at(0).unwrap()), [(String::from("k"), 2)]);
        assert!(keys(root.get("a").unwrap()).is_empty());
        assert!(root.tree_repeats_keys());
        assert!(!read(r#"{"a":{"a":1}}"#).unwrap().root().tree_repeats_keys());
    }

    #[test]
    fn deep_texts_go_to_serde_json() {
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert!(read(&deep).is_none());
        assert!(crate::json::parse(&deep).is_ok());
        let tree = read_deep(&deep).unwrap();
        assert_eq!(tree.root().to_value(), crate::json::parse(&deep).unwrap());
        let deep_keys = format!("{}{{\"k\":1,\"k\":2}}{}", "[".repeat(5_000), "]".repeat(5_000));
        assert_eq!(read_deep(&deep_keys).unwrap().duplicate_keys(), 1);
        assert!(read_deep("[1,").is_none());
        assert!(read_deep(&"[".repeat(crate::json::MAX_DEPTH + 1)).is_none());
        let ok = format!("{}{}", "[".repeat(100), "]".repeat(100));
        same(&ok);
        let wide = format!("[{}]", vec!["[]"; 10_000].join(","));
        same(&wide);
    }

    /// Root members written alike share one node, read once; anything
    /// that differs (a byte, what follows, a repeated key inside) is read
    /// on its own, and every tree reads as serde_json reads the text.
    #[test]
    fn members_written_alike_share_their_node() {
        let doc = r#"{"items":[{"sku":"A-1","qty":2,"price":10.5},{"sku":"B-2","qty":1}],"n":1}"#;
        assert!(doc.len() >= SHARED_MIN);
        let digits = "1234567890".repeat(7);
        let cases = [
            (format!(r#"{{"id":1,"output":{doc},"reference":{doc}}}"#), true),
            (format!("{{\"output\":{doc} ,\n\"reference\":{doc}\n}}"), true),
            (format!(r#"{{"output":{doc},"input":"x","reference":{doc}}}"#), true),
            // One byte more: another value (or no JSON at all).
            (format!(r#"{{"output":{digits},"reference":{digits}5}}"#), false),
            (format!(r#"{{"output":"{digits}","reference":"{digits}x"}}"#), false),
            // Too short to be worth it.
            (r#"{"output":{"a":1},"reference":{"a":1}}"#.to_owned(), false),
            // Nested members are read as usual.
            (format!(r#"{{"output":{{"a":{doc},"b":{doc}}}}}"#), false),
        ];
        for (text, shares) in cases {
            same(&text);
            let tree = read(&text).unwrap();
            let root = tree.root();
            if let (Some(o), Some(r)) = (root.get("output"), root.get("reference")) {
                assert_eq!(o.id() == r.id(), shares, "{text}");
                assert!(crate::engine::nodes_equal(o, r) == (o.to_value() == r.to_value()));
            }
        }
        let broken = format!(r#"{{"output":{doc},"reference":{doc}"#);
        assert!(read(&broken).is_none());
        // A value that repeats a key is read again, so that every object
        // that repeated one is noted.
        let repeated = format!(r#"{{"k":1,"k":2,"pad":"{digits}"}}"#);
        let text = format!(r#"{{"output":{repeated},"reference":{repeated}}}"#);
        same(&text);
        let tree = read(&text).unwrap();
        assert_eq!(tree.duplicate_keys(), 2);
        let root = tree.root();
        assert_ne!(root.get("output").unwrap().id(), root.get("reference").unwrap().id());
        // A dropped column is not noted, and a kept one may share.
        let text = format!(r#"{{"input":{doc},"output":{doc},"reference":{doc}}}"#);
        let tree = read_columns(&text, Some(&["output", "reference"])).unwrap();
        let root = tree.root();
        assert_eq!(root.get("output").unwrap().id(), root.get("reference").unwrap().id());
        assert!(root.get("input").is_none());
    }

    /// A row of many members written alike but for their last bytes:
    /// only the first few are noted, so a member's start compares a
    /// bounded number of texts.
    #[test]
    fn few_members_are_noted_for_sharing() {
        let pad = "x".repeat(SHARED_MIN);
        let members: Vec<String> = (0..2_000).map(|i| format!(r#""k{i}":"{pad}{i}""#)).collect();
        let text = format!("{{{}}}", members.join(","));
        let mut reader = Reader::new(&text, SHALLOW);
        let root = reader.value(None);
        assert!(root.is_some());
        assert_eq!(reader.shared.len(), SHARED_MAX);
        same(&text);
    }

    /// A row read with its members guided (see `guide`): the same value
    /// as serde_json reads, and the output and reference nodes at
    /// `path` (object keys, array indices) shared or not as `shares`.
    fn guided(text: &str, path: &[&str], shares: bool) {
        same(text);
        let tree = read_columns(text, None).unwrap_or_else(|| panic!("refused {text}"));
        let slow = crate::json::parse(text).unwrap();
        assert_eq!(tree.root().to_value(), slow, "{text}");
        let root = tree.root();
        let (mut o, mut r) = (root.get("output").unwrap(), root.get("reference").unwrap());
        fn down<'t>(n: crate::tree::Node<'t>, step: &str) -> crate::tree::Node<'t> {
            match step.parse::<usize>() {
                Ok(i) => n.at(i),
                Err(_) => n.get(step),
            }
            .unwrap()
        }
        for step in path {
            (o, r) = (down(o, step), down(r, step));
        }
        assert_eq!(o.id() == r.id(), shares, "{text} at {path:?}");
        assert_eq!(crate::engine::nodes_equal(o, r), o.to_value() == r.to_value(), "{text}");
    }

    #[test]
    fn a_member_written_like_the_one_before_shares_what_is_alike() {
        let out = r#"{"a":{"x":1,"y":[1,2,{"z":"q"}]},"b":"two","c":3.5}"#;
        let rf = r#"{"a":{"x":1,"y":[1,2,{"z":"Q"}]},"b":"two","c":3.5}"#;
        let row = format!(r#"{{"id":"r1","output":{out},"reference":{rf}}}"#);
        // Containers written alike are shared; scalars are read again.
        for (path, shares) in [
            (&[][..], false),
            (&["a"][..], false),
            (&["a", "x"][..], false),
            (&["a", "y"][..], false),
            (&["a", "y", "0"][..], false),
            (&["a", "y", "2"][..], false),
            (&["a", "y", "2", "z"][..], false),
            (&["b"][..], false),
            (&["c"][..], false),
        ] {
            guided(&row, path, shares);
        }
        // Another order of keys, spaces, an input between: still shared
        // where the text of a value is the same.
        let rf = "{ \"c\": 3.5, \"b\":\"two\",\n\"a\":{\"y\":[1,2,{\"z\":\"q\"}],\"x\":1}}";
        let row = format!(r#"{{"output":{out},"input":"x","reference":{rf}}}"#);
        guided(&row, &["a", "y"], true);
        guided(&row, &["b"], false);
        guided(&row, &["a"], false);
        // Scalars are read, not looked up; junk after a shared value is
        // refused.
        guided(r#"{"output":[1,2],"reference":[1,23]}"#, &["1"], false);
        guided(r#"{"output":[1,2],"reference":[1,2.5]}"#, &["1"], false);
        guided(r#"{"output":[1,2],"reference":[1,2]}"#, &["1"], true);
        guided(r#"{"output":[1,"s",["s"]],"reference":[1,"s",["s"],0]}"#, &["1"], false);
        guided(r#"{"output":[1,"s",["s"]],"reference":[1,"s",["s"],0]}"#, &["2"], true);
        assert!(read_columns(r#"{"output":[1,{"a":1}],"reference":[1,{"a":1}}"#, None).is_none());
        assert!(read_columns(r#"{"output":{"a":[1]},"reference":{"a":[1]]}"#, None).is_none());
        assert!(read_columns(r#"{"output":{"a":[1]},"reference":{"a":[1]x}"#, None).is_none());
        // An object written in another order is searched for a few keys,
        // then read as usual (a wide one would cost a search per key).
        let keys: Vec<String> = (0..20).map(|i| format!(r#""k{i}":[{i}]"#)).collect();
        let reversed: Vec<String> = keys.iter().rev().cloned().collect();
        let text = format!(
            r#"{{"output":{{{}}},"reference":{{{}}}}}"#,
            keys.join(","),
            reversed.join(",")
        );
        guided(&text, &["k19"], true);
        guided(&text, &["k0"], false);
        // In the guide's order, every key is met without a search.
        let mut changed = keys.clone();
        changed[0] = String::from(r#""k0":[99]"#);
        let text =
            format!(r#"{{"output":{{{}}},"reference":{{{}}}}}"#, keys.join(","), changed.join(","));
        guided(&text, &["k19"], true);
        guided(&text, &["k0"], false);
        // Elements past the guide's, or of another kind, are read.
        let text = r#"{"output":[[1]],"reference":[[1],[1]]}"#;
        guided(text, &["0"], true);
        let tree = read_columns(text, None).unwrap();
        let (o, r) = (tree.root().get("output").unwrap(), tree.root().get("reference").unwrap());
        assert_ne!(o.at(0).unwrap().id(), r.at(1).unwrap().id());
        guided(r#"{"output":{"a":[1]},"reference":{"a":{"0":1}}}"#, &["a"], false);
        // The guide is the kept member before: a dropped one guides nothing.
        let text = r#"{"output":{"k":[1,2]},"input":{"k":[1,2]},"reference":{"k":[1,2]}}"#;
        let tree = read_columns(text, Some(&["output", "reference"])).unwrap();
        let root = tree.root();
        let (o, r) = (root.get("output").unwrap(), root.get("reference").unwrap());
        assert_eq!(o.get("k").unwrap().id(), r.get("k").unwrap().id());
        assert_eq!(
            tree.root().to_value(),
            serde_json::json!({"output":{"k":[1,2]},"reference":{"k":[1,2]}})
        );
        // `read` reads each member on its own.
        let tree = read(r#"{"output":{"k":[1,2]},"reference":{"k":[1,2],"j":0}}"#).unwrap();
        let root = tree.root();
        let k = |m: &str| root.get(m).unwrap().get("k").unwrap().id();
        assert_ne!(k("output"), k("reference"));
    }

    /// A guide that repeated a key guides nothing (the later member's
    /// repeats are noted where they are); values deeper than
    /// [`GUIDE_DEPTH`] are read as usual.
    #[test]
    fn repeats_and_depth_bound_what_is_shared() {
        let row =
            r#"{"output":{"a":{"k":1,"k":2},"b":[1]},"reference":{"a":{"k":1,"k":2},"b":[1]}}"#;
        guided(row, &["b"], false);
        guided(row, &["a"], false);
        assert_eq!(read_columns(row, None).unwrap().duplicate_keys(), 2);
        // The innermost array of `n` opens `n` levels into the row; the
        // values in it are compared while that is less than GUIDE_DEPTH.
        let nested = |n: usize, last: u8| {
            let deep = |k: u8| format!("{}[\"x\"],{k}{}", "[".repeat(n), "]".repeat(n));
            format!(r#"{{"output":{},"reference":{}}}"#, deep(1), deep(last))
        };
        for (n, shares) in [(GUIDE_DEPTH - 1, true), (GUIDE_DEPTH, false), (GUIDE_DEPTH + 5, false)]
        {
            let path = vec!["0"; n];
            guided(&nested(n, 2), &path, shares);
            guided(&nested(n, 2), &path[..n - 1], false);
            // Alike all through: shared at the member.
            guided(&nested(n, 1), &[], true);
        }
    }

    #[test]
    fn columns_are_read_and_the_rest_skipped() {
        let text =
            r#"{"id":"a","input":{"long":[1,2,3]},"output":{"x":1},"reference":"r","id":"b"}"#;
        let tree = read_columns(text, Some(&["id", "output"])).unwrap();
        let root = tree.root();
        assert_eq!(root.entries().map(|(k, _)| k).collect::<Vec<_>>(), ["id", "output"]);
        assert_eq!(root.get("id").unwrap().as_str(), Some("b"));
        assert_eq!(tree.len(), 5);
        // Skipped members are still checked.
        assert!(read_columns(r#"{"id":"a","input":[1,}"#, Some(&["id"])).is_none());
        // Only the root's members are selected.
        let nested = read_columns(r#"{"output":{"input":1}}"#, Some(&["output"])).unwrap();
        assert!(nested.root().get("output").unwrap().get("input").is_some());
    }
}
