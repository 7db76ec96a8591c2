//! The recursive walk behind [`super::compare`].

use std::cell::{OnceCell, RefCell};
use std::rc::Rc;

use serde_json::{Map, Value};

use super::align::{self, Pairs};
use super::fields::FieldTallies;
use super::identity::{Identities, key_similarity};
use super::{
    Absent, Aggregate, Align, Comparison, Cost, Empty, Keep, KeySet, NodeRule, Pairing, Record,
    Rules,
};
use super::{Counts, Tally};
use crate::detail::{Outcome, truncate};
use crate::fx::FxHashMap;
use crate::path::{JsonPath, Seg};
use crate::tree::{Node, NodeId};

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
        } else if self.weights > 0.0 {
            self.weighted / self.weights
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
    fields: Option<FieldTallies>,
    relabel: Option<Outcome>,
    element: bool,
    /// Tallies of element pairs of containers already compared in this
    /// comparison's similarity walks, by the pair's addresses: nested
    /// arrays ask for the same pair at every level above it (for the
    /// pairing, then for the score of the walk that asked), which would
    /// cost time quadratic in depth.
    memo: Memo,
    /// Leaf counts of subtrees already counted in this comparison, by
    /// address (a missing subtree is counted at every level above it).
    leaf_counts: LeafCounts,
    /// Levels walked by this comparison and its sub-walks: what its cost
    /// is counted in.
    /// (Counted in tests only: nothing outside them reads it.)
    #[cfg(test)]
    steps: Rc<std::cell::Cell<u64>>,
    /// Whether this walk only gives a pair's similarity (its counts are
    /// not read): it may take a pair's tally from [`Walk::memo`].
    similarity: bool,
    /// The first array of this comparison or its sub-walks paired by
    /// position because it had too many unmatched elements.
    over_limit: Rc<RefCell<Option<String>>>,
    /// `null`, compared in place of an absent value.
    null: Node<'v>,
    /// Levels of [`Walk::walk`] now running.
    depth: usize,
    /// Whether equal subtrees may be counted without a walk (see
    /// [`Rules::equal_leaves_match`]); set in [`Walk::run`].
    equal_subtrees: bool,
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

/// Tallies of element pairs of one comparison's similarity walks, shared
/// by its sub-walks.
type Memo = Rc<RefCell<FxHashMap<(NodeId, NodeId), Tally>>>;

impl<'m, 'v, M: Rules + ?Sized> Walk<'m, 'v, M> {
    pub(super) fn new(m: &'m M, keep: Keep, fields: bool, null: Node<'v>) -> Self {
        Walk {
            m,
            keep,
            path: RefCell::new(Vec::new()),
            counts: Counts::default(),
            records: Vec::new(),
            fields: fields.then(FieldTallies::new),
            relabel: None,
            element: false,
            memo: Memo::default(),
            leaf_counts: LeafCounts::default(),
            #[cfg(test)]
            steps: Rc::default(),
            over_limit: Rc::default(),
            similarity: false,
            null,
            depth: 0,
            equal_subtrees: false,
        }
    }

    /// Whether, under these rules, an equal subtree can be counted without
    /// walking it: its leaves then all match, and nothing else of the walk
    /// depends on them one by one.
    fn counts_equal_subtrees(&self, weighted: bool) -> bool {
        let pol = self.m.policy();
        self.m.equal_leaves_match()
            && !self.m.has_rules()
            && !weighted
            && self.keep != Keep::All
            && self.fields.is_none()
            && matches!(pol.align, Align::Positional | Align::SetIfScalars)
    }

    /// The tally of two equal containers when [`Walk::equal_subtrees`]
    /// allows counting them at once: every scalar leaf a match worth 1,
    /// every empty container too where the policy counts it (as
    /// [`Walk::array`] and [`Walk::object`] do), and an array of scalars
    /// compared as a set one point per distinct member (as
    /// [`Walk::scalar_set`] gives two equal arrays). Summed, that is one
    /// point per leaf; averaged, a perfect 1. `None` when the nodes differ
    /// or may not be counted so.
    fn equal_subtree(&mut self, e: Node<'v>, a: Node<'v>) -> Option<Tally> {
        if !self.equal_subtrees
            || self.relabel.is_some()
            || self.depth >= EQUAL_SUBTREE_DEPTH
            || !e.is_container()
            || !super::nodes_equal(e, a)
        {
            return None;
        }
        let pol = self.m.policy();
        let sets = matches!(pol.align, Align::SetIfScalars);
        let mut leaves: u64 = 0;
        let mut stack = vec![e];
        while let Some(v) = stack.pop() {
            if !v.is_container() {
                leaves += 1;
            } else if v.is_empty() {
                // Equal empty objects are empty on both sides.
                let counted = if v.is_array() {
                    pol.empty_arrays_are_a_leaf()
                } else {
                    pol.empty_object_is_a_leaf(true, true)
                };
                leaves += u64::from(counted);
            } else if sets && v.is_array() && !v.items().any(|x| x.is_container()) {
                let items: Vec<Node<'v>> = v.items().collect();
                leaves += align::ScalarSet::new(&items).items().len() as u64;
            } else {
                stack.extend(v.items());
                stack.extend(v.entries().map(|(_, x)| x));
            }
        }
        self.counts.matched += leaves;
        // Added one leaf at a time, as the walk adds them: the same sum to
        // the last bit.
        for _ in 0..leaves {
            self.counts.credit += 1.0;
        }
        if pol.aggregate == Aggregate::Mean {
            return Some(Tally::new(1.0, 1.0));
        }
        #[allow(clippy::cast_precision_loss)]
        let n = leaves as f64;
        Some(Tally::new(n, n))
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
        Comparison {
            tally,
            counts: self.counts,
            records: self.records,
            fields: self.fields.map(FieldTallies::finish).unwrap_or_default(),
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
        #[cfg(test)]
        self.steps.set(self.steps.get() + 1);
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
        if self.keeps(outcome) {
            self.records.push(Record {
                path: JsonPath::from_segs(&self.path.borrow()),
                expected: e.map(|v| truncate(&shown(v, outcome))),
                actual: a.map(|v| truncate(&shown(v, outcome))),
                outcome,
                score,
                weight: 1.0,
                element: self.element,
                note,
            });
        }
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
        let mut l = self.m.leaf(e, a, &rule);
        let containers = e.is_container() || a.is_container();
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
        let note = if self.keeps(l.outcome) && self.relabel.is_none() && !containers {
            self.m.explain(e, a, &rule)
        } else {
            None
        };
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
        if !self.element && rule.absent_is_null.unwrap_or(false) && ev.is_null() {
            self.counts.matched += 1;
            self.counts.credit += 1.0;
            self.emit(Outcome::Match, Some(ev), None, 1.0);
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
        if !self.element && rule.absent_is_null.unwrap_or(false) && av.is_null() {
            self.counts.matched += 1;
            self.counts.credit += 1.0;
            self.emit(Outcome::Match, None, Some(av), 1.0);
            return Some(Tally::new(1.0, 1.0));
        }
        self.counts.extra += self.leaves(av).max(1) as u64;
        self.emit(Outcome::Extra, None, Some(av), 0.0);
        Some(Tally::new(0.0, self.cost(c, av)))
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

    fn array(&mut self, ea: Node<'v>, aa: Node<'v>, w: W<'v>, rule: NodeRule) -> Tally {
        let ea: &[Node<'v>] = &ea.items().collect::<Vec<_>>();
        let aa: &[Node<'v>] = &aa.items().collect::<Vec<_>>();
        let pol = self.m.policy();
        if ea.is_empty() && aa.is_empty() {
            if pol.empty_arrays_are_a_leaf() {
                self.counts.matched += 1;
                self.counts.credit += 1.0;
                self.emit(Outcome::Match, Some(self.null), Some(self.null), 1.0);
                return Tally::new(1.0, 1.0);
            }
            return Tally::ZERO;
        }
        let align = rule.align.map_or(&pol.align, |i| self.m.alignment(i));
        let scalars = !ea.iter().chain(aa).any(|v| v.is_container());
        // The identifying fields, read at most once per array: by the
        // pairing when a pair is not plausible on similarity alone, and by
        // the pairs' records.
        let ids: OnceCell<Identities<'v>> = OnceCell::new();
        let pairs: Pairs = match align {
            Align::SetIfScalars if scalars => return self.scalar_set(ea, aa),
            Align::Positional | Align::SetIfScalars => align::positional(ea.len(), aa.len()),
            Align::ByKey { keys, fallback } => {
                let sim = |i, j| self.pair_similarity(ea, aa, i, j);
                match fallback {
                    Some(p) => {
                        let weigh = |i: usize, j: usize| {
                            let s = (sim(i, j) + key_similarity(ea[i], aa[j], keys)) / 2.0;
                            plausible(s, p, || {
                                ids.get_or_init(|| Identities::new(ea, aa)).agree(i, j).is_some()
                            })
                        };
                        align::by_key(ea, aa, keys, sim, Some(&weigh))
                    }
                    None => align::by_key(ea, aa, keys, sim, None),
                }
            }
            Align::Unordered => self.assign(ea, aa, None, &ids),
            Align::Auto(_) if scalars => self.assign(ea, aa, None, &ids),
            Align::Assignment(p) | Align::Auto(p) => self.assign(ea, aa, Some(*p), &ids),
        };
        let was_element = self.element;
        let mut acc = Acc::new(pol.aggregate);
        for (i, j) in pairs {
            self.enter(Seg::Pair { expected: i, actual: j });
            self.element = true;
            let r = self.rule();
            if !r.ignore {
                let wt = r.weight.unwrap_or(1.0);
                match (i, j) {
                    (Some(i), Some(j)) => {
                        let at = self.records.len();
                        let t = self.element_pair(ea[i], aa[j], w, r);
                        acc.add(t, wt);
                        if self.keep != Keep::None
                            && self.m.report_pairs()
                            && !matches!(align, Align::Positional | Align::SetIfScalars)
                            && ea[i].is_container()
                            && self.records[at..].iter().any(|x| x.outcome != Outcome::Match)
                        {
                            let ids = ids.get_or_init(|| Identities::new(ea, aa));
                            let note = self.pair_note(ea, aa, (i, j), align, ids);
                            let rec = Record {
                                path: JsonPath::from_segs(&self.path.borrow()),
                                expected: None,
                                actual: None,
                                outcome: Outcome::Match,
                                score: 1.0,
                                weight: 1.0,
                                element: true,
                                note: Some(note),
                            };
                            self.records.insert(at, rec);
                        }
                    }
                    (Some(i), None) if pol.surplus_elements => {
                        let t = self.missing(ea[i], r);
                        acc.add(t, wt);
                    }
                    (None, Some(j)) if pol.surplus_elements => {
                        if let Some(t) = self.extra(aa[j], rule, r) {
                            acc.add(t, wt);
                        }
                    }
                    _ => {}
                }
            }
            self.leave();
        }
        self.element = was_element;
        acc.finish(false)
    }

    /// Pairs by assignment: under `pairing`, or (without) only equal
    /// elements. The identifying fields `ids` are read only when some pair
    /// is not equal.
    fn assign(
        &self,
        ea: &[Node<'v>],
        aa: &[Node<'v>],
        pairing: Option<Pairing>,
        ids: &OnceCell<Identities<'v>>,
    ) -> Pairs {
        let paired = match pairing {
            None => align::assignment(ea, aa, &|i, j| {
                align::viable(self.pair_similarity(ea, aa, i, j), 1.0)
            }),
            Some(p) => align::assignment(ea, aa, &|i, j| {
                plausible(self.pair_similarity(ea, aa, i, j), &p, || {
                    ids.get_or_init(|| Identities::new(ea, aa)).agree(i, j).is_some()
                })
            }),
        };
        paired.unwrap_or_else(|over| {
            let mut first = self.over_limit.borrow_mut();
            if first.is_none() {
                let (n, m) = over.unmatched;
                let path = JsonPath::from_segs(&self.path.borrow());
                *first = Some(format!(
                    "the array at {path} has {n} reference and {m} output elements without an \
                     equal one: pairing them by similarity would weigh {} pairs, past the limit \
                     of {}; give the array a key (`key: [field]`) or compare it in order \
                     (`array: ordered`)",
                    n.saturating_mul(m),
                    align::MAX_SIMILARITY_PAIRS
                ));
            }
            over.pairs
        })
    }

    /// Why elements `i` and `j` were paired, for the pair's record.
    fn pair_note(
        &self,
        ea: &[Node<'v>],
        aa: &[Node<'v>],
        (i, j): (usize, usize),
        al: &Align,
        ids: &Identities<'v>,
    ) -> String {
        let s = self.pair_similarity(ea, aa, i, j);
        let mut why = match al {
            Align::ByKey { keys, .. }
                if keys.iter().all(|k| match (ea[i].get(k), aa[j].get(k)) {
                    (Some(x), Some(y)) => align::same_scalar(x, y),
                    _ => false,
                }) =>
            {
                format!("paired on key {}", keys.join(", "))
            }
            Align::ByKey { keys, .. } => format!(
                "paired though the key differs (key similarity {:.3})",
                key_similarity(ea[i], aa[j], keys)
            ),
            _ => String::from("paired by similarity"),
        };
        if let Some(k) = ids.agree(i, j) {
            why.push_str(&format!("; identifying field `{k}` agrees"));
        }
        format!("reference element {i} paired with output element {j}: similarity {s:.3}, {why}")
    }

    /// The tally of a pair of array elements at the current path: in a
    /// similarity walk, the one a similarity walk of the pair already
    /// gave, if any (the pair is then compared exactly as there: same
    /// path, rule and weights, nothing recorded).
    fn element_pair(&mut self, e: Node<'v>, a: Node<'v>, w: W<'v>, rule: NodeRule) -> Tally {
        let Some(k) = self.memo_key(e, a, w) else { return self.walk(e, a, w, rule) };
        if let Some(&t) = self.memo.borrow().get(&k) {
            return t;
        }
        let t = self.walk(e, a, w, rule);
        self.memo.borrow_mut().insert(k, t);
        t
    }

    /// The memo's key for a pair of containers compared by a similarity
    /// walk (it keeps nothing but its tally), with no relabelling or
    /// weights.
    fn memo_key(&self, e: Node<'v>, a: Node<'v>, w: W<'v>) -> Option<(NodeId, NodeId)> {
        let plain = self.similarity
            && self.keep == Keep::None
            && self.fields.is_none()
            && self.relabel.is_none()
            && matches!(w, W::One);
        (plain && e.is_container() && a.is_container()).then(|| (e.id(), a.id()))
    }

    /// Similarity in [0, 1] of reference element `i` and output element
    /// `j` of the arrays at the current path, without records or counts.
    fn pair_similarity(&self, ea: &[Node<'v>], aa: &[Node<'v>], i: usize, j: usize) -> f64 {
        let (Some(&e), Some(&a)) = (ea.get(i), aa.get(j)) else { return 0.0 };
        let memo_key = (e.is_container() && a.is_container()).then(|| (e.id(), a.id()));
        if let Some(k) = memo_key
            && let Some(&t) = self.memo.borrow().get(&k)
        {
            return t.ratio_or(1.0);
        }
        let mut sub = Walk::new(self.m, Keep::None, false, self.null);
        sub.memo = Rc::clone(&self.memo);
        sub.leaf_counts = Rc::clone(&self.leaf_counts);
        #[cfg(test)]
        {
            sub.steps = Rc::clone(&self.steps);
        }
        sub.over_limit = Rc::clone(&self.over_limit);
        sub.similarity = true;
        // The path only serves rule lookups here (no records, no tallies).
        // A similarity walk lends its own path to the walks it starts
        // (it waits for them), so nested arrays cost time and memory
        // linear in their depth, not a copy of the path per level.
        let lend = self.keep == Keep::None && self.fields.is_none();
        let rules = self.m.has_rules();
        if rules {
            let mut path = if lend { self.path.take() } else { self.path.borrow().clone() };
            path.push(Seg::Pair { expected: Some(i), actual: Some(j) });
            sub.path = RefCell::new(path);
        }
        sub.element = true;
        let rule = sub.rule();
        let t = if rule.ignore { Tally::new(1.0, 1.0) } else { sub.walk(e, a, W::One, rule) };
        if rules && lend {
            let mut path = sub.path.take();
            path.pop();
            *self.path.borrow_mut() = path;
        }
        if let Some(k) = memo_key {
            self.memo.borrow_mut().insert(k, t);
        }
        t.ratio_or(1.0)
    }

    /// Arrays of scalars as sets: each distinct value counts once.
    fn scalar_set(&mut self, ea: &[Node<'v>], aa: &[Node<'v>]) -> Tally {
        let se = align::ScalarSet::new(ea);
        let sa = align::ScalarSet::new(aa);
        // Set members are array elements: their records say so.
        let was_element = std::mem::replace(&mut self.element, true);
        let mut t = Tally::ZERO;
        for &v in se.items() {
            t.total += 1.0;
            if sa.contains(v) {
                t.matched += 1.0;
                self.counts.matched += 1;
                self.counts.credit += 1.0;
                self.emit(Outcome::Match, Some(v), Some(v), 1.0);
            } else {
                self.counts.missing += 1;
                self.emit(Outcome::Missing, Some(v), None, 0.0);
            }
        }
        for &v in sa.items() {
            if !se.contains(v) {
                t.total += 1.0;
                self.counts.extra += 1;
                self.emit(Outcome::Extra, None, Some(v), 0.0);
            }
        }
        self.element = was_element;
        t
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::detail::Outcome;
    use crate::engine::{
        Absent, Aggregate, Align, Comparison, Cost, Counts, Empty, FieldTally, Keep, KeySet, Leaf,
        NodeRule, Pairing, Policy, Rules, compare, json_equal,
    };
    use crate::path::{Seg, format_path};
    use crate::tree::{Node, Tree};

    use Outcome::{Extra, Match, Missing, Partial, TypeMismatch, ValueMismatch};

    /// Leaves: equal values match, strings equal but for case earn half
    /// credit, other values of one type are wrong, of two types mismatched.
    fn exact_leaf(e: &Value, a: &Value) -> Leaf {
        match (e, a) {
            _ if json_equal(e, a) => Leaf::MATCH,
            (Value::String(x), Value::String(y)) if x.to_lowercase() == y.to_lowercase() => {
                Leaf::graded(0.5)
            }
            _ if std::mem::discriminant(e) == std::mem::discriminant(a) => Leaf::WRONG,
            _ => Leaf::TYPE,
        }
    }

    /// A policy and [`exact_leaf`]; no per-path rules.
    struct Exact(Policy);

    impl Rules for Exact {
        fn policy(&self) -> &Policy {
            &self.0
        }

        fn leaf(&self, e: Node<'_>, a: Node<'_>, _: &NodeRule) -> Leaf {
            crate::json::with_values(e, a, exact_leaf)
        }
    }

    /// [`Exact`] with per-path rules, by printed path.
    struct Ruled(Policy, Vec<(&'static str, NodeRule)>);

    impl Rules for Ruled {
        fn policy(&self) -> &Policy {
            &self.0
        }

        fn leaf(&self, e: Node<'_>, a: Node<'_>, _: &NodeRule) -> Leaf {
            crate::json::with_values(e, a, exact_leaf)
        }

        fn has_rules(&self) -> bool {
            true
        }

        fn rule_at(&self, path: &[Seg<'_>]) -> NodeRule {
            let p = format_path(path);
            self.1.iter().find(|(at, _)| *at == p).map(|(_, r)| *r).unwrap_or_default()
        }
    }

    /// Sums leaves over the union of keys; absent keys, extra keys and
    /// mistyped containers cost one; positional arrays; no empty leaves.
    fn sum() -> Policy {
        Policy {
            aggregate: Aggregate::Sum,
            keys: KeySet::Union,
            absent: Absent::Missing,
            missing: Cost::One,
            extra: Cost::One,
            mismatch: Cost::One,
            surplus_elements: true,
            align: Align::Positional,
            empty_arrays: Empty::Nothing,
            empty_expected_object: Empty::Nothing,
        }
    }

    fn mean() -> Policy {
        Policy { aggregate: Aggregate::Mean, ..sum() }
    }

    fn counts(matched: u64, partial: u64, wrong: u64, missing: u64, extra: u64) -> Counts {
        #[allow(clippy::cast_precision_loss)]
        let credit = matched as f64 + 0.5 * partial as f64;
        Counts { matched, partial, wrong, missing, extra, credit }
    }

    /// A record as `(path, outcome, expected, actual)`.
    type Rec<'a> = (&'a str, Outcome, Option<&'a str>, Option<&'a str>);

    /// One comparison and what it must come to.
    struct Case {
        label: &'static str,
        policy: Policy,
        expected: Value,
        actual: Value,
        weights: Option<Value>,
        keep: Keep,
        tally: (f64, f64),
        counts: Counts,
        records: Vec<Rec<'static>>,
    }

    impl Case {
        #[allow(clippy::too_many_arguments)]
        fn new(
            label: &'static str,
            policy: Policy,
            expected: Value,
            actual: Value,
            keep: Keep,
            tally: (f64, f64),
            counts: Counts,
            records: Vec<Rec<'static>>,
        ) -> Self {
            Case { label, policy, expected, actual, weights: None, keep, tally, counts, records }
        }

        fn weights(mut self, w: Value) -> Self {
            self.weights = Some(w);
            self
        }

        fn check(&self) {
            let c = compare(
                &Exact(self.policy.clone()),
                &self.expected,
                &self.actual,
                self.weights.as_ref(),
                self.keep,
                false,
            );
            check(self.label, &c, self.tally, &self.counts, &self.records);
            assert!(c.fields.is_empty(), "{}: field tallies without `fields`", self.label);
        }
    }

    #[track_caller]
    fn check(label: &str, c: &Comparison, tally: (f64, f64), counts: &Counts, records: &[Rec<'_>]) {
        assert!(
            (c.tally.matched - tally.0).abs() < 1e-12 && (c.tally.total - tally.1).abs() < 1e-12,
            "{label}: tally {:?}, expected {tally:?}",
            c.tally
        );
        assert_eq!(&c.counts, counts, "{label}: counts");
        assert_eq!(shown(c), owned(records), "{label}: records");
    }

    fn shown(c: &Comparison) -> Vec<(String, Outcome, Option<String>, Option<String>)> {
        c.records
            .iter()
            .map(|r| (r.path.to_string(), r.outcome, r.expected.clone(), r.actual.clone()))
            .collect()
    }

    fn owned(records: &[Rec<'_>]) -> Vec<(String, Outcome, Option<String>, Option<String>)> {
        records
            .iter()
            .map(|&(p, o, e, a)| (p.to_owned(), o, e.map(str::to_owned), a.map(str::to_owned)))
            .collect()
    }

    fn field(path: &str, counts: Counts) -> FieldTally {
        FieldTally { path: path.to_owned(), counts }
    }

    #[test]
    fn union_and_expected_key_sets() {
        let e = json!({"a": 1, "b": 2, "s": "Abc"});
        let a = json!({"a": 1, "c": 3, "s": "abc"});
        let expected_keys = Policy { keys: KeySet::Expected, ..sum() };
        let cases = [
            Case::new(
                "union: output-only keys are extra",
                sum(),
                e.clone(),
                a.clone(),
                Keep::All,
                (1.5, 4.0),
                counts(1, 1, 0, 1, 1),
                vec![
                    ("$.a", Match, Some("1"), Some("1")),
                    ("$.b", Missing, Some("2"), None),
                    ("$.s", Partial, Some("Abc"), Some("abc")),
                    ("$.c", Extra, None, Some("3")),
                ],
            ),
            Case::new(
                "expected: output-only keys are free",
                expected_keys.clone(),
                e.clone(),
                a.clone(),
                Keep::All,
                (1.5, 3.0),
                counts(1, 1, 0, 1, 0),
                vec![
                    ("$.a", Match, Some("1"), Some("1")),
                    ("$.b", Missing, Some("2"), None),
                    ("$.s", Partial, Some("Abc"), Some("abc")),
                ],
            ),
            Case::new(
                "expected: free at every level",
                expected_keys,
                json!({"o": {"x": 1}}),
                json!({"o": {"x": 1, "y": 2}, "z": 3}),
                Keep::All,
                (1.0, 1.0),
                counts(1, 0, 0, 0, 0),
                vec![("$.o.x", Match, Some("1"), Some("1"))],
            ),
        ];
        cases.iter().for_each(Case::check);
    }

    #[test]
    fn absent_as_null_or_missing() {
        let e = json!({"a": 1, "b": 2, "n": null, "o": {"x": 1, "y": 2}});
        let a = json!({"a": 1, "c": null, "d": 4});
        let as_null = Policy { absent: Absent::AsNull, ..sum() };
        let cases = [
            Case::new(
                "as null: absent equals null; a subtree costs `mismatch`, counts its leaves",
                as_null.clone(),
                e.clone(),
                a.clone(),
                Keep::All,
                (3.0, 6.0),
                counts(3, 0, 0, 3, 1),
                vec![
                    ("$.a", Match, Some("1"), Some("1")),
                    ("$.b", Missing, Some("2"), None),
                    ("$.n", Match, Some("null"), None),
                    ("$.o", Missing, Some(r#"{"x":1,"y":2}"#), None),
                    ("$.c", Match, None, Some("null")),
                    ("$.d", Extra, None, Some("4")),
                ],
            ),
            Case::new(
                "missing: absent is missing, even where the other side is null",
                sum(),
                e,
                a,
                Keep::All,
                (1.0, 6.0),
                counts(1, 0, 0, 4, 2),
                vec![
                    ("$.a", Match, Some("1"), Some("1")),
                    ("$.b", Missing, Some("2"), None),
                    ("$.n", Missing, Some("null"), None),
                    ("$.o", Missing, Some(r#"{"x":1,"y":2}"#), None),
                    ("$.c", Extra, None, Some("null")),
                    ("$.d", Extra, None, Some("4")),
                ],
            ),
            Case::new(
                "as null: array elements are still missing and extra",
                as_null,
                json!({"l": [1, 2], "m": [3]}),
                json!({"l": [1], "m": [3, null]}),
                Keep::Failed,
                (2.0, 4.0),
                counts(2, 0, 0, 1, 1),
                vec![("$.l[1]", Missing, Some("2"), None), ("$.m[1]", Extra, None, Some("null"))],
            ),
        ];
        cases.iter().for_each(Case::check);
    }

    #[test]
    fn costs_of_missing_extra_and_mistyped_subtrees() {
        let e = json!({"e": {}, "k": 1, "m": [1, 2], "o": {"x": 1, "y": [2, 3]}});
        let a = json!({"k": 1, "m": "x", "p": {"q": [1, 2, 3]}});
        let costs = |c: Cost| Policy { missing: c, extra: c, mismatch: c, ..sum() };
        let every: Vec<Rec<'static>> = vec![
            ("$.e", Missing, Some("{}"), None),
            ("$.k", Match, Some("1"), Some("1")),
            ("$.m", TypeMismatch, Some("[1,2]"), Some("\"x\"")),
            ("$.o", Missing, Some(r#"{"x":1,"y":[2,3]}"#), None),
            ("$.p", Extra, None, Some(r#"{"q":[1,2,3]}"#)),
        ];
        let cases = [
            // Free: absent and extra subtrees are not compared at all; a
            // mistyped one is, at no cost.
            Case::new(
                "free",
                costs(Cost::Free),
                e.clone(),
                a.clone(),
                Keep::All,
                (1.0, 1.0),
                counts(1, 0, 0, 2, 1),
                vec![every[1], every[2]],
            ),
            Case::new(
                "one per subtree",
                costs(Cost::One),
                e.clone(),
                a.clone(),
                Keep::All,
                (1.0, 5.0),
                counts(1, 0, 0, 6, 4),
                every.clone(),
            ),
            Case::new(
                "leaves (an empty subtree costs nothing)",
                costs(Cost::Leaves),
                e.clone(),
                a.clone(),
                Keep::All,
                (1.0, 9.0),
                counts(1, 0, 0, 6, 4),
                every.clone(),
            ),
            Case::new(
                "leaves, at least one",
                costs(Cost::LeavesAtLeastOne),
                e,
                a,
                Keep::All,
                (1.0, 10.0),
                counts(1, 0, 0, 6, 4),
                every,
            ),
        ];
        cases.iter().for_each(Case::check);
    }

    #[test]
    fn surplus_elements_count_or_not() {
        let e = json!({"l": [1, 2, 3], "m": [7]});
        let a = json!({"l": [1, 5], "m": [7, 8]});
        let cases = [
            Case::new(
                "on",
                sum(),
                e.clone(),
                a.clone(),
                Keep::Failed,
                (2.0, 5.0),
                counts(2, 0, 1, 1, 1),
                vec![
                    ("$.l[1]", ValueMismatch, Some("2"), Some("5")),
                    ("$.l[2]", Missing, Some("3"), None),
                    ("$.m[1]", Extra, None, Some("8")),
                ],
            ),
            Case::new(
                "off",
                Policy { surplus_elements: false, ..sum() },
                e.clone(),
                a.clone(),
                Keep::Failed,
                (2.0, 3.0),
                counts(2, 0, 1, 0, 0),
                vec![("$.l[1]", ValueMismatch, Some("2"), Some("5"))],
            ),
            Case::new(
                "off under the mean: unpaired elements change nothing",
                Policy { surplus_elements: false, ..mean() },
                json!({"l": [1, 2, 3]}),
                json!({"l": [1]}),
                Keep::Failed,
                (1.0, 1.0),
                counts(1, 0, 0, 0, 0),
                vec![],
            ),
        ];
        cases.iter().for_each(Case::check);
        // Records of elements say so; records of keys do not.
        let c = compare(&Exact(sum()), &e, &a, None, Keep::All, false);
        let elements: Vec<(String, bool)> =
            c.records.iter().map(|r| (r.path.to_string(), r.element)).collect();
        assert_eq!(
            elements,
            [
                ("$.l[0]", true),
                ("$.l[1]", true),
                ("$.l[2]", true),
                ("$.m[0]", true),
                ("$.m[1]", true)
            ]
            .map(|(p, e)| (p.to_owned(), e))
        );
        let c = compare(&Exact(sum()), &json!({"k": 1}), &json!({}), None, Keep::All, false);
        assert!(!c.records[0].element);
    }

    #[test]
    fn positional_set_and_unordered_alignment() {
        let e = json!({"t": ["a", "b", "b", "c"]});
        let a = json!({"t": ["c", "a", "d"]});
        let align = |align: Align| Policy { align, ..sum() };
        let cases = [
            Case::new(
                "positional",
                align(Align::Positional),
                e.clone(),
                a.clone(),
                Keep::All,
                (0.0, 4.0),
                counts(0, 0, 3, 1, 0),
                vec![
                    ("$.t[0]", ValueMismatch, Some("a"), Some("c")),
                    ("$.t[1]", ValueMismatch, Some("b"), Some("a")),
                    ("$.t[2]", ValueMismatch, Some("b"), Some("d")),
                    ("$.t[3]", Missing, Some("c"), None),
                ],
            ),
            // Each distinct value once; the records sit at the array's path.
            Case::new(
                "set of scalars",
                align(Align::SetIfScalars),
                e.clone(),
                a.clone(),
                Keep::All,
                (2.0, 4.0),
                counts(2, 0, 0, 1, 1),
                vec![
                    ("$.t", Match, Some("a"), Some("a")),
                    ("$.t", Missing, Some("b"), None),
                    ("$.t", Match, Some("c"), Some("c")),
                    ("$.t", Extra, None, Some("d")),
                ],
            ),
            Case::new(
                "set of scalars: containers inside align by position",
                align(Align::SetIfScalars),
                json!({"t": [{"a": 1}, 2]}),
                json!({"t": [2, {"a": 1}]}),
                Keep::All,
                (0.0, 2.0),
                counts(0, 0, 0, 2, 2),
                vec![
                    ("$.t[0]", TypeMismatch, Some(r#"{"a":1}"#), Some("2")),
                    ("$.t[1]", TypeMismatch, Some("2"), Some(r#"{"a":1}"#)),
                ],
            ),
            // A multiset: equal elements pair wherever they are; the rest
            // are missing and extra (reference index, else output index).
            Case::new(
                "unordered",
                align(Align::Unordered),
                e.clone(),
                a.clone(),
                Keep::All,
                (2.0, 5.0),
                counts(2, 0, 0, 2, 1),
                vec![
                    ("$.t[0]", Match, Some("a"), Some("a")),
                    ("$.t[3]", Match, Some("c"), Some("c")),
                    ("$.t[1]", Missing, Some("b"), None),
                    ("$.t[2]", Missing, Some("b"), None),
                    ("$.t[2]", Extra, None, Some("d")),
                ],
            ),
        ];
        cases.iter().for_each(Case::check);
        // Similarities computed to pair elements leave no field tallies.
        let c = compare(&Exact(align(Align::Unordered)), &e, &a, None, Keep::None, true);
        assert_eq!(c.fields, [field("$.t[*]", counts(2, 0, 0, 2, 1))]);
        let c = compare(&Exact(align(Align::SetIfScalars)), &e, &a, None, Keep::None, true);
        assert_eq!(c.fields, [field("$.t", counts(2, 0, 0, 1, 1))]);
    }

    #[test]
    fn sum_and_mean_with_weights() {
        let e = json!({"a": 1, "b": 2, "o": {"x": 1, "y": 2}});
        let a = json!({"a": 1, "b": 3, "o": {"x": 1, "y": 0}});
        // `__o` is the weight of `o` itself; `x` and `y` weigh inside it.
        let w = json!({"a": 3, "b": 1, "o": {"__o": 2, "x": 1, "y": 3}});
        let zero = json!({"a": 0, "b": 0, "o": 0});
        let hide = json!({"b": 0, "o": {"__o": 4, "y": 0}});
        let odd = json!({"a": -1, "b": "x", "o": null});
        let wrong = vec![
            ("$.b", ValueMismatch, Some("2"), Some("3")),
            ("$.o.y", ValueMismatch, Some("2"), Some("0")),
        ];
        let case = |label, policy, tally| {
            Case::new(
                label,
                policy,
                e.clone(),
                a.clone(),
                Keep::Failed,
                tally,
                counts(2, 0, 2, 0, 0),
                wrong.clone(),
            )
        };
        let cases = [
            case("sum", sum(), (2.0, 4.0)),
            // a 3·1/3 + b 1·0/1 + o 2·(1·1 + 3·0)/(2·4).
            case("sum, weighted", sum(), (5.0, 12.0)).weights(w.clone()),
            case("mean", mean(), (0.5, 1.0)),
            // (3·1 + 1·0 + 2·(1·1 + 3·0)/4) / (3 + 1 + 2).
            case("mean, weighted", mean(), (7.0 / 12.0, 1.0)).weights(w),
            case("sum, zero weights", sum(), (0.0, 0.0)).weights(zero.clone()),
            // All weights 0: the plain mean.
            case("mean, zero weights", mean(), (0.5, 1.0)).weights(zero),
            case("sum, wrong fields weigh 0", sum(), (5.0, 5.0)).weights(hide.clone()),
            case("mean, wrong fields weigh 0", mean(), (1.0, 1.0)).weights(hide),
            // A negative weight is 0, one that is not a number is 1.
            case("sum, odd weights", sum(), (1.0, 3.0)).weights(odd.clone()),
            case("mean, odd weights", mean(), (0.5 / 2.0, 1.0)).weights(odd),
        ];
        cases.iter().for_each(Case::check);
        // Array elements take the array's own weights.
        let e = json!({"l": [{"p": 1, "q": 2}]});
        let a = json!({"l": [{"p": 1, "q": 3}]});
        let w = json!({"l": {"__l": 1, "p": 3, "q": 1}});
        let rec = vec![("$.l[0].q", ValueMismatch, Some("2"), Some("3"))];
        let per_element = [
            Case::new(
                "sum, elements",
                sum(),
                e.clone(),
                a.clone(),
                Keep::Failed,
                (3.0, 4.0),
                counts(1, 0, 1, 0, 0),
                rec.clone(),
            )
            .weights(w.clone()),
            Case::new(
                "mean, elements",
                mean(),
                e,
                a,
                Keep::Failed,
                (0.75, 1.0),
                counts(1, 0, 1, 0, 0),
                rec,
            )
            .weights(w),
        ];
        per_element.iter().for_each(Case::check);
    }

    #[test]
    fn path_rules_ignore_and_weigh() {
        let ignore = NodeRule { ignore: true, ..NodeRule::default() };
        let heavy = NodeRule { weight: Some(3.0), ..NodeRule::default() };
        let rules = Ruled(sum(), vec![("$.skip", ignore), ("$.z", ignore), ("$.b", heavy)]);
        let e = json!({"a": 1, "b": 2, "skip": 1});
        let a = json!({"a": 1, "b": 3, "skip": 2, "z": 1});
        let c = compare(&rules, &e, &a, None, Keep::Failed, false);
        check(
            "ignored paths and a weight",
            &c,
            (1.0, 4.0),
            &counts(1, 0, 1, 0, 0),
            &[("$.b", ValueMismatch, Some("2"), Some("3"))],
        );
        // A rule's weight wins over the weight tree's.
        let w = json!({"b": 0.5});
        let c = compare(&rules, &e, &a, Some(&w), Keep::None, false);
        assert_eq!((c.tally.matched, c.tally.total), (1.0, 4.0));
    }

    #[test]
    fn empty_arrays_and_objects() {
        let both = (json!({"o": {}}), json!({"o": {}}));
        let extra = (json!({"o": {}}), json!({"o": {"z": 1}}));
        let arrays = (json!({"l": []}), json!({"l": []}));
        let objects = |empty: Empty, keys: KeySet, aggregate: Aggregate| Policy {
            empty_expected_object: empty,
            keys,
            aggregate,
            ..sum()
        };
        let leaf_at = |p| (p, Match, Some("null"), Some("null"));
        let z = ("$.o.z", Extra, None, Some("1"));
        use Aggregate::{Mean, Sum};
        use Empty::{IfBoth, Nothing};
        use KeySet::{Expected, Union};
        #[rustfmt::skip]
        let cases = [
            ("nothing, both empty", objects(Nothing, Union, Sum), &both, (0.0, 0.0), counts(0, 0, 0, 0, 0), vec![]),
            ("nothing, output keys", objects(Nothing, Union, Sum), &extra, (0.0, 1.0), counts(0, 0, 0, 0, 1), vec![z]),
            ("if both, both empty", objects(IfBoth, Union, Sum), &both, (1.0, 1.0), counts(1, 0, 0, 0, 0), vec![leaf_at("$.o")]),
            ("if both, output keys", objects(IfBoth, Union, Sum), &extra, (0.0, 1.0), counts(0, 0, 0, 0, 1), vec![z]),
            ("if both, output keys free", objects(IfBoth, Expected, Sum), &extra, (0.0, 0.0), counts(0, 0, 0, 0, 0), vec![]),
            ("leaf, both empty", objects(Empty::Leaf, Union, Sum), &both, (1.0, 1.0), counts(1, 0, 0, 0, 0), vec![leaf_at("$.o")]),
            ("leaf, output keys", objects(Empty::Leaf, Union, Sum), &extra, (1.0, 2.0), counts(1, 0, 0, 0, 1), vec![leaf_at("$.o"), z]),
            // Under an empty reference object, output keys count even when
            // only expected keys are compared.
            ("leaf, output keys, expected keys", objects(Empty::Leaf, Expected, Sum), &extra, (1.0, 2.0), counts(1, 0, 0, 0, 1), vec![leaf_at("$.o"), z]),
            // The mean of nothing is 1 when both sides are empty, else 0.
            ("mean, both empty", objects(Nothing, Union, Mean), &both, (1.0, 1.0), counts(0, 0, 0, 0, 0), vec![]),
            ("mean, output keys free", objects(Nothing, Expected, Mean), &extra, (0.0, 1.0), counts(0, 0, 0, 0, 0), vec![]),
            ("arrays, nothing", sum(), &arrays, (0.0, 0.0), counts(0, 0, 0, 0, 0), vec![]),
            ("arrays, leaf", Policy { empty_arrays: Empty::Leaf, ..sum() }, &arrays, (1.0, 1.0), counts(1, 0, 0, 0, 0), vec![leaf_at("$.l")]),
            // Under the mean, two empty arrays are always a matched leaf.
            ("arrays, mean", mean(), &arrays, (1.0, 1.0), counts(1, 0, 0, 0, 0), vec![leaf_at("$.l")]),
        ];
        for (label, policy, (e, a), tally, counts, records) in cases {
            Case::new(label, policy, e.clone(), a.clone(), Keep::All, tally, counts, records)
                .check();
        }
    }

    #[test]
    fn keep_chooses_records_not_results() {
        let e = json!({"a": 1, "b": 2, "c": "X"});
        let a = json!({"a": 1, "b": 3, "c": "x"});
        let all = vec![
            ("$.a", Match, Some("1"), Some("1")),
            ("$.b", ValueMismatch, Some("2"), Some("3")),
            ("$.c", Partial, Some("X"), Some("x")),
        ];
        for (keep, records) in
            [(Keep::None, vec![]), (Keep::Failed, all[1..].to_vec()), (Keep::All, all.clone())]
        {
            let c = compare(&Exact(sum()), &e, &a, None, keep, false);
            check(&format!("{keep:?}"), &c, (1.5, 3.0), &counts(1, 1, 1, 0, 0), &records);
        }
        let c = compare(&Exact(sum()), &e, &a, None, Keep::All, false);
        let scores: Vec<f64> = c.records.iter().map(|r| r.score).collect();
        assert_eq!(scores, [1.0, 0.0, 0.5]);
    }

    #[test]
    fn field_tallies_use_wildcards_whatever_is_kept() {
        let e = json!({
            "a b": 1,
            "items": [{"price": 1, "sku": "A"}, {"price": 2, "sku": "B"}],
            "total": 3
        });
        let a = json!({
            "a b": 2,
            "items": [{"price": 1, "sku": "A"}, {"price": 5, "sku": "b"}, {"price": 7, "sku": "C"}],
            "total": 3
        });
        // One verdict per comparison: the extra element is one extra at
        // `$.items[*]`, though the walk's counts give it its two leaves.
        let want = [
            field("$['a b']", counts(0, 0, 1, 0, 0)),
            field("$.items[*].price", counts(1, 0, 1, 0, 0)),
            field("$.items[*].sku", counts(1, 1, 0, 0, 0)),
            field("$.items[*]", counts(0, 0, 0, 0, 1)),
            field("$.total", counts(1, 0, 0, 0, 0)),
        ];
        for keep in [Keep::None, Keep::Failed, Keep::All] {
            let c = compare(&Exact(sum()), &e, &a, None, keep, true);
            assert_eq!(c.fields, want, "{keep:?}");
            assert!((c.tally.matched - 3.5).abs() < 1e-12 && c.tally.total == 7.0, "{:?}", c.tally);
            assert_eq!(c.counts, counts(3, 1, 2, 0, 2), "{keep:?}");
        }
        let c = compare(&Exact(sum()), &e, &a, None, Keep::Failed, false);
        assert!(c.fields.is_empty());
        let failed: Vec<String> = c.records.iter().map(|r| r.path.to_string()).collect();
        assert_eq!(failed, ["$['a b']", "$.items[1].price", "$.items[1].sku", "$.items[2]"]);
    }

    /// `depth` levels of `{"a": …}` or `[…]` around `leaf`, built without
    /// recursion.
    fn nested(depth: usize, object: bool, leaf: Value) -> Value {
        let mut v = leaf;
        for _ in 0..depth {
            v = if object {
                Value::Object(std::iter::once((String::from("a"), v)).collect())
            } else {
                Value::Array(vec![v])
            };
        }
        v
    }

    #[test]
    fn arrays_too_large_to_pair_by_similarity_say_so_and_pair_by_position() {
        // Elements of equal `k` are half alike: plausible pairs.
        let pairing = Pairing { min_similarity: 0.4, identity: true };
        let rules = Exact(Policy { align: Align::Assignment(pairing), ..sum() });
        let side = |n: usize, tag: &str| -> Value {
            let items: Vec<Value> = (0..n).map(|i| json!({"k": i, "v": tag})).collect();
            json!({"items": items, "same": [1, 2]})
        };
        // 256 × 256 unmatched elements: at the limit, paired by similarity.
        let c = compare(&rules, &side(256, "a"), &side(256, "b"), None, Keep::None, false);
        assert_eq!(c.over_limit, None);
        assert_eq!((c.counts.matched, c.counts.wrong), (256 + 2, 256));
        // 257 × 257: past it, the rest paired by position and the reason
        // given, naming the array.
        let c = compare(&rules, &side(257, "a"), &side(257, "b"), None, Keep::None, false);
        let why = c.over_limit.expect("over the limit");
        assert!(why.starts_with("the array at $.items has 257 reference and 257 output"), "{why}");
        assert!(why.contains("66049 pairs, past the limit of 65536"), "{why}");
        assert_eq!((c.counts.matched, c.counts.wrong), (257 + 2, 257));
        // Equal elements pair first and do not count against the limit.
        let mut e = side(300, "a");
        e["items"].as_array_mut().unwrap().truncate(300);
        let c = compare(&rules, &e, &e, None, Keep::None, false);
        assert_eq!(c.over_limit, None);
    }

    #[test]
    fn nested_arrays_paired_by_similarity_cost_time_linear_in_depth() {
        // Each level's pairing asks for the similarity of the pair below
        // it, whose walk asks for the one below that: with the tallies of
        // similarity walks kept, every level is walked a bounded number
        // of times, equal or not.
        const DEPTH: usize = 2_000;
        let pairing = Pairing { min_similarity: 0.5, identity: true };
        let policy = Policy { align: Align::Assignment(pairing), ..sum() };
        let rules = Exact(policy);
        let (ev, av) = (
            nested(DEPTH, false, json!({"k": 1, "j": 1, "m": 1})),
            nested(DEPTH, false, json!({"k": 1, "j": 1, "m": 2})),
        );
        let (e, a) = (Tree::from_value(&ev), Tree::from_value(&av));
        let null = Tree::from_value(&Value::Null);
        for (e, a) in [(e.root(), e.root()), (e.root(), a.root())] {
            let walk = super::Walk::new(&rules, Keep::Failed, true, null.root());
            let steps = std::rc::Rc::clone(&walk.steps);
            let c = walk.run(e, a, None);
            assert_eq!(c.counts.matched + c.counts.wrong, 3, "every level paired");
            let per_level = steps.get() as f64 / DEPTH as f64;
            assert!(per_level < 4.0, "{per_level} walks per level");
        }
        crate::json::drop_deep(ev);
        crate::json::drop_deep(av);
    }

    #[test]
    fn a_10000_deep_document_does_not_overflow_the_stack() {
        const DEPTH: usize = 10_000;
        // A 2 MiB stack: the walk must grow its own.
        std::thread::Builder::new()
            .stack_size(2 * 1024 * 1024)
            .spawn(|| {
                let objects = format!("${}", ".a".repeat(DEPTH));
                let arrays = format!("${}", "[0]".repeat(DEPTH));
                let e = nested(DEPTH, true, json!(1));
                let a = nested(DEPTH, true, json!(2));
                let c = compare(&Exact(sum()), &e, &a, None, Keep::Failed, true);
                let rec = (objects.as_str(), ValueMismatch, Some("1"), Some("2"));
                check("objects", &c, (0.0, 1.0), &counts(0, 0, 1, 0, 0), &[rec]);
                assert_eq!(c.fields, [field(&objects, counts(0, 0, 1, 0, 0))]);
                let c = compare(&Exact(mean()), &e, &a, None, Keep::None, false);
                assert_eq!((c.tally.matched, c.tally.total), (0.0, 1.0));
                // A deep subtree against a scalar: one mistyped container.
                let flat = json!({"a": 1});
                let c = compare(&Exact(sum()), &e, &flat, None, Keep::Failed, false);
                check(
                    "deep against flat",
                    &c,
                    (0.0, 1.0),
                    &counts(0, 0, 0, 1, 1),
                    &[(
                        "$.a",
                        TypeMismatch,
                        Some("<object nested deeper than 64 levels>"),
                        Some("1"),
                    )],
                );
                crate::json::drop_deep(e);
                crate::json::drop_deep(a);
                let e = nested(DEPTH, false, json!("x"));
                let c = compare(&Exact(sum()), &e, &e, None, Keep::All, true);
                assert_eq!((c.tally.matched, c.tally.total), (1.0, 1.0));
                assert_eq!(c.counts, counts(1, 0, 0, 0, 0));
                assert_eq!(c.records.len(), 1);
                assert_eq!(c.records[0].path.to_string(), arrays);
                let wild = format!("${}", "[*]".repeat(DEPTH));
                assert_eq!(c.fields, [field(&wild, counts(1, 0, 0, 0, 0))]);
                crate::json::drop_deep(e);
            })
            .expect("spawns")
            .join()
            .expect("no stack overflow");
    }
}
