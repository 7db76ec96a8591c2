//! The summary of a run: statistics per evaluator, per-field accuracy and
//! the gate's verdict.

mod field_trie;
mod fields;
mod gate;
mod repeated_ids;
mod stats;

pub(crate) use fields::FieldStats;

use serde::{Deserialize, Serialize};

pub use fields::{EXAMPLE_ID_CHARS, FieldStat, MAX_FIELD_PATH_BYTES, MAX_FIELDS_PER_EVALUATOR};
pub use gate::{Gate, GateCheck, GateResult};
pub use repeated_ids::{MAX_CHECKED_IDS, REPEATED_ID_EXAMPLES, RepeatedIds};
pub use stats::EXACT_LIMIT;

use crate::history::{Comparison, EvaluatorScores, FieldAccuracy, RowScores, RunInfo, RunScores};
use crate::score::Direction;

/// The summary of a run (`summary.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RunSummary {
    /// Rows read, unreadable ones included.
    pub rows: u64,
    /// Rows that could not be read.
    pub rows_unreadable: u64,
    /// Readable rows where at least one evaluation failed.
    pub rows_with_failures: u64,
    /// Rows where at least one evaluator gave a numeric score or a label
    /// (a classifier whose choices carry no scores).
    pub rows_scored: u64,
    /// Whether the run was stopped before the end of the dataset.
    pub cancelled: bool,
    /// Wall-clock duration in seconds.
    pub duration_s: f64,
    /// One entry per evaluator, in suite order.
    pub evaluators: Vec<EvaluatorSummary>,
    /// The row scores (weighted average of each row's similarity scores,
    /// see [`crate::row_score`]), when any row had one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub row_score: Option<RowScoreSummary>,
    /// Per-field statistics of the JSON metrics, worst accuracy first.
    pub fields: Vec<FieldStat>,
    /// Field comparisons not tallied: an evaluator had reached
    /// [`MAX_FIELDS_PER_EVALUATOR`] distinct paths, the table
    /// [`MAX_FIELD_PATH_BYTES`] of paths, or a comparison
    /// [`crate::limits::MAX_KEPT_PATH_BYTES`] of field paths.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub fields_dropped: u64,
    /// The rows whose id an earlier row already had (absent when none
    /// did): a baseline comparison pairs such rows by their order alone.
    #[serde(default, skip_serializing_if = "RepeatedIds::is_empty")]
    pub repeated_ids: RepeatedIds,
    /// The gate's verdict.
    pub gate: GateResult,
    /// What each judge cost, per evaluator (LLM evaluators only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub judges: Vec<crate::judge::JudgeUsage>,
    /// Where the run came from: suite, dataset, hashes, git, tags, store id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run: Option<RunInfo>,
    /// The comparison with the baseline run, when one was made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comparison: Option<Comparison>,
}

impl RunSummary {
    /// Reads a summary from its JSON text. The error names the member at
    /// fault by its path (`run.suite_hash: missing field ...`), where the
    /// deserializer alone would name only the field.
    ///
    /// # Errors
    /// The text is not JSON, or not a summary: what is wrong and where.
    pub fn from_json(text: &str) -> Result<Self, String> {
        let mut de = serde_json::Deserializer::from_str(text);
        let summary: Self = serde_path_to_error::deserialize(&mut de).map_err(|e| {
            let at_root = e.path().iter().next().is_none();
            let path = e.path().to_string();
            let inner = e.into_inner();
            if at_root { inner.to_string() } else { format!("`{path}`: {inner}") }
        })?;
        de.end().map_err(|e| e.to_string())?;
        Ok(summary)
    }

    /// What a comparison reads of this run, with its rows.
    pub fn scores(&self, rows: Vec<RowScores>) -> RunScores {
        RunScores {
            evaluators: self
                .evaluators
                .iter()
                .map(|e| EvaluatorScores {
                    name: e.name.clone(),
                    metric: e.metric.clone(),
                    direction: e.direction,
                    mean: e.mean,
                })
                .collect(),
            rows,
            fields: self
                .fields
                .iter()
                .map(|f| FieldAccuracy {
                    evaluator: f.evaluator.clone(),
                    path: f.path.clone(),
                    accuracy: f.accuracy,
                })
                .collect(),
        }
    }

