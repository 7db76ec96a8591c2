//! Keys an object repeats: where a document's objects had two or more
//! members with the same key.
//!
//! JSON allows it, and every reader here keeps the last member, as
//! `serde_json` and Python's `json` do (`{"a": 1, "a": 2}` is `{"a": 2}`).
//! The earlier members are gone from the document, so an input that
//! repeats keys says so in its decode record ([`crate::decode`]):
//!
//! ```json
//! {"method": "whole", "duplicate_keys": {"count": 1, "paths": [{"path": "$.total", "occurrences": 2}]}}
//! ```
//!
//! `count` is the number of repeated keys (a key counts once per object
//! that repeats it, however often); `paths` lists the first [`LISTED`] of
//! them, depth first with an object's keys in sorted order (the order the
//! comparison walks the document), each with how many members had it.
//! Only the document as kept counts: keys repeated inside a member that a
//! later member replaced are gone with it.
//!
//! Finding them costs nothing on the way: the fast reader's tree notes
//! each object's repeated keys as it builds it ([`crate::tree`]), and the
//! value parse counts replaced members ([`crate::json::parse_counted`]).
//! Only a document that repeated a key is walked (or, read as a value,
//! read again into a tree) to say where.

use serde_json::{Value, json};

use crate::path::{JsonPath, PathSeg, Seg};
use crate::tree::Node;

/// How many repeated keys a record lists at most (all are counted).
pub const LISTED: usize = 5;

/// The keys a document repeated; see the module documentation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DuplicateKeys {
    /// How many keys were repeated: a key counts once per object that
    /// repeats it.
    pub count: usize,
    /// The first [`LISTED`] of them, depth first, keys in sorted order.
    pub listed: Vec<RepeatedKey>,
}

/// One key an object repeated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepeatedKey {
    /// The path of the member: the object's path, then the key.
    pub path: JsonPath,
    /// How many members of the object had the key (2 or more); the last
    /// one was kept.
    pub occurrences: u32,
}

impl DuplicateKeys {
    /// The keys repeated in the document under `node` (the node included),
    /// paths written from it as `$`; `None` when there are none. Free when
    /// no object of the node's tree repeated a key; else one walk of the
    /// node's containers, iterative (any depth).
    pub fn of(node: Node<'_>) -> Option<DuplicateKeys> {
        if !node.tree_repeats_keys() {
            return None;
        }
        let mut found = DuplicateKeys { count: 0, listed: Vec::new() };
        let mut path: Vec<Seg<'_>> = Vec::new();
        // A container, the path length of its parent, and its own step.
        let mut stack = vec![(node, 0, None)];
        while let Some((n, parent, step)) = stack.pop() {
            path.truncate(parent);
            path.extend(step);
            let here = path.len();
            if n.is_object() {
                for r in n.repeated_keys() {
                    found.count += 1;
                    if found.listed.len() < LISTED {
                        let mut p = JsonPath::from_segs(&path);
                        p.0.push(PathSeg::Key(r.key.as_ref().into()));
                        found.listed.push(RepeatedKey { path: p, occurrences: r.occurrences });
                    }
                }
                let kids = n.entries().rev().filter(|(_, c)| c.is_container());
                stack.extend(kids.map(|(k, c)| (c, here, Some(Seg::Key(k)))));
            } else {
                let kids = n.items().enumerate().rev().filter(|(_, c)| c.is_container());
                stack.extend(kids.map(|(i, c)| (c, here, Some(Seg::Index(i)))));
            }
        }
        (found.count > 0).then_some(found)
    }

    /// The keys repeated in a JSON text (of any depth); `None` when there
    /// are none or the text is not JSON. Reads the text into a tree: ask
    /// only when [`crate::json::parse_counted`] counted replaced members.
    pub fn in_text(text: &str) -> Option<DuplicateKeys> {
        let tree = crate::fast_json::read_deep(text)?;
        DuplicateKeys::of(tree.root())
    }

    /// The record: `{"count": n, "paths": [{"path": "$.a", "occurrences": 2}]}`.
    pub fn to_json(&self) -> Value {
        let paths: Vec<Value> = self
            .listed
            .iter()
            .map(|r| json!({"path": r.path.to_string(), "occurrences": r.occurrences}))
            .collect();
        json!({"count": self.count, "paths": paths})
    }
}

