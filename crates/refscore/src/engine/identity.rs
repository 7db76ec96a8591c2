//! Identifying fields of array elements, for pairing partly wrong items:
//! a string field whose value occurs once among the reference elements
//! and once among the output elements identifies the element holding it.

use std::borrow::Cow;
use std::cell::RefCell;
use std::hash::Hasher;

use crate::fx::{Fx, FxHashMap as FxMap};

use crate::tree::{Kind, Node};

/// A string for identity: trimmed, inner white space collapsed, lower case.
/// Borrowed when it is so already (the common case: ASCII identifiers).
fn folded(s: &str) -> Cow<'_, str> {
    if s.is_ascii() && is_folded(s) {
        return Cow::Borrowed(s);
    }
    let mut joined = String::with_capacity(s.len());
    if fold_into(s, &mut joined) {
        return Cow::Owned(joined);
    }
    joined.clear();
    for word in s.split_whitespace() {
        if !joined.is_empty() {
            joined.push(' ');
        }
        joined.push_str(word);
    }
    Cow::Owned(joined.to_lowercase())
}

/// [`folded`] into `out`, in one pass over the text; `false` (and `out`
/// unspecified) for a text with a capital sigma, whose lower case depends
/// on the letters around it: that one takes the general path.
fn fold_into(s: &str, out: &mut String) -> bool {
    if s.is_ascii() && fold_ascii(s, out) {
        return true;
    }
    // Every other character's lower case is its own, so the text can be
    // folded character by character: white space (as `split_whitespace`
    // sees it) becomes one space between words.
    out.clear();
    let mut space = false;
    for c in s.chars() {
        if c.is_whitespace() {
            space = !out.is_empty();
            continue;
        }
        if c == '\u{3a3}' {
            return false;
        }
        if space {
            out.push(' ');
            space = false;
        }
        if c.is_ascii() {
            out.push(c.to_ascii_lowercase());
        } else {
            out.extend(c.to_lowercase());
        }
    }
    true
}

/// Whether folding leaves ASCII text `s` as it is: no upper case, single
/// spaces between words and none at either end.
fn is_folded(s: &str) -> bool {
    let b = s.as_bytes();
    if b.first() == Some(&b' ') || b.last() == Some(&b' ') {
        return false;
    }
    let mut space = false;
    for &c in b {
        if c.is_ascii_uppercase() || (0x09..=0x0d).contains(&c) || (c == b' ' && space) {
            return false;
        }
        space = c == b' ';
    }
    true
}

/// ASCII text folded on the fly, byte by byte: its words (split at ASCII
/// white space, as `split_whitespace` splits ASCII) in lower case, one
/// space between them: what [`folded`] gives, without a buffer.
fn ascii_folded(s: &[u8]) -> impl Iterator<Item = u8> + '_ {
    s.split(|&b| matches!(b, b'\t'..=b'\r' | b' ')).filter(|w| !w.is_empty()).enumerate().flat_map(
        |(k, w)| (k > 0).then_some(b' ').into_iter().chain(w.iter().map(u8::to_ascii_lowercase)),
    )
}

/// Text folded on the fly, character by character, as [`folded`] folds
/// it, for text without a capital sigma (whose lower case depends on the
/// letters around it).
fn folded_chars(s: &str) -> impl Iterator<Item = char> + '_ {
    s.split_whitespace().enumerate().flat_map(|(k, w)| {
        (k > 0).then_some(' ').into_iter().chain(w.chars().flat_map(char::to_lowercase))
    })
}

/// Whether two texts fold to the same identity text: compared as they
/// fold, stopping at the first difference (most texts that differ do so
/// in their first characters), without a buffer.
fn same_folded(x: &str, y: &str) -> bool {
    if x == y {
        return true;
    }
    if x.is_ascii() && y.is_ascii() {
        return ascii_folded(x.as_bytes()).eq(ascii_folded(y.as_bytes()));
    }
    if x.contains('\u{3a3}') || y.contains('\u{3a3}') {
        return folded(x) == folded(y);
    }
    folded_chars(x).eq(folded_chars(y))
}

