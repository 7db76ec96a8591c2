//! JSON paths of compared nodes: typed segments ([`Seg`], [`JsonPath`]),
//! written as `$.line_items[2].price` only when printed.

use std::fmt;

/// One step from a node to a child, borrowed from the documents.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seg<'a> {
    /// An object member.
    Key(&'a str),
    /// An array element by position.
    Index(usize),
    /// An element of aligned arrays: the reference's element `expected`
    /// paired with the output's element `actual` (either may be absent:
    /// a missing or an extra element).
    Pair {
        /// Index in the reference array.
        expected: Option<usize>,
        /// Index in the output array.
        actual: Option<usize>,
    },
}

impl<'a> Seg<'a> {
    /// The segment as a field's: its key, or `None` for an element
    /// (any index: [`WILDCARD`]).
    pub fn field_key(self) -> Option<&'a str> {
        match self {
            Seg::Key(k) => Some(k),
            _ => None,
        }
    }

    /// The bytes the segment takes kept in a record's path: its
    /// [`PathSeg`] and its key's bytes. At least what its printed form
    /// takes when the key needs no quotes (a key's length and its dot, an
    /// index's digits and brackets): a key of one byte prints in two but
    /// took some fifty in memory, so a budget of printed bytes let a
    /// document a few thousand levels deep keep 26 MB of paths a row.
    pub fn kept_len(self) -> usize {
        let key = match self {
            Seg::Key(k) => k.len(),
            _ => 0,
        };
        std::mem::size_of::<PathSeg>() + key
    }

    /// The index a path shows for an element: the reference's, else the
    /// output's.
    pub fn index(self) -> Option<usize> {
        match self {
            Seg::Key(_) => None,
            Seg::Index(i) => Some(i),
            Seg::Pair { expected, actual } => expected.or(actual),
        }
    }
}

/// One owned step of a [`JsonPath`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PathSeg {
    /// An object member.
    Key(Box<str>),
    /// An array element by position.
    Index(usize),
    /// A pair of aligned elements (see [`Seg::Pair`]).
    Pair {
        /// Index in the reference array.
        expected: Option<usize>,
        /// Index in the output array.
        actual: Option<usize>,
    },
}

impl PathSeg {
    /// The borrowed form.
    pub fn as_seg(&self) -> Seg<'_> {
        match self {
            PathSeg::Key(k) => Seg::Key(k),
            PathSeg::Index(i) => Seg::Index(*i),
            PathSeg::Pair { expected, actual } => {
                Seg::Pair { expected: *expected, actual: *actual }
            }
        }
    }
}

impl From<Seg<'_>> for PathSeg {
    fn from(s: Seg<'_>) -> Self {
        match s {
            Seg::Key(k) => PathSeg::Key(k.into()),
            Seg::Index(i) => PathSeg::Index(i),
            Seg::Pair { expected, actual } => PathSeg::Pair { expected, actual },
        }
    }
}

/// An owned path from the document's root.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct JsonPath(pub Vec<PathSeg>);

impl JsonPath {
    /// The root, `$`.
    pub fn root() -> Self {
        JsonPath(Vec::new())
    }

    /// The path of borrowed segments.
    pub fn from_segs(segs: &[Seg<'_>]) -> Self {
        JsonPath(segs.iter().map(|s| PathSeg::from(*s)).collect())
    }

    /// The segments.
    pub fn segs(&self) -> impl Iterator<Item = Seg<'_>> {
        self.0.iter().map(PathSeg::as_seg)
    }

    /// The path with every index written `[*]`: the field it belongs to.
    pub fn wildcard(&self) -> String {
        let mut out = String::from("$");
        for s in self.segs() {
            push_field_seg(&mut out, s.field_key());
        }
        out
    }

