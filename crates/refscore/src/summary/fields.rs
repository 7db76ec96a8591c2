//! Per-field statistics from JSON metric details: for every path (array
//! indices replaced by `[*]`), how often the field matched, was partly
//! right, wrong, missing or extra.

use crate::fx::FxHashMap;

use serde::{Deserialize, Serialize};

use super::field_trie::{FieldTrie, Slot};
use crate::engine::{Counts, FieldTallies, FieldTally};

/// Distinct paths tracked per evaluator; further paths are counted in
/// `RunSummary::fields_dropped` only, so that documents with data-dependent keys
/// cannot grow memory without bound.
pub const MAX_FIELDS_PER_EVALUATOR: usize = 10_000;

/// The most bytes of paths the run's field table holds, over all its
/// evaluators: 16 MiB. Paths are as long as their keys: 3,000 rows with a
/// 20 KB key of their own made a 61 MB `summary.json`, and 10,000 paths of
/// up to 1 MiB each (the most one evaluation keeps) could make 10 GB.
/// Further paths are counted in `RunSummary::fields_dropped` only.
pub const MAX_FIELD_PATH_BYTES: usize = 16 << 20;

/// Row ids kept as examples of a failing field.
const EXAMPLES: usize = 3;

/// The characters of a row id kept as an example; a longer id is cut and
/// ends with `…`. A row that fails in many fields is an example of each:
/// one 1.2 MB row with a 200 KB id and 5,000 failing fields made a 1 GB
/// `summary.json`.
pub const EXAMPLE_ID_CHARS: usize = 200;

/// How one field fared over the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FieldStat {
    /// The evaluator that compared the field.
    pub evaluator: String,
    /// The path, `$.line_items[*].price`.
    pub path: String,
    /// Comparisons of this field.
    pub total: u64,
    /// Exact matches.
    pub matched: u64,
    /// Partly right (partial credit).
    pub partial: u64,
    /// Wrong value or type.
    pub wrong: u64,
    /// In the reference, not in the output.
    pub missing: u64,
    /// In the output, not in the reference.
    pub extra: u64,
    /// (matched + partial credit) / total.
    pub accuracy: f64,
    /// Up to three ids of rows where the field failed, each cut to
    /// [`EXAMPLE_ID_CHARS`] characters.
    pub examples: Vec<String>,
}

/// Credit is summed in fixed point (units of 2⁻⁴⁰), so that the field
/// table does not depend on how rows were split between threads or
/// between the parts of a resumed run (floating-point sums do).
const CREDIT_SCALE: f64 = 1_099_511_627_776.0;

fn credit_units(credit: f64) -> u128 {
    if credit.is_finite() && credit > 0.0 {
        // Saturating float-to-int conversion; credit per leaf is at most 1.
        (credit * CREDIT_SCALE).round() as u128
    } else {
        0
    }
}

#[derive(Debug, Clone, Default)]
struct Acc {
    counts: Counts,
    /// Sum of the credit, in units of 2⁻⁴⁰ (`counts.credit` is unused).
    credit: u128,
    /// `(row number, row id)` of failing rows, lowest row numbers kept.
    examples: Vec<(u64, String)>,
}

impl Acc {
    fn merge(&mut self, o: Acc) {
        self.counts.add(&o.counts);
        self.credit += o.credit;
        for e in o.examples {
            self.example(e.0, &e.1);
        }
    }

    /// Keeps the failing rows with the lowest numbers, so that the examples
    /// do not depend on how rows were split between threads.
    fn example(&mut self, row: u64, id: &str) {
        if self.examples.iter().any(|(r, _)| *r == row) {
            return;
        }
        if self.examples.len() < EXAMPLES {
            self.examples.push((row, crate::detail::truncate_to(id, EXAMPLE_ID_CHARS)));
        } else if let Some(last) = self.examples.iter_mut().max_by_key(|(r, _)| *r)
            && row < last.0
        {
            *last = (row, crate::detail::truncate_to(id, EXAMPLE_ID_CHARS));
        }
        self.examples.sort_by_key(|(r, _)| *r);
    }
}

