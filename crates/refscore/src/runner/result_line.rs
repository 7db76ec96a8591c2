//! A [`RowResult`] written as its line of `results.jsonl`: the bytes
//! `serde_json` writes for it, by [`crate::score_line`]'s writers, but
//! for `execution` and `passed` (written by `serde_json`).

use super::RowResult;
use crate::number::push_integer;
use crate::score_line::{detail, number, optional_text, text, value_json, write_score};

/// The row's line, as `serde_json::to_string` writes it.
pub(super) fn result_line(r: &RowResult) -> String {
    let mut out = String::with_capacity(2048);
    out.push_str("{\"id\":");
    text(&mut out, &r.id);
    out.push_str(",\"row\":");
    push_integer(&mut out, r.row);
    out.push_str(",\"scores\":[");
    for (i, s) in r.scores.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_score(&mut out, None, s);
    }
    out.push_str("],\"execution\":");
    value_json(&mut out, &r.execution);
    if !r.passed.is_empty() {
        out.push_str(",\"passed\":");
        value_json(&mut out, &r.passed);
    }
    if r.row_score.is_some() {
        out.push_str(",\"row_score\":");
        number(&mut out, r.row_score);
    }
    optional_text(&mut out, ",\"error\":", r.error.as_deref());
    if !r.metric_results.is_empty() {
        out.push_str(",\"metric_results\":{");
        let mut path = String::new();
        for (i, (name, m)) in r.metric_results.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            text(&mut out, name);
            out.push_str(":{\"score\":");
            number(&mut out, m.score);
            if let Some(passed) = m.passed {
                out.push_str(if passed { ",\"passed\":true" } else { ",\"passed\":false" });
            }
            if !m.details.is_empty() {
                out.push_str(",\"details\":[");
                for (j, d) in m.details.iter().enumerate() {
                    if j > 0 {
                        out.push(',');
                    }
                    detail(&mut out, d, &mut path);
                }
                out.push(']');
            }
            out.push('}');
        }
        out.push('}');
    }
    out.push('}');
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use proptest::prelude::*;
    use serde_json::json;

    use super::*;
    use crate::metric_result::MetricResult;
    use crate::runner::{Execution, Status};
    use crate::score_line::strategies::{any_detail, any_number, any_score, any_text};

    fn any_row() -> impl Strategy<Value = RowResult> {
        let execution = proptest::collection::btree_map(
            any_text(),
            (any::<bool>(), any::<f64>(), proptest::option::of(any_text()), any::<bool>())
                .prop_map(|(ok, ms, error, decode)| Execution {
                    status: if ok { Status::Completed } else { Status::Failed },
                    duration_ms: crate::number::finite(ms),
                    error,
                    decode: if decode {
                        json!({"output": "parsed", "n": [1, 2.5]}).as_object().cloned().unwrap()
                    } else {
                        serde_json::Map::new()
                    },
                }),
            0..3,
        );
        let results = proptest::collection::btree_map(
            any_text(),
            (
                any_number(),
                proptest::option::of(any::<bool>()),
                proptest::collection::vec(any_detail(), 0..3),
            )
                .prop_map(|(score, passed, details)| MetricResult {
                    score,
                    passed,
                    details,
                }),
            0..3,
        );
        (
            (any_text(), any::<u64>(), proptest::collection::vec(any_score(), 0..3)),
            execution,
            proptest::collection::btree_map(any_text(), any::<bool>(), 0..3),
            any_number(),
            proptest::option::of(any_text()),
            results,
        )
            .prop_map(
                |((id, row, scores), execution, passed, row_score, error, metric_results)| {
                    RowResult {
                        id,
                        row,
                        scores,
                        execution,
                        passed,
                        row_score,
                        error,
                        metric_results,
                    }
                },
            )
    }

    #[test]
    fn an_unreadable_row_is_written_as_serde_json_writes_it() {
        let r = RowResult {
            id: "7".into(),
            row: 7,
            scores: Vec::new(),
            execution: BTreeMap::new(),
            passed: BTreeMap::new(),
            row_score: None,
            error: Some("data.jsonl:7: invalid JSON: \"x\"".into()),
            metric_results: BTreeMap::new(),
        };
        assert_eq!(result_line(&r), serde_json::to_string(&r).unwrap());
    }

    proptest! {
        #[test]
        fn any_row_is_written_as_serde_json_writes_it(r in any_row()) {
            prop_assert_eq!(result_line(&r), serde_json::to_string(&r).unwrap());
        }
    }
}
