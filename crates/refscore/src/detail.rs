//! Assertion-level details: the one [`Detail`] shape every metric reports.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::path::JsonPath;

/// Longest `expected` / `actual` text kept in a detail, in characters.
pub const DETAIL_TEXT_LIMIT: usize = 80;

/// What a compared node, claim or check came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
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
    /// Whether a detail of this outcome passed: a match, a passed check,
    /// a supported claim.
    pub fn passes(self) -> bool {
        matches!(self, Outcome::Match | Outcome::Pass | Outcome::Supported)
    }

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

    /// The field-level verdict of an outcome.
    pub fn verdict(self) -> Verdict {
        match self {
            Outcome::Match | Outcome::Pass | Outcome::Supported => Verdict::Match,
            Outcome::Partial => Verdict::Partial,
            Outcome::Missing => Verdict::Missing,
            Outcome::Extra => Verdict::Extra,
            _ => Verdict::Wrong,
        }
    }
}

/// What a compared field came to, as field-level statistics count it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Equal under the metric's rules.
    Match,
    /// Partly right (partial credit).
    Partial,
    /// A wrong value or type.
    Wrong,
    /// In the reference, not in the output.
    Missing,
    /// In the output, not in the reference.
    Extra,
}

impl Verdict {
    /// The snake_case name.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Match => "match",
            Verdict::Partial => "partial",
            Verdict::Wrong => "wrong",
            Verdict::Missing => "missing",
            Verdict::Extra => "extra",
        }
    }
}

/// What a detail checked: a compared JSON path, or a named check
/// (`format.length`, a claim). Serialised as one string: a path as
/// `json_path.$.items[2].price`, a name as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Check {
    /// A compared JSON path.
    Path(JsonPath),
    /// A named check.
    Name(String),
}

/// The prefix of a path check in its serialised form.
pub const PATH_PREFIX: &str = "json_path.";

impl Check {
    /// Appends the check as it is written (see [`Check`]'s `Display`).
    pub fn push_to(&self, out: &mut String) {
        match self {
            Check::Path(p) => {
                out.push_str(PATH_PREFIX);
                p.write_to(out);
            }
            Check::Name(n) => out.push_str(n),
        }
    }

    /// The path, for a path check.
    pub fn path(&self) -> Option<&JsonPath> {
        match self {
            Check::Path(p) => Some(p),
            Check::Name(_) => None,
        }
    }
}

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Check::Path(_) => {
                let mut text = String::new();
                self.push_to(&mut text);
                f.write_str(&text)
            }
            Check::Name(n) => f.write_str(n),
        }
    }
}

impl From<&str> for Check {
    fn from(s: &str) -> Self {
        Check::Name(s.to_owned())
    }
}

impl From<String> for Check {
    fn from(s: String) -> Self {
        Check::Name(s)
    }
}

impl From<JsonPath> for Check {
    fn from(p: JsonPath) -> Self {
        Check::Path(p)
    }
}

impl PartialEq<str> for Check {
    fn eq(&self, other: &str) -> bool {
        match self {
            Check::Name(n) => n == other,
            Check::Path(p) => {
                other.strip_prefix(PATH_PREFIX).is_some_and(|rest| p.to_string() == rest)
            }
        }
    }
}

impl PartialEq<&str> for Check {
    fn eq(&self, other: &&str) -> bool {
        self == *other
    }
}

impl Serialize for Check {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            // One string, escaped once.
            Check::Path(p) => {
                let mut text = String::with_capacity(PATH_PREFIX.len() + 8 * p.0.len() + 1);
                self.push_to(&mut text);
                s.serialize_str(&text)
            }
            Check::Name(n) => s.serialize_str(n),
        }
    }
}

impl<'de> Deserialize<'de> for Check {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Ok(match text.strip_prefix(PATH_PREFIX).map(JsonPath::parse) {
            Some(Ok(p)) => Check::Path(p),
            _ => Check::Name(text),
        })
    }
}

impl schemars::JsonSchema for Check {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Check".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "description": "What was checked: `json_path.<path>` for a compared JSON path, else the check's name (`format.length`, a claim)."
        })
    }
}

