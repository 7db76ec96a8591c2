//! The comparison of a run with its baseline: per-evaluator status, row
//! deltas matched by id, per-field accuracy moves, and the paired test.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::policy::{RegressionPolicy, RegressionStatus, relative_change, status_for};
use super::scores::{Cell, RunScores};
use super::significance::{PairedTest, paired_t};
use crate::score::Direction;

/// Most regressed rows kept per evaluator.
pub const MAX_REGRESSED_ROWS: usize = 10;
/// Field moves kept, worst first.
pub const MAX_FIELD_DELTAS: usize = 50;
/// Score changes smaller than this are "unchanged".
const EPS: f64 = 1e-9;

/// Where the baseline came from and why it was chosen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct BaselineInfo {
    /// The baseline's run id in the store, when it came from one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_id: Option<i64>,
    /// The output folder it was read from, when it came from one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub folder: Option<String>,
    /// How it was chosen: `explicit` (`--baseline`), `last_passing` or `pinned`.
    pub chosen_by: String,
    /// Why, in words.
    pub reason: String,
    /// When the baseline run started (RFC 3339), when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    /// The baseline's git commit, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub git_commit: Option<String>,
    /// The suite the baseline ran, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suite: Option<String>,
    /// The BLAKE3 hash of the dataset the baseline read, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dataset_hash: Option<String>,
    /// The hash of the suite the baseline ran (its file and the files its
    /// options name), when known: beside the run's own `suite_hash`, it
    /// says whether the scoring changed between the two.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suite_hash: Option<String>,
}

impl BaselineInfo {
    /// Whether the baseline ran suite `suite` as another version of it
    /// than `suite_hash` (its file, or a file its options name, changed
    /// since): a score may then have moved with the suite rather than
    /// with the outputs. `false` for a baseline of another suite, or
    /// whose suite hash is not known.
    pub fn suite_changed(&self, suite: &str, suite_hash: &str) -> bool {
        self.suite_hash.as_deref().is_some_and(|h| !h.is_empty() && h != suite_hash)
            && self.suite.as_deref().is_none_or(|s| s == suite)
    }
}

/// Why a run that did not complete (cancelled, failed, still running) is
/// no baseline, whether named by id or by its output folder.
pub const ONLY_COMPLETED: &str = "only a completed run can be compared";

/// What a report says of a baseline whose suite has changed since
/// ([`BaselineInfo::suite_changed`]).
pub const SUITE_CHANGED: &str = "the suite has changed since the baseline (its file, or a file \
     its options name): a score may have moved with the suite rather than with the outputs";

/// Row counts of a comparison.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct RowCounts {
    /// Rows present in both runs (matched by id).
    pub matched: u64,
    /// Rows only in the current run.
    pub new: u64,
    /// Rows only in the baseline.
    pub removed: u64,
}

/// How a matched row's score moved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RowChange {
    /// Better than in the baseline (or scored where it failed before).
    Improved,
    /// Worse (or failed where it was scored before).
    Regressed,
    /// The same.
    Unchanged,
    /// Another score, for an evaluator where neither direction is better
    /// (direction `neutral`): neither improved nor regressed.
    Changed,
}

/// One evaluator compared with the baseline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct EvaluatorComparison {
    /// The evaluator.
    pub name: String,
    /// Its metric.
    pub metric: String,
    /// Whether higher or lower is better.
    pub direction: Direction,
    /// The baseline run's mean.
    pub baseline_mean: Option<f64>,
    /// This run's mean.
    pub current_mean: Option<f64>,
    /// `current_mean − baseline_mean`.
    pub change: Option<f64>,
    /// Regtrace's relative change, oriented so that negative is worse.
    pub relative_change: Option<f64>,
    /// The status.
    pub status: RegressionStatus,
    /// The evaluator's tolerance.
    pub tolerance: f64,
    /// The evaluator's critical threshold.
    pub critical_threshold: f64,
    /// Matched rows that got better.
    pub improved: u64,
    /// Matched rows that got worse.
    pub regressed: u64,
    /// Matched rows that did not move.
    pub unchanged: u64,
    /// Matched rows whose score moved, for an evaluator where neither
    /// direction is better (direction `neutral`): counted neither as
    /// improved nor as regressed.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub changed: u64,
    /// The paired test over matched rows scored in both runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub test: Option<PairedTest>,
    /// Why the status is what it is, when the numbers alone do not say.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// One row's move for one evaluator.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RowDelta {
    /// The evaluator.
    pub evaluator: String,
    /// The row's id.
    pub id: String,
    /// The baseline's outcome.
    pub baseline: Cell,
    /// This run's outcome.
    pub current: Cell,
    /// `current − baseline` when both are scores.
    pub change: Option<f64>,
    /// Improved, regressed or unchanged.
    pub delta: RowChange,
}

