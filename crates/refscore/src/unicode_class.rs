//! Three Unicode general categories as tables: punctuation (`P*`) for
//! the `strip_punctuation` normalizer, currency symbols (`Sc`) for number
//! strings, and decimal digits (`Nd`), which [`fold_digits`] writes as
//! ASCII digits.
//!
//! The tables list Unicode 16.0.0 (the version the `regex` crate's tables
//! use; unit tests check them against `\p{P}`, `\p{Sc}` and `\p{Nd}`).

use std::borrow::Cow;

/// Whether `c` is Unicode punctuation: general category Pc, Pd, Ps, Pe,
/// Pi, Pf or Po. Symbols (`S*`: `$ + < = > ^ \` | ~`, `€`, `©`, ...) are
/// not punctuation.
pub fn is_punctuation(c: char) -> bool {
    if c.is_ascii() {
        // ASCII punctuation minus the ASCII symbols (Sc, Sk, Sm).
        return c.is_ascii_punctuation()
            && !matches!(c, '$' | '+' | '<' | '=' | '>' | '^' | '`' | '|' | '~');
    }
    in_table(PUNCTUATION, c)
}

/// Whether `c` is a currency symbol (general category Sc), such as
/// `$ ¢ £ ¥ € ₹ ₩ ₽`.
pub fn is_currency_symbol(c: char) -> bool {
    in_table(CURRENCY, c)
}

/// The value of a decimal digit (general category Nd: `0`–`9`, full-width
/// `０`–`９`, Arabic-Indic `٠`–`٩`, Devanagari `०`–`९`, ...), or `None`
/// for any other character.
pub fn decimal_digit_value(c: char) -> Option<u32> {
    if c.is_ascii() {
        return c.to_digit(10);
    }
    // The last zero at or before `c`; `c` is a digit when within nine of it.
    let zero = DIGIT_ZEROS[..DIGIT_ZEROS.partition_point(|&z| z <= c)].last()?;
    let value = u32::from(c) - u32::from(*zero);
    (value < 10).then_some(value)
}

/// `text` with every decimal digit (general category Nd) written as its
/// ASCII digit: `４５６` and `٤٥٦` become `456`. Only digits change; each
/// folded digit is one byte where the original may be up to four, so byte
/// offsets into the result are not offsets into `text`. Borrows `text` when
/// it has no non-ASCII digit (always for ASCII text, checked by one
/// `is_ascii` scan).
pub fn fold_digits(text: &str) -> Cow<'_, str> {
    if text.is_ascii() {
        return Cow::Borrowed(text);
    }
    let foreign = |c: char| !c.is_ascii() && decimal_digit_value(c).is_some();
    let Some(first) = text.find(foreign) else {
        return Cow::Borrowed(text);
    };
    let (head, rest) = text.split_at(first);
    let mut out = String::with_capacity(text.len());
    out.push_str(head);
    for c in rest.chars() {
        match decimal_digit_value(c) {
            // A value below 10 always fits a `char` digit.
            Some(v) => out.push(char::from_digit(v, 10).unwrap_or(c)),
            None => out.push(c),
        }
    }
    Cow::Owned(out)
}

