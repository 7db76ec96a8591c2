//! A time of day written alone (`19:00`, `7:00 PM`, `7 p.m.`), for the
//! `auto` comparator: two such texts compare by the time they name.

use super::date::TimeOfDay;

/// The time of day `s` names, surrounding white space ignored:
/// - on the 24-hour clock, `H:MM` or `H:MM:SS` (hours 0–23 in one or two
///   digits, minutes and seconds in two);
/// - on the 12-hour clock, `H`, `H:MM` or `H:MM:SS` (hours 1–12; a point
///   may stand for the colon) followed by `AM` or `PM` (any letter case,
///   `a.m.`, `p.m.`, with or without a space before).
///
/// A bare number (`7`, `1900`) is not a time. `None` for anything else.
pub(super) fn time_of_day(s: &str) -> Option<TimeOfDay> {
    let t = s.trim();
    // Every form starts with a digit: most texts are refused here.
    if !t.as_bytes().first()?.is_ascii_digit() {
        return None;
    }
    let (body, half) = match twelve_hour_suffix(t) {
        Some((body, pm)) => (body.trim_end(), Some(pm)),
        None => (t, None),
    };
    let mut parts = body.split(|c| c == ':' || (half.is_some() && c == '.'));
    let hour = number(parts.next()?, 1..=2)?;
    let (minute, second) = (two_digits(parts.next())?, two_digits(parts.next())?);
    if parts.next().is_some() || minute.unwrap_or(0) > 59 || second.unwrap_or(0) > 59 {
        return None;
    }
    let hour = match half {
        Some(pm) if (1..=12).contains(&hour) => hour % 12 + if pm { 12 } else { 0 },
        None if hour <= 23 && minute.is_some() => hour,
        _ => return None,
    };
    Some(TimeOfDay {
        hour,
        minute: minute.unwrap_or(0),
        second: second.unwrap_or(0),
        nanosecond: 0,
    })
}

/// `t` without its `AM`/`PM` (`a.m.`, `p.m.`, any case); whether it was PM.
fn twelve_hour_suffix(t: &str) -> Option<(&str, bool)> {
    for (suffix, pm) in [("am", false), ("pm", true), ("a.m.", false), ("p.m.", true)] {
        let Some(cut) = t.len().checked_sub(suffix.len()) else { continue };
        if let (Some(body), Some(end)) = (t.get(..cut), t.get(cut..))
            && end.eq_ignore_ascii_case(suffix)
            && body.ends_with(|c: char| c.is_ascii_digit() || c == ' ')
        {
            return Some((body, pm));
        }
    }
    None
}

/// A minute or second part: `Some(None)` when not written, `None` when
/// written but not two digits.
fn two_digits(part: Option<&str>) -> Option<Option<u8>> {
    match part {
        None => Some(None),
        Some(p) => number(p, 2..=2).map(Some),
    }
}

/// Decimal digits, as many as `len` allows.
fn number(p: &str, len: std::ops::RangeInclusive<usize>) -> Option<u8> {
    (len.contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit())).then(|| p.parse().ok())?
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hms(s: &str) -> Option<(u8, u8, u8)> {
        time_of_day(s).map(|t| (t.hour, t.minute, t.second))
    }

    #[test]
    fn times_of_day_on_either_clock() {
        for (s, want) in [
            ("19:00", (19, 0, 0)),
            (" 7:00 PM ", (19, 0, 0)),
            ("7pm", (19, 0, 0)),
            ("7 p.m.", (19, 0, 0)),
            ("7.30 pm", (19, 30, 0)),
            ("12:00 AM", (0, 0, 0)),
            ("12 pm", (12, 0, 0)),
            ("00:05", (0, 5, 0)),
            ("23:59:59", (23, 59, 59)),
            ("9:05:07 am", (9, 5, 7)),
        ] {
            assert_eq!(hms(s), Some(want), "{s}");
        }
        for s in [
            "7",
            "1900",
            "24:00",
            "13 PM",
            "0 AM",
            "7:5",
            "7:60",
            "19.00",
            "7:00:00:00",
            "7:00 PX",
            "pm",
            "am 7",
            "7:00 spam",
            "-7:00",
            "7:00Z",
            "",
        ] {
            assert_eq!(hms(s), None, "{s}");
        }
    }
}