/// One field's accuracy before and after.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct FieldDelta {
    /// The evaluator that compared the field.
    pub evaluator: String,
    /// The path, `$.line_items[*].price`.
    pub path: String,
    /// Accuracy in the baseline (absent: the field was not seen there).
    pub baseline_accuracy: Option<f64>,
    /// Accuracy now (absent: the field is no longer seen).
    pub current_accuracy: Option<f64>,
    /// `current − baseline` when both exist.
    pub change: Option<f64>,
}

/// A run compared with its baseline (`comparison` in `summary.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Comparison {
    /// The baseline, `None` when there was none to compare with.
    pub baseline: Option<BaselineInfo>,
    /// The worst evaluator status.
    pub status: RegressionStatus,
    /// Matched, new and removed rows.
    pub rows: RowCounts,
    /// Per evaluator, in suite order.
    pub evaluators: Vec<EvaluatorComparison>,
    /// The most regressed rows, at most [`MAX_REGRESSED_ROWS`] per
    /// evaluator, failures first, then the largest drops.
    pub regressed_rows: Vec<RowDelta>,
    /// Field accuracy moves, worst first, at most [`MAX_FIELD_DELTAS`].
    pub fields: Vec<FieldDelta>,
    /// The baseline's evaluators that this run does not have (removed
    /// from the suite, or renamed), in the baseline's order: nothing is
    /// compared with their scores, so no regression of theirs can fail
    /// the gate (see [`evaluator_gone`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evaluators_gone: Vec<String>,
}

/// What the console and the reports say of an evaluator of the baseline
/// that the run does not have ([`Comparison::evaluators_gone`]).
pub fn evaluator_gone(name: &str) -> String {
    format!(
        "evaluator `{name}` of the baseline is not in this run (removed from the suite, or \
         renamed): its scores are compared with nothing, and no regression of it can fail the \
         gate"
    )
}

impl Comparison {
    /// The comparison of a run without a baseline: every evaluator `new`,
    /// its note saying `why` there is none (no run yet, no store, no run
    /// pinned).
    pub fn without_baseline(
        current: &RunScores,
        policy: &RegressionPolicy,
        why: &str,
    ) -> Comparison {
        Comparison {
            baseline: None,
            status: RegressionStatus::New,
            rows: RowCounts { matched: 0, new: current.rows.len() as u64, removed: 0 },
            evaluators: current
                .evaluators
                .iter()
                .map(|e| EvaluatorComparison {
                    name: e.name.clone(),
                    metric: e.metric.clone(),
                    direction: e.direction,
                    baseline_mean: None,
                    current_mean: e.mean,
                    change: None,
                    relative_change: None,
                    status: RegressionStatus::New,
                    tolerance: policy.tolerance_of(&e.name),
                    critical_threshold: policy.critical_of(&e.name),
                    improved: 0,
                    regressed: 0,
                    unchanged: 0,
                    changed: 0,
                    test: None,
                    note: Some(why.to_owned()),
                })
                .collect(),
            regressed_rows: Vec::new(),
            fields: Vec::new(),
            evaluators_gone: Vec::new(),
        }
    }

