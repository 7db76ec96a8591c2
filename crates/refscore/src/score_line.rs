//! A [`Score`] written as one line of JSON straight into a buffer: the
//! bytes `serde_json` writes for it, without its serializer's work per
//! member (the member names are written as they are, and a text with
//! nothing to escape is copied).
//!
//! `compare`'s score lines are most of what it writes; through
//! `serde_json` a third of a line's cost was writing member names that
//! never change. The property tests hold this writer to `serde_json`'s
//! output for any score. It writes into a `String` (every piece is UTF-8
//! text), so a line is never checked for UTF-8 after it is written.

use serde_json::Value;
use serde_json::ser::{CompactFormatter, Formatter};

use crate::detail::{Check, Detail};
use crate::number::push_integer;
use crate::score::Score;

impl Score {
    /// Serialises the score as one line of JSON (as `serde_json` would).
    pub fn to_json(&self) -> String {
        let mut out = String::with_capacity(256);
        write_score(&mut out, None, self);
        out
    }
}

/// Writes `score` as `serde_json::to_writer` would, with `id` (a row's)
/// as its first member when given.
pub(crate) fn write_score(out: &mut String, id: Option<&str>, score: &Score) {
    out.push('{');
    if let Some(id) = id {
        out.push_str("\"id\":");
        text(out, id);
        out.push(',');
    }
    out.push_str("\"name\":");
    text(out, &score.name);
    out.push_str(",\"score\":");
    number(out, score.score);
    optional_text(out, ",\"label\":", score.label.as_deref());
    optional_text(out, ",\"explanation\":", score.explanation.as_deref());
    out.push_str(",\"direction\":\"");
    out.push_str(score.direction.as_str());
    out.push_str("\",\"kind\":\"");
    out.push_str(score.kind.as_str());
    out.push('"');
    if !score.metadata.is_empty() {
        out.push_str(",\"metadata\":");
        json_object(out, &score.metadata);
    }
    if !score.details.is_empty() {
        out.push_str(",\"details\":[");
        let mut path = String::new();
        for (i, d) in score.details.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            detail(out, d, &mut path);
        }
        out.push(']');
    }
    out.push('}');
}

/// One detail; `path` is room to write a path check in.
pub(crate) fn detail(out: &mut String, d: &Detail, path: &mut String) {
    out.push_str("{\"check\":");
    match &d.check {
        Check::Path(_) => {
            path.clear();
            d.check.push_to(path);
            text(out, path);
        }
        Check::Name(n) => text(out, n),
    }
    out.push_str(if d.passed { ",\"passed\":true" } else { ",\"passed\":false" });
    out.push_str(",\"outcome\":\"");
    out.push_str(d.outcome.as_str());
    out.push('"');
    optional_text(out, ",\"expected\":", d.expected.as_deref());
    optional_text(out, ",\"actual\":", d.actual.as_deref());
    if d.score.is_some() {
        out.push_str(",\"score\":");
        number(out, d.score);
    }
    optional_text(out, ",\"message\":", d.message.as_deref());
    out.push('}');
}

/// `member` (`,"name":`) and the text, when there is one: serde skips
/// the member otherwise.
pub(crate) fn optional_text(out: &mut String, member: &str, value: Option<&str>) {
    if let Some(value) = value {
        out.push_str(member);
        text(out, value);
    }
}

/// A JSON string, escaped as `serde_json` escapes it: runs of bytes
/// that need no escape (found eight at a time) copied as they are.
pub(crate) fn text(out: &mut String, s: &str) {
    out.reserve(s.len() + 2);
    out.push('"');
    let mut at = 0;
    loop {
        // Runs end at an ASCII byte: `at` and `end` are character bounds.
        let end = crate::fast_json::plain_run(s.as_bytes(), at);
        out.push_str(&s[at..end]);
        let Some(&b) = s.as_bytes().get(end) else { break };
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.push_str("\\u00");
                out.push(char::from(HEX[usize::from(b >> 4)]));
                out.push(char::from(HEX[usize::from(b & 0xf)]));
            }
        }
        at = end + 1;
    }
    out.push('"');
}

