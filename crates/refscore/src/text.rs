//! String similarity: normalized Levenshtein over Unicode scalar values.

/// The largest edit-distance computation done exactly regardless of the
/// strings: `len(a) × len(b)` (in Unicode scalar values) up to this many
/// cells, a fraction of a second. Above it, the distance is still exact
/// when the strings differ by at most [`exact_band`] edits (a banded
/// computation over as many cells); otherwise it is the sum of the
/// distances of aligned [`BLOCK`]-character blocks (plus the unpaired
/// tail), an upper bound of the true distance computed in time linear in
/// the length. A similarity above the limit is therefore exact or a lower
/// bound, never an overestimate, and a row never stalls on two long
/// different strings.
pub const EDIT_DISTANCE_LIMIT: u64 = 1 << 32;

/// The smallest band [`exact_band`] gives: strings this many edits apart
/// or fewer always get their exact distance.
pub const EXACT_BAND: usize = 63;

/// Above [`EDIT_DISTANCE_LIMIT`], the number of edits up to which the
/// distance of two strings, the longer `longer` characters long, is still
/// exact: the widest band `2k + 1` whose `longer × (2k + 1)` cells fit the
/// limit, at least [`EXACT_BAND`] (two 66,000-character strings: 32,537
/// edits; two of 1,000,000: 2,146).
pub fn exact_band(longer: usize) -> usize {
    let cells = EDIT_DISTANCE_LIMIT / (longer.max(1) as u64);
    usize::try_from(cells.saturating_sub(1) / 2).unwrap_or(usize::MAX).max(EXACT_BAND)
}

/// The block length of the bounded distance above [`EDIT_DISTANCE_LIMIT`].
pub const BLOCK: usize = 4096;

/// Levenshtein distance of two sequences, bounded as described at
/// [`EDIT_DISTANCE_LIMIT`].
fn bounded_distance<T>(a: &[T], b: &[T]) -> usize
where
    T: PartialEq + rapidfuzz::HashableChar + Copy,
{
    use rapidfuzz::distance::levenshtein::{Args, distance, distance_with_args};
    let cells = (a.len() as u64).saturating_mul(b.len() as u64);
    if cells <= EDIT_DISTANCE_LIMIT {
        return distance(a.iter().copied(), b.iter().copied());
    }
    let band = Args::default().score_cutoff(exact_band(a.len().max(b.len())));
    if let Some(d) = distance_with_args(a.iter().copied(), b.iter().copied(), &band) {
        return d;
    }
    let paired = a.len().div_ceil(BLOCK).min(b.len().div_ceil(BLOCK));
    let blocks: usize = a
        .chunks(BLOCK)
        .zip(b.chunks(BLOCK))
        .map(|(x, y)| distance(x.iter().copied(), y.iter().copied()))
        .sum();
    let covered = paired.saturating_mul(BLOCK);
    let tail = a.len().saturating_sub(covered) + b.len().saturating_sub(covered);
    (blocks + tail).min(a.len().max(b.len()))
}

/// Levenshtein distance and the longer length, in bytes for two ASCII
/// strings, else in Unicode scalar values.
fn distance_and_length(a: &str, b: &str) -> (usize, usize) {
    if a.is_ascii() && b.is_ascii() {
        (bounded_distance(a.as_bytes(), b.as_bytes()), a.len().max(b.len()))
    } else {
        let (x, y): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
        (bounded_distance(&x, &y), x.len().max(y.len()))
    }
}

/// Whether the exact distance of `a` and `b` costs more than
/// [`EDIT_DISTANCE_LIMIT`] cells (byte lengths bound the scalar counts).
fn over_limit(a: &str, b: &str) -> bool {
    let bytes = (a.len() as u64).saturating_mul(b.len() as u64);
    bytes > EDIT_DISTANCE_LIMIT
        && (a.chars().count() as u64).saturating_mul(b.chars().count() as u64) > EDIT_DISTANCE_LIMIT
}

/// How alike an unknown name and a known one must be (normalized
/// Levenshtein similarity, case and `-`/`_` aside) for [`closest`] to
/// suggest it: one edit in four characters, as `json_mach` is to
/// `json_match` (0.9), not `tone` to `nope` (0.5).
const CLOSE: f64 = 0.75;

/// The name among `known` that an unknown `name` most likely meant (a
/// misspelling): the one whose similarity to it is highest and at least
/// [`CLOSE`], or `None` when no name is that close or two are equally so.
pub fn closest<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let key = |s: &str| s.to_lowercase().replace('-', "_");
    let wanted = key(name);
    let mut best: Option<(f64, &'a str)> = None;
    let mut tied = false;
    for candidate in known {
        let s = normalized_levenshtein(&wanted, &key(candidate));
        if s < CLOSE {
            continue;
        }
        match best {
            Some((b, _)) if s < b => {}
            Some((b, _)) if s == b => tied = true,
            _ => {
                best = Some((s, candidate));
                tied = false;
            }
        }
    }
    best.filter(|_| !tied).map(|(_, candidate)| candidate)
}

