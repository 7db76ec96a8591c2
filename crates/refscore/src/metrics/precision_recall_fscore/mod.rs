//! `precision_recall_fscore`: precision, recall and F-beta of the output's
//! labels against the reference's (Arize Phoenix's
//! `PrecisionRecallFScore`).
//!
//! # Inputs
//!
//! `output` and `reference` each hold labels: a JSON list of strings,
//! numbers and booleans, one such label alone, or a string whose text
//! (after trimming) starts with `[` and is a JSON list. Any other string
//! is one label, as written: `"cat, dog"` is one label. A label's text is
//! the string itself, a number in its shortest decimal form (`1` and
//! `1.0` are the same label, and the same as `"1"`), `true` or `false`;
//! the `normalize` option (as in `exact_match`: `nfkc`, `casefold`,
//! `trim`, `collapse_whitespace`, `strip_punctuation`) is applied to each
//! label text, and to `positive_label`. A `null`, list or object inside
//! the list, or a string starting with `[` that is not a JSON list, is
//! [`EvalError::InvalidInput`].
//!
//! # Counting (`mode`)
//!
//! * `sequence` (default): `output[i]` is the prediction for the item
//!   whose gold label is `reference[i]`, as scikit-learn's
//!   `precision_recall_fscore_support(y_true = reference, y_pred =
//!   output)`. The lists must have the same length, else
//!   [`EvalError::InvalidInput`]. Each position is a true positive of its
//!   label when both agree, else a false positive of the predicted label
//!   and a false negative of the gold one.
//! * `set`: each list is a set of items (duplicates after normalization
//!   are ignored). An item in both is a true positive, one only in the
//!   output a false positive, one only in the reference a false negative:
//!   precision = |out ∩ ref| / |out|, recall = |out ∩ ref| / |ref|.
//!
//! # Averaging (`average`)
//!
//! * `micro` (default): the counts of every label are pooled, then
//!   precision = tp / (tp + fp), recall = tp / (tp + fn). In `sequence`
//!   mode micro precision = recall = F = accuracy.
//! * `macro`: precision, recall and F are computed for each label present
//!   in either list, then averaged with equal weights (F is the mean of
//!   the per-label F scores, not the F of the means). In `set` mode every
//!   label then scores 1 (in both) or 0, so all three equal the Jaccard
//!   index |out ∩ ref| / |out ∪ ref|.
//! * `binary`: only the counts of `positive_label` (required with
//!   `binary`, an error with any other average).
//!
//! F-beta = (1 + β²)·P·R / (β²·P + R), and 0 when P = R = 0; `beta`
//! (default 1) must be > 0.
//!
//! # Empty counts
//!
//! A ratio whose denominator is 0 is 1 when nothing was to be found and
//! nothing was found, and 0 otherwise. For the counts in question (pooled
//! for `micro`, of one label for `macro`, of the positive label for
//! `binary`), with "predicted" = tp + fp and "gold" = tp + fn:
//!
//! | predicted | gold | precision | recall | F |
//! |-----------|------|-----------|--------|---|
//! | 0         | 0    | 1         | 1      | 1 |
//! | 0         | > 0  | 0         | 0      | 0 |
//! | > 0       | 0    | 0         | 0      | 0 |
//! | > 0       | > 0  | tp / predicted | tp / gold | F-beta |
//!
//! This is scikit-learn's `zero_division=0` except for the first row
//! (scikit-learn gives 0): two empty lists agree perfectly. A `macro`
//! average over no labels (both lists empty) is 1. A `binary` positive
//! label absent from both lists is the first row.
//!
//! # Scores
//!
//! Three scores: the main one, named `precision_recall_fscore`, is the
//! F-beta score (metadata `f_score`: `f1` when β = 1, else `fbeta`), then
//! `precision` and `recall` (a suite reports them as
//! `<evaluator>.precision` and `<evaluator>.recall`). All are finite and
//! in [0, 1]. The main score's label is `match` at 1, `mismatch` at 0,
//! `partial` between; its metadata holds `tp`, `fp`, `fn` (pooled, or of
//! the positive label with `binary`) and, with `macro`, `labels`: each
//! label's `precision`, `recall`, `f`, `tp`, `fp`, `fn`, in the order the
//! labels first appear in the reference, then the output. Each error is
//! a detail (at most [`MAX_DETAILS`]): a mismatched position
//! `precision_recall_fscore[i]` in `sequence` mode, a missing or extra
//! item (`precision_recall_fscore.missing`, `.extra`) in `set` mode; with
//! `binary`, only errors involving the positive label.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Number, Value, json};

