//! `Reply::Auto` for chat: choose a label and fill a tool's or a response
//! format's JSON Schema with it.

use std::cell::Cell;

use serde_json::{Map, Value};

/// How deep schema walks go (nesting and `$ref` hops together).
const MAX_SCHEMA_DEPTH: usize = 16;

/// How many schema nodes one fill may visit, so recursive `$ref`s cannot
/// make it explode.
const MAX_SCHEMA_VISITS: usize = 4096;

/// What an automatic chat answer says.
#[derive(Debug, PartialEq)]
pub(crate) enum AutoChat<'a> {
    /// Call the named tool with these arguments (a JSON text).
    ToolCall { name: &'a str, arguments: String },
    /// Answer with this content.
    Content(String),
}

/// The automatic answer to a chat request with this body and prompt.
pub(crate) fn auto_chat<'a>(body: &'a Value, prompt: &str) -> AutoChat<'a> {
    let marker = label_marker(prompt);
    if let Some(tool) = chosen_tool(body) {
        let name = tool_name(tool).unwrap_or("tool");
        let params = tool.get("function").and_then(|f| f.get("parameters")).unwrap_or(&Value::Null);
        let arguments = fill_object(params, marker);
        return AutoChat::ToolCall { name, arguments: arguments.to_string() };
    }
    let format = body.get("response_format");
    match format.and_then(|f| f.get("type")).and_then(Value::as_str) {
        Some("json_schema") => {
            let schema = format
                .and_then(|f| f.get("json_schema"))
                .and_then(|j| j.get("schema"))
                .unwrap_or(&Value::Null);
            AutoChat::Content(fill_object(schema, marker).to_string())
        }
        Some("json_object") => {
            let mut object = Map::new();
            object.insert("label".into(), Value::from(marker.unwrap_or("ok")));
            AutoChat::Content(Value::Object(object).to_string())
        }
        _ => AutoChat::Content(match marker {
            Some(label) => format!("LABEL={label}"),
            None => "ok".to_owned(),
        }),
    }
}

/// The function name for a scripted tool call without a name: the tool
/// `tool_choice` names, else the first tool's.
pub(crate) fn default_tool_name(body: &Value) -> Option<&str> {
    chosen_tool(body).and_then(tool_name)
}

/// The word after the first `LABEL=` marker in `prompt` (letters, digits,
/// `_`, `-`, `.` not at the end).
pub(crate) fn label_marker(prompt: &str) -> Option<&str> {
    let mut rest = prompt;
    while let Some(at) = rest.find("LABEL=") {
        let after = &rest[at + "LABEL=".len()..];
        let len = after
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-' || c == '.'))
            .unwrap_or(after.len());
        let word = after[..len].trim_end_matches('.');
        if !word.is_empty() {
            return Some(word);
        }
        rest = after;
    }
    None
}

/// The tool the request forces with `tool_choice`, else its first tool;
/// none when it has no tools or `tool_choice` is `"none"`.
fn chosen_tool(body: &Value) -> Option<&Value> {
    let tools = body.get("tools")?.as_array()?;
    let choice = body.get("tool_choice");
    if choice.and_then(Value::as_str) == Some("none") {
        return None;
    }
    let forced =
        choice.and_then(|c| c.get("function")).and_then(|f| f.get("name")).and_then(Value::as_str);
    if let Some(forced) = forced
        && let Some(tool) = tools.iter().find(|t| tool_name(t) == Some(forced))
    {
        return Some(tool);
    }
    tools.first()
}

fn tool_name(tool: &Value) -> Option<&str> {
    tool.get("function")
        .and_then(|f| f.get("name"))
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty())
}

