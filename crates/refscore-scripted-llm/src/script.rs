//! Scripts: ordered rules that choose each request's reply.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::error::ScriptError;
use crate::reply::Reply;
use crate::when::When;

/// An ordered list of [`Rule`]s. Each request gets the reply of the first
/// rule whose `when` matches and that is not used up; with none,
/// [`Reply::Auto`].
///
/// Script JSON:
///
/// ```json
/// {"rules": [
///   {"when": {"prompt_contains": "flaky"}, "reply": {"status": {"code": 429, "retry_after": "1"}}, "times": 1},
///   {"when": "any", "reply": {"tool_call": {"arguments": {"label": "good"}}}}
/// ],
///  "record_bodies": true}
/// ```
///
/// `when` defaults to `"any"`, `reply` to `"auto"`, `times` to unlimited,
/// `record_bodies` to `true`; unknown fields are errors.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    /// The rules, tried in order.
    #[serde(default)]
    pub rules: Vec<Rule>,
    /// Whether recorded requests keep their bodies (see [`Script::record`]).
    #[serde(default = "yes")]
    pub record_bodies: bool,
}

/// One scripted answer and when to give it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// Which requests the rule applies to.
    #[serde(default)]
    pub when: When,
    /// The answer.
    #[serde(default)]
    pub reply: Reply,
    /// Use the rule at most this many times, then skip it; `None`: always.
    #[serde(default)]
    pub times: Option<usize>,
}

fn yes() -> bool {
    true
}

impl Default for Script {
    /// No rules (every request gets [`Reply::Auto`]), bodies recorded.
    fn default() -> Self {
        Self::new(Vec::new())
    }
}

impl Script {
    /// A script of these rules, recording request bodies.
    pub fn new(rules: Vec<Rule>) -> Self {
        Self { rules, record_bodies: true }
    }

    /// Whether recorded requests keep their bodies. `false` (for benchmarks)
    /// keeps method, path and headers but leaves `body` `Null` and
    /// `raw_body` empty; requests are still counted.
    pub fn record(mut self, bodies: bool) -> Self {
        self.record_bodies = bodies;
        self
    }

    /// Read a script from JSON text (see [`Script`] for the format).
    pub fn from_json(text: &str) -> Result<Self, ScriptError> {
        let script: Script = serde_json::from_str(text)?;
        script.validate()?;
        Ok(script)
    }

    /// Read a script from a JSON file.
    pub fn from_file(path: &Path) -> Result<Self, ScriptError> {
        let text = std::fs::read_to_string(path)
            .map_err(|source| ScriptError::Read { path: path.to_owned(), source })?;
        Self::from_json(&text)
    }

    /// Check that every reply can be sent: status codes in 200..=599,
    /// `Retry-After` values without control characters, tool names not empty.
    pub fn validate(&self) -> Result<(), ScriptError> {
        for (rule, r) in self.rules.iter().enumerate() {
            if let Some(message) = r.reply.problem() {
                return Err(ScriptError::Invalid { rule, message });
            }
        }
        Ok(())
    }
}

impl Rule {
    /// A rule giving `reply` whenever `when` matches.
    pub fn new(when: When, reply: Reply) -> Self {
        Self { when, reply, times: None }
    }

    /// A rule giving `reply` to every request.
    pub fn always(reply: Reply) -> Self {
        Self::new(When::Any, reply)
    }

    /// This rule, used at most `n` times.
    pub fn times(mut self, n: usize) -> Self {
        self.times = Some(n);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn script_json_round_trips_with_defaults() {
        let script = Script::from_json(
            r#"{"rules": [
                {"when": {"prompt_contains": "x"}, "reply": {"tool_call": {"arguments": {"label": "a"}}}, "times": 1},
                {"reply": {"text": "fallback"}},
                {}
            ]}"#,
        )
        .unwrap();
        assert_eq!(
            script,
            Script::new(vec![
                Rule::new(
                    When::PromptContains("x".into()),
                    Reply::tool_call(json!({"label": "a"}))
                )
                .times(1),
                Rule::always(Reply::Text("fallback".into())),
                Rule::always(Reply::Auto),
            ])
        );
        let again: Script = serde_json::from_value(serde_json::to_value(&script).unwrap()).unwrap();
        assert_eq!(again, script);
        assert!(!Script::default().record(false).record_bodies);
    }

    #[test]
    fn bad_scripts_are_errors() {
        assert!(matches!(
            Script::from_json(r#"{"rules": [{"when": "sometimes"}]}"#),
            Err(ScriptError::Parse(_))
        ));
        assert!(matches!(Script::from_json(r#"{"rulez": []}"#), Err(ScriptError::Parse(_))));
        assert!(matches!(
            Script::from_json(r#"{"rules": [{}, {"reply": {"status": {"code": 42}}}]}"#),
            Err(ScriptError::Invalid { rule: 1, .. })
        ));
        assert!(matches!(
            Script::from_file(Path::new("/nonexistent/script.json")),
            Err(ScriptError::Read { .. })
        ));
    }
}