    /// Compares `current` with `baseline` under `policy`.
    pub fn new(
        baseline: &RunScores,
        info: BaselineInfo,
        current: &RunScores,
        policy: &RegressionPolicy,
    ) -> Comparison {
        let pairs = match_rows(baseline, current);
        let rows = RowCounts {
            matched: pairs.len() as u64,
            new: (current.rows.len() - pairs.len()) as u64,
            removed: (baseline.rows.len() - pairs.len()) as u64,
        };
        let mut evaluators = Vec::with_capacity(current.evaluators.len());
        let mut regressed_rows = Vec::new();
        let mut not_compared: Vec<&str> = Vec::new();
        for (ci, ev) in current.evaluators.iter().enumerate() {
            let tolerance = policy.tolerance_of(&ev.name);
            let critical = policy.critical_of(&ev.name);
            let mut out = EvaluatorComparison {
                name: ev.name.clone(),
                metric: ev.metric.clone(),
                direction: ev.direction,
                baseline_mean: None,
                current_mean: ev.mean,
                change: None,
                relative_change: None,
                status: RegressionStatus::New,
                tolerance,
                critical_threshold: critical,
                improved: 0,
                regressed: 0,
                unchanged: 0,
                changed: 0,
                test: None,
                note: None,
            };
            let Some(bi) = baseline.evaluator(&ev.name) else {
                out.note = Some("the baseline has no evaluator of this name".to_owned());
                evaluators.push(out);
                continue;
            };
            let before = &baseline.evaluators[bi];
            // Scores of another metric (or read the other way round) under
            // the same name are not comparable: that is a new evaluator.
            if (!before.metric.is_empty() && before.metric != ev.metric)
                || before.direction != ev.direction
            {
                out.note = Some(format!(
                    "the baseline's `{}` ran {} ({}), this run's {} ({}): not compared",
                    ev.name,
                    before.metric,
                    better(before.direction),
                    ev.metric,
                    better(ev.direction)
                ));
                not_compared.push(ev.name.as_str());
                evaluators.push(out);
                continue;
            }
            out.baseline_mean = before.mean;
            let mut rows_behind = RowsBehind {
                baseline_scored: baseline
                    .rows
                    .iter()
                    .filter(|r| r.cells.get(bi).and_then(|c| c.score()).is_some())
                    .count(),
                current_scored: current
                    .rows
                    .iter()
                    .filter(|r| r.cells.get(ci).and_then(|c| c.score()).is_some())
                    .count(),
                ..RowsBehind::default()
            };
            let mut diffs = Vec::with_capacity(pairs.len());
            // (how far it fell, baseline row, current row) of regressed rows;
            // only the worst few become RowDeltas.
            let mut fallen: Vec<(f64, usize, usize)> = Vec::new();
            for &(b, c) in &pairs {
                let before = baseline.rows[b].cells.get(bi).copied().unwrap_or(Cell::Failed);
                let after = current.rows[c].cells.get(ci).copied().unwrap_or(Cell::Failed);
                let (delta, change) = row_change(ev.direction, before, after);
                if let Some(d) = change {
                    diffs.push(d);
                }
                match (judged(before), judged(after)) {
                    (true, false) => rows_behind.lost += 1,
                    (false, true) => rows_behind.regained += 1,
                    _ => {}
                }
                rows_behind.judged_before += u64::from(judged(before));
                match delta {
                    RowChange::Improved => out.improved += 1,
                    RowChange::Unchanged => out.unchanged += 1,
                    RowChange::Changed => out.changed += 1,
                    RowChange::Regressed => {
                        out.regressed += 1;
                        fallen.push((severity(ev.direction, change), b, c));
                    }
                }
            }
            // Worst first; ties in input order.
            let by_severity = |x: &(f64, usize, usize), y: &(f64, usize, usize)| {
                y.0.total_cmp(&x.0).then(x.2.cmp(&y.2))
            };
            if fallen.len() > MAX_REGRESSED_ROWS {
                fallen.select_nth_unstable_by(MAX_REGRESSED_ROWS, by_severity);
                fallen.truncate(MAX_REGRESSED_ROWS);
            }
            fallen.sort_by(by_severity);
            regressed_rows.extend(fallen.into_iter().map(|(_, b, c)| {
                let before = baseline.rows[b].cells.get(bi).copied().unwrap_or(Cell::Failed);
                let after = current.rows[c].cells.get(ci).copied().unwrap_or(Cell::Failed);
                RowDelta {
                    evaluator: ev.name.clone(),
                    id: current.rows[c].id.clone(),
                    baseline: before,
                    current: after,
                    change: row_change(ev.direction, before, after).1,
                    delta: RowChange::Regressed,
                }
            }));
            out.test = policy.alpha.and_then(|alpha| paired_t(&diffs, alpha));
            rows_behind.scored_in_both = diffs.len();
            decide(&mut out, policy, &rows_behind);
            evaluators.push(out);
        }
        let status = evaluators.iter().map(|e| e.status).max().unwrap_or_default();
        Comparison {
            baseline: Some(info),
            status,
            rows,
            evaluators,
            regressed_rows,
            fields: field_deltas(baseline, current, &not_compared),
            evaluators_gone: baseline
                .evaluators
                .iter()
                .filter(|b| current.evaluator(&b.name).is_none())
                .map(|b| b.name.clone())
                .collect(),
        }
    }
}

