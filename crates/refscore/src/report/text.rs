//! Small text helpers the report formats share: numbers, cutting, escaping.

/// A number as reports show it: integers whole, others with three decimals.
pub(crate) fn num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 { format!("{v:.0}") } else { format!("{v:.3}") }
}

/// An optional number, `—` when there is none.
pub(crate) fn opt(v: Option<f64>) -> String {
    v.map_or_else(|| String::from("—"), num)
}

/// A share as a percentage with one decimal.
pub(crate) fn percent(v: f64) -> String {
    format!("{:.1}%", v * 100.0)
}

/// `text` cut to `max` characters, ending with `…` when cut.
pub(crate) fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_owned(),
        Some((i, _)) => format!("{}…", &text[..i]),
    }
}

/// Text for a Markdown table cell or summary line: HTML-escaped (GitHub
/// renders inline HTML), pipes escaped, line breaks and tabs as spaces,
/// other control characters written as Rust escapes (`\u{1b}`), as the
/// console shows them, so that an escape sequence in the data shows whole
/// rather than as a stray `[31m`; cut to `max` characters (before
/// escaping).
pub(crate) fn md_cell(text: &str, max: usize) -> String {
    let cut = cut(text, max);
    let mut out = String::with_capacity(cut.len() + 8);
    for c in cut.chars() {
        match c {
            '|' => out.push_str("\\|"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '`' => out.push_str("&#96;"),
            '\n' | '\r' | '\t' => out.push(' '),
            c if c.is_control() => out.extend(c.escape_default()),
            c => out.push(c),
        }
    }
    out
}

/// The arrow of a change: `↑`, `↓` or `→` (no change).
pub(crate) fn arrow(change: Option<f64>) -> &'static str {
    match change {
        Some(c) if c > 1e-9 => "↑",
        Some(c) if c < -1e-9 => "↓",
        Some(_) => "→",
        None => "",
    }
}

/// A change with its sign and arrow: `↑ +0.012`, `—` when there is none.
pub(crate) fn change(c: Option<f64>) -> String {
    match c {
        Some(x) => format!("{} {}{}", arrow(c), if x > 0.0 { "+" } else { "" }, num(x)),
        None => String::from("—"),
    }
}

/// A regression status with its mark: `✅ clean`, `⚠️ warning`, ...
pub(crate) fn status(s: crate::history::RegressionStatus) -> String {
    use crate::history::RegressionStatus as S;
    let mark = match s {
        S::Clean => "✅",
        S::Warning => "⚠️",
        S::Critical => "🔴",
        S::New => "🆕",
    };
    format!("{mark} {}", s.as_str())
}

/// A row's outcome in a comparison: its score, `label`, `invalid` or
/// `failed`.
pub(crate) fn cell(c: crate::history::Cell) -> String {
    match c {
        crate::history::Cell::Score(x) => num(x),
        crate::history::Cell::Label => String::from("label"),
        crate::history::Cell::Invalid => String::from("invalid"),
        crate::history::Cell::Failed => String::from("failed"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_are_escaped_and_cut() {
        assert_eq!(md_cell("a|b<c>\nd", 20), "a\\|b&lt;c&gt; d");
        assert_eq!(md_cell("abcdef", 3), "abc…");
        assert_eq!(md_cell("\u{1b}[31mRED\u{7}\u{9b}", 20), "\\u{1b}[31mRED\\u{7}\\u{9b}");
        assert_eq!(num(2.0), "2");
        assert_eq!(num(0.91666), "0.917");
        assert_eq!(opt(None), "—");
        assert_eq!(percent(0.8125), "81.2%");
        assert_eq!(change(Some(0.0125)), "↑ +0.013");
        assert_eq!(change(Some(-2.0)), "↓ -2");
        assert_eq!(change(Some(0.0)), "→ 0");
        assert_eq!(change(None), "—");
    }
}
