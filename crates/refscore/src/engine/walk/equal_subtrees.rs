//! Equal subtrees counted at once: where nothing can tell an equal
//! subtree's leaves apart ([`Rules::equal_leaves_match`]), the walk counts
//! its leaves as matches in one pass instead of comparing them, with the
//! tally, counts and field tallies the leaf-by-leaf walk gives.

// The walk's own types and imports: this is the rest of its `impl`.
#[allow(clippy::wildcard_imports)]
use super::*;

/// One step of going through an equal subtree in the walk's order.
enum Step<'v> {
    /// Count the node (a leaf, an empty container) or go into it.
    Visit(Node<'v>),
    /// Enter a member or element's path (field tallies only).
    Enter(Seg<'v>),
    /// Leave it.
    Leave,
}

impl<'m, 'v, M: Rules + ?Sized> Walk<'m, 'v, M> {
    /// The tally of two equal containers when [`Walk::equal_subtrees`]
    /// allows counting them at once: every scalar leaf a match worth 1,
    /// every empty container too where the policy counts it (as
    /// [`Walk::array`] and [`Walk::object`] do), and an array of scalars
    /// compared as a set one point per distinct member (as
    /// [`Walk::scalar_set`] gives two equal arrays). Summed, that is one
    /// point per leaf; averaged, a perfect 1. `None` when the nodes differ
    /// or may not be counted so.
    pub(super) fn equal_subtree(&mut self, e: Node<'v>, a: Node<'v>) -> Option<Tally> {
        if !self.equal_subtrees
            || self.relabel.is_some()
            || self.depth >= EQUAL_SUBTREE_DEPTH
            || !e.is_container()
            || !super::super::nodes_equal(e, a)
        {
            return None;
        }
        let leaves = self.count_matches(e);
        self.counts.matched += leaves;
        // Added one leaf at a time, as the walk adds them: the same sum to
        // the last bit.
        for _ in 0..leaves {
            self.counts.credit += 1.0;
        }
        if self.m.policy().aggregate == Aggregate::Mean {
            return Some(Tally::new(1.0, 1.0));
        }
        #[allow(clippy::cast_precision_loss)]
        let n = leaves as f64;
        Some(Tally::new(n, n))
    }

    /// The leaves [`Walk::equal_subtree`] counts in `e`; with field
    /// tallies, each is also recorded as a match at its path, in the order
    /// the walk records them (members by key, elements by index, the
    /// distinct members of a set of scalars at the set's path).
    fn count_matches(&mut self, e: Node<'v>) -> u64 {
        let m = self.m;
        let pol = m.policy();
        let sets = matches!(pol.align, Align::SetIfScalars);
        let mut fields = self.fields.as_mut();
        let paths = fields.is_some();
        let mut leaves: u64 = 0;
        let mut count = |n: usize, fields: &mut Option<&mut FieldWalk<'v>>| {
            leaves += n as u64;
            if let Some(f) = fields {
                for _ in 0..n {
                    f.record(Outcome::Match, 1.0);
                }
            }
        };
        let mut stack = vec![Step::Visit(e)];
        while let Some(step) = stack.pop() {
            let v = match step {
                Step::Visit(v) => v,
                Step::Enter(seg) => {
                    if let Some(f) = fields.as_mut() {
                        f.enter(seg);
                    }
                    continue;
                }
                Step::Leave => {
                    if let Some(f) = fields.as_mut() {
                        f.leave();
                    }
                    continue;
                }
            };
            if !v.is_container() {
                count(1, &mut fields);
            } else if v.is_empty() {
                // Equal empty objects are empty on both sides.
                let counted = if v.is_array() {
                    pol.empty_arrays_are_a_leaf()
                } else {
                    pol.empty_object_is_a_leaf(true, true)
                };
                count(usize::from(counted), &mut fields);
            } else if sets && v.is_array() && !v.items().any(|x| x.is_container()) {
                let items: Vec<Node<'v>> = v.items().collect();
                count(align::ScalarSet::new(&items).items().len(), &mut fields);
            } else if !paths {
                stack.extend(v.items().map(Step::Visit));
                stack.extend(v.entries().map(|(_, x)| Step::Visit(x)));
            } else if v.is_array() {
                for (i, x) in v.items().enumerate().rev() {
                    let seg = Seg::Pair { expected: Some(i), actual: Some(i) };
                    stack.extend([Step::Leave, Step::Visit(x), Step::Enter(seg)]);
                }
            } else {
                for (k, x) in v.entries().rev() {
                    stack.extend([Step::Leave, Step::Visit(x), Step::Enter(Seg::Key(k))]);
                }
            }
        }
        leaves
    }
}
