//! Arrays in the walk: by position, as sets of scalars, or paired by
//! identity and similarity ([`super::super::align`]), with the memo of
//! element pairs' tallies that keeps nested arrays linear in depth.

// The walk's own types and imports: this is the rest of its `impl`.
#[allow(clippy::wildcard_imports)]
use super::*;
use crate::number::{push_fixed3, push_integer};

/// What an array past a pairing bound should be given instead.
const KEY_OR_ORDER: &str = "give the array a rule that pairs it by key (`array: by_key, keys: \
                            [FIELD]`) or in order (`array: ordered`)";

/// What a keyed array past the pairing bound should be given instead.
const KEYS_OR_ORDER: &str = "give the array keys that tell its elements apart (`keys: [FIELD, \
                             ...]`) or compare it in order (`array: ordered`)";

/// An array's elements, held inline up to a typical array's length.
type Elements<'v> = smallvec::SmallVec<[Node<'v>; 8]>;

/// Whether every element of both arrays is a number: a vector or tuple
/// (coordinates, a blood pressure, a colour), compared by position under
/// [`Align::Auto`].
fn numbers_only(ea: &[Node<'_>], aa: &[Node<'_>]) -> bool {
    ea.iter().chain(aa).all(|v| v.kind() == crate::tree::Kind::Number)
}

