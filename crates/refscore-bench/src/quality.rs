//! Labelled extraction cases for json_match's quality benchmark: a
//! reference invoice (the shape of `examples/invoices`), an output with
//! planted errors, each labelled with the path where a scorer must flag
//! it, and format-only noise (numbers written as text, dates written
//! out, white space, case, `null` for an absent key, reordered items)
//! that a scorer must not flag.
//!
//! ```
//! use rand::SeedableRng;
//! let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
//! let case = refscore_bench::quality::case(&mut rng);
//! assert!(case.reference["line_items"].is_array());
//! ```

use std::collections::BTreeSet;

use rand::Rng;
use rand::seq::IndexedRandom;
use serde_json::{Value, json};

use crate::invoice::{Date, cents};
use crate::vocab;

/// The label of an extra line item: its output index is not a reference
/// path, so every extra item counts under this one label.
pub const EXTRA_ITEM: &str = "extra line item";

/// Ends a placeholder path that keeps other errors off an item.
const MARKER: &str = "#taken";

/// Ends the path of an error of one cent on a line item, until the case
/// is made.
const CENT: &str = "#cent";

/// One labelled case.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// The golden reference.
    pub reference: Value,
    /// The output: the reference with planted errors and noise.
    pub output: Value,
    /// Paths of the planted errors (reference indices for line items;
    /// [`EXTRA_ITEM`] for a hallucinated item).
    pub errors: BTreeSet<String>,
    /// The kinds of errors planted.
    pub kinds: Vec<&'static str>,
    /// Paths of errors of one cent on a line item's `unit_price` or
    /// `amount`: real errors, which the example's rules tolerate by design
    /// (`abs_tol: 0.01`, `rel_tol: 0.01`).
    pub cents: BTreeSet<String>,
    /// The kinds of format-only noise applied.
    pub noise: Vec<&'static str>,
}

/// Share of cases that get no planted error (noise only).
pub const CLEAN_SHARE: f64 = 0.4;

/// Error kinds, drawn uniformly (1 to 3 per erroneous case).
pub const ERROR_KINDS: [&str; 14] = [
    "identifier_typo",
    "sku_typo",
    "number_wrong",
    "date_wrong",
    "text_wrong",
    "missing_key",
    "extra_key",
    "dropped_item",
    "extra_item",
    "partly_wrong_item",
    "currency_wrong",
    "cent_off",
    "day_month_swapped",
    "duplicated_item",
];

/// Noise kinds, each applied with probability 0.35.
pub const NOISE_KINDS: [&str; 7] = [
    "number_as_text",
    "date_written",
    "whitespace",
    "free_text_case",
    "null_as_absent",
    "reordered_items",
    "datetime_midnight",
];

fn company<R: Rng + ?Sized>(rng: &mut R) -> String {
    let stem = vocab::COMPANY_STEMS.choose(rng).copied().unwrap_or("Acme");
    let suffix = vocab::COMPANY_SUFFIXES.choose(rng).copied().unwrap_or("Inc.");
    format!("{stem} {suffix}")
}

fn date_from<R: Rng + ?Sized>(rng: &mut R) -> Date {
    Date::from_days(rng.random_range(19_000..20_500))
}

fn item<R: Rng + ?Sized>(rng: &mut R, used: &mut BTreeSet<String>) -> Value {
    loop {
        let &(prefix, stem, lo, hi) =
            vocab::PRODUCTS.choose(rng).unwrap_or(&("X", "Item", 1.0, 2.0));
        let sku = format!("{prefix}-{:05}", rng.random_range(10_000..100_000));
        let qualifier = vocab::QUALIFIERS.choose(rng).copied().unwrap_or("");
        let description =
            if qualifier.is_empty() { stem.to_owned() } else { format!("{stem}, {qualifier}") };
        if !used.insert(sku.clone()) || !used.insert(description.clone()) {
            continue;
        }
        let quantity = rng.random_range(1..=40u32);
        let unit_price = cents(rng.random_range(lo..hi).max(1.0));
        return json!({
            "sku": sku,
            "description": description,
            "quantity": quantity,
            "unit_price": unit_price,
            "amount": cents(f64::from(quantity) * unit_price),
        });
    }
}