/// Parses JSON text as [`crate::json::parse`] does, with the keys it
/// repeated (read again into a tree only when it repeated one).
///
/// # Errors
/// As [`crate::json::parse`].
pub fn parse(text: &str) -> Result<(Value, Option<DuplicateKeys>), String> {
    let (value, replaced) = crate::json::parse_counted(text)?;
    let keys = if replaced > 0 { DuplicateKeys::in_text(text) } else { None };
    Ok((value, keys))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(d: &DuplicateKeys) -> Vec<(String, u32)> {
        d.listed.iter().map(|r| (r.path.to_string(), r.occurrences)).collect()
    }

    #[test]
    fn none_without_repeats() {
        assert_eq!(DuplicateKeys::in_text(r#"{"a":{"a":1},"b":[{"a":2}]}"#), None);
        let v = json!({"a": 1});
        assert_eq!(DuplicateKeys::of(crate::tree::Tree::from_value(&v).root()), None);
        assert_eq!(DuplicateKeys::in_text("{not json"), None);
        assert_eq!(parse("[1]").unwrap(), (json!([1]), None));
    }

    #[test]
    fn paths_counts_and_order() {
        let text = r#"{"z":{"q":1,"q":2,"q":3},"items":[1,{"sku":"a","sku":"b"}],"total":1,"total":2,"it's":{"x":0,"x":1,"b":2,"b":3}}"#;
        let d = DuplicateKeys::in_text(text).unwrap();
        assert_eq!(d.count, 5);
        assert_eq!(
            listed(&d),
            [
                ("$.total".to_owned(), 2),
                ("$['it\\'s'].b".to_owned(), 2),
                ("$['it\\'s'].x".to_owned(), 2),
                ("$.items[1].sku".to_owned(), 2),
                ("$.z.q".to_owned(), 3),
            ]
        );
        assert_eq!(
            d.to_json(),
            json!({"count": 5, "paths": [
                {"path": "$.total", "occurrences": 2},
                {"path": "$['it\\'s'].b", "occurrences": 2},
                {"path": "$['it\\'s'].x", "occurrences": 2},
                {"path": "$.items[1].sku", "occurrences": 2},
                {"path": "$.z.q", "occurrences": 3},
            ]})
        );
        // Paths are written from the node asked about.
        let tree = crate::fast_json::read(text).unwrap();
        let items = DuplicateKeys::of(tree.root().get("items").unwrap()).unwrap();
        assert_eq!(listed(&items), [("$[1].sku".to_owned(), 2)]);
        assert_eq!(DuplicateKeys::of(tree.root().get("total").unwrap()), None);
    }

    #[test]
    fn at_most_listed_all_counted() {
        let members: Vec<String> = (0..20).map(|i| format!(r#""k{i:02}":1,"k{i:02}":2"#)).collect();
        let d = DuplicateKeys::in_text(&format!("{{{}}}", members.join(","))).unwrap();
        assert_eq!((d.count, d.listed.len()), (20, LISTED));
        assert_eq!(d.listed[0].path.to_string(), "$.k00");
    }

    #[test]
    fn replaced_members_take_their_repeats_along() {
        let text = r#"{"a":{"k":1,"k":2},"a":{"k":3}}"#;
        let d = DuplicateKeys::in_text(text).unwrap();
        assert_eq!(listed(&d), [("$.a".to_owned(), 2)]);
        let (v, keys) = parse(text).unwrap();
        assert_eq!((v, keys), (json!({"a": {"k": 3}}), Some(d)));
    }

    #[test]
    fn any_depth() {
        let depth = 20_000;
        let text = format!("{}{{\"k\":1,\"k\":2}}{}", "[".repeat(depth), "]".repeat(depth));
        let (v, keys) = parse(&text).unwrap();
        crate::json::drop_deep(v);
        let d = keys.unwrap();
        assert_eq!(d.count, 1);
        assert_eq!(d.listed[0].path.0.len(), depth + 1);
    }
}
