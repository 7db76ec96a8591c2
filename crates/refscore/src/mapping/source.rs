//! Mapping sources as written (a column, a JSONPath or a dotted path) and
//! their compiled form.

use serde_json::Value;
use serde_json_path::JsonPath;

use crate::error::ConfigError;

/// Whether a string value is parsed as JSON before an evaluator sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ParseMode {
    /// Parse strings from text cells (CSV) for inputs that want JSON.
    #[default]
    Auto,
    /// Always try to parse strings as JSON (keep the string if it is not JSON).
    Json,
    /// Never parse: pass strings through.
    Text,
}

/// One mapping entry as written in a configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MappingEntry {
    /// A column name or a JSONPath.
    pub source: String,
    /// Parsing of string values.
    pub parse: ParseMode,
}

impl MappingEntry {
    /// An entry reading `source`, with [`ParseMode::Auto`].
    pub fn new(source: impl Into<String>) -> Self {
        MappingEntry { source: source.into(), parse: ParseMode::Auto }
    }

    /// An entry from its configuration value: a string, or an object
    /// `{source: "...", parse: "json" | "text" | "auto"}`.
    ///
    /// # Errors
    /// Any other shape, naming the input.
    pub fn from_value(input: &str, value: &Value) -> Result<Self, ConfigError> {
        let ctx = || format!("mapping for input `{input}`");
        match value {
            Value::String(s) => Ok(MappingEntry::new(s.clone())),
            Value::Object(map) => {
                let mut entry = MappingEntry::new(String::new());
                let mut has_source = false;
                for (k, v) in map {
                    match (k.as_str(), v) {
                        ("source", Value::String(s)) => {
                            entry.source = s.clone();
                            has_source = true;
                        }
                        ("parse", Value::String(p)) => {
                            entry.parse = match p.as_str() {
                                "json" => ParseMode::Json,
                                "text" => ParseMode::Text,
                                "auto" => ParseMode::Auto,
                                other => {
                                    return Err(ConfigError::invalid(
                                        ctx(),
                                        format!("`parse: {other}` is not one of json, text, auto"),
                                    ));
                                }
                            }
                        }
                        ("source" | "parse", other) => {
                            return Err(ConfigError::invalid(
                                ctx(),
                                format!("`{k}` must be a string, got {other}"),
                            ));
                        }
                        _ => {
                            return Err(ConfigError::invalid(
                                ctx(),
                                format!("unknown key `{k}` (expected source, parse)"),
                            ));
                        }
                    }
                }
                if !has_source {
                    return Err(ConfigError::invalid(ctx(), "missing `source`"));
                }
                Ok(entry)
            }
            other => Err(ConfigError::invalid(
                ctx(),
                format!("expected a column name, a JSONPath or {{source, parse}}, got {other}"),
            )),
        }
    }
}

/// A compiled source.
#[derive(Debug, Clone)]
pub(super) struct Source {
    /// The source as written: also tried as a top-level key.
    pub(super) text: String,
    /// The JSONPath, when the text is one.
    pub(super) path: Option<JsonPath>,
    /// How many descendant segments (`..`) the path has, counted in its
    /// text (a `..` inside a quoted name counts too: the bound it sets,
    /// [`crate::limits::MAX_PATH_VISITS`], is only the safer for it).
    pub(super) descendants: u32,
    pub(super) parse: ParseMode,
}

pub(super) fn compile_source(input: &str, entry: &MappingEntry) -> Result<Source, ConfigError> {
    let text = entry.source.clone();
    let bad = |message: String| {
        ConfigError::invalid(format!("mapping for input `{input}`, path `{text}`"), message)
    };
    if text.is_empty() {
        return Err(bad("empty source".into()));
    }
    let path_text = if text.starts_with('$') {
        Some(text.clone())
    } else if text.contains(['.', '[']) {
        Some(dotted_to_jsonpath(&text).map_err(bad)?)
    } else {
        None
    };
    let descendants = path_text
        .as_deref()
        .map_or(0, |p| u32::try_from(p.matches("..").count()).unwrap_or(u32::MAX));
    let path = match path_text {
        None => None,
        Some(p) => Some(JsonPath::parse(&p).map_err(|e| bad(format!("malformed JSONPath: {e}")))?),
    };
    Ok(Source { text, path, descendants, parse: entry.parse })
}

/// `a.b[0].c` → `$['a']['b'][0]['c']`: names are quoted (so any column
/// name works), bracket groups are kept as written.
fn dotted_to_jsonpath(text: &str) -> Result<String, String> {
    let mut out = String::from("$");
    let mut chars = text.chars().peekable();
    let mut expect_name = true;
    while chars.peek().is_some() {
        if expect_name {
            let mut name = String::new();
            while let Some(&c) = chars.peek() {
                if c == '.' || c == '[' {
                    break;
                }
                name.push(c);
                chars.next();
            }
            if name.is_empty() && (out.len() > 1 || chars.peek() != Some(&'[')) {
                return Err("empty name between dots".into());
            }
            if !name.is_empty() {
                out.push_str("['");
                for c in name.chars() {
                    match c {
                        '\'' => out.push_str("\\'"),
                        '\\' => out.push_str("\\\\"),
                        c => out.push(c),
                    }
                }
                out.push_str("']");
            }
            expect_name = false;
        }
        match chars.next() {
            Some('.') => {
                if chars.peek().is_none() {
                    return Err("ends with a dot".into());
                }
                expect_name = true;
            }
            Some('[') => {
                out.push('[');
                let mut quote: Option<char> = None;
                let mut closed = false;
                while let Some(c) = chars.next() {
                    out.push(c);
                    match (quote, c) {
                        (Some(_), '\\') => {
                            if let Some(n) = chars.next() {
                                out.push(n);
                            }
                        }
                        (Some(q), c) if c == q => quote = None,
                        (None, '\'' | '"') => quote = Some(c),
                        (None, ']') => {
                            closed = true;
                            break;
                        }
                        _ => {}
                    }
                }
                if !closed {
                    return Err("unclosed `[`".into());
                }
            }
            Some(c) => return Err(format!("unexpected `{c}`")),
            None => {}
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dotted_conversion() {
        assert_eq!(dotted_to_jsonpath("a.b[0].c").unwrap(), "$['a']['b'][0]['c']");
        assert_eq!(dotted_to_jsonpath("it's.x['k]']").unwrap(), "$['it\\'s']['x']['k]']");
        assert_eq!(dotted_to_jsonpath("[0].a").unwrap(), "$[0]['a']");
    }
}
