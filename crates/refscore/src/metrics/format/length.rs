//! `format.length`: output length against the reference's, or within
//! absolute bounds.

use serde_json::Value;

use super::{Setting, bad, text_of};
use crate::detail::{Detail, Outcome};
use crate::error::{ConfigError, EvalError};
use crate::metrics::options::Opts;

/// Default relative tolerance.
pub(super) const DEFAULT_TOLERANCE: f64 = 0.2;

/// What is counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Unit {
    /// Unicode scalar values.
    Chars,
    /// Runs of non-whitespace.
    Words,
}

impl Unit {
    fn count(self, text: &str) -> usize {
        match self {
            Unit::Chars => text.chars().count(),
            Unit::Words => text.split_whitespace().count(),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Unit::Chars => "chars",
            Unit::Words => "words",
        }
    }
}

/// The length sub-check.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Length {
    /// |o − e| / e ≤ tolerance, against the reference.
    Relative {
        /// What is counted.
        unit: Unit,
        /// Allowed relative deviation.
        tolerance: f64,
    },
    /// min ≤ o ≤ max, no reference needed.
    Absolute {
        /// What is counted.
        unit: Unit,
        /// Smallest allowed length.
        min: Option<u64>,
        /// Largest allowed length.
        max: Option<u64>,
    },
}

/// A non-negative whole number option.
fn count_opt(o: &Opts<'_>, key: &'static str) -> Result<Option<u64>, ConfigError> {
    match o.value(key) {
        None => Ok(None),
        Some(v) => v
            .as_u64()
            .or_else(|| {
                v.as_f64().filter(|f| *f >= 0.0 && f.fract() == 0.0 && *f < 1e15).map(|f| f as u64)
            })
            .map(Some)
            .ok_or_else(|| {
                bad(&format!("length.{key}"), format!("expected a whole number ≥ 0, got {v}"))
            }),
    }
}

impl Length {
    /// From `true`, `{unit, tolerance}` or `{unit, min, max}`.
    pub(super) fn from_setting(s: Setting<'_>) -> Result<Option<Self>, ConfigError> {
        let map = match s {
            Setting::Off => return Ok(None),
            Setting::On => {
                return Ok(Some(Length::Relative {
                    unit: Unit::Chars,
                    tolerance: DEFAULT_TOLERANCE,
                }));
            }
            Setting::With(Value::Object(m)) => m,
            Setting::With(other) => {
                return Err(bad("length", format!("expected true or an object, got {other}")));
            }
        };
        let o = Opts::new("format.length", map);
        let unit = match o.choice("unit", &["chars", "words"], "chars")?.as_str() {
            "words" => Unit::Words,
            _ => Unit::Chars,
        };
        let (min, max) = (count_opt(&o, "min")?, count_opt(&o, "max")?);
        let tolerance =
            o.value("tolerance").is_some().then(|| o.number("tolerance", DEFAULT_TOLERANCE));
        o.finish()?;
        if min.is_some() || max.is_some() {
            if tolerance.is_some() {
                return Err(bad(
                    "length",
                    "use either `tolerance` (against the reference) or `min`/`max`",
                ));
            }
            if let (Some(a), Some(b)) = (min, max)
                && a > b
            {
                return Err(bad("length", format!("min {a} is larger than max {b}")));
            }
            return Ok(Some(Length::Absolute { unit, min, max }));
        }
        let tolerance = tolerance.transpose()?.unwrap_or(DEFAULT_TOLERANCE);
        if tolerance < 0.0 {
            return Err(bad("length.tolerance", format!("must be ≥ 0, got {tolerance}")));
        }
        Ok(Some(Length::Relative { unit, tolerance }))
    }

