//! Persona consistency: how steady the voice is from sentence to sentence.
//!
//! Formality and sentiment are measured on every sentence of three words
//! or more; with `σ_f` and `σ_s` their population standard deviations
//! (each at most 0.5, as the values lie in [0, 1]):
//!
//! ```text
//! persona_consistency = clamp(1 − (σ_f + σ_s), 0, 1)
//! ```
//!
//! Fewer than two such sentences: 1 (nothing to be inconsistent with).

use super::analysis::Sentence;
use super::{formality, sentiment};

/// Fewest words a sentence needs to count.
const MIN_WORDS: usize = 3;

/// Consistency of the sentences, and how many sentences counted.
pub(crate) fn measure(sentences: &[Sentence]) -> (f64, usize) {
    let mut f = Vec::new();
    let mut s = Vec::new();
    for sentence in sentences.iter().filter(|s| s.words.len() >= MIN_WORDS) {
        let one = std::slice::from_ref(sentence);
        if let (Some(a), Some(b)) = (formality::measure(one), sentiment::measure(one)) {
            f.push(a);
            s.push(b);
        }
    }
    if f.len() < 2 {
        return (1.0, f.len());
    }
    ((1.0 - (sd(&f) + sd(&s))).clamp(0.0, 1.0), f.len())
}

/// Population standard deviation.
fn sd(xs: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt()
}

#[cfg(test)]
mod tests {
    use super::super::analysis::Analysed;
    use super::*;

    fn p(t: &str) -> (f64, usize) {
        measure(&Analysed::of(t).sentences)
    }

    #[test]
    fn steady_and_shifting_voices() {
        let steady = p("The shipment left the warehouse today. The invoice follows by mail. \
                        The delivery window is two days.");
        assert_eq!(steady.1, 3);
        assert!(steady.0 > 0.9, "{steady:?}");
        let shifting = p("We hereby inform you that the shipment has been delayed. \
                          OMG this is sooo bad lol, sorry guys!! 😭 \
                          Consequently, delivery is expected subsequently.");
        assert!(shifting.0 < 0.5, "{shifting:?}");
        assert_eq!(p("One short line here."), (1.0, 1));
        assert!((sd(&[0.0, 1.0]) - 0.5).abs() < 1e-12);
    }
}
