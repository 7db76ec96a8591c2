//! Numbers and dates written in a passage.
//!
//! **Dates** are found first, in this order, each span used once:
//! ISO `2021-03-05`; numeric `05/03/2021` (day first when the first part is
//! over 12, otherwise month first); `March 5, 2021`; `5 March 2021` (also
//! `5th of March 2021`); `March 2021`; `March 5` (no year); and a bare year,
//! a four-digit number from 1500 to 2100 not followed by `%`. Month names
//! are capitalised, full or abbreviated (`Sep.`).
//!
//! **Numbers** are then read from the rest: digits with optional thousands
//! separators (`1,200,000`) and decimals (`3.5`), an optional sign, a
//! currency before (`$`, `€`, `£`, `¥`, `₹`, or `USD`/`EUR`/`GBP`/...) or a
//! currency word after (`dollars`, `euros`, `pounds`), a scale (`thousand`,
//! `million`, `billion`, `trillion`, or `k`/`m`/`bn` written against the
//! digits) and a percent sign or word. A number touching a letter (`GPT-4`,
//! `3rd`, `5G`), a time (`10:30`) or a version (`1.2.3`) is skipped.
//!
//! Digits are read as ASCII: [`super::checks::Features::of`] hands this
//! module its text with every decimal digit folded to ASCII
//! ([`crate::unicode_class::fold_digits`]), so `４５６` is read as `456`.

use std::sync::LazyLock;

use regex::Regex;

/// What a number measures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A plain count or amount.
    Plain,
    /// A percentage.
    Percent,
    /// Money in a currency (ISO code).
    Money(String),
}

/// A number as written.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Quantity {
    /// Value with the scale applied (`3.5 million` → 3,500,000).
    pub(crate) value: f64,
    /// Size of one unit in the last written digit (`3.5 million` → 100,000).
    pub(crate) unit: f64,
    /// Kind.
    pub(crate) kind: Kind,
    /// The text as written.
    pub(crate) text: String,
}

impl Quantity {
    /// Whether `other` states the same quantity: same kind (a plain number
    /// also agrees with a percentage or an amount of money of the same
    /// value) and equal values, or `other` is more precise and rounds to
    /// `self` (`3.5 million` agrees with `3,512,000`; `42%` with `42.4%`).
    pub(crate) fn agrees(&self, other: &Quantity) -> bool {
        let kinds =
            self.kind == other.kind || self.kind == Kind::Plain || other.kind == Kind::Plain;
        if !kinds {
            return false;
        }
        let diff = (self.value - other.value).abs();
        let scale = self.value.abs().max(other.value.abs()).max(1.0);
        diff <= 1e-9 * scale || (other.unit < self.unit && diff <= self.unit / 2.0 + 1e-9 * scale)
    }

    /// Whether the two state the same kind of thing (so different values
    /// disagree).
    pub(crate) fn comparable(&self, other: &Quantity) -> bool {
        self.kind == other.kind
    }
}

/// A date as written; missing parts are `None`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Date {
    /// Year.
    pub(crate) year: Option<i32>,
    /// Month, 1 to 12.
    pub(crate) month: Option<u32>,
    /// Day of month.
    pub(crate) day: Option<u32>,
    /// The text as written.
    pub(crate) text: String,
}

impl Date {
    /// Parts both dates give: (number of shared parts, whether all agree).
    fn shared(&self, other: &Date) -> (usize, bool) {
        let mut n = 0;
        let mut same = true;
        let mut cmp = |a: Option<i64>, b: Option<i64>| {
            if let (Some(a), Some(b)) = (a, b) {
                n += 1;
                same &= a == b;
            }
        };
        cmp(self.year.map(i64::from), other.year.map(i64::from));
        cmp(self.month.map(i64::from), other.month.map(i64::from));
        cmp(self.day.map(i64::from), other.day.map(i64::from));
        (n, same)
    }

    /// Whether the dates agree on every part both give (at least one).
    pub(crate) fn agrees(&self, other: &Date) -> bool {
        let (n, same) = self.shared(other);
        n > 0 && same
    }

