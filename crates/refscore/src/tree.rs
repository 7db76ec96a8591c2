//! [`Tree`]: a parsed JSON document in one arena, the form the comparison
//! engine walks.
//!
//! A tree borrows its strings from whatever it was built from (a
//! [`serde_json::Value`], or a document parsed by the fast reader in
//! [`crate::fast_json`]): building one allocates three vectors, not a
//! node and a string per value. Object members are kept sorted by key
//! with one member per key (the last one written wins, as in
//! `serde_json`), so walking a tree visits keys in the order walking a
//! `Value` does, and every result is the same whichever way the document
//! was read. The keys an object repeated are noted as it is built, so that
//! [`crate::duplicate_keys`] can say where they were. Building and freeing
//! are iterative: any depth is safe.

use std::borrow::Cow;

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::{Number, Value};

/// Members up to which [`Node::get`] looks for a key one by one rather
/// than by binary search.
const LINEAR_GET: usize = 8;

/// One value of a [`Tree`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Slot<'s> {
    Null,
    Bool(bool),
    Number(Number),
    Str(Cow<'s, str>),
    /// `len` node indices at `kids[start..]`.
    Array {
        start: u32,
        len: u32,
    },
    /// `len` members at `members[start..]`, sorted by key.
    Object {
        start: u32,
        len: u32,
    },
}

/// A JSON document in one arena; see the module documentation.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Tree<'s> {
    slots: Vec<Slot<'s>>,
    kids: Vec<u32>,
    members: Vec<(Cow<'s, str>, u32)>,
    root: u32,
    /// The keys objects repeated, by object in the order they were built
    /// (so by increasing index), an object's keys in sorted order.
    repeats: Vec<Repeat<'s>>,
}

/// A key one object of a tree repeated.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Repeat<'s> {
    /// The object's index.
    object: u32,
    /// The key.
    pub(crate) key: Cow<'s, str>,
    /// How many members had it (2 or more); the last one was kept.
    pub(crate) occurrences: u32,
}

/// Where a tree's arena stood ([`Tree::mark`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Mark {
    slots: usize,
    kids: usize,
    members: usize,
    repeats: usize,
}

/// Largest number of values a tree holds (`u32` indices).
pub const MAX_NODES: usize = u32::MAX as usize;

