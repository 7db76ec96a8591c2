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
//! [`Pick`] chooses among several candidates. The prose search does at most
//! [`WORK_PER_BYTE`] units of work per byte of text (plus a fixed
//! allowance), so adversarial text cannot make it quadratic; past the
//! budget it returns what it found so far.

use serde::Serialize;
use serde_json::{Value, json};

use crate::error::ConfigError;
use crate::metrics::options::Opts;

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

impl ExtractOptions {
    /// Reads the options `strict` (bool), `pick` (`first`, `last`, `only`)
    /// and `repair` (bool).
    pub(crate) fn from_opts(o: &Opts<'_>) -> Result<Self, ConfigError> {
        let pick = match o.choice("pick", &["first", "last", "only"], "first")?.as_str() {
            "last" => Pick::Last,
            "only" => Pick::Only,
            _ => Pick::First,
        };
        Ok(ExtractOptions {
            strict: o.bool("strict", false)?,
            pick,
            repair: o.bool("repair", false)?,
        })
    }
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
    /// `strict` and the text is not one JSON document.
    #[error("not valid JSON: {message}")]
    Invalid {
        /// The parse error, with line and column.
        message: String,
    },
}

/// A candidate: a parsed value and its byte span.
#[derive(Debug)]
struct Found {
    value: Value,
    start: usize,
    end: usize,
}

/// Finds the JSON document in `text` (see the module documentation).
///
/// # Errors
/// [`ExtractError::NotFound`] when there is none, `Ambiguous` for several
/// with `pick: only`, `Invalid` in strict mode.
pub fn extract_json(text: &str, opts: &ExtractOptions) -> Result<Extracted, ExtractError> {
    let start = text.len() - text.trim_start().len();
    let trimmed = text.trim();
    let end = start + trimmed.len();
    let whole =
        |value, method, repaired| Extracted { value, method, start, end, candidates: 1, repaired };
    let parse_error = match crate::json::parse(trimmed) {
        Ok(v) => return Ok(whole(v, Method::Whole, false)),
        Err(e) => e,
    };
    if opts.strict {
        if opts.repair
            && let Some(v) = repair::repair(trimmed)
        {
            return Ok(whole(v, Method::Repaired, true));
        }
        return Err(ExtractError::Invalid { message: parse_error });
    }
    let fences = fence::scan(text);
    if !fences.found.is_empty() {
        return choose(fences.found, Method::Fence, opts.pick);
    }
    let prose = prose::scan(text);
    if !prose.found.is_empty() {
        return choose(prose.found, Method::Prose, opts.pick);
    }
    if opts.repair {
        let tries = [fences.unclosed, prose.unclosed.map(|s| (s, text.len()))];
        for (s, e) in tries.into_iter().flatten() {
            let Some(part) = text.get(s..e) else { continue };
            let lead = part.len() - part.trim_start().len();
            let part = part.trim();
            if let Some(value) = repair::repair(part) {
                let s = s + lead;
                return Ok(Extracted {
                    value,
                    method: Method::Repaired,
                    start: s,
                    end: s + part.len(),
                    candidates: 1,
                    repaired: true,
                });
            }
        }
    }
    Err(ExtractError::NotFound)
}

/// Takes the candidate `pick` asks for.
fn choose(mut found: Vec<Found>, method: Method, pick: Pick) -> Result<Extracted, ExtractError> {
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
    Ok(Extracted {
        value: f.value,
        method,
        start: f.start,
        end: f.end,
        candidates,
        repaired: false,
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

    #[test]
    fn never_panics_on_odd_input() {
        let o = opts(false, Pick::Last, true);
        for t in
            ["{", "}", "[}", "\"", "```", "~~~\n", "é{\"é\":\"é", "{\"a\\", "{\"a\\u12", "`{`}`"]
        {
            let _ = extract_json(t, &o);
            let _ = extract_json(t, &ExtractOptions::default());
        }
    }

    proptest::proptest! {
        #[test]
        fn spans_are_valid_for_any_text(
            text in "[{}\\[\\]\",:a-c0-9 é\n`~\\\\]{0,60}",
            last in proptest::bool::ANY,
            repair in proptest::bool::ANY,
        ) {
            let o = opts(false, if last { Pick::Last } else { Pick::First }, repair);
            if let Ok(e) = extract_json(&text, &o) {
                proptest::prop_assert!(e.start <= e.end && e.end <= text.len());
                proptest::prop_assert!(text.is_char_boundary(e.start) && text.is_char_boundary(e.end));
                if !e.repaired {
                    proptest::prop_assert_eq!(crate::json::parse(&text[e.start..e.end]).ok(), Some(e.value));
                }
            }
        }
    }
}
