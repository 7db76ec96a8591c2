//! How an input becomes JSON: the one rule every JSON metric shares.
//!
//! A JSON metric reads its `output` and `reference` (and any other JSON
//! input) through [`decode`]. A value that is not a string is used as it
//! is. A string is decided by the `decode` option:
//!
//! * `auto` (the default): the text is JSON when it parses as a whole
//!   (`"{\"a\": 1}"`, `"42"`, `"\"text\""`); else a document is looked for
//!   in a code fence, then in the prose around it (objects and arrays
//!   only; [`crate::extract`]); with `repair: true` a document cut off at
//!   the end is closed. A text with no document in it stays a string,
//!   unless it starts like one (`{` or `[`): then it is broken JSON and the
//!   score is `invalid` (the complete objects inside it are parts of it,
//!   never taken for it); so is a document cut off before its end, whose
//!   complete inner objects are never taken for it
//!   ([`crate::extract::ExtractError::CutOff`]).
//! * `json`: the whole text must be one JSON document (with `repair`, a
//!   cut-off one is closed), else the score is `invalid`. Only JSON white
//!   space (space, tab, line feed, carriage return) may surround it, as
//!   Python's `json.loads` wants: `"\u00a01"` is not JSON text.
//! * [`Mode::Regtrace`] (`json_structural`'s `auto`): first as Regtrace
//!   reads text ([`crate::extract::strip_code_fences`], then the JSON
//!   parse); when that gives no document, as `auto`.
//! * `value`: strings are strings (the inputs are JSON values already).
//!
//! What was done is recorded per input ([`Decoded::record`]) in the
//! score's metadata under `decode` and in the execution details, with the
//! keys the document repeated if it did ([`crate::duplicate_keys`]): of a
//! repeated key the last member is kept, as everywhere. An input that is
//! a value already is recorded only when it repeated keys (which only a
//! reader of its text can know: [`record_value`]).

use std::borrow::Cow;

use serde_json::{Value, json};

use crate::duplicate_keys::DuplicateKeys;
use crate::extract::{ExtractError, ExtractOptions, Pick, extract_json};

/// How a string input becomes JSON (the `decode` option).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// JSON text, a fenced or embedded document, else the string itself.
    #[default]
    Auto,
    /// The whole text must be one JSON document, with only JSON white
    /// space around it (Python's `json.loads`).
    Json,
    /// `auto` after Regtrace's reading: the text with a leading
    /// ```` ```lang ```` and a trailing ```` ``` ```` removed and trimmed as
    /// JavaScript trims ([`crate::extract::strip_code_fences`]) is the
    /// document when it parses (any JSON value, fenced or not); else as
    /// [`Mode::Auto`]. What `json_structural` reads with `decode: auto`.
    Regtrace,
    /// Strings stay strings.
    Value,
}

/// The decode options of a metric: `decode`, `repair`, `pick`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DecodeOptions {
    /// How strings are read.
    pub mode: Mode,
    /// Whether a cut-off document is closed.
    pub repair: bool,
    /// Which document to take when a text holds several.
    pub pick: Pick,
}

impl DecodeOptions {
    /// Strings are strings: inputs are JSON values already.
    pub const VALUES: DecodeOptions =
        DecodeOptions { mode: Mode::Value, repair: false, pick: Pick::First };
}

/// What [`decode`] did with one input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// Not a string: used as it is.
    Value,
    /// A string kept as a string.
    String,
    /// The whole text parsed as JSON.
    Whole,
    /// The body of a code fence.
    Fence,
    /// A document found in prose.
    Prose,
    /// A cut-off document, closed.
    Repaired,
}

impl Method {
    /// The snake_case name, as recorded.
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Value => "value",
            Method::String => "string",
            Method::Whole => "whole",
            Method::Fence => "fence",
            Method::Prose => "prose",
            Method::Repaired => "repaired",
        }
    }
}

/// A decoded input.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded<'a> {
    /// The JSON value, borrowed when the input was used as it is.
    pub value: Cow<'a, Value>,
    /// What was done.
    pub method: Method,
    /// For a document found in a text: where, and among how many.
    pub note: Option<Value>,
    /// The keys the document parsed from the text repeated, if any.
    pub duplicate_keys: Option<DuplicateKeys>,
}

