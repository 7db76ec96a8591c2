//! Parsing the date forms the `date` comparator accepts.

use super::date::{CalendarDate, DateError, DateTime, DayMonth, TimeOfDay};

/// Parses one date or datetime (see `docs/json_match.md` (Comparators and normalizers) for
/// the accepted forms). Surrounding white space is ignored.
pub fn parse_date(s: &str, day_month: DayMonth) -> Result<DateTime, DateError> {
    let t = s.trim();
    if let Some(dt) = iso(t.as_bytes()) {
        return Ok(dt);
    }
    let date = if t.bytes().any(|b| b.is_ascii_alphabetic()) {
        written(t)?
    } else {
        numeric(t, day_month)?
    };
    Ok(DateTime { date, time: None, offset_minutes: None })
}

/// A byte cursor.
struct Cur<'a> {
    b: &'a [u8],
    i: usize,
}

impl Cur<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn eat(&mut self, c: u8) -> bool {
        let hit = self.peek() == Some(c);
        self.i += usize::from(hit);
        hit
    }

    /// Exactly `n` ASCII digits.
    fn num(&mut self, n: usize) -> Option<u32> {
        let digits = self.b.get(self.i..self.i + n)?;
        if !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        self.i += n;
        Some(digits.iter().fold(0, |acc, d| acc * 10 + u32::from(d - b'0')))
    }
}

/// `YYYY-MM-DD`, optionally `T`/space, `hh:mm[:ss[.f…]]`, `Z`/`±hh[:mm]`.
fn iso(b: &[u8]) -> Option<DateTime> {
    let mut c = Cur { b, i: 0 };
    let y = c.num(4)?;
    let m = c.eat(b'-').then(|| c.num(2))??;
    let d = c.eat(b'-').then(|| c.num(2))??;
    let date = CalendarDate::new(y, m, d)?;
    if c.peek().is_none() {
        return Some(DateTime { date, time: None, offset_minutes: None });
    }
    if !(c.eat(b'T') || c.eat(b't') || c.eat(b' ')) {
        return None;
    }
    let hour = c.num(2)?;
    let minute = c.eat(b':').then(|| c.num(2))??;
    let (mut second, mut nanosecond) = (0, 0);
    if c.eat(b':') {
        second = c.num(2)?;
        if c.eat(b'.') || c.eat(b',') {
            let start = c.i;
            while c.peek().is_some_and(|x| x.is_ascii_digit()) {
                if c.i - start < 9 {
                    nanosecond = nanosecond * 10 + u32::from(c.peek()? - b'0');
                }
                c.i += 1;
            }
            let n = c.i - start;
            if n == 0 {
                return None;
            }
            nanosecond *= 10u32.pow(9u32.saturating_sub(u32::try_from(n).ok()?));
        }
    }
    if hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    let offset_minutes = match c.peek() {
        None => None,
        Some(b'Z' | b'z') => {
            c.i += 1;
            Some(0)
        }
        Some(sign @ (b'+' | b'-')) => {
            c.i += 1;
            let oh = c.num(2)?;
            let colon = c.eat(b':');
            let om = if colon || c.peek().is_some() { c.num(2)? } else { 0 };
            if oh > 23 || om > 59 {
                return None;
            }
            let mins = i16::try_from(oh * 60 + om).ok()?;
            Some(if sign == b'-' { -mins } else { mins })
        }
        Some(_) => return None,
    };
    if c.peek().is_some() {
        return None;
    }
    let time = TimeOfDay {
        hour: u8::try_from(hour).ok()?,
        minute: u8::try_from(minute).ok()?,
        second: u8::try_from(second).ok()?,
        nanosecond,
    };
    Some(DateTime { date, time: Some(time), offset_minutes })
}

