//! `refscore._refscore`: the native part of the `refscore` Python package.
//!
//! The Python package (`python/refscore`) gives the Pythonic API; this
//! module builds metrics from the Rust registry and evaluates them over
//! many rows on Rust threads with the interpreter released. See
//! `docs/python.md`.

/// Rust's own allocations (parsed documents, scores) use mimalloc, as the
/// CLI does; Python's objects keep Python's allocator.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod arrow_rows;
mod convert;
mod engine;
mod evaluator;
mod gil_turns;
mod interrupt;

use arrow::array::RecordBatch;
use arrow_pyarrow::PyArrowType;
use gil_turns::GilTurns;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use refscore::{InputMapping, Row, Score};
use serde_json::{Map, Value};

use crate::convert::{to_py, to_value, to_value_strict};
use crate::engine::{Bound as BoundEval, Outcome, RowInput, on_big_stack};
use crate::evaluator::{Mapping, MetricEvaluator, score_dict};
use crate::interrupt::{Stop, interruptible, interruptible_partial};

/// The built-in metrics as the registry declares them: name,
/// description, inputs, options, kind, direction, threshold, extra
/// scores, example.
#[pyfunction]
fn registry(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    on_big_stack(|| {
        let v = serde_json::to_value(refscore::metrics::registry::all())
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        to_py(py, &v)
    })
}

/// A score dict read as a Rust `Score` and written back: the JSON form
/// the Rust library gives that score.
#[pyfunction]
fn score_json<'py>(py: Python<'py>, score: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    on_big_stack(|| {
        let s: Score = serde_json::from_value(to_value(score)?)
            .map_err(|e| PyValueError::new_err(format!("not a score: {e}")))?;
        score_dict(py, &s)
    })
}

/// `value` as plain JSON values (dict, list, str, int, float, bool,
/// None), converted as cells are (numpy values to numbers and lists,
/// dates and `Decimal`s to the text Arrow gives them) except that a NaN,
/// like an infinity, raises `ValueError`: a score's metadata and details,
/// made one JSON form when the score is. Errors start with `what` and the
/// JSON path of the value at fault (`metadata at $.x: NaN has no JSON
/// form`).
#[pyfunction]
fn json_value<'py>(
    py: Python<'py>,
    value: &Bound<'py, PyAny>,
    what: &str,
) -> PyResult<Bound<'py, PyAny>> {
    on_big_stack(|| to_py(py, &to_value_strict(value, what)?))
}

/// The judges' cancel flags of `bound`, for [`interruptible`].
fn cancels(bound: &[BoundEval]) -> Vec<std::sync::Arc<std::sync::atomic::AtomicBool>> {
    bound.iter().map(|b| std::sync::Arc::clone(&b.cancel)).collect()
}

/// The evaluators with their mappings, ready to run.
fn bound_list(evaluators: &Bound<'_, PyList>) -> PyResult<Vec<BoundEval>> {
    let mut out = Vec::with_capacity(evaluators.len());
    for item in evaluators.iter() {
        let (ev, mapping): (Bound<'_, MetricEvaluator>, Option<Bound<'_, Mapping>>) =
            item.extract()?;
        let mapping = mapping.map_or_else(InputMapping::new, |m| m.get().mapping.clone());
        out.push(ev.get().bound(mapping));
    }
    Ok(out)
}

