//! Verbosity: length against a target or the reference, on [0, 1] with
//! 0.5 meaning "as long as wanted".
//!
//! * Against a target of `T` words per sentence (`profile.verbosity`: a
//!   number, or `concise` = 12, `moderate` = 18, `detailed` = 25):
//!   `verbosity = wps / (wps + T)`.
//! * Against the reference: the mean of the word-count ratio and the
//!   words-per-sentence ratio, each as `x / (x + x_ref)`:
//!   `verbosity = 0.5·W/(W + W_ref) + 0.5·wps/(wps + wps_ref)`.
//!
//! The target value is 0.5 in both cases: twice as long gives 0.67, half
//! as long 0.33.

use super::analysis::Analysed;

/// Named verbosity targets in words per sentence.
pub(crate) const NAMED: &[(&str, f64)] =
    &[("concise", 12.0), ("moderate", 18.0), ("detailed", 25.0)];

/// `x / (x + y)`, 0.5 when both are 0.
fn share(x: f64, y: f64) -> f64 {
    if x + y <= 0.0 { 0.5 } else { (x / (x + y)).clamp(0.0, 1.0) }
}

/// Verbosity against `target` words per sentence.
pub(crate) fn against_target(out: &Analysed, target: f64) -> f64 {
    share(out.words_per_sentence(), target)
}

/// Verbosity against the reference text.
pub(crate) fn against_reference(out: &Analysed, reference: &Analysed) -> f64 {
    0.5 * share(out.word_count() as f64, reference.word_count() as f64)
        + 0.5 * share(out.words_per_sentence(), reference.words_per_sentence())
}

/// `N words, X words per sentence`.
pub(crate) fn describe(a: &Analysed) -> String {
    format!("{} words, {:.1} words per sentence", a.word_count(), a.words_per_sentence())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratios() {
        let short = Analysed::of("The order shipped today. It arrives Monday.");
        let long = Analysed::of(
            "The order that you placed with us last week shipped from our main warehouse today. \
             It should arrive at your address on Monday, weather and carrier schedules permitting.",
        );
        assert_eq!(against_reference(&short, &short), 0.5);
        let v = against_reference(&long, &short);
        assert!(v > 0.7, "{v}");
        assert!(against_reference(&short, &long) < 0.3);
        assert!((against_target(&short, 3.5) - 0.5).abs() < 1e-12);
        assert_eq!(describe(&short), "7 words, 3.5 words per sentence");
        assert_eq!(against_reference(&Analysed::default(), &Analysed::default()), 0.5);
    }
}
