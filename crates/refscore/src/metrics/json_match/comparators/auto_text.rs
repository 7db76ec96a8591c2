//! The `auto` comparator's readings of two strings as the same text:
//! letter case changed a whole word at a time, white space that carries
//! no meaning, grouping inside an identifier, and the words that mean
//! "no value".
//!
//! Each reading is one the reader of the two values would not call an
//! error: `"EUR"` and `"eur"`, `"72 kg"` and `"72kg"`, an IBAN with and
//! without its spaces. A change that may carry meaning stays a
//! difference: letter case changed inside a word (`"MB/s"` and `"Mb/s"`,
//! `"mW"` and `"MW"`; the litre's `l` and `L` excepted), white space
//! between two digits or two words.

/// How the cased letters of one word are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// No cased letter (`"42"`, `"中文"`).
    Caseless,
    /// No capital (`"eur"`, `"mmol/l"`).
    Lower,
    /// No small letter (`"EUR"`, `"USB-C"`).
    Upper,
    /// A capital, then small letters only (`"Celsius"`, `"Mb/s"`).
    Title,
    /// Anything else (`"mW"`, `"iPhone"`, `"MB/s"`, `"mg/dL"`).
    Mixed,
}

fn shape(word: &str) -> Shape {
    let mut cased = word.chars().filter(|c| c.is_uppercase() || c.is_lowercase());
    let Some(first) = cased.next() else { return Shape::Caseless };
    let (mut upper, mut lower) = (false, false);
    for c in cased {
        if c.is_uppercase() {
            upper = true;
        } else {
            lower = true;
        }
    }
    match (first.is_uppercase(), upper, lower) {
        (false, false, _) => Shape::Lower,
        (false, true, _) | (true, true, true) => Shape::Mixed,
        (true, _, false) => Shape::Upper,
        (true, false, true) => Shape::Title,
    }
}

/// An e-mail address: one `@` with a `.` somewhere after it. Its letter
/// case carries no meaning (domains ignore it, and mail systems in
/// practice ignore it in the local part too).
fn is_email(word: &str) -> bool {
    word.split_once('@').is_some_and(|(local, domain)| {
        !local.is_empty() && !domain.contains('@') && domain.contains('.')
    })
}

/// Whether `p` and `q` differ only in the case of litre symbols: `l` and
/// `L` are both the litre's symbol (`mmol/l`, `mmol/L`; `mg/dl`, `mg/dL`;
/// `5ml`, `5mL`). A litre symbol stands alone or after one SI prefix
/// (`m`, `c`, `d`, `k`, `h`, `n`, `µ`, `μ`), and neither it nor its
/// prefix touches another letter (`McLean` is not `Mclean`).
fn litre_case(p: &str, q: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (p.chars().collect(), q.chars().collect());
    if a.len() != b.len() {
        return false;
    }
    let letter = |i: Option<usize>| i.and_then(|i| a.get(i)).is_some_and(|c| c.is_alphabetic());
    let prefix = |c: char| matches!(c, 'm' | 'c' | 'd' | 'k' | 'h' | 'n' | 'µ' | 'μ');
    a.iter().zip(&b).enumerate().all(|(i, (x, y))| {
        if x == y {
            return true;
        }
        if !matches!((x, y), ('l', 'L') | ('L', 'l')) || letter(Some(i + 1)) {
            return false;
        }
        match i.checked_sub(1).map(|j| (j, a[j])) {
            Some((j, c)) if c.is_alphabetic() => {
                prefix(c) && b[j] == c && !letter(j.checked_sub(1))
            }
            _ => true,
        }
    })
}

/// How two texts compare when letter case is set aside, word by word
/// (words are separated by white space).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum CaseReading {
    /// The texts differ beyond letter case.
    Different,
    /// Equal, each word as written or with its letter case changed as a
    /// whole: all capitals, all small letters, or a capital first
    /// (`"GONZÁLEZ"` and `"González"`, `"OPEN"` and `"open"`), or an
    /// e-mail address in any case.
    Equal,
    /// Equal only when letter case inside a word is ignored (`"MB/s"`
    /// and `"Mb/s"`): a difference that may carry meaning.
    InsideAWord,
}

