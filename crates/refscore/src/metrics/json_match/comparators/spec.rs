//! Reading a comparator from its JSON spec.

use serde_json::{Map, Value};

use super::{Comparator, DayMonth};

/// Every comparator type name.
pub const TYPES: [&str; 8] =
    ["default", "auto", "exact", "numeric", "string", "date", "number_string", "enum"];

/// Default tolerances of `"numeric"`: exact up to a relative 1e-9.
pub const NUMERIC_DEFAULT: Comparator =
    Comparator::Numeric { abs_tol: 0.0, rel_tol: 1e-9, partial: false };

fn fields_of(kind: &str) -> &'static [&'static str] {
    match kind {
        "numeric" => &["abs_tol", "rel_tol", "partial"],
        "string" => &["threshold"],
        "date" => &["day_month"],
        "number_string" => &["decimal"],
        "enum" => &["values"],
        _ => &[],
    }
}

pub(super) fn from_spec(spec: &Value) -> Result<Comparator, String> {
    let empty = Map::new();
    let (kind, fields) = match spec {
        Value::String(s) => (s.as_str(), &empty),
        Value::Object(m) => match m.get("type") {
            Some(Value::String(s)) => (s.as_str(), m),
            Some(other) => {
                return Err(format!("comparator \"type\" must be a string, not {other}"));
            }
            None => return Err("comparator object needs a \"type\"".to_string()),
        },
        other => {
            return Err(format!("a comparator is a name or an object with \"type\", not {other}"));
        }
    };
    if !TYPES.contains(&kind) {
        let embedding = super::super::field_rule::EMBEDDING;
        return Err(format!(
            "unknown comparator \"{kind}\" (valid: {}, {embedding})",
            TYPES.join(", ")
        ));
    }
    let allowed = fields_of(kind);
    if let Some(k) = fields.keys().find(|k| *k != "type" && !allowed.contains(&k.as_str())) {
        let valid = if allowed.is_empty() { "none".to_string() } else { allowed.join(", ") };
        return Err(format!("unknown field \"{k}\" for comparator \"{kind}\" (valid: {valid})"));
    }
    let f = Fields { kind, map: fields };
    Ok(match kind {
        "default" => Comparator::Default,
        "auto" => Comparator::Auto,
        "exact" => Comparator::Exact,
        "numeric" => {
            let Comparator::Numeric { abs_tol, rel_tol, partial } = NUMERIC_DEFAULT else {
                unreachable!("NUMERIC_DEFAULT is numeric")
            };
            Comparator::Numeric {
                abs_tol: f.tolerance("abs_tol", abs_tol)?,
                rel_tol: f.tolerance("rel_tol", rel_tol)?,
                partial: f.boolean("partial", partial)?,
            }
        }
        "string" => Comparator::String { threshold: f.threshold()? },
        "date" => Comparator::Date { day_month: f.day_month()? },
        "number_string" => Comparator::NumberString { decimal: f.decimal()? },
        _ => Comparator::Enum { values: f.values()? },
    })
}

struct Fields<'a> {
    kind: &'a str,
    map: &'a Map<String, Value>,
}