impl Decoded<'_> {
    /// The record of what was done: the method, with the span and the
    /// number of candidates when a document was found in a text, and the
    /// keys the document repeated (`duplicate_keys`) when it did.
    pub fn record(&self) -> Value {
        let mut record = match &self.note {
            Some(n) => n.clone(),
            None => json!({ "method": self.method.as_str() }),
        };
        if let (Some(d), Some(map)) = (&self.duplicate_keys, record.as_object_mut()) {
            map.insert(String::from("duplicate_keys"), d.to_json());
        }
        record
    }

    /// Drops the value without deep recursion.
    pub fn release(self) {
        if let Cow::Owned(v) = self.value {
            crate::json::drop_deep(v);
        }
    }
}

/// The record of an input used as the value it is, when its text (a
/// dataset row, say) repeated keys: `{"method": "value", "duplicate_keys":
/// ...}`.
pub fn record_value(keys: &DuplicateKeys) -> Value {
    json!({ "method": Method::Value.as_str(), "duplicate_keys": keys.to_json() })
}

/// Decodes one input value (see the module documentation).
///
/// # Errors
/// The reason the text is not JSON, when the mode requires JSON or the
/// text starts like a document that does not parse.
pub fn decode<'a>(value: &'a Value, opts: &DecodeOptions) -> Result<Decoded<'a>, String> {
    let Value::String(text) = value else {
        return Ok(Decoded {
            value: Cow::Borrowed(value),
            method: Method::Value,
            note: None,
            duplicate_keys: None,
        });
    };
    if opts.mode == Mode::Value {
        return Ok(Decoded {
            value: Cow::Borrowed(value),
            method: Method::String,
            note: None,
            duplicate_keys: None,
        });
    }
    if opts.mode == Mode::Regtrace
        && let Some(d) = regtrace(text)
    {
        return Ok(d);
    }
    if opts.mode == Mode::Json && !json_padded(text) {
        // Python's `json.loads` takes only JSON white space around the
        // document; serde_json's message says where the text goes wrong.
        return Err(match crate::json::parse(text) {
            Err(e) => format!("not valid JSON: {e}"),
            Ok(_) => String::from("not valid JSON"),
        });
    }
    let ex =
        ExtractOptions { strict: opts.mode == Mode::Json, pick: opts.pick, repair: opts.repair };
    match extract_json(text, &ex) {
        Ok(x) => {
            let method = match x.method {
                crate::extract::Method::Whole => Method::Whole,
                crate::extract::Method::Fence => Method::Fence,
                crate::extract::Method::Prose => Method::Prose,
                crate::extract::Method::Repaired => Method::Repaired,
            };
            let note = (method != Method::Whole).then(|| x.metadata());
            let duplicate_keys = x.duplicate_keys;
            Ok(Decoded { value: Cow::Owned(x.value), method, note, duplicate_keys })
        }
        Err(ExtractError::NotFound) if !looks_like_json(text) => Ok(Decoded {
            value: Cow::Borrowed(value),
            method: Method::String,
            note: None,
            duplicate_keys: None,
        }),
        Err(ExtractError::NotFound) => Err(match crate::json::parse(text.trim()) {
            Err(e) => format!("not valid JSON: {e}"),
            Ok(_) => String::from("not valid JSON"),
        }),
        Err(e) => Err(e.to_string()),
    }
}

/// Whether the white space around `text` is JSON white space only (space,
/// tab, line feed, carriage return), as Python's `json.loads` requires.
fn json_padded(text: &str) -> bool {
    let inner = crate::extract::json_trim(text);
    inner.trim() == inner
}

/// Regtrace's reading of a text: its `stripCodeFences`, then `JSON.parse`
/// (any value, a scalar in a fence included). `None` when that does not
/// parse.
fn regtrace(text: &str) -> Option<Decoded<'static>> {
    let (start, end, fenced) = crate::extract::strip_code_fences(text);
    let (value, duplicate_keys) = crate::duplicate_keys::parse(text.get(start..end)?).ok()?;
    let (method, note) = if fenced {
        let note = json!({"method": Method::Fence.as_str(), "span": [start, end],
                          "candidates": 1, "repaired": false});
        (Method::Fence, Some(note))
    } else {
        (Method::Whole, None)
    };
    Some(Decoded { value: Cow::Owned(value), method, note, duplicate_keys })
}

