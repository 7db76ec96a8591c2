//! Formality: formal vs informal register, in [0, 1].
//!
//! Over the words `W` of the text (or sentence):
//!
//! ```text
//! informal = contractions + slang + 0.5·personal + exclamation marks + emoji
//! formal   = formal words
//! length   = clamp((mean letters per word − 3.5) / 3, 0, 1)
//! formality = clamp(0.5 + 4·(formal − informal) / W + 0.5·(length − 0.5), 0, 1)
//! ```
//!
//! A contraction is a word ending in `n't`, `'re`, `'ve`, `'ll`, `'m` or
//! `'d`, or `'s` after a pronoun (`it's`, `that's`, `let's`; not a
//! possessive). Slang, personal pronouns (`I`, `me`, `my`, `you`, `your`,
//! ...) and formal words come from [`super::wordlists`].

use super::analysis::Sentence;
use super::wordlists::{self, FORMAL, PERSONAL, S_CONTRACTION_BASES, SLANG};

/// Formality of some sentences; `None` without words.
pub(crate) fn measure(sentences: &[Sentence]) -> Option<f64> {
    let (mut words, mut informal, mut formal, mut letters) = (0usize, 0.0f64, 0.0f64, 0usize);
    for s in sentences {
        informal += (s.exclamations + s.emoji) as f64;
        for w in &s.words {
            words += 1;
            letters += w.lower.chars().filter(|c| c.is_alphanumeric()).count();
            if is_contraction(&w.lower) || wordlists::contains(SLANG, &w.lower) {
                informal += 1.0;
            } else if wordlists::contains(PERSONAL, &w.lower) {
                informal += 0.5;
            } else if wordlists::contains(FORMAL, &w.lower) {
                formal += 1.0;
            }
        }
    }
    if words == 0 {
        return None;
    }
    let w = words as f64;
    let length = ((letters as f64 / w - 3.5) / 3.0).clamp(0.0, 1.0);
    Some((0.5 + 4.0 * (formal - informal) / w + 0.5 * (length - 0.5)).clamp(0.0, 1.0))
}

/// Whether a lowercase word is a contraction.
pub(crate) fn is_contraction(lower: &str) -> bool {
    if ["n't", "'re", "'ve", "'ll", "'m", "'d"].iter().any(|s| lower.ends_with(s)) {
        return true;
    }
    lower.strip_suffix("'s").is_some_and(|base| wordlists::contains(S_CONTRACTION_BASES, base))
}

#[cfg(test)]
mod tests {
    use super::super::analysis::Analysed;
    use super::*;

    fn f(t: &str) -> f64 {
        measure(&Analysed::of(t).sentences).unwrap()
    }

    #[test]
    fn formal_casual_neutral() {
        let formal = f("We hereby inform the committee that the shipment has been delayed. \
                        Consequently, delivery is expected subsequently, pursuant to the agreement.");
        let casual = f("Hey! We're super excited, you're gonna love it lol 😀");
        let neutral = f("The shipment arrives on Monday.");
        assert!(formal > 0.9, "{formal}");
        assert_eq!(casual, 0.0);
        assert!((0.4..0.7).contains(&neutral), "{neutral}");
        assert!(measure(&[]).is_none());
    }

    #[test]
    fn contractions() {
        assert!(is_contraction("don't") && is_contraction("it's") && is_contraction("we'll"));
        assert!(!is_contraction("company's") && !is_contraction("its"));
    }
}
