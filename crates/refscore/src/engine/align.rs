//! Pairing the elements of two arrays.

use std::hash::{Hash, Hasher};

use crate::fx::{Fx, FxHashMap};

use crate::tree::{Kind, Node};
use pathfinding::kuhn_munkres::kuhn_munkres;
use pathfinding::matrix::Matrix;

/// Index pairs `(reference, output)`; `None` on one side marks an unpaired
/// element. Paired entries come first in reference order, then missing
/// reference elements, then extra output elements.
pub(super) type Pairs = Vec<(Option<usize>, Option<usize>)>;

/// Pairs by position; the longer side's tail is unpaired.
pub(super) fn positional(n: usize, m: usize) -> Pairs {
    (0..n.max(m)).map(|i| ((i < n).then_some(i), (i < m).then_some(i))).collect()
}

/// Pairs objects whose `keys` fields hold equal values; when several
/// elements share a key, they pair by best similarity among themselves.
/// The elements left over on both sides (lacking every key field, or with
/// no partner) then pair by `fallback` (a pair's weight, `None` when the
/// two cannot pair), when there is one; the rest stay unpaired.
///
/// # Errors
/// The groups of a shared key and the fallback together would weigh more
/// than [`MAX_SIMILARITY_PAIRS`] pairs: from the group (or the fallback)
/// that passes it on, elements pair by position instead.
pub(super) fn by_key(
    e: &[Node<'_>],
    a: &[Node<'_>],
    keys: &[String],
    sim: impl Fn(usize, usize) -> f64,
    fallback: Option<&dyn Fn(usize, usize) -> Option<f64>>,
) -> Result<Pairs, Oversized> {
    let key_of = |v: &Node<'_>| -> Option<String> {
        if !v.is_object() {
            return None;
        }
        let parts: Vec<String> = keys
            .iter()
            .map(|k| v.get(k).map_or_else(|| String::from("\u{0}"), canonical_scalar))
            .collect();
        if parts.iter().all(|p| p == "\u{0}") { None } else { Some(parts.join("\u{1}")) }
    };
    let mut groups: FxHashMap<String, (Vec<usize>, Vec<usize>)> = FxHashMap::default();
    let mut order: Vec<String> = Vec::new();
    for (i, v) in e.iter().enumerate() {
        if let Some(k) = key_of(v) {
            let g = groups.entry(k.clone()).or_insert_with(|| {
                order.push(k);
                (Vec::new(), Vec::new())
            });
            g.0.push(i);
        }
    }
    for (j, v) in a.iter().enumerate() {
        if let Some(g) = key_of(v).and_then(|k| groups.get_mut(&k)) {
            g.1.push(j);
        }
    }
    let mut used = vec![false; a.len()];
    let mut partner: Vec<Option<usize>> = vec![None; e.len()];
    // Pairs weighed so far, and the first group (its sizes) past the bound.
    let mut weighed = 0usize;
    let mut over: Option<(usize, usize)> = None;
    let mut pair = |rows: &[usize], cols: &[usize], weigh: &dyn Fn(usize, usize) -> Option<f64>| {
        let n = rows.len().saturating_mul(cols.len());
        if over.is_none() && weighed.saturating_add(n) <= MAX_SIMILARITY_PAIRS {
            weighed += n;
            assignment_indices(rows, cols, weigh)
        } else {
            over.get_or_insert((rows.len(), cols.len()));
            rows.iter().copied().zip(cols.iter().copied()).collect()
        }
    };
    for k in &order {
        let Some((ei, aj)) = groups.get(k) else { continue };
        if aj.is_empty() {
            continue;
        }
        if ei.len() == 1 && aj.len() == 1 {
            partner[ei[0]] = Some(aj[0]);
            used[aj[0]] = true;
            continue;
        }
        for (i, j) in pair(ei, aj, &|i, j| viable(sim(i, j), 0.0)) {
            partner[i] = Some(j);
            used[j] = true;
        }
    }
    if let Some(weigh) = fallback {
        let rest_e: Vec<usize> = (0..e.len()).filter(|&i| partner[i].is_none()).collect();
        let rest_a: Vec<usize> = (0..a.len()).filter(|&j| !used[j]).collect();
        for (i, j) in pair(&rest_e, &rest_a, weigh) {
            partner[i] = Some(j);
            used[j] = true;
        }
    }
    let mut pairs = Pairs::with_capacity(e.len().max(a.len()));
    let mut missing = Vec::new();
    for (i, p) in partner.iter().enumerate() {
        match p {
            Some(j) => pairs.push((Some(i), Some(*j))),
            None => missing.push((Some(i), None)),
        }
    }
    let pairs = finish(pairs, missing, &used);
    match over {
        None => Ok(pairs),
        Some(unmatched) => Err(Oversized { pairs, unmatched, keyed: true, identified: false }),
    }
}

/// `Some(s)` when similarity `s` reaches `min_similarity` and is above 0.
pub(super) fn viable(s: f64, min_similarity: f64) -> Option<f64> {
    let s = crate::number::clamp01(s);
    (s >= min_similarity && s > 0.0).then_some(s)
}

/// Hungarian pairing of reference indices `rows` with output indices
/// `cols`, maximising the total weight; `weigh` gives a pair's weight (at
/// most 2), or `None` for a pair that cannot be made.
fn assignment_indices(
    rows: &[usize],
    cols: &[usize],
    weigh: &dyn Fn(usize, usize) -> Option<f64>,
) -> Vec<(usize, usize)> {
    const SCALE: f64 = 1_000_000.0;
    if rows.is_empty() || cols.is_empty() {
        return Vec::new();
    }
    let w = cols.len();
    let all: Vec<Option<f64>> = rows
        .iter()
        .flat_map(|&i| cols.iter().map(move |&j| (i, j)))
        .map(|(i, j)| weigh(i, j).filter(|x| x.is_finite()).map(|x| x.clamp(0.0, 2.0)))
        .collect();
    // Only rows and columns with a pairable entry go to the solver: a
    // dissimilar array costs its similarity table, not an n³ solve.
    let live_r: Vec<usize> =
        (0..rows.len()).filter(|&r| all[r * w..(r + 1) * w].iter().any(Option::is_some)).collect();
    let live_c: Vec<usize> =
        (0..w).filter(|&c| live_r.iter().any(|&r| all[r * w + c].is_some())).collect();
    if live_r.is_empty() {
        return Vec::new();
    }
    // The solver wants no more rows than columns.
    let transpose = live_r.len() > live_c.len();
    let (n, m) =
        if transpose { (live_c.len(), live_r.len()) } else { (live_r.len(), live_c.len()) };
    let cell = |a: usize, b: usize| -> (usize, usize) {
        if transpose { (live_r[b], live_c[a]) } else { (live_r[a], live_c[b]) }
    };
    // An impossible pair weighs far below any possible one, so that the
    // solver never trades a possible pair for it.
    #[allow(clippy::cast_possible_truncation)]
    let scaled: Vec<i64> = (0..n)
        .flat_map(|a| (0..m).map(move |b| (a, b)))
        .map(|(a, b)| {
            let (r, c) = cell(a, b);
            all[r * w + c].map_or(-(1i64 << 40), |x| (x * SCALE).round() as i64)
        })
        .collect();
    let Ok(weights) = Matrix::from_vec(n, m, scaled) else { return Vec::new() };
    let (_, assigned) = kuhn_munkres(&weights);
    let mut out = Vec::with_capacity(assigned.len());
    for (a, &b) in assigned.iter().enumerate() {
        let (r, c) = cell(a, b);
        if all[r * w + c].is_some() {
            out.push((rows[r], cols[c]));
        }
    }
    out
}

/// Most pairs of unmatched elements [`assignment`] weighs (256 × 256):
/// each is a comparison of two elements, and the solve is cubic in the
/// elements.
pub(super) const MAX_SIMILARITY_PAIRS: usize = 1 << 16;

/// Arrays whose unmatched elements are too many to pair by similarity:
/// the pairs made anyway (equal elements, then the rest by position) and
/// how many elements of each side were left unmatched by equality.
#[derive(Debug)]
pub(super) struct Oversized {
    pub(super) pairs: Pairs,
    pub(super) unmatched: (usize, usize),
    /// Whether the elements were those sharing a key (or left without a
    /// partner by key) of an array paired by key.
    pub(super) keyed: bool,
    /// Whether elements sharing an identifying field were paired first
    /// (those counted in `unmatched` are the rest).
    pub(super) identified: bool,
}

/// Most steps (node pairs compared) the similarity walks of one
/// comparison take: arrays of objects paired by similarity within arrays
/// paired by similarity multiply their pairs, level by level, and each
/// pair's walk costs its size. Reaching the bound takes about a second
/// and 200 MB on a 2-core vCPU; 256 × 256 pairs of 30-field objects fit
/// under it.
pub(super) const MAX_SIMILARITY_STEPS: u64 = 1 << 21;

/// Best one-to-one pairing: identical elements pair first, then the rest by
/// maximum total weight (Hungarian algorithm), `weigh` giving a pair's
/// weight or `None` for a pair that cannot be made (unpaired elements are
/// missing or extra).
///
/// When the elements left after equal ones are too many to weigh every
/// pair, those that `identify` pairs (a reference index to the output
/// index sharing an identifying field with it; `None` for none) pair so
/// first, in linear time, and the rest are weighed if they now fit. Such
/// a pair is the one `weigh` would most often prefer too (it weighs an
/// identified pair 1 more), but not always: here it comes first.
///
/// # Errors
/// More than [`MAX_SIMILARITY_PAIRS`] pairs of unmatched elements to weigh,
/// after identified elements paired.
pub(super) fn assignment(
    e: &[Node<'_>],
    a: &[Node<'_>],
    weigh: &dyn Fn(usize, usize) -> Option<f64>,
    identify: Option<&dyn Fn(usize) -> Option<usize>>,
) -> Result<Pairs, Oversized> {
    let mut pairs = Pairs::with_capacity(e.len().max(a.len()));
    let mut used = vec![false; a.len()];
    if e.len() == 1 && a.len() == 1 {
        // One element each: the similarity alone decides (equal elements
        // score 1), and blocking would read both subtrees once more at
        // every level of nested one-element arrays.
        let paired = weigh(0, 0).is_some();
        return Ok(if paired {
            vec![(Some(0), Some(0))]
        } else {
            vec![(Some(0), None), (None, Some(0))]
        });
    }
    // Block on exact equality first: most elements of a good output are
    // identical to one in the reference, and most often at the same place.
    let mut same_place = vec![false; e.len()];
    for (i, (x, y)) in e.iter().zip(a).enumerate() {
        if super::nodes_equal(*x, *y) {
            same_place[i] = true;
            used[i] = true;
            pairs.push((Some(i), Some(i)));
        }
    }
    let mut index: FxHashMap<u64, Vec<usize>> = FxHashMap::default();
    for (j, v) in a.iter().enumerate().rev().filter(|(j, _)| !used[*j]) {
        index.entry(hash_value(*v)).or_default().push(j);
    }
    let mut rest_e = Vec::new();
    for (i, v) in e.iter().enumerate().filter(|(i, _)| !same_place[*i]) {
        let hit = index.get_mut(&hash_value(*v)).and_then(|c| {
            let pos = c.iter().rposition(|&j| super::nodes_equal(a[j], *v))?;
            Some(c.remove(pos))
        });
        match hit {
            Some(j) => {
                used[j] = true;
                pairs.push((Some(i), Some(j)));
            }
            None => rest_e.push(i),
        }
    }
    let mut rest_a: Vec<usize> = (0..a.len()).filter(|&j| !used[j]).collect();
    if let Some(identify) = identify
        && rest_e.len().saturating_mul(rest_a.len()) > MAX_SIMILARITY_PAIRS
    {
        rest_e.retain(|&i| match identify(i) {
            Some(j) if !used[j] => {
                used[j] = true;
                pairs.push((Some(i), Some(j)));
                false
            }
            _ => true,
        });
        rest_a.retain(|&j| !used[j]);
    }
    if rest_e.len().saturating_mul(rest_a.len()) > MAX_SIMILARITY_PAIRS {
        let unmatched = (rest_e.len(), rest_a.len());
        let missing: Pairs = rest_e.iter().skip(rest_a.len()).map(|&i| (Some(i), None)).collect();
        for (&i, &j) in rest_e.iter().zip(&rest_a) {
            used[j] = true;
            pairs.push((Some(i), Some(j)));
        }
        return Err(Oversized {
            pairs: finish_sorted(pairs, missing, &used),
            unmatched,
            keyed: false,
            identified: identify.is_some(),
        });
    }
    let mut paired_e = vec![None; e.len()];
    for (i, j) in assignment_indices(&rest_e, &rest_a, weigh) {
        paired_e[i] = Some(j);
    }
    let mut missing = Vec::new();
    for &i in &rest_e {
        match paired_e[i] {
            Some(j) => {
                used[j] = true;
                pairs.push((Some(i), Some(j)));
            }
            None => missing.push((Some(i), None)),
        }
    }
    Ok(finish_sorted(pairs, missing, &used))
}

fn finish_sorted(mut pairs: Pairs, missing: Pairs, used: &[bool]) -> Pairs {
    pairs.sort_by_key(|p| p.0);
    finish(pairs, missing, used)
}

fn finish(mut pairs: Pairs, missing: Pairs, used: &[bool]) -> Pairs {
    pairs.extend(missing);
    pairs.extend(used.iter().enumerate().filter(|(_, u)| !**u).map(|(j, _)| (None, Some(j))));
    pairs
}

/// The distinct scalars of an array, in first-seen order, with a hash
/// index: building it and each membership test cost linear time, not the
/// quadratic pairwise scan (an array of 100k scalars stays fast).
pub(super) struct ScalarSet<'v> {
    items: Vec<Node<'v>>,
    /// A member's [`scalar_hash`] → the first member with that hash.
    first: FxHashMap<u64, usize>,
    /// The next member with the same hash as member `i` ([`NONE`] at the
    /// end): no allocation per member.
    next: Vec<usize>,
}

/// The end of a chain of [`ScalarSet`] members.
const NONE: usize = usize::MAX;

impl<'v> ScalarSet<'v> {
    /// Each distinct element of `items` once ([`same_scalar`] identity).
    pub(super) fn new(items: &[Node<'v>]) -> Self {
        let mut set =
            ScalarSet { items: Vec::new(), first: FxHashMap::default(), next: Vec::new() };
        for &v in items {
            let h = scalar_hash(v);
            let Some(&head) = set.first.get(&h) else {
                set.first.insert(h, set.items.len());
                set.items.push(v);
                set.next.push(NONE);
                continue;
            };
            let mut i = head;
            loop {
                if same_scalar(set.items[i], v) {
                    break;
                }
                if set.next[i] == NONE {
                    set.next[i] = set.items.len();
                    set.items.push(v);
                    set.next.push(NONE);
                    break;
                }
                i = set.next[i];
            }
        }
        set
    }

    /// Whether a [`same_scalar`] equal of `v` is in the set.
    pub(super) fn contains(&self, v: Node<'_>) -> bool {
        let mut i = match self.first.get(&scalar_hash(v)) {
            Some(&i) => i,
            None => return false,
        };
        while i != NONE {
            if same_scalar(self.items[i], v) {
                return true;
            }
            i = self.next[i];
        }
        false
    }

    /// The distinct elements, in first-seen order.
    pub(super) fn items(&self) -> &[Node<'v>] {
        &self.items
    }
}

/// A hash that [`same_scalar`] equals share: numbers by their `f64` value
/// (`1` and `1.0` alike, `-0` as `0`), strings by their text, other values
/// by their JSON text.
fn scalar_hash(v: Node<'_>) -> u64 {
    let mut h = Fx::default();
    if let Some(x) = v.as_f64() {
        h.write_u8(b'n');
        h.write_u64(if x == 0.0 { 0.0f64 } else { x }.to_bits());
    } else if let Some(s) = v.as_str() {
        h.write_u8(b's');
        h.write(s.as_bytes());
    } else {
        h.write_u8(b'j');
        h.write(v.compact().as_bytes());
    }
    h.finish()
}

/// Scalar identity with typed values: `1 == 1.0`, `true != "true"`.
pub(super) fn same_scalar(a: Node<'_>, b: Node<'_>) -> bool {
    super::nodes_equal(a, b)
}

fn canonical_scalar(v: Node<'_>) -> String {
    if let Some(s) = v.as_str() {
        format!("s{s}")
    } else if let Some(n) = v.as_number() {
        format!("n{}", n.as_f64().unwrap_or(0.0))
    } else {
        format!("j{}", v.compact())
    }
}

/// A structural hash of a value (key order is already canonical).
pub(super) fn hash_value(v: Node<'_>) -> u64 {
    let mut h = Fx::default();
    let mut stack: smallvec::SmallVec<[Node<'_>; 16]> = smallvec::smallvec![v];
    while let Some(v) = stack.pop() {
        match v.kind() {
            Kind::Null => 0u8.hash(&mut h),
            Kind::Bool => (1u8, v.as_bool()).hash(&mut h),
            Kind::Number => (2u8, v.as_f64().unwrap_or(0.0).to_bits()).hash(&mut h),
            Kind::String => (3u8, v.as_str()).hash(&mut h),
            Kind::Array => {
                (4u8, v.len()).hash(&mut h);
                stack.extend(v.items().rev());
            }
            Kind::Object => {
                (5u8, v.len()).hash(&mut h);
                for (k, v) in v.entries().rev() {
                    k.hash(&mut h);
                    stack.push(v);
                }
            }
        }
    }
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::Tree;
    use serde_json::{Value, json};

    /// Both arrays as tree nodes, for the pairing functions.
    macro_rules! nodes {
        ($e:ident, $a:ident) => {
            let (ve, va) = (Value::Array($e.to_vec()), Value::Array($a.to_vec()));
            let (te, ta) = (Tree::from_value(&ve), Tree::from_value(&va));
            let $e: Vec<Node<'_>> = te.root().items().collect();
            let $a: Vec<Node<'_>> = ta.root().items().collect();
        };
    }

    #[test]
    fn positional_pairs() {
        assert_eq!(positional(2, 3), vec![(Some(0), Some(0)), (Some(1), Some(1)), (None, Some(2))]);
    }

    #[test]
    fn key_pairs() {
        let e = [json!({"sku": "A"}), json!({"sku": "B"}), json!({"x": 1})];
        let a = [json!({"sku": "B"}), json!({"sku": "C"}), json!({"sku": "A"})];
        nodes!(e, a);
        let p = by_key(&e, &a, &[String::from("sku")], |_, _| 1.0, None).unwrap();
        assert_eq!(
            p,
            vec![(Some(0), Some(2)), (Some(1), Some(0)), (Some(2), None), (None, Some(1))]
        );
    }

    #[test]
    fn assignment_prefers_identical_then_best() {
        let e = [json!("a"), json!("b"), json!("c")];
        let a = [json!("c"), json!("x"), json!("a")];
        nodes!(e, a);
        let sim = |i, j| if i == 1 && j == 1 { 0.6 } else { 0.0 };
        let p = assignment(&e, &a, &|i, j| viable(sim(i, j), 0.5), None).unwrap();
        assert_eq!(p, vec![(Some(0), Some(2)), (Some(1), Some(1)), (Some(2), Some(0))]);
        let p = assignment(&e, &a, &|i, j| viable(sim(i, j), 0.7), None).unwrap();
        assert!(p.contains(&(Some(1), None)) && p.contains(&(None, Some(1))));
    }

    #[test]
    fn assignment_handles_uneven_sides() {
        let e = [json!(1), json!(2), json!(3)];
        let a = [json!(4)];
        nodes!(e, a);
        let p =
            assignment(&e, &a, &|i, _| viable(if i == 2 { 0.9 } else { 0.1 }, 0.0), None).unwrap();
        assert!(p.contains(&(Some(2), Some(0))));
        assert_eq!(p.len(), 3);
    }

    #[test]
    fn key_fallback_pairs_the_leftovers() {
        let e = [json!({"sku": "A-1"}), json!({"sku": "B-2"})];
        let a = [json!({"sku": "B-2"}), json!({"sku": "A-7"})];
        nodes!(e, a);
        let keys = [String::from("sku")];
        let none = by_key(&e, &a, &keys, |_, _| 1.0, None).unwrap();
        assert!(none.contains(&(Some(0), None)) && none.contains(&(None, Some(1))));
        let weigh = |i: usize, j: usize| (i == 0 && j == 1).then_some(0.8);
        let p = by_key(&e, &a, &keys, |_, _| 1.0, Some(&weigh)).unwrap();
        assert_eq!(p, vec![(Some(0), Some(1)), (Some(1), Some(0))]);
    }

    #[test]
    fn a_possible_pair_is_never_traded_for_an_impossible_one() {
        let e = [json!(1), json!(2)];
        let a = [json!(3), json!(4)];
        nodes!(e, a);
        // Only (0, 0) may pair, though (0, 1) + (1, 0) would weigh more.
        let weigh = |i: usize, j: usize| match (i, j) {
            (0, 0) => Some(0.1),
            _ => None,
        };
        let p = assignment(&e, &a, &weigh, None).unwrap();
        assert!(p.contains(&(Some(0), Some(0))), "{p:?}");
    }
}
