//! Evidence passages and the verdict on one claim.
//!
//! **Passages.** A text (the reference, or one context item) gives one
//! passage per sentence and, when a sentence has clauses, one per clause
//! too (see [`super::claims`]), plus one per two adjacent sentences joined
//! (so a claim that merges two sentences, or names the subject a second
//! sentence calls "it", can be supported). A JSON value gives one passage per leaf:
//! the keys on its path as words (`unit_price` → `unit price`, `dueDate` →
//! `due Date`), a colon and the value (a string leaf with several sentences
//! gives one passage per sentence, each with the keys).
//!
//! **Alignment.** For a claim and a passage, *word overlap* is the share of
//! the claim's content-word stems found in the passage (stop words left
//! out), not counting claim entities swapped for another entity in the
//! same role ([`super::checks::swapped_entities`]), so that a changed name
//! does not hide the passage it contradicts. A claim without content words
//! uses its numbers and dates instead.
//! A passage is *aligned* when word overlap reaches the threshold. Aligned
//! passages are ranked by overlap of all tokens (stems plus numbers and
//! dates), then word overlap, then Jaccard similarity of the token sets
//! (the tighter passage first), then order.
//!
//! **Verdict.** Each aligned passage (the [`MAX_CHECKED`] best-ranked) is checked ([`super::checks::check`]):
//! the best-ranked passage that backs every number, date and entity makes
//! the claim *supported*; failing that, the best-ranked passage with a
//! conflict makes it *contradicted* (a joined pair only when no single
//! sentence or clause aligns; its negation is that of the sentence of the
//! pair sharing more of the claim's words); otherwise (no aligned passage,
//! or only missing facts) it is *unverifiable*.

use std::collections::BTreeSet;

use serde_json::Value;

use super::checks::{self, Features, Finding};
use super::claims;
use crate::unicode_class::decimal_digit_value;

/// One evidence passage.
#[derive(Debug, Clone)]
pub(crate) struct Passage {
    /// The text shown as evidence.
    pub(crate) text: String,
    /// Where it comes from: `reference`, `context`, `context[2]`.
    pub(crate) source: String,
    /// What it states.
    pub(crate) features: Features,
    /// For two adjacent sentences joined: the indices of the two sentence
    /// passages.
    pub(crate) parts: Option<[usize; 2]>,
}

/// Passage texts of a text, by sentence: the sentence first, then its
/// clauses when it has more than one.
pub(crate) fn texts_of_text(text: &str) -> Vec<Vec<String>> {
    claims::sentences(text)
        .into_iter()
        .map(|s| {
            let parts = claims::clauses(&s);
            let mut group = vec![s];
            if parts.len() > 1 {
                group.extend(parts);
            }
            group
        })
        .collect()
}

/// Keys on a leaf's path kept in its passage (the innermost ones).
const KEPT_KEYS: usize = 3;

/// Passage texts of a JSON value: one per leaf (`keys: value`, at most the
/// innermost [`KEPT_KEYS`] keys), each a group of its own.
pub(crate) fn texts_of_json(value: &Value) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut stack: Vec<(&Value, Vec<String>)> = vec![(value, Vec::new())];
    while let Some((v, keys)) = stack.pop() {
        match v {
            Value::Object(map) => {
                for (k, child) in map.iter().rev() {
                    // The last KEPT_KEYS keys name a leaf (bounded work on deep values).
                    let from = keys.len().saturating_sub(KEPT_KEYS - 1);
                    let mut next = keys.get(from..).unwrap_or_default().to_vec();
                    next.push(key_words(k));
                    stack.push((child, next));
                }
            }
            Value::Array(items) => {
                for child in items.iter().rev() {
                    stack.push((child, keys.clone()));
                }
            }
            Value::String(s) => {
                for sentence in claims::sentences(s) {
                    out.push(vec![with_keys(&keys, &sentence)]);
                }
            }
            Value::Null => {}
            other => out.push(vec![with_keys(&keys, &other.to_string())]),
        }
    }
    out
}

