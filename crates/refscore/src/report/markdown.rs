//! The Markdown report, for pull requests and GitHub's step summary: the
//! gate's verdict first, then the evaluators, the fields that fail most and
//! the failed rows, each evaluator's failed checks in a collapsible block.
//!
//! The report never exceeds [`Options::max_bytes`]: sections that do not
//! fit are left out with a note saying so.

use std::fmt::Write as _;
use std::io::Write;

use super::text::{
    cell, change, cut, gate_actual, gate_required, md_code, md_text, num, opt, percent, points,
    status,
};
use super::{EvalStatus, Options, ReportError, RowIter, RowStatus, failed_details, main_score};
use crate::runner::RowResult;
use crate::score::Direction;
use crate::summary::{EvaluatorSummary, RunSummary};

/// Fields listed in the per-field table.
const FIELDS_SHOWN: usize = 25;

/// Characters kept of an identifier, an error message or a detail's reason.
const ID_CHARS: usize = 120;
const MESSAGE_CHARS: usize = 300;

/// Bytes kept free for the note that says the report was cut.
const NOTE_ROOM: usize = 512;

/// Renders the Markdown report of a run into `out`.
///
/// # Errors
/// A row cannot be read back, or writing fails.
pub fn render(
    summary: &RunSummary,
    rows: &mut RowIter<'_>,
    opts: &Options,
    out: &mut dyn Write,
) -> Result<(), ReportError> {
    let text = to_string(summary, rows, opts)?;
    out.write_all(text.as_bytes())?;
    Ok(())
}

/// The Markdown report of a run as a string of at most `opts.max_bytes`.
///
/// # Errors
/// A row cannot be read back.
pub fn to_string(
    summary: &RunSummary,
    rows: &mut RowIter<'_>,
    opts: &Options,
) -> Result<String, ReportError> {
    let mut failed: Vec<RowResult> = Vec::new();
    let mut failed_total = 0u64;
    for row in rows {
        let row = row?;
        if RowStatus::of(&row) != RowStatus::Passed {
            failed_total += 1;
            if failed.len() < opts.max_rows {
                failed.push(row);
            }
        }
    }
    let mut doc = Doc {
        text: String::new(),
        budget: opts.max_bytes.max(NOTE_ROOM * 2),
        cut: false,
        rows_shown: None,
    };
    doc.push(&header(summary));
    doc.push(&gate(summary));
    doc.push(&evaluators(summary));
    doc.push(&comparison(summary));
    doc.push(&fields(summary));
    if failed_total > 0 {
        doc.push(&format!(
            "\n## Failed rows\n\n{failed_total} of {} rows missed a threshold or had an error{}.\n",
            summary.rows,
            if failed_total > failed.len() as u64 {
                format!("; the first {} are shown", failed.len())
            } else {
                String::new()
            }
        ));
        for (shown, row) in failed.iter().enumerate() {
            if !doc.push(&failed_row(summary, row)) {
                doc.rows_shown = Some((shown, failed_total));
                break;
            }
        }
        let more = failed_total - failed.len() as u64;
        if more > 0 {
            doc.push(&format!("\n+ {more} more failed rows (all are in `results.jsonl`).\n"));
        }
    }
    Ok(doc.finish())
}

/// The report being built, within its byte budget.
struct Doc {
    text: String,
    budget: usize,
    cut: bool,
    /// When the cut came among the failed rows: how many were shown, of
    /// how many.
    rows_shown: Option<(usize, u64)>,
}

impl Doc {
    /// Appends a block if it fits (leaving room for the note); returns
    /// whether it did. Once a block is left out, nothing more is added.
    fn push(&mut self, block: &str) -> bool {
        if self.cut || self.text.len() + block.len() + NOTE_ROOM > self.budget {
            self.cut = true;
            return false;
        }
        self.text.push_str(block);
        true
    }

