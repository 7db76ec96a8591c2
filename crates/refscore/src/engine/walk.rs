//! The recursive walk behind [`super::compare`].

use serde_json::{Map, Value};

use super::align::{self, Pairs};
use super::{
    Absent, Aggregate, Align, Comparison, Cost, Empty, Keep, KeySet, NodeRule, Record, Rules,
};
use super::{Counts, Tally};
use crate::detail::{Outcome, truncate};
use crate::json::{display, is_container, leaves};
use crate::path::{Seg, format_path};

static NULL: Value = Value::Null;

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
fn shown(v: &Value, outcome: Outcome) -> String {
    if outcome == Outcome::TypeMismatch { crate::json::compact(v) } else { display(v) }
}

fn cost(c: Cost, v: &Value) -> f64 {
    #[allow(clippy::cast_precision_loss)]
    match c {
        Cost::Free => 0.0,
        Cost::One => 1.0,
        Cost::Leaves => leaves(v) as f64,
        Cost::LeavesAtLeastOne => leaves(v).max(1) as f64,
    }
}

pub(super) struct Walk<'m, 'v, M: Rules + ?Sized> {
    m: &'m M,
    keep: Keep,
    path: Vec<Seg<'v>>,
    counts: Counts,
    records: Vec<Record>,
    relabel: Option<Outcome>,
    element: bool,
}

impl<'m, 'v, M: Rules + ?Sized> Walk<'m, 'v, M> {
    pub(super) fn new(m: &'m M, keep: Keep) -> Self {
        Walk {
            m,
            keep,
            path: Vec::new(),
            counts: Counts::default(),
            records: Vec::new(),
            relabel: None,
            element: false,
        }
    }

    pub(super) fn run(
        mut self,
        e: &'v Value,
        a: &'v Value,
        weights: Option<&'v Value>,
    ) -> Comparison {
        let w = match weights {
            Some(Value::Object(m)) => W::Tree(m),
            _ => W::One,
        };
        let rule = self.rule();
        let tally = if rule.ignore { Tally::ZERO } else { self.walk(e, a, w, rule) };
        Comparison { tally, counts: self.counts, records: self.records }
    }

    fn rule(&self) -> NodeRule {
        if self.m.has_rules() { self.m.rule_at(&self.path) } else { NodeRule::default() }
    }

    fn walk(&mut self, e: &'v Value, a: &'v Value, w: W<'v>, rule: NodeRule) -> Tally {
        stacker::maybe_grow(64 * 1024, 2 * 1024 * 1024, || match (e, a) {
            (Value::Object(em), Value::Object(am)) => self.object(em, am, w, rule),
            (Value::Array(ea), Value::Array(aa)) => self.array(ea, aa, w, rule),
            _ => self.leaf(e, a, rule),
        })
    }

    fn emit(&mut self, outcome: Outcome, e: Option<&Value>, a: Option<&Value>, score: f64) {
        let keep = match self.keep {
            Keep::None => false,
            Keep::Failed => outcome != Outcome::Match,
            Keep::All => true,
        };
        if keep {
            self.records.push(Record {
                path: format_path(&self.path),
                expected: e.map(|v| truncate(&shown(v, outcome))),
                actual: a.map(|v| truncate(&shown(v, outcome))),
                outcome,
                score,
                weight: 1.0,
                element: self.element,
            });
        }
    }

