//! The errors extraction models make, applied to a reference to give an
//! output: typos, dropped, hallucinated and reordered line items, numbers
//! slightly off, numbers as strings and strings as numbers, missing and
//! extra keys, `null` for a value, and dates in the wrong form.
//!
//! A share [`MistakeRates::perfect`] of outputs equal their reference.
//! Every other output draws each mistake independently with its rate; when
//! none is drawn it gets one typo, so it always differs from the reference.

use rand::Rng;
use rand::seq::{IndexedRandom, SliceRandom};
use serde_json::{Value, json};

use crate::invoice::{self, Date, cents};
use crate::vocab;

/// One kind of mistake.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Mistake {
    /// One to three strings with a character inserted, deleted, replaced
    /// or swapped.
    Typo,
    /// One or two line items left out.
    DroppedItem,
    /// A line item the invoice does not have.
    ExtraItem,
    /// Line items in another order.
    ReorderedItems,
    /// One to three numbers rounded or 1–5 % off.
    NumberOff,
    /// A number written as a string (`"12.50"`).
    NumberAsString,
    /// A numeric string (postal code, invoice number) written as a number.
    StringAsNumber,
    /// A key left out.
    MissingKey,
    /// A key the reference does not have.
    ExtraKey,
    /// `null` where the reference has a value.
    NullForMissing,
    /// An ISO date written out (`March 5, 2024`).
    DateFormat,
}

impl Mistake {
    /// Every kind, in the order they are applied.
    pub const ALL: [Mistake; 11] = [
        Mistake::DroppedItem,
        Mistake::ExtraItem,
        Mistake::ReorderedItems,
        Mistake::NumberAsString,
        Mistake::StringAsNumber,
        Mistake::DateFormat,
        Mistake::Typo,
        Mistake::NumberOff,
        Mistake::MissingKey,
        Mistake::ExtraKey,
        Mistake::NullForMissing,
    ];

    /// Snake-case name.
    pub fn name(self) -> &'static str {
        match self {
            Mistake::Typo => "typo",
            Mistake::DroppedItem => "dropped_item",
            Mistake::ExtraItem => "extra_item",
            Mistake::ReorderedItems => "reordered_items",
            Mistake::NumberOff => "number_off",
            Mistake::NumberAsString => "number_as_string",
            Mistake::StringAsNumber => "string_as_number",
            Mistake::MissingKey => "missing_key",
            Mistake::ExtraKey => "extra_key",
            Mistake::NullForMissing => "null_for_missing",
            Mistake::DateFormat => "date_format",
        }
    }
}

/// Probability of each mistake in an output that is not perfect.
#[derive(Debug, Clone, PartialEq)]
pub struct MistakeRates {
    /// Share of outputs identical to their reference.
    pub perfect: f64,
    /// [`Mistake::Typo`].
    pub typo: f64,
    /// [`Mistake::DroppedItem`].
    pub dropped_item: f64,
    /// [`Mistake::ExtraItem`].
    pub extra_item: f64,
    /// [`Mistake::ReorderedItems`] (only with two items or more).
    pub reordered_items: f64,
    /// [`Mistake::NumberOff`].
    pub number_off: f64,
    /// [`Mistake::NumberAsString`].
    pub number_as_string: f64,
    /// [`Mistake::StringAsNumber`].
    pub string_as_number: f64,
    /// [`Mistake::MissingKey`].
    pub missing_key: f64,
    /// [`Mistake::ExtraKey`].
    pub extra_key: f64,
    /// [`Mistake::NullForMissing`].
    pub null_for_missing: f64,
    /// [`Mistake::DateFormat`].
    pub date_format: f64,
}

impl Default for MistakeRates {
    /// A good but imperfect extraction model.
    fn default() -> Self {
        MistakeRates {
            perfect: 0.25,
            typo: 0.30,
            dropped_item: 0.10,
            extra_item: 0.06,
            reordered_items: 0.08,
            number_off: 0.25,
            number_as_string: 0.08,
            string_as_number: 0.04,
            missing_key: 0.12,
            extra_key: 0.10,
            null_for_missing: 0.06,
            date_format: 0.06,
        }
    }
}