/// `Y/M/D` with a 4-digit year first, or `A/B/Y` with a 4-digit year last;
/// separators `/`, `-` or `.` (the same twice). `A.B.Y` is day first.
fn numeric(t: &str, day_month: DayMonth) -> Result<CalendarDate, DateError> {
    const BAD: DateError = DateError::Unrecognised;
    let sep = t.chars().find(|c| matches!(c, '/' | '-' | '.')).ok_or(BAD)?;
    let parts: Vec<&str> = t.split(sep).collect();
    let [p, q, r] = parts.as_slice() else { return Err(BAD) };
    let field = |s: &str, lens: std::ops::RangeInclusive<usize>| {
        (lens.contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<u32>().ok())
            .flatten()
    };
    if let (Some(y), Some(m), Some(d)) = (field(p, 4..=4), field(q, 1..=2), field(r, 1..=2)) {
        return CalendarDate::new(y, m, d).ok_or(BAD);
    }
    let (a, b, y) = match (field(p, 1..=2), field(q, 1..=2), field(r, 4..=4)) {
        (Some(a), Some(b), Some(y)) => (a, b, y),
        _ => return Err(BAD),
    };
    let day_first = CalendarDate::new(y, b, a);
    if sep == '.' {
        return day_first.ok_or(BAD);
    }
    match (day_first, CalendarDate::new(y, a, b)) {
        (Some(x), Some(y)) if x == y => Ok(x),
        (Some(x), Some(y)) => match day_month {
            DayMonth::DayFirst => Ok(x),
            DayMonth::MonthFirst => Ok(y),
            DayMonth::Reject => Err(DateError::Ambiguous),
        },
        (Some(x), None) | (None, Some(x)) => Ok(x),
        (None, None) => Err(BAD),
    }
}

const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

const WEEKDAYS: [&str; 7] =
    ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];

/// Full month names in German, French, Spanish, Italian, Portuguese and
/// Dutch, in small letters, with and without their accents (`März`,
/// `Marz`, `Maerz`), by month (1–12); those written as in English
/// (`April`, `August`) are English names already. No name means two
/// months; shortened names could (`jui`: `juin`, `juillet`), so only
/// English names are taken shortened.
const OTHER_MONTHS: &[(&str, u32)] = &[
    ("januar", 1),
    ("janvier", 1),
    ("enero", 1),
    ("gennaio", 1),
    ("janeiro", 1),
    ("januari", 1),
    ("februar", 2),
    ("février", 2),
    ("fevrier", 2),
    ("febrero", 2),
    ("febbraio", 2),
    ("fevereiro", 2),
    ("februari", 2),
    ("märz", 3),
    ("marz", 3),
    ("maerz", 3),
    ("mars", 3),
    ("marzo", 3),
    ("março", 3),
    ("marco", 3),
    ("maart", 3),
    ("avril", 4),
    ("abril", 4),
    ("aprile", 4),
    ("mai", 5),
    ("mayo", 5),
    ("maggio", 5),
    ("maio", 5),
    ("mei", 5),
    ("juni", 6),
    ("juin", 6),
    ("junio", 6),
    ("giugno", 6),
    ("junho", 6),
    ("juli", 7),
    ("juillet", 7),
    ("julio", 7),
    ("luglio", 7),
    ("julho", 7),
    ("août", 8),
    ("aout", 8),
    ("agosto", 8),
    ("augustus", 8),
    ("septembre", 9),
    ("septiembre", 9),
    ("setiembre", 9),
    ("settembre", 9),
    ("setembro", 9),
    ("oktober", 10),
    ("octobre", 10),
    ("octubre", 10),
    ("ottobre", 10),
    ("outubro", 10),
    ("novembre", 11),
    ("noviembre", 11),
    ("novembro", 11),
    ("dezember", 12),
    ("décembre", 12),
    ("decembre", 12),
    ("diciembre", 12),
    ("dicembre", 12),
    ("dezembro", 12),
];

/// A full English name or its first three letters (`Sept` too), any case.
fn name_index(token: &str, names: &[&str]) -> Option<usize> {
    let t = token.to_ascii_lowercase();
    names.iter().position(|n| {
        *n == t || (t.len() == 3 && n.starts_with(&t)) || t == "sept" && *n == "september"
    })
}

