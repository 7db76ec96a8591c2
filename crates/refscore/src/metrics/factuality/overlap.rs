//! Regtrace's shallow factuality score (`scoring: overlap`): n-gram overlap
//! of the whole output with the whole reference.
//!
//! Tokens are the runs of `[a-z0-9]` in the lowercased text, every decimal
//! digit read as its ASCII digit (`４５６` is `456`); anything else
//! separates tokens, so `don't` is `don` + `t` and `3.5` is `3` + `5`.
//! With `U` the sets of tokens and `B` the sets of adjacent token pairs:
//!
//! ```text
//! overlap = 0.4 · J(U_out, U_ref) + 0.6 · J(B_out, B_ref)      J(x, y) = |x ∩ y| / |x ∪ y|
//! ```
//!
//! Fall-backs, as Regtrace's code has them: a reference without tokens
//! scores 1 against an output without tokens and 0 against any other; an
//! output without tokens scores 0. A reference of a single token (so no
//! pairs) puts the unigram Jaccard in the place of the pairs' (the score
//! is the unigram Jaccard); an output of a single token against a longer
//! reference shares none of its pairs (0 for the pairs). In `strict` mode
//! a score strictly between 0.3 and 1 loses 0.1.

use std::collections::BTreeSet;

use crate::unicode_class::fold_digits;

/// The parts of an overlap score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Overlap {
    /// Jaccard similarity of the token sets.
    pub(crate) unigram: f64,
    /// Jaccard similarity of the token-pair sets (`None` when the
    /// reference has no pair: the unigram Jaccard stands in for it).
    pub(crate) bigram: Option<f64>,
    /// The combined score before any penalty.
    pub(crate) raw: f64,
    /// The score after the strict penalty.
    pub(crate) score: f64,
}

/// Strict-mode penalty.
pub(crate) const STRICT_PENALTY: f64 = 0.1;

fn tokens(text: &str) -> Vec<String> {
    fold_digits(text)
        .to_lowercase()
        .split(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit()))
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
        .collect()
}

fn jaccard<T: Ord>(a: &BTreeSet<T>, b: &BTreeSet<T>) -> f64 {
    let inter = a.intersection(b).count();
    let union = a.len() + b.len() - inter;
    if union == 0 { 1.0 } else { inter as f64 / union as f64 }
}

/// The overlap of `output` with `reference`; `strict` applies the penalty.
pub(crate) fn overlap(output: &str, reference: &str, strict: bool) -> Overlap {
    let (o, r) = (tokens(output), tokens(reference));
    // Regtrace's word overlap: its n-gram overlap of single tokens, and
    // what stands in for the pairs of a reference of fewer than two.
    let unigram = match (o.is_empty(), r.is_empty()) {
        (true, true) => 1.0,
        (_, true) | (true, _) => 0.0,
        _ => {
            let (uo, ur): (BTreeSet<&String>, BTreeSet<&String>) =
                (o.iter().collect(), r.iter().collect());
            jaccard(&uo, &ur)
        }
    };
    let pairs = |t: &[String]| -> BTreeSet<(String, String)> {
        t.windows(2).map(|w| (w[0].clone(), w[1].clone())).collect()
    };
    let bigram = match (o.len(), r.len()) {
        (_, 0 | 1) => None,
        (0 | 1, _) => Some(0.0),
        _ => Some(jaccard(&pairs(&o), &pairs(&r))),
    };
    // As Regtrace sums it (a single-token reference gives 0.4·J + 0.6·J,
    // which may differ from J in its last bit).
    let raw = unigram * 0.4 + bigram.unwrap_or(unigram) * 0.6;
    let score = if strict && raw > 0.3 && raw < 1.0 { raw - STRICT_PENALTY } else { raw };
    Overlap { unigram, bigram, raw, score: score.clamp(0.0, 1.0) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formula() {
        let o = overlap("The capital of France is Paris.", "The capital of France is Paris.", true);
        assert_eq!(o.score, 1.0);
        // U: {paris,is,the,capital,city,of,france} vs {the,capital,of,france,is,paris}: 6/7.
        // B: out {paris is, is the, the capital, capital city, city of, of france},
        //    ref {the capital, capital of, of france, france is, is paris}: 2/9.
        let o = overlap(
            "Paris is the capital city of France.",
            "The capital of France is Paris.",
            false,
        );
        assert!((o.unigram - 6.0 / 7.0).abs() < 1e-12);
        assert!((o.bigram.unwrap() - 2.0 / 9.0).abs() < 1e-12);
        let want = 0.4 * 6.0 / 7.0 + 0.6 * 2.0 / 9.0;
        assert!((o.raw - want).abs() < 1e-12);
        let strict = overlap(
            "Paris is the capital city of France.",
            "The capital of France is Paris.",
            true,
        );
        assert!((strict.score - (want - 0.1)).abs() < 1e-12);
    }

    #[test]
    fn fall_backs() {
        assert_eq!(overlap("", "  ", true).score, 1.0);
        assert_eq!(overlap("!!", "text", true).score, 0.0);
        assert_eq!(overlap("paris", "Paris", true).score, 1.0);
        // A single-token reference: the unigram Jaccard in both places.
        assert_eq!(overlap("Paris France", "paris", false).score, 0.5);
        // 0.5 is in (0.3, 1): strict takes 0.1 off; 0.1 is not.
        assert_eq!(overlap("Paris France", "paris", true).score, 0.4);
        // A single-token output shares none of a longer reference's pairs.
        let one = overlap("paris", "Paris France", false);
        assert_eq!((one.unigram, one.bigram), (0.5, Some(0.0)));
        assert_eq!(one.score, 0.5 * 0.4);
        assert_eq!(overlap("a", "a b", true).score, 0.2);
        assert_eq!(overlap("a", "a b c d", true).score, 0.25 * 0.4);
        assert_eq!(overlap("", "a b", true).score, 0.0);
        assert_eq!(overlap("a b", "", true).score, 0.0);
        // Tokens are [a-z0-9] runs: the apostrophe splits.
        assert_eq!(tokens("Don't 3.5 É"), ["don", "t", "3", "5"]);
    }
}