    fn finish(mut self) -> String {
        if self.cut {
            let at = match self.rows_shown {
                Some((shown, total)) => format!(" after {shown} of the {total} failed rows"),
                None => String::new(),
            };
            let _ = write!(
                self.text,
                "\n> **Report cut**{at} to stay under the size limit of a step summary; \
                 the full results are in `results.jsonl` (and in `report.html`, which \
                 `--report html` writes).\n"
            );
        }
        self.text
    }
}

fn header(s: &RunSummary) -> String {
    let mut h = format!("# refscore: {}\n\n", md_text(super::title(s), ID_CHARS));
    let verdict = if s.gate.passed { "✅ **Gate passed**" } else { "❌ **Gate failed**" };
    let _ = writeln!(h, "{verdict}\n");
    let mut facts = vec![format!(
        "{} ({} unreadable, {} with a failed evaluation) in {:.2} s",
        crate::text::counted(s.rows, "row", "rows"),
        s.rows_unreadable,
        s.rows_with_failures,
        s.duration_s
    )];
    if s.cancelled {
        facts.push(String::from("**cancelled**"));
    }
    if !s.repeated_ids.is_empty() {
        let ids: Vec<String> =
            s.repeated_ids.examples.iter().map(|id| md_code(id, ID_CHARS, false)).collect();
        facts.push(format!(
            "**{}** ({})",
            super::repeated_ids_said(s.repeated_ids.rows),
            ids.join(", ")
        ));
    }
    for (label, value) in super::run_facts(s) {
        facts.push(format!("{label} {}", md_code(&value, 200, false)));
    }
    let _ = writeln!(h, "{}", facts.join(" · "));
    h
}

fn gate(s: &RunSummary) -> String {
    let mut g = String::from("\n| Gate check | Required | Actual | |\n|---|---|---|---|\n");
    for c in &s.gate.checks {
        let _ = writeln!(
            g,
            "| {} | {} | {} | {} |",
            md_code(&c.name, ID_CHARS, true),
            gate_required(c),
            gate_actual(c),
            if c.passed { "✅" } else { "❌" }
        );
    }
    g
}

/// Rows that did not pass an evaluator: missed its threshold, or it failed
/// or gave no number.
fn failures(e: &EvaluatorSummary, rows: u64) -> u64 {
    match e.passed {
        Some(p) => rows.saturating_sub(p),
        None => e.failed + e.invalid,
    }
}

fn evaluators(s: &RunSummary) -> String {
    // Against the baseline, when there is one: its mean, the change and the status.
    let against = s.comparison.as_ref().filter(|c| c.baseline.is_some());
    let mut t = String::from(
        "\n## Evaluators\n\n| Evaluator | Metric | Mean | Median | Pass rate | Threshold | Failures |",
    );
    t.push_str(if against.is_some() {
        " Baseline | Change | Status |\n|---|---|---|---|---|---|---|---|---|---|\n"
    } else {
        "\n|---|---|---|---|---|---|---|\n"
    });
    for e in &s.evaluators {
        let op = if e.direction == Direction::Minimize { "≤" } else { "≥" };
        let _ = write!(
            t,
            "| {} | {} | {} | {} | {} | {} | {} |",
            md_code(&e.name, ID_CHARS, true),
            md_code(&e.metric, ID_CHARS, true),
            opt(e.mean),
            opt(e.median),
            e.pass_rate.map_or_else(|| String::from("—"), percent),
            e.threshold.map_or_else(|| String::from("—"), |x| format!("{op} {}", num(x))),
            failures(e, s.rows),
        );
        if let Some(c) = against {
            match c.evaluators.iter().find(|x| x.name == e.name) {
                Some(x) => {
                    let _ = write!(
                        t,
                        " {} | {} | {} |",
                        opt(x.baseline_mean),
                        change(x.change),
                        status(x.status)
                    );
                }
                None => t.push_str(" — | — | 🆕 new |"),
            }
        }
        t.push('\n');
    }
    if let Some(r) = &s.row_score {
        let _ = writeln!(
            t,
            "\nRow score (weighted average of the similarity evaluators): mean {}, median {}, min {} over {} rows.",
            num(r.mean),
            num(r.median),
            num(r.min),
            r.count
        );
    }
    t
}

