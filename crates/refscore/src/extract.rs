//! Getting the JSON document out of a model's text.
//!
//! Models wrap JSON in code fences, surround it with prose, emit several
//! documents, or get cut off half-way. [`extract_json`] finds the document:
//!
//! 1. the whole text (trimmed) if it parses as JSON ([`Method::Whole`]);
//! 2. with `strict`, nothing else: the parse error is returned;
//! 3. code fences (```` ``` ````, ```` ```json ````, `~~~`), each body that
//!    parses as an object or array (any value for a fence labelled `json`)
//!    is a candidate ([`Method::Fence`]);
//! 4. without any fence candidate, balanced `{…}` / `[…]` spans in the
//!    prose, skipping brackets inside JSON strings ([`Method::Prose`]); a
//!    span that does not parse is searched for smaller spans inside it.
//!    Scalars in prose are never candidates;
//! 5. with `repair` and no candidate at all, a document cut off at the end
//!    (unclosed strings, arrays, objects, a trailing comma, a dangling key)
//!    is closed and parsed ([`Method::Repaired`]).
//!
//! [`Pick`] chooses among several candidates; the document found says
//! which keys its objects repeated ([`crate::duplicate_keys`]). The prose search does at most
//! [`WORK_PER_BYTE`] units of work per byte of text (plus a fixed
//! allowance), so adversarial text cannot make it quadratic; past the
//! budget it returns what it found so far.

use serde::Serialize;
use serde_json::{Value, json};

use crate::duplicate_keys::DuplicateKeys;

mod fence;
mod prose;
mod repair;

pub use prose::WORK_PER_BYTE;

/// Which document to take when the text holds several.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Pick {
    /// The first one in the text.
    #[default]
    First,
    /// The last one in the text (reasoning models often put scratch work first).
    Last,
    /// Exactly one must be present; more is [`ExtractError::Ambiguous`].
    Only,
}

/// How [`extract_json`] looks for JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ExtractOptions {
    /// Accept only a text that is one JSON document as a whole.
    pub strict: bool,
    /// Which candidate to take when there are several.
    pub pick: Pick,
    /// Close a document that was cut off (unclosed strings and brackets).
    pub repair: bool,
}

/// Where the document came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// The whole (trimmed) text.
    Whole,
    /// The body of a code fence.
    Fence,
    /// A balanced object or array inside prose.
    Prose,
    /// A cut-off document, closed by [`extract_json`].
    Repaired,
}

impl Method {
    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Whole => "whole",
            Method::Fence => "fence",
            Method::Prose => "prose",
            Method::Repaired => "repaired",
        }
    }
}

/// A document found in a text.
#[derive(Debug, Clone, PartialEq)]
pub struct Extracted {
    /// The parsed document.
    pub value: Value,
    /// Where it came from.
    pub method: Method,
    /// Byte offset of its first character in the text.
    pub start: usize,
    /// Byte offset just past its last character.
    pub end: usize,
    /// How many candidates the method found (1 for whole and repaired).
    pub candidates: usize,
    /// Whether the text had to be closed to parse.
    pub repaired: bool,
    /// The keys the document's objects repeated, if any (the last member
    /// of a repeated key is the one kept).
    pub duplicate_keys: Option<DuplicateKeys>,
}

impl Extracted {
    /// `{"method": "fence", "span": [start, end], "candidates": n, "repaired": false}`.
    pub fn metadata(&self) -> Value {
        json!({
            "method": self.method.as_str(),
            "span": [self.start, self.end],
            "candidates": self.candidates,
            "repaired": self.repaired,
        })
    }
}

