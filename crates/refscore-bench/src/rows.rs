//! JSONL rows of generated pairs, written in order and in bounded memory.
//!
//! `pairs` rows (`{"id", "output", "reference"}`) are the input of
//! `refscore compare --pairs`; `dataset` rows add an `input` (the
//! instruction the model was given) for `refscore run`.

use std::io::{self, Write};

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde_json::{Map, Value};

use crate::Generator;

/// Rows made and written per batch; bounds memory to a few tens of MB.
const BATCH: u64 = 2_048;

/// Shape of a JSONL row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowFormat {
    /// `{"id", "output", "reference"}`.
    Pairs,
    /// `{"id", "input", "output", "reference"}`.
    Dataset,
}

/// The random stream of row `index` under `seed`.
pub fn row_rng(seed: u64, index: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(index);
    rng
}

/// Identifier of row `index`: `inv-0000042`.
pub fn row_id(index: u64) -> String {
    format!("inv-{index:07}")
}

/// Row `index` of a file generated with `seed`.
pub fn row(generator: &Generator, format: RowFormat, seed: u64, index: u64) -> Value {
    let pair = generator.pair(&mut row_rng(seed, index));
    let id = row_id(index);
    let mut obj = Map::new();
    if format == RowFormat::Dataset {
        let pages = 1 + pair.reference["line_items"].as_array().map_or(0, Vec::len) / 15;
        let input = format!(
            "Extract vendor, invoice number, dates, currency, line items and totals as JSON \
             from the attached scan {id}.pdf ({pages} page{}).",
            if pages == 1 { "" } else { "s" }
        );
        obj.insert("input".into(), Value::String(input));
    }
    obj.insert("id".into(), Value::String(id));
    obj.insert("output".into(), pair.output);
    obj.insert("reference".into(), pair.reference);
    Value::Object(obj)
}

/// What [`write_rows`] wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Written {
    /// Rows (lines).
    pub rows: u64,
    /// Bytes, newlines included.
    pub bytes: u64,
}

/// Writes rows `0..count` as JSONL, making each batch in parallel on the
/// current rayon pool and writing it in order.
///
/// # Errors
/// Any write error.
pub fn write_rows<W: Write>(
    mut out: W,
    generator: &Generator,
    format: RowFormat,
    seed: u64,
    count: u64,
) -> io::Result<Written> {
    let mut written = Written::default();
    let mut start = 0;
    while start < count {
        let end = count.min(start + BATCH);
        let lines: Vec<Vec<u8>> = (start..end)
            .into_par_iter()
            .map(|i| {
                let mut line = Vec::with_capacity(8_192);
                // Writing a Value to a Vec cannot fail.
                let _ = serde_json::to_writer(&mut line, &row(generator, format, seed, i));
                line.push(b'\n');
                line
            })
            .collect();
        for line in &lines {
            out.write_all(line)?;
            written.bytes += line.len() as u64;
        }
        written.rows += end - start;
        start = end;
    }
    out.flush()?;
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_jsonl_with_the_right_keys() {
        let g = Generator::default();
        let mut buf = Vec::new();
        let w = write_rows(&mut buf, &g, RowFormat::Dataset, 3, 5).unwrap();
        assert_eq!(w.rows, 5);
        assert_eq!(w.bytes, buf.len() as u64);
        let text = String::from_utf8(buf).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 5);
        for (i, line) in lines.iter().enumerate() {
            let v: Value = serde_json::from_str(line).unwrap();
            let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
            assert_eq!(keys, ["id", "input", "output", "reference"]);
            assert_eq!(v["id"], row_id(i as u64));
        }
    }

    #[test]
    fn prefix_is_stable_across_counts_and_batches() {
        let g = Generator::default();
        let (mut small, mut big) = (Vec::new(), Vec::new());
        write_rows(&mut small, &g, RowFormat::Pairs, 8, 3).unwrap();
        write_rows(&mut big, &g, RowFormat::Pairs, 8, BATCH + 3).unwrap();
        assert!(big.starts_with(&small));
        let first = String::from_utf8(small).unwrap();
        let v: Value = serde_json::from_str(first.lines().next().unwrap()).unwrap();
        assert_eq!(v.as_object().unwrap().len(), 3);
        assert_eq!(v, row(&g, RowFormat::Pairs, 8, 0));
    }
}