/// Rows and fields listed in the regression section.
const REGRESSED_SHOWN: usize = 30;

/// The regression section: the baseline, the rows that regressed most and
/// the fields whose accuracy dropped. Empty without a comparison.
fn comparison(s: &RunSummary) -> String {
    let Some(c) = &s.comparison else { return String::new() };
    let Some(b) = &c.baseline else {
        return String::from("\nNo baseline run to compare with: every evaluator is new.\n");
    };
    let mut t = format!("\n## Against the baseline: {}\n\n", status(c.status));
    let mut from = Vec::new();
    if let Some(id) = b.run_id {
        from.push(format!("run {id}"));
    }
    if let Some(f) = &b.folder {
        from.push(format!("folder {}", md_code(f, 200, false)));
    }
    if let Some(g) = &b.git_commit {
        from.push(format!(
            "commit {}",
            md_code(&g.chars().take(12).collect::<String>(), 12, false)
        ));
    }
    if let Some(at) = &b.started_at {
        from.push(format!("started {}", md_code(at, 40, false)));
    }
    let _ = writeln!(
        t,
        "Baseline: {} ({}: {}). Rows matched by id: {}, new: {}, removed: {}.",
        if from.is_empty() { String::from("—") } else { from.join(", ") },
        md_text(&b.chosen_by, 40),
        md_text(&b.reason, MESSAGE_CHARS),
        c.rows.matched,
        c.rows.new,
        c.rows.removed
    );
    if super::suite_changed(s) {
        let _ = writeln!(t, "\n**Note:** {}.", crate::history::SUITE_CHANGED);
    }
    for name in &c.evaluators_gone {
        let gone = crate::history::evaluator_gone(name);
        let _ = writeln!(t, "\n**Note:** {}.", md_text(&gone, MESSAGE_CHARS));
    }
    for e in c.evaluators.iter().filter(|e| e.note.is_some()) {
        let _ = writeln!(
            t,
            "\n- **{}**: {}",
            md_text(&e.name, ID_CHARS),
            md_text(e.note.as_deref().unwrap_or(""), MESSAGE_CHARS)
        );
    }
    if !c.regressed_rows.is_empty() {
        t.push_str("\n### Regressed rows\n\n| Evaluator | Row | Baseline | Now | Change |\n|---|---|---|---|---|\n");
        for r in c.regressed_rows.iter().take(REGRESSED_SHOWN) {
            let _ = writeln!(
                t,
                "| {} | {} | {} | {} | {} |",
                md_code(&r.evaluator, ID_CHARS, true),
                md_code(&r.id, ID_CHARS, true),
                cell(r.baseline),
                cell(r.current),
                change(r.change)
            );
        }
        if c.regressed_rows.len() > REGRESSED_SHOWN {
            let _ = writeln!(t, "\n+ {} more", c.regressed_rows.len() - REGRESSED_SHOWN);
        }
    }
    let dropped: Vec<_> = c.fields.iter().filter(|f| f.change.is_some_and(|x| x < 0.0)).collect();
    if !dropped.is_empty() {
        t.push_str("\n### Fields that got worse\n\n| Evaluator | Path | Baseline | Now | Change |\n|---|---|---|---|---|\n");
        for f in dropped.iter().take(REGRESSED_SHOWN) {
            let _ = writeln!(
                t,
                "| {} | {} | {} | {} | {} |",
                md_code(&f.evaluator, ID_CHARS, true),
                md_code(&f.path, 200, true),
                f.baseline_accuracy.map_or_else(|| String::from("—"), percent),
                f.current_accuracy.map_or_else(|| String::from("—"), percent),
                points(f.change)
            );
        }
    }
    t
}

