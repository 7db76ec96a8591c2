//! The fast reader: JSON text read straight into a [`Tree`], with no
//! `serde_json::Value` built on the way.
//!
//! `serde_json`'s tokenizer drives a visitor that writes every value into
//! the tree's arena: strings without escapes are borrowed from the text,
//! containers become index ranges. Reading a row, the columns no evaluator
//! reads are skipped without being built at all.
//!
//! The tokenizer is `serde_json`'s own, so the reader accepts exactly the
//! documents [`crate::json::parse`] accepts, with the same numbers and the
//! same last-wins duplicate keys. Text it refuses (invalid JSON, or nesting
//! deeper than `serde_json`'s 128 levels) is left to
//! [`crate::json::parse`], which says what is wrong or parses the deep
//! document on a growing stack ([`read_deep`] reads such a document into
//! a tree, for the rare reader that needs one).

use std::borrow::Cow;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Number;

use crate::tree::{Slot, Tree};

/// Reads one JSON document into a tree, or `None` when the text is not
/// one the fast reader takes (parse it with [`crate::json::parse`]).
pub fn read(text: &str) -> Option<Tree<'_>> {
    read_columns(text, None)
}

/// Reads one JSON document into a tree; when it is an object and
/// `columns` is given, only those members of it are read (the others are
/// checked for validity and skipped). `None` as [`read`].
pub fn read_columns<'s>(text: &'s str, columns: Option<&[&str]>) -> Option<Tree<'s>> {
    let mut b = Builder {
        // About one value per 12 bytes of typical JSON.
        tree: Tree::with_capacity(text.len() / 12 + 4),
        items: Vec::new(),
        entries: Vec::new(),
    };
    let mut de = serde_json::Deserializer::from_str(text);
    let root = ValueSeed { b: &mut b, columns }.deserialize(&mut de).ok()?;
    de.end().ok()?;
    let mut tree = b.tree;
    tree.set_root(root);
    Some(tree)
}

/// Reads one JSON document of any depth up to [`crate::json::MAX_DEPTH`]
/// into a tree, on a growing stack: for a document that
/// [`crate::json::parse`] took, when the tree is needed (where its
/// repeated keys were). `None` when the text is not JSON or nests deeper.
pub(crate) fn read_deep(text: &str) -> Option<Tree<'_>> {
    let limit = crate::json::MAX_DEPTH;
    if text.len() > limit && crate::json::nesting_depth(text.as_bytes()) > limit {
        return None;
    }
    let mut b = Builder {
        tree: Tree::with_capacity(text.len() / 12 + 4),
        items: Vec::new(),
        entries: Vec::new(),
    };
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    let seed = ValueSeed { b: &mut b, columns: None };
    let root = seed.deserialize(serde_stacker::Deserializer::new(&mut de)).ok()?;
    de.end().ok()?;
    let mut tree = b.tree;
    tree.set_root(root);
    Some(tree)
}

/// The tree being built, and scratch stacks for the containers being read.
struct Builder<'s> {
    tree: Tree<'s>,
    items: Vec<u32>,
    entries: Vec<(Cow<'s, str>, u32)>,
}

/// Reads one value into the builder; its index in the tree. With
/// `columns` (the root only), an object's members outside them are skipped.
struct ValueSeed<'b, 's> {
    b: &'b mut Builder<'s>,
    columns: Option<&'b [&'b str]>,
}

impl<'de: 's, 's> DeserializeSeed<'de> for ValueSeed<'_, 's> {
    type Value = u32;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<u32, D::Error> {
        d.deserialize_any(ValueVisitor { b: self.b, columns: self.columns })
    }
}

struct ValueVisitor<'b, 's> {
    b: &'b mut Builder<'s>,
    columns: Option<&'b [&'b str]>,
}

impl<'de: 's, 's> Visitor<'de> for ValueVisitor<'_, 's> {
    type Value = u32;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E>(self) -> Result<u32, E> {
        Ok(self.b.tree.push(Slot::Null))
    }

    fn visit_bool<E>(self, v: bool) -> Result<u32, E> {
        Ok(self.b.tree.push(Slot::Bool(v)))
    }

    fn visit_i64<E>(self, v: i64) -> Result<u32, E> {
        Ok(self.b.tree.push(Slot::Number(Number::from(v))))
    }

    fn visit_u64<E>(self, v: u64) -> Result<u32, E> {
        Ok(self.b.tree.push(Slot::Number(Number::from(v))))
    }

    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<u32, E> {
        let n = Number::from_f64(v).ok_or_else(|| E::custom("number out of range"))?;
        Ok(self.b.tree.push(Slot::Number(n)))
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<u32, E> {
        Ok(self.b.tree.push(Slot::Str(Cow::Borrowed(v))))
    }

    fn visit_str<E>(self, v: &str) -> Result<u32, E> {
        Ok(self.b.tree.push(Slot::Str(Cow::Owned(v.to_owned()))))
    }

    fn visit_string<E>(self, v: String) -> Result<u32, E> {
        Ok(self.b.tree.push(Slot::Str(Cow::Owned(v))))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<u32, A::Error> {
        let b = self.b;
        let mark = b.items.len();
        while let Some(at) = seq.next_element_seed(ValueSeed { b: &mut *b, columns: None })? {
            b.items.push(at);
        }
        let at = b.tree.push_array(b.items[mark..].iter().copied());
        b.items.truncate(mark);
        Ok(at)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<u32, A::Error> {
        let b = self.b;
        let mark = b.entries.len();
        while let Some(key) = map.next_key_seed(KeySeed)? {
            if self.columns.is_some_and(|c| !c.contains(&key.as_ref())) {
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            let at = map.next_value_seed(ValueSeed { b: &mut *b, columns: None })?;
            b.entries.push((key, at));
        }
        let at = b.tree.push_object(&mut b.entries[mark..]);
        b.entries.truncate(mark);
        Ok(at)
    }
}

/// Reads an object key, borrowed from the text when it has no escapes.
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_str(KeySeed)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(v))
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