#[derive(Serialize)]
struct Snapshot<'a> {
    dropped: u64,
    fields: Vec<SnapshotField<'a>>,
}

#[derive(Serialize)]
struct SnapshotField<'a> {
    ev: usize,
    path: &'a str,
    counts: [u64; 5],
    credit: u128,
    examples: Vec<(u64, &'a str)>,
}

#[derive(Deserialize)]
struct OwnedSnapshot {
    dropped: u64,
    fields: Vec<OwnedField>,
}

#[derive(Deserialize)]
struct OwnedField {
    ev: usize,
    path: String,
    counts: [u64; 5],
    credit: u128,
    examples: Vec<(u64, String)>,
}

/// One evaluator's fields: the table, keyed by printed path, and the tree
/// of paths that finds a row's fields in it without printing them.
#[derive(Debug, Clone)]
struct Fields {
    /// Path → index in `accs`.
    index: FxHashMap<String, u32>,
    accs: Vec<Acc>,
    trie: FieldTrie,
}

/// Accumulates [`FieldStat`]s.
#[derive(Debug, Clone, Default)]
pub(crate) struct FieldStats {
    /// Per evaluator index.
    fields: Vec<Fields>,
    /// Details whose path was not tracked (over the caps).
    pub(crate) dropped: u64,
    /// Bytes of the paths tracked, over all evaluators.
    path_bytes: usize,
}

impl Default for Fields {
    fn default() -> Self {
        Fields {
            index: FxHashMap::default(),
            accs: Vec::new(),
            // Room for the table's paths and their ancestors, and for
            // keys as long as the table's paths.
            trie: FieldTrie::with_room(4 * MAX_FIELDS_PER_EVALUATOR, MAX_FIELD_PATH_BYTES),
        }
    }
}

impl Fields {
    /// Where `path`'s accumulator is in `accs`, added unless the path is
    /// new and the evaluator's cap of paths or the table's of path bytes
    /// (`used`) is reached. One lookup when the path is known.
    fn slot(&mut self, path: &str, used: &mut usize) -> Option<u32> {
        if let Some(&at) = self.index.get(path) {
            return Some(at);
        }
        if self.index.len() >= MAX_FIELDS_PER_EVALUATOR || *used + path.len() > MAX_FIELD_PATH_BYTES
        {
            return None;
        }
        let at = u32::try_from(self.accs.len()).ok()?;
        *used += path.len();
        self.accs.push(Acc::default());
        self.index.insert(path.to_owned(), at);
        Some(at)
    }

    /// Adds one row's comparisons at `path`; `false` when the path is not
    /// tracked (see [`Fields::slot`]).
    fn add(&mut self, path: &str, used: &mut usize, counts: &Counts, row: u64, id: &str) -> bool {
        let slot = self.slot(path, used);
        slot.and_then(|at| self.accs.get_mut(at as usize))
            .map(|acc| acc.add(counts, row, id))
            .is_some()
    }

    /// The accumulators with their paths.
    fn entries(&self) -> impl Iterator<Item = (&str, &Acc)> {
        self.index.iter().filter_map(|(p, &at)| Some((p.as_str(), self.accs.get(at as usize)?)))
    }

    /// The accumulators with their paths, taken.
    fn into_entries(self) -> impl Iterator<Item = (String, Acc)> {
        let mut accs: Vec<Option<Acc>> = self.accs.into_iter().map(Some).collect();
        self.index
            .into_iter()
            .filter_map(move |(path, at)| Some((path, accs.get_mut(at as usize)?.take()?)))
    }
}

impl Acc {
    /// Adds one row's comparisons at the field.
    fn add(&mut self, counts: &Counts, row: u64, row_id: &str) {
        self.counts.add(counts);
        self.credit += credit_units(counts.credit);
        if counts.failed() {
            self.example(row, row_id);
        }
    }
}

