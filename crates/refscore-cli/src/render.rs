//! The readable result: score, label, and a field-by-field table.

use std::io::Write;

use refscore::{Direction, Score};

use crate::color::Palette;
use crate::table::printable;

pub(crate) fn score(out: &mut impl Write, s: &Score, p: Palette) -> std::io::Result<()> {
    let value = s.score.map_or_else(|| String::from("none"), |v| format!("{}", round(v)));
    let label = printable(s.label.as_deref().unwrap_or(""));
    let good = match (s.direction, s.score) {
        (_, None) => false,
        (Direction::Minimize, Some(v)) => v == 0.0,
        (_, Some(v)) => v >= 1.0,
    };
    let label = if good {
        p.green(&label)
    } else if s.score.is_none() {
        p.red(&label)
    } else {
        p.yellow(&label)
    };
    let dir = match s.direction {
        Direction::Minimize => " (lower is better)",
        _ => "",
    };
    let name = printable(&s.name);
    writeln!(out, "{}  score {}  {label}{}", p.bold(&name), p.bold(&value), p.dim(dir))?;
    if let Some(first) = s.explanation.as_deref().and_then(|e| e.lines().next()) {
        writeln!(out, "{}", printable(first))?;
    }
    let rows: Vec<[String; 4]> = s
        .details
        .iter()
        .map(|d| {
            let check = match &d.check {
                refscore::Check::Path(p) => p.to_string(),
                named => named.to_string(),
            };
            let verdict = match d.outcome {
                refscore::Outcome::Partial => format!("partial {:.2}", d.score.unwrap_or(0.0)),
                o => o.as_str().to_owned(),
            };
            let exp = d.expected.clone().unwrap_or_else(|| String::from("—"));
            let act = d.actual.clone().unwrap_or_else(|| String::from("—"));
            [check, verdict, exp, act].map(|c| printable(&c).into_owned())
        })
        .collect();
    if rows.is_empty() {
        return Ok(());
    }
    let head = ["PATH", "VERDICT", "EXPECTED", "ACTUAL"];
    let mut width = head.map(|h| h.chars().count());
    for r in &rows {
        for (w, c) in width.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count()).min(48);
        }
    }
    writeln!(out)?;
    writeln!(out, "  {}", p.dim(&cells(&head.map(String::from), &width)))?;
    for (r, d) in rows.iter().zip(&s.details) {
        let line = cells(r, &width);
        let line = if d.passed {
            line
        } else if d.outcome == refscore::Outcome::Partial {
            p.yellow(&line)
        } else {
            p.red(&line)
        };
        writeln!(out, "  {line}")?;
        if let Some(m) = d.message.as_deref().filter(|m| !m.is_empty() && d.check.path().is_none())
        {
            writeln!(out, "    {}", p.dim(&printable(m)))?;
        }
    }
    Ok(())
}

fn cells(r: &[String; 4], width: &[usize; 4]) -> String {
    let mut s = String::new();
    for (i, (c, w)) in r.iter().zip(width).enumerate() {
        let c = cut(c, *w);
        if i == 3 {
            s.push_str(&c);
        } else {
            let pad = w.saturating_sub(c.chars().count());
            s.push_str(&c);
            s.push_str(&" ".repeat(pad + 2));
        }
    }
    s
}

fn cut(s: &str, w: usize) -> String {
    if s.chars().count() <= w {
        s.to_owned()
    } else {
        let mut t: String = s.chars().take(w.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

fn round(v: f64) -> f64 {
    (v * 1e6).round() / 1e6
}