/// An object satisfying `schema` as far as a scripted answer needs, with the
/// label in its label slot; when the schema has no enum, a `LABEL=` marker
/// goes under `"label"`, unless the schema allows no such property
/// (`additionalProperties: false` without a `label` property).
pub(crate) fn fill_object(schema: &Value, marker: Option<&str>) -> Value {
    let mut filler =
        Filler { root: schema, marker, label_placed: false, visits: Cell::new(MAX_SCHEMA_VISITS) };
    let value = filler.fill(schema, 0);
    let mut object = match value {
        Value::Object(object) => object,
        _ => Map::new(),
    };
    let closed = schema.get("additionalProperties") == Some(&Value::Bool(false))
        && schema.pointer("/properties/label").is_none();
    if !filler.label_placed
        && !closed
        && let Some(label) = marker
    {
        object.insert("label".into(), Value::from(label));
    }
    Value::Object(object)
}

struct Filler<'a> {
    root: &'a Value,
    marker: Option<&'a str>,
    label_placed: bool,
    visits: Cell<usize>,
}

impl<'a> Filler<'a> {
    /// Count one visit; false once the budget is spent.
    fn visit(&self) -> bool {
        let left = self.visits.get();
        self.visits.set(left.saturating_sub(1));
        left > 0
    }

    /// Follow a local `$ref` (`#/...`) chain.
    fn resolve(&self, mut schema: &'a Value, depth: &mut usize) -> &'a Value {
        while let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
            let target = reference.strip_prefix('#').and_then(|pointer| self.root.pointer(pointer));
            match target {
                Some(t) if *depth < MAX_SCHEMA_DEPTH => {
                    schema = t;
                    *depth += 1;
                }
                _ => break,
            }
        }
        schema
    }

    /// Whether an enum (or const) is reachable through properties and
    /// combinators of `schema`.
    fn has_enum(&self, schema: &'a Value, mut depth: usize) -> bool {
        let schema = self.resolve(schema, &mut depth);
        if depth >= MAX_SCHEMA_DEPTH || !self.visit() {
            return false;
        }
        if enum_values(schema).is_some() {
            return true;
        }
        if let Some(props) = schema.get("properties").and_then(Value::as_object)
            && props.values().any(|p| self.has_enum(p, depth + 1))
        {
            return true;
        }
        branches(schema).any(|b| self.has_enum(b, depth + 1))
    }

    /// Whether `schema` (after `$ref`s) is an enum holding the marker,
    /// spelt the same or in another case.
    fn enum_holds_marker(&self, schema: &'a Value, mut depth: usize, exact: bool) -> bool {
        let Some(marker) = self.marker else { return false };
        let schema = self.resolve(schema, &mut depth);
        let holds = |s: &Value| {
            enum_values(s).is_some_and(|values| {
                values.iter().any(|v| match v {
                    Value::String(t) if exact => t == marker,
                    Value::String(t) => t.eq_ignore_ascii_case(marker),
                    Value::Number(_) | Value::Bool(_) => {
                        marker.parse::<Value>().is_ok_and(|m| m == *v)
                    }
                    _ => false,
                })
            })
        };
        // pydantic writes `Optional[Literal[...]]` as an `anyOf`.
        holds(schema) || branches(schema).any(|b| holds(self.resolve(b, &mut depth.clone())))
    }

    /// The label value for a slot with these enum values.
    fn label(&mut self, values: &'a [Value]) -> Value {
        self.label_placed = true;
        let Some(marker) = self.marker else {
            return values.first().cloned().unwrap_or(Value::Null);
        };
        let same = |v: &&Value| match v {
            Value::String(s) => s == marker,
            Value::Number(n) => n.to_string() == marker,
            Value::Bool(b) => b.to_string() == marker,
            _ => false,
        };
        let loose = |v: &&Value| v.as_str().is_some_and(|s| s.eq_ignore_ascii_case(marker));
        values
            .iter()
            .find(same)
            .or_else(|| values.iter().find(loose))
            .cloned()
            .unwrap_or_else(|| Value::from(marker))
    }

