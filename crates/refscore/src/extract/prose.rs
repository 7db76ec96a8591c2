//! Balanced JSON objects and arrays inside prose.
//!
//! One pass matches brackets from each top-level `{` or `[`, skipping
//! brackets inside strings, and remembers the balanced spans nested inside.
//! A balanced span that does not parse is replaced by the spans nested in
//! it, so `{see {"a": 1}}` yields `{"a": 1}`. After a bracket that closes
//! the wrong kind the scan goes on past it; every start inside would meet
//! the same bracket. Work is capped by a budget proportional to the text.

use super::Found;

/// Units of work (bytes scanned plus bytes parsed) allowed per byte of
/// text, on top of a fixed allowance of 1 MiB units.
pub const WORK_PER_BYTE: usize = 16;

/// The prose candidates of a text.
#[derive(Debug, Default)]
pub(super) struct Prose {
    /// Balanced spans that parse, in text order.
    pub(super) found: Vec<Found>,
    /// Start of the first bracket still open at the end of the text.
    pub(super) unclosed: Option<usize>,
    /// The span of the bracket the text starts with (after white space),
    /// when it closed, or was closed by a bracket of the wrong kind (the
    /// span then ends there): a text that starts like a document.
    pub(super) lead: Option<(usize, usize)>,
}

/// A balanced bracket span with the balanced spans directly inside it.
#[derive(Debug)]
struct Span {
    start: usize,
    end: usize,
    children: Vec<Span>,
}

impl Drop for Span {
    fn drop(&mut self) {
        // Iterative, so that dropping 100,000 nested spans cannot overflow.
        let mut stack = std::mem::take(&mut self.children);
        while let Some(mut s) = stack.pop() {
            stack.append(&mut s.children);
        }
    }
}

/// How a scan from one opening bracket ended.
enum Ended {
    /// The opening bracket closed.
    Closed(Span),
    /// A bracket of the wrong kind at this offset.
    Mismatch(usize, Vec<Span>),
    /// The end of the text (or of the budget).
    Eof { done: Vec<Span>, in_string: bool },
}

/// Remaining units of work.
struct Budget(usize);

impl Budget {
    fn spend(&mut self, n: usize) -> bool {
        if self.0 < n {
            self.0 = 0;
            false
        } else {
            self.0 -= n;
            true
        }
    }
}

fn closer(open: u8) -> u8 {
    if open == b'{' { b'}' } else { b']' }
}

/// Finds the balanced JSON containers in `text`.
pub(super) fn scan(text: &str) -> Prose {
    let bytes = text.as_bytes();
    let mut budget = Budget(bytes.len().saturating_mul(WORK_PER_BYTE).saturating_add(1 << 20));
    let mut out = Prose::default();
    let first = text.len() - text.trim_start().len();
    let mut pos = 0;
    while let Some(rel) =
        bytes.get(pos..).and_then(|b| b.iter().position(|&c| c == b'{' || c == b'['))
    {
        let start = pos + rel;
        if budget.0 == 0 {
            break;
        }
        match match_from(bytes, start, &mut budget) {
            Ended::Closed(span) => {
                pos = span.end;
                if start == first {
                    out.lead = Some((start, span.end));
                }
                try_spans(text, vec![span], &mut out.found, &mut budget);
            }
            Ended::Mismatch(at, done) => {
                if start == first {
                    out.lead = Some((start, at + 1));
                }
                try_spans(text, done, &mut out.found, &mut budget);
                pos = at + 1;
            }
            Ended::Eof { done, in_string } => {
                if out.unclosed.is_none() {
                    out.unclosed = Some(start);
                }
                if in_string {
                    // A stray quote may have hidden real brackets: look again
                    // from the next bracket (the budget bounds the retries).
                    drop(done);
                    pos = start + 1;
                } else {
                    try_spans(text, done, &mut out.found, &mut budget);
                    break;
                }
            }
        }
    }
    out
}

/// Matches brackets from the one at `start`.
fn match_from(bytes: &[u8], start: usize, budget: &mut Budget) -> Ended {
    let mut stack: Vec<(u8, usize)> = Vec::new();
    if let Some(&b) = bytes.get(start) {
        stack.push((closer(b), start));
    }
    let mut done: Vec<Span> = Vec::new();
    let mut strings = crate::json::Strings::default();
    for (i, &b) in bytes.iter().enumerate().skip(start + 1) {
        if !budget.spend(1) {
            break;
        }
        if !strings.structural(b) {
            continue;
        }
        match b {
            b'{' | b'[' => stack.push((closer(b), i)),
            b'}' | b']' => match stack.last() {
                Some(&(want, open)) if want == b => {
                    stack.pop();
                    let first_child =
                        done.iter().rposition(|d| d.start < open).map_or(0, |p| p + 1);
                    let children = done.split_off(first_child);
                    let span = Span { start: open, end: i + 1, children };
                    if stack.is_empty() {
                        return Ended::Closed(span);
                    }
                    done.push(span);
                }
                _ => return Ended::Mismatch(i, done),
            },
            _ => {}
        }
    }
    Ended::Eof { done, in_string: strings.in_string() }
}

