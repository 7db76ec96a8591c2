//! Word lists for the tone heuristics, compiled for refscore from common
//! English usage. All lowercase and sorted (looked up by binary search).

/// Words of a formal register: connectives and formal vocabulary.
pub(crate) const FORMAL: &[&str] = &[
    "accordingly",
    "additionally",
    "aforementioned",
    "albeit",
    "ascertain",
    "assist",
    "commence",
    "concerning",
    "consequently",
    "constitute",
    "demonstrate",
    "endeavor",
    "endeavour",
    "ensure",
    "facilitate",
    "furthermore",
    "hence",
    "henceforth",
    "hereby",
    "herein",
    "however",
    "indeed",
    "inform",
    "moreover",
    "nevertheless",
    "nonetheless",
    "notwithstanding",
    "obtain",
    "pertaining",
    "prior",
    "pursuant",
    "regarding",
    "regards",
    "request",
    "require",
    "respectively",
    "sincerely",
    "subsequently",
    "sufficient",
    "thereby",
    "therefore",
    "therein",
    "thus",
    "whereas",
    "whereby",
];

/// Slang, interjections and chat abbreviations.
pub(crate) const SLANG: &[&str] = &[
    "awesome", "btw", "bye", "cool", "dude", "folks", "gonna", "gotta", "guys", "haha", "hey",
    "hiya", "idk", "imo", "kinda", "lemme", "lol", "nah", "nope", "ok", "okay", "omg", "oops",
    "pls", "plz", "sorta", "stuff", "super", "thanks", "thx", "totally", "wanna", "whoa", "wow",
    "ya", "yay", "yeah", "yep", "yup",
];

/// First- and second-person singular pronouns (direct address).
pub(crate) const PERSONAL: &[&str] =
    &["i", "me", "mine", "my", "myself", "u", "you", "your", "yours", "yourself"];

/// Pronoun bases whose `'s` is a contraction (`it's`), not a possessive.
pub(crate) const S_CONTRACTION_BASES: &[&str] =
    &["he", "here", "how", "it", "let", "she", "that", "there", "what", "where", "who"];

/// Words with positive sentiment.
pub(crate) const POSITIVE: &[&str] = &[
    "accurate",
    "achieve",
    "achieved",
    "advantage",
    "amazing",
    "appreciate",
    "appreciated",
    "beautiful",
    "benefit",
    "benefits",
    "best",
    "better",
    "brilliant",
    "clean",
    "comfortable",
    "confident",
    "convenient",
    "delight",
    "delighted",
    "easy",
    "effective",
    "efficient",
    "enjoy",
    "enjoyed",
    "excellent",
    "excited",
    "exciting",
    "fantastic",
    "fast",
    "favorite",
    "favourite",
    "fine",
    "fortunate",
    "free",
    "glad",
    "good",
    "grateful",
    "great",
    "happy",
    "helpful",
    "ideal",
    "impressive",
    "improve",
    "improved",
    "improvement",
    "love",
    "loved",
    "lovely",
    "nice",
    "perfect",
    "pleasant",
    "pleased",
    "positive",
    "powerful",
    "productive",
    "recommend",
    "reliable",
    "remarkable",
    "resolved",
    "safe",
    "satisfied",
    "secure",
    "simple",
    "smooth",
    "solid",
    "success",
    "successful",
    "successfully",
    "superb",
    "support",
    "thank",
    "thankful",
    "thanks",
    "valuable",
    "welcome",
    "well",
    "win",
    "wonderful",
    "works",
];

