//! The metric registry: every built-in metric declared once, with its
//! inputs, options, kind, direction and default threshold.
//!
//! Building a metric ([`super::build`]), the suite's validation, the
//! `refscore metrics` listing and `describe()` all read these
//! declarations.

use serde::Serialize;
use serde_json::{Map, Value};

use super::BuildContext;
use crate::error::ConfigError;
use crate::evaluator::{Evaluator, InputSpec};
use crate::score::{Direction, Kind};

/// The type of an option's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "type", content = "values")]
pub enum OptionType {
    /// `true` or `false`.
    Bool,
    /// A finite number.
    Number,
    /// A string.
    String,
    /// One of the listed strings.
    Choice(&'static [&'static str]),
    /// A list.
    List,
    /// An object (a map of settings).
    Object,
    /// A file path or an inline value.
    FileOrValue,
}

impl OptionType {
    /// The type as documented: `bool`, `number`, `a | b | c`, ...
    pub fn describe(self) -> String {
        match self {
            OptionType::Bool => String::from("bool"),
            OptionType::Number => String::from("number"),
            OptionType::String => String::from("string"),
            OptionType::Choice(values) => values.join(" | "),
            OptionType::List => String::from("list"),
            OptionType::Object => String::from("object"),
            OptionType::FileOrValue => String::from("file or value"),
        }
    }
}

/// One option of a metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct OptionSpec {
    /// The option's key.
    pub name: &'static str,
    /// Its type.
    #[serde(flatten)]
    pub kind: OptionType,
    /// Its default, as written in a suite (`None`: unset).
    pub default: Option<&'static str>,
    /// One line saying what it does.
    pub description: &'static str,
}

impl OptionSpec {
    /// An option declaration.
    pub const fn new(
        name: &'static str,
        kind: OptionType,
        default: Option<&'static str>,
        description: &'static str,
    ) -> Self {
        OptionSpec { name, kind, default, description }
    }
}

/// The options every JSON metric shares: how inputs are decoded
/// ([`crate::decode`]) and which details are kept.
pub const JSON_OPTIONS: &[OptionSpec] = &[
    OptionSpec::new(
        "decode",
        OptionType::Choice(&["auto", "json", "value"]),
        Some("auto"),
        "how a string input becomes JSON: auto (JSON text, a fenced or embedded document, else the string), json (the whole text must be JSON), value (strings stay strings)",
    ),
    OptionSpec::new(
        "repair",
        OptionType::Bool,
        Some("false"),
        "with decode auto, also close a document cut off at the end",
    ),
    OptionSpec::new(
        "pick",
        OptionType::Choice(&["first", "last", "only"]),
        Some("first"),
        "with decode auto, which document to take when the text holds several",
    ),
    OptionSpec::new(
        "details",
        OptionType::Choice(&["failed", "all", "none"]),
        Some("failed"),
        "which compared paths are reported as details",
    ),
];

/// Builds a metric from its options.
pub type BuildFn =
    fn(&Map<String, Value>, &BuildContext) -> Result<Box<dyn Evaluator>, ConfigError>;

/// The declaration of one built-in metric.
#[derive(Clone, Copy, Serialize)]
pub struct MetricSpec {
    /// The metric's name.
    pub name: &'static str,
    /// One line saying what it measures.
    pub description: &'static str,
    /// The inputs it reads.
    pub inputs: &'static [InputSpec],
    /// Its own options (JSON metrics also take [`JSON_OPTIONS`]).
    pub options: &'static [OptionSpec],
    /// Whether it compares JSON documents (decode options, field tallies).
    pub json: bool,
    /// Where its signal comes from.
    pub kind: Kind,
    /// Whether higher or lower is better.
    pub direction: Direction,
    /// The threshold a suite uses when it sets none (`None`: no pass/fail).
    pub threshold: Option<f64>,
    /// Names of the scores it returns beside the main one.
    pub extra_scores: &'static [&'static str],
    /// A suite entry using it.
    pub example: &'static str,
    /// Builds it.
    #[serde(skip)]
    pub build: BuildFn,
}

impl std::fmt::Debug for MetricSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MetricSpec").field("name", &self.name).finish_non_exhaustive()
    }
}

impl MetricSpec {
    /// Every option it takes: its own, then the shared JSON options.
    pub fn all_options(&self) -> impl Iterator<Item = &'static OptionSpec> + use<> {
        let shared: &'static [OptionSpec] = if self.json { JSON_OPTIONS } else { &[] };
        self.options.iter().chain(shared)
    }

    /// The option named `name`.
    pub fn option(&self, name: &str) -> Option<&'static OptionSpec> {
        self.all_options().find(|o| o.name == name)
    }

    /// Whether it reports per-field tallies (every JSON metric does).
    pub fn reports_fields(&self) -> bool {
        self.json
    }
}

/// Every built-in metric, in the order they are listed.
pub fn all() -> &'static [MetricSpec] {
    super::REGISTRY
}

/// The metric named `name`.
///
/// # Errors
/// [`ConfigError::UnknownMetric`] listing the known names.
pub fn find(name: &str) -> Result<&'static MetricSpec, ConfigError> {
    all().iter().find(|s| s.name == name).ok_or_else(|| ConfigError::UnknownMetric {
        name: name.to_owned(),
        known: names().map(str::to_owned).collect(),
    })
}