    /// Sets the comparison and adds its gate check (`regression`), when
    /// the suite's gate has one.
    pub fn set_comparison(&mut self, comparison: Comparison, gate: &Gate) {
        if let Some(fail_on) = gate.regression {
            self.gate.add_regression(&comparison, fail_on);
        }
        self.comparison = Some(comparison);
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Statistics of the row scores.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RowScoreSummary {
    /// Rows that had a row score.
    pub count: u64,
    /// Mean row score.
    pub mean: f64,
    /// Median row score.
    pub median: f64,
    /// Lowest row score.
    pub min: f64,
}

/// Statistics of one evaluator over a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EvaluatorSummary {
    /// The evaluator's name in the suite.
    pub name: String,
    /// The metric it runs.
    pub metric: String,
    /// Whether higher or lower scores are better.
    pub direction: Direction,
    /// Rows with a numeric score.
    pub count: u64,
    /// Rows where the evaluation completed with a label and no number (a
    /// classifier whose choices carry no scores): judged, not invalid.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub labelled: u64,
    /// Rows where the score was `invalid` (no number, no label).
    pub invalid: u64,
    /// Rows where the evaluation failed (error, missing input, panic).
    pub failed: u64,
    /// Mean of the numeric scores.
    pub mean: Option<f64>,
    /// Median of the numeric scores: exact up to [`EXACT_LIMIT`] scores,
    /// then estimated from a uniform sample of that size.
    pub median: Option<f64>,
    /// Whether `median` is exact.
    pub median_exact: bool,
    /// Smallest score.
    pub min: Option<f64>,
    /// Largest score.
    pub max: Option<f64>,
    /// The pass threshold, if any.
    pub threshold: Option<f64>,
    /// Rows passing the threshold / rows read (invalid, failed and
    /// unreadable rows count as not passed); `None` without a threshold.
    pub pass_rate: Option<f64>,
    /// Rows passing the threshold; `None` without a threshold.
    pub passed: Option<u64>,
    /// The evaluator's other scores (precision and recall beside an F
    /// score, say), in the order they first appeared.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scores: Vec<ScoreSummary>,
}

/// Statistics of one further score of an evaluator over a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ScoreSummary {
    /// The score's name, as in `results.jsonl` (`<evaluator>.<score>`).
    pub name: String,
    /// Rows with a numeric value.
    pub count: u64,
    /// Mean.
    pub mean: Option<f64>,
    /// Median (exact up to [`EXACT_LIMIT`] values, then estimated).
    pub median: Option<f64>,
    /// Smallest value.
    pub min: Option<f64>,
    /// Largest value.
    pub max: Option<f64>,
}

/// Whether a score passes a threshold: `>=` when higher is better (or
/// neutral), `<=` when lower is better.
pub fn passes(direction: Direction, threshold: f64, score: f64) -> bool {
    match direction {
        Direction::Minimize => score <= threshold,
        Direction::Maximize | Direction::Neutral => score >= threshold,
    }
}

/// Why a `results.jsonl` read back does not go with its summary: it holds
/// `read` rows where the summary counts `counted` (a line lost or added
/// since the run). Said alike by `report` and by a baseline folder.
pub(crate) fn rows_miscounted(read: u64, counted: u64) -> String {
    format!(
        "holds {} where the run's summary counts {counted}: the results are incomplete or \
         were changed",
        crate::text::counted(read, "row", "rows")
    )
}

/// What one evaluator came to on one row (a score, invalid, failed).
pub(crate) use crate::history::Cell as EvalOutcome;

#[derive(Debug, Clone)]
struct EvalAcc {
    name: String,
    metric: String,
    direction: Direction,
    threshold: Option<f64>,
    stats: stats::Stats,
    labelled: u64,
    invalid: u64,
    failed: u64,
    passed: u64,
    extra: Vec<(String, stats::Stats)>,
}

/// Accumulates a run's rows into a [`RunSummary`].
#[derive(Debug, Clone)]
pub(crate) struct Collector {
    evals: Vec<EvalAcc>,
    fields: fields::FieldStats,
    rows: u64,
    rows_unreadable: u64,
    rows_with_failures: u64,
    rows_scored: u64,
    row_scores: stats::Stats,
    ids: repeated_ids::IdTracker,
}

impl Collector {
    /// A collector for evaluators `(name, metric, direction, threshold)`.
    pub(crate) fn new(evaluators: Vec<(String, String, Direction, Option<f64>)>) -> Self {
        Collector {
            evals: evaluators
                .into_iter()
                .map(|(name, metric, direction, threshold)| EvalAcc {
                    name,
                    metric,
                    direction,
                    threshold,
                    stats: stats::Stats::default(),
                    labelled: 0,
                    invalid: 0,
                    failed: 0,
                    passed: 0,
                    extra: Vec::new(),
                })
                .collect(),
            fields: fields::FieldStats::default(),
            rows: 0,
            rows_unreadable: 0,
            rows_with_failures: 0,
            rows_scored: 0,
            row_scores: stats::Stats::default(),
            ids: repeated_ids::IdTracker::default(),
        }
    }

