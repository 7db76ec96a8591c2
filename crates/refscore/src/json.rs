//! Reading JSON text and small helpers over [`serde_json::Value`].
//!
//! Parsing has no nesting limit: deep documents (10,000 levels and more)
//! are parsed on a growing stack, and [`Doc`] frees them without recursion.

use std::cell::Cell;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

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
    parse_with(text, || PhantomData::<Value>)
}

/// Parses JSON text as [`parse`] does (the same value, the same errors)
/// and counts the object members that a later member of the same object
/// replaced (in every object of the text, those inside replaced members
/// included): where the keys were is [`crate::duplicate_keys`]' business,
/// asked only when the count is not 0.
///
/// # Errors
/// As [`parse`].
pub fn parse_counted(text: &str) -> Result<(Value, u32), String> {
    let replaced = Cell::new(0);
    let value = parse_with(text, || {
        replaced.set(0);
        Counting(&replaced)
    })?;
    Ok((value, replaced.get()))
}

/// The one parse: `seed` makes the value (tried again on a growing stack
/// when the text nests deeper than serde_json's own limit).
fn parse_with<S>(text: &str, seed: impl Fn() -> S) -> Result<Value, String>
where
    S: for<'de> DeserializeSeed<'de, Value = Value>,
{
    // Fast path: most documents nest far less than serde_json's default
    // limit of 128 levels and parse on the ordinary stack.
    let mut de = serde_json::Deserializer::from_str(text);
    let first = seed().deserialize(&mut de).and_then(|v| match de.end() {
        Ok(()) => Ok(v),
        Err(e) => {
            drop_deep(v);
            Err(e)
        }
    });
    match first {
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
        seed().deserialize(serde_stacker::Deserializer::new(&mut de)).map_err(|e| e.to_string())?;
    if let Err(e) = de.end() {
        drop_deep(value);
        return Err(e.to_string());
    }
    Ok(value)
}

/// Builds a value exactly as `serde_json::Value`'s own deserializer does,
/// counting the members a later member with the same key replaced.
#[derive(Clone, Copy)]
struct Counting<'c>(&'c Cell<u32>);

impl<'de> DeserializeSeed<'de> for Counting<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Counting<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any valid JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(v) = seq.next_element_seed(self)? {
            items.push(v);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut members = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let v = map.next_value_seed(self)?;
            if let Some(replaced) = members.insert(key, v) {
                self.0.set(self.0.get().saturating_add(1));
                drop_deep(replaced);
            }
        }
        Ok(Value::Object(members))
    }
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

/// About how many bytes of memory one B-tree node of an object's members
/// takes (up to 11 keys and values, and the node's own fields).
const MAP_NODE_BYTES: usize = 11 * (size_of::<String>() + size_of::<Value>()) + 16;

