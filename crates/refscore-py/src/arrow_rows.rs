//! Arrow record batches in, Arrow record batches out.
//!
//! A batch arrives through the Arrow C data interface without a copy; its
//! cells are read straight from the Arrow buffers into the JSON values the
//! evaluators compare (a text cell holding JSON is parsed by the metric,
//! as in a suite run). Strings, numbers, booleans, lists and structs map
//! to their JSON forms; binary cells are read as the UTF-8 text they
//! hold, as Python `bytes` are; dictionary-encoded columns are decoded; other
//! types (dates, decimals, ...) are cast to text, timestamps with a time
//! zone as UTC text (`...Z`), maps as objects (keys as text, as a Parquet
//! dataset's), and what no cast takes (fixed-size binary) is read as Arrow
//! displays it. A column that cannot be read
//! fails its rows, not the batch.
//!
//! The result batch holds the input columns (the same buffers, not
//! copies) followed by four columns per evaluator: `<name>` (the main
//! score, float64), `<name>_label`, `<name>_explanation` and
//! `<name>_error` (text).

use std::collections::HashMap;
use std::sync::Arc;

use arrow::array::{
    Array, ArrayRef, AsArray, BooleanArray, Float64Builder, RecordBatch, StringBuilder,
};
use arrow::datatypes::{
    DataType, Field, Float16Type, Float32Type, Float64Type, Int8Type, Int16Type, Int32Type,
    Int64Type, Schema, UInt8Type, UInt16Type, UInt32Type, UInt64Type,
};
use refscore::Row;
use serde_json::{Map, Number, Value};

use crate::engine::{Outcome, RowInput};

/// The rows of a batch, one JSON object per row (`number` counts from
/// `first_row`, 1-based).
///
/// A column that cannot be read even as text fails every row, each with
/// an error naming the row and the column; the callers pass only the
/// columns the evaluators read, so an unrelated column never gets here.
pub(crate) fn batch_rows(batch: &RecordBatch, first_row: u64) -> Vec<RowInput> {
    let schema = batch.schema();
    let mut columns: Vec<(String, Vec<Value>)> = Vec::with_capacity(batch.num_columns());
    let mut unreadable: Option<String> = None;
    // Per row, the first cell with no JSON form: column, path in it, why.
    let mut bad_rows: Vec<Option<String>> = vec![None; batch.num_rows()];
    for (field, array) in schema.fields().iter().zip(batch.columns()) {
        let mut bad = Vec::new();
        let values = column_values(array.as_ref(), &mut bad);
        for cell in bad {
            if let Some(slot @ None) = bad_rows.get_mut(cell.row) {
                *slot = Some(format!("column `{}`, at ${}: {}", field.name(), cell.path, cell.why));
            }
        }
        match values {
            Ok(values) => columns.push((field.name().clone(), values)),
            Err(e) => {
                unreadable.get_or_insert_with(|| format!("column `{}`: {e}", field.name()));
            }
        }
    }
    let mut rows = Vec::with_capacity(batch.num_rows());
    let mut iters: Vec<(String, std::vec::IntoIter<Value>)> =
        columns.into_iter().map(|(n, v)| (n, v.into_iter())).collect();
    for i in 0..batch.num_rows() {
        let number = first_row + i as u64;
        if let Some(why) = unreadable.as_ref().or(bad_rows.get(i).and_then(Option::as_ref)) {
            // Named by its position counted from 0, as pandas frames and
            // Python lists count (`df[0]`); `number` counts from 1.
            rows.push(Err(format!("row {}: {why}", number.saturating_sub(1))));
            // Its cells are still taken, so the next row reads its own.
            for (_, it) in &mut iters {
                it.next();
            }
            continue;
        }
        let mut map = Map::new();
        for (name, it) in &mut iters {
            map.insert(name.clone(), it.next().unwrap_or(Value::Null));
        }
        rows.push(Ok(Row { number, value: Value::Object(map), text_cells: false }));
    }
    rows
}

