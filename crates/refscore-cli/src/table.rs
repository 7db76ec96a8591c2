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

/// A cell as the terminal is shown it: control characters (an escape
/// sequence in a row id, a newline in a key) written as escapes, never
/// sent raw.
fn printable(cell: &str) -> std::borrow::Cow<'_, str> {
    if cell.chars().any(char::is_control) {
        cell.chars()
            .map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() })
            .collect::<String>()
            .into()
    } else {
        cell.into()
    }
}

/// Rows as aligned columns (cells cut at 60 characters), the first dim.
/// Control characters in cells are shown escaped.
pub(crate) fn table(out: &mut impl Write, rows: &[Vec<String>], p: Palette) -> std::io::Result<()> {
    let rows: Vec<Vec<String>> =
        rows.iter().map(|r| r.iter().map(|c| printable(c).into_owned()).collect()).collect();
    let rows = rows.as_slice();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_shown_escaped() {
        let rows = vec![
            vec!["ID".to_owned(), "EXAMPLE ROWS".to_owned()],
            vec!["a\u{1b}[31mred".to_owned(), "x\ny\u{7}".to_owned()],
        ];
        let mut out = Vec::new();
        table(&mut out, &rows, Palette::plain()).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(!text.chars().any(|c| c.is_control() && c != '\n'), "{text:?}");
        assert_eq!(text.lines().count(), 2, "{text:?}");
        assert!(text.contains("a\\u{1b}[31mred") && text.contains("x\\ny\\u{7}"), "{text:?}");
    }
}
