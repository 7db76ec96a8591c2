//! Console tables and numbers, sized for a terminal.

use std::io::Write;

use unicode_width::UnicodeWidthStr;

use crate::color::Palette;

/// An optional number, or an em dash.
pub(crate) fn num(v: Option<f64>) -> String {
    v.map_or_else(|| String::from("—"), fmt)
}

/// A number: whole numbers without decimals, others with three; from
/// 10^15 on in scientific notation, four digits (`1.000e308`, not 309
/// digits).
pub(crate) fn fmt(v: f64) -> String {
    if v.abs() >= 1e15 {
        format!("{v:.3e}")
    } else if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.3}")
    }
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

/// Rows as aligned columns (cells cut at 60 columns of the terminal), the
/// first dim. Cells are measured in columns shown (a CJK character or an
/// emoji takes two, a combining mark none). Control characters in cells
/// are shown escaped.
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
    let raw = rows;
    let rows: Vec<Vec<String>> =
        rows.iter().map(|r| r.iter().map(|c| printable(c).into_owned()).collect()).collect();
    let rows = rows.as_slice();
    let cols = rows.first().map_or(0, Vec::len);
    let mut width = vec![0usize; cols];
    for r in rows {
        for (w, c) in width.iter_mut().zip(r) {
            *w = (*w).max(c.width()).min(60);
        }
    }
    for (i, r) in rows.iter().enumerate() {
        let mut line = String::new();
        for (j, (c, w)) in r.iter().zip(&width).enumerate() {
            let c = if c.width() > *w { cut(&raw[i][j], *w) } else { c.clone() };
            let pad = w.saturating_sub(c.width()) + 2;
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

/// `cell` (as given, not yet escaped) shown escaped and cut to `columns`
/// columns, its last one an ellipsis: an escape (`\u{202e}`) is kept whole
/// or left out, never cut in the middle.
fn cut(cell: &str, columns: usize) -> String {
    let mut out = String::new();
    let mut used = 0;
    let mut buf = [0u8; 4];
    for ch in cell.chars() {
        let shown = printable(ch.encode_utf8(&mut buf));
        let w = shown.width();
        if used + w + 1 > columns {
            break;
        }
        used += w;
        out.push_str(&shown);
    }
    out.push('…');
    out
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

    /// A cut cell keeps an escape whole or leaves it out.
    #[test]
    fn a_cut_never_splits_an_escape() {
        for pad in 50..60 {
            let cell = format!("{}\u{202e}tail and more text to cut", "a".repeat(pad));
            let rows = vec![vec!["X".to_owned()], vec![cell]];
            let mut out = Vec::new();
            table(&mut out, &rows, Palette::plain()).unwrap();
            let text = String::from_utf8(out).unwrap();
            let line = text.lines().nth(1).unwrap().trim();
            assert!(line.ends_with('…'), "{line}");
            let kept = line.trim_end_matches('…').trim_start_matches('a');
            assert!(kept.is_empty() || kept.starts_with("\\u{202e}"), "{pad}: {line}");
            assert!(!kept.contains("\\u{") || kept.contains("\\u{202e}"), "{pad}: {line}");
            assert!(line.width() <= 60, "{line}");
        }
    }

    #[test]
    fn numbers_stay_short() {
        assert_eq!(fmt(1e308), "1.000e308");
        assert_eq!(fmt(-2.5e20), "-2.500e20");
        assert_eq!(fmt(1e-7), "0.000");
        assert_eq!(fmt(0.0), "0");
        assert_eq!(fmt(12.0), "12");
        assert_eq!(fmt(0.8571), "0.857");
        assert_eq!(fmt(123_456.0), "123456");
    }

    /// Wide characters take two columns: the next column starts at the
    /// same place on every line, and a cut cell fits its column.
    #[test]
    fn wide_characters_are_measured_in_columns() {
        let long = "名".repeat(40);
        let rows = vec![
            vec!["PATH".to_owned(), "ACCURACY".to_owned()],
            vec!["$.名前".to_owned(), "0.0%".to_owned()],
            vec!["$.name".to_owned(), "50.0%".to_owned()],
            vec![long, "1".to_owned()],
        ];
        let mut out = Vec::new();
        table(&mut out, &rows, Palette::plain()).unwrap();
        let text = String::from_utf8(out).unwrap();
        let starts: Vec<usize> = text
            .lines()
            .map(|l| {
                let at = l.rfind("  ").unwrap() + 2;
                l[..at].width()
            })
            .collect();
        assert!(starts.iter().all(|&s| s == starts[0]), "{text}");
        assert_eq!(starts[0], 2 + 60 + 2, "{text}");
        assert!(text.lines().nth(3).unwrap().contains('…'), "{text}");
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
