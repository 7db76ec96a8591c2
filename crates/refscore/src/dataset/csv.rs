//! CSV with a header row: each record is an object of column → text cell.

use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::{DatasetError, Row, RowError, row_error};
use crate::limits::MAX_ROW_BYTES;

/// The CSV reader's buffer, in bytes: how far it may read ahead of the
/// record it parses.
const BUFFER: usize = 64 << 10;

/// The file under the CSV reader. It reads at most `until` bytes: the end
/// of the last whole record, plus the longest row, plus the reader's
/// buffer. One endless record (an unclosed quote in a large file) so
/// cannot take all memory.
struct Bounded<R> {
    inner: R,
    read: u64,
    until: u64,
    /// A read was refused for being past `until`.
    refused: bool,
}

impl<R: Read> Read for Bounded<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let room = self.until.saturating_sub(self.read);
        if room == 0 {
            self.refused = true;
            return Err(std::io::Error::other("a record over the limit for one row"));
        }
        let n = buf.len().min(usize::try_from(room).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..n])?;
        self.read += n as u64;
        Ok(n)
    }
}

/// Rows of a CSV file.
pub(crate) struct CsvRows<R> {
    path: PathBuf,
    reader: csv::Reader<Bounded<R>>,
    /// The longest record read: [`MAX_ROW_BYTES`] (in tests, less).
    max_row: u64,
    /// Where the last record read ended.
    end: u64,
    headers: Vec<String>,
    record: csv::ByteRecord,
    number: u64,
    done: bool,
}

impl<R: Read> CsvRows<R> {
    pub(crate) fn from_reader(path: &Path, reader: R) -> Result<Self, DatasetError> {
        let invalid = |message: String| DatasetError::Invalid { path: path.to_path_buf(), message };
        let max_row = MAX_ROW_BYTES as u64;
        let bounded =
            Bounded { inner: reader, read: 0, until: max_row + BUFFER as u64, refused: false };
        let mut reader =
            csv::ReaderBuilder::new().flexible(true).buffer_capacity(BUFFER).from_reader(bounded);
        let headers = reader.headers().map_err(|e| invalid(format!("CSV header: {e}")))?;
        let headers: Vec<String> = headers.iter().map(str::to_owned).collect();
        let end = reader.position().byte();
        reader.get_mut().until = end + max_row + BUFFER as u64;
        if headers.is_empty() {
            return Err(invalid(String::from(
                "the file is empty: a CSV dataset needs a header row",
            )));
        }
        let mut seen = std::collections::BTreeSet::new();
        for h in &headers {
            if !seen.insert(h.as_str()) {
                return Err(invalid(format!("CSV header: column `{h}` appears twice")));
            }
        }
        Ok(CsvRows {
            path: path.to_path_buf(),
            reader,
            max_row,
            end,
            headers,
            record: csv::ByteRecord::new(),
            number: 0,
            done: false,
        })
    }

    /// The header's column names, in file order.
    pub(crate) fn headers(&self) -> &[String] {
        &self.headers
    }

    fn row(&self) -> Result<Value, String> {
        if self.record.len() != self.headers.len() {
            return Err(format!(
                "record has {} fields, the header has {}",
                self.record.len(),
                self.headers.len()
            ));
        }
        let mut map = Map::new();
        for (name, cell) in self.headers.iter().zip(self.record.iter()) {
            let text = std::str::from_utf8(cell)
                .map_err(|e| format!("column `{name}` is not UTF-8: {e}"))?;
            map.insert(name.clone(), Value::String(text.to_owned()));
        }
        Ok(Value::Object(map))
    }
}

