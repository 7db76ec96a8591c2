//! The field paths a field table has taken in, as a tree of segments: a
//! row's tallies ([`FieldTallies`]) find their fields in it segment by
//! segment, so a path is printed once per table, when the table first
//! meets it, not once per row. A run gathers a table per worker's share
//! of each batch and merges them by printed path: a path is printed about
//! once per share of a batch.
//!
//! The tree is a cache beside the table, which is keyed by printed path:
//! whatever the tree holds or forgets, the table comes out the same.

use std::hash::{Hash, Hasher};

use crate::engine::{FieldTallies, KeyRange, SegKeys};
use crate::fx::{Fx, FxHashMap};
use crate::path::{field_path_of, field_seg_len};

/// What a path of the tree stands for in the table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Slot {
    /// Not looked up yet.
    Unknown,
    /// The table's field with this index.
    Field(u32),
    /// Not in the table, which was full when the path was looked up: it
    /// stays out (the table only grows, and its caps do not move).
    Dropped,
}

#[derive(Debug, Clone, Copy)]
struct TrieNode {
    parent: u32,
    /// The last segment's key in [`FieldTrie::keys`]; `None` for `[*]`
    /// and the root.
    key: Option<KeyRange>,
    /// The next child of the same parent whose segment hashes alike (0:
    /// none).
    alias: u32,
    /// First and last child, in the order added, and the next child of
    /// the same parent (0: none).
    first: u32,
    last: u32,
    next: u32,
    /// The child found last: rows of a dataset are alike, so the child
    /// after it is tried first.
    cursor: u32,
    /// The length of the printed path.
    len: usize,
    slot: Slot,
}

/// The tree of paths; the root `$` is node 0. It holds at most
/// `max_nodes` paths and `max_key_bytes` bytes of keys: past them, rows
/// with new paths are left to the table's printed paths.
#[derive(Debug, Clone)]
pub(super) struct FieldTrie {
    max_nodes: usize,
    max_key_bytes: usize,
    nodes: Vec<TrieNode>,
    keys: SegKeys,
    /// The first child of a node (by index) whose segment has a hash.
    children: FxHashMap<(u32, u64), u32>,
    /// Per path of the tallies last mapped, its node here.
    mapped: Vec<u32>,
}

impl FieldTrie {
    /// An empty tree with room for `max_nodes` paths and `max_key_bytes`
    /// bytes of keys.
    pub(super) fn with_room(max_nodes: usize, max_key_bytes: usize) -> Self {
        let root = TrieNode::new(0, None, 0, 1);
        FieldTrie {
            max_nodes,
            max_key_bytes,
            nodes: vec![root],
            keys: SegKeys::default(),
            children: FxHashMap::default(),
            mapped: Vec::new(),
        }
    }
}

impl TrieNode {
    fn new(parent: u32, key: Option<KeyRange>, alias: u32, len: usize) -> Self {
        TrieNode {
            parent,
            key,
            alias,
            first: 0,
            last: 0,
            next: 0,
            cursor: 0,
            len,
            slot: Slot::Unknown,
        }
    }
}

fn seg_hash(seg: Option<&str>) -> u64 {
    let mut h = Fx::default();
    seg.hash(&mut h);
    h.finish()
}

impl FieldTrie {
    /// Finds (or adds) every path of `t` in the tree; `false` when the
    /// tree is full and some path is new.
    pub(super) fn map(&mut self, t: &FieldTallies) -> bool {
        self.mapped.clear();
        self.mapped.push(0);
        for n in 1..t.paths() {
            let Some(&parent) = self.mapped.get(t.parent(n)) else { return false };
            match self.child(parent, t.seg(n)) {
                Some(c) => self.mapped.push(c),
                None => {
                    self.mapped.clear();
                    return false;
                }
            }
        }
        true
    }

    /// The node of path `n` of the tallies last mapped.
    pub(super) fn node(&self, n: usize) -> usize {
        self.mapped.get(n).map_or(0, |&c| c as usize)
    }

    /// The length of node `n`'s printed path.
    pub(super) fn len(&self, n: usize) -> usize {
        self.nodes.get(n).map_or(0, |x| x.len)
    }

    pub(super) fn slot(&self, n: usize) -> Slot {
        self.nodes.get(n).map_or(Slot::Unknown, |x| x.slot)
    }

    pub(super) fn set_slot(&mut self, n: usize, slot: Slot) {
        if let Some(x) = self.nodes.get_mut(n) {
            x.slot = slot;
        }
    }

    fn seg(&self, n: usize) -> Option<&str> {
        self.keys.get(self.nodes.get(n)?.key)
    }

    /// Node `n`'s path, printed.
    pub(super) fn printed(&self, n: usize) -> String {
        let parent = |c: usize| self.nodes.get(c).map_or(0, |x| x.parent as usize);
        field_path_of(n, self.len(n), parent, |c| self.seg(c))
    }

    /// The child of `parent` with last segment `seg`, added if new and
    /// there is room.
    fn child(&mut self, parent: u32, seg: Option<&str>) -> Option<u32> {
        let p = *self.nodes.get(parent as usize)?;
        let after = self.nodes.get(p.cursor as usize).map_or(0, |c| c.next);
        let guess = if p.cursor != 0 && after != 0 { after } else { p.first };
        let found = if guess != 0 && self.seg(guess as usize) == seg {
            Some(guess)
        } else {
            self.find_or_add(parent, seg)
        };
        if let (Some(c), Some(p)) = (found, self.nodes.get_mut(parent as usize)) {
            p.cursor = c;
        }
        found
    }