fn with_keys(keys: &[String], value: &str) -> String {
    if keys.is_empty() { value.to_owned() } else { format!("{}: {value}", keys.join(" ")) }
}

/// A JSON key as words: `_`, `-` and `.` become spaces, camelCase splits.
fn key_words(key: &str) -> String {
    let mut out = String::new();
    let mut prev_lower = false;
    for c in key.chars() {
        if matches!(c, '_' | '-' | '.') {
            out.push(' ');
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower {
            out.push(' ');
        }
        prev_lower = c.is_lowercase() || decimal_digit_value(c).is_some();
        out.push(c);
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Passages from groups of texts (see [`texts_of_text`]), with features:
/// every text, plus each two adjacent sentences joined. Indices in `parts`
/// count from `offset` (the number of passages before these).
pub(crate) fn passages(
    groups: &[Vec<String>],
    source: &str,
    known: &BTreeSet<String>,
    offset: usize,
) -> Vec<Passage> {
    let mut out: Vec<Passage> = Vec::new();
    let mut heads: Vec<Option<usize>> = Vec::new();
    for group in groups {
        let mut head = None;
        for (k, text) in group.iter().enumerate() {
            let features = Features::of(text, known);
            if !features.is_empty() {
                if k == 0 {
                    head = Some(offset + out.len());
                }
                out.push(Passage {
                    text: text.clone(),
                    source: source.to_owned(),
                    features,
                    parts: None,
                });
            }
        }
        heads.push(head);
    }
    for (pair, idx) in groups.windows(2).zip(heads.windows(2)) {
        if let (Some(a), Some(b), Some(ia), Some(ib)) =
            (pair[0].first(), pair[1].first(), idx[0], idx[1])
        {
            let text = format!("{a} {b}");
            let features = Features::of(&text, known);
            out.push(Passage { text, source: source.to_owned(), features, parts: Some([ia, ib]) });
        }
    }
    out
}

/// Most aligned passages checked for one claim (the best-ranked ones).
pub(crate) const MAX_CHECKED: usize = 32;

/// The verdict on one claim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Backed by passage `usize`.
    Supported(usize),
    /// Contradicted by passage `usize`, with the reason.
    Contradicted(usize, String),
    /// Neither, with the reason.
    Unverifiable(String),
}

fn share(part: &BTreeSet<String>, whole: &BTreeSet<String>) -> f64 {
    if part.is_empty() {
        return 0.0;
    }
    part.intersection(whole).count() as f64 / part.len() as f64
}

fn jaccard(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    let inter = a.intersection(b).count();
    let union = a.len() + b.len() - inter;
    if union == 0 { 0.0 } else { inter as f64 / union as f64 }
}

/// Judges one claim against the passages (see the module docs).
pub(crate) fn judge(claim: &Features, passages: &[Passage], threshold: f64) -> Verdict {
    let mut ranked: Vec<(f64, f64, f64, usize)> = Vec::new();
    let mut best_overlap = 0.0f64;
    for (i, p) in passages.iter().enumerate() {
        let overlap = checks::word_overlap(claim, &p.features);
        best_overlap = best_overlap.max(overlap);
        if overlap + 1e-12 >= threshold {
            let all = share(&claim.tokens, &p.features.tokens);
            ranked.push((all, overlap, jaccard(&claim.tokens, &p.features.tokens), i));
        }
    }
    if ranked.is_empty() {
        return Verdict::Unverifiable(if passages.is_empty() {
            String::from("no evidence to check against")
        } else {
            format!(
                "no evidence passage shares enough words (best overlap {best_overlap:.2} < {threshold:.2})"
            )
        });
    }
    ranked.sort_by(|a, b| {
        b.0.total_cmp(&a.0).then(b.1.total_cmp(&a.1)).then(b.2.total_cmp(&a.2)).then(a.3.cmp(&b.3))
    });
    let single_aligned =
        ranked.iter().any(|r| passages.get(r.3).is_some_and(|p| p.parts.is_none()));
    let mut contradiction: Option<(usize, String)> = None;
    let mut missing: Option<String> = None;
    for &(_, _, _, i) in ranked.iter().take(MAX_CHECKED) {
        let Some(p) = passages.get(i) else { continue };
        let finding = match p.parts {
            Some(parts) => {
                // Negation is read from the sentence of the pair that shares
                // more of the claim's words.
                let mut f = p.features.clone();
                let part = |k: usize| passages.get(k).map(|q| &q.features);
                if let (Some(a), Some(b)) = (part(parts[0]), part(parts[1])) {
                    let nearer = if share(&claim.words, &b.words) > share(&claim.words, &a.words) {
                        b
                    } else {
                        a
                    };
                    f.negation.clone_from(&nearer.negation);
                }
                checks::check(claim, &f, &p.source)
            }
            None => checks::check(claim, &p.features, &p.source),
        };
        match finding {
            Finding::Backed => return Verdict::Supported(i),
            // A joined pair contradicts only when no single passage aligns.
            Finding::Conflict(_) if p.parts.is_some() && single_aligned => {}
            Finding::Conflict(why) => {
                contradiction.get_or_insert((i, why));
            }
            Finding::Missing(why) => {
                missing.get_or_insert(why);
            }
        }
    }
    match (contradiction, missing) {
        (Some((i, why)), _) => Verdict::Contradicted(i, why),
        (None, Some(why)) => Verdict::Unverifiable(why),
        (None, None) => Verdict::Unverifiable(String::from(
            "only passages joining two sentences match, and they disagree with a sentence they align with",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ps(text: &str) -> Vec<Passage> {
        passages(&texts_of_text(text), "reference", &BTreeSet::new(), 0)
    }

    fn verdict(claim: &str, reference: &str) -> Verdict {
        judge(&Features::of(claim, &BTreeSet::new()), &ps(reference), 0.7)
    }

    #[test]
    fn json_passages() {
        let t = texts_of_json(
            &json!({"invoice": {"unitPrice": 12.5, "due_date": "2024-01-31"}, "items": ["pen", null], "note": "Paid. Thanks."}),
        );
        let flat: Vec<&str> = t.iter().flatten().map(String::as_str).collect();
        assert_eq!(
            flat,
            [
                "invoice due date: 2024-01-31",
                "invoice unit Price: 12.5",
                "items: pen",
                "note: Paid.",
                "note: Thanks."
            ]
        );
        assert_eq!(texts_of_json(&json!(5)), [["5"]]);
        // A digit ends a camelCase word in any script.
        assert_eq!(texts_of_json(&json!({"line２Total": 5})), [["line２ Total: 5"]]);
        assert_eq!(texts_of_json(&json!({"a": {"b": {"c": {"d": 1}}}})), [["b c d: 1"]]);
    }

    #[test]
    fn clauses_become_passages_too() {
        let t = texts_of_text("Sales rose in Europe, but they fell sharply in Asia. Done here.");
        assert_eq!(t[0].len(), 3);
        let p = passages(&t, "reference", &BTreeSet::new(), 2);
        assert_eq!(p.len(), 5);
        assert_eq!(p[4].parts, Some([2, 5]));
        assert!(p[4].text.ends_with("Asia. Done here."));
    }

    #[test]
    fn verdicts() {
        let r = "Revenue grew 10% in 2022. Revenue grew 24% in 2023. The firm has no debt.";
        assert_eq!(verdict("Revenue grew 24% in 2023.", r), Verdict::Supported(1));
        assert!(
            matches!(verdict("Revenue grew 42% in 2023.", r), Verdict::Contradicted(1, ref m) if m.contains("42%"))
        );
        assert!(matches!(verdict("The firm has debt.", r), Verdict::Contradicted(2, _)));
        assert!(
            matches!(verdict("The CEO resigned.", r), Verdict::Unverifiable(ref m) if m.contains("best overlap 0.00"))
        );
        assert!(
            matches!(verdict("Revenue grew.", ""), Verdict::Unverifiable(ref m) if m == "no evidence to check against")
        );
    }
}
