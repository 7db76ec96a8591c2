//! Python objects to JSON values and back.
//!
//! dict, list, tuple, str, int, float, bool and None map to JSON as
//! `json.dumps` would map them; a float NaN (how pandas marks a missing
//! cell) and pandas' `NA`/`NaT` become `null`; numpy scalars and arrays
//! go through their `tolist()`. An infinite float is an error (it is not
//! missing, and JSON has no form for it), as is anything else, naming its
//! type.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use refscore::path::{JsonPath, PathSeg};
use serde_json::{Map, Number, Value};

/// Deepest nesting converted; deeper values are an error, not a stack
/// overflow.
pub(crate) const MAX_DEPTH: usize = 512;

/// Converts a Python object to a JSON value.
///
/// # Errors
/// A value with no JSON form (a set, a custom object), a dict key that is
/// not a string, or nesting deeper than [`MAX_DEPTH`]. Below the top, the
/// message starts with the JSON path of the value at fault
/// (`at $.items[2].price: inf has no JSON form`); the exception stays a
/// `TypeError` or a `ValueError`.
pub(crate) fn to_value(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    to_value_at(obj, 0).map_err(|f| f.into_py_err(obj.py()))
}

/// A conversion that failed: the error, and the path to the value at
/// fault, innermost step first.
struct Failure {
    err: PyErr,
    path: Vec<PathSeg>,
}

impl From<PyErr> for Failure {
    fn from(err: PyErr) -> Self {
        Failure { err, path: Vec::new() }
    }
}

impl Failure {
    /// The failure one step further out: `seg` leads to where it happened.
    fn under(mut self, seg: PathSeg) -> Self {
        self.path.push(seg);
        self
    }

    /// The error with its path: a `TypeError` or `ValueError` is raised
    /// again as one whose message starts with the path, the original as
    /// its cause; any other exception (an `OverflowError`, a
    /// `KeyboardInterrupt` inside a `tolist()`) passes unchanged.
    fn into_py_err(self, py: Python<'_>) -> PyErr {
        if self.path.is_empty() {
            return self.err;
        }
        let path = JsonPath(self.path.into_iter().rev().collect());
        let message = format!("at {path}: {}", self.err.value(py));
        let with_path = if self.err.is_instance_of::<PyTypeError>(py) {
            PyTypeError::new_err(message)
        } else if self.err.is_instance_of::<PyValueError>(py) {
            PyValueError::new_err(message)
        } else {
            return self.err;
        };
        with_path.set_cause(py, Some(self.err));
        with_path
    }
}

fn to_value_at(obj: &Bound<'_, PyAny>, depth: usize) -> Result<Value, Failure> {
    if depth > MAX_DEPTH {
        let e = PyValueError::new_err(format!("value nested deeper than {MAX_DEPTH} levels"));
        return Err(e.into());
    }
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::String(s.to_str()?.to_owned()));
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        return bytes_text(b.as_bytes()).map_err(|why| PyValueError::new_err(why).into());
    }
    if let Ok(i) = obj.cast::<PyInt>() {
        return Ok(int_value(i)?);
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        return float_value(f.value());
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        let mut map = Map::new();
        for (k, v) in d.iter() {
            let key = match k.cast::<PyString>() {
                Ok(s) => s.to_str()?.to_owned(),
                Err(_) => {
                    return Err(PyTypeError::new_err(format!(
                        "dict keys must be strings, got {}",
                        type_name(&k)
                    ))
                    .into());
                }
            };
            let v = to_value_at(&v, depth + 1)
                .map_err(|f| f.under(PathSeg::Key(key.as_str().into())))?;
            map.insert(key, v);
        }
        return Ok(Value::Object(map));
    }
    if let Ok(l) = obj.cast::<PyList>() {
        return items(l.iter(), depth);
    }
    if let Ok(t) = obj.cast::<PyTuple>() {
        return items(t.iter(), depth);
    }
    let name = type_name(obj);
    if matches!(name.as_str(), "NAType" | "NaTType") {
        return Ok(Value::Null);
    }
    // numpy's float32, a scalar or the elements of an array: the decimal
    // written (0.1), not the double `tolist` widens it to.
    if name == "float32" {
        return float32_value(obj);
    }
    if name == "ndarray" && is_float32(&obj.getattr("dtype")?)? {
        if obj.getattr("ndim")?.extract::<usize>()? == 0 {
            return float32_value(&obj.call_method0("item")?);
        }
        let elements: Vec<Bound<'_, PyAny>> = obj.try_iter()?.collect::<PyResult<_>>()?;
        return items(elements.into_iter(), depth);
    }
    if obj.hasattr("tolist")? {
        let plain = obj.call_method0("tolist")?;
        if !plain.is(obj) {
            return to_value_at(&plain, depth + 1);
        }
    }
    if let Ok(i) = obj.call_method0("__index__")
        && let Ok(i) = i.cast::<PyInt>()
    {
        return Ok(int_value(i)?);
    }
    Err(PyTypeError::new_err(format!("a value of type {name} has no JSON form")).into())
}

