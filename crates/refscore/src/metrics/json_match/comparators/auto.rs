//! The `auto` comparator: json_match's zero-config comparison, where a
//! difference with exactly one reading is no error.
//!
//! After the rule's normalizers, with Unicode canonical equivalents and
//! full-width ASCII forms read alike ([`crate::normalize::canonical`]),
//! and with leading and trailing white space ignored:
//! - numbers written as text (grouping commas, a currency symbol or code,
//!   a decimal comma after another grouping separator) compare by value
//!   with numbers and with each other;
//! - `true` and `false`, `yes` and `no` written as text (any letter
//!   case) equal the booleans;
//! - dates and datetimes in unambiguous forms compare as calendar dates
//!   (a date alone is midnight); `03/05/2024` or `05.03.2024`, whose day
//!   and month could be swapped, are not read as dates;
//! - a time of day alone compares by the time it names on either clock
//!   (`19:00`, `7:00 PM`: [`time_of_day`]);
//! - a currency symbol with one reading equals its ISO 4217 code, alone
//!   (`€`, `EUR`) or beside an amount ([`same_currency`]);
//! - text compares word by word: the letter case of whole words, white
//!   space that carries no meaning and the grouping of identifiers are
//!   ignored ([`super::auto_text`]); free text (a value with white space
//!   inside) is otherwise weighed by its similarity, case ignored;
//! - two different integers (JSON integers, or numbers written as text
//!   without a fraction) are wrong: ids, years, counts and ZIP codes get
//!   no partial credit;
//! - everything else as the `default` comparator: numbers equal by value,
//!   partial credit within 1 % or from a string similarity of 0.8.
//!
//! A match reached through one of these readings carries a [`Note`] that
//! names it.

use serde_json::{Number, Value};

use super::auto_text::{CaseReading, case_reading, same_letters_and_digits, spacing, ungrouped_id};
use super::currency::same_currency;
use super::date::{DateError, DateTime, DayMonth, parse_date};
use super::number_string::{Amount, is_group_separator, parse_number_string};
use super::time_of_day::time_of_day;
use super::{Checked, Normalization, Normalizer, Note, default, is_currency_symbol, normalize};
use crate::engine::Leaf;
use crate::normalize::canonical;
use crate::number::{as_i128, exact_eq};

/// Compares under the zero-config readings.
pub(super) fn compare(e: &Value, a: &Value, normalizers: &[Normalizer]) -> Checked {
    match (e, a) {
        (Value::Number(n), Value::String(s)) | (Value::String(s), Value::Number(n)) => {
            match text_number(&canonical(&normalize(s, normalizers))) {
                Some((x, _)) => numbers(Num::json(n), x),
                None => Leaf::TYPE.into(),
            }
        }
        (Value::Bool(b), Value::String(s)) | (Value::String(s), Value::Bool(b)) => {
            match text_bool(&canonical(&normalize(s, normalizers))) {
                Some(t) if t == *b => noted(Normalization::BoolAsText),
                Some(_) => Leaf::WRONG.into(),
                None => Leaf::TYPE.into(),
            }
        }
        (Value::Number(x), Value::Number(y))
            if as_i128(x).is_some() && as_i128(y).is_some() && !exact_eq(x, y) =>
        {
            Leaf::WRONG.into()
        }
        (Value::String(x), Value::String(y)) => strings(x, y, normalizers),
        _ => default::compare(e, a, normalizers).into(),
    }
}

/// A number, and whether it was written as an integer (a JSON integer, or
/// text without a fraction part).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Num {
    /// The value.
    pub(super) amount: Amount,
    /// Written as an integer.
    pub(super) whole: bool,
    /// Written as a percent (`19%`): the value is the fraction (0.19).
    pub(super) percent: bool,
}

impl Num {
    fn json(n: &Number) -> Num {
        Num { amount: Amount::from_number(n), whole: as_i128(n).is_some(), percent: false }
    }

    fn text(amount: Amount, whole: bool) -> Num {
        Num { amount, whole, percent: false }
    }
}

