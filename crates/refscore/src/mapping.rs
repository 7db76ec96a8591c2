//! Input mapping: which part of a dataset row feeds which evaluator input.
//!
//! A source is a column name or a JSONPath (RFC 9535). Strings starting
//! with `$` are JSONPath; dotted forms such as
//! `output.tool_calls[0].arguments` or `input.documents[-1]` are read as
//! `$.`-prefixed JSONPath. For each row, a top-level key equal to the whole
//! source string wins (so column names containing dots still work), then
//! the path; the first match is used.
//!
//! Inputs without a mapping read the column of the same name; `reference`
//! also falls back to a column named `expected`.
//!
//! A row whose text repeated keys in some object (a JSONL line) is read
//! into a tree as well, and each input notes the keys its part of the row
//! repeated ([`crate::duplicate_keys`]); so does a `parse: json` cell.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde_json::{Map, Value};
use serde_json_path::PathElement;

use crate::dataset::Row;
use crate::duplicate_keys::DuplicateKeys;
use crate::error::ConfigError;
#[cfg(test)]
use crate::evaluator::InputType;
use crate::evaluator::{EvalInput, InputSpec, TreeInput};
use crate::tree::Node;

mod source;

pub use source::{MappingEntry, ParseMode};
use source::{Source, compile_source};

/// A compiled input mapping; see the [module docs](self).
#[derive(Debug, Clone, Default)]
pub struct InputMapping {
    entries: BTreeMap<String, Source>,
}

/// An input whose source could not be satisfied for one row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MappingError {
    /// The evaluator input.
    pub input: String,
    /// The source (column or JSONPath) it reads.
    pub source: String,
    /// Why it could not be read.
    pub reason: String,
}

impl std::fmt::Display for MappingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "input `{}` from `{}`: {}", self.input, self.source, self.reason)
    }
}

impl std::error::Error for MappingError {}

impl InputMapping {
    /// A mapping with no entries: every input reads its own column.
    pub fn new() -> Self {
        InputMapping::default()
    }

    /// Compiles a map of input name → entry.
    ///
    /// # Errors
    /// A malformed JSONPath, naming the input and the path.
    pub fn compile(map: &BTreeMap<String, MappingEntry>) -> Result<Self, ConfigError> {
        let mut entries = BTreeMap::new();
        for (input, entry) in map {
            entries.insert(input.clone(), compile_source(input, entry)?);
        }
        Ok(InputMapping { entries })
    }

    /// Compiles a configuration object of input name → string or
    /// `{source, parse}`.
    ///
    /// # Errors
    /// A bad entry or a malformed JSONPath.
    pub fn from_config(map: &Map<String, Value>) -> Result<Self, ConfigError> {
        let mut entries = BTreeMap::new();
        for (input, v) in map {
            entries.insert(input.clone(), MappingEntry::from_value(input, v)?);
        }
        InputMapping::compile(&entries)
    }

    /// The source of an input, if mapped.
    pub fn source(&self, input: &str) -> Option<&str> {
        self.entries.get(input).map(|s| s.text.as_str())
    }

    /// Names of the mapped inputs.
    pub fn inputs(&self) -> impl Iterator<Item = &str> {
        self.entries.keys().map(String::as_str)
    }

