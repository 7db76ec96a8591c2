//! The HTML report: one self-contained page (inline CSS, JavaScript and
//! SVG, nothing fetched) with the gate, a score histogram per evaluator,
//! the per-field table and every row, filterable and paged, each failed row
//! expandable into its failed checks and, where embedded, its output and
//! reference side by side with the failing paths highlighted.
//!
//! The page is laid out by a template (`html/report.html`); the rows travel
//! as compact JSON in a `<script type="application/json">` element and the
//! page's script renders one page of them at a time, so a run of 100,000
//! rows stays quick to open.

use std::fmt::Write as _;
use std::io::Write;

use minijinja::value::Serde;
use minijinja::{Environment, Value as Tpl, context};
use serde::Serialize;
use serde_json::{Value, json};

use super::histogram::Histogram;
use super::text::{self, gate_actual, gate_required, num, opt, percent};
use super::{EvalStatus, Options, ReportError, RowIter, RowStatus, Sides, failed_details};
use crate::runner::RowResult;
use crate::score::Direction;
use crate::summary::RunSummary;

const TEMPLATE: &str = include_str!("html/report.html");
const STYLE: &str = include_str!("html/report.css");
const SCRIPT: &str = include_str!("html/report.js");

/// Fields listed in the per-field table (all are in `summary.json`).
const FIELDS_SHOWN: usize = 2_000;

/// Failed checks embedded per evaluator and row; the rest are counted.
pub const CHECKS_PER_EVALUATOR: usize = 5;

/// Renders the HTML report of a run into `out`; `sides` holds the output
/// and reference of the rows to show side by side (see [`Sides::read`]).
///
/// # Errors
/// A row cannot be read back, the template fails, or writing fails.
pub fn render(
    summary: &RunSummary,
    rows: &mut RowIter<'_>,
    sides: Option<&Sides>,
    opts: &Options,
    out: &mut dyn Write,
) -> Result<(), ReportError> {
    let mut hists: Vec<Histogram> =
        summary.evaluators.iter().map(|e| Histogram::new(e.min, e.max, e.threshold)).collect();
    let names: Vec<&str> = summary.evaluators.iter().map(|e| e.name.as_str()).collect();
    let mut data = String::with_capacity(1 << 20);
    data.push_str("{\"evaluators\":");
    data.push_str(&serde_json::to_string(&names).unwrap_or_default());
    data.push_str(",\"rows\":[");
    let mut extra = String::from("[");
    let mut extras = 0u64;
    let mut first = true;
    for row in rows {
        let row = row?;
        for (h, name) in hists.iter_mut().zip(&names) {
            if let Some(x) = super::main_score(&row, name) {
                h.add(x);
            }
        }
        let status = RowStatus::of(&row);
        let extra_index = if status == RowStatus::Passed || extras >= opts.max_detail_rows as u64 {
            -1
        } else {
            if extras > 0 {
                extra.push(',');
            }
            extra.push_str(
                &serde_json::to_string(&row_extra(&row, &names, sides)).unwrap_or_default(),
            );
            extras += 1;
            i64::try_from(extras - 1).unwrap_or(-1)
        };
        if !first {
            data.push(',');
        }
        first = false;
        let line = json!([
            row.id,
            row.row,
            match status {
                RowStatus::Passed => 0,
                RowStatus::Failed => 1,
                RowStatus::Error => 2,
            },
            row.row_score.map(round),
            names.iter().map(|n| super::main_score(&row, n).map(round)).collect::<Vec<_>>(),
            names
                .iter()
                .map(|n| match EvalStatus::of(&row, n) {
                    EvalStatus::Passed => 0,
                    EvalStatus::Failed => 1,
                    EvalStatus::Error => 2,
                })
                .collect::<Vec<_>>(),
            extra_index
        ]);
        data.push_str(&line.to_string());
    }
    extra.push(']');
    data.push_str("],\"extra\":");
    data.push_str(&extra);
    data.push('}');

    let against = summary.comparison.as_ref().filter(|c| c.baseline.is_some());
    let evaluators: Vec<EvaluatorView> = summary
        .evaluators
        .iter()
        .zip(&hists)
        .map(|(e, h)| {
            let op = if e.direction == Direction::Minimize { "≤" } else { "≥" };
            EvaluatorView {
                name: e.name.clone(),
                metric: e.metric.clone(),
                mean: opt(e.mean),
                median: opt(e.median),
                min: opt(e.min),
                max: opt(e.max),
                pass_rate: e.pass_rate.map_or_else(|| String::from("—"), percent),
                pass_value: e.pass_rate,
                threshold: e
                    .threshold
                    .map_or_else(|| String::from("—"), |t| format!("{op} {}", num(t))),
                failed: e.failed,
                invalid: e.invalid,
                histogram: h.svg(&format!("score histogram of {}", e.name)),
                against: against.and_then(|c| c.evaluators.iter().find(|x| x.name == e.name)).map(
                    |x| AgainstView {
                        baseline: opt(x.baseline_mean),
                        change: text::change(x.change),
                        status: x.status.as_str(),
                        note: x.note.clone(),
                    },
                ),
            }
        })
        .collect();
    // Most failures first, as the Markdown report lists them.
    let mut worst: Vec<_> = summary.fields.iter().collect();
    worst.sort_by_key(|f| std::cmp::Reverse(f.total - f.matched));
    let fields: Vec<FieldView> = worst
        .into_iter()
        .take(FIELDS_SHOWN)
        .map(|f| FieldView {
            evaluator: f.evaluator.clone(),
            path: f.path.clone(),
            accuracy: f.accuracy,
            accuracy_text: percent(f.accuracy),
            total: f.total,
            matched: f.matched,
            wrong: f.wrong,
            partial: f.partial,
            missing: f.missing,
            extra: f.extra,
            examples: f.examples.clone(),
        })
        .collect();
    let mut env = Environment::new();
    env.set_formatter(visible_formatter);
    env.add_template("report.html", TEMPLATE).map_err(|e| ReportError::Template(e.to_string()))?;
    let tpl = env.get_template("report.html").map_err(|e| ReportError::Template(e.to_string()))?;
    let title = super::title(summary);
    let ctx = context! {
        title => title,
        facts => Serde(super::run_facts(summary)),
        repeated_ids => super::repeated_ids_said(summary.repeated_ids.rows),
        rows => crate::text::counted(summary.rows, "row", "rows"),
        summary => Serde(summary),
        duration => format!("{:.2}", summary.duration_s),
        evaluators => Serde(&evaluators),
        fields => Serde(&fields),
        fields_more => summary.fields.len().saturating_sub(FIELDS_SHOWN),
        gate => Serde(gate_view(summary)),
        comparison => Serde(comparison_view(summary)),
        no_baseline => summary.comparison.as_ref().is_some_and(|c| c.baseline.is_none()),
        style => Tpl::from_safe_string(STYLE.to_owned()),
        script => Tpl::from_safe_string(SCRIPT.to_owned()),
        data => Tpl::from_safe_string(script_safe(&data)),
    };
    let page = tpl.render(ctx).map_err(|e| ReportError::Template(e.to_string()))?;
    out.write_all(page.as_bytes())?;
    Ok(())
}

