//! `matches_regex`: whether the output matches a regular expression.
//!
//! The pattern is the `pattern` option (compiled once, when the metric is
//! built) or, when the option is not set, each row's `pattern` input
//! (compiled for that row). With neither, the evaluation fails with
//! [`EvalError::InvalidInput`] for input `pattern`. The syntax is the
//! `regex` crate's (Perl-like, no look-around or backreferences, matching
//! in linear time); the compiled program and its lazy DFA are each
//! bounded by [`SIZE_LIMIT`] bytes, so a pattern too large to compile is
//! an error instead of a risk to the run.
//!
//! Options: `full_match` (default false: a match anywhere in the output;
//! true: the whole output must match, as if the pattern were
//! `\A(?:pattern)\z`), `case_insensitive` (default false).
//!
//! Score 1 with label `match`, metadata `start` and `end` (the match's
//! span in characters, end exclusive) and `matched` (the matched text);
//! else 0 with label `no_match` and one failed detail `matches_regex`.
//! An output that is not a string is matched against its compact JSON
//! text.

use regex::{Regex, RegexBuilder};
use serde_json::{Map, Value};

use super::BuildContext;
use super::options::Opts;
use super::registry::{MetricSpec, OptionSpec, OptionType};
use crate::detail::{Detail, Outcome, truncate};
use crate::error::{ConfigError, EvalError};
use crate::evaluator::{EvalInput, Evaluation, Evaluator, InputSpec, InputType};
use crate::score::{Direction, Kind, Score};

/// The declaration of `matches_regex`.
pub const SPEC: MetricSpec = MetricSpec {
    name: "matches_regex",
    description: "1 when the output matches a regular expression (anywhere, or as a whole), else 0",
    inputs: &[
        InputSpec::required("output", InputType::Text, "the text to test"),
        InputSpec::optional(
            "pattern",
            InputType::Pattern,
            "the regular expression for this row, when the `pattern` option is not set",
        ),
    ],
    options: &[
        OptionSpec::new(
            "pattern",
            OptionType::String,
            None,
            "the regular expression (regex crate syntax); default: each row's `pattern` input",
        ),
        OptionSpec::new(
            "full_match",
            OptionType::Bool,
            Some("false"),
            "true: the whole output must match; false: a match anywhere counts",
        ),
        OptionSpec::new(
            "case_insensitive",
            OptionType::Bool,
            Some("false"),
            "match letters regardless of case",
        ),
    ],
    json: false,
    kind: Kind::Code,
    direction: Direction::Maximize,
    threshold: Some(1.0),
    extra_scores: &[],
    example: "- metric: matches_regex
  options: {pattern: '[A-Z]{3}-[0-9]+', full_match: true}",
    build: |o, ctx| Ok(Box::new(MatchesRegex::from_options(o, ctx)?) as Box<dyn Evaluator>),
};

/// Upper bound, in bytes, of a compiled pattern and of its lazy DFA's
/// cache (each): 1 MiB.
pub const SIZE_LIMIT: usize = 1 << 20;

/// The `matches_regex` metric.
#[derive(Debug, Clone, Default)]
pub struct MatchesRegex {
    /// The compiled `pattern` option and its source, if set.
    fixed: Option<(Regex, String)>,
    full_match: bool,
    case_insensitive: bool,
}

/// Compiles `pattern` under the size limits; with `full_match`, anchored
/// at both ends of the text.
///
/// # Errors
/// An empty pattern, a syntax error or a pattern over [`SIZE_LIMIT`], as
/// the message to report.
pub fn compile(pattern: &str, full_match: bool, case_insensitive: bool) -> Result<Regex, String> {
    if pattern.is_empty() {
        return Err(String::from("the pattern is empty"));
    }
    let build = |source: &str| {
        RegexBuilder::new(source)
            .case_insensitive(case_insensitive)
            .size_limit(SIZE_LIMIT)
            .dfa_size_limit(SIZE_LIMIT)
            .build()
            .map_err(|e| e.to_string())
    };
    let plain = build(pattern)?;
    if !full_match {
        return Ok(plain);
    }
    // The pattern is valid on its own, so its groups are balanced and the
    // wrapping group cannot be closed early. A trailing `(?x)` comment
    // would swallow the closing `)\z`: a line break ends it.
    build(&format!(r"\A(?:{pattern})\z"))
        .or_else(|first| build(&format!("\\A(?:{pattern}\n)\\z")).map_err(|_| first))
}

