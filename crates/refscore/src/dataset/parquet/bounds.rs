//! The sizes a Parquet file declares, checked before the decoder trusts
//! them.
//!
//! The `parquet` crate allocates what a file declares: a Snappy page's
//! buffer is its header's `uncompressed_page_size` (up to 2 GiB), filled
//! with zeros before a byte is decompressed, and a list column's levels are
//! read for as many values as a page header says. A file of a few hundred
//! bytes can ask for gigabytes. The crate has no option that limits these
//! sizes, so each row group is checked here before it is read, from its
//! footer entry and from its pages' headers (read, never decompressed):
//!
//! - a column chunk lies inside the file;
//! - a page lies inside its column chunk, and declares at most
//!   [`MAX_PAGE_BYTES`] uncompressed and no more than its column chunk does
//!   in all;
//! - a Snappy page declares no more than [`SNAPPY_MAX_RATIO`] times its
//!   compressed size (no valid Snappy data expands more);
//! - a column chunk's data pages declare no more values than the chunk, and
//!   a list column's chunk declares at most [`MAX_LIST_VALUES`] values.

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};

use parquet::basic::Compression;
use parquet::file::metadata::{ColumnChunkMetaData, RowGroupMetaData};
use thrift::protocol::{TCompactInputProtocol, TInputProtocol, TType};

/// The most uncompressed bytes one page may declare: 1 GiB. Writers cut
/// pages at about 1 MB; a page is larger only to hold one larger value.
/// (A column chunk's pages are read one at a time, so a chunk may be
/// larger.)
pub(crate) const MAX_PAGE_BYTES: i64 = 1 << 30;

/// The most values (list elements and nulls included) one column chunk of
/// a list column may declare in one row group: 2^27 (134,217,728). A single
/// row's list is read whole, however long.
pub(crate) const MAX_LIST_VALUES: i64 = 1 << 27;

/// How many times its compressed size a Snappy page may declare: a Snappy
/// copy element writes at most 64 bytes from 3, so no valid data expands
/// more than 21.4 times.
pub(crate) const SNAPPY_MAX_RATIO: i64 = 22;

/// Checks the declared sizes of every column chunk of `group` (row group
/// number `index`, 0-based) against the file's real size `file_len`.
/// Returns what is wrong, naming the column.
pub(crate) fn check_row_group(
    file: &File,
    file_len: u64,
    index: usize,
    group: &RowGroupMetaData,
) -> Result<(), String> {
    for chunk in group.columns() {
        check_chunk(file, file_len, chunk).map_err(|e| {
            format!("row group {index}, column `{}`: {e}", chunk.column_path().string())
        })?;
    }
    Ok(())
}

fn check_chunk(file: &File, file_len: u64, chunk: &ColumnChunkMetaData) -> Result<(), String> {
    let start = chunk.dictionary_page_offset().unwrap_or_else(|| chunk.data_page_offset());
    let (compressed, uncompressed) = (chunk.compressed_size(), chunk.uncompressed_size());
    let values = chunk.num_values();
    if start < 0 || compressed < 0 || uncompressed < 0 || values < 0 {
        return Err(format!(
            "declares a negative size (offset {start}, {compressed} bytes compressed, \
             {uncompressed} uncompressed, {values} values)"
        ));
    }
    let (start, len) = (start.unsigned_abs(), compressed.unsigned_abs());
    if start.checked_add(len).is_none_or(|end| end > file_len) {
        return Err(format!(
            "declares {len} bytes at offset {start}, beyond the end of the file ({file_len} bytes)"
        ));
    }
    if chunk.column_descr().max_rep_level() > 0 && values > MAX_LIST_VALUES {
        return Err(format!(
            "declares {values} values, more than the limit of {MAX_LIST_VALUES} per list column \
             chunk"
        ));
    }
    check_pages(file, start, len, chunk)
}

