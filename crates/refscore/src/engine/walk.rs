//! The recursive walk behind [`super::compare`].

use std::cell::{OnceCell, RefCell};
use std::rc::Rc;

use serde_json::{Map, Value};

use super::align::{self, Pairs};
use super::fields::FieldWalk;
use super::identity::{Identities, key_similarity};
use super::{
    Absent, Aggregate, Align, Comparison, Cost, Empty, Keep, KeySet, NodeRule, Pairing, Record,
    Rules,
};
use super::{Counts, Tally};
use crate::detail::{Outcome, truncate};
use crate::fx::FxHashMap;
use crate::path::{JsonPath, Seg};
use crate::tree::{Node, NodeId, Tree};

mod arrays;
mod equal_subtrees;
mod json_text;
mod leaves;

pub(super) use json_text::Texts;

/// Per-pair weight cursor (JSON Difference weights).
#[derive(Clone, Copy)]
enum W<'w> {
    One,
    Tree(&'w Map<String, Value>),
}

impl<'w> W<'w> {
    /// The cursor for child `key` and that key's own weight.
    fn child(self, key: &str) -> (W<'w>, f64) {
        match self {
            W::One => (W::One, 1.0),
            W::Tree(m) => match m.get(key) {
                Some(Value::Number(n)) => (W::One, n.as_f64().unwrap_or(1.0)),
                Some(Value::Object(sub)) => {
                    let own = sub.get(&format!("__{key}")).and_then(Value::as_f64).unwrap_or(1.0);
                    (W::Tree(sub), own)
                }
                _ => (W::One, 1.0),
            },
        }
    }
}

/// Adds children up: a sum of tallies, or a weighted mean of scores.
struct Acc {
    mean: bool,
    sum: Tally,
    weighted: f64,
    weights: f64,
    /// The same sums with every weight divided by the largest so far
    /// (`scale`): used when the plain sums overflow (weights of 1e308).
    scaled: (f64, f64),
    scale: f64,
    plain: f64,
    n: usize,
}

impl Acc {
    fn new(aggregate: Aggregate) -> Self {
        Acc {
            mean: aggregate == Aggregate::Mean,
            sum: Tally::ZERO,
            weighted: 0.0,
            weights: 0.0,
            scaled: (0.0, 0.0),
            scale: 0.0,
            plain: 0.0,
            n: 0,
        }
    }

    fn add(&mut self, t: Tally, w: f64) {
        let w = if w.is_finite() && w >= 0.0 { w } else { 0.0 };
        if self.mean {
            let s = t.ratio_or(1.0);
            self.weighted += s * w;
            self.weights += w;
            if w > self.scale {
                let f = self.scale / w;
                self.scaled = (self.scaled.0 * f, self.scaled.1 * f);
                self.scale = w;
            }
            if self.scale > 0.0 {
                let r = w / self.scale;
                self.scaled = (self.scaled.0 + s * r, self.scaled.1 + r);
            }
            self.plain += s;
            self.n += 1;
        } else {
            self.sum.matched += t.matched * w;
            self.sum.total += t.total * w;
        }
    }

    fn finish(self, both_empty: bool) -> Tally {
        if !self.mean {
            return self.sum;
        }
        #[allow(clippy::cast_precision_loss)]
        let s = if self.n == 0 {
            if both_empty { 1.0 } else { 0.0 }
        } else if self.weights > 0.0 && self.weights.is_finite() && self.weighted.is_finite() {
            self.weighted / self.weights
        } else if self.scaled.1 > 0.0 {
            self.scaled.0 / self.scaled.1
        } else {
            self.plain / self.n as f64
        };
        Tally::new(crate::number::clamp01(s), 1.0)
    }
}

/// A value as text for a record: strings as written, but quoted when the
/// types differ, so that `"12"` and `12` do not look alike.
fn shown(v: Node<'_>, outcome: Outcome) -> String {
    if outcome == Outcome::TypeMismatch { v.compact() } else { v.display() }
}