impl MistakeRates {
    /// The rate of one kind.
    pub fn rate(&self, mistake: Mistake) -> f64 {
        match mistake {
            Mistake::Typo => self.typo,
            Mistake::DroppedItem => self.dropped_item,
            Mistake::ExtraItem => self.extra_item,
            Mistake::ReorderedItems => self.reordered_items,
            Mistake::NumberOff => self.number_off,
            Mistake::NumberAsString => self.number_as_string,
            Mistake::StringAsNumber => self.string_as_number,
            Mistake::MissingKey => self.missing_key,
            Mistake::ExtraKey => self.extra_key,
            Mistake::NullForMissing => self.null_for_missing,
            Mistake::DateFormat => self.date_format,
        }
    }
}

/// The output a model gives for `reference`, and the mistakes in it.
pub fn corrupt<R: Rng + ?Sized>(
    rng: &mut R,
    reference: &Value,
    rates: &MistakeRates,
) -> (Value, Vec<Mistake>) {
    let mut out = reference.clone();
    let mut made = Vec::new();
    if rng.random_bool(rates.perfect.clamp(0.0, 1.0)) {
        return (out, made);
    }
    for kind in Mistake::ALL {
        if rng.random_bool(rates.rate(kind).clamp(0.0, 1.0)) && apply(rng, &mut out, kind) {
            made.push(kind);
        }
    }
    if made.is_empty() && apply(rng, &mut out, Mistake::Typo) {
        made.push(Mistake::Typo);
    }
    (out, made)
}

/// Applies one mistake; false when the document offers no place for it.
pub fn apply<R: Rng + ?Sized>(rng: &mut R, doc: &mut Value, kind: Mistake) -> bool {
    match kind {
        Mistake::Typo => {
            let n = *[1, 1, 1, 2, 3].choose(rng).unwrap_or(&1);
            edit_nodes(rng, doc, n, |v| v.is_string(), |rng, v| typo(rng, v))
        }
        Mistake::NumberOff => {
            let n = *[1, 1, 2, 3].choose(rng).unwrap_or(&1);
            edit_nodes(rng, doc, n, Value::is_number, |rng, v| nudge(rng, v))
        }
        Mistake::NumberAsString => edit_nodes(rng, doc, 1, Value::is_number, |_, v| {
            let text = match v.as_f64() {
                Some(x) if v.is_f64() => format!("{x:.2}"),
                _ => v.to_string(),
            };
            *v = Value::String(text);
        }),
        Mistake::StringAsNumber => edit_nodes(rng, doc, 1, numeric_string, |_, v| {
            let s = v.as_str().unwrap_or("0");
            *v = s
                .parse::<i64>()
                .map_or_else(|_| json!(s.parse::<f64>().unwrap_or(0.0)), |n| json!(n));
        }),
        Mistake::DateFormat => {
            let is_iso = |v: &Value| v.as_str().and_then(Date::parse_iso).is_some();
            edit_nodes(rng, doc, 1, is_iso, |rng, v| {
                if let Some(d) = v.as_str().and_then(Date::parse_iso) {
                    *v = Value::String(d.written(rng.random_bool(0.5)));
                }
            })
        }
        Mistake::DroppedItem => with_items(doc, |items| {
            if items.is_empty() {
                return false;
            }
            let n = if items.len() >= 3 && rng.random_bool(0.2) { 2 } else { 1 };
            for _ in 0..n {
                items.remove(rng.random_range(0..items.len()));
            }
            true
        }),
        Mistake::ExtraItem => with_items(doc, |items| {
            let at = rng.random_range(0..=items.len());
            items.insert(at, invoice::line_item(rng));
            true
        }),
        Mistake::ReorderedItems => with_items(doc, |items| {
            if items.len() < 2 {
                return false;
            }
            let before = items.clone();
            if rng.random_bool(0.5) {
                let i = rng.random_range(0..items.len() - 1);
                items.swap(i, i + 1);
            } else {
                items.shuffle(rng);
            }
            if *items == before {
                items.swap(0, 1);
            }
            *items != before
        }),
        Mistake::MissingKey => {
            let Some(obj) = pick(rng, doc, |v| v.as_object().is_some_and(|m| !m.is_empty())) else {
                return false;
            };
            let keys: Vec<String> =
                obj.as_object().map(|m| m.keys().cloned().collect()).unwrap_or_default();
            let key = keys.choose(rng).cloned().unwrap_or_default();
            obj.as_object_mut().and_then(|m| m.remove(&key)).is_some()
        }
        Mistake::ExtraKey => {
            let Some(obj) = pick(rng, doc, Value::is_object).and_then(Value::as_object_mut) else {
                return false;
            };
            let fresh: Vec<_> =
                vocab::EXTRA_KEYS.iter().filter(|(k, _)| !obj.contains_key(*k)).collect();
            let Some((key, value)) = fresh.choose(rng) else { return false };
            let value = serde_json::from_str(value).unwrap_or(Value::Null);
            obj.insert((*key).to_owned(), value);
            true
        }
        Mistake::NullForMissing => {
            // A value held by an object key, not an array element.
            let mut slots = Vec::new();
            for_each_node(doc, String::new(), &mut |ptr, v, in_object| {
                if in_object && !v.is_null() {
                    slots.push(ptr.to_owned());
                }
            });
            let Some(ptr) = slots.choose(rng) else { return false };
            doc.pointer_mut(ptr).map(|v| *v = Value::Null).is_some()
        }
    }
}

