//! Reading a metric's options, with unknown keys rejected.

use std::cell::RefCell;
use std::collections::BTreeSet;

use serde_json::{Map, Value};

use crate::error::ConfigError;

/// Typed access to an options object; [`Opts::finish`] rejects any key that
/// was never read.
pub(crate) struct Opts<'a> {
    metric: &'a str,
    map: &'a Map<String, Value>,
    read: RefCell<BTreeSet<&'a str>>,
}

impl<'a> Opts<'a> {
    pub(crate) fn new(metric: &'a str, map: &'a Map<String, Value>) -> Self {
        Opts { metric, map, read: RefCell::new(BTreeSet::new()) }
    }

    fn get(&self, key: &'a str) -> Option<&'a Value> {
        self.read.borrow_mut().insert(key);
        self.map.get(key).filter(|v| !v.is_null())
    }

    fn err(&self, key: &str, msg: impl std::fmt::Display) -> ConfigError {
        ConfigError::invalid(format!("metric `{}`, option `{key}`", self.metric), msg.to_string())
    }

    pub(crate) fn bool(&self, key: &'a str, default: bool) -> Result<bool, ConfigError> {
        match self.get(key) {
            None => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(Value::String(s)) if s == "true" || s == "false" => Ok(s == "true"),
            Some(other) => Err(self.err(key, format!("expected true or false, got {other}"))),
        }
    }

    pub(crate) fn string(&self, key: &'a str) -> Result<Option<String>, ConfigError> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(self.err(key, format!("expected a string, got {other}"))),
        }
    }

    pub(crate) fn choice(
        &self,
        key: &'a str,
        allowed: &[&str],
        default: &str,
    ) -> Result<String, ConfigError> {
        let v = self.string(key)?.unwrap_or_else(|| default.to_owned());
        if allowed.contains(&v.as_str()) {
            Ok(v)
        } else {
            Err(self.err(key, format!("`{v}` is not one of {}", allowed.join(", "))))
        }
    }

    #[allow(dead_code)] // for metrics with numeric options
    pub(crate) fn number(&self, key: &'a str, default: f64) -> Result<f64, ConfigError> {
        match self.get(key) {
            None => Ok(default),
            Some(Value::Number(n)) => {
                n.as_f64().filter(|f| f.is_finite()).ok_or_else(|| self.err(key, "not finite"))
            }
            Some(Value::String(s)) => s
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|f| f.is_finite())
                .ok_or_else(|| self.err(key, "expected a number")),
            Some(other) => Err(self.err(key, format!("expected a number, got {other}"))),
        }
    }

    pub(crate) fn value(&self, key: &'a str) -> Option<&'a Value> {
        self.get(key)
    }

    pub(crate) fn finish(self) -> Result<(), ConfigError> {
        let read = self.read.borrow();
        let unknown: Vec<&str> =
            self.map.keys().map(String::as_str).filter(|k| !read.contains(k)).collect();
        if unknown.is_empty() {
            Ok(())
        } else {
            let known: Vec<&str> = read.iter().copied().collect();
            Err(ConfigError::invalid(
                format!("metric `{}`", self.metric),
                format!("unknown option `{}` (known: {})", unknown.join("`, `"), known.join(", ")),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rejects_unknown() {
        let m = json!({"a": true, "b": 1}).as_object().unwrap().clone();
        let o = Opts::new("x", &m);
        assert!(o.bool("a", false).unwrap());
        let e = o.finish().unwrap_err().to_string();
        assert!(e.contains("unknown option `b`"), "{e}");
    }

    #[test]
    fn typed_errors() {
        let m = json!({"n": "abc", "c": "z"}).as_object().unwrap().clone();
        let o = Opts::new("x", &m);
        assert!(o.number("n", 0.0).is_err());
        assert!(o.choice("c", &["a", "b"], "a").is_err());
    }
}
