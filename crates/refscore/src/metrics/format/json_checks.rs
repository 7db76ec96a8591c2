//! `format.json_validity` and `format.json_schema`: the output holds JSON,
//! and that JSON is valid against a JSON Schema (from a file, inline,
//! per row, or inferred from the reference).

use jsonschema::Validator;
use serde_json::Value;

use super::schema_infer::infer_schema;
use super::{Doc, Setting, bad};
use crate::detail::{
    DETAIL_TEXT_LIMIT, Detail, Outcome, close_with_more, display_cut, display_within,
};
use crate::error::{ConfigError, EvalError};
use crate::evaluator::EvalInput;
use crate::extract::{ExtractError, ExtractOptions, extract_json};
use crate::limits::MAX_KEPT_DETAILS;
use crate::metric_result::first_details;
use crate::metrics::BuildContext;
use crate::metrics::options::Opts;

/// Instances or schemas nesting deeper than this are validated on a larger
/// stack ([`BIG_STACK`]); the validator recurses.
const SHALLOW: usize = 128;
/// Deepest instance validated at all; deeper ones fail the sub-check.
pub(super) const MAX_VALIDATION_DEPTH: usize = 10_000;
/// Stack size for deep validations, in bytes.
const BIG_STACK: usize = 256 << 20;

/// The `format.json_validity` detail.
pub(super) fn validity(doc: &Result<Doc<'_>, ExtractError>) -> Vec<Detail> {
    let d = match doc {
        Ok(d) => Detail::new("format.json_validity", Outcome::Pass)
            .actual(crate::json::type_name(d.value()))
            .message(format!("JSON found ({})", d.meta["method"].as_str().unwrap_or("whole"))),
        Err(e) => Detail::new("format.json_validity", Outcome::Fail)
            .expected("JSON")
            .message(e.to_string()),
    };
    vec![d]
}

/// Where the schema comes from.
enum Source {
    /// Compiled once at build (file or inline).
    Fixed { validator: Box<Validator>, origin: String },
    /// Inferred from each row's reference.
    Infer { additional_properties: bool },
}

/// The `json_schema` sub-check.
pub(super) struct JsonSchema {
    source: Source,
}

impl std::fmt::Debug for JsonSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.source {
            Source::Fixed { origin, .. } => write!(f, "JsonSchema({origin})"),
            Source::Infer { additional_properties } => {
                write!(f, "JsonSchema(infer, additional_properties: {additional_properties})")
            }
        }
    }
}

/// Runs `f` on a larger stack when `deep`.
fn on_stack<T>(deep: bool, f: impl FnOnce() -> T) -> T {
    if deep { stacker::grow(BIG_STACK, f) } else { f() }
}

/// Compiles a schema (draft from `$schema`, 2020-12 without one; patterns
/// use the linear-time `regex` engine). With `base` (a schema file's own
/// `file://` URI), relative `$ref`s are read from files next to it.
pub(super) fn compile(schema: &Value, base: Option<String>) -> Result<Validator, String> {
    let deep = crate::json::container_depth_exceeds(schema, SHALLOW);
    if deep && crate::json::container_depth_exceeds(schema, MAX_VALIDATION_DEPTH) {
        return Err(format!("schema nests deeper than {MAX_VALIDATION_DEPTH} levels"));
    }
    on_stack(deep, || {
        let mut options =
            jsonschema::options().with_pattern_options(jsonschema::PatternOptions::regex());
        if let Some(base) = base {
            options = options.with_base_uri(base).with_retriever(FileRetriever);
        }
        options.build(schema).map_err(|e| e.to_string())
    })
}

/// Reads `$ref`ed schemas from local files (percent-decoding the URI's
/// path); nothing is fetched over the network.
struct FileRetriever;

impl jsonschema::Retrieve for FileRetriever {
    fn retrieve(
        &self,
        uri: &jsonschema::Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        let text = uri.as_str();
        let Some(rest) = text.strip_prefix("file://") else {
            return Err(format!("{text}: only file references are resolved").into());
        };
        let rest = rest.split(['#', '?']).next().unwrap_or(rest);
        let path = percent_decode(rest);
        // `file:///C:/x` on Windows.
        let path = match path.as_bytes() {
            [b'/', drive, b':', ..] if drive.is_ascii_alphabetic() => path[1..].to_owned(),
            _ => path,
        };
        let body =
            crate::limits::read_text(std::path::Path::new(&path), crate::limits::MAX_CONFIG_BYTES)?;
        crate::json::parse(&body).map_err(|e| format!("{path}: {e}").into())
    }
}

