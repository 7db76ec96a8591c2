//! What a walk adds up: [`Tally`] (credit over total) and [`Counts`]
//! (field-level verdicts).

use serde::Serialize;

use crate::detail::Verdict;

/// Credit earned over credit possible, for one node or a whole document.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Tally {
    /// Credit earned (a partial leaf earns a fraction).
    pub matched: f64,
    /// Credit possible.
    pub total: f64,
}

impl Tally {
    /// A tally of `matched` over `total`.
    pub fn new(matched: f64, total: f64) -> Self {
        Tally { matched, total }
    }

    /// Nothing compared.
    pub const ZERO: Tally = Tally { matched: 0.0, total: 0.0 };

    /// `matched / total`, or `empty` when nothing was possible.
    pub fn ratio_or(self, empty: f64) -> f64 {
        if self.total > 0.0 { crate::number::clamp01(self.matched / self.total) } else { empty }
    }

    /// `total − matched`, never negative.
    pub fn shortfall(self) -> f64 {
        (self.total - self.matched).max(0.0)
    }
}

impl std::ops::AddAssign for Tally {
    fn add_assign(&mut self, o: Tally) {
        self.matched += o.matched;
        self.total += o.total;
    }
}

/// Field-level verdict counts over the leaves of both documents.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Counts {
    /// Leaves equal under the rules.
    pub matched: u64,
    /// Leaves given partial credit.
    pub partial: u64,
    /// Leaves present on both sides with a wrong value or type.
    pub wrong: u64,
    /// Reference leaves absent from the output.
    pub missing: u64,
    /// Output leaves absent from the reference.
    pub extra: u64,
    /// Credit earned by paired leaves (match = 1, partial = its score).
    #[serde(skip)]
    pub credit: f64,
}

impl Counts {
    /// Leaves present in the reference.
    pub fn reference_fields(&self) -> u64 {
        self.matched + self.partial + self.wrong + self.missing
    }

    /// Leaves present in the output.
    pub fn output_fields(&self) -> u64 {
        self.matched + self.partial + self.wrong + self.extra
    }

    /// Credit over output fields (1 when the output has none and the
    /// reference has none either, 0 when only the output is empty).
    pub fn precision(&self) -> f64 {
        ratio(self.credit, self.output_fields(), self.reference_fields() == 0)
    }

    /// Credit over reference fields.
    pub fn recall(&self) -> f64 {
        ratio(self.credit, self.reference_fields(), self.output_fields() == 0)
    }

    /// Harmonic mean of precision and recall (0 when both are 0).
    pub fn f1(&self) -> f64 {
        let (p, r) = (self.precision(), self.recall());
        if p + r > 0.0 { 2.0 * p * r / (p + r) } else { 0.0 }
    }

    /// All verdicts counted.
    pub fn total(&self) -> u64 {
        self.matched + self.partial + self.wrong + self.missing + self.extra
    }

    /// Whether any verdict counted was not a match.
    pub fn failed(&self) -> bool {
        self.matched < self.total()
    }

    /// Counts one verdict; a partial one earns `score` (clamped to [0, 1]).
    pub fn record(&mut self, outcome: crate::detail::Outcome, score: f64) {
        match outcome.verdict() {
            Verdict::Match => {
                self.matched += 1;
                self.credit += 1.0;
            }
            Verdict::Partial => {
                self.partial += 1;
                self.credit += crate::number::clamp01(score);
            }
            Verdict::Missing => self.missing += 1,
            Verdict::Extra => self.extra += 1,
            Verdict::Wrong => self.wrong += 1,
        }
    }

    /// Adds another set of counts.
    pub fn add(&mut self, o: &Counts) {
        self.matched += o.matched;
        self.partial += o.partial;
        self.wrong += o.wrong;
        self.missing += o.missing;
        self.extra += o.extra;
        self.credit += o.credit;
    }
}

fn ratio(credit: f64, n: u64, other_empty: bool) -> f64 {
    if n == 0 {
        return if other_empty { 1.0 } else { 0.0 };
    }
    #[allow(clippy::cast_precision_loss)]
    crate::number::clamp01(credit / n as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precision_recall() {
        let c = Counts { matched: 3, partial: 1, wrong: 1, missing: 1, extra: 2, credit: 3.5 };
        assert_eq!(c.reference_fields(), 6);
        assert_eq!(c.output_fields(), 7);
        assert!((c.precision() - 0.5).abs() < 1e-12);
        assert!((c.recall() - 3.5 / 6.0).abs() < 1e-12);
        let empty = Counts::default();
        assert_eq!(empty.precision(), 1.0);
        assert_eq!(empty.f1(), 1.0);
    }

    #[test]
    fn tally_ratio() {
        assert_eq!(Tally::ZERO.ratio_or(1.0), 1.0);
        assert_eq!(Tally::new(1.0, 4.0).ratio_or(1.0), 0.25);
        assert_eq!(Tally::new(1.0, 4.0).shortfall(), 3.0);
    }
}
