//! `exact_match`: whether the output equals the reference, after optional
//! string normalizers (Arize Phoenix's `exact_match`).
//!
//! How the two values are compared depends on their JSON types:
//!
//! | output     | reference  | compared                                                  |
//! |------------|------------|-----------------------------------------------------------|
//! | string     | string     | the strings, after the normalizers                        |
//! | string     | non-string | the string with the other's compact JSON text, both after the normalizers (`"42"` = `42`, `"true"` = `true`) |
//! | non-string | string     | as above                                                  |
//! | non-string | non-string | as JSON ([`json_equal`]): numbers by value (`1` = `1.0`), strings inside arrays and objects as written (no normalizers) |
//!
//! Score 1 with label `match`, else 0 with label `mismatch` and one
//! detail `exact_match` giving the compared texts and the first character
//! at which they differ.
//!
//! Option `normalize`: a list of normalizer names applied in order
//! ([`Normalizer`]: `nfkc`, `casefold`, `trim`, `collapse_whitespace`,
//! `strip_punctuation`); default none, an exact comparison. The metadata
//! `normalizers` lists the steps applied.

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::BuildContext;
use super::options::Opts;
use super::registry::{MetricSpec, OptionSpec, OptionType};
use crate::detail::{Detail, Outcome};
use crate::engine::json_equal;
use crate::error::{ConfigError, EvalError};
use crate::evaluator::{EvalInput, Evaluation, Evaluator, InputSpec, InputType};
use crate::normalize::{Normalizer, normalize};
use crate::score::{Direction, Kind, Score};

/// The declaration of `exact_match`.
pub const SPEC: MetricSpec = MetricSpec {
    name: "exact_match",
    description: "1 when the output equals the reference (after optional normalizers), else 0",
    inputs: &[
        InputSpec::required("output", InputType::Text, "the model's answer"),
        InputSpec::required("reference", InputType::Text, "the expected answer"),
    ],
    options: &[OptionSpec::new(
        "normalize",
        OptionType::List,
        None,
        "normalizers applied in order to both sides: nfkc, casefold, trim, collapse_whitespace, strip_punctuation (default: none, exact)",
    )],
    json: false,
    kind: Kind::Code,
    direction: Direction::Maximize,
    threshold: Some(1.0),
    extra_scores: &[],
    example: "- metric: exact_match
  options: {normalize: [nfkc, casefold, trim]}",
    build: |o, ctx| Ok(Box::new(ExactMatch::from_options(o, ctx)?) as Box<dyn Evaluator>),
};

/// The `exact_match` metric.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExactMatch {
    normalizers: Vec<Normalizer>,
}

/// Reads a `normalize` option: a list of normalizer names (or one name),
/// in the order they are applied. Absent or `null`: no normalizer.
///
/// # Errors
/// [`ConfigError::BadOption`] naming `key` for a value that is not a name
/// or a list of names, or for an unknown name.
pub(crate) fn normalizers_option(
    o: &Opts<'_>,
    key: &'static str,
) -> Result<Vec<Normalizer>, ConfigError> {
    let items: Vec<&Value> = match o.value(key) {
        None => return Ok(Vec::new()),
        Some(Value::Array(items)) => items.iter().collect(),
        Some(single) => vec![single],
    };
    items
        .into_iter()
        .map(|item| match item {
            Value::String(name) => name.parse::<Normalizer>().map_err(|e| o.error(key, e)),
            other => Err(o.error(key, format!("expected a normalizer name, got {other}"))),
        })
        .collect()
}

/// The names of `steps`, as metadata.
pub(crate) fn normalizer_names(steps: &[Normalizer]) -> Value {
    Value::Array(steps.iter().map(|n| Value::from(n.name())).collect())
}

impl ExactMatch {
    /// An exact match applying `normalizers`, in order, to both sides.
    pub fn new(normalizers: Vec<Normalizer>) -> Self {
        ExactMatch { normalizers }
    }

    /// From options: `normalize`.
    ///
    /// # Errors
    /// An unknown option or normalizer name.
    pub fn from_options(
        options: &Map<String, Value>,
        ctx: &BuildContext,
    ) -> Result<Self, ConfigError> {
        let _ = ctx;
        let o = Opts::for_metric(&SPEC, options)?;
        let normalizers = normalizers_option(&o, "normalize")?;
        o.finish()?;
        Ok(ExactMatch { normalizers })
    }

    /// The normalizers applied, in order.
    pub fn normalizers(&self) -> &[Normalizer] {
        &self.normalizers
    }

