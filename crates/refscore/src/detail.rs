//! Assertion-level details: the one [`Detail`] shape every metric reports.

use serde::{Deserialize, Serialize};

/// Longest `expected` / `actual` text kept in a detail, in characters.
pub const DETAIL_TEXT_LIMIT: usize = 80;

/// What a compared node, claim or check came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Equal under the metric's rules.
    Match,
    /// Similar but not equal: partial credit.
    Partial,
    /// Same type, different value.
    ValueMismatch,
    /// Different JSON types.
    TypeMismatch,
    /// In the reference, not in the output.
    Missing,
    /// In the output, not in the reference.
    Extra,
    /// A check that passed (format, tone, ...).
    Pass,
    /// A check that failed (format, tone, ...).
    Fail,
    /// A claim backed by the reference or context.
    Supported,
    /// A claim that disagrees with the reference or context.
    Contradicted,
    /// A claim neither backed nor contradicted.
    Unverifiable,
}

impl Outcome {
    /// The snake_case name used in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Match => "match",
            Outcome::Partial => "partial",
            Outcome::ValueMismatch => "value_mismatch",
            Outcome::TypeMismatch => "type_mismatch",
            Outcome::Missing => "missing",
            Outcome::Extra => "extra",
            Outcome::Pass => "pass",
            Outcome::Fail => "fail",
            Outcome::Supported => "supported",
            Outcome::Contradicted => "contradicted",
            Outcome::Unverifiable => "unverifiable",
        }
    }

    /// The field-level verdict of a JSON outcome: `match`, `partial`,
    /// `wrong`, `missing` or `extra`.
    pub fn verdict(self) -> &'static str {
        match self {
            Outcome::Match | Outcome::Pass | Outcome::Supported => "match",
            Outcome::Partial => "partial",
            Outcome::Missing => "missing",
            Outcome::Extra => "extra",
            _ => "wrong",
        }
    }
}

/// One assertion: a compared JSON path, a format sub-check, a claim, ...
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Detail {
    /// Hierarchical check name: `json_path.$.items[2].price`, `format.length`.
    pub check: String,
    /// Whether the assertion passed.
    pub passed: bool,
    /// What the assertion came to.
    pub outcome: Outcome,
    /// Expected value as text, cut to [`DETAIL_TEXT_LIMIT`] characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
    /// Actual value as text, cut to [`DETAIL_TEXT_LIMIT`] characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actual: Option<String>,
    /// Partial credit in [0, 1], where the assertion earned some.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<f64>,
    /// Human-readable description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl Detail {
    /// A detail for `check` with the given outcome; `passed` follows it.
    pub fn new(check: impl Into<String>, outcome: Outcome) -> Self {
        Detail {
            check: check.into(),
            passed: matches!(outcome, Outcome::Match | Outcome::Pass | Outcome::Supported),
            outcome,
            expected: None,
            actual: None,
            score: None,
            message: None,
        }
    }

    /// Sets `passed` explicitly.
    #[must_use]
    pub fn passed(mut self, passed: bool) -> Self {
        self.passed = passed;
        self
    }

    /// Sets the expected text (cut to the limit).
    #[must_use]
    pub fn expected(mut self, text: impl AsRef<str>) -> Self {
        self.expected = Some(truncate(text.as_ref()));
        self
    }

    /// Sets the actual text (cut to the limit).
    #[must_use]
    pub fn actual(mut self, text: impl AsRef<str>) -> Self {
        self.actual = Some(truncate(text.as_ref()));
        self
    }

    /// Sets the partial score.
    #[must_use]
    pub fn score(mut self, score: f64) -> Self {
        self.score = Some(crate::score::finite(score));
        self
    }

    /// Sets the message.
    #[must_use]
    pub fn message(mut self, text: impl Into<String>) -> Self {
        self.message = Some(text.into());
        self
    }

    /// One line for an explanation: `✗ check: message (expected …, got …)`.
    pub fn line(&self) -> String {
        let mut s = format!("{} {}", if self.passed { "✓" } else { "✗" }, self.check);
        if let Some(m) = &self.message {
            s.push_str(": ");
            s.push_str(m);
        }
        match (&self.expected, &self.actual) {
            (Some(e), Some(a)) => s.push_str(&format!(" (expected {e}, got {a})")),
            (Some(e), None) => s.push_str(&format!(" (expected {e})")),
            (None, Some(a)) => s.push_str(&format!(" (got {a})")),
            (None, None) => {}
        }
        s
    }
}

/// Cuts `text` to [`DETAIL_TEXT_LIMIT`] characters, ending with `…` when cut.
pub fn truncate(text: &str) -> String {
    match text.char_indices().nth(DETAIL_TEXT_LIMIT) {
        None => text.to_owned(),
        Some((i, _)) => format!("{}…", &text[..i]),
    }
}

/// An explanation listing at most 10 failed details, then `+ N more`.
pub fn failure_lines(details: &[Detail]) -> Vec<String> {
    const SHOWN: usize = 10;
    let failed: Vec<&Detail> = details.iter().filter(|d| !d.passed).collect();
    let mut lines: Vec<String> =
        failed.iter().take(SHOWN).map(|d| format!("  {}", d.line())).collect();
    if failed.len() > SHOWN {
        lines.push(format!("  + {} more", failed.len() - SHOWN));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncates_on_characters() {
        let long = "é".repeat(100);
        let t = truncate(&long);
        assert_eq!(t.chars().count(), 81);
        assert!(t.ends_with('…'));
        assert_eq!(truncate("short"), "short");
        assert_eq!(truncate(&"x".repeat(80)), "x".repeat(80));
    }

    #[test]
    fn caps_lines_at_ten() {
        let d: Vec<Detail> = (0..13).map(|i| Detail::new(format!("c{i}"), Outcome::Fail)).collect();
        let lines = failure_lines(&d);
        assert_eq!(lines.len(), 11);
        assert_eq!(lines[10], "  + 3 more");
    }

    #[test]
    fn outcome_names() {
        assert_eq!(Outcome::ValueMismatch.as_str(), "value_mismatch");
        assert_eq!(Outcome::TypeMismatch.verdict(), "wrong");
        let j = serde_json::to_string(&Outcome::TypeMismatch).unwrap();
        assert_eq!(j, "\"type_mismatch\"");
    }
}
