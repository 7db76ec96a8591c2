//! JSONL (one JSON object per line), read in large blocks: a line is a
//! range of a shared block, handed to whoever parses it without a copy.

use std::io::Read;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use super::{Pending, row_error};
use crate::limits::{MAX_ROW_BYTES, too_long};

/// Bytes read at a time; a longer line grows the block to hold it.
const BLOCK: usize = 4 << 20;

/// Bytes read at a time from a stream (a pipe, standard input): what a
/// pipe holds. A block is handed on as soon as it holds a whole line, so
/// rows that come slowly are scored as they come.
const STREAM_BLOCK: usize = 64 << 10;

/// Blocks kept for reuse once their lines are done with: more than the
/// runner holds at once (up to three batches of rows, about a block
/// each, and the one being split), so that a file's blocks are reused
/// rather than freed and faulted in again.
const SPARES: usize = 8;

/// Rows of a JSONL file.
pub(crate) struct JsonlRows<R> {
    path: Arc<Path>,
    reader: R,
    /// The block being split, and where its unread part starts.
    block: Arc<Vec<u8>>,
    pos: usize,
    line: u64,
    /// The reader is exhausted or failed (the block may still hold lines).
    eof: bool,
    /// The read error to report once the lines before it are read.
    error: Option<std::io::Error>,
    /// Bytes read so far, for progress.
    read: Option<Arc<AtomicU64>>,
    /// Blocks read before, reused once no line holds them any more: a
    /// fresh block costs the kernel a page fault and a zeroed page per 4 KB.
    spare: Vec<Arc<Vec<u8>>>,
    /// The longest line read: [`MAX_ROW_BYTES`] (in tests, less; never
    /// less than [`BLOCK`]).
    max_row: usize,
    /// The length of a line skipped for being longer, not yet reported.
    skipped: Option<u64>,
    /// Set for a stream (see [`STREAM_BLOCK`]), after each line, to
    /// whether the next one can be had without waiting on the stream.
    ready: Option<Arc<AtomicBool>>,
    /// Blocks allocated (not taken from the spares), for tests.
    #[cfg(test)]
    fresh: usize,
}

impl<R: Read> JsonlRows<R> {
    pub(crate) fn from_reader(path: &Path, reader: R) -> Self {
        JsonlRows {
            path: Arc::from(path),
            reader,
            block: Arc::new(Vec::new()),
            pos: 0,
            line: 0,
            eof: false,
            error: None,
            read: None,
            spare: Vec::new(),
            max_row: MAX_ROW_BYTES,
            skipped: None,
            ready: None,
            #[cfg(test)]
            fresh: 0,
        }
    }

    /// Reads the rows as a stream (see [`STREAM_BLOCK`]): what a pipe or
    /// standard input holds is split as soon as it holds a whole line,
    /// where a file's block is filled first. The flag returned says, after
    /// each line, whether the next one is already read (see
    /// [`Rows::would_wait`](super::Rows)).
    pub(crate) fn streaming(mut self) -> (Self, Arc<AtomicBool>) {
        let ready = Arc::new(AtomicBool::new(false));
        self.ready = Some(Arc::clone(&ready));
        (self, ready)
    }

    /// Reads up to `room` more bytes into `into`: a file's until they are
    /// read or the file ends (into spare capacity, without zeroing), a
    /// stream's what one read gives (see [`read_some`]).
    fn read_into(&mut self, into: &mut Vec<u8>, room: usize) -> std::io::Result<usize> {
        if self.ready.is_some() {
            read_some(&mut self.reader, into, room)
        } else {
            (&mut self.reader).take(room as u64).read_to_end(into)
        }
    }

    /// Adds every byte read to `read`, for progress. The rows count
    /// their own bytes so that they can read the file itself: through a
    /// wrapper that counted its reads, the standard library would zero
    /// each block before reading into it.
    pub(crate) fn counting(mut self, read: Arc<AtomicU64>) -> Self {
        self.read = Some(read);
        self
    }

    /// Sets the longest line read, for tests.
    #[cfg(test)]
    fn with_max_row(mut self, max_row: usize) -> Self {
        assert!(max_row >= BLOCK);
        self.max_row = max_row;
        self
    }

