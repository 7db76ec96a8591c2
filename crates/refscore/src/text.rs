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
    crate::score::finite(sim).clamp(0.0, 1.0)
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
    fn trims_like_js() {
        assert_eq!(js_trim("\u{feff} x \n"), "x");
        assert_eq!(js_trim("\u{a0}\u{2028}x\u{3000}\u{2029}"), "x");
        assert_eq!(js_trim("\u{85}x\u{85}"), "\u{85}x\u{85}");
        assert_eq!(js_trim("\u{180e}x"), "\u{180e}x");
    }
}
