//! The BLAKE3 hash a run records of its suite and dataset files (and
//! checks again on `--resume` and in reports).
//!
//! A dataset of gigabytes takes a second or more to hash on one core,
//! before the first row is read; with more than one thread a large file is
//! hashed in blocks whose BLAKE3 tree is split over the threads (the same
//! hash: BLAKE3's tree does not depend on how it was computed).

use std::io::Read;
use std::path::Path;

/// Files smaller than this are hashed on the calling thread: starting
/// threads would cost more than they save.
const PARALLEL_FROM: u64 = 4 << 20;

/// The bytes read and hashed at once when hashing on several threads.
const BLOCK: usize = 8 << 20;

/// The bytes read and hashed at once on one thread: enough for BLAKE3's
/// SIMD lanes, small enough to stay in cache.
const ONE_THREAD_BLOCK: usize = 1 << 20;

/// The smallest block: a file that says it is shorter (a suite) takes a
/// block of its length, but not below this, so that one that reports 0
/// bytes or grows is not read a few bytes at a time.
const LEAST_BLOCK: usize = 64 << 10;

/// BLAKE3 of a file's bytes, hex. With `threads` above 1, a file of 4 MiB
/// or more is hashed on that many threads.
///
/// # Errors
/// The file cannot be read.
pub fn hash_file(path: &Path, threads: usize) -> std::io::Result<String> {
    let mut file = crate::limits::open_regular(path)?;
    let mut hasher = blake3::Hasher::new();
    // The file's length as it was opened (a file that grows is read to its
    // end all the same: the block only sizes the reads).
    let len = file.metadata().ok().map(|m| m.len());
    let large = len.is_some_and(|n| n >= PARALLEL_FROM);
    let pool = (threads > 1 && large).then(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("refscore-hash-{i}"))
            .build()
    });
    // A pool that cannot start leaves the hash to this thread. The file
    // is read straight into one block (a buffered reader in between copied
    // every byte twice: a 177 MB dataset took 45 ms on one thread, 40 now).
    let pool = pool.and_then(Result::ok);
    let most = if pool.is_some() { BLOCK } else { ONE_THREAD_BLOCK };
    let size = len.and_then(|n| usize::try_from(n).ok()).map_or(most, |n| n.saturating_add(1));
    let mut block = vec![0_u8; size.clamp(LEAST_BLOCK, most)];
    loop {
        let n = fill(&mut file, &mut block)?;
        if n == 0 {
            break;
        }
        let bytes = block.get(..n).unwrap_or_default();
        match &pool {
            Some(pool) => pool.install(|| hasher.update_rayon(bytes)),
            None => hasher.update(bytes),
        };
    }
    Ok(hasher.finalize().to_hex().to_string())
}

/// What a run records of an input file: its BLAKE3 (see [`hash_file`]), or
/// an empty string when the path is not a regular file. A pipe,
/// `/dev/stdin`, a shell's `<(...)` or a device is read once, by the run:
/// hashing it first would consume the rows the run must read (or, for an
/// endless device, never finish), and it could not be read again to check.
///
/// # Errors
/// The path does not exist, or a regular file cannot be read.
pub fn hash_input(path: &Path, threads: usize) -> std::io::Result<String> {
    if std::fs::metadata(path)?.is_file() { hash_file(path, threads) } else { Ok(String::new()) }
}

/// Reads into `block` until it is full or the file ends; the bytes read.
fn fill(file: &mut std::fs::File, block: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < block.len() {
        match file.read(block.get_mut(n..).unwrap_or_default()) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file's bytes: large enough to be hashed on several threads and
    /// spanning several blocks, with a last block that is not full.
    fn bytes(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i.wrapping_mul(2_654_435_761) >> 7) as u8).collect()
    }

    #[test]
    fn threads_give_the_hash_of_one() {
        let dir = tempfile::tempdir().unwrap();
        for len in [0, 1, 1025, PARALLEL_FROM as usize, 2 * BLOCK + 12_345] {
            let path = dir.path().join(format!("f{len}"));
            let data = bytes(len);
            std::fs::write(&path, &data).unwrap();
            let want = blake3::hash(&data).to_hex().to_string();
            for threads in [0, 1, 2, 3] {
                assert_eq!(hash_file(&path, threads).unwrap(), want, "{len} bytes, {threads}");
            }
        }
    }

    #[test]
    fn a_missing_file_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        assert!(hash_file(&dir.path().join("none"), 2).is_err());
        assert!(hash_input(&dir.path().join("none"), 2).is_err());
    }

    /// A device that never ends, or a folder, is refused at once, not read
    /// forever (a report of an artifact whose suite names `/dev/zero`).
    #[cfg(unix)]
    #[test]
    fn a_device_or_a_folder_is_refused_not_read() {
        let dir = tempfile::tempdir().unwrap();
        for path in [Path::new("/dev/zero"), dir.path()] {
            let e = hash_file(path, 2).unwrap_err();
            assert!(e.to_string().contains("not a regular file"), "{}: {e}", path.display());
        }
    }

    #[test]
    fn an_input_is_hashed_only_when_it_is_a_regular_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data.jsonl");
        std::fs::write(&path, b"{}\n").unwrap();
        assert_eq!(hash_input(&path, 1).unwrap(), blake3::hash(b"{}\n").to_hex().to_string());
        // A directory, and (where there is one) an endless device, are not
        // read: the call returns at once.
        assert_eq!(hash_input(dir.path(), 1).unwrap(), "");
        let zero = Path::new("/dev/zero");
        if zero.exists() {
            assert_eq!(hash_input(zero, 2).unwrap(), "");
        }
    }
}
