//! String normalizers applied, in order, before leaf strings are compared.

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfkc_quick};

use super::unicode_class::is_punctuation;

/// One string normalization step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Normalizer {
    /// Unicode Normalization Form KC: compatibility decomposition then
    /// canonical composition (`ﬁ` → `fi`, NBSP → space, full-width `Ａ` →
    /// `A`, `e` + combining acute → `é`).
    Nfkc,
    /// Unicode default lowercase mapping (`str::to_lowercase`, with the
    /// final-sigma rule). This is not full case folding: `ß` stays `ß`
    /// (folding gives `ss`), `ς` stays `ς` (folding gives `σ`), and
    /// ligatures such as `ﬁ` are kept (apply `nfkc` first).
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
            Normalizer::Casefold => {
                let changes = s.chars().any(|c| {
                    let mut lower = c.to_lowercase();
                    lower.next() != Some(c) || lower.next().is_some()
                });
                changes.then(|| s.to_lowercase())
            }
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

#[cfg(test)]
mod tests {
    use super::*;
    use Normalizer::*;

    #[test]
    fn table() {
        let cases: &[(&str, &[Normalizer], &str)] = &[
            ("caf\u{65}\u{301}", &[Nfkc], "café"),
            ("ﬁle", &[Nfkc], "file"),
            ("a\u{a0}b", &[Nfkc], "a b"),
            ("ＡＢＣ１", &[Nfkc], "ABC1"),
            ("ACME GmbH", &[Casefold], "acme gmbh"),
            ("STRASSE straße", &[Casefold], "strasse straße"),
            ("ΟΔΟΣ", &[Casefold], "οδος"),
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

    #[test]
    fn borrows_when_unchanged() {
        for s in ["already clean", "", "a b", "é"] {
            assert!(matches!(normalize(s, &ALL), Cow::Borrowed(_)), "{s:?}");
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