/// Parses spans in order; a span that fails is replaced by its children.
fn try_spans(text: &str, spans: Vec<Span>, found: &mut Vec<Found>, budget: &mut Budget) {
    let mut work: Vec<Span> = spans;
    work.reverse();
    while let Some(mut span) = work.pop() {
        let Some(slice) = text.get(span.start..span.end) else { continue };
        if !budget.spend(slice.len()) {
            return;
        }
        match crate::json::parse_counted(slice) {
            Ok((value, replaced)) => {
                found.push(Found { value, start: span.start, end: span.end, replaced });
            }
            Err(_) => {
                let mut kids = std::mem::take(&mut span.children);
                kids.reverse();
                work.append(&mut kids);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn values(text: &str) -> Vec<serde_json::Value> {
        scan(text).found.into_iter().map(|f| f.value).collect()
    }

    #[test]
    fn braces_in_strings_do_not_confuse() {
        assert_eq!(
            values(r#"x {"a": "}{][", "b": "q\"}"} y"#),
            vec![json!({"a": "}{][", "b": "q\"}"})]
        );
    }

    #[test]
    fn nested_candidates_inside_failed_spans() {
        assert_eq!(values(r#"{see {"a": 1} and [2]} end"#), vec![json!({"a": 1}), json!([2])]);
        assert_eq!(values(r#"[oops} {"b": 2}"#), vec![json!({"b": 2})]);
        assert_eq!(values(r#"{ open {"c": 3} never closed"#), vec![json!({"c": 3})]);
        assert_eq!(values(r#"{ it's "quoted {"d": 4} stuff"#), vec![json!({"d": 4})]);
    }

    #[test]
    fn spans_and_unclosed() {
        let t = "é {\"é\": 1} then [1,";
        let p = scan(t);
        assert_eq!(&t[p.found[0].start..p.found[0].end], "{\"é\": 1}");
        assert_eq!(p.unclosed, Some(t.find('[').unwrap()));
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        let t = format!("x {}{}", "{".repeat(200_000), "}".repeat(200_000));
        let found = scan(&t).found;
        assert!(found.len() <= 1);
        found.into_iter().for_each(|f| crate::json::drop_deep(f.value));
        let arr = format!("{}{}", "[".repeat(50_000), "]".repeat(50_000));
        let found = scan(&format!("a {arr} b")).found;
        assert_eq!(found.len(), 1);
        found.into_iter().for_each(|f| crate::json::drop_deep(f.value));
    }

    #[test]
    fn many_braces_stay_fast() {
        let start = std::time::Instant::now();
        // Brackets that never close: the scan from the first one reaches
        // the end once, and keeps the balanced span nested at the end.
        let t = "{ a ".repeat(250_000) + "{\"z\": 1}";
        let p = scan(&t);
        assert_eq!(values_of(&p), vec![json!({"z": 1})]);
        assert_eq!((p.found[0].start, p.found[0].end), (t.len() - 8, t.len()));
        assert_eq!(p.unclosed, Some(0));
        // 80,000 balanced spans that do not parse, inside unclosed objects.
        let u = "{\"k\": [1, x] ".repeat(80_000);
        let p = scan(&u);
        assert!(p.found.is_empty());
        assert_eq!(p.unclosed, Some(0));
        assert!(start.elapsed().as_secs() < 20, "{:?}", start.elapsed());
    }

    fn values_of(p: &Prose) -> Vec<serde_json::Value> {
        p.found.iter().map(|f| f.value.clone()).collect()
    }

    #[test]
    fn the_budget_bounds_the_work() {
        let text = "[1, [2], 3] tail";
        let bytes = text.as_bytes();
        // Each byte after the opening bracket costs one unit.
        let mut b = Budget(100);
        assert!(matches!(match_from(bytes, 0, &mut b), Ended::Closed(s) if s.end == 11));
        assert_eq!(b.0, 100 - 10);
        // Out of budget mid-way: the scan stops there, as if at the end.
        let mut b = Budget(6);
        match match_from(bytes, 0, &mut b) {
            Ended::Eof { done, in_string } => {
                assert!(!in_string);
                assert_eq!(done.iter().map(|s| (s.start, s.end)).collect::<Vec<_>>(), [(4, 7)]);
            }
            _ => panic!("expected the scan to stop at the budget"),
        }
        assert_eq!(b.0, 0);
        // Parsing spends the span's length; a span beyond the budget is
        // not parsed, nor any after it.
        let spans = || {
            vec![
                Span { start: 4, end: 7, children: vec![] },
                Span { start: 0, end: 11, children: vec![] },
            ]
        };
        let mut found = Vec::new();
        let mut b = Budget(3 + 11);
        try_spans(text, spans(), &mut found, &mut b);
        assert_eq!(found.len(), 2);
        assert_eq!(b.0, 0);
        let mut found = Vec::new();
        let mut b = Budget(3 + 10);
        try_spans(text, spans(), &mut found, &mut b);
        assert_eq!(found.iter().map(|f| f.value.clone()).collect::<Vec<_>>(), [json!([2])]);
    }

    #[test]
    fn past_the_budget_the_scan_returns_what_it_found() {
        // From every `[`, the quote opens a string that never closes, so
        // the scan retries from the next one: quadratic work without the
        // budget, and only then would it reach `{"b": 2}`.
        let text = |n: usize| format!("{{\"a\": 1}} {}\"{{\"b\": 2}}", "[".repeat(n));
        // Within the budget, the scan gets there.
        assert_eq!(values_of(&scan(&text(500))), vec![json!({"a": 1}), json!({"b": 2})]);
        let n = 200_000;
        let text = text(n);
        let budget = text.len() * WORK_PER_BYTE + (1 << 20);
        assert!(n * n / 2 > 100 * budget);
        let start = std::time::Instant::now();
        let p = scan(&text);
        assert_eq!(values_of(&p), vec![json!({"a": 1})]);
        assert_eq!(p.unclosed, Some(9));
        assert!(start.elapsed().as_secs() < 20, "{:?}", start.elapsed());
    }
}
