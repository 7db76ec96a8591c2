//! `format.regex_match`: the output matches (or does not match) patterns.
//!
//! Patterns use the `regex` crate's syntax and engine, whose matching time
//! is linear in the text whatever the pattern. Patterns are bounded at
//! build: at most [`MAX_PATTERN_CHARS`] characters, a compiled program of
//! at most [`SIZE_LIMIT`] bytes (counted repetitions such as `(\w{100}){100}`
//! blow past it), group nesting at most [`NEST_LIMIT`] deep. The lazy DFA
//! cache is capped at [`DFA_SIZE_LIMIT`] bytes per pattern.

use regex::{Regex, RegexBuilder};
use serde_json::Value;

use super::{Setting, bad};
use crate::detail::{Detail, Outcome};
use crate::error::ConfigError;
use crate::metrics::options::Opts;

/// Longest pattern accepted, in characters.
pub(super) const MAX_PATTERN_CHARS: usize = 500;
/// Largest compiled program, in bytes (1 MiB).
pub(super) const SIZE_LIMIT: usize = 1 << 20;
/// Largest lazy DFA cache, in bytes (2 MiB).
pub(super) const DFA_SIZE_LIMIT: usize = 2 << 20;
/// Deepest nesting of groups and repetitions.
pub(super) const NEST_LIMIT: u32 = 64;

/// The regex sub-check.
#[derive(Debug, Clone)]
pub(super) struct RegexCheck {
    patterns: Vec<Regex>,
    must_match: bool,
}

/// Compiles one pattern within the limits.
pub(super) fn compile(pattern: &str) -> Result<Regex, ConfigError> {
    let shown: String = pattern.chars().take(60).collect();
    let shown = if shown.len() < pattern.len() { format!("{shown}…") } else { shown };
    let n = pattern.chars().count();
    if n > MAX_PATTERN_CHARS {
        return Err(bad(
            "regex_match",
            format!("pattern `{shown}` is {n} characters long; the limit is {MAX_PATTERN_CHARS}"),
        ));
    }
    RegexBuilder::new(pattern)
        .size_limit(SIZE_LIMIT)
        .dfa_size_limit(DFA_SIZE_LIMIT)
        .nest_limit(NEST_LIMIT)
        .build()
        .map_err(|e| match e {
            regex::Error::CompiledTooBig(limit) => bad(
                "regex_match",
                format!("pattern `{shown}` compiles to more than {limit} bytes; simplify its repetitions"),
            ),
            other => bad("regex_match", format!("pattern `{shown}` is not a valid regex: {other}")),
        })
}

fn pattern_list(v: &Value) -> Result<Vec<Regex>, ConfigError> {
    let items: Vec<&Value> = match v {
        Value::String(_) => vec![v],
        Value::Array(items) => items.iter().collect(),
        other => {
            return Err(bad(
                "regex_match",
                format!("expected a pattern or a list of patterns, got {other}"),
            ));
        }
    };
    if items.is_empty() {
        return Err(bad("regex_match", "give at least one pattern"));
    }
    items
        .into_iter()
        .map(|p| match p.as_str() {
            Some(s) => compile(s),
            None => Err(bad("regex_match", format!("patterns must be strings, got {p}"))),
        })
        .collect()
}

impl RegexCheck {
    /// From a pattern, a list of patterns or `{patterns, must_match}`.
    pub(super) fn from_setting(s: Setting<'_>) -> Result<Option<Self>, ConfigError> {
        match s {
            Setting::Off => Ok(None),
            Setting::On => {
                Err(bad("regex_match", "expected a pattern, a list, or {patterns: [...]}"))
            }
            Setting::With(Value::Object(m)) => {
                let o = Opts::new("format.regex_match", m);
                let patterns =
                    o.value("patterns").ok_or_else(|| bad("regex_match", "missing `patterns`"))?;
                let patterns = pattern_list(patterns)?;
                let must_match = o.bool("must_match", true)?;
                o.finish()?;
                Ok(Some(RegexCheck { patterns, must_match }))
            }
            Setting::With(other) => {
                Ok(Some(RegexCheck { patterns: pattern_list(other)?, must_match: true }))
            }
        }
    }

