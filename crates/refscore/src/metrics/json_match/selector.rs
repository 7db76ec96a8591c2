//! Path selectors of json_match rules: a JSONPath subset.
//!
//! Grammar: `$` followed by steps. A step is `.name`, `['name']` or
//! `["name"]` (an object member), `[n]` (an array index, n ≥ 0), `[*]` or
//! `.*` (any one member or element), and `..` before any of those (any
//! number of levels in between, zero included): `$..notes`,
//! `$.line_items[*].unit_price`, `$..[*].sku`.

use crate::path::Seg;

/// One step of a selector.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Key(String),
    Index(usize),
    Any,
}

/// A compiled selector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Selector {
    text: String,
    /// `(descendant, step)`: `descendant` allows any segments before it.
    steps: Vec<(bool, Step)>,
}

impl Selector {
    /// Parses a selector.
    pub(crate) fn parse(text: &str) -> Result<Selector, String> {
        let t = text.trim();
        let rest =
            t.strip_prefix('$').ok_or_else(|| format!("selector `{text}` must start with `$`"))?;
        let chars: Vec<char> = rest.chars().collect();
        let mut steps = Vec::new();
        let mut i = 0;
        while i < chars.len() {
            let mut descendant = false;
            if chars[i] == '.' {
                if chars.get(i + 1) == Some(&'.') {
                    descendant = true;
                    i += 2;
                    if chars.get(i) == Some(&'[') {
                        let (step, next) = bracket(&chars, i, text)?;
                        steps.push((true, step));
                        i = next;
                        continue;
                    }
                } else {
                    i += 1;
                }
                let start = i;
                while i < chars.len() && chars[i] != '.' && chars[i] != '[' {
                    i += 1;
                }
                let name: String = chars[start..i].iter().collect();
                if name.is_empty() {
                    return Err(format!(
                        "selector `{text}`: empty name at character {}",
                        start + 1
                    ));
                }
                steps.push((descendant, if name == "*" { Step::Any } else { Step::Key(name) }));
            } else if chars[i] == '[' {
                let (step, next) = bracket(&chars, i, text)?;
                steps.push((descendant, step));
                i = next;
            } else {
                return Err(format!(
                    "selector `{text}`: unexpected `{}` at character {}",
                    chars[i],
                    i + 2
                ));
            }
        }
        Ok(Selector { text: t.to_owned(), steps })
    }

    /// The selector as written.
    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    /// Whether the selector selects exactly the node at `path`.
    pub(crate) fn matches(&self, path: &[Seg<'_>]) -> bool {
        matches_from(&self.steps, path)
    }
}

fn bracket(chars: &[char], open: usize, text: &str) -> Result<(Step, usize), String> {
    let close = chars[open..]
        .iter()
        .enumerate()
        .skip(1)
        .scan(None::<char>, |quote, (k, &c)| {
            match (*quote, c) {
                (None, '\'' | '"') => *quote = Some(c),
                (Some(q), c) if c == q && chars.get(open + k - 1) != Some(&'\\') => *quote = None,
                (None, ']') => return Some(Some(k)),
                _ => {}
            }
            Some(None)
        })
        .flatten()
        .next()
        .map(|k| open + k)
        .ok_or_else(|| format!("selector `{text}`: unclosed `[`"))?;
    let inner: String = chars[open + 1..close].iter().collect();
    let inner = inner.trim();
    let step = if inner == "*" {
        Step::Any
    } else if let Some(q) = inner.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')) {
        Step::Key(q.replace("\\'", "'").replace("\\\\", "\\"))
    } else if let Some(q) = inner.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
        Step::Key(q.replace("\\\"", "\"").replace("\\\\", "\\"))
    } else {
        match inner.parse::<usize>() {
            Ok(n) => Step::Index(n),
            Err(_) => {
                return Err(format!(
                    "selector `{text}`: `[{inner}]` is not an index ≥ 0, `*` or a quoted name"
                ));
            }
        }
    };
    Ok((step, close + 1))
}

fn step_matches(step: &Step, seg: &Seg<'_>) -> bool {
    match (step, seg) {
        (Step::Any, _) => true,
        (Step::Key(k), Seg::Key(s)) => k == s,
        (Step::Key(_), _) => false,
        (Step::Index(i), seg) => seg.index() == Some(*i),
    }
}

fn matches_from(steps: &[(bool, Step)], path: &[Seg<'_>]) -> bool {
    let Some(((descendant, step), rest)) = steps.split_first() else {
        return path.is_empty();
    };
    if *descendant {
        (0..path.len())
            .any(|skip| step_matches(step, &path[skip]) && matches_from(rest, &path[skip + 1..]))
    } else {
        path.first().is_some_and(|seg| step_matches(step, seg)) && matches_from(rest, &path[1..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(sel: &str, path: &[Seg<'_>]) -> bool {
        Selector::parse(sel).unwrap().matches(path)
    }

    #[test]
    fn matching() {
        let p = [Seg::Key("line_items"), Seg::Index(2), Seg::Key("unit_price")];
        assert!(m("$.line_items[*].unit_price", &p));
        assert!(m("$.line_items[2].unit_price", &p));
        assert!(!m("$.line_items[1].unit_price", &p));
        assert!(m("$..unit_price", &p));
        assert!(m("$..[*].unit_price", &p));
        assert!(m("$.*[*].*", &p));
        assert!(!m("$.line_items", &p));
        assert!(m("$.line_items", &p[..1]));
        assert!(m("$", &[]));
        assert!(m("$['line_items'][*]['unit_price']", &p));
        assert!(m("$..notes", &[Seg::Key("notes")]));
        assert!(m("$..notes", &[Seg::Key("a"), Seg::Index(0), Seg::Key("notes")]));
        assert!(m("$['a.b']", &[Seg::Key("a.b")]));
    }

    #[test]
    fn errors() {
        assert!(Selector::parse("line_items").is_err());
        assert!(Selector::parse("$.a[").is_err());
        assert!(Selector::parse("$.a[-1]").is_err());
        assert!(Selector::parse("$.a[x]").is_err());
        assert!(Selector::parse("$..").is_err());
        assert!(Selector::parse("$.a..b").is_ok());
    }
}
