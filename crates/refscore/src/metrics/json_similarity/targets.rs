//! `target_output_key`: the paths of both documents that `json_similarity`
//! compares, read as UiPath's `resolve_output_path` reads them.

use crate::engine::Comparison;
use crate::path::{JsonPath, PathSeg, Seg};
use crate::tree::Node;

/// What `target_output_key` selects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Targets {
    /// `*` (the default): the whole documents.
    Whole,
    /// One path: the values there.
    One(String),
    /// A list of paths: the object `{path: value}` of each side, each path
    /// once, in the order first listed (a Python dict's keys). The
    /// reference must then be an object; an empty list compares two empty
    /// objects (score 1).
    Many(Vec<String>),
}

impl Targets {
    /// One path; `*` is the whole documents.
    pub(super) fn one(path: String) -> Self {
        if path == "*" { Targets::Whole } else { Targets::One(path) }
    }

    /// A list of paths, repeats dropped.
    pub(super) fn many(paths: Vec<String>) -> Self {
        let mut seen = std::collections::HashSet::new();
        Targets::Many(paths.into_iter().filter(|p| seen.insert(p.clone())).collect())
    }

    /// The paths, none for the whole documents.
    pub(super) fn paths(&self) -> &[String] {
        match self {
            Targets::Whole => &[],
            Targets::One(p) => std::slice::from_ref(p),
            Targets::Many(p) => p,
        }
    }

    /// A path that holds no key and no index (`""`, `.`, `[]`): UiPath
    /// fails every row on it (`Invalid path`); here the suite is refused.
    pub(super) fn invalid(&self) -> Option<&str> {
        self.paths().iter().map(String::as_str).find(|p| *p != "*" && segments(p).is_empty())
    }
}

/// Splits a target path into keys and indices as UiPath does: runs of
/// characters other than `.`, `[` and `]` are keys, `[digits]` an index,
/// anything else is skipped; `*` is the whole document.
pub(super) fn segments(path: &str) -> Vec<Seg<'_>> {
    split(path).0
}

/// [`segments`], with what the split skipped that a well-formed path does
/// not have: a `[` that opens no index, a `]` that closes none, and a `.`
/// that separates no keys (at either end, or doubled); each with its byte
/// offset.
///
/// An index's digits are any Unicode decimal digits, as Python's `\d` and
/// `int` read them (`[٣]` is index 3); an index past `usize` is never in
/// range.
fn split(path: &str) -> (Vec<Seg<'_>>, Vec<(usize, &'static str)>) {
    let (mut segs, mut skipped) = (Vec::new(), Vec::new());
    if path == "*" {
        return (segs, skipped);
    }
    let bytes = path.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'.' => {
                let separates = i > 0
                    && !matches!(bytes[i - 1], b'.' | b'[')
                    && bytes.get(i + 1).is_some_and(|b| !matches!(b, b'.' | b'[' | b']'));
                if !separates {
                    skipped.push((i, "a `.` with no key after it"));
                }
                i += 1;
            }
            b']' => {
                skipped.push((i, "a `]` that closes no index"));
                i += 1;
            }
            b'[' => {
                let (mut index, mut end, mut digits) = (0usize, i + 1, 0);
                for c in path[i + 1..].chars() {
                    let Some(d) = decimal_digit(c) else { break };
                    index = index.saturating_mul(10).saturating_add(d as usize);
                    end += c.len_utf8();
                    digits += 1;
                }
                if digits > 0 && bytes.get(end) == Some(&b']') {
                    segs.push(Seg::Index(index));
                    i = end + 1;
                } else {
                    skipped.push((i, "a `[` that opens no index (`[N]`)"));
                    i += 1;
                }
            }
            _ => {
                let len =
                    bytes[i..].iter().take_while(|b| !matches!(b, b'.' | b'[' | b']')).count();
                segs.push(Seg::Key(&path[i..i + len]));
                i += len;
            }
        }
    }
    (segs, skipped)
}

/// The value of a Unicode decimal digit (general category Nd), as
/// Python's `int` reads it. Unicode assigns such digits only in runs of
/// ten, zero to nine in order, so a digit's value is its distance from
/// the start of its run of Nd characters, modulo ten.
fn decimal_digit(c: char) -> Option<u32> {
    use unicode_general_category::{GeneralCategory, get_general_category};
    if let Some(d) = c.to_digit(10) {
        return Some(d);
    }
    let nd = |c: char| get_general_category(c) == GeneralCategory::DecimalNumber;
    if !nd(c) {
        return None;
    }
    let code = u32::from(c);
    let run = (1..=code).take_while(|k| char::from_u32(code - k).is_some_and(nd)).count();
    u32::try_from(run % 10).ok()
}