pub(super) struct Walk<'m, 'v, M: Rules + ?Sized> {
    m: &'m M,
    keep: Keep,
    /// The path of the node being compared. A similarity sub-walk lends
    /// it to the sub-walks it starts (see [`Walk::pair_similarity`]).
    path: RefCell<Vec<Seg<'v>>>,
    counts: Counts,
    records: Vec<Record>,
    /// Records not kept: past [`crate::limits::MAX_KEPT_DETAILS`] or
    /// [`crate::limits::MAX_KEPT_PATH_BYTES`].
    omitted: u64,
    /// Of them, the failed ones.
    omitted_failed: u64,
    /// Printed bytes of the kept records' paths, and whether one did not
    /// fit within [`crate::limits::MAX_KEPT_PATH_BYTES`] (no record is
    /// kept after it).
    kept_path_bytes: usize,
    paths_full: bool,
    fields: Option<FieldWalk<'v>>,
    relabel: Option<Outcome>,
    element: bool,
    /// Tallies of element pairs of containers already compared in this
    /// comparison's similarity walks, by the pair's addresses: nested
    /// arrays ask for the same pair at every level above it (for the
    /// pairing, then for the score of the walk that asked), which would
    /// cost time quadratic in depth.
    memo: Memo,
    /// Leaves compared by this comparison's similarity walks, where the
    /// metric's leaves are costly to compare (see [`leaves`]).
    leaves: leaves::LeafMemo,
    /// Leaf counts of subtrees already counted in this comparison, by
    /// address (a missing subtree is counted at every level above it).
    leaf_counts: LeafCounts,
    /// Levels walked by this comparison's similarity walks, shared with
    /// them: what pairing by similarity costs, bounded by
    /// [`align::MAX_SIMILARITY_STEPS`].
    steps: Rc<std::cell::Cell<u64>>,
    /// The bound on [`Walk::steps`]: [`align::MAX_SIMILARITY_STEPS`] (tests
    /// set a smaller one).
    budget: u64,
    /// Whether this walk only gives a pair's similarity (its counts are
    /// not read): it may take a pair's tally from [`Walk::memo`].
    similarity: bool,
    /// The first array of this comparison or its sub-walks paired by
    /// position because it had too many unmatched elements.
    over_limit: Rc<RefCell<Option<String>>>,
    /// `null`, compared in place of an absent value.
    null: Node<'v>,
    /// The documents read from JSON text (see [`Walk::json_text`]).
    texts: &'v Texts<'v>,
    /// Levels of [`Walk::walk`] now running.
    depth: usize,
    /// Whether equal subtrees may be counted without a walk (see
    /// [`Rules::equal_leaves_match`]); set in [`Walk::run`].
    equal_subtrees: bool,
}

/// Whether two equal arrays compared under `align` pair each element with
/// the one at its place (or count as equal sets of scalars): by position;
/// as sets; or, under [`Align::Auto`], by assignment, which pairs equal
/// elements at the same place first. Pairing by key may pair two elements
/// that share a key in another order, and is left to the walk.
fn equal_arrays_pair_in_place(align: &Align) -> bool {
    matches!(align, Align::Positional | Align::SetIfScalars | Align::Auto(_))
}

/// Levels down to which the walk looks for equal subtrees: each look
/// reads its subtree, so a bound keeps the cost linear in the document's
/// size (at most this many reads of any node) on deep documents.
const EQUAL_SUBTREE_DEPTH: usize = 16;

/// A pair's weight for the assignment when it is plausible under `p`:
/// similar enough, or (with identity pairing) sharing an identifying
/// field (`agree`, asked only then), which adds 1 so that such pairs are
/// preferred. Equal elements weigh as much as any pair can (2).
fn plausible(similarity: f64, p: &Pairing, agree: impl FnOnce() -> bool) -> Option<f64> {
    let s = crate::number::clamp01(similarity);
    if s >= 1.0 {
        return Some(2.0);
    }
    if p.identity && agree() { Some(s + 1.0) } else { align::viable(s, p.min_similarity) }
}

/// Leaf counts of one comparison, shared by its sub-walks.
type LeafCounts = Rc<RefCell<FxHashMap<NodeId, usize>>>;