    fn fill(&mut self, schema: &'a Value, mut depth: usize) -> Value {
        let schema = self.resolve(schema, &mut depth);
        if depth >= MAX_SCHEMA_DEPTH || !self.visit() {
            return Value::Null;
        }
        if let Some(values) = enum_values(schema) {
            if !self.label_placed {
                return self.label(values);
            }
            return values.first().cloned().unwrap_or(Value::Null);
        }
        if schema.get("properties").is_none() {
            let branch = if self.label_placed {
                branches(schema).find(|b| !is_null_schema(b))
            } else {
                branches(schema)
                    .find(|b| self.has_enum(b, depth + 1))
                    .or_else(|| branches(schema).find(|b| !is_null_schema(b)))
            };
            if let Some(branch) = branch {
                return self.fill(branch, depth + 1);
            }
        }
        match first_type(schema) {
            Some("object") | None if schema.get("properties").is_some() => {
                self.fill_properties(schema, depth)
            }
            Some("object") => Value::Object(Map::new()),
            Some("string") => Value::from(string_for(schema)),
            Some("integer") => integer_for(schema),
            Some("number") => number_for(schema),
            Some("boolean") => Value::Bool(false),
            Some("array") => self.fill_array(schema, depth),
            _ => Value::Null,
        }
    }

    fn fill_properties(&mut self, schema: &'a Value, depth: usize) -> Value {
        let mut out = Map::new();
        let Some(props) = schema.get("properties").and_then(Value::as_object) else {
            return Value::Object(out);
        };
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        // The label goes first to the property whose enum holds the
        // marker, else to a property named "label", before any other.
        let label = props.get_key_value("label");
        let holds = |exact: bool| {
            label.into_iter().chain(props.iter()).find(|(_, sub)| {
                !self.label_placed && self.enum_holds_marker(sub, depth + 1, exact)
            })
        };
        let first = holds(true).or_else(|| holds(false)).or(label);
        let ordered = first
            .into_iter()
            .chain(props.iter().filter(|(k, _)| Some(k.as_str()) != first.map(|f| f.0.as_str())));
        for (key, sub) in ordered {
            let value = if key == "explanation" && !self.has_enum(sub, depth + 1) {
                Value::from("scripted")
            } else if required.contains(&key.as_str())
                || (!self.label_placed && self.has_enum(sub, depth + 1))
            {
                self.fill(sub, depth + 1)
            } else {
                continue;
            };
            out.insert(key.clone(), value);
        }
        Value::Object(out)
    }

    fn fill_array(&mut self, schema: &'a Value, depth: usize) -> Value {
        let wanted = schema.get("minItems").and_then(Value::as_u64).unwrap_or(0);
        let wanted =
            schema.get("maxItems").and_then(Value::as_u64).map_or(wanted, |m| wanted.min(m));
        let items = schema.get("items").unwrap_or(&Value::Null);
        // The visit budget bounds the work; 64 bounds the reply's size.
        let items = (0..wanted.min(64)).map(|_| self.fill(items, depth + 1)).collect();
        Value::Array(items)
    }
}

/// A string a strict server could answer for `schema`: one of the common
/// `format`s (`date-time`, `date`, `time`, `email`, `uri`, `uuid`, ...),
/// else `scripted`, padded to `minLength` and cut to `maxLength`.
fn string_for(schema: &Value) -> String {
    let mut text = match schema.get("format").and_then(Value::as_str) {
        Some("date-time") => "2026-01-01T00:00:00Z",
        Some("date") => "2026-01-01",
        Some("time") => "00:00:00Z",
        Some("duration") => "P1D",
        Some("email" | "idn-email") => "scripted@example.com",
        Some("hostname" | "idn-hostname") => "example.com",
        Some("ipv4") => "127.0.0.1",
        Some("ipv6") => "::1",
        Some("uri" | "iri" | "uri-reference" | "iri-reference") => "https://example.com/scripted",
        Some("uuid") => "00000000-0000-4000-8000-000000000000",
        _ => "scripted",
    }
    .to_owned();
    let count = |k: &str| schema.get(k).and_then(Value::as_u64).map(|n| n.min(4096) as usize);
    if let Some(min) = count("minLength") {
        let have = text.chars().count();
        text.extend(std::iter::repeat_n('x', min.saturating_sub(have)));
    }
    if let Some(max) = count("maxLength") {
        text = text.chars().take(max).collect();
    }
    text
}

