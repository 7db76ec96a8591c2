//! The comparison with the baseline on the console: which baseline and
//! why, each evaluator's status, the rows and fields that moved most.

use std::io::Write;

use refscore::history::{Cell, Comparison, RegressionStatus, evaluator_gone};

use crate::color::Palette;
use crate::table::{fmt, num, painted, printable, table};

/// Rows listed as most regressed.
const ROWS_SHOWN: usize = 10;
/// Fields listed as moved most.
const FIELDS_SHOWN: usize = 10;

/// A status word in its color.
pub(crate) fn status(s: RegressionStatus, p: Palette) -> String {
    paint_status(p, s.as_str())
}

/// A status word (`new`, `clean`, `warning`, `critical`) in its color;
/// other text as it is.
fn paint_status(p: Palette, word: &str) -> String {
    match word {
        "new" => p.dim(word),
        "clean" => p.green(word),
        "warning" => p.yellow(word),
        "critical" => p.red(word),
        _ => word.to_owned(),
    }
}

fn cell(c: Cell) -> String {
    match c {
        Cell::Score(x) => fmt(x),
        Cell::Label => "label".to_owned(),
        Cell::Invalid => "invalid".to_owned(),
        Cell::Failed => "failed".to_owned(),
    }
}

fn signed(x: Option<f64>) -> String {
    x.map_or_else(|| "—".to_owned(), |x| if x > 0.0 { format!("+{}", fmt(x)) } else { fmt(x) })
}

/// Writes the comparison section.
pub(crate) fn comparison(out: &mut impl Write, c: &Comparison, p: Palette) -> std::io::Result<()> {
    writeln!(out)?;
    let Some(base) = &c.baseline else {
        let why = c.evaluators.iter().find_map(|e| e.note.as_deref());
        writeln!(
            out,
            "{} {}: {}",
            p.bold("Baseline"),
            status(c.status, p),
            printable(why.unwrap_or("no baseline run to compare with yet"))
        )?;
        return Ok(());
    };
    let what = match (&base.run_id, &base.folder) {
        (_, Some(f)) => format!("folder {}", printable(f)),
        (Some(id), None) => format!("run {id}"),
        (None, None) => "a previous run".to_owned(),
    };
    writeln!(
        out,
        "{} {what} ({}): {}; {} rows matched, {} new, {} removed",
        p.bold("Baseline"),
        printable(&base.reason),
        status(c.status, p),
        c.rows.matched,
        c.rows.new,
        c.rows.removed
    )?;
    let mut rows = vec![
        [
            "EVALUATOR",
            "BASELINE",
            "NOW",
            "CHANGE",
            "REL",
            "STATUS",
            "IMPROVED",
            "REGRESSED",
            "95% CI",
            "P",
        ]
        .map(String::from)
        .to_vec(),
    ];
    for e in &c.evaluators {
        let (ci, pv) = e.test.map_or_else(
            || ("—".to_owned(), "—".to_owned()),
            |t| (format!("[{}, {}]", fmt(t.ci_low), fmt(t.ci_high)), format!("{:.3}", t.p_value)),
        );
        rows.push(vec![
            e.name.clone(),
            num(e.baseline_mean),
            num(e.current_mean),
            signed(e.change),
            e.relative_change.map_or_else(|| "—".to_owned(), |r| format!("{:+.1}%", r * 100.0)),
            e.status.as_str().to_owned(),
            e.improved.to_string(),
            e.regressed.to_string(),
            ci,
            pv,
        ]);
    }
    painted(out, &rows, p, &[(5, paint_status)])?;
    for e in c.evaluators.iter().filter(|e| e.note.is_some()) {
        let note = e.note.as_deref().unwrap_or_default();
        writeln!(out, "  {}: {}", printable(&e.name), printable(note))?;
    }
    for name in &c.evaluators_gone {
        writeln!(out, "  {} {}", p.yellow("note:"), printable(&evaluator_gone(name)))?;
    }
    if !c.regressed_rows.is_empty() {
        writeln!(out)?;
        writeln!(out, "{}", p.bold("Most regressed rows"))?;
        let mut rows =
            vec![["EVALUATOR", "ROW", "BASELINE", "NOW", "CHANGE"].map(String::from).to_vec()];
        for r in c.regressed_rows.iter().take(ROWS_SHOWN) {
            rows.push(vec![
                r.evaluator.clone(),
                r.id.clone(),
                cell(r.baseline),
                cell(r.current),
                signed(r.change),
            ]);
        }
        table(out, &rows, p)?;
        if c.regressed_rows.len() > ROWS_SHOWN {
            writeln!(
                out,
                "  + {} more listed in summary.json's comparison",
                c.regressed_rows.len() - ROWS_SHOWN
            )?;
        }
    }
    let moved: Vec<_> =
        c.fields.iter().filter(|f| f.change.is_some_and(|x| x < 0.0)).take(FIELDS_SHOWN).collect();
    if !moved.is_empty() {
        writeln!(out)?;
        writeln!(out, "{}", p.bold("Fields whose accuracy dropped"))?;
        let mut rows =
            vec![["EVALUATOR", "PATH", "BEFORE", "NOW", "CHANGE"].map(String::from).to_vec()];
        let pct =
            |x: Option<f64>| x.map_or_else(|| "—".to_owned(), |x| format!("{:.1}%", x * 100.0));
        for f in moved {
            rows.push(vec![
                f.evaluator.clone(),
                f.path.clone(),
                pct(f.baseline_accuracy),
                pct(f.current_accuracy),
                f.change.map_or_else(|| "—".to_owned(), |x| format!("{:+.1} pts", x * 100.0)),
            ]);
        }
        table(out, &rows, p)?;
    }
    Ok(())
}