/// `true` or `false`, `yes` or `no`, in any letter case, once trimmed
/// (against a boolean, the answer a yes/no question gives); `1`, `y`,
/// `on` and the like have more than one reading and are not read.
fn text_bool(s: &str) -> Option<bool> {
    let t = s.trim();
    if t.eq_ignore_ascii_case("true") || t.eq_ignore_ascii_case("yes") {
        Some(true)
    } else if t.eq_ignore_ascii_case("false") || t.eq_ignore_ascii_case("no") {
        Some(false)
    } else {
        None
    }
}

/// Two amounts: equal values match (as a number written as text), others
/// as the default comparator compares numbers.
/// Two integers that differ are wrong, never partial credit.
fn numbers(x: Num, y: Num) -> Checked {
    if x.amount.same(&y.amount) {
        return noted(if x.percent || y.percent {
            Normalization::Percent
        } else {
            Normalization::NumberAsText
        });
    }
    if x.whole && y.whole {
        return Leaf::WRONG.into();
    }
    match (x.amount.to_number(), y.amount.to_number()) {
        (Some(p), Some(q)) => match default::numbers(&p, &q) {
            Leaf::MATCH => super::below_one(1.0).into(),
            leaf => leaf.into(),
        },
        _ => Leaf::WRONG.into(),
    }
}

fn noted(n: Normalization) -> Checked {
    Checked { leaf: Leaf::MATCH, note: Some(Note::Equal(n)) }
}

fn strings(e: &str, a: &str, normalizers: &[Normalizer]) -> Checked {
    let (ne, na) = (normalize(e, normalizers), normalize(a, normalizers));
    if ne == na {
        return Leaf::MATCH.into();
    }
    let (ce, ca) = (canonical(&ne), canonical(&na));
    if ce == ca {
        return noted(Normalization::Unicode);
    }
    let (x, y) = (ce.trim(), ca.trim());
    if x == y {
        return noted(Normalization::Trimmed);
    }
    match (calendar(x), calendar(y)) {
        (Ok(p), Ok(q)) => {
            return if same_moment(&p, &q) {
                noted(Normalization::CalendarDate)
            } else {
                Leaf::WRONG.into()
            };
        }
        (Err(DateError::Ambiguous), _) | (_, Err(DateError::Ambiguous)) => {
            let side = super::Side::of(calendar(x).is_err(), calendar(y).is_err());
            let mut c: Checked = default::strings(x, y).into();
            c.note = side.map(Note::AmbiguousDate);
            return c;
        }
        _ => {}
    }
    if let (Some(p), Some(q)) = (time_of_day(x), time_of_day(y)) {
        return if p == q { noted(Normalization::TimeOfDay) } else { Leaf::WRONG.into() };
    }
    if let (Some((p, cp)), Some((q, cq))) = (text_number(x), text_number(y))
        && match (&cp, &cq) {
            (Some(c), Some(d)) => c == d || same_currency(c, d),
            _ => true,
        }
    {
        return numbers(p, q);
    }
    if same_currency(x, y) {
        return noted(Normalization::Currency);
    }
    let free = x.contains(char::is_whitespace) || y.contains(char::is_whitespace);
    // Every reading below keeps the letters and digits in order: most
    // strings that differ (elements weighed for pairing) stop here.
    if same_letters_and_digits(x, y)
        && let Some(c) = same_text(x, y, free)
    {
        return c;
    }
    if free {
        let (cx, cy) = (spacing(x, free, false), spacing(y, free, false));
        return default::strings(&free_text(&cx), &free_text(&cy)).into();
    }
    default::strings(x, y).into()
}

