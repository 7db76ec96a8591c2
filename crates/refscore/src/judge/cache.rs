//! The persistent reply cache: an SQLite file (WAL, safe for two runs at
//! once), keyed by a SHA-256 of everything that determines a reply (the
//! base URL and the full request body: model, messages with the filled
//! template, tools and choices, temperature, seed, token limit). Headers,
//! and so the API key, are not part of the key and never stored.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, params};
use sha2::{Digest, Sha256};

/// The schema version this code writes.
const SCHEMA_VERSION: i64 = 1;

/// A cache that could not be opened or used.
#[derive(Debug, thiserror::Error)]
#[error("judge cache {}: {message}", path.display())]
pub struct CacheError {
    /// The cache file.
    pub path: PathBuf,
    /// What went wrong.
    pub message: String,
}

/// The reply cache.
#[derive(Debug)]
pub struct Cache {
    path: PathBuf,
    conn: Mutex<Connection>,
    /// Replies not written yet: written together, one transaction per
    /// [`WRITE_BATCH`], and when the cache is dropped.
    pending: Mutex<Vec<Pending>>,
}

/// Replies written in one transaction (a transaction per reply cost about
/// as much as the request itself against a fast server).
const WRITE_BATCH: usize = 64;

/// A reply waiting to be written: key, model, reply, time.
type Pending = (String, String, String, i64);

impl Cache {
    /// Opens (creating when needed, with its folder) the cache at `path`.
    ///
    /// # Errors
    /// The folder or file cannot be created, or is not a cache.
    pub fn open(path: &Path) -> Result<Cache, CacheError> {
        let err = |m: String| CacheError { path: path.to_path_buf(), message: m };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| err(e.to_string()))?;
        }
        let conn = Connection::open(path).map_err(|e| err(e.to_string()))?;
        conn.busy_timeout(Duration::from_secs(10)).map_err(|e| err(e.to_string()))?;
        conn.pragma_update(None, "journal_mode", "WAL").map_err(|e| err(e.to_string()))?;
        conn.pragma_update(None, "synchronous", "NORMAL").map_err(|e| err(e.to_string()))?;
        let version: i64 = conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .map_err(|e| err(e.to_string()))?;
        if version > SCHEMA_VERSION {
            return Err(err(format!(
                "written by a newer refscore (schema {version}, this one knows {SCHEMA_VERSION})"
            )));
        }
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS judge_replies (
                 key TEXT PRIMARY KEY,
                 model TEXT NOT NULL,
                 reply TEXT NOT NULL,
                 created_at INTEGER NOT NULL
             );",
        )
        .map_err(|e| err(e.to_string()))?;
        conn.pragma_update(None, "user_version", SCHEMA_VERSION).map_err(|e| err(e.to_string()))?;
        Ok(Cache {
            path: path.to_path_buf(),
            conn: Mutex::new(conn),
            pending: Mutex::new(Vec::new()),
        })
    }

    /// The cache file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The key of a request: SHA-256 of the base URL and the body as
    /// serialised (object keys sorted).
    pub fn key(base_url: &str, body: &serde_json::Value) -> String {
        let mut h = Sha256::new();
        h.update(base_url.as_bytes());
        h.update([0u8]);
        h.update(serde_json::to_string(body).unwrap_or_default().as_bytes());
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The stored reply, if any. A failed read is a miss.
    pub fn get(&self, key: &str) -> Option<String> {
        {
            let pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some((_, _, reply, _)) = pending.iter().rev().find(|p| p.0 == key) {
                return Some(reply.clone());
            }
        }
        let conn = self.conn.lock().unwrap_or_else(PoisonError::into_inner);
        conn.query_row("SELECT reply FROM judge_replies WHERE key = ?1", params![key], |r| r.get(0))
            .optional()
            .ok()
            .flatten()
    }

    /// Stores a reply (replacing an older one).
    ///
    /// # Errors
    /// The write failed (the disk is full, the file is locked too long).
    pub fn put(&self, key: &str, model: &str, reply: &str) -> Result<(), CacheError> {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
        let batch = {
            let mut pending = self.pending.lock().unwrap_or_else(PoisonError::into_inner);
            pending.push((key.to_owned(), model.to_owned(), reply.to_owned(), now));
            if pending.len() < WRITE_BATCH {
                return Ok(());
            }
            std::mem::take(&mut *pending)
        };
        self.write(&batch)
    }

    /// Writes every reply not written yet.
    ///
    /// # Errors
    /// The write failed.
    pub fn flush(&self) -> Result<(), CacheError> {
        let batch =
            std::mem::take(&mut *self.pending.lock().unwrap_or_else(PoisonError::into_inner));
        if batch.is_empty() { Ok(()) } else { self.write(&batch) }
    }

    /// Writes replies in one transaction.
    fn write(&self, batch: &[Pending]) -> Result<(), CacheError> {
        let err =
            |e: rusqlite::Error| CacheError { path: self.path.clone(), message: e.to_string() };
        let conn = self.conn.lock().unwrap_or_else(PoisonError::into_inner);
        let tx = conn.unchecked_transaction().map_err(err)?;
        for (key, model, reply, at) in batch {
            tx.execute(
                "INSERT OR REPLACE INTO judge_replies (key, model, reply, created_at) VALUES (?1, ?2, ?3, ?4)",
                params![key, model, reply, at],
            )
            .map_err(err)?;
        }
        tx.commit().map_err(err)
    }

    /// Number of stored replies (written or not yet).
    pub fn len(&self) -> usize {
        let _ = self.flush();
        let conn = self.conn.lock().unwrap_or_else(PoisonError::into_inner);
        conn.query_row("SELECT COUNT(*) FROM judge_replies", [], |r| r.get::<_, i64>(0))
            .map_or(0, |n| usize::try_from(n).unwrap_or(0))
    }

    /// Whether nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Drop for Cache {
    fn drop(&mut self) {
        // A reply that cannot be stored costs a request on the next run.
        let _ = self.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn stores_and_reads_back_across_opens() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/cache.db");
        let k = Cache::key("http://x/v1", &json!({"model": "m", "messages": []}));
        assert_eq!(k.len(), 64);
        assert_ne!(k, Cache::key("http://y/v1", &json!({"model": "m", "messages": []})));
        {
            let c = Cache::open(&path).unwrap();
            assert!(c.get(&k).is_none());
            c.put(&k, "m", "{\"a\":1}").unwrap();
        }
        let c = Cache::open(&path).unwrap();
        assert_eq!(c.get(&k).as_deref(), Some("{\"a\":1}"));
        assert_eq!(c.len(), 1);
        // A second handle (another run) sees the same file.
        let other = Cache::open(&path).unwrap();
        other.put("k2", "m", "x").unwrap();
        // Seen by its writer at once, by others once written.
        assert_eq!(other.get("k2").as_deref(), Some("x"));
        assert!(c.get("k2").is_none());
        other.flush().unwrap();
        assert_eq!(c.get("k2").as_deref(), Some("x"));
        // A full batch is written without a flush.
        for i in 0..WRITE_BATCH {
            other.put(&format!("b{i}"), "m", "y").unwrap();
        }
        assert_eq!(c.get("b0").as_deref(), Some("y"));
    }

    #[test]
    fn a_file_that_is_not_a_cache_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.db");
        std::fs::write(&path, "not sqlite at all, just text that is long enough to matter")
            .unwrap();
        assert!(Cache::open(&path).is_err());
    }
}
