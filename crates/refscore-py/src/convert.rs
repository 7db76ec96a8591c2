//! Python objects to JSON values and back.
//!
//! dict, list, tuple, str, int, float, bool and None map to JSON as
//! `json.dumps` would map them; a float NaN (how pandas marks a missing
//! cell) and pandas' `NA`/`NaT` become `null`; numpy scalars and arrays
//! go through their `tolist()`. Dates, times, datetimes (pandas'
//! `Timestamp` too), timedeltas and `Decimal`s become the text the Arrow
//! path reads the same value as (a polars column of them, say): the value
//! is put in a one-cell Arrow array and read by
//! [`crate::arrow_rows::cell_value`]. An infinite float is an error (it is
//! not missing, and JSON has no form for it), as is anything else, naming
//! its type.

use std::sync::Arc;

use arrow::array::{
    ArrayRef, Date32Array, Decimal128Array, Decimal256Array, DurationMicrosecondArray,
    DurationMillisecondArray, DurationNanosecondArray, DurationSecondArray, Time64MicrosecondArray,
    TimestampMicrosecondArray, TimestampMillisecondArray, TimestampNanosecondArray,
    TimestampSecondArray,
};
use arrow::datatypes::i256;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{
    PyBool, PyBytes, PyDate, PyDateTime, PyDelta, PyDict, PyFloat, PyInt, PyList, PyString, PyTime,
    PyTuple, PyType,
};
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
    to_value_at(obj, 0, Nan::Missing).map_err(|f| f.into_py_err(obj.py(), None))
}

