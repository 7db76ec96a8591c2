//! Rows whose id an earlier row of the same run already had.
//!
//! Rows are matched with a baseline's by id (the k-th row with an id pairs
//! with the k-th of the other run), so a dataset whose ids repeat pairs
//! its rows by their order alone: two rows with one id swapped between
//! runs read as one improved and one regressed. A run says how many rows
//! repeat an id, and names a few.

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

use serde::{Deserialize, Serialize};

/// Most repeated ids a summary names.
pub const REPEATED_ID_EXAMPLES: usize = 3;

/// Rows whose ids a run checks for repeats: past this many rows, ids are
/// not checked (the set of fingerprints stays under about 100 MiB).
pub const MAX_CHECKED_IDS: u64 = 5_000_000;

/// The rows of a run whose id an earlier row already had.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RepeatedIds {
    /// Rows whose id an earlier row of the run already had (a row whose
    /// id appears three times counts twice).
    pub rows: u64,
    /// Up to [`REPEATED_ID_EXAMPLES`] of those ids, each once, in the
    /// order they first repeated; an id longer than
    /// [`super::EXAMPLE_ID_CHARS`] characters is cut, ending with `…`.
    pub examples: Vec<String>,
}

impl RepeatedIds {
    /// Whether no row repeated an id.
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }
}

/// Notes the ids of a run's rows, in order, to find those that repeat.
///
/// Each id is kept as a 64-bit SipHash fingerprint, not as text: two
/// different ids are taken for one with odds of about n²/2⁶⁵ over n rows
/// (below one in ten million at a million rows).
#[derive(Debug, Clone, Default)]
pub(crate) struct IdTracker {
    seen: HashSet<u64, BuildHasherDefault<Fingerprint>>,
    checked: u64,
    repeated: RepeatedIds,
}

impl IdTracker {
    /// Notes the id of the next row.
    pub(crate) fn note(&mut self, id: &str) {
        if self.checked >= MAX_CHECKED_IDS {
            return;
        }
        self.checked += 1;
        let mut h = std::hash::DefaultHasher::new();
        h.write(id.as_bytes());
        if self.seen.insert(h.finish()) {
            return;
        }
        self.repeated.rows += 1;
        let example = crate::detail::truncate_to(id, super::EXAMPLE_ID_CHARS);
        if self.repeated.examples.len() < REPEATED_ID_EXAMPLES
            && !self.repeated.examples.contains(&example)
        {
            self.repeated.examples.push(example);
        }
    }

    /// The rows that repeated an id.
    pub(crate) fn finish(self) -> RepeatedIds {
        self.repeated
    }
}

/// The hasher of a set of fingerprints: a fingerprint is already a hash.
#[derive(Debug, Clone, Default)]
struct Fingerprint(u64);

impl Hasher for Fingerprint {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, i: u64) {
        self.0 = i;
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repeated(ids: &[&str]) -> RepeatedIds {
        let mut t = IdTracker::default();
        ids.iter().for_each(|id| t.note(id));
        t.finish()
    }

    #[test]
    fn unique_ids_repeat_nothing() {
        assert!(repeated(&["a", "b", "c", "1", "01"]).is_empty());
    }

    #[test]
    fn each_repeat_counts_and_is_named_once() {
        let r = repeated(&["a", "b", "a", "c", "a", "b"]);
        assert_eq!(r.rows, 3);
        assert_eq!(r.examples, ["a", "b"]);
    }

    #[test]
    fn at_most_three_ids_are_named() {
        let r = repeated(&["a", "a", "b", "b", "c", "c", "d", "d"]);
        assert_eq!(r.rows, 4);
        assert_eq!(r.examples, ["a", "b", "c"]);
    }

    #[test]
    fn long_ids_are_cut() {
        let id = "x".repeat(300);
        let r = repeated(&[&id, &id]);
        assert_eq!(r.examples[0].chars().count(), super::super::EXAMPLE_ID_CHARS + 1);
        assert!(r.examples[0].ends_with('…'));
    }
}