/// `1 − levenshtein(a, b) / max(len(a), len(b))`, lengths in Unicode scalar
/// values (as Python counts them); `1.0` when both are empty. Bounded in
/// cost for long strings: see [`EDIT_DISTANCE_LIMIT`].
pub fn normalized_levenshtein(a: &str, b: &str) -> f64 {
    if a == b {
        return 1.0;
    }
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    if over_limit(a, b) {
        let (d, long) = distance_and_length(a, b);
        #[allow(clippy::cast_precision_loss)]
        return crate::number::finite(1.0 - d as f64 / long as f64).clamp(0.0, 1.0);
    }
    let sim = if a.is_ascii() && b.is_ascii() {
        rapidfuzz::distance::levenshtein::normalized_similarity(a.bytes(), b.bytes())
    } else {
        rapidfuzz::distance::levenshtein::normalized_similarity(a.chars(), b.chars())
    };
    crate::number::finite(sim).clamp(0.0, 1.0)
}

/// [`normalized_levenshtein`] when it is at least `cutoff`, else 0; faster
/// than computing the exact similarity of two dissimilar strings (the
/// length difference alone often rules them out).
pub fn normalized_levenshtein_at_least(a: &str, b: &str, cutoff: f64) -> f64 {
    use rapidfuzz::distance::levenshtein::{Args, normalized_similarity_with_args};
    if a == b {
        return 1.0;
    }
    let (la, lb) = (a.chars().count(), b.chars().count());
    let (short, long) = (la.min(lb), la.max(lb));
    #[allow(clippy::cast_precision_loss)]
    if long == 0 || (short as f64) < cutoff * long as f64 {
        return 0.0;
    }
    #[allow(clippy::cast_precision_loss)]
    if a.is_ascii()
        && b.is_ascii()
        && 1.0 - bag_distance(a.as_bytes(), b.as_bytes()) as f64 / (long as f64) < cutoff
    {
        return 0.0;
    }
    if over_limit(a, b) {
        let s = normalized_levenshtein(a, b);
        return if s >= cutoff { s } else { 0.0 };
    }
    let args = Args::default().score_cutoff(cutoff);
    let sim = if a.is_ascii() && b.is_ascii() {
        normalized_similarity_with_args(a.bytes(), b.bytes(), &args)
    } else {
        normalized_similarity_with_args(a.chars(), b.chars(), &args)
    };
    sim.map_or(0.0, |x| crate::number::finite(x).clamp(0.0, 1.0))
}

/// A lower bound of the Levenshtein distance of two byte strings: the
/// larger of the two one-sided multiset differences of their bytes.
fn bag_distance(a: &[u8], b: &[u8]) -> usize {
    let mut counts = [0i32; 256];
    for &x in a {
        counts[usize::from(x)] += 1;
    }
    for &x in b {
        counts[usize::from(x)] -= 1;
    }
    let (mut only_a, mut only_b) = (0usize, 0usize);
    for c in counts {
        if c > 0 {
            only_a += c.unsigned_abs() as usize;
        } else {
            only_b += c.unsigned_abs() as usize;
        }
    }
    only_a.max(only_b)
}

/// Levenshtein distance in Unicode scalar values, bounded in cost for long
/// strings: see [`EDIT_DISTANCE_LIMIT`].
pub fn levenshtein(a: &str, b: &str) -> usize {
    use rapidfuzz::distance::levenshtein::distance;
    if over_limit(a, b) {
        distance_and_length(a, b).0
    } else if a.is_ascii() && b.is_ascii() {
        distance(a.bytes(), b.bytes())
    } else {
        distance(a.chars(), b.chars())
    }
}

/// `n` and the noun for it: `1 row`, `3 rows` (`one` for one, `many`
/// for any other number), for messages that count things.
pub fn counted(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Trims whitespace as JavaScript's `String.prototype.trim` does: Unicode
/// white space and line terminators, plus the byte-order mark, but not
/// U+0085 (NEXT LINE), which Unicode calls white space and JavaScript does
/// not.
pub fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_whitespace)
}