impl<'m, 'v, M: Rules + ?Sized> Walk<'m, 'v, M> {
    pub(super) fn array(&mut self, ea: Node<'v>, aa: Node<'v>, w: W<'v>, rule: NodeRule) -> Tally {
        let ea: &[Node<'v>] = &ea.items().collect::<Elements<'v>>();
        let aa: &[Node<'v>] = &aa.items().collect::<Elements<'v>>();
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
        // The identifying fields, read field by field as asked: by the
        // pairing when a pair is not plausible on similarity alone, and by
        // the pairs' records.
        let ids = Identities::new(ea, aa);
        let pairs: Pairs = match align {
            Align::SetIfScalars if scalars => return self.scalar_set(ea, aa),
            Align::Positional | Align::SetIfScalars => align::positional(ea.len(), aa.len()),
            Align::ByKey { keys, fallback } => {
                let sim = |i, j| self.pair_similarity(ea, aa, i, j);
                let paired = match fallback {
                    Some(p) => {
                        let weigh = |i: usize, j: usize| {
                            let s = (sim(i, j) + key_similarity(ea[i], aa[j], keys)) / 2.0;
                            plausible(s, p, || ids.agree(i, j).is_some())
                        };
                        align::by_key(ea, aa, keys, sim, Some(&weigh))
                    }
                    None => align::by_key(ea, aa, keys, sim, None),
                };
                paired.unwrap_or_else(|over| self.oversized(over))
            }
            Align::Unordered => self.assign(ea, aa, None, &ids),
            Align::Auto(_) if scalars && numbers_only(ea, aa) => {
                align::positional(ea.len(), aa.len())
            }
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
                            && let Some(path) = self.kept_path()
                        {
                            let note = self.pair_note(ea, aa, (i, j), align, &ids);
                            let rec = Record {
                                path,
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
        if ids.exhausted() {
            let (n, m, most) = (ea.len(), aa.len(), ids.max_fields());
            self.note_over_limit(|path| {
                format!(
                    "the array at {path} has {n} reference and {m} output elements, whose \
                     pairing asked about more than {most} fields for identifying fields (each \
                     field read is a pass over both sides); {KEY_OR_ORDER}"
                )
            });
        }
        self.element = was_element;
        acc.finish(false)
    }

    /// Pairs by assignment: under `pairing`, or (without) only equal
    /// elements. The identifying fields `ids` are read only when some pair
    /// is not equal.
    pub(super) fn assign(
        &self,
        ea: &[Node<'v>],
        aa: &[Node<'v>],
        pairing: Option<Pairing>,
        ids: &Identities<'_, 'v>,
    ) -> Pairs {
        let identify = |i| ids.identify(i);
        let paired = match pairing {
            None => align::assignment(
                ea,
                aa,
                &|i, j| align::viable(self.pair_similarity(ea, aa, i, j), 1.0),
                None,
            ),
            Some(p) => align::assignment(
                ea,
                aa,
                &|i, j| {
                    plausible(self.pair_similarity(ea, aa, i, j), &p, || ids.agree(i, j).is_some())
                },
                p.identity.then_some(&identify),
            ),
        };
        paired.unwrap_or_else(|over| self.oversized(over))
    }

    /// The pairs of an array too large to pair by similarity, noting why
    /// (the first such array of the comparison).
    fn oversized(&self, over: align::Oversized) -> Pairs {
        let (n, m) = over.unmatched;
        let which = if over.keyed {
            "elements that share a key (or that no key paired)"
        } else if over.identified {
            "elements that neither an equal one nor an identifying field paired"
        } else {
            "elements without an equal one"
        };
        let advice = if over.keyed { KEYS_OR_ORDER } else { KEY_OR_ORDER };
        self.note_over_limit(|path| {
            format!(
                "the array at {path} has {n} reference and {m} output {which}: pairing them by \
                 similarity would weigh {} pairs, past the limit of {}; {advice}",
                n.saturating_mul(m),
                align::MAX_SIMILARITY_PAIRS
            )
        });
        over.pairs
    }

    /// Notes why the comparison's score is not to be trusted, unless an
    /// earlier reason was noted; `why` is given the current path.
    fn note_over_limit(&self, why: impl FnOnce(JsonPath) -> String) {
        let mut first = self.over_limit.borrow_mut();
        if first.is_none() {
            *first = Some(why(JsonPath::from_segs(&self.path.borrow())));
        }
    }

    /// Why elements `i` and `j` were paired, for the pair's record.
    pub(super) fn pair_note(
        &self,
        ea: &[Node<'v>],
        aa: &[Node<'v>],
        (i, j): (usize, usize),
        al: &Align,
        ids: &Identities<'_, 'v>,
    ) -> String {
        let s = self.pair_similarity(ea, aa, i, j);
        let mut note = String::with_capacity(128);
        note.push_str("reference element ");
        push_integer(&mut note, i);
        note.push_str(" paired with output element ");
        push_integer(&mut note, j);
        note.push_str(": similarity ");
        push_fixed3(&mut note, s);
        match al {
            Align::ByKey { keys, .. }
                if keys.iter().all(|k| match (ea[i].get(k), aa[j].get(k)) {
                    (Some(x), Some(y)) => align::same_scalar(x, y),
                    _ => false,
                }) =>
            {
                note.push_str(", paired on key");
                for (n, k) in keys.iter().enumerate() {
                    note.push_str(if n == 0 { " " } else { ", " });
                    note.push_str(k);
                }
            }
            Align::ByKey { keys, .. } => {
                note.push_str(", paired though the key differs (key similarity ");
                push_fixed3(&mut note, key_similarity(ea[i], aa[j], keys));
                note.push(')');
            }
            _ if ids.identified() && ids.identify(i) == Some(j) => {
                note.push_str(", paired on an identifying field (too many elements to weigh)");
            }
            _ => note.push_str(", paired by similarity"),
        }
        if let Some(k) = ids.agree(i, j) {
            note.push_str("; identifying field `");
            note.push_str(k);
            note.push_str("` agrees");
        }
        note
    }

    /// The tally of a pair of array elements at the current path: in a
    /// similarity walk, the one a similarity walk of the pair already
    /// gave, if any (the pair is then compared exactly as there: same
    /// path, rule and weights, nothing recorded).
    pub(super) fn element_pair(
        &mut self,
        e: Node<'v>,
        a: Node<'v>,
        w: W<'v>,
        rule: NodeRule,
    ) -> Tally {
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
    pub(super) fn memo_key(&self, e: Node<'v>, a: Node<'v>, w: W<'v>) -> Option<(NodeId, NodeId)> {
        let plain = self.similarity
            && self.keep == Keep::None
            && self.fields.is_none()
            && self.relabel.is_none()
            && matches!(w, W::One);
        (plain && e.is_container() && a.is_container()).then(|| (e.id(), a.id()))
    }

    /// Similarity in [0, 1] of reference element `i` and output element
    /// `j` of the arrays at the current path, without records or counts.
    pub(super) fn pair_similarity(
        &self,
        ea: &[Node<'v>],
        aa: &[Node<'v>],
        i: usize,
        j: usize,
    ) -> f64 {
        let (Some(&e), Some(&a)) = (ea.get(i), aa.get(j)) else { return 0.0 };
        let memo_key = (e.is_container() && a.is_container()).then(|| (e.id(), a.id()));
        if let Some(k) = memo_key
            && let Some(&t) = self.memo.borrow().get(&k)
        {
            return t.ratio_or(1.0);
        }
        if self.steps.get() >= self.budget {
            // Past the bound, no more walks: the score is invalid anyway.
            self.note_budget();
            return 0.0;
        }
        let mut sub = self.similarity_walk();
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
        if self.steps.get() >= self.budget {
            self.note_budget();
        }
        t.ratio_or(1.0)
    }

    /// Notes that the similarity walks ran out of steps, naming the array
    /// being paired when this is the comparison's own walk (a similarity
    /// walk's path is relative to the pair it compares).
    fn note_budget(&self) {
        if self.similarity {
            return;
        }
        self.note_over_limit(|path| {
            format!(
                "pairing the elements of the array at {path} by similarity took more than {} \
                 steps, the limit (arrays paired by similarity within arrays paired by \
                 similarity multiply their pairs); {KEY_OR_ORDER}",
                self.budget
            )
        });
    }

    /// Arrays of scalars as sets: each distinct value counts once.
    pub(super) fn scalar_set(&mut self, ea: &[Node<'v>], aa: &[Node<'v>]) -> Tally {
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
