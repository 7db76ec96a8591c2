//! The fast reader: JSON text parsed by `sonic-rs` (SIMD) into its own
//! arena document, then read into a [`Tree`] with borrowed strings. No
//! `serde_json::Value` is built on this path.
//!
//! It accepts exactly the documents [`crate::json::parse`] accepts, with
//! the same numbers: text it refuses, or that nests deeper than
//! [`MAX_FAST_DEPTH`] levels, is left to `serde_json` ([`FastDoc::parse`]
//! returns `None`), which gives the error message or parses the deep
//! document on a growing stack. The property tests of this module and of
//! the library's test binary hold the two readers to the same results.

use serde_json::Number;
use sonic_rs::{JsonContainerTrait, JsonType, JsonValueTrait};

use crate::tree::{Shape, Source, Tree};

/// Deepest nesting the fast reader takes (its parser recurses); deeper
/// documents go to `serde_json` on a growing stack.
pub const MAX_FAST_DEPTH: usize = 128;

/// A document parsed by the fast reader; [`FastDoc::tree`] reads it.
pub struct FastDoc {
    value: sonic_rs::Value,
}

impl std::fmt::Debug for FastDoc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FastDoc").finish_non_exhaustive()
    }
}

impl FastDoc {
    /// Parses one JSON document, or `None` when the text is not one the
    /// fast reader takes (invalid JSON, a lone surrogate, a number out of
    /// range, nesting deeper than [`MAX_FAST_DEPTH`]): parse such text
    /// with [`crate::json::parse`], which says what is wrong.
    pub fn parse(text: &str) -> Option<FastDoc> {
        if !shallow(text.as_bytes()) {
            return None;
        }
        // The parser recurses once per level: make sure of the stack.
        let value: sonic_rs::Value =
            stacker::maybe_grow(1 << 20, 4 << 20, || sonic_rs::from_str(text).ok())?;
        agrees(&value, text).then_some(FastDoc { value })
    }

    /// The document as a tree (strings borrowed from the document).
    pub fn tree(&self) -> Tree<'_> {
        Tree::build(&self.value)
    }
}

/// Whether the text nests at most [`MAX_FAST_DEPTH`] levels: counting
/// brackets (a vectorised pass) settles most texts; only texts with many
/// brackets get the exact scan.
fn shallow(bytes: &[u8]) -> bool {
    let brackets = bytes.iter().filter(|&&b| b == b'[' || b == b'{').count();
    brackets <= MAX_FAST_DEPTH || crate::json::nesting_depth(bytes) <= MAX_FAST_DEPTH
}

/// Whether every number of the document is one `serde_json` reads the
/// same way: finite (an overflowing exponent is an error there), and no
/// zero that could have been a negative zero (`sonic-rs` drops the sign
/// of `-0` and `-0.0`; `serde_json` keeps it).
fn agrees(v: &sonic_rs::Value, text: &str) -> bool {
    let mut stack = vec![v];
    let mut zero_checked = false;
    while let Some(v) = stack.pop() {
        match v.get_type() {
            JsonType::Number => match v.as_f64() {
                Some(x) if !x.is_finite() => return false,
                Some(x) if x == 0.0 && v.is_f64() && !zero_checked => {
                    if may_hold_negative_zero(text.as_bytes()) {
                        return false;
                    }
                    zero_checked = true;
                }
                _ => {}
            },
            JsonType::Array => {
                if let Some(a) = v.as_array() {
                    stack.extend(a.iter());
                }
            }
            JsonType::Object => {
                if let Some(o) = v.as_object() {
                    stack.extend(o.iter().map(|(_, x)| x));
                }
            }
            _ => {}
        }
    }
    true
}

/// Whether the text may hold a negative zero: a `-0` not followed by
/// another non-zero digit. Conservative (text inside strings counts too):
/// a `true` only sends the text to `serde_json`.
fn may_hold_negative_zero(bytes: &[u8]) -> bool {
    memchr::memmem::find_iter(bytes, b"-0").any(|i| !matches!(bytes.get(i + 2), Some(b'1'..=b'9')))
}

/// The `serde_json` number a fast-read number stands for: unsigned and
/// negative integers as such, everything else as `f64`.
fn number(v: &sonic_rs::Value) -> Number {
    if let Some(u) = v.as_u64().filter(|_| v.is_u64()) {
        return Number::from(u);
    }
    if let Some(i) = v.as_i64().filter(|_| v.is_i64()) {
        return Number::from(i);
    }
    v.as_f64().and_then(Number::from_f64).unwrap_or_else(|| Number::from(0))
}

impl<'s> Source<'s> for &'s sonic_rs::Value {
    fn shape(self, children: &mut Vec<(&'s str, Self)>) -> Shape<'s> {
        match self.get_type() {
            JsonType::Null => Shape::Null,
            JsonType::Boolean => Shape::Bool(self.as_bool().unwrap_or(false)),
            JsonType::Number => Shape::Number(number(self)),
            JsonType::String => Shape::Str(self.as_str().unwrap_or("")),
            JsonType::Array => {
                if let Some(a) = self.as_array() {
                    children.extend(a.iter().map(|v| ("", v)));
                }
                Shape::Array
            }
            JsonType::Object => {
                if let Some(o) = self.as_object() {
                    children.extend(o.iter());
                }
                Shape::Object
            }
        }
    }
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
        match FastDoc::parse(text) {
            None => {}
            Some(doc) => {
                let tree = doc.tree();
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
            if crate::json::parse(t).is_err() {
                assert!(FastDoc::parse(t).is_none(), "fast reader took {t:?}");
            }
        }
    }

    #[test]
    fn strings_and_duplicates() {
        for t in [
            r#""a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00""#,
            r#"{"a":1,"a":2}"#,
            r#"{"b":{"x":1},"a":[{"k":"v","k":"w"}],"b":3}"#,
            "\"\u{4e2d}\u{6587} \u{1f600}\"",
            r#"{"":0," ":1,"é":2,"e":3}"#,
        ] {
            same(t);
        }
        let doc = FastDoc::parse(r#"{"a":1,"a":2,"b":{"c":1,"c":2}}"#).unwrap();
        let tree = doc.tree();
        assert_eq!(tree.duplicate_keys(), 2);
        assert_eq!(tree.root().get("a").unwrap().to_value(), Value::from(2));
        // A negative zero anywhere, even beside other zeros, goes to serde_json.
        same(r#"{"a":0.0,"b":"x-0","c":-0}"#);
        assert!(FastDoc::parse(r#"[0.0,"2023-08-02"]"#).is_some());
    }

    #[test]
    fn deep_texts_go_to_serde_json() {
        let deep = format!("{}{}", "[".repeat(MAX_FAST_DEPTH + 1), "]".repeat(MAX_FAST_DEPTH + 1));
        assert!(FastDoc::parse(&deep).is_none());
        let ok = format!("{}{}", "[".repeat(MAX_FAST_DEPTH), "]".repeat(MAX_FAST_DEPTH));
        assert!(FastDoc::parse(&ok).is_some());
        // Many brackets, shallow: still fast.
        let wide = format!("[{}]", vec!["[]"; 10_000].join(","));
        assert!(FastDoc::parse(&wide).is_some());
    }
}
