//! Per-field tallies gathered during a walk: for each path with array
//! indices as `[*]`, how its comparisons came out. Cheap enough to compute
//! on every row of a dataset (no allocation per leaf).

use crate::fx::FxHashMap;

use serde::Serialize;

use super::Counts;
use crate::detail::Outcome;
use crate::path::{Seg, push_seg};

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
        self.counts.matched < self.counts.total()
    }
}

/// The wildcard path of the node being walked, and the tallies so far:
/// per path, its place in `counts` (first seen first).
#[derive(Debug, Default)]
pub(super) struct FieldTallies {
    buf: String,
    marks: Vec<usize>,
    index: FxHashMap<String, usize>,
    counts: Vec<Counts>,
}

/// Room for the fields of a typical document, so that the first row's
/// paths do not grow the table several times.
const TYPICAL_FIELDS: usize = 32;

impl FieldTallies {
    pub(super) fn new() -> Self {
        FieldTallies {
            buf: String::from("$"),
            index: FxHashMap::with_capacity_and_hasher(TYPICAL_FIELDS, Default::default()),
            counts: Vec::with_capacity(TYPICAL_FIELDS),
            ..FieldTallies::default()
        }
    }

    pub(super) fn enter(&mut self, seg: Seg<'_>) {
        self.marks.push(self.buf.len());
        match seg {
            Seg::Key(_) => push_seg(&mut self.buf, seg),
            _ => self.buf.push_str("[*]"),
        }
    }

    pub(super) fn leave(&mut self) {
        if let Some(m) = self.marks.pop() {
            self.buf.truncate(m);
        }
    }

    /// Counts one comparison at the current path.
    pub(super) fn record(&mut self, outcome: Outcome, score: f64) {
        let i = match self.index.get(self.buf.as_str()) {
            Some(&i) => i,
            None => {
                let i = self.counts.len();
                self.index.insert(self.buf.clone(), i);
                self.counts.push(Counts::default());
                i
            }
        };
        if let Some(c) = self.counts.get_mut(i) {
            c.record(outcome, score);
        }
    }

    /// The tallies, in the order their paths were first seen.
    pub(super) fn finish(self) -> Vec<FieldTally> {
        let mut paths = vec![String::new(); self.counts.len()];
        for (path, i) in self.index {
            if let Some(slot) = paths.get_mut(i) {
                *slot = path;
            }
        }
        paths
            .into_iter()
            .zip(self.counts)
            .map(|(path, counts)| FieldTally { path, counts })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_use_wildcards_and_tally() {
        let mut f = FieldTallies::new();
        f.enter(Seg::Key("items"));
        for i in 0..3 {
            f.enter(Seg::Index(i));
            f.enter(Seg::Key("price"));
            f.record(if i == 1 { Outcome::Partial } else { Outcome::Match }, 0.5);
            f.leave();
            f.leave();
        }
        f.enter(Seg::Key("a b"));
        f.record(Outcome::Missing, 0.0);
        f.leave();
        f.leave();
        let t = f.finish();
        assert_eq!(t.len(), 2);
        assert_eq!(t[0].path, "$.items[*].price");
        assert_eq!((t[0].counts.total(), t[0].counts.matched, t[0].counts.partial), (3, 2, 1));
        assert!((t[0].counts.credit - 2.5).abs() < 1e-12);
        assert!(t[0].failed());
        assert_eq!(t[1].path, "$.items['a b']");
        assert_eq!(t[1].counts.missing, 1);
    }
}
