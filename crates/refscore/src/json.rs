//! Reading JSON text and small helpers over [`serde_json::Value`].
//!
//! Parsing has no nesting limit: deep documents (10,000 levels and more)
//! are parsed on a growing stack, and [`Doc`] frees them without recursion.

use serde::Deserialize;
use serde_json::Value;

use crate::tree::Node;

/// Deepest nesting accepted, in levels; deeper input is an error rather
/// than a risk to the process.
pub const MAX_DEPTH: usize = 100_000;

/// Parses JSON text into a value, with no recursion limit but [`MAX_DEPTH`].
///
/// # Errors
/// The serde_json error (with line and column) when the text is not one
/// JSON document, or a depth error.
pub fn parse(text: &str) -> Result<Value, String> {
    // Fast path: most documents nest far less than serde_json's default
    // limit of 128 levels and parse on the ordinary stack.
    match serde_json::from_str::<Value>(text) {
        Ok(v) => return Ok(v),
        Err(e) if !e.to_string().starts_with("recursion limit exceeded") => {
            return Err(explain_error(text, &e));
        }
        Err(_) => {}
    }
    // A text shorter than the limit cannot nest deeper than it.
    if text.len() > MAX_DEPTH && nesting_depth(text.as_bytes()) > MAX_DEPTH {
        return Err(format!("nesting deeper than {MAX_DEPTH} levels"));
    }
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    let value =
        Value::deserialize(serde_stacker::Deserializer::new(&mut de)).map_err(|e| e.to_string())?;
    if let Err(e) = de.end() {
        drop_deep(value);
        return Err(e.to_string());
    }
    Ok(value)
}

/// serde_json's message, or a clearer one where it is vague: an unpaired
/// UTF-16 surrogate escape is named, with where it is.
fn explain_error(text: &str, e: &serde_json::Error) -> String {
    let msg = e.to_string();
    if msg.contains("hex escape")
        && let Some((at, unit, high)) = unpaired_surrogate(text.as_bytes())
    {
        let line = text[..at].matches('\n').count() + 1;
        let column = text[..at].rfind('\n').map_or(at, |nl| at - nl - 1) + 1;
        let why = if high {
            "a high surrogate must be followed by a low one (\\udc00-\\udfff)"
        } else {
            "a low surrogate must follow a high one (\\ud800-\\udbff)"
        };
        return format!(
            "unpaired UTF-16 surrogate \\u{unit:04x} at line {line} column {column}: {why}"
        );
    }
    msg
}

/// The first `\uXXXX` escape in a string literal that is half of a
/// surrogate pair without its other half: its byte offset, the code unit,
/// and whether it is a high (leading) surrogate.
fn unpaired_surrogate(bytes: &[u8]) -> Option<(usize, u16, bool)> {
    let unit = |at: usize| -> Option<u16> {
        let hex = bytes.get(at..at + 6)?;
        if hex[0] != b'\\' || hex[1] != b'u' {
            return None;
        }
        u16::from_str_radix(std::str::from_utf8(&hex[2..]).ok()?, 16).ok()
    };
    let (mut i, mut in_str) = (0, false);
    while i < bytes.len() {
        match (in_str, bytes[i]) {
            (false, b'"') | (true, b'"') => in_str = !in_str,
            (true, b'\\') => {
                if let Some(u) = unit(i) {
                    match u {
                        0xD800..=0xDBFF => match unit(i + 6) {
                            Some(0xDC00..=0xDFFF) => i += 6,
                            _ => return Some((i, u, true)),
                        },
                        0xDC00..=0xDFFF => return Some((i, u, false)),
                        _ => {}
                    }
                    i += 5;
                } else {
                    i += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Tells, byte by byte, whether JSON text is inside a string literal.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Strings {
    in_str: bool,
    esc: bool,
}

impl Strings {
    /// Feeds the next byte; true when it is structural: outside every
    /// string literal, and not the quote that opens or closes one.
    pub(crate) fn structural(&mut self, b: u8) -> bool {
        if self.in_str {
            if self.esc {
                self.esc = false;
            } else if b == b'\\' {
                self.esc = true;
            } else if b == b'"' {
                self.in_str = false;
            }
            return false;
        }
        if b == b'"' {
            self.in_str = true;
            return false;
        }
        true
    }

    /// Whether the text so far ends inside a string literal.
    pub(crate) fn in_string(self) -> bool {
        self.in_str
    }
}

/// Largest bracket nesting in the text, ignoring brackets inside strings.
pub fn nesting_depth(bytes: &[u8]) -> usize {
    let (mut depth, mut max, mut strings) = (0usize, 0usize, Strings::default());
    for &b in bytes {
        if !strings.structural(b) {
            continue;
        }
        match b {
            b'[' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// Drops a value without deep recursion, so that freeing a deeply nested
/// document cannot overflow the stack: ordinary recursion for the first
/// levels, an explicit stack below them.
pub fn drop_deep(value: Value) {
    drop_bounded(value, 0);
}

/// Levels freed by ordinary recursion before switching to a heap stack.
const DROP_RECURSION: usize = 256;

fn drop_bounded(value: Value, depth: usize) {
    if depth >= DROP_RECURSION {
        let mut stack = vec![value];
        while let Some(v) = stack.pop() {
            match v {
                Value::Array(items) => stack.extend(items.into_iter().filter(is_container)),
                Value::Object(map) => {
                    stack.extend(map.into_iter().map(|(_, v)| v).filter(is_container))
                }
                _ => {}
            }
        }
        return;
    }
    match value {
        Value::Array(items) => {
            for v in items.into_iter().filter(is_container) {
                drop_bounded(v, depth + 1);
            }
        }
        Value::Object(map) => {
            for (_, v) in map.into_iter().filter(|(_, v)| is_container(v)) {
                drop_bounded(v, depth + 1);
            }
        }
        _ => {}
    }
}

/// A copy of a value that cannot overflow the stack, however deep it is
/// (`Value::clone` recurses once per level).
pub fn clone_deep(v: &Value) -> Value {
    stacker::maybe_grow(64 * 1024, 2 * 1024 * 1024, || match v {
        Value::Array(items) => Value::Array(items.iter().map(clone_deep).collect()),
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), clone_deep(v))).collect())
        }
        other => other.clone(),
    })
}

/// A parsed document that frees itself without recursion.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Doc(pub Value);

impl Drop for Doc {
    fn drop(&mut self) {
        if matches!(self.0, Value::Array(_) | Value::Object(_)) {
            drop_deep(std::mem::take(&mut self.0));
        }
    }
}

/// The JSON type name of a value: `null`, `boolean`, `number`, `string`,
/// `array` or `object`.
pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Number of leaves under a value: scalars count 1, containers the sum of
/// their children (so `{}` and `[]` count 0). Iterative.
pub fn leaves(v: &Value) -> usize {
    let mut n = 0;
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::Array(items) => stack.extend(items.iter()),
            Value::Object(map) => stack.extend(map.values()),
            _ => n += 1,
        }
    }
    n
}

/// Whether a value is an array or an object.
pub fn is_container(v: &Value) -> bool {
    matches!(v, Value::Array(_) | Value::Object(_))
}

/// Compact JSON text of a value, or the string itself for strings.
pub fn display(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => compact(other),
    }
}

