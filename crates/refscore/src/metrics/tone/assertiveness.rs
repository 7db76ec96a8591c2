//! Assertiveness: tentative (0) to confident (1).
//!
//! `H` = hedge words and phrases plus questions (a sentence ending in `?`
//! counts as one hedge), `B` = booster words and phrases
//! ([`super::wordlists`]):
//!
//! ```text
//! assertiveness = 0.5 + 0.5 · (B − H) / (B + H + 1)
//! ```

use super::analysis::{Sentence, joined};
use super::wordlists::{self, BOOSTER_PHRASES, BOOSTERS, HEDGE_PHRASES, HEDGES};

/// Assertiveness of some sentences; `None` without words.
pub(crate) fn measure(sentences: &[Sentence]) -> Option<f64> {
    let (mut hedges, mut boosters, mut words) = (0usize, 0usize, 0usize);
    for s in sentences {
        words += s.words.len();
        hedges += usize::from(s.question);
        for w in &s.words {
            hedges += usize::from(wordlists::contains(HEDGES, &w.lower));
            boosters += usize::from(wordlists::contains(BOOSTERS, &w.lower));
        }
        let text = joined(s);
        hedges += wordlists::count_phrases(HEDGE_PHRASES, &text);
        boosters += wordlists::count_phrases(BOOSTER_PHRASES, &text);
    }
    if words == 0 {
        return None;
    }
    let (h, b) = (hedges as f64, boosters as f64);
    Some(0.5 + 0.5 * (b - h) / (b + h + 1.0))
}

#[cfg(test)]
mod tests {
    use super::super::analysis::Analysed;
    use super::*;

    fn a(t: &str) -> f64 {
        measure(&Analysed::of(t).sentences).unwrap()
    }

    #[test]
    fn hedges_and_boosters() {
        assert_eq!(a("The invoice is attached."), 0.5);
        assert_eq!(a("This will definitely work; it is clearly the fix."), 0.5 + 0.5 * 3.0 / 4.0);
        assert_eq!(a("I think it might perhaps work, sort of."), 0.5 - 0.5 * 4.0 / 5.0);
        assert_eq!(a("Could this be it?"), 0.5 - 0.5 * 2.0 / 3.0);
    }
}
