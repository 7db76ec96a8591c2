//! Closing a JSON document that was cut off: the model stopped mid-way.
//!
//! One pass tracks open brackets, strings and escapes, and remembers the
//! last safe point (just after an opening bracket or a complete member).
//! Three closings are tried in order, the first that parses wins:
//!
//! 1. inside a string: drop a half-written escape, close the string and the
//!    brackets (`{"name": "Jo` → `{"name": "Jo"}`);
//! 2. drop a trailing comma and close the brackets (`[1, 2,` → `[1, 2]`);
//! 3. cut back to the last safe point and close the brackets there
//!    (`{"a": 1, "b":` → `{"a": 1}`, dangling keys and half-written
//!    numbers or literals go).

use serde_json::Value;

use crate::duplicate_keys::{DuplicateKeys, parse};

/// A cut-off document, closed.
#[derive(Debug)]
pub(super) struct Closed {
    /// The document.
    pub(super) value: Value,
    /// The keys its objects repeated, if any.
    pub(super) duplicate_keys: Option<DuplicateKeys>,
    /// How many bytes of the text the closed document keeps: what lies
    /// past them (a half-written member) was dropped.
    pub(super) kept: usize,
}

/// Closes `text` (which must start with `{` or `[`) and parses it.
pub(super) fn repair(text: &str) -> Option<Closed> {
    let bytes = text.as_bytes();
    if !matches!(bytes.first(), Some(b'{' | b'[')) {
        return None;
    }
    let mut stack: Vec<u8> = Vec::new();
    let (mut in_str, mut esc, mut hex_left, mut esc_start) = (false, false, 0u8, 0usize);
    let mut safe: Option<(usize, usize)> = None;
    for (i, &b) in bytes.iter().enumerate() {
        if in_str {
            if hex_left > 0 && b.is_ascii_hexdigit() {
                hex_left -= 1;
                continue;
            }
            hex_left = 0;
            if esc {
                esc = false;
                if b == b'u' {
                    hex_left = 4;
                }
            } else if b == b'\\' {
                esc = true;
                esc_start = i;
            } else if b == b'"' {
                in_str = false;
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'{' => {
                stack.push(b'}');
                safe = Some((i + 1, stack.len()));
            }
            b'[' => {
                stack.push(b']');
                safe = Some((i + 1, stack.len()));
            }
            b'}' | b']' => {
                if stack.pop() != Some(b) {
                    return None;
                }
                if stack.is_empty() {
                    // Complete before the end: the prefix is the document.
                    let (value, duplicate_keys) = parse(text.get(..=i)?).ok()?;
                    return Some(Closed { value, duplicate_keys, kept: i + 1 });
                }
                safe = Some((i + 1, stack.len()));
            }
            b',' => safe = Some((i, stack.len())),
            _ => {}
        }
    }
    let closers =
        |depth: usize| -> String { stack.iter().take(depth).rev().map(|&c| c as char).collect() };
    // Each try: the closed text, and how many bytes of `text` it keeps.
    let mut tries: Vec<(String, usize)> = Vec::with_capacity(3);
    if in_str {
        let cut = if esc || hex_left > 0 { esc_start } else { bytes.len() };
        let head = text.get(..cut)?;
        tries.push((format!("{head}\"{}", closers(stack.len())), cut));
    } else {
        let head = text.trim_end();
        let head = head.strip_suffix(',').unwrap_or(head);
        tries.push((format!("{head}{}", closers(stack.len())), head.len()));
    }
    if let Some((pos, depth)) = safe {
        let head = text.get(..pos)?.trim_end();
        let head = head.strip_suffix(',').unwrap_or(head);
        tries.push((format!("{head}{}", closers(depth)), head.len()));
    }
    tries.iter().find_map(|(t, kept)| {
        let (value, duplicate_keys) = parse(t).ok()?;
        Some(Closed { value, duplicate_keys, kept: *kept })
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    /// The repaired document alone.
    fn repair(text: &str) -> Option<serde_json::Value> {
        super::repair(text).map(|c| c.value)
    }

    /// How much of the text the closed document keeps.
    #[test]
    fn says_how_much_of_the_text_it_kept() {
        let kept = |t: &str| super::repair(t).map(|c| c.kept);
        assert_eq!(kept(r#"{"a": {"b": 1}, "c": "cut"#), Some(25));
        assert_eq!(kept(r#"{"a": {"b": 1}, "c": tr"#), Some(14));
        assert_eq!(kept(r#"[1, 2,"#), Some(5));
        assert_eq!(kept(r#"[see "note] {"a": 1}"#), Some(1));
        assert_eq!(kept(r#"[1] tail"#), Some(3));
    }

    #[test]
    fn closes_strings_arrays_objects() {
        assert_eq!(repair(r#"{"name": "Jo"#), Some(json!({"name": "Jo"})));
        assert_eq!(repair(r#"[1, 2,"#), Some(json!([1, 2])));
        assert_eq!(repair(r#"{"a": {"b": [1, {"c": 2"#), Some(json!({"a": {"b": [1, {"c": 2}]}})));
        assert_eq!(repair(r#"{"a": 1, "b""#), Some(json!({"a": 1})));
        assert_eq!(repair(r#"{"a": 1, "b": "#), Some(json!({"a": 1})));
        assert_eq!(repair(r#"{"a": 1, "b": tr"#), Some(json!({"a": 1})));
        assert_eq!(repair(r#"{"a": 1.5e"#), Some(json!({})));
        assert_eq!(repair(r#"{"ke"#), Some(json!({})));
        assert_eq!(repair("["), Some(json!([])));
    }

    #[test]
    fn drops_half_escapes() {
        assert_eq!(repair(r#"["a\"#), Some(json!(["a"])));
        assert_eq!(repair(r#"["a\u00"#), Some(json!(["a"])));
        assert_eq!(repair(r#"["a\u00e9"#), Some(json!(["aé"])));
        assert_eq!(repair(r#"["a\"b"#), Some(json!(["a\"b"])));
    }

    #[test]
    fn refuses_what_it_cannot_fix() {
        assert_eq!(repair("hello"), None);
        assert_eq!(repair("[1}"), None);
        assert_eq!(repair(r#"{"a" 1"#), Some(json!({})));
        assert_eq!(repair(r#"[1] tail"#), Some(json!([1])));
    }
}