/// Evaluates rows given as columns of Python values (`columns`: name →
/// list of `n_rows` values) with each `(evaluator, mapping or None)` of
/// `evaluators`, on `threads` Rust threads (default: one per core).
/// `all_columns`, the names of every column of the frame (only those read
/// are given in `columns`), are what an input that cannot be found lists.
///
/// Returns `(scores, executions)`: score name → one value per row (the
/// score as a dict, or as JSON text with `score_format="json"`, or None),
/// and evaluator name → one dict per row (`status`, `duration_ms`,
/// `error`).
#[pyfunction]
#[pyo3(signature = (evaluators, columns, n_rows, threads=None, score_format="dict", stop=None, all_columns=None, labels=None, exit_on_error=false))]
#[allow(clippy::too_many_arguments)]
fn evaluate_columns<'py>(
    py: Python<'py>,
    evaluators: &Bound<'py, PyList>,
    columns: &Bound<'py, PyDict>,
    n_rows: usize,
    threads: Option<usize>,
    score_format: &str,
    stop: Option<Bound<'py, Stop>>,
    all_columns: Option<Vec<String>>,
    labels: Option<std::collections::HashMap<String, String>>,
    exit_on_error: bool,
) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyDict>)> {
    on_big_stack(|| {
        let bound = bound_list(evaluators)?;
        let all = all_columns.map(engine::names_row);
        let mut cols: Vec<(String, String, Vec<Bound<'py, PyAny>>)> = Vec::new();
        for (k, v) in columns.iter() {
            let values: Vec<Bound<'py, PyAny>> = v.try_iter()?.collect::<PyResult<_>>()?;
            if values.len() != n_rows {
                return Err(PyValueError::new_err(format!(
                    "column `{k}` has {} values, expected {n_rows}",
                    values.len()
                )));
            }
            let name: String = k.extract()?;
            // How a row's error names the column: a column the caller made
            // (a mapping function's values) by what it holds.
            let shown = labels
                .as_ref()
                .and_then(|l| l.get(&name).cloned())
                .unwrap_or_else(|| format!("column `{name}`"));
            cols.push((name, shown, values));
        }
        let mut rows: Vec<RowInput> = Vec::with_capacity(n_rows);
        let mut turns = GilTurns::new();
        for i in 0..n_rows {
            // Ctrl-C and other threads are heard between rows, not only
            // once every row is converted.
            turns.row(py)?;
            let mut map = Map::new();
            let mut error = None;
            for (name, shown, values) in &cols {
                match to_value(&values[i]) {
                    Ok(v) => {
                        map.insert(name.clone(), v);
                    }
                    Err(e) => {
                        error = Some(format!("row {i}: {shown}: {e}"));
                        break;
                    }
                }
            }
            rows.push(match error {
                None => {
                    Ok(Row { number: i as u64 + 1, value: Value::Object(map), text_cells: false })
                }
                Some(e) => Err(e),
            });
        }
        drop(cols);
        let handle = stop.as_ref().map(Bound::get);
        let (outcomes, raised) = interruptible_partial(py, &cancels(&bound), handle, |stop| {
            let out =
                engine::evaluate_rows(&bound, &rows, threads, stop, exit_on_error, all.as_ref());
            engine::drop_rows(rows);
            out
        });
        finish(py, &bound, outcomes, raised, score_format == "json", PyRuntimeError::new_err)
    })
}

/// The result columns of `outcomes`; when the call was stopped
/// (`raised`), that exception instead, carrying the columns of the rows
/// finished before the stop as its `refscore_partial` attribute (rows
/// not started failed with the error `cancelled`).
fn finish<'py>(
    py: Python<'py>,
    bound: &[BoundEval],
    outcomes: PyResult<Result<Vec<Vec<Outcome>>, String>>,
    raised: Option<PyErr>,
    json: bool,
    error: fn(String) -> PyErr,
) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyDict>)> {
    match raised {
        None => result_columns(py, bound, &outcomes?.map_err(error)?, json),
        Some(e) => {
            // Best effort: the exception is raised whatever happens here.
            if let Ok(Ok(outcomes)) = outcomes
                && let Ok(columns) = result_columns(py, bound, &outcomes, json)
            {
                let _ = e.value(py).setattr("refscore_partial", columns);
            }
            Err(e)
        }
    }
}

/// Evaluates the rows of Arrow record batches (pyarrow `RecordBatch`es, or
/// anything with `__arrow_c_array__`); returns as [`evaluate_columns`],
/// and takes `all_columns` as it does.
#[pyfunction]
#[pyo3(signature = (evaluators, batches, threads=None, score_format="dict", stop=None, all_columns=None, exit_on_error=false))]
#[allow(clippy::too_many_arguments)]
fn evaluate_arrow<'py>(
    py: Python<'py>,
    evaluators: &Bound<'py, PyList>,
    batches: &Bound<'py, PyAny>,
    threads: Option<usize>,
    score_format: &str,
    stop: Option<Bound<'py, Stop>>,
    all_columns: Option<Vec<String>>,
    exit_on_error: bool,
) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyDict>)> {
    let handle = stop.as_ref().map(Bound::get);
    let all = all_columns.map(engine::names_row);
    let call = ArrowCall { threads, score_format, handle, all: all.as_ref(), exit_on_error };
    on_big_stack(|| arrow_on_stack(py, evaluators, batches, &call))
}

/// What [`evaluate_arrow`] was asked, but for its evaluators and batches.
struct ArrowCall<'a> {
    threads: Option<usize>,
    score_format: &'a str,
    handle: Option<&'a Stop>,
    all: Option<&'a Row>,
    exit_on_error: bool,
}

fn arrow_on_stack<'py>(
    py: Python<'py>,
    evaluators: &Bound<'py, PyList>,
    batches: &Bound<'py, PyAny>,
    call: &ArrowCall<'_>,
) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyDict>)> {
    let ArrowCall { threads, score_format, handle, all, exit_on_error } = *call;
    let bound = bound_list(evaluators)?;
    // Imported here, not as an argument: the import recurses over the
    // schema, so it runs on the big stack too.
    let batches: Vec<PyArrowType<RecordBatch>> = batches.extract()?;
    let batches: Vec<RecordBatch> = batches.into_iter().map(|b| b.0).collect();
    let (outcomes, raised) =
        interruptible_partial(py, &cancels(&bound), handle, |stop| -> Result<_, String> {
            let mut rows = Vec::new();
            for b in &batches {
                rows.extend(arrow_rows::batch_rows(b, rows.len() as u64 + 1));
            }
            let out: Vec<Vec<Outcome>> =
                engine::evaluate_rows(&bound, &rows, threads, stop, exit_on_error, all)?;
            engine::drop_rows(rows);
            Ok(out)
        });
    finish(py, &bound, outcomes, raised, score_format == "json", PyValueError::new_err)
}

