//! Datasets: rows read one at a time from JSONL, JSON array, CSV or
//! Parquet files.
//!
//! [`open`] returns [`Rows`], a streaming iterator: memory stays flat
//! whatever the file size. A row that cannot be read is one [`RowError`]
//! and the iteration goes on with the next row.

#[cfg(feature = "parquet")]
mod arrow_text;
mod csv;
mod json_array;
mod jsonl;
#[cfg(feature = "parquet")]
mod parquet;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use serde_json::Value;

/// The format of a dataset file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DatasetFormat {
    /// One JSON object per line (`.jsonl`, `.ndjson`).
    Jsonl,
    /// One JSON array of objects (`.json`).
    JsonArray,
    /// Comma-separated values with a header row (`.csv`).
    Csv,
    /// Apache Parquet (`.parquet`).
    Parquet,
}

impl DatasetFormat {
    /// The format a file name's extension stands for.
    pub fn from_path(path: &Path) -> Option<DatasetFormat> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        DatasetFormat::from_name(&ext)
    }

    /// The format for a name: `jsonl`, `ndjson`, `json`, `csv`, `parquet`.
    pub fn from_name(name: &str) -> Option<DatasetFormat> {
        match name.to_ascii_lowercase().as_str() {
            "jsonl" | "ndjson" => Some(DatasetFormat::Jsonl),
            "json" | "json_array" => Some(DatasetFormat::JsonArray),
            "csv" => Some(DatasetFormat::Csv),
            "parquet" => Some(DatasetFormat::Parquet),
            _ => None,
        }
    }

    /// The format's name as written in suite files.
    pub fn name(self) -> &'static str {
        match self {
            DatasetFormat::Jsonl => "jsonl",
            DatasetFormat::JsonArray => "json",
            DatasetFormat::Csv => "csv",
            DatasetFormat::Parquet => "parquet",
        }
    }
}

impl fmt::Display for DatasetFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One row of a dataset.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// 1-based line number (JSONL) or record number (other formats).
    pub number: u64,
    /// The row: always a JSON object.
    pub value: Value,
    /// Whether the cells are text that may hold JSON (CSV).
    pub text_cells: bool,
}

/// A row that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}:{number}: {message}", file.display())]
pub struct RowError {
    /// The dataset file.
    pub file: PathBuf,
    /// 1-based line (JSONL) or record (other formats) number.
    pub number: u64,
    /// What is wrong with it.
    pub message: String,
}

/// A dataset that cannot be opened at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DatasetError {
    /// The file cannot be opened or read.
    #[error("{}: {message}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        message: String,
    },
    /// The format cannot be told from the file name.
    #[error("{}: unknown dataset format (use .jsonl, .ndjson, .json, .csv or .parquet, or set the format)", path.display())]
    UnknownFormat {
        /// The file.
        path: PathBuf,
    },
    /// The file is not a valid dataset of its format (bad header, bad
    /// Parquet footer, format not compiled in).
    #[error("{}: {message}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

/// The rows of a dataset, in file order; see [`open`].
pub struct Rows {
    inner: Box<dyn Iterator<Item = Pending> + Send>,
    format: DatasetFormat,
    read: Option<Arc<AtomicU64>>,
    size: u64,
    /// Read from a pipe, standard input or a device, not a file.
    stream: bool,
    /// For a JSONL stream: whether its next row is already read.
    ready: Option<Arc<AtomicBool>>,
}

impl Rows {
    /// JSONL rows from `text`, then whatever `then` gives, for tests.
    #[cfg(test)]
    pub(crate) fn jsonl_then(
        text: &'static [u8],
        then: impl Iterator<Item = Pending> + Send + 'static,
    ) -> Rows {
        let rows = jsonl::JsonlRows::from_reader(Path::new("t.jsonl"), text).chain(then);
        Rows {
            inner: Box::new(rows),
            format: DatasetFormat::Jsonl,
            read: None,
            size: 0,
            stream: false,
            ready: None,
        }
    }

    /// Whether the next row may have to wait for a stream's writer (a
    /// pipe, standard input): a file's rows never do.
    pub(crate) fn would_wait(&self) -> bool {
        self.ready.as_ref().is_some_and(|r| !r.load(Ordering::Relaxed))
    }

