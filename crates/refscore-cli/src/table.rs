//! Console tables and numbers, sized for a terminal.

use std::io::Write;

use crate::color::Palette;

/// An optional number, or an em dash.
pub(crate) fn num(v: Option<f64>) -> String {
    v.map_or_else(|| String::from("—"), fmt)
}

/// A number: whole numbers without decimals, others with three.
pub(crate) fn fmt(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 { format!("{v:.0}") } else { format!("{v:.3}") }
}

/// Rows as aligned columns (cells cut at 60 characters), the first dim.
pub(crate) fn table(out: &mut impl Write, rows: &[Vec<String>], p: Palette) -> std::io::Result<()> {
    let cols = rows.first().map_or(0, Vec::len);
    let mut width = vec![0usize; cols];
    for r in rows {
        for (w, c) in width.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count()).min(60);
        }
    }
    for (i, r) in rows.iter().enumerate() {
        let mut line = String::new();
        for (j, (c, w)) in r.iter().zip(&width).enumerate() {
            let c: String = if c.chars().count() > *w {
                c.chars().take(w - 1).chain(['…']).collect()
            } else {
                c.clone()
            };
            line.push_str(&c);
            if j + 1 < r.len() {
                line.push_str(&" ".repeat(w - c.chars().count() + 2));
            }
        }
        writeln!(out, "  {}", if i == 0 { p.dim(&line) } else { line })?;
    }
    Ok(())
}