/// Decodes `%XX` escapes (invalid escapes are kept as they are).
fn percent_decode(s: &str) -> String {
    percent_encoding::percent_decode_str(s).decode_utf8_lossy().into_owned()
}

/// The percent-encoded `file://` URI of a schema file.
fn file_uri(path: &std::path::Path) -> Option<String> {
    let abs = std::fs::canonicalize(path).ok()?;
    let text = abs.to_str()?.replace('\\', "/");
    let mut uri = String::from(if text.starts_with('/') { "file://" } else { "file:///" });
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~:".contains(&b) {
            uri.push(char::from(b));
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    Some(uri)
}

impl JsonSchema {
    /// From `true`, `{infer: true, additional_properties}`, `{file}`,
    /// `{schema}` or a file path alone (as `{file}`).
    pub(super) fn from_setting(
        s: Setting<'_>,
        ctx: &BuildContext,
    ) -> Result<Option<Self>, ConfigError> {
        let path_alone;
        let map = match s {
            Setting::Off => return Ok(None),
            Setting::On => {
                return Ok(Some(JsonSchema {
                    source: Source::Infer { additional_properties: true },
                }));
            }
            Setting::With(Value::Object(m)) => m,
            Setting::With(Value::String(f)) => {
                path_alone = serde_json::Map::from_iter([(String::from("file"), f.clone().into())]);
                &path_alone
            }
            Setting::With(other) => {
                return Err(bad(
                    "json_schema",
                    format!("expected true, a file path or an object, got {other}"),
                ));
            }
        };
        let o = Opts::new("format.json_schema", map);
        let file = o.string("file")?;
        let inline = o.value("schema");
        let infer = o.bool("infer", false)?;
        let additional_properties = o.bool("additional_properties", true)?;
        o.finish()?;
        let source = match (file, inline, infer) {
            (Some(f), None, false) => {
                let path = ctx.resolve(&f);
                let file_err = |message: String| ConfigError::File { path: path.clone(), message };
                let text = crate::limits::read_text(&path, crate::limits::MAX_CONFIG_BYTES)?;
                let schema =
                    crate::json::parse(&text).map_err(|e| file_err(format!("not JSON: {e}")))?;
                let validator = compile(&schema, file_uri(&path))
                    .map_err(|e| file_err(format!("invalid JSON Schema: {e}")));
                crate::json::drop_deep(schema);
                Source::Fixed {
                    validator: Box::new(validator?),
                    origin: path.display().to_string(),
                }
            }
            (None, Some(schema), false) => {
                let validator = compile(schema, None)
                    .map_err(|e| bad("json_schema.schema", format!("invalid JSON Schema: {e}")))?;
                Source::Fixed {
                    validator: Box::new(validator),
                    origin: String::from("inline schema"),
                }
            }
            (None, None, _) => Source::Infer { additional_properties },
            _ => return Err(bad("json_schema", "give one of `file`, `schema` or `infer: true`")),
        };
        Ok(Some(JsonSchema { source }))
    }

    /// Validates the output's document; one detail per violation.
    pub(super) fn check(
        &self,
        doc: Option<&Doc<'_>>,
        inp: &EvalInput,
    ) -> Result<Vec<Detail>, EvalError> {
        let Some(doc) = doc else {
            return Ok(vec![
                Detail::new("format.json_schema", Outcome::Fail)
                    .message("no JSON to validate in the output"),
            ]);
        };
        if let Some(row) = inp.get("schema").filter(|v| !v.is_null()) {
            let parsed;
            let schema = match row {
                Value::String(s) => {
                    parsed = crate::json::parse(s).map_err(|e| EvalError::InvalidInput {
                        input: "schema".into(),
                        reason: e,
                    })?;
                    &parsed
                }
                other => other,
            };
            let v = compile(schema, None).map_err(|e| EvalError::InvalidInput {
                input: "schema".into(),
                reason: format!("invalid JSON Schema: {e}"),
            })?;
            return Ok(validate(&v, doc.value(), "row schema"));
        }
        match &self.source {
            Source::Fixed { validator, origin } => Ok(validate(validator, doc.value(), origin)),
            Source::Infer { additional_properties } => {
                let reference = inp
                    .get("reference")
                    .filter(|v| !v.is_null())
                    .ok_or_else(|| EvalError::MissingInput { input: "reference".into() })?;
                let schema = match reference {
                    Value::String(s) => {
                        let e = extract_json(s, &ExtractOptions::default()).map_err(|e| {
                            EvalError::InvalidInput {
                                input: "reference".into(),
                                reason: e.to_string(),
                            }
                        })?;
                        let schema = infer_schema(&e.value, *additional_properties);
                        crate::json::drop_deep(e.value);
                        schema
                    }
                    other => infer_schema(other, *additional_properties),
                };
                let v = compile(&schema, None)
                    .map_err(|e| EvalError::Failed(format!("inferred schema: {e}")))?;
                Ok(validate(&v, doc.value(), "schema inferred from the reference"))
            }
        }
    }
}

