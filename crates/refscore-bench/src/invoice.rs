//! Reference invoices: the golden side of a pair, 1 to 4 KB of compact JSON.
//!
//! A reference holds a vendor and a customer (name, address object, tax
//! id), an invoice number, ISO and written dates, a currency, 1 to 40 line
//! items whose amounts add up to the subtotal, tax and total, payment terms
//! and free-text notes. Names, places and notes are partly non-ASCII
//! (é, ü, ñ, 中文, emoji).

use rand::Rng;
use rand::seq::IndexedRandom;
use serde_json::{Map, Value, json};

use crate::vocab::{self, Country};

/// Smallest compact size of a reference, in bytes.
pub const MIN_BYTES: usize = 1024;
/// Largest compact size of a reference, in bytes.
pub const MAX_BYTES: usize = 4096;
/// Most line items a reference has.
pub const MAX_ITEMS: usize = 40;

/// How many line items a reference gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ItemCount {
    /// Mostly a handful, sometimes dozens (1 to 40, skewed small).
    #[default]
    Realistic,
    /// Uniform in `min..=max` (clamped to 1..=40); the 4 KB cap may still
    /// drop items from the end.
    Range(usize, usize),
}

impl ItemCount {
    fn draw<R: Rng + ?Sized>(self, rng: &mut R) -> usize {
        match self {
            ItemCount::Realistic => match rng.random_range(0..100) {
                0..60 => rng.random_range(1..=6),
                60..90 => rng.random_range(7..=18),
                _ => rng.random_range(19..=MAX_ITEMS),
            },
            ItemCount::Range(min, max) => {
                let lo = min.clamp(1, MAX_ITEMS);
                let hi = max.clamp(lo, MAX_ITEMS);
                rng.random_range(lo..=hi)
            }
        }
    }
}

/// A calendar date (proleptic Gregorian).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Date {
    /// Year.
    pub year: i64,
    /// Month, 1 to 12.
    pub month: u32,
    /// Day of month, 1 to 31.
    pub day: u32,
}

impl Date {
    /// The date `days` days after 1970-01-01.
    pub fn from_days(days: i64) -> Date {
        // Civil-from-days, after H. Hinnant's date algorithms.
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z.rem_euclid(146_097);
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = u32::try_from(doy - (153 * mp + 2) / 5 + 1).unwrap_or(1);
        let month = u32::try_from(if mp < 10 { mp + 3 } else { mp - 9 }).unwrap_or(1);
        let year = yoe + era * 400 + i64::from(month <= 2);
        Date { year, month, day }
    }

    /// Days since 1970-01-01, the inverse of [`Date::from_days`].
    pub fn days(self) -> i64 {
        let y = self.year - i64::from(self.month <= 2);
        let era = y.div_euclid(400);
        let yoe = y.rem_euclid(400);
        let m = i64::from(self.month);
        let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(self.day) - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        era * 146_097 + doe - 719_468
    }