/// Compares `x` and `y` word by word with letter case set aside.
pub(super) fn case_reading(x: &str, y: &str) -> CaseReading {
    let (mut xs, mut ys) = (x.split_whitespace(), y.split_whitespace());
    let mut inside = false;
    loop {
        match (xs.next(), ys.next()) {
            (None, None) => break,
            (Some(p), Some(q)) if p == q => {}
            (Some(p), Some(q)) => {
                // Small letters as the case mapping gives them: unlike
                // case folding, `ﬁle` is not `file` nor `Straße` `STRASSE`.
                if !p.chars().flat_map(small).eq(q.chars().flat_map(small)) {
                    return CaseReading::Different;
                }
                let whole = shape(p) != Shape::Mixed && shape(q) != Shape::Mixed;
                if !(whole || is_email(p) && is_email(q) || litre_case(p, q)) {
                    inside = true;
                }
            }
            _ => return CaseReading::Different,
        }
    }
    if !inside || one_case(x) || one_case(y) {
        CaseReading::Equal
    } else {
        CaseReading::InsideAWord
    }
}

/// A text of two words or more with letters written in one case only
/// (`"ACME GMBH"`, `"acme gmbh"`): changed as a whole, it says nothing
/// about the case of any one word, so a word's case inside it is no error.
fn one_case(s: &str) -> bool {
    let cased = |w: &&str| w.chars().any(|c| c.is_uppercase() || c.is_lowercase());
    s.split_whitespace().filter(cased).nth(1).is_some()
        && (!s.chars().any(char::is_uppercase) || !s.chars().any(char::is_lowercase))
}

/// Whether `x` and `y` hold the same letters and digits in the same
/// order, letter case aside: what every reading of this module keeps.
/// One pass, nothing allocated.
pub(super) fn same_letters_and_digits(x: &str, y: &str) -> bool {
    small_letters(x).eq(small_letters(y))
}

/// The letters and digits of `s` in small letters ([`small`]).
fn small_letters(s: &str) -> impl Iterator<Item = char> + '_ {
    s.chars().filter(|c| c.is_alphanumeric()).flat_map(small)
}

/// A character in small letters, as the case mapping gives it, but for
/// two letters whose small form depends on where they stand or on the
/// language: a final sigma lower-cases to itself as a character and `Σ`
/// to `σ` (both read as `σ`, since a word's lower-casing may give
/// either), and the Turkish `İ` to `i` with a combining dot above (read
/// as `i`: `İstanbul` and `istanbul` are one word in any case).
fn small(c: char) -> impl Iterator<Item = char> {
    let mut lower = c.to_lowercase();
    if c == 'İ' {
        lower = 'i'.to_lowercase();
    }
    lower.map(|c| if c == 'ς' { 'σ' } else { c })
}

/// Han ideographs, kana: scripts written without spaces between words.
fn unspaced_script(c: char) -> bool {
    matches!(c,
        '\u{3040}'..='\u{30ff}' | '\u{31f0}'..='\u{31ff}' | '\u{3400}'..='\u{4dbf}'
        | '\u{4e00}'..='\u{9fff}' | '\u{f900}'..='\u{faff}' | '\u{20000}'..='\u{3ffff}')
}

/// Whether white space between `p` and `n` may be left out without
/// changing what is written: beside a symbol or punctuation mark
/// (`"< 0.5"`, `"10 x 20"` is kept apart from `"10 20"`), between a digit
/// and a letter (`"72 kg"`), or inside a script written without spaces
/// (`"山田 太郎"`). Between two digits or two letters of a spaced script
/// it separates words, and stays.
fn insignificant(p: char, n: char) -> bool {
    if !p.is_alphanumeric() || !n.is_alphanumeric() {
        return true;
    }
    let digit = |c: char| c.is_numeric();
    digit(p) != digit(n) || (unspaced_script(p) && unspaced_script(n))
}