/// A reference invoice in the shape of `examples/invoices`.
pub fn reference<R: Rng + ?Sized>(rng: &mut R) -> Value {
    let country = vocab::COUNTRIES.choose(rng).unwrap_or(&vocab::COUNTRIES[0]);
    let issued = date_from(rng);
    let due = Date::from_days(issued.days() + *[14, 30, 60].choose(rng).unwrap_or(&30));
    let mut used = BTreeSet::new();
    let items: Vec<Value> = (0..rng.random_range(1..=8)).map(|_| item(rng, &mut used)).collect();
    let subtotal = cents(items.iter().filter_map(|i| i["amount"].as_f64()).sum());
    let tax = cents(subtotal * country.tax_rate);
    let city = country.cities.choose(rng).copied().unwrap_or("Springfield");
    let street = country.streets.choose(rng).copied().unwrap_or("Main Street");
    let email = rng.random_bool(0.7).then(|| format!("ap{}@example.com", rng.random_range(1..99)));
    json!({
        "invoice_number": format!("INV-{}-{:04}", issued.year, rng.random_range(1..10_000)),
        "invoice_date": issued.iso(),
        "due_date": due.iso(),
        "vendor": {
            "name": company(rng),
            "address": format!("{} {street}, {city}", rng.random_range(1..300)),
            "tax_id": if rng.random_bool(0.85) {
                json!(format!("{}{}", country.tax_prefix, rng.random_range(100_000_000..999_999_999u64)))
            } else { Value::Null },
        },
        "customer": {"name": company(rng), "email": email},
        "line_items": items,
        "subtotal": subtotal,
        "tax": tax,
        "total": cents(subtotal + tax),
        "currency": country.currency,
        "payment_terms": vocab::PAYMENT_TERMS.choose(rng).copied().unwrap_or("Net 30"),
    })
}

/// One labelled case: about [`CLEAN_SHARE`] of them with noise only.
pub fn case<R: Rng + ?Sized>(rng: &mut R) -> Case {
    let reference = reference(rng);
    let mut output = reference.clone();
    let mut errors = BTreeSet::new();
    let mut kinds = Vec::new();
    if !rng.random_bool(CLEAN_SHARE) {
        let n = rng.random_range(1..=3);
        let mut tries = 0;
        while kinds.len() < n && tries < 20 {
            tries += 1;
            let kind = ERROR_KINDS.choose(rng).copied().unwrap_or("number_wrong");
            if plant(rng, kind, &reference, &mut output, &mut errors) {
                kinds.push(kind);
            }
        }
    }
    errors.retain(|e| !e.ends_with(MARKER));
    let mut noise = Vec::new();
    for kind in NOISE_KINDS {
        if rng.random_bool(0.35) && add_noise(rng, kind, &mut output, &errors) {
            noise.push(kind);
        }
    }
    let cents = errors
        .iter()
        .filter(|e| e.ends_with(CENT))
        .map(|e| e.trim_end_matches(CENT).to_owned())
        .collect();
    errors = errors.into_iter().map(|e| e.trim_end_matches(CENT).to_owned()).collect();
    Case { reference, output, errors, kinds, cents, noise }
}

/// A one-character typo in an identifier: a digit or letter replaced by
/// another of its kind.
fn typo<R: Rng + ?Sized>(rng: &mut R, s: &str) -> String {
    let mut chars: Vec<char> = s.chars().collect();
    let spots: Vec<usize> =
        (0..chars.len()).filter(|&i| chars[i].is_ascii_alphanumeric()).collect();
    if let Some(&i) = spots.choose(rng) {
        let c = chars[i];
        let pool: Vec<char> = if c.is_ascii_digit() {
            ('0'..='9').filter(|&d| d != c).collect()
        } else {
            ('A'..='Z').filter(|&d| d != c.to_ascii_uppercase()).collect()
        };
        let r = pool.choose(rng).copied().unwrap_or('X');
        chars[i] = if c.is_ascii_lowercase() { r.to_ascii_lowercase() } else { r };
    }
    chars.into_iter().collect()
}

