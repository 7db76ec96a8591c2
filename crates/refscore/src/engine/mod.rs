//! The comparison engine: one walk over a reference and an output.
//!
//! A metric is a [`Rules`] implementation: a [`Policy`] (which keys count,
//! how arrays align, what absent, extra and mistyped subtrees cost, how
//! children add up), a leaf scorer, and optional per-path [`NodeRule`]s.
//! [`compare`] walks both documents once and returns a [`Comparison`]:
//! the [`Tally`] the metric turns into a score, field-level [`Counts`],
//! and one [`Record`] per compared node (all of them, or the failed ones).

mod align;
mod equal;
mod field_tallies;
mod fields;
mod identity;
mod policy;
mod record;
mod seg_keys;
mod tally;
mod walk;

pub use equal::{json_equal, nodes_equal};
#[cfg(test)]
pub(crate) use field_tallies::TalliesBuilder;
pub use field_tallies::{FieldTallies, FieldTally};
pub use policy::{Absent, Aggregate, Align, Cost, Empty, KeySet, NodeRule, Pairing, Policy};
pub use record::{Keep, Record};
pub(crate) use seg_keys::{KeyRange, SegKeys};
pub use tally::{Counts, Tally};

use serde_json::Value;

use crate::detail::{Detail, Outcome, close_with_more};
use crate::path::Seg;
use crate::tree::{Node, Tree};

/// The score of one leaf comparison.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Leaf {
    /// Credit in [0, 1].
    pub score: f64,
    /// What the comparison came to.
    pub outcome: Outcome,
}

impl Leaf {
    /// Full credit.
    pub const MATCH: Leaf = Leaf { score: 1.0, outcome: Outcome::Match };
    /// No credit, same type.
    pub const WRONG: Leaf = Leaf { score: 0.0, outcome: Outcome::ValueMismatch };
    /// No credit, different types.
    pub const TYPE: Leaf = Leaf { score: 0.0, outcome: Outcome::TypeMismatch };

    /// Credit `score`: a match at 1, partial between 0 and 1, a value
    /// mismatch at 0.
    pub fn graded(score: f64) -> Leaf {
        let score = crate::number::clamp01(score);
        let outcome = if score >= 1.0 {
            Outcome::Match
        } else if score > 0.0 {
            Outcome::Partial
        } else {
            Outcome::ValueMismatch
        };
        Leaf { score, outcome }
    }

    /// A match or a value mismatch.
    pub fn exact(equal: bool) -> Leaf {
        if equal { Leaf::MATCH } else { Leaf::WRONG }
    }
}

/// What a metric tells the engine.
pub trait Rules: Sync {
    /// The container policy.
    fn policy(&self) -> &Policy;

    /// Scores two values that are not both objects nor both arrays.
    fn leaf(&self, expected: Node<'_>, actual: Node<'_>, rule: &NodeRule) -> Leaf;

    /// Whether [`Rules::rule_at`] can return anything but the default; the
    /// walk skips path lookups when it cannot.
    fn has_rules(&self) -> bool {
        false
    }