/// Why no document could be extracted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExtractError {
    /// The text holds no JSON object or array.
    #[error("no JSON object or array found in the text")]
    NotFound,
    /// `pick: only` and several candidates.
    #[error("{count} JSON documents found where exactly one was expected (pick: only)")]
    Ambiguous {
        /// Number of candidates found.
        count: usize,
    },
    /// The document was cut off before its end (the model stopped), and
    /// `repair` is off: the complete objects inside it are parts of it,
    /// never taken for the document.
    #[error("the JSON document at byte {at} is cut off before its end (repair: true closes it)")]
    CutOff {
        /// Byte offset of the document's first bracket.
        at: usize,
    },
    /// `strict` and the text is not one JSON document.
    #[error("not valid JSON: {message}")]
    Invalid {
        /// The parse error, with line and column.
        message: String,
    },
}

/// A candidate: a parsed value, its byte span, and how many members a
/// later one with the same key replaced ([`crate::json::parse_counted`]).
#[derive(Debug)]
struct Found {
    value: Value,
    start: usize,
    end: usize,
    replaced: u32,
}

/// `text` without the JSON white space (space, tab, line feed, carriage
/// return) around it: what strict reading takes around a document.
pub fn json_trim(text: &str) -> &str {
    text.trim_matches(JSON_SPACE)
}

/// JSON's white space.
const JSON_SPACE: [char; 4] = [' ', '\t', '\n', '\r'];

/// Finds the JSON document in `text` (see the module documentation).
///
/// # Errors
/// [`ExtractError::NotFound`] when there is none, `Ambiguous` for several
/// with `pick: only`, `Invalid` in strict mode.
pub fn extract_json(text: &str, opts: &ExtractOptions) -> Result<Extracted, ExtractError> {
    // Strict: the text is one JSON document, with JSON's own white space
    // around it (as Python's `json.loads` takes it); otherwise any.
    let rest = if opts.strict { text.trim_start_matches(JSON_SPACE) } else { text.trim_start() };
    let start = text.len() - rest.len();
    let trimmed = if opts.strict { rest.trim_end_matches(JSON_SPACE) } else { rest.trim_end() };
    let end = start + trimmed.len();
    let whole = |(value, duplicate_keys), method, repaired| Extracted {
        value,
        method,
        start,
        end,
        candidates: 1,
        repaired,
        duplicate_keys,
    };
    let parse_error = match crate::duplicate_keys::parse(trimmed) {
        Ok(v) => return Ok(whole(v, Method::Whole, false)),
        Err(e) => e,
    };
    if opts.strict {
        if opts.repair
            && let Some(c) = repair::repair(trimmed)
        {
            return Ok(whole((c.value, c.duplicate_keys), Method::Repaired, true));
        }
        return Err(ExtractError::Invalid { message: parse_error });
    }
    let fences = fence::scan(text);
    if !fences.found.is_empty() {
        return choose(text, fences.found, Method::Fence, opts.pick);
    }
    let mut prose = prose::scan(text);
    // A text that starts like a document which does not parse is that
    // document, broken: the complete objects inside it are parts of it,
    // never the document (`{"a": {"x": 1}, "b": 2,}` is not `{"x": 1}`).
    if let Some((s, e)) = prose.lead
        && !prose.found.iter().any(|f| f.start == s)
    {
        prose.found = without_parts(prose.found, s, e).0;
    }
    // A document cut off mid-way still holds complete inner objects: they
    // are parts of it, never the document.
    if let Some(s) = prose.unclosed
        && let Some(part) = text.get(s..)
        && let Some(closed) = repair::repair(part.trim())
    {
        let reach = s + closed.kept;
        let (outside, parts) = without_parts(prose.found, s, reach);
        let cut_off = Extracted {
            value: closed.value,
            method: Method::Repaired,
            start: s,
            end: s + part.trim_end().len(),
            candidates: 1,
            repaired: true,
            duplicate_keys: closed.duplicate_keys,
        };
        return cut_off_or_other(text, cut_off, outside, parts, opts);
    }
    if !prose.found.is_empty() {
        return choose(text, prose.found, Method::Prose, opts.pick);
    }
    if opts.repair {
        let tries = [fences.unclosed, prose.unclosed.map(|s| (s, text.len()))];
        for (s, e) in tries.into_iter().flatten() {
            let Some(part) = text.get(s..e) else { continue };
            let lead = part.len() - part.trim_start().len();
            let part = part.trim();
            if let Some(repair::Closed { value, duplicate_keys, .. }) = repair::repair(part) {
                let s = s + lead;
                return Ok(Extracted {
                    value,
                    method: Method::Repaired,
                    start: s,
                    end: s + part.len(),
                    candidates: 1,
                    repaired: true,
                    duplicate_keys,
                });
            }
        }
    }
    Err(ExtractError::NotFound)
}