/// A number changed by 5 % to 60 %, up or down (quantities by 1 to 5).
fn wrong_number<R: Rng + ?Sized>(rng: &mut R, v: &Value, integer: bool) -> Value {
    let x = v.as_f64().unwrap_or(1.0);
    if integer {
        let d = rng.random_range(1..=5);
        let y = if x > 5.0 && rng.random_bool(0.5) { x - f64::from(d) } else { x + f64::from(d) };
        return json!(y);
    }
    let f = rng.random_range(0.05..0.6);
    json!(cents(if rng.random_bool(0.5) { x * (1.0 + f) } else { x * (1.0 - f) }.max(0.01)))
}

fn items_mut(doc: &mut Value) -> &mut Vec<Value> {
    if !doc["line_items"].is_array() {
        doc["line_items"] = json!([]);
    }
    match &mut doc["line_items"] {
        Value::Array(a) => a,
        _ => unreachable!("made an array above"),
    }
}

/// The output index of the item with reference index `i` (items are not
/// reordered before errors are planted, but may have been dropped).
fn item_at(output: &Value, reference: &Value, i: usize) -> Option<usize> {
    let sku = reference["line_items"][i]["sku"].as_str()?;
    output["line_items"].as_array()?.iter().position(|x| x["sku"].as_str() == Some(sku))
}

