//! The warnings about a suite's configuration that only a whole run
//! reveals ([`crate::Evaluator::warnings`]: a rule selector that matched
//! nothing), as a run gives them to its caller.

/// The warnings about a suite's configuration that only a whole run
/// reveals, over every row of the run: those of an interrupted run's
/// recorded part count as well as those its resume scored (an evaluator
/// only sees the rows it evaluated, so its own
/// [`crate::Evaluator::warnings`] would speak of the resumed rows alone).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RunWarnings {
    /// Per evaluator with warnings, in the suite's order.
    pub evaluators: Vec<EvaluatorWarnings>,
    /// The rows they are about.
    pub scope: WarningScope,
}

impl RunWarnings {
    /// Whether no evaluator warns.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.evaluators.iter().all(|e| e.warnings.is_empty())
    }
}

/// One evaluator's warnings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvaluatorWarnings {
    /// The evaluator's name in the suite.
    pub name: String,
    /// Its warnings, as [`crate::Evaluator::warnings`] words them.
    pub warnings: Vec<String>,
}

/// The rows a run's warnings are about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WarningScope {
    /// Every row of the run, the rows of its earlier parts included: the
    /// warnings an uninterrupted run gives.
    #[default]
    Run,
    /// Only the rows scored since the resume: the rows recorded before it
    /// were recorded without the warnings they left standing (by an
    /// earlier version), so they were not checked. When the resume scored
    /// no row, there are none.
    SinceResume,
}