fn in_table(table: &[(char, char)], c: char) -> bool {
    table
        .binary_search_by(|&(lo, hi)| {
            if hi < c {
                std::cmp::Ordering::Less
            } else if lo > c {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// General category P*, Unicode 16.0.0, as inclusive ranges.
#[rustfmt::skip]
const PUNCTUATION: &[(char, char)] = &[
    ('\u{0021}', '\u{0023}'),
    ('\u{0025}', '\u{002a}'),
    ('\u{002c}', '\u{002f}'),
    ('\u{003a}', '\u{003b}'),
    ('\u{003f}', '\u{0040}'),
    ('\u{005b}', '\u{005d}'),
    ('\u{005f}', '\u{005f}'),
    ('\u{007b}', '\u{007b}'),
    ('\u{007d}', '\u{007d}'),
    ('\u{00a1}', '\u{00a1}'),
    ('\u{00a7}', '\u{00a7}'),
    ('\u{00ab}', '\u{00ab}'),
    ('\u{00b6}', '\u{00b7}'),
    ('\u{00bb}', '\u{00bb}'),
    ('\u{00bf}', '\u{00bf}'),
    ('\u{037e}', '\u{037e}'),
    ('\u{0387}', '\u{0387}'),
    ('\u{055a}', '\u{055f}'),
    ('\u{0589}', '\u{058a}'),
    ('\u{05be}', '\u{05be}'),
    ('\u{05c0}', '\u{05c0}'),
    ('\u{05c3}', '\u{05c3}'),
    ('\u{05c6}', '\u{05c6}'),
    ('\u{05f3}', '\u{05f4}'),
    ('\u{0609}', '\u{060a}'),
    ('\u{060c}', '\u{060d}'),
    ('\u{061b}', '\u{061b}'),
    ('\u{061d}', '\u{061f}'),
    ('\u{066a}', '\u{066d}'),
    ('\u{06d4}', '\u{06d4}'),
    ('\u{0700}', '\u{070d}'),
    ('\u{07f7}', '\u{07f9}'),
    ('\u{0830}', '\u{083e}'),
    ('\u{085e}', '\u{085e}'),
    ('\u{0964}', '\u{0965}'),
    ('\u{0970}', '\u{0970}'),
    ('\u{09fd}', '\u{09fd}'),
    ('\u{0a76}', '\u{0a76}'),
    ('\u{0af0}', '\u{0af0}'),
    ('\u{0c77}', '\u{0c77}'),
    ('\u{0c84}', '\u{0c84}'),
    ('\u{0df4}', '\u{0df4}'),
    ('\u{0e4f}', '\u{0e4f}'),
    ('\u{0e5a}', '\u{0e5b}'),
    ('\u{0f04}', '\u{0f12}'),
    ('\u{0f14}', '\u{0f14}'),
    ('\u{0f3a}', '\u{0f3d}'),
    ('\u{0f85}', '\u{0f85}'),
    ('\u{0fd0}', '\u{0fd4}'),
    ('\u{0fd9}', '\u{0fda}'),
    ('\u{104a}', '\u{104f}'),
    ('\u{10fb}', '\u{10fb}'),
    ('\u{1360}', '\u{1368}'),
    ('\u{1400}', '\u{1400}'),
    ('\u{166e}', '\u{166e}'),
    ('\u{169b}', '\u{169c}'),
    ('\u{16eb}', '\u{16ed}'),
    ('\u{1735}', '\u{1736}'),
    ('\u{17d4}', '\u{17d6}'),
    ('\u{17d8}', '\u{17da}'),
    ('\u{1800}', '\u{180a}'),
    ('\u{1944}', '\u{1945}'),
    ('\u{1a1e}', '\u{1a1f}'),
    ('\u{1aa0}', '\u{1aa6}'),
    ('\u{1aa8}', '\u{1aad}'),
    ('\u{1b4e}', '\u{1b4f}'),
    ('\u{1b5a}', '\u{1b60}'),
    ('\u{1b7d}', '\u{1b7f}'),
    ('\u{1bfc}', '\u{1bff}'),
    ('\u{1c3b}', '\u{1c3f}'),
    ('\u{1c7e}', '\u{1c7f}'),
    ('\u{1cc0}', '\u{1cc7}'),
    ('\u{1cd3}', '\u{1cd3}'),
    ('\u{2010}', '\u{2027}'),
    ('\u{2030}', '\u{2043}'),
    ('\u{2045}', '\u{2051}'),
    ('\u{2053}', '\u{205e}'),
    ('\u{207d}', '\u{207e}'),
    ('\u{208d}', '\u{208e}'),
    ('\u{2308}', '\u{230b}'),
    ('\u{2329}', '\u{232a}'),
    ('\u{2768}', '\u{2775}'),
    ('\u{27c5}', '\u{27c6}'),
    ('\u{27e6}', '\u{27ef}'),
    ('\u{2983}', '\u{2998}'),
    ('\u{29d8}', '\u{29db}'),
    ('\u{29fc}', '\u{29fd}'),
    ('\u{2cf9}', '\u{2cfc}'),
    ('\u{2cfe}', '\u{2cff}'),
    ('\u{2d70}', '\u{2d70}'),
    ('\u{2e00}', '\u{2e2e}'),
    ('\u{2e30}', '\u{2e4f}'),
    ('\u{2e52}', '\u{2e5d}'),
    ('\u{3001}', '\u{3003}'),
    ('\u{3008}', '\u{3011}'),
    ('\u{3014}', '\u{301f}'),
    ('\u{3030}', '\u{3030}'),
    ('\u{303d}', '\u{303d}'),
    ('\u{30a0}', '\u{30a0}'),
    ('\u{30fb}', '\u{30fb}'),
    ('\u{a4fe}', '\u{a4ff}'),
    ('\u{a60d}', '\u{a60f}'),
    ('\u{a673}', '\u{a673}'),
    ('\u{a67e}', '\u{a67e}'),
    ('\u{a6f2}', '\u{a6f7}'),
    ('\u{a874}', '\u{a877}'),
    ('\u{a8ce}', '\u{a8cf}'),
    ('\u{a8f8}', '\u{a8fa}'),
    ('\u{a8fc}', '\u{a8fc}'),
    ('\u{a92e}', '\u{a92f}'),
    ('\u{a95f}', '\u{a95f}'),
    ('\u{a9c1}', '\u{a9cd}'),
    ('\u{a9de}', '\u{a9df}'),
    ('\u{aa5c}', '\u{aa5f}'),
    ('\u{aade}', '\u{aadf}'),
    ('\u{aaf0}', '\u{aaf1}'),
    ('\u{abeb}', '\u{abeb}'),
    ('\u{fd3e}', '\u{fd3f}'),
    ('\u{fe10}', '\u{fe19}'),
    ('\u{fe30}', '\u{fe52}'),
    ('\u{fe54}', '\u{fe61}'),
    ('\u{fe63}', '\u{fe63}'),
    ('\u{fe68}', '\u{fe68}'),
    ('\u{fe6a}', '\u{fe6b}'),
    ('\u{ff01}', '\u{ff03}'),
    ('\u{ff05}', '\u{ff0a}'),
    ('\u{ff0c}', '\u{ff0f}'),
    ('\u{ff1a}', '\u{ff1b}'),
    ('\u{ff1f}', '\u{ff20}'),
    ('\u{ff3b}', '\u{ff3d}'),
    ('\u{ff3f}', '\u{ff3f}'),
    ('\u{ff5b}', '\u{ff5b}'),
    ('\u{ff5d}', '\u{ff5d}'),
    ('\u{ff5f}', '\u{ff65}'),
    ('\u{10100}', '\u{10102}'),
    ('\u{1039f}', '\u{1039f}'),
    ('\u{103d0}', '\u{103d0}'),
    ('\u{1056f}', '\u{1056f}'),
    ('\u{10857}', '\u{10857}'),
    ('\u{1091f}', '\u{1091f}'),
    ('\u{1093f}', '\u{1093f}'),
    ('\u{10a50}', '\u{10a58}'),
    ('\u{10a7f}', '\u{10a7f}'),
    ('\u{10af0}', '\u{10af6}'),
    ('\u{10b39}', '\u{10b3f}'),
    ('\u{10b99}', '\u{10b9c}'),
    ('\u{10d6e}', '\u{10d6e}'),
    ('\u{10ead}', '\u{10ead}'),
    ('\u{10f55}', '\u{10f59}'),
    ('\u{10f86}', '\u{10f89}'),
    ('\u{11047}', '\u{1104d}'),
    ('\u{110bb}', '\u{110bc}'),
    ('\u{110be}', '\u{110c1}'),
    ('\u{11140}', '\u{11143}'),
    ('\u{11174}', '\u{11175}'),
    ('\u{111c5}', '\u{111c8}'),
    ('\u{111cd}', '\u{111cd}'),
    ('\u{111db}', '\u{111db}'),
    ('\u{111dd}', '\u{111df}'),
    ('\u{11238}', '\u{1123d}'),
    ('\u{112a9}', '\u{112a9}'),
    ('\u{113d4}', '\u{113d5}'),
    ('\u{113d7}', '\u{113d8}'),
    ('\u{1144b}', '\u{1144f}'),
    ('\u{1145a}', '\u{1145b}'),
    ('\u{1145d}', '\u{1145d}'),
    ('\u{114c6}', '\u{114c6}'),
    ('\u{115c1}', '\u{115d7}'),
    ('\u{11641}', '\u{11643}'),
    ('\u{11660}', '\u{1166c}'),
    ('\u{116b9}', '\u{116b9}'),
    ('\u{1173c}', '\u{1173e}'),
    ('\u{1183b}', '\u{1183b}'),
    ('\u{11944}', '\u{11946}'),
    ('\u{119e2}', '\u{119e2}'),
    ('\u{11a3f}', '\u{11a46}'),
    ('\u{11a9a}', '\u{11a9c}'),
    ('\u{11a9e}', '\u{11aa2}'),
    ('\u{11b00}', '\u{11b09}'),
    ('\u{11be1}', '\u{11be1}'),
    ('\u{11c41}', '\u{11c45}'),
    ('\u{11c70}', '\u{11c71}'),
    ('\u{11ef7}', '\u{11ef8}'),
    ('\u{11f43}', '\u{11f4f}'),
    ('\u{11fff}', '\u{11fff}'),
    ('\u{12470}', '\u{12474}'),
    ('\u{12ff1}', '\u{12ff2}'),
    ('\u{16a6e}', '\u{16a6f}'),
    ('\u{16af5}', '\u{16af5}'),
    ('\u{16b37}', '\u{16b3b}'),
    ('\u{16b44}', '\u{16b44}'),
    ('\u{16d6d}', '\u{16d6f}'),
    ('\u{16e97}', '\u{16e9a}'),
    ('\u{16fe2}', '\u{16fe2}'),
    ('\u{1bc9f}', '\u{1bc9f}'),
    ('\u{1da87}', '\u{1da8b}'),
    ('\u{1e5ff}', '\u{1e5ff}'),
    ('\u{1e95e}', '\u{1e95f}'),
];

/// General category Sc, Unicode 16.0.0, as inclusive ranges.
#[rustfmt::skip]
const CURRENCY: &[(char, char)] = &[
    ('\u{0024}', '\u{0024}'),
    ('\u{00a2}', '\u{00a5}'),
    ('\u{058f}', '\u{058f}'),
    ('\u{060b}', '\u{060b}'),
    ('\u{07fe}', '\u{07ff}'),
    ('\u{09f2}', '\u{09f3}'),
    ('\u{09fb}', '\u{09fb}'),
    ('\u{0af1}', '\u{0af1}'),
    ('\u{0bf9}', '\u{0bf9}'),
    ('\u{0e3f}', '\u{0e3f}'),
    ('\u{17db}', '\u{17db}'),
    ('\u{20a0}', '\u{20c0}'),
    ('\u{a838}', '\u{a838}'),
    ('\u{fdfc}', '\u{fdfc}'),
    ('\u{fe69}', '\u{fe69}'),
    ('\u{ff04}', '\u{ff04}'),
    ('\u{ffe0}', '\u{ffe1}'),
    ('\u{ffe5}', '\u{ffe6}'),
    ('\u{11fdd}', '\u{11fe0}'),
    ('\u{1e2ff}', '\u{1e2ff}'),
    ('\u{1ecb0}', '\u{1ecb0}'),
];

/// The zero of every run of ten decimal digits (general category Nd),
/// Unicode 16.0.0, in order. Unicode assigns Nd characters only in runs of
/// ten consecutive code points with the values 0 to 9, so the zero locates
/// every digit of its run. Generated from the `regex-syntax` crate's
/// `DECIMAL_NUMBER` ranges (ucd-generate, Unicode 16.0.0), each range cut
/// into runs of ten.
#[rustfmt::skip]
const DIGIT_ZEROS: &[char] = &[
    '\u{0030}', '\u{0660}', '\u{06f0}', '\u{07c0}', '\u{0966}', '\u{09e6}', '\u{0a66}', '\u{0ae6}',
    '\u{0b66}', '\u{0be6}', '\u{0c66}', '\u{0ce6}', '\u{0d66}', '\u{0de6}', '\u{0e50}', '\u{0ed0}',
    '\u{0f20}', '\u{1040}', '\u{1090}', '\u{17e0}', '\u{1810}', '\u{1946}', '\u{19d0}', '\u{1a80}',
    '\u{1a90}', '\u{1b50}', '\u{1bb0}', '\u{1c40}', '\u{1c50}', '\u{a620}', '\u{a8d0}', '\u{a900}',
    '\u{a9d0}', '\u{a9f0}', '\u{aa50}', '\u{abf0}', '\u{ff10}', '\u{104a0}', '\u{10d30}', '\u{10d40}',
    '\u{11066}', '\u{110f0}', '\u{11136}', '\u{111d0}', '\u{112f0}', '\u{11450}', '\u{114d0}', '\u{11650}',
    '\u{116c0}', '\u{116d0}', '\u{116da}', '\u{11730}', '\u{118e0}', '\u{11950}', '\u{11bf0}', '\u{11c50}',
    '\u{11d50}', '\u{11da0}', '\u{11f50}', '\u{16130}', '\u{16a60}', '\u{16ac0}', '\u{16b50}', '\u{16d70}',
    '\u{1ccf0}', '\u{1d7ce}', '\u{1d7d8}', '\u{1d7e2}', '\u{1d7ec}', '\u{1d7f6}', '\u{1e140}', '\u{1e2f0}',
    '\u{1e4f0}', '\u{1e5f1}', '\u{1e950}', '\u{1fbf0}',
];

#[cfg(test)]
mod tests {
    use super::*;

    /// Every scalar value, checked against the `regex` crate's category
    /// tables.
    fn check(class: &str, f: fn(char) -> bool) {
        let all: String = (0..=0x10FFFF_u32).filter_map(char::from_u32).collect();
        let re = regex::Regex::new(class).unwrap();
        let from_regex: Vec<char> = re.find_iter(&all).flat_map(|m| m.as_str().chars()).collect();
        let ours: Vec<char> = all.chars().filter(|&c| f(c)).collect();
        assert_eq!(ours, from_regex);
    }

    #[test]
    fn punctuation_is_general_category_p() {
        check(r"\p{P}", is_punctuation);
    }

    #[test]
    fn currency_is_general_category_sc() {
        check(r"\p{Sc}", is_currency_symbol);
    }

    #[test]
    fn digits_are_general_category_nd() {
        check(r"\p{Nd}", |c| decimal_digit_value(c).is_some());
    }

    #[test]
    fn digit_values_count_from_each_zero() {
        assert!(DIGIT_ZEROS.windows(2).all(|w| u32::from(w[1]) - u32::from(w[0]) >= 10));
        for &zero in DIGIT_ZEROS {
            for v in 0..10 {
                let c = char::from_u32(u32::from(zero) + v).unwrap();
                assert_eq!(decimal_digit_value(c), Some(v), "{c:?}");
            }
        }
        for (c, v) in [('7', 7), ('７', 7), ('٧', 7), ('۷', 7), ('७', 7), ('৭', 7), ('๗', 7)]
        {
            assert_eq!(decimal_digit_value(c), Some(v), "{c:?}");
        }
        // Numeric but not decimal digits: superscripts, circled, Roman, CJK.
        for c in ['a', ' ', '²', '½', '①', 'Ⅻ', '五', '\u{2f}', '\u{3a}', '\u{10ffff}'] {
            assert_eq!(decimal_digit_value(c), None, "{c:?}");
        }
    }

    #[test]
    fn folds_digits_to_ascii() {
        for (text, want) in [
            ("The total is ４５６ dollars.", "The total is 456 dollars."),
            ("٤٥٦ and ४५६ and 𝟒𝟓𝟔", "456 and 456 and 456"),
            ("価格は１，２３４．５円", "価格は1，234．5円"),
            ("2021-03-05", "2021-03-05"),
        ] {
            assert_eq!(fold_digits(text), want);
        }
        // Without a non-ASCII digit the text is borrowed.
        for text in ["plain 123", "", "café ², ½, 五"] {
            assert!(matches!(fold_digits(text), Cow::Borrowed(t) if t == text), "{text:?}");
        }
        assert!(matches!(fold_digits("x ５"), Cow::Owned(_)));
    }

    #[test]
    fn known_characters() {
        for c in [
            '!', '"', '#', '%', '&', '\'', '(', ')', '*', ',', '-', '.', '/', ':', ';', '?', '@',
            '[', '\\', ']', '_', '{', '}', '¡', '§', '«', '»', '¿', '‐', '—', '‘', '’', '“', '”',
            '…', '、', '。', '「', '」', '！', '？',
        ] {
            assert!(is_punctuation(c), "{c:?}");
        }
        for c in
            ['$', '+', '<', '=', '>', '^', '`', '|', '~', '€', '©', '°', 'a', '1', ' ', 'é', '😀']
        {
            assert!(!is_punctuation(c), "{c:?}");
        }
        for c in ['$', '€', '£', '¥', '₹', '¢', '₩'] {
            assert!(is_currency_symbol(c), "{c:?}");
        }
        assert!(!is_currency_symbol('E'));
    }
}