    /// Whether the rows come from a stream (a pipe, standard input, a
    /// device), not a file.
    pub fn is_stream(&self) -> bool {
        self.stream
    }

    /// The format being read.
    pub fn format(&self) -> DatasetFormat {
        self.format
    }

    /// Share of the file read so far, in [0, 1], where it can be known.
    pub fn fraction_read(&self) -> Option<f64> {
        self.progress().fraction_read()
    }

    /// A handle on how much of the file has been read, usable while
    /// another thread reads the rows.
    pub fn progress(&self) -> ReadProgress {
        ReadProgress { read: self.read.clone(), size: self.size }
    }
}

/// How much of a dataset file has been read; see [`Rows::progress`].
#[derive(Debug, Clone)]
pub struct ReadProgress {
    read: Option<Arc<AtomicU64>>,
    size: u64,
}

impl ReadProgress {
    /// Share of the file read so far, in [0, 1], where it can be known.
    pub fn fraction_read(&self) -> Option<f64> {
        let read = self.read.as_ref()?.load(Ordering::Relaxed);
        #[allow(clippy::cast_precision_loss)]
        (self.size > 0).then(|| (read as f64 / self.size as f64).min(1.0))
    }
}

impl fmt::Debug for Rows {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Rows").field("format", &self.format).finish_non_exhaustive()
    }
}

impl Iterator for Rows {
    type Item = Result<Row, RowError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.inner.next().map(Pending::resolve)
    }
}

impl Rows {
    /// The next row, possibly not parsed yet, so that the caller can parse
    /// it on another thread.
    pub(crate) fn next_pending(&mut self) -> Option<Pending> {
        self.inner.next()
    }
}

/// A row that has been read but maybe not parsed: JSONL lines are parsed
/// by whoever resolves them (the runner's workers).
#[derive(Debug)]
pub(crate) enum Pending {
    /// Parsed already, or an error.
    Ready(Result<Row, RowError>),
    /// One JSONL line, as read.
    Line {
        /// The file.
        path: Arc<Path>,
        /// 1-based line number.
        number: u64,
        /// The line's bytes (without a byte-order mark).
        bytes: jsonl::LineBytes,
    },
}

impl Pending {
    /// What the row weighs as read, in bytes, counted up to `cap`: its
    /// line's length (a JSONL line is parsed later, by whoever resolves
    /// it), or about what its parsed value holds in memory
    /// ([`crate::json::held_bytes`]); an error row weighs its message.
    pub(crate) fn weight(&self, cap: usize) -> usize {
        match self {
            Pending::Line { bytes, .. } => bytes.len().min(cap),
            Pending::Ready(Ok(row)) => crate::json::held_bytes(&row.value, cap),
            Pending::Ready(Err(e)) => e.message.len().min(cap),
        }
    }

    /// The parsed row, or why it is not one.
    pub(crate) fn resolve(self) -> Result<Row, RowError> {
        self.resolve_noting().map(|(row, _)| row)
    }

    /// The parsed row, with its line when the line repeated a key in some
    /// object (the value keeps the last member; the line says where the
    /// keys were: [`crate::duplicate_keys`]), or why it is not a row.
    pub(crate) fn resolve_noting(self) -> Result<(Row, Option<jsonl::LineBytes>), RowError> {
        match self {
            Pending::Ready(r) => r.map(|row| (row, None)),
            Pending::Line { path, number, bytes } => {
                let item = match std::str::from_utf8(&bytes) {
                    Err(e) => Err(format!("not UTF-8: {e}")),
                    Ok(text) => crate::json::parse_counted(text.trim_end())
                        .map_err(|e| format!("invalid JSON: {e}"))
                        .and_then(|(v, replaced)| Ok((object_row(number, v, false)?, replaced))),
                };
                match item {
                    Ok((row, 0)) => Ok((row, None)),
                    Ok((row, _)) => Ok((row, Some(bytes))),
                    Err(m) => Err(row_error(&path, number, m)),
                }
            }
        }
    }
}

