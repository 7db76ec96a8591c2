//! Parquet, read in record batches; each row becomes a JSON object.
//!
//! Strings, integers, floats, booleans and nulls map to their JSON
//! equivalents; lists become arrays, structs and maps become objects.
//! Other types (dates, timestamps, decimals, binary, dictionaries) are
//! written as their Arrow display text. Non-finite floats become `null`.

use std::collections::VecDeque;
use std::fs::File;
use std::path::{Path, PathBuf};

use arrow_array::RecordBatch;
use arrow_array::cast::AsArray;
use arrow_array::types::{
    Float32Type, Float64Type, Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type,
    UInt32Type, UInt64Type,
};
use arrow_array::{
    Array, BooleanArray, FixedSizeListArray, LargeListArray, LargeStringArray, ListArray, MapArray,
    StringArray, StringViewArray, StructArray,
};
use arrow_schema::DataType;
use parquet::arrow::arrow_reader::{
    ArrowReaderMetadata, ArrowReaderOptions, ParquetRecordBatchReader,
    ParquetRecordBatchReaderBuilder,
};
use serde_json::{Map, Number, Value};

use super::{DatasetError, Row, RowError, row_error};

mod bounds;

/// Rows per record batch read from the file.
const BATCH_ROWS: usize = 1024;

/// Rows of a Parquet file, read one row group at a time: the declared sizes
/// of a row group are checked before it is read ([`bounds`]), and a row
/// group that fails the check or cannot be decoded is one unreadable row;
/// reading goes on with the next row group.
pub(crate) struct ParquetRows {
    path: PathBuf,
    file: File,
    file_len: u64,
    metadata: ArrowReaderMetadata,
    /// The next row group to read.
    group: usize,
    /// The reader of the row group being read.
    reader: Option<ParquetRecordBatchReader>,
    pending: VecDeque<Row>,
    /// The number of the last row read.
    number: u64,
    /// The number of the last row of the row group being read, as declared.
    group_end: u64,
}

impl ParquetRows {
    pub(crate) fn new(path: &Path, file: File) -> Result<Self, DatasetError> {
        let invalid = |e: &dyn std::fmt::Display| DatasetError::Invalid {
            path: path.to_path_buf(),
            message: format!("Parquet: {e}"),
        };
        let file_len = file.metadata().map_err(|e| invalid(&e))?.len();
        // The column types come from the Parquet schema alone: the Arrow
        // schema a writer may embed in the file's metadata is not decoded.
        // The rows' JSON does not need it, and its decoder panics on some
        // malformed schemas (an integer of bit width 0) instead of failing.
        let options = ArrowReaderOptions::new().with_skip_arrow_metadata(true);
        let metadata =
            unpanicked(|| ArrowReaderMetadata::load(&file, options)).map_err(|e| invalid(&e))?;
        // A row is an object of its columns: two columns of one name would
        // leave one of them unread, as two CSV headers of one name would.
        let mut seen = std::collections::BTreeSet::new();
        for field in metadata.schema().fields() {
            if !seen.insert(field.name().as_str()) {
                return Err(invalid(&format!("column `{}` appears twice", field.name())));
            }
        }
        Ok(ParquetRows {
            path: path.to_path_buf(),
            file,
            file_len,
            metadata,
            group: 0,
            reader: None,
            pending: VecDeque::new(),
            number: 0,
            group_end: 0,
        })
    }

    /// The top-level column names, in file order: the keys of every row.
    pub(crate) fn columns(&self) -> Vec<String> {
        self.metadata.schema().fields().iter().map(|f| f.name().clone()).collect()
    }

    /// Opens the next row group after checking its declared sizes; `None`
    /// when there is none left.
    fn next_group(&mut self) -> Option<Result<(), String>> {
        let index = self.group;
        let group = self.metadata.metadata().row_groups().get(index)?;
        self.group += 1;
        let rows = u64::try_from(group.num_rows()).unwrap_or(0);
        self.number = self.group_end;
        self.group_end = self.group_end.saturating_add(rows);
        if let Err(e) = bounds::check_row_group(&self.file, self.file_len, index, group) {
            return Some(Err(e));
        }
        let (file, metadata) = (&self.file, &self.metadata);
        let reader = unpanicked(|| {
            let file = file.try_clone().map_err(|e| e.to_string())?;
            ParquetRecordBatchReaderBuilder::new_with_metadata(file, metadata.clone())
                .with_row_groups(vec![index])
                .with_batch_size(BATCH_ROWS)
                .build()
                .map_err(|e| e.to_string())
        });
        Some(reader.map(|r| self.reader = Some(r)))
    }