/// Converts a Python object to a JSON value as [`to_value`] does, except
/// that a float NaN is an error too: for values that are not cells (a
/// score's metadata), where NaN marks nothing missing. Every message
/// starts with `what` (`metadata at $.x: NaN has no JSON form`,
/// `metadata: dict keys must be strings, got int`).
///
/// # Errors
/// As [`to_value`], and a NaN anywhere.
pub(crate) fn to_value_strict(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Value> {
    to_value_at(obj, 0, Nan::Refused).map_err(|f| f.into_py_err(obj.py(), Some(what)))
}

/// What a float NaN converts to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Nan {
    /// `null`: a cell NaN marks missing, as pandas does.
    Missing,
    /// An error: a value that is no cell has no missing values to mark.
    Refused,
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

    /// The error with its path (and `what` the value converted is, when
    /// given): a `TypeError` or `ValueError` is raised again as one whose
    /// message starts with them, the original as its cause; any other
    /// exception (an `OverflowError`, a `KeyboardInterrupt` inside a
    /// `tolist()`) passes unchanged.
    fn into_py_err(self, py: Python<'_>, what: Option<&str>) -> PyErr {
        if self.path.is_empty() && what.is_none() {
            return self.err;
        }
        let why = self.err.value(py);
        let message = match (what, self.path.is_empty()) {
            (Some(what), true) => format!("{what}: {why}"),
            (what, _) => {
                let path = JsonPath(self.path.into_iter().rev().collect());
                let what = what.map_or_else(String::new, |w| format!("{w} "));
                format!("{what}at {path}: {why}")
            }
        };
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

fn to_value_at(obj: &Bound<'_, PyAny>, depth: usize, nan: Nan) -> Result<Value, Failure> {
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
        return crate::arrow_rows::bytes_text(b.as_bytes())
            .map_err(|why| PyValueError::new_err(why).into());
    }
    if let Ok(i) = obj.cast::<PyInt>() {
        return Ok(int_value(i)?);
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        return float_value(f.value(), nan);
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
            let v = to_value_at(&v, depth + 1, nan)
                .map_err(|f| f.under(PathSeg::Key(key.as_str().into())))?;
            map.insert(key, v);
        }
        return Ok(Value::Object(map));
    }
    if let Ok(l) = obj.cast::<PyList>() {
        return items(l.iter(), depth, nan);
    }
    if let Ok(t) = obj.cast::<PyTuple>() {
        return items(t.iter(), depth, nan);
    }
    let name = type_name(obj);
    if matches!(name.as_str(), "NAType" | "NaTType") {
        return Ok(Value::Null);
    }
    // numpy's float32, a scalar or the elements of an array: the decimal
    // written (0.1), not the double `tolist` widens it to.
    if name == "float32" {
        return float32_value(obj, nan);
    }
    // numpy's datetime64 and timedelta64 in nanoseconds: `tolist` gives
    // a bare integer for them.
    if matches!(name.as_str(), "datetime64" | "timedelta64")
        && let Some(v) = numpy_temporal(obj)?
    {
        return Ok(v);
    }
    if name == "ndarray" {
        let dtype = obj.getattr("dtype")?;
        if is_float32(&dtype)? || is_temporal(&dtype)? {
            // Element by element, each a numpy scalar read as above.
            if obj.getattr("ndim")?.extract::<usize>()? == 0 {
                let scalar = obj.get_item(PyTuple::empty(obj.py()))?;
                return to_value_at(&scalar, depth, nan);
            }
            let elements: Vec<Bound<'_, PyAny>> = obj.try_iter()?.collect::<PyResult<_>>()?;
            return items(elements.into_iter(), depth, nan);
        }
    }
    if let Some(v) = arrow_text(obj, nan)? {
        return Ok(v);
    }
    if obj.hasattr("tolist")? {
        let plain = obj.call_method0("tolist")?;
        if plain.get_type().is(obj.get_type()) {
            // numpy's longdouble gives a longdouble back: read as a double.
            if let Ok(f) = obj.call_method0("__float__") {
                return to_value_at(&f, depth + 1, nan);
            }
        } else if !plain.is(obj) {
            return to_value_at(&plain, depth + 1, nan);
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

/// Whether a numpy dtype holds datetimes or timedeltas.
fn is_temporal(dtype: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(matches!(dtype.getattr("kind")?.extract::<String>()?.as_str(), "M" | "m"))
}

/// The JSON value of a float32 (numpy's scalar, or a Python float it was
/// widened to exactly): the decimal written.
fn float32_value(obj: &Bound<'_, PyAny>, nan: Nan) -> Result<Value, Failure> {
    #[allow(clippy::cast_possible_truncation)] // a float32 widened: exact back
    let x = obj.extract::<f64>()? as f32;
    float_value(refscore::number::f32_as_written(x), nan)
}

/// A float's JSON value: NaN is missing (`null`) or refused, as `nan`
/// says; an infinity, which is not missing, has no JSON form.
fn float_value(x: f64, nan: Nan) -> Result<Value, Failure> {
    if x.is_infinite() || (x.is_nan() && nan == Nan::Refused) {
        return Err(PyValueError::new_err(format!("{x} has no JSON form")).into());
    }
    Ok(Number::from_f64(x).map_or(Value::Null, Value::Number))
}

/// The elements of a list or tuple, a failure naming its index.
fn items<'py>(
    elements: impl Iterator<Item = Bound<'py, PyAny>>,
    depth: usize,
    nan: Nan,
) -> Result<Value, Failure> {
    elements
        .enumerate()
        .map(|(i, v)| to_value_at(&v, depth + 1, nan).map_err(|f| f.under(PathSeg::Index(i))))
        .collect::<Result<_, _>>()
        .map(Value::Array)
}

/// Days from 0001-01-01 (ordinal 1) to 1970-01-01.
const EPOCH_ORDINAL: i64 = 719_163;

/// Digits a Decimal read may have: the most an Arrow decimal (256 bits)
/// holds.
const MAX_DECIMAL_DIGITS: usize = 76;

/// A date, time, datetime, timedelta (pandas' `Timestamp` and
/// `Timedelta` too) or `Decimal` as the text the Arrow path gives the same
/// value ([`crate::arrow_rows::cell_value`]): datetimes as
/// `2024-01-01T12:00:00` (with a time zone, in UTC: `...Z`), dates as
/// `2024-01-01`, times as `12:30:00.500`, timedeltas as `PT90S`,
/// Decimals in fixed point with their own digits (`1.50`, `1000` for
/// `1E+3`). `None` for an object of another type.
fn arrow_text(obj: &Bound<'_, PyAny>, nan: Nan) -> Result<Option<Value>, Failure> {
    let array: ArrayRef = if obj.cast::<PyDateTime>().is_ok() {
        let mut micros = epoch_days(obj)? * 86_400 * 1_000_000 + micros_of_day(obj)?;
        let offset = obj.call_method0("utcoffset")?;
        if !offset.is_none() {
            micros -= delta_micros(&offset)?;
        }
        let zone = (!offset.is_none()).then_some("UTC");
        match nanos_beyond(obj, "nanosecond")? {
            0 => Arc::new(TimestampMicrosecondArray::from(vec![micros]).with_timezone_opt(zone)),
            ns => {
                let nanos = micros.checked_mul(1_000).map(|n| n + ns).ok_or_else(too_far)?;
                Arc::new(TimestampNanosecondArray::from(vec![nanos]).with_timezone_opt(zone))
            }
        }
    } else if obj.cast::<PyDate>().is_ok() {
        let days = epoch_days(obj)?;
        Arc::new(Date32Array::from(vec![i32::try_from(days).map_err(|_| too_far())?]))
    } else if obj.cast::<PyTime>().is_ok() {
        Arc::new(Time64MicrosecondArray::from(vec![micros_of_day(obj)?]))
    } else if obj.cast::<PyDelta>().is_ok() {
        let micros = delta_micros(obj)?;
        match nanos_beyond(obj, "nanoseconds")? {
            0 => Arc::new(DurationMicrosecondArray::from(vec![micros])),
            ns => {
                let nanos = micros.checked_mul(1_000).map(|n| n + ns).ok_or_else(too_far)?;
                Arc::new(DurationNanosecondArray::from(vec![nanos]))
            }
        }
    } else if obj.is_instance(decimal_type(obj.py())?)? {
        match decimal_array(obj)? {
            Some(array) => array,
            None if nan == Nan::Missing => return Ok(Some(Value::Null)),
            None => {
                return Err(PyValueError::new_err("Decimal('NaN') has no JSON form").into());
            }
        }
    } else {
        return Ok(None);
    };
    arrow_cell(&array)
}

/// The value of a one-cell Arrow array, read as the Arrow path reads it.
fn arrow_cell(array: &ArrayRef) -> Result<Option<Value>, Failure> {
    crate::arrow_rows::cell_value(array.as_ref())
        .map(Some)
        .map_err(|why| PyValueError::new_err(why).into())
}

/// Days from 1970-01-01 to a `date` or `datetime`.
fn epoch_days(obj: &Bound<'_, PyAny>) -> PyResult<i64> {
    Ok(obj.call_method0("toordinal")?.extract::<i64>()? - EPOCH_ORDINAL)
}

/// Microseconds since midnight of a `time` or `datetime`.
fn micros_of_day(obj: &Bound<'_, PyAny>) -> PyResult<i64> {
    let secs =
        int_attr(obj, "hour")? * 3_600 + int_attr(obj, "minute")? * 60 + int_attr(obj, "second")?;
    Ok(secs * 1_000_000 + int_attr(obj, "microsecond")?)
}

/// `decimal.Decimal`, imported once.
fn decimal_type(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    static DECIMAL: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    DECIMAL.import(py, "decimal", "Decimal")
}

fn int_attr(obj: &Bound<'_, PyAny>, attr: &str) -> PyResult<i64> {
    obj.getattr(attr)?.extract()
}

/// The nanoseconds pandas' `Timestamp` and `Timedelta` hold beyond
/// their microseconds (`attr`); 0 for Python's own types, which have none.
fn nanos_beyond(obj: &Bound<'_, PyAny>, attr: &str) -> PyResult<i64> {
    if obj.hasattr(attr)? { int_attr(obj, attr) } else { Ok(0) }
}

/// A `timedelta` in microseconds.
fn delta_micros(delta: &Bound<'_, PyAny>) -> PyResult<i64> {
    let secs = int_attr(delta, "days")? * 86_400 + int_attr(delta, "seconds")?;
    Ok(secs * 1_000_000 + int_attr(delta, "microseconds")?)
}

fn too_far() -> PyErr {
    PyValueError::new_err("a date or time out of the range Arrow holds has no JSON form")
}

/// A `Decimal` as a one-cell Arrow decimal array with its own digits and
/// scale; `None` for a NaN.
fn decimal_array(obj: &Bound<'_, PyAny>) -> Result<Option<ArrayRef>, Failure> {
    let (sign, digits, exponent): (u8, Vec<u8>, Bound<'_, PyAny>) =
        obj.call_method0("as_tuple")?.extract()?;
    let exponent: i64 = match exponent.extract::<String>() {
        // 'n' and 'N' (NaN, quiet or signalling), 'F' (an infinity).
        Ok(special) if special == "F" => {
            let e = PyValueError::new_err(format!("{} has no JSON form", obj.repr()?));
            return Err(e.into());
        }
        Ok(_) => return Ok(None),
        Err(_) => exponent.extract()?,
    };
    let mut text: String = digits.iter().map(|d| char::from(b'0' + d % 10)).collect();
    let zeros = usize::try_from(exponent.max(0)).unwrap_or(usize::MAX);
    let scale = usize::try_from(-exponent.min(0)).unwrap_or(usize::MAX);
    if text.len().saturating_add(zeros) > MAX_DECIMAL_DIGITS || scale > MAX_DECIMAL_DIGITS {
        let e = PyValueError::new_err(format!(
            "a Decimal of more than {MAX_DECIMAL_DIGITS} digits has no JSON form: convert it first"
        ));
        return Err(e.into());
    }
    text.extend(std::iter::repeat_n('0', zeros));
    if sign == 1 {
        text.insert(0, '-');
    }
    let bad = |e: arrow::error::ArrowError| PyValueError::new_err(e.to_string());
    #[allow(clippy::cast_possible_truncation, clippy::cast_possible_wrap)] // at most 76
    let scale = scale as i8;
    let array: ArrayRef = match text.parse::<i128>() {
        Ok(v) if digits.len() + zeros <= 38 && scale <= 38 => Arc::new(
            Decimal128Array::from(vec![v]).with_precision_and_scale(38, scale).map_err(bad)?,
        ),
        _ => {
            let v = i256::from_string(&text)
                .ok_or_else(|| PyValueError::new_err("a Decimal Arrow cannot hold"))?;
            Arc::new(
                Decimal256Array::from(vec![v]).with_precision_and_scale(76, scale).map_err(bad)?,
            )
        }
    };
    Ok(Some(array))
}

/// A numpy `datetime64` or `timedelta64` in seconds, milliseconds,
/// microseconds or nanoseconds as the text of the Arrow type of that unit
/// (NaT is missing); `None` for other units, whose `tolist()` gives the
/// `datetime`, `date` or `timedelta` read instead.
fn numpy_temporal(obj: &Bound<'_, PyAny>) -> Result<Option<Value>, Failure> {
    let dtype: String = obj.getattr("dtype")?.getattr("str")?.extract()?;
    let Some(unit) = dtype.split_once('[').and_then(|(_, u)| u.strip_suffix(']')) else {
        return Ok(None);
    };
    if !matches!(unit, "s" | "ms" | "us" | "ns") {
        return Ok(None);
    }
    let v: i64 = obj.call_method1("astype", ("int64",))?.extract()?;
    if v == i64::MIN {
        return Ok(Some(Value::Null)); // NaT
    }
    let array: ArrayRef = match (dtype.contains('M'), unit) {
        (true, "s") => Arc::new(TimestampSecondArray::from(vec![v])),
        (true, "ms") => Arc::new(TimestampMillisecondArray::from(vec![v])),
        (true, "us") => Arc::new(TimestampMicrosecondArray::from(vec![v])),
        (true, _) => Arc::new(TimestampNanosecondArray::from(vec![v])),
        (false, "s") => Arc::new(DurationSecondArray::from(vec![v])),
        (false, "ms") => Arc::new(DurationMillisecondArray::from(vec![v])),
        (false, "us") => Arc::new(DurationMicrosecondArray::from(vec![v])),
        (false, _) => Arc::new(DurationNanosecondArray::from(vec![v])),
    };
    arrow_cell(&array)
}

fn int_value(i: &Bound<'_, PyInt>) -> PyResult<Value> {
    if let Ok(x) = i.extract::<i64>() {
        return Ok(Value::from(x));
    }
    if let Ok(x) = i.extract::<u64>() {
        return Ok(Value::from(x));
    }
    // Beyond 64 bits: the nearest double, as the command line reads the
    // same number in JSON text (`2**64 + 1` reads as `2**64`); one past
    // every double (`10**400`) is a `ValueError`, named by its path.
    i.extract::<f64>()
        .ok()
        .and_then(Number::from_f64)
        .map(Value::Number)
        .ok_or_else(|| PyValueError::new_err("an integer too large for a double has no JSON form"))
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