/// `s` (trimmed) with runs of white space as one space, white space that
/// carries no meaning ([`insignificant`]) left out when `drop`, and, in
/// free text, a final full stop left out (`"Acme Corp."`).
pub(super) fn spacing(s: &str, free_text: bool, drop: bool) -> String {
    let mut out = String::with_capacity(s.len());
    let mut pending = false;
    for c in s.trim().chars() {
        if c.is_whitespace() {
            pending = true;
            continue;
        }
        if pending {
            if !drop || out.chars().next_back().is_some_and(|p| !insignificant(p, c)) {
                out.push(' ');
            }
            pending = false;
        }
        out.push(c);
    }
    if free_text && out.ends_with('.') && !out.ends_with("..") {
        out.pop();
    }
    out
}

/// Separators that group an identifier's characters without being part
/// of it: spaces, hyphens and parentheses (`"DE89 3704 0044"`,
/// `"123-45-6789"`, `"+1 (555) 010-2000"`). Points and slashes are not:
/// `192.168.1.10` and `192.168.11.0` are different addresses.
fn is_id_separator(c: char) -> bool {
    c.is_whitespace() || matches!(c, '-' | '(' | ')' | '\u{2010}' | '\u{2011}')
}

/// An identifier written with grouping separators: its letters and
/// digits in order (a leading `+` kept), when it holds nothing else, has
/// at least five digits and no more letters than digits (account and tax
/// numbers, IBANs, phone numbers; not words, not short codes).
pub(super) fn ungrouped_id(s: &str) -> Option<String> {
    let t = s.trim();
    let (plus, body) = match t.strip_prefix('+') {
        Some(rest) => ("+", rest),
        None => ("", t),
    };
    let mut out = String::from(plus);
    let (mut digits, mut letters) = (0usize, 0usize);
    for c in body.chars() {
        if c.is_ascii_digit() {
            digits += 1;
        } else if c.is_alphabetic() {
            letters += 1;
        } else if is_id_separator(c) {
            continue;
        } else {
            return None;
        }
        out.push(c);
    }
    (digits >= 5 && letters <= digits).then_some(out)
}

