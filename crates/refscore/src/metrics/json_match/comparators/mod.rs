//! Leaf comparators and string normalizers for per-path rules.
//!
//! A [`Comparator`] scores one reference leaf against one output leaf and
//! returns an engine [`Leaf`]. Every comparator shares the same frame:
//!
//! 1. `null` (and, with [`NullPolicy::empty_string_is_null`], a string
//!    that is empty after the normalizers) equals `null`; `null` against
//!    anything else is a type mismatch.
//! 2. Arrays and objects (which the engine normally walks itself) match
//!    when they are deeply equal (numbers by value, strings as written)
//!    and are a type mismatch otherwise.
//! 3. The comparator decides; values it does not apply to (say, two
//!    booleans under `date`) are compared as [`Comparator::Exact`] does.
//!
//! The exact definitions, with examples, are in
//! `docs/json_match.md` (Comparators and normalizers).

mod auto;
mod auto_text;
mod currency;
mod date;
mod date_parse;
mod default;
mod enum_set;
mod exact;
mod number_string;
mod numeric;
#[cfg(test)]
mod properties;
mod spec;
mod string;
mod time_of_day;

pub use date::{CalendarDate, DateError, DateTime, DayMonth, TimeOfDay, parse_date};
pub use default::{NUMBER_PARTIAL_WITHIN, STRING_PARTIAL_FROM};

pub use crate::normalize::{ALL as ALL_NORMALIZERS, Normalizer, UnknownNormalizer, normalize};
pub use crate::unicode_class::{is_currency_symbol, is_punctuation};
pub use number_string::{Amount, parse_number_string};
pub use spec::{NUMERIC_DEFAULT, TYPES as COMPARATOR_TYPES};

use std::fmt;

use serde_json::Value;

use crate::engine::{Leaf, json_equal};

/// How one leaf is compared. See `docs/json_match.md` (Comparators and normalizers).
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Comparator {
    /// Used when no rule sets a comparator: strict types, numbers equal by
    /// value with partial credit within 1 %, strings by normalized
    /// Levenshtein with partial credit from 0.8.
    #[default]
    Default,
    /// The zero-config comparator json_match uses where no rule names one
    /// (unless `strict`): numbers written as text by value, unambiguous
    /// dates as calendar dates, surrounding white space ignored, free text
    /// (with a space inside) without case or spacing; otherwise as
    /// [`Comparator::Default`].
    Auto,
    /// JSON equality: numbers by value (`1 == 1.0`), strings after the
    /// normalizers.
    Exact,
    /// Numbers within `max(abs_tol, rel_tol·|e|)` match; otherwise partial
    /// credit `1 − |e−a|/(|e|+|a|)` when `partial`, else wrong.
    Numeric {
        /// Absolute tolerance (≥ 0).
        abs_tol: f64,
        /// Tolerance relative to the expected value (≥ 0).
        rel_tol: f64,
        /// Whether values outside the tolerance get partial credit.
        partial: bool,
    },
    /// Normalized Levenshtein similarity `s` after the normalizers: without
    /// a threshold, `s = 1` matches and `s < 1` is partial credit `s`; with
    /// threshold `t`, `s ≥ t` matches and `s < t` is partial credit `s`.
    String {
        /// Similarity from which two strings count as equal.
        threshold: Option<f64>,
    },
    /// Calendar dates and datetimes in ISO 8601 and common written forms.
    Date {
        /// Reading of ambiguous numeric dates such as `03/04/2024`.
        day_month: DayMonth,
    },
    /// Numbers written as text (`"$1,234.50"`, `"1.234,50"`, `"(12.00)"`,
    /// `"12.5%"`) compared by exact value with each other and with JSON
    /// numbers.
    NumberString {
        /// The decimal separator, `.` or `,`.
        decimal: char,
    },
    /// Trimmed, case-insensitive equality of labels; with `values`, an
    /// output outside the set is wrong even when it equals the reference.
    Enum {
        /// The allowed labels.
        values: Option<Vec<String>>,
    },
}

/// How empty values relate to `null`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NullPolicy {
    /// Whether an absent key equals `null` (the engine applies this one).
    pub absent_is_null: bool,
    /// Whether a string that is empty after the normalizers equals `null`.
    pub empty_string_is_null: bool,
}

/// Which side of a comparison a [`Note`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Side {
    /// The reference value.
    Expected,
    /// The output value.
    Actual,
    /// Both values.
    Both,
}

impl Side {
    /// `"expected"`, `"actual"` or `"expected and actual"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Side::Expected => "expected",
            Side::Actual => "actual",
            Side::Both => "expected and actual",
        }
    }

    /// The side(s) for which `bad` is true, if any.
    fn of(expected_bad: bool, actual_bad: bool) -> Option<Side> {
        match (expected_bad, actual_bad) {
            (true, true) => Some(Side::Both),
            (true, false) => Some(Side::Expected),
            (false, true) => Some(Side::Actual),
            (false, false) => None,
        }
    }
}

