//! Splitting text into sentences and claims.
//!
//! 1. **Blocks.** The text is read line by line. A Markdown heading line
//!    (`#`) and a table separator row are dropped; a line starting with a
//!    bullet (`-`, `*`, `+`, `•`, `‣`, `◦`) or a list number (`1.`, `2)`,
//!    `a)`; the number in any decimal digits, so `１.` too) starts a block
//!    of its own; other lines continue the current block until a blank
//!    line. Table rows become one block with the cells joined by `; `.
//! 2. **Sentences.** A block is cut after `.`, `!`, `?` or `…` (runs such
//!    as `?!` or `...` count once, closing quotes and brackets stay with the
//!    sentence) when white space and then a character that is not a
//!    lowercase letter follow, or at the end. A piece without letters or
//!    digits (an emoji) stays with the sentence before it. A `.` does not end a sentence
//!    after an abbreviation (`e.g.`, `Dr.`, `Inc.`, `approx.`, ...; see
//!    [`ABBREVIATIONS`]), after a single letter (an initial such as `J.`) or
//!    after a word with an inner dot (`U.S.`). A decimal point (`3.5`) is
//!    never followed by white space, so it never cuts.
//! 3. **Clauses.** A sentence is cut before `;`, `, and `, `, but `,
//!    ` but `, `, whereas `, `, while `, `, although ` and `, however`. The
//!    joining word is dropped from the claim. A piece with fewer than four
//!    words stays joined to the piece before it (so `apples, pears, and
//!    plums` and `not on Monday but on Tuesday` stay whole).

use super::tokens;
use crate::unicode_class::decimal_digit_value;

/// Abbreviations after which a `.` does not end a sentence (lowercase,
/// without the final dot).
pub(crate) const ABBREVIATIONS: &[&str] = &[
    "al", "approx", "apr", "aug", "ave", "ca", "cf", "co", "corp", "dec", "dept", "dr", "e.g",
    "eg", "est", "etc", "feb", "fig", "gen", "gov", "i.e", "ie", "inc", "jan", "jr", "jul", "jun",
    "lt", "ltd", "mar", "mr", "mrs", "ms", "mt", "no", "nov", "oct", "p.m", "a.m", "pp", "prof",
    "rev", "sep", "sept", "sgt", "sr", "st", "vol", "vs",
];

/// Conjunctions a clause may be cut before, with the text that follows them.
const CLAUSE_CUTS: &[&str] =
    &[", and ", ", but ", " but ", ", whereas ", ", while ", ", although ", ", however"];

/// Fewest words a clause needs to stand as a claim of its own.
const MIN_CLAUSE_WORDS: usize = 4;

/// The sentences of `text` (bullets and list items are sentences of their
/// own).
pub(crate) fn sentences(text: &str) -> Vec<String> {
    blocks(text).iter().flat_map(|b| split_sentences(b)).collect()
}

/// The claims of `text`: its sentences, cut into clauses.
pub(crate) fn claims(text: &str) -> Vec<String> {
    sentences(text).iter().flat_map(|s| clauses(s)).collect()
}

/// Cuts `text` into blocks (paragraphs, list items, table rows).
fn blocks(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    let push = |cur: &mut String, out: &mut Vec<String>| {
        let t = cur.trim();
        if !t.is_empty() {
            out.push(t.to_owned());
        }
        cur.clear();
    };
    for line in text.lines() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') || t.starts_with("```") {
            push(&mut cur, &mut out);
            continue;
        }
        if t.starts_with('|') {
            push(&mut cur, &mut out);
            let cells: Vec<&str> =
                t.trim_matches('|').split('|').map(str::trim).filter(|c| !c.is_empty()).collect();
            if cells.iter().any(|c| c.chars().any(char::is_alphanumeric)) {
                out.push(cells.join("; "));
            }
            continue;
        }
        if let Some(rest) = strip_bullet(t) {
            push(&mut cur, &mut out);
            cur.push_str(rest);
            continue;
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(t);
    }
    push(&mut cur, &mut out);
    out
}