/// About how many bytes a parsed value holds in memory, counted up to
/// `cap` (the count stops there): every value its own size, a string its
/// bytes, an object its keys' bytes and a B-tree node per 11 members.
/// Iterative, and holding one iterator per level of nesting, whatever
/// the width.
pub fn held_bytes(v: &Value, cap: usize) -> usize {
    /// A container being counted: the children not yet counted.
    enum Level<'a> {
        Items(std::slice::Iter<'a, Value>),
        Members(serde_json::map::Iter<'a>),
    }
    let mut n = 0usize;
    let mut stack: Vec<Level<'_>> = Vec::new();
    let mut next = Some(v);
    loop {
        if let Some(v) = next.take() {
            n = n.saturating_add(size_of::<Value>());
            match v {
                Value::String(s) => n = n.saturating_add(s.len()),
                Value::Array(items) => stack.push(Level::Items(items.iter())),
                Value::Object(map) => {
                    let nodes = map.len().div_ceil(11).saturating_mul(MAP_NODE_BYTES);
                    n = n.saturating_add(nodes);
                    stack.push(Level::Members(map.iter()));
                }
                _ => {}
            }
            if n >= cap {
                return cap;
            }
        }
        let Some(top) = stack.last_mut() else { break };
        next = match top {
            Level::Items(items) => items.next(),
            // A member's key is counted as its value is reached.
            Level::Members(members) => members.next().map(|(key, value)| {
                n = n.saturating_add(key.len());
                value
            }),
        };
        if next.is_none() {
            stack.pop();
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
    fn what_a_value_holds_is_counted_up_to_its_cap_at_any_depth_and_width() {
        let value = size_of::<Value>();
        let v = json!({"ab": "xyz", "n": [1, true, null]});
        let want = 6 * value + MAP_NODE_BYTES + "ab".len() + "n".len() + "xyz".len();
        assert_eq!(held_bytes(&v, usize::MAX), want);
        assert_eq!(held_bytes(&v, 100), 100);
        assert_eq!(held_bytes(&json!({}), usize::MAX), value);
        let members: Map<String, Value> = (0..12).map(|i| (format!("k{i:02}"), json!(i))).collect();
        let want = 13 * value + 2 * MAP_NODE_BYTES + 12 * 3;
        assert_eq!(held_bytes(&Value::Object(members), usize::MAX), want);
        // An object nested 5,000 levels holds far more than its text
        // (`{"n":` and `,"v":1}` a level).
        let text = format!("{}0{}", r#"{"n":"#.repeat(5_000), r#","v":1}"#.repeat(5_000));
        let deep = parse(&text).unwrap();
        assert!(held_bytes(&deep, usize::MAX) > 20 * text.len());
        drop(Doc(deep));
        let deep = parse(&format!("{}{}", "[".repeat(10_000), "]".repeat(10_000))).unwrap();
        assert_eq!(held_bytes(&deep, usize::MAX), 10_000 * value);
        drop(Doc(deep));
        // Wide: the count stops at the cap.
        let wide = Value::Array(vec![json!("abcdefgh"); 100_000]);
        assert_eq!(held_bytes(&wide, 1_000), 1_000);
        assert_eq!(held_bytes(&wide, usize::MAX), value + 100_000 * (value + 8));
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
    fn counting_parse_reads_alike_and_counts_replaced_members() {
        for text in [
            r#"{"a":1,"a":2}"#,
            r#"{"b":{"c":1,"c":2,"c":3},"a":[{"k":1,"k":2}],"b":{"x":-0,"x":0.0}}"#,
            r#"[1,-0,1e5,18446744073709551616,"\u00e9",null,true,{}]"#,
            " 12 ",
        ] {
            let (v, _) = parse_counted(text).unwrap();
            let w = parse(text).unwrap();
            assert_eq!(v, w, "{text}");
            assert_eq!(v.to_string(), w.to_string(), "{text}");
        }
        assert_eq!(parse_counted(r#"{"a":1,"a":2}"#).unwrap().1, 1);
        let nested = r#"{"b":{"c":1,"c":2,"c":3},"a":[{"k":1,"k":2}],"b":{"x":1,"x":2}}"#;
        assert_eq!(parse_counted(nested).unwrap().1, 5);
        assert_eq!(parse_counted(r#"{"a":{"a":1},"b":[{"a":2}]}"#).unwrap().1, 0);
        assert_eq!(parse_counted("{} x").unwrap_err(), parse("{} x").unwrap_err());
        assert_eq!(parse_counted(r#""\ud800""#).unwrap_err(), parse(r#""\ud800""#).unwrap_err());
        let deep = format!("{}{{\"k\":1,\"k\":2}}{}", "[".repeat(10_000), "]".repeat(10_000));
        let (v, n) = parse_counted(&deep).unwrap();
        assert_eq!(n, 1);
        drop(Doc(v));
        assert!(parse_counted(&"[".repeat(MAX_DEPTH + 1)).unwrap_err().contains("nesting"));
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