/// `x` and `y` read as the same text (letter case, spacing, grouping), or
/// compared as written when they differ in letter case inside a word;
/// `None` when no reading applies.
fn same_text(x: &str, y: &str, free: bool) -> Option<Checked> {
    // Word by word first (`"Diabetes. Currently"`), then with the white
    // space that carries no meaning left out (`"72 kg"`, `"72kg"`).
    let (cx, cy) = (spacing(x, free, false), spacing(y, free, false));
    let (mut reading, mut same) = (case_reading(&cx, &cy), cx == cy);
    if reading == CaseReading::Different {
        let (sx, sy) = (spacing(x, free, true), spacing(y, free, true));
        if case_reading(&sx, &sy) == CaseReading::Equal {
            (reading, same) = (CaseReading::Equal, sx == sy);
        }
    }
    match reading {
        CaseReading::Equal if same => return Some(noted(Normalization::Spacing)),
        CaseReading::Equal if free => return Some(noted(Normalization::FreeText)),
        CaseReading::Equal => return Some(noted(Normalization::LetterCase)),
        // Letter case changed inside a word (`MB/s`, `Mb/s`): compared
        // as written.
        CaseReading::InsideAWord => {
            return Some(default::strings(x, y).into());
        }
        CaseReading::Different => {}
    }
    let (p, q) = (ungrouped_id(x)?, ungrouped_id(y)?);
    (case_reading(&p, &q) == CaseReading::Equal).then(|| noted(Normalization::Grouping))
}

/// Free text folded for its similarity: case ignored.
fn free_text(s: &str) -> std::borrow::Cow<'_, str> {
    normalize(s, &[Normalizer::Casefold])
}

/// Currency codes read around a number written as text.
const CURRENCY_CODES: [&str; 24] = [
    "USD", "EUR", "GBP", "JPY", "CHF", "CAD", "AUD", "NZD", "CNY", "HKD", "SGD", "INR", "SEK",
    "NOK", "DKK", "PLN", "CZK", "HUF", "BRL", "MXN", "ZAR", "KRW", "TRY", "AED",
];

/// A number written as text in zero config: an optional currency (a
/// currency symbol, or one of [`CURRENCY_CODES`]) before or after, an
/// optional minus sign (`-` or U+2212 MINUS SIGN), digits (grouped in
/// threes by commas or apostrophes, in the Indian way `12,34,567`, or
/// not) and an optional fraction after a point; or digits grouped by
/// another separator than a comma and a fraction after a decimal comma
/// (`1.234,50`, `1 234,50`: see [`decimal_comma`]). Around that, either
/// accounting parentheses (`(150.00)` is −150) or a percent sign (`19%`
/// is 0.19, never 19). Nothing else: no lone decimal comma (`1,5` has
/// more than one reading). The currency, when written, comes back with
/// the number.
pub(super) fn text_number(s: &str) -> Option<(Num, Option<String>)> {
    // Every reading below needs a digit, and has no ASCII letter but a
    // currency code's three capitals: most texts are refused here.
    if !could_be_a_number(s) {
        return None;
    }
    let t = s.trim();
    if let Some(p) = t.strip_suffix('%') {
        let (n, currency) = plain_number(p.trim_end())?;
        if currency.is_some() {
            return None;
        }
        // The shortest decimal that reads back as the value is the one
        // written: moving its point gives the correctly rounded fraction.
        let value: f64 = format!("{}e-2", n.amount.value).parse().ok()?;
        let amount = Amount { value, integer: None };
        return Some((Num { amount, whole: false, percent: true }, None));
    }
    if let Some(inner) = t.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
        let inner = inner.trim();
        if inner.starts_with(MINUS) || inner.ends_with(MINUS) {
            return None;
        }
        let (n, currency) = plain_number(inner)?;
        let amount = Amount { value: -n.amount.value, integer: n.amount.integer.map(|i| -i) };
        return Some((Num { amount, ..n }, currency));
    }
    plain_number(t)
}

/// Whether `s` has an ASCII digit, no ASCII lower-case letter and at most
/// three ASCII capitals (one currency code): what every number written
/// as text has.
fn could_be_a_number(s: &str) -> bool {
    let (mut digit, mut capitals) = (false, 0);
    for b in s.bytes() {
        if b.is_ascii_lowercase() {
            return false;
        }
        digit |= b.is_ascii_digit();
        capitals += usize::from(b.is_ascii_uppercase());
    }
    digit && capitals <= 3
}

