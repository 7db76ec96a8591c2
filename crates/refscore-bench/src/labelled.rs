//! Hand-labelled pairs for json_match's zero-config quality: real model
//! outputs' kinds of differences in ten domains (invoices, contacts,
//! tool calls, clinical records, …), each pair labelled, before it was
//! scored, with the paths of its real errors, of its harmless differences
//! and of the debatable ones (`crates/refscore-bench/data/zero-config-labelled.jsonl`).
//!
//! Unlike [`crate::quality`], whose generator was written with the
//! zero-config readings, these labels say what a reviewer would call an
//! error, whether or not json_match reads it so.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

/// One labelled path.
#[derive(Debug, Clone, Deserialize)]
pub struct Label {
    /// The reference path (`$.vendor.vat_id`, `$.line_items[1]`).
    pub path: String,
    /// The category (`case_code`, `wrong_amount`, …).
    pub cat: String,
}

/// One labelled pair.
#[derive(Debug, Clone, Deserialize)]
pub struct Pair {
    /// The pair's name.
    pub id: String,
    /// The model's output.
    pub output: Value,
    /// The reference.
    pub reference: Value,
    /// Real errors: a scorer must flag each.
    pub errors: Vec<Label>,
    /// Differences of form alone: a scorer should flag none.
    pub harmless: Vec<Label>,
    /// Debatable differences: counted neither way.
    pub either: Vec<Label>,
}

/// Reads the labelled pairs of a JSONL file.
///
/// # Errors
/// The file cannot be read, or a line is not a labelled pair.
pub fn read(path: &std::path::Path) -> anyhow::Result<Vec<Pair>> {
    let text = std::fs::read_to_string(path)?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(n, l)| {
            serde_json::from_str(l)
                .map_err(|e| anyhow::anyhow!("{}: line {}: {e}", path.display(), n + 1))
        })
        .collect()
}

/// The paths of `metric`'s failed details on `pair`; a pair it cannot
/// score flags everything (`$`).
pub fn flags(metric: &dyn refscore::Evaluator, pair: &Pair) -> Vec<String> {
    let input = refscore::EvalInput::pair(pair.output.clone(), pair.reference.clone());
    match metric.evaluate(&input) {
        Ok(ev) => ev
            .scores
            .iter()
            .flat_map(|s| &s.details)
            .filter(|d| !d.passed)
            .filter_map(|d| Some(d.check.path()?.to_string()))
            .collect(),
        Err(_) => vec!["$".to_owned()],
    }
}

/// Whether a flagged path `d` concerns the labelled path `l`: the same,
/// or one inside the other.
fn related(d: &str, l: &str) -> bool {
    let inside = |a: &str, b: &str| {
        a.strip_prefix(b).is_some_and(|rest| rest.starts_with('.') || rest.starts_with('['))
    };
    d == l || inside(d, l) || inside(l, d)
}

/// What a scorer did on the labelled pairs, by category.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Per harmless category: (labels, failed details on them).
    pub harmless: BTreeMap<String, (usize, usize)>,
    /// Per error category: (labels, labels no failed detail concerns).
    pub errors: BTreeMap<String, (usize, usize)>,
    /// `(pair id, path)` of each failed detail on a harmless difference.
    pub false_flags: Vec<(String, String)>,
    /// `(pair id, path)` of each error missed.
    pub misses: Vec<(String, String)>,
}

impl Outcome {
    /// Totals: (harmless labels, failed details on them, errors, missed).
    pub fn totals(&self) -> (usize, usize, usize, usize) {
        let h = self.harmless.values().fold((0, 0), |a, v| (a.0 + v.0, a.1 + v.1));
        let e = self.errors.values().fold((0, 0), |a, v| (a.0 + v.0, a.1 + v.1));
        (h.0, h.1, e.0, e.1)
    }
}

/// Scores `pairs` (each pair's failed details' paths given by `failed`)
/// against their labels. A failed detail on an error or a debatable path
/// is not a false flag; one on a harmless path is, once per detail.
pub fn judge(pairs: &[Pair], mut failed: impl FnMut(&Pair) -> Vec<String>) -> Outcome {
    let mut o = Outcome::default();
    for p in pairs {
        let flagged = failed(p);
        for h in &p.harmless {
            o.harmless.entry(h.cat.clone()).or_default().0 += 1;
        }
        for e in &p.errors {
            let entry = o.errors.entry(e.cat.clone()).or_default();
            entry.0 += 1;
            if !flagged.iter().any(|d| related(d, &e.path)) {
                entry.1 += 1;
                o.misses.push((p.id.clone(), e.path.clone()));
            }
        }
        for d in &flagged {
            if p.errors.iter().chain(&p.either).any(|l| related(d, &l.path)) {
                continue;
            }
            if let Some(h) = p.harmless.iter().find(|h| related(d, &h.path)) {
                o.harmless.entry(h.cat.clone()).or_default().1 += 1;
                o.false_flags.push((p.id.clone(), d.clone()));
            }
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn label(path: &str, cat: &str) -> Label {
        Label { path: path.to_owned(), cat: cat.to_owned() }
    }

    #[test]
    fn paths_concern_the_labels_they_are_in_or_hold() {
        assert!(related("$.a", "$.a"));
        assert!(related("$.a.b", "$.a"));
        assert!(related("$.a[0]", "$.a"));
        assert!(related("$.a", "$.a[0].b"));
        assert!(!related("$.ab", "$.a"));
        assert!(!related("$.b", "$.a"));
    }

    #[test]
    fn flags_on_errors_count_as_found_and_on_harmless_paths_as_false() {
        let pair = Pair {
            id: "p".to_owned(),
            output: json!({}),
            reference: json!({}),
            errors: vec![label("$.total", "wrong_amount"), label("$.date", "wrong_date")],
            harmless: vec![label("$.currency", "case_code"), label("$.name", "case_free_text")],
            either: vec![label("$.note", "either")],
        };
        let o = judge(&[pair], |_| {
            vec!["$.total".to_owned(), "$.currency".to_owned(), "$.note".to_owned()]
        });
        assert_eq!(o.totals(), (2, 1, 2, 1));
        assert_eq!(o.false_flags, [("p".to_owned(), "$.currency".to_owned())]);
        assert_eq!(o.misses, [("p".to_owned(), "$.date".to_owned())]);
    }

    /// The committed pairs, scored as `jm-quality --labelled` scores
    /// them: a change to the zero-config readings that moves either figure
    /// must say so here and in bench/README.md.
    #[test]
    fn zero_config_on_the_committed_labelled_pairs() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("data/zero-config-labelled.jsonl");
        let pairs = read(&path).unwrap();
        assert_eq!(pairs.len(), 308);
        let metric = refscore::metrics::build(
            "json_match",
            &serde_json::Map::new(),
            &refscore::metrics::BuildContext::default(),
        )
        .unwrap();
        let o = judge(&pairs, |p| flags(metric.as_ref(), p));
        // (harmless labels, failed details on them, errors, missed)
        assert_eq!(o.totals(), (118, 3, 165, 3), "{:?} {:?}", o.false_flags, o.misses);
    }
}
