//! `format.markdown_structure`: a small line-based Markdown checker.
//!
//! Rules (each reported as `format.markdown_structure.<rule>`):
//! * `headings`: at most one top-level (`#`) heading; going down, a heading
//!   is at most one level deeper than the one before (`##` → `####` fails).
//! * `list_markers`: unordered items at one level of one list use one
//!   marker (`-`, `*` or `+`); ordered items one delimiter (`.` or `)`).
//! * `list_indentation`: a nested item is indented by a multiple of the
//!   list's step (its first nested indent), or aligned with its parent's
//!   text (`1. x` → 3 spaces).
//! * `code_fences`: every ```` ``` ```` / `~~~` fence is closed.
//! * `tables`: header, delimiter row and body rows have one column count;
//!   rows of pipes with no delimiter row fail.
//!
//! Lines inside code fences are ignored by every other rule. Tabs count as
//! four columns.

use serde_json::Value;

use super::{Setting, bad};
use crate::detail::{Detail, Outcome, close_with_more};
use crate::error::ConfigError;
use crate::limits::MAX_KEPT_DETAILS;
use crate::metric_result::first_details;
use crate::metrics::options::Opts;

/// The rule names, in report order.
pub(super) const RULES: &[&str] =
    &["headings", "list_markers", "list_indentation", "code_fences", "tables"];

/// The Markdown sub-check: the enabled rules.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Markdown {
    rules: Vec<&'static str>,
}

/// One broken rule at one line.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Violation {
    rule: &'static str,
    line: usize,
    message: String,
}

impl Markdown {
    /// From `true` or `{rules: [...]}`.
    pub(super) fn from_setting(s: Setting<'_>) -> Result<Option<Self>, ConfigError> {
        let map = match s {
            Setting::Off => return Ok(None),
            Setting::On => return Ok(Some(Markdown { rules: RULES.to_vec() })),
            Setting::With(Value::Object(m)) => m,
            Setting::With(other) => {
                return Err(bad(
                    "markdown_structure",
                    format!("expected true or an object, got {other}"),
                ));
            }
        };
        let o = Opts::new("format.markdown_structure", map);
        let rules = match o.value("rules") {
            None => RULES.to_vec(),
            Some(Value::Array(items)) => {
                let mut rules = Vec::new();
                for item in items {
                    let name = item.as_str().unwrap_or("");
                    let rule = RULES.iter().find(|r| **r == name).ok_or_else(|| {
                        bad(
                            "markdown_structure.rules",
                            format!("unknown rule {item} (known: {})", RULES.join(", ")),
                        )
                    })?;
                    rules.push(*rule);
                }
                if rules.is_empty() {
                    return Err(bad("markdown_structure.rules", "give at least one rule"));
                }
                rules
            }
            Some(other) => {
                return Err(bad(
                    "markdown_structure.rules",
                    format!("expected a list, got {other}"),
                ));
            }
        };
        o.finish()?;
        Ok(Some(Markdown { rules }))
    }

    /// One passing detail per clean rule, one failing detail per violation
    /// (at most [`MAX_KEPT_DETAILS`] per rule, then a `+ N more` entry).
    pub(super) fn check(&self, text: &str) -> Vec<Detail> {
        let violations = scan(text);
        let mut out = Vec::new();
        for rule in &self.rules {
            let check = format!("format.markdown_structure.{rule}");
            let found = violations.iter().filter(|v| v.rule == *rule);
            let (details, more) = first_details(found, MAX_KEPT_DETAILS, |v| {
                Detail::new(check.clone(), Outcome::Fail)
                    .message(format!("line {}: {}", v.line, v.message))
            });
            if details.is_empty() {
                out.push(Detail::new(check, Outcome::Pass));
            }
            out.extend(details);
            close_with_more(&mut out, more);
        }
        out
    }
}

/// Leading whitespace width (tabs count 4) and the rest of the line.
fn indent(line: &str) -> (usize, &str) {
    let mut width = 0;
    for (i, c) in line.char_indices() {
        match c {
            ' ' => width += 1,
            '\t' => width += 4,
            _ => return (width, &line[i..]),
        }
    }
    (width, "")
}

/// A fence opening or closing: its character and run length, and the rest.
fn fence(rest: &str) -> Option<(char, usize, &str)> {
    let ch = rest.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = rest.chars().take_while(|c| *c == ch).count();
    (len >= 3).then(|| (ch, len, &rest[len..]))
}

/// An ATX heading's level.
fn heading(rest: &str) -> Option<usize> {
    let level = rest.chars().take_while(|c| *c == '#').count();
    let after = rest[level..].chars().next();
    ((1..=6).contains(&level) && after.is_none_or(|c| c == ' ' || c == '\t')).then_some(level)
}

/// `---`, `***`, `___` (spaces allowed between).
fn thematic_break(rest: &str) -> bool {
    let s: Vec<char> = rest.chars().filter(|c| !c.is_whitespace()).collect();
    s.len() >= 3 && matches!(s[0], '-' | '*' | '_') && s.iter().all(|c| *c == s[0])
}