/// One assertion: a compared JSON path, a format sub-check, a claim, ...
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Detail {
    /// What was checked: `json_path.$.items[2].price`, `format.length`.
    pub check: Check,
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
    pub fn new(check: impl Into<Check>, outcome: Outcome) -> Self {
        Detail {
            check: check.into(),
            passed: outcome.passes(),
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
        self.score = Some(crate::number::finite(score));
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
        let mut s = String::new();
        self.push_line(&mut s);
        s
    }

    /// Appends [`Detail::line`] to `out`.
    fn push_line(&self, out: &mut String) {
        out.push_str(if self.passed { "✓ " } else { "✗ " });
        self.check.push_to(out);
        if let Some(m) = &self.message {
            out.push_str(": ");
            out.push_str(m);
        }
        let parts: &[&str] = match (&self.expected, &self.actual) {
            (Some(e), Some(a)) => &[" (expected ", e, ", got ", a, ")"],
            (Some(e), None) => &[" (expected ", e, ")"],
            (None, Some(a)) => &[" (got ", a, ")"],
            (None, None) => &[],
        };
        for part in parts {
            out.push_str(part);
        }
    }
}

/// Cuts `text` to [`DETAIL_TEXT_LIMIT`] characters, ending with `…` when cut.
pub fn truncate(text: &str) -> String {
    truncate_to(text, DETAIL_TEXT_LIMIT)
}

/// Cuts `text` to `chars` characters, ending with `…` when cut.
pub fn truncate_to(text: &str, chars: usize) -> String {
    // No more bytes than characters allowed: nothing to count.
    if text.len() <= chars {
        return text.to_owned();
    }
    match text.char_indices().nth(chars) {
        None => text.to_owned(),
        Some((i, _)) => format!("{}…", &text[..i]),
    }
}

/// `x` as text (its `Display`) when it is at most `chars` characters long;
/// `None` when it is longer. Writing stops at the first character past
/// the limit, so a large value costs no more than the part of it that
/// would be shown.
pub fn display_within(x: &(impl fmt::Display + ?Sized), chars: usize) -> Option<String> {
    let (text, longer) = first_chars(x, chars);
    (!longer).then_some(text)
}

/// `x` as text (its `Display`), cut to `chars` characters and ending with
/// `…` when cut; as [`display_within`], a large value costs no more than
/// its shown part.
pub fn display_cut(x: &(impl fmt::Display + ?Sized), chars: usize) -> String {
    let (mut text, longer) = first_chars(x, chars);
    if longer {
        text.push('…');
    }
    text
}

/// The first `chars` characters of `x`'s text, and whether it has more.
fn first_chars(x: &(impl fmt::Display + ?Sized), chars: usize) -> (String, bool) {
    /// Keeps the first `left` characters written; the write of one more
    /// fails, which ends the `Display` (a value's writer stops there).
    struct Prefix {
        out: String,
        left: usize,
        longer: bool,
    }
    impl fmt::Write for Prefix {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            let mut chars = s.char_indices();
            match chars.nth(self.left) {
                None => {
                    self.left -= s.chars().count();
                    self.out.push_str(s);
                    Ok(())
                }
                Some((at, _)) => {
                    self.out.push_str(&s[..at]);
                    self.left = 0;
                    self.longer = true;
                    Err(fmt::Error)
                }
            }
        }
    }
    let mut w = Prefix { out: String::new(), left: chars, longer: false };
    // An error is either the cut or the value's own (then its text so far).
    let _ = fmt::write(&mut w, format_args!("{x}"));
    (w.out, w.longer)
}

/// The `check` of the entry that stands for the details not listed starts
/// with this (`+ 3 more`).
pub const MORE_PREFIX: &str = "+ ";

/// The N of a `+ N more` entry.
pub(crate) fn more_count(d: &Detail) -> u64 {
    let n = d.check.to_string();
    n.trim_start_matches(MORE_PREFIX).trim_end_matches(" more").parse().unwrap_or(0)
}

/// Whether a detail is the `+ N more` entry closing a list.
pub fn is_more_entry(d: &Detail) -> bool {
    d.outcome == Outcome::Fail
        && d.expected.is_none()
        && d.check.path().is_none()
        && d.check.to_string().starts_with(MORE_PREFIX)
        && d.check.to_string().ends_with(" more")
}