impl<R: Read> Iterator for CsvRows<R> {
    type Item = Result<Row, RowError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.reader.read_byte_record(&mut self.record) {
            Ok(false) => {
                self.done = true;
                None
            }
            Ok(true) => {
                self.number += 1;
                let number = self.number;
                let end = self.reader.position().byte();
                self.reader.get_mut().until = end + self.max_row + BUFFER as u64;
                // Read whole (the reader may read ahead of the limit by its
                // buffer), but refused all the same.
                let length = end - std::mem::replace(&mut self.end, end);
                if length > self.max_row {
                    let m = crate::limits::too_long("record", length, self.max_row);
                    return Some(Err(row_error(&self.path, number, m)));
                }
                Some(match self.row() {
                    Ok(value) => Ok(Row { number, value, text_cells: true }),
                    Err(m) => Err(row_error(&self.path, number, m)),
                })
            }
            Err(e) => {
                self.number += 1;
                if matches!(e.kind(), csv::ErrorKind::Io(_)) {
                    self.done = true;
                }
                let message = if self.reader.get_ref().refused {
                    format!(
                        "the record is longer than the limit of {} bytes for one row; the rest \
                         of the file was not read (a CSV record's end cannot be found without \
                         reading it)",
                        self.max_row
                    )
                } else {
                    e.to_string()
                };
                Some(Err(row_error(&self.path, self.number, message)))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rows(text: &[u8]) -> Vec<Result<Row, RowError>> {
        CsvRows::from_reader(Path::new("d.csv"), text).unwrap().collect()
    }

    #[test]
    fn header_names_the_columns_and_cells_are_text() {
        let r = rows(b"id,output,expected\n1,\"{\"\"a\"\": 1}\",x\n2,7,\"multi\nline\"\n");
        assert_eq!(r.len(), 2);
        let first = r[0].as_ref().unwrap();
        assert!(first.text_cells);
        assert_eq!(first.value, json!({"id": "1", "output": "{\"a\": 1}", "expected": "x"}));
        let second = r[1].as_ref().unwrap();
        assert_eq!((second.number, &second.value["output"]), (2, &json!("7")));
        assert_eq!(second.value["expected"], "multi\nline");
    }

    #[test]
    fn short_record_in_the_middle_is_one_error() {
        let r = rows(b"a,b\n1,2\n3\n\xff,4\n5,6\n");
        assert_eq!(r.len(), 4);
        let e = r[1].as_ref().unwrap_err();
        assert_eq!(e.number, 2);
        assert!(e.to_string().starts_with("d.csv:2: record has 1 fields"), "{e}");
        assert!(r[2].as_ref().unwrap_err().message.contains("not UTF-8"));
        assert_eq!(r[3].as_ref().unwrap().value, json!({"a": "5", "b": "6"}));
    }

    #[test]
    fn a_record_over_the_limit_ends_the_file_with_an_error_and_is_never_held() {
        let text = format!("a,b\n1,2\n3,\"{}\n5,6\n", "x".repeat(4 * BUFFER));
        let mut rows = CsvRows::from_reader(Path::new("d.csv"), text.as_bytes()).unwrap();
        rows.max_row = 100;
        let first = rows.next().unwrap().unwrap();
        assert_eq!(first.value, json!({"a": "1", "b": "2"}));
        let e = rows.next().unwrap().unwrap_err();
        assert_eq!(e.number, 2);
        assert!(e.message.starts_with("the record is longer than the limit of 100 bytes"), "{e}");
        assert!(rows.reader.get_ref().read <= (BUFFER + 200) as u64);
        assert!(rows.next().is_none());
    }

    #[test]
    fn a_record_over_the_limit_read_whole_is_still_refused() {
        let long = format!("3,\"{}\"\n", "x".repeat(300));
        let text = format!("a,b\n1,2\n{long}5,6\n");
        let mut rows = CsvRows::from_reader(Path::new("d.csv"), text.as_bytes()).unwrap();
        rows.max_row = 100;
        assert_eq!(rows.next().unwrap().unwrap().value, json!({"a": "1", "b": "2"}));
        let e = rows.next().unwrap().unwrap_err();
        assert_eq!(e.number, 2);
        let want = format!("the record is {} bytes long, over the limit of 100 bytes", long.len());
        assert!(e.message.starts_with(&want), "{e}");
        assert_eq!(rows.next().unwrap().unwrap().value, json!({"a": "5", "b": "6"}));
        assert!(rows.next().is_none());
    }

    #[test]
    fn duplicate_header_is_an_open_error() {
        let e = CsvRows::from_reader(Path::new("d.csv"), &b"a,a\n1,2\n"[..]).err().unwrap();
        assert!(e.to_string().contains("`a` appears twice"));
    }
}
