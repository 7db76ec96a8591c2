//! A text cut into sentences and words once, for every tone dimension.

use crate::metrics::factuality::{claims, tokens};

/// One sentence.
#[derive(Debug, Clone)]
pub(crate) struct Sentence {
    /// Words with a letter (`tokens::words`, pure digit runs left out).
    pub(crate) words: Vec<tokens::Word>,
    /// `!` characters.
    pub(crate) exclamations: usize,
    /// Emoji and pictographs.
    pub(crate) emoji: usize,
    /// Whether it ends with `?`.
    pub(crate) question: bool,
}

/// A text as sentences.
#[derive(Debug, Clone, Default)]
pub(crate) struct Analysed {
    /// Its sentences (bullets and list items count as sentences).
    pub(crate) sentences: Vec<Sentence>,
}

impl Analysed {
    /// Cuts `text` into sentences and words.
    pub(crate) fn of(text: &str) -> Analysed {
        let sentences = claims::sentences(text)
            .iter()
            .map(|s| Sentence {
                words: tokens::words(s).into_iter().filter(tokens::Word::has_letter).collect(),
                exclamations: s.chars().filter(|&c| c == '!').count(),
                emoji: s.chars().filter(|&c| is_emoji(c)).count(),
                question: s
                    .trim_end_matches(|c: char| {
                        c.is_whitespace() || is_emoji(c) || "\"')”’".contains(c)
                    })
                    .ends_with('?'),
            })
            .filter(|s| !s.words.is_empty())
            .collect();
        Analysed { sentences }
    }

    /// Number of words.
    pub(crate) fn word_count(&self) -> usize {
        self.sentences.iter().map(|s| s.words.len()).sum()
    }

    /// Average words per sentence (0 without sentences).
    pub(crate) fn words_per_sentence(&self) -> f64 {
        if self.sentences.is_empty() {
            0.0
        } else {
            self.word_count() as f64 / self.sentences.len() as f64
        }
    }
}

/// Whether `c` is an emoji or pictograph (the main emoji blocks).
pub(crate) fn is_emoji(c: char) -> bool {
    matches!(u32::from(c), 0x1F300..=0x1FAFF | 0x2600..=0x27BF | 0x1F000..=0x1F2FF)
}

/// Lowercase words of a sentence joined by single spaces, with a space at
/// both ends (for phrase matching).
pub(crate) fn joined(s: &Sentence) -> String {
    let mut out = String::from(" ");
    for w in &s.words {
        out.push_str(&w.lower);
        out.push(' ');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_text() {
        let a = Analysed::of("Hi there! Is it 5 pm? 😀\n- one more item here");
        assert_eq!(a.sentences.len(), 3);
        assert_eq!(a.sentences[0].exclamations, 1);
        assert!(a.sentences[1].question);
        assert_eq!(a.sentences[1].words.len(), 3);
        assert_eq!(a.sentences[1].emoji, 1);
        assert_eq!(a.word_count(), 2 + 3 + 4);
        assert!((a.words_per_sentence() - 3.0).abs() < 1e-12);
        assert_eq!(joined(&a.sentences[0]), " hi there ");
        assert_eq!(Analysed::of("").words_per_sentence(), 0.0);
    }
}
