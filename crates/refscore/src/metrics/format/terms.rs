//! `format.required_fields` and `format.forbidden_content`: terms that must
//! or must not appear in the output.

use serde_json::Value;

use super::{Setting, bad};
use crate::detail::{Detail, Outcome};
use crate::error::ConfigError;
use crate::metrics::options::Opts;

/// A list of terms and how to look for them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Terms {
    check: &'static str,
    terms: Vec<String>,
    case_sensitive: bool,
    whole_word: bool,
}

fn term_list(option: &str, v: &Value) -> Result<Vec<String>, ConfigError> {
    let items: Vec<&Value> = match v {
        Value::String(_) => vec![v],
        Value::Array(items) => items.iter().collect(),
        other => return Err(bad(option, format!("expected a list of terms, got {other}"))),
    };
    let terms: Vec<String> = items
        .into_iter()
        .map(|t| match t.as_str() {
            Some(s) if !s.is_empty() => Ok(s.to_owned()),
            _ => Err(bad(option, format!("terms must be non-empty strings, got {t}"))),
        })
        .collect::<Result<_, _>>()?;
    if terms.is_empty() {
        return Err(bad(option, "give at least one term"));
    }
    Ok(terms)
}

/// Whether the character is part of a word.
fn word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

impl Terms {
    /// From a list of terms or `{terms, case_sensitive, whole_word}`.
    pub(super) fn from_setting(
        option: &'static str,
        s: Setting<'_>,
    ) -> Result<Option<Self>, ConfigError> {
        let check = if option == "required_fields" {
            "format.required_fields"
        } else {
            "format.forbidden_content"
        };
        let (terms, case_sensitive, whole_word) = match s {
            Setting::Off => return Ok(None),
            Setting::On => return Err(bad(option, "expected a list of terms or {terms: [...]}")),
            Setting::With(Value::Object(m)) => {
                let o = Opts::new(check, m);
                let terms = o.value("terms").ok_or_else(|| bad(option, "missing `terms`"))?;
                let terms = term_list(&format!("{option}.terms"), terms)?;
                let cs = o.bool("case_sensitive", false)?;
                let ww = o.bool("whole_word", false)?;
                o.finish()?;
                (terms, cs, ww)
            }
            Setting::With(other) => (term_list(option, other)?, false, false),
        };
        Ok(Some(Terms { check, terms, case_sensitive, whole_word }))
    }

    /// Where `needle` first occurs in `hay` (as a whole word if asked).
    fn find(&self, hay: &str, needle: &str) -> Option<usize> {
        if !self.whole_word {
            return hay.find(needle);
        }
        hay.match_indices(needle).map(|(i, _)| i).find(|&i| {
            let before = hay.get(..i).and_then(|s| s.chars().next_back());
            let after = hay.get(i + needle.len()..).and_then(|s| s.chars().next());
            !before.is_some_and(word_char) && !after.is_some_and(word_char)
        })
    }

    /// One detail per term; `required` says whether terms must appear.
    pub(super) fn check(&self, text: &str, required: bool) -> Vec<Detail> {
        let hay = if self.case_sensitive { text.to_owned() } else { text.to_lowercase() };
        self.terms
            .iter()
            .map(|term| {
                let needle = if self.case_sensitive { term.clone() } else { term.to_lowercase() };
                let at = self.find(&hay, &needle);
                let line = at.map(|i| hay.get(..i).map_or(0, |s| s.matches('\n').count()) + 1);
                let passed = at.is_some() == required;
                let message = match (required, line) {
                    (true, Some(l)) => format!("`{term}` found on line {l}"),
                    (true, None) => format!("required term `{term}` not found"),
                    (false, Some(l)) => format!("forbidden term `{term}` found on line {l}"),
                    (false, None) => format!("`{term}` absent"),
                };
                Detail::new(self.check, if passed { Outcome::Pass } else { Outcome::Fail })
                    .expected(if required {
                        format!("contains {term}")
                    } else {
                        format!("no {term}")
                    })
                    .actual(if at.is_some() { "present" } else { "absent" })
                    .message(message)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn terms(option: &'static str, v: Value) -> Terms {
        Terms::from_setting(option, Setting::of(Some(&v))).unwrap().unwrap()
    }

    #[test]
    fn required_terms_case_insensitive_by_default() {
        let t = terms("required_fields", json!(["Total", "vendor"]));
        let d = t.check("VENDOR: acme\ntotal: 3", true);
        assert!(d.iter().all(|x| x.passed), "{d:?}");
        assert_eq!(d[1].check, "format.required_fields");
        let d = t.check("nothing", true);
        assert_eq!(d.iter().filter(|x| !x.passed).count(), 2);
        assert_eq!(d[0].message.as_deref(), Some("required term `Total` not found"));
    }

    #[test]
    fn case_and_whole_word_options() {
        let t = terms(
            "forbidden_content",
            json!({"terms": ["AI"], "case_sensitive": true, "whole_word": true}),
        );
        assert!(t.check("said", false)[0].passed);
        assert!(t.check("ai model", false)[0].passed);
        let d = t.check("an\nAI, model", false);
        assert!(!d[0].passed);
        assert_eq!(d[0].message.as_deref(), Some("forbidden term `AI` found on line 2"));
        assert_eq!(d[0].check, "format.forbidden_content");
        let w = terms("required_fields", json!({"terms": ["id"], "whole_word": true}));
        assert!(!w.check("identity", true)[0].passed);
        assert!(w.check("identity and ID.", true)[0].passed);
    }

    #[test]
    fn option_errors() {
        let e = |v: Value| {
            Terms::from_setting("required_fields", Setting::of(Some(&v))).unwrap_err().to_string()
        };
        assert!(e(json!(true)).contains("required_fields"));
        assert!(e(json!([])).contains("at least one"));
        assert!(e(json!([1])).contains("non-empty strings"));
        assert!(e(json!({"terms": ["a"], "exact": true})).contains("unknown option `exact`"));
        assert!(e(json!({"case_sensitive": true})).contains("missing `terms`"));
        assert_eq!(terms("required_fields", json!("one")).terms, vec!["one"]);
    }
}