impl MatchesRegex {
    /// From options: `pattern`, `full_match`, `case_insensitive`.
    ///
    /// # Errors
    /// An unknown option, a value of the wrong type, or a `pattern` that
    /// is empty, invalid or too large ([`ConfigError::BadOption`]).
    pub fn from_options(
        options: &Map<String, Value>,
        ctx: &BuildContext,
    ) -> Result<Self, ConfigError> {
        let _ = ctx;
        let o = Opts::for_metric(&SPEC, options)?;
        let full_match = o.bool("full_match", false)?;
        let case_insensitive = o.bool("case_insensitive", false)?;
        let fixed = match o.string("pattern")? {
            None => None,
            Some(p) => {
                let re =
                    compile(&p, full_match, case_insensitive).map_err(|e| o.error("pattern", e))?;
                Some((re, p))
            }
        };
        o.finish()?;
        Ok(MatchesRegex { fixed, full_match, case_insensitive })
    }

    /// Scores `text` against `re` (whose source is `pattern`).
    fn score(&self, re: &Regex, pattern: &str, text: &str) -> Score {
        let score = Score::new(SPEC.name, None).with_meta("pattern", truncate(pattern));
        match re.find(text) {
            Some(m) => {
                let start = text[..m.start()].chars().count();
                let end = start + m.as_str().chars().count();
                Score { score: Some(1.0), ..score }
                    .with_label("match")
                    .with_explanation(format!(
                        "output matches /{pattern}/ at characters {start}..{end}"
                    ))
                    .with_meta("start", start)
                    .with_meta("end", end)
                    .with_meta("matched", truncate(m.as_str()))
            }
            None => {
                let wanted =
                    if self.full_match { "the whole output to match" } else { "a match of" };
                let detail = Detail::new(SPEC.name, Outcome::Fail)
                    .expected(format!("{wanted} /{pattern}/"))
                    .actual(text)
                    .message(if self.full_match {
                        "the output as a whole does not match the pattern"
                    } else {
                        "no match in the output"
                    });
                let mut s = Score { score: Some(0.0), ..score }
                    .with_label("no_match")
                    .with_explanation(detail.line());
                s.details.push(detail);
                s
            }
        }
    }
}

impl Evaluator for MatchesRegex {
    fn name(&self) -> &str {
        SPEC.name
    }

    fn inputs(&self) -> &[InputSpec] {
        SPEC.inputs
    }

