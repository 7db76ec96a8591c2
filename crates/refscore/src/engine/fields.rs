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

/// The wildcard path of the node being walked, and the tallies so far.
#[derive(Debug, Default)]
pub(super) struct FieldTallies {
    buf: String,
    marks: Vec<usize>,
    index: FxHashMap<String, usize>,
    tallies: Vec<FieldTally>,
}

impl FieldTallies {
    pub(super) fn new() -> Self {
        FieldTallies { buf: String::from("$"), ..FieldTallies::default() }
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
                self.index.insert(self.buf.clone(), self.tallies.len());
                self.tallies.push(FieldTally { path: self.buf.clone(), ..FieldTally::default() });
                self.tallies.len() - 1
            }
        };
        if let Some(t) = self.tallies.get_mut(i) {
            t.counts.record(outcome, score);
        }
    }

    pub(super) fn finish(self) -> Vec<FieldTally> {
        self.tallies
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