#[derive(Serialize)]
struct EvaluatorView {
    name: String,
    metric: String,
    mean: String,
    median: String,
    min: String,
    max: String,
    pass_rate: String,
    pass_value: Option<f64>,
    threshold: String,
    failed: u64,
    invalid: u64,
    histogram: String,
    against: Option<AgainstView>,
}

/// An evaluator against the baseline.
#[derive(Serialize)]
struct AgainstView {
    baseline: String,
    change: String,
    status: &'static str,
    note: Option<String>,
}

/// The baseline section.
#[derive(Serialize)]
struct ComparisonView {
    status: &'static str,
    reason: String,
    baseline: Vec<(&'static str, String)>,
    rows: String,
    regressed: Vec<[String; 5]>,
    fields: Vec<[String; 5]>,
}

fn comparison_view(s: &RunSummary) -> Option<ComparisonView> {
    let c = s.comparison.as_ref()?;
    let b = c.baseline.as_ref()?;
    let mut baseline = vec![("chosen by", b.chosen_by.clone())];
    if let Some(id) = b.run_id {
        baseline.push(("run", id.to_string()));
    }
    if let Some(f) = &b.folder {
        baseline.push(("folder", f.clone()));
    }
    if let Some(g) = &b.git_commit {
        baseline.push(("commit", g.chars().take(12).collect()));
    }
    if let Some(at) = &b.started_at {
        baseline.push(("started", at.clone()));
    }
    if super::suite_changed(s) {
        baseline.push(("note", crate::history::SUITE_CHANGED.to_owned()));
    }
    for name in &c.evaluators_gone {
        baseline.push(("note", crate::history::evaluator_gone(name)));
    }
    Some(ComparisonView {
        status: c.status.as_str(),
        reason: b.reason.clone(),
        baseline,
        rows: format!(
            "{} rows matched by id, {} new, {} removed",
            c.rows.matched, c.rows.new, c.rows.removed
        ),
        regressed: c
            .regressed_rows
            .iter()
            .map(|r| {
                [
                    r.evaluator.clone(),
                    r.id.clone(),
                    text::cell(r.baseline),
                    text::cell(r.current),
                    text::change(r.change),
                ]
            })
            .collect(),
        fields: c
            .fields
            .iter()
            .filter(|f| f.change.is_none_or(|x| x.abs() > 1e-9))
            .map(|f| {
                [
                    f.evaluator.clone(),
                    f.path.clone(),
                    f.baseline_accuracy.map_or_else(|| String::from("—"), percent),
                    f.current_accuracy.map_or_else(|| String::from("—"), percent),
                    text::points(f.change),
                ]
            })
            .collect(),
    })
}

#[derive(Serialize)]
struct FieldView {
    evaluator: String,
    path: String,
    accuracy: f64,
    accuracy_text: String,
    total: u64,
    matched: u64,
    wrong: u64,
    partial: u64,
    missing: u64,
    extra: u64,
    examples: Vec<String>,
}

#[derive(Serialize)]
struct GateCheckView {
    name: String,
    rule: String,
    actual: String,
    passed: bool,
}

fn gate_view(s: &RunSummary) -> Vec<GateCheckView> {
    s.gate
        .checks
        .iter()
        .map(|c| GateCheckView {
            name: c.name.clone(),
            rule: gate_required(c),
            actual: gate_actual(c),
            passed: c.passed,
        })
        .collect()
}

/// The template's output of a value: HTML-escaped (the default), and a
/// string from the data with its hidden characters (control characters,
/// bidirectional controls) shown as escapes ([`text::visible`]), as the
/// other reports and the console show them. Strings marked safe (the style,
/// the script, the data, the histograms) are written as they are.
fn visible_formatter(
    out: &mut minijinja::Output,
    state: &mut minijinja::State,
    value: &Tpl,
) -> Result<(), minijinja::Error> {
    match value.as_str() {
        Some(s) if !value.is_safe() => {
            minijinja::escape_formatter(out, state, &Tpl::from(text::visible(s).as_ref()))
        }
        _ => minijinja::escape_formatter(out, state, value),
    }
}

/// What a failed row carries beyond its line: its failed checks per
/// evaluator, errors, and output and reference when embedded.
fn row_extra(row: &RowResult, names: &[&str], sides: Option<&Sides>) -> Value {
    let mut evs = serde_json::Map::new();
    for name in names {
        let (mut details, mut more) = failed_details(row, name);
        if details.len() > CHECKS_PER_EVALUATOR {
            more += (details.len() - CHECKS_PER_EVALUATOR) as u64;
            details.truncate(CHECKS_PER_EVALUATOR);
        }
        let error = row.execution.get(*name).and_then(|x| x.error.clone());
        if details.is_empty() && error.is_none() {
            continue;
        }
        let d: Vec<Value> = details
            .iter()
            .map(|d| {
                let check = d.check.to_string();
                let check = check.strip_prefix(crate::detail::PATH_PREFIX).unwrap_or(&check);
                json!([check, d.outcome.as_str(), d.expected, d.actual, d.message])
            })
            .collect();
        evs.insert((*name).to_owned(), json!({"d": d, "m": more, "x": error}));
    }
    let mut out = json!({"ev": evs});
    if let Some(e) = &row.error {
        out["e"] = json!(e);
    }
    if let Some((o, r)) = sides.and_then(|s| s.rows.get(&row.row)) {
        out["o"] = o.clone();
        out["r"] = r.clone();
    }
    out
}

/// A score rounded to 4 decimals: enough for a table, and short.
fn round(x: f64) -> f64 {
    let r = (x * 10_000.0).round() / 10_000.0;
    if r.is_finite() { r } else { x }
}

/// Compact JSON made safe inside a `<script>` element: `<` written as
/// `\u003c`, so no `</script>` or `<!--` appears, and the hidden characters
/// `serde_json` leaves as they are (DEL, C1 controls, bidirectional
/// controls, U+FFFE, U+FFFF) as `\uXXXX` too, so the page holds none raw.
/// In compact JSON both only ever appear inside a string, where the escape
/// means the same character.
fn script_safe(json: &str) -> String {
    let mut out = String::with_capacity(json.len() + 64);
    for c in json.chars() {
        if c == '<' || text::hidden(c) {
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        } else {
            out.push(c);
        }
    }
    out
}
