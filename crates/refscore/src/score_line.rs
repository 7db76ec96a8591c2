//! A [`Score`] written as one line of JSON straight into a buffer: the
//! bytes `serde_json` writes for it, without its serializer's work per
//! member (the member names are written as they are, and a text with
//! nothing to escape is copied).
//!
//! `compare`'s score lines are most of what it writes; through
//! `serde_json` a third of a line's cost was writing member names that
//! never change. The property tests hold this writer to `serde_json`'s
//! output for any score.

use serde_json::ser::{CompactFormatter, Formatter};

use crate::detail::{Check, Detail};
use crate::score::Score;

impl Score {
    /// Serialises the score as one line of JSON (as `serde_json` would).
    pub fn to_json(&self) -> String {
        let mut out = Vec::with_capacity(256);
        write_score(&mut out, None, self);
        // Written from UTF-8 texts only.
        String::from_utf8(out)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }
}

/// Writes `score` as `serde_json::to_writer` would, with `id` (a row's)
/// as its first member when given.
pub(crate) fn write_score(out: &mut Vec<u8>, id: Option<&str>, score: &Score) {
    out.push(b'{');
    if let Some(id) = id {
        out.extend_from_slice(b"\"id\":");
        text(out, id);
        out.push(b',');
    }
    out.extend_from_slice(b"\"name\":");
    text(out, &score.name);
    out.extend_from_slice(b",\"score\":");
    number(out, score.score);
    optional_text(out, b",\"label\":", score.label.as_deref());
    optional_text(out, b",\"explanation\":", score.explanation.as_deref());
    out.extend_from_slice(b",\"direction\":\"");
    out.extend_from_slice(score.direction.as_str().as_bytes());
    out.extend_from_slice(b"\",\"kind\":\"");
    out.extend_from_slice(score.kind.as_str().as_bytes());
    out.push(b'"');
    if !score.metadata.is_empty() {
        out.extend_from_slice(b",\"metadata\":{");
        for (i, (key, value)) in score.metadata.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            text(out, key);
            out.push(b':');
            value_json(out, value);
        }
        out.push(b'}');
    }
    if !score.details.is_empty() {
        out.extend_from_slice(b",\"details\":[");
        let mut path = String::new();
        for (i, d) in score.details.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            detail(out, d, &mut path);
        }
        out.push(b']');
    }
    out.push(b'}');
}

/// One detail; `path` is room to write a path check in.
pub(crate) fn detail(out: &mut Vec<u8>, d: &Detail, path: &mut String) {
    out.extend_from_slice(b"{\"check\":");
    match &d.check {
        Check::Path(_) => {
            path.clear();
            d.check.push_to(path);
            text(out, path);
        }
        Check::Name(n) => text(out, n),
    }
    out.extend_from_slice(if d.passed { b",\"passed\":true" } else { b",\"passed\":false" });
    out.extend_from_slice(b",\"outcome\":\"");
    out.extend_from_slice(d.outcome.as_str().as_bytes());
    out.push(b'"');
    optional_text(out, b",\"expected\":", d.expected.as_deref());
    optional_text(out, b",\"actual\":", d.actual.as_deref());
    if d.score.is_some() {
        out.extend_from_slice(b",\"score\":");
        number(out, d.score);
    }
    optional_text(out, b",\"message\":", d.message.as_deref());
    out.push(b'}');
}

/// `member` (`,"name":`) and the text, when there is one: serde skips
/// the member otherwise.
pub(crate) fn optional_text(out: &mut Vec<u8>, member: &[u8], value: Option<&str>) {
    if let Some(value) = value {
        out.extend_from_slice(member);
        text(out, value);
    }
}

/// A JSON string, escaped as `serde_json` escapes it: runs of bytes
/// that need no escape (found eight at a time) copied as they are.
pub(crate) fn text(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut at = 0;
    loop {
        let end = crate::fast_json::plain_run(bytes, at);
        out.extend_from_slice(&bytes[at..end]);
        let Some(&b) = bytes.get(end) else { break };
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0c => out.extend_from_slice(b"\\f"),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(b"\\u00");
                out.push(HEX[usize::from(b >> 4)]);
                out.push(HEX[usize::from(b & 0xf)]);
            }
        }
        at = end + 1;
    }
    out.push(b'"');
}

/// A number as `serde_json` writes an `Option<f64>`: `null` for none and
/// for what is not finite.
pub(crate) fn number(out: &mut Vec<u8>, x: Option<f64>) {
    match x {
        Some(x) if x.is_finite() => {
            // Writing to a vector cannot fail.
            let _ = CompactFormatter.write_f64(out, x);
        }
        _ => out.extend_from_slice(b"null"),
    }
}

/// Anything else, by `serde_json` (writing to a vector cannot fail).
pub(crate) fn value_json(out: &mut Vec<u8>, value: &(impl serde::Serialize + ?Sized)) {
    let _ = serde_json::to_writer(&mut *out, value);
}

/// Random scores, for the property tests of what writes them.
#[cfg(test)]
pub(crate) mod strategies {
    use proptest::prelude::*;
    use serde_json::{Value, json};

    use crate::detail::{Check, Detail, Outcome};
    use crate::path::{JsonPath, Seg};
    use crate::score::{Direction, Kind, Score};

    pub(crate) fn any_text() -> impl Strategy<Value = String> {
        prop_oneof!["[a-z_.]{0,12}", any::<String>(), "[\"\\\\\u{0}-\u{1f}a-zé€😀]{0,8}",]
    }