/// Why a comparison did not go the comparator's usual way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Note {
    /// A string that is not a date in an accepted form; compared as text.
    NotADate(Side),
    /// A numeric date whose day and month cannot be told apart under
    /// [`DayMonth::Reject`]; compared as text.
    AmbiguousDate(Side),
    /// The reference has a time of day and the output only a date.
    MissingTime,
    /// A string that is not a number in the accepted grammar; compared as
    /// text.
    NotANumber(Side),
    /// The output is not one of the allowed values.
    NotAllowed,
    /// Two values that differ as written are equal under this reading.
    Equal(Normalization),
}

/// A reading under which two values that differ as written are equal
/// (the `auto` comparator's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Normalization {
    /// Equal once leading and trailing white space is removed.
    Trimmed,
    /// A number written as text (grouping, currency) of the same value.
    NumberAsText,
    /// The same calendar date (and time of day, a date alone is midnight).
    CalendarDate,
    /// The same free text but for case and runs of white space.
    FreeText,
    /// `true` or `false`, `yes` or `no` written as text (any letter case).
    BoolAsText,
    /// The same text once Unicode canonical equivalents and full-width
    /// ASCII forms read alike ([`crate::normalize::canonical`]).
    Unicode,
    /// An empty string where the other side is `null` (or absent), under
    /// [`NullPolicy::empty_string_is_null`].
    EmptyAsNull,
    /// `n/a`, `none` or `null` written as text where the other side is
    /// `null` (or absent), under [`NullPolicy::empty_string_is_null`]
    /// (the `auto` comparator only).
    NullWord,
    /// The same text but for white space that carries no meaning (beside
    /// a symbol, between a number and its unit) or, in free text, a final
    /// full stop.
    Spacing,
    /// The same text with the letter case of whole words changed
    /// (`EUR`, `eur`).
    LetterCase,
    /// The same identifier written with other grouping separators
    /// (spaces, hyphens, parentheses).
    Grouping,
    /// A percent written as text of the same value as a fraction
    /// (`19%`, `0.19`).
    Percent,
    /// The same time of day on the 12- or 24-hour clock (`7:00 PM`,
    /// `19:00`).
    TimeOfDay,
    /// A currency symbol with one reading and its ISO 4217 code (`€`,
    /// `EUR`).
    Currency,
}

impl Normalization {
    /// What made the values equal, in words.
    pub fn describe(self) -> &'static str {
        match self {
            Normalization::Trimmed => "equal once surrounding white space is removed",
            Normalization::NumberAsText => "equal as numbers (a number written as text)",
            Normalization::CalendarDate => "equal as calendar dates",
            Normalization::FreeText => "equal as free text (case and spacing ignored)",
            Normalization::BoolAsText => "equal as booleans (a boolean written as text)",
            Normalization::Unicode => {
                "equal as Unicode text (canonical equivalents and full-width forms read alike)"
            }
            Normalization::EmptyAsNull => "equal as null (an empty string)",
            Normalization::NullWord => "equal as null (a word for no value)",
            Normalization::Spacing => {
                "equal but for spacing (or a final full stop) that carries no meaning"
            }
            Normalization::LetterCase => "equal but for the letter case of whole words",
            Normalization::Grouping => "equal as identifiers (grouping separators ignored)",
            Normalization::Percent => "equal as numbers (a percent written as text)",
            Normalization::TimeOfDay => "equal as times of day",
            Normalization::Currency => "equal as currencies (a symbol and its code)",
        }
    }
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Note::NotADate(s) => write!(f, "{} not a date; compared as text", s.as_str()),
            Note::AmbiguousDate(s) => {
                write!(f, "{} an ambiguous day/month date; compared as text", s.as_str())
            }
            Note::MissingTime => f.write_str("expected has a time of day, actual only a date"),
            Note::NotANumber(s) => write!(f, "{} not a number; compared as text", s.as_str()),
            Note::NotAllowed => f.write_str("actual is not one of the allowed values"),
            Note::Equal(n) => f.write_str(n.describe()),
        }
    }
}

/// A leaf score with the reason it took an unusual path, if it did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Checked {
    /// The score.
    pub leaf: Leaf,
    /// Why the comparator fell back or refused, for explanations.
    pub note: Option<Note>,
}

impl From<Leaf> for Checked {
    fn from(leaf: Leaf) -> Self {
        Checked { leaf, note: None }
    }
}

