//! Reading a metric's options, with unknown keys rejected.

use std::cell::RefCell;
use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::registry::MetricSpec;
use crate::error::ConfigError;

/// Typed access to an options object. A metric's own options are checked
/// against its [`MetricSpec`] declaration ([`Opts::for_metric`]); a nested
/// settings object rejects, in [`Opts::finish`], any key that was never
/// read.
pub(crate) struct Opts<'a> {
    metric: &'a str,
    map: &'a Map<String, Value>,
    read: RefCell<BTreeSet<&'a str>>,
    spec: Option<&'static MetricSpec>,
}

impl<'a> Opts<'a> {
    /// The options of a nested settings object named `context`.
    pub(crate) fn new(metric: &'a str, map: &'a Map<String, Value>) -> Self {
        Opts { metric, map, read: RefCell::new(BTreeSet::new()), spec: None }
    }

    /// A metric's options, checked against its declaration.
    ///
    /// # Errors
    /// [`ConfigError::UnknownOption`] for a key the metric does not declare.
    pub(crate) fn for_metric(
        spec: &'static MetricSpec,
        map: &'a Map<String, Value>,
    ) -> Result<Self, ConfigError> {
        if let Some(unknown) = map.keys().find(|k| spec.option(k).is_none()) {
            return Err(ConfigError::UnknownOption {
                metric: spec.name.to_owned(),
                option: unknown.clone(),
                known: spec.all_options().map(|o| o.name.to_owned()).collect(),
            });
        }
        Ok(Opts { metric: spec.name, map, read: RefCell::new(BTreeSet::new()), spec: Some(spec) })
    }

    fn get(&self, key: &'a str) -> Option<&'a Value> {
        debug_assert!(
            self.spec.is_none_or(|s| s.option(key).is_some()),
            "metric {} reads undeclared option {key}",
            self.metric
        );
        self.read.borrow_mut().insert(key);
        self.map.get(key).filter(|v| !v.is_null())
    }

    fn err(&self, key: &str, msg: impl std::fmt::Display) -> ConfigError {
        ConfigError::BadOption {
            metric: self.metric.to_owned(),
            option: key.to_owned(),
            message: msg.to_string(),
        }
    }

    /// An error about option `key`.
    pub(crate) fn error(&self, key: &str, msg: impl std::fmt::Display) -> ConfigError {
        self.err(key, msg)
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
        if self.spec.is_some() {
            return Ok(());
        }
        let read = self.read.borrow();
        let unknown: Vec<&str> =
            self.map.keys().map(String::as_str).filter(|k| !read.contains(k)).collect();
        if unknown.is_empty() {
            Ok(())
        } else {
            Err(ConfigError::UnknownOption {
                metric: self.metric.to_owned(),
                option: unknown.join("`, `"),
                known: read.iter().map(|k| (*k).to_owned()).collect(),
            })
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
