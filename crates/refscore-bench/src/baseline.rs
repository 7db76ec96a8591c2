//! The parse-only baseline: read a JSONL file, parse every line into a
//! [`serde_json::Value`] and drop it. Nothing a scorer does per row can be
//! cheaper, so end-to-end figures are given as a share of this one.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use rayon::prelude::*;
use serde_json::Value;

/// Bytes read per block when streaming.
const BLOCK: usize = 8 << 20;

/// Which parser turns a line into a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Parser {
    /// `serde_json::from_str::<Value>`.
    SerdeJson,
    /// `refscore::json::parse` (depth pre-scan, growing stack).
    Refscore,
    /// `serde_json::from_str::<IgnoredAny>`: validation only, the
    /// tokenizer's own speed.
    Validate,
    /// `refscore::fast_json::read`: the fast reader's tree.
    FastTree,
}

/// Where the timed work starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The file is read while parsing (as the CLI does); the time includes
    /// reading.
    Stream,
    /// The file is read into memory first; the time covers splitting into
    /// lines and parsing.
    Memory,
}

/// Result of one baseline run.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ParseStats {
    /// Non-empty lines.
    pub rows: u64,
    /// Bytes in the file.
    pub bytes: u64,
    /// Lines that did not parse.
    pub errors: u64,
    /// Wall-clock seconds.
    pub seconds: f64,
}

impl ParseStats {
    /// Rows per second.
    pub fn rows_per_sec(&self) -> f64 {
        if self.seconds > 0.0 { self.rows as f64 / self.seconds } else { 0.0 }
    }

    /// Megabytes (10^6 bytes) per second.
    pub fn mb_per_sec(&self) -> f64 {
        if self.seconds > 0.0 { self.bytes as f64 / 1e6 / self.seconds } else { 0.0 }
    }
}

fn parse_block(block: &[u8], parser: Parser, rows: &AtomicU64, errors: &AtomicU64) {
    block.par_split(|b| *b == b'\n').for_each(|line| {
        if line.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        rows.fetch_add(1, Ordering::Relaxed);
        let ok = match std::str::from_utf8(line) {
            Ok(text) => match parser {
                Parser::SerdeJson => serde_json::from_str::<Value>(text).is_ok(),
                Parser::Refscore => refscore::json::parse(text).is_ok(),
                Parser::Validate => serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok(),
                Parser::FastTree => refscore::fast_json::read(text).is_some(),
            },
            Err(_) => false,
        };
        if !ok {
            errors.fetch_add(1, Ordering::Relaxed);
        }
    });
}

/// Parses every line of `path` on `pool`.
///
/// # Errors
/// When the file cannot be read.
pub fn parse_file(
    path: &Path,
    pool: &rayon::ThreadPool,
    parser: Parser,
    source: Source,
) -> io::Result<ParseStats> {
    let (rows, errors) = (AtomicU64::new(0), AtomicU64::new(0));
    let (bytes, seconds) = match source {
        Source::Memory => {
            let data = std::fs::read(path)?;
            let start = Instant::now();
            pool.install(|| parse_block(&data, parser, &rows, &errors));
            (data.len() as u64, start.elapsed().as_secs_f64())
        }
        Source::Stream => {
            let start = Instant::now();
            let mut file = File::open(path)?;
            let (tx, rx) = mpsc::sync_channel::<Vec<u8>>(2);
            // One thread reads blocks that end on a newline while the pool
            // parses the previous one.
            let reader = std::thread::spawn(move || -> io::Result<u64> {
                let (mut total, mut carry) = (0u64, Vec::new());
                loop {
                    let mut block = std::mem::take(&mut carry);
                    let filled = block.len();
                    block.resize(filled + BLOCK, 0);
                    let n = read_full(&mut file, &mut block[filled..])?;
                    block.truncate(filled + n);
                    total += n as u64;
                    if n == 0 {
                        if !block.is_empty() {
                            let _ = tx.send(block);
                        }
                        return Ok(total);
                    }
                    if let Some(cut) = block.iter().rposition(|b| *b == b'\n') {
                        carry = block.split_off(cut + 1);
                        if tx.send(block).is_err() {
                            return Ok(total);
                        }
                    } else {
                        carry = block;
                    }
                }
            });
            for block in rx {
                pool.install(|| parse_block(&block, parser, &rows, &errors));
            }
            let bytes = reader.join().map_err(|_| io::Error::other("reader thread panicked"))??;
            (bytes, start.elapsed().as_secs_f64())
        }
    };
    Ok(ParseStats { rows: rows.into_inner(), bytes, errors: errors.into_inner(), seconds })
}

fn read_full(file: &mut File, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match file.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn counts_rows_bytes_and_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.jsonl");
        let mut f = File::create(&path).unwrap();
        let mut text = String::new();
        for i in 0..1_000 {
            text.push_str(&format!("{{\"id\": {i}, \"s\": \"é中\"}}\n"));
        }
        text.push_str("{broken\n\n[1,2]");
        f.write_all(text.as_bytes()).unwrap();
        drop(f);
        let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
        for source in [Source::Stream, Source::Memory] {
            for parser in [Parser::SerdeJson, Parser::Refscore] {
                let s = parse_file(&path, &pool, parser, source).unwrap();
                assert_eq!((s.rows, s.errors, s.bytes), (1_002, 1, text.len() as u64));
            }
        }
    }
}