/// What a comparison's walks share: memos, the similarity walks' step
/// count and bound, and the first reason the score is not to be trusted.
struct Shared {
    memo: Memo,
    leaves: leaves::LeafMemo,
    leaf_counts: LeafCounts,
    steps: Rc<std::cell::Cell<u64>>,
    budget: u64,
    over_limit: Rc<RefCell<Option<String>>>,
}

/// Tallies of element pairs of one comparison's similarity walks, shared
/// by its sub-walks.
type Memo = Rc<RefCell<FxHashMap<(NodeId, NodeId), Tally>>>;

impl<'m, 'v, M: Rules + ?Sized> Walk<'m, 'v, M> {
    pub(super) fn new(
        m: &'m M,
        keep: Keep,
        fields: bool,
        null: Node<'v>,
        texts: &'v Texts<'v>,
    ) -> Self {
        let shared = Shared {
            memo: Memo::default(),
            leaves: leaves::LeafMemo::default(),
            leaf_counts: LeafCounts::default(),
            steps: Rc::default(),
            budget: align::MAX_SIMILARITY_STEPS,
            over_limit: Rc::default(),
        };
        Walk::with_shared(m, keep, fields.then(FieldWalk::new), null, texts, shared)
    }

    /// A walk over `shared` memos and bounds (its comparison's own, or
    /// those of the comparison that starts it).
    fn with_shared(
        m: &'m M,
        keep: Keep,
        fields: Option<FieldWalk<'v>>,
        null: Node<'v>,
        texts: &'v Texts<'v>,
        shared: Shared,
    ) -> Self {
        let Shared { memo, leaves, leaf_counts, steps, budget, over_limit } = shared;
        Walk {
            m,
            keep,
            path: RefCell::new(Vec::new()),
            counts: Counts::default(),
            records: Vec::new(),
            omitted: 0,
            omitted_failed: 0,
            kept_path_bytes: 0,
            paths_full: false,
            fields,
            relabel: None,
            element: false,
            memo,
            leaves,
            leaf_counts,
            steps,
            budget,
            over_limit,
            similarity: false,
            null,
            texts,
            depth: 0,
            equal_subtrees: false,
        }
    }

    /// A walk that gives a pair's similarity for this one: it records
    /// nothing, and shares this comparison's memos, step count and bound,
    /// and the first reason its score is not to be trusted (none of them
    /// made anew for each pair weighed).
    pub(super) fn similarity_walk(&self) -> Self {
        let shared = Shared {
            memo: Rc::clone(&self.memo),
            leaves: Rc::clone(&self.leaves),
            leaf_counts: Rc::clone(&self.leaf_counts),
            steps: Rc::clone(&self.steps),
            budget: self.budget,
            over_limit: Rc::clone(&self.over_limit),
        };
        let mut sub = Walk::with_shared(self.m, Keep::None, None, self.null, self.texts, shared);
        sub.similarity = true;
        sub
    }

    /// Whether, under these rules, an equal subtree can be counted without
    /// walking it: its leaves then all match, and nothing else of the walk
    /// depends on them one by one.
    fn counts_equal_subtrees(&self, weighted: bool) -> bool {
        let pol = self.m.policy();
        self.m.equal_leaves_match()
            && !weighted
            && self.keep != Keep::All
            && equal_arrays_pair_in_place(&pol.align)
    }

    /// What a subtree costs under `c`.
    fn cost(&self, c: Cost, v: Node<'v>) -> f64 {
        #[allow(clippy::cast_precision_loss)]
        match c {
            Cost::Free => 0.0,
            Cost::One => 1.0,
            Cost::Leaves => self.leaves(v) as f64,
            Cost::LeavesAtLeastOne => self.leaves(v).max(1) as f64,
        }
    }

    /// The number of leaves of `v`, each container counted once per
    /// comparison.
    fn leaves(&self, v: Node<'v>) -> usize {
        if !v.is_container() {
            return 1;
        }
        let key = v.id();
        if let Some(&n) = self.leaf_counts.borrow().get(&key) {
            return n;
        }
        let n = stacker::maybe_grow(64 * 1024, 2 * 1024 * 1024, || {
            v.items().map(|x| self.leaves(x)).sum::<usize>()
                + v.entries().map(|(_, x)| self.leaves(x)).sum::<usize>()
        });
        self.leaf_counts.borrow_mut().insert(key, n);
        n
    }

