//! `MetricEvaluator`: a built-in metric built from the Rust registry, and
//! `Mapping`: a compiled input mapping of column names and JSONPaths.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use pyo3::exceptions::{PyConnectionError, PyKeyError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use refscore::judge::{CacheMode, CacheSettings, JudgeError, Judges};
use refscore::metrics::{self, BuildContext};
use refscore::{EvalInput, Evaluator, InputMapping, InputSpec, InputType, Row, Score};
use serde_json::{Map, Value};

use crate::convert::{to_py, to_value};
use crate::engine::{Bound as BoundEval, listing_all, names_row, on_big_stack, rename};
use crate::interrupt::{Stop, interruptible};

/// A built-in metric, built once from its name and options, evaluated in
/// Rust. Immutable and shareable across threads.
#[pyclass(module = "refscore._refscore", frozen)]
pub(crate) struct MetricEvaluator {
    name: String,
    metric: String,
    options: Map<String, Value>,
    judge: Option<Value>,
    /// The judges its LLM metric asks, and what they cost so far.
    judges: Arc<Judges>,
    evaluator: Arc<dyn Evaluator>,
}

impl MetricEvaluator {
    /// This evaluator bound to a mapping.
    pub(crate) fn bound(&self, mapping: InputMapping) -> BoundEval {
        let concurrency = if self.evaluator.kind() == refscore::Kind::Llm {
            self.judges.concurrency().max(1)
        } else {
            0
        };
        BoundEval {
            name: self.name.clone(),
            evaluator: Arc::clone(&self.evaluator),
            mapping,
            concurrency,
            cancel: self.judges.cancel_flag(),
        }
    }
}

fn object_arg(obj: Option<&Bound<'_, PyAny>>, what: &str) -> PyResult<Option<Map<String, Value>>> {
    match obj {
        None => Ok(None),
        Some(o) if o.is_none() => Ok(None),
        Some(o) => match to_value(o)? {
            Value::Object(m) => Ok(Some(m)),
            other => Err(PyValueError::new_err(format!("{what} must be a dict, got {other}"))),
        },
    }
}

/// Refuses judge `headers` that are not a dict of text values, naming the
/// header and the type expected but never the value, which may be a key:
/// the library's message for a value of the wrong type quotes it
/// (``invalid type: integer `12345`, expected a string``).
fn check_headers(judge: &Value) -> PyResult<()> {
    let Some(headers) = judge.get("headers") else {
        return Ok(());
    };
    let Value::Object(headers) = headers else {
        return Err(PyValueError::new_err(format!(
            "judge `headers` must be a dict of header name to string value, got {}",
            json_type(headers)
        )));
    };
    for (name, value) in headers {
        if !value.is_string() {
            return Err(PyValueError::new_err(format!(
                "judge `headers`: the value of header `{name}` must be a string, got {} (the value is not shown: it may be a key)",
                json_type(value)
            )));
        }
    }
    Ok(())
}

/// The JSON type of a value, for messages that must not show the value.
fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "None",
        Value::Bool(_) => "a bool",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a dict",
    }
}

impl MetricEvaluator {
    /// [`MetricEvaluator::new`] but for its warnings.
    fn build(
        metric: &str,
        options: Option<&Bound<'_, PyAny>>,
        name: Option<String>,
        judge: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        on_big_stack(|| {
            let options = object_arg(options, "options")?.unwrap_or_default();
            let judge = object_arg(judge, "judge")?.map(Value::Object);
            if let Some(j) = &judge {
                check_headers(j)?;
            }
            let name = name.unwrap_or_else(|| metric.to_owned());
            let judges = match &judge {
                None => Arc::new(Judges::none()),
                Some(j) => {
                    let cache = CacheSettings { path: None, mode: CacheMode::Off };
                    Arc::new(
                        Judges::from_suite(Some(j), None, Path::new("."), &cache, true)
                            .map_err(|e| PyValueError::new_err(e.to_string()))?,
                    )
                }
            };
            let ctx = BuildContext {
                base_dir: None,
                field_tallies: false,
                judges: Arc::clone(&judges),
                evaluator: Some(name.clone()),
                files: Arc::default(),
                define_judge: Some(
                    "pass the judge's settings to the metric (`judge={\"model\": ...}`)",
                ),
            };
            let built = metrics::build(metric, &options, &ctx)
                .map_err(|e| PyValueError::new_err(e.to_string()))?;
            Ok(MetricEvaluator {
                name,
                metric: metric.to_owned(),
                options,
                judge,
                judges,
                evaluator: Arc::from(built),
            })
        })
    }
}