/// The JSON value of the one cell of `array`, read as a column of it is:
/// how Python values with no JSON form of their own (dates, datetimes,
/// `Decimal`s) get the same text in a pandas column as in a polars one.
///
/// # Errors
/// The cell has no JSON form, or its type cannot be read.
pub(crate) fn cell_value(array: &dyn Array) -> Result<Value, String> {
    let mut bad = Vec::new();
    let mut values = column_values(array, &mut bad)?;
    if let Some(cell) = bad.pop() {
        return Err(cell.why);
    }
    Ok(values.pop().unwrap_or(Value::Null))
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

/// A cell (or a value inside one) with no JSON form.
struct BadCell {
    /// The cell's row in the array.
    row: usize,
    /// Where in the cell, as a JSONPath suffix (`.items[2].price`).
    path: String,
    why: String,
}

/// A float as JSON: NaN is missing (`null`), as in a pandas column; an
/// infinite float has no JSON form (`None`).
fn float(x: f64) -> Option<Value> {
    if x.is_infinite() {
        return None;
    }
    Some(Number::from_f64(x).map_or(Value::Null, Value::Number))
}

macro_rules! prim {
    ($array:expr, $t:ty, $conv:expr) => {{
        let a = $array.as_primitive::<$t>();
        (0..a.len()).map(|i| if a.is_null(i) { Value::Null } else { $conv(a.value(i)) }).collect()
    }};
}

/// A column's cells read by `read`; the cells it refuses are noted in
/// `bad` with its reason (and read as `null` meanwhile).
fn checked<T>(
    cells: impl Iterator<Item = Option<T>>,
    read: impl Fn(T) -> Result<Value, String>,
    bad: &mut Vec<BadCell>,
) -> Vec<Value> {
    cells
        .enumerate()
        .map(|(row, x)| match x.map(&read) {
            None => Value::Null,
            Some(Ok(v)) => v,
            Some(Err(why)) => {
                bad.push(BadCell { row, path: String::new(), why });
                Value::Null
            }
        })
        .collect()
}

/// A float column's cells; the infinite ones are noted in `bad`.
fn floats(x: impl Iterator<Item = Option<f64>>, bad: &mut Vec<BadCell>) -> Vec<Value> {
    checked(x, |x| float(x).ok_or_else(|| format!("{x} has no JSON form")), bad)
}

/// One column's cells as JSON values; cells with no JSON form (an
/// infinite float, at any depth) are noted in `bad`.
fn column_values(array: &dyn Array, bad: &mut Vec<BadCell>) -> Result<Vec<Value>, String> {
    let n = array.len();
    let nulls = |i: usize| array.is_null(i);
    Ok(match array.data_type() {
        DataType::Null => vec![Value::Null; n],
        DataType::Boolean => {
            let a: &BooleanArray = array.as_boolean();
            (0..n).map(|i| if nulls(i) { Value::Null } else { Value::Bool(a.value(i)) }).collect()
        }
        DataType::Int8 => prim!(array, Int8Type, Value::from),
        DataType::Int16 => prim!(array, Int16Type, Value::from),
        DataType::Int32 => prim!(array, Int32Type, Value::from),
        DataType::Int64 => prim!(array, Int64Type, Value::from),
        DataType::UInt8 => prim!(array, UInt8Type, Value::from),
        DataType::UInt16 => prim!(array, UInt16Type, Value::from),
        DataType::UInt32 => prim!(array, UInt32Type, Value::from),
        DataType::UInt64 => prim!(array, UInt64Type, Value::from),
        DataType::Float16 => {
            floats(array.as_primitive::<Float16Type>().iter().map(|x| x.map(|x| x.to_f64())), bad)
        }
        DataType::Float32 => {
            let a = array.as_primitive::<Float32Type>();
            floats(a.iter().map(|x| x.map(refscore::number::f32_as_written)), bad)
        }
        DataType::Float64 => floats(array.as_primitive::<Float64Type>().iter(), bad),
        DataType::Binary => binaries(array.as_binary::<i32>().iter(), bad),
        DataType::LargeBinary => binaries(array.as_binary::<i64>().iter(), bad),
        DataType::BinaryView => binaries(array.as_binary_view().iter(), bad),
        DataType::Utf8 => strings(array.as_string::<i32>().iter()),
        DataType::LargeUtf8 => strings(array.as_string::<i64>().iter()),
        DataType::Utf8View => strings(array.as_string_view().iter()),
        DataType::List(_) => {
            let a = array.as_list::<i32>();
            lists(n, nulls, |i| a.value(i), bad)?
        }
        DataType::LargeList(_) => {
            let a = array.as_list::<i64>();
            lists(n, nulls, |i| a.value(i), bad)?
        }
        DataType::FixedSizeList(_, _) => {
            let a = array.as_fixed_size_list();
            lists(n, nulls, |i| a.value(i), bad)?
        }
        DataType::Struct(fields) => {
            let a = array.as_struct();
            let mut children: Vec<std::vec::IntoIter<Value>> = Vec::with_capacity(fields.len());
            for (f, c) in fields.iter().zip(a.columns()) {
                let mut inner = Vec::new();
                children.push(column_values(c.as_ref(), &mut inner)?.into_iter());
                // A null struct's children hold no values of its row.
                bad.extend(inner.into_iter().filter(|cell| !nulls(cell.row)).map(|mut cell| {
                    let mut seg = String::new();
                    refscore::path::push_seg(&mut seg, refscore::path::Seg::Key(f.name()));
                    cell.path.insert_str(0, &seg);
                    cell
                }));
            }
            (0..n)
                .map(|i| {
                    let mut map = Map::new();
                    for (f, c) in fields.iter().zip(children.iter_mut()) {
                        map.insert(f.name().clone(), c.next().unwrap_or(Value::Null));
                    }
                    if nulls(i) { Value::Null } else { Value::Object(map) }
                })
                .collect()
        }
        DataType::Union(fields, _) => {
            // Each row holds the value of one child: at the row (sparse)
            // or at its offset (dense).
            let a = array.as_union();
            let mut kids = Vec::with_capacity(fields.len());
            for (type_id, _) in fields.iter() {
                let mut inner = Vec::new();
                let values = column_values(a.child(type_id).as_ref(), &mut inner)?;
                let mut by_row: HashMap<usize, BadCell> = HashMap::new();
                for cell in inner {
                    by_row.entry(cell.row).or_insert(cell);
                }
                kids.push((type_id, values, by_row));
            }
            (0..n)
                .map(|i| {
                    let (t, at) = (a.type_id(i), a.value_offset(i));
                    let Some((_, values, inner)) = kids.iter().find(|k| k.0 == t) else {
                        return Value::Null;
                    };
                    if let Some(cell) = inner.get(&at) {
                        bad.push(BadCell {
                            row: i,
                            path: cell.path.clone(),
                            why: cell.why.clone(),
                        });
                    }
                    values.get(at).cloned().unwrap_or(Value::Null)
                })
                .collect()
        }
        DataType::Map(_, _) => maps(array.as_map(), bad)?,
        DataType::Dictionary(_, value_type) => {
            let plain = arrow::compute::cast(array, value_type).map_err(|e| e.to_string())?;
            column_values(plain.as_ref(), bad)?
        }
        DataType::Timestamp(unit, Some(_)) => {
            // The instants in UTC: the same values without their zone (a
            // cast would shift them to the zone's local time, and a named
            // zone needs a time-zone database arrow is built without).
            let naive = arrow::array::make_array(
                array
                    .to_data()
                    .into_builder()
                    .data_type(DataType::Timestamp(*unit, None))
                    .build()
                    .map_err(|e| format!("type {} cannot be read: {e}", array.data_type()))?,
            );
            column_values(naive.as_ref(), bad)?
                .into_iter()
                .map(|v| match v {
                    Value::String(s) => Value::String(s + "Z"),
                    v => v,
                })
                .collect()
        }
        other => match arrow::compute::cast(array, &DataType::Utf8) {
            Ok(text) => column_values(text.as_ref(), bad)?,
            Err(_) => displayed(array).map_err(|e| format!("type {other} cannot be read: {e}"))?,
        },
    })
}

/// A map column's cells as JSON objects, keys as text as a Parquet
/// dataset's maps have them ([`refscore::json::display`]: a string as it
/// is, any other key as its JSON text, as Spark's `to_json` writes number
/// keys; of a key repeated, the last).
fn maps(a: &arrow::array::MapArray, bad: &mut Vec<BadCell>) -> Result<Vec<Value>, String> {
    let keys = column_values(a.keys().as_ref(), &mut Vec::new())?;
    let names: Vec<String> = keys.iter().map(refscore::json::display).collect();
    let mut inner = Vec::new();
    let values = column_values(a.values().as_ref(), &mut inner)?;
    let offsets = a.value_offsets();
    let entries = |i: usize| {
        let at = |j: usize| offsets.get(j).and_then(|&o| usize::try_from(o).ok()).unwrap_or(0);
        at(i)..at(i + 1)
    };
    // A value with no JSON form is named by its row and its key.
    for cell in inner {
        let row = offsets
            .partition_point(|&o| usize::try_from(o).is_ok_and(|o| o <= cell.row))
            .saturating_sub(1);
        // (Entries outside a sliced array's rows belong to none of them.)
        if row >= a.len() || a.is_null(row) || !entries(row).contains(&cell.row) {
            continue;
        }
        let mut path = String::new();
        refscore::path::push_seg(&mut path, refscore::path::Seg::Key(&names[cell.row]));
        path.push_str(&cell.path);
        bad.push(BadCell { row, path, why: cell.why });
    }
    Ok((0..a.len())
        .map(|i| {
            if a.is_null(i) {
                return Value::Null;
            }
            let mut map = Map::new();
            for j in entries(i) {
                if let (Some(k), Some(v)) = (names.get(j), values.get(j)) {
                    map.insert(k.clone(), v.clone());
                }
            }
            Value::Object(map)
        })
        .collect())
}

/// Cells as the text Arrow displays them (maps, fixed-size binary, ...):
/// the types a cast to text does not take.
fn displayed(array: &dyn Array) -> Result<Vec<Value>, String> {
    use arrow::util::display::{ArrayFormatter, FormatOptions};
    let options = FormatOptions::default();
    let f = ArrayFormatter::try_new(array, &options).map_err(|e| e.to_string())?;
    (0..array.len())
        .map(|i| {
            if array.is_null(i) {
                Ok(Value::Null)
            } else {
                f.value(i).try_to_string().map(Value::String).map_err(|e| e.to_string())
            }
        })
        .collect()
}

/// Binary cells as the text they hold, as Python `bytes` are read
/// ([`bytes_text`]); a cell that is not UTF-8 is noted in
/// `bad`.
fn binaries<'a>(it: impl Iterator<Item = Option<&'a [u8]>>, bad: &mut Vec<BadCell>) -> Vec<Value> {
    checked(it, bytes_text, bad)
}

