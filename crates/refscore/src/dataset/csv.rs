//! CSV with a header row: each record is an object of column → text cell.

use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::{DatasetError, Row, RowError, row_error};

/// Rows of a CSV file.
pub(crate) struct CsvRows<R> {
    path: PathBuf,
    reader: csv::Reader<R>,
    headers: Vec<String>,
    record: csv::ByteRecord,
    number: u64,
    done: bool,
}

impl<R: Read> CsvRows<R> {
    pub(crate) fn from_reader(path: &Path, reader: R) -> Result<Self, DatasetError> {
        let invalid = |message: String| DatasetError::Invalid { path: path.to_path_buf(), message };
        let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(reader);
        let headers = reader.headers().map_err(|e| invalid(format!("CSV header: {e}")))?;
        let headers: Vec<String> = headers.iter().map(str::to_owned).collect();
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
            headers,
            record: csv::ByteRecord::new(),
            number: 0,
            done: false,
        })
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
                Some(Err(row_error(&self.path, self.number, e.to_string())))
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
    fn duplicate_header_is_an_open_error() {
        let e = CsvRows::from_reader(Path::new("d.csv"), &b"a,a\n1,2\n"[..]).err().unwrap();
        assert!(e.to_string().contains("`a` appears twice"));
    }
}