/// A numeric bound: its value, and whether it is exclusive.
type Bound = Option<(f64, bool)>;

/// The bounds `minimum`/`exclusiveMinimum` and `maximum`/`exclusiveMaximum`
/// set.
/// Draft 4's boolean `exclusiveMinimum: true` makes `minimum` exclusive;
/// when a schema sets both as numbers, the tighter one holds.
fn bounds(schema: &Value) -> (Bound, Bound) {
    let get = |k: &str| schema.get(k).and_then(Value::as_f64).filter(|f| f.is_finite());
    let flag = |k: &str| schema.get(k) == Some(&Value::Bool(true));
    let bound = |inclusive: &str, exclusive: &str, tighter: fn(f64, f64) -> bool| {
        let plain = get(inclusive).map(|m| (m, flag(exclusive)));
        match (plain, get(exclusive).map(|m| (m, true))) {
            (Some(a), Some(b)) => Some(if tighter(b.0, a.0) || b.0 == a.0 { b } else { a }),
            (a, b) => a.or(b),
        }
    };
    let low = bound("minimum", "exclusiveMinimum", |x, y| x > y);
    let high = bound("maximum", "exclusiveMaximum", |x, y| x < y);
    (low, high)
}

/// An integer within the schema's bounds: 0 when allowed, else the
/// nearest allowed one.
fn integer_for(schema: &Value) -> Value {
    let (low, high) = bounds(schema);
    let low = low.map(|(m, ex)| if ex { m.floor() + 1.0 } else { m.ceil() });
    let high = high.map(|(m, ex)| if ex { m.ceil() - 1.0 } else { m.floor() });
    let mut n = 0.0_f64;
    if let Some(l) = low {
        n = n.max(l);
    }
    if let Some(h) = high {
        n = n.min(h);
    }
    #[allow(clippy::cast_possible_truncation)]
    let n = n.clamp(-9.0e15, 9.0e15) as i64;
    Value::from(n)
}

/// A number within the schema's bounds: 0 when allowed, else a bound (or
/// next to it when the bound is exclusive).
fn number_for(schema: &Value) -> Value {
    let (low, high) = bounds(schema);
    let inside = |n: f64| {
        low.is_none_or(|(l, ex)| if ex { n > l } else { n >= l })
            && high.is_none_or(|(h, ex)| if ex { n < h } else { n <= h })
    };
    let candidates = [
        Some(0.0),
        low.map(|(l, _)| l),
        low.zip(high).map(|((l, _), (h, _))| (l + h) / 2.0),
        low.map(|(l, _)| l + 1.0),
        high.map(|(h, _)| h),
        high.map(|(h, _)| h - 1.0),
    ];
    let n = candidates.into_iter().flatten().find(|n| inside(*n)).unwrap_or(0.0);
    Value::from(n)
}

/// A non-empty `enum`, or a `const` as a one-value enum.
fn enum_values(schema: &Value) -> Option<&[Value]> {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return (!values.is_empty()).then_some(values.as_slice());
    }
    schema.get("const").map(std::slice::from_ref)
}

fn branches(schema: &Value) -> impl Iterator<Item = &Value> {
    ["anyOf", "oneOf", "allOf"]
        .into_iter()
        .filter_map(|k| schema.get(k).and_then(Value::as_array))
        .flatten()
}

fn is_null_schema(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("null")
}