/// The month a token names (1–12): English as [`name_index`] takes it, or
/// a full name of [`OTHER_MONTHS`] in any case.
fn month_number(token: &str) -> Option<u32> {
    if let Some(i) = name_index(token, &MONTHS) {
        return u32::try_from(i + 1).ok();
    }
    if !token.chars().all(char::is_alphabetic) {
        return None;
    }
    let t = token.to_lowercase();
    OTHER_MONTHS.iter().find(|(n, _)| *n == t).map(|&(_, m)| m)
}

/// Words a written date may hold that say nothing of it: `5th of March`,
/// `5 de marzo de 2024`, `le 5 mars 2024`.
fn filler(token: &str) -> bool {
    ["of", "de", "del", "le", "der", "den"].iter().any(|w| token.eq_ignore_ascii_case(w))
}

/// A day number with an optional ordinal suffix (`5`, `05`, `5th`, `1st`,
/// and the French `1er`).
fn day_number(token: &str) -> Option<u32> {
    let lower = token.to_ascii_lowercase();
    if lower == "1er" {
        return Some(1);
    }
    let digits =
        ["st", "nd", "rd", "th"].iter().find_map(|s| lower.strip_suffix(s)).unwrap_or(&lower);
    if !(1..=2).contains(&digits.len()) || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

fn year_number(token: &str) -> Option<u32> {
    (token.len() == 4 && token.bytes().all(|b| b.is_ascii_digit())).then(|| token.parse().ok())?
}

/// Month-name forms, with an optional leading English weekday:
/// `March 5, 2024`, `5 March 2024`, `5th of Mar. 2024`, `05-Mar-2024`,
/// `2024 March 5`, `Tue, 5 Mar 2024`, and with a full month name in
/// another language ([`OTHER_MONTHS`]): `5. März 2024`, `5 de marzo de
/// 2024`, `le 5 mars 2024`.
fn written(t: &str) -> Result<CalendarDate, DateError> {
    const BAD: DateError = DateError::Unrecognised;
    // At most four tokens (a weekday, then three), each ASCII letters and
    // digits or a word in any script (`März`): a longer text is refused
    // without reading it to the end.
    let mut tokens: Vec<&str> = Vec::with_capacity(4);
    for token in t
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | '.' | '-' | '/'))
        .filter(|s| !s.is_empty() && !filler(s))
    {
        let word = token.chars().all(char::is_alphabetic);
        if tokens.len() == 4 || !(word || token.bytes().all(|b| b.is_ascii_alphanumeric())) {
            return Err(BAD);
        }
        tokens.push(token);
    }
    let weekday = match tokens.first() {
        Some(first) if tokens.len() == 4 => {
            let w = name_index(first, &WEEKDAYS).ok_or(BAD)?;
            tokens.remove(0);
            Some(w)
        }
        _ => None,
    };
    let [p, q, r] = tokens.as_slice() else { return Err(BAD) };
    let (y, m, d) = if let (Some(m), Some(d), Some(y)) =
        (month_number(p), day_number(q), year_number(r))
    {
        (y, m, d)
    } else if let (Some(d), Some(m), Some(y)) = (day_number(p), month_number(q), year_number(r)) {
        (y, m, d)
    } else if let (Some(y), Some(m), Some(d)) = (year_number(p), month_number(q), day_number(r)) {
        (y, m, d)
    } else {
        return Err(BAD);
    };
    let date = CalendarDate::new(y, m, d).ok_or(BAD)?;
    match weekday {
        Some(w) if usize::from(date.weekday()) != w => Err(DateError::WrongWeekday),
        _ => Ok(date),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use DayMonth::*;

    fn ymd(s: &str, policy: DayMonth) -> Result<(u16, u8, u8), DateError> {
        parse_date(s, policy).map(|d| (d.date.year, d.date.month, d.date.day))
    }

    #[test]
    fn accepted_dates() {
        let cases: &[(&str, (u16, u8, u8))] = &[
            ("2024-03-05", (2024, 3, 5)),
            ("  2024-03-05\n", (2024, 3, 5)),
            ("2024-3-5", (2024, 3, 5)),
            ("2024/03/05", (2024, 3, 5)),
            ("2024.03.05", (2024, 3, 5)),
            ("5.3.2024", (2024, 3, 5)),
            ("05.03.2024", (2024, 3, 5)),
            ("13/03/2024", (2024, 3, 13)),
            ("03/13/2024", (2024, 3, 13)),
            ("03-13-2024", (2024, 3, 13)),
            ("05/05/2024", (2024, 5, 5)),
            ("March 5, 2024", (2024, 3, 5)),
            ("march 5 2024", (2024, 3, 5)),
            ("Mar 5 2024", (2024, 3, 5)),
            ("Mar. 5th, 2024", (2024, 3, 5)),
            ("Sept 1, 2024", (2024, 9, 1)),
            ("5 March 2024", (2024, 3, 5)),
            ("5th of March, 2024", (2024, 3, 5)),
            ("05-MAR-2024", (2024, 3, 5)),
            ("2024 Mar 5", (2024, 3, 5)),
            ("Tuesday, March 5, 2024", (2024, 3, 5)),
            ("Tue, 5 Mar 2024", (2024, 3, 5)),
            ("February 29, 2024", (2024, 2, 29)),
            ("5. März 2024", (2024, 3, 5)),
            ("5. MÄRZ 2024", (2024, 3, 5)),
            ("5. Maerz 2024", (2024, 3, 5)),
            ("5 de marzo de 2024", (2024, 3, 5)),
            ("5 de março de 2024", (2024, 3, 5)),
            ("le 5 mars 2024", (2024, 3, 5)),
            ("14 juillet 2024", (2024, 7, 14)),
            ("1er août 2024", (2024, 8, 1)),
            ("5 maggio 2024", (2024, 5, 5)),
            ("5 mei 2024", (2024, 5, 5)),
            ("24. Dezember 2024", (2024, 12, 24)),
            ("2024 décembre 24", (2024, 12, 24)),
            ("2000-02-29", (2000, 2, 29)),
            ("0001-01-01", (1, 1, 1)),
            ("9999-12-31", (9999, 12, 31)),
        ];
        for (s, want) in cases {
            assert_eq!(ymd(s, Reject), Ok(*want), "{s:?}");
        }
    }

    #[test]
    fn rejected_dates() {
        let cases: &[(&str, DateError)] = &[
            ("2024-02-30", DateError::Unrecognised),
            ("2023-02-29", DateError::Unrecognised),
            ("1900-02-29", DateError::Unrecognised),
            ("0000-01-01", DateError::Unrecognised),
            ("2024-13-01", DateError::Unrecognised),
            ("2024-00-10", DateError::Unrecognised),
            ("2024-01-00", DateError::Unrecognised),
            ("", DateError::Unrecognised),
            ("   ", DateError::Unrecognised),
            ("soon", DateError::Unrecognised),
            ("2024", DateError::Unrecognised),
            ("20240305", DateError::Unrecognised),
            ("05/03/24", DateError::Unrecognised),
            ("2024/03-05", DateError::Unrecognised),
            ("5.13.2024", DateError::Unrecognised),
            ("32/01/2024", DateError::Unrecognised),
            ("2024-W10-2", DateError::Unrecognised),
            ("2024-065", DateError::Unrecognised),
            ("Marchh 5, 2024", DateError::Unrecognised),
            ("5 Mär 2024", DateError::Unrecognised),
            ("5 juil 2024", DateError::Unrecognised),
            ("5 Mä 2024", DateError::Unrecognised),
            ("5. Märzz 2024", DateError::Unrecognised),
            ("31. Februar 2024", DateError::Unrecognised),
            ("5 de de 2024", DateError::Unrecognised),
            ("March 5, 2024 10:30", DateError::Unrecognised),
            ("March 32, 2024", DateError::Unrecognised),
            ("March 5", DateError::Unrecognised),
            ("03/04/2024", DateError::Ambiguous),
            ("03-04-2024", DateError::Ambiguous),
            ("Monday, March 5, 2024", DateError::WrongWeekday),
            ("Someday, March 5, 2024", DateError::Unrecognised),
            ("2024-03-05T", DateError::Unrecognised),
            ("2024-03-05T24:00:00", DateError::Unrecognised),
            ("2024-03-05T23:60", DateError::Unrecognised),
            ("2024-03-05T23:59:60", DateError::Unrecognised),
            ("2024-03-05T10", DateError::Unrecognised),
            ("2024-03-05T10:00:00.", DateError::Unrecognised),
            ("2024-03-05T10:00+1", DateError::Unrecognised),
            ("2024-03-05T10:00+24:00", DateError::Unrecognised),
            ("2024-03-05T10:00Z junk", DateError::Unrecognised),
            ("２０２４-03-05", DateError::Unrecognised),
        ];
        for (s, want) in cases {
            assert_eq!(ymd(s, Reject), Err(*want), "{s:?}");
        }
    }

    #[test]
    fn day_month_policy() {
        assert_eq!(ymd("03/04/2024", DayFirst), Ok((2024, 4, 3)));
        assert_eq!(ymd("03/04/2024", MonthFirst), Ok((2024, 3, 4)));
        assert_eq!(ymd("03-04-2024", DayFirst), Ok((2024, 4, 3)));
        // Only one reading is a date: every policy takes it.
        assert_eq!(ymd("03/13/2024", DayFirst), Ok((2024, 3, 13)));
        assert_eq!(ymd("13/03/2024", MonthFirst), Ok((2024, 3, 13)));
        // Dots are day-first whatever the policy.
        assert_eq!(ymd("03.04.2024", MonthFirst), Ok((2024, 4, 3)));
        assert_eq!(ymd("03.04.2024", Reject), Ok((2024, 4, 3)));
    }

    #[test]
    fn datetimes() {
        let dt = parse_date("2024-03-05T14:30:15.123456789123+05:30", Reject).unwrap();
        let t = dt.time.unwrap();
        assert_eq!((t.hour, t.minute, t.second, t.nanosecond), (14, 30, 15, 123_456_789));
        assert_eq!(dt.offset_minutes, Some(330));
        let dt = parse_date("2024-03-05 14:30", Reject).unwrap();
        assert_eq!(dt.time.map(|t| (t.hour, t.minute, t.second)), Some((14, 30, 0)));
        assert_eq!(dt.offset_minutes, None);
        let cases: &[(&str, Option<i16>, u32)] = &[
            ("2024-03-05T14:30:00Z", Some(0), 0),
            ("2024-03-05t14:30:00z", Some(0), 0),
            ("2024-03-05T14:30:00-08:00", Some(-480), 0),
            ("2024-03-05T14:30:00+0100", Some(60), 0),
            ("2024-03-05T14:30:00+01", Some(60), 0),
            ("2024-03-05T14:30:00,5-00:00", Some(0), 500_000_000),
            ("2024-03-05T14:30:00.05", None, 50_000_000),
        ];
        for (s, off, nanos) in cases {
            let dt = parse_date(s, Reject).unwrap();
            assert_eq!(dt.offset_minutes, *off, "{s}");
            assert_eq!(dt.time.unwrap().nanosecond, *nanos, "{s}");
        }
    }

    #[test]
    fn never_panics() {
        let long = "9".repeat(10_000);
        for s in [
            "-",
            "//",
            "..",
            "1/2/",
            "2024-",
            "2024-03-05T10:00:00.",
            long.as_str(),
            "😀 5 2024",
            "5 😀 2024",
            "\u{0}",
        ] {
            assert!(parse_date(s, DayFirst).is_err(), "{s:?}");
        }
        let many = format!("2024-03-05T10:00:00.{long}Z");
        assert_eq!(parse_date(&many, Reject).map(|d| d.time.unwrap().nanosecond), Ok(999_999_999));
    }
}
