//! JSON paths of compared nodes, written as `$.line_items[2].price`.

use std::fmt::Write as _;

/// One step from a node to a child.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seg<'a> {
    /// An object member.
    Key(&'a str),
    /// An array element.
    Index(usize),
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

/// Appends one segment to a formatted path.
pub fn push_seg(out: &mut String, seg: Seg<'_>) {
    match seg {
        Seg::Key(k) if is_identifier(k) => {
            out.push('.');
            out.push_str(k);
        }
        Seg::Key(k) => {
            out.push_str("['");
            for c in k.chars() {
                match c {
                    '\'' => out.push_str("\\'"),
                    '\\' => out.push_str("\\\\"),
                    c if (c as u32) < 0x20 => {
                        let _ = write!(out, "\\u{:04x}", c as u32);
                    }
                    c => out.push(c),
                }
            }
            out.push_str("']");
        }
        Seg::Index(i) => {
            let _ = write!(out, "[{i}]");
        }
    }
}

/// Whether `key` can be written after a dot: a letter or `_`, then letters,
/// digits or `_` (ASCII or not).
pub fn is_identifier(key: &str) -> bool {
    let mut chars = key.chars();
    match chars.next() {
        Some(c) if c.is_alphabetic() || c == '_' => {}
        _ => return false,
    }
    chars.all(|c| c.is_alphanumeric() || c == '_')
}

/// The path with every array index replaced by `[*]`, used to aggregate
/// field statistics across rows and array elements.
pub fn wildcard_path(segs: &[Seg<'_>]) -> String {
    let mut out = String::from("$");
    for seg in segs {
        match seg {
            Seg::Index(_) => out.push_str("[*]"),
            key => push_seg(&mut out, *key),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        let p = [Seg::Key("line_items"), Seg::Index(2), Seg::Key("price")];
        assert_eq!(format_path(&p), "$.line_items[2].price");
        assert_eq!(wildcard_path(&p), "$.line_items[*].price");
        assert_eq!(format_path(&[]), "$");
        assert_eq!(format_path(&[Seg::Key("a b")]), "$['a b']");
        assert_eq!(format_path(&[Seg::Key("it's")]), "$['it\\'s']");
        assert_eq!(format_path(&[Seg::Key("1x")]), "$['1x']");
        assert_eq!(format_path(&[Seg::Key("")]), "$['']");
        assert_eq!(format_path(&[Seg::Key("prénom")]), "$.prénom");
    }
}
