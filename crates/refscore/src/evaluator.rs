//! The [`Evaluator`] trait every metric implements, its [`EvalInput`] and
//! its [`Evaluation`].
//!
//! An evaluator declares the inputs it reads ([`InputSpec`]): required
//! inputs must be present and non-empty (not absent, not `null`, not a
//! string of white space only); [`Evaluator::evaluate`] checks this before
//! the metric sees the input, so that an empty answer is an error for that
//! row, never a score.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::duplicate_keys::DuplicateKeys;
use crate::engine::FieldTallies;
use crate::error::EvalError;
use crate::score::{Direction, Kind, Score};
use crate::tree::Node;

/// The type of value an input holds, as `describe()` shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InputType {
    /// A JSON document: a value, or text holding one (see [`crate::decode`]).
    Json,
    /// Text.
    Text,
    /// A list (or set) of labels or strings.
    Labels,
    /// A regular expression or other pattern.
    Pattern,
}

impl InputType {
    /// The type's name as documented.
    pub fn as_str(self) -> &'static str {
        match self {
            InputType::Json => "json",
            InputType::Text => "text",
            InputType::Labels => "labels",
            InputType::Pattern => "pattern",
        }
    }
}

/// One input an evaluator reads from a row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InputSpec {
    /// Input name (`output`, `reference`, `weights`, `rules`, `context`, ...).
    pub name: Cow<'static, str>,
    /// Whether the evaluation fails without it (absent, `null` or empty).
    pub required: bool,
    /// What it holds.
    #[serde(rename = "type")]
    pub kind: InputType,
    /// One line saying what it is for.
    pub description: &'static str,
}

impl InputSpec {
    /// A required input.
    pub const fn required(name: &'static str, kind: InputType, description: &'static str) -> Self {
        InputSpec { name: Cow::Borrowed(name), required: true, kind, description }
    }

    /// An optional input.
    pub const fn optional(name: &'static str, kind: InputType, description: &'static str) -> Self {
        InputSpec { name: Cow::Borrowed(name), required: false, kind, description }
    }

    /// An input whose name is known only at build time (a prompt
    /// template's placeholder, say).
    pub fn named(name: String, required: bool, kind: InputType, description: &'static str) -> Self {
        InputSpec { name: Cow::Owned(name), required, kind, description }
    }
}

/// Whether a value counts as empty for a required input: `null`, or a
/// string holding nothing but white space. Empty arrays and objects are
/// values (an empty list of labels, an empty document).
pub fn is_empty_value(v: &Value) -> bool {
    empty(v.is_null(), v.as_str())
}

/// The one emptiness rule, for values and tree nodes alike.
fn empty(null: bool, text: Option<&str>) -> bool {
    null || text.is_some_and(|s| s.trim().is_empty())
}

/// Checks one input's size: a text may be at most
/// [`MAX_TEXT_BYTES`](crate::limits::MAX_TEXT_BYTES) long.
fn check_size(name: &str, text: Option<&str>) -> Result<(), EvalError> {
    match text {
        Some(t) if t.len() > crate::limits::MAX_TEXT_BYTES => Err(EvalError::InputTooLarge {
            input: name.to_owned(),
            bytes: t.len(),
            limit: crate::limits::MAX_TEXT_BYTES,
        }),
        _ => Ok(()),
    }
}

/// Checks one required input: present, not `null`, not empty.
fn check_required(name: &str, present: Option<(bool, Option<&str>)>) -> Result<(), EvalError> {
    match present {
        None | Some((true, _)) => Err(EvalError::MissingInput { input: name.to_owned() }),
        Some((null, text)) if empty(null, text) => {
            Err(EvalError::EmptyInput { input: name.to_owned() })
        }
        Some(_) => Ok(()),
    }
}

/// The inputs of one evaluation, by name. Values are owned, or borrowed
/// from the row they come from (no copy of large documents). An input
/// read from JSON text that repeated keys says so
/// ([`EvalInput::set_duplicate_keys`]): a value cannot tell.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EvalInput<'a> {
    values: BTreeMap<String, Cow<'a, Value>>,
    duplicate_keys: BTreeMap<String, DuplicateKeys>,
}

