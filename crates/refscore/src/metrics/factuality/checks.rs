//! The facts of one passage ([`Features`]: content-word stems, entities,
//! numbers, dates, negation; the words of a written number such as
//! `million`, `percent`, `dollars` are not content words) and the checks that compare a
//! claim with an evidence passage: negation, numbers, dates, entities.
//!
//! Facts are read from the passage with every decimal digit written as its
//! ASCII digit ([`fold_digits`]: `４５６`, `٤٥٦` and `४५६` are `456`), so
//! the facts and the messages about them (`number 456 dollars disagrees
//! with 123 dollars`) give ASCII digits, while claim and passage texts are
//! shown as written.
//!
//! * **Negation**: a passage is negated when it holds a negation cue
//!   (`not`, `no`, `never`, `none`, `nothing`, `nobody`, `neither`, `nor`,
//!   `without`, `cannot`, any `n't` contraction). A claim and its evidence
//!   that differ in this disagree.
//! * **Numbers** ([`super::quantities`]): a claim's number is *backed* when
//!   some number of the evidence agrees with it. An unbacked number
//!   disagrees when the evidence has a number of the same kind (plain,
//!   percent, money in the same currency) that backs none of the claim's
//!   numbers; otherwise it is only *missing* from the evidence.
//! * **Dates**: the same, with dates that share a part (year, month, day).
//! * **Entities**: capitalised words that are not stop words, not month or
//!   day names and not at the start of their passage. A first word counts
//!   too when the same word is written capitalised elsewhere, not at a
//!   start, in the output, reference or context (a known name). A claim's
//!   entity missing from the evidence disagrees with an evidence entity
//!   missing from the claim when both stand in the same role: the same word
//!   before them, or the same word after them, or both first in their
//!   passage (a *swapped* entity). Otherwise the claim's entity is only
//!   missing.

use std::collections::BTreeSet;

use super::quantities::{self, Date, Quantity};
use super::tokens::{self, Word};
use crate::unicode_class::fold_digits;

/// Month and weekday names: capitalised, but not entities.
const CALENDAR: &[&str] = &[
    "april",
    "august",
    "december",
    "february",
    "friday",
    "january",
    "july",
    "june",
    "march",
    "may",
    "monday",
    "november",
    "october",
    "saturday",
    "september",
    "sunday",
    "thursday",
    "tuesday",
    "wednesday",
];

/// Currency codes: capitalised, but part of a number.
const CURRENCY_CODES: &[&str] = &["aud", "cad", "chf", "eur", "gbp", "inr", "jpy", "usd"];

/// Words that belong to a written number (scale, percent, currency): they
/// are checked with the number, not counted as content words.
const QUANTITY_WORDS: &[&str] = &[
    "billion", "bn", "cent", "dollar", "dollars", "euro", "euros", "k", "m", "million", "pct",
    "percent", "pound", "pounds", "thousand", "trillion",
];

/// A capitalised word and the words around it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entity {
    /// Stem of the lowercase word.
    pub(crate) stem: String,
    /// The word as written.
    pub(crate) text: String,
    /// Lowercase word before it, if any.
    pub(crate) before: Option<String>,
    /// Lowercase word after it, if any.
    pub(crate) after: Option<String>,
}

/// What a passage states, for matching and checking.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Features {
    /// Stems of its content words (no stop words, no pure numbers).
    pub(crate) words: BTreeSet<String>,
    /// `words` plus keys of its numbers and dates, for ranking evidence.
    pub(crate) tokens: BTreeSet<String>,
    /// Its entities.
    pub(crate) entities: Vec<Entity>,
    /// Its numbers.
    pub(crate) numbers: Vec<Quantity>,
    /// Its dates.
    pub(crate) dates: Vec<Date>,
    /// The first negation cue, if any.
    pub(crate) negation: Option<String>,
}

/// Stems of capitalised words written away from a passage start: names.
pub(crate) fn known_names(text: &str, known: &mut BTreeSet<String>) {
    for s in super::claims::sentences(&fold_digits(text)) {
        for w in tokens::words(&s) {
            if !w.initial && is_name_word(&w) {
                known.insert(tokens::stem(&w.lower));
            }
        }
    }
}

fn is_name_word(w: &Word) -> bool {
    w.capitalised()
        && w.has_letter()
        && !tokens::is_stop_word(&w.lower)
        && CALENDAR.binary_search(&w.lower.as_str()).is_err()
        && CURRENCY_CODES.binary_search(&w.lower.as_str()).is_err()
}