    /// One detail per pattern.
    pub(super) fn check(&self, text: &str) -> Vec<Detail> {
        self.patterns
            .iter()
            .map(|re| {
                let found = re.find(text);
                let passed = found.is_some() == self.must_match;
                let message = match (self.must_match, &found) {
                    (true, Some(_)) => String::from("pattern matches"),
                    (true, None) => String::from("pattern does not match"),
                    (false, Some(m)) => format!("forbidden pattern matches at byte {}", m.start()),
                    (false, None) => String::from("forbidden pattern does not match"),
                };
                let d = Detail::new(
                    "format.regex_match",
                    if passed { Outcome::Pass } else { Outcome::Fail },
                )
                .expected(if self.must_match {
                    re.as_str().to_owned()
                } else {
                    format!("not {}", re.as_str())
                })
                .message(message);
                match found {
                    Some(m) => d.actual(m.as_str()),
                    None => d.actual("no match"),
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn build(v: Value) -> Result<Option<RegexCheck>, ConfigError> {
        RegexCheck::from_setting(Setting::of(Some(&v)))
    }

    #[test]
    fn matches_and_must_not_match() {
        let r = build(json!([r"INV-\d{4}", "^Total"])).unwrap().unwrap();
        let d = r.check("Total due for INV-2024");
        assert!(d.iter().all(|x| x.passed));
        assert_eq!(d[0].actual.as_deref(), Some("INV-2024"));
        let d = r.check("nothing");
        assert_eq!(d.iter().filter(|x| !x.passed).count(), 2);
        let n = build(json!({"patterns": "(?i)as an ai", "must_match": false})).unwrap().unwrap();
        assert!(n.check("Here you go").iter().all(|x| x.passed));
        let d = n.check("As an AI, I");
        assert!(!d[0].passed);
        assert_eq!(d[0].message.as_deref(), Some("forbidden pattern matches at byte 0"));
    }

    #[test]
    fn limits_name_the_pattern() {
        let long = "a".repeat(MAX_PATTERN_CHARS + 1);
        let e = build(json!(long)).unwrap_err().to_string();
        assert!(e.contains("501 characters") && e.contains("aaaa"), "{e}");
        assert!(build(json!("a".repeat(MAX_PATTERN_CHARS))).is_ok());
        let e = build(json!(r"(\w{100}){100}")).unwrap_err().to_string();
        assert!(e.contains(r"(\w{100}){100}") && e.contains("compiles to more than"), "{e}");
        let nested = format!("{}a{}", "(".repeat(70), ")".repeat(70));
        let e = build(json!(nested)).unwrap_err().to_string();
        assert!(e.contains("not a valid regex"), "{e}");
        assert!(build(json!("(unclosed")).unwrap_err().to_string().contains("(unclosed"));
    }

    #[test]
    fn option_shapes() {
        assert!(build(json!(true)).is_err());
        assert!(build(json!([])).is_err());
        assert!(build(json!([3])).is_err());
        assert!(build(json!({"pattern": "x"})).is_err());
        assert!(
            build(json!({"patterns": ["x"], "flags": "i"}))
                .unwrap_err()
                .to_string()
                .contains("flags")
        );
        assert!(build(json!(false)).unwrap().is_none());
    }

    #[test]
    fn linear_on_classic_redos() {
        let r = build(json!("(a+)+$")).unwrap().unwrap();
        let text = "a".repeat(100_000) + "!";
        let start = std::time::Instant::now();
        assert!(!r.check(&text)[0].passed);
        assert!(start.elapsed().as_secs() < 5);
    }
}