/// A warning for a target path whose split skipped characters (see
/// [`split`]): the path still reads as UiPath reads it, which may not be
/// the path meant.
pub(super) fn warning(path: &str) -> Option<String> {
    let (segs, skipped) = split(path);
    let (at, what) = *skipped.first()?;
    let more = match skipped.len() {
        1 => String::new(),
        n => format!(" (and {} more)", n - 1),
    };
    Some(format!(
        "target_output_key `{path}`: {what} at byte {at} is skipped{more}, as \
         UiPath skips it; the path is read as {}",
        JsonPath::from_segs(&segs)
    ))
}

/// The value at `segs`, or what stopped the lookup.
pub(super) fn resolve<'v>(v: Node<'v>, segs: &[Seg<'_>]) -> Result<Node<'v>, String> {
    let mut cur = v;
    for seg in segs {
        cur = match seg {
            Seg::Key(k) if cur.is_object() => cur.get(k).ok_or_else(|| format!("no key `{k}`"))?,
            Seg::Index(i) if cur.is_array() => {
                cur.at(*i).ok_or_else(|| format!("index {i} out of range"))?
            }
            Seg::Key(k) => {
                return Err(format!("cannot read key `{k}` of {}", cur.kind().name()));
            }
            Seg::Index(i) => {
                return Err(format!("cannot read index {i} of {}", cur.kind().name()));
            }
            Seg::Pair { .. } => return Err(String::from("not a target path")),
        };
    }
    Ok(cur)
}

/// Puts the records of a target's comparison under the target's path
/// (its field tallies are put there as they are added to the others').
pub(super) fn prefix_records(c: &mut Comparison, segs: &[Seg<'_>]) {
    if segs.is_empty() {
        return;
    }
    let head: Vec<PathSeg> = segs.iter().map(|s| PathSeg::from(*s)).collect();
    for r in &mut c.records {
        let mut path = head.clone();
        path.append(&mut r.path.0);
        r.path = JsonPath(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_index_may_be_written_in_any_decimal_digits() {
        assert_eq!(segments("a[٣]"), [Seg::Key("a"), Seg::Index(3)]);
        assert_eq!(segments("a[３]"), [Seg::Key("a"), Seg::Index(3)]);
        assert_eq!(segments("a[1٠]"), [Seg::Key("a"), Seg::Index(10)]);
        // Mathematical digits: five runs of ten side by side.
        assert_eq!(segments("a[\u{1D7D7}]"), [Seg::Key("a"), Seg::Index(9)]);
        assert_eq!(segments("a[\u{1D7D8}]"), [Seg::Key("a"), Seg::Index(0)]);
        assert_eq!(segments("a[\u{1D7FF}]"), [Seg::Key("a"), Seg::Index(9)]);
        // Other numerals are not decimal digits: `Ⅲ` is part of a key.
        assert_eq!(segments("a[Ⅲ]"), [Seg::Key("a"), Seg::Key("Ⅲ")]);
        assert_eq!(segments("a[99999999999999999999999]"), [Seg::Key("a"), Seg::Index(usize::MAX)]);
    }

    #[test]
    fn a_path_with_no_key_or_index_is_invalid() {
        for p in ["", ".", "..", "[]", "][", "[.]"] {
            assert_eq!(Targets::one(p.to_owned()).invalid(), Some(p), "{p:?}");
        }
        assert_eq!(Targets::one(String::from("*")).invalid(), None);
        assert_eq!(Targets::many(vec![String::from("a"), String::new()]).invalid(), Some(""));
        assert_eq!(Targets::many(Vec::new()).invalid(), None);
    }

    #[test]
    fn a_list_keeps_each_path_once_in_the_order_first_listed() {
        let t = Targets::many(["b", "a", "b", "a.", "a"].map(String::from).to_vec());
        assert_eq!(t.paths(), ["b", "a", "a."]);
        assert_eq!(Targets::many(vec![String::from("*")]).paths(), ["*"]);
    }
}
