//! Seeded data for refscore's benchmarks: realistic invoice-extraction
//! pairs (a model's output and its golden reference), JSONL writers for
//! `refscore compare --pairs` and `refscore run`, and the parse-only
//! baseline the end-to-end figures are measured against.
//!
//! Everything is deterministic from a seed: row `i` of a file depends only
//! on the seed and `i` (its own ChaCha stream), so files of different
//! lengths share their first rows, and rows can be made in parallel.
//!
//! ```
//! use rand::SeedableRng;
//! use refscore_bench::invoice_pair;
//!
//! let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(42);
//! let (output, reference) = invoice_pair(&mut rng);
//! assert!(reference["line_items"].is_array());
//! assert!(output.is_object());
//! ```

pub mod baseline;
pub mod invoice;
pub mod labelled;
pub mod mistakes;
pub mod quality;
pub mod rows;
pub mod vocab;

use rand::Rng;
use serde_json::Value;

pub use invoice::ItemCount;
pub use mistakes::{Mistake, MistakeRates};
pub use rows::{RowFormat, row_rng, write_rows};

/// A generated output with its reference and the mistakes put into it.
#[derive(Debug, Clone, PartialEq)]
pub struct Pair {
    /// What the model returned.
    pub output: Value,
    /// The golden reference.
    pub reference: Value,
    /// Mistakes in `output`; empty when it equals `reference`.
    pub mistakes: Vec<Mistake>,
}

/// How pairs are made: line-item counts and mistake rates.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Generator {
    /// Line items per reference.
    pub items: ItemCount,
    /// How often each mistake appears in outputs.
    pub rates: MistakeRates,
}

impl Generator {
    /// One pair drawn from `rng`.
    pub fn pair<R: Rng + ?Sized>(&self, rng: &mut R) -> Pair {
        let reference = invoice::reference(rng, self.items);
        let (output, mistakes) = mistakes::corrupt(rng, &reference, &self.rates);
        Pair { output, reference, mistakes }
    }
}

/// One realistic `(output, reference)` invoice pair with the default
/// [`Generator`].
pub fn invoice_pair<R: Rng + ?Sized>(rng: &mut R) -> (Value, Value) {
    let pair = Generator::default().pair(rng);
    (pair.output, pair.reference)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    const SAMPLES: u64 = 10_000;

    fn sample(seed: u64) -> Vec<Pair> {
        let g = Generator::default();
        (0..SAMPLES).map(|i| g.pair(&mut row_rng(seed, i))).collect()
    }

    #[test]
    fn same_seed_same_pairs_other_seed_other_pairs() {
        let a = invoice_pair(&mut row_rng(5, 0));
        assert_eq!(a, invoice_pair(&mut row_rng(5, 0)));
        assert_ne!(a, invoice_pair(&mut row_rng(6, 0)));
        assert_ne!(a, invoice_pair(&mut row_rng(5, 1)));
    }

    #[test]
    fn references_are_1_to_4_kb() {
        let g = Generator::default();
        let mut sizes: Vec<usize> = (0..5_000)
            .map(|i| invoice::compact_len(&g.pair(&mut row_rng(9, i)).reference))
            .collect();
        sizes.sort_unstable();
        assert!(sizes[0] >= invoice::MIN_BYTES, "smallest {}", sizes[0]);
        assert!(sizes[sizes.len() - 1] <= invoice::MAX_BYTES, "largest {}", sizes[sizes.len() - 1]);
        // Spread over the range, not piled at one end.
        let median = sizes[sizes.len() / 2];
        assert!((1_200..=2_600).contains(&median), "median {median}");
        assert!(sizes[sizes.len() * 95 / 100] > 3_000, "p95 {}", sizes[sizes.len() * 95 / 100]);
    }

    #[test]
    fn output_differs_exactly_when_mistakes_were_made() {
        for p in sample(1).iter().take(5_000) {
            assert_eq!(p.output == p.reference, p.mistakes.is_empty(), "{:?}", p.mistakes);
        }
    }

    #[test]
    fn mistakes_appear_at_their_rates() {
        let rates = MistakeRates::default();
        let pairs = sample(2);
        let n = pairs.len() as f64;
        let perfect = pairs.iter().filter(|p| p.mistakes.is_empty()).count() as f64 / n;
        assert!((perfect - rates.perfect).abs() < 0.015, "perfect {perfect}");
        let imperfect: Vec<&Pair> = pairs.iter().filter(|p| !p.mistakes.is_empty()).collect();
        let mut counts: BTreeMap<Mistake, usize> = BTreeMap::new();
        for p in &imperfect {
            for m in &p.mistakes {
                *counts.entry(*m).or_default() += 1;
            }
        }
        let multi = imperfect
            .iter()
            .filter(|p| p.reference["line_items"].as_array().is_some_and(|a| a.len() > 1))
            .count() as f64;
        let effective = |kind: Mistake| match kind {
            // Only references with two items or more can be reordered.
            Mistake::ReorderedItems => rates.rate(kind) * multi / imperfect.len() as f64,
            _ => rates.rate(kind),
        };
        for kind in Mistake::ALL {
            let share = counts.get(&kind).copied().unwrap_or(0) as f64 / imperfect.len() as f64;
            let mut want = effective(kind);
            if kind == Mistake::Typo {
                // A typo is also what an output gets when no mistake was drawn.
                let none: f64 = Mistake::ALL
                    .iter()
                    .filter(|k| **k != kind)
                    .map(|k| 1.0 - effective(*k))
                    .product();
                want += (1.0 - want) * none;
            }
            let ok = (share - want).abs() < 0.02;
            assert!(ok, "{}: {share:.3} vs {want}", kind.name());
        }
    }
}