impl<'s> Tree<'s> {
    /// The tree of a `serde_json` value (strings borrowed, not copied).
    /// Iterative: any depth is safe.
    pub fn from_value(v: &'s Value) -> Tree<'s> {
        let mut t = Tree { slots: vec![Slot::Null], ..Tree::default() };
        let mut work: Vec<(&'s Value, u32)> = vec![(v, 0)];
        while let Some((v, at)) = work.pop() {
            let slot = match v {
                Value::Null => Slot::Null,
                Value::Bool(b) => Slot::Bool(*b),
                Value::Number(n) => Slot::Number(n.clone()),
                Value::String(s) => Slot::Str(Cow::Borrowed(s)),
                Value::Array(items) => {
                    let start = index(t.kids.len());
                    for c in items {
                        let s = t.push(Slot::Null);
                        t.kids.push(s);
                        work.push((c, s));
                    }
                    Slot::Array { start, len: index(items.len()) }
                }
                Value::Object(map) => {
                    // A map's keys are sorted and unique already.
                    let start = index(t.members.len());
                    for (k, c) in map {
                        let s = t.push(Slot::Null);
                        t.members.push((Cow::Borrowed(k), s));
                        work.push((c, s));
                    }
                    Slot::Object { start, len: index(map.len()) }
                }
            };
            t.slots[at as usize] = slot;
        }
        t
    }

    /// An empty tree to build bottom-up, with room for about `nodes`
    /// values.
    pub(crate) fn with_capacity(nodes: usize) -> Tree<'s> {
        Tree {
            slots: Vec::with_capacity(nodes),
            kids: Vec::with_capacity(nodes / 2),
            members: Vec::with_capacity(nodes / 2),
            root: 0,
            repeats: Vec::new(),
        }
    }

    /// Adds a value; its index.
    pub(crate) fn push(&mut self, slot: Slot<'s>) -> u32 {
        self.slots.push(slot);
        index(self.slots.len() - 1)
    }

    /// Adds an array of the values at `items`; its index.
    pub(crate) fn push_array(&mut self, items: impl ExactSizeIterator<Item = u32>) -> u32 {
        let (start, len) = (index(self.kids.len()), index(items.len()));
        self.kids.extend(items);
        self.push(Slot::Array { start, len })
    }

    /// Adds an object of the members `entries[mark..]` (in document
    /// order, duplicates included: of equal keys the last written wins),
    /// taking them out of `entries`; its index.
    pub(crate) fn push_object(
        &mut self,
        entries: &mut Vec<(Cow<'s, str>, u32)>,
        mark: usize,
    ) -> u32 {
        let start = index(self.members.len());
        let object = index(self.slots.len());
        let new = &mut entries[mark..];
        if new.windows(2).all(|w| key_order(&w[0].0, &w[1].0).is_lt()) {
            // Sorted with no key repeated, as most objects are written.
            self.members.extend(entries.drain(mark..));
        } else {
            // Stable: of equal keys, the last written stays last.
            new.sort_by(|a, b| key_order(&a.0, &b.0));
            let mut run = 1;
            for i in 0..new.len() {
                if new.get(i + 1).is_some_and(|next| next.0 == new[i].0) {
                    run += 1;
                    continue;
                }
                let (k, v) = std::mem::take(&mut new[i]);
                if run > 1 {
                    self.repeats.push(Repeat { object, key: k.clone(), occurrences: run });
                    run = 1;
                }
                self.members.push((k, v));
            }
            entries.truncate(mark);
        }
        let len = index(self.members.len()) - start;
        self.push(Slot::Object { start, len })
    }

    /// Where the arena stands, to [`Tree::reset`] it there later.
    pub(crate) fn mark(&self) -> Mark {
        Mark {
            slots: self.slots.len(),
            kids: self.kids.len(),
            members: self.members.len(),
            repeats: self.repeats.len(),
        }
    }

    /// How many repeated keys have been noted so far (to tell whether
    /// reading a value noted any).
    pub(crate) fn repeats_noted(&self) -> usize {
        self.repeats.len()
    }

    /// Drops every value added since `mark`.
    pub(crate) fn reset(&mut self, mark: Mark) {
        self.slots.truncate(mark.slots);
        self.kids.truncate(mark.kids);
        self.members.truncate(mark.members);
        self.repeats.truncate(mark.repeats);
    }

    /// Whether the value at `at` is an object (`Some(true)`) or an array
    /// (`Some(false)`); `None` for scalars and indices out of the tree.
    pub(crate) fn container_at(&self, at: u32) -> Option<bool> {
        match self.slots.get(at as usize)? {
            Slot::Object { .. } => Some(true),
            Slot::Array { .. } => Some(false),
            _ => None,
        }
    }

    /// The node at `at`, if the tree has one there.
    fn node_at(&self, at: u32) -> Option<Node<'_>> {
        ((at as usize) < self.slots.len()).then_some(Node { tree: self, at })
    }

    /// The value of member `key` of the object at `object`, when it is
    /// member `*cursor` or the one after (two objects written in the same
    /// order meet their keys in turn, but for members not looked up), or
    /// anywhere when `search`; `*cursor` moves past the member found.
    pub(crate) fn member_value(
        &self,
        object: u32,
        key: &str,
        cursor: &mut u32,
        search: bool,
    ) -> Option<u32> {
        let members = self.node_at(object)?.member_slice();
        let next = *cursor as usize;
        let at = match (members.get(next), members.get(next + 1)) {
            (Some((k, _)), _) if k == key => next,
            (_, Some((k, _))) if k == key => next + 1,
            _ if search => find_member(members, key)?,
            _ => return None,
        };
        *cursor = index(at + 1);
        members.get(at).map(|m| m.1)
    }

    /// Element `i` of the array at `array`.
    pub(crate) fn item_value(&self, array: u32, i: usize) -> Option<u32> {
        self.node_at(array)?.at(i).map(|n| n.at)
    }

    /// Makes the value at `at` the root.
    pub(crate) fn set_root(&mut self, at: u32) {
        self.root = at;
    }

    /// The tree of `null`.
    pub fn null() -> Tree<'s> {
        Tree { slots: vec![Slot::Null], ..Tree::default() }
    }

