//! Per-field tallies gathered during a walk: for each path with array
//! indices as `[*]`, how its comparisons came out. Cheap enough to compute
//! on every row of a dataset (no allocation per leaf, no path printed).

use crate::fx::FxHashMap;

use super::Counts;
use super::field_tallies::{FieldTallies, TalliesBuilder};
use crate::detail::Outcome;
use crate::path::Seg;

/// The wildcard path of the node being walked, and the tallies so far.
///
/// Paths are kept as a tree of segments while walking (an array element
/// is the segment `[*]`), so entering a node finds its path among its
/// parent's children and counting a comparison is an index; a path is
/// copied into [`FieldTallies`] when the walk is done. Elements of an
/// array are usually alike, so the child after the one entered last is
/// tried first.
#[derive(Debug)]
pub(super) struct FieldWalk<'v> {
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

/// One path of [`FieldWalk`]; a link of 0 is none (the root is no
/// one's child).
#[derive(Debug, Clone, Copy)]
struct FieldNode<'v> {
    parent: u32,
    /// The last segment: a key, or `None` for `[*]`.
    seg: Option<&'v str>,
    /// Where its counts are in [`FieldWalk::counts`], once it has any.
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
}

impl<'v> FieldNode<'v> {
    fn new(parent: u32, seg: Option<&'v str>) -> Self {
        FieldNode { parent, seg, counted: None, first: 0, last: 0, next: 0, cursor: 0, kids: 0 }
    }
}

/// Children a path's list is searched through before a map is kept for
/// them: the cost of entering a node stays bounded whatever the keys.
const SCAN: u32 = 16;

/// Room for the fields of a typical document, so that the first row's
/// paths do not grow the table several times.
const TYPICAL_FIELDS: usize = 32;

impl<'v> FieldWalk<'v> {
    pub(super) fn new() -> Self {
        let mut nodes = Vec::with_capacity(2 * TYPICAL_FIELDS);
        nodes.push(FieldNode::new(0, None));
        let mut stack = Vec::with_capacity(16);
        stack.push(0);
        FieldWalk {
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
        let seg = seg.field_key();
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
        self.nodes.push(FieldNode::new(parent, seg));
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

    /// The tallies: the paths counted and their ancestors, keys copied,
    /// nothing printed.
    pub(super) fn finish(self) -> FieldTallies {
        // Whether a path has counts or a descendant with counts (children
        // come after their parents in `nodes`).
        let mut wanted: Vec<bool> = self.nodes.iter().map(|n| n.counted.is_some()).collect();
        let mut keys = 0usize;
        for n in (1..self.nodes.len()).rev() {
            if wanted[n] {
                let node = &self.nodes[n];
                wanted[node.parent as usize] = true;
                keys += node.seg.map_or(0, str::len);
            }
        }
        let paths = wanted.iter().filter(|w| **w).count();
        let mut out = TalliesBuilder::with_capacity(paths, keys);
        // Each wanted path's index in the tallies (its parent's is set
        // first: parents come first).
        let mut index = vec![0u32; self.nodes.len()];
        for (n, node) in self.nodes.iter().enumerate().skip(1) {
            if wanted[n] {
                index[n] = out.add(index[node.parent as usize], node.seg);
            }
        }
        let mut counts = self.counts;
        for (at, _) in &mut counts {
            *at = index[*at as usize];
        }
        out.finish(counts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits::MAX_KEPT_PATH_BYTES;

    #[test]
    fn paths_use_wildcards_and_tally() {
        let mut f = FieldWalk::new();
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
        let (t, dropped) = f.finish().to_tallies();
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
        let mut f = FieldWalk::new();
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
        let (t, dropped) = f.finish().to_tallies();
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
        let mut f = FieldWalk::new();
        for _ in 0..depth {
            f.enter(Seg::Key("n"));
        }
        for _ in 0..depth {
            f.enter(Seg::Key("v"));
            f.record(Outcome::ValueMismatch, 0.0);
            f.leave();
            f.leave();
        }
        let (t, dropped) = f.finish().to_tallies();
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
