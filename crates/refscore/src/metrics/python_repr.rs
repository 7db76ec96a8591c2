//! Floats written as Python writes them, for the messages the seed metrics copy.

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