    fn compute(&self, input: &EvalInput<'_>) -> Result<Evaluation, EvalError> {
        let output = input.require("output")?;
        let text = crate::json::display(output);
        if let Some((re, pattern)) = &self.fixed {
            return Ok(Evaluation::one(self.score(re, pattern, &text)));
        }
        let invalid = |reason: String| EvalError::InvalidInput { input: "pattern".into(), reason };
        let pattern = match input.get("pattern") {
            None => {
                return Err(invalid(String::from(
                    "no pattern: set the `pattern` option or give a `pattern` input",
                )));
            }
            Some(Value::String(p)) => p,
            Some(other) => {
                return Err(invalid(format!(
                    "expected a regular expression as a string, got {}",
                    crate::json::type_name(other)
                )));
            }
        };
        let re = compile(pattern, self.full_match, self.case_insensitive).map_err(invalid)?;
        Ok(Evaluation::one(self.score(&re, pattern, &text)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A match's span in characters, if any.
    type Span = Option<(usize, usize)>;

    fn metric(options: Value) -> Result<MatchesRegex, ConfigError> {
        MatchesRegex::from_options(options.as_object().unwrap(), &BuildContext::default())
    }

    fn run(m: &MatchesRegex, input: EvalInput<'_>) -> Score {
        let mut e = m.evaluate(&input).unwrap();
        assert_eq!(e.scores.len(), 1);
        e.scores.remove(0)
    }

    fn output(text: Value) -> EvalInput<'static> {
        EvalInput::new().with("output", text)
    }

    #[test]
    fn table() {
        // (options, output, expected (start, end) in characters or None)
        let cases: &[(Value, Value, Span)] = &[
            (json!({"pattern": "[0-9]+"}), json!("order 1234 shipped"), Some((6, 10))),
            (json!({"pattern": "[0-9]+"}), json!("no digits"), None),
            (json!({"pattern": "[0-9]+", "full_match": true}), json!("order 1234"), None),
            (json!({"pattern": "[0-9]+", "full_match": true}), json!("1234"), Some((0, 4))),
            (json!({"pattern": "a|ab", "full_match": true}), json!("ab"), Some((0, 2))),
            (json!({"pattern": "a|ab"}), json!("ab"), Some((0, 1))),
            (json!({"pattern": "^yes$"}), json!("Yes"), None),
            (json!({"pattern": "^yes$", "case_insensitive": true}), json!("Yes"), Some((0, 3))),
            (json!({"pattern": "straße", "case_insensitive": true}), json!("STRAẞE"), Some((0, 6))),
            // Spans count characters, not bytes.
            (json!({"pattern": "b+"}), json!("ééébb"), Some((3, 5))),
            (json!({"pattern": "日本"}), json!("こんにちは日本"), Some((5, 7))),
            // `^`/`$` without multi-line: whole text; `\z` in full match.
            (json!({"pattern": "^b$"}), json!("a\nb"), None),
            (json!({"pattern": "(?m)^b$"}), json!("a\nb"), Some((2, 3))),
            (json!({"pattern": "b", "full_match": true}), json!("b\n"), None),
            // A trailing comment in verbose mode does not break anchoring.
            (
                json!({"pattern": "(?x) a b # letters", "full_match": true}),
                json!("ab"),
                Some((0, 2)),
            ),
            (json!({"pattern": "(?x) a b # letters", "full_match": true}), json!("abc"), None),
            // Non-string outputs: their compact JSON text.
            (json!({"pattern": "^[0-9]+$"}), json!(42), Some((0, 2))),
            (json!({"pattern": r#""a":1"#}), json!({"a": 1}), Some((1, 6))),
        ];
        for (options, out, want) in cases {
            let m = metric(options.clone()).unwrap();
            let s = run(&m, output(out.clone()));
            match want {
                Some((start, end)) => {
                    assert_eq!(s.score, Some(1.0), "{options} {out}");
                    assert_eq!(s.label.as_deref(), Some("match"), "{options} {out}");
                    assert_eq!(s.metadata["start"], json!(start), "{options} {out}");
                    assert_eq!(s.metadata["end"], json!(end), "{options} {out}");
                    assert!(s.details.is_empty());
                }
                None => {
                    assert_eq!(s.score, Some(0.0), "{options} {out}");
                    assert_eq!(s.label.as_deref(), Some("no_match"), "{options} {out}");
                    assert!(s.metadata.get("start").is_none(), "{options} {out}");
                    assert_eq!(s.details.len(), 1, "{options} {out}");
                    assert_eq!(s.details[0].outcome, Outcome::Fail);
                }
            }
        }
    }

    #[test]
    fn metadata_and_detail() {
        let m = metric(json!({"pattern": "[A-Z]{3}-[0-9]+"})).unwrap();
        let s = run(&m, output(json!("ref: ABC-42.")));
        assert_eq!(s.metadata["matched"], json!("ABC-42"));
        assert_eq!(s.metadata["pattern"], json!("[A-Z]{3}-[0-9]+"));
        assert_eq!(
            s.explanation.as_deref(),
            Some("output matches /[A-Z]{3}-[0-9]+/ at characters 5..11")
        );
        let s = run(&m, output(json!("none")));
        let d = &s.details[0];
        assert_eq!(d.check, "matches_regex");
        assert!(!d.passed);
        assert_eq!(d.expected.as_deref(), Some("a match of /[A-Z]{3}-[0-9]+/"));
        assert_eq!(d.actual.as_deref(), Some("none"));
        assert_eq!(d.message.as_deref(), Some("no match in the output"));
        let full = metric(json!({"pattern": "x", "full_match": true})).unwrap();
        let d = &run(&full, output(json!("xx"))).details[0];
        assert_eq!(d.expected.as_deref(), Some("the whole output to match /x/"));
    }

    #[test]
    fn pattern_from_the_row() {
        let m = metric(json!({})).unwrap();
        let s = run(&m, output(json!("abc123")).with("pattern", json!("[0-9]{3}")));
        assert_eq!((s.score, s.metadata["start"].clone()), (Some(1.0), json!(3)));
        let s = run(&m, output(json!("abc")).with("pattern", json!("[0-9]")));
        assert_eq!(s.score, Some(0.0));
        // The option wins over the input.
        let fixed = metric(json!({"pattern": "a"})).unwrap();
        let s = run(&fixed, output(json!("a")).with("pattern", json!("b")));
        assert_eq!(s.score, Some(1.0));
        // Row patterns follow full_match and case_insensitive.
        let strict = metric(json!({"full_match": true, "case_insensitive": true})).unwrap();
        let s = run(&strict, output(json!("ABC")).with("pattern", json!("abc")));
        assert_eq!(s.score, Some(1.0));
        let s = run(&strict, output(json!("ABCD")).with("pattern", json!("abc")));
        assert_eq!(s.score, Some(0.0));
    }

    #[test]
    fn row_pattern_errors() {
        let m = metric(json!({})).unwrap();
        let err = |input: EvalInput<'_>| match m.evaluate(&input) {
            Err(EvalError::InvalidInput { input, reason }) => {
                assert_eq!(input, "pattern");
                reason
            }
            other => panic!("{other:?}"),
        };
        assert_eq!(
            err(output(json!("x"))),
            "no pattern: set the `pattern` option or give a `pattern` input"
        );
        assert_eq!(
            err(output(json!("x")).with("pattern", Value::Null)),
            "no pattern: set the `pattern` option or give a `pattern` input"
        );
        assert_eq!(
            err(output(json!("x")).with("pattern", json!(3))),
            "expected a regular expression as a string, got number"
        );
        assert_eq!(err(output(json!("x")).with("pattern", json!(""))), "the pattern is empty");
        assert!(err(output(json!("x")).with("pattern", json!("("))).contains("regex parse error"));
    }

    #[test]
    fn bad_patterns_are_structured_build_errors() {
        for (bad, needle) in [
            (json!({"pattern": "("}), "regex parse error"),
            (json!({"pattern": "a)|(b", "full_match": true}), "regex parse error"),
            (json!({"pattern": ""}), "the pattern is empty"),
            (json!({"pattern": 3}), "expected a string"),
            (json!({"pattern": r"\w{1000}"}), "size limit"),
            (json!({"pattern": "(?:[a-z][0-9]){50000}"}), "size limit"),
        ] {
            match metric(bad.clone()) {
                Err(ConfigError::BadOption { metric, option, message }) => {
                    assert_eq!((metric.as_str(), option.as_str()), ("matches_regex", "pattern"));
                    assert!(message.contains(needle), "{bad}: {message}");
                }
                other => panic!("{bad}: {other:?}"),
            }
        }
        match metric(json!({"full_match": "maybe"})) {
            Err(ConfigError::BadOption { option, .. }) => assert_eq!(option, "full_match"),
            other => panic!("{other:?}"),
        }
        assert!(matches!(metric(json!({"regex": "a"})), Err(ConfigError::UnknownOption { .. })));
    }

    #[test]
    fn required_output() {
        let m = metric(json!({"pattern": "a"})).unwrap();
        assert_eq!(
            m.evaluate(&EvalInput::new()),
            Err(EvalError::MissingInput { input: "output".into() })
        );
        assert_eq!(
            m.evaluate(&output(json!(" "))),
            Err(EvalError::EmptyInput { input: "output".into() })
        );
    }
}
