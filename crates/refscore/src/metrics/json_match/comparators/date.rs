//! The `date` comparator: ISO 8601 and common written date forms.

use chrono::Datelike;
use serde_json::Value;

pub use super::date_parse::parse_date;
use super::{Checked, Normalizer, Note, Side, as_text, exact};
use crate::engine::Leaf;

/// How to read a numeric date whose first two fields could each be the
/// day or the month (`03/04/2024`, `03-04-2024`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum DayMonth {
    /// `03/04/2024` is 3 April.
    DayFirst,
    /// `03/04/2024` is 4 March.
    MonthFirst,
    /// `03/04/2024` is not read as a date (compared as text).
    #[default]
    Reject,
}

impl DayMonth {
    /// `"day_first"`, `"month_first"` or `"reject"`.
    pub fn name(self) -> &'static str {
        match self {
            DayMonth::DayFirst => "day_first",
            DayMonth::MonthFirst => "month_first",
            DayMonth::Reject => "reject",
        }
    }

    /// The policy called `name`.
    pub fn from_name(name: &str) -> Option<DayMonth> {
        [DayMonth::DayFirst, DayMonth::MonthFirst, DayMonth::Reject]
            .into_iter()
            .find(|d| d.name() == name)
    }
}

/// A valid proleptic Gregorian date with a year from 1 to 9999.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CalendarDate {
    /// 1..=9999.
    pub year: u16,
    /// 1..=12.
    pub month: u8,
    /// 1..=31, valid for the month.
    pub day: u8,
}

impl CalendarDate {
    /// The date, when it exists (`2024-02-29` does, `2023-02-29` does not).
    pub fn new(year: u32, month: u32, day: u32) -> Option<CalendarDate> {
        if !(1..=9999).contains(&year) {
            return None;
        }
        let d = chrono::NaiveDate::from_ymd_opt(i32::try_from(year).ok()?, month, day)?;
        Some(CalendarDate {
            year: u16::try_from(d.year()).ok()?,
            month: u8::try_from(d.month()).ok()?,
            day: u8::try_from(d.day()).ok()?,
        })
    }

    fn naive(self) -> chrono::NaiveDate {
        chrono::NaiveDate::from_ymd_opt(
            i32::from(self.year),
            u32::from(self.month),
            u32::from(self.day),
        )
        .unwrap_or_default()
    }

    /// Days since 1970-01-01 (negative before).
    pub fn days_since_epoch(self) -> i64 {
        self.naive().signed_duration_since(chrono::NaiveDate::default()).num_days()
    }

    /// Day of the week, 0 = Monday … 6 = Sunday.
    pub fn weekday(self) -> u8 {
        u8::try_from(self.naive().weekday().num_days_from_monday()).unwrap_or(0)
    }
}

/// A time of day.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TimeOfDay {
    /// 0..=23.
    pub hour: u8,
    /// 0..=59.
    pub minute: u8,
    /// 0..=59 (leap seconds are not accepted).
    pub second: u8,
    /// Fraction of the second; digits beyond the ninth are dropped.
    pub nanosecond: u32,
}

/// A date, possibly with a time of day and a UTC offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DateTime {
    /// The calendar date as written.
    pub date: CalendarDate,
    /// The time of day as written, if any.
    pub time: Option<TimeOfDay>,
    /// The UTC offset in minutes (`Z` is 0), if any.
    pub offset_minutes: Option<i16>,
}

impl DateTime {
    /// Seconds and nanoseconds since 1970-01-01T00:00:00Z, for a datetime
    /// with an offset.
    pub(super) fn instant(&self) -> Option<(i64, u32)> {
        let (t, off) = (self.time?, self.offset_minutes?);
        let secs = self.date.days_since_epoch() * 86_400
            + i64::from(t.hour) * 3600
            + i64::from(t.minute) * 60
            + i64::from(t.second)
            - i64::from(off) * 60;
        Some((secs, t.nanosecond))
    }
}

/// Why a string is not a date.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
pub enum DateError {
    /// Not in an accepted form, or not a real date or time.
    #[error("not a date in an accepted form")]
    Unrecognised,
    /// A numeric date whose day and month could be swapped, under
    /// [`DayMonth::Reject`].
    #[error("ambiguous day and month")]
    Ambiguous,
    /// A written date whose weekday name disagrees with the date.
    #[error("weekday does not match the date")]
    WrongWeekday,
}

/// Two date strings compared as dates; other values as `exact` does.
pub(super) fn compare(
    e: &Value,
    a: &Value,
    normalizers: &[Normalizer],
    day_month: DayMonth,
) -> Checked {
    let (Value::String(x), Value::String(y)) = (e, a) else {
        return exact::compare(e, a, normalizers).into();
    };
    match (parse_date(x, day_month), parse_date(y, day_month)) {
        (Ok(p), Ok(q)) => same(&p, &q),
        (pe, pa) => {
            let side = Side::of(pe.is_err(), pa.is_err()).unwrap_or(Side::Both);
            let ambiguous =
                [pe.err(), pa.err()].into_iter().flatten().all(|err| err == DateError::Ambiguous);
            let note = if ambiguous { Note::AmbiguousDate(side) } else { Note::NotADate(side) };
            as_text(x, y, normalizers, note)
        }
    }
}