#[pymethods]
impl MetricEvaluator {
    /// Builds the metric `metric` with `options` (a dict, as in a suite).
    /// `judge` holds the settings of the judge LLM metrics ask (`model`,
    /// `base_url`, `api_key_env`, ...); the API key is read from the
    /// environment, never given here.
    ///
    /// A judge that would send its API key over plain `http://` to
    /// another machine is warned of (`UserWarning`), as `refscore run`
    /// warns of it before a run starts.
    #[new]
    #[pyo3(signature = (metric, options=None, name=None, judge=None))]
    fn new(
        py: Python<'_>,
        metric: &str,
        options: Option<&Bound<'_, PyAny>>,
        name: Option<String>,
        judge: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let built = Self::build(metric, options, name, judge)?;
        for w in built.judges.warnings() {
            let message = std::ffi::CString::new(w.replace('\0', "")).unwrap_or_default();
            PyErr::warn(py, &py.get_type::<pyo3::exceptions::PyUserWarning>(), &message, 1)?;
        }
        Ok(built)
    }

    /// The evaluator's name (the name of its main score).
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// The registry metric it runs.
    #[getter]
    fn metric(&self) -> &str {
        &self.metric
    }

    /// `code` or `llm`.
    #[getter]
    fn kind(&self) -> &'static str {
        kind_name(self.evaluator.kind())
    }

    /// `maximize`, `minimize` or `neutral`.
    #[getter]
    fn direction(&self) -> &'static str {
        direction_name(self.evaluator.direction())
    }

    /// The options it was built with.
    #[getter]
    fn options<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        on_big_stack(|| to_py(py, &Value::Object(self.options.clone())))
    }

    /// The judge settings it was built with, if any.
    #[getter]
    fn judge<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        on_big_stack(|| to_py(py, self.judge.as_ref().unwrap_or(&Value::Null)))
    }

    /// What its judge cost since it was built, in every thread and call:
    /// one dict per judge (`judge`, `model`, `evaluator`, `evaluations`,
    /// `requests`, `retries`, `failures`, `cache_hits`, `prompt_tokens`,
    /// `completion_tokens`, `latency_p50_ms`, `latency_p95_ms`, `cost`
    /// (None without prices), `adapted`), as in a run's summary; empty for
    /// a metric that asks no judge or has not asked yet.
    fn judge_usage<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut usage = serde_json::to_value(self.judges.usage())
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        // Every key in every dict: the summary leaves `adapted` out when
        // empty and `cost` without prices, a dict is easier to read with
        // them there.
        for u in usage.as_array_mut().into_iter().flatten() {
            if let Some(u) = u.as_object_mut() {
                u.entry("adapted").or_insert_with(|| Value::Array(Vec::new()));
                u.entry("cost").or_insert(Value::Null);
            }
        }
        on_big_stack(|| to_py(py, &usage))
    }

    /// The inputs it reads: dicts with `name`, `required`, `type`,
    /// `description`.
    #[getter]
    fn inputs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for spec in self.evaluator.inputs() {
            let d = PyDict::new(py);
            d.set_item("name", spec.name.as_ref())?;
            d.set_item("required", spec.required)?;
            d.set_item("type", spec.kind.as_str())?;
            d.set_item("description", spec.description)?;
            list.append(d)?;
        }
        Ok(list)
    }

    /// Evaluates one input (input name → value, already mapped) and
    /// returns its scores as dicts, the interpreter released meanwhile.
    /// A judged evaluation ends early, raising, on Ctrl-C or once `stop`
    /// (set from another thread) is stopped.
    ///
    /// A failed evaluation raises `ValueError`, but `ConnectionError` when
    /// its judge's server could not be reached or did not answer in time
    /// ([`evaluation_error`]).
    #[pyo3(signature = (input, stop=None))]
    fn evaluate_input<'py>(
        &self,
        py: Python<'py>,
        input: &Bound<'py, PyDict>,
        stop: Option<Bound<'py, Stop>>,
    ) -> PyResult<Bound<'py, PyList>> {
        let handle = stop.as_ref().map(Bound::get);
        on_big_stack(|| {
            let mut values: Vec<(String, Value)> = Vec::with_capacity(input.len());
            for (k, v) in input.iter() {
                values.push((k.extract()?, to_value(&v)?));
            }
            let b = self.bound(InputMapping::new());
            let work = |_: &AtomicBool| {
                let mut eval_input = EvalInput::new();
                for (k, v) in values {
                    eval_input.set(&k, v);
                }
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    b.evaluator.evaluate(&eval_input).map(|e| rename(&b, e.scores))
                }))
            };
            // A judged row waits seconds on the network: Ctrl-C is heard
            // meanwhile. A code metric's row takes microseconds, less than
            // starting the thread that listening needs.
            let result = if b.concurrency > 0 {
                interruptible(py, &[Arc::clone(&b.cancel)], handle, work)?
            } else {
                py.detach(|| work(&AtomicBool::new(false)))
            };
            match result {
                Ok(Ok(scores)) => scores_list(py, &scores),
                Ok(Err(e)) => Err(evaluation_error(e.to_string())),
                Err(_) => Err(PyValueError::new_err("evaluator panicked")),
            }
        })
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        on_big_stack(|| {
            let cls = py.get_type::<MetricEvaluator>();
            let args = (
                self.metric.clone(),
                to_py(py, &Value::Object(self.options.clone()))?,
                self.name.clone(),
                to_py(py, self.judge.as_ref().unwrap_or(&Value::Null))?,
            );
            (cls, args).into_pyobject(py)
        })
    }

    fn __repr__(&self) -> String {
        format!("MetricEvaluator(metric={:?}, name={:?})", self.metric, self.name)
    }
}