/// A direction in words.
fn better(d: Direction) -> &'static str {
    match d {
        Direction::Maximize => "higher is better",
        Direction::Minimize => "lower is better",
        Direction::Neutral => "neither is better",
    }
}

/// An evaluator's rows behind its means and its paired test.
#[derive(Debug, Default)]
struct RowsBehind {
    /// Rows with a numeric score in the baseline (its mean's rows).
    baseline_scored: usize,
    /// Rows with a numeric score in this run (its mean's rows).
    current_scored: usize,
    /// Matched rows scored in both runs (the paired test's rows).
    scored_in_both: usize,
    /// Matched rows judged (a score or a label) in the baseline.
    judged_before: u64,
    /// Matched rows judged in the baseline and invalid or failed now.
    lost: u64,
    /// Matched rows invalid or failed in the baseline and judged now.
    regained: u64,
}

/// Whether a cell holds a judgement: a score or a label.
fn judged(c: Cell) -> bool {
    matches!(c, Cell::Score(_) | Cell::Label)
}

/// Sets an evaluator's change and status from its means and test, and
/// from the matched rows it no longer judges: rows that became invalid or
/// failed drop out of both means, so they count on their own, as the share
/// of the baseline's judged rows lost (the same tolerance and critical
/// threshold as a relative drop of the mean).
fn decide(out: &mut EvaluatorComparison, policy: &RegressionPolicy, rows: &RowsBehind) {
    decide_by_means(out, policy, rows);
    let net_lost = rows.lost.saturating_sub(rows.regained);
    if net_lost > 0 && rows.judged_before > 0 {
        let share = net_lost as f64 / rows.judged_before as f64;
        let status = status_for(-share, out.tolerance, out.critical_threshold);
        if status > RegressionStatus::Clean && status > out.status {
            let why = format!(
                "{net_lost} of the {} matched rows judged in the baseline are invalid or failed now \
                 ({:.1}%): {}",
                rows.judged_before,
                share * 100.0,
                status.as_str()
            );
            out.note = Some(match out.note.take() {
                Some(n) => format!("{n}; {why}"),
                None => why,
            });
            out.status = status;
        }
    }
}