/// Walks the page headers of a column chunk of `len` bytes at `start`.
fn check_pages(
    file: &File,
    start: u64,
    len: u64,
    chunk: &ColumnChunkMetaData,
) -> Result<(), String> {
    let io = |e: std::io::Error| format!("cannot read its pages: {e}");
    let mut file = file.try_clone().map_err(io)?;
    file.seek(SeekFrom::Start(start)).map_err(io)?;
    let mut reader = BufReader::new(file);
    let snappy = chunk.compression() == Compression::SNAPPY;
    let (mut offset, mut values) = (start, 0_i64);
    while offset < start + len {
        let at = offset;
        let mut counted = Counted { inner: (&mut reader).take(start + len - at), read: 0 };
        let header = read_header(&mut counted)
            .map_err(|e| format!("unreadable page header at offset {at}: {e}"))?;
        let header_len = counted.read;
        let remaining = start + len - at - header_len;
        if header.compressed < 0 || header.compressed.unsigned_abs() > remaining {
            return Err(format!(
                "the page at offset {at} declares {} bytes, more than the {remaining} left in its \
                 column chunk",
                header.compressed
            ));
        }
        if header.uncompressed > MAX_PAGE_BYTES {
            return Err(format!(
                "the page at offset {at} declares {} bytes uncompressed, more than the limit of \
                 {MAX_PAGE_BYTES} (1 GiB) per page",
                header.uncompressed
            ));
        }
        if header.uncompressed < 0 || header.uncompressed > chunk.uncompressed_size() {
            return Err(format!(
                "the page at offset {at} declares {} bytes uncompressed, more than its column \
                 chunk's {} in all",
                header.uncompressed,
                chunk.uncompressed_size()
            ));
        }
        if snappy && header.uncompressed > SNAPPY_MAX_RATIO * header.compressed {
            return Err(format!(
                "the Snappy page at offset {at} declares {} bytes uncompressed from {} compressed \
                 (Snappy expands at most {SNAPPY_MAX_RATIO} times)",
                header.uncompressed, header.compressed
            ));
        }
        values = values.saturating_add(header.data_values);
        if header.data_values < 0 || values > chunk.num_values() {
            return Err(format!(
                "its data pages declare {values} values by offset {at}, more than the column \
                 chunk's {}",
                chunk.num_values()
            ));
        }
        reader.seek_relative(header.compressed).map_err(io)?;
        offset += header_len + header.compressed.unsigned_abs();
    }
    Ok(())
}

/// What a page header declares.
#[derive(Debug, Default)]
struct Header {
    uncompressed: i64,
    compressed: i64,
    /// Values of a data page (v1 or v2; the larger when a header has
    /// both); 0 for other pages.
    data_values: i64,
}

/// Counts the bytes read through it: the length of a page header.
struct Counted<R> {
    inner: R,
    read: u64,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        Ok(n)
    }
}

/// Reads one Thrift `PageHeader`: field 2 is `uncompressed_page_size`,
/// field 3 `compressed_page_size`, and the first field of the data page
/// header (5) and of the v2 data page header (8) their `num_values`; other
/// fields are skipped. The last of repeated sizes wins, as in the decoder.
fn read_header(input: impl Read) -> thrift::Result<Header> {
    let mut p = TCompactInputProtocol::new(input);
    let mut header = Header::default();
    p.read_struct_begin()?;
    loop {
        let field = p.read_field_begin()?;
        match (field.field_type, field.id) {
            (TType::Stop, _) => break,
            (TType::I32, Some(2)) => header.uncompressed = i64::from(p.read_i32()?),
            (TType::I32, Some(3)) => header.compressed = i64::from(p.read_i32()?),
            (TType::Struct, Some(5 | 8)) => {
                header.data_values = header.data_values.max(read_num_values(&mut p)?);
            }
            (kind, _) => p.skip(kind)?,
        }
        p.read_field_end()?;
    }
    p.read_struct_end()?;
    Ok(header)
}

/// Reads a data page header struct, returning its field 1, `num_values`.
fn read_num_values(p: &mut impl TInputProtocol) -> thrift::Result<i64> {
    let mut values = 0;
    p.read_struct_begin()?;
    loop {
        let field = p.read_field_begin()?;
        match (field.field_type, field.id) {
            (TType::Stop, _) => break,
            (TType::I32, Some(1)) => values = i64::from(p.read_i32()?),
            (kind, _) => p.skip(kind)?,
        }
        p.read_field_end()?;
    }
    p.read_struct_end()?;
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_header_gives_its_sizes_and_the_larger_value_count() {
        // type 0, uncompressed 100, compressed 50, a v2 data page header
        // with 9 values, then (field id in long form) a data page header
        // with 7: the larger count is kept, whichever comes last.
        let bytes = [
            0x15, 0x00, 0x15, 0xc8, 0x01, 0x15, 0x64, 0x5c, 0x15, 0x12, 0x00, 0x0c, 0x0a, 0x15,
            0x0e, 0x00, 0x00,
        ];
        let mut counted = Counted { inner: &bytes[..], read: 0 };
        let h = read_header(&mut counted).unwrap();
        assert_eq!((h.uncompressed, h.compressed, h.data_values), (100, 50, 9));
        assert_eq!(counted.read, bytes.len() as u64);
        // Cut short: an error, not a guess.
        assert!(read_header(&bytes[..6]).is_err());
    }
}
