//! Per-field tallies gathered during a walk: for each path with array
//! indices as `[*]`, how its comparisons came out. Cheap enough to compute
//! on every row of a dataset (no allocation per leaf).

use crate::fx::FxHashMap;

use serde::Serialize;

use super::Counts;
use crate::detail::Outcome;
use crate::limits::MAX_KEPT_PATH_BYTES;
use crate::path::{Seg, WILDCARD, printed_len, push_seg};

/// How the comparisons at one field path came out, within one document.
///
/// The path is kept in its printed wildcard form: it is the field's
/// identity across rows and the key of the run's field table.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct FieldTally {
    /// The path with indices as `[*]`: `$.line_items[*].price`.
    pub path: String,
    /// One verdict per comparison at this path.
    pub counts: Counts,
}

impl FieldTally {
    /// Whether any comparison here was not a match.
    pub fn failed(&self) -> bool {
        self.counts.matched < self.counts.total()
    }
}

/// The wildcard path of the node being walked, and the tallies so far.
///
/// Paths are kept as a tree of segments while walking (an array element
/// is the segment `[*]`), so entering a node finds its path among its
/// parent's children and counting a comparison is an index; a path is
/// printed once, when the tallies are finished. Elements of an array are
/// usually alike, so the child after the one entered last is tried first.
#[derive(Debug)]
pub(super) struct FieldTallies<'v> {
    /// Every path entered so far; the root `$` is the first.
    nodes: Vec<FieldNode<'v>>,
    /// The children of paths with more than [`SCAN`] children, by
    /// parent and last segment.
    many: FxHashMap<(u32, Option<&'v str>), u32>,
    /// The path of the node being walked, root first.
    stack: Vec<u32>,
    /// Per path with comparisons, first seen first: its node and counts.
    counts: Vec<(u32, Counts)>,
}

/// One path of [`FieldTallies`]; a link of 0 is none (the root is no
/// one's child).
#[derive(Debug, Clone, Copy)]
struct FieldNode<'v> {
    parent: u32,
    /// The last segment: a key, or `None` for `[*]`.
    seg: Option<&'v str>,
    /// Where its counts are in [`FieldTallies::counts`], once it has any.
    counted: Option<u32>,
    /// First and last child, in the order they were added.
    first: u32,
    last: u32,
    /// The next child of the same parent.
    next: u32,
    /// The child entered last.
    cursor: u32,
    /// How many children it has.
    kids: u32,
    /// An upper bound on the length of its printed path (saturating).
    bound: u32,
}

impl<'v> FieldNode<'v> {
    fn new(parent: u32, seg: Option<&'v str>, bound: u32) -> Self {
        FieldNode {
            parent,
            seg,
            counted: None,
            first: 0,
            last: 0,
            next: 0,
            cursor: 0,
            kids: 0,
            bound,
        }
    }
}

/// Children a path's list is searched through before a map is kept for
/// them: the cost of entering a node stays bounded whatever the keys.
const SCAN: u32 = 16;

/// Room for the fields of a typical document, so that the first row's
/// paths do not grow the table several times.
const TYPICAL_FIELDS: usize = 32;

impl<'v> FieldTallies<'v> {
    pub(super) fn new() -> Self {
        let mut nodes = Vec::with_capacity(2 * TYPICAL_FIELDS);
        nodes.push(FieldNode::new(0, None, 1));
        let mut stack = Vec::with_capacity(16);
        stack.push(0);
        FieldTallies {
            nodes,
            many: FxHashMap::default(),
            stack,
            counts: Vec::with_capacity(TYPICAL_FIELDS),
        }
    }

    fn current(&self) -> u32 {
        self.stack.last().copied().unwrap_or(0)
    }

