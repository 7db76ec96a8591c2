//! The data a metric gives the engine: [`Policy`] (how containers are
//! walked and added up) and per-path [`NodeRule`] overrides.

/// How a container adds up its children.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Aggregate {
    /// Sum of child tallies: the score is credit over total of the whole
    /// document (leaf counting).
    Sum,
    /// Weighted mean of child scores at each level.
    Mean,
}

/// Which object keys are compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeySet {
    /// Keys of either side.
    Union,
    /// Keys of the reference only: output keys the reference lacks are free.
    Expected,
}

/// What an absent key is compared as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Absent {
    /// As `null` (Python's `dict.get`): absent equals `null`.
    AsNull,
    /// As missing (or extra), costed by [`Policy::missing`] / [`Policy::extra`].
    Missing,
}

/// What a missing, extra or mistyped subtree costs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cost {
    /// Nothing: not compared at all.
    Free,
    /// One unit, whatever the subtree holds.
    One,
    /// Its leaf count (empty containers cost 0).
    Leaves,
    /// Its leaf count, at least 1.
    LeavesAtLeastOne,
}

/// How two arrays' elements are paired.
#[derive(Debug, Clone, PartialEq)]
pub enum Align {
    /// By position.
    Positional,
    /// Arrays holding only scalars compare as sets; otherwise by position.
    SetIfScalars,
    /// As multisets: equal elements pair up, whatever their order.
    Unordered,
    /// Objects pair on equal values of these key fields; several elements
    /// sharing a key pair by best similarity. With a `fallback`, the
    /// elements left unpaired on both sides then pair by similarity, the
    /// key fields weighing half (edit distance on the key: a typo in a
    /// key still pairs the item).
    ByKey {
        /// The key fields.
        keys: Vec<String>,
        /// How the elements no exact key pairs are paired, if at all.
        fallback: Option<Pairing>,
    },
    /// Best one-to-one pairing by similarity (see [`Pairing`]).
    Assignment(Pairing),
    /// [`Align::Assignment`] for arrays of objects, [`Align::Positional`]
    /// for arrays of numbers only (a vector or tuple: swapped coordinates
    /// are an error), [`Align::Unordered`] for other arrays of scalars.
    Auto(Pairing),
}

/// When two unequal array elements are paired: the best one-to-one
/// assignment (Hungarian algorithm) among the plausible pairs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pairing {
    /// A pair at least this similar is plausible.
    pub min_similarity: f64,
    /// Whether a less similar pair is still plausible when an identifying
    /// field agrees: a string field whose value occurs once in each array
    /// and is the same in both elements.
    pub identity: bool,
}

/// Whether an empty container counts as one matched leaf.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Empty {
    /// It counts for nothing.
    Nothing,
    /// It counts as one matched leaf (objects: when the reference side is
    /// empty, whatever the output holds).
    Leaf,
    /// It counts as one matched leaf when both sides are empty.
    IfBoth,
}

/// Container rules of a metric.
#[derive(Debug, Clone, PartialEq)]
pub struct Policy {
    /// How children add up.
    pub aggregate: Aggregate,
    /// Which keys are compared.
    pub keys: KeySet,
    /// Absent keys as null or as missing.
    pub absent: Absent,
    /// Cost of a reference key or element the output lacks.
    pub missing: Cost,
    /// Cost of an output key or element the reference lacks.
    pub extra: Cost,
    /// Cost of a container compared with a value of another type.
    pub mismatch: Cost,
    /// Whether unpaired array elements count (else they are ignored).
    pub surplus_elements: bool,
    /// Default array alignment.
    pub align: Align,
    /// Two empty arrays.
    pub empty_arrays: Empty,
    /// A reference object with no keys.
    pub empty_expected_object: Empty,
}

impl Policy {
    /// Whether two empty arrays count as one matched leaf (always when
    /// children are averaged: an empty pair is then a perfect 1).
    pub fn empty_arrays_are_a_leaf(&self) -> bool {
        self.aggregate == Aggregate::Mean || self.empty_arrays == Empty::Leaf
    }

    /// Whether an object pair counts as one matched leaf for being empty,
    /// given which sides are empty.
    pub fn empty_object_is_a_leaf(&self, expected_empty: bool, actual_empty: bool) -> bool {
        match self.empty_expected_object {
            Empty::Leaf => expected_empty,
            Empty::IfBoth => expected_empty && actual_empty,
            Empty::Nothing => false,
        }
    }
}

/// Overrides that per-path rules put on one node.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct NodeRule {
    /// Skip this node entirely.
    pub ignore: bool,
    /// Weight of this node within its parent.
    pub weight: Option<f64>,
    /// Array alignment (an index into the metric's alignment table).
    pub align: Option<u16>,
    /// Whether an absent key equals `null`.
    pub absent_is_null: Option<bool>,
    /// Whether `""` equals `null`.
    pub empty_string_is_null: Option<bool>,
    /// Cost of extra keys under this node.
    pub extra: Option<Cost>,
    /// Comparator for leaves (an index into the metric's table).
    pub comparator: Option<u16>,
    /// String normalizers for leaves (an index into the metric's table).
    pub normalize: Option<u16>,
    /// A missing value here is not an error.
    pub optional: bool,
}
