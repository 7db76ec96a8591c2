//! The `number_string` comparator: numbers written as text.

use serde_json::{Number, Value};

use super::{Checked, Normalizer, Note, Side, as_text, exact};
use crate::engine::Leaf;
use crate::number::{as_i128, float_equals_int, to_f64};
use crate::unicode_class::is_currency_symbol;

/// A number read from text or JSON.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Amount {
    /// The value, correctly rounded to a finite double.
    pub value: f64,
    /// The exact value when it is an integer within ±(10^38 − 1).
    pub integer: Option<i128>,
}

impl Amount {
    /// A JSON number.
    pub fn from_number(n: &Number) -> Amount {
        Amount { value: to_f64(n), integer: as_i128(n) }
    }

    /// Equal values, as JSON numbers compare exactly: two integers
    /// exactly, an integer and a float only when the float is that very
    /// integer, two floats as doubles (`-0 = 0`).
    pub fn same(&self, other: &Amount) -> bool {
        match (self.integer, other.integer) {
            (Some(x), Some(y)) => x == y,
            (Some(i), None) => float_equals_int(other.value, i),
            (None, Some(i)) => float_equals_int(self.value, i),
            (None, None) => self.value == other.value,
        }
    }

    /// The amount as a JSON number: exact when it is an integer that
    /// fits `i64` or `u64`, else the double.
    pub fn to_number(&self) -> Option<Number> {
        let exact = self.integer.and_then(|i| {
            i64::try_from(i).map(Number::from).or_else(|_| u64::try_from(i).map(Number::from)).ok()
        });
        exact.or_else(|| Number::from_f64(self.value))
    }
}

/// Reads a number written as text, with `decimal` as the decimal
/// separator (the grammar is in `docs/json_match.md` (Comparators and normalizers)):
/// an optional sign or enclosing parentheses (negative), an optional
/// currency (a currency symbol, up to three capital letters and a symbol
/// such as `US$`, or a three-letter code such as `EUR`) before or after,
/// digits grouped by `,`/`.` (whichever is not the decimal separator),
/// spaces or apostrophes, an optional fraction, and an optional trailing
/// `%` (which divides by 100). `None` when the text is anything else.
pub fn parse_number_string(s: &str, decimal: char) -> Option<Amount> {
    let mut t = s.trim();
    let (mut negative, mut sign, mut paren, mut currency, mut percent) =
        (false, false, false, false, false);
    loop {
        let before = t.len();
        if !sign && !paren {
            if let Some(r) = t.strip_prefix(['-', '\u{2212}']) {
                (negative, sign, t) = (true, true, r.trim_start());
            } else if let Some(r) = t.strip_prefix('+') {
                (sign, t) = (true, r.trim_start());
            } else if let Some(r) = t.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
                (negative, paren, t) = (true, true, r.trim());
            }
        }
        if !currency && let Some(r) = currency_prefix(t).or_else(|| currency_suffix(t)) {
            (currency, t) = (true, r.trim());
        }
        if !percent && let Some(r) = t.strip_suffix('%') {
            (percent, t) = (true, r.trim_end());
        }
        if t.len() == before {
            break;
        }
    }
    if currency && percent {
        return None;
    }
    let (digits, mut exp) = digits_and_exponent(t, decimal)?;
    if percent {
        exp -= 2;
    }
    let digits = digits.trim_start_matches('0');
    let magnitude: f64 =
        if digits.is_empty() { 0.0 } else { format!("{digits}e{exp}").parse().ok()? };
    if !magnitude.is_finite() || (magnitude == 0.0 && !digits.is_empty()) {
        return None;
    }
    let integer = exact_integer(digits, exp).map(|i| if negative { -i } else { i });
    Some(Amount { value: if negative { -magnitude } else { magnitude }, integer })
}