    fn node(&self, at: u32) -> Option<&FieldNode<'v>> {
        self.nodes.get(at as usize)
    }

    pub(super) fn enter(&mut self, seg: Seg<'v>) {
        let parent = self.current();
        let seg = match seg {
            Seg::Key(k) => Some(k),
            _ => None,
        };
        let at = match self.find(parent, seg) {
            Some(at) => at,
            None => self.add(parent, seg),
        };
        if let Some(p) = self.nodes.get_mut(parent as usize) {
            p.cursor = at;
        }
        self.stack.push(at);
    }

    /// The child of `parent` whose last segment is `seg`.
    fn find(&self, parent: u32, seg: Option<&'v str>) -> Option<u32> {
        let p = self.node(parent)?;
        let after = self.node(p.cursor).map_or(0, |c| c.next);
        let guess = if p.cursor != 0 && after != 0 { after } else { p.first };
        if self.node(guess).is_some_and(|g| guess != 0 && g.seg == seg) {
            return Some(guess);
        }
        if p.kids > SCAN {
            return self.many.get(&(parent, seg)).copied();
        }
        let mut c = p.first;
        while let Some(child) = self.node(c).filter(|_| c != 0) {
            if child.seg == seg {
                return Some(c);
            }
            c = child.next;
        }
        None
    }

    /// Adds a child of `parent`; its index.
    fn add(&mut self, parent: u32, seg: Option<&'v str>) -> u32 {
        let at = u32::try_from(self.nodes.len()).unwrap_or(u32::MAX);
        let above = self.node(parent).map_or(1, |p| p.bound);
        self.nodes.push(FieldNode::new(parent, seg, above.saturating_add(seg_bound(seg))));
        let Some(p) = self.nodes.get_mut(parent as usize) else { return at };
        let last = p.last;
        if p.first == 0 {
            p.first = at;
        }
        p.last = at;
        p.kids += 1;
        let kids = p.kids;
        if let Some(l) = self.nodes.get_mut(last as usize).filter(|_| last != 0) {
            l.next = at;
        }
        if kids == SCAN + 1 {
            let mut c = self.node(parent).map_or(0, |p| p.first);
            while let Some(&child) = self.node(c).filter(|_| c != 0) {
                self.many.insert((parent, child.seg), c);
                c = child.next;
            }
        } else if kids > SCAN {
            self.many.insert((parent, seg), at);
        }
        at
    }

    pub(super) fn leave(&mut self) {
        if self.stack.len() > 1 {
            self.stack.pop();
        }
    }

    /// Counts one comparison at the current path.
    pub(super) fn record(&mut self, outcome: Outcome, score: f64) {
        let at = self.current();
        let Some(node) = self.nodes.get_mut(at as usize) else { return };
        let i = match node.counted {
            Some(i) => i as usize,
            None => {
                let i = self.counts.len();
                node.counted = Some(u32::try_from(i).unwrap_or(u32::MAX));
                self.counts.push((at, Counts::default()));
                i
            }
        };
        if let Some((_, c)) = self.counts.get_mut(i) {
            c.record(outcome, score);
        }
    }

    /// The tallies, in the order their paths were first counted, and the
    /// comparisons of those left out: the tallies' paths print to at most
    /// [`MAX_KEPT_PATH_BYTES`] together, the shortest kept first.
    pub(super) fn finish(self) -> (Vec<FieldTally>, u64) {
        // Whether a path has counts or a descendant with counts (children
        // come after their parents in `nodes`), and a bound on the bytes
        // of the printed paths of both kinds: printing every wanted path
        // once, each from its parent's, costs their sum.
        let mut wanted: Vec<bool> = self.nodes.iter().map(|n| n.counted.is_some()).collect();
        let mut printing = 0usize;
        for n in (1..self.nodes.len()).rev() {
            if wanted[n] {
                let node = &self.nodes[n];
                wanted[node.parent as usize] = true;
                printing = printing.saturating_add(node.bound as usize);
            }
        }
        if printing > MAX_KEPT_PATH_BYTES {
            return self.finish_within_limit();
        }
        // Every printed path, one after another; a node's place in it,
        // once printed (a parent is always printed before its child, and
        // was created before it).
        let mut printed = String::with_capacity(printing + 1);
        printed.push('$');
        let mut place: Vec<Option<(usize, usize)>> = vec![None; self.nodes.len()];
        if let Some(root) = place.first_mut() {
            *root = Some((0, 1));
        }
        for (n, node) in self.nodes.iter().enumerate().skip(1) {
            let Some(Some((start, len))) = place.get(node.parent as usize).copied() else {
                continue;
            };
            if !wanted[n] {
                continue;
            }
            let at = printed.len();
            printed.extend_from_within(start..start + len);
            push_field_seg(&mut printed, node.seg);
            place[n] = Some((at, printed.len() - at));
        }
        let tallies = self
            .counts
            .into_iter()
            .map(|(at, counts)| {
                let path = place
                    .get(at as usize)
                    .copied()
                    .flatten()
                    .and_then(|(start, len)| printed.get(start..start + len))
                    .unwrap_or("$")
                    .to_owned();
                FieldTally { path, counts }
            })
            .collect();
        (tallies, 0)
    }

    /// [`FieldTallies::finish`] when printing every path from its
    /// parent's could pass the limit (a document thousands of levels
    /// deep, or many fields under a long key): each path's exact length,
    /// then the shortest paths that fit within [`MAX_KEPT_PATH_BYTES`]
    /// together, each printed on its own (no path of a node without
    /// counts is printed).
    fn finish_within_limit(self) -> (Vec<FieldTally>, u64) {
        let mut len = vec![1usize; self.nodes.len()];
        for (n, node) in self.nodes.iter().enumerate().skip(1) {
            let last = node.seg.map_or(WILDCARD.len(), |k| printed_len(Seg::Key(k)));
            len[n] = len.get(node.parent as usize).copied().unwrap_or(1).saturating_add(last);
        }
        let mut order: Vec<usize> = (0..self.counts.len()).collect();
        order.sort_by_key(|&i| len[self.counts[i].0 as usize]);
        let mut kept = vec![false; self.counts.len()];
        let mut used = 0usize;
        for i in order {
            let l = len[self.counts[i].0 as usize];
            if used.saturating_add(l) > MAX_KEPT_PATH_BYTES {
                break;
            }
            used += l;
            kept[i] = true;
        }
        let mut dropped = 0;
        let mut chain = Vec::new();
        let mut tallies = Vec::new();
        for ((at, counts), kept) in self.counts.iter().zip(kept) {
            if !kept {
                dropped += counts.total();
                continue;
            }
            chain.clear();
            let mut n = *at;
            while n != 0 {
                chain.push(n);
                n = self.nodes[n as usize].parent;
            }
            let mut path = String::with_capacity(len[*at as usize]);
            path.push('$');
            for &c in chain.iter().rev() {
                push_field_seg(&mut path, self.nodes[c as usize].seg);
            }
            tallies.push(FieldTally { path, counts: *counts });
        }
        (tallies, dropped)
    }
}