    pub(super) fn run(
        mut self,
        e: Node<'v>,
        a: Node<'v>,
        weights: Option<&'v Value>,
    ) -> Comparison {
        let w = match weights {
            Some(Value::Object(m)) => W::Tree(m),
            _ => W::One,
        };
        self.equal_subtrees = self.counts_equal_subtrees(weights.is_some());
        let rule = self.rule();
        let tally = if rule.ignore { Tally::ZERO } else { self.walk(e, a, w, rule) };
        let fields = self.fields.map(FieldWalk::finish).unwrap_or_default();
        Comparison {
            tally,
            counts: self.counts,
            records: self.records,
            omitted: self.omitted,
            omitted_failed: self.omitted_failed,
            fields,
            over_limit: self.over_limit.take(),
        }
    }

    fn rule(&self) -> NodeRule {
        if self.m.has_rules() { self.m.rule_at(&self.path.borrow()) } else { NodeRule::default() }
    }

    fn walk(&mut self, e: Node<'v>, a: Node<'v>, w: W<'v>, rule: NodeRule) -> Tally {
        if let Some(t) = self.equal_subtree(e, a) {
            return t;
        }
        self.depth += 1;
        if self.similarity {
            self.steps.set(self.steps.get() + 1);
        }
        // The stack is checked every few levels (a level's frames take a
        // few hundred bytes, far below the margin).
        let t = if self.depth % 16 == 1 {
            stacker::maybe_grow(64 * 1024, 2 * 1024 * 1024, || self.step(e, a, w, rule))
        } else {
            self.step(e, a, w, rule)
        };
        self.depth -= 1;
        t
    }

    fn step(&mut self, e: Node<'v>, a: Node<'v>, w: W<'v>, rule: NodeRule) -> Tally {
        if e.is_object() && a.is_object() {
            self.object(e, a, w, rule)
        } else if e.is_array() && a.is_array() {
            self.array(e, a, w, rule)
        } else if let Some((e, a)) = self.json_text(e, a, &rule) {
            self.step(e, a, w, rule)
        } else {
            self.leaf(e, a, rule)
        }
    }

    /// Whether a record with `outcome` is kept.
    fn keeps(&self, outcome: Outcome) -> bool {
        match self.keep {
            Keep::None => false,
            Keep::Failed => outcome != Outcome::Match,
            Keep::All => true,
        }
    }

    fn emit(&mut self, outcome: Outcome, e: Option<Node<'v>>, a: Option<Node<'v>>, score: f64) {
        self.emit_noted(outcome, e, a, score, None);
    }

    fn emit_noted(
        &mut self,
        outcome: Outcome,
        e: Option<Node<'v>>,
        a: Option<Node<'v>>,
        score: f64,
        note: Option<String>,
    ) {
        if let Some(f) = &mut self.fields {
            f.record(outcome, score);
        }
        if !self.keeps(outcome) {
            return;
        }
        let path = if self.records.len() < crate::limits::MAX_KEPT_DETAILS {
            self.kept_path()
        } else {
            None
        };
        if let Some(path) = path {
            self.records.push(Record {
                path,
                expected: e.map(|v| truncate(&shown(v, outcome))),
                actual: a.map(|v| truncate(&shown(v, outcome))),
                outcome,
                score,
                weight: 1.0,
                element: self.element,
                note,
            });
        } else {
            self.omitted += 1;
            if !outcome.passes() {
                self.omitted_failed += 1;
            }
        }
    }

