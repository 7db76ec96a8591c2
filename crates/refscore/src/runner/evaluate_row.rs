//! Evaluating one row: read by the fast reader straight into the
//! columns its evaluators read, or as a value; every evaluator of the
//! suite run on it, each isolated from the others' failures.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Instant;

use serde_json::Value;

use super::{Execution, RowResult, Status};
use crate::dataset::{Pending, Row};
use crate::engine::FieldTallies;
use crate::evaluator::Evaluation;
use crate::fast_json;
use crate::metric_result::MetricResult;
use crate::score::Score;
use crate::suite::{Suite, SuiteEvaluator};
use crate::summary::{EvalOutcome, passes};
use crate::tree::{Node, Tree};

/// A row's result before the summary has seen it.
pub(super) struct Evaluated {
    pub(super) result: RowResult,
    /// The result as one line of JSON.
    pub(super) line: String,
    /// Per evaluator: its outcome and the range of its scores in `result.scores`.
    pub(super) outcomes: Vec<(EvalOutcome, std::ops::Range<usize>)>,
    /// Per evaluator: the per-field tallies of its comparison.
    pub(super) tallies: Vec<FieldTallies>,
    pub(super) unreadable: bool,
}

impl Evaluated {
    /// Whether an evaluation of the row failed.
    pub(super) fn failed(&self) -> bool {
        self.outcomes.iter().any(|(o, _)| matches!(o, EvalOutcome::Failed))
    }
}

pub(super) fn evaluate_item(
    suite: &Suite,
    item: Pending,
    max_details: Option<usize>,
    fast: Option<&FastColumns<'_>>,
) -> Evaluated {
    if let Some(columns) = fast
        && let Pending::Line { number, bytes, .. } = &item
        && let Some(ev) = evaluate_fast(suite, *number, &bytes[..], columns, max_details)
    {
        return ev;
    }
    match item.resolve_noting() {
        Err(e) => Evaluated {
            result: RowResult {
                id: e.number.to_string(),
                row: e.number,
                scores: Vec::new(),
                execution: BTreeMap::new(),
                passed: BTreeMap::new(),
                row_score: None,
                error: Some(e.to_string()),
                metric_results: BTreeMap::new(),
            },
            line: String::new(),
            outcomes: Vec::new(),
            tallies: Vec::new(),
            unreadable: true,
        },
        Ok((row, line)) => {
            // A line that repeated keys is read into a tree as well, to
            // say where (rare: other rows build no tree).
            let text = line.as_deref().and_then(|b| simdutf8::basic::from_utf8(b).ok());
            let tree = text.and_then(|t| fast_json::read_deep(t.trim_end()));
            let keys = tree.as_ref().map(Tree::root);
            let ev = evaluate_row(suite, RowView::Value { row: &row, keys }, max_details);
            drop(tree);
            crate::json::drop_deep(row.value);
            ev
        }
    }
}

/// What the fast reader needs to know of a suite, worked out once per run.
pub(super) struct FastColumns<'s> {
    /// The columns it reads of each row: the mapped or same-named
    /// columns, `expected` (the fallback of `reference`) and the id column.
    read: Vec<&'s str>,
    /// The columns a required input reads, and whether `expected` stands
    /// in for it when absent.
    required: Vec<(&'s str, bool)>,
}

/// The fast reader's columns, when every evaluator's mapping reads plain
/// columns (else rows are read as values).
pub(super) fn fast_reader_columns(suite: &Suite) -> Option<FastColumns<'_>> {
    let mut read: Vec<&str> = suite.id_column.as_deref().into_iter().collect();
    let mut required = Vec::new();
    for ev in &suite.evaluators {
        if !ev.mapping.reads_columns_only() {
            return None;
        }
        for spec in ev.evaluator.inputs() {
            let column = ev.mapping.source(&spec.name).unwrap_or(&spec.name);
            let fallback = spec.name == "reference";
            read.push(column);
            if fallback {
                read.push("expected");
            }
            if spec.required {
                required.push((column, fallback));
            }
        }
    }
    read.sort_unstable();
    read.dedup();
    required.sort_unstable();
    required.dedup();
    Some(FastColumns { read, required })
}

/// Evaluates a JSONL line read by the fast reader; `None` when the line
/// is not one it takes, or lacks a required column (the caller then reads
/// it with `serde_json`, which gives the same results or says what is
/// wrong, naming every column).
fn evaluate_fast(
    suite: &Suite,
    number: u64,
    bytes: &[u8],
    columns: &FastColumns<'_>,
    max: Option<usize>,
) -> Option<Evaluated> {
    // Validated with SIMD: a line is mostly ASCII, with some accents.
    let text = simdutf8::basic::from_utf8(bytes).ok()?;
    let tree = fast_json::read_columns(text.trim_end(), Some(&columns.read))?;
    let root = tree.root();
    let complete = root.is_object()
        && columns.required.iter().all(|&(column, fallback)| {
            root.contains_key(column) || fallback && root.contains_key("expected")
        });
    complete.then(|| evaluate_row(suite, RowView::Tree { number, root }, max))
}

/// A row to evaluate: read as a `serde_json` value (with the row read into
/// a tree when its text repeated keys), or by the fast reader.
#[derive(Clone, Copy)]
enum RowView<'r> {
    Value { row: &'r Row, keys: Option<Node<'r>> },
    Tree { number: u64, root: Node<'r> },
}

