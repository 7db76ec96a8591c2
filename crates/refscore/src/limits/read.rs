//! Reading a whole file as text, never past a size limit: the one way
//! configuration files (suite, rules, schemas, weights) and `compare`'s
//! inputs are read, so that a device (`/dev/zero`), a FIFO that never
//! ends or a file of gigabytes cannot exhaust memory.

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::error::ConfigError;

/// A file that could not be read as text within its limit; shown as
/// `PATH: why`.
#[derive(Debug, thiserror::Error)]
#[error("{}: {kind}", path.display())]
pub struct ReadError {
    /// The file (or `standard input`).
    pub path: PathBuf,
    /// Why it could not be read.
    pub kind: ReadErrorKind,
}

/// Why a file could not be read; see [`ReadError`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReadErrorKind {
    /// Opening or reading failed, or the text is not UTF-8.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The file holds more than `limit` bytes; `bytes` is its length when
    /// known (a regular file), `None` for a pipe or a device, which is
    /// read no further than the limit.
    #[error("{}", too_large(*bytes, *limit))]
    TooLarge {
        /// Its length in bytes, when known.
        bytes: Option<u64>,
        /// The limit.
        limit: usize,
    },
}

/// `the file is N bytes long, over the limit of L bytes`, or `the file
/// is longer than the limit of L bytes` when its length is unknown.
fn too_large(bytes: Option<u64>, limit: usize) -> String {
    match bytes {
        Some(b) => format!("the file is {b} bytes long, over the limit of {limit} bytes"),
        None => format!("the file is longer than the limit of {limit} bytes"),
    }
}

/// Opens `path` for reading when it is a regular file (followed through
/// symbolic links): a file a run wrote, never a pipe (opening one waits
/// for a writer), a device (`/dev/zero` never ends) or a folder.
///
/// # Errors
/// It does not exist, is not a regular file, or cannot be opened.
pub fn open_regular(path: &Path) -> std::io::Result<std::fs::File> {
    if !std::fs::metadata(path)?.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file (a pipe, a device or a folder)",
        ));
    }
    std::fs::File::open(path)
}

/// Reads the file at `path` as UTF-8 text of at most `limit` bytes.
///
/// A regular file longer than `limit` is refused before any of it is
/// read; anything else (a pipe, a device) is read up to `limit + 1` bytes
/// and refused if there is more.
///
/// # Errors
/// The file cannot be opened or read, is not UTF-8, or is over `limit`.
pub fn read_text(path: &Path, limit: usize) -> Result<String, ReadError> {
    let file = std::fs::File::open(path)
        .map_err(|e| ReadError { path: path.to_path_buf(), kind: e.into() })?;
    read_opened(file, path, limit)
}

/// Reads the regular file at `path` (see [`open_regular`]: never a pipe
/// or a device) as UTF-8 text of at most `limit` bytes: a file a run wrote
/// and another command reads back.
///
/// # Errors
/// As [`open_regular`] and [`read_text`].
pub fn read_regular_text(path: &Path, limit: usize) -> Result<String, ReadError> {
    let file =
        open_regular(path).map_err(|e| ReadError { path: path.to_path_buf(), kind: e.into() })?;
    read_opened(file, path, limit)
}

/// Reads the opened `file` of `path`: a regular file longer than `limit`
/// is refused before any of it is read.
fn read_opened(file: std::fs::File, path: &Path, limit: usize) -> Result<String, ReadError> {
    let err = |kind: ReadErrorKind| ReadError { path: path.to_path_buf(), kind };
    if let Ok(meta) = file.metadata()
        && meta.is_file()
        && meta.len() > limit as u64
    {
        return Err(err(ReadErrorKind::TooLarge { bytes: Some(meta.len()), limit }));
    }
    read_text_from(file, path, limit)
}