fn strings<'a>(it: impl Iterator<Item = Option<&'a str>>) -> Vec<Value> {
    it.map(|s| s.map_or(Value::Null, |s| Value::String(s.to_owned()))).collect()
}

fn lists(
    n: usize,
    nulls: impl Fn(usize) -> bool,
    value: impl Fn(usize) -> ArrayRef,
    bad: &mut Vec<BadCell>,
) -> Result<Vec<Value>, String> {
    (0..n)
        .map(|i| {
            if nulls(i) {
                return Ok(Value::Null);
            }
            // The row's items: a bad one is this row's.
            let mut inner = Vec::new();
            let items = column_values(value(i).as_ref(), &mut inner)?;
            bad.extend(inner.into_iter().map(|mut cell| {
                cell.path.insert_str(0, &format!("[{}]", cell.row));
                cell.row = i;
                cell
            }));
            Ok(Value::Array(items))
        })
        .collect()
}

/// The result batch: the input columns (when `keep`), then per evaluator
/// its score, label, explanation and error; `outcomes[row][evaluator]`.
///
/// # Errors
/// The columns do not make a valid batch (a name used twice).
pub(crate) fn result_batch(
    input: &RecordBatch,
    keep: bool,
    names: &[String],
    outcomes: &[Vec<Outcome>],
) -> Result<RecordBatch, String> {
    let mut fields: Vec<Field> = Vec::new();
    let mut arrays: Vec<ArrayRef> = Vec::new();
    if keep {
        for (f, a) in input.schema().fields().iter().zip(input.columns()) {
            fields.push(f.as_ref().clone());
            arrays.push(Arc::clone(a));
        }
    }
    for (j, name) in names.iter().enumerate() {
        let mut score = Float64Builder::with_capacity(outcomes.len());
        let mut label = StringBuilder::new();
        let mut explanation = StringBuilder::new();
        let mut error = StringBuilder::new();
        for row in outcomes {
            let o = row.get(j);
            let main = o.and_then(|o| o.scores.first());
            score.append_option(main.and_then(|s| s.score));
            label.append_option(main.and_then(|s| s.label.as_deref()));
            explanation.append_option(main.and_then(|s| s.explanation.as_deref()));
            error.append_option(o.and_then(|o| o.error.as_deref()));
        }
        fields.push(Field::new(name, DataType::Float64, true));
        arrays.push(Arc::new(score.finish()));
        for (suffix, mut b) in [("label", label), ("explanation", explanation), ("error", error)] {
            fields.push(Field::new(format!("{name}_{suffix}"), DataType::Utf8, true));
            arrays.push(Arc::new(b.finish()));
        }
    }
    RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays).map_err(|e| e.to_string())
}
