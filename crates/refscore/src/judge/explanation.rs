//! A judge's explanation as a score keeps it: whole up to
//! [`MAX_EXPLANATION_BYTES`], then cut at a character with a note of what
//! was left out. A server that ignores `max_tokens` can send megabytes of
//! rationale; every row's result, the reports and the cache would carry
//! them.

/// Longest explanation kept whole, in bytes of UTF-8.
pub const MAX_EXPLANATION_BYTES: usize = 16 * 1024;

/// `text`, cut after [`MAX_EXPLANATION_BYTES`] (at a character boundary)
/// with `… (N more bytes of the judge's explanation not kept)`.
pub(crate) fn kept(text: &str) -> String {
    if text.len() <= MAX_EXPLANATION_BYTES {
        return text.to_owned();
    }
    let mut end = MAX_EXPLANATION_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{}… ({} more bytes of the judge's explanation not kept)",
        &text[..end],
        text.len() - end
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_explanation_is_cut_at_a_character_and_says_so() {
        assert_eq!(kept("short"), "short");
        let whole = "é".repeat(MAX_EXPLANATION_BYTES / 2);
        assert_eq!(kept(&whole), whole);
        // One byte over, the cut falls inside a two-byte `é`: it moves back.
        let over = format!("a{whole}");
        let cut = kept(&over);
        assert!(cut.starts_with(&over[..MAX_EXPLANATION_BYTES - 1]), "{}", &cut[..20]);
        assert!(cut.ends_with("… (2 more bytes of the judge's explanation not kept)"), "{cut:.40}");
        let huge = "x".repeat(10 << 20);
        assert!(kept(&huge).len() < MAX_EXPLANATION_BYTES + 100);
    }
}