/// The status from the means, cleared by the paired test only when the
/// test's rows are the means' rows: a drop that comes from rows outside
/// it (new rows, rows removed, rows no longer scored) is not the test's
/// to judge.
fn decide_by_means(out: &mut EvaluatorComparison, policy: &RegressionPolicy, rows: &RowsBehind) {
    match (out.baseline_mean, out.current_mean) {
        (Some(b), Some(c)) => {
            let delta = relative_change(out.direction, b, c);
            out.change = Some(crate::number::finite(c - b));
            out.relative_change = Some(delta);
            if out.direction == Direction::Neutral {
                // Neither direction is better: the change is shown, never
                // gated (rows that became invalid or failed still are).
                out.status = RegressionStatus::Clean;
                if status_for(-delta.abs(), out.tolerance, out.critical_threshold)
                    > RegressionStatus::Clean
                    || out.changed > 0
                {
                    let rows = match out.changed {
                        1 => "1 row".to_owned(),
                        n => format!("{n} rows"),
                    };
                    out.note = Some(format!(
                        "neither direction is better (direction neutral): a change of {} in the \
                         mean, {rows} moved; shown, not gated",
                        signed_percent(delta)
                    ));
                }
                return;
            }
            out.status = status_for(delta, out.tolerance, out.critical_threshold);
            let same_rows = rows.scored_in_both == rows.baseline_scored
                && rows.scored_in_both == rows.current_scored;
            if out.status > RegressionStatus::Clean
                && let Some(t) = out.test
                && !t.significant
                && !same_rows
            {
                out.note = Some(format!(
                    "the paired test covers {} rows, the means {} (baseline) and {} (now): \
                     status from the means alone",
                    rows.scored_in_both, rows.baseline_scored, rows.current_scored
                ));
            } else if out.status > RegressionStatus::Clean
                && let Some(t) = out.test
                && !t.significant
            {
                out.note = Some(format!(
                    "a drop of {} that the paired test does not find significant (p = {:.3}, n = {}): clean",
                    percent(delta),
                    t.p_value,
                    t.n
                ));
                out.status = RegressionStatus::Clean;
            }
            if policy.alpha.is_some() && out.test.is_none() && out.status > RegressionStatus::Clean
            {
                out.note = Some(
                    "fewer than two matched rows scored in both runs: status from the means alone"
                        .to_owned(),
                );
            }
        }
        (Some(_), None) => {
            out.status = RegressionStatus::Critical;
            out.note = Some("no row was scored in this run".to_owned());
        }
        (None, Some(_)) => {
            out.status = RegressionStatus::New;
            out.note = Some("no row was scored in the baseline".to_owned());
        }
        (None, None) => {
            out.status = RegressionStatus::New;
            out.note = Some("no row was scored in either run".to_owned());
        }
    }
}

/// How far a regressed row fell: failures count as the worst.
fn severity(direction: Direction, change: Option<f64>) -> f64 {
    match change {
        None => f64::INFINITY,
        Some(c) => match direction {
            Direction::Minimize => c,
            Direction::Maximize | Direction::Neutral => -c,
        },
    }
}

/// Classifies one matched row.
fn row_change(direction: Direction, before: Cell, after: Cell) -> (RowChange, Option<f64>) {
    // Neither direction is better: between a score and a label, as between
    // two scores, a move is only a change (becoming invalid or failing is
    // still worse, and the reverse better).
    if direction == Direction::Neutral
        && judged(before)
        && judged(after)
        && before.score().is_none() != after.score().is_none()
    {
        return (RowChange::Changed, None);
    }
    match (before.score(), after.score()) {
        (Some(b), Some(a)) => {
            let change = a - b;
            let better = match direction {
                Direction::Minimize => -change,
                Direction::Maximize => change,
                // Neither direction is better: a move is only a change.
                Direction::Neutral if change.abs() > EPS => {
                    return (RowChange::Changed, Some(change));
                }
                Direction::Neutral => 0.0,
            };
            let delta = if better > EPS {
                RowChange::Improved
            } else if better < -EPS {
                RowChange::Regressed
            } else {
                RowChange::Unchanged
            };
            (delta, Some(change))
        }
        (Some(_), None) => (RowChange::Regressed, None),
        (None, Some(_)) => (RowChange::Improved, None),
        (None, None) => {
            // Failing where it was only invalid is worse, invalid where it
            // gave a label worse again; the reverse better.
            let rank = |c: Cell| match c {
                Cell::Failed => 0,
                Cell::Invalid => 1,
                Cell::Label => 2,
                Cell::Score(_) => 3,
            };
            let delta = match rank(after).cmp(&rank(before)) {
                std::cmp::Ordering::Less => RowChange::Regressed,
                std::cmp::Ordering::Greater => RowChange::Improved,
                std::cmp::Ordering::Equal => RowChange::Unchanged,
            };
            (delta, None)
        }
    }
}

