//! Guided reading: a row's later member read beside an earlier one.
//!
//! In a golden dataset an output is mostly its reference written the
//! same way: the same keys in the same order, the same values but for a
//! field or two. Reading a row, each kept root member whose value is an
//! object or an array guides the next one of the same kind: while that
//! one is read, every value in it is checked against the value at the
//! same key or index of the guide, and where the text is the same, byte
//! for byte, it is the same value, so the later member takes the guide's
//! node and the text is skipped instead of read. Nothing else changes:
//! the text is still wholly checked (a value's text equal to one that was
//! read is JSON), and two members that share a node compare equal at
//! once ([`crate::engine::nodes_equal`]).
//!
//! The check costs one comparison of bytes per value that has a
//! counterpart in the guide, and it stops at the first byte that
//! differs. Only values in containers opened fewer than [`GUIDE_DEPTH`]
//! levels into the row (the row's root is level 0, a member's value
//! level 1) are compared; deeper ones are read as usual, so a text is
//! compared at most that many times over, however deep it nests.
//! A guide in which a key was repeated guides nothing (its nodes do not
//! say where the repeats were).

use crate::tree::Tree;

/// Containers opened this many levels into a row, or deeper, have no
/// guide: their values are read as usual.
pub(super) const GUIDE_DEPTH: usize = 16;

/// Where each node of a tree was written: its text's start and end.
#[derive(Default)]
pub(super) struct Spans {
    spans: Vec<(usize, usize)>,
}

impl Spans {
    pub(super) fn with_capacity(nodes: usize) -> Spans {
        Spans { spans: Vec::with_capacity(nodes) }
    }

    /// Notes that node `at` was written at `start..end`. Nodes are noted
    /// in the order they are added to the tree; a node noted out of turn
    /// (never, as the reader adds them) is not noted, and so never shared.
    pub(super) fn note(&mut self, at: u32, start: usize, end: usize) {
        if self.spans.len() == at as usize {
            self.spans.push((start, end));
        }
    }

    /// Forgets the nodes from `len` on (dropped from the tree).
    pub(super) fn truncate(&mut self, len: usize) {
        self.spans.truncate(len);
    }

    /// How many bytes from `pos` in `bytes` are the text of node `at`,
    /// followed by what can follow a value in a container: `None` when
    /// the text there is another.
    pub(super) fn same_text(&self, bytes: &[u8], pos: usize, at: u32) -> Option<usize> {
        let &(start, end) = self.spans.get(at as usize)?;
        let text = bytes.get(start..end)?;
        let rest = bytes.get(pos..)?;
        let follows = rest.get(text.len())?;
        (matches!(follows, b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t')
            && rest.starts_with(text))
        .then_some(text.len())
    }
}

/// The guide of a container being read: the container at the same place
/// in the guiding member.
#[derive(Clone, Copy)]
pub(super) struct Guide {
    /// The guide's node.
    node: u32,
    /// The member of the guide (an object) to look at first for the next
    /// key.
    cursor: u32,
}

impl Guide {
    /// The guide for a container (an object when `object`) whose
    /// counterpart in the guiding member is `node`: none when `node` is
    /// not a container of that kind.
    pub(super) fn of(tree: &Tree<'_>, node: u32, object: bool) -> Option<Guide> {
        (tree.container_at(node) == Some(object)).then_some(Guide { node, cursor: 0 })
    }

    /// The guide's member `key` (the guide is an object).
    pub(super) fn member(&mut self, tree: &Tree<'_>, key: &str) -> Option<u32> {
        tree.member_value(self.node, key, &mut self.cursor)
    }

    /// The guide's element `i` (the guide is an array).
    pub(super) fn item(self, tree: &Tree<'_>, i: usize) -> Option<u32> {
        tree.item_value(self.node, i)
    }
}
