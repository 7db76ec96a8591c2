//! Guided reading: a row's later member read beside an earlier one.
//!
//! In a golden dataset an output is mostly its reference written the
//! same way: the same keys in the same order, the same values but for a
//! field or two. Reading a row, each kept root member whose value is an
//! object or an array guides the next one of the same kind: while that
//! one is read, each object or array in it is checked against the one at
//! the same key or index of the guide, and where the text is the same,
//! byte for byte, it is the same value, so the later member takes the
//! guide's node and the text is skipped instead of read. Scalars are read
//! as usual (looking them up costs about what reading them does).
//! Nothing else changes: the text is still wholly checked (a value's text
//! equal to one that was read is JSON), and two members that share a
//! node compare equal at once ([`crate::engine::nodes_equal`]).
//!
//! The check costs one comparison of bytes per container that has a
//! counterpart in the guide, and it stops at the first byte that
//! differs. Only containers opened at most [`GUIDE_DEPTH`] levels into
//! the row (the row's root is level 0, a member's value level 1) are
//! compared; deeper ones are read as usual, so a text is compared at most
//! that many times over, however deep it nests. A guide in which a key
//! was repeated guides nothing (its nodes do not say where the repeats
//! were).

use crate::tree::Tree;

/// Containers opened this many levels into a row, or deeper, have no
/// guide: their values are read as usual.
pub(super) const GUIDE_DEPTH: usize = 16;

/// Where each container of a tree was written: its node, its text's
/// start and end, by increasing node (containers are added in that
/// order). Scalars are read, never looked up, so their places are not
/// kept.
#[derive(Default)]
pub(super) struct Spans {
    spans: Vec<(u32, usize, usize)>,
}

impl Spans {
    /// Notes that container `at`, just added, was written at
    /// `start..end`. A node noted out of turn (never, as the reader adds
    /// them) is not noted, and so never shared.
    pub(super) fn note(&mut self, at: u32, start: usize, end: usize) {
        if self.spans.last().is_none_or(|last| last.0 < at) {
            self.spans.push((at, start, end));
        }
    }

    /// Forgets the nodes from `len` on (dropped from the tree).
    pub(super) fn truncate(&mut self, len: usize) {
        let keep = self.spans.partition_point(|s| (s.0 as usize) < len);
        self.spans.truncate(keep);
    }

    /// How many bytes from `pos` in `bytes` are the text of container
    /// `at` ([`written_again`]): `None` when the text there is another.
    pub(super) fn same_text(&self, bytes: &[u8], pos: usize, at: u32) -> Option<usize> {
        let i = self.spans.binary_search_by_key(&at, |s| s.0).ok()?;
        let &(_, start, end) = self.spans.get(i)?;
        written_again(bytes, pos, start..end)
    }
}

/// How many bytes from `pos` in `bytes` are the bytes at `earlier` again,
/// followed by what can follow a value: the same value, read and checked
/// once. `None` when the text there is another.
pub(super) fn written_again(
    bytes: &[u8],
    pos: usize,
    earlier: std::ops::Range<usize>,
) -> Option<usize> {
    let text = bytes.get(earlier)?;
    let rest = bytes.get(pos..)?;
    let follows = rest.get(text.len())?;
    (matches!(follows, b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t') && rest.starts_with(text))
        .then_some(text.len())
}

/// Keys of an object not met in the guide's order before its guide stops
/// searching for them: an object written in another order (a wide one
/// most of all, each key then a binary search) is read as usual after a
/// few, not looked up key by key.
const MAX_SEARCHES: u32 = 8;

/// The guide of a container being read: the container at the same place
/// in the guiding member.
#[derive(Clone, Copy)]
pub(super) struct Guide {
    /// The guide's node.
    node: u32,
    /// The member of the guide (an object) to look at first for the next
    /// key.
    cursor: u32,
    /// Keys searched for so far (not met in order).
    searches: u32,
}

impl Guide {
    /// The guide for a container (an object when `object`) whose
    /// counterpart in the guiding member is `node`: none when `node` is
    /// not a container of that kind.
    pub(super) fn of(tree: &Tree<'_>, node: u32, object: bool) -> Option<Guide> {
        (tree.container_at(node) == Some(object)).then_some(Guide { node, cursor: 0, searches: 0 })
    }

    /// The guide's member `key` (the guide is an object): met in order,
    /// or searched for, [`MAX_SEARCHES`] times at most.
    pub(super) fn member(&mut self, tree: &Tree<'_>, key: &str) -> Option<u32> {
        if let Some(found) = tree.member_value(self.node, key, &mut self.cursor, false) {
            return Some(found);
        }
        if self.searches == MAX_SEARCHES {
            return None;
        }
        self.searches += 1;
        tree.member_value(self.node, key, &mut self.cursor, true)
    }

    /// The guide's element `i` (the guide is an array).
    pub(super) fn item(self, tree: &Tree<'_>, i: usize) -> Option<u32> {
        tree.item_value(self.node, i)
    }
}