/// An identifying entry's key: a hash of its field and folded value,
/// `None` when the value folds to nothing. Equal entries have equal keys;
/// two different entries that collide (a chance of about 2^-64 each) count
/// as one repeated value, so they identify nothing: no pair is made on a
/// collision, since an agreement is checked on the texts.
fn entry_key(field: &str, value: &str, scratch: &mut String) -> Option<u64> {
    let mut h = Fx::default();
    h.write(field.as_bytes());
    // 0xff never occurs in UTF-8: it ends the field name unambiguously.
    h.write_u8(0xff);
    if let Some(key) = plain_key(h, value.as_bytes()) {
        return key;
    }
    let general;
    let text: &[u8] = if fold_into(value, scratch) {
        scratch.as_bytes()
    } else {
        general = folded(value);
        general.as_bytes()
    };
    if text.is_empty() {
        return None;
    }
    h.write(text);
    Some(h.finish())
}

/// Bytes `b` in each lane of a word.
const fn splat(b: u8) -> u64 {
    u64::from_le_bytes([b; 8])
}

/// The key of the usual identifying text, folded and hashed eight bytes
/// at a time, as `h.write(folded)` hashes it: printable ASCII with no
/// space at either end and none doubled, whose folding is its lower
/// case. `None` for any other text (left to the general path);
/// `Some(None)` for the empty text.
fn plain_key(mut h: Fx, text: &[u8]) -> Option<Option<u64>> {
    const HIGH: u64 = splat(0x80);
    const LOW: u64 = splat(0x7f);
    if text.is_empty() {
        return Some(None);
    }
    if text.first() == Some(&b' ') || text.last() == Some(&b' ') {
        return None;
    }
    let mut chunks = text.chunks_exact(8);
    // Whether the byte before the chunk was a space.
    let mut space_before = false;
    for c in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(c);
        let w = u64::from_le_bytes(word);
        // A byte of 0x80 or more, or below 0x20 (the classic test for a
        // byte below n: exact as to whether there is any).
        if (w | (w.wrapping_sub(splat(0x20)) & !w)) & HIGH != 0 {
            return None;
        }
        // The spaces, exactly (every byte is below 0x80: no carries).
        let x = w ^ splat(b' ');
        let spaces = !(((x & LOW).wrapping_add(LOW)) | x) & HIGH;
        let doubled = spaces & ((spaces << 8) | u64::from(space_before) << 7);
        if doubled != 0 {
            return None;
        }
        space_before = spaces >> 63 != 0;
        // Upper case letters: 'A' or above and not above 'Z'.
        let upper =
            w.wrapping_add(splat(0x80 - b'A')) & !w.wrapping_add(splat(0x80 - b'Z' - 1)) & HIGH;
        h.add_text(w | (upper >> 2));
    }
    for &b in chunks.remainder() {
        if !(0x20..0x80).contains(&b) || (b == b' ' && space_before) {
            return None;
        }
        space_before = b == b' ';
        h.add_text(u64::from(b.to_ascii_lowercase()));
    }
    Some(Some(h.finish()))
}

/// [`folded`]'s ASCII path: folds ASCII text into `out` in one pass;
/// `false` (and `out` unspecified) when the text is not ASCII or holds a
/// vertical tab (which `split_ascii_whitespace` would not split on), left
/// to the general path.
fn fold_ascii(s: &str, out: &mut String) -> bool {
    out.clear();
    let bytes = s.as_bytes();
    // The usual text: ASCII with no control characters, single spaces
    // between words and none at either end; lower case is all folding
    // does to it. (A fold, not `all`, so that the check runs without a
    // branch per byte; the space before each byte rides along, so that
    // two spaces in a row are found in the same pass.)
    let (plain, _) = bytes.iter().fold((true, true), |(ok, space_before), &b| {
        let space = b == b' ';
        (ok & (b.wrapping_sub(0x20) < 0x60) & !(space & space_before), space)
    });
    if plain && bytes.last() != Some(&b' ') {
        out.push_str(s);
        out.make_ascii_lowercase();
        return true;
    }
    let mut space = false;
    for &b in bytes {
        if b >= 0x80 || b == 0x0b {
            return false;
        }
        if b.is_ascii_whitespace() {
            space = !out.is_empty();
        } else {
            if space {
                out.push(' ');
                space = false;
            }
            out.push(char::from(b.to_ascii_lowercase()));
        }
    }
    true
}

/// Per entry key of one field, the one element holding it, or `None`
/// when several elements do.
type FieldIds = FxMap<u64, Option<usize>>;

