//! Small text helpers the report formats share: numbers, cutting, showing
//! hidden characters, escaping for Markdown, and how a gate check reads.

use std::borrow::Cow;

use crate::summary::GateCheck;

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

/// Whether a character would not show as itself in a report: a control
/// character (C0, DEL, C1, tab and line breaks included), a bidirectional
/// control (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069: every
/// character of Unicode's `Bidi_Control` property, which reorder the
/// text around them and can make an id read as another), the line and
/// paragraph separators U+2028 and U+2029 (which editors and terminals
/// break lines at), or one of the noncharacters U+FFFE and U+FFFF.
pub(crate) fn hidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{fffe}' | '\u{ffff}')
}

/// Appends a [`hidden`] character as the console shows it: a Rust escape,
/// `\t`, `\n`, `\r` or `\u{1b}`.
pub(crate) fn push_escaped(out: &mut String, c: char) {
    match c {
        '\t' | '\n' | '\r' => out.extend(c.escape_default()),
        c => out.extend(c.escape_unicode()),
    }
}

/// `text` with every [`hidden`] character written as its escape, so a
/// terminal sequence shows whole (`\u{1b}[31mRED`, not a stray `[31mRED`)
/// and a right-to-left override shows as `\u{202e}` instead of reversing
/// what follows it. Every report and the command line's console show text
/// from the data through it.
pub fn visible(text: &str) -> Cow<'_, str> {
    if !text.chars().any(hidden) {
        return text.into();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if hidden(c) { push_escaped(&mut out, c) } else { out.push(c) }
    }
    out.into()
}

/// Text from the data for `report.md`, cut to `max` characters (before
/// escaping) and written so that GitHub-flavoured Markdown shows it as it
/// is, in a table cell, a paragraph or an HTML block (`<details>`) alike:
/// [`hidden`] characters as escapes (as [`visible`] writes them); `<`, `>` and `&` as
/// `&lt;`, `&gt;` and `&amp;`; and every other ASCII punctuation that
/// Markdown, GFM or GitHub give a meaning to — emphasis (`*` `_` `~`),
/// links and images (`[` `]` `!`), code (`` ` ``), backslash escapes (`\`),
/// table cells (`|`), math (`$`), emoji codes and bare URLs (`:`) — as a
/// numeric character reference (`&#42;`). Entities are decoded after the
/// Markdown is parsed, so they never form markup, and inside an HTML block
/// the browser decodes them the same way.
pub(crate) fn md_text(text: &str, max: usize) -> String {
    let cut = cut(text, max);
    let mut out = String::with_capacity(cut.len() + 8);
    for c in cut.chars() {
        match c {
            // `\u{1b}`, `\t`: a backslash before a letter is no escape.
            c if hidden(c) => push_escaped(&mut out, c),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '*' | '_' | '~' | '[' | ']' | '!' | '`' | '\\' | '|' | '$' | ':' => {
                out.push_str(&format!("&#{};", u32::from(c)));
            }
            c => out.push(c),
        }
    }
    out
}

/// Text from the data as a Markdown code span, cut to `max` characters:
/// shown literally by GitHub-flavoured Markdown (no emphasis, links, HTML,
/// mentions or emoji inside a code span) and readable as written in the
/// raw file, where [`md_text`]'s character references are not. [`hidden`]
/// characters as escapes; a fence one backtick longer than the longest run
/// of backticks inside, with a space inside it when the text starts or
/// ends with a backtick or a space (the renderer takes one off each side);
/// in a table cell (`table`), `|` written `\|`, which GFM reads as a pipe
/// of the cell's text, even inside a code span. An empty text is an empty
/// `<code></code>`.
pub(crate) fn md_code(text: &str, max: usize, table: bool) -> String {
    let cut = cut(text, max);
    let shown = visible(&cut);
    let shown = if table { shown.replace('|', "\\|") } else { shown.into_owned() };
    if shown.is_empty() {
        return String::from("<code></code>");
    }
    let longest = shown.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = !shown.bytes().all(|b| b == b' ')
        && (shown.starts_with(['`', ' ']) || shown.ends_with(['`', ' ']));
    let space = if pad { " " } else { "" };
    format!("{fence}{space}{shown}{space}{fence}")
}

/// What a gate check requires, as reports show it: `≥ 0.9`, `≤ 0`; for a
/// `regression.<evaluator>` check, the statuses it lets pass (`not
/// critical`, `clean or new`), not the ranks `summary.json` compares.
pub(crate) fn gate_required(c: &GateCheck) -> String {
    if let Some(allowed) = c.allowed_statuses() {
        return allowed.to_owned();
    }
    format!("{} {}", if c.op == "<=" { "≤" } else { "≥" }, num(c.required))
}

/// What a gate check measured: a number, `—` when there is none; for a
/// `regression.<evaluator>` check, the evaluator's status (`critical`).
pub(crate) fn gate_actual(c: &GateCheck) -> String {
    match c.status {
        Some(s) => s.as_str().to_owned(),
        None => opt(c.actual),
    }
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

/// A change of accuracy (a share) in percentage points, as the console
/// shows it, with its arrow: `↓ -100.0 pts`, `—` when there is none.
pub(crate) fn points(c: Option<f64>) -> String {
    match c {
        Some(x) => format!("{} {:+.1} pts", arrow(c), x * 100.0),
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
mod tests;