/// `$…`, `US$…`, `EUR …`: the rest after the currency.
fn currency_prefix(t: &str) -> Option<&str> {
    let letters = t.bytes().take_while(u8::is_ascii_uppercase).count().min(4);
    let rest = t.get(letters..)?;
    let mut chars = rest.chars();
    match chars.next() {
        Some(c) if is_currency_symbol(c) && letters <= 3 => Some(chars.as_str()),
        Some(c) if letters == 3 && !c.is_alphabetic() => Some(rest),
        _ => None,
    }
}

/// `…€`, `… EUR`: the rest before the currency.
fn currency_suffix(t: &str) -> Option<&str> {
    let mut chars = t.chars();
    if chars.next_back().is_some_and(is_currency_symbol) {
        return Some(chars.as_str());
    }
    let cut = t.len().checked_sub(3)?;
    let (rest, code) = (t.get(..cut)?, t.get(cut..)?);
    let before_ok = !rest.chars().next_back().is_some_and(char::is_alphabetic);
    (code.bytes().all(|b| b.is_ascii_uppercase()) && before_ok).then_some(rest)
}

/// Whether `c` groups digits where `decimal` is the decimal separator.
pub(super) fn is_group_separator(c: char, decimal: char) -> bool {
    c != decimal
        && matches!(c, ',' | '.' | ' ' | '\u{a0}' | '\u{202f}' | '\u{2009}' | '\'' | '\u{2019}')
}

/// The digits without separators and the power of ten that scales them.
fn digits_and_exponent(t: &str, decimal: char) -> Option<(String, i64)> {
    let mut parts = t.split(decimal);
    let int = parts.next()?;
    let frac = parts.next();
    if parts.next().is_some() {
        return None;
    }
    let frac = frac.unwrap_or("");
    if !frac.bytes().all(|b| b.is_ascii_digit()) || (int.is_empty() && frac.is_empty()) {
        return None;
    }
    let sep = int.chars().find(|c| !c.is_ascii_digit());
    if let Some(sep) = sep
        && (!is_group_separator(sep, decimal) || !valid_groups(int, sep))
    {
        return None;
    }
    let mut digits: String = int.chars().filter(char::is_ascii_digit).collect();
    digits.push_str(frac);
    Some((digits, -i64::try_from(frac.len()).ok()?))
}

/// Western (`1,234,567`) or Indian (`12,34,567`) grouping, one separator.
fn valid_groups(int: &str, sep: char) -> bool {
    let groups: Vec<&str> = int.split(sep).collect();
    if !groups.iter().all(|g| !g.is_empty() && g.bytes().all(|b| b.is_ascii_digit())) {
        return false;
    }
    let (Some(first), Some(last)) = (groups.first(), groups.last()) else { return false };
    let middle = groups.get(1..groups.len().saturating_sub(1)).unwrap_or(&[]);
    let western = (1..=3).contains(&first.len()) && middle.iter().all(|g| g.len() == 3);
    let indian =
        (1..=2).contains(&first.len()) && !middle.is_empty() && middle.iter().all(|g| g.len() == 2);
    groups.len() >= 2 && last.len() == 3 && (western || indian)
}

/// `digits × 10^exp` as an i128 when it is an integer that fits.
fn exact_integer(digits: &str, exp: i64) -> Option<i128> {
    let trimmed = digits.trim_end_matches('0');
    let exp = exp + i64::try_from(digits.len() - trimmed.len()).ok()?;
    if trimmed.is_empty() {
        return Some(0);
    }
    if exp < 0 || trimmed.len() as i64 + exp > 38 {
        return None;
    }
    let base: i128 = trimmed.parse().ok()?;
    base.checked_mul(10i128.checked_pow(u32::try_from(exp).ok()?)?)
}

