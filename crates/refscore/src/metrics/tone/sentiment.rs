//! Sentiment: negative (0), neutral (0.5) or positive (1).
//!
//! Each word of the positive and negative lists ([`super::wordlists`])
//! counts once; a negation cue (`not`, `no`, `never`, `n't`, `without`, ...)
//! among the three words before it in the same sentence flips it
//! (`not good` is negative, `no problem` positive). With `P` positive and
//! `N` negative counts:
//!
//! ```text
//! sentiment = 0.5 + 0.5 · (P − N) / (P + N + 1)
//! ```
//!
//! so one positive word gives 0.75, none 0.5.

use super::analysis::Sentence;
use super::wordlists::{self, NEGATIVE, POSITIVE};
use crate::metrics::factuality::tokens;

/// Words before a sentiment word that a negation cue may stand in.
const NEGATION_WINDOW: usize = 3;

/// Sentiment of some sentences; `None` without words.
pub(crate) fn measure(sentences: &[Sentence]) -> Option<f64> {
    let (mut pos, mut neg, mut words) = (0usize, 0usize, 0usize);
    for s in sentences {
        words += s.words.len();
        for (i, w) in s.words.iter().enumerate() {
            let polarity = if wordlists::contains(POSITIVE, &w.lower) {
                1
            } else if wordlists::contains(NEGATIVE, &w.lower) {
                -1
            } else {
                continue;
            };
            let from = i.saturating_sub(NEGATION_WINDOW);
            let negated = s
                .words
                .get(from..i)
                .is_some_and(|b| b.iter().any(|w| tokens::is_negation(&w.lower)));
            if (polarity > 0) != negated {
                pos += 1;
            } else {
                neg += 1;
            }
        }
    }
    if words == 0 {
        return None;
    }
    let (p, n) = (pos as f64, neg as f64);
    Some(0.5 + 0.5 * (p - n) / (p + n + 1.0))
}

#[cfg(test)]
mod tests {
    use super::super::analysis::Analysed;
    use super::*;

    fn s(t: &str) -> f64 {
        measure(&Analysed::of(t).sentences).unwrap()
    }

    #[test]
    fn polarity() {
        assert_eq!(s("The report is ready."), 0.5);
        assert_eq!(s("Great work, thank you!"), 0.5 + 0.5 * 2.0 / 3.0);
        assert_eq!(s("This is a terrible, slow mess."), 0.5 - 0.5 * 3.0 / 4.0);
        assert_eq!(s("It is not good."), 0.25);
        assert_eq!(s("No problem at all."), 0.75);
        // A negation in another sentence does not flip.
        assert_eq!(s("Not today. Good."), 0.75);
    }
}