/// Whether a numpy dtype is a 32-bit float (either byte order).
fn is_float32(dtype: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(dtype.getattr("kind")?.extract::<String>()? == "f"
        && dtype.getattr("itemsize")?.extract::<usize>()? == 4)
}

/// The JSON value of a float32 (numpy's scalar, or a Python float it was
/// widened to exactly): the decimal written.
fn float32_value(obj: &Bound<'_, PyAny>) -> Result<Value, Failure> {
    #[allow(clippy::cast_possible_truncation)] // a float32 widened: exact back
    let x = obj.extract::<f64>()? as f32;
    float_value(refscore::number::f32_as_written(x))
}

/// A float's JSON value: NaN is missing (`null`); an infinity, which is
/// not missing, has no JSON form.
fn float_value(x: f64) -> Result<Value, Failure> {
    if x.is_infinite() {
        return Err(PyValueError::new_err(format!("{x} has no JSON form")).into());
    }
    Ok(Number::from_f64(x).map_or(Value::Null, Value::Number))
}

/// The elements of a list or tuple, a failure naming its index.
fn items<'py>(
    elements: impl Iterator<Item = Bound<'py, PyAny>>,
    depth: usize,
) -> Result<Value, Failure> {
    elements
        .enumerate()
        .map(|(i, v)| to_value_at(&v, depth + 1).map_err(|f| f.under(PathSeg::Index(i))))
        .collect::<Result<_, _>>()
        .map(Value::Array)
}

fn int_value(i: &Bound<'_, PyInt>) -> PyResult<Value> {
    if let Ok(x) = i.extract::<i64>() {
        return Ok(Value::from(x));
    }
    if let Ok(x) = i.extract::<u64>() {
        return Ok(Value::from(x));
    }
    // Beyond 64 bits: the nearest double, as JSON readers see it.
    let x: f64 = i.extract()?;
    Number::from_f64(x)
        .map(Value::Number)
        .ok_or_else(|| PyValueError::new_err("integer too large for JSON"))
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type().name().map_or_else(|_| String::from("?"), |n| n.to_string())
}

/// Converts a JSON value to Python objects (dict, list, str, int, float,
/// bool, None).
///
/// # Errors
/// Nesting deeper than [`MAX_DEPTH`], or Python cannot allocate the objects.
pub(crate) fn to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    to_py_at(py, v, 0)
}

fn to_py_at<'py>(py: Python<'py>, v: &Value, depth: usize) -> PyResult<Bound<'py, PyAny>> {
    if depth > MAX_DEPTH {
        return Err(PyValueError::new_err(format!("value nested deeper than {MAX_DEPTH} levels")));
    }
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else if let Some(u) = n.as_u64() {
                u.into_pyobject(py)?.into_any()
            } else {
                n.as_f64().unwrap_or(0.0).into_pyobject(py)?.into_any()
            }
        }
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(a) => {
            let list = PyList::empty(py);
            for x in a {
                list.append(to_py_at(py, x, depth + 1)?)?;
            }
            list.into_any()
        }
        Value::Object(m) => {
            let d = PyDict::new(py);
            for (k, x) in m {
                d.set_item(k, to_py_at(py, x, depth + 1)?)?;
            }
            d.into_any()
        }
    })
}

/// Converts a JSON object to a Python dict.
///
/// # Errors
/// As [`to_py`].
pub(crate) fn map_to_py<'py>(
    py: Python<'py>,
    m: &Map<String, Value>,
) -> PyResult<Bound<'py, PyAny>> {
    let d = PyDict::new(py);
    for (k, x) in m {
        d.set_item(k, to_py_at(py, x, 1)?)?;
    }
    Ok(d.into_any())
}

/// Bytes as the text they hold (a column of bytes, in pandas or as Arrow
/// binary, usually holds text); bytes that are not UTF-8 are an error
/// saying so, never a guess.
pub(crate) fn bytes_text(bytes: &[u8]) -> Result<Value, String> {
    match std::str::from_utf8(bytes) {
        Ok(s) => Ok(Value::String(s.to_owned())),
        Err(e) => Err(format!(
            "bytes that are not UTF-8 text (invalid at byte {}): decode them first",
            e.valid_up_to()
        )),
    }
}