fn numeric_string(v: &Value) -> bool {
    v.as_str()
        .is_some_and(|s| !s.is_empty() && s.len() < 16 && s.bytes().all(|b| b.is_ascii_digit()))
}

/// Changes `n` distinct nodes matching `pred` with `edit`.
fn edit_nodes<R: Rng + ?Sized>(
    rng: &mut R,
    doc: &mut Value,
    n: usize,
    pred: impl Fn(&Value) -> bool,
    mut edit: impl FnMut(&mut R, &mut Value),
) -> bool {
    let mut ptrs = Vec::new();
    for_each_node(doc, String::new(), &mut |ptr, v, _| {
        if pred(v) {
            ptrs.push(ptr.to_owned());
        }
    });
    let chosen: Vec<String> = ptrs.choose_multiple(rng, n).cloned().collect();
    let mut changed = false;
    for ptr in chosen {
        if let Some(v) = doc.pointer_mut(&ptr) {
            let before = v.clone();
            edit(rng, v);
            changed |= *v != before;
        }
    }
    changed
}

/// A random node matching `pred`, root included.
fn pick<'a, R: Rng + ?Sized>(
    rng: &mut R,
    doc: &'a mut Value,
    pred: impl Fn(&Value) -> bool,
) -> Option<&'a mut Value> {
    let mut ptrs = Vec::new();
    for_each_node(doc, String::new(), &mut |ptr, v, _| {
        if pred(v) {
            ptrs.push(ptr.to_owned());
        }
    });
    let ptr = ptrs.choose(rng)?.clone();
    doc.pointer_mut(&ptr)
}

/// Visits every node with its JSON pointer and whether its parent is an
/// object (the root counts as not).
fn for_each_node(v: &Value, ptr: String, f: &mut impl FnMut(&str, &Value, bool)) {
    let mut stack = vec![(v, ptr, false)];
    while let Some((v, ptr, in_object)) = stack.pop() {
        f(&ptr, v, in_object);
        match v {
            Value::Array(items) => {
                for (i, x) in items.iter().enumerate() {
                    stack.push((x, format!("{ptr}/{i}"), false));
                }
            }
            Value::Object(map) => {
                for (k, x) in map {
                    let key = k.replace('~', "~0").replace('/', "~1");
                    stack.push((x, format!("{ptr}/{key}"), true));
                }
            }
            _ => {}
        }
    }
}

fn with_items(doc: &mut Value, f: impl FnOnce(&mut Vec<Value>) -> bool) -> bool {
    match doc.get_mut("line_items").and_then(Value::as_array_mut) {
        Some(items) => f(items),
        None => false,
    }
}