/// The exception of an evaluation that failed with `message`:
/// `ConnectionError` when a judge's server could not be reached or did not
/// answer in time, after its retries (a network failure is not a bad
/// value), `ValueError` for any other failure.
fn evaluation_error(message: String) -> PyErr {
    if JudgeError::is_transport_message(&message) {
        PyConnectionError::new_err(message)
    } else {
        PyValueError::new_err(message)
    }
}

pub(crate) fn direction_name(d: refscore::Direction) -> &'static str {
    match d {
        refscore::Direction::Maximize => "maximize",
        refscore::Direction::Minimize => "minimize",
        refscore::Direction::Neutral => "neutral",
    }
}

/// A score as the dict of its JSON form (the same keys and values as the
/// Rust `Score`'s JSON), built directly rather than through a JSON value.
pub(crate) fn score_dict<'py>(py: Python<'py>, s: &Score) -> PyResult<Bound<'py, PyAny>> {
    let d = PyDict::new(py);
    d.set_item(pyo3::intern!(py, "name"), &s.name)?;
    d.set_item(pyo3::intern!(py, "score"), s.score)?;
    if let Some(label) = &s.label {
        d.set_item(pyo3::intern!(py, "label"), label)?;
    }
    if let Some(explanation) = &s.explanation {
        d.set_item(pyo3::intern!(py, "explanation"), explanation)?;
    }
    d.set_item(pyo3::intern!(py, "direction"), direction_name(s.direction))?;
    d.set_item(pyo3::intern!(py, "kind"), kind_name(s.kind))?;
    if !s.metadata.is_empty() {
        d.set_item(pyo3::intern!(py, "metadata"), crate::convert::map_to_py(py, &s.metadata)?)?;
    }
    if !s.details.is_empty() {
        let v =
            serde_json::to_value(&s.details).map_err(|e| PyValueError::new_err(e.to_string()))?;
        d.set_item(pyo3::intern!(py, "details"), to_py(py, &v)?)?;
    }
    Ok(d.into_any())
}

/// `code`, `llm` or `human`.
pub(crate) fn kind_name(k: refscore::Kind) -> &'static str {
    match k {
        refscore::Kind::Code => "code",
        refscore::Kind::Llm => "llm",
        refscore::Kind::Human => "human",
    }
}