/// The schema's type, the first non-null one of a type list.
fn first_type(schema: &Value) -> Option<&str> {
    match schema.get("type")? {
        Value::String(t) => Some(t),
        Value::Array(types) => types.iter().filter_map(Value::as_str).find(|t| *t != "null"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn judge_schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "explanation": {"type": "string"},
                "label": {"type": "string", "enum": ["correct", "incorrect"]},
                "confidence": {"type": "number", "minimum": 0.5},
                "notes": {"type": "string"}
            },
            "required": ["label", "confidence"]
        })
    }

    #[test]
    fn a_closed_schema_gets_no_label_it_does_not_declare() {
        let closed = json!({"type": "object", "properties": {"answer": {"type": "string"}},
            "required": ["answer"], "additionalProperties": false});
        let filled = fill_object(&closed, Some("good"));
        assert_eq!(filled.as_object().unwrap().keys().collect::<Vec<_>>(), ["answer"], "{filled}");
        let open = json!({"type": "object", "properties": {"answer": {"type": "string"}}});
        assert_eq!(fill_object(&open, Some("good"))["label"], "good");
    }

    #[test]
    fn marker_takes_the_word_after_label() {
        assert_eq!(label_marker("judge: LABEL=bad."), Some("bad"));
        assert_eq!(label_marker("LABEL= x LABEL=good_one rest"), Some("good_one"));
        assert_eq!(label_marker("LABEL=3"), Some("3"));
        assert_eq!(label_marker("no marker"), None);
        assert_eq!(label_marker("LABEL="), None);
    }

    #[test]
    fn schema_gets_first_enum_value_and_explanation() {
        let filled = fill_object(&judge_schema(), None);
        assert_eq!(
            filled,
            json!({"label": "correct", "explanation": "scripted", "confidence": 0.5})
        );
    }

    #[test]
    fn marker_chooses_the_label_and_matches_enum_spelling() {
        assert_eq!(fill_object(&judge_schema(), Some("incorrect"))["label"], "incorrect");
        assert_eq!(fill_object(&judge_schema(), Some("INCORRECT"))["label"], "incorrect");
        assert_eq!(fill_object(&judge_schema(), Some("other"))["label"], "other");
        let scores = json!({"type": "object", "properties": {"score": {"enum": [1, 2, 3]}}});
        assert_eq!(fill_object(&scores, Some("2")), json!({"score": 2}));
        assert_eq!(fill_object(&scores, None), json!({"score": 1}));
    }

    #[test]
    fn refs_and_optional_any_of_lead_to_the_enum() {
        let schema = json!({
            "$defs": {"Verdict": {"type": "string", "enum": ["pass", "fail"]}},
            "type": "object",
            "properties": {
                "verdict": {"anyOf": [{"type": "null"}, {"$ref": "#/$defs/Verdict"}]},
                "items": {"type": "array", "items": {"type": "integer"}, "minItems": 2}
            },
            "required": ["items"]
        });
        assert_eq!(fill_object(&schema, None), json!({"verdict": "pass", "items": [0, 0]}));
    }

    #[test]
    fn no_enum_puts_the_marker_under_label() {
        let schema = json!({"type": "object", "properties": {"answer": {"type": "string"}}});
        assert_eq!(fill_object(&schema, Some("yes")), json!({"label": "yes"}));
        assert_eq!(fill_object(&schema, None), json!({}));
        assert_eq!(fill_object(&Value::Null, None), json!({}));
    }

    #[test]
    fn the_marker_goes_to_the_enum_that_holds_it() {
        let schema = json!({"type": "object", "properties": {
            "label": {"type": "string", "enum": ["good", "bad"]},
            "color": {"type": "string", "enum": ["red", "blue"]}
        }, "required": ["label", "color"], "additionalProperties": false});
        assert_eq!(fill_object(&schema, Some("blue")), json!({"label": "good", "color": "blue"}));
        assert_eq!(fill_object(&schema, Some("bad")), json!({"label": "bad", "color": "red"}));
        // Exact before loose, label first, and through an anyOf.
        let schema = json!({"type": "object", "properties": {
            "category": {"type": "string", "enum": ["GOOD"]},
            "label": {"anyOf": [{"type": "string", "enum": ["good", "bad"]}, {"type": "null"}]}
        }, "required": ["category", "label"], "additionalProperties": false});
        assert_eq!(
            fill_object(&schema, Some("good")),
            json!({"category": "GOOD", "label": "good"})
        );
    }

    #[test]
    fn scalars_meet_their_formats_lengths_and_bounds() {
        let schema = json!({"type": "object", "properties": {
            "when": {"type": "string", "format": "date-time"},
            "mail": {"type": "string", "format": "email"},
            "long": {"type": "string", "minLength": 12},
            "short": {"type": "string", "maxLength": 3},
            "count": {"type": "integer", "exclusiveMinimum": 0},
            "score": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
            "neg": {"type": "integer", "maximum": -5},
            "price": {"type": "number", "minimum": 2.5},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 1}
        }, "required": ["when", "mail", "long", "short", "count", "score", "neg", "price", "tags"]});
        let v = fill_object(&schema, None);
        assert_eq!(v["when"], "2026-01-01T00:00:00Z");
        assert_eq!(v["mail"], "scripted@example.com");
        assert_eq!(v["long"], "scriptedxxxx");
        assert_eq!(v["short"], "scr");
        assert_eq!(v["count"], 1);
        assert_eq!(v["score"], 0.5);
        assert_eq!(v["neg"], -5);
        assert_eq!(v["price"], 2.5);
        assert_eq!(v["tags"].as_array().map(Vec::len), Some(1));
        // Draft 4's boolean exclusiveMinimum, and the tighter of two bounds.
        let draft4 = json!({"type": "integer", "minimum": 0, "exclusiveMinimum": true});
        assert_eq!(integer_for(&draft4), 1);
        let both = json!({"type": "integer", "minimum": 5, "exclusiveMinimum": 0});
        assert_eq!(integer_for(&both), 5);
        let long = json!({"type": "string", "minLength": 100_000});
        assert_eq!(string_for(&long).len(), 4096);
    }

    #[test]
    fn ref_cycles_end() {
        let schema = json!({"$ref": "#"});
        assert_eq!(fill_object(&schema, None), json!({}));
        let nested =
            json!({"type": "object", "properties": {"n": {"$ref": "#"}}, "required": ["n"]});
        let filled = fill_object(&nested, None);
        assert!(filled.get("n").is_some());
        // Ten required self-references: without a visit budget, 10^16 nodes.
        let props: Map<String, Value> =
            (0..10).map(|i| (format!("p{i}"), json!({"$ref": "#"}))).collect();
        let names: Vec<String> = props.keys().cloned().collect();
        let wide = json!({"type": "object", "properties": props, "required": names});
        let start = std::time::Instant::now();
        let filled = fill_object(&wide, Some("x"));
        assert!(start.elapsed() < std::time::Duration::from_secs(2));
        assert!(filled.to_string().len() < 1_000_000);
    }

    #[test]
    fn auto_chat_prefers_tools_then_formats_then_text() {
        let tools = json!({"tools": [
            {"type": "function", "function": {"name": "first", "parameters": judge_schema()}},
            {"type": "function", "function": {"name": "second", "parameters": {}}}
        ]});
        match auto_chat(&tools, "LABEL=incorrect") {
            AutoChat::ToolCall { name, arguments } => {
                assert_eq!(name, "first");
                let args: Value = serde_json::from_str(&arguments).unwrap();
                assert_eq!(args["label"], "incorrect");
                assert_eq!(args["explanation"], "scripted");
            }
            other => panic!("expected a tool call, got {other:?}"),
        }
        let mut forced = tools.clone();
        forced["tool_choice"] = json!({"type": "function", "function": {"name": "second"}});
        assert_eq!(default_tool_name(&forced), Some("second"));
        let format = json!({"response_format": {"type": "json_schema",
            "json_schema": {"name": "j", "schema": judge_schema()}}});
        let AutoChat::Content(content) = auto_chat(&format, "") else {
            panic!("expected content");
        };
        assert_eq!(serde_json::from_str::<Value>(&content).unwrap()["label"], "correct");
        assert_eq!(auto_chat(&json!({}), "x LABEL=yes"), AutoChat::Content("LABEL=yes".into()));
        assert_eq!(auto_chat(&json!({}), "x"), AutoChat::Content("ok".into()));
        assert_eq!(
            auto_chat(&json!({"response_format": {"type": "json_object"}}), ""),
            AutoChat::Content(r#"{"label":"ok"}"#.into())
        );
    }
}