/// Opens a dataset; the format comes from `format`, else from the
/// file's extension.
///
/// # Errors
/// The file cannot be opened, its format is unknown, its header (CSV) or
/// footer (Parquet) cannot be read, or it is empty (CSV, JSON array) or a
/// JSON array file does not start with `[`.
pub fn open(path: &Path, format: Option<DatasetFormat>) -> Result<Rows, DatasetError> {
    let format = format
        .or_else(|| DatasetFormat::from_path(path))
        .ok_or_else(|| DatasetError::UnknownFormat { path: path.to_path_buf() })?;
    let file = std::fs::File::open(path)
        .map_err(|e| DatasetError::Io { path: path.to_path_buf(), message: e.to_string() })?;
    let meta = file
        .metadata()
        .map_err(|e| DatasetError::Io { path: path.to_path_buf(), message: e.to_string() })?;
    if meta.is_dir() {
        return Err(DatasetError::Invalid {
            path: path.to_path_buf(),
            message: String::from("is a directory, not a dataset file"),
        });
    }
    let size = meta.len();
    let read = Arc::new(AtomicU64::new(0));
    let counted = |file| {
        std::io::BufReader::with_capacity(
            1 << 16,
            Counting { inner: file, read: Arc::clone(&read) },
        )
    };
    // A pipe, standard input or a device: read as a stream.
    let stream = !meta.is_file();
    let mut ready = None;
    let inner: Box<dyn Iterator<Item = Pending> + Send> = match format {
        DatasetFormat::Jsonl => {
            let rows = jsonl::JsonlRows::from_reader(path, file).counting(Arc::clone(&read));
            if stream {
                let (rows, flag) = rows.streaming();
                ready = Some(flag);
                Box::new(rows)
            } else {
                Box::new(rows)
            }
        }
        DatasetFormat::JsonArray => Box::new(
            json_array::JsonArrayRows::from_reader(path, counted(file))?.map(Pending::Ready),
        ),
        DatasetFormat::Csv => {
            Box::new(csv::CsvRows::from_reader(path, counted(file))?.map(Pending::Ready))
        }
        DatasetFormat::Parquet if stream => return Err(parquet_stream(path)),
        #[cfg(feature = "parquet")]
        DatasetFormat::Parquet => {
            // Parquet reads by seeking; its progress is not byte-based.
            let rows = parquet::ParquetRows::new(path, file)?;
            return Ok(Rows {
                inner: Box::new(rows.map(Pending::Ready)),
                format,
                read: None,
                size: 0,
                stream,
                ready: None,
            });
        }
        #[cfg(not(feature = "parquet"))]
        DatasetFormat::Parquet => {
            return Err(DatasetError::Invalid {
                path: path.to_path_buf(),
                message: "Parquet support is not compiled in (feature `parquet`)".into(),
            });
        }
    };
    Ok(Rows { inner, format, read: Some(read), size, stream, ready })
}

/// The columns every row of a dataset has, from its header, read without
/// reading a row: a CSV file's header row, a Parquet file's top-level
/// columns; the format comes from `format`, else from the file's
/// extension.
///
/// `None` for a format without a header (JSONL, JSON array), for a stream
/// (a pipe, standard input, a device: its header would be read away from
/// the run, and a pipe with no writer would be waited on), and for a file
/// that [`open`] refuses (it says why when the dataset is opened).
pub(crate) fn header_columns(path: &Path, format: Option<DatasetFormat>) -> Option<Vec<String>> {
    let format = format.or_else(|| DatasetFormat::from_path(path))?;
    if !matches!(format, DatasetFormat::Csv | DatasetFormat::Parquet) {
        return None;
    }
    // The file's type first: opening a pipe waits for a writer.
    if !std::fs::metadata(path).ok()?.is_file() {
        return None;
    }
    let file = std::fs::File::open(path).ok()?;
    match format {
        DatasetFormat::Csv => {
            let reader = std::io::BufReader::with_capacity(1 << 16, file);
            Some(csv::CsvRows::from_reader(path, reader).ok()?.headers().to_vec())
        }
        #[cfg(feature = "parquet")]
        DatasetFormat::Parquet => Some(parquet::ParquetRows::new(path, file).ok()?.columns()),
        _ => None,
    }
}