    fn load(&mut self, batch: &RecordBatch) {
        let schema = batch.schema();
        let mut rows: Vec<Map<String, Value>> = vec![Map::new(); batch.num_rows()];
        for (field, column) in schema.fields().iter().zip(batch.columns()) {
            for (i, row) in rows.iter_mut().enumerate() {
                row.insert(field.name().clone(), cell(column.as_ref(), i));
            }
        }
        for map in rows {
            self.number += 1;
            self.pending.push_back(Row {
                number: self.number,
                value: Value::Object(map),
                text_cells: false,
            });
        }
    }

    /// The unreadable row reporting `message`: the next row of the row
    /// group being read, whose other rows are skipped.
    fn group_error(&mut self, message: &str) -> RowError {
        self.reader = None;
        let number = self.number + 1;
        let last = self.group_end;
        self.number = self.group_end;
        let skipped = if last > number {
            format!(" (rows {number} to {last} of its row group are not read)")
        } else {
            String::new()
        };
        row_error(&self.path, number, format!("Parquet: {message}{skipped}"))
    }
}

impl Iterator for ParquetRows {
    type Item = Result<Row, RowError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(row) = self.pending.pop_front() {
                return Some(Ok(row));
            }
            let Some(reader) = self.reader.as_mut() else {
                match self.next_group()? {
                    Ok(()) => continue,
                    Err(e) => return Some(Err(self.group_error(&e))),
                }
            };
            match unpanicked(|| reader.next().transpose()).transpose() {
                None => self.reader = None,
                Some(Ok(batch)) => self.load(&batch),
                Some(Err(e)) => return Some(Err(self.group_error(&e))),
            }
        }
    }
}

/// Runs a call into the Parquet decoder, turning a panic into an error:
/// the decoder panics on some malformed files (a dictionary-encoded page
/// without its dictionary) instead of failing. The row group's reader is
/// not used again after such an error.
fn unpanicked<T, E: std::fmt::Display>(call: impl FnOnce() -> Result<T, E>) -> Result<T, String> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(call)) {
        Ok(result) => result.map_err(|e| e.to_string()),
        Err(panic) => {
            let why = crate::error::panic_message(panic.as_ref())
                .unwrap_or_else(|| String::from("the decoder failed"));
            Err(format!("malformed file ({why})"))
        }
    }
}

fn float(x: f64) -> Value {
    Number::from_f64(x).map_or(Value::Null, Value::Number)
}

/// The JSON value of one cell.
fn cell(array: &dyn Array, i: usize) -> Value {
    stacker::maybe_grow(64 * 1024, 1024 * 1024, || cell_inner(array, i))
}