    /// `2024-03-05`.
    pub fn iso(self) -> String {
        format!("{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }

    /// `5 March 2024` (`us == false`) or `March 5, 2024` (`us == true`).
    pub fn written(self, us: bool) -> String {
        let month = usize::try_from(self.month).ok().and_then(|m| vocab::MONTHS.get(m - 1));
        let month = month.copied().unwrap_or("January");
        if us {
            format!("{month} {}, {}", self.day, self.year)
        } else {
            format!("{} {month} {}", self.day, self.year)
        }
    }

    /// Parses `YYYY-MM-DD`.
    pub fn parse_iso(s: &str) -> Option<Date> {
        let mut parts = s.splitn(3, '-');
        let year = parts.next()?.parse().ok()?;
        let month = parts.next()?.parse().ok()?;
        let day = parts.next()?.parse().ok()?;
        ((1..=12).contains(&month) && (1..=31).contains(&day)).then_some(Date { year, month, day })
    }
}

/// Rounds to cents.
pub fn cents(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// One line item: sku, description, quantity, unit price and amount.
pub fn line_item<R: Rng + ?Sized>(rng: &mut R) -> Value {
    let &(prefix, stem, lo, hi) = vocab::PRODUCTS.choose(rng).unwrap_or(&("X", "Item", 1.0, 2.0));
    let qualifier = vocab::QUALIFIERS.choose(rng).copied().unwrap_or("");
    let description =
        if qualifier.is_empty() { stem.to_owned() } else { format!("{stem}, {qualifier}") };
    let quantity = if prefix == "SVC" {
        json!(f64::from(rng.random_range(1..=80u32)) / 2.0)
    } else {
        json!(rng.random_range(1..=if hi < 10.0 { 500 } else { 24 }))
    };
    let unit_price = cents(rng.random_range(lo..hi));
    let amount = cents(quantity.as_f64().unwrap_or(1.0) * unit_price);
    json!({
        "sku": format!("{prefix}-{:05}", rng.random_range(100..100_000)),
        "description": description,
        "quantity": quantity,
        "unit_price": unit_price,
        "amount": amount,
    })
}

fn party<R: Rng + ?Sized>(rng: &mut R, country: &Country, with_tax_id: bool) -> Value {
    let stem = vocab::COMPANY_STEMS.choose(rng).copied().unwrap_or("Acme");
    let suffix = vocab::COMPANY_SUFFIXES.choose(rng).copied().unwrap_or("Inc.");
    let street = country.streets.choose(rng).copied().unwrap_or("Main Street");
    let city = country.cities.choose(rng).copied().unwrap_or("Springfield");
    let postal =
        rng.random_range(10u64.pow(country.postal_digits - 1)..10u64.pow(country.postal_digits));
    let mut party = json!({
        "name": format!("{stem} {suffix}"),
        "address": {
            "street": format!("{street} {}", rng.random_range(1..=240)),
            "city": city,
            "postal_code": postal.to_string(),
            "country": country.code,
        },
    });
    if with_tax_id && let Some(obj) = party.as_object_mut() {
        let id = format!("{}{:09}", country.tax_prefix, rng.random_range(0..1_000_000_000u64));
        obj.insert("tax_id".into(), Value::String(id));
    }
    party
}

fn invoice_number<R: Rng + ?Sized>(rng: &mut R, year: i64) -> String {
    let n = rng.random_range(1..100_000);
    match rng.random_range(0..3) {
        0 => format!("INV-{year}-{n:06}"),
        1 => format!("F{year}/{n:05}"),
        _ => format!("{year}{n:06}"),
    }
}

/// Sets `subtotal`, `tax` and `total` from the line items.
pub fn recompute_totals(invoice: &mut Map<String, Value>) {
    let subtotal: f64 = invoice
        .get("line_items")
        .and_then(Value::as_array)
        .map(|items| items.iter().filter_map(|i| i.get("amount").and_then(Value::as_f64)).sum())
        .unwrap_or(0.0);
    let subtotal = cents(subtotal);
    let rate = invoice.get("tax_rate").and_then(Value::as_f64).unwrap_or(0.0);
    let tax = cents(subtotal * rate);
    invoice.insert("subtotal".into(), json!(subtotal));
    invoice.insert("tax".into(), json!(tax));
    invoice.insert("total".into(), json!(cents(subtotal + tax)));
}

/// Compact JSON size in bytes.
pub fn compact_len(value: &Value) -> usize {
    serde_json::to_string(value).map_or(0, |s| s.len())
}

/// A reference invoice of [`MIN_BYTES`] to [`MAX_BYTES`] compact bytes.
pub fn reference<R: Rng + ?Sized>(rng: &mut R, items: ItemCount) -> Value {
    let country = vocab::COUNTRIES.choose(rng).copied().unwrap_or(vocab::COUNTRIES[0]);
    let issue_day = rng.random_range(19_358..20_818); // 2023-01-01 .. 2026-12-31
    let issued = Date::from_days(issue_day);
    let due = Date::from_days(issue_day + [14, 30, 30, 45, 60].choose(rng).copied().unwrap_or(30));
    let mut inv = Map::new();
    inv.insert("invoice_number".into(), json!(invoice_number(rng, issued.year)));
    inv.insert("issue_date".into(), json!(issued.iso()));
    inv.insert("due_date".into(), json!(due.iso()));
    if rng.random_bool(0.7) {
        let delivered = Date::from_days(issue_day - rng.random_range(0..10));
        inv.insert("delivery_date".into(), json!(delivered.written(country.code == "US")));
    }
    inv.insert("currency".into(), json!(country.currency));
    inv.insert("vendor".into(), party(rng, &country, true));
    let customer_tax_id = rng.random_bool(0.5);
    inv.insert("customer".into(), party(rng, &country, customer_tax_id));
    let po = rng.random_bool(0.7).then(|| format!("PO-{:05}", rng.random_range(0..100_000)));
    inv.insert("purchase_order".into(), json!(po));
    let n = items.draw(rng);
    inv.insert("line_items".into(), Value::Array((0..n).map(|_| line_item(rng)).collect()));
    inv.insert("tax_rate".into(), json!(country.tax_rate));
    let terms = vocab::PAYMENT_TERMS.choose(rng).copied().unwrap_or("Net 30");
    inv.insert("payment_terms".into(), json!(terms));
    let notes = rng.random_bool(0.75).then(|| {
        let k = rng.random_range(1..=3);
        let picked: Vec<&str> = vocab::NOTES.choose_multiple(rng, k).copied().collect();
        let mut text = picked.join(" ");
        if rng.random_bool(0.3) {
            text.push_str(&format!(" Payment due by {}.", due.written(country.code == "US")));
        }
        text
    });
    inv.insert("notes".into(), json!(notes));
    recompute_totals(&mut inv);
    fit(rng, inv)
}

/// Trims line items or pads notes until the compact size is in range.
fn fit<R: Rng + ?Sized>(rng: &mut R, mut inv: Map<String, Value>) -> Value {
    let mut len = compact_len(&Value::Object(inv.clone()));
    while len > MAX_BYTES {
        let popped = inv
            .get_mut("line_items")
            .and_then(Value::as_array_mut)
            .filter(|items| items.len() > 1)
            .and_then(Vec::pop);
        if popped.is_none() {
            break;
        }
        recompute_totals(&mut inv);
        len = compact_len(&Value::Object(inv.clone()));
    }
    while len < MIN_BYTES {
        let sentence = vocab::NOTES.choose(rng).copied().unwrap_or("Thank you.");
        let notes = match inv.get("notes").and_then(Value::as_str) {
            Some(old) => format!("{old} {sentence}"),
            None => sentence.to_owned(),
        };
        inv.insert("notes".into(), Value::String(notes));
        len = compact_len(&Value::Object(inv.clone()));
    }
    Value::Object(inv)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn dates_round_trip() {
        assert_eq!(Date::from_days(0).iso(), "1970-01-01");
        assert_eq!(Date::from_days(19_787).iso(), "2024-03-05");
        let d = Date { year: 2024, month: 3, day: 5 };
        assert_eq!(d.days(), 19_787);
        assert_eq!(d.written(false), "5 March 2024");
        assert_eq!(d.written(true), "March 5, 2024");
        assert_eq!(Date::parse_iso("2024-03-05"), Some(d));
        assert_eq!(Date::parse_iso("2024-13-05"), None);
        for n in [-1000, 0, 59, 60, 11_016, 20_000] {
            assert_eq!(Date::from_days(n).days(), n);
        }
    }

    #[test]
    fn totals_add_up() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for _ in 0..200 {
            let inv = reference(&mut rng, ItemCount::Realistic);
            let items = inv["line_items"].as_array().unwrap();
            assert!(!items.is_empty() && items.len() <= MAX_ITEMS);
            let sum: f64 = items.iter().map(|i| i["amount"].as_f64().unwrap()).sum();
            assert!((cents(sum) - inv["subtotal"].as_f64().unwrap()).abs() < 1e-9);
            let total = inv["subtotal"].as_f64().unwrap() + inv["tax"].as_f64().unwrap();
            assert!((cents(total) - inv["total"].as_f64().unwrap()).abs() < 1e-9);
            let postal = inv["vendor"]["address"]["postal_code"].as_str().unwrap();
            assert!(postal.parse::<u64>().is_ok(), "{postal}");
            assert!(Date::parse_iso(inv["issue_date"].as_str().unwrap()).is_some());
        }
    }

    #[test]
    fn item_range_is_respected() {
        let mut rng = ChaCha8Rng::seed_from_u64(8);
        for _ in 0..50 {
            let inv = reference(&mut rng, ItemCount::Range(2, 3));
            let n = inv["line_items"].as_array().unwrap().len();
            assert!((2..=3).contains(&n), "{n}");
        }
    }
}