/// The words that stand for no value: `n/a`, `none` and `null` in any
/// letter case, trimmed. Read as `null` where the other side is `null` or
/// absent.
pub(super) fn is_null_word(s: &str) -> bool {
    let t = s.trim();
    ["n/a", "none", "null"].iter().any(|w| t.eq_ignore_ascii_case(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_and_digits_in_order() {
        assert!(same_letters_and_digits("DE89 3704-00", "de8937 0400"));
        assert!(same_letters_and_digits("ΟΔΟΣ", "οδος"));
        assert!(same_letters_and_digits("Acme Corp.", "ACME  corp"));
        assert!(!same_letters_and_digits("Acme Corp", "Acme Crop"));
        assert!(!same_letters_and_digits("12", "123"));
    }

    #[test]
    fn shapes() {
        let cases = [
            ("42", Shape::Caseless),
            ("中文", Shape::Caseless),
            ("eur", Shape::Lower),
            ("mmol/l", Shape::Lower),
            ("EUR", Shape::Upper),
            ("USB-C", Shape::Upper),
            ("A", Shape::Upper),
            ("Celsius", Shape::Title),
            ("González", Shape::Title),
            ("Mb/s", Shape::Title),
            ("mW", Shape::Mixed),
            ("MB/s", Shape::Mixed),
            ("iPhone", Shape::Mixed),
            ("mg/dL", Shape::Mixed),
            ("McDonald", Shape::Mixed),
        ];
        for (w, s) in cases {
            assert_eq!(shape(w), s, "{w}");
        }
    }

    #[test]
    fn letter_case_of_whole_words() {
        use CaseReading::*;
        let cases = [
            ("EUR", "eur", Equal),
            ("González", "GONZÁLEZ", Equal),
            ("HIGH", "high", Equal),
            ("3F2504E0-4F89-11D3", "3f2504e0-4f89-11d3", Equal),
            ("Maria.Gonzalez@Example.com", "maria.gonzalez@example.com", Equal),
            ("Acme Corp", "ACME corp", Equal),
            ("100 MB/s", "100 Mb/s", InsideAWord),
            ("Acme GmbH", "ACME GMBH", Equal),
            ("Acme GmbH", "acme gmbh", Equal),
            ("Acme GmbH", "Acme GMBH", InsideAWord),
            ("OUTPUT 5 MW", "output 5 mw", Equal),
            ("5 MW", "5 mW", InsideAWord),
            ("mg/dL", "mg/dl", Equal),
            ("mg/dL", "Mg/dL", InsideAWord),
            ("iPhone", "IPHONE", InsideAWord),
            ("İstanbul", "istanbul", Equal),
            ("İSTANBUL", "Istanbul", Equal),
            ("ΟΔΟΣ", "οδος", Equal),
            ("ΟΔΟΣ", "οδοσ", Equal),
            ("İstanbul", "istanbil", Different),
            ("EUR", "USD", Different),
            ("\u{fb01}le", "file", Different),
            ("Straße", "STRASSE", Different),
            ("Acme Corp", "Acme", Different),
            ("Acme Corp", "Acme Inc", Different),
        ];
        for (x, y, want) in cases {
            assert_eq!(case_reading(x, y), want, "{x} vs {y}");
            assert_eq!(case_reading(y, x), want, "{y} vs {x}");
        }
    }

    #[test]
    fn the_litre_symbol_in_either_case() {
        for (p, q) in [("mmol/L", "mmol/l"), ("mg/dL", "mg/dl"), ("5mL", "5ml"), ("L", "l")] {
            assert!(litre_case(p, q), "{p} {q}");
            assert_eq!(case_reading(&format!("4.2 {p}"), &format!("4.2 {q}")), CaseReading::Equal);
        }
        // Other letters, another prefix's case, a litre inside a word.
        for (p, q) in [("MB/s", "Mb/s"), ("mg/dL", "Mg/dL"), ("McLean", "Mclean"), ("mL", "ML")] {
            assert!(!litre_case(p, q), "{p} {q}");
        }
        assert_eq!(case_reading("4.2 mg/dL", "4.2 mg/Dl"), CaseReading::InsideAWord);
    }

    #[test]
    fn white_space_that_carries_no_meaning() {
        let cases = [
            ("72 kg", false, "72kg"),
            ("< 0.5", false, "<0.5"),
            ("10 x 20 x 30 cm", false, "10x20x30cm"),
            ("山田 太郎", false, "山田太郎"),
            ("  Acme    Corp  ", false, "Acme Corp"),
            ("1 2", false, "1 2"),
            ("Acme Corp.", true, "Acme Corp"),
            ("Acme Corp.", false, "Acme Corp."),
            ("Wait...", true, "Wait..."),
            ("a , b", true, "a,b"),
        ];
        for (s, free, want) in cases {
            assert_eq!(spacing(s, free, true), want, "{s:?}");
        }
        assert_eq!(spacing("  72   kg. ", true, false), "72 kg");
    }

    #[test]
    fn identifiers_without_their_grouping() {
        let cases = [
            ("DE89 3704 0044 0532 0130 00", Some("DE89370400440532013000")),
            ("123-45-6789", Some("123456789")),
            ("+1 (555) 010-2000", Some("+15550102000")),
            ("DE 811 907 980", Some("DE811907980")),
            ("SW1A 2AA", None),
            ("192.168.1.10", None),
            ("12/34/5678", None),
            ("INV-12", None),
            ("Room 12345 to the left", None),
            ("", None),
        ];
        for (s, want) in cases {
            assert_eq!(ungrouped_id(s).as_deref(), want, "{s:?}");
        }
    }

    #[test]
    fn null_words() {
        for s in ["n/a", "N/A", " None ", "NULL"] {
            assert!(is_null_word(s), "{s:?}");
        }
        for s in ["", "NA", "nothing", "0", "nil", "n.a."] {
            assert!(!is_null_word(s), "{s:?}");
        }
    }
}