/// Scores one Arrow record batch and returns a pyarrow `RecordBatch`: the
/// input columns (with `keep_columns`), then per evaluator `<name>`
/// (float64 main score), `<name>_label`, `<name>_explanation` and
/// `<name>_error`. `all_columns` as in [`evaluate_columns`].
#[pyfunction]
#[pyo3(signature = (evaluators, batch, threads=None, keep_columns=true, all_columns=None))]
fn score_arrow(
    py: Python<'_>,
    evaluators: &Bound<'_, PyList>,
    batch: &Bound<'_, PyAny>,
    threads: Option<usize>,
    keep_columns: bool,
    all_columns: Option<Vec<String>>,
) -> PyResult<PyArrowType<RecordBatch>> {
    let all = all_columns.map(engine::names_row);
    on_big_stack(|| score_on_stack(py, evaluators, batch, threads, keep_columns, all.as_ref()))
}

fn score_on_stack(
    py: Python<'_>,
    evaluators: &Bound<'_, PyList>,
    batch: &Bound<'_, PyAny>,
    threads: Option<usize>,
    keep_columns: bool,
    all: Option<&Row>,
) -> PyResult<PyArrowType<RecordBatch>> {
    let bound = bound_list(evaluators)?;
    let names: Vec<String> = bound.iter().map(|b| b.name.clone()).collect();
    // Imported on the big stack: the import recurses over the schema.
    let batch = batch.extract::<PyArrowType<RecordBatch>>()?.0;
    let out = interruptible(py, &cancels(&bound), None, |stop| -> Result<RecordBatch, String> {
        let rows = arrow_rows::batch_rows(&batch, 1);
        let outcomes = engine::evaluate_rows(&bound, &rows, threads, stop, false, all)?;
        engine::drop_rows(rows);
        arrow_rows::result_batch(&batch, keep_columns, &names, &outcomes)
    })?
    .map_err(PyValueError::new_err)?;
    Ok(PyArrowType(out))
}

/// Outcomes as result columns: score name → values, evaluator name →
/// execution dicts.
fn result_columns<'py>(
    py: Python<'py>,
    bound: &[BoundEval],
    outcomes: &[Vec<Outcome>],
    json: bool,
) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyDict>)> {
    let n = outcomes.len();
    let scores = PyDict::new(py);
    let executions = PyDict::new(py);
    let completed = PyString::new(py, "completed");
    let failed = PyString::new(py, "failed");
    let mut turns = GilTurns::new();
    for (j, b) in bound.iter().enumerate() {
        let exec = PyList::empty(py);
        for row in outcomes {
            turns.row(py)?;
            let d = PyDict::new(py);
            match row.get(j) {
                Some(o) => {
                    d.set_item("status", if o.error.is_some() { &failed } else { &completed })?;
                    d.set_item("duration_ms", o.duration_ms)?;
                    d.set_item("error", o.error.as_deref())?;
                }
                None => d.set_item("status", &failed)?,
            }
            exec.append(d)?;
        }
        executions.set_item(&b.name, exec)?;
    }
    // One column per score name, in order of first appearance.
    for (i, row) in outcomes.iter().enumerate() {
        turns.row(py)?;
        for o in row {
            for s in &o.scores {
                let column = match scores.get_item(&s.name)? {
                    Some(c) => c.cast_into::<PyList>()?,
                    None => {
                        let c = PyList::new(py, (0..n).map(|_| py.None()))?;
                        scores.set_item(&s.name, &c)?;
                        c
                    }
                };
                let value = if json {
                    PyString::new(py, &s.to_json()).into_any()
                } else {
                    score_dict(py, s)?
                };
                column.set_item(i, value)?;
            }
        }
    }
    Ok((scores, executions))
}

/// The native module.
#[pymodule]
fn _refscore(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<MetricEvaluator>()?;
    m.add_class::<Mapping>()?;
    m.add_class::<Stop>()?;
    m.add_function(wrap_pyfunction!(registry, m)?)?;
    m.add_function(wrap_pyfunction!(score_json, m)?)?;
    m.add_function(wrap_pyfunction!(json_value, m)?)?;
    m.add_function(wrap_pyfunction!(evaluate_columns, m)?)?;
    m.add_function(wrap_pyfunction!(evaluate_arrow, m)?)?;
    m.add_function(wrap_pyfunction!(score_arrow, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
