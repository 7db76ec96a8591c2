//! Tone dimensions and the target profile.
//!
//! `profile` is an object from dimension to target, or a string of names
//! (`"formal, positive, confident, concise"`). A target is a number in
//! [0, 1] (for `verbosity`: words per sentence, above 0) or a name:
//!
//! | dimension | names |
//! |---|---|
//! | formality | `formal` 0.85, `neutral` 0.5, `casual` / `informal` 0.15 |
//! | sentiment | `positive` 0.75, `neutral` 0.5, `negative` 0.25 |
//! | assertiveness | `confident` / `assertive` 0.75, `neutral` 0.5, `tentative` / `hedged` 0.25 |
//! | persona_consistency | `consistent` 1.0 |
//! | verbosity | `concise` 12, `moderate` 18, `detailed` 25 words per sentence |
//!
//! In the string form `neutral` is ambiguous and rejected.
//!
//! A name at an end of its scale is one-sided: `formal`, `positive`,
//! `confident`, `consistent` and `detailed` mean *at least* the value (a
//! more formal text is not penalised), `casual`/`informal`, `negative`,
//! `tentative`/`hedged` and `concise` mean *at most*. Numbers, `neutral`,
//! `moderate` and targets measured on the reference are two-sided.

use serde_json::Value;

use super::verbosity;

/// A tone sub-dimension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Dimension {
    /// Formal vs informal register.
    Formality,
    /// Positive, neutral or negative.
    Sentiment,
    /// Confident vs tentative.
    Assertiveness,
    /// Steady voice across sentences.
    PersonaConsistency,
    /// Length against the target or the reference.
    Verbosity,
}

impl Dimension {
    /// Every dimension, in report order.
    pub const ALL: [Dimension; 5] = [
        Dimension::Formality,
        Dimension::Sentiment,
        Dimension::Assertiveness,
        Dimension::PersonaConsistency,
        Dimension::Verbosity,
    ];

    /// The option name (`persona_consistency`).
    pub fn name(self) -> &'static str {
        match self {
            Dimension::Formality => "formality",
            Dimension::Sentiment => "sentiment",
            Dimension::Assertiveness => "assertiveness",
            Dimension::PersonaConsistency => "persona_consistency",
            Dimension::Verbosity => "verbosity",
        }
    }

    /// The dimension with this option name.
    pub fn parse(name: &str) -> Option<Dimension> {
        Dimension::ALL.into_iter().find(|d| d.name() == name)
    }

    fn names(self) -> &'static [(&'static str, f64)] {
        match self {
            Dimension::Formality => {
                &[("formal", 0.85), ("neutral", 0.5), ("casual", 0.15), ("informal", 0.15)]
            }
            Dimension::Sentiment => &[("positive", 0.75), ("neutral", 0.5), ("negative", 0.25)],
            Dimension::Assertiveness => &[
                ("confident", 0.75),
                ("assertive", 0.75),
                ("neutral", 0.5),
                ("tentative", 0.25),
                ("hedged", 0.25),
            ],
            Dimension::PersonaConsistency => &[("consistent", 1.0)],
            Dimension::Verbosity => verbosity::NAMED,
        }
    }
}

/// Which side of a target passes without distance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    /// Distance on both sides (numbers, `neutral`, `moderate`, a reference).
    Both,
    /// Any value at or above the target has distance 0 (`formal`,
    /// `positive`, `confident`, `consistent`, `detailed`).
    AtLeast,
    /// Any value at or below the target has distance 0 (`casual`,
    /// `negative`, `tentative`, `concise`).
    AtMost,
}

impl Side {
    /// Distance of `measured` from `target` on this side.
    pub(crate) fn distance(self, measured: f64, target: f64) -> f64 {
        match self {
            Side::Both => (measured - target).abs(),
            Side::AtLeast => (target - measured).max(0.0),
            Side::AtMost => (measured - target).max(0.0),
        }
    }
}

/// A target value and the name it was given by, if any.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Target {
    /// In [0, 1], or words per sentence for verbosity.
    pub(crate) value: f64,
    /// The name used (`formal`), if any.
    pub(crate) name: Option<String>,
    /// Which side passes.
    pub(crate) side: Side,
}

/// The side a named target passes on.
fn side_of(name: &str) -> Side {
    match name {
        "formal" | "positive" | "confident" | "assertive" | "consistent" | "detailed" => {
            Side::AtLeast
        }
        "casual" | "informal" | "negative" | "tentative" | "hedged" | "concise" => Side::AtMost,
        _ => Side::Both,
    }
}

/// Targets by dimension (index = position in [`Dimension::ALL`]).
pub(crate) type Profile = [Option<Target>; 5];