/// Every violation of `instance` against `validator`, as details.
fn validate(validator: &Validator, instance: &Value, origin: &str) -> Vec<Detail> {
    let deep = crate::json::container_depth_exceeds(instance, SHALLOW);
    if deep && crate::json::container_depth_exceeds(instance, MAX_VALIDATION_DEPTH) {
        return vec![Detail::new("format.json_schema", Outcome::Fail).message(format!(
            "output nests deeper than {MAX_VALIDATION_DEPTH} levels; not validated"
        ))];
    }
    let details: Vec<Detail> = on_stack(deep, || {
        let (mut details, more) =
            first_details(validator.iter_errors(instance), MAX_KEPT_DETAILS, violation);
        close_with_more(&mut details, more);
        details
    });
    if details.is_empty() {
        vec![
            Detail::new("format.json_schema", Outcome::Pass)
                .message(format!("valid against the {origin}")),
        ]
    } else {
        details
    }
}

/// Longest message of a violation, in characters: past it, the value in
/// the message is shown cut, as in `actual`.
const MESSAGE_CHARS: usize = 1_000;

/// One violation as a detail. The validator's message holds the whole
/// value that broke the rule (an 8 MB document failing `type` at its root
/// made an 8 MB message); a message past [`MESSAGE_CHARS`] shows the value
/// as `actual` does, cut to [`DETAIL_TEXT_LIMIT`] characters.
fn violation(err: jsonschema::ValidationError<'_>) -> Detail {
    let path = err.instance_path().as_str();
    let at = if path.is_empty() { "/" } else { path };
    let value = err.instance();
    let shown = display_cut(value, DETAIL_TEXT_LIMIT);
    // A long text of a deep value is summarised, as everywhere else.
    let actual = if shown.ends_with('…') && crate::json::container_depth_exceeds(value, 64) {
        crate::json::compact(value)
    } else {
        shown
    };
    let message = display_within(&err, MESSAGE_CHARS)
        .unwrap_or_else(|| display_cut(&err.masked_with(actual.as_str()), MESSAGE_CHARS));
    Detail::new("format.json_schema", Outcome::Fail)
        .expected(format!("{} at {}", err.kind().keyword(), err.schema_path().as_str()))
        .message(format!("{at}: {message}"))
        .actual(actual)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::borrow::Cow;

    fn doc(v: &Value) -> Doc<'_> {
        Doc { value: Cow::Borrowed(v), meta: json!({"method": "whole"}) }
    }

    fn inline(schema: Value) -> JsonSchema {
        let s = json!({ "schema": schema });
        JsonSchema::from_setting(Setting::of(Some(&s)), &BuildContext::default()).unwrap().unwrap()
    }

    #[test]
    fn violations_carry_instance_paths() {
        let s = inline(json!({
            "type": "object",
            "required": ["id", "line_items"],
            "properties": {"line_items": {"type": "array", "items": {
                "type": "object", "properties": {"price": {"type": "number"}}}}}
        }));
        let out = json!({"line_items": [{"price": "abc"}, {"price": 2}]});
        let d = s.check(Some(&doc(&out)), &EvalInput::new()).unwrap();
        assert_eq!(d.len(), 2, "{d:?}");
        let msgs: Vec<&str> = d.iter().filter_map(|x| x.message.as_deref()).collect();
        assert!(msgs.iter().any(|m| m.starts_with("/line_items/0/price:")), "{msgs:?}");
        assert!(msgs.iter().any(|m| m.starts_with("/:") && m.contains("id")), "{msgs:?}");
        let ok = json!({"id": 1, "line_items": []});
        let d = s.check(Some(&doc(&ok)), &EvalInput::new()).unwrap();
        assert!(d.len() == 1 && d[0].passed);
    }

    #[test]
    fn drafts_and_row_schema() {
        let s = inline(
            json!({"$schema": "http://json-schema.org/draft-04/schema#", "type": "integer"}),
        );
        assert!(s.check(Some(&doc(&json!(3))), &EvalInput::new()).unwrap()[0].passed);
        let row = EvalInput::new().with("schema", json!(r#"{"type": "string"}"#));
        assert!(!s.check(Some(&doc(&json!(3))), &row).unwrap()[0].passed);
        let bad_row = EvalInput::new().with("schema", json!({"type": 12}));
        assert!(matches!(
            s.check(Some(&doc(&json!(3))), &bad_row),
            Err(EvalError::InvalidInput { .. })
        ));
    }

    #[test]
    fn inferred_from_reference() {
        let s = JsonSchema::from_setting(Setting::On, &BuildContext::default()).unwrap().unwrap();
        let inp =
            EvalInput::new().with("reference", json!("```json\n{\"a\": 1, \"b\": [\"x\"]}\n```"));
        assert!(s.check(Some(&doc(&json!({"a": 2.5, "b": [], "c": 0}))), &inp).unwrap()[0].passed);
        let d = s.check(Some(&doc(&json!({"b": [3]}))), &inp).unwrap();
        assert_eq!(d.len(), 2, "{d:?}");
        assert!(matches!(
            s.check(Some(&doc(&json!(1))), &EvalInput::new()),
            Err(EvalError::MissingInput { .. })
        ));
        assert!(!s.check(None, &inp).unwrap()[0].passed);
        let null_ref = EvalInput::new().with("reference", Value::Null);
        assert!(matches!(
            s.check(Some(&doc(&json!(1))), &null_ref),
            Err(EvalError::MissingInput { .. })
        ));
    }

    struct DirPath(std::path::PathBuf);

    impl DirPath {
        fn path(&self) -> &std::path::Path {
            &self.0
        }
    }

    #[test]
    fn file_schemas_and_errors() {
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path().join("with space é");
        std::fs::create_dir(&dir).unwrap();
        let dir = DirPath(dir);
        std::fs::write(dir.path().join("s.json"), r#"{"type": "object", "required": ["x"]}"#)
            .unwrap();
        std::fs::write(dir.path().join("bad.json"), r#"{"type": "nope"}"#).unwrap();
        let ctx =
            BuildContext { base_dir: Some(dir.path().to_path_buf()), ..BuildContext::default() };
        std::fs::write(
            dir.path().join("ref.json"),
            r#"{"type": "object", "properties": {"x": {"$ref": "num.json"}}}"#,
        )
        .unwrap();
        std::fs::write(dir.path().join("num.json"), r#"{"type": "number"}"#).unwrap();
        let opt = json!({"file": "ref.json"});
        let r = JsonSchema::from_setting(Setting::of(Some(&opt)), &ctx).unwrap().unwrap();
        assert!(r.check(Some(&doc(&json!({"x": 1}))), &EvalInput::new()).unwrap()[0].passed);
        assert!(!r.check(Some(&doc(&json!({"x": "a"}))), &EvalInput::new()).unwrap()[0].passed);
        let opt = json!({"file": "s.json"});
        let s = JsonSchema::from_setting(Setting::of(Some(&opt)), &ctx).unwrap().unwrap();
        assert!(!s.check(Some(&doc(&json!({}))), &EvalInput::new()).unwrap()[0].passed);
        let opt = json!({"file": "bad.json"});
        let e = JsonSchema::from_setting(Setting::of(Some(&opt)), &ctx).unwrap_err().to_string();
        assert!(e.contains("bad.json") && e.contains("invalid JSON Schema"), "{e}");
        let opt = json!({"file": "missing.json"});
        assert!(JsonSchema::from_setting(Setting::of(Some(&opt)), &ctx).is_err());
        let opt = json!({"file": "s.json", "infer": true});
        assert!(JsonSchema::from_setting(Setting::of(Some(&opt)), &ctx).is_err());
        let opt = json!({"infer": true, "extra": 1});
        let e = JsonSchema::from_setting(Setting::of(Some(&opt)), &ctx).unwrap_err().to_string();
        assert!(e.contains("format.json_schema") && e.contains("extra"), "{e}");
    }

    #[test]
    fn percent_decoding() {
        assert_eq!(percent_decode("/a%20b/%C3%A9.json"), "/a b/é.json");
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%zz%4"), "%zz%4");
    }

    #[test]
    fn deep_instances_are_safe() {
        let s = inline(
            json!({"$ref": "#/$defs/n", "$defs": {"n": {"type": "array", "items": {"$ref": "#/$defs/n"}}}}),
        );
        let deep =
            crate::json::parse(&format!("{}{}", "[".repeat(3000), "]".repeat(3000))).unwrap();
        assert!(s.check(Some(&doc(&deep)), &EvalInput::new()).unwrap()[0].passed);
        crate::json::drop_deep(deep);
    }
}