/// Reads a dataset from a stream (standard input, a pipe): JSONL, JSON or
/// CSV; `name` is what errors call the stream. Rows are read as they are
/// needed, so memory stays flat whatever the stream's length.
///
/// # Errors
/// Parquet (which needs a file it can seek in), a CSV header that cannot
/// be read, or a JSON array stream that is empty or does not start with
/// `[`.
pub fn from_reader(
    name: &Path,
    reader: Box<dyn std::io::Read + Send>,
    format: DatasetFormat,
) -> Result<Rows, DatasetError> {
    let reader = std::io::BufReader::with_capacity(1 << 16, reader);
    let mut ready = None;
    let inner: Box<dyn Iterator<Item = Pending> + Send> = match format {
        DatasetFormat::Jsonl => {
            let (rows, flag) = jsonl::JsonlRows::from_reader(name, reader).streaming();
            ready = Some(flag);
            Box::new(rows)
        }
        DatasetFormat::JsonArray => {
            Box::new(json_array::JsonArrayRows::from_reader(name, reader)?.map(Pending::Ready))
        }
        DatasetFormat::Csv => {
            Box::new(csv::CsvRows::from_reader(name, reader)?.map(Pending::Ready))
        }
        DatasetFormat::Parquet => return Err(parquet_stream(name)),
    };
    Ok(Rows { inner, format, read: None, size: 0, stream: true, ready })
}

/// Parquet is read by seeking: a stream cannot hold it.
fn parquet_stream(name: &Path) -> DatasetError {
    DatasetError::Invalid {
        path: name.to_path_buf(),
        message: "Parquet cannot be read from a stream (a pipe or standard input); give a file"
            .into(),
    }
}

/// A reader that counts the bytes read through it, for progress.
struct Counting<R> {
    inner: R,
    read: Arc<AtomicU64>,
}

impl<R: std::io::Read> std::io::Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// Turns a parsed value into a row, or says why it is not one.
pub(crate) fn object_row(number: u64, value: Value, text_cells: bool) -> Result<Row, String> {
    if value.is_object() {
        Ok(Row { number, value, text_cells })
    } else {
        let kind = crate::json::type_name(&value);
        crate::json::drop_deep(value);
        Err(format!("row is a JSON {kind}, not an object"))
    }
}

/// A [`RowError`] for `file`.
pub(crate) fn row_error(file: &Path, number: u64, message: impl Into<String>) -> RowError {
    RowError { file: file.to_path_buf(), number, message: message.into() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_reaches_the_whole_file_for_every_format() {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in [
            ("a.jsonl", "{\"id\":1}\n{\"id\":2}\n"),
            ("a.json", "[{\"id\":1},{\"id\":2}]"),
            ("a.csv", "id\n1\n2\n"),
        ] {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            let mut rows = open(&path, None).unwrap();
            assert_eq!(rows.by_ref().filter(Result::is_ok).count(), 2, "{name}");
            assert_eq!(rows.fraction_read(), Some(1.0), "{name}");
        }
    }

    #[test]
    fn formats_from_extensions() {
        assert_eq!(DatasetFormat::from_path(Path::new("a.JSONL")), Some(DatasetFormat::Jsonl));
        assert_eq!(DatasetFormat::from_path(Path::new("a.ndjson")), Some(DatasetFormat::Jsonl));
        assert_eq!(DatasetFormat::from_path(Path::new("a.json")), Some(DatasetFormat::JsonArray));
        assert_eq!(DatasetFormat::from_path(Path::new("a.csv")), Some(DatasetFormat::Csv));
        assert_eq!(DatasetFormat::from_path(Path::new("a.parquet")), Some(DatasetFormat::Parquet));
        assert_eq!(DatasetFormat::from_path(Path::new("a.txt")), None);
    }

    #[test]
    fn unknown_format_and_missing_file() {
        let e = open(Path::new("x.txt"), None).unwrap_err();
        assert!(matches!(e, DatasetError::UnknownFormat { .. }));
        let e = open(Path::new("/nonexistent/x.jsonl"), None).unwrap_err();
        assert!(matches!(e, DatasetError::Io { .. }));
        assert!(e.to_string().starts_with("/nonexistent/x.jsonl: "));
    }

    #[test]
    fn format_override_wins() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("data.txt");
        std::fs::write(&p, "{\"a\":1}\n").unwrap();
        let rows: Vec<_> = open(&p, Some(DatasetFormat::Jsonl)).unwrap().collect();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].as_ref().unwrap().value["a"], 1);
    }

    #[test]
    fn row_error_display() {
        let e = row_error(Path::new("d.jsonl"), 7, "bad");
        assert_eq!(e.to_string(), "d.jsonl:7: bad");
    }
}
