//! JSON Schemas of the files a run writes, generated from the Rust types:
//! a line of `results.jsonl` ([`RowResult`]) and `summary.json`
//! ([`RunSummary`]). The published copies live in `docs/schema/`; a test
//! fails when they differ from what this module generates.

use serde_json::Value;

use crate::runner::RowResult;
use crate::summary::RunSummary;

/// The version of the output format. It changes when a field is removed
/// or changes meaning; new optional fields keep the version.
pub const VERSION: u32 = 1;

/// The JSON Schema of one line of `results.jsonl`.
pub fn results_line() -> Value {
    with_id(schemars::schema_for!(RowResult), "results-line")
}

/// The JSON Schema of `summary.json`.
pub fn summary() -> Value {
    with_id(schemars::schema_for!(RunSummary), "summary")
}

/// The file name a schema is published under in `docs/schema/`.
pub fn file_name(kind: &str) -> String {
    format!("{kind}.v{VERSION}.schema.json")
}

fn with_id(schema: schemars::Schema, kind: &str) -> Value {
    let mut v = schema.to_value();
    if let Some(obj) = v.as_object_mut() {
        obj.insert(
            "$id".into(),
            Value::String(format!("https://refscore.invalid/schema/{}", file_name(kind))),
        );
        obj.insert("x-refscore-version".into(), Value::from(VERSION));
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemas_name_their_version_and_main_fields() {
        let r = results_line();
        assert_eq!(r["$id"], "https://refscore.invalid/schema/results-line.v1.schema.json");
        for field in ["id", "row", "scores", "execution", "metric_results"] {
            assert!(r["properties"].get(field).is_some(), "{field}");
        }
        let s = summary();
        assert!(s["properties"].get("gate").is_some());
        assert_eq!(s["x-refscore-version"], 1);
    }

    /// The copies in `docs/schema/` are what the types generate; run with
    /// `REFSCORE_BLESS=1` to write them again after changing a type.
    #[test]
    fn published_schemas_match_the_types() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/schema");
        for (kind, schema) in [("results-line", results_line()), ("summary", summary())] {
            let path = dir.join(file_name(kind));
            let text = serde_json::to_string_pretty(&schema).unwrap() + "\n";
            if std::env::var_os("REFSCORE_BLESS").is_some() {
                std::fs::create_dir_all(&dir).unwrap();
                std::fs::write(&path, &text).unwrap();
            }
            let published = std::fs::read_to_string(&path).unwrap_or_default();
            assert!(
                published == text,
                "{} differs from the schema the types generate: run `REFSCORE_BLESS=1 cargo test -p refscore --lib schema` and commit it",
                path.display()
            );
        }
    }
}