/// The line without its bullet or list number, if it has one.
fn strip_bullet(line: &str) -> Option<&str> {
    let mut chars = line.char_indices();
    let (_, first) = chars.next()?;
    if matches!(first, '-' | '*' | '+' | '•' | '‣' | '◦' | '▪') {
        let rest = &line[first.len_utf8()..];
        return rest.starts_with(char::is_whitespace).then(|| rest.trim_start());
    }
    // `12.` / `3)` / `a)` followed by white space; the digits may be any
    // decimal digits (`１２.`), so the marker is measured in bytes.
    let is_digit = |c: &char| decimal_digit_value(*c).is_some();
    let digits = line.chars().take_while(is_digit).count();
    let (marker_len, ok) = if (1..=3).contains(&digits) {
        (line.chars().take_while(is_digit).map(char::len_utf8).sum(), true)
    } else {
        (first.len_utf8(), first.is_ascii_lowercase())
    };
    if !ok {
        return None;
    }
    let rest = line.get(marker_len..)?;
    let closer = rest.chars().next()?;
    let allowed = if digits > 0 { closer == '.' || closer == ')' } else { closer == ')' };
    let after = &rest[closer.len_utf8()..];
    (allowed && after.starts_with(char::is_whitespace)).then(|| after.trim_start())
}

/// Cuts a block into sentences.
fn split_sentences(block: &str) -> Vec<String> {
    let chars: Vec<(usize, char)> = block.char_indices().collect();
    let mut out = Vec::new();
    let mut start = 0usize;
    let mut i = 0usize;
    while i < chars.len() {
        let (_, c) = chars[i];
        if !matches!(c, '.' | '!' | '?' | '…') {
            i += 1;
            continue;
        }
        // Extend over the run of terminators and closing marks.
        let mut j = i + 1;
        while j < chars.len() && matches!(chars[j].1, '.' | '!' | '?' | '…') {
            j += 1;
        }
        while j < chars.len() && matches!(chars[j].1, '"' | '\'' | '”' | '’' | ')' | ']') {
            j += 1;
        }
        let end = chars.get(j).map_or(block.len(), |&(b, _)| b);
        let at_end = j >= chars.len();
        let space_after = chars.get(j).is_some_and(|&(_, c)| c.is_whitespace());
        let next = chars[j..].iter().map(|&(_, c)| c).find(|c| !c.is_whitespace());
        let cuts = at_end
            || (space_after
                && !next.is_some_and(char::is_lowercase)
                && !(c == '.' && j == i + 1 && is_abbreviation(&block[..chars[i].0])));
        if cuts {
            push_sentence(&mut out, block[start..end].trim());
            start = end;
        }
        i = j;
    }
    push_sentence(&mut out, block.get(start..).unwrap_or("").trim());
    out
}

/// Adds a sentence; a piece without letters or digits (an emoji, `--`)
/// joins the sentence before it.
fn push_sentence(out: &mut Vec<String>, s: &str) {
    if s.chars().any(char::is_alphanumeric) {
        out.push(s.to_owned());
    } else if let Some(last) = out.last_mut()
        && !s.is_empty()
    {
        last.push(' ');
        last.push_str(s);
    }
}

/// Whether the text before a `.` ends with an abbreviation, an initial or
/// a dotted word.
fn is_abbreviation(before: &str) -> bool {
    let word = before.rsplit(|c: char| c.is_whitespace() || c == '(').next().unwrap_or("");
    let lower = word.to_lowercase();
    if lower.is_empty() {
        return false;
    }
    let letters = lower.chars().filter(|c| c.is_alphabetic()).count();
    (letters == 1 && lower.chars().count() == 1)
        || lower.contains('.')
        || ABBREVIATIONS.contains(&lower.as_str())
}