use super::BuildContext;
use super::exact_match::{normalizer_names, normalizers_option};
use super::options::Opts;
use super::registry::{MetricSpec, OptionSpec, OptionType};
use crate::detail::{Detail, Outcome, push_failure_lines};
use crate::error::{ConfigError, EvalError};
use crate::evaluator::{EvalInput, Evaluation, Evaluator, InputSpec, InputType};
use crate::normalize::{Normalizer, normalize};
use crate::number::{as_i128, to_f64};
use crate::score::{Direction, Kind, Score};

/// The declaration of `precision_recall_fscore`.
pub const SPEC: MetricSpec = MetricSpec {
    name: "precision_recall_fscore",
    description: "precision, recall and F-beta of the output's labels against the reference's, per position or as sets",
    inputs: &[
        InputSpec::required(
            "output",
            InputType::Labels,
            "the predicted labels: a list, one label, or text holding a JSON list",
        ),
        InputSpec::required(
            "reference",
            InputType::Labels,
            "the gold labels: a list, one label, or text holding a JSON list",
        ),
    ],
    options: &[
        OptionSpec::new(
            "beta",
            OptionType::Number,
            Some("1"),
            "weight of recall against precision in the F score (> 0)",
        ),
        OptionSpec::new(
            "average",
            OptionType::Choice(&["micro", "macro", "binary"]),
            Some("micro"),
            "micro: pooled counts; macro: mean over labels; binary: the positive label only",
        ),
        OptionSpec::new(
            "positive_label",
            OptionType::String,
            None,
            "the positive label (required with average: binary, not allowed otherwise)",
        ),
        OptionSpec::new(
            "mode",
            OptionType::Choice(&["sequence", "set"]),
            Some("sequence"),
            "sequence: output[i] is the prediction for reference[i]; set: both lists are sets of items",
        ),
        OptionSpec::new(
            "normalize",
            OptionType::List,
            None,
            "normalizers applied in order to every label: nfkc, casefold, trim, collapse_whitespace, strip_punctuation",
        ),
    ],
    json: false,
    kind: Kind::Code,
    direction: Direction::Maximize,
    threshold: Some(0.8),
    extra_scores: &["precision", "recall"],
    example: "- metric: precision_recall_fscore
  options: {mode: set, average: micro, normalize: [trim, casefold]}",
    build: |o, ctx| Ok(Box::new(PrecisionRecallFScore::from_options(o, ctx)?) as Box<dyn Evaluator>),
};

/// Most details reported per evaluation; metadata `more_errors` counts
/// the errors left out.
pub const MAX_DETAILS: usize = 100;

/// How per-label counts become one precision and recall.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Average {
    /// Counts pooled over every label.
    #[default]
    Micro,
    /// The mean of per-label scores over the labels present.
    Macro,
    /// The positive label's counts only.
    Binary,
}

impl Average {
    /// The option value.
    pub fn as_str(self) -> &'static str {
        match self {
            Average::Micro => "micro",
            Average::Macro => "macro",
            Average::Binary => "binary",
        }
    }
}

/// How the two lists are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Predictions against gold labels, position by position.
    #[default]
    Sequence,
    /// Two sets of items.
    Set,
}

impl Mode {
    /// The option value.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Sequence => "sequence",
            Mode::Set => "set",
        }
    }
}

/// True positives, false positives and false negatives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counts {
    /// Predicted and gold.
    pub tp: u64,
    /// Predicted, not gold.
    pub fp: u64,
    /// Gold, not predicted.
    pub fn_: u64,
}

impl Counts {
    /// tp / (tp + fp); with no prediction, 1 when there is no gold label
    /// either, else 0.
    pub fn precision(self) -> f64 {
        ratio(self.tp, self.tp + self.fp, self.fn_ == 0)
    }

    /// tp / (tp + fn); with no gold label, 1 when there is no prediction
    /// either, else 0.
    pub fn recall(self) -> f64 {
        ratio(self.tp, self.tp + self.fn_, self.fp == 0)
    }

    fn add(&mut self, other: Counts) {
        self.tp += other.tp;
        self.fp += other.fp;
        self.fn_ += other.fn_;
    }
}

fn ratio(num: u64, den: u64, empty_is_perfect: bool) -> f64 {
    if den == 0 {
        if empty_is_perfect { 1.0 } else { 0.0 }
    } else {
        // u64 → f64 may round for huge counts; the ratio stays in [0, 1].
        crate::number::clamp01(num as f64 / den as f64)
    }
}