    /// Compares two values: whether they are equal, how they were compared
    /// (`text` or `json`), and the compared texts (empty for equal JSON).
    fn compare<'v>(
        &self,
        output: &'v Value,
        reference: &'v Value,
    ) -> (bool, &'static str, Texts<'v>) {
        let steps = &self.normalizers;
        let text = |v: &Value| -> String {
            match v {
                Value::String(s) => normalize(s, steps).into_owned(),
                other => normalize(&crate::json::compact(other), steps).into_owned(),
            }
        };
        match (output, reference) {
            (Value::String(o), Value::String(r)) => {
                let (o, r) = (normalize(o, steps), normalize(r, steps));
                (o == r, "text", Texts { expected: r, actual: o })
            }
            (Value::String(_), _) | (_, Value::String(_)) => {
                let (o, r) = (text(output), text(reference));
                (o == r, "text", Texts { expected: Cow::Owned(r), actual: Cow::Owned(o) })
            }
            _ => {
                let equal = json_equal(output, reference);
                let texts = if equal {
                    Texts { expected: Cow::Borrowed(""), actual: Cow::Borrowed("") }
                } else {
                    Texts {
                        expected: Cow::Owned(crate::json::compact(reference)),
                        actual: Cow::Owned(crate::json::compact(output)),
                    }
                };
                (equal, "json", texts)
            }
        }
    }
}

/// The two texts compared (for a JSON comparison that failed, the compact
/// JSON texts).
struct Texts<'a> {
    expected: Cow<'a, str>,
    actual: Cow<'a, str>,
}

/// The index, in characters, of the first character at which `a` and `b`
/// differ (the shorter length when one is a prefix of the other).
fn first_difference(a: &str, b: &str) -> usize {
    let mut n = 0;
    let mut xs = a.chars();
    let mut ys = b.chars();
    loop {
        match (xs.next(), ys.next()) {
            (Some(x), Some(y)) if x == y => n += 1,
            _ => return n,
        }
    }
}

impl Evaluator for ExactMatch {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn inputs(&self) -> &[InputSpec] {
        SPEC.inputs
    }