/// Plants one error of `kind`; false when it does not apply (say, a
/// second change to the same field).
fn plant<R: Rng + ?Sized>(
    rng: &mut R,
    kind: &str,
    reference: &Value,
    output: &mut Value,
    errors: &mut BTreeSet<String>,
) -> bool {
    let n_items = reference["line_items"].as_array().map_or(0, Vec::len);
    let i = rng.random_range(0..n_items.max(1));
    let item_path = format!("$.line_items[{i}]");
    // Items touched by an item-level error take no other.
    let item_free = |errors: &BTreeSet<String>| !errors.iter().any(|e| e.starts_with(&item_path));
    let set = |errors: &mut BTreeSet<String>, path: String| errors.insert(path);
    match kind {
        "identifier_typo" => {
            let (path, ptr) = if rng.random_bool(0.5) || output["vendor"]["tax_id"].is_null() {
                ("$.invoice_number", "/invoice_number")
            } else {
                ("$.vendor.tax_id", "/vendor/tax_id")
            };
            if errors.contains(path) {
                return false;
            }
            let Some(s) = output.pointer(ptr).and_then(Value::as_str).map(str::to_owned) else {
                return false;
            };
            *output.pointer_mut(ptr).unwrap_or(&mut Value::Null) = json!(typo(rng, &s));
            set(errors, path.to_owned())
        }
        "sku_typo" | "partly_wrong_item" | "number_wrong" | "duplicated_item" if n_items == 0 => {
            false
        }
        "cent_off" => {
            let f = ["total", "unit_price", "amount"].choose(rng).copied().unwrap_or("total");
            if f == "total" {
                if errors.contains("$.total") {
                    return false;
                }
                let x = reference["total"].as_f64().unwrap_or(1.0);
                output["total"] = json!(cents(x + 0.01));
                return set(errors, String::from("$.total"));
            }
            let Some(j) = item_at(output, reference, i).filter(|_| item_free(errors)) else {
                return false;
            };
            let x = reference["line_items"][i][f].as_f64().unwrap_or(1.0);
            output["line_items"][j][f] = json!(cents(x + 0.01));
            set(errors, format!("{item_path}.{f}{CENT}"))
        }
        "day_month_swapped" => {
            let f = if rng.random_bool(0.5) { "invoice_date" } else { "due_date" };
            let path = format!("$.{f}");
            let Some(d) = reference[f].as_str().and_then(Date::parse_iso) else { return false };
            if errors.contains(&path) || d.day > 12 || d.day == d.month {
                return false;
            }
            output[f] = json!(Date { year: d.year, month: d.day, day: d.month }.iso());
            set(errors, path)
        }
        "duplicated_item" => {
            if errors.contains(EXTRA_ITEM) || !item_free(errors) {
                return false;
            }
            let mut copy = reference["line_items"][i].clone();
            copy["quantity"] = wrong_number(rng, &copy["quantity"], true);
            items_mut(output).push(copy);
            // The copied item takes no other error (which of the two is
            // the copy would be anyone's guess): a marker, removed once
            // every error is planted.
            set(errors, format!("{item_path}{MARKER}"));
            set(errors, EXTRA_ITEM.to_owned())
        }
        "sku_typo" => {
            let Some(j) = item_at(output, reference, i).filter(|_| item_free(errors)) else {
                return false;
            };
            let s = output["line_items"][j]["sku"].as_str().unwrap_or("").to_owned();
            output["line_items"][j]["sku"] = json!(typo(rng, &s));
            set(errors, format!("{item_path}.sku"))
        }
        "number_wrong" => {
            let fields = ["subtotal", "tax", "total", "quantity", "unit_price", "amount"];
            let f = fields.choose(rng).copied().unwrap_or("total");
            if matches!(f, "subtotal" | "tax" | "total") {
                let path = format!("$.{f}");
                if errors.contains(&path) {
                    return false;
                }
                output[f] = wrong_number(rng, &reference[f], false);
                return set(errors, path);
            }
            let Some(j) = item_at(output, reference, i).filter(|_| item_free(errors)) else {
                return false;
            };
            output["line_items"][j][f] =
                wrong_number(rng, &reference["line_items"][i][f], f == "quantity");
            set(errors, format!("{item_path}.{f}"))
        }
        "date_wrong" => {
            let f = if rng.random_bool(0.5) { "invoice_date" } else { "due_date" };
            let path = format!("$.{f}");
            let Some(d) = reference[f].as_str().and_then(Date::parse_iso) else { return false };
            if errors.contains(&path) {
                return false;
            }
            let shift = rng.random_range(1..=40) * if rng.random_bool(0.5) { 1 } else { -1 };
            output[f] = json!(Date::from_days(d.days() + shift).iso());
            set(errors, path)
        }
        "text_wrong" => {
            let which = rng.random_range(0..3);
            if which < 2 {
                let party = if which == 0 { "vendor" } else { "customer" };
                let path = format!("$.{party}.name");
                let old = reference[party]["name"].as_str().unwrap_or("").to_owned();
                let new = company(rng);
                if errors.contains(&path) || new.to_lowercase() == old.to_lowercase() {
                    return false;
                }
                output[party]["name"] = json!(new);
                return set(errors, path);
            }
            let Some(j) = item_at(output, reference, i).filter(|_| item_free(errors)) else {
                return false;
            };
            let mut used: BTreeSet<String> = reference["line_items"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|x| x["description"].as_str().map(str::to_owned))
                .collect();
            let other = item(rng, &mut used);
            output["line_items"][j]["description"] = other["description"].clone();
            set(errors, format!("{item_path}.description"))
        }
        "missing_key" => {
            let keys = ["payment_terms", "currency", "due_date", "tax"];
            let k = keys.choose(rng).copied().unwrap_or("tax");
            let path = format!("$.{k}");
            if errors.contains(&path) || output.get(k).is_none() {
                return false;
            }
            if let Some(m) = output.as_object_mut() {
                m.remove(k);
            }
            set(errors, path)
        }
        "extra_key" => {
            let (obj, k, v) = [
                ("", "confidence", json!(0.93)),
                ("vendor", "iban", json!("DE89370400440532013000")),
                ("customer", "phone", json!("+1 555 0100")),
            ]
            .choose(rng)
            .cloned()
            .unwrap_or(("", "confidence", Value::Null));
            let path = if obj.is_empty() { format!("$.{k}") } else { format!("$.{obj}.{k}") };
            if errors.contains(&path) {
                return false;
            }
            let target = if obj.is_empty() { &mut *output } else { &mut output[obj] };
            target[k] = v;
            set(errors, path)
        }
        "dropped_item" => {
            if n_items < 2 || !item_free(errors) {
                return false;
            }
            let Some(j) = item_at(output, reference, i) else { return false };
            items_mut(output).remove(j);
            set(errors, item_path)
        }
        "extra_item" => {
            if errors.contains(EXTRA_ITEM) {
                return false;
            }
            let mut used: BTreeSet<String> = reference["line_items"]
                .as_array()
                .into_iter()
                .flatten()
                .flat_map(|x| [&x["sku"], &x["description"]])
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect();
            let extra = item(rng, &mut used);
            items_mut(output).push(extra);
            set(errors, EXTRA_ITEM.to_owned())
        }
        "partly_wrong_item" => {
            let Some(j) = item_at(output, reference, i).filter(|_| item_free(errors)) else {
                return false;
            };
            let mut used: BTreeSet<String> = reference["line_items"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|x| x["description"].as_str().map(str::to_owned))
                .collect();
            let other = item(rng, &mut used);
            let it = &mut output["line_items"][j];
            it["description"] = other["description"].clone();
            it["quantity"] = wrong_number(rng, &reference["line_items"][i]["quantity"], true);
            it["amount"] = wrong_number(rng, &reference["line_items"][i]["amount"], false);
            for f in ["description", "quantity", "amount"] {
                set(errors, format!("{item_path}.{f}"));
            }
            true
        }
        "currency_wrong" => {
            if errors.contains("$.currency") || output.get("currency").is_none() {
                return false;
            }
            let now = output["currency"].as_str().unwrap_or("").to_owned();
            let other = ["USD", "EUR", "GBP", "CHF"].into_iter().find(|c| *c != now);
            output["currency"] = json!(other.unwrap_or("JPY"));
            set(errors, String::from("$.currency"))
        }
        _ => false,
    }
}