    /// Reads the next block: the unread tail of the current one, then
    /// bytes until the block is full and holds a whole line, or the file
    /// ends or fails. A line longer than the block doubles it, up to one
    /// byte more than the longest line allowed; a line longer still is
    /// skipped ([`JsonlRows::skip_line`]).
    fn refill(&mut self) {
        let tail = self.block.len() - self.pos;
        let block = if self.ready.is_some() { STREAM_BLOCK } else { BLOCK };
        let mut next = self.empty_block(block.max(tail * 2).min(self.max_row + 1).max(tail));
        next.extend_from_slice(&self.block[self.pos..]);
        let mut searched = 0;
        loop {
            if next.len() == next.capacity() {
                if memchr::memchr(b'\n', &next[searched..]).is_some() {
                    break;
                }
                if next.len() > self.max_row {
                    // `next` holds nothing but the start of one line.
                    // Reported before anything else is read: the line
                    // after it may be skipped too.
                    self.skipped = Some(self.skip_line(&mut next));
                    break;
                }
                searched = next.len();
                next.reserve_exact(next.len().min(self.max_row + 1 - next.len()));
            }
            let start = next.len();
            let room = next.capacity() - start;
            let result = self.read_into(&mut next, room);
            if let Some(read) = &self.read {
                read.fetch_add((next.len() - start) as u64, Ordering::Relaxed);
            }
            match result {
                Ok(_) if next.len() == start => {
                    self.eof = true;
                    break;
                }
                // A stream's whole lines go on at once.
                Ok(_)
                    if self.ready.is_some() && memchr::memchr(b'\n', &next[start..]).is_some() =>
                {
                    break;
                }
                Ok(_) => {}
                Err(e) => {
                    // Whole lines read so far are kept; the partial one
                    // goes with the error, which comes after them.
                    next.truncate(memchr::memrchr(b'\n', &next).map_or(0, |i| i + 1));
                    self.error = Some(e);
                    self.eof = true;
                    break;
                }
            }
        }
        let done = std::mem::replace(&mut self.block, Arc::new(next));
        self.keep_spare(done);
        self.pos = 0;
    }

    /// Reads on past the end of a line too long to hold, keeping in
    /// `next` (which holds its start) only the bytes after its newline.
    /// Returns the line's length.
    fn skip_line(&mut self, next: &mut Vec<u8>) -> u64 {
        let mut length = next.len() as u64;
        loop {
            next.clear();
            let result = self.read_into(next, BLOCK);
            if let Some(read) = &self.read {
                read.fetch_add(next.len() as u64, Ordering::Relaxed);
            }
            match result {
                Ok(_) if next.is_empty() => {
                    self.eof = true;
                    return length;
                }
                Ok(_) => {
                    if let Some(i) = memchr::memchr(b'\n', next) {
                        next.drain(..=i);
                        return length + i as u64;
                    }
                    length += next.len() as u64;
                }
                Err(e) => {
                    next.clear();
                    self.error = Some(e);
                    self.eof = true;
                    return length;
                }
            }
        }
    }

    /// Keeps a block whose lines are handed on, for reuse once they are
    /// done with. When the spares are full, one that lines still hold goes
    /// first (its last holder frees it), else the oldest: the blocks kept
    /// are the ones soonest free. A block grown past [`BLOCK`] for a long
    /// line is kept only while no other such block is.
    fn keep_spare(&mut self, done: Arc<Vec<u8>>) {
        let grown = |b: &Arc<Vec<u8>>| b.capacity() > BLOCK;
        if done.capacity() == 0 || grown(&done) && self.spare.iter().any(grown) {
            return;
        }
        if self.spare.len() == SPARES {
            let held = self.spare.iter().position(|b| Arc::strong_count(b) > 1);
            self.spare.remove(held.unwrap_or(0));
        }
        self.spare.push(done);
    }

    /// An empty block with room for `capacity` bytes: a spare one no line
    /// holds any more, else a new one.
    fn empty_block(&mut self, capacity: usize) -> Vec<u8> {
        if let Some(i) = self.spare.iter().position(|b| Arc::strong_count(b) == 1)
            && let Ok(mut block) = Arc::try_unwrap(self.spare.remove(i))
        {
            block.clear();
            block.reserve_exact(capacity);
            return block;
        }
        #[cfg(test)]
        {
            self.fresh += 1;
        }
        Vec::with_capacity(capacity)
    }
}

