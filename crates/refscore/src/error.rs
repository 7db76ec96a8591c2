//! Errors of the library.

use std::path::PathBuf;

/// The message a panic carried (a `&str` or a `String` payload), or
/// `None` for any other payload.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> Option<String> {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
}

/// An evaluation that could not run for one input.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum EvalError {
    /// A required input is absent.
    #[error("missing input `{input}`")]
    MissingInput {
        /// The input's name.
        input: String,
    },
    /// A required input is empty (a string of white space only).
    #[error("input `{input}` is empty")]
    EmptyInput {
        /// The input's name.
        input: String,
    },
    /// An input is a text longer than [`crate::limits::MAX_TEXT_BYTES`].
    #[error(
        "input `{input}` is a text of {bytes} bytes, over the limit of {limit} bytes for one input"
    )]
    InputTooLarge {
        /// The input's name.
        input: String,
        /// Its length in bytes.
        bytes: usize,
        /// The limit.
        limit: usize,
    },
    /// An input has a value the evaluator cannot use.
    #[error("input `{input}`: {reason}")]
    InvalidInput {
        /// The input's name.
        input: String,
        /// Why it cannot be used.
        reason: String,
    },
    /// Anything else.
    #[error("{0}")]
    Failed(String),
}

/// A configuration (metric options, rules, suite) that cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// No metric or evaluator has this name.
    #[error("unknown metric `{name}` (known: {}){}", known.join(", "), did_you_mean(name, known))]
    UnknownMetric {
        /// The name asked for.
        name: String,
        /// The names available.
        known: Vec<String>,
    },
    /// A metric has no option of this name.
    #[error("metric `{metric}`: unknown option `{option}` (options: {})", known.join(", "))]
    UnknownOption {
        /// The metric.
        metric: String,
        /// The option given.
        option: String,
        /// The options the metric has.
        known: Vec<String>,
    },
    /// A metric's option has a value it cannot use.
    #[error("metric `{metric}`, option `{option}`: {message}")]
    BadOption {
        /// The metric.
        metric: String,
        /// The option.
        option: String,
        /// What is wrong with its value.
        message: String,
    },
    /// A suite, rule or mapping entry is invalid.
    #[error("{context}: {message}")]
    Invalid {
        /// Where: an option name, a rule, a key path.
        context: String,
        /// What is wrong.
        message: String,
    },
    /// A file could not be read or parsed.
    #[error("{}: {message}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
}

impl ConfigError {
    /// An invalid-option error.
    pub fn invalid(context: impl Into<String>, message: impl Into<String>) -> Self {
        ConfigError::Invalid { context: context.into(), message: message.into() }
    }

    /// Adds a file to an error that lacks one.
    #[must_use]
    pub fn in_file(self, path: &std::path::Path) -> Self {
        match self {
            ConfigError::File { .. } => self,
            other => ConfigError::File { path: path.to_path_buf(), message: other.to_string() },
        }
    }
}

/// `; did you mean `NAME`?` when one of `known` is close to `name` (a
/// misspelling), else nothing.
fn did_you_mean(name: &str, known: &[String]) -> String {
    crate::text::closest(name, known.iter().map(String::as_str))
        .map_or_else(String::new, |meant| format!("; did you mean `{meant}`?"))
}

#[cfg(test)]
mod panic_tests {
    use super::panic_message;

    #[test]
    fn panic_payloads_give_their_message() {
        let text = std::panic::catch_unwind(|| panic!("plain")).unwrap_err();
        assert_eq!(panic_message(text.as_ref()).as_deref(), Some("plain"));
        let formatted = std::panic::catch_unwind(|| panic!("n = {}", 3)).unwrap_err();
        assert_eq!(panic_message(formatted.as_ref()).as_deref(), Some("n = 3"));
        let other = std::panic::catch_unwind(|| std::panic::panic_any(7_u8)).unwrap_err();
        assert_eq!(panic_message(other.as_ref()), None);
    }
}