    /// Per-path overrides for the node at `path`.
    fn rule_at(&self, _path: &[Seg<'_>]) -> NodeRule {
        NodeRule::default()
    }

    /// An alignment referred to by [`NodeRule::align`].
    fn alignment(&self, _index: u16) -> &Align {
        &self.policy().align
    }

    /// Why two leaves compared as they did, for the record of a kept leaf
    /// (say, which normalisation made them equal); `None` by default.
    fn explain(&self, _expected: Node<'_>, _actual: Node<'_>, _rule: &NodeRule) -> Option<String> {
        None
    }

    /// [`Rules::leaf`] and, when `explain` asks for the leaf's outcome,
    /// [`Rules::explain`] of the same pair: a metric whose comparison
    /// gives both at once overrides it to compare once.
    fn leaf_explained(
        &self,
        expected: Node<'_>,
        actual: Node<'_>,
        rule: &NodeRule,
        explain: &dyn Fn(Outcome) -> bool,
    ) -> (Leaf, Option<String>) {
        let leaf = self.leaf(expected, actual, rule);
        let why = if explain(leaf.outcome) { self.explain(expected, actual, rule) } else { None };
        (leaf, why)
    }

    /// Whether a leaf comparison costs enough that one comparison's walk
    /// should keep the leaves its similarity walks compared (pairing an
    /// array compares each element with several of the other side, and
    /// the pairs made are compared again for the score); `false` by
    /// default.
    fn costly_leaves(&self) -> bool {
        false
    }

    /// Whether any two leaves equal under [`nodes_equal`] score
    /// [`Leaf::MATCH`], whatever their values, and no rule of any path
    /// ([`Rules::rule_at`]) can tell two equal subtrees apart (a weight,
    /// an ignored node, an alignment, a comparator). When they do and
    /// nothing else can (no weights, no passed records asked for, arrays
    /// compared by position, as sets of scalars or under [`Align::Auto`]),
    /// the walk counts an equal subtree's leaves in one pass instead of
    /// comparing them one by one, with the same tally, counts, records and
    /// field tallies. `false` by default.
    fn equal_leaves_match(&self) -> bool {
        false
    }

    /// Whether, at a node with `rule`, a string whose text is a JSON object
    /// or array is read as that document where the other side is an
    /// object or array (a tool call's `arguments` written as JSON text),
    /// rather than compared with it as a leaf. `false` by default.
    fn reads_json_text(&self, _rule: &NodeRule) -> bool {
        false
    }

    /// Whether a kept comparison records, for each pair of unequal array
    /// elements paired by similarity or key, how alike they were (a
    /// passed record at the element's path).
    fn report_pairs(&self) -> bool {
        false
    }
}

/// What one walk found.
#[derive(Debug, Clone, Default)]
pub struct Comparison {
    /// Credit over total (or, with [`Aggregate::Mean`], the mean as
    /// `matched` over 1).
    pub tally: Tally,
    /// Field-level verdicts.
    pub counts: Counts,
    /// Kept records, in walk order, at most
    /// [`crate::limits::MAX_KEPT_DETAILS`] of them (pair notes aside).
    pub records: Vec<Record>,
    /// Records that would have been kept past that limit.
    pub omitted: u64,
    /// Of [`Comparison::omitted`], the failed ones (not a match): what a
    /// closing `+ N more` detail counts.
    pub omitted_failed: u64,
    /// Per-field tallies, when asked for.
    pub fields: FieldTallies,
    /// Why the score is not to be trusted: an array with more unmatched
    /// elements (or elements sharing a key) than can be paired by
    /// similarity (more than 65,536 pairs, 256 × 256, to weigh), whose
    /// rest was paired by position; or similarity walks past their bound
    /// of steps.
    pub over_limit: Option<String>,
}

impl Comparison {
    /// The kept records as details, taken out of the comparison, closed by
    /// one `+ N more` entry for the failed records not kept (which
    /// explanations count as N).
    pub fn take_details(&mut self) -> Vec<Detail> {
        let mut details: Vec<Detail> =
            std::mem::take(&mut self.records).into_iter().map(Record::into_detail).collect();
        close_with_more(&mut details, self.omitted_failed);
        details
    }
}

/// Compares `actual` with `expected` under `rules`.
///
/// `weights` is a per-pair weight tree (as in JSON Difference: numbers
/// per key, nested objects with `__key` loopback weights); `keep` chooses
/// which records are returned; with `fields`, a [`FieldTally`] per field
/// path is gathered for every comparison, whatever `keep` says.
pub fn compare<M: Rules + ?Sized>(
    rules: &M,
    expected: &Value,
    actual: &Value,
    weights: Option<&Value>,
    keep: Keep,
    fields: bool,
) -> Comparison {
    let (e, a) = (Tree::from_value(expected), Tree::from_value(actual));
    compare_nodes(rules, e.root(), a.root(), weights, keep, fields)
}

/// [`compare`] of two tree nodes (documents read by the fast reader, or
/// parts of one).
pub fn compare_nodes<M: Rules + ?Sized>(
    rules: &M,
    expected: Node<'_>,
    actual: Node<'_>,
    weights: Option<&Value>,
    keep: Keep,
    fields: bool,
) -> Comparison {
    let null = Tree::null();
    let texts = walk::Texts::new(expected, actual);
    walk::Walk::new(rules, keep, fields, null.root(), &texts).run(expected, actual, weights)
}
