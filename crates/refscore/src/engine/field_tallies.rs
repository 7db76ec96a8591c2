//! The per-field tallies of one comparison, as a walk leaves them: the
//! tree of the field paths that were compared (and of their ancestors),
//! each key copied once and no path printed. A run's field table takes
//! them in by that tree, printing only the paths it has not seen before;
//! [`FieldTallies::to_tallies`] prints every one.

use serde::Serialize;

use super::Counts;
use super::{KeyRange, SegKeys};
use crate::limits::MAX_KEPT_PATH_BYTES;
use crate::path::{Seg, field_path_of, field_seg_len};

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
        self.counts.failed()
    }
}

/// One path of [`FieldTallies`]: its parent and last segment.
#[derive(Debug, Clone, Copy, PartialEq)]
struct PathNode {
    parent: u32,
    /// The last segment's key in [`FieldTallies::keys`], or `None` for
    /// `[*]` (and for the root).
    key: Option<KeyRange>,
}

/// The per-field tallies of one comparison: for each path with array
/// indices as `[*]` (`$.line_items[*].price`), how its comparisons came
/// out, in the order the paths were first counted.
///
/// The paths are kept as a tree of segments, not printed: print them
/// with [`FieldTallies::to_tallies`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FieldTallies {
    /// The paths counted and their ancestors, each after its parent; the
    /// root `$` is the first (when there is any).
    nodes: Vec<PathNode>,
    /// The keys of the paths' segments.
    keys: SegKeys,
    /// Per path with comparisons, first counted first: its node and counts.
    counts: Vec<(u32, Counts)>,
    /// Comparisons of tallies left out when others were added to these
    /// (past 4 GiB of keys or 2^32 paths, far beyond any row).
    dropped: u64,
}

/// Builds [`FieldTallies`] path by path, parents first.
#[derive(Debug, Default)]
pub(crate) struct TalliesBuilder {
    tallies: FieldTallies,
}

impl TalliesBuilder {
    /// Room for `paths` paths and `keys` bytes of keys.
    pub(crate) fn with_capacity(paths: usize, keys: usize) -> Self {
        let mut nodes = Vec::with_capacity(paths.max(1));
        nodes.push(PathNode { parent: 0, key: None });
        TalliesBuilder {
            tallies: FieldTallies {
                nodes,
                keys: SegKeys::with_capacity(keys),
                counts: Vec::new(),
                dropped: 0,
            },
        }
    }

    /// Adds the path `parent` + `seg` (a key, or `None` for `[*]`); its
    /// index. The root is 0.
    pub(crate) fn add(&mut self, parent: u32, seg: Option<&str>) -> u32 {
        let t = &mut self.tallies;
        let key = t.keys.push(seg);
        t.nodes.push(PathNode { parent, key });
        as_u32(t.nodes.len() - 1)
    }

    /// Adds the paths of `t` but its root, its root's children under
    /// `top`; path `n` of `t` becomes `n + shift`.
    fn append_below(&mut self, top: u32, t: &FieldTallies, shift: u32) {
        for n in 1..t.nodes.len() {
            let p = t.parent(n);
            let parent = if p == 0 { top } else { as_u32(p) + shift };
            self.add(parent, t.seg(n));
        }
    }

    /// The tallies, with `counts` (per path index, first counted first).
    pub(crate) fn finish(self, counts: Vec<(u32, Counts)>) -> FieldTallies {
        FieldTallies { counts, ..self.tallies }
    }
}

/// Most paths, and bytes of keys, that tallies hold: their indices are
/// 32-bit.
const MAX_INDEX: usize = u32::MAX as usize;