/// A number as `serde_json` writes an `Option<f64>`: `null` for none and
/// for what is not finite.
pub(crate) fn number(out: &mut String, x: Option<f64>) {
    match x {
        Some(x) if x.is_finite() => {
            // At most 24 bytes (`-1.7976931348623157e308`), all ASCII.
            let mut digits = std::io::Cursor::new([0u8; 32]);
            let _ = CompactFormatter.write_f64(&mut digits, x);
            let n = usize::try_from(digits.position()).unwrap_or(0);
            out.push_str(std::str::from_utf8(&digits.get_ref()[..n]).unwrap_or("null"));
        }
        _ => out.push_str("null"),
    }
}

/// A JSON value, as `serde_json` writes it; at any depth (the stack
/// grows on the heap as needed, as [`crate::json::clone_deep`]'s does).
pub(crate) fn json_value(out: &mut String, v: &Value) {
    stacker::maybe_grow(64 * 1024, 2 * 1024 * 1024, || match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                push_integer(out, u);
            } else if let Some(i) = n.as_i64() {
                push_integer(out, i);
            } else {
                number(out, n.as_f64());
            }
        }
        Value::String(s) => text(out, s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                json_value(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => json_object(out, map),
    });
}

/// A JSON object's members, as `serde_json` writes them.
fn json_object(out: &mut String, map: &serde_json::Map<String, Value>) {
    out.push('{');
    for (i, (key, value)) in map.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        text(out, key);
        out.push(':');
        json_value(out, value);
    }
    out.push('}');
}

/// Anything else, by `serde_json`.
pub(crate) fn value_json(out: &mut String, value: &(impl serde::Serialize + ?Sized)) {
    out.push_str(&serde_json::to_string(value).unwrap_or_else(|_| String::from("null")));
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

    /// Any JSON value, nested up to 40 levels.
    pub(crate) fn any_json() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            any_text().prop_map(Value::from),
        ];
        leaf.prop_recursive(40, 120, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::btree_map(any_text(), inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
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
                any::<u64>().prop_map(Value::from),
                Just(json!({"k": [true, null, 1.5]})),
                any_json(),
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
        let mut out = String::new();
        write_score(&mut out, id, s);
        out
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

    fn value_written(v: &Value) -> String {
        let mut out = String::new();
        json_value(&mut out, v);
        out
    }

    #[test]
    fn deeply_nested_values_are_written_whole() {
        for depth in [31, 32, 33, 200] {
            let mut v = json!({"a": [1, -2, 2.5, u64::MAX, "x\n", null, false]});
            for i in 0..depth {
                v = if i % 2 == 0 { json!([v, i]) } else { json!({"k": v, "i": i}) };
            }
            assert_eq!(value_written(&v), serde_json::to_string(&v).unwrap(), "{depth}");
        }
        // Deeper than any thread's stack would take by plain recursion:
        // the writer grows its stack as it goes.
        let depth = 100_000;
        let mut v = json!(1);
        for _ in 0..depth {
            v = Value::Array(vec![v]);
        }
        let want = format!("{}1{}", "[".repeat(depth), "]".repeat(depth));
        assert!(value_written(&v) == want, "a {depth}-deep array");
        crate::json::drop_deep(v);
    }

    proptest! {
        #[test]
        fn any_score_is_written_as_serde_json_writes_it(s in any_score(), id in any_text()) {
            prop_assert_eq!(written(Some(&id), &s), by_serde(Some(&id), &s));
            prop_assert_eq!(written(None, &s), by_serde(None, &s));
        }

        #[test]
        fn any_value_is_written_as_serde_json_writes_it(v in super::strategies::any_json()) {
            prop_assert_eq!(value_written(&v), serde_json::to_string(&v).unwrap());
        }
    }
}