/// Cuts a sentence into clauses.
pub(crate) fn clauses(sentence: &str) -> Vec<String> {
    let bytes = sentence.as_bytes();
    let mut cuts: Vec<(usize, usize)> = Vec::new(); // (cut at, next piece starts at)
    for (i, ch) in sentence.char_indices() {
        if ch == ';' {
            cuts.push((i, i + 1));
            continue;
        }
        let rest = bytes.get(i..).unwrap_or_default();
        if let Some(pat) = CLAUSE_CUTS
            .iter()
            .find(|p| rest.len() >= p.len() && rest[..p.len()].eq_ignore_ascii_case(p.as_bytes()))
        {
            cuts.push((i, i + pat.len()));
        }
    }
    let mut spans: Vec<(usize, usize)> = Vec::new();
    let mut start = 0usize;
    for &(at, next) in cuts.iter().chain(std::iter::once(&(sentence.len(), sentence.len()))) {
        if at < start {
            continue;
        }
        spans.push((start, at));
        start = next;
    }
    // A piece that is too short stays with the piece before it, as written.
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for (s, e) in spans {
        let short = word_count(sentence.get(s..e).unwrap_or("")) < MIN_CLAUSE_WORDS;
        match merged.last_mut() {
            Some(last) if short => last.1 = e,
            _ => merged.push((s, e)),
        }
    }
    // A short first piece joins the next one.
    if merged.len() > 1
        && word_count(sentence.get(merged[0].0..merged[0].1).unwrap_or("")) < MIN_CLAUSE_WORDS
    {
        merged[1].0 = merged[0].0;
        merged.remove(0);
    }
    let pieces: Vec<String> = merged
        .iter()
        .filter_map(|&(s, e)| sentence.get(s..e).map(clean))
        .filter(|p| p.chars().any(char::is_alphanumeric))
        .collect();
    if pieces.is_empty() { vec![sentence.to_owned()] } else { pieces }
}

/// Trims white space and joining punctuation around a piece.
fn clean(piece: &str) -> String {
    piece.trim_matches(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | ':')).to_owned()
}

fn word_count(s: &str) -> usize {
    tokens::words(s).len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_and_abbreviations() {
        let s = sentences(
            "Dr. Smith paid $3.5 million, e.g. for land. It closed in the U.S. market. Really? Yes!",
        );
        assert_eq!(
            s,
            [
                "Dr. Smith paid $3.5 million, e.g. for land.",
                "It closed in the U.S. market.",
                "Really?",
                "Yes!"
            ]
        );
        assert_eq!(sentences("J. K. Rowling wrote it. Done"), ["J. K. Rowling wrote it.", "Done"]);
        assert_eq!(sentences("He said \"stop.\" Then left."), ["He said \"stop.\"", "Then left."]);
    }

    #[test]
    fn bullets_headings_tables() {
        let text = "# Summary\nThe plan has\nthree parts.\n- First item here\n* Second item\n2) Third one\n\n| a | b |\n|---|---|\n| x | y |";
        assert_eq!(
            sentences(text),
            [
                "The plan has three parts.",
                "First item here",
                "Second item",
                "Third one",
                "a; b",
                "x; y"
            ]
        );
    }

    #[test]
    fn list_numbers_in_any_digits() {
        let text = "Steps:\n１. Pay the invoice\n１２) File it\n٣. Archive it\n𝟒. Done\n１２３４. Not a list number";
        assert_eq!(
            sentences(text),
            [
                "Steps:",
                "Pay the invoice",
                "File it",
                "Archive it",
                "Done １２３４.",
                "Not a list number"
            ]
        );
    }

    #[test]
    fn clause_cuts() {
        assert_eq!(
            clauses("The company was founded in 1998, and it is headquartered in Berlin."),
            ["The company was founded in 1998", "it is headquartered in Berlin."]
        );
        assert_eq!(
            clauses("Sales rose in Europe; they fell sharply in Asia."),
            ["Sales rose in Europe", "they fell sharply in Asia."]
        );
        assert_eq!(
            clauses("We sell apples, pears, and plums."),
            ["We sell apples, pears, and plums."]
        );
        assert_eq!(
            clauses("The meeting is not on Monday but on Tuesday."),
            ["The meeting is not on Monday but on Tuesday."]
        );
        assert_eq!(
            clauses("Revenue grew strongly this year, but profit fell by a third."),
            ["Revenue grew strongly this year", "profit fell by a third."]
        );
    }

    #[test]
    fn claims_combine_both() {
        let c = claims(
            "Paris is the capital of France, and it has about 2.1 million people. Lyon is smaller.",
        );
        assert_eq!(c.len(), 3, "{c:?}");
        assert!(claims("").is_empty());
        assert!(claims("...\n\n---").is_empty());
    }
}