/// The names of every built-in metric.
pub fn names() -> impl Iterator<Item = &'static str> {
    all().iter().map(|s| s.name)
}

/// The metric name an unknown `name` most likely meant
/// ([`crate::text::closest`] among the registry's names), for "did you
/// mean" beside [`ConfigError::UnknownMetric`].
pub fn closest(name: &str) -> Option<&'static str> {
    crate::text::closest(name, names())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_options_declared_once() {
        let mut seen = std::collections::BTreeSet::new();
        for spec in all() {
            assert!(seen.insert(spec.name), "{} declared twice", spec.name);
            let mut opts = std::collections::BTreeSet::new();
            for o in spec.all_options() {
                assert!(opts.insert(o.name), "{}: option {} declared twice", spec.name, o.name);
                assert!(!o.description.is_empty());
            }
            assert!(!spec.description.is_empty());
            assert!(spec.example.contains(spec.name), "{}: example must use it", spec.name);
        }
    }

    /// The options of a spec's example (a one-evaluator suite list).
    fn example_options(spec: &MetricSpec) -> Map<String, Value> {
        let list: Vec<Value> = serde_saphyr::from_str(spec.example)
            .unwrap_or_else(|e| panic!("{}: example is not YAML: {e}", spec.name));
        assert_eq!(list.len(), 1, "{}", spec.name);
        assert_eq!(list[0]["metric"], spec.name);
        list[0].get("options").and_then(Value::as_object).cloned().unwrap_or_default()
    }

    #[test]
    fn every_example_builds_and_the_metric_names_itself() {
        for spec in all() {
            let m = (spec.build)(&example_options(spec), &super::super::classify::tests::context())
                .unwrap_or_else(|e| panic!("{}: {e}", spec.name));
            assert_eq!(m.name(), spec.name);
            assert_eq!(m.direction(), spec.direction, "{}", spec.name);
            assert_eq!(m.kind(), spec.kind, "{}", spec.name);
            if spec.inputs.is_empty() {
                // Inputs named by the options (a template's placeholders).
                assert!(!m.inputs().is_empty(), "{}", spec.name);
            } else {
                assert_eq!(m.inputs(), spec.inputs, "{}", spec.name);
            }
        }
    }

    /// The documented row of a metric: `| \`name\` | description |`.
    fn row_prefix(spec: &MetricSpec) -> String {
        format!("| `{}` | {} |", spec.name, spec.description)
    }

    #[test]
    fn the_docs_tables_list_every_metric_as_declared() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let metrics_md = std::fs::read_to_string(root.join("docs/metrics.md")).unwrap();
        let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
        let section = metrics_md.split("## The registry").nth(1).expect("a registry section");
        for spec in all() {
            let direction = spec.direction.as_str();
            let threshold = spec.threshold.map_or_else(|| String::from("none"), |t| t.to_string());
            let row = format!("{} {direction} | {threshold} |", row_prefix(spec));
            assert!(section.lines().any(|l| l.trim() == row), "docs/metrics.md lacks `{row}`");
            let prefix = row_prefix(spec);
            assert!(
                readme.lines().any(|l| l.starts_with(&prefix)),
                "README.md lacks a row starting `{prefix}`"
            );
        }
        // No row for a metric the registry does not declare.
        let documented = section
            .lines()
            .take_while(|l| !l.starts_with("## "))
            .filter(|l| l.starts_with("| `"))
            .count();
        assert_eq!(documented, all().len());
    }

    #[test]
    fn unknown_names_list_the_known_ones() {
        match find("nope") {
            Err(ConfigError::UnknownMetric { name, known }) => {
                assert_eq!(name, "nope");
                assert!(known.iter().any(|k| k == "json_match"));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_close_unknown_name_suggests_the_metric_meant() {
        for (typed, meant) in [
            ("json_mach", "json_match"),
            ("json-match", "json_match"),
            ("JSON_Match", "json_match"),
            ("jsonmatch", "json_match"),
            ("json_dif", "json_diff"),
            ("exact_mach", "exact_match"),
            ("factualty", "factuality"),
        ] {
            assert_eq!(closest(typed), Some(meant), "{typed}");
        }
        // Nothing close: no guess.
        for typed in ["nope", "json", "bleu", "", "match"] {
            assert_eq!(closest(typed), None, "{typed}");
        }
    }

    #[test]
    fn an_unknown_option_is_a_structured_error() {
        for spec in all() {
            let mut m = Map::new();
            m.insert("no_such_option".into(), Value::Bool(true));
            match (spec.build)(&m, &super::super::classify::tests::context()) {
                Err(ConfigError::UnknownOption { metric, option, known }) => {
                    assert_eq!(metric, spec.name);
                    assert_eq!(option, "no_such_option");
                    let declared: Vec<&str> = spec.all_options().map(|o| o.name).collect();
                    assert_eq!(known, declared, "{}", spec.name);
                }
                Err(other) => panic!("{}: {other}", spec.name),
                Ok(_) => panic!("{}: accepted an unknown option", spec.name),
            }
        }
    }
}