fn cell_inner(array: &dyn Array, i: usize) -> Value {
    if i >= array.len() || array.is_null(i) {
        return Value::Null;
    }
    match array.data_type() {
        DataType::Null => Value::Null,
        DataType::Boolean => array
            .as_any()
            .downcast_ref::<BooleanArray>()
            .map_or(Value::Null, |a| Value::Bool(a.value(i))),
        DataType::Int8 => array.as_primitive::<Int8Type>().value(i).into(),
        DataType::Int16 => array.as_primitive::<Int16Type>().value(i).into(),
        DataType::Int32 => array.as_primitive::<Int32Type>().value(i).into(),
        DataType::Int64 => array.as_primitive::<Int64Type>().value(i).into(),
        DataType::UInt8 => array.as_primitive::<UInt8Type>().value(i).into(),
        DataType::UInt16 => array.as_primitive::<UInt16Type>().value(i).into(),
        DataType::UInt32 => array.as_primitive::<UInt32Type>().value(i).into(),
        DataType::UInt64 => array.as_primitive::<UInt64Type>().value(i).into(),
        DataType::Float32 => {
            float(crate::number::f32_as_written(array.as_primitive::<Float32Type>().value(i)))
        }
        DataType::Float64 => float(array.as_primitive::<Float64Type>().value(i)),
        DataType::Utf8 => text(array.as_any().downcast_ref::<StringArray>().map(|a| a.value(i))),
        DataType::LargeUtf8 => {
            text(array.as_any().downcast_ref::<LargeStringArray>().map(|a| a.value(i)))
        }
        DataType::Utf8View => {
            text(array.as_any().downcast_ref::<StringViewArray>().map(|a| a.value(i)))
        }
        // Binary holding UTF-8 is text: older writers (Hive, Impala, Spark
        // without `binaryAsString`) store strings unannotated. Other bytes
        // are hex.
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView => {
            super::arrow_text::binary(array, i).map_or(Value::Null, |b| {
                Value::String(
                    std::str::from_utf8(b)
                        .map_or_else(|_| super::arrow_text::hex(b), str::to_owned),
                )
            })
        }
        DataType::List(_) => list(array.as_any().downcast_ref::<ListArray>().map(|a| a.value(i))),
        DataType::LargeList(_) => {
            list(array.as_any().downcast_ref::<LargeListArray>().map(|a| a.value(i)))
        }
        DataType::FixedSizeList(..) => {
            list(array.as_any().downcast_ref::<FixedSizeListArray>().map(|a| a.value(i)))
        }
        DataType::Struct(fields) => match array.as_any().downcast_ref::<StructArray>() {
            None => Value::Null,
            Some(s) => Value::Object(
                fields
                    .iter()
                    .zip(s.columns())
                    .map(|(f, c)| (f.name().clone(), cell(c.as_ref(), i)))
                    .collect(),
            ),
        },
        DataType::Map(..) => match array.as_any().downcast_ref::<MapArray>() {
            None => Value::Null,
            Some(m) => {
                let entries = m.value(i);
                let (keys, values) = (entries.column(0), entries.column(1));
                let mut obj = Map::new();
                for j in 0..entries.len() {
                    let key = match cell(keys.as_ref(), j) {
                        Value::String(s) => s,
                        other => crate::json::display(&other),
                    };
                    obj.insert(key, cell(values.as_ref(), j));
                }
                Value::Object(obj)
            }
        },
        // A dictionary's cell is its value's.
        DataType::Dictionary(..) => match array.as_any_dictionary_opt() {
            None => Value::Null,
            Some(d) => match cell(d.keys(), i).as_u64().and_then(|k| usize::try_from(k).ok()) {
                Some(k) => cell(d.values().as_ref(), k),
                None => Value::Null,
            },
        },
        _ => super::arrow_text::text(array, i).map_or(Value::Null, Value::String),
    }
}

fn text(s: Option<&str>) -> Value {
    s.map_or(Value::Null, |s| Value::String(s.to_owned()))
}