/// The entry standing for `n` details not listed.
pub fn more_entry(n: u64) -> Detail {
    Detail::new(format!("{MORE_PREFIX}{n} more"), Outcome::Fail)
        .message(format!("{n} more failed details not listed"))
}

/// Closes `details` with one `+ N more` entry standing for `more` failed
/// details not kept, when there are any.
pub fn close_with_more(details: &mut Vec<Detail>, more: u64) {
    if more > 0 {
        details.push(more_entry(more));
    }
}

/// Appends to an explanation one line per failed detail, at most 10 of
/// them, then `+ N more`: each line indented by two spaces, after a line
/// break. A `+ N more` entry among the details counts as the N details it
/// stands for.
pub fn push_failure_lines(out: &mut String, details: &[Detail]) {
    const SHOWN: usize = 10;
    let mut failed = 0usize;
    // A `+ N more` entry stands for N failed details not kept.
    let mut kept_out = 0u64;
    for d in details.iter().filter(|d| !d.passed) {
        if is_more_entry(d) {
            kept_out += more_count(d);
            continue;
        }
        failed += 1;
        if failed <= SHOWN {
            out.push_str("\n  ");
            d.push_line(out);
        }
    }
    let more = (failed.saturating_sub(SHOWN) as u64).saturating_add(kept_out);
    if more > 0 {
        out.push_str("\n  + ");
        crate::number::push_integer(out, more);
        out.push_str(" more");
    }
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

    /// A value's text is cut as [`truncate_to`] cuts it, and writing it
    /// stops past the cut: a 100,000-deep array, which `serde_json` would
    /// write by recursing as deep, is shown by its first characters.
    #[test]
    fn display_is_cut_while_written() {
        for (text, chars) in [("", 0), ("abc", 3), ("abcd", 3), ("ééé", 2), ("日本語テキスト", 4)]
        {
            assert_eq!(display_cut(text, chars), truncate_to(text, chars), "{text} {chars}");
            let fits = text.chars().count() <= chars;
            assert_eq!(display_within(text, chars), fits.then(|| text.to_owned()));
        }
        let deep: serde_json::Value =
            (0..100_000).fold(serde_json::json!(1), |v, _| serde_json::Value::Array(vec![v]));
        assert_eq!(display_cut(&deep, 5), "[[[[[…");
        assert_eq!(display_within(&deep, 5), None);
        crate::json::drop_deep(deep);
        let v = serde_json::json!({"a": [1, "é"]});
        assert_eq!(display_within(&v, 80).as_deref(), Some(r#"{"a":[1,"é"]}"#));
    }

    #[test]
    fn caps_lines_at_ten() {
        let d: Vec<Detail> = (0..13).map(|i| Detail::new(format!("c{i}"), Outcome::Fail)).collect();
        let mut text = String::from("head");
        push_failure_lines(&mut text, &d);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 12);
        assert_eq!(lines[1], "  ✗ c0");
        assert_eq!(lines[11], "  + 3 more");
        let mut none = String::from("head");
        push_failure_lines(&mut none, &d[..0]);
        assert_eq!(none, "head");
    }

    #[test]
    fn checks_serialise_as_one_string_and_read_back() {
        use crate::path::Seg;
        let p = JsonPath::from_segs(&[Seg::Key("items"), Seg::Index(2), Seg::Key("a b")]);
        let d = Detail::new(p.clone(), Outcome::Missing);
        let text = serde_json::to_string(&d).unwrap();
        assert!(text.contains(r#""check":"json_path.$.items[2]['a b']""#), "{text}");
        let back: Detail = serde_json::from_str(&text).unwrap();
        assert_eq!(back.check, Check::Path(p));
        let named: Detail =
            serde_json::from_str(r#"{"check":"format.length","passed":true,"outcome":"pass"}"#)
                .unwrap();
        assert_eq!(named.check, Check::Name("format.length".into()));
        assert_eq!(named.check, "format.length");
        assert_eq!(d.check, "json_path.$.items[2]['a b']");
    }

    #[test]
    fn outcome_names() {
        assert_eq!(Outcome::ValueMismatch.as_str(), "value_mismatch");
        assert_eq!(Outcome::TypeMismatch.verdict(), Verdict::Wrong);
        let j = serde_json::to_string(&Outcome::TypeMismatch).unwrap();
        assert_eq!(j, "\"type_mismatch\"");
    }
}