    /// Builds an evaluator's input from a row.
    ///
    /// # Errors
    /// A required input that cannot be found; optional inputs that cannot
    /// be found are left out.
    pub fn resolve<'r>(
        &self,
        row: &'r Row,
        specs: &[InputSpec],
    ) -> Result<EvalInput<'r>, MappingError> {
        self.resolve_noting(row, specs, None)
    }

    /// As [`InputMapping::resolve`]; `keys` is the row read into a tree
    /// when its text repeated keys (`None` when it did not): each input
    /// then notes the keys its part of the row repeated.
    pub(crate) fn resolve_noting<'r>(
        &self,
        row: &'r Row,
        specs: &[InputSpec],
        keys: Option<Node<'_>>,
    ) -> Result<EvalInput<'r>, MappingError> {
        let mut input = EvalInput::new();
        let mut parsed_view: Option<Value> = None;
        for spec in specs {
            let src = self.entries.get(spec.name.as_ref());
            let found = match src {
                Some(src) => lookup(row, src, &mut parsed_view)
                    .map_err(|reason| MappingError {
                        input: spec.name.to_string(),
                        source: src.text.clone(),
                        reason,
                    })?
                    .map(|v| (v, src.parse)),
                None => {
                    default_lookup(row, &spec.name).map(|v| (Cow::Borrowed(v), ParseMode::Auto))
                }
            };
            let Some((value, parse)) = found else {
                if spec.required {
                    return Err(self.missing_in_row(row, &spec.name));
                }
                continue;
            };
            let (value, parsed_keys) = convert(value, parse);
            input.set_cow(&spec.name, value);
            let noted = parsed_keys.or_else(|| {
                let part = keys.and_then(|k| locate(k, row, src, &spec.name))?;
                DuplicateKeys::of(part)
            });
            if let Some(noted) = noted {
                input.set_duplicate_keys(&spec.name, noted);
            }
        }
        Ok(input)
    }

    /// Whether every mapped input reads a top-level column as it is (no
    /// JSONPath, no `parse`): then [`InputMapping::resolve_tree`] maps a
    /// row read by the fast reader exactly as [`InputMapping::resolve`]
    /// maps the same row read as a value.
    pub fn reads_columns_only(&self) -> bool {
        self.entries.values().all(|s| s.path.is_none() && s.parse != ParseMode::Json)
    }

    /// Builds an evaluator's input from a row read by the fast reader
    /// (`row`: its root object); only for mappings that
    /// [read columns only](InputMapping::reads_columns_only).
    ///
    /// # Errors
    /// A required input that cannot be found.
    pub fn resolve_tree<'r>(
        &self,
        row: Node<'r>,
        specs: &[InputSpec],
    ) -> Result<TreeInput<'r>, MappingError> {
        let mut input = TreeInput::new();
        for spec in specs {
            let found = match self.entries.get(spec.name.as_ref()) {
                Some(src) => row.get(&src.text),
                None => row
                    .get(&spec.name)
                    .or_else(|| if spec.name == "reference" { row.get("expected") } else { None }),
            };
            match found {
                Some(node) => input.set(&spec.name, node),
                None if spec.required => {
                    let names = row.entries().map(|(k, _)| k);
                    return Err(self.missing(names, row.len(), &spec.name));
                }
                None => {}
            }
        }
        Ok(input)
    }

    /// Checks the required inputs of `specs` against `columns`, the keys of
    /// every row of a dataset (a CSV or Parquet header): an input that
    /// reads a column by its name (a source that is no path, or no
    /// mapping: its own column, or `expected` for `reference`) whose column
    /// is not among them would be missing from every row. Optional inputs
    /// are not checked, nor inputs mapped to a path (it may reach into
    /// another column, or match a column named as the whole path).
    ///
    /// # Errors
    /// The first such input, with the error each row would give.
    pub fn check_columns(
        &self,
        specs: &[InputSpec],
        columns: &[String],
    ) -> Result<(), MappingError> {
        let has = |name: &str| columns.iter().any(|c| c == name);
        for spec in specs.iter().filter(|s| s.required) {
            let name = spec.name.as_ref();
            let found = match self.entries.get(name) {
                Some(src) => src.path.is_some() || has(&src.text),
                None => has(name) || (name == "reference" && has("expected")),
            };
            if !found {
                return Err(self.missing(columns.iter().map(String::as_str), columns.len(), name));
            }
        }
        Ok(())
    }

    fn missing_in_row(&self, row: &Row, name: &str) -> MappingError {
        let map = row.value.as_object();
        let names = map.into_iter().flat_map(|m| m.keys().map(String::as_str));
        self.missing(names, map.map_or(0, Map::len), name)
    }

    fn missing<'k>(
        &self,
        names: impl Iterator<Item = &'k str>,
        count: usize,
        name: &str,
    ) -> MappingError {
        let columns = columns(names, count);
        match self.entries.get(name) {
            Some(src) => MappingError {
                input: name.to_owned(),
                source: src.text.clone(),
                reason: if src.path.is_some() {
                    "no column of that name and the path matches nothing in the row".to_owned()
                } else {
                    format!("no such column (columns: {columns})")
                },
            },
            None => MappingError {
                input: name.to_owned(),
                source: name.to_owned(),
                reason: format!(
                    "no column `{name}`{} and no mapping for it (columns: {columns})",
                    if name == "reference" { " or `expected`" } else { "" },
                ),
            },
        }
    }
}