impl<R: Read> Iterator for JsonlRows<R> {
    type Item = Pending;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(length) = self.skipped.take() {
                self.line += 1;
                return Some(Pending::Ready(Err(row_error(
                    &self.path,
                    self.line,
                    format!("{}; it was skipped", too_long("line", length, self.max_row)),
                ))));
            }
            let rest = &self.block[self.pos..];
            let end = match memchr::memchr(b'\n', rest) {
                Some(i) => self.pos + i,
                None if self.eof => {
                    if rest.is_empty() {
                        let e = self.error.take()?;
                        return Some(Pending::Ready(Err(row_error(
                            &self.path,
                            self.line + 1,
                            format!("read error: {e}"),
                        ))));
                    }
                    self.block.len()
                }
                None => {
                    self.refill();
                    continue;
                }
            };
            let mut start = self.pos;
            self.pos = (end + 1).min(self.block.len());
            self.line += 1;
            if self.line == 1 && self.block[start..end].starts_with(b"\xEF\xBB\xBF") {
                start += 3;
            }
            if self.block[start..end].iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            if let Some(ready) = &self.ready {
                ready.store(self.eof || has_row(&self.block[self.pos..]), Ordering::Relaxed);
            }
            return Some(Pending::Line {
                path: Arc::clone(&self.path),
                number: self.line,
                bytes: LineBytes { block: Arc::clone(&self.block), start, end },
            });
        }
    }
}

/// Whether `rest` holds a whole line that is not blank (blank lines are
/// skipped, so a row after them is not ready until its own end is read).
fn has_row(mut rest: &[u8]) -> bool {
    while let Some(i) = memchr::memchr(b'\n', rest) {
        if !rest[..i].iter().all(u8::is_ascii_whitespace) {
            return true;
        }
        rest = &rest[i + 1..];
    }
    false
}

/// One read of a stream into `into` (at most `room` and [`STREAM_BLOCK`]
/// bytes, zeroed first): what the stream has now, waiting only while it
/// has nothing.
fn read_some(reader: &mut impl Read, into: &mut Vec<u8>, room: usize) -> std::io::Result<usize> {
    let start = into.len();
    into.resize(start + room.min(STREAM_BLOCK), 0);
    let result = loop {
        match reader.read(&mut into[start..]) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            other => break other,
        }
    };
    into.truncate(start + *result.as_ref().unwrap_or(&0));
    result
}

/// One line of a block: a range of it, shared, not copied.
#[derive(Debug)]
pub(crate) struct LineBytes {
    block: Arc<Vec<u8>>,
    start: usize,
    end: usize,
}