impl Features {
    /// The features of `text` (its digits folded to ASCII), with `known`
    /// names (see [`known_names`]).
    pub(crate) fn of(text: &str, known: &BTreeSet<String>) -> Features {
        // Everything below reads the folded text only: its byte offsets
        // never index `text`.
        let folded = fold_digits(text);
        let text = folded.as_ref();
        let words = tokens::words(text);
        let mut f = Features::default();
        for (i, w) in words.iter().enumerate() {
            if f.negation.is_none() && tokens::is_negation(&w.lower) {
                f.negation = Some(w.text.clone());
            }
            if !w.has_letter() || tokens::is_stop_word(&w.lower) {
                continue;
            }
            let stem = tokens::stem(&w.lower);
            if CURRENCY_CODES.binary_search(&w.lower.as_str()).is_err()
                && QUANTITY_WORDS.binary_search(&w.lower.as_str()).is_err()
            {
                f.words.insert(stem.clone());
            }
            if is_name_word(w) && (!w.initial || known.contains(&stem)) {
                f.entities.push(Entity {
                    stem,
                    text: w.text.clone(),
                    before: i.checked_sub(1).and_then(|j| words.get(j)).map(|w| w.lower.clone()),
                    after: words.get(i + 1).map(|w| w.lower.clone()),
                });
            }
        }
        let (dates, numbers) = quantities::extract(text);
        f.tokens = f.words.clone();
        f.tokens.extend(dates.iter().map(Date::key));
        f.tokens.extend(numbers.iter().map(|q| format!("n:{}", q.value)));
        f.dates = dates;
        f.numbers = numbers;
        f
    }

    /// Whether the passage states nothing to check (no content word, number
    /// or date).
    pub(crate) fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }
}

/// What the checks found for one claim against one evidence passage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Finding {
    /// The evidence says otherwise (message).
    Conflict(String),
    /// The evidence lacks a fact of the claim (message).
    Missing(String),
    /// Every number, date and entity of the claim is in the evidence.
    Backed,
}

/// Runs every check of `claim` against `evidence` (`source` names the
/// evidence in messages: `reference`, `context[1]`). The first conflict
/// wins; then the first missing fact.
pub(crate) fn check(claim: &Features, evidence: &Features, source: &str) -> Finding {
    let mut missing: Option<String> = None;
    match (&claim.negation, &evidence.negation) {
        (Some(c), None) => {
            return Finding::Conflict(format!("claim is negated (\"{c}\") but {source} is not"));
        }
        (None, Some(e)) => {
            return Finding::Conflict(format!("{source} is negated (\"{e}\") but claim is not"));
        }
        _ => {}
    }
    let q = compare(&claim.numbers, &evidence.numbers, Quantity::agrees, Quantity::comparable);
    if let Some((c, e)) = q.conflict {
        return Finding::Conflict(format!(
            "number {} disagrees with {} in {source}",
            c.text, e.text
        ));
    }
    if let Some(c) = q.missing {
        missing.get_or_insert(format!("number {} not found in {source}", c.text));
    }
    let d = compare(&claim.dates, &evidence.dates, Date::agrees, Date::comparable);
    if let Some((c, e)) = d.conflict {
        return Finding::Conflict(format!("date {} disagrees with {} in {source}", c.text, e.text));
    }
    if let Some(c) = d.missing {
        missing.get_or_insert(format!("date {} not found in {source}", c.text));
    }
    if let Some((c, e)) = swapped_entities(claim, evidence).first() {
        return Finding::Conflict(format!(
            "entity {} disagrees with {} in {source}",
            c.text, e.text
        ));
    }
    if let Some(c) = claim.entities.iter().find(|e| !evidence.words.contains(&e.stem)) {
        missing.get_or_insert(format!("name {} not found in {source}", c.text));
    }
    missing.map_or(Finding::Backed, Finding::Missing)
}

/// Claim entities missing from the evidence, each with an evidence entity
/// missing from the claim that stands in the same role.
pub(crate) fn swapped_entities<'a>(
    claim: &'a Features,
    evidence: &'a Features,
) -> Vec<(&'a Entity, &'a Entity)> {
    let spare: Vec<&Entity> =
        evidence.entities.iter().filter(|e| !claim.words.contains(&e.stem)).collect();
    claim
        .entities
        .iter()
        .filter(|e| !evidence.words.contains(&e.stem))
        .filter_map(|c| spare.iter().find(|e| same_role(c, e)).map(|e| (c, *e)))
        .collect()
}

/// Share of the claim's content words found in the evidence, leaving out
/// swapped entities (see [`swapped_entities`]); a claim without content
/// words uses its numbers and dates.
pub(crate) fn word_overlap(claim: &Features, evidence: &Features) -> f64 {
    let (part, whole) = if claim.words.is_empty() {
        (&claim.tokens, &evidence.tokens)
    } else {
        (&claim.words, &evidence.words)
    };
    let n = part.len();
    let found = part.iter().filter(|w| whole.contains(*w)).count();
    if n == 0 {
        return 0.0;
    }
    // Only unfound entities can be swapped; skip the work when none is.
    let unfound_entities = claim.entities.iter().any(|e| !evidence.words.contains(&e.stem));
    if found == n || !unfound_entities || claim.words.is_empty() {
        return found as f64 / n as f64;
    }
    let swapped: BTreeSet<&String> =
        swapped_entities(claim, evidence).into_iter().map(|(c, _)| &c.stem).collect();
    let counted = n - swapped.len().min(n);
    if counted == 0 { 0.0 } else { found as f64 / counted as f64 }
}