/// The elements of `items` by their value of `field` (strings only; a
/// value that folds to nothing is left out). The map starts at most
/// [`FIELD_IDS_START`] entries large and grows with the values it holds:
/// sized for the whole array, a field that few elements hold would take
/// memory for all of them, once per field read.
fn field_ids(items: &[Node<'_>], field: &str, scratch: &mut String) -> FieldIds {
    let start = items.len().min(FIELD_IDS_START);
    let mut seen = FieldIds::with_capacity_and_hasher(start, Default::default());
    for (element, v) in items.iter().enumerate() {
        let Some(text) = v.get(field).and_then(|x| x.as_str()) else { continue };
        let Some(key) = entry_key(field, text, scratch) else { continue };
        seen.entry(key).and_modify(|x| *x = None).or_insert(Some(element));
    }
    seen
}

/// The most entries a field's map of elements is made for before it holds
/// them (a few tens of kilobytes).
const FIELD_IDS_START: usize = 1024;

/// The most element values one array's identities read, in all its
/// fields: each field read is a pass over both arrays, so that elements
/// each with a field of its own, asked about one after the other, would
/// cost the square of the array's length. An array may always read
/// [`MIN_FIELDS_READ`] fields.
const MAX_VALUES_READ: usize = 1 << 20;

/// The fields any array may read, however long.
const MIN_FIELDS_READ: usize = 64;

/// Which reference and output elements share an identifying field.
///
/// Read per field as pairs ask for it: a field's values are folded once,
/// on both sides, the first time a pair agreeing on it is asked about (an
/// array with one differing pair reads one or two fields, not every field
/// of every element), up to [`MAX_VALUES_READ`] values in all (and at
/// least [`MIN_FIELDS_READ`] fields); a field asked about past those
/// identifies nothing, and [`Identities::exhausted`] says so.
pub(super) struct Identities<'a, 'v> {
    e: &'a [Node<'v>],
    a: &'a [Node<'v>],
    /// Per field read so far: the reference and the output elements by
    /// their value of it.
    fields: RefCell<FxMap<&'v str, (FieldIds, FieldIds)>>,
    /// The most fields read.
    max_fields: usize,
    /// Whether a field was asked about past `max_fields`.
    exhausted: std::cell::Cell<bool>,
    /// Whether [`Identities::identify`] identified an element.
    identified: std::cell::Cell<bool>,
}

