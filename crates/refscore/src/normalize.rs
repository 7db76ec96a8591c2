//! String normalizers applied, in order, before strings are compared.
//!
//! Shared by `json_match` rules (leaf strings), `exact_match` and
//! `precision_recall_fscore` (their `normalize` option). Each step maps a
//! string to a string; [`normalize`] applies a list of steps in the order
//! given and borrows its input when no step changes it.

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use caseless::Caseless;
use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfc_quick, is_nfkc_quick};

use crate::unicode_class::is_punctuation;

/// One string normalization step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Normalizer {
    /// Unicode Normalization Form KC: compatibility decomposition then
    /// canonical composition (`ﬁ` → `fi`, NBSP → space, full-width `Ａ` →
    /// `A`, `e` + combining acute → `é`).
    Nfkc,
    /// Full Unicode default case folding (`CaseFolding.txt`, statuses C
    /// and F, Unicode 16.0, by the `caseless` crate): `ß` and `ẞ` → `ss`,
    /// `ﬁ` → `fi`, final `ς` → `σ`, `ǅ` → `ǆ`, so `"Straße"` and
    /// `"STRASSE"` fold alike. The fold is language-independent: the
    /// Turkish rules (status T) are not used, so `I` → `i` (not `ı`), `İ` →
    /// `i` + U+0307 COMBINING DOT ABOVE, and `ı` is left as it is. Folding
    /// does not normalize: a folded string may need `nfkc` again (`İ`
    /// folds to two characters that NFKC keeps apart).
    Casefold,
    /// Removes leading and trailing Unicode `White_Space` characters and
    /// U+FEFF (byte-order mark).
    Trim,
    /// Replaces every run of Unicode `White_Space` characters (tabs, line
    /// breaks, NBSP, ...) with one U+0020 space. It does not trim.
    CollapseWhitespace,
    /// Removes every character of Unicode general category P* (Pc, Pd, Ps,
    /// Pe, Pi, Pf, Po; Unicode 16.0). Symbols (S*) such as
    /// `$ + < = > ^ ` | ~ € ©` are kept. Nothing is inserted in place of a
    /// removed character, so `"( B )"` becomes `" B "`.
    StripPunctuation,
}

/// Every normalizer, in the order of [`Normalizer::name`]'s list.
pub const ALL: [Normalizer; 5] = [
    Normalizer::Nfkc,
    Normalizer::Casefold,
    Normalizer::Trim,
    Normalizer::CollapseWhitespace,
    Normalizer::StripPunctuation,
];

impl Normalizer {
    /// The name used in rules files.
    pub fn name(self) -> &'static str {
        match self {
            Normalizer::Nfkc => "nfkc",
            Normalizer::Casefold => "casefold",
            Normalizer::Trim => "trim",
            Normalizer::CollapseWhitespace => "collapse_whitespace",
            Normalizer::StripPunctuation => "strip_punctuation",
        }
    }

    /// The normalized string, or `None` when this step changes nothing.
    fn apply(self, s: &str) -> Option<String> {
        match self {
            Normalizer::Nfkc => {
                if is_nfkc_quick(s.chars()) == IsNormalized::Yes {
                    return None;
                }
                let out: String = s.nfkc().collect();
                (out != s).then_some(out)
            }
            Normalizer::Casefold => casefold(s),
            Normalizer::Trim => {
                let t = crate::text::js_trim(s);
                (t.len() != s.len()).then(|| t.to_string())
            }
            Normalizer::CollapseWhitespace => collapse_whitespace(s),
            Normalizer::StripPunctuation => {
                if !s.chars().any(is_punctuation) {
                    return None;
                }
                Some(s.chars().filter(|&c| !is_punctuation(c)).collect())
            }
        }
    }
}