impl std::ops::Deref for LineBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.block[self.start..self.end]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(text: &[u8]) -> Vec<Result<super::super::Row, super::super::RowError>> {
        JsonlRows::from_reader(Path::new("d.jsonl"), text).map(Pending::resolve).collect()
    }

    #[test]
    fn reads_objects_skips_blank_lines_and_keeps_going_after_bad_lines() {
        let r = rows(b"\xEF\xBB\xBF{\"a\":1}\n\n  \n{\"a\": oops}\r\n[1]\n{\"a\":3}\r\n{\"a\":4}");
        assert_eq!(r.len(), 5);
        let ok = r[0].as_ref().unwrap();
        assert_eq!((ok.number, &ok.value["a"], ok.text_cells), (1, &serde_json::json!(1), false));
        let e = r[1].as_ref().unwrap_err();
        assert_eq!(e.number, 4);
        assert!(e.to_string().starts_with("d.jsonl:4: invalid JSON"), "{e}");
        let e = r[2].as_ref().unwrap_err();
        assert_eq!(e.number, 5);
        assert!(e.message.contains("array, not an object"), "{e}");
        assert_eq!(r[3].as_ref().unwrap().number, 6);
        assert_eq!(r[3].as_ref().unwrap().value["a"], 3);
        assert_eq!(r[4].as_ref().unwrap().value["a"], 4);
    }

    #[test]
    fn a_line_over_the_limit_is_a_row_error_and_is_never_held() {
        let max = BLOCK + 100;
        let row = |n: usize| format!("{{\"a\":\"{}\"}}", "x".repeat(n - 8));
        // At the limit, one byte over, far over (no newline for several
        // blocks), and a last line over the limit with no newline.
        let lines = [row(max), row(max + 1), row(3 * BLOCK + 5), row(10), row(max + 1)];
        assert_eq!(lines[0].len(), max);
        let text = format!("{}\n{}\n{}\n{}\n{}", lines[0], lines[1], lines[2], lines[3], lines[4]);
        let read = Arc::new(AtomicU64::new(0));
        let mut biggest = 0;
        let mut got = Vec::new();
        let mut rows = JsonlRows::from_reader(Path::new("big.jsonl"), text.as_bytes())
            .with_max_row(max)
            .counting(Arc::clone(&read));
        while let Some(p) = rows.next() {
            biggest = biggest.max(rows.block.capacity());
            got.push(p.resolve().map(|r| r.number).map_err(|e| (e.number, e.message)));
        }
        assert!(biggest <= max + 1, "a block of {biggest} bytes");
        assert_eq!(read.load(Ordering::Relaxed), text.len() as u64);
        assert_eq!(
            got.len(),
            5,
            "{:?}",
            got.iter().map(|r| r.as_ref().map_err(|e| e.0)).collect::<Vec<_>>()
        );
        assert_eq!(got[0], Ok(1));
        assert_eq!(got[3], Ok(4));
        for (i, n) in [(1, max + 1), (2, 3 * BLOCK + 5), (4, max + 1)] {
            let (number, message) = got[i].clone().unwrap_err();
            assert_eq!(number, i as u64 + 1);
            let want = format!("the line is {n} bytes long, over the limit of {max} bytes");
            assert!(message.starts_with(&want), "{message}");
        }
        // Spares of more than half the limit, reused for a larger block,
        // never grow it past the limit (a line over it must be refused).
        let max3 = 3 * BLOCK;
        let sizes = [12 * BLOCK / 10, 9 * BLOCK / 10 - 1, 8 * BLOCK / 10 - 2, 31 * BLOCK / 10, 10];
        let text: String = sizes.iter().map(|&n| row(n) + "\n").collect();
        let mut rows =
            JsonlRows::from_reader(Path::new("big.jsonl"), text.as_bytes()).with_max_row(max3);
        let mut results = Vec::new();
        while let Some(p) = rows.next() {
            assert!(
                rows.block.capacity() <= max3 + 1,
                "a block of {} bytes",
                rows.block.capacity()
            );
            results.push(p.resolve().is_ok());
        }
        assert_eq!(results, [true, true, true, false, true]);
    }

    #[test]
    fn blocks_are_reused_while_the_runner_holds_three_batches_of_lines() {
        // 60 lines of a quarter block: 15 blocks' worth. Lines are held
        // 14 at a time (three and a half blocks), as the runner holds up
        // to three batches and the chunk being read.
        let row = format!("{{\"a\":\"{}\"}}\n", "x".repeat(BLOCK / 4 - 10));
        let text = row.repeat(60);
        let mut rows = JsonlRows::from_reader(Path::new("d.jsonl"), text.as_bytes());
        let mut held = std::collections::VecDeque::new();
        let mut count = 0;
        for p in rows.by_ref() {
            held.push_back(p);
            if held.len() > 14 {
                held.pop_front();
            }
            count += 1;
        }
        assert_eq!(count, 60);
        assert!(rows.fresh <= 6, "{} of 16 blocks allocated", rows.fresh);
    }

    #[test]
    fn invalid_utf8_is_a_row_error() {
        let r = rows(b"{\"a\":\"\xff\"}\n{\"a\":2}\n");
        assert!(r[0].as_ref().unwrap_err().message.contains("UTF-8"));
        assert_eq!(r[1].as_ref().unwrap().value["a"], 2);
    }

    /// A reader that gives one part a read and counts its reads.
    struct Parts(std::collections::VecDeque<&'static [u8]>, usize);
    impl Read for Parts {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.1 += 1;
            let Some(part) = self.0.pop_front() else { return Ok(0) };
            buf[..part.len()].copy_from_slice(part);
            Ok(part.len())
        }
    }

    #[test]
    fn a_stream_gives_each_line_once_it_is_whole_without_reading_on() {
        let parts = || Parts([&b"{\"a\":1}\n{\"a\""[..], b":2}\n", b"{\"a\":3}\n"].into(), 0);
        let (mut rows, ready) = JsonlRows::from_reader(Path::new("-"), parts()).streaming();
        let Some(Pending::Line { number: 1, bytes, .. }) = rows.next() else { panic!() };
        assert_eq!(&*bytes, b"{\"a\":1}");
        assert_eq!(rows.reader.1, 1, "the first line is handed on after one read");
        assert!(!ready.load(Ordering::Relaxed), "the next line is not whole yet");
        let Some(Pending::Line { number: 2, bytes, .. }) = rows.next() else { panic!() };
        assert_eq!(&*bytes, b"{\"a\":2}");
        assert_eq!(rows.reader.1, 2, "the second once its end came");
        assert_eq!(rows.count(), 1);
        // Blank lines after a row do not make the next row ready.
        let blank = Parts([&b"{\"a\":1}\n\r\n\n"[..], b"{\"a\":2}\n"].into(), 0);
        let (mut rows, ready) = JsonlRows::from_reader(Path::new("-"), blank).streaming();
        assert!(rows.next().is_some());
        assert!(!ready.load(Ordering::Relaxed), "only blank lines are read after row 1");
        assert!(has_row(b"\n \n{}\n") && !has_row(b"\n \r\n{}") && !has_row(b""));
        // A file's block is filled first.
        let mut rows = JsonlRows::from_reader(Path::new("f"), parts());
        assert!(rows.next().is_some());
        assert!(rows.reader.1 >= 4, "read to the end: {} reads", rows.reader.1);
    }

    #[test]
    fn lines_across_blocks_and_longer_than_a_block() {
        let long = format!("{{\"a\":\"{}\"}}", "x".repeat(BLOCK * 2 + 7));
        let mut text = String::new();
        let mut expected = Vec::new();
        // Long enough for several blocks before and after the long line.
        for i in 0..60_000 {
            let line = if i == 7_000 {
                long.clone()
            } else {
                format!("{{\"a\":{i},\"pad\":\"{}\"}}", "y".repeat(i % 700))
            };
            text.push_str(&line);
            text.push('\n');
            expected.push(line);
        }
        // Read in small pieces, as a pipe would deliver them.
        struct Trickle<'a>(&'a [u8]);
        impl Read for Trickle<'_> {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                let n = buf.len().min(self.0.len()).min(65_521);
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        // Each line dropped as soon as it is checked (so blocks are
        // reused), then every line held to the end (so none can be); read
        // as a file and as a stream.
        for (hold, stream) in [(false, false), (true, false), (false, true), (true, true)] {
            let mut held = Vec::new();
            let mut count = 0;
            let rows = JsonlRows::from_reader(Path::new("t"), Trickle(text.as_bytes()));
            let rows = if stream { rows.streaming().0 } else { rows };
            for (i, p) in rows.enumerate() {
                let Pending::Line { number, bytes, .. } = p else { panic!("{i}: not a line") };
                assert_eq!(number, i as u64 + 1);
                assert!(*bytes == *expected[i].as_bytes(), "line {number}");
                count += 1;
                if hold {
                    held.push(bytes);
                }
            }
            assert_eq!(count, expected.len());
            for (bytes, want) in held.iter().zip(&expected) {
                assert!(**bytes == *want.as_bytes());
            }
        }
    }

    #[test]
    fn a_read_error_is_one_row_error_after_the_good_lines() {
        struct Failing(usize);
        impl Read for Failing {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                if self.0 == 0 {
                    return Err(std::io::Error::other("disk on fire"));
                }
                self.0 -= 1;
                let line = b"{\"a\":1}\n";
                buf[..line.len()].copy_from_slice(line);
                Ok(line.len())
            }
        }
        let r: Vec<_> =
            JsonlRows::from_reader(Path::new("t"), Failing(3)).map(Pending::resolve).collect();
        assert_eq!(r.len(), 4);
        assert!(r[..3].iter().all(Result::is_ok));
        assert!(r[3].as_ref().unwrap_err().message.contains("disk on fire"));
    }

    #[test]
    fn deep_line_parses() {
        let depth = 20_000;
        let text = format!("{{\"a\":{}1{}}}\n", "[".repeat(depth), "]".repeat(depth));
        let r = rows(text.as_bytes());
        assert!(r[0].is_ok());
        for row in r.into_iter().flatten() {
            crate::json::drop_deep(row.value);
        }
    }
}