    /// Notes the id of the next row, readable or not.
    pub(crate) fn id(&mut self, id: &str) {
        self.ids.note(id);
    }

    /// Counts an unreadable row.
    pub(crate) fn unreadable(&mut self) {
        self.rows += 1;
        self.rows_unreadable += 1;
    }

    /// Counts one evaluated row, one outcome per evaluator.
    /// Feeds one row score (the weighted average of its evaluators).
    pub(crate) fn row_score(&mut self, x: f64) {
        self.row_scores.add(x);
    }

    pub(crate) fn row(&mut self, outcomes: &[EvalOutcome]) {
        self.rows += 1;
        let mut failed = false;
        let mut scored = false;
        for (acc, outcome) in self.evals.iter_mut().zip(outcomes) {
            match *outcome {
                EvalOutcome::Score(x) => {
                    scored = true;
                    acc.stats.add(x);
                    if acc.threshold.is_some_and(|t| passes(acc.direction, t, x)) {
                        acc.passed += 1;
                    }
                }
                EvalOutcome::Label => {
                    scored = true;
                    acc.labelled += 1;
                }
                EvalOutcome::Invalid => acc.invalid += 1,
                EvalOutcome::Failed => {
                    acc.failed += 1;
                    failed = true;
                }
            }
        }
        self.rows_with_failures += u64::from(failed);
        self.rows_scored += u64::from(scored);
    }

    /// Counts one value of a further score of evaluator `evaluator`.
    pub(crate) fn extra_score(&mut self, evaluator: usize, name: &str, x: f64) {
        let Some(acc) = self.evals.get_mut(evaluator) else { return };
        match acc.extra.iter_mut().find(|(n, _)| n == name) {
            Some((_, st)) => st.add(x),
            None => {
                let mut st = stats::Stats::default();
                st.add(x);
                acc.extra.push((name.to_owned(), st));
            }
        }
    }

    /// Adds one evaluation's details to the field statistics.
    pub(crate) fn fields(&mut self, fields: fields::FieldStats) {
        self.fields.merge(fields);
    }

    /// Rows read so far, and rows unreadable or with a failed evaluation.
    pub(crate) fn progress(&self) -> (u64, u64) {
        (self.rows, self.rows_unreadable + self.rows_with_failures)
    }

