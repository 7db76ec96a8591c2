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

/// Text as the terminal is shown it: control characters (an escape
/// sequence in a row id or a suite name, a newline in a tag) and the
/// bidirectional controls that reorder text written as escapes
/// (`\u{1b}`, `\n`, `\u{202e}`), never sent raw, as the reports show them
/// ([`refscore::report::visible`]). Every text from the user or the data
/// that the console prints goes through this.
pub(crate) fn printable(cell: &str) -> std::borrow::Cow<'_, str> {
    refscore::report::visible(cell)
}

/// A path as the console shows it: control and bidirectional characters
/// escaped, as in every other text the console prints.
pub(crate) fn printable_path(path: &std::path::Path) -> String {
    printable(&path.display().to_string()).into_owned()
}

/// Colours a cell's text (already escaped and cut) for the console.
pub(crate) type Paint = fn(Palette, &str) -> String;

/// Rows as aligned columns (cells cut at 60 characters), the first dim.
/// Control characters in cells are shown escaped.
pub(crate) fn table(out: &mut impl Write, rows: &[Vec<String>], p: Palette) -> std::io::Result<()> {
    painted(out, rows, p, &[])
}

/// [`table`], with the cells of some columns (below the header) coloured:
/// `(column, paint)`. Colours are applied after the text is escaped, cut
/// and measured, so they neither show as escapes nor shift the columns.
pub(crate) fn painted(
    out: &mut impl Write,
    rows: &[Vec<String>],
    p: Palette,
    paints: &[(usize, Paint)],
) -> std::io::Result<()> {
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
            let pad = w.saturating_sub(c.chars().count()) + 2;
            match paints.iter().find(|(col, _)| *col == j).filter(|_| i > 0) {
                Some((_, paint)) => line.push_str(&paint(p, &c)),
                None => line.push_str(&c),
            }
            if j + 1 < r.len() {
                line.push_str(&" ".repeat(pad));
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
        // A right-to-left override would make an id read as another: shown
        // as its escape, as in the reports.
        assert_eq!(printable("user\u{202e}gnp.exe"), "user\\u{202e}gnp.exe");
    }

    #[test]
    fn painted_cells_are_coloured_after_escaping_and_stay_aligned() {
        let rows = vec![
            vec!["GATE".to_owned(), "ID".to_owned()],
            vec!["passed".to_owned(), "a".to_owned()],
            vec!["\u{1b}[31mx".to_owned(), "b".to_owned()],
        ];
        let paint: Paint = |p, t| if t == "passed" { p.green(t) } else { t.to_owned() };
        let mut out = Vec::new();
        painted(&mut out, &rows, Palette::colored(), &[(0, paint)]).unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[1], "  \u{1b}[32mpassed\u{1b}[0m       a", "{text:?}");
        assert_eq!(lines[2], "  \\u{1b}[31mx  b", "{text:?}");
    }
}