/// Whether a text starts like a JSON object or array.
pub fn looks_like_json(text: &str) -> bool {
    text.trim_start().starts_with(['{', '['])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn auto(v: Value) -> Result<(Value, Method), String> {
        decode(&v, &DecodeOptions::default()).map(|d| (d.value.into_owned(), d.method))
    }

    #[test]
    fn values_are_used_as_they_are() {
        assert_eq!(auto(json!({"a": 1})), Ok((json!({"a": 1}), Method::Value)));
        assert_eq!(auto(json!(3)), Ok((json!(3), Method::Value)));
    }

    #[test]
    fn auto_reads_json_text_fences_and_prose() {
        assert_eq!(auto(json!("{\"a\": 1}")), Ok((json!({"a": 1}), Method::Whole)));
        assert_eq!(auto(json!(" 42 ")), Ok((json!(42), Method::Whole)));
        assert_eq!(auto(json!("\"x\"")), Ok((json!("x"), Method::Whole)));
        assert_eq!(auto(json!("```json\n[1]\n```")), Ok((json!([1]), Method::Fence)));
        assert_eq!(auto(json!("Sure: {\"a\": 2} ok")), Ok((json!({"a": 2}), Method::Prose)));
    }

    #[test]
    fn auto_keeps_plain_text_and_rejects_broken_json() {
        assert_eq!(auto(json!("Paris")), Ok((json!("Paris"), Method::String)));
        let e = auto(json!("{not json")).unwrap_err();
        assert!(e.starts_with("not valid JSON"), "{e}");
        assert!(auto(json!("[1, 2")).is_err());
    }

    #[test]
    fn json_mode_wants_the_whole_text() {
        let o = DecodeOptions { mode: Mode::Json, ..DecodeOptions::default() };
        assert!(decode(&json!("Paris"), &o).is_err());
        assert!(decode(&json!("Sure: {\"a\": 2}"), &o).is_err());
        assert_eq!(decode(&json!("[1]"), &o).unwrap().value.into_owned(), json!([1]));
        let r = DecodeOptions { repair: true, ..o };
        assert_eq!(decode(&json!("[1, 2"), &r).unwrap().method, Method::Repaired);
    }

    /// Python's `json.loads` takes only space, tab, line feed and carriage
    /// return around a document; `auto` trims any Unicode white space.
    #[test]
    fn json_mode_takes_only_json_white_space_around() {
        let o = DecodeOptions { mode: Mode::Json, ..DecodeOptions::default() };
        let r = DecodeOptions { repair: true, ..o };
        for text in ["\u{a0}1", "\u{85}1", "1\u{3000}", "\u{b}1", "\u{c}[1]", "\u{2028}{}"] {
            let e = decode(&json!(text), &o).unwrap_err();
            assert!(e.starts_with("not valid JSON: "), "{text:?}: {e}");
            assert!(decode(&json!(text), &r).is_err(), "{text:?}");
            assert!(auto(json!(text)).is_ok(), "{text:?}");
        }
        assert_eq!(
            decode(&json!("\u{a0}1"), &o).unwrap_err(),
            "not valid JSON: expected value at line 1 column 1"
        );
        assert_eq!(
            decode(&json!("1\u{3000}"), &o).unwrap_err(),
            "not valid JSON: trailing characters at line 1 column 2"
        );
        let text = json!(" \t\r\n[1]\n");
        let padded = decode(&text, &o).unwrap();
        assert_eq!((padded.value.into_owned(), padded.method), (json!([1]), Method::Whole));
    }

    /// Regtrace's reading first (any value, fenced or not, trimmed as
    /// JavaScript trims), then `auto`'s search.
    #[test]
    fn regtrace_mode_reads_as_regtrace_then_as_auto() {
        let o = DecodeOptions { mode: Mode::Regtrace, ..DecodeOptions::default() };
        let read = |t: &str| {
            let v = json!(t);
            decode(&v, &o).map(|d| (d.value.into_owned(), d.method))
        };
        assert_eq!(read("```\nnull\n```"), Ok((json!(null), Method::Fence)));
        assert_eq!(read("```text\n\"Paris\"\n```"), Ok((json!("Paris"), Method::Fence)));
        assert_eq!(read("```json{\"a\":1}```"), Ok((json!({"a": 1}), Method::Fence)));
        assert_eq!(read("\u{feff}42"), Ok((json!(42), Method::Whole)));
        assert_eq!(read(" {\"a\": 1}\n"), Ok((json!({"a": 1}), Method::Whole)));
        // Where Regtrace's parse fails, `auto` looks further.
        assert_eq!(read("```json\n[1]\n```\n"), Ok((json!([1]), Method::Fence)));
        assert_eq!(read("Sure: {\"a\": 2} ok"), Ok((json!({"a": 2}), Method::Prose)));
        assert_eq!(read("Paris"), Ok((json!("Paris"), Method::String)));
        assert!(read("{not json").is_err());
        // `auto` itself keeps a fenced scalar as text and does not trim the BOM.
        assert_eq!(auto(json!("```\n42\n```")).unwrap().1, Method::String);
        assert_eq!(auto(json!("\u{feff}42")).unwrap().1, Method::String);
        // The record: a fence with its span, as `auto` writes it.
        let fenced = json!("```\n42\n```");
        let d = decode(&fenced, &o).unwrap();
        assert_eq!(
            d.record(),
            json!({"method": "fence", "span": [4, 6], "candidates": 1, "repaired": false})
        );
        let repeated = json!("```json\n{\"a\": 1, \"a\": 2}\n```");
        let dup = decode(&repeated, &o).unwrap();
        assert_eq!(dup.value.into_owned(), json!({"a": 2}));
        assert_eq!(dup.duplicate_keys.map(|k| k.to_json()["count"].clone()), Some(json!(1)));
    }

    #[test]
    fn the_record_names_repeated_keys() {
        let record = |v: Value, o: &DecodeOptions| decode(&v, o).unwrap().record();
        let d = DecodeOptions::default();
        let one = |path: &str| json!({"count": 1, "paths": [{"path": path, "occurrences": 2}]});
        assert_eq!(
            record(json!("{\"total\": 1, \"total\": 2}"), &d),
            json!({"method": "whole", "duplicate_keys": one("$.total")})
        );
        assert_eq!(record(json!("{\"total\": 1}"), &d), json!({"method": "whole"}));
        let fenced = json!("```json\n[{\"a\": {\"b\": 1, \"b\": 2, \"b\": 3}}]\n```");
        assert_eq!(
            record(fenced, &d),
            json!({"method": "fence", "span": [8, 41], "candidates": 1, "repaired": false,
                   "duplicate_keys": {"count": 1, "paths": [{"path": "$[0].a.b", "occurrences": 3}]}})
        );
        let prose = json!("Sure: {\"a\": 1, \"a\": 2} ok");
        assert_eq!(record(prose, &d)["duplicate_keys"], one("$.a"));
        let r = DecodeOptions { repair: true, ..d };
        let cut = record(json!("{\"a\": 1, \"a\": [2"), &r);
        assert_eq!((&cut["method"], &cut["duplicate_keys"]), (&json!("repaired"), &one("$.a")));
        // The last member is the one decoded.
        let v = json!("{\"a\": 1, \"a\": 2}");
        assert_eq!(decode(&v, &d).unwrap().value.into_owned(), json!({"a": 2}));
        // Strings kept as strings and values have no keys of their own.
        assert_eq!(
            record(json!("{\"a\": 1, \"a\": 2}"), &DecodeOptions::VALUES),
            json!({"method": "string"})
        );
        assert_eq!(record(json!({"a": 1}), &d), json!({"method": "value"}));
        let keys = crate::duplicate_keys::DuplicateKeys::in_text("[{\"k\":1,\"k\":2}]").unwrap();
        assert_eq!(
            record_value(&keys),
            json!({"method": "value", "duplicate_keys": one("$[0].k")})
        );
    }

    #[test]
    fn value_mode_keeps_strings() {
        let text = json!("{\"a\": 1}");
        let d = decode(&text, &DecodeOptions::VALUES).unwrap();
        assert_eq!((d.value.into_owned(), d.method), (json!("{\"a\": 1}"), Method::String));
    }
}