/// Full case folding of `s`, or `None` when no character folds to
/// anything but itself.
fn casefold(s: &str) -> Option<String> {
    if s.is_ascii() {
        // ASCII folds to ASCII: only `A`–`Z` change.
        return s.bytes().any(|b| b.is_ascii_uppercase()).then(|| s.to_ascii_lowercase());
    }
    let folds = |c: char| {
        let mut f = std::iter::once(c).default_case_fold();
        f.next() != Some(c) || f.next().is_some()
    };
    let first = s.char_indices().find(|&(_, c)| folds(c))?.0;
    let mut out = String::with_capacity(s.len() + 8);
    out.push_str(&s[..first]);
    out.extend(s[first..].chars().default_case_fold());
    Some(out)
}

fn collapse_whitespace(s: &str) -> Option<String> {
    let mut prev_ws = false;
    let needed = s.chars().any(|c| {
        let ws = c.is_whitespace();
        let hit = ws && (prev_ws || c != ' ');
        prev_ws = ws;
        hit
    });
    if !needed {
        return None;
    }
    let mut out = String::with_capacity(s.len());
    let mut in_run = false;
    for c in s.chars() {
        if c.is_whitespace() {
            if !in_run {
                out.push(' ');
            }
            in_run = true;
        } else {
            out.push(c);
            in_run = false;
        }
    }
    Some(out)
}