/// [`text_number`] without parentheses or a percent sign.
fn plain_number(s: &str) -> Option<(Num, Option<String>)> {
    let mut t = s.trim();
    // A minus sign may come before the currency (`-$5`) or after it (`$-5`).
    let minus_first = t.strip_prefix(MINUS);
    if let Some(rest) = minus_first {
        t = rest;
    }
    let mut currency = None;
    if let Some(c) = t.chars().next().filter(|c| is_currency_symbol(*c)) {
        currency = Some(c.to_string());
        t = t[c.len_utf8()..].trim_start();
    } else if let Some(code) = t
        .get(..3)
        .filter(|p| p.bytes().all(|b| b.is_ascii_uppercase()))
        .and_then(|p| CURRENCY_CODES.iter().find(|c| **c == p))
    {
        let rest = &t[3..];
        if rest.starts_with(char::is_alphabetic) {
            return None;
        }
        currency = Some((*code).to_owned());
        t = rest.trim_start();
    }
    if currency.is_none() {
        if let Some(c) = t.chars().next_back().filter(|c| is_currency_symbol(*c)) {
            currency = Some(c.to_string());
            t = t[..t.len() - c.len_utf8()].trim_end();
        } else if let Some(code) = t
            .len()
            .checked_sub(3)
            .and_then(|at| t.get(at..))
            .filter(|p| p.bytes().all(|b| b.is_ascii_uppercase()))
            .and_then(|p| CURRENCY_CODES.iter().find(|c| **c == p))
        {
            let rest = &t[..t.len() - 3];
            if rest.ends_with(char::is_alphabetic) {
                return None;
            }
            currency = Some((*code).to_owned());
            t = rest.trim_end();
        }
    }
    let minus_after = t.strip_prefix(MINUS);
    if minus_first.is_some() && minus_after.is_some() {
        // `--5`, `-$-5`.
        return None;
    }
    let negative = minus_first.is_some() || minus_after.is_some();
    let body = minus_after.unwrap_or(t);
    let sign = if negative { "-" } else { "" };
    if let Some(amount) = decimal_comma(body, sign) {
        return Some((Num::text(amount, false), currency));
    }
    // Apostrophes group in threes as commas do (`1'234.50`), where no
    // comma is written.
    let body: std::borrow::Cow<'_, str> = if body.contains(APOSTROPHES) && !body.contains(',') {
        body.replace(APOSTROPHES, ",").into()
    } else {
        body.into()
    };
    let body = body.as_ref();
    if !body.bytes().all(|b| b.is_ascii_digit() || b == b',' || b == b'.') {
        return None;
    }
    let (int, frac) = match body.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (body, None),
    };
    let digits = |x: &str| !x.is_empty() && x.bytes().all(|b| b.is_ascii_digit());
    let grouped = {
        let groups: Vec<&str> = int.split(',').collect();
        let last = groups.len() - 1;
        // In threes (`1,234,567`), or in the Indian way: threes at the
        // end, pairs before (`12,34,567`).
        let threes = groups[0].len() <= 3 && groups[1..].iter().all(|g| g.len() == 3);
        let indian = groups.len() > 2
            && groups[0].len() <= 2
            && groups[1..last].iter().all(|g| g.len() == 2)
            && groups[last].len() == 3;
        groups.len() > 1 && groups.iter().all(|g| digits(g)) && (threes || indian)
    };
    if !(digits(int) || grouped) || frac.is_some_and(|f| !digits(f)) {
        return None;
    }
    // `007` or `0,123`: digits after a leading zero make an identifier (or
    // a decimal comma), not a number.
    if int.len() > 1 && int.starts_with('0') {
        return None;
    }
    let signed = format!("{sign}{}", body.replace(',', ""));
    let whole = frac.is_none();
    parse_number_string(&signed, '.').map(|amount| (Num::text(amount, whole), currency))
}