    /// Parses a path written by [`format_path`] (`$`, `.key`, `['key']`,
    /// `[3]`).
    ///
    /// # Errors
    /// The text is not such a path; the message names the offset.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut segs = Vec::new();
        let rest = text.strip_prefix('$').ok_or("a path starts with `$`")?;
        let b = rest.as_bytes();
        let mut i = 0;
        while i < b.len() {
            if b[i] == b'.' {
                let start = i + 1;
                let end = rest[start..].find(['.', '[']).map_or(rest.len(), |n| start + n);
                if start == end {
                    return Err(format!("empty key at offset {}", i + 1));
                }
                segs.push(PathSeg::Key(rest[start..end].into()));
                i = end;
            } else if rest[i..].starts_with("['") {
                let mut key = String::new();
                let mut chars = rest[i + 2..].char_indices();
                let mut closed = None;
                while let Some((n, c)) = chars.next() {
                    match c {
                        '\\' => match chars.next() {
                            Some((_, 'u')) => {
                                let hex: String = chars.by_ref().take(4).map(|(_, c)| c).collect();
                                let code = u32::from_str_radix(&hex, 16)
                                    .ok()
                                    .and_then(char::from_u32)
                                    .ok_or_else(|| format!("bad escape at offset {}", i + 3 + n))?;
                                key.push(code);
                            }
                            Some((_, c)) => key.push(c),
                            None => break,
                        },
                        '\'' => {
                            closed = Some(i + 2 + n + 1);
                            break;
                        }
                        c => key.push(c),
                    }
                }
                let after = closed.ok_or_else(|| format!("unclosed key at offset {}", i + 1))?;
                if !rest[after..].starts_with(']') {
                    return Err(format!("expected `]` at offset {}", after + 1));
                }
                segs.push(PathSeg::Key(key.into()));
                i = after + 1;
            } else if b[i] == b'[' {
                let close = rest[i..]
                    .find(']')
                    .ok_or_else(|| format!("unclosed `[` at offset {}", i + 1))?;
                let n = rest[i + 1..i + close]
                    .parse::<usize>()
                    .map_err(|_| format!("bad index at offset {}", i + 2))?;
                segs.push(PathSeg::Index(n));
                i += close + 1;
            } else {
                return Err(format!("unexpected `{}` at offset {}", &rest[i..=i], i + 1));
            }
        }
        Ok(JsonPath(segs))
    }
}

impl JsonPath {
    /// Appends the printed path (`$.items[2].price`) to `out`.
    pub fn write_to(&self, out: &mut String) {
        out.push('$');
        for s in self.segs() {
            push_seg(out, s);
        }
    }
}

impl fmt::Display for JsonPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::with_capacity(1 + 8 * self.0.len());
        self.write_to(&mut out);
        f.write_str(&out)
    }
}

/// Formats a path: `$`, then `.key` for identifier-like keys, `['key']` for
/// others (quotes and backslashes escaped), and `[i]` for indices.
pub fn format_path(segs: &[Seg<'_>]) -> String {
    let mut out = String::with_capacity(1 + segs.len() * 8);
    out.push('$');
    for seg in segs {
        push_seg(&mut out, *seg);
    }
    out
}

/// An array element's segment in a field's path: any index.
pub const WILDCARD: &str = "[*]";

/// Appends a field path's segment (see [`Seg::field_key`]): a key, or
/// `None` for [`WILDCARD`].
pub fn push_field_seg(out: &mut String, seg: Option<&str>) {
    match seg {
        Some(k) => push_seg(out, Seg::Key(k)),
        None => out.push_str(WILDCARD),
    }
}

/// The printed length of a field path's segment (see [`push_field_seg`]).
pub fn field_seg_len(seg: Option<&str>) -> usize {
    seg.map_or(WILDCARD.len(), |k| printed_len(Seg::Key(k)))
}

/// The field path of node `n` of a tree of field segments, printed
/// (`$.items[*].price`, about `len` bytes): `parent` gives a node's
/// parent, which comes before it (the root, 0, is `$`), and `seg` its
/// last segment.
pub(crate) fn field_path_of<'t>(
    n: usize,
    len: usize,
    parent: impl Fn(usize) -> usize,
    seg: impl Fn(usize) -> Option<&'t str>,
) -> String {
    let mut chain = Vec::new();
    let mut at = n;
    while at != 0 {
        chain.push(at);
        // A parent comes first: a tree that says otherwise ends here.
        at = parent(at).min(at - 1);
    }
    let mut out = String::with_capacity(len);
    out.push('$');
    for &c in chain.iter().rev() {
        push_field_seg(&mut out, seg(c));
    }
    out
}

/// Appends one segment to a formatted path.
pub fn push_seg(out: &mut String, seg: Seg<'_>) {
    let _ = write_seg(out, seg);
}

/// Writes one segment of a formatted path: the one place its form (dots,
/// quotes, escapes) is decided.
fn write_seg<W: fmt::Write>(out: &mut W, seg: Seg<'_>) -> fmt::Result {
    match seg {
        Seg::Key(k) if is_identifier(k) => {
            out.write_char('.')?;
            out.write_str(k)
        }
        Seg::Key(k) => {
            out.write_str("['")?;
            for c in k.chars() {
                match c {
                    '\'' => out.write_str("\\'")?,
                    '\\' => out.write_str("\\\\")?,
                    c if (c as u32) < 0x20 => write!(out, "\\u{:04x}", c as u32)?,
                    c => out.write_char(c)?,
                }
            }
            out.write_str("']")
        }
        other => write!(out, "[{}]", other.index().unwrap_or(0)),
    }
}

