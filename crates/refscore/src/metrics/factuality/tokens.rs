//! Words of a passage: tokenisation, stop words, a light stemmer and
//! negation cues.
//!
//! A word is a run of letters and digits; an apostrophe (`'` or `’`)
//! between a letter or digit and a letter stays inside the word, so
//! `doesn't` and `company's` are one word each. Everything else (spaces,
//! punctuation, hyphens, symbols) separates words.

/// One word of a passage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Word {
    /// The word as written (curly apostrophes made straight).
    pub(crate) text: String,
    /// Lowercase form.
    pub(crate) lower: String,
    /// Whether it is the passage's first word.
    pub(crate) initial: bool,
}

impl Word {
    /// Whether the word starts with an uppercase letter.
    pub(crate) fn capitalised(&self) -> bool {
        self.text.chars().next().is_some_and(char::is_uppercase)
    }

    /// Whether the word has a letter (pure digit runs are numbers, handled
    /// by the quantity checks).
    pub(crate) fn has_letter(&self) -> bool {
        self.text.chars().any(char::is_alphabetic)
    }
}

/// The words of `text`, in order.
pub(crate) fn words(text: &str) -> Vec<Word> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut cur = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_alphanumeric() {
            cur.push(c);
            continue;
        }
        let apostrophe = c == '\'' || c == '’';
        let next_letter = chars.get(i + 1).is_some_and(|n| n.is_alphabetic());
        if apostrophe && !cur.is_empty() && next_letter {
            cur.push('\'');
            continue;
        }
        flush(&mut cur, &mut out);
    }
    flush(&mut cur, &mut out);
    out
}

fn flush(cur: &mut String, out: &mut Vec<Word>) {
    if cur.is_empty() {
        return;
    }
    let text = std::mem::take(cur);
    let lower = text.to_lowercase();
    out.push(Word { text, lower, initial: out.is_empty() });
}

/// English function words ignored when measuring overlap (sorted, for
/// binary search). Negation cues are stop words too: they are checked
/// separately, so they never decide which passage a claim aligns with.
const STOP_WORDS: &[&str] = &[
    "a",
    "about",
    "above",
    "after",
    "again",
    "against",
    "all",
    "also",
    "am",
    "an",
    "and",
    "any",
    "are",
    "as",
    "at",
    "be",
    "because",
    "been",
    "before",
    "being",
    "below",
    "between",
    "both",
    "but",
    "by",
    "can",
    "cannot",
    "could",
    "did",
    "do",
    "does",
    "doing",
    "down",
    "during",
    "each",
    "either",
    "few",
    "for",
    "from",
    "further",
    "had",
    "has",
    "have",
    "having",
    "he",
    "her",
    "here",
    "hers",
    "herself",
    "him",
    "himself",
    "his",
    "how",
    "however",
    "i",
    "if",
    "in",
    "into",
    "is",
    "it",
    "its",
    "itself",
    "just",
    "may",
    "me",
    "might",
    "more",
    "most",
    "must",
    "my",
    "myself",
    "neither",
    "never",
    "no",
    "nobody",
    "none",
    "nor",
    "not",
    "nothing",
    "now",
    "nowhere",
    "of",
    "off",
    "on",
    "once",
    "only",
    "or",
    "other",
    "our",
    "ours",
    "ourselves",
    "out",
    "over",
    "own",
    "same",
    "shall",
    "she",
    "should",
    "so",
    "some",
    "such",
    "than",
    "that",
    "the",
    "their",
    "theirs",
    "them",
    "themselves",
    "then",
    "there",
    "these",
    "they",
    "this",
    "those",
    "through",
    "to",
    "too",
    "under",
    "until",
    "up",
    "very",
    "was",
    "we",
    "were",
    "what",
    "when",
    "where",
    "which",
    "while",
    "who",
    "whom",
    "why",
    "will",
    "with",
    "without",
    "would",
    "yet",
    "you",
    "your",
    "yours",
    "yourself",
    "yourselves",
];

/// Words that mark a negated statement (besides any word ending in `n't`).
const NEGATION_CUES: &[&str] = &[
    "cannot", "cant", "didnt", "doesnt", "dont", "hadnt", "hasnt", "havent", "isnt", "neither",
    "never", "no", "nobody", "none", "nor", "not", "nothing", "nowhere", "shouldnt", "wasnt",
    "werent", "without", "wont", "wouldnt",
];

/// Whether a lowercase word is a stop word (contractions count by their
/// first part: `doesn't` → `does`).
pub(crate) fn is_stop_word(lower: &str) -> bool {
    let base = lower.split('\'').next().unwrap_or(lower);
    STOP_WORDS.binary_search(&base).is_ok() || is_negation(lower)
}

/// Whether a lowercase word is a negation cue: one of the cue words or any
/// contraction ending in `n't`.
pub(crate) fn is_negation(lower: &str) -> bool {
    lower.ends_with("n't") || NEGATION_CUES.binary_search(&lower).is_ok()
}

/// A light suffix stripper (not Porter): a possessive `'s` and one of
/// `ies`→`y`, `ing`, `ed`, `es`, `s` (not after `s`) come off when enough
/// of the word stays, then a final `e`. `founded`/`founds` → `found`,
/// `released`/`releases`/`release` → `releas`.
pub(crate) fn stem(lower: &str) -> String {
    let w = lower.strip_suffix("'s").unwrap_or(lower);
    let w = w.split('\'').next().unwrap_or(w);
    let n = w.chars().count();
    let mut s = if n > 4 && w.ends_with("ies") {
        format!("{}y", &w[..w.len() - 3])
    } else if n > 5 && w.ends_with("ing") {
        w[..w.len() - 3].to_owned()
    } else if n > 4 && (w.ends_with("ed") || w.ends_with("es")) {
        w[..w.len() - 2].to_owned()
    } else if n > 3 && w.ends_with('s') && !w.ends_with("ss") {
        w[..w.len() - 1].to_owned()
    } else {
        w.to_owned()
    };
    if s.chars().count() > 4 && s.ends_with('e') {
        s.pop();
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_sorted() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
        assert!(NEGATION_CUES.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn splits_words() {
        let w = words("The company’s CEO doesn't sell 3.5 well-known items!");
        let t: Vec<&str> = w.iter().map(|w| w.text.as_str()).collect();
        assert_eq!(
            t,
            ["The", "company's", "CEO", "doesn't", "sell", "3", "5", "well", "known", "items"]
        );
        assert!(w[0].initial && !w[1].initial);
        assert!(w[2].capitalised() && !w[4].capitalised());
        assert!(!w[5].has_letter());
    }

    #[test]
    fn negation_and_stop_words() {
        assert!(is_negation("doesn't") && is_negation("never") && is_negation("without"));
        assert!(!is_negation("note"));
        assert!(is_stop_word("the") && is_stop_word("isn't") && is_stop_word("not"));
        assert!(!is_stop_word("paris"));
    }

    #[test]
    fn stems() {
        assert_eq!(stem("founded"), "found");
        assert_eq!(stem("released"), "releas");
        assert_eq!(stem("releases"), "releas");
        assert_eq!(stem("release"), "releas");
        assert_eq!(stem("companies"), "company");
        assert_eq!(stem("company's"), "company");
        assert_eq!(stem("running"), "runn");
        assert_eq!(stem("class"), "class");
        assert_eq!(stem("bus"), "bus");
    }
}