/// `1234.5` as `"1,234.50"`, `"$1,234.50"` or `"1234.50 EUR"`.
fn money_text<R: Rng + ?Sized>(rng: &mut R, x: f64, currency: &str) -> String {
    let s = format!("{x:.2}");
    let (int, frac) = s.split_once('.').unwrap_or((&s, "00"));
    let mut grouped = String::new();
    for (k, c) in int.chars().enumerate() {
        if k > 0 && (int.len() - k).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(c);
    }
    match rng.random_range(0..3) {
        0 => format!("{grouped}.{frac}"),
        1 if currency == "USD" => format!("${grouped}.{frac}"),
        _ => format!("{int}.{frac} {currency}"),
    }
}

/// A date written another way: `March 5, 2024`, `5 Mar 2024`,
/// `05-Mar-2024` or `Tue, 5 Mar 2024`.
fn date_text<R: Rng + ?Sized>(rng: &mut R, d: Date) -> String {
    const WEEKDAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
    let month = vocab::MONTHS.get(usize::try_from(d.month).unwrap_or(1) - 1).unwrap_or(&"May");
    let short = &month[..3];
    let weekday = WEEKDAYS[usize::try_from((d.days() + 3).rem_euclid(7)).unwrap_or(0)];
    match rng.random_range(0..4) {
        0 => d.written(true),
        1 => format!("{} {short} {}", d.day, d.year),
        2 => format!("{:02}-{short}-{}", d.day, d.year),
        _ => format!("{weekday}, {} {short} {}", d.day, d.year),
    }
}