/// The minus signs: `-` and U+2212 MINUS SIGN.
const MINUS: [char; 2] = ['-', '\u{2212}'];

/// Apostrophes that group digits: `'` and U+2019 RIGHT SINGLE QUOTATION
/// MARK (Swiss `1'234.50`, `1’234.50`).
const APOSTROPHES: [char; 2] = ['\'', '\u{2019}'];

/// `body` (unsigned, without currency) read with a decimal comma when
/// grouping by another separator comes before it (`1.234,50`,
/// `1 234,50`, with a no-break or narrow no-break space too): its only
/// reading. A comma with no other separator (`1,5`, `1,234`) is `None`.
fn decimal_comma(body: &str, sign: &str) -> Option<Amount> {
    let (int, frac) = body.split_once(',')?;
    if frac.is_empty() || !frac.bytes().all(|b| b.is_ascii_digit()) || int.starts_with('0') {
        return None;
    }
    let sep = int.chars().find(|c| !c.is_ascii_digit())?;
    if !is_group_separator(sep, ',') {
        return None;
    }
    // The grammar checks that the groups are whole and of one separator.
    parse_number_string(&format!("{sign}{body}"), ',')
}

/// A date in a form with one reading: numeric `A/B/YYYY`, `A-B-YYYY` and
/// `A.B.YYYY` read as a date only when one of day-first and month-first
/// is a valid date or both give the same date.
pub(super) fn calendar(s: &str) -> Result<DateTime, DateError> {
    let t = s.trim();
    // Every accepted form has a year of four digits, with no digit beside
    // it: most texts are refused here, without being split into parts.
    if !has_four_digit_run(t) {
        return Err(DateError::Unrecognised);
    }
    let mut parts = t.split(['/', '-', '.']);
    let digits = |p: &str, n: std::ops::RangeInclusive<usize>| {
        n.contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit())
    };
    if let (Some(d), Some(m), Some(y), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
        && digits(d, 1..=2)
        && digits(m, 1..=2)
        && digits(y, 4..=4)
    {
        let slashed = format!("{d}/{m}/{y}");
        return match (
            parse_date(&slashed, DayMonth::DayFirst),
            parse_date(&slashed, DayMonth::MonthFirst),
        ) {
            (Ok(p), Ok(q)) if p == q => Ok(p),
            (Ok(_), Ok(_)) => Err(DateError::Ambiguous),
            (Ok(p), Err(_)) | (Err(_), Ok(p)) => Ok(p),
            (Err(e), Err(_)) => Err(e),
        };
    }
    parse_date(t, DayMonth::Reject)
}

/// Whether `t` holds a run of exactly four ASCII digits (a year).
fn has_four_digit_run(t: &str) -> bool {
    let mut run = 0;
    for b in t.bytes() {
        if b.is_ascii_digit() {
            run += 1;
        } else if run == 4 {
            return true;
        } else {
            run = 0;
        }
    }
    run == 4
}