    fn leaf(&mut self, e: &'v Value, a: &'v Value, rule: NodeRule) -> Tally {
        let mut l = self.m.leaf(e, a, &rule);
        let containers = is_container(e) || is_container(a);
        let total = if containers { cost(self.m.policy().mismatch, e) } else { 1.0 };
        match (l.outcome, self.relabel) {
            (Outcome::Match, _) => self.counts.matched += 1,
            (Outcome::Partial, _) => self.counts.partial += 1,
            // Compared with `null` in place of an absent value: only the
            // side that exists has fields.
            (_, Some(Outcome::Missing)) => self.counts.missing += leaves(e).max(1) as u64,
            (_, Some(Outcome::Extra)) => self.counts.extra += leaves(a).max(1) as u64,
            _ if containers => {
                self.counts.missing += leaves(e).max(1) as u64;
                self.counts.extra += leaves(a).max(1) as u64;
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
        self.emit(l.outcome, shown_e, shown_a, l.score);
        Tally::new(l.score * total, total)
    }

    /// Compares against `null` in place of an absent value.
    fn as_null(&mut self, e: &'v Value, a: &'v Value, label: Outcome, rule: NodeRule) -> Tally {
        let saved = self.relabel.replace(label);
        let t = self.walk(e, a, W::One, rule);
        self.relabel = saved;
        t
    }

    fn missing(&mut self, ev: &'v Value, rule: NodeRule) -> Tally {
        let pol = self.m.policy();
        if pol.absent == Absent::AsNull && !self.element {
            return self.as_null(ev, &NULL, Outcome::Missing, rule);
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
        self.counts.missing += leaves(ev).max(1) as u64;
        self.emit(Outcome::Missing, Some(ev), None, 0.0);
        Tally::new(0.0, cost(pol.missing, ev))
    }

    fn extra(&mut self, av: &'v Value, parent: NodeRule, rule: NodeRule) -> Option<Tally> {
        let pol = self.m.policy();
        if pol.absent == Absent::AsNull && !self.element {
            return Some(self.as_null(&NULL, av, Outcome::Extra, rule));
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
        self.counts.extra += leaves(av).max(1) as u64;
        self.emit(Outcome::Extra, None, Some(av), 0.0);
        Some(Tally::new(0.0, cost(c, av)))
    }

    fn object(
        &mut self,
        em: &'v Map<String, Value>,
        am: &'v Map<String, Value>,
        w: W<'v>,
        rule: NodeRule,
    ) -> Tally {
        let pol = self.m.policy();
        let was_element = self.element;
        let mut acc = Acc::new(pol.aggregate);
        let leaf_if_empty = match pol.empty_expected_object {
            Empty::Leaf => em.is_empty(),
            Empty::IfBoth => em.is_empty() && am.is_empty(),
            Empty::Nothing => false,
        };
        if leaf_if_empty {
            self.emit(Outcome::Match, Some(&NULL), Some(&NULL), 1.0);
            self.counts.matched += 1;
            self.counts.credit += 1.0;
            acc.add(Tally::new(1.0, 1.0), 1.0);
        } else {
            for (k, ev) in em {
                let (cw, kw) = w.child(k);
                self.path.push(Seg::Key(k));
                self.element = false;
                let r = self.rule();
                if !r.ignore {
                    let t = match am.get(k) {
                        Some(av) => self.walk(ev, av, cw, r),
                        None => self.missing(ev, r),
                    };
                    acc.add(t, r.weight.unwrap_or(kw));
                }
                self.path.pop();
            }
        }
        if pol.keys == KeySet::Union || pol.empty_expected_object == Empty::Leaf && em.is_empty() {
            for (k, av) in am {
                if em.contains_key(k) {
                    continue;
                }
                let (_, kw) = w.child(k);
                self.path.push(Seg::Key(k));
                self.element = false;
                let r = self.rule();
                if let Some(t) = self.extra(av, rule, r) {
                    acc.add(t, r.weight.unwrap_or(kw));
                }
                self.path.pop();
            }
        }
        self.element = was_element;
        acc.finish(em.is_empty() && am.is_empty())
    }

    fn array(&mut self, ea: &'v [Value], aa: &'v [Value], w: W<'v>, rule: NodeRule) -> Tally {
        let pol = self.m.policy();
        if ea.is_empty() && aa.is_empty() {
            if pol.aggregate == Aggregate::Mean || pol.empty_arrays == Empty::Leaf {
                self.counts.matched += 1;
                self.counts.credit += 1.0;
                self.emit(Outcome::Match, Some(&NULL), Some(&NULL), 1.0);
                return Tally::new(1.0, 1.0);
            }
            return Tally::ZERO;
        }
        let align = rule.align.map_or(&pol.align, |i| self.m.alignment(i));
        let scalars = !ea.iter().chain(aa).any(is_container);
        let pairs: Pairs = match align {
            Align::SetIfScalars if scalars => return self.scalar_set(ea, aa),
            Align::Positional | Align::SetIfScalars => align::positional(ea.len(), aa.len()),
            Align::ByKey(keys) => {
                align::by_key(ea, aa, keys, |i, j| self.pair_similarity(ea, aa, i, j))
            }
            Align::Unordered => self.assign(ea, aa, 1.0),
            Align::Assignment { min_similarity } => self.assign(ea, aa, *min_similarity),
            Align::Auto { min_similarity } => {
                if scalars {
                    self.assign(ea, aa, 1.0)
                } else {
                    self.assign(ea, aa, *min_similarity)
                }
            }
        };
        let was_element = self.element;
        let mut acc = Acc::new(pol.aggregate);
        for (i, j) in pairs {
            self.path.push(Seg::Index(i.or(j).unwrap_or(0)));
            self.element = true;
            let r = self.rule();
            if !r.ignore {
                let wt = r.weight.unwrap_or(1.0);
                match (i, j) {
                    (Some(i), Some(j)) => {
                        let t = self.walk(&ea[i], &aa[j], w, r);
                        acc.add(t, wt);
                    }
                    (Some(i), None) if pol.surplus_elements => {
                        let t = self.missing(&ea[i], r);
                        acc.add(t, wt);
                    }
                    (None, Some(j)) if pol.surplus_elements => {
                        if let Some(t) = self.extra(&aa[j], rule, r) {
                            acc.add(t, wt);
                        }
                    }
                    _ => {}
                }
            }
            self.path.pop();
        }
        self.element = was_element;
        acc.finish(false)
    }

    fn assign(&self, ea: &'v [Value], aa: &'v [Value], min_similarity: f64) -> Pairs {
        align::assignment(ea, aa, min_similarity, |i, j| self.pair_similarity(ea, aa, i, j))
    }

    /// Similarity in [0, 1] of reference element `i` and output element
    /// `j` of the arrays at the current path, without records or counts.
    fn pair_similarity(&self, ea: &'v [Value], aa: &'v [Value], i: usize, j: usize) -> f64 {
        let (Some(e), Some(a)) = (ea.get(i), aa.get(j)) else { return 0.0 };
        let mut sub = Walk::new(self.m, Keep::None);
        sub.path.clone_from(&self.path);
        sub.path.push(Seg::Index(i));
        sub.element = true;
        let rule = sub.rule();
        if rule.ignore {
            return 1.0;
        }
        sub.walk(e, a, W::One, rule).ratio_or(1.0)
    }

    /// Arrays of scalars as sets: each distinct value counts once.
    fn scalar_set(&mut self, ea: &'v [Value], aa: &'v [Value]) -> Tally {
        let se = align::distinct(ea);
        let sa = align::distinct(aa);
        // Set members are array elements: their records say so.
        let was_element = std::mem::replace(&mut self.element, true);
        let mut t = Tally::ZERO;
        for v in &se {
            t.total += 1.0;
            if sa.iter().any(|x| align::same_scalar(x, v)) {
                t.matched += 1.0;
                self.counts.matched += 1;
                self.counts.credit += 1.0;
                self.emit(Outcome::Match, Some(v), Some(v), 1.0);
            } else {
                self.counts.missing += 1;
                self.emit(Outcome::Missing, Some(v), None, 0.0);
            }
        }
        for v in &sa {
            if !se.iter().any(|x| align::same_scalar(x, v)) {
                t.total += 1.0;
                self.counts.extra += 1;
                self.emit(Outcome::Extra, None, Some(v), 0.0);
            }
        }
        self.element = was_element;
        t
    }
}