/// A reference date without a time matches any output on that calendar
/// date; a reference with a time needs one in the output: the same
/// instant when both have offsets, else the same date and time as written.
fn same(e: &DateTime, a: &DateTime) -> Checked {
    match (e.time, a.time) {
        (None, _) => Leaf::exact(e.date == a.date).into(),
        (Some(_), None) => Checked { leaf: Leaf::WRONG, note: Some(Note::MissingTime) },
        (Some(te), Some(ta)) => match (e.instant(), a.instant()) {
            (Some(i), Some(j)) => Leaf::exact(i == j).into(),
            _ => Leaf::exact(e.date == a.date && te == ta).into(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cmp(e: &str, a: &str, policy: DayMonth) -> Checked {
        compare(&json!(e), &json!(a), &[], policy)
    }

    #[test]
    fn same_dates() {
        let matches: &[(&str, &str)] = &[
            ("2024-03-05", "March 5, 2024"),
            ("2024-03-05", "5 Mar 2024"),
            ("2024-03-05", "05.03.2024"),
            ("2024-03-05", "2024/3/5"),
            ("2024-03-05", "2024-03-05T23:59:59+14:00"),
            ("2024-03-05", "2024-03-05 00:00"),
            ("2024-03-05T10:00:00Z", "2024-03-05T11:00:00+01:00"),
            ("2024-03-05T23:30:00-01:00", "2024-03-06T00:30:00Z"),
            ("2024-03-05T10:00:00", "2024-03-05T10:00"),
            ("2024-03-05T10:00:00", "2024-03-05T10:00:00+09:00"),
            ("2024-03-05T10:00:00.5Z", "2024-03-05T10:00:00.500Z"),
        ];
        for (e, a) in matches {
            assert_eq!(cmp(e, a, DayMonth::Reject), Leaf::MATCH.into(), "{e} vs {a}");
        }
    }

    #[test]
    fn different_dates() {
        let wrong: &[(&str, &str)] = &[
            ("2024-03-05", "2024-03-06"),
            ("2024-03-05", "2024-05-03"),
            ("2024-03-05T10:00:00Z", "2024-03-05T10:00:00+01:00"),
            ("2024-03-05T10:00:00", "2024-03-05T10:00:01"),
            ("2024-03-05T10:00:00Z", "2024-03-05T10:00:00.000000001Z"),
        ];
        for (e, a) in wrong {
            assert_eq!(cmp(e, a, DayMonth::Reject), Leaf::WRONG.into(), "{e} vs {a}");
        }
        let missing = cmp("2024-03-05T10:00:00Z", "2024-03-05", DayMonth::Reject);
        assert_eq!(missing, Checked { leaf: Leaf::WRONG, note: Some(Note::MissingTime) });
    }

    #[test]
    fn policy_and_fallback() {
        assert_eq!(cmp("2024-04-03", "03/04/2024", DayMonth::DayFirst).leaf, Leaf::MATCH);
        assert_eq!(cmp("2024-03-04", "03/04/2024", DayMonth::MonthFirst).leaf, Leaf::MATCH);
        let amb = cmp("2024-04-03", "03/04/2024", DayMonth::Reject);
        assert_eq!(
            amb,
            Checked { leaf: Leaf::WRONG, note: Some(Note::AmbiguousDate(Side::Actual)) }
        );
        let both = cmp("03/04/2024", "03/04/2024", DayMonth::Reject);
        assert_eq!(
            both,
            Checked { leaf: Leaf::MATCH, note: Some(Note::AmbiguousDate(Side::Both)) }
        );
        let bad = cmp("2024-02-30", "2024-02-30", DayMonth::Reject);
        assert_eq!(bad, Checked { leaf: Leaf::MATCH, note: Some(Note::NotADate(Side::Both)) });
        let bad = cmp("2024-02-30", "2024-03-01", DayMonth::Reject);
        assert_eq!(bad, Checked { leaf: Leaf::WRONG, note: Some(Note::NotADate(Side::Expected)) });
        let mixed = cmp("soon", "03/04/2024", DayMonth::Reject);
        assert_eq!(mixed.note, Some(Note::NotADate(Side::Both)));
        let n = [Normalizer::Casefold];
        let text = compare(&json!("TBD"), &json!("tbd"), &n, DayMonth::Reject);
        assert_eq!(text, Checked { leaf: Leaf::MATCH, note: Some(Note::NotADate(Side::Both)) });
    }

    #[test]
    fn other_types() {
        assert_eq!(
            compare(&json!(20240305), &json!("2024-03-05"), &[], DayMonth::Reject).leaf,
            Leaf::TYPE
        );
        assert_eq!(compare(&json!(1), &json!(1.0), &[], DayMonth::Reject).leaf, Leaf::MATCH);
    }

    #[test]
    fn calendar_arithmetic() {
        let d = |y, m, dd| CalendarDate::new(y, m, dd).unwrap();
        assert_eq!(d(1970, 1, 1).days_since_epoch(), 0);
        assert_eq!(d(2000, 3, 1).days_since_epoch(), 11_017);
        assert_eq!(d(1, 1, 1).days_since_epoch(), -719_162);
        assert_eq!(d(9999, 12, 31).days_since_epoch(), 2_932_896);
        assert_eq!(d(2024, 3, 5).weekday(), 1);
        assert_eq!(d(1, 1, 1).weekday(), 0);
        assert_eq!(DayMonth::from_name("day_first"), Some(DayMonth::DayFirst));
        assert_eq!(DayMonth::from_name("dmy"), None);
        assert_eq!(DayMonth::default().name(), "reject");
    }
}