    /// The path of the node being compared, owned, for a record to keep;
    /// `None` once the kept records' paths would pass
    /// [`crate::limits::MAX_KEPT_PATH_BYTES`] (and for every record after
    /// that one, so that no path is measured twice). A path is measured
    /// by what it holds in memory ([`Seg::kept_len`]), which is never less
    /// than what it prints in unquoted.
    pub(super) fn kept_path(&mut self) -> Option<JsonPath> {
        if self.paths_full {
            return None;
        }
        let path = self.path.borrow();
        let bytes =
            std::mem::size_of::<JsonPath>() + path.iter().map(|s| s.kept_len()).sum::<usize>();
        if self.kept_path_bytes + bytes > crate::limits::MAX_KEPT_PATH_BYTES {
            self.paths_full = true;
            return None;
        }
        self.kept_path_bytes += bytes;
        Some(JsonPath::from_segs(&path))
    }

    fn enter(&mut self, seg: Seg<'v>) {
        self.path.get_mut().push(seg);
        if let Some(f) = &mut self.fields {
            f.enter(seg);
        }
    }

    fn leave(&mut self) {
        self.path.get_mut().pop();
        if let Some(f) = &mut self.fields {
            f.leave();
        }
    }

    fn leaf(&mut self, e: Node<'v>, a: Node<'v>, rule: NodeRule) -> Tally {
        let containers = e.is_container() || a.is_container();
        // A leaf compared as `null` in place of an absent value, or a
        // container against a leaf, carries no comparator's note.
        let explains = self.relabel.is_none() && !containers;
        let (mut l, why) = self.checked_leaf(e, a, &rule, explains);
        let total = if containers { self.cost(self.m.policy().mismatch, e) } else { 1.0 };
        match (l.outcome, self.relabel) {
            (Outcome::Match, _) => self.counts.matched += 1,
            (Outcome::Partial, _) => self.counts.partial += 1,
            // Compared with `null` in place of an absent value: only the
            // side that exists has fields.
            (_, Some(Outcome::Missing)) => self.counts.missing += self.leaves(e).max(1) as u64,
            (_, Some(Outcome::Extra)) => self.counts.extra += self.leaves(a).max(1) as u64,
            _ if containers => {
                self.counts.missing += self.leaves(e).max(1) as u64;
                self.counts.extra += self.leaves(a).max(1) as u64;
            }
            _ => self.counts.wrong += 1,
        }
        if !containers {
            self.counts.credit += l.score;
        }
        if let Some(label) = self.relabel
            && l.outcome != Outcome::Match
        {
            l.outcome = label;
        }
        // A side compared as `null` in place of an absent value is shown
        // as absent.
        let shown_e = if self.relabel == Some(Outcome::Extra) { None } else { Some(e) };
        let shown_a = if self.relabel == Some(Outcome::Missing) { None } else { Some(a) };
        let note = if self.keeps(l.outcome) && explains { why } else { None };
        self.emit_noted(l.outcome, shown_e, shown_a, l.score, note);
        Tally::new(l.score * total, total)
    }

    /// Compares against `null` in place of an absent value.
    fn as_null(&mut self, e: Node<'v>, a: Node<'v>, label: Outcome, rule: NodeRule) -> Tally {
        let saved = self.relabel.replace(label);
        let t = self.walk(e, a, W::One, rule);
        self.relabel = saved;
        t
    }

    fn missing(&mut self, ev: Node<'v>, rule: NodeRule) -> Tally {
        let pol = self.m.policy();
        if pol.absent == Absent::AsNull && !self.element {
            return self.as_null(ev, self.null, Outcome::Missing, rule);
        }
        if !self.element && rule.absent_is_null.unwrap_or(false) && self.nullish(ev, &rule) {
            self.counts.matched += 1;
            self.counts.credit += 1.0;
            let note = self.null_note(ev, &rule);
            self.emit_noted(Outcome::Match, Some(ev), None, 1.0, note);
            return Tally::new(1.0, 1.0);
        }
        if rule.optional || pol.missing == Cost::Free {
            return Tally::ZERO;
        }
        self.counts.missing += self.leaves(ev).max(1) as u64;
        self.emit(Outcome::Missing, Some(ev), None, 0.0);
        Tally::new(0.0, self.cost(pol.missing, ev))
    }

