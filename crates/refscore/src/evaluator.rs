//! The [`Evaluator`] trait every metric implements, and its [`EvalInput`].

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde_json::Value;

use crate::error::EvalError;
use crate::score::{Direction, Score};

/// One input an evaluator reads from a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InputSpec {
    /// Input name (`output`, `reference`, `weights`, `rules`, `context`, ...).
    pub name: &'static str,
    /// Whether the evaluation fails without it.
    pub required: bool,
    /// Whether the evaluator wants JSON: text cells holding JSON (CSV, or
    /// strings with `parse_strings`) are parsed before it sees them.
    pub json: bool,
}

impl InputSpec {
    /// A required input.
    pub const fn required(name: &'static str, json: bool) -> Self {
        InputSpec { name, required: true, json }
    }

    /// An optional input.
    pub const fn optional(name: &'static str, json: bool) -> Self {
        InputSpec { name, required: false, json }
    }
}

/// The inputs of one evaluation, by name. Values are owned, or borrowed
/// from the row they come from (no copy of large documents).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EvalInput<'a> {
    values: BTreeMap<String, Cow<'a, Value>>,
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
        self.values.insert(name.to_owned(), Cow::Owned(value));
    }

    /// Sets one input to a value borrowed from elsewhere (a dataset row).
    pub fn set_borrowed(&mut self, name: &str, value: &'a Value) {
        self.values.insert(name.to_owned(), Cow::Borrowed(value));
    }

    /// Sets one input, owned or borrowed.
    pub fn set_cow(&mut self, name: &str, value: Cow<'a, Value>) {
        self.values.insert(name.to_owned(), value);
    }

    /// One input, if present.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.values.get(name).map(AsRef::as_ref)
    }

    /// One input, or [`EvalError::MissingInput`].
    ///
    /// # Errors
    /// When the input is absent.
    pub fn require(&self, name: &str) -> Result<&Value, EvalError> {
        self.get(name).ok_or_else(|| EvalError::MissingInput { input: name.to_owned() })
    }

    /// Names of the inputs present.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.values.keys().map(String::as_str)
    }
}

/// Anything that turns an input into one or more [`Score`]s.
///
/// Evaluators are built once from their configuration and are immutable:
/// one evaluator scores millions of rows, from many threads at once.
pub trait Evaluator: Send + Sync {
    /// The evaluator's name (also the name of its main score).
    fn name(&self) -> &str;

    /// The inputs it reads.
    fn inputs(&self) -> &[InputSpec];

    /// Whether higher or lower scores are better.
    fn direction(&self) -> Direction {
        Direction::Maximize
    }

    /// Evaluates one input.
    ///
    /// An input that cannot be scored for a reason of its own (output not
    /// JSON, say) gives an `invalid` [`Score`], not an error; errors are
    /// for inputs the evaluator cannot read at all.
    ///
    /// # Errors
    /// A required input is missing, or has a type the evaluator cannot use.
    fn evaluate(&self, input: &EvalInput<'_>) -> Result<Vec<Score>, EvalError>;

    /// Warnings about the configuration that only a whole run reveals
    /// (for example a rule selector that matched nothing). Read after the
    /// run.
    fn warnings(&self) -> Vec<String> {
        Vec::new()
    }
}