impl FieldStats {
    fn evaluator(&mut self, evaluator: usize) -> &mut Fields {
        if self.fields.len() <= evaluator {
            self.fields.resize_with(evaluator + 1, Fields::default);
        }
        &mut self.fields[evaluator]
    }

    /// Adds the per-field tallies of one evaluation. The row's paths are
    /// found in the evaluator's tree of paths; a path is printed only
    /// when this table's tree meets it first (a run merges the tables of
    /// a batch's shares by printed path). Of a row whose paths print past
    /// [`crate::limits::MAX_KEPT_PATH_BYTES`], the paths
    /// [`FieldTallies::to_tallies`] would print are taken in, the others
    /// counted as dropped; a row the tree cannot take (full) is taken in
    /// by printed path.
    pub(crate) fn add_tallies(
        &mut self,
        evaluator: usize,
        row: u64,
        row_id: &str,
        tallies: &FieldTallies,
    ) {
        self.dropped = self.dropped.saturating_add(tallies.dropped());
        if tallies.is_empty() {
            return;
        }
        let mut used = self.path_bytes;
        let f = self.evaluator(evaluator);
        if !f.trie.map(tallies) {
            // `to_tallies` counts `tallies.dropped()` again.
            let (printed, left_out) = tallies.to_tallies();
            self.dropped += left_out.saturating_sub(tallies.dropped());
            self.add_printed(evaluator, row, row_id, &printed);
            return;
        }
        let kept = tallies.kept(|n| f.trie.len(f.trie.node(n)));
        let mut dropped = 0;
        for (k, (n, counts)) in tallies.counted().enumerate() {
            if kept.as_ref().is_some_and(|kept| kept.get(k) != Some(&true)) {
                dropped += counts.total();
                continue;
            }
            let node = f.trie.node(n);
            if f.trie.slot(node) == Slot::Unknown {
                let found = f.slot(&f.trie.printed(node), &mut used);
                f.trie.set_slot(node, found.map_or(Slot::Dropped, Slot::Field));
            }
            match f.trie.slot(node) {
                Slot::Field(at) => {
                    if let Some(acc) = f.accs.get_mut(at as usize) {
                        acc.add(counts, row, row_id);
                    }
                }
                _ => dropped += counts.total(),
            }
        }
        self.path_bytes = used;
        self.dropped += dropped;
    }

    /// Adds per-field tallies whose paths are printed.
    fn add_printed(&mut self, evaluator: usize, row: u64, row_id: &str, tallies: &[FieldTally]) {
        let mut used = self.path_bytes;
        let f = self.evaluator(evaluator);
        let mut dropped = 0;
        for t in tallies {
            if !f.add(&t.path, &mut used, &t.counts, row, row_id) {
                dropped += t.counts.total();
            }
        }
        self.path_bytes = used;
        self.dropped += dropped;
    }

    /// Adds statistics gathered elsewhere (another thread's rows).
    pub(crate) fn merge(&mut self, other: FieldStats) {
        self.dropped += other.dropped;
        for (ev, theirs) in other.fields.into_iter().enumerate() {
            let mut used = self.path_bytes;
            let mine = self.evaluator(ev);
            let mut dropped = 0;
            for (path, acc) in theirs.into_entries() {
                match mine.slot(&path, &mut used).and_then(|at| mine.accs.get_mut(at as usize)) {
                    Some(m) => m.merge(acc),
                    None => dropped += acc.counts.total(),
                }
            }
            self.path_bytes = used;
            self.dropped += dropped;
        }
    }