/// The first column names of a row, for an error message.
fn columns<'k>(names: impl Iterator<Item = &'k str>, count: usize) -> String {
    const SHOWN: usize = 12;
    let mut names: Vec<&str> = names.take(SHOWN).collect();
    if count > SHOWN {
        names.push("…");
    }
    names.join(", ")
}

fn default_lookup<'a>(row: &'a Row, name: &str) -> Option<&'a Value> {
    let obj = row.value.as_object()?;
    obj.get(name).or_else(|| if name == "reference" { obj.get("expected") } else { None })
}

/// The value `src` reads from `row`; `Err` (why) when its path would
/// visit more nodes than [`crate::limits::MAX_PATH_VISITS`].
fn lookup<'a>(
    row: &'a Row,
    src: &Source,
    parsed_view: &mut Option<Value>,
) -> Result<Option<Cow<'a, Value>>, String> {
    if let Some(v) = row.value.get(&src.text) {
        return Ok(Some(Cow::Borrowed(v)));
    }
    let Some(path) = src.path.as_ref() else { return Ok(None) };
    affordable(src, &row.value)?;
    if let Some(v) = path.query(&row.value).first() {
        return Ok(Some(Cow::Borrowed(v)));
    }
    if row.text_cells {
        // Text cells holding JSON: let the path reach inside them.
        let view = parsed_view.get_or_insert_with(|| parse_cells(&row.value));
        affordable(src, view)?;
        return Ok(path.query(view).first().map(|v| Cow::Owned(crate::json::clone_deep(v))));
    }
    Ok(None)
}

/// Whether querying `value` with `src`'s path stays within
/// [`crate::limits::MAX_PATH_VISITS`] (see there for the bound).
fn affordable(src: &Source, value: &Value) -> Result<(), String> {
    if src.descendants < 2 {
        return Ok(());
    }
    let limit = crate::limits::MAX_PATH_VISITS;
    let (nodes, depth) = size_and_depth(value);
    let mut bound = nodes;
    for _ in 1..src.descendants {
        bound = bound.saturating_mul(depth + 1);
        if bound > limit {
            return Err(format!(
                "the path's {} descendant segments would visit up to {bound} nodes of this row \
                 ({nodes} values, nested {depth} deep), over the limit of {limit}",
                src.descendants
            ));
        }
    }
    Ok(())
}

/// How many values `value` holds, itself included, and how deep they
/// nest (0 for a scalar); without recursion.
fn size_and_depth(value: &Value) -> (u64, u64) {
    let (mut nodes, mut deepest) = (0u64, 0u64);
    let mut work: Vec<(&Value, u64)> = vec![(value, 0)];
    while let Some((v, depth)) = work.pop() {
        nodes += 1;
        deepest = deepest.max(depth);
        match v {
            Value::Array(items) => work.extend(items.iter().map(|x| (x, depth + 1))),
            Value::Object(map) => work.extend(map.values().map(|x| (x, depth + 1))),
            _ => {}
        }
    }
    (nodes, deepest)
}

/// The node of `tree` (the row read into a tree) that an input's source
/// reads from `row` (the same row read as a value): the same column, or
/// the place of the path's first match. `None` for a match inside a parsed
/// text cell (a CSV row, never read into a tree).
fn locate<'t>(tree: Node<'t>, row: &Row, src: Option<&Source>, name: &str) -> Option<Node<'t>> {
    let Some(src) = src else {
        return tree
            .get(name)
            .or_else(|| if name == "reference" { tree.get("expected") } else { None });
    };
    if row.value.get(&src.text).is_some() {
        return tree.get(&src.text);
    }
    let located = src.path.as_ref()?.query_located(&row.value);
    let mut node = tree;
    for step in located.first()?.location().iter() {
        node = match step {
            PathElement::Name(k) => node.get(k)?,
            PathElement::Index(i) => node.at(*i)?,
        };
    }
    Some(node)
}

/// A copy of a row with the text cells that hold JSON objects or arrays parsed.
fn parse_cells(row: &Value) -> Value {
    let Some(map) = row.as_object() else { return row.clone() };
    let mut out = Map::new();
    for (k, v) in map {
        let parsed = match v {
            Value::String(s) if crate::decode::looks_like_json(s) => {
                crate::json::parse(s).unwrap_or_else(|_| v.clone())
            }
            _ => crate::json::clone_deep(v),
        };
        out.insert(k.clone(), parsed);
    }
    Value::Object(out)
}