impl RowView<'_> {
    fn number(self) -> u64 {
        match self {
            RowView::Value { row, .. } => row.number,
            RowView::Tree { number, .. } => number,
        }
    }

    /// The id of a row: the id column's value, else (absent, `null`, or
    /// a blank text such as an empty CSV cell) its number.
    fn id(self, suite: &Suite) -> String {
        let column = suite.id_column.as_deref();
        let blank = |s: &str| s.trim().is_empty();
        match self {
            RowView::Value { row, .. } => match column.and_then(|c| row.value.get(c)) {
                None | Some(Value::Null) => row.number.to_string(),
                Some(Value::String(s)) if blank(s) => row.number.to_string(),
                Some(Value::String(s)) => s.clone(),
                Some(other) => crate::json::compact(other),
            },
            RowView::Tree { number, root } => match column.and_then(|c| root.get(c)) {
                None => number.to_string(),
                Some(n) if n.is_null() || n.as_str().is_some_and(blank) => number.to_string(),
                Some(n) => n.as_str().map_or_else(|| n.compact(), str::to_owned),
            },
        }
    }

    /// Maps the evaluator's inputs from the row and evaluates them.
    fn evaluate(self, ev: &SuiteEvaluator) -> Result<Evaluation, String> {
        let specs = ev.evaluator.inputs();
        match self {
            RowView::Value { row, keys } => {
                let input =
                    ev.mapping.resolve_noting(row, specs, keys).map_err(|e| e.to_string())?;
                ev.evaluator.evaluate(&input).map_err(|e| e.to_string())
            }
            RowView::Tree { root, .. } => {
                let input = ev.mapping.resolve_tree(root, specs).map_err(|e| e.to_string())?;
                ev.evaluator.evaluate_tree(&input).map_err(|e| e.to_string())
            }
        }
    }
}

/// Evaluates a row; `max_details`: the failed details listed per
/// evaluator in `metric_results` (`None`: no `metric_results`).
fn evaluate_row(suite: &Suite, row: RowView<'_>, max_details: Option<usize>) -> Evaluated {
    let id = row.id(suite);
    let mut scores = Vec::new();
    let mut execution = BTreeMap::new();
    let mut passed = BTreeMap::new();
    let mut outcomes = Vec::with_capacity(suite.evaluators.len());
    let mut tallies = Vec::with_capacity(suite.evaluators.len());
    for ev in &suite.evaluators {
        let t0 = Instant::now();
        let result = catch_unwind(AssertUnwindSafe(|| row.evaluate(ev)));
        let duration_ms = crate::number::finite(t0.elapsed().as_secs_f64() * 1000.0);
        let mut decode = serde_json::Map::new();
        let mut fields = FieldTallies::default();
        let error = match result {
            Ok(Ok(own)) => {
                let first = scores.len();
                decode = own.decoded;
                fields = own.fields;
                let outcome = add_scores(ev, own.scores, &mut scores);
                if let (Some(t), EvalOutcome::Score(x)) = (ev.threshold, outcome) {
                    passed.insert(ev.name.clone(), passes(ev.direction(), t, x));
                } else if ev.threshold.is_some() {
                    passed.insert(ev.name.clone(), false);
                }
                outcomes.push((outcome, first..scores.len()));
                None
            }
            Ok(Err(message)) => Some(message),
            Err(panic) => Some(format!(
                "evaluator panicked: {}",
                crate::error::panic_message(panic.as_ref())
                    .unwrap_or_else(|| String::from("unknown panic"))
            )),
        };
        if error.is_some() {
            outcomes.push((EvalOutcome::Failed, scores.len()..scores.len()));
            if ev.threshold.is_some() {
                passed.insert(ev.name.clone(), false);
            }
        }
        let status = if error.is_some() { Status::Failed } else { Status::Completed };
        tallies.push(fields);
        execution.insert(ev.name.clone(), Execution { status, duration_ms, error, decode });
    }
    let main: Vec<(&Score, f64)> = suite
        .evaluators
        .iter()
        .zip(&outcomes)
        .filter_map(|(ev, (_, range))| {
            let own = scores.get(range.clone())?;
            own.iter().find(|s| s.name == ev.name).map(|s| (s, ev.weight))
        })
        .collect();
    let row_score = crate::row_score::RowScore::combine(&main).score;
    let metric_results = match max_details {
        None => BTreeMap::new(),
        Some(max) => suite
            .evaluators
            .iter()
            .zip(&outcomes)
            .map(|(ev, (_, range))| {
                let own = scores.get(range.clone()).unwrap_or(&[]);
                let passed = passed.get(&ev.name).copied();
                (ev.name.clone(), MetricResult::from_scores(own, passed, max))
            })
            .collect(),
    };
    Evaluated {
        line: String::new(),
        result: RowResult {
            id,
            row: row.number(),
            scores,
            execution,
            passed,
            row_score,
            error: None,
            metric_results,
        },
        outcomes,
        tallies,
        unreadable: false,
    }
}

/// Renames an evaluator's scores after it (the main one, named like the
/// metric or else the first, takes the evaluator's name and goes first;
/// the others become `<evaluator>.<score>`) and returns its main outcome.
fn add_scores(ev: &SuiteEvaluator, mut own: Vec<Score>, out: &mut Vec<Score>) -> EvalOutcome {
    let metric_name = ev.evaluator.name();
    let main = own.iter().position(|s| s.name == metric_name).unwrap_or(0);
    if main < own.len() {
        own.swap(0, main);
    }
    let mut outcome = EvalOutcome::Invalid;
    for (i, mut s) in own.into_iter().enumerate() {
        if i == 0 {
            outcome = EvalOutcome::completed(s.score, s.label.as_deref());
            s.name = ev.name.clone();
        } else {
            s.name = format!("{}.{}", ev.name, s.name);
        }
        out.push(s);
    }
    outcome
}