/// Compact JSON text of a value (no recursion limit issues for deep values:
/// serde_json's writer recurses, so very deep values are summarised).
pub fn compact(v: &Value) -> String {
    if container_depth_exceeds(v, 64) {
        return format!("<{} nested deeper than 64 levels>", type_name(v));
    }
    serde_json::to_string(v).unwrap_or_default()
}

/// Runs `f` on owned copies of two tree nodes, for code that reads
/// `serde_json` values, and frees the copies without deep recursion.
pub fn with_values<R>(a: Node<'_>, b: Node<'_>, f: impl FnOnce(&Value, &Value) -> R) -> R {
    let (x, y) = (a.to_value(), b.to_value());
    let r = f(&x, &y);
    drop_deep(x);
    drop_deep(y);
    r
}

/// Whether a value nests deeper than `limit` levels. Iterative.
pub fn container_depth_exceeds(v: &Value, limit: usize) -> bool {
    let mut stack = vec![(v, 0usize)];
    while let Some((v, d)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match v {
            Value::Array(items) => Box::new(items.iter()),
            Value::Object(map) => Box::new(map.values()),
            _ => continue,
        };
        if d + 1 > limit {
            return true;
        }
        stack.extend(children.map(|c| (c, d + 1)));
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_deep_nesting() {
        let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        let v = parse(&deep).unwrap();
        assert!(container_depth_exceeds(&v, 9_000));
        drop(Doc(v));
    }

    #[test]
    fn rejects_absurd_depth_and_garbage() {
        let deep = "[".repeat(MAX_DEPTH + 1);
        assert!(parse(&deep).unwrap_err().contains("nesting"));
        assert!(parse("{} x").is_err());
        assert!(parse("{\"a\":").is_err());
        assert_eq!(parse(" 12 ").unwrap(), json!(12));
        assert_eq!(parse("\"a b\"").unwrap(), json!("a b"));
    }

    #[test]
    fn unpaired_surrogates_are_named() {
        for (text, unit, at) in [
            (r#""\ud800""#, "\\ud800", "line 1 column 2"),
            (r#"{"a": "b\udc00"}"#, "\\udc00", "line 1 column 9"),
            ("[\n \"ok \\ud83d\\ude00\", \"\\ud83dz\"]", "\\ud83d", "line 2 column 22"),
            (r#""\ud800\ud800""#, "\\ud800", "line 1 column 2"),
        ] {
            let e = parse(text).unwrap_err();
            assert!(e.starts_with("unpaired UTF-16 surrogate"), "{text}: {e}");
            assert!(e.contains(unit) && e.contains(at), "{text}: {e}");
        }
        assert!(parse(r#""\ud83d\ude00""#).is_ok());
        // Other errors keep serde_json's own message.
        assert!(!parse(r#""\u12x""#).unwrap_err().starts_with("unpaired"));
    }

    #[test]
    fn big_numbers_parse() {
        assert!(parse("123456789012345678901234567890").unwrap().is_f64());
        assert_eq!(parse("1e308").unwrap(), json!(1e308));
    }

    #[test]
    fn counts_leaves() {
        assert_eq!(leaves(&json!({"a": [1, 2, {"b": null}], "c": {}})), 3);
        assert_eq!(leaves(&json!([])), 0);
        assert_eq!(leaves(&json!(5)), 1);
    }
}