/// Reads `reader` to its end as UTF-8 text of at most `limit` bytes (read
/// no further than `limit + 1`); `name` is the file its errors name.
///
/// # Errors
/// Reading fails, the text is not UTF-8, or there are more than `limit`
/// bytes.
pub fn read_text_from(reader: impl Read, name: &Path, limit: usize) -> Result<String, ReadError> {
    let err = |kind: ReadErrorKind| ReadError { path: name.to_path_buf(), kind };
    let mut bytes = Vec::new();
    reader.take(limit as u64 + 1).read_to_end(&mut bytes).map_err(|e| err(e.into()))?;
    if bytes.len() > limit {
        return Err(err(ReadErrorKind::TooLarge { bytes: None, limit }));
    }
    String::from_utf8(bytes).map_err(|_| {
        err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        )
        .into())
    })
}

/// The lines of `reader` as UTF-8 text, none longer than `limit` bytes (its
/// line break not counted): a line past the limit is an error of kind
/// `InvalidData` read no further than `limit + 2` bytes (room for `\r\n`), after which the
/// lines end (the next one would start in the middle of it). A final line
/// without a line break is a line; `\r\n` ends a line as `\n` does.
pub fn bounded_lines<R: std::io::BufRead>(
    mut reader: R,
    limit: usize,
) -> impl Iterator<Item = std::io::Result<String>> {
    let mut done = false;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        let mut bytes = Vec::new();
        match read_line_within(&mut reader, &mut bytes, limit.saturating_add(2)) {
            Err(e) => {
                done = true;
                return Some(Err(e));
            }
            Ok(0) => return None,
            Ok(_) => {}
        }
        if bytes.last() == Some(&b'\n') {
            bytes.pop();
            if bytes.last() == Some(&b'\r') {
                bytes.pop();
            }
        }
        if bytes.len() > limit {
            done = true;
            return Some(Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("the line is longer than the limit of {limit} bytes"),
            )));
        }
        Some(String::from_utf8(bytes).map_err(|_| {
            std::io::Error::new(std::io::ErrorKind::InvalidData, "the line is not valid UTF-8")
        }))
    })
}

/// Reads up to and including the next `\n` into `bytes`, at most `max`
/// bytes; returns how many were read (0 at the end). The buffer never
/// holds more room than `max` bytes, and grows once past 1 MiB: a line
/// refused at its limit costs about that much memory.
fn read_line_within<R: std::io::BufRead>(
    reader: &mut R,
    bytes: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<usize> {
    let start = bytes.len();
    while bytes.len() < max {
        let buf = match reader.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            break;
        }
        let window = &buf[..buf.len().min(max - bytes.len())];
        let (taken, ended) = match memchr::memchr(b'\n', window) {
            Some(i) => (i + 1, true),
            None => (window.len(), false),
        };
        if bytes.capacity() - bytes.len() < taken {
            // Doubling up to 1 MiB; past it, room for the limit at once:
            // address space only (pages are taken as bytes are written),
            // where growing by doubling would hold each smaller buffer
            // too while it is copied (a line refused at 256 MiB took
            // 0.5–0.6 GB).
            let need = bytes.len() + taken;
            let want = if need > 1 << 20 { max } else { need.max(bytes.capacity() * 2) };
            bytes.reserve_exact(want.min(max) - bytes.len());
        }
        bytes.extend_from_slice(&window[..taken]);
        reader.consume(taken);
        if ended {
            break;
        }
    }
    Ok(bytes.len() - start)
}