impl<'a> EvalInput<'a> {
    /// An empty input.
    pub fn new() -> Self {
        EvalInput::default()
    }

    /// An input holding `output` and `reference`.
    pub fn pair(output: Value, reference: Value) -> Self {
        EvalInput::new().with("output", output).with("reference", reference)
    }

    /// Adds or replaces one input.
    #[must_use]
    pub fn with(mut self, name: &str, value: Value) -> Self {
        self.set(name, value);
        self
    }

    /// Sets one input.
    pub fn set(&mut self, name: &str, value: Value) {
        self.set_cow(name, Cow::Owned(value));
    }

    /// Sets one input to a value borrowed from elsewhere (a dataset row).
    pub fn set_borrowed(&mut self, name: &str, value: &'a Value) {
        self.set_cow(name, Cow::Borrowed(value));
    }

    /// Sets one input, owned or borrowed (what was noted of an earlier
    /// value of the input goes).
    pub fn set_cow(&mut self, name: &str, value: Cow<'a, Value>) {
        self.duplicate_keys.remove(name);
        self.values.insert(name.to_owned(), value);
    }

    /// Notes that the text an input's value was read from repeated these
    /// keys (JSON metrics record it under `decode`). Set the input first.
    pub fn set_duplicate_keys(&mut self, name: &str, keys: DuplicateKeys) {
        self.duplicate_keys.insert(name.to_owned(), keys);
    }

    /// The keys the text of an input repeated, if noted.
    pub fn duplicate_keys(&self, name: &str) -> Option<&DuplicateKeys> {
        self.duplicate_keys.get(name)
    }

    /// One input, if present and not `null`.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.values.get(name).map(AsRef::as_ref).filter(|v| !v.is_null())
    }

    /// One input, or [`EvalError::MissingInput`].
    ///
    /// # Errors
    /// When the input is absent or `null`.
    pub fn require(&self, name: &str) -> Result<&Value, EvalError> {
        self.get(name).ok_or_else(|| EvalError::MissingInput { input: name.to_owned() })
    }

    /// Frees the owned values without deep recursion.
    pub fn release(self) {
        for v in self.values.into_values() {
            if let Cow::Owned(v) = v {
                crate::json::drop_deep(v);
            }
        }
    }

    /// Names of the inputs present.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.values.keys().map(String::as_str)
    }

    /// Checks the inputs of `specs`: each required one must be present
    /// and not empty ([`is_empty_value`]), and no text may be longer than
    /// [`MAX_TEXT_BYTES`](crate::limits::MAX_TEXT_BYTES).
    ///
    /// # Errors
    /// [`EvalError::MissingInput`], [`EvalError::EmptyInput`] or
    /// [`EvalError::InputTooLarge`], naming the first input that fails.
    pub fn check(&self, specs: &[InputSpec]) -> Result<(), EvalError> {
        for spec in specs {
            let v = self.values.get(spec.name.as_ref()).map(AsRef::as_ref);
            if spec.required {
                check_required(&spec.name, v.map(|v| (v.is_null(), v.as_str())))?;
            }
            check_size(&spec.name, v.and_then(Value::as_str))?;
        }
        Ok(())
    }
}

/// The inputs of one evaluation as nodes of a parsed row (a row read by
/// the fast reader: no `serde_json` value was built for it).
#[derive(Debug, Clone, Default)]
pub struct TreeInput<'a> {
    nodes: BTreeMap<String, Node<'a>>,
}

impl<'a> TreeInput<'a> {
    /// An empty input.
    pub fn new() -> Self {
        TreeInput::default()
    }

    /// Sets one input.
    pub fn set(&mut self, name: &str, node: Node<'a>) {
        self.nodes.insert(name.to_owned(), node);
    }