/// A list item: its marker (`-`, `*`, `+`, or `.`/`)` for ordered) and the
/// width of marker plus following space.
fn list_item(rest: &str) -> Option<(char, bool, usize)> {
    if thematic_break(rest) {
        return None;
    }
    let mut chars = rest.chars();
    let first = chars.next()?;
    if matches!(first, '-' | '*' | '+') {
        return matches!(chars.next(), Some(' ' | '\t')).then_some((first, false, 2));
    }
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    if (1..=9).contains(&digits) {
        let mut after = rest[digits..].chars();
        let delim = after.next().filter(|c| *c == '.' || *c == ')')?;
        return matches!(after.next(), Some(' ' | '\t')).then_some((delim, true, digits + 2));
    }
    None
}

/// Cells of a table row (outer pipes removed, `\|` kept in the cell).
fn cells(row: &str) -> usize {
    let t = row.trim();
    let t = t.strip_prefix('|').unwrap_or(t);
    let t = if t.ends_with('|') && !t.ends_with("\\|") { &t[..t.len() - 1] } else { t };
    let (mut n, mut esc) = (1, false);
    for c in t.chars() {
        match c {
            '\\' if !esc => esc = true,
            '|' if !esc => n += 1,
            _ => esc = false,
        }
    }
    n
}

fn is_delimiter_row(line: &str) -> bool {
    let t = line.trim();
    if !t.contains('|') {
        return false;
    }
    let t = t.strip_prefix('|').unwrap_or(t);
    let t = t.strip_suffix('|').unwrap_or(t);
    t.split('|').all(|c| {
        let c = c.trim();
        let c = c.strip_prefix(':').unwrap_or(c);
        let c = c.strip_suffix(':').unwrap_or(c);
        !c.is_empty() && c.chars().all(|x| x == '-')
    })
}