/// Pairs rows by id: `(baseline index, current index)`. The k-th row with
/// a given id pairs with the k-th of the other run. Ids are usually
/// unique: one map of first positions, and a second one only for ids that
/// repeat.
fn match_rows(baseline: &RunScores, current: &RunScores) -> Vec<(usize, usize)> {
    // The usual case, the same rows in the same order (a rerun of the same
    // dataset): paired by position, without a map of a run's ids. The k-th
    // row with an id is at the same position in both runs.
    if baseline.rows.len() == current.rows.len()
        && baseline.rows.iter().zip(&current.rows).all(|(b, c)| b.id == c.id)
    {
        return (0..current.rows.len()).map(|i| (i, i)).collect();
    }
    let mut first: HashMap<&str, usize> = HashMap::with_capacity(baseline.rows.len());
    let mut repeated: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, r) in baseline.rows.iter().enumerate() {
        match first.entry(r.id.as_str()) {
            std::collections::hash_map::Entry::Vacant(v) => {
                v.insert(i);
            }
            std::collections::hash_map::Entry::Occupied(o) => {
                repeated.entry(r.id.as_str()).or_insert_with(|| vec![*o.get()]).push(i);
            }
        }
    }
    let mut taken = vec![false; baseline.rows.len()];
    let mut next: HashMap<&str, usize> = HashMap::new();
    let mut pairs = Vec::with_capacity(current.rows.len().min(baseline.rows.len()));
    for (i, r) in current.rows.iter().enumerate() {
        let id = r.id.as_str();
        let b = match repeated.get(id) {
            Some(list) => {
                let k = next.entry(id).or_insert(0);
                *k += 1;
                list.get(*k - 1).copied()
            }
            None => first.get(id).copied().filter(|&b| !taken[b]),
        };
        if let Some(b) = b {
            taken[b] = true;
            pairs.push((b, i));
        }
    }
    pairs
}

/// Field accuracy moves, worst first.
fn field_deltas(
    baseline: &RunScores,
    current: &RunScores,
    not_compared: &[&str],
) -> Vec<FieldDelta> {
    let baseline_fields =
        baseline.fields.iter().filter(|f| !not_compared.contains(&f.evaluator.as_str()));
    let before: HashMap<(&str, &str), f64> = baseline_fields
        .clone()
        .map(|f| ((f.evaluator.as_str(), f.path.as_str()), f.accuracy))
        .collect();
    let mut seen = std::collections::HashSet::new();
    let mut out: Vec<FieldDelta> = current
        .fields
        .iter()
        .map(|f| {
            let key = (f.evaluator.as_str(), f.path.as_str());
            seen.insert(key);
            let b = before.get(&key).copied();
            FieldDelta {
                evaluator: f.evaluator.clone(),
                path: f.path.clone(),
                baseline_accuracy: b,
                current_accuracy: Some(f.accuracy),
                change: b.map(|b| crate::number::finite(f.accuracy - b)),
            }
        })
        .collect();
    out.extend(
        baseline_fields.filter(|f| !seen.contains(&(f.evaluator.as_str(), f.path.as_str()))).map(
            |f| FieldDelta {
                evaluator: f.evaluator.clone(),
                path: f.path.clone(),
                baseline_accuracy: Some(f.accuracy),
                current_accuracy: None,
                change: None,
            },
        ),
    );
    // Worst moves first; fields seen in one run only after every move.
    out.sort_by(|a, b| match (a.change, b.change) {
        (Some(x), Some(y)) => x.total_cmp(&y).then_with(|| a.path.cmp(&b.path)),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => a.path.cmp(&b.path),
    });
    out.truncate(MAX_FIELD_DELTAS);
    out
}

#[cfg(test)]
mod tests;

/// A relative change as a signed percentage with one decimal (`+12.5%`);
/// past a million percent in scientific notation, not hundreds of digits.
fn signed_percent(delta: f64) -> String {
    let p = delta * 100.0;
    if p.abs() < 1e6 { format!("{p:+.1}%") } else { format!("{p:+.3e}%") }
}

/// [`signed_percent`] without the sign (`12.5%`).
fn percent(delta: f64) -> String {
    signed_percent(delta).trim_start_matches(['+', '-']).to_owned()
}

/// Whether a count is zero (left out of the serialised comparison).
#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_zero(n: &u64) -> bool {
    *n == 0
}