    /// [`FieldTrie::child`] by the hash of `seg`.
    fn find_or_add(&mut self, parent: u32, seg: Option<&str>) -> Option<u32> {
        let hash = seg_hash(seg);
        let first = self.children.get(&(parent, hash)).copied();
        let mut c = first.unwrap_or(0);
        while c != 0 {
            if self.seg(c as usize) == seg {
                return Some(c);
            }
            c = self.nodes.get(c as usize).map_or(0, |x| x.alias);
        }
        let key_bytes = seg.map_or(0, str::len);
        if self.nodes.len() >= self.max_nodes || self.keys.len() + key_bytes > self.max_key_bytes {
            return None;
        }
        let key = self.keys.push(seg);
        let len = self.len(parent as usize).saturating_add(field_seg_len(seg));
        let at = u32::try_from(self.nodes.len()).ok()?;
        self.nodes.push(TrieNode::new(parent, key, first.unwrap_or(0), len));
        self.children.insert((parent, hash), at);
        let p = self.nodes.get_mut(parent as usize)?;
        let last = std::mem::replace(&mut p.last, at);
        if p.first == 0 {
            p.first = at;
        } else if let Some(l) = self.nodes.get_mut(last as usize) {
            l.next = at;
        }
        Some(at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Counts, FieldTallies};

    /// Tallies with the given paths under the root, each a chain of
    /// segments (`None`: `[*]`), each counted.
    fn tallies(paths: &[&[Option<&str>]]) -> FieldTallies {
        let mut b = crate::engine::TalliesBuilder::with_capacity(16, 64);
        let mut counts = Vec::new();
        for p in paths {
            let mut at = 0;
            for seg in *p {
                at = b.add(at, *seg);
            }
            counts.push((at, Counts { matched: 1, ..Counts::default() }));
        }
        b.finish(counts)
    }

    const ROOM: usize = 1_000;

    #[test]
    fn paths_are_found_again_and_printed_once_known() {
        let mut trie = FieldTrie::with_room(ROOM, ROOM);
        let t = tallies(&[&[Some("items"), None, Some("price")], &[Some("a b")]]);
        assert!(trie.map(&t));
        let price = trie.node(3);
        assert_eq!(trie.printed(price), "$.items[*].price");
        assert_eq!(trie.len(price), "$.items[*].price".len());
        assert_eq!(trie.printed(trie.node(4)), "$['a b']");
        trie.set_slot(price, Slot::Field(7));
        // The same paths in another row (built in another order): the
        // same nodes, the slot kept.
        let again = tallies(&[&[Some("a b")], &[Some("items"), None, Some("price")]]);
        assert!(trie.map(&again));
        assert_eq!(trie.node(4), price);
        assert_eq!(trie.slot(price), Slot::Field(7));
        assert_eq!(trie.nodes.len(), 5);
    }

    /// A key `[*]` and the wildcard, and keys whose hashes collide in the
    /// children's map (all forced into one chain here), stay apart.
    #[test]
    fn keys_that_look_or_hash_alike_stay_apart() {
        let mut trie = FieldTrie::with_room(ROOM, ROOM);
        let t = tallies(&[&[None], &[Some("[*]")], &[Some("")]]);
        assert!(trie.map(&t));
        let nodes: Vec<usize> = (1..4).map(|n| trie.node(n)).collect();
        assert_eq!(
            nodes.iter().map(|&n| trie.printed(n)).collect::<Vec<_>>(),
            ["$[*]", "$['[*]']", "$['']"]
        );
        let mut chained = FieldTrie::with_room(ROOM, ROOM);
        for (i, k) in ["x", "y", "z"].into_iter().enumerate() {
            let key = chained.keys.push(Some(k));
            let alias = u32::try_from(i).unwrap();
            chained.nodes.push(TrieNode::new(0, key, alias, 3));
        }
        chained.children.insert((0, seg_hash(Some("y"))), 3);
        chained.children.insert((0, seg_hash(Some("x"))), 3);
        assert_eq!(chained.child(0, Some("x")), Some(1));
        assert_eq!(chained.child(0, Some("y")), Some(2));
    }

    #[test]
    fn a_full_tree_refuses_new_paths_and_finds_old_ones() {
        let mut trie = FieldTrie::with_room(ROOM, ROOM * 8);
        let keys: Vec<String> = (0..ROOM).map(|i| format!("k{i}")).collect();
        let mut refused = 0;
        for k in &keys {
            if !trie.map(&tallies(&[&[Some(k)]])) {
                refused += 1;
            }
        }
        // The root takes one place.
        assert_eq!(refused, 1);
        assert!(trie.map(&tallies(&[&[Some("k0")]])));
        assert!(!trie.map(&tallies(&[&[Some("new")]])));
        // Keys past the room for keys are refused too; the wildcard has
        // no key.
        let mut short = FieldTrie::with_room(ROOM, 4);
        assert!(short.map(&tallies(&[&[Some("abcd"), None]])));
        assert!(!short.map(&tallies(&[&[Some("e")]])));
        assert!(short.map(&tallies(&[&[None]])));
    }
}