/// The same date and time of day (a date alone is midnight); the same
/// instant when both have a UTC offset.
fn same_moment(p: &DateTime, q: &DateTime) -> bool {
    if let (Some(i), Some(j)) = (p.instant(), q.instant()) {
        return i == j;
    }
    let midnight = super::TimeOfDay { hour: 0, minute: 0, second: 0, nanosecond: 0 };
    p.date == q.date && p.time.unwrap_or(midnight) == q.time.unwrap_or(midnight)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detail::Outcome;
    use serde_json::json;

    #[test]
    fn a_year_is_a_run_of_four_digits() {
        for (t, year) in [
            ("2024-03-05", true),
            ("5 March 2024", true),
            ("03/05/2024", true),
            ("x2024", true),
            ("TNR-76214", false),
            ("box of 100", false),
            ("Q3", false),
            ("12345", false),
            ("123", false),
            ("", false),
        ] {
            assert_eq!(has_four_digit_run(t), year, "{t:?}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]

        /// No text is read as a date, in any form, without a year of four
        /// digits: refusing those first changes no reading.
        #[test]
        fn no_date_is_read_without_a_four_digit_year(
            t in "(Tue,? )?[0-9]{1,5}(th)?( of)?[-/. ,]{1,2}(Mar\\.?|March|märz|[0-9]{1,5})[-/. ,]{1,2}[0-9]{1,5}([T ][0-9]{2}:[0-9]{2}(:[0-9]{2})?Z?)?"
        ) {
            let read = calendar_unfiltered(&t).is_ok()
                || [DayMonth::DayFirst, DayMonth::MonthFirst]
                    .into_iter()
                    .any(|p| super::super::date::parse_date(&t, p).is_ok());
            if read {
                proptest::prop_assert!(has_four_digit_run(&t), "{:?}", t);
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]

        /// Every text read as a number could be one: refusing the others
        /// first changes no reading. (The percent and parenthesised forms
        /// read their inside with `plain_number`, adding no letter.)
        #[test]
        fn no_number_is_read_that_could_not_be_one(
            t in "[-\u{2212}]?(EUR|USD|eur|Eur|\\$|€)? ?[0-9]{1,4}([.,' \u{a0}][0-9]{1,3}){0,3}(e[0-9]|E3)? ?(USD|EUR|CHFX|usd|k)?"
        ) {
            if plain_number(&t).is_some() {
                proptest::prop_assert!(could_be_a_number(&t), "{:?}", t);
            }
        }
    }

    /// [`calendar`] without its first refusal.
    fn calendar_unfiltered(t: &str) -> Result<DateTime, DateError> {
        parse_date(t.trim(), DayMonth::Reject)
    }

    fn cmp(e: Value, a: Value) -> Checked {
        compare(&e, &a, &[])
    }

    #[test]
    fn different_integers_are_wrong_not_partial() {
        let wrong = [
            (json!(84712), json!(84721)),
            (json!(2023), json!(2024)),
            (json!("94105"), json!("94107")),
            (json!("100243"), json!("100234")),
            (json!(84712), json!("84,721")),
            (json!("$1,000"), json!(1001)),
            (json!(9_007_199_254_740_992_u64), json!("9,007,199,254,740,993")),
        ];
        for (e, a) in wrong {
            assert_eq!(cmp(e.clone(), a.clone()), Leaf::WRONG.into(), "{e} vs {a}");
        }
        // A fraction on either side keeps the partial credit.
        let partial = [
            (json!(100.5), json!(100)),
            (json!(100), json!("100.50")),
            (json!("1,234.50"), json!("1,234.51")),
            (json!(1000), json!("1.000,50")),
        ];
        for (e, a) in partial {
            let got = cmp(e.clone(), a.clone()).leaf;
            assert_eq!(got.outcome, Outcome::Partial, "{e} vs {a}: {got:?}");
        }
    }

    #[test]
    fn one_reading_is_no_error() {
        use Normalization::*;
        let cases = [
            (json!(1234.5), json!("1,234.50"), NumberAsText),
            (json!(1234.5), json!(" $1,234.50 "), NumberAsText),
            (json!(1234.5), json!("USD 1234.5"), NumberAsText),
            (json!("1,234.50"), json!("1234.5"), NumberAsText),
            (json!(30), json!("30"), NumberAsText),
            (json!(0), json!("0"), NumberAsText),
            (json!(0.5), json!("$0.50"), NumberAsText),
            (json!(-0.25), json!("-0.25"), NumberAsText),
            (json!(-5), json!("-$5"), NumberAsText),
            (json!(-5), json!("$-5"), NumberAsText),
            (json!(-1234.5), json!("-USD 1,234.50"), NumberAsText),
            (json!("2024-03-05"), json!("March 5, 2024"), CalendarDate),
            (json!("2024-03-05"), json!("5 Mar 2024"), CalendarDate),
            (json!("2024-03-05"), json!("05-Mar-2024"), CalendarDate),
            (json!("2024-03-05"), json!("Tuesday, March 5, 2024"), CalendarDate),
            (json!("2024-03-05"), json!("2024-03-05T00:00:00"), CalendarDate),
            (json!("2024-03-05"), json!("2024/03/05"), CalendarDate),
            (json!("2024-03-13"), json!("13/03/2024"), CalendarDate),
            (json!("ACME"), json!("  ACME "), Trimmed),
            (json!("Acme Corp"), json!("ACME   corp"), FreeText),
            (
                json!("Patient has no history of Type 2 Diabetes. Currently stable."),
                json!("patient has no history of type 2 diabetes.  Currently  stable."),
                FreeText,
            ),
            (json!(-150), json!("\u{2212}150.00"), NumberAsText),
            (json!(-150), json!("\u{2212}$150"), NumberAsText),
            (json!(1234.5), json!("1.234,50"), NumberAsText),
            (json!(1234.5), json!("\u{20ac}1.234,50"), NumberAsText),
            (json!(1234.5), json!("1.234,50 EUR"), NumberAsText),
            (json!(1234.5), json!("1 234,50"), NumberAsText),
            (json!(1234.5), json!("1\u{a0}234,50"), NumberAsText),
            (json!(1234.5), json!("1\u{202f}234,50 \u{20ac}"), NumberAsText),
            (json!(-1_234_567.5), json!("-1.234.567,50"), NumberAsText),
            (json!("1,234.50"), json!("1.234,50"), NumberAsText),
            (json!(true), json!("true"), BoolAsText),
            (json!(true), json!(" True "), BoolAsText),
            (json!("FALSE"), json!(false), BoolAsText),
            (json!(true), json!("Yes"), BoolAsText),
            (json!(" no "), json!(false), BoolAsText),
            (json!("Mari\u{301}a"), json!("María"), Unicode),
            (json!("USB-C"), json!("\u{ff35}\u{ff33}\u{ff22}-\u{ff23}"), Unicode),
            (json!(12.99), json!("\u{ff11}\u{ff12}.\u{ff19}\u{ff19}"), NumberAsText),
            (json!(-1234.5), json!("(1.234,50)"), NumberAsText),
            (json!(-150), json!("(150.00)"), NumberAsText),
            (json!(-150), json!("($150.00)"), NumberAsText),
            (json!(1_234_567), json!("\u{20b9}12,34,567.00"), NumberAsText),
            (json!(123_456), json!("1,23,456"), NumberAsText),
            (json!(1234.5), json!("1'234.50"), NumberAsText),
            (json!(1234.5), json!("CHF 1\u{2019}234.50"), NumberAsText),
            (json!(0.19), json!("19%"), Percent),
            (json!(0.19), json!(" 19.0 %"), Percent),
            (json!(-0.005), json!("-0.5%"), Percent),
            (json!(0.1234), json!("12.34%"), Percent),
            (json!("19%"), json!("0.19"), Percent),
            (json!("INV-001"), json!("inv-001"), LetterCase),
            (json!("EUR"), json!("eur"), LetterCase),
            (json!("González"), json!("GONZÁLEZ"), LetterCase),
            (json!("ana@example.com"), json!("Ana@Example.com"), LetterCase),
            (json!("Acme Corp"), json!("Acme Corp."), Spacing),
            (json!("72 kg"), json!("72kg"), Spacing),
            (json!("SW1A 2AA"), json!("SW1A2AA"), Spacing),
            (json!("45g"), json!("45 g"), Spacing),
            (json!("<0.5"), json!("< 0.5"), Spacing),
            (json!("DE89370400440532013000"), json!("DE89 3704 0044 0532 0130 00"), Grouping),
            (json!("123-45-6789"), json!("123456789"), Grouping),
            (json!("+1 555 010 2000"), json!("+1 (555) 010-2000"), Grouping),
            (json!("+1 555 010 2000"), json!("+15550102000"), Grouping),
            (json!("DE89370400440532013000"), json!("de89 3704 0044 0532 0130 00"), Grouping),
        ];
        for (e, a, n) in cases {
            assert_eq!(cmp(e.clone(), a.clone()), noted(n), "{e} vs {a}");
        }
    }

    #[test]
    fn every_value_difference_counts() {
        let cases = [
            (json!(1234.5), json!("1,234.51")),
            (json!("INV-001"), json!("INV-002")),
            (json!("2024-03-05"), json!("March 6, 2024")),
            (json!("2024-03-05"), json!("2024-03-05T10:00:00")),
            (json!("2024-03-05"), json!("03/05/2024")),
            (json!("2024-03-05"), json!("05.03.2024")),
            (json!("007"), json!("7")),
            (json!(7), json!("007")),
            (json!("007"), json!(7)),
            (json!(-7), json!("-007")),
            (json!(7), json!("$007")),
            (json!(123), json!("0,123")),
            (json!(-5), json!("-$-5")),
            (json!(5), json!("--5")),
            (json!(-5), json!("- 5")),
            (json!(9_007_199_254_740_992_u64), json!("9,007,199,254,740,993")),
            (json!("9,007,199,254,740,992"), json!("9007199254740993")),
            (json!(1e20), json!("100000000000000000001")),
            (json!(12.5), json!("12.5%")),
            (json!(12), json!("(12)")),
            (json!(true), json!("false")),
            (json!(false), json!("TRUE")),
            (json!(true), json!("no")),
            (json!(false), json!("YES")),
            (json!(true), json!("1")),
            (json!(true), json!("y")),
            (json!("yes"), json!("true")),
            (json!("m\u{b2}"), json!("m2")),
            (json!("\u{fb01}le"), json!("file")),
            (json!("Maria"), json!("Mari\u{301}a")),
            (json!("EIN 123456789"), json!("EIM 123456789")),
            (json!("TNR-12345"), json!("TMR-12345")),
            (json!("$5"), json!("5 EUR")),
            (json!(1.5), json!("1,5")),
            (json!(1234), json!("1,234.00,5")),
            (json!(1234.5), json!("1.234,5.0")),
            (json!(12.345), json!("12.34,5")),
            (json!(0.1235), json!("0.123,5")),
            (json!(12.5), json!("1.234,50%")),
            (json!(-150), json!("\u{2212}-150")),
            (json!(1234), json!("12,34")),
            (json!(12.5), json!("12.5%")),
            (json!(19), json!("19%")),
            (json!(0.19), json!("0.19%")),
            (json!(150), json!("(150)")),
            (json!(-150), json!("(-150)")),
            (json!(0.19), json!("$19%")),
            (json!(1234), json!("1,2,34")),
            (json!(1234567), json!("1,234,56,7")),
            (json!(1234.5), json!("1'23.50")),
            (json!("100 MB/s"), json!("100 Mb/s")),
            (json!("5 MW"), json!("5 mW")),
            (json!("mg/dL"), json!("Mg/dL")),
            (json!("1 2"), json!("12")),
            (json!("192.168.1.10"), json!("192.168.11.0")),
            (json!("+1 555 010 2000"), json!("555 010 2000")),
            (json!("Acme Corp"), json!("Acme Corp..")),
        ];
        for (e, a) in cases {
            let got = cmp(e.clone(), a.clone());
            assert_ne!(got.leaf.outcome, Outcome::Match, "{e} vs {a}: {got:?}");
        }
        // A different boolean written as text is a wrong value, a word
        // that is no boolean a wrong type.
        assert_eq!(cmp(json!(true), json!("False")).leaf, Leaf::WRONG);
        assert_eq!(cmp(json!(true), json!("no")).leaf, Leaf::WRONG);
        assert_eq!(cmp(json!(true), json!("sure")).leaf, Leaf::TYPE);
        let amb = cmp(json!("2024-03-05"), json!("03/05/2024"));
        assert_eq!(amb.note, Some(Note::AmbiguousDate(super::super::Side::Actual)));
    }
}