fn scores_list<'py>(py: Python<'py>, scores: &[Score]) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for s in scores {
        list.append(score_dict(py, s)?)?;
    }
    Ok(list)
}

/// An input mapping: evaluator input → column name or JSONPath, compiled
/// once (a malformed path is an error here, not on every row).
#[pyclass(module = "refscore._refscore", frozen)]
pub(crate) struct Mapping {
    pub(crate) mapping: InputMapping,
    sources: Map<String, Value>,
}

#[pymethods]
impl Mapping {
    /// Compiles `sources` (input name → column name or JSONPath string).
    #[new]
    fn new(sources: &Bound<'_, PyDict>) -> PyResult<Self> {
        let mut map = Map::new();
        for (k, v) in sources.iter() {
            map.insert(k.extract()?, Value::String(v.extract()?));
        }
        let mapping =
            InputMapping::from_config(&map).map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(Mapping { mapping, sources: map })
    }

    /// Reads `inputs` (pairs of name and whether it is required) from
    /// `row` (a dict) as a suite run does: a key equal to the whole source
    /// wins, then the JSONPath; inputs without a mapping read the key of
    /// their own name. Returns the inputs found.
    ///
    /// Raises KeyError naming the input and source when a required one is
    /// not found, listing the keys `all_keys` names (every key of the row,
    /// when `row` holds only those read), else `row`'s. A value with no
    /// JSON form under a key `labels` names (a key the caller made, for a
    /// mapping function's value) is named by its label, as
    /// `evaluate_columns` names such a column.
    #[pyo3(signature = (row, inputs, all_keys=None, labels=None))]
    fn resolve<'py>(
        &self,
        py: Python<'py>,
        row: &Bound<'py, PyAny>,
        inputs: Vec<(String, bool)>,
        all_keys: Option<Vec<String>>,
        labels: Option<std::collections::HashMap<String, String>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        on_big_stack(|| {
            let all = all_keys.map(names_row);
            let labels = labels.unwrap_or_default();
            let value = if labels.is_empty() {
                to_value(row)?
            } else {
                let row = row.cast::<PyDict>()?;
                // The labelled keys are converted on their own, so that an
                // error names the label rather than the key.
                let plain = PyDict::new(py);
                let mut labelled = Map::new();
                for (k, v) in row.iter() {
                    match k.extract::<String>().ok().and_then(|k| labels.get(&k).map(|l| (k, l))) {
                        Some((k, label)) => {
                            let v = to_value(&v).map_err(|e| labelled_error(py, label, e))?;
                            labelled.insert(k, v);
                        }
                        None => plain.set_item(k, v)?,
                    }
                }
                let mut value = to_value(plain.as_any())?;
                if let Value::Object(m) = &mut value {
                    m.extend(labelled);
                }
                value
            };
            let row = Row { number: 1, value, text_cells: false };
            let specs: Vec<InputSpec> = inputs
                .into_iter()
                .map(|(n, required)| InputSpec::named(n, required, InputType::Json, ""))
                .collect();
            let out = PyDict::new(py);
            match self.mapping.resolve(&row, &specs) {
                Ok(input) => {
                    for spec in &specs {
                        let name = spec.name.as_ref();
                        if input.names().any(|n| n == name) {
                            let v = input.get(name).cloned().unwrap_or(Value::Null);
                            out.set_item(name, to_py(py, &v)?)?;
                        }
                    }
                    Ok(out)
                }
                Err(e) => {
                    let e = listing_all(&self.mapping, &specs, e, all.as_ref());
                    Err(PyKeyError::new_err(e.to_string()))
                }
            }
        })
    }

    /// The sources, as given.
    #[getter]
    fn sources<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &Value::Object(self.sources.clone()))
    }
}

/// `e` (a conversion error) with `label` before its message, of the same
/// type (`TypeError` or `ValueError`; any other passes unchanged).
fn labelled_error(py: Python<'_>, label: &str, e: PyErr) -> PyErr {
    let message = format!("{label}: {}", e.value(py));
    if e.is_instance_of::<pyo3::exceptions::PyTypeError>(py) {
        pyo3::exceptions::PyTypeError::new_err(message)
    } else if e.is_instance_of::<PyValueError>(py) {
        PyValueError::new_err(message)
    } else {
        e
    }
}