/// F-beta of a precision and a recall: `(1 + β²)·p·r / (β²·p + r)`, 0
/// when both are 0. `beta` must be > 0 with a finite, non-zero square.
pub fn f_beta(p: f64, r: f64, beta: f64) -> f64 {
    if p <= 0.0 && r <= 0.0 {
        return 0.0;
    }
    let b2 = beta * beta;
    crate::number::clamp01((1.0 + b2) * p * r / (b2 * p + r))
}

/// The `precision_recall_fscore` metric.
#[derive(Debug, Clone, PartialEq)]
pub struct PrecisionRecallFScore {
    beta: f64,
    average: Average,
    positive_label: Option<String>,
    mode: Mode,
    normalizers: Vec<Normalizer>,
}

impl Default for PrecisionRecallFScore {
    fn default() -> Self {
        PrecisionRecallFScore {
            beta: 1.0,
            average: Average::Micro,
            positive_label: None,
            mode: Mode::Sequence,
            normalizers: Vec::new(),
        }
    }
}

/// The text of a number label: integers exactly, other numbers in their
/// shortest decimal form, integral floats as integers (`1.0` → `1`).
fn number_text(n: &Number) -> String {
    if let Some(i) = as_i128(n) {
        return i.to_string();
    }
    let f = to_f64(n);
    if f.is_finite() && f.fract() == 0.0 && f.abs() < 1.0e38 {
        // Exact: an integral f64 below 2^126 converts to i128 exactly.
        return (f as i128).to_string();
    }
    format!("{f}")
}

/// The text of one label, or why it is not one.
fn label_text(v: &Value) -> Result<String, String> {
    match v {
        Value::String(s) => Ok(s.clone()),
        Value::Number(n) => Ok(number_text(n)),
        Value::Bool(b) => Ok(b.to_string()),
        other => Err(format!(
            "labels are strings, numbers or booleans, got {}",
            crate::json::type_name(other)
        )),
    }
}

/// Reads the labels of input `name` (see the module documentation), each
/// normalized by `steps`.
///
/// # Errors
/// [`EvalError::InvalidInput`] for a value that holds no labels.
pub fn read_labels(name: &str, v: &Value, steps: &[Normalizer]) -> Result<Vec<String>, EvalError> {
    let invalid = |reason: String| EvalError::InvalidInput { input: name.to_owned(), reason };
    let parsed;
    let items: &[Value] = match v {
        Value::Array(items) => items,
        Value::String(s) if crate::decode::looks_like_json(s) => {
            let json = crate::decode::DecodeOptions {
                mode: crate::decode::Mode::Json,
                ..crate::decode::DecodeOptions::default()
            };
            parsed = crate::decode::decode(v, &json)
                .map_err(|e| invalid(format!("text starting like JSON is not a JSON list: {e}")))?
                .value
                .into_owned();
            match &parsed {
                Value::Array(items) => items,
                other => {
                    return Err(invalid(format!(
                        "text starting like JSON is not a JSON list: got {}",
                        crate::json::type_name(other)
                    )));
                }
            }
        }
        Value::Object(_) | Value::Null => {
            return Err(invalid(format!(
                "expected a list of labels or one label, got {}",
                crate::json::type_name(v)
            )));
        }
        single => std::slice::from_ref(single),
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let text = label_text(item).map_err(|e| invalid(format!("item {i}: {e}")))?;
            Ok(normalize(&text, steps).into_owned())
        })
        .collect()
}

/// One error between the lists: a mismatched position, or a missing or
/// extra item.
enum LabelError<'a> {
    Position { index: usize, predicted: &'a str, gold: &'a str },
    Missing(&'a str),
    Extra(&'a str),
}

impl LabelError<'_> {
    fn involves(&self, label: &str) -> bool {
        match self {
            LabelError::Position { predicted, gold, .. } => *predicted == label || *gold == label,
            LabelError::Missing(l) | LabelError::Extra(l) => *l == label,
        }
    }

    fn detail(&self) -> Detail {
        match self {
            LabelError::Position { index, predicted, gold } => {
                Detail::new(format!("{}[{index}]", SPEC.name), Outcome::ValueMismatch)
                    .expected(gold)
                    .actual(predicted)
            }
            LabelError::Missing(l) => {
                Detail::new(format!("{}.missing", SPEC.name), Outcome::Missing)
                    .expected(l)
                    .message("in the reference, not in the output")
            }
            LabelError::Extra(l) => Detail::new(format!("{}.extra", SPEC.name), Outcome::Extra)
                .actual(l)
                .message("in the output, not in the reference"),
        }
    }
}