/// Appends a field path's segment: a key, or `None` for [`WILDCARD`].
fn push_field_seg(out: &mut String, seg: Option<&str>) {
    match seg {
        Some(k) => push_seg(out, Seg::Key(k)),
        None => out.push_str(WILDCARD),
    }
}

/// An upper bound on the printed length of a path's last segment `seg`
/// (`None`: `[*]`), found without reading the key: a byte of a key prints
/// as at most six (`\u0001`), and quotes and brackets add four.
fn seg_bound(seg: Option<&str>) -> u32 {
    let len = seg.map_or(WILDCARD.len(), |k| k.len().saturating_mul(6).saturating_add(4));
    u32::try_from(len).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_use_wildcards_and_tally() {
        let mut f = FieldTallies::new();
        f.enter(Seg::Key("items"));
        for i in 0..3 {
            f.enter(Seg::Index(i));
            f.enter(Seg::Key("price"));
            f.record(if i == 1 { Outcome::Partial } else { Outcome::Match }, 0.5);
            f.leave();
            f.leave();
        }
        f.enter(Seg::Key("a b"));
        f.record(Outcome::Missing, 0.0);
        f.leave();
        f.leave();
        let (t, dropped) = f.finish();
        assert_eq!(dropped, 0);
        assert_eq!(t.len(), 2);
        assert_eq!(t[0].path, "$.items[*].price");
        assert_eq!((t[0].counts.total(), t[0].counts.matched, t[0].counts.partial), (3, 2, 1));
        assert!((t[0].counts.credit - 2.5).abs() < 1e-12);
        assert!(t[0].failed());
        assert_eq!(t[1].path, "$.items['a b']");
        assert_eq!(t[1].counts.missing, 1);
    }

    /// Elements with keys of their own, past the list searched through:
    /// every path is found again, each counted once per comparison, in
    /// the order first counted.
    #[test]
    fn many_and_varied_children_are_found_again() {
        let keys: Vec<String> = (0..40).map(|i| format!("k{i}")).collect();
        let mut f = FieldTallies::new();
        f.enter(Seg::Key("items"));
        for round in 0..3 {
            for (i, k) in keys.iter().enumerate() {
                // Element `i` has keys `k{i}` and, from the second round,
                // `k{i + 1}`: a key seen under another element.
                f.enter(Seg::Index(i));
                f.enter(Seg::Key(k));
                f.record(Outcome::Match, 1.0);
                f.leave();
                if round > 0 {
                    let next = &keys[(i + 1) % keys.len()];
                    f.enter(Seg::Key(next));
                    f.record(Outcome::ValueMismatch, 0.0);
                    f.leave();
                }
                f.leave();
            }
        }
        f.leave();
        let (t, dropped) = f.finish();
        assert_eq!(dropped, 0);
        assert_eq!(t.len(), 40);
        for (i, tally) in t.iter().enumerate() {
            assert_eq!(tally.path, format!("$.items[*].k{i}"));
            assert_eq!((tally.counts.matched, tally.counts.wrong), (3, 2), "{}", tally.path);
        }
    }

    /// A field at every level of a document nested 30,000 levels deep:
    /// printing each path from its parent's would write 900 MB. The
    /// shortest paths are kept, within the limit; the rest are counted.
    #[test]
    fn paths_past_the_limit_keep_the_shortest_and_count_the_rest() {
        let depth = 30_000;
        let mut f = FieldTallies::new();
        for _ in 0..depth {
            f.enter(Seg::Key("n"));
        }
        for _ in 0..depth {
            f.enter(Seg::Key("v"));
            f.record(Outcome::ValueMismatch, 0.0);
            f.leave();
            f.leave();
        }
        let (t, dropped) = f.finish();
        let printed: usize = t.iter().map(|t| t.path.len()).sum();
        assert!(printed <= MAX_KEPT_PATH_BYTES, "{printed}");
        assert_eq!(t.len() as u64 + dropped, depth as u64);
        // The field below `k` levels prints in 2k + 3 bytes: those of the
        // 1,022 shallowest fit in 1 MiB, kept in the order first counted.
        assert_eq!(t.len(), 1_022);
        assert_eq!(t.last().map(|t| t.path.as_str()), Some("$.n.v"));
        assert_eq!(t.first().map(|t| t.path.len()), Some(2 * 1_022 + 3));
        assert!(t.iter().all(|t| t.path.ends_with(".n.v")));
    }
}