fn list(values: Option<std::sync::Arc<dyn Array>>) -> Value {
    match values {
        None => Value::Null,
        Some(v) => Value::Array((0..v.len()).map(|j| cell(v.as_ref(), j)).collect()),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_array::builder::{ListBuilder, StringBuilder};
    use arrow_array::{ArrayRef, Float64Array, Int64Array};
    use arrow_schema::{Field, Fields, Schema};
    use parquet::arrow::ArrowWriter;
    use serde_json::json;

    use super::*;

    fn write(path: &Path, batch: &RecordBatch) {
        let file = File::create(path).unwrap();
        let mut w = ArrowWriter::try_new(file, batch.schema(), None).unwrap();
        w.write(batch).unwrap();
        w.close().unwrap();
    }

    #[test]
    fn a_column_name_twice_is_an_open_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("dup.parquet");
        let schema = Arc::new(Schema::new(vec![
            Field::new("a", DataType::Int64, false),
            Field::new("a", DataType::Int64, false),
        ]));
        let batch = RecordBatch::try_new(
            schema,
            vec![Arc::new(Int64Array::from(vec![1])), Arc::new(Int64Array::from(vec![2]))],
        )
        .unwrap();
        write(&path, &batch);
        let e = ParquetRows::new(&path, File::open(&path).unwrap()).err().unwrap();
        assert!(e.to_string().ends_with("Parquet: column `a` appears twice"), "{e}");
    }

    #[test]
    fn every_supported_codec_reads_the_same_rows() {
        use parquet::basic::{Compression, GzipLevel, ZstdLevel};
        use parquet::file::properties::WriterProperties;
        let schema = Arc::new(Schema::new(vec![
            Field::new("n", DataType::Int64, false),
            Field::new("s", DataType::Utf8, false),
        ]));
        let words: Vec<String> =
            (0..3000).map(|i| format!("row {i} {}", "ab".repeat(i % 40))).collect();
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![
                Arc::new(Int64Array::from((0..3000).collect::<Vec<i64>>())),
                Arc::new(StringArray::from(words.clone())),
            ],
        )
        .unwrap();
        let codecs = [
            Compression::UNCOMPRESSED,
            Compression::SNAPPY,
            Compression::GZIP(GzipLevel::default()),
            Compression::LZ4,
            Compression::LZ4_RAW,
            Compression::ZSTD(ZstdLevel::default()),
        ];
        let dir = tempfile::tempdir().unwrap();
        for codec in codecs {
            let path = dir.path().join(format!("{codec:?}.parquet"));
            let props = WriterProperties::builder()
                .set_compression(codec)
                .set_max_row_group_row_count(Some(1000))
                .build();
            let mut w =
                ArrowWriter::try_new(File::create(&path).unwrap(), schema.clone(), Some(props))
                    .unwrap();
            w.write(&batch).unwrap();
            w.close().unwrap();
            let rows: Vec<Row> = ParquetRows::new(&path, File::open(&path).unwrap())
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap_or_else(|e| panic!("{codec:?}: {e}"));
            assert_eq!(rows.len(), 3000, "{codec:?}");
            assert_eq!(rows[2999].value, json!({"n": 2999, "s": words[2999]}), "{codec:?}");
        }
    }

    #[test]
    fn a_float_column_reads_as_the_decimals_written() {
        let schema = Schema::new(vec![Field::new("x", DataType::Float32, true)]);
        let batch = RecordBatch::try_new(
            Arc::new(schema),
            vec![Arc::new(arrow_array::Float32Array::from(vec![
                Some(0.1),
                Some(-2.88),
                Some(f32::NAN),
                None,
            ]))],
        )
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.parquet");
        write(&p, &batch);
        let rows: Vec<Value> =
            super::super::open(&p, None).unwrap().map(|r| r.unwrap().value["x"].clone()).collect();
        assert_eq!(rows, [json!(0.1), json!(-2.88), json!(null), json!(null)]);
    }

    #[test]
    fn rows_become_objects_with_nested_values() {
        let mut tags = ListBuilder::new(StringBuilder::new());
        tags.values().append_value("a");
        tags.values().append_value("b");
        tags.append(true);
        tags.append(false);
        tags.append(true);
        let inner = Fields::from(vec![Field::new("x", DataType::Int64, true)]);
        let strukt = StructArray::new(
            inner.clone(),
            vec![Arc::new(Int64Array::from(vec![Some(1), None, Some(3)])) as ArrayRef],
            None,
        );
        let schema = Schema::new(vec![
            Field::new("id", DataType::Utf8, false),
            Field::new("score", DataType::Float64, true),
            Field::new("ok", DataType::Boolean, true),
            Field::new("tags", tags.finish().data_type().clone(), true),
            Field::new("s", DataType::Struct(inner), true),
        ]);
        let mut tags = ListBuilder::new(StringBuilder::new());
        tags.values().append_value("a");
        tags.values().append_value("b");
        tags.append(true);
        tags.append(false);
        tags.append(true);
        let batch = RecordBatch::try_new(
            Arc::new(schema),
            vec![
                Arc::new(StringArray::from(vec!["r1", "r2", "r3"])),
                Arc::new(Float64Array::from(vec![Some(0.5), None, Some(2.0)])),
                Arc::new(BooleanArray::from(vec![Some(true), Some(false), None])),
                Arc::new(tags.finish()),
                Arc::new(strukt),
            ],
        )
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("d.parquet");
        write(&p, &batch);
        let rows: Vec<Row> = super::super::open(&p, None).unwrap().map(Result::unwrap).collect();
        assert_eq!(rows.len(), 3);
        assert_eq!(
            rows[0].value,
            json!({"id": "r1", "score": 0.5, "ok": true, "tags": ["a", "b"], "s": {"x": 1}})
        );
        assert_eq!(
            rows[1].value,
            json!({"id": "r2", "score": null, "ok": false, "tags": null, "s": {"x": null}})
        );
        assert_eq!((rows[2].number, &rows[2].value["tags"]), (3, &json!([])));
        assert!(!rows[2].text_cells);
    }

    #[test]
    fn dates_times_decimals_and_bytes_become_their_text() {
        use arrow_array::{
            BinaryArray, Date32Array, Decimal128Array, Time64MicrosecondArray,
            TimestampMicrosecondArray,
        };
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Date32Array::from(vec![19_787])),
            Arc::new(TimestampMicrosecondArray::from(vec![1_709_640_000_250_000])),
            Arc::new(
                TimestampMicrosecondArray::from(vec![1_709_640_000_000_000])
                    .with_timezone("+00:00"),
            ),
            Arc::new(Time64MicrosecondArray::from(vec![43_200_000_001])),
            Arc::new(Decimal128Array::from(vec![-12345]).with_precision_and_scale(10, 2).unwrap()),
            Arc::new(BinaryArray::from_vec(vec![b"\x00\xffA"])),
            Arc::new(BinaryArray::from_vec(vec!["café".as_bytes()])),
        ];
        let names = ["date", "ts", "ts_utc", "time", "amount", "bytes", "text_bytes"];
        let fields: Vec<Field> = names
            .iter()
            .zip(&columns)
            .map(|(n, c)| Field::new(*n, c.data_type().clone(), false))
            .collect();
        let batch = RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.parquet");
        write(&p, &batch);
        let rows: Vec<Row> = super::super::open(&p, None).unwrap().map(Result::unwrap).collect();
        assert_eq!(
            rows[0].value,
            json!({
                "date": "2024-03-05",
                "ts": "2024-03-05T12:00:00.250",
                "ts_utc": "2024-03-05T12:00:00Z",
                "time": "12:00:00.000001",
                "amount": "-123.45",
                "bytes": "00ff41",
                "text_bytes": "café",
            })
        );
    }

    #[test]
    fn a_dictionary_cell_is_its_value() {
        use arrow_array::DictionaryArray;
        use arrow_array::types::Int32Type;
        let d: DictionaryArray<Int32Type> = vec!["b", "a", "b"].into_iter().collect();
        assert_eq!(
            (0..3).map(|i| cell(&d, i)).collect::<Vec<_>>(),
            [json!("b"), json!("a"), json!("b")]
        );
        let ints = DictionaryArray::<Int32Type>::try_new(
            arrow_array::Int32Array::from(vec![1, 0]),
            Arc::new(Int64Array::from(vec![7, 9])),
        )
        .unwrap();
        assert_eq!([cell(&ints, 0), cell(&ints, 1)], [json!(9), json!(7)]);
    }

    #[test]
    fn many_batches_keep_numbering() {
        let n = 2500_i64;
        let schema = Schema::new(vec![Field::new("n", DataType::Int64, false)]);
        let batch = RecordBatch::try_new(
            Arc::new(schema),
            vec![Arc::new(Int64Array::from((0..n).collect::<Vec<_>>()))],
        )
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("d.parquet");
        write(&p, &batch);
        let rows: Vec<Row> = super::super::open(&p, None).unwrap().map(Result::unwrap).collect();
        assert_eq!(rows.len(), 2500);
        assert!(
            rows.iter().enumerate().all(|(i, r)| r.number == i as u64 + 1 && r.value["n"] == i)
        );
    }

    /// A Snappy file of 2,500 integers in three row groups whose second row
    /// group's data page declares `uncompressed_page_size` 2^31 - 1: the
    /// header is rewritten with a longer size and the page's data shortened
    /// by as much, so every offset of the footer stays true.
    fn page_declaring_2_gib() -> Vec<u8> {
        use parquet::basic::Compression;
        use parquet::file::properties::{EnabledStatistics, WriterProperties};
        use parquet::file::reader::{FileReader, SerializedFileReader};
        let schema = Arc::new(Schema::new(vec![Field::new("n", DataType::Int64, false)]));
        let batch = RecordBatch::try_new(
            schema.clone(),
            vec![Arc::new(Int64Array::from((0..2500).collect::<Vec<i64>>()))],
        )
        .unwrap();
        let props = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_dictionary_enabled(false)
            .set_statistics_enabled(EnabledStatistics::None)
            .set_max_row_group_row_count(Some(1000))
            .build();
        let mut bytes = Vec::new();
        let mut w = ArrowWriter::try_new(&mut bytes, schema, Some(props)).unwrap();
        w.write(&batch).unwrap();
        w.close().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("plain.parquet");
        std::fs::write(&plain, &bytes).unwrap();
        let reader = SerializedFileReader::new(File::open(&plain).unwrap()).unwrap();
        let at =
            usize::try_from(reader.metadata().row_group(1).column(0).data_page_offset()).unwrap();
        let varint = |mut x: u64| {
            let mut out = Vec::new();
            while x >= 0x80 {
                out.push((x as u8) | 0x80);
                x >>= 7;
            }
            out.push(x as u8);
            out
        };
        let read_varint = |i: &mut usize| {
            let (mut x, mut shift) = (0_u64, 0);
            loop {
                let b = bytes[*i];
                *i += 1;
                x |= u64::from(b & 0x7f) << shift;
                shift += 7;
                if b < 0x80 {
                    return x;
                }
            }
        };
        // PageHeader: 0x15 type (i32), 0x15 uncompressed size, 0x15
        // compressed size (zigzag varints), then the rest.
        let mut i = at;
        assert_eq!(bytes[i], 0x15);
        i += 1;
        let kind = read_varint(&mut i);
        assert_eq!(bytes[i], 0x15);
        i += 1;
        let _uncompressed = read_varint(&mut i);
        assert_eq!(bytes[i], 0x15);
        i += 1;
        let compressed = read_varint(&mut i) / 2;
        let rest = i;
        let huge = varint(u64::from(u32::MAX - 1)); // zigzag(2^31 - 1)
        let mut header = vec![0x15];
        header.extend(varint(kind));
        header.push(0x15);
        header.extend(&huge);
        header.push(0x15);
        let delta = (header.len() + varint(compressed * 2).len()) - (rest - at);
        let shorter = compressed - delta as u64;
        header.extend(varint(shorter * 2));
        assert_eq!(header.len(), rest - at + delta, "the compressed size kept its length");
        let data_end = rest + usize::try_from(compressed).unwrap();
        let mut out = bytes[..at].to_vec();
        out.extend(&header);
        out.extend(&bytes[rest..data_end - delta]);
        out.extend(&bytes[data_end..]);
        assert_eq!(out.len(), bytes.len());
        out
    }

    #[test]
    fn a_page_declaring_2_gib_is_refused_before_it_is_allocated() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("d.parquet");
        std::fs::write(&p, page_declaring_2_gib()).unwrap();
        let rows: Vec<Result<Row, RowError>> = super::super::open(&p, None).unwrap().collect();
        // The first and the last row groups are read; the second is one
        // unreadable row naming its page's declared size.
        assert_eq!(rows.len(), 1000 + 1 + 500);
        assert!(rows[..1000].iter().all(Result::is_ok));
        let e = rows[1000].as_ref().unwrap_err();
        assert_eq!(e.number, 1001);
        let m = e.to_string();
        assert!(m.contains("d.parquet") && m.contains("2147483647 bytes uncompressed"), "{m}");
        assert!(m.contains("row group 1, column `n`"), "{m}");
        let last = rows[1001].as_ref().unwrap();
        assert_eq!((last.number, &last.value), (2001, &json!({"n": 2000})));
    }

    #[test]
    fn not_a_parquet_file_is_an_open_error() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("d.parquet");
        std::fs::write(&p, b"{\"a\":1}\n").unwrap();
        let e = super::super::open(&p, None).unwrap_err();
        assert!(matches!(e, DatasetError::Invalid { .. }), "{e}");
    }
}
