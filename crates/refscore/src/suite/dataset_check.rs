//! What a dataset's own shape tells before a run reads its rows: the
//! columns its header names (CSV, Parquet), or, for a suite with LLM
//! evaluators, the keys of its first row (JSONL, JSON). A column an
//! evaluator would miss in every row is a configuration error naming the
//! evaluator, the input, the file and the columns, rather than a failed
//! evaluation on every row (and, for a judge, a paid request per row).
//!
//! Only a run checks its dataset ([`Suite::check_dataset`]): loading a
//! suite never reads the dataset, so commands that read recorded runs
//! (`runs`, `report`) still load a suite whose dataset has changed since.

use crate::error::ConfigError;
use crate::score::Kind;

use super::{Suite, SuiteEvaluator};

/// What is known of every row's columns before the rows are read.
enum Columns {
    /// A header's columns: every row has exactly these, so every required
    /// input read by a column's name is checked (see
    /// [`crate::mapping::InputMapping::check_columns`]).
    Header(Vec<String>),
    /// The first row's keys: only a sample, so only the inputs of LLM
    /// evaluators that no mapping names (a template's placeholders) are
    /// checked against it.
    FirstRow(Vec<String>),
}

impl Suite {
    /// Checks the dataset's columns against what every evaluator reads in
    /// every row, before a run: a CSV or Parquet header must hold the
    /// suite's `id` column, when it names one, and each column a required
    /// input reads by its name; for a suite with LLM
    /// evaluators and a JSONL or JSON file, each unmapped placeholder of a
    /// template must be a key of the first row. A dataset that cannot be
    /// opened yet, a stream (opening a named pipe waits for a writer, and
    /// the row read here would be lost to the run), or one without a
    /// header and without LLM evaluators is left to the run.
    ///
    /// # Errors
    /// An `id` column the header lacks (a misspelt one would number the
    /// rows, and pair them with a baseline's by their order), or the
    /// first evaluator input no row can give, naming the evaluator, the
    /// input, the dataset and its columns, in the suite's file.
    pub fn check_dataset(&self) -> Result<(), ConfigError> {
        let Some(columns) = self.known_columns() else { return Ok(()) };
        if let (Columns::Header(names), Some(id)) = (&columns, &self.id_column)
            && !names.contains(id)
        {
            return Err(ConfigError::invalid(
                "id",
                format!(
                    "the header of {} has no column `{id}` (columns: {}); without `id`, rows are identified by their number",
                    self.dataset.display(),
                    names.join(", ")
                ),
            )
            .in_file(&self.path));
        }
        for (i, e) in self.evaluators.iter().enumerate() {
            let problem = match &columns {
                Columns::Header(names) => {
                    e.mapping.check_columns(e.evaluator.inputs(), names).err().map(|missing| {
                        format!(
                            "the header of {} lacks a column this evaluator reads in every row: {missing}",
                            self.dataset.display()
                        )
                    })
                }
                Columns::FirstRow(names) => unmapped_placeholder(e, names).map(|name| {
                    format!(
                        "input `{name}` (a template placeholder) has no mapping and the dataset has no column `{name}` (columns: {})",
                        names.join(", ")
                    )
                }),
            };
            if let Some(message) = problem {
                return Err(ConfigError::invalid(format!("evaluators[{i}] `{}`", e.name), message)
                    .in_file(&self.path));
            }
        }
        Ok(())
    }

    /// The columns the dataset's header names or, when the suite asks a
    /// judge, the keys of its first row (sorted); `None` when neither can
    /// or need be read before the run.
    fn known_columns(&self) -> Option<Columns> {
        if let Some(names) = crate::dataset::header_columns(&self.dataset, self.format) {
            return Some(Columns::Header(names));
        }
        if !self.evaluators.iter().any(|e| e.evaluator.kind() == Kind::Llm) {
            return None;
        }
        if !std::fs::metadata(&self.dataset).is_ok_and(|m| m.is_file()) {
            return None;
        }
        let mut rows = crate::dataset::open(&self.dataset, self.format).ok()?;
        let first = rows.next()?.ok()?;
        let mut names: Vec<String> =
            first.value.as_object().map(|m| m.keys().cloned().collect()).unwrap_or_default();
        names.sort();
        // A first row may be nested deep: freed without recursion.
        crate::json::drop_deep(first.value);
        Some(Columns::FirstRow(names))
    }
}

/// The first required input of an LLM evaluator that no mapping names and
/// that is not a column of the first row (`reference` may be read from
/// `expected`).
fn unmapped_placeholder<'e>(e: &'e SuiteEvaluator, columns: &[String]) -> Option<&'e str> {
    if e.evaluator.kind() != Kind::Llm {
        return None;
    }
    let has = |name: &str| columns.iter().any(|c| c == name);
    e.evaluator.inputs().iter().filter(|s| s.required).map(|s| s.name.as_ref()).find(|&name| {
        e.mapping.source(name).is_none() && !has(name) && !(name == "reference" && has("expected"))
    })
}