/// The length in bytes of `seg` as [`push_seg`] writes it, without
/// writing it.
pub fn printed_len(seg: Seg<'_>) -> usize {
    /// Counts what is written.
    struct Count(usize);
    impl fmt::Write for Count {
        fn write_str(&mut self, s: &str) -> fmt::Result {
            self.0 += s.len();
            Ok(())
        }
    }
    let mut n = Count(0);
    let _ = write_seg(&mut n, seg);
    n.0
}

/// Whether `key` can be written after a dot: a letter or `_`, then letters,
/// digits or `_` (ASCII or not).
pub fn is_identifier(key: &str) -> bool {
    // The usual key, ASCII, decided byte by byte; an ASCII first byte
    // that is not a letter or `_` is not a Unicode letter either.
    let b = key.as_bytes();
    match b.first() {
        None => return false,
        Some(&c) if c.is_ascii() && !(c.is_ascii_alphabetic() || c == b'_') => return false,
        Some(_) if b.iter().all(|&c| WORD[usize::from(c)]) => return true,
        _ => {}
    }
    if key.is_ascii() {
        return false;
    }
    let mut chars = key.chars();
    match chars.next() {
        Some(c) if c.is_alphabetic() || c == '_' => {}
        _ => return false,
    }
    chars.all(|c| c.is_alphanumeric() || c == '_')
}

/// The ASCII bytes an identifier may hold after its first: letters,
/// digits and `_`.
const WORD: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 128 {
        let b = c as u8;
        t[c] = b.is_ascii_alphanumeric() || b == b'_';
        c += 1;
    }
    t
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printed_len_is_the_length_push_seg_writes() {
        let segs = [
            Seg::Key("price"),
            Seg::Key("a b"),
            Seg::Key("it's\\ \u{1}"),
            Seg::Key(""),
            Seg::Key("ünïcode"),
            Seg::Index(0),
            Seg::Index(9),
            Seg::Index(10),
            Seg::Index(123_456),
            Seg::Pair { expected: None, actual: Some(77) },
            Seg::Pair { expected: None, actual: None },
        ];
        for seg in segs {
            let mut out = String::new();
            push_seg(&mut out, seg);
            assert_eq!(printed_len(seg), out.len(), "{seg:?}: {out}");
            let quoted = matches!(seg, Seg::Key(k) if !is_identifier(k));
            // A kept segment never takes fewer bytes than it prints in
            // when unquoted: the budget of kept paths bounds what prints.
            assert!(quoted || seg.kept_len() >= out.len(), "{seg:?}: {out}");
        }
    }

    #[test]
    fn formats() {
        let p = [Seg::Key("line_items"), Seg::Index(2), Seg::Key("price")];
        assert_eq!(format_path(&p), "$.line_items[2].price");
        assert_eq!(JsonPath::from_segs(&p).wildcard(), "$.line_items[*].price");
        assert_eq!(format_path(&[]), "$");
        assert_eq!(format_path(&[Seg::Key("a b")]), "$['a b']");
        assert_eq!(format_path(&[Seg::Key("it's")]), "$['it\\'s']");
        assert_eq!(format_path(&[Seg::Key("1x")]), "$['1x']");
        assert_eq!(format_path(&[Seg::Key("")]), "$['']");
        assert_eq!(format_path(&[Seg::Key("prénom")]), "$.prénom");
        let pair = [Seg::Pair { expected: None, actual: Some(3) }];
        assert_eq!(format_path(&pair), "$[3]");
    }

    #[test]
    fn identifiers_are_decided_alike_on_either_path() {
        let general = |k: &str| {
            let mut chars = k.chars();
            chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
                && chars.all(|c| c.is_alphanumeric() || c == '_')
        };
        for k in [
            "",
            "a",
            "_",
            "_1",
            "a1_b",
            "1a",
            "a-b",
            "a b",
            "$",
            "A",
            "Z9",
            "prénom",
            "é",
            "éa",
            "aé",
            "a\u{b2}",
            "a\u{660}",
            "\u{660}",
            "a.b",
            "ß",
            "a\u{200b}",
            "µ",
            "a'",
        ] {
            assert_eq!(is_identifier(k), general(k), "{k:?}");
        }
    }

    #[test]
    fn parses_what_it_prints() {
        let keys =
            ["a", "a b", "it's", "back\\slash", "1x", "", "prénom", "tab\there", "x.y", "[0]"];
        for k in keys {
            let p = JsonPath::from_segs(&[Seg::Key(k), Seg::Index(7), Seg::Key("z")]);
            let text = p.to_string();
            assert_eq!(JsonPath::parse(&text), Ok(p), "{text}");
        }
        assert_eq!(JsonPath::parse("$"), Ok(JsonPath::root()));
        for bad in ["", "a", "$.", "$[x]", "$['a'", "$[1", "$['a']x"] {
            assert!(JsonPath::parse(bad).is_err(), "{bad}");
        }
    }
}