impl Comparator {
    /// Parses a comparator spec: a name (`"default"`, `"exact"`,
    /// `"numeric"`, `"string"`, `"date"`, `"number_string"`, `"enum"`) or
    /// an object with `"type"` and that type's fields. Unknown types and
    /// fields are errors that name them.
    pub fn from_spec(spec: &Value) -> Result<Comparator, String> {
        spec::from_spec(spec)
    }

    /// The comparator's name in specs.
    pub fn name(&self) -> &'static str {
        match self {
            Comparator::Default => "default",
            Comparator::Auto => "auto",
            Comparator::Exact => "exact",
            Comparator::Numeric { .. } => "numeric",
            Comparator::String { .. } => "string",
            Comparator::Date { .. } => "date",
            Comparator::NumberString { .. } => "number_string",
            Comparator::Enum { .. } => "enum",
        }
    }

    /// Scores `actual` against `expected` with the default [`NullPolicy`].
    pub fn compare(&self, expected: &Value, actual: &Value, normalizers: &[Normalizer]) -> Leaf {
        self.check(expected, actual, normalizers, &NullPolicy::default()).leaf
    }

    /// Scores `actual` against `expected` under `nulls`.
    pub fn compare_with(
        &self,
        e: &Value,
        a: &Value,
        normalizers: &[Normalizer],
        nulls: &NullPolicy,
    ) -> Leaf {
        self.check(e, a, normalizers, nulls).leaf
    }

    /// Whether two equal values match under this comparator whatever the
    /// normalizers and null policy (`default`, `auto`, `exact`): no check
    /// is needed to say so.
    pub fn matches_equal_values(&self) -> bool {
        matches!(self, Comparator::Default | Comparator::Auto | Comparator::Exact)
    }

    /// Like [`Comparator::compare_with`], and says why when the comparator
    /// fell back to text or refused a value.
    pub fn check(
        &self,
        e: &Value,
        a: &Value,
        normalizers: &[Normalizer],
        nulls: &NullPolicy,
    ) -> Checked {
        let is_null = |v: &Value| match v {
            Value::Null => true,
            Value::String(s) => nulls.empty_string_is_null && normalize(s, normalizers).is_empty(),
            _ => false,
        };
        let (e_null, a_null) = (is_null(e), is_null(a));
        match (e_null, a_null) {
            (true, true) if e.is_string() != a.is_string() => {
                return Checked {
                    leaf: Leaf::MATCH,
                    note: Some(Note::Equal(Normalization::EmptyAsNull)),
                };
            }
            (true, true) => return Leaf::MATCH.into(),
            (true, false) | (false, true) => {
                // A word for no value (`N/A`) against `null`, under `auto`.
                let other = if e_null { a } else { e };
                let word = nulls.empty_string_is_null
                    && matches!(self, Comparator::Auto)
                    && other
                        .as_str()
                        .is_some_and(|s| auto_text::is_null_word(&normalize(s, normalizers)));
                if word {
                    return Checked {
                        leaf: Leaf::MATCH,
                        note: Some(Note::Equal(Normalization::NullWord)),
                    };
                }
                return Leaf::TYPE.into();
            }
            (false, false) => {}
        }
        if is_container(e) || is_container(a) {
            return if json_equal(e, a) { Leaf::MATCH } else { Leaf::TYPE }.into();
        }
        match self {
            Comparator::Default => default::compare(e, a, normalizers).into(),
            Comparator::Auto => auto::compare(e, a, normalizers),
            Comparator::Exact => exact::compare(e, a, normalizers).into(),
            Comparator::Numeric { abs_tol, rel_tol, partial } => {
                numeric::compare(e, a, normalizers, *abs_tol, *rel_tol, *partial).into()
            }
            Comparator::String { threshold } => {
                string::compare(e, a, normalizers, *threshold).into()
            }
            Comparator::Date { day_month } => date::compare(e, a, normalizers, *day_month),
            Comparator::NumberString { decimal } => {
                number_string::compare(e, a, normalizers, *decimal)
            }
            Comparator::Enum { values } => enum_set::compare(e, a, normalizers, values.as_deref()),
        }
    }
}

fn is_container(v: &Value) -> bool {
    matches!(v, Value::Array(_) | Value::Object(_))
}

/// A score below 1 for a comparison that is not a match: `score` itself,
/// or the largest double below 1 when rounding made it 1.
fn below_one(score: f64) -> Leaf {
    Leaf::graded(crate::number::clamp01(score).min(1.0 - f64::EPSILON / 2.0))
}