    pub(crate) fn any_number() -> impl Strategy<Value = Option<f64>> {
        prop_oneof![
            Just(None),
            any::<f64>().prop_map(Some),
            (0u32..1000).prop_map(|n| Some(f64::from(n) / 8.0)),
        ]
    }

    pub(crate) fn any_outcome() -> impl Strategy<Value = Outcome> {
        prop_oneof![
            Just(Outcome::Match),
            Just(Outcome::Partial),
            Just(Outcome::ValueMismatch),
            Just(Outcome::TypeMismatch),
            Just(Outcome::Missing),
            Just(Outcome::Extra),
            Just(Outcome::Pass),
            Just(Outcome::Fail),
            Just(Outcome::Supported),
            Just(Outcome::Contradicted),
            Just(Outcome::Unverifiable),
        ]
    }

    pub(crate) fn any_detail() -> impl Strategy<Value = Detail> {
        let check = prop_oneof![
            any_text().prop_map(Check::Name),
            proptest::collection::vec(any_text(), 0..4).prop_map(|keys| {
                let segs: Vec<Seg<'_>> = keys
                    .iter()
                    .enumerate()
                    .map(|(i, k)| if i % 2 == 0 { Seg::Key(k) } else { Seg::Index(i) })
                    .collect();
                Check::Path(JsonPath::from_segs(&segs))
            }),
        ];
        (
            check,
            any_outcome(),
            any::<bool>(),
            proptest::option::of(any_text()),
            proptest::option::of(any_text()),
            any_number(),
            proptest::option::of(any_text()),
        )
            .prop_map(|(check, outcome, passed, expected, actual, score, message)| {
                let mut d = Detail::new(check, outcome).passed(passed);
                d.expected = expected;
                d.actual = actual;
                d.score = score;
                d.message = message;
                d
            })
    }

    pub(crate) fn any_score() -> impl Strategy<Value = Score> {
        let direction = prop_oneof![
            Just(Direction::Maximize),
            Just(Direction::Minimize),
            Just(Direction::Neutral)
        ];
        let kind = prop_oneof![Just(Kind::Code), Just(Kind::Llm), Just(Kind::Human)];
        let meta = proptest::collection::btree_map(
            any_text(),
            prop_oneof![
                any::<i64>().prop_map(Value::from),
                any::<f64>().prop_map(Value::from),
                any_text().prop_map(Value::from),
                Just(json!({"k": [true, null, 1.5]})),
            ],
            0..4,
        );
        (
            any_text(),
            any_number(),
            proptest::option::of(any_text()),
            proptest::option::of(any_text()),
            direction,
            kind,
            meta,
            proptest::collection::vec(any_detail(), 0..4),
        )
            .prop_map(
                |(name, score, label, explanation, direction, kind, meta, details)| {
                    let mut s = Score::new(name, None);
                    s.score = score;
                    s.label = label;
                    s.explanation = explanation;
                    s.direction = direction;
                    s.kind = kind;
                    s.metadata = meta.into_iter().collect();
                    s.details = details;
                    s
                },
            )
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::strategies::{any_score, any_text};
    use super::*;
    use crate::detail::Outcome;
    use crate::path::JsonPath;
    use crate::score::Direction;

    fn written(id: Option<&str>, s: &Score) -> String {
        let mut out = Vec::new();
        write_score(&mut out, id, s);
        String::from_utf8(out).unwrap()
    }

    /// What `serde_json` writes, with the id put first.
    fn by_serde(id: Option<&str>, s: &Score) -> String {
        let body = serde_json::to_string(s).unwrap();
        match id {
            None => body,
            Some(id) => format!("{{\"id\":{},{}", serde_json::to_string(id).unwrap(), &body[1..]),
        }
    }

    #[test]
    fn a_full_score_is_written_as_serde_json_writes_it() {
        let mut s = Score::new("json_distance", Some(3.0))
            .with_label("mismatch")
            .with_explanation("3 field(s) differ: \"a\"\n\\ \u{1} é")
            .with_direction(Direction::Minimize)
            .with_meta("differences", 3)
            .with_meta("ratio", 0.1 + 0.2)
            .with_meta("nested", json!({"b": [1, null, "x\"y"], "a": -0.0}));
        s.details = vec![
            Detail::new(Check::Path(JsonPath::parse("$.a['b\\'c'][2]").unwrap()), Outcome::Missing)
                .expected("x")
                .message("Missing key"),
            Detail::new(Check::Name("format.length".into()), Outcome::Pass)
                .actual("tab\there")
                .score(0.5),
        ];
        assert_eq!(written(Some("inv-1"), &s), by_serde(Some("inv-1"), &s));
        assert_eq!(written(Some("a\"b"), &s), by_serde(Some("a\"b"), &s));
        assert_eq!(written(None, &s), by_serde(None, &s));
    }

    #[test]
    fn a_score_without_a_number_writes_null() {
        let mut s = Score::new("x", None);
        assert_eq!(written(None, &s), by_serde(None, &s));
        // Not finite: as serde_json writes it (null), though scores are kept finite.
        s.score = Some(f64::NAN);
        assert_eq!(written(None, &s), by_serde(None, &s));
    }

    proptest! {
        #[test]
        fn any_score_is_written_as_serde_json_writes_it(s in any_score(), id in any_text()) {
            prop_assert_eq!(written(Some(&id), &s), by_serde(Some(&id), &s));
            prop_assert_eq!(written(None, &s), by_serde(None, &s));
        }
    }
}