/// The candidates of `found` outside the document spanning bytes
/// `start..end` (its parts, inside it, are dropped), and whether it had
/// any.
fn without_parts(found: Vec<Found>, start: usize, end: usize) -> (Vec<Found>, bool) {
    let (inside, outside): (Vec<Found>, Vec<Found>) =
        found.into_iter().partition(|f| f.start >= start && f.end <= end);
    let parts = !inside.is_empty();
    inside.into_iter().for_each(|f| crate::json::drop_deep(f.value));
    (outside, parts)
}

/// What Regtrace's `stripCodeFences` leaves of a text, as a byte span of
/// it: a leading ```` ``` ```` with its ASCII-letter label and one line
/// feed (`/^```[a-zA-Z]*\n?/`, at the very start of the text only), then a
/// ```` ``` ```` at the very end of what is left (`/```$/`, so not before a
/// trailing line break), then JavaScript's `trim` ([`crate::text::js_trim`]:
/// the byte-order mark and Unicode white space, but not U+0085). The
/// boolean says whether a fence was removed.
pub fn strip_code_fences(text: &str) -> (usize, usize, bool) {
    use crate::text::is_js_whitespace;
    let b = text.as_bytes();
    let (mut start, mut end, mut fenced) = (0, text.len(), false);
    if b.starts_with(b"```") {
        start = 3 + b[3..].iter().take_while(|c| c.is_ascii_alphabetic()).count();
        if b.get(start) == Some(&b'\n') {
            start += 1;
        }
        fenced = true;
    }
    if b[start..].ends_with(b"```") {
        end -= 3;
        fenced = true;
    }
    // Only ASCII bytes were cut: both ends are character boundaries.
    let rest = text.get(start..end).unwrap_or("");
    let body = rest.trim_start_matches(is_js_whitespace);
    start += rest.len() - body.len();
    end = start + body.trim_end_matches(is_js_whitespace).len();
    (start, end, fenced)
}

/// Chooses between a cut-off document (closed) and the complete documents
/// `others` beside it, as `pick` asks. `parts`: whether complete objects
/// inside the cut-off document were dropped; only then is it surely a
/// document (else it may be a stray bracket of the prose) and a candidate
/// in its place in the text: taken closed with `repair`, else
/// [`ExtractError::CutOff`]. Without parts it is taken (with `repair`)
/// only when no complete document comes before it, as before.
fn cut_off_or_other(
    text: &str,
    cut_off: Extracted,
    others: Vec<Found>,
    parts: bool,
    opts: &ExtractOptions,
) -> Result<Extracted, ExtractError> {
    let at = cut_off.start;
    let before = others.iter().filter(|f| f.start < at).count();
    let chosen_is_cut = if parts {
        match opts.pick {
            Pick::First => before == 0,
            Pick::Last => before == others.len(),
            Pick::Only if others.is_empty() => true,
            Pick::Only => {
                let count = others.len() + 1;
                others.into_iter().for_each(|f| crate::json::drop_deep(f.value));
                crate::json::drop_deep(cut_off.value);
                return Err(ExtractError::Ambiguous { count });
            }
        }
    } else {
        opts.repair && before == 0
    };
    if chosen_is_cut {
        others.into_iter().for_each(|f| crate::json::drop_deep(f.value));
        if opts.repair {
            return Ok(cut_off);
        }
        crate::json::drop_deep(cut_off.value);
        return Err(ExtractError::CutOff { at });
    }
    crate::json::drop_deep(cut_off.value);
    if others.is_empty() {
        return Err(ExtractError::NotFound);
    }
    let mut e = choose(text, others, Method::Prose, opts.pick)?;
    e.candidates += usize::from(parts);
    Ok(e)
}