/// All violations in the text.
fn scan(text: &str) -> Vec<Violation> {
    let lines: Vec<&str> = text.split('\n').map(|l| l.trim_end_matches('\r')).collect();
    let mut v = Vec::new();
    let mut push =
        |rule, line: usize, message: String| v.push(Violation { rule, line: line + 1, message });
    let mut open_fence: Option<(char, usize, usize)> = None;
    let (mut first_h1, mut prev_level): (Option<usize>, Option<usize>) = (None, None);
    // Open list items: (indent, content column); markers per indent.
    let mut items: Vec<(usize, usize)> = Vec::new();
    let mut markers: Vec<(usize, bool, char)> = Vec::new();
    let (mut base, mut step): (usize, Option<usize>) = (0, None);
    let mut table: Option<usize> = None;
    let mut pipe_run = 0usize;
    let mut paragraph = false;
    for (n, line) in lines.iter().enumerate() {
        let (ind, rest) = indent(line);
        if let Some((ch, len, _)) = open_fence {
            if let Some((c2, l2, tail)) = fence(rest)
                && ind <= 3
                && c2 == ch
                && l2 >= len
                && tail.trim().is_empty()
            {
                open_fence = None;
            }
            continue;
        }
        if ind <= 3
            && let Some((ch, len, info)) = fence(rest)
            && !(ch == '`' && info.contains('`'))
        {
            open_fence = Some((ch, len, n));
            (table, pipe_run, paragraph) = (None, 0, false);
            continue;
        }
        let blank = rest.is_empty();
        // Tables.
        if let Some(cols) = table {
            if blank || !line.contains('|') {
                table = None;
            } else {
                let c = cells(line);
                if c != cols {
                    push("tables", n, format!("table row has {c} columns, the header has {cols}"));
                }
                continue;
            }
        }
        if is_delimiter_row(line) && n > 0 && paragraph && lines[n - 1].contains('|') {
            let (h, d) = (cells(lines[n - 1]), cells(line));
            if h != d {
                push(
                    "tables",
                    n,
                    format!("table delimiter row has {d} columns, the header has {h}"),
                );
            }
            (table, pipe_run, paragraph) = (Some(h), 0, false);
            continue;
        }
        if rest.starts_with('|') {
            pipe_run += 1;
            if pipe_run == 2 {
                push(
                    "tables",
                    n.saturating_sub(1),
                    String::from("table rows with no delimiter row (| --- |) under the header"),
                );
            }
        } else {
            pipe_run = 0;
        }
        // Headings.
        let setext = if paragraph && ind <= 3 && !rest.is_empty() && !rest.contains('|') {
            let t = rest.trim_end();
            if t.chars().all(|c| c == '=') {
                Some(1)
            } else if t.len() >= 3 && t.chars().all(|c| c == '-') && items.is_empty() {
                Some(2)
            } else {
                None
            }
        } else {
            None
        };
        let level = if ind <= 3 { heading(rest).or(setext) } else { None };
        if let Some(level) = level {
            let at = if setext.is_some() { n.saturating_sub(1) } else { n };
            if level == 1 {
                match first_h1 {
                    Some(first) => push(
                        "headings",
                        at,
                        format!("another top-level heading (the first is on line {})", first + 1),
                    ),
                    None => first_h1 = Some(at),
                }
            }
            if let Some(p) = prev_level
                && level > p + 1
            {
                push("headings", at, format!("heading level jumps from h{p} to h{level}"));
            }
            prev_level = Some(level);
            items.clear();
            markers.clear();
            paragraph = false;
            continue;
        }
        // Lists.
        if let Some((marker, ordered, width)) = list_item(rest) {
            if items.is_empty() {
                (base, step) = (ind, None);
                markers.clear();
            }
            while items.last().is_some_and(|(i, _)| *i >= ind) {
                items.pop();
            }
            let rel = ind.saturating_sub(base);
            if rel > 0 {
                let parent_col = items.last().map(|(_, c)| *c);
                let s = *step.get_or_insert(rel);
                if rel % s != 0 && parent_col != Some(ind) {
                    push(
                        "list_indentation",
                        n,
                        format!("list item indented {rel} spaces; this list indents by {s}"),
                    );
                }
            }
            markers.retain(|(i, _, _)| *i <= ind);
            match markers.iter().find(|(i, o, _)| *i == ind && *o == ordered) {
                Some((_, _, m)) if *m != marker => push(
                    "list_markers",
                    n,
                    format!("list marker `{marker}` where this list uses `{m}`"),
                ),
                Some(_) => {}
                None => markers.push((ind, ordered, marker)),
            }
            items.push((ind, ind + width));
            paragraph = false;
            continue;
        }
        if !blank && ind < 2 && !items.is_empty() {
            items.clear();
            markers.clear();
        }
        paragraph = !blank && !thematic_break(rest);
    }
    if let Some((_, _, start)) = open_fence {
        push("code_fences", start, String::from("code fence opened here is never closed"));
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(text: &str) -> Vec<(&'static str, usize)> {
        scan(text).into_iter().map(|v| (v.rule, v.line)).collect()
    }

    #[test]
    fn clean_document() {
        let t = "# Title\n\nIntro.\n\n## A\n\n- one\n- two\n  - sub\n    - deeper\n\n1. x\n   - y\n\n| a | b |\n|---|:-:|\n| 1 | 2 |\n\n```\n# not a heading\n* x\n```\n### C\n";
        assert_eq!(rules(t), vec![]);
    }

    #[test]
    fn headings() {
        assert_eq!(rules("# A\n## B\n#### C\n# D\n"), vec![("headings", 3), ("headings", 4)]);
        assert_eq!(rules("Title\n=====\n\nSub\n---\n"), vec![]);
        assert_eq!(rules("#hashtag\n##### deep first\n"), vec![]);
    }

    #[test]
    fn lists() {
        assert_eq!(rules("- a\n* b\n- c\n"), vec![("list_markers", 2)]);
        assert_eq!(rules("- a\n  * b\n  * c\n- d\n"), vec![]);
        assert_eq!(rules("1. a\n2) b\n"), vec![("list_markers", 2)]);
        assert_eq!(rules("- a\n  - b\n   - c\n"), vec![("list_indentation", 3)]);
        assert_eq!(rules("- a\n\tb\n    - c\n"), vec![]);
        assert_eq!(rules("- a\n\npara\n\n* b\n"), vec![]);
        assert_eq!(rules("---\n* * *\n"), vec![]);
    }

    #[test]
    fn fences_and_tables() {
        assert_eq!(rules("text\n```python\nx\n"), vec![("code_fences", 2)]);
        assert_eq!(rules("~~~\n```\n~~~\n"), vec![]);
        assert_eq!(
            rules("| a | b |\n|---|---|---|\n| 1 | 2 |\n| 1 | 2 | 3 |\n"),
            vec![("tables", 2), ("tables", 4)]
        );
        assert_eq!(rules("| a | b |\n| 1 | 2 |\n"), vec![("tables", 1)]);
        assert_eq!(rules("a | b\n--|--\nx \\| y | z\n"), vec![]);
    }

    #[test]
    fn details_per_rule() {
        let m = Markdown { rules: vec!["headings", "tables"] };
        let d = m.check("# A\n# B\n# C\n");
        let failed: Vec<_> =
            d.iter().filter(|x| !x.passed).map(|x| x.message.clone().unwrap()).collect();
        assert_eq!(failed.len(), 2);
        assert!(failed[0].starts_with("line 2:"), "{failed:?}");
        assert!(d.iter().any(|x| x.check == "format.markdown_structure.tables" && x.passed));
        let s = serde_json::json!({"rules": ["nope"]});
        assert!(
            Markdown::from_setting(Setting::of(Some(&s))).unwrap_err().to_string().contains("nope")
        );
        let s = serde_json::json!({"rules": ["tables"], "x": 1});
        assert!(Markdown::from_setting(Setting::of(Some(&s))).is_err());
    }
}