    fn compute(&self, input: &EvalInput<'_>) -> Result<Evaluation, EvalError> {
        let output = input.require("output")?;
        let reference = input.require("reference")?;
        let (equal, compared, texts) = self.compare(output, reference);
        let score = Score::new(SPEC.name, Some(if equal { 1.0 } else { 0.0 }))
            .with_meta("normalizers", normalizer_names(&self.normalizers))
            .with_meta("compared_as", compared);
        if equal {
            return Ok(Evaluation::one(
                score.with_label("match").with_explanation("output equals reference"),
            ));
        }
        let at = first_difference(&texts.expected, &texts.actual);
        let after = if self.normalizers.is_empty() || compared == "json" {
            String::new()
        } else {
            let names: Vec<&str> = self.normalizers.iter().map(|n| n.name()).collect();
            format!(" after {}", names.join(", "))
        };
        let message = format!("output differs from reference{after} at character {at}");
        let detail = Detail::new(SPEC.name, Outcome::Fail)
            .expected(&texts.expected)
            .actual(&texts.actual)
            .message(message);
        let mut score = score
            .with_label("mismatch")
            .with_explanation(detail.line())
            .with_meta("first_difference", at);
        score.details.push(detail);
        Ok(Evaluation::one(score))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::Normalizer::*;
    use serde_json::json;

    fn metric(options: Value) -> Result<ExactMatch, ConfigError> {
        ExactMatch::from_options(options.as_object().unwrap(), &BuildContext::default())
    }

    fn run(m: &ExactMatch, output: Value, reference: Value) -> Score {
        let mut e = m.evaluate(&EvalInput::pair(output, reference)).unwrap();
        assert_eq!(e.scores.len(), 1);
        e.scores.remove(0)
    }

    #[test]
    fn table() {
        // (normalize option, output, reference, matches)
        let cases: &[(Value, Value, Value, bool)] = &[
            (json!([]), json!("Paris"), json!("Paris"), true),
            (json!([]), json!("Paris"), json!("paris"), false),
            (json!([]), json!("Paris "), json!("Paris"), false),
            (json!(["trim"]), json!(" Paris\n"), json!("Paris"), true),
            (json!(["casefold"]), json!("Straße"), json!("STRASSE"), true),
            (json!(["casefold"]), json!("\u{fb01}le"), json!("FILE"), true),
            (json!(["nfkc"]), json!("\u{ff21}\u{ff22}"), json!("AB"), true),
            (json!(["nfkc", "casefold"]), json!("\u{ff41}\u{a0}B"), json!("A b"), true),
            (json!(["strip_punctuation"]), json!("Yes!"), json!("Yes"), true),
            (json!(["collapse_whitespace"]), json!("a \t b"), json!("a b"), true),
            (json!("casefold"), json!("YES"), json!("yes"), true),
            (json!(["casefold"]), json!("yes"), json!("no"), false),
            // Non-strings compare as JSON: numbers by value.
            (json!([]), json!(1), json!(1.0), true),
            (json!([]), json!(1), json!(2), false),
            (json!([]), json!(true), json!(true), true),
            (json!([]), json!(true), json!(false), false),
            (json!([]), json!({"a": [1, 2.0]}), json!({"a": [1.0, 2]}), true),
            (json!([]), json!([1, 2]), json!([2, 1]), false),
            // Normalizers do not reach strings inside documents.
            (json!(["casefold"]), json!(["A"]), json!(["a"]), false),
            // A string against a non-string: the other's compact JSON text.
            (json!([]), json!("42"), json!(42), true),
            (json!([]), json!(42), json!("42"), true),
            (json!([]), json!("42.0"), json!(42), false),
            (json!([]), json!("true"), json!(true), true),
            (json!(["casefold"]), json!("TRUE"), json!(true), true),
            (json!([]), json!("[1,2]"), json!([1, 2]), true),
            (json!([]), json!("[1, 2]"), json!([1, 2]), false),
            (json!(["trim"]), json!(" 7 "), json!(7), true),
        ];
        for (normalize, output, reference, want) in cases {
            let m = metric(json!({ "normalize": normalize })).unwrap();
            let s = run(&m, output.clone(), reference.clone());
            let (score, label) = if *want { (1.0, "match") } else { (0.0, "mismatch") };
            assert_eq!(s.score, Some(score), "{normalize} {output} {reference}");
            assert_eq!(s.label.as_deref(), Some(label), "{normalize} {output} {reference}");
            assert_eq!(s.details.len(), usize::from(!*want), "{output} {reference}");
        }
    }

    #[test]
    fn metadata_lists_the_normalizers() {
        let m = metric(json!({"normalize": ["nfkc", "casefold", "trim"]})).unwrap();
        assert_eq!(m.normalizers(), [Nfkc, Casefold, Trim]);
        let s = run(&m, json!("A"), json!("a"));
        assert_eq!(s.metadata["normalizers"], json!(["nfkc", "casefold", "trim"]));
        assert_eq!(s.metadata["compared_as"], json!("text"));
        let exact = metric(json!({})).unwrap();
        let s = run(&exact, json!(1), json!(1));
        assert_eq!(s.metadata["normalizers"], json!([]));
        assert_eq!(s.metadata["compared_as"], json!("json"));
        assert!(s.details.is_empty());
    }

    #[test]
    fn mismatch_detail_gives_expected_and_actual() {
        let m = metric(json!({"normalize": ["casefold"]})).unwrap();
        let s = run(&m, json!("Gross"), json!("GROSZ"));
        assert_eq!(s.metadata["first_difference"], json!(4));
        let d = &s.details[0];
        assert_eq!(d.check, "exact_match");
        assert_eq!(d.outcome, Outcome::Fail);
        assert!(!d.passed);
        assert_eq!(d.expected.as_deref(), Some("grosz"));
        assert_eq!(d.actual.as_deref(), Some("gross"));
        assert_eq!(
            d.message.as_deref(),
            Some("output differs from reference after casefold at character 4")
        );
        assert_eq!(
            s.explanation.as_deref(),
            Some(
                "✗ exact_match: output differs from reference after casefold at character 4 (expected grosz, got gross)"
            )
        );
        let plain = metric(json!({})).unwrap();
        let s = run(&plain, json!({"a": 1}), json!({"a": 2}));
        let d = &s.details[0];
        assert_eq!(d.expected.as_deref(), Some(r#"{"a":2}"#));
        assert_eq!(d.actual.as_deref(), Some(r#"{"a":1}"#));
        assert_eq!(d.message.as_deref(), Some("output differs from reference at character 5"));
        let s = run(&plain, json!("abc"), json!("ab"));
        assert_eq!(
            s.details[0].message.as_deref(),
            Some("output differs from reference at character 2")
        );
    }

    #[test]
    fn bad_options_are_structured_errors() {
        for (bad, needle) in [
            (json!({"normalize": ["lowercase"]}), "unknown normalizer \"lowercase\""),
            (json!({"normalize": [1]}), "expected a normalizer name, got 1"),
            (json!({"normalize": {"a": 1}}), "expected a normalizer name"),
        ] {
            match metric(bad.clone()) {
                Err(ConfigError::BadOption { metric, option, message }) => {
                    assert_eq!((metric.as_str(), option.as_str()), ("exact_match", "normalize"));
                    assert!(message.contains(needle), "{bad}: {message}");
                }
                other => panic!("{bad}: {other:?}"),
            }
        }
        assert!(matches!(metric(json!({"nope": 1})), Err(ConfigError::UnknownOption { .. })));
        assert_eq!(metric(json!({"normalize": null})).unwrap(), ExactMatch::default());
    }

    #[test]
    fn required_inputs() {
        let m = ExactMatch::default();
        let missing = m.evaluate(&EvalInput::new().with("output", json!("x")));
        assert_eq!(missing, Err(EvalError::MissingInput { input: "reference".into() }));
        let empty = m.evaluate(&EvalInput::pair(json!("  "), json!("x")));
        assert_eq!(empty, Err(EvalError::EmptyInput { input: "output".into() }));
    }

    #[test]
    fn first_difference_counts_characters() {
        assert_eq!(first_difference("", ""), 0);
        assert_eq!(first_difference("abc", "abc"), 3);
        assert_eq!(first_difference("ab", "abc"), 2);
        assert_eq!(first_difference("éa", "éb"), 1);
        assert_eq!(first_difference("x", "y"), 0);
    }
}