/// Words with negative sentiment.
pub(crate) const NEGATIVE: &[&str] = &[
    "angry",
    "annoyed",
    "annoying",
    "awful",
    "bad",
    "broken",
    "bug",
    "bugs",
    "complaint",
    "confused",
    "confusing",
    "crash",
    "crashed",
    "damage",
    "damaged",
    "danger",
    "dangerous",
    "delay",
    "delayed",
    "difficult",
    "disappointed",
    "disappointing",
    "error",
    "errors",
    "fail",
    "failed",
    "failure",
    "fault",
    "frustrated",
    "frustrating",
    "hard",
    "harm",
    "hate",
    "horrible",
    "issue",
    "issues",
    "lose",
    "loss",
    "lost",
    "mess",
    "miss",
    "missing",
    "mistake",
    "negative",
    "painful",
    "poor",
    "problem",
    "problems",
    "regret",
    "risk",
    "risky",
    "sad",
    "slow",
    "sorry",
    "terrible",
    "threat",
    "trouble",
    "unable",
    "unfortunately",
    "unhappy",
    "unreliable",
    "upset",
    "useless",
    "weak",
    "worried",
    "worse",
    "worst",
    "wrong",
];

/// Hedges: words that soften a statement.
pub(crate) const HEDGES: &[&str] = &[
    "allegedly",
    "apparently",
    "appear",
    "appears",
    "approximately",
    "arguably",
    "assume",
    "believe",
    "could",
    "doubt",
    "estimate",
    "generally",
    "guess",
    "hopefully",
    "likely",
    "may",
    "maybe",
    "might",
    "perhaps",
    "possible",
    "possibly",
    "presumably",
    "probably",
    "roughly",
    "seem",
    "seemingly",
    "seems",
    "somewhat",
    "suggest",
    "suggests",
    "suppose",
    "tend",
    "typically",
    "uncertain",
    "unclear",
    "unlikely",
    "usually",
];

/// Multi-word hedges (matched on lowercase words joined by one space).
pub(crate) const HEDGE_PHRASES: &[&str] = &[
    "as far as i know",
    "i believe",
    "i feel",
    "i think",
    "in my opinion",
    "it seems",
    "kind of",
    "more or less",
    "not sure",
    "sort of",
    "to some extent",
];

/// Boosters: words that make a statement emphatic or certain.
pub(crate) const BOOSTERS: &[&str] = &[
    "absolutely",
    "always",
    "certain",
    "certainly",
    "clearly",
    "completely",
    "conclusively",
    "definitely",
    "entirely",
    "evidently",
    "guarantee",
    "guaranteed",
    "indisputably",
    "invariably",
    "must",
    "never",
    "obviously",
    "plainly",
    "precisely",
    "proven",
    "surely",
    "undeniably",
    "undoubtedly",
    "unquestionably",
    "will",
];

/// Multi-word boosters.
pub(crate) const BOOSTER_PHRASES: &[&str] = &[
    "beyond doubt",
    "for sure",
    "in fact",
    "no doubt",
    "of course",
    "without doubt",
    "without question",
];

/// Whether `word` (lowercase) is in the sorted `list`.
pub(crate) fn contains(list: &[&str], word: &str) -> bool {
    list.binary_search(&word).is_ok()
}

/// Occurrences of the phrases in `joined` (lowercase words joined by single
/// spaces, with a space at both ends).
pub(crate) fn count_phrases(list: &[&str], joined: &str) -> usize {
    list.iter().map(|p| joined.matches(&format!(" {p} ")).count()).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_sorted_and_modest() {
        for list in [
            FORMAL,
            SLANG,
            PERSONAL,
            S_CONTRACTION_BASES,
            POSITIVE,
            NEGATIVE,
            HEDGES,
            HEDGE_PHRASES,
            BOOSTERS,
            BOOSTER_PHRASES,
        ] {
            assert!(list.windows(2).all(|w| w[0] < w[1]), "{:?}", list.first());
            assert!(list.len() <= 150);
        }
        assert!(POSITIVE.len() >= 50 && NEGATIVE.len() >= 50);
        // No word is both positive and negative, or both hedge and booster.
        assert!(POSITIVE.iter().all(|w| !contains(NEGATIVE, w)));
        assert!(HEDGES.iter().all(|w| !contains(BOOSTERS, w)));
    }

    #[test]
    fn phrases() {
        assert_eq!(count_phrases(HEDGE_PHRASES, " i think it is sort of fine i think "), 3);
        assert!(contains(FORMAL, "therefore") && !contains(FORMAL, "so"));
    }
}