fn same_role(a: &Entity, b: &Entity) -> bool {
    (a.before.is_some() && a.before == b.before)
        || (a.after.is_some() && a.after == b.after)
        || (a.before.is_none() && b.before.is_none())
}

struct Compared<'a, T> {
    conflict: Option<(&'a T, &'a T)>,
    missing: Option<&'a T>,
}

/// Claim items without an agreeing evidence item: the first that has a
/// comparable evidence item backing no claim item is a conflict, else the
/// first is missing.
fn compare<'a, T>(
    claim: &'a [T],
    evidence: &'a [T],
    agrees: fn(&T, &T) -> bool,
    comparable: fn(&T, &T) -> bool,
) -> Compared<'a, T> {
    let spare: Vec<&T> = evidence.iter().filter(|e| !claim.iter().any(|c| agrees(c, e))).collect();
    let mut out = Compared { conflict: None, missing: None };
    for c in claim.iter().filter(|c| !evidence.iter().any(|e| agrees(c, e))) {
        if let Some(e) = spare.iter().find(|e| comparable(c, e)) {
            out.conflict = Some((c, *e));
            return out;
        }
        out.missing.get_or_insert(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(t: &str) -> Features {
        Features::of(t, &BTreeSet::new())
    }

    fn run(c: &str, e: &str) -> Finding {
        check(&f(c), &f(e), "reference")
    }

    #[test]
    fn lists_are_sorted() {
        assert!(CALENDAR.windows(2).all(|w| w[0] < w[1]));
        assert!(CURRENCY_CODES.windows(2).all(|w| w[0] < w[1]));
        assert!(QUANTITY_WORDS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn features() {
        let x = f("The Company hired 200 staff in Berlin on 2021-03-05, not in May.");
        assert!(x.words.contains("hir") && x.words.contains("berlin"));
        assert_eq!(f("It made $3.5 million, up 5 percent").words.len(), 1);
        assert!(!x.words.contains("the"));
        assert_eq!(
            x.entities.iter().map(|e| e.text.as_str()).collect::<Vec<_>>(),
            ["Company", "Berlin"]
        );
        assert_eq!(x.numbers.len(), 1);
        assert_eq!(x.dates.len(), 1);
        assert_eq!(x.negation.as_deref(), Some("not"));
        assert!(f("").is_empty());
    }

    #[test]
    fn number_conflicts() {
        assert_eq!(
            run("Revenue grew 42% in 2023.", "Revenue grew 24% in 2023."),
            Finding::Conflict("number 42% disagrees with 24% in reference".into())
        );
        assert_eq!(run("Revenue grew 24% in 2023.", "In 2023 revenue grew 24%."), Finding::Backed);
        assert_eq!(
            run("Revenue grew 24% to $5 million.", "Revenue grew 24%."),
            Finding::Missing("number $5 million not found in reference".into())
        );
    }

    #[test]
    fn date_and_negation_conflicts() {
        assert_eq!(
            run("It was founded in 1998.", "It was founded in 1997."),
            Finding::Conflict("date 1998 disagrees with 1997 in reference".into())
        );
        assert_eq!(
            run("The store is not open on Sundays.", "The store is open on Sundays."),
            Finding::Conflict("claim is negated (\"not\") but reference is not".into())
        );
        assert!(matches!(run("It opens daily.", "It never opens."), Finding::Conflict(_)));
        assert_eq!(run("It isn't open.", "It is not open."), Finding::Backed);
    }

    #[test]
    fn overlap_leaves_out_swapped_entities() {
        let (c, e) = (
            f("The company is headquartered in Munich."),
            f("The company is headquartered in Berlin."),
        );
        assert_eq!(word_overlap(&c, &e), 1.0);
        let (c, e) = (f("Apple sold phones in California."), f("Apple sold phones with Steve."));
        assert!((word_overlap(&c, &e) - 0.75).abs() < 1e-12);
        assert_eq!(word_overlap(&f("It was 42."), &f("The answer: 42")), 1.0);
        assert_eq!(word_overlap(&f("It was."), &f("The answer: 42")), 0.0);
    }

    #[test]
    fn entity_conflicts() {
        assert_eq!(
            run("The capital of France is Lyon.", "The capital of France is Paris."),
            Finding::Conflict("entity Lyon disagrees with Paris in reference".into())
        );
        assert_eq!(
            run("Apple sold phones in California.", "Apple sold phones with Steve on stage."),
            Finding::Missing("name California not found in reference".into())
        );
        assert_eq!(run("It is sold by Acme.", "Acme sells it."), Finding::Backed);
    }
}