    /// The summary.
    /// The run's summary; `judges` is the judges' use over the run (empty
    /// when none was asked), which the gate checks for failed judgements.
    pub(crate) fn finish(
        self,
        cancelled: bool,
        duration_s: f64,
        gate: &Gate,
        judges: Vec<crate::judge::JudgeUsage>,
    ) -> RunSummary {
        let rows = self.rows;
        let names: Vec<String> = self.evals.iter().map(|e| e.name.clone()).collect();
        let evaluators: Vec<EvaluatorSummary> = self
            .evals
            .into_iter()
            .map(|mut e| {
                let with_threshold = e.threshold.is_some();
                EvaluatorSummary {
                    count: e.stats.count(),
                    mean: e.stats.mean(),
                    median: e.stats.median(),
                    median_exact: e.stats.median_is_exact(),
                    min: e.stats.min(),
                    max: e.stats.max(),
                    pass_rate: (with_threshold && rows > 0).then(|| e.passed as f64 / rows as f64),
                    passed: with_threshold.then_some(e.passed),
                    name: e.name,
                    metric: e.metric,
                    direction: e.direction,
                    threshold: e.threshold,
                    labelled: e.labelled,
                    invalid: e.invalid,
                    failed: e.failed,
                    scores: e
                        .extra
                        .into_iter()
                        .map(|(name, mut st)| ScoreSummary {
                            name,
                            count: st.count(),
                            mean: st.mean(),
                            median: st.median(),
                            min: st.min(),
                            max: st.max(),
                        })
                        .collect(),
                }
            })
            .collect();
        let counts = gate::RunCounts {
            rows_scored: self.rows_scored,
            failed_rows: self.rows_unreadable + self.rows_with_failures,
            cancelled,
            judge_failures: (!judges.is_empty()).then(|| judges.iter().map(|j| j.failures).sum()),
        };
        let gate = gate.check(&evaluators, counts);
        let fields_dropped = self.fields.dropped;
        let mut row_scores = self.row_scores;
        let row_score = (row_scores.count() > 0).then(|| RowScoreSummary {
            count: row_scores.count(),
            mean: row_scores.mean().unwrap_or(0.0),
            median: row_scores.median().unwrap_or(0.0),
            min: row_scores.min().unwrap_or(0.0),
        });
        RunSummary {
            row_score,
            rows,
            rows_unreadable: self.rows_unreadable,
            rows_with_failures: self.rows_with_failures,
            rows_scored: self.rows_scored,
            cancelled,
            duration_s: crate::number::finite(duration_s),
            evaluators,
            fields: self.fields.finish(&names),
            fields_dropped,
            repeated_ids: self.ids.finish(),
            gate,
            judges,
            run: None,
            comparison: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collector() -> Collector {
        Collector::new(vec![
            ("sim".into(), "json_similarity".into(), Direction::Maximize, Some(0.9)),
            ("dist".into(), "json_distance".into(), Direction::Minimize, Some(1.0)),
            ("plain".into(), "json_diff".into(), Direction::Maximize, None),
        ])
    }

    #[test]
    fn thresholds_follow_the_direction() {
        assert!(passes(Direction::Maximize, 0.9, 0.9));
        assert!(!passes(Direction::Maximize, 0.9, 0.89));
        assert!(passes(Direction::Minimize, 1.0, 0.5));
        assert!(!passes(Direction::Minimize, 1.0, 2.0));
        assert!(passes(Direction::Neutral, 0.5, 0.7));
    }

    #[test]
    fn pass_rate_counts_invalid_failed_and_unreadable_rows_as_not_passed() {
        use EvalOutcome::*;
        let mut c = collector();
        c.row(&[Score(1.0), Score(0.0), Score(0.5)]);
        c.row(&[Score(0.95), Score(3.0), Invalid]);
        c.row(&[Invalid, Failed, Score(1.0)]);
        c.row(&[Failed, Score(1.0), Score(0.0)]);
        c.unreadable();
        assert_eq!(c.progress(), (5, 3));
        let s = c.finish(false, 1.5, &Gate::default(), Vec::new());
        assert_eq!((s.rows, s.rows_unreadable, s.rows_with_failures, s.rows_scored), (5, 1, 2, 4));
        let sim = &s.evaluators[0];
        assert_eq!((sim.count, sim.invalid, sim.failed, sim.passed), (2, 1, 1, Some(2)));
        assert_eq!(sim.pass_rate, Some(0.4));
        assert_eq!(sim.mean, Some(0.975));
        let dist = &s.evaluators[1];
        assert_eq!((dist.passed, dist.pass_rate), (Some(2), Some(0.4)));
        assert_eq!((dist.min, dist.max, dist.median), (Some(0.0), Some(3.0), Some(1.0)));
        let plain = &s.evaluators[2];
        assert_eq!((plain.pass_rate, plain.passed, plain.threshold), (None, None, None));
        // Three rows failed (two evaluations, one unreadable): by default no
        // failed row is allowed; a suite may allow some.
        assert!(!s.gate.passed);
        let failed = s.gate.checks.iter().find(|c| c.name == "max_failed_rows").unwrap();
        assert_eq!((failed.required, failed.actual), (0.0, Some(3.0)));
        let mut c = collector();
        c.row(&[Failed, Score(1.0), Score(0.0)]);
        c.row(&[Score(1.0), Score(1.0), Score(1.0)]);
        let allow = Gate { max_failed_rows: Some(1), ..Gate::default() };
        assert!(c.finish(false, 1.0, &allow, Vec::new()).gate.passed);
    }

    #[test]
    fn every_row_failing_never_passes_the_gate() {
        let mut c = collector();
        c.row(&[EvalOutcome::Failed, EvalOutcome::Failed, EvalOutcome::Invalid]);
        c.unreadable();
        let s = c.finish(false, 0.0, &Gate::default(), Vec::new());
        assert!(!s.gate.passed);
        assert_eq!(s.evaluators[0].mean, None);
        let json = serde_json::to_value(&s).unwrap();
        assert_eq!(json["gate"]["checks"][0]["name"], "rows_scored");
        assert_eq!(json["evaluators"][1]["direction"], "minimize");
        assert!(json.get("fields_dropped").is_none());
        let empty = collector().finish(false, 0.0, &Gate::default(), Vec::new());
        assert!(!empty.gate.passed);
        assert_eq!(empty.evaluators[0].pass_rate, None);
    }
}