    /// Whether the dates give a common part (so they can disagree).
    pub(crate) fn comparable(&self, other: &Date) -> bool {
        self.shared(other).0 > 0
    }

    /// A short text for tokens: `d:2021-3-`, `d:-3-5`.
    pub(crate) fn key(&self) -> String {
        let f = |x: Option<i64>| x.map(|v| v.to_string()).unwrap_or_default();
        format!(
            "d:{}-{}-{}",
            f(self.year.map(i64::from)),
            f(self.month.map(i64::from)),
            f(self.day.map(i64::from))
        )
    }
}

const MONTH: &str = r"(Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?";

struct Patterns {
    iso: Regex,
    numeric: Regex,
    mdy: Regex,
    dmy: Regex,
    my: Regex,
    md: Regex,
    year: Regex,
    number: Regex,
}

static PATTERNS: LazyLock<Option<Patterns>> = LazyLock::new(|| {
    Some(Patterns {
        iso: Regex::new(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b").ok()?,
        numeric: Regex::new(r"\b(\d{1,2})/(\d{1,2})/(\d{4}|\d{2})\b").ok()?,
        mdy: Regex::new(&format!(r"\b{MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b")).ok()?,
        dmy: Regex::new(&format!(r"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?{MONTH},?\s+(\d{{4}})\b"))
            .ok()?,
        my: Regex::new(&format!(r"\b{MONTH},?\s+(?:of\s+)?(\d{{4}})\b")).ok()?,
        md: Regex::new(&format!(r"\b{MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?\b")).ok()?,
        year: Regex::new(r"\b(1[5-9]\d{2}|20\d{2}|2100)\b").ok()?,
        number: Regex::new(
            r"(?i)(?P<cur>[$€£¥₹]\s?|\b(?:usd|eur|gbp|jpy|inr|chf|cad|aud)\s?)?(?P<sign>[-−+])?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)(?P<scale>\s?(?:thousand|million|billion|trillion)\b|(?:k|m|bn)\b)?(?P<pct>\s?%|\s(?:percent|per\s+cent|pct)\b)?(?P<cur2>\s(?:usd|eur|gbp|dollars?|euros?|pounds?)\b)?",
        )
        .ok()?,
    })
});

fn month_number(name: &str) -> Option<u32> {
    let n = name.get(..3)?.to_ascii_lowercase();
    let m = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
        .iter()
        .position(|m| *m == n)?;
    u32::try_from(m + 1).ok()
}

fn num<T: std::str::FromStr>(caps: &regex::Captures<'_>, i: usize) -> Option<T> {
    caps.get(i)?.as_str().parse().ok()
}

fn valid(month: Option<u32>, day: Option<u32>) -> bool {
    month.is_none_or(|m| (1..=12).contains(&m)) && day.is_none_or(|d| (1..=31).contains(&d))
}

/// Dates and numbers of a passage.
pub(crate) fn extract(text: &str) -> (Vec<Date>, Vec<Quantity>) {
    let Some(p) = PATTERNS.as_ref() else { return (Vec::new(), Vec::new()) };
    let mut used: Vec<(usize, usize)> = Vec::new();
    let mut dates: Vec<(usize, Date)> = Vec::new();
    let free =
        |used: &[(usize, usize)], s: usize, e: usize| used.iter().all(|&(a, b)| e <= a || s >= b);
    type Reader = fn(&regex::Captures<'_>) -> Option<(Option<i32>, Option<u32>, Option<u32>)>;
    let readers: [(&Regex, Reader); 6] = [
        (&p.iso, |c| Some((num(c, 1), num(c, 2), num(c, 3)))),
        (&p.numeric, |c| {
            let (a, b): (u32, u32) = (num(c, 1)?, num(c, 2)?);
            let y: i32 = num(c, 3)?;
            let y = if y < 100 { y + if y < 70 { 2000 } else { 1900 } } else { y };
            Some(if a > 12 { (Some(y), Some(b), Some(a)) } else { (Some(y), Some(a), Some(b)) })
        }),
        (&p.mdy, |c| Some((num(c, 3), month_number(c.get(1)?.as_str()), num(c, 2)))),
        (&p.dmy, |c| Some((num(c, 3), month_number(c.get(2)?.as_str()), num(c, 1)))),
        (&p.my, |c| Some((num(c, 2), month_number(c.get(1)?.as_str()), None))),
        (&p.md, |c| Some((None, month_number(c.get(1)?.as_str()), num(c, 2)))),
    ];
    for (re, read) in readers {
        for caps in re.captures_iter(text) {
            let Some(m) = caps.get(0) else { continue };
            if !free(&used, m.start(), m.end()) {
                continue;
            }
            if let Some((year, month, day)) = read(&caps)
                && valid(month, day)
            {
                used.push((m.start(), m.end()));
                let text = m.as_str().trim_end_matches(['.', ',']).to_owned();
                dates.push((m.start(), Date { year, month, day, text }));
            }
        }
    }
    for m in p.year.find_iter(text) {
        let after = text[m.end()..].trim_start();
        let mut back = text[..m.start()].chars().rev();
        let (before, before2) = (back.next(), back.next());
        // A `-` before a year is a sign, unless a range (`2019-2021`).
        let sign =
            matches!(before, Some('-' | '−')) && !before2.is_some_and(|c| c.is_ascii_digit());
        let glued = sign
            || matches!(before, Some('$' | '€' | '£' | '¥' | '₹' | '.' | ','))
            || after.starts_with('%')
            || text[m.end()..].starts_with([',', '.'])
                && text[m.end() + 1..].starts_with(|c: char| c.is_ascii_digit());
        if glued || !free(&used, m.start(), m.end()) {
            continue;
        }
        used.push((m.start(), m.end()));
        let year = m.as_str().parse().ok();
        dates.push((m.start(), Date { year, month: None, day: None, text: m.as_str().to_owned() }));
    }
    dates.sort_by_key(|d| d.0);
    let numbers = numbers(text, &p.number, &used);
    (dates.into_iter().map(|d| d.1).collect(), numbers)
}

fn numbers(text: &str, re: &Regex, used: &[(usize, usize)]) -> Vec<Quantity> {
    let mut out = Vec::new();
    for caps in re.captures_iter(text) {
        let (Some(all), Some(n)) = (caps.get(0), caps.name("num")) else { continue };
        if used.iter().any(|&(a, b)| all.start() < b && n.end() > a) {
            continue;
        }
        let before = text[..all.start()].chars().next_back();
        let after = text[all.end()..].chars().next();
        let touches_letter = before.is_some_and(|c| c.is_alphanumeric() || c == '_')
            || (before == Some('-')
                && text[..all.start() - 1].chars().next_back().is_some_and(char::is_alphanumeric))
            || after.is_some_and(|c| c.is_alphanumeric());
        let time_or_version = matches!(before, Some(':' | '.'))
            || (matches!(after, Some(':' | '.'))
                && text[all.end() + 1..].starts_with(|c: char| c.is_ascii_digit()));
        if touches_letter || time_or_version {
            continue;
        }
        let digits = n.as_str().replace(',', "");
        let Ok(mut mantissa) = digits.parse::<f64>() else { continue };
        if caps.name("sign").is_some_and(|s| s.as_str() != "+") {
            mantissa = -mantissa;
        }
        let decimals = digits.split_once('.').map_or(0, |(_, d)| d.len());
        let scale = match caps.name("scale").map(|s| s.as_str().trim().to_ascii_lowercase()) {
            Some(s) if s == "thousand" || s == "k" => 1e3,
            Some(s) if s == "million" || s == "m" => 1e6,
            Some(s) if s == "billion" || s == "bn" => 1e9,
            Some(s) if s == "trillion" => 1e12,
            _ => 1.0,
        };
        let value = mantissa * scale;
        let unit = 10f64.powi(-i32::try_from(decimals).unwrap_or(i32::MAX).min(300)) * scale;
        if !value.is_finite() || !unit.is_finite() {
            continue;
        }
        let currency = caps.name("cur").or(caps.name("cur2")).map(|c| currency(c.as_str()));
        let kind = if caps.name("pct").is_some() {
            Kind::Percent
        } else if let Some(c) = currency {
            Kind::Money(c)
        } else {
            Kind::Plain
        };
        out.push(Quantity { value, unit, kind, text: all.as_str().trim().to_owned() });
    }
    out
}

fn currency(s: &str) -> String {
    let s = s.trim().to_ascii_lowercase();
    match s.as_str() {
        "$" | "dollar" | "dollars" => "USD".to_owned(),
        "€" | "euro" | "euros" => "EUR".to_owned(),
        "£" | "pound" | "pounds" => "GBP".to_owned(),
        "¥" => "JPY".to_owned(),
        "₹" => "INR".to_owned(),
        other => other.to_ascii_uppercase(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nums(t: &str) -> Vec<(f64, Kind)> {
        extract(t).1.into_iter().map(|q| (q.value, q.kind)).collect()
    }

    fn dates(t: &str) -> Vec<(Option<i32>, Option<u32>, Option<u32>)> {
        extract(t).0.into_iter().map(|d| (d.year, d.month, d.day)).collect()
    }

    #[test]
    fn reads_numbers() {
        assert_eq!(
            nums("It has 1,200 staff and 3.5 units"),
            [(1200.0, Kind::Plain), (3.5, Kind::Plain)]
        );
        assert_eq!(nums("Revenue grew 42%"), [(42.0, Kind::Percent)]);
        assert_eq!(nums("up 7 percent"), [(7.0, Kind::Percent)]);
        assert_eq!(nums("costs $3.5 million"), [(3_500_000.0, Kind::Money("USD".into()))]);
        assert_eq!(nums("costs 20 euros"), [(20.0, Kind::Money("EUR".into()))]);
        assert_eq!(nums("a 5k run, 2bn users"), [(5000.0, Kind::Plain), (2e9, Kind::Plain)]);
        assert_eq!(nums("fell to -4 degrees"), [(-4.0, Kind::Plain)]);
        assert!(nums("GPT-4 on 5G, the 3rd time at 10:30, v1.2.3").is_empty());
    }

    #[test]
    fn reads_dates() {
        assert_eq!(dates("on 2021-03-05"), [(Some(2021), Some(3), Some(5))]);
        assert_eq!(dates("on March 5, 2021"), [(Some(2021), Some(3), Some(5))]);
        assert_eq!(dates("on 5th of March 2021"), [(Some(2021), Some(3), Some(5))]);
        assert_eq!(dates("in Sept. 2020"), [(Some(2020), Some(9), None)]);
        assert_eq!(dates("on 25/12/2020"), [(Some(2020), Some(12), Some(25))]);
        assert_eq!(
            dates("founded in 1998 with 2023 staff"),
            [(Some(1998), None, None), (Some(2023), None, None)]
        );
        assert!(dates("It may be 5 items").is_empty());
        // Years are not numbers too.
        assert!(extract("in 1998").1.is_empty());
        assert!(dates("paid $2020 and 1999%").is_empty());
        assert_eq!(dates("from 2019-2021"), [(Some(2019), None, None), (Some(2021), None, None)]);
    }

    #[test]
    fn agreement() {
        let q = |t: &str| extract(t).1.remove(0);
        assert!(q("3.5 million").agrees(&q("3,512,000")));
        assert!(!q("3,512,000").agrees(&q("3.5 million")));
        assert!(q("42%").agrees(&q("42.4%")));
        assert!(!q("24").agrees(&q("24.6")));
        assert!(q("20").agrees(&q("$20")));
        assert!(!q("$20").agrees(&q("20%")));
        assert!(!q("$20").comparable(&q("20%")));
        let d = |t: &str| extract(t).0.remove(0);
        assert!(d("March 2021").agrees(&d("2021-03-05")));
        assert!(!d("1998").agrees(&d("1997")));
        assert!(d("1998").comparable(&d("1997")));
        assert!(!d("March 5").comparable(&d("2020")));
    }
}
