//! Leaf comparisons kept across one comparison's walks: pairing an array
//! by similarity compares leaves of each element with those of several
//! elements of the other side, and the pairs it makes are then compared
//! again, leaf by leaf, for the score and its records. Where a metric's
//! leaf comparison is costly ([`Rules::costly_leaves`]: json_match's
//! comparators read dates, numbers and currencies in text), the walk that
//! records takes the leaves the similarity walks already compared.

// The walk's own types and imports: this is the rest of its `impl`.
#[allow(clippy::wildcard_imports)]
use super::*;
use crate::engine::Leaf;

/// Most leaf comparisons one comparison keeps: past it, leaves are
/// compared again (the similarity walks' own bound,
/// [`align::MAX_SIMILARITY_STEPS`], bounds their time; this bounds the
/// memory kept for them).
const MAX_KEPT_LEAVES: usize = 1 << 16;

/// One kept leaf comparison: the rule it was made under, whether its
/// note was asked for (for an outcome other than a match), the leaf and
/// the note.
pub(super) struct KeptLeaf {
    rule: NodeRule,
    explained: bool,
    leaf: Leaf,
    note: Option<String>,
}

/// Leaf comparisons of one comparison's similarity walks, by the pair's
/// nodes, shared by the comparison's walks.
pub(super) type LeafMemo = Rc<RefCell<FxHashMap<(NodeId, NodeId), KeptLeaf>>>;

impl<'m, 'v, M: Rules + ?Sized> Walk<'m, 'v, M> {
    /// Leaf `e` against `a` under `rule`, and its note when `explain` is
    /// set and a record with the leaf's outcome is kept.
    pub(super) fn checked_leaf(
        &self,
        e: Node<'v>,
        a: Node<'v>,
        rule: &NodeRule,
        explain: bool,
    ) -> (Leaf, Option<String>) {
        let wanted = |o: Outcome| explain && self.keeps(o);
        if !self.m.costly_leaves() {
            return self.m.leaf_explained(e, a, rule, &wanted);
        }
        let key = (e.id(), a.id());
        {
            let kept = self.leaves.borrow();
            if !kept.is_empty()
                && let Some(k) = kept.get(&key)
                && k.rule == *rule
                && (!wanted(k.leaf.outcome) || k.explained && k.leaf.outcome != Outcome::Match)
            {
                let note = if wanted(k.leaf.outcome) { k.note.clone() } else { None };
                return (k.leaf, note);
            }
        }
        if !self.similarity {
            return self.m.leaf_explained(e, a, rule, &wanted);
        }
        // A similarity walk records nothing: the note of a leaf that is not
        // a match is kept for the walk that records the pair (a match's
        // note is asked for only when every record is kept, and costs a
        // comparison of equal values that the metric can skip otherwise).
        let (leaf, note) = self.m.leaf_explained(e, a, rule, &|o| explain && o != Outcome::Match);
        let mut kept = self.leaves.borrow_mut();
        if kept.len() < MAX_KEPT_LEAVES {
            kept.insert(key, KeptLeaf { rule: *rule, explained: explain, leaf, note });
        }
        (leaf, None)
    }
}