    /// The document's root.
    pub fn root(&self) -> Node<'_> {
        Node { tree: self, at: self.root }
    }

    /// How many object members were dropped because a later member of the
    /// same object had the same key (in every object read, those of dropped
    /// members included).
    pub fn duplicate_keys(&self) -> u32 {
        self.repeats.iter().fold(0u32, |n, r| n.saturating_add(r.occurrences - 1))
    }

    /// Number of values in the tree.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether the tree is empty (never: a tree holds at least its root).
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }
}

/// The order of keys (by their bytes, as `str` orders), deciding on the
/// first byte where it can without a call to compare the rest.
fn key_order(a: &str, b: &str) -> std::cmp::Ordering {
    match (a.as_bytes().first(), b.as_bytes().first()) {
        (Some(x), Some(y)) if x != y => x.cmp(y),
        _ => a.cmp(b),
    }
}

/// Where member `key` is among an object's `members` (sorted, keys
/// unique): a few members (most objects) are compared for equality, which
/// looks at the bytes only where the lengths agree; more, by order.
fn find_member(members: &[(Cow<'_, str>, u32)], key: &str) -> Option<usize> {
    if members.len() <= LINEAR_GET {
        members.iter().position(|(k, _)| k.as_ref() == key)
    } else {
        members.binary_search_by(|(k, _)| key_order(k, key)).ok()
    }
}

/// Index into a tree's vectors; a tree never holds more than
/// [`MAX_NODES`] values (inputs are far smaller: the parse limits cap
/// them first).
#[allow(clippy::cast_possible_truncation)]
fn index(n: usize) -> u32 {
    n.min(MAX_NODES) as u32
}

/// One value of a [`Tree`]: a copyable handle with a `Value`-like API.
#[derive(Clone, Copy)]
pub struct Node<'t> {
    tree: &'t Tree<'t>,
    at: u32,
}

/// A node's identity within one comparison (its tree and position).
pub type NodeId = (usize, u32);

/// The JSON kind of a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool,
    /// A number.
    Number,
    /// A string.
    String,
    /// An array.
    Array,
    /// An object.
    Object,
}

/// A node seen as a borrowed value, for matching on its kind and scalar
/// at once (as one matches on a `serde_json::Value`).
#[derive(Debug, Clone, Copy)]
pub enum ValueRef<'t> {
    /// `null`.
    Null,
    /// A boolean.
    Bool(bool),
    /// A number.
    Number(&'t Number),
    /// A string.
    String(&'t str),
    /// An array.
    Array(Node<'t>),
    /// An object.
    Object(Node<'t>),
}

impl Kind {
    /// The JSON type name: `null`, `boolean`, `number`, `string`, `array`
    /// or `object` (as [`crate::json::type_name`] says it of values).
    pub fn name(self) -> &'static str {
        match self {
            Kind::Null => "null",
            Kind::Bool => "boolean",
            Kind::Number => "number",
            Kind::String => "string",
            Kind::Array => "array",
            Kind::Object => "object",
        }
    }
}

impl std::fmt::Debug for Node<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.compact())
    }
}

impl<'t> Node<'t> {
    fn slot(self) -> &'t Slot<'t> {
        &self.tree.slots[self.at as usize]
    }

