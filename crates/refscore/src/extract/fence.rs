//! Code fences in a text: ```` ``` ```` or `~~~` runs of three or more,
//! closed by a run of the same character at least as long.

use super::Found;

/// The fenced documents of a text.
#[derive(Debug, Default)]
pub(super) struct Fences {
    /// Fence bodies that parse (objects and arrays; any value under `json`).
    pub(super) found: Vec<Found>,
    /// Byte span of the body of a fence still open at the end of the text.
    pub(super) unclosed: Option<(usize, usize)>,
}

/// An opening fence: its character, run length and language.
struct Open {
    ch: u8,
    len: usize,
    json_label: bool,
    body_start: usize,
}

/// Lines of `text` with their byte offsets, without the line break.
fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut offset = 0;
    text.split_inclusive('\n').map(move |raw| {
        let at = offset;
        offset += raw.len();
        (at, raw.trim_end_matches(['\n', '\r']))
    })
}

/// Length of the run of `ch` at the start of `s`.
fn run(s: &[u8], ch: u8) -> usize {
    s.iter().take_while(|&&b| b == ch).count()
}

/// An opening fence anywhere on the line (models write "Sure! ```json").
fn opening(line: &str, line_end: usize) -> Option<Open> {
    let b = line.as_bytes();
    let pos = b.windows(3).position(|w| w == b"```" || w == b"~~~")?;
    let ch = b.get(pos).copied()?;
    let len = run(b.get(pos..)?, ch);
    let info = line.get(pos + len..)?.trim();
    if ch == b'`' && info.contains('`') {
        return None; // inline code, not a fence
    }
    let mid_line = !line.get(..pos)?.trim().is_empty();
    if mid_line && info.split_whitespace().nth(1).is_some() {
        return None; // prose mentioning a fence ("use ``` to open one")
    }
    let lang = info.split_whitespace().next().unwrap_or("").to_ascii_lowercase();
    Some(Open { ch, len, json_label: lang.starts_with("json"), body_start: line_end })
}

/// Where a fence closes on this line: the byte offset (in the line) where
/// the body ends, if the line closes it.
fn closing(line: &str, open: &Open) -> Option<usize> {
    let t = line.trim_end();
    let tail = t.bytes().rev().take_while(|&b| b == open.ch).count();
    if tail < open.len {
        return None;
    }
    Some(t.len() - tail)
}

/// Finds every fence and parses its body.
pub(super) fn scan(text: &str) -> Fences {
    let mut out = Fences::default();
    let mut open: Option<Open> = None;
    for (at, line) in lines(text) {
        let line_end = (at + line.len() + 1).min(text.len());
        match &open {
            None => open = opening(line, line_end),
            Some(o) => {
                if let Some(cut) = closing(line, o) {
                    push_body(text, o.body_start, at + cut, o.json_label, &mut out.found);
                    open = None;
                }
            }
        }
    }
    if let Some(o) = open {
        let start = o.body_start.min(text.len());
        if !push_body(text, start, text.len(), o.json_label, &mut out.found) {
            out.unclosed = Some((start, text.len()));
        }
    }
    out
}

/// Parses a fence body; keeps it if it is a candidate. Returns whether it
/// was kept.
fn push_body(
    text: &str,
    start: usize,
    end: usize,
    json_label: bool,
    found: &mut Vec<Found>,
) -> bool {
    let Some(body) = text.get(start..end.max(start)) else { return false };
    let lead = body.len() - body.trim_start().len();
    let body = body.trim();
    if body.is_empty() {
        return false;
    }
    match crate::json::parse_counted(body) {
        Ok((v, replaced)) if json_label || crate::json::is_container(&v) => {
            let s = start + lead;
            found.push(Found { value: v, start: s, end: s + body.len(), replaced });
            true
        }
        Ok((v, _)) => {
            crate::json::drop_deep(v);
            false
        }
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn finds_several_fences_and_skips_non_json() {
        let t = "a\n```python\nprint(1)\n```\n```\n{\"a\": 1}\n```\n~~~json\n7\n~~~\n```\n8\n```";
        let f = scan(t);
        let vals: Vec<_> = f.found.iter().map(|x| x.value.clone()).collect();
        assert_eq!(vals, vec![json!({"a": 1}), json!(7)]);
        assert_eq!(&t[f.found[0].start..f.found[0].end], "{\"a\": 1}");
        assert!(f.unclosed.is_none());
    }

    #[test]
    fn opening_mid_line_and_longer_fences() {
        let t = "Sure! ````json\n[1, \"```\"]\n````\n";
        let f = scan(t);
        assert_eq!(f.found.len(), 1);
        assert_eq!(f.found[0].value, json!([1, "```"]));
        let inline = scan("use ```x``` here");
        assert!(inline.found.is_empty() && inline.unclosed.is_none());
        let t = "Use ``` to open a fence.\n```json\n{\"a\": 1}\n```\n";
        let f = scan(t);
        assert_eq!(f.found.len(), 1);
        assert_eq!(f.found[0].value, json!({"a": 1}));
    }

    #[test]
    fn closing_at_line_end_and_unclosed() {
        let f = scan("```json\n{\"a\": 2}```");
        assert_eq!(f.found[0].value, json!({"a": 2}));
        let u = scan("```json\n{\"a\": [1,");
        assert!(u.found.is_empty());
        assert_eq!(u.unclosed, Some((8, 17)));
        let done = scan("```json\r\n{\"a\": 3}\r\n");
        assert_eq!(done.found[0].value, json!({"a": 3}));
    }
}
