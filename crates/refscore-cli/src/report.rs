//! The console summary of a run: evaluators, the fields that fail most,
//! and the gate.

use std::io::Write;

use refscore::summary::RunSummary;
use refscore::{Direction, Suite};

use crate::color::Palette;
use crate::table::{fmt, num, printable, table};

/// Fields listed per evaluator in the console (all are in summary.json).
const FIELDS_SHOWN: usize = 12;

pub(crate) fn summary(
    out: &mut impl Write,
    s: &RunSummary,
    suite: &Suite,
    p: Palette,
) -> std::io::Result<()> {
    #[allow(clippy::cast_precision_loss)]
    let rate = if s.duration_s > 0.0 { s.rows as f64 / s.duration_s } else { 0.0 };
    let name = suite.name.clone().unwrap_or_else(|| suite.path.display().to_string());
    writeln!(
        out,
        "{}  {} in {:.2}s ({rate:.0} rows/s); {} unreadable, {} with a failed evaluation{}",
        p.bold(&printable(&name)),
        refscore::text::counted(s.rows, "row", "rows"),
        s.duration_s,
        s.rows_unreadable,
        s.rows_with_failures,
        if s.cancelled { p.yellow("; cancelled") } else { String::new() }
    )?;
    writeln!(out)?;
    let head = [
        "EVALUATOR",
        "METRIC",
        "SCORED",
        "MEAN",
        "MEDIAN",
        "MIN",
        "PASS RATE",
        "THRESHOLD",
        "INVALID",
        "FAILED",
    ];
    let mut rows = vec![head.map(String::from).to_vec()];
    for e in &s.evaluators {
        let op = if e.direction == Direction::Minimize { "≤" } else { "≥" };
        rows.push(vec![
            e.name.clone(),
            e.metric.clone(),
            // Rows judged: a number, or a label without one.
            (e.count + e.labelled).to_string(),
            num(e.mean),
            num(e.median),
            num(e.min),
            e.pass_rate.map_or_else(|| String::from("—"), |r| format!("{:.1}%", r * 100.0)),
            e.threshold.map_or_else(|| String::from("—"), |t| format!("{op} {}", fmt(t))),
            e.invalid.to_string(),
            e.failed.to_string(),
        ]);
    }
    table(out, &rows, p)?;
    if let Some(r) = &s.row_score {
        writeln!(
            out,
            "  row score (weighted average of the similarity evaluators): mean {}, median {}, min {} over {} rows",
            fmt(r.mean),
            fmt(r.median),
            fmt(r.min),
            r.count
        )?;
    }

    let mut evaluators: Vec<&str> = s.fields.iter().map(|f| f.evaluator.as_str()).collect();
    evaluators.dedup();
    let mut seen = std::collections::BTreeSet::new();
    for ev in evaluators {
        if !seen.insert(ev) {
            continue;
        }
        // Most failures first: the fields to fix first.
        let mut fields: Vec<_> =
            s.fields.iter().filter(|f| f.evaluator == ev && f.accuracy < 1.0).collect();
        fields.sort_by_key(|f| std::cmp::Reverse(f.wrong + f.partial + f.missing + f.extra));
        fields.truncate(FIELDS_SHOWN);
        if fields.is_empty() {
            continue;
        }
        writeln!(out)?;
        writeln!(out, "{}", p.bold(&format!("Fields that fail most ({})", printable(ev))))?;
        let mut rows = vec![
            ["PATH", "ACCURACY", "SEEN", "WRONG", "PARTIAL", "MISSING", "EXTRA", "EXAMPLE ROWS"]
                .map(String::from)
                .to_vec(),
        ];
        for f in fields {
            rows.push(vec![
                f.path.clone(),
                format!("{:.1}%", f.accuracy * 100.0),
                f.total.to_string(),
                f.wrong.to_string(),
                f.partial.to_string(),
                f.missing.to_string(),
                f.extra.to_string(),
                f.examples.join(", "),
            ]);
        }
        table(out, &rows, p)?;
    }

    if !s.judges.is_empty() {
        writeln!(out)?;
        writeln!(out, "{}", p.bold("Judges"))?;
        let mut rows = vec![
            [
                "JUDGE",
                "MODEL",
                "EVALUATOR",
                "ASKED",
                "REQUESTS",
                "RETRIES",
                "FAILED",
                "CACHED",
                "TOKENS IN",
                "TOKENS OUT",
                "P50 MS",
                "P95 MS",
                "COST",
            ]
            .map(String::from)
            .to_vec(),
        ];
        for j in &s.judges {
            rows.push(vec![
                j.judge.clone(),
                j.model.clone(),
                j.evaluator.clone(),
                j.evaluations.to_string(),
                j.requests.to_string(),
                j.retries.to_string(),
                j.failures.to_string(),
                j.cache_hits.to_string(),
                j.prompt_tokens.to_string(),
                j.completion_tokens.to_string(),
                num(j.latency_p50_ms),
                num(j.latency_p95_ms),
                j.cost.map_or_else(|| String::from("—"), |c| format!("{c:.4}")),
            ]);
        }
        table(out, &rows, p)?;
        // Settings a server refused, once per judge.
        let mut told = std::collections::BTreeSet::new();
        for j in &s.judges {
            for a in j.adapted.iter().filter(|a| told.insert((&j.judge, *a))) {
                writeln!(out, "  judge `{}`: {}", printable(&j.judge), printable(a))?;
            }
        }
    }

    if let Some(c) = &s.comparison {
        crate::regression::comparison(out, c, p)?;
    }

    writeln!(out)?;
    let verdict = if s.gate.passed { p.green("PASSED") } else { p.red("FAILED") };
    writeln!(out, "{} {verdict}", p.bold("Gate"))?;
    for c in &s.gate.checks {
        let mark = if c.passed { p.green("✓") } else { p.red("✗") };
        if let Some(st) = c.status {
            let status = crate::regression::status(st, p);
            writeln!(out, "  {mark} {}: {status}", printable(&c.name))?;
            continue;
        }
        let actual = c.actual.map_or_else(|| String::from("none"), fmt);
        let name = printable(&c.name);
        writeln!(out, "  {mark} {name} {} {} (actual {actual})", c.op, fmt(c.required))?;
    }
    Ok(())
}