    /// One `format.length` detail.
    pub(super) fn check(
        &self,
        text: &str,
        reference: Option<&Value>,
    ) -> Result<Vec<Detail>, EvalError> {
        let detail = match *self {
            Length::Relative { unit, tolerance } => {
                let reference = reference
                    .ok_or_else(|| EvalError::MissingInput { input: "reference".into() })?;
                let (o, e) = (unit.count(text), unit.count(&text_of(reference)));
                #[allow(clippy::cast_precision_loss)]
                let (ok, msg) = if e == 0 {
                    (o == 0, String::from("the reference is empty, so the output must be"))
                } else {
                    let dev = o.abs_diff(e) as f64 / e as f64;
                    (
                        dev <= tolerance + 1e-12,
                        format!(
                            "differs from the reference by {:.1}% (tolerance {:.1}%)",
                            dev * 100.0,
                            tolerance * 100.0
                        ),
                    )
                };
                Detail::new("format.length", if ok { Outcome::Pass } else { Outcome::Fail })
                    .expected(format!("{e} {} ±{}%", unit.name(), tolerance * 100.0))
                    .actual(format!("{o} {}", unit.name()))
                    .message(msg)
            }
            Length::Absolute { unit, min, max } => {
                let o = unit.count(text) as u64;
                let ok = min.is_none_or(|m| o >= m) && max.is_none_or(|m| o <= m);
                let bounds = match (min, max) {
                    (Some(a), Some(b)) => format!("{a} to {b} {}", unit.name()),
                    (Some(a), None) => format!("at least {a} {}", unit.name()),
                    (None, Some(b)) => format!("at most {b} {}", unit.name()),
                    (None, None) => String::from("any length"),
                };
                Detail::new("format.length", if ok { Outcome::Pass } else { Outcome::Fail })
                    .expected(bounds)
                    .actual(format!("{o} {}", unit.name()))
                    .message(if ok { "length within bounds" } else { "length out of bounds" })
            }
        };
        Ok(vec![detail])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn build(v: Value) -> Result<Option<Length>, ConfigError> {
        Length::from_setting(Setting::of(Some(&v)))
    }

    #[test]
    fn relative_tolerance() {
        let l = build(json!(true)).unwrap().unwrap();
        let r = json!("x".repeat(100));
        assert!(l.check(&"y".repeat(120), Some(&r)).unwrap()[0].passed);
        let d = &l.check(&"y".repeat(121), Some(&r)).unwrap()[0];
        assert!(!d.passed);
        assert_eq!(d.actual.as_deref(), Some("121 chars"));
        assert_eq!(d.expected.as_deref(), Some("100 chars ±20%"));
        let w = build(json!({"unit": "words", "tolerance": 0})).unwrap().unwrap();
        assert!(w.check("a b  c", Some(&json!("x y z"))).unwrap()[0].passed);
        assert!(!w.check("a b", Some(&json!("x y z"))).unwrap()[0].passed);
    }

    #[test]
    fn empty_reference_and_missing_reference() {
        let l = build(json!(true)).unwrap().unwrap();
        assert!(l.check("", Some(&json!(""))).unwrap()[0].passed);
        assert!(!l.check("a", Some(&json!(""))).unwrap()[0].passed);
        assert_eq!(
            l.check("a", None).unwrap_err(),
            EvalError::MissingInput { input: "reference".into() }
        );
        assert!(l.check("é", Some(&json!("e"))).unwrap()[0].passed);
    }

    #[test]
    fn absolute_bounds() {
        let l = build(json!({"unit": "words", "min": 2, "max": 3})).unwrap().unwrap();
        assert!(l.check("a b", None).unwrap()[0].passed);
        assert!(!l.check("a b c d", None).unwrap()[0].passed);
        assert!(!l.check("a", None).unwrap()[0].passed);
    }

    #[test]
    fn option_errors() {
        assert!(build(json!(false)).unwrap().is_none());
        let e = build(json!({"unit": "lines"})).unwrap_err().to_string();
        assert!(e.contains("format.length") && e.contains("unit"), "{e}");
        assert!(build(json!({"min": 5, "max": 2})).is_err());
        assert!(build(json!({"min": 1, "tolerance": 0.1})).is_err());
        assert!(build(json!({"tolerance": -1})).is_err());
        assert!(build(json!({"tol": 1})).unwrap_err().to_string().contains("unknown option `tol`"));
        assert!(build(json!("yes")).is_err());
    }
}