/// Applies noise of `kind` to fields no error touched; false when
/// nothing applied.
fn add_noise<R: Rng + ?Sized>(
    rng: &mut R,
    kind: &str,
    output: &mut Value,
    errors: &BTreeSet<String>,
) -> bool {
    let free = |p: &str| !errors.iter().any(|e| e == p);
    match kind {
        "number_as_text" => {
            let currency = output["currency"].as_str().unwrap_or("USD").to_owned();
            let f = ["subtotal", "tax", "total"].choose(rng).copied().unwrap_or("total");
            match output[f].as_f64() {
                Some(x) if free(&format!("$.{f}")) => {
                    output[f] = json!(money_text(rng, x, &currency));
                    true
                }
                _ => false,
            }
        }
        "date_written" | "datetime_midnight" => {
            let f = if rng.random_bool(0.5) { "invoice_date" } else { "due_date" };
            match output[f].as_str().and_then(Date::parse_iso) {
                Some(d) if free(&format!("$.{f}")) => {
                    output[f] = json!(if kind == "date_written" {
                        date_text(rng, d)
                    } else {
                        format!("{}T00:00:00", d.iso())
                    });
                    true
                }
                _ => false,
            }
        }
        "whitespace" => {
            let f = ["invoice_number", "payment_terms", "currency"].choose(rng).copied();
            let f = f.unwrap_or("currency");
            match output[f].as_str().map(str::to_owned) {
                Some(s) if free(&format!("$.{f}")) => {
                    output[f] = json!(format!("  {s} \n"));
                    true
                }
                _ => false,
            }
        }
        "free_text_case" => {
            let Some(name) = output["vendor"]["name"].as_str().map(str::to_owned) else {
                return false;
            };
            if !free("$.vendor.name") || !name.contains(' ') {
                return false;
            }
            output["vendor"]["name"] = json!(if rng.random_bool(0.5) {
                name.to_uppercase()
            } else {
                name.replacen(' ', "  ", 1)
            });
            true
        }
        "null_as_absent" => {
            let mut changed = false;
            for party in ["vendor", "customer"] {
                if let Some(m) = output[party].as_object_mut() {
                    let nulls: Vec<String> =
                        m.iter().filter(|(_, v)| v.is_null()).map(|(k, _)| k.clone()).collect();
                    for k in nulls {
                        m.remove(&k);
                        changed = true;
                    }
                }
            }
            changed
        }
        "reordered_items" => {
            let items = items_mut(output);
            if items.len() < 2 {
                return false;
            }
            items.reverse();
            true
        }
        _ => false,
    }
}

/// The flagged paths of a json_match score's failed details, labelled as
/// the case labels its errors: an extra line item as [`EXTRA_ITEM`].
pub fn flagged(details: &[refscore::Detail]) -> BTreeSet<String> {
    details
        .iter()
        .filter(|d| !d.passed)
        .filter_map(|d| {
            let path = d.check.path()?.to_string();
            let extra_item = d.outcome == refscore::Outcome::Extra
                && path.starts_with("$.line_items[")
                && !path[13..].contains('.');
            Some(if extra_item { EXTRA_ITEM.to_owned() } else { path })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn clean_cases_differ_only_in_format_and_errors_are_labelled() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let (mut clean, mut noisy) = (0, 0);
        for _ in 0..300 {
            let c = case(&mut rng);
            assert_eq!(c.errors.is_empty(), c.kinds.is_empty(), "{c:?}");
            clean += usize::from(c.errors.is_empty());
            noisy += usize::from(!c.noise.is_empty());
            assert!(c.reference["line_items"].as_array().is_some_and(|a| !a.is_empty()));
        }
        assert!((80..=160).contains(&clean), "{clean}");
        assert!(noisy > 200, "{noisy}");
    }

    #[test]
    fn money_and_dates_are_written_out() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2);
        let s = money_text(&mut rng, 1234.5, "EUR");
        assert!(["1,234.50", "1234.50 EUR"].contains(&s.as_str()), "{s}");
        let d = Date { year: 2024, month: 3, day: 5 };
        let forms: BTreeSet<String> = (0..40).map(|_| date_text(&mut rng, d)).collect();
        assert!(forms.contains("Tue, 5 Mar 2024"), "{forms:?}");
        assert!(forms.contains("05-Mar-2024"), "{forms:?}");
    }
}