impl<'a, 'v> Identities<'a, 'v> {
    /// The identifying fields of two arrays' object elements (nothing is
    /// read until [`Identities::agree`] asks).
    pub(super) fn new(e: &'a [Node<'v>], a: &'a [Node<'v>]) -> Self {
        Self::reading(e, a, MAX_VALUES_READ)
    }

    /// [`Identities::new`], reading at most `values` element values.
    fn reading(e: &'a [Node<'v>], a: &'a [Node<'v>], values: usize) -> Self {
        let per_field = e.len().saturating_add(a.len()).max(1);
        Identities {
            e,
            a,
            fields: RefCell::default(),
            max_fields: (values / per_field).max(MIN_FIELDS_READ),
            exhausted: std::cell::Cell::new(false),
            identified: std::cell::Cell::new(false),
        }
    }

    /// Whether [`Identities::identify`] identified an element: only the
    /// pairing of an array too large to weigh every pair asks it.
    pub(super) fn identified(&self) -> bool {
        self.identified.get()
    }

    /// The most fields these arrays read for identification.
    pub(super) fn max_fields(&self) -> usize {
        self.max_fields
    }

    /// Whether a field was asked about past [`Identities::max_fields`]
    /// (and identified nothing): what was identified then depends on the
    /// order of the questions, and the comparison is not to be trusted.
    pub(super) fn exhausted(&self) -> bool {
        self.exhausted.get()
    }

    /// The identifying field reference element `i` and output element `j`
    /// agree on, if any (the first by field name): a string field whose
    /// value (folded) is the same in both and not empty, held by no other
    /// reference element and no other output element.
    pub(super) fn agree(&self, i: usize, j: usize) -> Option<&'v str> {
        let (&x, &y) = (self.e.get(i)?, self.a.get(j)?);
        let mut scratch = String::new();
        // Members come sorted by key: the first that identifies is the one.
        x.entries().find_map(|(field, xv)| {
            let xt = xv.as_str()?;
            // A field the two differ on is not read.
            let yt = y.get(field)?.as_str()?;
            (same_folded(xt, yt) && self.partner(i, field, xt, &mut scratch) == Some(j))
                .then_some(field)
        })
    }

    /// The output element that reference element `i` shares an
    /// identifying field with, if any: the first such field by name (as
    /// [`Identities::agree`] reads them) names it. Linear in the arrays'
    /// length for each field read, whatever the number of pairs: the
    /// pairing of arrays too large to weigh every pair reads this.
    pub(super) fn identify(&self, i: usize) -> Option<usize> {
        let x = *self.e.get(i)?;
        let mut scratch = String::new();
        let j =
            x.entries().find_map(|(field, xv)| self.partner(i, field, xv.as_str()?, &mut scratch));
        self.identified.set(self.identified.get() || j.is_some());
        j
    }

    /// The output element holding the value `xt` of `field` that reference
    /// element `i` holds, when each is the only element of its side holding
    /// it (folded, not empty).
    fn partner(&self, i: usize, field: &'v str, xt: &str, scratch: &mut String) -> Option<usize> {
        let key = entry_key(field, xt, scratch)?;
        let j = self.read(field, scratch, |ids_e, ids_a| match ids_e.get(&key) {
            Some(&Some(holder)) if holder == i => ids_a.get(&key).copied().flatten(),
            _ => None,
        })??;
        // One key for texts that fold alike, and (rarely) for two that do
        // not: the texts themselves decide.
        let yt = self.a.get(j)?.get(field)?.as_str()?;
        same_folded(xt, yt).then_some(j)
    }

    /// `f` of the reference and the output elements by their value of
    /// `field`, read now if it was not; `None` when it was not and
    /// [`Identities::max_fields`] fields were.
    fn read<R>(
        &self,
        field: &'v str,
        scratch: &mut String,
        f: impl FnOnce(&FieldIds, &FieldIds) -> R,
    ) -> Option<R> {
        use std::collections::hash_map::Entry;
        let mut fields = self.fields.borrow_mut();
        let full = fields.len() >= self.max_fields;
        let (ids_e, ids_a) = match fields.entry(field) {
            Entry::Occupied(o) => o.into_mut(),
            Entry::Vacant(_) if full => {
                self.exhausted.set(true);
                return None;
            }
            Entry::Vacant(v) => {
                v.insert((field_ids(self.e, field, scratch), field_ids(self.a, field, scratch)))
            }
        };
        Some(f(ids_e, ids_a))
    }
}

