//! Turning evaluator inputs into JSON values.

use std::borrow::Cow;

use serde_json::Value;

use crate::error::EvalError;
use crate::evaluator::EvalInput;

/// How a string input becomes JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Text {
    /// A string stays a JSON string.
    Keep,
    /// A string is parsed as JSON text.
    Parse,
    /// A string is parsed as JSON text after removing a code fence.
    ParseFenced,
}

/// The JSON value of input `name`. The outer error is a missing input; the
/// inner one the reason a string is not JSON text.
pub(crate) fn json<'a>(
    input: &'a EvalInput,
    name: &str,
    text: Text,
) -> Result<Result<Cow<'a, Value>, String>, EvalError> {
    let v = input.require(name)?;
    Ok(match (v, text) {
        (Value::String(s), Text::Parse) => crate::json::parse(s).map(Cow::Owned),
        (Value::String(s), Text::ParseFenced) => {
            crate::json::parse(crate::json::strip_code_fence(s)).map(Cow::Owned)
        }
        _ => Ok(Cow::Borrowed(v)),
    })
}

/// Drops a parsed value without deep recursion.
pub(crate) fn release(v: Cow<'_, Value>) {
    if let Cow::Owned(v) = v {
        crate::json::drop_deep(v);
    }
}

/// Output and reference as JSON values.
pub(crate) type Pair<'a> = (Cow<'a, Value>, Cow<'a, Value>);

/// Both sides, or an `invalid` reason naming which side failed.
pub(crate) fn pair<'a>(
    input: &'a EvalInput,
    text: Text,
) -> Result<Result<Pair<'a>, String>, EvalError> {
    let out = json(input, "output", text)?;
    let refv = json(input, "reference", text)?;
    Ok(match (out, refv) {
        (Ok(o), Ok(r)) => Ok((o, r)),
        (Err(e), r) => {
            if let Ok(r) = r {
                release(r);
            }
            Err(format!("output: {e}"))
        }
        (Ok(o), Err(e)) => {
            release(o);
            Err(format!("reference: {e}"))
        }
    })
}

/// Formats a float as Python's `repr` does (`3.0`, `0.1`, `1e+20`).
pub(crate) fn py_float(x: f64) -> String {
    if x.is_nan() {
        return String::from("nan");
    }
    if x.is_infinite() {
        return String::from(if x > 0.0 { "inf" } else { "-inf" });
    }
    let abs = x.abs();
    if abs != 0.0 && !(1e-4..1e16).contains(&abs) {
        let s = format!("{x:e}");
        let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
        let exp: i32 = exp.parse().unwrap_or(0);
        let sign = if exp < 0 { '-' } else { '+' };
        return format!("{mant}e{sign}{:02}", exp.abs());
    }
    let s = format!("{x}");
    if s.contains('.') { s } else { format!("{s}.0") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_repr() {
        assert_eq!(py_float(3.0), "3.0");
        assert_eq!(py_float(0.1), "0.1");
        assert_eq!(py_float(2.5), "2.5");
        assert_eq!(py_float(1e20), "1e+20");
        assert_eq!(py_float(1.5e-7), "1.5e-07");
        assert_eq!(py_float(-0.0), "-0.0");
        assert_eq!(py_float(0.833_333_333_333_333_4), "0.8333333333333334");
    }
}