fn index(d: Dimension) -> usize {
    Dimension::ALL.iter().position(|x| *x == d).unwrap_or(0)
}

/// The target of `d` in `p`.
pub(crate) fn get(p: &Profile, d: Dimension) -> Option<&Target> {
    p.get(index(d)).and_then(Option::as_ref)
}

fn target(d: Dimension, v: &Value) -> Result<Target, String> {
    match v {
        Value::Number(n) => {
            let x = n.as_f64().filter(|x| x.is_finite()).ok_or("not a finite number")?;
            let ok = if d == Dimension::Verbosity { x > 0.0 } else { (0.0..=1.0).contains(&x) };
            if ok {
                Ok(Target { value: x, name: None, side: Side::Both })
            } else if d == Dimension::Verbosity {
                Err(format!("verbosity: words per sentence must be above 0, got {x}"))
            } else {
                Err(format!("{}: must be between 0 and 1, got {x}", d.name()))
            }
        }
        Value::String(s) => {
            let key = s.trim().to_lowercase();
            d.names()
                .iter()
                .find(|(n, _)| *n == key)
                .map(|&(n, x)| Target { value: x, name: Some(n.to_owned()), side: side_of(n) })
                .ok_or_else(|| {
                    let known: Vec<&str> = d.names().iter().map(|(n, _)| *n).collect();
                    format!("{}: `{s}` is not one of {}", d.name(), known.join(", "))
                })
        }
        other => Err(format!("{}: expected a number or a name, got {other}", d.name())),
    }
}

/// Reads the `profile` option.
pub(crate) fn parse(v: &Value) -> Result<Profile, String> {
    let mut p: Profile = Default::default();
    match v {
        Value::Object(map) => {
            for (k, v) in map {
                let d = Dimension::parse(k).ok_or_else(|| format!("unknown dimension `{k}`"))?;
                p[index(d)] = Some(target(d, v)?);
            }
        }
        Value::String(s) => {
            for word in s.split(|c: char| c == ',' || c.is_whitespace()).filter(|w| !w.is_empty()) {
                let key = word.to_lowercase();
                if key == "neutral" {
                    return Err(String::from(
                        "`neutral` is ambiguous here: give the profile as an object",
                    ));
                }
                let d = Dimension::ALL
                    .into_iter()
                    .find(|d| d.names().iter().any(|(n, _)| *n == key))
                    .ok_or_else(|| format!("unknown tone `{word}`"))?;
                p[index(d)] = Some(target(d, &Value::String(key))?);
            }
        }
        other => return Err(format!("expected an object or a string, got {other}")),
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn object_and_string_forms() {
        let p = parse(&json!({"formality": "formal", "sentiment": 0.6, "verbosity": 20})).unwrap();
        assert_eq!(get(&p, Dimension::Formality).unwrap().value, 0.85);
        assert_eq!(get(&p, Dimension::Sentiment).unwrap().value, 0.6);
        assert_eq!(get(&p, Dimension::Verbosity).unwrap().value, 20.0);
        assert!(get(&p, Dimension::Assertiveness).is_none());
        let p = parse(&json!("Casual, positive tentative concise")).unwrap();
        assert_eq!(get(&p, Dimension::Formality).unwrap().value, 0.15);
        assert_eq!(get(&p, Dimension::Assertiveness).unwrap().name.as_deref(), Some("tentative"));
        assert_eq!(get(&p, Dimension::Verbosity).unwrap().value, 12.0);
        assert_eq!(get(&p, Dimension::Verbosity).unwrap().side, Side::AtMost);
        assert_eq!(get(&p, Dimension::Sentiment).unwrap().side, Side::AtLeast);
    }

    #[test]
    fn sides() {
        assert_eq!(Side::Both.distance(0.9, 0.75), 0.9 - 0.75);
        assert_eq!(Side::AtLeast.distance(0.9, 0.75), 0.0);
        assert_eq!(Side::AtLeast.distance(0.5, 0.75), 0.25);
        assert_eq!(Side::AtMost.distance(0.0, 0.15), 0.0);
        assert_eq!(Side::AtMost.distance(0.5, 0.25), 0.25);
    }

    #[test]
    fn rejects_bad_profiles() {
        assert!(parse(&json!({"formality": 1.5})).is_err());
        assert!(parse(&json!({"verbosity": 0})).is_err());
        assert!(parse(&json!({"humour": 0.5})).is_err());
        assert!(parse(&json!({"sentiment": "grumpy"})).unwrap_err().contains("positive"));
        assert!(parse(&json!("neutral")).is_err());
        assert!(parse(&json!(3)).is_err());
        assert_eq!(Dimension::parse("persona_consistency"), Some(Dimension::PersonaConsistency));
    }
}