/// Takes the candidate `pick` asks for (found in `text`).
fn choose(
    text: &str,
    mut found: Vec<Found>,
    method: Method,
    pick: Pick,
) -> Result<Extracted, ExtractError> {
    let candidates = found.len();
    let chosen = match pick {
        Pick::Only if candidates > 1 => {
            found.into_iter().for_each(|f| crate::json::drop_deep(f.value));
            return Err(ExtractError::Ambiguous { count: candidates });
        }
        Pick::Last => found.pop(),
        Pick::First | Pick::Only => {
            if found.is_empty() {
                None
            } else {
                Some(found.swap_remove(0))
            }
        }
    };
    found.into_iter().for_each(|f| crate::json::drop_deep(f.value));
    let f = chosen.ok_or(ExtractError::NotFound)?;
    let duplicate_keys = match text.get(f.start..f.end) {
        Some(span) if f.replaced > 0 => DuplicateKeys::in_text(span),
        _ => None,
    };
    Ok(Extracted {
        value: f.value,
        method,
        start: f.start,
        end: f.end,
        candidates,
        repaired: false,
        duplicate_keys,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(text: &str) -> Result<Extracted, ExtractError> {
        extract_json(text, &ExtractOptions::default())
    }

    fn opts(strict: bool, pick: Pick, repair: bool) -> ExtractOptions {
        ExtractOptions { strict, pick, repair }
    }

    #[test]
    fn whole_text() {
        let e = get("  {\"a\": 1}\n").unwrap();
        assert_eq!(e.value, json!({"a": 1}));
        assert_eq!(e.method, Method::Whole);
        assert_eq!((e.start, e.end), (2, 10));
        assert_eq!(get("42").unwrap().value, json!(42));
        assert_eq!(
            e.metadata(),
            json!({"method": "whole", "span": [2, 10], "candidates": 1, "repaired": false})
        );
    }

    #[test]
    fn strict_rejects_prose_with_position() {
        let o = opts(true, Pick::First, false);
        let err = extract_json("Here: {\"a\": 1}", &o).unwrap_err();
        match &err {
            ExtractError::Invalid { message } => assert!(message.contains("line 1"), "{message}"),
            other => panic!("{other:?}"),
        }
        assert!(err.to_string().starts_with("not valid JSON"));
        assert_eq!(extract_json("[1]", &o).unwrap().value, json!([1]));
        let r = extract_json("{\"a\": [1, 2", &opts(true, Pick::First, true)).unwrap();
        assert_eq!(r.value, json!({"a": [1, 2]}));
        assert_eq!(r.method, Method::Repaired);
    }

    #[test]
    fn strict_takes_json_white_space_alone_around_the_document() {
        let o = opts(true, Pick::First, false);
        let e = extract_json(" \t\r\n[1]\n ", &o).unwrap();
        assert_eq!((e.value, e.start, e.end), (json!([1]), 4, 7));
        for text in ["[]\u{85}", "\u{a0}[]", "[]\u{2028}", "\u{3000}{}"] {
            assert!(
                matches!(extract_json(text, &o), Err(ExtractError::Invalid { .. })),
                "{text:?}"
            );
            // Without strict, any white space is trimmed.
            assert_eq!(
                extract_json(text, &opts(false, Pick::First, false)).unwrap().method,
                Method::Whole
            );
        }
    }

    #[test]
    fn fences_and_picks() {
        let text = "Plan:\n```json\n{\"a\": 1}\n```\nthen\n~~~\n[2]\n~~~\n";
        let e = get(text).unwrap();
        assert_eq!((e.value.clone(), e.method, e.candidates), (json!({"a": 1}), Method::Fence, 2));
        assert_eq!(&text[e.start..e.end], "{\"a\": 1}");
        let l = extract_json(text, &opts(false, Pick::Last, false)).unwrap();
        assert_eq!(l.value, json!([2]));
        let err = extract_json(text, &opts(false, Pick::Only, false)).unwrap_err();
        assert_eq!(err, ExtractError::Ambiguous { count: 2 });
        assert!(err.to_string().contains("2 JSON documents"));
    }

    #[test]
    fn prose_objects_and_arrays() {
        let e = get("The answer is {\"x\": \"a}b{\"} and more.").unwrap();
        assert_eq!((e.value, e.method), (json!({"x": "a}b{"}), Method::Prose));
        let e = get("first [1, 2] then {\"k\": true}").unwrap();
        assert_eq!((e.value, e.candidates), (json!([1, 2]), 2));
        let l = extract_json("a {\"n\": 1} b {\"n\": 2}", &opts(false, Pick::Last, false)).unwrap();
        assert_eq!(l.value, json!({"n": 2}));
        assert_eq!(get("just 42 and \"text\" here"), Err(ExtractError::NotFound));
        assert_eq!(get(""), Err(ExtractError::NotFound));
    }

    #[test]
    fn the_document_found_says_which_keys_it_repeated() {
        let keys = |text: &str, o: &ExtractOptions| {
            let e = extract_json(text, o).unwrap();
            let d = e.duplicate_keys.map(|d| d.to_json());
            (e.method, d)
        };
        let d = ExtractOptions::default();
        let one =
            |path: &str| Some(json!({"count": 1, "paths": [{"path": path, "occurrences": 2}]}));
        assert_eq!(keys(r#" {"a":1,"a":2} "#, &d), (Method::Whole, one("$.a")));
        assert_eq!(keys(r#"{"a":1,"b":2}"#, &d), (Method::Whole, None));
        let fenced = "x\n```json\n{\"t\":[{\"k\":1,\"k\":2}]}\n```\n```\n{\"a\":1}\n```";
        assert_eq!(keys(fenced, &d), (Method::Fence, one("$.t[0].k")));
        let last = ExtractOptions { pick: Pick::Last, ..d };
        assert_eq!(keys(fenced, &last), (Method::Fence, None));
        let prose = r#"Sure: {"a": {"b": 1, "b": 2}} and {"c": 1, "c": 2}"#;
        assert_eq!(keys(prose, &d), (Method::Prose, one("$.a.b")));
        assert_eq!(keys(prose, &last), (Method::Prose, one("$.c")));
        let cut = ExtractOptions { repair: true, ..d };
        assert_eq!(
            keys(r#"Result: {"n": 1, "n": 2, "s": "Jo"#, &cut),
            (Method::Repaired, one("$.n"))
        );
        let strict = ExtractOptions { strict: true, repair: true, ..d };
        assert_eq!(keys(r#"[{"n": 1, "n": 2"#, &strict), (Method::Repaired, one("$[0].n")));
    }

    /// Regtrace's `stripCodeFences`, checked against its TypeScript
    /// (`text.replace(/^```[a-zA-Z]*\n?/, "").replace(/```$/, "").trim()`).
    #[test]
    fn strips_code_fences_as_regtrace_does() {
        fn strip(t: &str) -> (&str, bool) {
            let (s, e, fenced) = strip_code_fences(t);
            (&t[s..e], fenced)
        }
        assert_eq!(strip("```json\n{\"a\": 1}\n```"), ("{\"a\": 1}", true));
        assert_eq!(strip("```\nnull\n```"), ("null", true));
        assert_eq!(strip("```text\n\"Paris\"\n```"), ("\"Paris\"", true));
        // No line break needed after the label; the label is ASCII letters.
        assert_eq!(strip("```json{\"a\":1}```"), ("{\"a\":1}", true));
        assert_eq!(strip("```json5\n1\n```"), ("5\n1", true));
        // Each end alone; only at the very start and the very end.
        assert_eq!(strip("```json\n[1]"), ("[1]", true));
        assert_eq!(strip("[1]```"), ("[1]", true));
        assert_eq!(strip("```json\n[1]\n```\n"), ("[1]\n```", true));
        assert_eq!(strip(" ```json\n[1]\n```"), ("```json\n[1]", true));
        assert_eq!(strip("``````"), ("", true));
        assert_eq!(strip("```"), ("", true));
        // JavaScript's trim: the BOM and Unicode spaces, not U+0085.
        assert_eq!(strip("\u{feff}42\u{3000}"), ("42", false));
        assert_eq!(strip("\u{a0}\u{2028}1\n"), ("1", false));
        assert_eq!(strip("\u{85}1"), ("\u{85}1", false));
        assert_eq!(strip("```\r\n{}\r\n```"), ("{}", true));
        assert_eq!(strip("é"), ("é", false));
    }

    #[test]
    fn repairs_only_when_asked() {
        let text = "Result: {\"name\": \"Jo";
        assert_eq!(get(text), Err(ExtractError::NotFound));
        let r = extract_json(text, &opts(false, Pick::First, true)).unwrap();
        assert_eq!(r.value, json!({"name": "Jo"}));
        assert!(r.repaired);
        assert_eq!(r.start, 8);
        let fenced = "```json\n{\"items\": [1, 2,";
        let r = extract_json(fenced, &opts(false, Pick::First, true)).unwrap();
        assert_eq!(r.value, json!({"items": [1, 2]}));
        assert_eq!(r.metadata()["method"], "repaired");
    }

    /// The complete objects inside a document cut off mid-way are parts of
    /// it, never the document: the cut-off document is the candidate in
    /// their place (closed with `repair`, else an error), so a fragment can
    /// never score as the whole answer.
    #[test]
    fn parts_of_a_broken_leading_document_are_never_the_document() {
        let first = opts(false, Pick::First, false);
        for broken in [
            r#"{"a": {"x": 1}, "b": 2,}"#,
            r#"  [{"a": 1}, {"b": 2},]"#,
            r#"{"a": {"x": 1}, // a comment
                "b": 2}"#,
            r#"{"ok": True, "items": [{"sku": "A"}]}"#,
            r#"{"a": {"x": 1}, "b": 2]"#,
            r#"{see {"a": 1}}"#,
        ] {
            assert_eq!(
                extract_json(broken, &first).err(),
                Some(ExtractError::NotFound),
                "{broken}"
            );
        }
        // A bracket of the prose before a document, and a document followed
        // by prose, are not broken documents.
        for (text, want) in [
            (r#"[Answer] {"a": 1}"#, json!({"a": 1})),
            (r#"{"a": 1} is the answer {"b": 2}"#, json!({"a": 1})),
            (r#"{broken {"x": 1}} then {"a": 1}"#, json!({"a": 1})),
            (r#"Note {see {"a": 1}}"#, json!({"a": 1})),
        ] {
            let got = extract_json(text, &first).map(|e| e.value);
            assert_eq!(got, Ok(want), "{text}");
        }
    }

    #[test]
    fn parts_of_a_cut_off_document_are_never_the_document() {
        use Pick::{First, Last, Only};
        let cut = r#"{"wrapper": {"city": "Paris"}, "note": "cut her"#;
        let prose_cut = r#"Here: {"a": {"b": 1}, "c": tr"#;
        let array_cut = r#"[{"a": 1}, {"b": 2"#;
        let both = r#"{"a": 1} then {"x": {"y": 2}, "z": "cu"#;
        let cut_at = |at| Err(ExtractError::CutOff { at });
        type Want = Result<(Value, Method, usize), ExtractError>;
        let cases: [(&str, Pick, Want); 9] = [
            (cut, First, cut_at(0)),
            (prose_cut, First, cut_at(6)),
            (array_cut, Last, cut_at(0)),
            (array_cut, Only, cut_at(0)),
            (both, First, Ok((json!({"a": 1}), Method::Prose, 2))),
            (both, Last, cut_at(14)),
            (both, Only, Err(ExtractError::Ambiguous { count: 2 })),
            // A stray bracket of the prose, no document: the object after it.
            (r#"I think [maybe {"a": 1}"#, First, Ok((json!({"a": 1}), Method::Prose, 1))),
            (r#"I think [maybe"#, First, Err(ExtractError::NotFound)),
        ];
        for (text, pick, want) in cases {
            let got = extract_json(text, &opts(false, pick, false))
                .map(|e| (e.value, e.method, e.candidates));
            assert_eq!(got, want, "{text} {pick:?}");
        }
        // With `repair` the cut-off document is what the model meant.
        for (text, pick, want) in [
            (cut, First, json!({"wrapper": {"city": "Paris"}, "note": "cut her"})),
            (prose_cut, Last, json!({"a": {"b": 1}})),
            (array_cut, First, json!([{"a": 1}, {"b": 2}])),
            (both, Last, json!({"x": {"y": 2}, "z": "cu"})),
            (both, First, json!({"a": 1})),
        ] {
            let e = extract_json(text, &opts(false, pick, true)).unwrap();
            assert_eq!(e.value, want, "{text} {pick:?}");
        }
        assert_eq!(
            ExtractError::CutOff { at: 6 }.to_string(),
            "the JSON document at byte 6 is cut off before its end (repair: true closes it)"
        );
    }

    /// Every combination of the options.
    fn all_opts() -> Vec<ExtractOptions> {
        let mut all = Vec::new();
        for strict in [false, true] {
            for pick in [Pick::First, Pick::Last, Pick::Only] {
                for repair in [false, true] {
                    all.push(opts(strict, pick, repair));
                }
            }
        }
        all
    }

    /// What holds for any text under any options; the error is the first
    /// broken invariant.
    fn invariants(text: &str, o: &ExtractOptions) -> Result<(), String> {
        let got = extract_json(text, o);
        let fail = |what: &str| Err(format!("{what}: {text:?} with {o:?} gave {got:?}"));
        let e = match &got {
            Ok(e) => e,
            Err(ExtractError::Ambiguous { count }) if o.pick == Pick::Only && *count > 1 => {
                return Ok(());
            }
            Err(ExtractError::Invalid { .. }) if o.strict => return Ok(()),
            Err(ExtractError::NotFound) if !o.strict => return Ok(()),
            Err(ExtractError::CutOff { at }) if !o.strict && !o.repair => {
                // A cut-off document starts at a bracket that never closes.
                return if text[*at..].starts_with(['{', '[']) {
                    Ok(())
                } else {
                    fail("a cut-off document not at a bracket")
                };
            }
            Err(_) => return fail("an error these options cannot give"),
        };
        if !(e.start <= e.end && e.end <= text.len()) {
            return fail("span outside the text");
        }
        if !(text.is_char_boundary(e.start) && text.is_char_boundary(e.end)) {
            return fail("span not on character boundaries");
        }
        let span = &text[e.start..e.end];
        if span.trim() != span || span.is_empty() {
            return fail("span not trimmed");
        }
        if e.candidates == 0 || (o.pick == Pick::Only && e.candidates > 1) {
            return fail("candidate count");
        }
        if e.repaired != (e.method == Method::Repaired) {
            return fail("`repaired` disagrees with the method");
        }
        match e.method {
            Method::Whole | Method::Fence | Method::Prose => {
                if crate::duplicate_keys::parse(span)
                    != Ok((e.value.clone(), e.duplicate_keys.clone()))
                {
                    return fail("the value does not re-parse from its span");
                }
            }
            Method::Repaired => {
                if !o.repair {
                    return fail("repaired without `repair`");
                }
                if repair::repair(span).map(|c| (c.value, c.duplicate_keys))
                    != Some((e.value.clone(), e.duplicate_keys.clone()))
                {
                    return fail("the value is not the repaired span");
                }
            }
        }
        if matches!(e.method, Method::Whole | Method::Repaired) && e.candidates != 1 {
            return fail("whole and repaired documents are single candidates");
        }
        if e.method == Method::Whole && span != text.trim() {
            return fail("a whole document spans the whole trimmed text");
        }
        if o.strict && !matches!(e.method, Method::Whole | Method::Repaired) {
            return fail("strict took a part of the text");
        }
        if e.method == Method::Prose && !(e.value.is_object() || e.value.is_array()) {
            return fail("a scalar in prose");
        }
        // The picks agree on the candidates; `only` is `first` when there
        // is one.
        let first = extract_json(text, &ExtractOptions { pick: Pick::First, ..*o });
        let only = extract_json(text, &ExtractOptions { pick: Pick::Only, ..*o });
        match (&first, &only) {
            (Ok(f), Ok(n)) if f.candidates == 1 && f == n => {}
            (Ok(f), Err(ExtractError::Ambiguous { count })) if f.candidates == *count => {}
            (Err(a), Err(b)) if a == b => {}
            _ => return fail(&format!("first {first:?} and only {only:?} disagree")),
        }
        if e.candidates != first.as_ref().map_or(0, |f| f.candidates) {
            return fail("the candidate count depends on the pick");
        }
        Ok(())
    }

    #[test]
    fn odd_input_keeps_the_invariants() {
        let odd = [
            "{",
            "}",
            "[}",
            "\"",
            "```",
            "~~~\n",
            "é{\"é\":\"é",
            "{\"a\\",
            "{\"a\\u12",
            "`{`}`",
            "",
            " ",
            "[1] [2]",
            "```json\n1\n```",
            "```\n{\n```",
            "{\"a\": [1, {\"b\": 2}",
        ];
        for t in odd {
            for o in all_opts() {
                if let Err(e) = invariants(t, &o) {
                    panic!("{e}");
                }
            }
        }
        // And what they come to by default and with repair.
        let repair = opts(false, Pick::Last, true);
        let found = |t: &str, o: &ExtractOptions| extract_json(t, o).map(|e| (e.value, e.method));
        let d = ExtractOptions::default();
        for t in ["{", "}", "[}", "\"", "```", "~~~\n", "`{`}`", ""] {
            assert_eq!(found(t, &d), Err(ExtractError::NotFound), "{t:?}");
        }
        assert_eq!(found("{", &repair), Ok((json!({}), Method::Repaired)));
        assert_eq!(found("é{\"é\":\"é", &repair), Ok((json!({"é": "é"}), Method::Repaired)));
        assert_eq!(found("[1] [2]", &repair), Ok((json!([2]), Method::Prose)));
        assert_eq!(found("```json\n1\n```", &d), Ok((json!(1), Method::Fence)));
        assert_eq!(
            found("{\"a\": [1, {\"b\": 2}", &repair),
            Ok((json!({"a": [1, {"b": 2}]}), Method::Repaired))
        );
    }

    proptest::proptest! {
        #[test]
        fn spans_are_valid_for_any_text(
            text in "[{}\\[\\]\",:a-c0-9 é\n`~\\\\]{0,60}",
            strict in proptest::bool::ANY,
            pick in proptest::sample::select(vec![Pick::First, Pick::Last, Pick::Only]),
            repair in proptest::bool::ANY,
        ) {
            let o = opts(strict, pick, repair);
            if let Err(e) = invariants(&text, &o) {
                return Err(proptest::test_runner::TestCaseError::fail(e));
            }
        }
    }
}
