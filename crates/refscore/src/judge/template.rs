//! Prompt templates with `{placeholder}`s bound to an evaluator's inputs.
//!
//! `{name}` (a letter or `_`, then letters, digits or `_`) is replaced by
//! the input `name`: a string as it is, any other value as compact JSON.
//! `{{` and `}}` write one brace. Any other `{…}` (a JSON example in the
//! prompt, say) is kept as written.

use serde_json::Value;

/// One piece of a template.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    /// Text written as it is.
    Text(String),
    /// An input's value.
    Slot(String),
}

/// A parsed template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    source: String,
    pieces: Vec<Piece>,
}

impl Template {
    /// Parses a template.
    pub fn parse(source: &str) -> Template {
        let mut pieces = Vec::new();
        let mut text = String::new();
        let mut rest = source;
        while let Some(i) = rest.find(['{', '}']) {
            text.push_str(&rest[..i]);
            let tail = &rest[i..];
            if tail.starts_with("{{") || tail.starts_with("}}") {
                text.push_str(&tail[..1]);
                rest = &tail[2..];
                continue;
            }
            if tail.starts_with('{')
                && let Some(close) = tail.find('}')
                && is_name(&tail[1..close])
            {
                if !text.is_empty() {
                    pieces.push(Piece::Text(std::mem::take(&mut text)));
                }
                pieces.push(Piece::Slot(tail[1..close].to_owned()));
                rest = &tail[close + 1..];
                continue;
            }
            text.push_str(&tail[..1]);
            rest = &tail[1..];
        }
        text.push_str(rest);
        if !text.is_empty() {
            pieces.push(Piece::Text(text));
        }
        Template { source: source.to_owned(), pieces }
    }

    /// The template as written.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The placeholders, each once, in order of first use.
    pub fn placeholders(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for p in &self.pieces {
            if let Piece::Slot(n) = p
                && !out.contains(&n.as_str())
            {
                out.push(n);
            }
        }
        out
    }

    /// Fills the placeholders; `value` gives each input's value (`None`:
    /// left empty).
    pub fn render<'v>(&self, value: impl Fn(&str) -> Option<&'v Value>) -> String {
        let mut out = String::with_capacity(self.source.len() + 64);
        for p in &self.pieces {
            match p {
                Piece::Text(t) => out.push_str(t),
                Piece::Slot(n) => match value(n) {
                    Some(Value::String(s)) => out.push_str(s),
                    Some(Value::Null) | None => {}
                    Some(other) => out.push_str(&crate::json::compact(other)),
                },
            }
        }
        out
    }
}

fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn placeholders_escapes_and_json_examples() {
        let t =
            Template::parse("Q: {question}\nA: {answer} {{literal}} {\"a\": 1} {question} {1x}");
        assert_eq!(t.placeholders(), ["question", "answer"]);
        let q = json!("why?");
        let a = json!({"n": 1});
        let out = t.render(|n| match n {
            "question" => Some(&q),
            "answer" => Some(&a),
            _ => None,
        });
        assert_eq!(out, "Q: why?\nA: {\"n\":1} {literal} {\"a\": 1} why? {1x}");
    }

    #[test]
    fn unclosed_and_lone_braces_are_text() {
        let t = Template::parse("a { b } c {d");
        assert!(t.placeholders().is_empty());
        assert_eq!(t.render(|_| None), "a { b } c {d");
        let t = Template::parse("}{x}");
        assert_eq!(t.placeholders(), ["x"]);
        assert_eq!(t.render(|_| None), "}");
    }
}