/// `n` as a `u32`: the walk's paths and keys are bounded far below.
fn as_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl FieldTallies {
    /// Whether no field was compared.
    pub fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    /// The fields compared.
    pub fn len(&self) -> usize {
        self.counts.len()
    }

    /// The number of paths in the tree (those counted and their
    /// ancestors, the root included).
    pub(crate) fn paths(&self) -> usize {
        self.nodes.len()
    }

    /// The parent of path `n` (the root's is 0).
    pub(crate) fn parent(&self, n: usize) -> usize {
        self.nodes.get(n).map_or(0, |p| p.parent as usize)
    }

    /// The last segment of path `n`: a key, or `None` for `[*]`.
    pub(crate) fn seg(&self, n: usize) -> Option<&str> {
        self.keys.get(self.nodes.get(n)?.key)
    }

    /// The counted paths (by index), first counted first, and their counts.
    pub(crate) fn counted(&self) -> impl Iterator<Item = (usize, &Counts)> {
        self.counts.iter().map(|(at, c)| (*at as usize, c))
    }

    /// The printed length of every path, by index.
    pub(crate) fn printed_lens(&self) -> Vec<usize> {
        let mut len = vec![1usize; self.nodes.len()];
        for n in 1..self.nodes.len() {
            let above = len.get(self.parent(n)).copied().unwrap_or(1);
            len[n] = above.saturating_add(field_seg_len(self.seg(n)));
        }
        len
    }

    /// Path `n` printed (`$.items[*].price`), `len` bytes long.
    pub(crate) fn printed(&self, n: usize, len: usize) -> String {
        field_path_of(n, len, |c| self.parent(c), |c| self.seg(c))
    }

    /// The counts at the field of `segs` (indices stand for `[*]`), if it
    /// was counted.
    pub fn counts_at_mut<'a>(
        &mut self,
        segs: impl IntoIterator<Item = Seg<'a>>,
    ) -> Option<&mut Counts> {
        let mut at = 0;
        for s in segs {
            let want = s.field_key();
            // Children come after their parent.
            at = (at + 1..self.nodes.len())
                .find(|&n| self.parent(n) == at && self.seg(n) == want)?;
        }
        self.counts.iter_mut().find(|(n, _)| *n as usize == at).map(|(_, c)| c)
    }

    /// Comparisons not in these tallies' paths: those of tallies that did
    /// not fit when added with [`FieldTallies::append`] or put under a
    /// prefix (past 4 GiB of keys or 2^32 paths, far beyond any row).
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// The comparisons counted at the paths (not those left out).
    fn counted_total(&self) -> u64 {
        self.counts.iter().map(|(_, c)| c.total()).sum::<u64>()
    }

    /// Whether `paths` more paths and `keys` more bytes of keys fit
    /// within `max` of each ([`MAX_INDEX`]: the tree's 32-bit indices).
    fn has_room(&self, paths: usize, keys: usize, max: usize) -> bool {
        self.nodes.len().saturating_add(paths) <= max && self.keys.len().saturating_add(keys) <= max
    }

    /// Puts every path under `prefix` (indices stand for `[*]`).
    pub fn put_under(&mut self, prefix: &[Seg<'_>]) {
        if prefix.is_empty() || self.nodes.is_empty() {
            return;
        }
        let these = std::mem::take(self);
        self.append_under(&these, prefix);
    }

    /// Adds the paths and counts of `other` (a path both count is
    /// counted twice, as two tallies).
    pub fn append(&mut self, other: &FieldTallies) {
        self.append_under(other, &[]);
    }

    /// Adds the paths and counts of `other` put under `prefix` (indices
    /// stand for `[*]`): what [`FieldTallies::put_under`] and then
    /// [`FieldTallies::append`] give, with `other`'s paths copied once.
    pub fn append_under(&mut self, other: &FieldTallies, prefix: &[Seg<'_>]) {
        self.append_under_within(other, prefix, MAX_INDEX);
    }

    /// [`FieldTallies::append_under`], with room for at most `max` paths
    /// and `max` bytes of keys: the comparisons of tallies that do not
    /// fit are counted as left out.
    fn append_under_within(&mut self, other: &FieldTallies, prefix: &[Seg<'_>], max: usize) {
        if other.nodes.is_empty() {
            self.dropped = self.dropped.saturating_add(other.dropped);
            return;
        }
        let prefix_keys: usize = prefix.iter().filter_map(|s| s.field_key()).map(str::len).sum();
        let paths = other.nodes.len().saturating_add(prefix.len());
        let keys = other.keys.len().saturating_add(prefix_keys);
        // (Room for the sum is room for the prefixed tallies too.)
        if !self.has_room(paths, keys, max) {
            let left = other.dropped.saturating_add(other.counted_total());
            self.dropped = self.dropped.saturating_add(left);
            return;
        }
        let mut b = if self.nodes.is_empty() {
            let mut b = TalliesBuilder::with_capacity(paths, keys);
            b.tallies.dropped = self.dropped;
            b
        } else {
            let mut b = TalliesBuilder { tallies: std::mem::take(self) };
            b.tallies.nodes.reserve(paths);
            b
        };
        let mut top = 0;
        for s in prefix {
            top = b.add(top, s.field_key());
        }
        // Path `n` of `other` but its root becomes `n + shift`; its root
        // becomes `top`.
        let shift = as_u32(b.tallies.nodes.len() - 1);
        b.append_below(top, other, shift);
        let mut t = b.tallies;
        t.counts
            .extend(other.counts.iter().map(|(n, c)| (if *n == 0 { top } else { n + shift }, *c)));
        t.dropped = t.dropped.saturating_add(other.dropped);
        *self = t;
    }

    /// Which counted paths (in [`FieldTallies::counted`]'s order) a
    /// printing of these tallies keeps, given each path's printed length
    /// by index: the shortest first, while they print to at most
    /// [`MAX_KEPT_PATH_BYTES`] together. `None` when every one is kept
    /// (the usual row: nothing is sorted).
    pub(crate) fn kept(&self, len: impl Fn(usize) -> usize) -> Option<Vec<bool>> {
        let total = self.counted().try_fold(0usize, |sum, (at, _)| sum.checked_add(len(at)));
        if total.is_some_and(|t| t <= MAX_KEPT_PATH_BYTES) {
            return None;
        }
        let lens: Vec<usize> = self.counted().map(|(at, _)| len(at)).collect();
        let mut order: Vec<usize> = (0..lens.len()).collect();
        order.sort_by_key(|&i| lens[i]);
        let mut kept = vec![false; lens.len()];
        let mut used = 0usize;
        for i in order {
            if used.saturating_add(lens[i]) > MAX_KEPT_PATH_BYTES {
                break;
            }
            used += lens[i];
            kept[i] = true;
        }
        Some(kept)
    }

    /// The tallies with their paths printed, in the order first counted,
    /// and the comparisons left out (with [`FieldTallies::dropped`]): the
    /// paths print to at most [`MAX_KEPT_PATH_BYTES`] together, the
    /// shortest kept first (a document thousands of levels deep with a
    /// field at every level would otherwise print gigabytes).
    pub fn to_tallies(&self) -> (Vec<FieldTally>, u64) {
        let len = self.printed_lens();
        let kept = self.kept(|at| len.get(at).copied().unwrap_or(0));
        let mut dropped = self.dropped;
        let mut tallies = Vec::new();
        for (k, (at, counts)) in self.counted().enumerate() {
            if kept.as_ref().is_none_or(|kept| kept.get(k) == Some(&true)) {
                tallies.push(FieldTally { path: self.printed(at, len[at]), counts: *counts });
            } else {
                dropped += counts.total();
            }
        }
        (tallies, dropped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detail::Outcome;

    fn counts(outcome: Outcome) -> Counts {
        let mut c = Counts::default();
        c.record(outcome, 0.0);
        c
    }

    #[test]
    fn paths_print_from_the_tree() {
        let mut b = TalliesBuilder::with_capacity(4, 8);
        let items = b.add(0, Some("items"));
        let each = b.add(items, None);
        let price = b.add(each, Some("price"));
        let odd = b.add(0, Some("a'b"));
        let t = b.finish(vec![(price, counts(Outcome::Match)), (odd, counts(Outcome::Missing))]);
        assert_eq!((t.len(), t.paths(), t.is_empty()), (2, 5, false));
        let (printed, dropped) = t.to_tallies();
        assert_eq!(dropped, 0);
        let paths: Vec<&str> = printed.iter().map(|p| p.path.as_str()).collect();
        assert_eq!(paths, ["$.items[*].price", "$['a\\'b']"]);
        assert_eq!(t.printed_lens()[price as usize], "$.items[*].price".len());
        assert!(!printed[0].failed() && printed[1].failed());
    }

    #[test]
    fn the_root_alone_prints_as_the_root() {
        let b = TalliesBuilder::with_capacity(1, 0);
        let t = b.finish(vec![(0, counts(Outcome::ValueMismatch))]);
        assert_eq!(t.to_tallies().0[0].path, "$");
        assert!(FieldTallies::default().to_tallies().0.is_empty());
    }

    fn two_fields() -> FieldTallies {
        let mut b = TalliesBuilder::with_capacity(4, 8);
        let items = b.add(0, Some("items"));
        let each = b.add(items, None);
        let price = b.add(each, Some("price"));
        b.finish(vec![(price, counts(Outcome::Match)), (0, counts(Outcome::Missing))])
    }

    fn printed(t: &FieldTallies) -> Vec<(String, u64)> {
        t.to_tallies().0.into_iter().map(|f| (f.path, f.counts.total())).collect()
    }

    #[test]
    fn tallies_are_put_under_a_prefix() {
        let mut t = two_fields();
        t.put_under(&[Seg::Key("a b"), Seg::Index(4)]);
        let want = [("$['a b'][*].items[*].price", 1), ("$['a b'][*]", 1)];
        assert_eq!(printed(&t), want.map(|(p, n)| (p.to_owned(), n)));
        let mut none = FieldTallies::default();
        none.put_under(&[Seg::Key("x")]);
        assert!(none.is_empty() && none.paths() == 0);
    }

    #[test]
    fn appended_tallies_keep_both_sides() {
        let mut t = FieldTallies::default();
        t.append(&two_fields());
        let mut other = two_fields();
        other.put_under(&[Seg::Key("b")]);
        t.append(&other);
        t.append(&FieldTallies::default());
        let want = [("$.items[*].price", 1), ("$", 1), ("$.b.items[*].price", 1), ("$.b", 1)];
        assert_eq!(printed(&t), want.map(|(p, n)| (p.to_owned(), n)));
    }

    /// `append_under` gives what a prefix and then an append give, into
    /// tallies with paths, into empty ones (with comparisons left out
    /// already), and with no prefix; and, independently of both, the
    /// base's paths and the other's printed under the prefix as written.
    #[test]
    fn appending_under_a_prefix_is_a_prefix_then_an_append() {
        let left_out = FieldTallies { dropped: 3, ..FieldTallies::default() };
        let prefixes: [(&[Seg<'_>], &str); 3] = [
            (&[], "$"),
            (&[Seg::Key("b")], "$.b"),
            (&[Seg::Index(2), Seg::Key("c d"), Seg::Index(0)], "$[*]['c d'][*]"),
        ];
        for base in [two_fields(), FieldTallies::default(), left_out] {
            for (prefix, head) in prefixes {
                for other in [two_fields(), FieldTallies::default()] {
                    let mut got = base.clone();
                    got.append_under(&other, prefix);
                    let mut model = printed(&base);
                    model.extend(
                        printed(&other).into_iter().map(|(p, n)| (format!("{head}{}", &p[1..]), n)),
                    );
                    let mut printed_got = printed(&got);
                    printed_got.sort();
                    model.sort();
                    assert_eq!(printed_got, model, "{prefix:?}");
                    assert_eq!(got.dropped(), base.dropped() + other.dropped());
                    let mut want = base.clone();
                    let mut moved = other.clone();
                    moved.put_under(prefix);
                    want.append(&moved);
                    assert_eq!(got, want, "{prefix:?}");
                    assert_eq!(printed(&got), printed(&want));
                }
            }
        }
        // `put_under` and `append` are `append_under` too: the paths are
        // pinned as printed, not only held to the two-step result.
        let mut t = two_fields();
        t.append_under(&two_fields(), &[Seg::Key("x")]);
        let want = [("$.items[*].price", 1), ("$", 1), ("$.x.items[*].price", 1), ("$.x", 1)];
        assert_eq!(printed(&t), want.map(|(p, n)| (p.to_owned(), n)));
        let mut t = FieldTallies { dropped: 3, ..FieldTallies::default() };
        t.append_under(&two_fields(), &[Seg::Index(2), Seg::Key("c d"), Seg::Index(0)]);
        let want = [("$[*]['c d'][*].items[*].price", 1), ("$[*]['c d'][*]", 1)];
        assert_eq!(printed(&t), want.map(|(p, n)| (p.to_owned(), n)));
        assert_eq!((t.dropped(), t.to_tallies().1), (3, 3));
    }

    /// Tallies that could not be added (past the tree's 32-bit indices)
    /// are counted as left out, through appends and prefixes, and in
    /// what `to_tallies` returns.
    #[test]
    fn tallies_left_out_are_counted() {
        let room = two_fields();
        assert!(!room.has_room(usize::MAX, 0, MAX_INDEX));
        assert!(!room.has_room(0, usize::MAX, MAX_INDEX));
        assert!(room.has_room(1, 1, MAX_INDEX));
        assert_eq!(room.counted_total(), 2);
        // Past the room, an append counts the other's comparisons (and
        // those it had left out) as left out, and adds no path: whether
        // the prefixed tallies do not fit (4 + 2 paths, 10 + 2 key bytes)
        // or only the sum does not (22 key bytes); at 22 it fits (9
        // paths: the other's root is the prefix's last).
        let other = FieldTallies { dropped: 5, ..two_fields() };
        let prefix = [Seg::Key("a"), Seg::Key("b")];
        for max in [11, 21] {
            let mut t = two_fields();
            t.append_under_within(&other, &prefix, max);
            assert_eq!((t.len(), t.paths(), t.dropped()), (2, 4, 7), "{max}");
            assert_eq!(t.to_tallies().1, 7);
        }
        let mut t = two_fields();
        t.append_under_within(&other, &prefix, 22);
        assert_eq!((t.len(), t.paths(), t.dropped()), (4, 9, 5));
        let left = FieldTallies { dropped: 2, ..FieldTallies::default() };
        let mut t = two_fields();
        t.append(&left);
        t.put_under(&[Seg::Key("p")]);
        assert_eq!((t.len(), t.dropped()), (2, 2));
        assert_eq!(t.to_tallies().1, 2);
        let mut empty = FieldTallies::default();
        empty.append(&left);
        empty.append(&t);
        assert_eq!((empty.len(), empty.dropped()), (2, 4));
    }

    #[test]
    fn counts_are_found_by_their_field() {
        let mut t = two_fields();
        let at = [Seg::Key("items"), Seg::Index(7), Seg::Key("price")];
        if let Some(c) = t.counts_at_mut(at) {
            c.record(Outcome::Missing, 0.0);
        }
        assert_eq!(printed(&t)[0], ("$.items[*].price".to_owned(), 2));
        assert!(t.counts_at_mut([Seg::Key("items"), Seg::Key("price")]).is_none());
        assert!(t.counts_at_mut([Seg::Key("items")]).is_none(), "counted below, not at");
        assert_eq!(t.counts_at_mut([]).map(|c| c.missing), Some(1));
    }
}