    /// One input, if present and not `null`.
    pub fn get(&self, name: &str) -> Option<Node<'a>> {
        self.nodes.get(name).copied().filter(|n| !n.is_null())
    }

    /// Checks the inputs of `specs`, as [`EvalInput::check`].
    ///
    /// # Errors
    /// [`EvalError::MissingInput`], [`EvalError::EmptyInput`] or
    /// [`EvalError::InputTooLarge`].
    pub fn check(&self, specs: &[InputSpec]) -> Result<(), EvalError> {
        for spec in specs {
            let n = self.nodes.get(spec.name.as_ref());
            if spec.required {
                check_required(&spec.name, n.map(|n| (n.is_null(), n.as_str())))?;
            }
            check_size(&spec.name, n.and_then(|n| n.as_str()))?;
        }
        Ok(())
    }

    /// The inputs as owned values (a copy), leaving out `except`, with
    /// the keys each repeated ([`DuplicateKeys::of`]).
    pub fn to_values(&self, except: &[&str]) -> EvalInput<'static> {
        let mut input = EvalInput::new();
        for (name, node) in self.nodes.iter().filter(|(n, _)| !except.contains(&n.as_str())) {
            input.set(name, node.to_value());
            if let Some(keys) = DuplicateKeys::of(*node) {
                input.set_duplicate_keys(name, keys);
            }
        }
        input
    }
}

/// What one evaluation produced: its scores, and what the run needs beside
/// them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Evaluation {
    /// One or more scores; the first is the evaluator's main score.
    pub scores: Vec<Score>,
    /// Per-field tallies of a JSON comparison, when the evaluator was
    /// built to gather them ([`crate::metrics::BuildContext::field_tallies`]).
    pub fields: FieldTallies,
    /// How each input was decoded into JSON (input name → decision), and
    /// the keys its JSON repeated, for the execution details.
    pub decoded: Map<String, Value>,
}

impl Evaluation {
    /// An evaluation with these scores.
    pub fn of(scores: Vec<Score>) -> Self {
        Evaluation { scores, ..Evaluation::default() }
    }

    /// An evaluation with one score.
    pub fn one(score: Score) -> Self {
        Evaluation::of(vec![score])
    }

    /// The main score (the first), if any.
    pub fn main(&self) -> Option<&Score> {
        self.scores.first()
    }
}

/// Anything that turns an input into one or more [`Score`]s.
///
/// Evaluators are built once from their configuration and are immutable:
/// one evaluator scores millions of rows, from many threads at once.
/// Implement [`Evaluator::compute`]; call [`Evaluator::evaluate`], which
/// checks the required inputs first.
pub trait Evaluator: Send + Sync {
    /// The evaluator's name (also the name of its main score).
    fn name(&self) -> &str;

    /// The inputs it reads.
    fn inputs(&self) -> &[InputSpec];

    /// Whether higher or lower scores are better.
    fn direction(&self) -> Direction {
        Direction::Maximize
    }

    /// Where its signal comes from.
    fn kind(&self) -> Kind {
        Kind::Code
    }