/// One character inserted, deleted, replaced or swapped with its neighbour.
fn typo<R: Rng + ?Sized>(rng: &mut R, v: &mut Value) {
    let Some(s) = v.as_str() else { return };
    let mut chars: Vec<char> = s.chars().collect();
    let original = chars.clone();
    let letters = ['e', 'a', 'o', 'n', 'r', 'l', 'é', 'ü', 'ñ', '0', '1'];
    for _ in 0..4 {
        let letter = letters.choose(rng).copied().unwrap_or('x');
        if chars.is_empty() {
            chars.push(letter);
            break;
        }
        let i = rng.random_range(0..chars.len());
        match rng.random_range(0..4) {
            0 => chars.insert(i, letter),
            1 => {
                chars.remove(i);
            }
            2 => chars[i] = letter,
            _ if i + 1 < chars.len() => chars.swap(i, i + 1),
            _ => chars.push(letter),
        }
        if chars != original {
            break;
        }
    }
    if chars == original {
        chars.push('x');
    }
    *v = Value::String(chars.into_iter().collect());
}

/// Rounded, or 1–5 % off.
fn nudge<R: Rng + ?Sized>(rng: &mut R, v: &mut Value) {
    let Some(x) = v.as_f64() else { return };
    let mut y = if rng.random_bool(0.35) && x.fract() != 0.0 {
        if rng.random_bool(0.5) { x.round() } else { (x * 10.0).round() / 10.0 }
    } else {
        let pct = rng.random_range(0.01..=0.05);
        let sign = if rng.random_bool(0.5) { 1.0 } else { -1.0 };
        cents(x * (1.0 + sign * pct))
    };
    if y == x {
        y = x + 1.0;
    }
    *v = if v.is_f64() || y.fract() != 0.0 { json!(y) } else { json!(y as i64) };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::invoice::{ItemCount, reference};
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn doc() -> (ChaCha8Rng, Value) {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let r = reference(&mut rng, ItemCount::Range(4, 6));
        (rng, r)
    }

    #[test]
    fn every_kind_changes_the_document() {
        for kind in Mistake::ALL {
            let (mut rng, r) = doc();
            let mut out = r.clone();
            assert!(apply(&mut rng, &mut out, kind), "{}", kind.name());
            assert_ne!(out, r, "{}", kind.name());
        }
    }

    #[test]
    fn kinds_do_what_they_say() {
        let (mut rng, r) = doc();
        let n = r["line_items"].as_array().unwrap().len();
        let mut out = r.clone();
        apply(&mut rng, &mut out, Mistake::DroppedItem);
        assert!(out["line_items"].as_array().unwrap().len() < n);
        let mut out = r.clone();
        apply(&mut rng, &mut out, Mistake::ExtraItem);
        assert_eq!(out["line_items"].as_array().unwrap().len(), n + 1);
        let mut out = r.clone();
        apply(&mut rng, &mut out, Mistake::ReorderedItems);
        let mut a = out["line_items"].as_array().unwrap().clone();
        let mut b = r["line_items"].as_array().unwrap().clone();
        a.sort_by_key(ToString::to_string);
        b.sort_by_key(ToString::to_string);
        assert_eq!(a, b);
        let mut out = r.clone();
        apply(&mut rng, &mut out, Mistake::StringAsNumber);
        assert!(
            out["vendor"]["address"]["postal_code"].is_number()
                || out["customer"]["address"]["postal_code"].is_number()
                || out["invoice_number"].is_number()
        );
    }

    #[test]
    fn nudge_stays_within_five_percent() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for _ in 0..500 {
            let mut v = json!(123.45);
            nudge(&mut rng, &mut v);
            let y = v.as_f64().unwrap();
            assert!(y != 123.45 && (y - 123.45).abs() <= 123.45 * 0.05 + 0.01, "{y}");
        }
    }

    #[test]
    fn typo_changes_non_ascii_safely() {
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        for s in ["深圳华强", "é", "", "Müller & Söhne"] {
            let mut v = json!(s);
            typo(&mut rng, &mut v);
            assert_ne!(v.as_str().unwrap(), s);
        }
    }
}
