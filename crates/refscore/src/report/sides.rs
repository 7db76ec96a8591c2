//! The output and reference of chosen rows, read again from a suite's
//! dataset, for the HTML report's side-by-side view.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::dataset::{self, DatasetError};
use crate::suite::Suite;

/// Output and reference per row number.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sides {
    /// Row number → (output, reference).
    pub rows: BTreeMap<u64, (Value, Value)>,
}

impl Sides {
    /// The output and reference of the rows numbered in `wanted`, mapped as
    /// the suite's first evaluator that reads both maps them. Rows that
    /// cannot be read or mapped are left out.
    ///
    /// # Errors
    /// The dataset cannot be opened.
    pub fn read(suite: &Suite, wanted: &BTreeSet<u64>) -> Result<Sides, DatasetError> {
        let mut out = Sides::default();
        let Some(ev) = suite.evaluators.iter().find(|e| {
            let names: Vec<&str> = e.evaluator.inputs().iter().map(|s| s.name.as_ref()).collect();
            names.contains(&"output") && names.contains(&"reference")
        }) else {
            return Ok(out);
        };
        let Some(last) = wanted.last().copied() else { return Ok(out) };
        for row in dataset::open(&suite.dataset, suite.format)? {
            let Ok(row) = row else { continue };
            if row.number > last {
                break;
            }
            if !wanted.contains(&row.number) {
                continue;
            }
            if let Ok(input) = ev.mapping.resolve(&row, ev.evaluator.inputs())
                && let (Some(o), Some(r)) = (input.get("output"), input.get("reference"))
            {
                out.rows.insert(row.number, (o.clone(), r.clone()));
            }
        }
        Ok(out)
    }
}