    /// The statistics as compact JSON, to be stored with a batch and
    /// merged again by [`FieldStats::from_snapshot`] when a run resumes.
    pub(crate) fn to_snapshot(&self) -> String {
        let fields: Vec<SnapshotField<'_>> = self
            .fields
            .iter()
            .enumerate()
            .flat_map(|(ev, f)| {
                f.entries().map(move |(path, a)| SnapshotField {
                    ev,
                    path,
                    counts: [
                        a.counts.matched,
                        a.counts.partial,
                        a.counts.wrong,
                        a.counts.missing,
                        a.counts.extra,
                    ],
                    credit: a.credit,
                    examples: a.examples.iter().map(|(r, id)| (*r, id.as_str())).collect(),
                })
            })
            .collect();
        serde_json::to_string(&Snapshot { dropped: self.dropped, fields }).unwrap_or_default()
    }

    /// Statistics from [`FieldStats::to_snapshot`].
    pub(crate) fn from_snapshot(text: &str) -> Result<FieldStats, String> {
        let snap: OwnedSnapshot =
            serde_json::from_str(text).map_err(|e| format!("stored field statistics: {e}"))?;
        let mut out = FieldStats { fields: Vec::new(), dropped: snap.dropped, path_bytes: 0 };
        for f in snap.fields {
            let [matched, partial, wrong, missing, extra] = f.counts;
            let counts = Counts { matched, partial, wrong, missing, extra, credit: 0.0 };
            out.path_bytes += f.path.len();
            let mine = out.evaluator(f.ev);
            let at = u32::try_from(mine.accs.len()).map_err(|e| e.to_string())?;
            mine.accs.push(Acc { counts, credit: f.credit, examples: f.examples });
            mine.index.insert(f.path, at);
        }
        Ok(out)
    }

    /// The statistics, worst accuracy first.
    pub(crate) fn finish(self, names: &[String]) -> Vec<FieldStat> {
        let mut out: Vec<FieldStat> = self
            .fields
            .into_iter()
            .enumerate()
            .flat_map(|(ev, f)| f.into_entries().map(move |(path, a)| (ev, path, a)))
            .map(|(ev, path, a)| FieldStat {
                evaluator: names.get(ev).cloned().unwrap_or_default(),
                path,
                total: a.counts.total(),
                matched: a.counts.matched,
                partial: a.counts.partial,
                wrong: a.counts.wrong,
                missing: a.counts.missing,
                extra: a.counts.extra,
                accuracy: if a.counts.total() == 0 {
                    1.0
                } else {
                    #[allow(clippy::cast_precision_loss)]
                    let credit = a.credit as f64 / CREDIT_SCALE;
                    crate::number::finite(credit / a.counts.total() as f64)
                },
                examples: a.examples.into_iter().map(|(_, id)| id).collect(),
            })
            .collect();
        out.sort_by(|a, b| {
            a.accuracy
                .total_cmp(&b.accuracy)
                .then((b.total - b.matched).cmp(&(a.total - a.matched)))
                .then_with(|| a.evaluator.cmp(&b.evaluator))
                .then_with(|| a.path.cmp(&b.path))
        });
        out
    }
}