impl From<ReadError> for ConfigError {
    fn from(e: ReadError) -> Self {
        ConfigError::File { path: e.path, message: e.kind.to_string() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_read_up_to_their_limit_and_none_past_it() {
        let lines = |text: &[u8], limit| -> Vec<Result<String, String>> {
            bounded_lines(std::io::Cursor::new(text.to_vec()), limit)
                .map(|l| l.map_err(|e| e.to_string()))
                .collect()
        };
        let ok = |s: &str| Ok::<_, String>(s.to_owned());
        assert_eq!(lines(b"abc\r\nde\n\nf", 3), vec![ok("abc"), ok("de"), ok(""), ok("f")]);
        assert_eq!(lines(b"", 3), vec![]);
        let long = Err("the line is longer than the limit of 3 bytes".to_owned());
        assert_eq!(lines(b"ab\nabcd\nxy\n", 3), vec![ok("ab"), long.clone()]);
        assert_eq!(lines(b"abcd", 3), vec![long]);
        assert_eq!(
            lines(b"\xff\nab\n", 3),
            vec![Err("the line is not valid UTF-8".into()), ok("ab")]
        );
        // An endless line is read no further than the limit.
        let zeros = std::io::BufReader::new(std::io::repeat(b'0'));
        let mut it = bounded_lines(zeros, 1 << 16);
        assert!(it.next().unwrap().is_err());
        assert!(it.next().is_none());
        // Read a few bytes at a time, the same lines.
        let small = |text: &'static [u8], limit| -> Vec<Result<String, String>> {
            bounded_lines(std::io::BufReader::with_capacity(2, text), limit)
                .map(|l| l.map_err(|e| e.to_string()))
                .collect()
        };
        assert_eq!(small(b"abc\r\nde\n\nf", 3), vec![ok("abc"), ok("de"), ok(""), ok("f")]);
        assert_eq!(small(b"ab\nabcd\nxy\n", 3).len(), 2);
        assert_eq!(small(b"ab\nabcd\nxy\n", 4), vec![ok("ab"), ok("abcd"), ok("xy")]);
    }

    /// A line refused at its limit holds no more room than the limit.
    #[test]
    fn a_line_is_held_in_no_more_than_its_limit() {
        let mut zeros = std::io::BufReader::with_capacity(64, std::io::repeat(b'0'));
        let mut bytes = Vec::new();
        assert_eq!(read_line_within(&mut zeros, &mut bytes, 1000).unwrap(), 1000);
        assert_eq!(bytes.len(), 1000);
        assert!(bytes.capacity() <= 1000, "{}", bytes.capacity());
        let mut text = std::io::Cursor::new(b"ab\ncd".to_vec());
        let mut line = Vec::new();
        assert_eq!(read_line_within(&mut text, &mut line, 10).unwrap(), 3);
        assert_eq!(line, b"ab\n");
        line.clear();
        assert_eq!(read_line_within(&mut text, &mut line, 10).unwrap(), 2);
        assert_eq!(read_line_within(&mut text, &mut line, 10).unwrap(), 0);
    }

    #[test]
    fn a_file_over_the_limit_is_refused_and_one_at_it_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.yaml");
        std::fs::write(&path, "abcd").unwrap();
        assert_eq!(read_text(&path, 4).unwrap(), "abcd");
        let e = read_text(&path, 3).unwrap_err();
        assert!(matches!(e.kind, ReadErrorKind::TooLarge { bytes: Some(4), limit: 3 }), "{e}");
        assert!(e.to_string().contains("f.yaml: the file is 4 bytes long, over the limit of 3"));
        let c = ConfigError::from(e).to_string();
        assert!(c.starts_with(&path.display().to_string()) && c.contains("limit of 3"), "{c}");
    }

    #[test]
    fn a_stream_is_read_no_further_than_the_limit() {
        let endless = std::io::repeat(b'x');
        let e = read_text_from(endless, Path::new("standard input"), 1 << 10).unwrap_err();
        assert!(matches!(e.kind, ReadErrorKind::TooLarge { bytes: None, .. }), "{e}");
        assert_eq!(
            e.to_string(),
            "standard input: the file is longer than the limit of 1024 bytes"
        );
        let e = read_text_from(&[0xff_u8, 0xfe][..], Path::new("b"), 8).unwrap_err();
        assert!(e.to_string().contains("valid UTF-8"), "{e}");
    }
}