    /// Evaluates one input whose required inputs are known to be present
    /// and non-empty.
    ///
    /// An input that cannot be scored for a reason of its own (output not
    /// JSON, say) gives an `invalid` [`Score`], not an error; errors are
    /// for inputs the evaluator cannot read at all.
    ///
    /// # Errors
    /// An input has a type or value the evaluator cannot use.
    fn compute(&self, input: &EvalInput<'_>) -> Result<Evaluation, EvalError>;

    /// Checks the required inputs, then evaluates.
    ///
    /// # Errors
    /// A required input is missing, `null` or empty, or
    /// [`Evaluator::compute`] fails.
    fn evaluate(&self, input: &EvalInput<'_>) -> Result<Evaluation, EvalError> {
        input.check(self.inputs())?;
        self.compute(input)
    }

    /// Evaluates inputs given as nodes of a parsed row. By default the
    /// nodes are copied into values for [`Evaluator::evaluate`]; the JSON
    /// metrics read the nodes directly.
    ///
    /// # Errors
    /// As [`Evaluator::evaluate`].
    fn evaluate_tree(&self, input: &TreeInput<'_>) -> Result<Evaluation, EvalError> {
        let values = input.to_values(&[]);
        let result = self.evaluate(&values);
        values.release();
        result
    }

    /// Warnings about the configuration that only a whole run reveals
    /// (for example a rule selector that matched nothing). Read after the
    /// run.
    fn warnings(&self) -> Vec<String> {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const SPECS: &[InputSpec] = &[
        InputSpec::required("output", InputType::Text, "the answer"),
        InputSpec::optional("context", InputType::Text, "extra"),
    ];

    #[test]
    fn required_inputs_must_be_present_and_non_empty() {
        let ok = EvalInput::new().with("output", json!("x"));
        assert_eq!(ok.check(SPECS), Ok(()));
        let absent = EvalInput::new().with("context", json!("x"));
        assert_eq!(absent.check(SPECS), Err(EvalError::MissingInput { input: "output".into() }));
        let null = EvalInput::new().with("output", Value::Null);
        assert_eq!(null.check(SPECS), Err(EvalError::MissingInput { input: "output".into() }));
        for empty in [json!(""), json!("  \n")] {
            let e = EvalInput::new().with("output", empty).check(SPECS);
            assert_eq!(e, Err(EvalError::EmptyInput { input: "output".into() }));
        }
        for value in [json!([]), json!({}), json!(0), json!(false)] {
            assert_eq!(EvalInput::new().with("output", value).check(SPECS), Ok(()));
        }
    }

    #[test]
    fn repeated_keys_are_noted_per_input_and_go_with_a_new_value() {
        let keys = DuplicateKeys::in_text(r#"{"a":1,"a":2}"#).unwrap();
        let mut i = EvalInput::pair(json!({"a": 2}), json!({"a": 2}));
        i.set_duplicate_keys("output", keys.clone());
        assert_eq!(i.duplicate_keys("output"), Some(&keys));
        assert_eq!(i.duplicate_keys("reference"), None);
        i.set("output", json!(1));
        assert_eq!(i.duplicate_keys("output"), None);
        let tree =
            crate::fast_json::read(r#"{"output":{"a":1,"a":2},"reference":{"a":2}}"#).unwrap();
        let mut nodes = TreeInput::new();
        nodes.set("output", tree.root().get("output").unwrap());
        nodes.set("reference", tree.root().get("reference").unwrap());
        let values = nodes.to_values(&[]);
        assert_eq!(values.duplicate_keys("output"), Some(&keys));
        assert_eq!(values.duplicate_keys("reference"), None);
    }

    #[test]
    fn a_text_over_the_limit_is_refused_naming_the_input() {
        let limit = crate::limits::MAX_TEXT_BYTES;
        let at = "x".repeat(limit);
        let over = "x".repeat(limit + 1);
        assert_eq!(EvalInput::new().with("output", json!(at)).check(SPECS), Ok(()));
        let big = EvalError::InputTooLarge { input: "context".into(), bytes: limit + 1, limit };
        let i = EvalInput::new().with("output", json!("x")).with("context", json!(over.clone()));
        assert_eq!(i.check(SPECS), Err(big.clone()));
        assert!(big.to_string().starts_with("input `context` is a text of 8388609 bytes"), "{big}");
        // Inputs no spec names are not read, so not checked.
        let unread = EvalInput::new().with("output", json!("x")).with("other", json!(over.clone()));
        assert_eq!(unread.check(SPECS), Ok(()));
        // The same rule for nodes of a parsed row.
        let text = format!(r#"{{"output":"x","context":"{over}"}}"#);
        let tree = crate::fast_json::read(&text).unwrap();
        let mut nodes = TreeInput::new();
        for name in ["output", "context"] {
            nodes.set(name, tree.root().get(name).unwrap());
        }
        assert_eq!(nodes.check(SPECS), Err(big));
    }

    #[test]
    fn null_inputs_read_as_absent() {
        let i = EvalInput::new().with("context", Value::Null);
        assert!(i.get("context").is_none());
        assert!(i.require("context").is_err());
    }
}
