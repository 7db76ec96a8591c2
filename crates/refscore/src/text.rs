//! String similarity: normalized Levenshtein over Unicode scalar values.

/// `1 − levenshtein(a, b) / max(len(a), len(b))`, lengths in Unicode scalar
/// values (as Python counts them); `1.0` when both are empty.
pub fn normalized_levenshtein(a: &str, b: &str) -> f64 {
    if a == b {
        return 1.0;
    }
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let sim = if a.is_ascii() && b.is_ascii() {
        rapidfuzz::distance::levenshtein::normalized_similarity(a.bytes(), b.bytes())
    } else {
        rapidfuzz::distance::levenshtein::normalized_similarity(a.chars(), b.chars())
    };
    crate::number::finite(sim).clamp(0.0, 1.0)
}

/// [`normalized_levenshtein`] when it is at least `cutoff`, else 0; faster
/// than computing the exact similarity of two dissimilar strings (the
/// length difference alone often rules them out).
pub fn normalized_levenshtein_at_least(a: &str, b: &str, cutoff: f64) -> f64 {
    use rapidfuzz::distance::levenshtein::{Args, normalized_similarity_with_args};
    if a == b {
        return 1.0;
    }
    let (la, lb) = (a.chars().count(), b.chars().count());
    let (short, long) = (la.min(lb), la.max(lb));
    #[allow(clippy::cast_precision_loss)]
    if long == 0 || (short as f64) < cutoff * long as f64 {
        return 0.0;
    }
    #[allow(clippy::cast_precision_loss)]
    if a.is_ascii()
        && b.is_ascii()
        && 1.0 - bag_distance(a.as_bytes(), b.as_bytes()) as f64 / (long as f64) < cutoff
    {
        return 0.0;
    }
    let args = Args::default().score_cutoff(cutoff);
    let sim = if a.is_ascii() && b.is_ascii() {
        normalized_similarity_with_args(a.bytes(), b.bytes(), &args)
    } else {
        normalized_similarity_with_args(a.chars(), b.chars(), &args)
    };
    sim.map_or(0.0, |x| crate::number::finite(x).clamp(0.0, 1.0))
}

/// A lower bound of the Levenshtein distance of two byte strings: the
/// larger of the two one-sided multiset differences of their bytes.
fn bag_distance(a: &[u8], b: &[u8]) -> usize {
    let mut counts = [0i32; 256];
    for &x in a {
        counts[usize::from(x)] += 1;
    }
    for &x in b {
        counts[usize::from(x)] -= 1;
    }
    let (mut only_a, mut only_b) = (0usize, 0usize);
    for c in counts {
        if c > 0 {
            only_a += c.unsigned_abs() as usize;
        } else {
            only_b += c.unsigned_abs() as usize;
        }
    }
    only_a.max(only_b)
}

/// Levenshtein distance in Unicode scalar values.
pub fn levenshtein(a: &str, b: &str) -> usize {
    if a.is_ascii() && b.is_ascii() {
        rapidfuzz::distance::levenshtein::distance(a.bytes(), b.bytes())
    } else {
        rapidfuzz::distance::levenshtein::distance(a.chars(), b.chars())
    }
}

/// Trims whitespace as JavaScript's `String.prototype.trim` does: Unicode
/// white space and line terminators, plus the byte-order mark, but not
/// U+0085 (NEXT LINE), which Unicode calls white space and JavaScript does
/// not.
pub fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_whitespace)
}

/// Whether JavaScript's `trim` removes `c`: the `WhiteSpace` and
/// `LineTerminator` productions of ECMAScript.
pub fn is_js_whitespace(c: char) -> bool {
    c == '\u{feff}' || (c.is_whitespace() && c != '\u{85}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        assert!((normalized_levenshtein("pepperoni", "peppers") - (1.0 - 3.0 / 9.0)).abs() < 1e-12);
        assert_eq!(normalized_levenshtein("", ""), 1.0);
        assert_eq!(normalized_levenshtein("a", ""), 0.0);
        assert_eq!(normalized_levenshtein("😀", "😃"), 0.0);
        assert!(
            (normalized_levenshtein("kitten", "sitting") - 0.571_428_571_428_571_4).abs() < 1e-12
        );
        assert_eq!(levenshtein("héllo", "hello"), 1);
    }

    #[test]
    fn cutoff_agrees_above_and_is_zero_below() {
        for (a, b) in [
            ("ACME Corp", "ACME Corp."),
            ("kitten", "sitting"),
            ("abcdefgh", "abcdefgx"),
            ("é中文x", "é中文y"),
        ] {
            let s = normalized_levenshtein(a, b);
            let t = normalized_levenshtein_at_least(a, b, 0.8);
            if s >= 0.8 {
                assert!((s - t).abs() < 1e-12, "{a} {b}");
            } else {
                assert_eq!(t, 0.0, "{a} {b}");
            }
        }
        assert_eq!(normalized_levenshtein_at_least("a", "abcdefghij", 0.8), 0.0);
    }

    #[test]
    fn trims_like_js() {
        assert_eq!(js_trim("\u{feff} x \n"), "x");
        assert_eq!(js_trim("\u{a0}\u{2028}x\u{3000}\u{2029}"), "x");
        assert_eq!(js_trim("\u{85}x\u{85}"), "\u{85}x\u{85}");
        assert_eq!(js_trim("\u{180e}x"), "\u{180e}x");
    }
}
