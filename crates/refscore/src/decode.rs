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
//!   score is `invalid`.
//! * `json`: the whole text must be one JSON document (with `repair`, a
//!   cut-off one is closed), else the score is `invalid`.
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
    /// The whole text must be one JSON document.
    Json,
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