/// Applies an entry's `parse: json`: the cell is read as JSON text (the
/// one decode rule, [`crate::decode`]), with the keys the text repeated.
/// Other strings reach the evaluator as they are, and JSON metrics decode
/// them themselves.
fn convert(value: Cow<'_, Value>, parse: ParseMode) -> (Cow<'_, Value>, Option<DuplicateKeys>) {
    if parse != ParseMode::Json {
        return (value, None);
    }
    let opts = crate::decode::DecodeOptions {
        mode: crate::decode::Mode::Json,
        ..crate::decode::DecodeOptions::default()
    };
    match crate::decode::decode(value.as_ref(), &opts) {
        Ok(d) if d.method == crate::decode::Method::Whole => {
            (Cow::Owned(d.value.into_owned()), d.duplicate_keys)
        }
        _ => (value, None),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const PAIR: &[InputSpec] = &[
        InputSpec::required("output", InputType::Json, ""),
        InputSpec::required("reference", InputType::Json, ""),
    ];

    fn row(value: Value) -> Row {
        Row { number: 1, value, text_cells: false }
    }

    fn mapping(pairs: &[(&str, &str)]) -> Result<InputMapping, ConfigError> {
        let map = pairs.iter().map(|(k, v)| (k.to_string(), MappingEntry::new(*v))).collect();
        InputMapping::compile(&map)
    }

    /// `{"a": {"a": ... 1 ...}}`, `depth` levels.
    fn nested(depth: usize) -> Value {
        let mut v = json!(1);
        for _ in 0..depth {
            v = json!({ "a": v });
        }
        v
    }

    #[test]
    fn costly_descendant_paths_fail_the_row_not_the_run() {
        let m = mapping(&[("output", "$..*..*..*"), ("reference", "reference")]).unwrap();
        // 800 levels: 801 values × 801² visits, over the limit; refused at
        // once (the query itself took 21 s and 850 MB).
        let deep = row(json!({ "output": nested(800), "reference": 1 }));
        let e = m.resolve(&deep, PAIR).unwrap_err();
        assert_eq!((e.input.as_str(), e.source.as_str()), ("output", "$..*..*..*"));
        assert!(e.reason.contains("over the limit of 10000000"), "{}", e.reason);
        // A shallow row with the same path is read as usual.
        let shallow = row(json!({ "output": nested(3), "reference": 1 }));
        let input = m.resolve(&shallow, PAIR).unwrap();
        assert!(input.get("output").is_some());
        // One descendant segment is never refused, whatever the depth.
        let m = mapping(&[("output", "$..a"), ("reference", "reference")]).unwrap();
        assert!(m.resolve(&deep, PAIR).is_ok());
    }

    #[test]
    fn defaults_read_same_name_columns_and_expected() {
        let m = InputMapping::new();
        let r = row(json!({"output": 1, "expected": 2}));
        let input = m.resolve(&r, PAIR).unwrap();
        assert_eq!(input.get("output"), Some(&json!(1)));
        assert_eq!(input.get("reference"), Some(&json!(2)));
        let r = row(json!({"output": 1, "reference": 3, "expected": 2}));
        let input = m.resolve(&r, PAIR).unwrap();
        assert_eq!(input.get("reference"), Some(&json!(3)));
    }

    #[test]
    fn maps_by_key_and_by_jsonpath() {
        let m = mapping(&[
            ("output", "output.tool_calls[0].arguments"),
            ("reference", "$.gold.docs[-1]"),
        ])
        .unwrap();
        let r = row(json!({
            "output": {"tool_calls": [{"arguments": {"q": "x"}}, {"arguments": 2}]},
            "gold": {"docs": ["a", "b", "last"]}
        }));
        let input = m.resolve(&r, PAIR).unwrap();
        assert_eq!(input.get("output"), Some(&json!({"q": "x"})));
        assert_eq!(input.get("reference"), Some(&json!("last")));
        let m = mapping(&[("output", "input.documents[-1]"), ("reference", "answer")]).unwrap();
        let r = row(json!({"input": {"documents": [1, 2, 3]}, "answer": "a"}));
        let input = m.resolve(&r, PAIR).unwrap();
        assert_eq!(input.get("output"), Some(&json!(3)));
        assert_eq!(input.get("reference"), Some(&json!("a")));
    }

    #[test]
    fn whole_string_key_wins_over_the_path() {
        let m = mapping(&[("output", "a.b"), ("reference", "my-col")]).unwrap();
        let r = row(json!({"a.b": "direct", "a": {"b": "nested"}, "my-col": 1}));
        assert_eq!(m.resolve(&r, PAIR).unwrap().get("output"), Some(&json!("direct")));
        let r = row(json!({"a": {"b": "nested"}, "my-col": 1}));
        assert_eq!(m.resolve(&r, PAIR).unwrap().get("output"), Some(&json!("nested")));
    }

    #[test]
    fn missing_required_and_optional_inputs() {
        let m = mapping(&[("output", "$.x.y")]).unwrap();
        let e = m.resolve(&row(json!({"x": {}, "reference": 1})), PAIR).unwrap_err();
        assert_eq!((e.input.as_str(), e.source.as_str()), ("output", "$.x.y"));
        assert!(e.to_string().starts_with("input `output` from `$.x.y`: "), "{e}");
        let e = InputMapping::new().resolve(&row(json!({"output": 1})), PAIR).unwrap_err();
        assert_eq!(e.input, "reference");
        assert!(e.reason.contains("`expected`") && e.reason.contains("columns: output"), "{e}");
        let specs = [
            InputSpec::required("output", InputType::Json, ""),
            InputSpec::optional("weights", InputType::Json, ""),
        ];
        let r = row(json!({"output": 1}));
        let input = InputMapping::new().resolve(&r, &specs).unwrap();
        assert_eq!(input.names().collect::<Vec<_>>(), vec!["output"]);
    }

    #[test]
    fn columns_every_row_lacks_are_found_from_the_header() {
        let header = |names: &[&str]| names.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        let none = InputMapping::new();
        // Each required input's own column, or `expected` for `reference`.
        assert!(none.check_columns(PAIR, &header(&["id", "output", "reference"])).is_ok());
        assert!(none.check_columns(PAIR, &header(&["output", "expected"])).is_ok());
        let e = none.check_columns(PAIR, &header(&["id", "output"])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "input `reference` from `reference`: no column `reference` or `expected` and no mapping for it (columns: id, output)"
        );
        // The same error a row with these columns gives.
        let r = row(json!({"id": "1", "output": "x"}));
        assert_eq!(none.resolve(&r, PAIR).unwrap_err(), e);
        let e = none.check_columns(PAIR, &header(&["reference"])).unwrap_err();
        assert_eq!(e.input, "output");
        // A mapped column name is looked for as it is, not the input's name.
        let m = mapping(&[("reference", "gold")]).unwrap();
        assert!(m.check_columns(PAIR, &header(&["output", "gold"])).is_ok());
        let e = m.check_columns(PAIR, &header(&["output", "reference"])).unwrap_err();
        assert_eq!(
            e.to_string(),
            "input `reference` from `gold`: no such column (columns: output, reference)"
        );
        // A path may reach into another column: never refused.
        let m = mapping(&[("reference", "gold.answer"), ("output", "$.o")]).unwrap();
        assert!(m.check_columns(PAIR, &header(&["id"])).is_ok());
        // Optional inputs may be missing.
        let specs = [
            InputSpec::required("output", InputType::Json, ""),
            InputSpec::optional("weights", InputType::Json, ""),
        ];
        assert!(none.check_columns(&specs, &header(&["output"])).is_ok());
    }

    #[test]
    fn malformed_paths_are_config_errors_naming_input_and_path() {
        let e = mapping(&[("output", "$.a[")]).unwrap_err().to_string();
        assert!(e.contains("`output`") && e.contains("`$.a[`"), "{e}");
        assert!(mapping(&[("reference", "a..b")]).unwrap_err().to_string().contains("`a..b`"));
        assert!(mapping(&[("output", "a[0")]).is_err());
        assert!(mapping(&[("output", "a.")]).is_err());
        assert!(mapping(&[("output", "")]).is_err());
    }

    #[test]
    fn text_cells_reach_evaluators_as_text_unless_parse_json() {
        let specs = [
            InputSpec::required("output", InputType::Json, ""),
            InputSpec::required("label", InputType::Text, ""),
        ];
        let mut r = row(json!({"output": "{\"a\": 1}", "label": "[1]"}));
        r.text_cells = true;
        let input = InputMapping::new().resolve(&r, &specs).unwrap();
        // JSON metrics decode text themselves (crate::decode).
        assert_eq!(input.get("output"), Some(&json!("{\"a\": 1}")));
        assert_eq!(input.get("label"), Some(&json!("[1]")));
        // Not JSON: the raw text still reaches the evaluator.
        r.value = json!({"output": "Sure! ```json {\"a\":1}```", "label": "x"});
        let input = InputMapping::new().resolve(&r, &specs).unwrap();
        assert_eq!(input.get("output"), Some(&json!("Sure! ```json {\"a\":1}```")));
        // Not a text cell: strings stay strings unless `parse: json`.
        let r = row(json!({"output": "{\"a\": 1}", "label": "[1]"}));
        assert_eq!(
            InputMapping::new().resolve(&r, &specs).unwrap().get("output"),
            Some(&json!("{\"a\": 1}"))
        );
        let m = InputMapping::from_config(
            json!({"label": {"source": "label", "parse": "json"}}).as_object().unwrap(),
        )
        .unwrap();
        assert_eq!(m.resolve(&r, &specs).unwrap().get("label"), Some(&json!([1])));
    }

    #[test]
    fn paths_reach_into_json_text_cells() {
        let m = mapping(&[("output", "output.args[-1]")]).unwrap();
        let r = Row {
            number: 1,
            value: json!({"output": "{\"args\": [1, 2]}", "reference": "2"}),
            text_cells: true,
        };
        let input = m.resolve(&r, PAIR).unwrap();
        assert_eq!(input.get("output"), Some(&json!(2)));
        assert_eq!(input.get("reference"), Some(&json!("2")));
    }

    #[test]
    fn inputs_note_the_keys_their_part_of_the_row_repeated() {
        let text = r#"{"output":{"calls":[{"args":{"q":1,"q":2}}]},"reference":{"a":1},"expected":{"b":1,"b":2},"cell":"{\"x\":1,\"x\":2}"}"#;
        let r = row(crate::json::parse(text).unwrap());
        let tree = crate::fast_json::read(text).unwrap();
        let path = |d: Option<&DuplicateKeys>| d.map(|d| d.listed[0].path.to_string());
        let input = InputMapping::new().resolve_noting(&r, PAIR, Some(tree.root())).unwrap();
        assert_eq!(path(input.duplicate_keys("output")).as_deref(), Some("$.calls[0].args.q"));
        assert_eq!(input.duplicate_keys("reference"), None);
        // Without the tree (a row whose text repeated nothing), nothing.
        let input = InputMapping::new().resolve(&r, PAIR).unwrap();
        assert_eq!(input.duplicate_keys("output"), None);
        let m = InputMapping::from_config(
            json!({"output": "output.calls[0]", "reference": "$.expected"}).as_object().unwrap(),
        )
        .unwrap();
        let input = m.resolve_noting(&r, PAIR, Some(tree.root())).unwrap();
        assert_eq!(path(input.duplicate_keys("output")).as_deref(), Some("$.args.q"));
        assert_eq!(path(input.duplicate_keys("reference")).as_deref(), Some("$.b"));
        // `parse: json` reads a cell's text, and notes its repeated keys.
        let m = InputMapping::from_config(
            json!({"output": {"source": "cell", "parse": "json"}}).as_object().unwrap(),
        )
        .unwrap();
        let input = m.resolve(&r, PAIR).unwrap();
        assert_eq!(input.get("output"), Some(&json!({"x": 2})));
        assert_eq!(path(input.duplicate_keys("output")).as_deref(), Some("$.x"));
    }

    #[test]
    fn config_entry_shapes() {
        let bad = json!({"output": {"source": "a", "parse": "yaml"}});
        assert!(
            InputMapping::from_config(bad.as_object().unwrap())
                .unwrap_err()
                .to_string()
                .contains("yaml")
        );
        let bad = json!({"output": {"src": "a"}});
        assert!(
            InputMapping::from_config(bad.as_object().unwrap())
                .unwrap_err()
                .to_string()
                .contains("`src`")
        );
        let bad = json!({"output": 3});
        assert!(InputMapping::from_config(bad.as_object().unwrap()).is_err());
        let ok = InputMapping::from_config(json!({"output": "$.o"}).as_object().unwrap()).unwrap();
        assert_eq!(ok.source("output"), Some("$.o"));
        assert_eq!(ok.inputs().collect::<Vec<_>>(), vec!["output"]);
    }
}