    fn extra(&mut self, av: Node<'v>, parent: NodeRule, rule: NodeRule) -> Option<Tally> {
        let pol = self.m.policy();
        if pol.absent == Absent::AsNull && !self.element {
            return Some(self.as_null(self.null, av, Outcome::Extra, rule));
        }
        let c = parent.extra.unwrap_or(pol.extra);
        if c == Cost::Free || rule.ignore {
            return None;
        }
        if !self.element && rule.absent_is_null.unwrap_or(false) && self.nullish(av, &rule) {
            self.counts.matched += 1;
            self.counts.credit += 1.0;
            let note = self.null_note(av, &rule);
            self.emit_noted(Outcome::Match, None, Some(av), 1.0, note);
            return Some(Tally::new(1.0, 1.0));
        }
        self.counts.extra += self.leaves(av).max(1) as u64;
        self.emit(Outcome::Extra, None, Some(av), 0.0);
        Some(Tally::new(0.0, self.cost(c, av)))
    }

    /// Whether `v` equals `null` under `rule`: `null` itself, or a string
    /// the metric compares equal to `null` (an empty string under its
    /// null policy), so that it equals an absent key as `null` does.
    fn nullish(&self, v: Node<'v>, rule: &NodeRule) -> bool {
        v.is_null()
            || (v.kind() == crate::tree::Kind::String
                && self.m.leaf(self.null, v, rule).outcome == Outcome::Match)
    }

    /// Why a value that is not `null` itself equals an absent key, for
    /// its record.
    fn null_note(&self, v: Node<'v>, rule: &NodeRule) -> Option<String> {
        (!v.is_null() && self.keeps(Outcome::Match)).then(|| self.m.explain(self.null, v, rule))?
    }

    fn object(&mut self, em: Node<'v>, am: Node<'v>, w: W<'v>, rule: NodeRule) -> Tally {
        let pol = self.m.policy();
        let was_element = self.element;
        let mut acc = Acc::new(pol.aggregate);
        let leaf_if_empty = pol.empty_object_is_a_leaf(em.is_empty(), am.is_empty());
        if leaf_if_empty {
            self.emit(Outcome::Match, Some(self.null), Some(self.null), 1.0);
            self.counts.matched += 1;
            self.counts.credit += 1.0;
            acc.add(Tally::new(1.0, 1.0), 1.0);
        } else {
            // Both sides' members are sorted by key: one merge pass finds
            // each expected key's partner.
            let mut actual = am.entries().peekable();
            for (k, ev) in em.entries() {
                let partner = loop {
                    let Some(&(ak, av)) = actual.peek() else { break None };
                    match ak.cmp(k) {
                        std::cmp::Ordering::Less => {
                            actual.next();
                        }
                        std::cmp::Ordering::Equal => {
                            actual.next();
                            break Some(av);
                        }
                        std::cmp::Ordering::Greater => break None,
                    }
                };
                let (cw, kw) = w.child(k);
                self.enter(Seg::Key(k));
                self.element = false;
                let r = self.rule();
                if !r.ignore {
                    let t = match partner {
                        Some(av) => self.walk(ev, av, cw, r),
                        None => self.missing(ev, r),
                    };
                    acc.add(t, r.weight.unwrap_or(kw));
                }
                self.leave();
            }
        }
        if pol.keys == KeySet::Union || pol.empty_expected_object == Empty::Leaf && em.is_empty() {
            let mut expected = em.entries().map(|(k, _)| k).peekable();
            for (k, av) in am.entries() {
                let known = loop {
                    let Some(&ek) = expected.peek() else { break false };
                    match ek.cmp(k) {
                        std::cmp::Ordering::Less => {
                            expected.next();
                        }
                        std::cmp::Ordering::Equal => break true,
                        std::cmp::Ordering::Greater => break false,
                    }
                };
                if known {
                    continue;
                }
                let (_, kw) = w.child(k);
                self.enter(Seg::Key(k));
                self.element = false;
                let r = self.rule();
                if let Some(t) = self.extra(av, rule, r) {
                    acc.add(t, r.weight.unwrap_or(kw));
                }
                self.leave();
            }
        }
        self.element = was_element;
        acc.finish(em.is_empty() && am.is_empty())
    }
}

#[cfg(test)]
mod tests;