/// How alike two elements' key fields are: the mean normalized Levenshtein
/// similarity of the keys' values as text (trimmed, lower case); a key
/// absent on either side counts 0.
pub(super) fn key_similarity(e: Node<'_>, a: Node<'_>, keys: &[String]) -> f64 {
    if keys.is_empty() {
        return 0.0;
    }
    fn text(v: Node<'_>) -> Option<Cow<'_, str>> {
        match v.kind() {
            Kind::String => v.as_str().map(folded),
            Kind::Number | Kind::Bool => Some(Cow::Owned(v.compact())),
            _ => None,
        }
    }
    let sum: f64 = keys
        .iter()
        .map(|k| match (e.get(k).and_then(text), a.get(k).and_then(text)) {
            (Some(x), Some(y)) => crate::text::normalized_levenshtein(&x, &y),
            _ => 0.0,
        })
        .sum();
    #[allow(clippy::cast_precision_loss)]
    let n = keys.len() as f64;
    crate::number::clamp01(sum / n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::Tree;
    use serde_json::{Value, json};

    fn node(v: &Value) -> Tree<'_> {
        Tree::from_value(v)
    }

    fn key(field: &str, value: &str) -> Option<u64> {
        entry_key(field, value, &mut String::new())
    }

    /// Folding as defined, independent of the code under test: words
    /// joined by one space, then lower case.
    fn by_definition(s: &str) -> String {
        s.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()
    }

    #[test]
    fn the_one_pass_ascii_fold_folds_as_the_general_one() {
        let mut out = String::new();
        for s in [
            "",
            " ",
            "sku-1",
            "SKU-1",
            "  Two  words ",
            "a\tb\nc\rd\u{c}e",
            "\t\nX\r",
            "a b",
            "MiXeD CaSe 42",
            "x\u{b}y",
            "é",
            "A é",
        ] {
            let ascii = fold_ascii(s, &mut out);
            assert_eq!(ascii, s.is_ascii() && !s.contains('\u{b}'), "{s:?}");
            if ascii {
                assert_eq!(out, folded(s), "{s:?}");
                let general = by_definition(s);
                assert_eq!(out, general, "{s:?}");
            }
            // Whichever path folds it, the key is the folded text's.
            assert_eq!(key("f", s), key("f", &folded(s)), "{s:?}");
        }
    }

    #[test]
    fn the_one_pass_fold_folds_as_the_general_one() {
        let mut out = String::new();
        for s in [
            "Besan\u{e7}on",
            "  Stra\u{df}e  12 ",
            "\u{c7}\u{e0}\u{a0}Va",
            "a\u{3000}b\u{2028}c\u{85}d\u{1680}e\u{202f}f",
            "\u{130}stanbul",
            "\u{1f600} Smile",
            "\u{41f}\u{440}\u{418}\u{432}\u{415}\u{422}",
            "\u{3b1}\u{392}\u{393}",
            "caf\u{c9}\tNOIR\u{b}x",
            "\u{2126} \u{212a}",
            "\u{1c5}",
            "",
            "\u{a0}",
        ] {
            assert!(fold_into(s, &mut out), "{s:?}");
            let general = by_definition(s);
            assert_eq!(out, general, "{s:?}");
            assert_eq!(out, folded(s), "{s:?}");
            assert_eq!(key("f", s), key("f", &general), "{s:?}");
        }
        // A capital sigma is left to the general path, which knows where a
        // word ends.
        for s in ["\u{39f}\u{394}\u{39f}\u{3a3}", "\u{3a3}\u{391}"] {
            assert!(!fold_into(s, &mut out), "{s:?}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        /// Any text folds as the definition says, whichever path takes it.
        #[test]
        fn every_text_folds_as_defined(
            s in "(\\PC|\\s){0,24}|[aA\u{3a3}\u{3c3}\u{130}\u{df}\u{e9}\u{a0}\t .']{0,12}|[ -~\t\n\u{b}\u{c}\r]{0,16}"
        ) {
            let general = by_definition(&s);
            proptest::prop_assert_eq!(folded(&s), general.as_str());
            proptest::prop_assert_eq!(key("f", &s), key("f", &general));
            if !s.contains('\u{3a3}') {
                proptest::prop_assert_eq!(folded_chars(&s).collect::<String>(), general.clone());
            }
            if s.is_ascii() {
                let on_the_fly: Vec<u8> = ascii_folded(s.as_bytes()).collect();
                proptest::prop_assert_eq!(on_the_fly, general.as_bytes());
            }
        }
    }

    #[test]
    fn unique_strings_identify() {
        let e = [
            json!({"sku": "A", "unit": "pc", "qty": 1}),
            json!({"sku": "B", "unit": "pc", "qty": 1}),
        ];
        let a = [json!({"sku": " b ", "unit": "pc"}), json!({"sku": "C", "unit": "pc"})];
        let (ve, va) = (Value::Array(e.to_vec()), Value::Array(a.to_vec()));
        let (te, ta) = (node(&ve), node(&va));
        let (e, a): (Vec<Node<'_>>, Vec<Node<'_>>) =
            (te.root().items().collect(), ta.root().items().collect());
        let ids = Identities::new(&e, &a);
        assert_eq!(ids.agree(1, 0), Some("sku"));
        // "pc" is shared by every element: it identifies nothing.
        assert_eq!(ids.agree(0, 1), None);
        assert_eq!(ids.agree(0, 0), None);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(5000))]

        /// A plain text's key, folded and hashed a word at a time, is the
        /// key of its folded text; only plain texts take that path.
        #[test]
        fn plain_keys_are_their_folded_texts_keys(
            s in "[ aAzZ@\\[`{09_\t\u{7f}\u{1f}\u{e9}]{0,26}",
        ) {
            let folded = folded(&s);
            let general = (!folded.is_empty()).then(|| {
                let mut h = Fx::default();
                h.write(b"f");
                h.write_u8(0xff);
                h.write(folded.as_bytes());
                h.finish()
            });
            let mut h = Fx::default();
            h.write(b"f");
            h.write_u8(0xff);
            let b = s.as_bytes();
            let plain = b.iter().all(|c| (0x20..0x80).contains(c))
                && b.first() != Some(&b' ')
                && b.last() != Some(&b' ')
                && !s.contains("  ");
            match plain_key(h, b) {
                Some(key) => {
                    proptest::prop_assert!(plain);
                    proptest::prop_assert_eq!(key, general);
                }
                None => proptest::prop_assert!(!plain),
            }
            proptest::prop_assert_eq!(entry_key("f", &s, &mut String::new()), general);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]

        /// Two texts compared as they fold agree with their folded texts.
        #[test]
        fn texts_compared_as_they_fold_agree_with_their_folds(
            x in "[aAbB\u{3a3}\u{3c3}\u{3c2}\u{130}i\u{307}\u{212a}k\u{df}\u{e9}\u{c9}\u{a0}\t\u{b} ]{0,6}",
            y in "[aAbB\u{3a3}\u{3c3}\u{3c2}\u{130}i\u{307}\u{212a}k\u{df}\u{e9}\u{c9}\u{a0}\t\u{b} ]{0,6}",
        ) {
            proptest::prop_assert_eq!(same_folded(&x, &y), by_definition(&x) == by_definition(&y));
            let (ax, ay) = (x.replace(|c: char| !c.is_ascii(), "a"), y.replace(|c: char| !c.is_ascii(), "B"));
            proptest::prop_assert_eq!(same_folded(&ax, &ay), by_definition(&ax) == by_definition(&ay));
        }
    }

    /// The identifying field of a pair by the definition, from scratch:
    /// the first string field (by name) whose folded value is the same in
    /// both elements, not empty, and held once on each side.
    fn agree_by_definition(e: &[Value], a: &[Value], i: usize, j: usize) -> Option<String> {
        let text = |v: &Value, f: &str| v.get(f)?.as_str().map(by_definition);
        let held = |side: &[Value], f: &str, t: &str| {
            side.iter().filter(|v| text(v, f).as_deref() == Some(t)).count()
        };
        let mut fields: Vec<&String> = e[i].as_object()?.keys().collect();
        fields.sort();
        fields.into_iter().find_map(|f| {
            let (x, y) = (text(&e[i], f)?, text(&a[j], f)?);
            (x == y && !x.is_empty() && held(e, f, &x) == 1 && held(a, f, &x) == 1)
                .then(|| f.clone())
        })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1500))]

        /// Fields read as pairs ask for them, in any order, identify the
        /// pairs the definition does.
        #[test]
        fn fields_read_as_asked_identify_as_defined(
            e in proptest::collection::vec(element(), 0..6),
            a in proptest::collection::vec(element(), 0..6),
            order in proptest::collection::vec((0usize..7, 0usize..7), 0..40),
        ) {
            let (ve, va) = (Value::Array(e.clone()), Value::Array(a.clone()));
            let (te, ta) = (node(&ve), node(&va));
            let (ne, na): (Vec<Node<'_>>, Vec<Node<'_>>) =
                (te.root().items().collect(), ta.root().items().collect());
            let ids = Identities::new(&ne, &na);
            let every = (0..e.len()).flat_map(|i| (0..a.len()).map(move |j| (i, j)));
            for (i, j) in order.into_iter().chain(every) {
                let want = if i < e.len() && j < a.len() {
                    agree_by_definition(&e, &a, i, j)
                } else {
                    None
                };
                proptest::prop_assert_eq!(ids.agree(i, j).map(str::to_owned), want, "{} {}", i, j);
            }
        }

        /// A reference element is identified with the output element it
        /// agrees with on the first identifying field by name, if any.
        #[test]
        fn an_element_is_identified_as_defined(
            e in proptest::collection::vec(element(), 0..6),
            a in proptest::collection::vec(element(), 0..6),
        ) {
            let (ve, va) = (Value::Array(e.clone()), Value::Array(a.clone()));
            let (te, ta) = (node(&ve), node(&va));
            let (ne, na): (Vec<Node<'_>>, Vec<Node<'_>>) =
                (te.root().items().collect(), ta.root().items().collect());
            let ids = Identities::new(&ne, &na);
            for i in 0..=e.len() {
                // Of the output elements agreeing with `i`, the one whose
                // field comes first by name (at most one per field).
                let want = (0..a.len())
                    .filter(|_| i < e.len())
                    .filter_map(|j| Some((agree_by_definition(&e, &a, i, j)?, j)))
                    .min()
                    .map(|(_, j)| j);
                proptest::prop_assert_eq!(ids.identify(i), want, "{}", i);
            }
        }
    }

    /// An array element: an object of up to three fields, strings that
    /// fold alike or not, numbers and nulls among them; now and then not
    /// an object.
    fn element() -> impl proptest::strategy::Strategy<Value = Value> {
        use proptest::prelude::*;
        let value = prop_oneof![
            Just(json!("x")),
            Just(json!("X ")),
            Just(json!("y")),
            Just(json!("a  b")),
            Just(json!("A b")),
            Just(json!(" ")),
            Just(json!(1)),
            Just(Value::Null),
        ];
        prop_oneof![
            9 => proptest::collection::btree_map(
                prop_oneof![Just("id".to_owned()), Just("name".to_owned()), Just("sku".to_owned())],
                value,
                0..4,
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
            1 => Just(json!("x")),
        ]
    }

    #[test]
    fn folding_borrows_only_what_it_leaves_alone() {
        for s in ["sku-1", "a b", "", "x1 y2 z3"] {
            assert!(matches!(folded(s), Cow::Borrowed(_)), "{s:?}");
        }
        let cases = [
            (" a", "a"),
            ("a ", "a"),
            ("a  b", "a b"),
            ("a\tb", "a b"),
            ("a\u{b}b", "a b"),
            ("SKU", "sku"),
            ("Çà  Va", "çà va"),
            ("a\u{a0}b", "a b"),
        ];
        for (s, want) in cases {
            assert_eq!(folded(s), want, "{s:?}");
            let general = by_definition(s);
            assert_eq!(folded(s), general, "{s:?}");
            assert!(matches!(folded(s), Cow::Owned(_)), "{s:?}");
            assert_eq!(key("f", s), key("f", want), "{s:?}");
        }
        assert_eq!(key("f", " \t "), None);
        assert_ne!(key("f", "a"), key("g", "a"));
        assert_ne!(key("ab", "c"), key("a", "bc"));
        for (x, y, same) in [
            ("ΟΔΟΣ 1", "οδο\u{3c2} 1", true),
            ("ΟΔΟΣ 1", "οδο\u{3c3} 1", false),
            ("ΟΔΟΣΑ", "οδο\u{3c3}α", true),
            ("ΟΔΟΣ  1", "οδο\u{3c2} 1", true),
            ("ΟΔΟΣ", "οδo\u{3c2}", false),
            (" Çà\u{a0}Va ", "çà va", true),
            ("İ", "i\u{307}", true),
            // Text that is not ASCII can fold to ASCII (KELVIN SIGN).
            ("\u{212a}EY 1", "key\u{b}1", true),
            ("\u{212a}EY 1", "key 2", false),
        ] {
            assert_eq!(same_folded(x, y), folded(x) == folded(y), "{x:?} {y:?}");
            assert_eq!(same_folded(x, y), same, "{x:?} {y:?}");
            assert_eq!(key("f", x) == key("f", y), same, "{x:?} {y:?}");
        }
    }

    /// Spaces at every place of a text three words long, across the
    /// boundaries of the words it is hashed in, and capitals next to the
    /// letters' ends: keys as the general path gives them.
    #[test]
    fn plain_keys_see_spaces_across_words() {
        let general = |t: &str| {
            let mut h = Fx::default();
            h.write(b"f");
            h.write_u8(0xff);
            h.write(folded(t).as_bytes());
            h.finish()
        };
        let mut h = Fx::default();
        h.write(b"f");
        h.write_u8(0xff);
        for at in 1..22 {
            let mut one: Vec<u8> = b"AZ@[azQ`{xYz0123456789_+".to_vec();
            one[at] = b' ';
            let text = String::from_utf8(one.clone()).unwrap();
            assert_eq!(plain_key(h, &one), Some(Some(general(&text))), "{text:?}");
            one[at + 1] = b' ';
            let text = String::from_utf8(one.clone()).unwrap();
            assert_eq!(plain_key(h, &one), None, "{text:?}");
            assert_eq!(entry_key("f", &text, &mut String::new()), Some(general(&text)));
        }
    }

    #[test]
    fn the_first_agreeing_field_by_name_is_reported() {
        let e = json!([{"sku": "A", "id": "7", "name": "n"}, {"sku": "B", "id": "8"}]);
        let a = json!([{"sku": "b", "id": "8"}, {"sku": "a", "id": "9", "name": " N "}]);
        let (te, ta) = (node(&e), node(&a));
        let (e, a): (Vec<Node<'_>>, Vec<Node<'_>>) =
            (te.root().items().collect(), ta.root().items().collect());
        let ids = Identities::new(&e, &a);
        assert_eq!(ids.agree(1, 0), Some("id"));
        assert_eq!(ids.agree(0, 1), Some("name"));
        assert_eq!(ids.agree(0, 0), None);
        assert_eq!(ids.agree(2, 0), None);
    }

    /// Elements each with a field of its own: identifying them one after
    /// the other reads at most the fields the bound on values allows (at
    /// least [`MIN_FIELDS_READ`]), not a field (a pass over both arrays)
    /// per element, and says so.
    #[test]
    fn the_fields_an_array_reads_are_bounded() {
        let one = |i: usize| {
            let mut m = serde_json::Map::new();
            m.insert(format!("f{i:03}"), json!(format!("v{i}")));
            Value::Object(m)
        };
        let side = Value::Array((0..200).map(one).collect());
        let t = node(&side);
        let items: Vec<Node<'_>> = t.root().items().collect();
        // 400 values a field: the real bound reads every one of 200 fields.
        let ids = Identities::new(&items, &items);
        assert!((0..200).all(|i| ids.identify(i) == Some(i)));
        assert!(!ids.exhausted());
        // A bound of 100 values reads the least any array may: 64 fields.
        let ids = Identities::reading(&items, &items, 100);
        assert_eq!(ids.max_fields(), MIN_FIELDS_READ);
        let found = (0..200).filter(|&i| ids.identify(i) == Some(i)).count();
        assert_eq!(found, MIN_FIELDS_READ);
        assert_eq!(ids.fields.borrow().len(), MIN_FIELDS_READ);
        assert!(ids.exhausted());
        // The fields read still identify; the others identify nothing.
        assert_eq!(ids.identify(0), Some(0));
        assert_eq!(ids.agree(0, 0), Some("f000"));
        assert_eq!(ids.agree(150, 150), None);
        // 1,000 values of 8 a field: 125 fields.
        let few: Vec<Node<'_>> = items.iter().copied().take(4).collect();
        assert_eq!(Identities::reading(&few, &few, 1_000).max_fields(), 125);
    }

    /// A field's map holds what it holds, not room for every element:
    /// scoring two 100,000-element arrays whose elements each hold a field
    /// of their own reads 64 fields, two maps each, and with maps sized for
    /// the arrays the process peaked at 468 MB (102 MB with these).
    #[test]
    fn a_field_few_elements_hold_takes_little_memory() {
        let side = Value::Array(
            (0..20_000).map(|i| if i == 7 { json!({"sku": "A-1"}) } else { json!({}) }).collect(),
        );
        let t = node(&side);
        let items: Vec<Node<'_>> = t.root().items().collect();
        let ids = field_ids(&items, "sku", &mut String::new());
        assert_eq!(ids.len(), 1);
        assert!(ids.capacity() <= 2 * FIELD_IDS_START, "{}", ids.capacity());
        // Every element holding it is still held, past the starting size.
        let side = Value::Array((0..5_000).map(|i| json!({"sku": format!("A-{i}")})).collect());
        let t = node(&side);
        let items: Vec<Node<'_>> = t.root().items().collect();
        let ids = field_ids(&items, "sku", &mut String::new());
        assert_eq!(ids.len(), 5_000);
        assert!(ids.values().all(Option::is_some));
    }

    #[test]
    fn keys_compare_by_edit_distance() {
        let keys = [String::from("sku")];
        let sim = |e: Value, a: Value| key_similarity(node(&e).root(), node(&a).root(), &keys);
        let s = sim(json!({"sku": "SKU-1001"}), json!({"sku": "SKU-1011"}));
        assert!((s - 0.875).abs() < 1e-12, "{s}");
        assert_eq!(sim(json!({"sku": 1}), json!({})), 0.0);
        assert_eq!(sim(json!({"sku": 12}), json!({"sku": 12})), 1.0);
    }
}