/// Per-label counts, labels in order of first appearance (reference,
/// then output).
#[derive(Default)]
struct Table<'a> {
    labels: Vec<(&'a str, Counts)>,
    index: HashMap<&'a str, usize>,
}

impl<'a> Table<'a> {
    fn entry(&mut self, label: &'a str) -> &mut Counts {
        let next = self.labels.len();
        let i = *self.index.entry(label).or_insert(next);
        if i == next {
            self.labels.push((label, Counts::default()));
        }
        &mut self.labels[i].1
    }

    fn get(&self, label: &str) -> Counts {
        self.index.get(label).map(|&i| self.labels[i].1).unwrap_or_default()
    }
}

/// Counts the two label lists under `mode`; the errors in order.
fn count<'a>(
    mode: Mode,
    output: &'a [String],
    reference: &'a [String],
) -> Result<(Table<'a>, Vec<LabelError<'a>>), EvalError> {
    let mut table = Table::default();
    let mut errors = Vec::new();
    match mode {
        Mode::Sequence => {
            if output.len() != reference.len() {
                return Err(EvalError::InvalidInput {
                    input: "output".into(),
                    reason: format!(
                        "{} output labels for {} reference labels: with mode sequence the lists must have the same length",
                        output.len(),
                        reference.len()
                    ),
                });
            }
            for gold in reference {
                table.entry(gold);
            }
            for (index, (predicted, gold)) in output.iter().zip(reference).enumerate() {
                if predicted == gold {
                    table.entry(gold).tp += 1;
                } else {
                    table.entry(predicted).fp += 1;
                    table.entry(gold).fn_ += 1;
                    errors.push(LabelError::Position { index, predicted, gold });
                }
            }
        }
        Mode::Set => {
            let out: HashSet<&str> = output.iter().map(String::as_str).collect();
            let gold: HashSet<&str> = reference.iter().map(String::as_str).collect();
            for l in reference {
                if table.index.contains_key(l.as_str()) {
                    continue;
                }
                if out.contains(l.as_str()) {
                    table.entry(l).tp = 1;
                } else {
                    table.entry(l).fn_ = 1;
                    errors.push(LabelError::Missing(l));
                }
            }
            for l in output {
                if !gold.contains(l.as_str()) && !table.index.contains_key(l.as_str()) {
                    table.entry(l).fp = 1;
                    errors.push(LabelError::Extra(l));
                }
            }
        }
    }
    Ok((table, errors))
}

/// Rounds to 4 decimals for explanations (`0.6667`, `1`).
fn short(x: f64) -> String {
    format!("{}", (x * 1e4).round() / 1e4)
}

impl PrecisionRecallFScore {
    /// From options: `beta`, `average`, `positive_label`, `mode`,
    /// `normalize`.
    ///
    /// # Errors
    /// An unknown option or a bad value: `beta` not > 0, an unknown
    /// `average`, `mode` or normalizer, `positive_label` missing with
    /// `average: binary` or given with another average.
    pub fn from_options(
        options: &Map<String, Value>,
        ctx: &BuildContext,
    ) -> Result<Self, ConfigError> {
        let _ = ctx;
        let o = Opts::for_metric(&SPEC, options)?;
        let beta = o.number("beta", 1.0)?;
        let square = beta * beta;
        // The value as written: `1e200`, not its 201 digits.
        let given = o.value("beta").map_or_else(|| beta.to_string(), Value::to_string);
        if beta.is_nan() || beta <= 0.0 {
            return Err(o.error("beta", format!("must be a number > 0, got {given}")));
        }
        if !(square.is_finite() && square > 0.0) {
            // β² weighs recall: it must be a number too.
            return Err(o.error(
                "beta",
                format!(
                    "must be a number > 0 whose square is finite and above 0 (1e-150 to 1e150), got {given}"
                ),
            ));
        }
        let average = match o.choice("average", &["micro", "macro", "binary"], "micro")?.as_str() {
            "macro" => Average::Macro,
            "binary" => Average::Binary,
            _ => Average::Micro,
        };
        let mode = match o.choice("mode", &["sequence", "set"], "sequence")?.as_str() {
            "set" => Mode::Set,
            _ => Mode::Sequence,
        };
        let normalizers = normalizers_option(&o, "normalize")?;
        let positive_label = match o.value("positive_label") {
            None => None,
            Some(v) => {
                let text = label_text(v).map_err(|e| o.error("positive_label", e))?;
                Some(normalize(&text, &normalizers).into_owned())
            }
        };
        match (average, &positive_label) {
            (Average::Binary, None) => {
                return Err(o.error("positive_label", "required with average: binary"));
            }
            (Average::Micro | Average::Macro, Some(_)) => {
                return Err(o.error(
                    "positive_label",
                    format!("only used with average: binary (average is {})", average.as_str()),
                ));
            }
            _ => {}
        }
        o.finish()?;
        Ok(PrecisionRecallFScore { beta, average, positive_label, mode, normalizers })
    }