    fn node(self, at: u32) -> Node<'t> {
        Node { tree: self.tree, at }
    }

    /// The node's kind.
    pub fn kind(self) -> Kind {
        match self.slot() {
            Slot::Null => Kind::Null,
            Slot::Bool(_) => Kind::Bool,
            Slot::Number(_) => Kind::Number,
            Slot::Str(_) => Kind::String,
            Slot::Array { .. } => Kind::Array,
            Slot::Object { .. } => Kind::Object,
        }
    }

    /// The node as a borrowed value.
    pub fn value(self) -> ValueRef<'t> {
        match self.slot() {
            Slot::Null => ValueRef::Null,
            Slot::Bool(b) => ValueRef::Bool(*b),
            Slot::Number(n) => ValueRef::Number(n),
            Slot::Str(s) => ValueRef::String(s.as_ref()),
            Slot::Array { .. } => ValueRef::Array(self),
            Slot::Object { .. } => ValueRef::Object(self),
        }
    }

    /// Whether any object of the node's tree repeated a key.
    pub(crate) fn tree_repeats_keys(self) -> bool {
        !self.tree.repeats.is_empty()
    }

    /// The keys this object repeated, in sorted order (none for other
    /// kinds, and for objects of a tree built from a value).
    pub(crate) fn repeated_keys(self) -> &'t [Repeat<'t>] {
        let r = &self.tree.repeats;
        let first = r.partition_point(|x| x.object < self.at);
        let end = first + r[first..].partition_point(|x| x.object == self.at);
        &r[first..end]
    }

    /// The node's identity, for memos over one comparison.
    pub fn id(self) -> NodeId {
        (std::ptr::from_ref(self.tree) as usize, self.at)
    }

    /// Whether it is `null`.
    pub fn is_null(self) -> bool {
        matches!(self.slot(), Slot::Null)
    }

    /// Whether it is an array or an object.
    pub fn is_container(self) -> bool {
        matches!(self.slot(), Slot::Array { .. } | Slot::Object { .. })
    }

    /// Whether it is an array.
    pub fn is_array(self) -> bool {
        matches!(self.slot(), Slot::Array { .. })
    }

    /// Whether it is an object.
    pub fn is_object(self) -> bool {
        matches!(self.slot(), Slot::Object { .. })
    }

    /// The boolean, if it is one.
    pub fn as_bool(self) -> Option<bool> {
        match self.slot() {
            Slot::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The number, if it is one.
    pub fn as_number(self) -> Option<&'t Number> {
        match self.slot() {
            Slot::Number(n) => Some(n),
            _ => None,
        }
    }

    /// The number as `f64`, if it is one.
    pub fn as_f64(self) -> Option<f64> {
        self.as_number().and_then(Number::as_f64)
    }

    /// The string, if it is one.
    pub fn as_str(self) -> Option<&'t str> {
        match self.slot() {
            Slot::Str(s) => Some(s.as_ref()),
            _ => None,
        }
    }

    /// Elements of an array or members of an object; 0 for scalars.
    pub fn len(self) -> usize {
        match self.slot() {
            Slot::Array { len, .. } | Slot::Object { len, .. } => *len as usize,
            _ => 0,
        }
    }

    /// Whether it has no elements or members (scalars included).
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// The elements of an array (none for other kinds).
    pub fn items(self) -> impl DoubleEndedIterator<Item = Node<'t>> + ExactSizeIterator + 't {
        let ids: &'t [u32] = match self.slot() {
            Slot::Array { start, len } => {
                &self.tree.kids[*start as usize..(*start + *len) as usize]
            }
            _ => &[],
        };
        let tree = self.tree;
        ids.iter().map(move |&at| Node { tree, at })
    }

    /// Element `i` of an array.
    pub fn at(self, i: usize) -> Option<Node<'t>> {
        match self.slot() {
            Slot::Array { start, len } if i < *len as usize => {
                Some(self.node(self.tree.kids[*start as usize + i]))
            }
            _ => None,
        }
    }

    fn member_slice(self) -> &'t [(Cow<'t, str>, u32)] {
        match self.slot() {
            Slot::Object { start, len } => {
                &self.tree.members[*start as usize..(*start + *len) as usize]
            }
            _ => &[],
        }
    }

    /// The members of an object, sorted by key (none for other kinds).
    pub fn entries(self) -> impl DoubleEndedIterator<Item = (&'t str, Node<'t>)> + 't {
        let tree = self.tree;
        self.member_slice().iter().map(move |(k, at)| (k.as_ref(), Node { tree, at: *at }))
    }

    /// The member `key` of an object.
    pub fn get(self, key: &str) -> Option<Node<'t>> {
        let m = self.member_slice();
        find_member(m, key).and_then(|i| m.get(i)).map(|(_, v)| self.node(*v))
    }

    /// Whether an object has the member `key`.
    pub fn contains_key(self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Whether the node nests deeper than `limit` levels (a scalar is 0
    /// levels deep, `[1]` one). Free for a scalar and for trees of at most
    /// `limit` values; else iterative, stopping at the first node past the
    /// limit.
    pub fn depth_exceeds(self, limit: usize) -> bool {
        if self.tree.len() <= limit || !self.is_container() {
            return false;
        }
        let mut stack = vec![(self, 0usize)];
        while let Some((n, d)) = stack.pop() {
            if n.is_container() && !n.is_empty() {
                if d >= limit {
                    return true;
                }
                stack.extend(n.items().map(|c| (c, d + 1)));
                stack.extend(n.entries().map(|(_, c)| (c, d + 1)));
            }
        }
        false
    }

    /// Levels of containers in the node, an empty one counted (a scalar
    /// is 0, `[]` and `[1]` are 1), as the readers' depth limits count
    /// them. Iterative.
    pub fn depth(self) -> usize {
        let mut deepest = 0;
        let mut stack = vec![(self, 1usize)];
        while let Some((n, d)) = stack.pop() {
            if n.is_container() {
                deepest = deepest.max(d);
                stack.extend(n.items().map(|c| (c, d + 1)));
                stack.extend(n.entries().map(|(_, c)| (c, d + 1)));
            }
        }
        deepest
    }

    /// Compact JSON text of the node; a node nesting deeper than 64 levels
    /// is summarised (`<array nested deeper than 64 levels>`), as
    /// [`crate::json::compact`] does for values.
    pub fn compact(self) -> String {
        if self.depth_exceeds(64) {
            return format!("<{} nested deeper than 64 levels>", self.kind().name());
        }
        serde_json::to_string(&self).unwrap_or_default()
    }

    /// The string itself for strings, else [`Node::compact`].
    pub fn display(self) -> String {
        match self.as_str() {
            Some(s) => s.to_owned(),
            None => self.compact(),
        }
    }

    /// Number of leaves: scalars count 1, containers the sum of their
    /// children (so `{}` and `[]` count 0). Iterative.
    pub fn leaves(self) -> usize {
        let mut n = 0;
        let mut stack = vec![self];
        while let Some(v) = stack.pop() {
            if v.is_container() {
                stack.extend(v.items());
                stack.extend(v.entries().map(|(_, c)| c));
            } else {
                n += 1;
            }
        }
        n
    }

    /// The node as an owned `serde_json` value (a copy).
    pub fn to_value(self) -> Value {
        stacker::maybe_grow(64 * 1024, 2 * 1024 * 1024, || match self.slot() {
            Slot::Null => Value::Null,
            Slot::Bool(b) => Value::Bool(*b),
            Slot::Number(n) => Value::Number(n.clone()),
            Slot::Str(s) => Value::String(s.to_string()),
            Slot::Array { .. } => Value::Array(self.items().map(Node::to_value).collect()),
            Slot::Object { .. } => {
                Value::Object(self.entries().map(|(k, v)| (k.to_owned(), v.to_value())).collect())
            }
        })
    }
}

impl Serialize for Node<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.slot() {
            Slot::Null => s.serialize_unit(),
            Slot::Bool(b) => s.serialize_bool(*b),
            Slot::Number(n) => n.serialize(s),
            Slot::Str(v) => s.serialize_str(v),
            Slot::Array { len, .. } => {
                let mut seq = s.serialize_seq(Some(*len as usize))?;
                for v in self.items() {
                    seq.serialize_element(&v)?;
                }
                seq.end()
            }
            Slot::Object { len, .. } => {
                let mut map = s.serialize_map(Some(*len as usize))?;
                for (k, v) in self.entries() {
                    map.serialize_entry(k, &v)?;
                }
                map.end()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Objects of every size around the point where `get` stops looking
    /// one by one: every key found with its own value, keys between,
    /// before and after the members not found.
    #[test]
    fn members_are_found_by_key_in_small_and_large_objects() {
        for n in 0..3 * LINEAR_GET {
            let v: serde_json::Map<String, Value> =
                (0..n).map(|i| (format!("k{:02}", 2 * i + 1), json!(i))).collect();
            let v = Value::Object(v);
            let t = Tree::from_value(&v);
            for i in 0..n {
                let got =
                    t.root().get(&format!("k{:02}", 2 * i + 1)).and_then(|x| x.to_value().as_u64());
                assert_eq!(got, Some(i as u64), "{n} members, key {i}");
                assert!(t.root().get(&format!("k{:02}", 2 * i)).is_none(), "{n} members");
            }
            assert!(t.root().get(&format!("k{:02}", 2 * n + 1)).is_none());
            assert!(t.root().get("k").is_none() && t.root().get("").is_none());
        }
    }

    #[test]
    fn mirrors_the_value() {
        let v = json!({"b": [1, 2.5, "x", null, true], "a": {"z": {}, "y": []}, "c": -3});
        let t = Tree::from_value(&v);
        let r = t.root();
        assert_eq!(r.kind(), Kind::Object);
        assert_eq!(r.len(), 3);
        assert_eq!(r.entries().map(|(k, _)| k).collect::<Vec<_>>(), ["a", "b", "c"]);
        assert_eq!(r.get("c").unwrap().as_number().unwrap(), &Number::from(-3));
        let b = r.get("b").unwrap();
        assert_eq!(b.len(), 5);
        assert_eq!(b.at(2).unwrap().as_str(), Some("x"));
        assert!(b.at(3).unwrap().is_null());
        assert_eq!(b.at(4).unwrap().as_bool(), Some(true));
        assert!(b.at(5).is_none());
        assert!(r.get("nope").is_none());
        assert_eq!(r.to_value(), v);
        assert_eq!(serde_json::to_string(&r).unwrap(), serde_json::to_string(&v).unwrap());
        assert_eq!(t.duplicate_keys(), 0);
    }

    #[test]
    fn an_object_takes_only_the_members_past_its_mark() {
        let mut t = Tree::with_capacity(8);
        let v = t.push(Slot::Null);
        // In order, then out of order: the same object either way.
        for keys in [["a", "b", "c"], ["c", "a", "b"]] {
            let mut entries = vec![(Cow::Borrowed("outer"), v)];
            entries.extend(keys.iter().map(|k| (Cow::Borrowed(*k), v)));
            let at = t.push_object(&mut entries, 1);
            assert_eq!(entries, [(Cow::Borrowed("outer"), v)]);
            let node = Node { tree: &t, at };
            assert_eq!(node.entries().map(|(k, _)| k).collect::<Vec<_>>(), ["a", "b", "c"]);
            assert!(node.repeated_keys().is_empty());
        }
    }

    #[test]
    fn keys_are_ordered_as_strings_are() {
        let keys = ["", "a", "ab", "b", "B", "é", "e\u{301}", "\u{1f600}", "a\u{0}", "zz", "z"];
        for a in keys {
            for b in keys {
                assert_eq!(key_order(a, b), a.cmp(b), "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn objects_note_the_keys_they_repeated_and_keep_the_last_member() {
        let mut t = Tree::with_capacity(8);
        let (one, two, three) =
            (t.push(Slot::Bool(false)), t.push(Slot::Null), t.push(Slot::Bool(true)));
        let mut inner = vec![(Cow::Borrowed("k"), one), (Cow::Borrowed("k"), three)];
        let inner = t.push_object(&mut inner, 0);
        let mut outer = vec![
            (Cow::Borrowed("b"), one),
            (Cow::Borrowed("a"), inner),
            (Cow::Borrowed("b"), two),
            (Cow::Borrowed("c"), one),
            (Cow::Borrowed("b"), three),
        ];
        let root = t.push_object(&mut outer, 0);
        assert!(outer.is_empty());
        t.set_root(root);
        let r = t.root();
        assert_eq!(r.to_value(), json!({"a": {"k": true}, "b": true, "c": false}));
        let keys = |n: Node<'_>| {
            n.repeated_keys().iter().map(|x| (x.key.to_string(), x.occurrences)).collect::<Vec<_>>()
        };
        assert_eq!(keys(r), [(String::from("b"), 3)]);
        assert_eq!(keys(r.get("a").unwrap()), [(String::from("k"), 2)]);
        assert!(keys(r.get("c").unwrap()).is_empty());
        assert_eq!(t.duplicate_keys(), 3);
        assert!(r.tree_repeats_keys());
        let v = json!({"a": {"a": 1}});
        assert!(!Tree::from_value(&v).root().tree_repeats_keys());
    }

    /// Frees a deep value on a thread with room for serde_json's
    /// recursive drop (test plumbing).
    fn drop_on_big_stack(v: Value) {
        std::thread::Builder::new()
            .stack_size(512 * 1024 * 1024)
            .spawn(move || drop(v))
            .expect("spawns")
            .join()
            .expect("drops");
    }

    #[test]
    fn any_depth_builds_and_drops() {
        let deep = (0..200_000).fold(json!(1), |v, _| Value::Array(vec![v]));
        let t = Tree::from_value(&deep);
        let mut n = t.root();
        let mut depth = 0;
        while let Some(c) = n.at(0) {
            n = c;
            depth += 1;
        }
        assert_eq!(depth, 200_000);
        drop(t);
        drop_on_big_stack(deep);
    }
}