/// Numbers and number strings compared by value (two JSON numbers as
/// `exact` compares them); strings that are not
/// numbers fall back to text equality; other values as `exact` does.
pub(super) fn compare(e: &Value, a: &Value, normalizers: &[Normalizer], decimal: char) -> Checked {
    let read = |v: &Value| match v {
        Value::Number(n) => Some(Some(Amount::from_number(n))),
        Value::String(s) => Some(parse_number_string(s, decimal)),
        _ => None,
    };
    if let (Value::Number(x), Value::Number(y)) = (e, a) {
        return Leaf::exact(crate::number::exact_eq(x, y)).into();
    }
    let (Some(pe), Some(pa)) = (read(e), read(a)) else {
        return exact::compare(e, a, normalizers).into();
    };
    if let (Some(x), Some(y)) = (pe, pa) {
        return Leaf::exact(x.same(&y)).into();
    }
    let side = Side::of(pe.is_none(), pa.is_none()).unwrap_or(Side::Both);
    match (e, a) {
        (Value::String(x), Value::String(y)) => as_text(x, y, normalizers, Note::NotANumber(side)),
        _ => Checked { leaf: Leaf::TYPE, note: Some(Note::NotANumber(side)) },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn val(s: &str, decimal: char) -> Option<f64> {
        parse_number_string(s, decimal).map(|a| a.value)
    }

    #[test]
    fn grammar_with_decimal_point() {
        let cases: &[(&str, f64)] = &[
            ("1234.5", 1234.5),
            ("1,234.50", 1234.5),
            ("  1,234.50 ", 1234.5),
            ("$1,234.50", 1234.5),
            ("US$ 1,234.50", 1234.5),
            ("USD 1,234.50", 1234.5),
            ("USD1234.5", 1234.5),
            ("1,234.50 USD", 1234.5),
            ("1234.50€", 1234.5),
            ("£0.99", 0.99),
            ("-$12", -12.0),
            ("$-12", -12.0),
            ("− 12", -12.0),
            ("+12", 12.0),
            ("(12.00)", -12.0),
            ("($12.00)", -12.0),
            ("$(12.00)", -12.0),
            ("(12.00) EUR", -12.0),
            ("12.5%", 0.125),
            ("7%", 0.07),
            ("-0.5 %", -0.005),
            ("1,234,567", 1_234_567.0),
            ("12,34,567", 1_234_567.0),
            ("1 234 567.5", 1_234_567.5),
            ("1\u{a0}234", 1234.0),
            ("1'234.5", 1234.5),
            ("1’234.5", 1234.5),
            ("1.234", 1.234),
            ("12.", 12.0),
            (".5", 0.5),
            ("0", 0.0),
            ("000123", 123.0),
            ("0.1", 0.1),
        ];
        for (s, want) in cases {
            assert_eq!(val(s, '.'), Some(*want), "{s:?}");
        }
    }

    #[test]
    fn grammar_with_decimal_comma() {
        let cases: &[(&str, f64)] = &[
            ("1.234,50", 1234.5),
            ("1 234,50 €", 1234.5),
            ("€ 1.234,5", 1234.5),
            ("1,234", 1.234),
            ("1.234.567", 1_234_567.0),
            ("(1.234,00)", -1234.0),
            ("12,5 %", 0.125),
            (",5", 0.5),
        ];
        for (s, want) in cases {
            assert_eq!(val(s, ','), Some(*want), "{s:?}");
        }
    }

    #[test]
    fn not_numbers() {
        let long = "9".repeat(400);
        let tiny = format!("0.{}1", "0".repeat(400));
        let cases = [
            "",
            " ",
            ".",
            "-",
            "$",
            "%",
            "()",
            "twelve",
            "12a",
            "1e3",
            "1.5E3",
            "1,5",
            "1,23",
            "1,2345",
            "12,,345",
            ",123",
            "1,234,56",
            "1.234,50",
            "1,234.5.6",
            "1 234,567",
            "1,234 567",
            "--12",
            "-(12)",
            "(12",
            "12)",
            "$12%",
            "$$12",
            "12 EURO",
            "ABCD 12",
            "0x1F",
            "١٢",
            "１２",
            "12-",
            "1_000",
            "inf",
            "NaN",
            &long,
            &tiny,
        ];
        for s in cases {
            assert_eq!(val(s, '.'), None, "{s:?}");
        }
    }

    #[test]
    fn exact_integers() {
        let big = parse_number_string("12,345,678,901,234,567,890,123", '.').unwrap();
        assert_eq!(big.integer, Some(12_345_678_901_234_567_890_123));
        assert_eq!(parse_number_string("1,234.00", '.').unwrap().integer, Some(1234));
        assert_eq!(parse_number_string("1,234.50", '.').unwrap().integer, None);
        assert_eq!(parse_number_string("-0", '.').unwrap().integer, Some(0));
        assert_eq!(parse_number_string("150%", '.').unwrap().integer, None);
        assert_eq!(parse_number_string("200%", '.').unwrap().integer, Some(2));
        let huge = "9".repeat(39);
        assert_eq!(parse_number_string(&huge, '.').unwrap().integer, None);
    }

    fn cmp(e: Value, a: Value, decimal: char) -> Checked {
        compare(&e, &a, &[], decimal)
    }

    #[test]
    fn comparisons() {
        let matches = [
            (json!(1234.5), json!("$1,234.50"), '.'),
            (json!("1.234,50"), json!(1234.5), ','),
            (json!("1,234.50"), json!("1234.5"), '.'),
            (json!(-12), json!("(12.00)"), '.'),
            (json!(0.125), json!("12.5%"), '.'),
            (json!(0.07), json!("7%"), '.'),
            (json!(0.1), json!("0.10"), '.'),
            (json!(0), json!("-0.00"), '.'),
            (json!(9_007_199_254_740_993_u64), json!("9,007,199,254,740,993"), '.'),
            (json!(1234), json!(1234.0), '.'),
            (json!(u64::MAX), json!(u64::MAX), '.'),
            (json!(1e20), json!("100000000000000000000"), '.'),
            (json!(9_007_199_254_740_992.0), json!("9007199254740992"), '.'),
        ];
        for (e, a, d) in matches {
            assert_eq!(cmp(e.clone(), a.clone(), d), Leaf::MATCH.into(), "{e} vs {a}");
        }
        let wrong = [
            (json!(1234.5), json!("$1,234.51"), '.'),
            (json!(12.5), json!("12.5%"), '.'),
            (json!(12), json!("(12)"), '.'),
            (json!(9_007_199_254_740_993_u64), json!("9,007,199,254,740,992"), '.'),
            (json!("1,234"), json!(1234), ','),
            (json!(9_007_199_254_740_993_u64), json!(9_007_199_254_740_992.0), '.'),
            (json!(9_007_199_254_740_992.0), json!("9007199254740993"), '.'),
            (json!(1e20), json!("100000000000000000001"), '.'),
        ];
        for (e, a, d) in wrong {
            assert_eq!(cmp(e.clone(), a.clone(), d), Leaf::WRONG.into(), "{e} vs {a}");
        }
    }

    #[test]
    fn fallbacks() {
        let text = cmp(json!("n/a"), json!("n/a"), '.');
        assert_eq!(text, Checked { leaf: Leaf::MATCH, note: Some(Note::NotANumber(Side::Both)) });
        let text = cmp(json!("12"), json!("about 12"), '.');
        assert_eq!(text, Checked { leaf: Leaf::WRONG, note: Some(Note::NotANumber(Side::Actual)) });
        let typed = cmp(json!(12), json!("twelve"), '.');
        assert_eq!(typed, Checked { leaf: Leaf::TYPE, note: Some(Note::NotANumber(Side::Actual)) });
        assert_eq!(cmp(json!(true), json!("1"), '.').leaf, Leaf::TYPE);
        assert_eq!(cmp(json!(true), json!(true), '.').leaf, Leaf::MATCH);
    }
}
