//! The `string` comparator: normalized Levenshtein similarity.

use serde_json::Value;

use super::{Normalizer, below_one, exact, normalize};
use crate::engine::Leaf;
use crate::text::normalized_levenshtein;

/// Two strings, after the normalizers, with similarity
/// `s = 1 − levenshtein / max(len)` (Unicode scalar values, `s = 1` for
/// two empty strings): equal strings match; with a threshold `t`, `s ≥ t`
/// matches; otherwise the score is `s` (partial when `s > 0`, a value
/// mismatch at 0). Other values are compared as `exact` does.
pub(super) fn compare(
    e: &Value,
    a: &Value,
    normalizers: &[Normalizer],
    threshold: Option<f64>,
) -> Leaf {
    let (Value::String(x), Value::String(y)) = (e, a) else {
        return exact::compare(e, a, normalizers);
    };
    let (x, y) = (normalize(x, normalizers), normalize(y, normalizers));
    if x == y {
        return Leaf::MATCH;
    }
    let s = normalized_levenshtein(&x, &y);
    match threshold {
        // NaN never matches; the comparison below is false for it.
        Some(t) if s >= t => Leaf::MATCH,
        _ => below_one(s),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detail::Outcome;
    use serde_json::json;

    fn run(e: &str, a: &str, t: Option<f64>, n: &[Normalizer]) -> Leaf {
        compare(&json!(e), &json!(a), n, t)
    }

    #[test]
    fn table() {
        let cases: &[(&str, &str, Option<f64>, f64, Outcome)] = &[
            ("kitten", "kitten", None, 1.0, Outcome::Match),
            ("", "", None, 1.0, Outcome::Match),
            ("kitten", "sitting", None, 4.0 / 7.0, Outcome::Partial),
            ("kitten", "sitting", Some(0.5), 1.0, Outcome::Match),
            ("kitten", "sitting", Some(0.6), 4.0 / 7.0, Outcome::Partial),
            ("abc", "xyz", None, 0.0, Outcome::ValueMismatch),
            ("abc", "xyz", Some(0.0), 1.0, Outcome::Match),
            ("abc", "", Some(0.5), 0.0, Outcome::ValueMismatch),
            ("Cancelled", "Canceled", Some(0.85), 1.0, Outcome::Match),
            ("Cancelled", "Canceled", Some(0.9), 8.0 / 9.0, Outcome::Partial),
            ("Cancelled", "Canceled", Some(1.0), 8.0 / 9.0, Outcome::Partial),
            ("Cancelled", "Canceled", Some(f64::NAN), 8.0 / 9.0, Outcome::Partial),
            ("naïve", "naive", None, 0.8, Outcome::Partial),
            ("😀", "😃", None, 0.0, Outcome::ValueMismatch),
        ];
        for (e, a, t, score, outcome) in cases {
            let got = run(e, a, *t, &[]);
            assert_eq!(got.outcome, *outcome, "{e:?} {a:?} {t:?}");
            assert!((got.score - score).abs() < 1e-12, "{e:?} {a:?} {t:?} {got:?}");
        }
    }

    #[test]
    fn normalizers_first() {
        let n = [Normalizer::Casefold, Normalizer::StripPunctuation, Normalizer::Trim];
        assert_eq!(run(" ACME, Inc. ", "acme inc", None, &n), Leaf::MATCH);
        let got = run("ACME", "acmi", None, &n);
        assert!((got.score - 0.75).abs() < 1e-12);
    }

    #[test]
    fn other_types() {
        assert_eq!(compare(&json!(1), &json!("1"), &[], None), Leaf::TYPE);
        assert_eq!(compare(&json!(1), &json!(1.0), &[], None), Leaf::MATCH);
        assert_eq!(compare(&json!(1), &json!(2), &[], Some(0.0)), Leaf::WRONG);
    }
}