/// Whether JavaScript's `trim` removes `c`: the `WhiteSpace` and
/// `LineTerminator` productions of ECMAScript.
pub fn is_js_whitespace(c: char) -> bool {
    c == '\u{feff}' || (c.is_whitespace() && c != '\u{85}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_thing_is_counted_in_the_singular() {
        assert_eq!(counted(1, "row", "rows"), "1 row");
        assert_eq!(counted(0, "row", "rows"), "0 rows");
        assert_eq!(counted(2, "run", "runs"), "2 runs");
    }

    #[test]
    fn known_values() {
        assert!((normalized_levenshtein("pepperoni", "peppers") - (1.0 - 3.0 / 9.0)).abs() < 1e-12);
        assert_eq!(normalized_levenshtein("", ""), 1.0);
        assert_eq!(normalized_levenshtein("a", ""), 0.0);
        assert_eq!(normalized_levenshtein("😀", "😃"), 0.0);
        assert!(
            (normalized_levenshtein("kitten", "sitting") - 0.571_428_571_428_571_4).abs() < 1e-12
        );
        assert_eq!(levenshtein("héllo", "hello"), 1);
    }

    #[test]
    fn long_different_strings_are_bounded_and_never_overestimated() {
        // 200k × 200k characters: far above the limit.
        let n = 200_000;
        let a: String = (0..n).map(|i| char::from(b'a' + (i * 7 % 26) as u8)).collect();
        let b: String = (0..n).map(|i| char::from(b'a' + (i * 11 % 26) as u8)).collect();
        let s = normalized_levenshtein(&a, &b);
        assert!((0.0..1.0).contains(&s), "{s}");
        // A few edits apart: exact through the band.
        let mut c = a.clone();
        c.replace_range(10..13, "xyz");
        c.push('q');
        assert_eq!(levenshtein(&a, &c), 4);
        let u: String = a.chars().map(|ch| if ch == 'a' { 'é' } else { ch }).collect();
        let mut v = u.clone();
        v.insert(5, 'ß');
        assert_eq!(levenshtein(&u, &v), 1);
        // The block estimate is an upper bound of the distance.
        let (x, y) = ("ab".repeat(5000), "ba".repeat(5000));
        assert!(bounded_distance(x.as_bytes(), y.as_bytes()) >= 2);
        let small = bounded_distance(b"kitten", b"sitting");
        assert_eq!(small, 3);
        // Above the limit, within the band the cell limit allows (here
        // 30,634 edits), the distance is exact: 100 characters moved from
        // the front to the back cost exactly 200 edits, although every
        // aligned block sees a shift of 100 (the block estimate, all that
        // was computed past 63 edits before, counts more).
        let s: String = (0..70_000).map(|i| char::from(b'a' + (i * 7 % 13) as u8)).collect();
        let (front, back) = (format!("{}{s}", "y".repeat(100)), format!("{s}{}", "y".repeat(100)));
        assert!(over_limit(&front, &back));
        assert_eq!(exact_band(front.len()), 30_634);
        assert_eq!(levenshtein(&front, &back), 200);
        // Past the band (19,522 edits here), the block estimate: an upper
        // bound of a distance of at least 40,000 (110,000 characters with at
        // most 70,000 in common).
        let far = format!("{}{s}", "y".repeat(40_000));
        assert_eq!(exact_band(far.len()), 19_522);
        let d = levenshtein(&far, &format!("{s}{}", "y".repeat(40_000)));
        assert!(d >= 40_000 && d <= far.len(), "{d}");
    }

    #[test]
    fn the_exact_band_fills_the_cell_limit() {
        assert_eq!(exact_band(66_000), 32_537);
        assert_eq!(exact_band(1_000_000), 2_146);
        assert_eq!(exact_band(usize::MAX), EXACT_BAND);
        assert_eq!(exact_band(0), usize::try_from((EDIT_DISTANCE_LIMIT - 1) / 2).unwrap());
        for n in [65_537, 100_000, 8_388_608] {
            let k = exact_band(n) as u64;
            assert!(n as u64 * (2 * k + 1) <= EDIT_DISTANCE_LIMIT, "{n}");
        }
    }

    #[test]
    fn cutoff_agrees_above_and_is_zero_below() {
        for (a, b) in [
            ("ACME Corp", "ACME Corp."),
            ("kitten", "sitting"),
            ("abcdefgh", "abcdefgx"),
            ("é中文x", "é中文y"),
        ] {
            let s = normalized_levenshtein(a, b);
            let t = normalized_levenshtein_at_least(a, b, 0.8);
            if s >= 0.8 {
                assert!((s - t).abs() < 1e-12, "{a} {b}");
            } else {
                assert_eq!(t, 0.0, "{a} {b}");
            }
        }
        assert_eq!(normalized_levenshtein_at_least("a", "abcdefghij", 0.8), 0.0);
    }

    #[test]
    fn trims_like_js() {
        assert_eq!(js_trim("\u{feff} x \n"), "x");
        assert_eq!(js_trim("\u{a0}\u{2028}x\u{3000}\u{2029}"), "x");
        assert_eq!(js_trim("\u{85}x\u{85}"), "\u{85}x\u{85}");
        assert_eq!(js_trim("\u{180e}x"), "\u{180e}x");
    }
}