impl Fields<'_> {
    fn bad(&self, field: &str, want: &str, got: &Value) -> String {
        format!("comparator \"{}\": \"{field}\" must be {want}, not {got}", self.kind)
    }

    fn tolerance(&self, key: &str, default: f64) -> Result<f64, String> {
        match self.map.get(key) {
            None => Ok(default),
            Some(v) => v
                .as_f64()
                .filter(|x| x.is_finite() && *x >= 0.0)
                .ok_or_else(|| self.bad(key, "a number ≥ 0", v)),
        }
    }

    fn boolean(&self, key: &str, default: bool) -> Result<bool, String> {
        match self.map.get(key) {
            None => Ok(default),
            Some(v) => v.as_bool().ok_or_else(|| self.bad(key, "true or false", v)),
        }
    }

    fn threshold(&self) -> Result<Option<f64>, String> {
        match self.map.get("threshold") {
            None | Some(Value::Null) => Ok(None),
            Some(v) => v
                .as_f64()
                .filter(|x| (0.0..=1.0).contains(x))
                .map(Some)
                .ok_or_else(|| self.bad("threshold", "a number from 0 to 1", v)),
        }
    }

    fn day_month(&self) -> Result<DayMonth, String> {
        match self.map.get("day_month") {
            None => Ok(DayMonth::default()),
            Some(v) => v.as_str().and_then(DayMonth::from_name).ok_or_else(|| {
                self.bad("day_month", "\"day_first\", \"month_first\" or \"reject\"", v)
            }),
        }
    }

    fn decimal(&self) -> Result<char, String> {
        match self.map.get("decimal") {
            None => Ok('.'),
            Some(v) => match v.as_str() {
                Some(".") => Ok('.'),
                Some(",") => Ok(','),
                _ => Err(self.bad("decimal", "\".\" or \",\"", v)),
            },
        }
    }

    fn values(&self) -> Result<Option<Vec<String>>, String> {
        let Some(v) = self.map.get("values") else { return Ok(None) };
        let want = "a non-empty array of strings";
        let items =
            v.as_array().filter(|a| !a.is_empty()).ok_or_else(|| self.bad("values", want, v))?;
        items
            .iter()
            .map(|x| x.as_str().map(str::to_string).ok_or_else(|| self.bad("values", want, v)))
            .collect::<Result<Vec<_>, _>>()
            .map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn accepted_specs() {
        let cases = [
            (json!("default"), Comparator::Default),
            (json!({"type": "default"}), Comparator::Default),
            (json!("exact"), Comparator::Exact),
            (json!("numeric"), NUMERIC_DEFAULT),
            (
                json!({"type": "numeric", "abs_tol": 0.01, "rel_tol": 0.0, "partial": true}),
                Comparator::Numeric { abs_tol: 0.01, rel_tol: 0.0, partial: true },
            ),
            (
                json!({"type": "numeric", "abs_tol": 1}),
                Comparator::Numeric { abs_tol: 1.0, rel_tol: 1e-9, partial: false },
            ),
            (json!("string"), Comparator::String { threshold: None }),
            (
                json!({"type": "string", "threshold": 0.9}),
                Comparator::String { threshold: Some(0.9) },
            ),
            (json!({"type": "string", "threshold": null}), Comparator::String { threshold: None }),
            (json!("date"), Comparator::Date { day_month: DayMonth::Reject }),
            (
                json!({"type": "date", "day_month": "day_first"}),
                Comparator::Date { day_month: DayMonth::DayFirst },
            ),
            (
                json!({"type": "date", "day_month": "month_first"}),
                Comparator::Date { day_month: DayMonth::MonthFirst },
            ),
            (json!("number_string"), Comparator::NumberString { decimal: '.' }),
            (
                json!({"type": "number_string", "decimal": ","}),
                Comparator::NumberString { decimal: ',' },
            ),
            (json!("enum"), Comparator::Enum { values: None }),
            (
                json!({"type": "enum", "values": ["a", "b"]}),
                Comparator::Enum { values: Some(vec!["a".into(), "b".into()]) },
            ),
        ];
        for (spec, want) in cases {
            assert_eq!(from_spec(&spec), Ok(want), "{spec}");
        }
    }

    #[test]
    fn rejected_specs() {
        let cases = [
            (
                json!("fuzzy"),
                "unknown comparator \"fuzzy\" (valid: default, auto, exact, numeric, string, date, number_string, enum, embedding)",
            ),
            (
                json!({"type": "numeric", "tolerance": 1}),
                "unknown field \"tolerance\" for comparator \"numeric\" (valid: abs_tol, rel_tol, partial)",
            ),
            (
                json!({"type": "exact", "threshold": 1}),
                "unknown field \"threshold\" for comparator \"exact\" (valid: none)",
            ),
            (json!({"abs_tol": 1}), "comparator object needs a \"type\""),
            (json!({"type": 3}), "comparator \"type\" must be a string, not 3"),
            (json!(3), "a comparator is a name or an object with \"type\", not 3"),
            (
                json!({"type": "numeric", "abs_tol": -1}),
                "comparator \"numeric\": \"abs_tol\" must be a number ≥ 0, not -1",
            ),
            (
                json!({"type": "numeric", "rel_tol": "1%"}),
                "comparator \"numeric\": \"rel_tol\" must be a number ≥ 0, not \"1%\"",
            ),
            (
                json!({"type": "numeric", "partial": 1}),
                "comparator \"numeric\": \"partial\" must be true or false, not 1",
            ),
            (
                json!({"type": "string", "threshold": 1.5}),
                "comparator \"string\": \"threshold\" must be a number from 0 to 1, not 1.5",
            ),
            (
                json!({"type": "date", "day_month": "dmy"}),
                "comparator \"date\": \"day_month\" must be \"day_first\", \"month_first\" or \"reject\", not \"dmy\"",
            ),
            (
                json!({"type": "number_string", "decimal": ";"}),
                "comparator \"number_string\": \"decimal\" must be \".\" or \",\", not \";\"",
            ),
            (
                json!({"type": "enum", "values": []}),
                "comparator \"enum\": \"values\" must be a non-empty array of strings, not []",
            ),
            (
                json!({"type": "enum", "values": ["a", 1]}),
                "comparator \"enum\": \"values\" must be a non-empty array of strings, not [\"a\",1]",
            ),
        ];
        for (spec, want) in cases {
            assert_eq!(from_spec(&spec), Err(want.to_string()), "{spec}");
        }
    }
}