#[cfg(test)]
mod tree_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detail::Outcome;

    #[test]
    fn snapshots_round_trip() {
        let mut f = FieldStats::default();
        let mut t = FieldTally { path: "$.a".to_owned(), ..FieldTally::default() };
        t.counts.record(Outcome::Partial, 0.25);
        t.counts.record(Outcome::Missing, 0.0);
        f.add_printed(1, 7, "row-7", &[t]);
        let back = FieldStats::from_snapshot(&f.to_snapshot()).unwrap();
        let names = ["x".to_owned(), "y".to_owned()];
        assert_eq!(back.finish(&names), f.finish(&names));
        assert!(FieldStats::from_snapshot("{").is_err());
    }

    #[test]
    fn tallies_verdicts_and_sorts_worst_first() {
        let mut f = FieldStats::default();
        let tally = |path: &str, outcomes: &[(Outcome, f64)]| {
            let mut t = FieldTally { path: path.to_owned(), ..FieldTally::default() };
            for (o, s) in outcomes {
                t.counts.record(*o, *s);
            }
            t
        };
        let row1 = vec![
            tally("$.items[*].price", &[(Outcome::Match, 1.0), (Outcome::ValueMismatch, 0.0)]),
            tally("$.vendor", &[(Outcome::Partial, 0.5)]),
        ];
        let row2 = vec![
            tally("$.items[*].price", &[(Outcome::Missing, 0.0)]),
            tally("$.vendor", &[(Outcome::Match, 1.0)]),
            tally("$.note", &[(Outcome::Extra, 0.0)]),
        ];
        f.add_printed(0, 1, "r1", &row1);
        f.add_printed(0, 2, "r2", &row2);
        let out = f.finish(&["fields".to_owned()]);
        assert_eq!(out.len(), 3);
        assert_eq!(out[0].path, "$.note");
        assert_eq!((out[0].extra, out[0].accuracy), (1, 0.0));
        let items = &out[1];
        assert_eq!(items.path, "$.items[*].price");
        assert_eq!((items.total, items.matched, items.wrong, items.missing), (3, 1, 1, 1));
        assert!((items.accuracy - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(items.examples, vec!["r1", "r2"]);
        let vendor = &out[2];
        assert_eq!(
            (vendor.partial, vendor.accuracy, vendor.evaluator.as_str()),
            (1, 0.75, "fields")
        );
    }

    #[test]
    fn distinct_paths_are_capped() {
        let mut f = FieldStats::default();
        let counts = Counts { matched: 2, ..Counts::default() };
        let tallies: Vec<FieldTally> = (0..MAX_FIELDS_PER_EVALUATOR + 5)
            .map(|i| FieldTally { path: format!("$.k{i}"), counts })
            .collect();
        f.add_printed(0, 1, "r", &tallies);
        // Two comparisons each of the five paths past the cap.
        assert_eq!(f.dropped, 10);
        assert_eq!(f.finish(&[]).len(), MAX_FIELDS_PER_EVALUATOR);
    }

    /// A long row id is kept as an example cut to its first
    /// `EXAMPLE_ID_CHARS` characters, in every field it failed.
    #[test]
    fn example_ids_are_cut() {
        let mut f = FieldStats::default();
        let counts = Counts { wrong: 1, ..Counts::default() };
        let tallies: Vec<FieldTally> =
            (0..50).map(|i| FieldTally { path: format!("$.f{i}"), counts }).collect();
        let id = "é".repeat(100_000);
        f.add_printed(0, 1, &id, &tallies);
        f.add_printed(0, 2, "short", &tallies);
        for stat in f.finish(&[String::from("e")]) {
            let cut: String = id.chars().take(EXAMPLE_ID_CHARS).chain(['…']).collect();
            assert_eq!(stat.examples, [cut.as_str(), "short"]);
        }
    }

    /// Paths of 20 KB, one per row and each new: the table holds 16 MiB
    /// of them, over all evaluators, whether a batch's statistics were
    /// added row by row, merged, or read back from a snapshot.
    #[test]
    fn path_bytes_are_capped_over_all_evaluators() {
        let counts = Counts { wrong: 1, ..Counts::default() };
        let tally =
            |i: usize| FieldTally { path: format!("$['{i:06}{}']", "q".repeat(20_000)), counts };
        let fit = MAX_FIELD_PATH_BYTES / tally(0).path.len();
        let mut one = FieldStats::default();
        let mut merged = FieldStats::default();
        for i in 0..1_000 {
            one.add_printed(i % 2, i as u64, "r", &[tally(i)]);
            let mut part = FieldStats::default();
            part.add_printed(i % 2, i as u64, "r", &[tally(i)]);
            merged.merge(part);
        }
        let again = FieldStats::from_snapshot(&one.to_snapshot()).unwrap();
        for f in [one, merged, again] {
            assert_eq!(f.dropped, 1_000 - fit as u64);
            let kept = f.finish(&[String::from("a"), String::from("b")]);
            assert_eq!(kept.len(), fit);
            assert!(kept.iter().map(|k| k.path.len()).sum::<usize>() <= MAX_FIELD_PATH_BYTES);
        }
    }
}