/// Falls back to text equality after the normalizers, with `note`.
fn as_text(e: &str, a: &str, normalizers: &[Normalizer], note: Note) -> Checked {
    let equal = normalize(e, normalizers) == normalize(a, normalizers);
    Checked { leaf: Leaf::exact(equal), note: Some(note) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detail::Outcome;
    use serde_json::json;

    const ALL_KINDS: [&str; 8] =
        ["default", "auto", "exact", "numeric", "string", "date", "number_string", "enum"];

    fn all() -> Vec<Comparator> {
        ALL_KINDS.iter().map(|k| Comparator::from_spec(&json!(k)).unwrap()).collect()
    }

    #[test]
    fn nulls_for_every_comparator() {
        let empty = NullPolicy { absent_is_null: false, empty_string_is_null: true };
        for c in all() {
            assert_eq!(c.compare(&json!(null), &json!(null), &[]), Leaf::MATCH, "{c:?}");
            assert_eq!(c.compare(&json!(null), &json!("x"), &[]), Leaf::TYPE, "{c:?}");
            assert_eq!(c.compare(&json!(0), &json!(null), &[]), Leaf::TYPE, "{c:?}");
            assert_eq!(c.compare(&json!(""), &json!(null), &[]), Leaf::TYPE, "{c:?}");
            assert_eq!(c.compare_with(&json!(""), &json!(null), &[], &empty), Leaf::MATCH);
            assert_eq!(c.compare_with(&json!(null), &json!(""), &[], &empty), Leaf::MATCH);
            assert_eq!(c.compare_with(&json!(""), &json!(""), &[], &empty), Leaf::MATCH);
            assert_eq!(c.compare_with(&json!(" "), &json!(null), &[], &empty), Leaf::TYPE);
            let trim = [Normalizer::Trim];
            assert_eq!(c.compare_with(&json!(" "), &json!(null), &trim, &empty), Leaf::MATCH);
            assert_eq!(c.compare_with(&json!("x"), &json!(""), &[], &empty), Leaf::TYPE);
        }
    }

    #[test]
    fn containers_never_panic() {
        let deep = (0..100_000).fold(json!(1), |v, _| Value::Array(vec![v]));
        for c in all() {
            assert_eq!(c.compare(&json!([1, {"a": 2}]), &json!([1.0, {"a": 2}]), &[]), Leaf::MATCH);
            assert_eq!(c.compare(&json!([1]), &json!([2]), &[]), Leaf::TYPE);
            assert_eq!(c.compare(&json!({"a": 1}), &json!("a"), &[]), Leaf::TYPE);
            assert_eq!(c.compare(&deep, &deep, &[]), Leaf::MATCH);
        }
        crate::json::drop_deep(deep);
    }

    #[test]
    fn scores_are_finite_and_in_range() {
        let values = [
            json!(0),
            json!(-0.0),
            json!(1e308),
            json!(-1e308),
            json!(f64::MAX),
            json!(f64::MIN_POSITIVE),
            json!(u64::MAX),
            json!(i64::MIN),
            json!(""),
            json!(" "),
            json!("2024-02-30"),
            json!("0000-01-01"),
            json!("9999-12-31T23:59:59.999999999+23:59"),
            json!("(1,234.50)"),
            json!("1e400"),
            json!("9".repeat(500)),
            json!(true),
            json!("😀"),
        ];
        let mut comparators = all();
        comparators.push(Comparator::Numeric { abs_tol: 0.0, rel_tol: 0.0, partial: true });
        comparators.push(Comparator::String { threshold: Some(0.5) });
        comparators.push(Comparator::Enum { values: Some(vec!["a".into()]) });
        for c in &comparators {
            for e in &values {
                for a in &values {
                    let got = c.check(e, a, &ALL_NORMALIZERS, &NullPolicy::default()).leaf;
                    assert!((0.0..=1.0).contains(&got.score), "{c:?} {e} {a} {got:?}");
                    assert_eq!(got.outcome == Outcome::Match, got.score == 1.0, "{c:?} {e} {a}");
                }
                if !matches!(c, Comparator::Enum { values: Some(_) }) {
                    assert_eq!(c.compare(e, e, &[]), Leaf::MATCH, "{c:?} {e}");
                }
            }
        }
    }

    #[test]
    fn notes_explain_fallbacks() {
        let d = Comparator::Date { day_month: DayMonth::Reject };
        let got = d.check(&json!("soon"), &json!("2024-03-05"), &[], &NullPolicy::default());
        assert_eq!(got.note, Some(Note::NotADate(Side::Expected)));
        assert_eq!(got.note.unwrap().to_string(), "expected not a date; compared as text");
        let n = Comparator::NumberString { decimal: '.' };
        let got = n.check(&json!("12"), &json!("twelve"), &[], &NullPolicy::default());
        assert_eq!(got.note, Some(Note::NotANumber(Side::Actual)));
        assert_eq!(got.leaf, Leaf::WRONG);
    }

    #[test]
    fn names_match_specs() {
        for (c, k) in all().iter().zip(ALL_KINDS) {
            assert_eq!(c.name(), k);
        }
        assert_eq!(Comparator::default(), Comparator::Default);
    }
}