impl fmt::Display for Normalizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A normalizer name that is not one of [`ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown normalizer \"{0}\" (valid: nfkc, casefold, trim, collapse_whitespace, strip_punctuation)"
)]
pub struct UnknownNormalizer(pub String);

impl FromStr for Normalizer {
    type Err = UnknownNormalizer;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ALL.into_iter().find(|n| n.name() == s).ok_or_else(|| UnknownNormalizer(s.to_string()))
    }
}

/// Applies `steps` to `s` in order; borrows `s` when no step changes it.
pub fn normalize<'a>(s: &'a str, steps: &[Normalizer]) -> Cow<'a, str> {
    let mut out = Cow::Borrowed(s);
    for step in steps {
        if let Some(changed) = step.apply(&out) {
            out = Cow::Owned(changed);
        }
    }
    out
}

/// `s` with the differences that have one reading removed: in Unicode
/// Normalization Form C (canonical equivalents, such as `e` + U+0301
/// COMBINING ACUTE and `é`, become one), with the full-width forms of
/// ASCII (U+FF01–U+FF5E: `Ａ`, `１`, `＄`) read as ASCII. Unlike
/// [`Normalizer::Nfkc`], no other compatibility mapping applies (`m²`
/// stays `m²`, `ﬁ` stays `ﬁ`). Borrows `s` when nothing changes; an ASCII
/// string costs one check.
pub fn canonical(s: &str) -> Cow<'_, str> {
    if s.is_ascii() {
        return Cow::Borrowed(s);
    }
    let full_width = |c: char| ('\u{ff01}'..='\u{ff5e}').contains(&c);
    let narrow: Cow<'_, str> = if s.chars().any(full_width) {
        Cow::Owned(
            s.chars()
                .map(|c| {
                    if full_width(c) {
                        char::from_u32(u32::from(c) - 0xfee0).unwrap_or(c)
                    } else {
                        c
                    }
                })
                .collect(),
        )
    } else {
        Cow::Borrowed(s)
    };
    if is_nfc_quick(narrow.chars()) == IsNormalized::Yes {
        return narrow;
    }
    Cow::Owned(narrow.nfc().collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use Normalizer::*;

    #[test]
    fn canonical_reads_one_meaning_differences() {
        let cases = [
            ("Mari\u{301}a", "María"),
            ("María", "María"),
            ("ＵＳＢ-Ｃ", "USB-C"),
            ("１２.９９", "12.99"),
            ("ＡＢＣ\u{3000}ｘ", "ABC\u{3000}x"),
            ("m²", "m²"),
            ("ﬁle", "ﬁle"),
            ("plain ascii", "plain ascii"),
        ];
        for (s, want) in cases {
            assert_eq!(canonical(s), want, "{s:?}");
        }
        assert!(matches!(canonical("ascii"), Cow::Borrowed(_)));
        assert!(matches!(canonical("María"), Cow::Borrowed(_)));
    }

    #[test]
    fn table() {
        let cases: &[(&str, &[Normalizer], &str)] = &[
            ("caf\u{65}\u{301}", &[Nfkc], "café"),
            ("ﬁle", &[Nfkc], "file"),
            ("a\u{a0}b", &[Nfkc], "a b"),
            ("ＡＢＣ１", &[Nfkc], "ABC1"),
            ("ACME GmbH", &[Casefold], "acme gmbh"),
            ("STRASSE straße", &[Casefold], "strasse strasse"),
            ("ΟΔΟΣ", &[Casefold], "οδοσ"),
            ("ǅ", &[Casefold], "ǆ"),
            ("İ", &[Casefold], "i\u{307}"),
            ("  x y \n", &[Trim], "x y"),
            ("\u{feff}x\u{3000}", &[Trim], "x"),
            ("a \t\n b", &[CollapseWhitespace], "a b"),
            (" a  b ", &[CollapseWhitespace], " a b "),
            ("a\u{a0}b", &[CollapseWhitespace], "a b"),
            ("a\tb", &[CollapseWhitespace], "a b"),
            ("Hello, world!", &[StripPunctuation], "Hello world"),
            ("( B )", &[StripPunctuation], " B "),
            ("$1,000.50", &[StripPunctuation], "$100050"),
            ("a+b=c<d>e^f`g|h~i", &[StripPunctuation], "a+b=c<d>e^f`g|h~i"),
            ("«¿Qué?» — dijo…", &[StripPunctuation], "Qué  dijo"),
            ("O’Brien-Smith", &[StripPunctuation], "OBrienSmith"),
            ("( B )", &[StripPunctuation, CollapseWhitespace, Trim], "B"),
            ("  ＡＣＭＥ,  Inc. ", &ALL, "acme inc"),
            ("", &ALL, ""),
        ];
        for (input, steps, want) in cases {
            assert_eq!(normalize(input, steps), *want, "{input:?} {steps:?}");
        }
    }

    /// Full case folding, exact outputs.
    #[test]
    fn casefold_table() {
        let cases: &[(&str, &str)] = &[
            // ß and capital ẞ fold to "ss".
            ("Straße", "strasse"),
            ("STRASSE", "strasse"),
            ("straße", "strasse"),
            ("\u{1e9e}", "ss"),
            // Ligatures fold to their letters without NFKC.
            ("\u{fb01}", "fi"),
            ("\u{fb01}le", "file"),
            ("\u{fb03}", "ffi"),
            // Final sigma folds to σ, like capital Σ.
            ("\u{3c2}", "\u{3c3}"),
            ("\u{3a3}", "\u{3c3}"),
            ("ΟΔΟΣ", "οδοσ"),
            ("οδος", "οδοσ"),
            // Turkish dotted and dotless I: the default (non-Turkic) rules.
            ("I", "i"),
            ("\u{130}", "i\u{307}"),
            ("\u{130}stanbul", "i\u{307}stanbul"),
            ("\u{131}", "\u{131}"),
            ("D\u{131}YARBAKIR", "d\u{131}yarbakir"),
            // Other characters whose folding is not their lowercase.
            ("\u{b5}", "\u{3bc}"),
            ("\u{17f}", "s"),
            ("\u{212a}", "k"),
            ("\u{ab70}", "\u{13a0}"),
            ("\u{1c5}", "\u{1c6}"),
            ("\u{345}", "\u{3b9}"),
            ("\u{1f80}", "\u{1f00}\u{3b9}"),
            // Mixed ASCII and non-ASCII, and unchanged prefixes.
            ("abc ÉCOLE", "abc école"),
            ("ACME GmbH", "acme gmbh"),
            ("", ""),
        ];
        for (input, want) in cases {
            assert_eq!(normalize(input, &[Casefold]), *want, "{input:?}");
        }
    }

    #[test]
    fn casefold_makes_caseless_matches_equal() {
        let equal: &[(&str, &str)] = &[
            ("Straße", "STRASSE"),
            ("MASSE", "Maße"),
            ("\u{fb01}nance", "FINANCE"),
            ("ΣΊΣΥΦΟΣ", "σίσυφος"),
            ("\u{3c2}", "\u{3c3}"),
            ("\u{212a}elvin", "kelvin"),
        ];
        for (a, b) in equal {
            assert_eq!(normalize(a, &[Casefold]), normalize(b, &[Casefold]), "{a:?} {b:?}");
        }
        let different: &[(&str, &str)] = &[("\u{131}", "i"), ("\u{130}", "i"), ("é", "e")];
        for (a, b) in different {
            assert_ne!(normalize(a, &[Casefold]), normalize(b, &[Casefold]), "{a:?} {b:?}");
        }
    }

    /// NFKC, exact outputs.
    #[test]
    fn nfkc_table() {
        let cases: &[(&str, &str)] = &[
            // Full-width forms.
            ("\u{ff21}\u{ff22}\u{ff23}\u{ff11}", "ABC1"),
            ("\u{ff41}\u{ff42}\u{ff43}", "abc"),
            ("\u{ff08}x\u{ff09}", "(x)"),
            ("\u{3000}", " "),
            // Half-width katakana.
            ("\u{ff76}", "\u{30ab}"),
            // No-break spaces.
            ("a\u{a0}b", "a b"),
            ("a\u{202f}b", "a b"),
            // Ligatures.
            ("\u{fb01}", "fi"),
            ("\u{fb00}", "ff"),
            ("\u{fb03}x", "ffix"),
            ("\u{132}", "IJ"),
            // Other compatibility characters.
            ("x\u{b2}", "x2"),
            ("\u{2460}", "1"),
            ("\u{2126}", "\u{3a9}"),
            ("\u{212b}", "\u{c5}"),
            ("\u{2026}", "..."),
            // Canonical composition.
            ("e\u{301}", "\u{e9}"),
            // NFKC does not fold case.
            ("\u{df}", "\u{df}"),
        ];
        for (input, want) in cases {
            assert_eq!(normalize(input, &[Nfkc]), *want, "{input:?}");
        }
        // Folding İ leaves a combining dot that NFKC does not compose.
        assert_eq!(normalize("\u{130}", &[Casefold, Nfkc]), "i\u{307}");
        // Full-width capitals need NFKC and folding.
        assert_eq!(normalize("\u{ff33}TRA\u{df}E", &[Nfkc, Casefold]), "strasse");
    }

    #[test]
    fn borrows_when_unchanged() {
        for s in ["already clean", "", "a b", "é"] {
            assert!(matches!(normalize(s, &ALL), Cow::Borrowed(_)), "{s:?}");
        }
        for s in ["\u{131}", "\u{3c3}", "日本語", "école", "strasse"] {
            assert!(matches!(normalize(s, &[Casefold]), Cow::Borrowed(_)), "{s:?}");
        }
        for s in ["\u{df}", "\u{3c2}", "\u{fb01}", "É"] {
            assert!(matches!(normalize(s, &[Casefold]), Cow::Owned(_)), "{s:?}");
        }
        assert!(matches!(normalize("A", &[Casefold]), Cow::Owned(_)));
        assert!(matches!(normalize("a  b", &[CollapseWhitespace]), Cow::Owned(_)));
    }

    #[test]
    fn order_matters() {
        assert_eq!(normalize(" x. ", &[Trim, StripPunctuation]), "x");
        assert_eq!(normalize(" x .", &[Trim, StripPunctuation]), "x ");
    }

    #[test]
    fn names_round_trip() {
        for n in ALL {
            assert_eq!(n.name().parse::<Normalizer>(), Ok(n));
            assert_eq!(n.to_string(), n.name());
        }
        let err = "lowercase".parse::<Normalizer>().unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown normalizer \"lowercase\" (valid: nfkc, casefold, trim, collapse_whitespace, strip_punctuation)"
        );
    }
}