    /// The F score's name: `f1` when β = 1, else `fbeta`.
    pub fn f_name(&self) -> &'static str {
        if self.beta == 1.0 { "f1" } else { "fbeta" }
    }

    /// Precision, recall, F and the metadata of one evaluation.
    fn aggregate(&self, table: &Table<'_>) -> (f64, f64, f64, Counts, Option<Value>) {
        match self.average {
            Average::Micro => {
                let mut pooled = Counts::default();
                for (_, c) in &table.labels {
                    pooled.add(*c);
                }
                let (p, r) = (pooled.precision(), pooled.recall());
                (p, r, f_beta(p, r, self.beta), pooled, None)
            }
            Average::Binary => {
                let c = table.get(self.positive_label.as_deref().unwrap_or_default());
                let (p, r) = (c.precision(), c.recall());
                (p, r, f_beta(p, r, self.beta), c, None)
            }
            Average::Macro => {
                let mut pooled = Counts::default();
                let (mut sp, mut sr, mut sf) = (0.0, 0.0, 0.0);
                let mut per_label = Vec::with_capacity(table.labels.len());
                for (label, c) in &table.labels {
                    pooled.add(*c);
                    let (p, r) = (c.precision(), c.recall());
                    let f = f_beta(p, r, self.beta);
                    sp += p;
                    sr += r;
                    sf += f;
                    per_label.push(json!({
                        "label": label,
                        "precision": p,
                        "recall": r,
                        "f": f,
                        "tp": c.tp,
                        "fp": c.fp,
                        "fn": c.fn_,
                    }));
                }
                let n = table.labels.len() as f64;
                let mean =
                    |s: f64| if table.labels.is_empty() { 1.0 } else { (s / n).clamp(0.0, 1.0) };
                (mean(sp), mean(sr), mean(sf), pooled, Some(Value::Array(per_label)))
            }
        }
    }
}

impl Evaluator for PrecisionRecallFScore {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn inputs(&self) -> &[InputSpec] {
        SPEC.inputs
    }

    fn compute(&self, input: &EvalInput<'_>) -> Result<Evaluation, EvalError> {
        let output = read_labels("output", input.require("output")?, &self.normalizers)?;
        let reference = read_labels("reference", input.require("reference")?, &self.normalizers)?;
        let (table, mut errors) = count(self.mode, &output, &reference)?;
        if let Some(positive) = &self.positive_label {
            errors.retain(|e| e.involves(positive));
        }
        let (p, r, f, counts, per_label) = self.aggregate(&table);
        let f_name = self.f_name();
        let details: Vec<Detail> =
            errors.iter().take(MAX_DETAILS).map(LabelError::detail).collect();
        let mut explanation = format!(
            "{f_name} {} (precision {}, recall {}; tp {}, fp {}, fn {})",
            short(f),
            short(p),
            short(r),
            counts.tp,
            counts.fp,
            counts.fn_
        );
        push_failure_lines(&mut explanation, &details);
        let mut main = Score::new(SPEC.name, Some(f))
            .with_label(super::similarity_label(f))
            .with_explanation(explanation)
            .with_meta("f_score", f_name)
            .with_meta("beta", self.beta)
            .with_meta("average", self.average.as_str())
            .with_meta("mode", self.mode.as_str())
            .with_meta("normalizers", normalizer_names(&self.normalizers))
            .with_meta("tp", counts.tp)
            .with_meta("fp", counts.fp)
            .with_meta("fn", counts.fn_);
        if let Some(positive) = &self.positive_label {
            main = main.with_meta("positive_label", positive.as_str());
        }
        if let Some(labels) = per_label {
            main = main.with_meta("labels", labels);
        }
        if errors.len() > MAX_DETAILS {
            main = main.with_meta("more_errors", errors.len() - MAX_DETAILS);
        }
        main.details = details;
        Ok(Evaluation::of(vec![
            main,
            Score::new("precision", Some(p)),
            Score::new("recall", Some(r)),
        ]))
    }
}

#[cfg(test)]
mod tests;
