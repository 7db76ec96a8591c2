//! Rows taken in by their tree of paths ([`FieldStats::add_tallies`])
//! make the same field table as the same rows printed
//! ([`FieldTallies::to_tallies`]) and taken in by path: the tree is a
//! cache, not a second definition.

use proptest::prelude::*;

use super::*;
use crate::detail::Outcome;
use crate::engine::TalliesBuilder;

/// Segments drawn from: keys that print plainly, quoted, escaped, or
/// look like a wildcard, and the wildcard itself (`None`).
const SEGS: [Option<&str>; 8] =
    [Some("a"), Some("b"), Some("a b"), Some("it's"), Some("[*]"), Some("é"), Some(""), None];

/// One row: paths as chains of segment indices, each with a verdict.
type Row = Vec<(Vec<usize>, u8)>;

fn tallies(row: &Row) -> FieldTallies {
    let mut b = TalliesBuilder::with_capacity(16, 64);
    let mut counts = Vec::new();
    for (path, verdict) in row {
        let mut at = 0;
        for &s in path {
            at = b.add(at, SEGS[s % SEGS.len()]);
        }
        let mut c = Counts::default();
        let outcome = match verdict % 5 {
            0 => Outcome::Match,
            1 => Outcome::Partial,
            2 => Outcome::ValueMismatch,
            3 => Outcome::Missing,
            _ => Outcome::Extra,
        };
        c.record(outcome, f64::from(*verdict) / 255.0);
        counts.push((at, c));
    }
    b.finish(counts)
}

fn by_tree(rows: &[Row], split: usize) -> FieldStats {
    let mut first = FieldStats::default();
    let mut second = FieldStats::default();
    for (i, row) in rows.iter().enumerate() {
        let part = if i < split { &mut first } else { &mut second };
        part.add_tallies(i % 2, i as u64, &format!("r{i}"), &tallies(row));
    }
    first.merge(second);
    first
}

fn by_path(rows: &[Row]) -> FieldStats {
    let mut f = FieldStats::default();
    for (i, row) in rows.iter().enumerate() {
        let (printed, dropped) = tallies(row).to_tallies();
        f.dropped += dropped;
        f.add_printed(i % 2, i as u64, &format!("r{i}"), &printed);
    }
    f
}

fn table(f: FieldStats) -> (u64, Vec<FieldStat>) {
    let dropped = f.dropped;
    (dropped, f.finish(&[String::from("x"), String::from("y")]))
}

proptest! {
    #[test]
    fn the_tree_and_the_printed_paths_make_one_table(
        rows in prop::collection::vec(
            prop::collection::vec((prop::collection::vec(0usize..8, 0..5), any::<u8>()), 0..6),
            0..12,
        ),
        split in 0usize..12,
    ) {
        prop_assert_eq!(table(by_tree(&rows, split)), table(by_path(&rows)));
    }
}

/// More paths than the table holds, over rows: the same paths kept and
/// the same comparisons dropped; and a path the table took in by a merge
/// is found by the tree from then on.
#[test]
fn the_caps_hold_alike() {
    let keys: Vec<String> = (0..MAX_FIELDS_PER_EVALUATOR + 50).map(|i| format!("k{i}")).collect();
    let tree_of = |ks: &[&str]| {
        let mut b = TalliesBuilder::with_capacity(ks.len() + 1, 64);
        let counts =
            ks.iter().map(|k| (b.add(0, Some(k)), Counts { wrong: 1, ..Counts::default() }));
        let counts: Vec<_> = counts.collect();
        b.finish(counts)
    };
    let mut tree = FieldStats::default();
    let mut path = FieldStats::default();
    for (i, chunk) in keys.chunks(100).enumerate() {
        let ks: Vec<&str> = chunk.iter().map(String::as_str).collect();
        let t = tree_of(&ks);
        tree.add_tallies(0, i as u64, "r", &t);
        path.add_printed(0, i as u64, "r", &t.to_tallies().0);
    }
    // Again: the first paths known, the last ones dropped again.
    let again = tree_of(&["k0", "k10049"]);
    tree.add_tallies(0, 999, "r", &again);
    path.add_printed(0, 999, "r", &again.to_tallies().0);
    assert_eq!(tree.dropped, 51);
    let (dropped, kept) = table(tree.clone());
    assert_eq!((dropped, kept.len()), (51, MAX_FIELDS_PER_EVALUATOR));
    assert_eq!(table(path), (dropped, kept));
    // A table with room takes `k10049` in; merged, the tree counts it.
    let mut room = FieldStats::default();
    room.add_tallies(0, 1, "r", &tree_of(&["k10049"]));
    let mut small = FieldStats::default();
    small.add_tallies(0, 1, "r", &tree_of(&["k1"]));
    small.merge(room);
    small.add_tallies(0, 2, "r", &tree_of(&["k10049"]));
    let stat = small.finish(&[String::from("x")]);
    let k = stat.iter().find(|s| s.path == "$.k10049").map(|s| s.total);
    assert_eq!(k, Some(2));
}

/// A row whose paths print past the row's bound is taken in by its tree
/// as its printed tallies are: the paths that fit within it, the
/// shortest first, the others counted as dropped.
#[test]
fn a_row_past_the_print_bound_is_taken_in_as_printed() {
    let long = "q".repeat(300_000);
    let mut b = TalliesBuilder::with_capacity(8, 8 * long.len());
    let mut counts = Vec::new();
    for seg in &SEGS[..5] {
        let top = b.add(0, Some(&long));
        counts.push((b.add(top, *seg), Counts { matched: 1, ..Counts::default() }));
    }
    let t = b.finish(counts);
    let mut tree = FieldStats::default();
    tree.add_tallies(0, 1, "r", &t);
    let (printed, dropped) = t.to_tallies();
    assert_eq!((printed.len(), dropped), (3, 2));
    let mut path = FieldStats::default();
    path.dropped += dropped;
    path.add_printed(0, 1, "r", &printed);
    assert_eq!(table(tree), table(path));
}