fn fields(s: &RunSummary) -> String {
    let mut bad: Vec<_> = s.fields.iter().filter(|f| f.accuracy < 1.0).collect();
    // Most failures first: the fields to fix first (summary.json keeps
    // them lowest accuracy first).
    bad.sort_by_key(|f| std::cmp::Reverse(f.total - f.matched));
    if bad.is_empty() {
        return String::new();
    }
    let mut t = String::from(
        "\n## Fields that fail most\n\n| Evaluator | Path | Accuracy | Seen | Wrong | Partial | Missing | Extra | Example rows |\n|---|---|---|---|---|---|---|---|---|\n",
    );
    for f in bad.iter().take(FIELDS_SHOWN) {
        let examples: Vec<String> = f.examples.iter().map(|x| md_code(x, 40, true)).collect();
        let _ = writeln!(
            t,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            md_code(&f.evaluator, ID_CHARS, true),
            md_code(&f.path, 200, true),
            percent(f.accuracy),
            f.total,
            f.wrong,
            f.partial,
            f.missing,
            f.extra,
            examples.join(", ")
        );
    }
    if bad.len() > FIELDS_SHOWN {
        let _ = writeln!(
            t,
            "\n+ {} more fields below 100% (all are in `summary.json`).",
            bad.len() - FIELDS_SHOWN
        );
    }
    t
}

/// A value from the data in a table cell: a code span, where GitHub links
/// no `@mention` or `#123`; empty when there is none.
fn value(v: Option<&str>, max: usize) -> String {
    v.map_or_else(String::new, |v| md_code(v, max, true))
}

fn failed_row(s: &RunSummary, row: &RowResult) -> String {
    let mut b = format!("\n### {} (row {})\n\n", md_code(&row.id, ID_CHARS, false), row.row);
    if let Some(e) = &row.error {
        let _ = writeln!(b, "Unreadable: {}\n", md_text(e, MESSAGE_CHARS));
        return b;
    }
    for e in &s.evaluators {
        let status = EvalStatus::of(row, &e.name);
        if status == EvalStatus::Passed {
            continue;
        }
        if status == EvalStatus::Error {
            let why =
                row.execution.get(&e.name).and_then(|x| x.error.as_deref()).unwrap_or("failed");
            let _ = writeln!(
                b,
                "<details><summary>⚠️ {}: evaluation failed</summary>\n\nError: {}\n\n</details>\n",
                md_text(&e.name, ID_CHARS),
                md_text(why, MESSAGE_CHARS)
            );
            continue;
        }
        let (details, more) = failed_details(row, &e.name);
        let shown = details.len() as u64 + more;
        let threshold = e.threshold.map_or_else(String::new, |t| {
            let op = if e.direction == Direction::Minimize { "≤" } else { "≥" };
            format!(" (needs {op} {})", num(t))
        });
        let _ = writeln!(
            b,
            "<details><summary>❌ {}: {}{threshold}, {}</summary>\n",
            md_text(&e.name, ID_CHARS),
            opt(main_score(row, &e.name)),
            crate::text::counted(shown, "failed check", "failed checks")
        );
        if details.is_empty() {
            b.push_str("No failed checks recorded: the score alone missed the threshold.\n");
        } else {
            b.push_str("| Check | Expected | Actual | Reason |\n|---|---|---|---|\n");
            for d in details {
                let check = d.check.to_string();
                let check = check.strip_prefix(crate::detail::PATH_PREFIX).unwrap_or(&check);
                let reason = match &d.message {
                    Some(m) => cut(m, MESSAGE_CHARS),
                    None => d.outcome.as_str().replace('_', " "),
                };
                let _ = writeln!(
                    b,
                    "| {} | {} | {} | {} |",
                    md_code(check, 200, true),
                    value(d.expected.as_deref(), 100),
                    value(d.actual.as_deref(), 100),
                    md_text(&reason, MESSAGE_CHARS + 20)
                );
            }
            if more > 0 {
                let _ = writeln!(b, "\n+ {more} more");
            }
        }
        b.push_str("\n</details>\n");
    }
    b
}
