//! What is known about a run besides its scores: where it came from and
//! where it ran (`run` in `summary.json`, a row of the store's `runs`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A run's lifecycle state in the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    /// Started and not finished: running now, or interrupted (resume it).
    Running,
    /// Every row was read and evaluated.
    Completed,
    /// Stopped by the user before the end (resume it).
    Cancelled,
    /// Stopped by an error (writing results, say).
    Failed,
}

impl RunStatus {
    /// The lowercase name stored and printed.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Running => "running",
            RunStatus::Completed => "completed",
            RunStatus::Cancelled => "cancelled",
            RunStatus::Failed => "failed",
        }
    }

    /// The status of a stored name.
    pub fn parse(s: &str) -> Option<RunStatus> {
        Some(match s {
            "running" => RunStatus::Running,
            "completed" => RunStatus::Completed,
            "cancelled" => RunStatus::Cancelled,
            "failed" => RunStatus::Failed,
            _ => return None,
        })
    }
}

/// The git state of the folder a run was started in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct GitInfo {
    /// The commit checked out.
    pub commit: String,
    /// The branch, when not detached.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// Whether tracked files had uncommitted changes.
    #[serde(default)]
    pub dirty: bool,
}

/// Where a run came from (`run` in `summary.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RunInfo {
    /// The run's id in the store; `None` when it was not recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<i64>,
    /// The store it was recorded in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store: Option<String>,
    /// The suite's name (its `name`, else the file's stem).
    pub suite: String,
    /// The suite file as given.
    pub suite_path: String,
    /// BLAKE3 of the suite file's bytes; empty when the suite was not a
    /// regular file (see [`hash_input`](crate::history::hash_input)).
    pub suite_hash: String,
    /// The dataset file.
    pub dataset: String,
    /// BLAKE3 of the dataset file's bytes; empty when the dataset was read
    /// from a pipe, `/dev/stdin` or a device, which is read once, by the run
    /// (see [`hash_input`](crate::history::hash_input)).
    pub dataset_hash: String,
    /// Git commit and branch, when run inside a repository.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git: Option<GitInfo>,
    /// Labels from the suite's `tags` and `--tag key=value`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tags: BTreeMap<String, String>,
    /// Links from the suite's `links` (label → address).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub links: BTreeMap<String, String>,
    /// When the run started (RFC 3339, UTC).
    pub started_at: String,
    /// When it ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<String>,
    /// The refscore version that ran it.
    pub version: String,
    /// The row limit it was started with (`--limit`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u64>,
    /// The output folder its files were written to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// How many times it was resumed.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub resumed: u32,
}

impl RunInfo {
    /// The input the run recorded without a hash, `"suite"` or
    /// `"dataset"`: it was read from a pipe or a device (see
    /// [`hash_input`](crate::history::hash_input)), so the run cannot be
    /// resumed and its documents cannot be read again.
    pub fn unhashed_input(&self) -> Option<&'static str> {
        [("suite", &self.suite_hash), ("dataset", &self.dataset_hash)]
            .into_iter()
            .find_map(|(what, hash)| hash.is_empty().then_some(what))
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// Seconds since 1970 as RFC 3339 in UTC: `2026-11-23T02:32:35Z`.
pub fn rfc3339(unix_secs: u64) -> String {
    let (y, m, d, hh, mm, ss) = civil(unix_secs);
    format!("{y:04}-{m:02}-{d:02}T{hh:02}:{mm:02}:{ss:02}Z")
}

/// The current time as RFC 3339 in UTC.
pub fn now_rfc3339() -> String {
    rfc3339(unix_now())
}

/// Seconds since 1970, now.
pub fn unix_now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// `YYYYMMDD-HHMMSS` in UTC, for folder names.
pub fn compact_timestamp(unix_secs: u64) -> String {
    let (y, m, d, hh, mm, ss) = civil(unix_secs);
    format!("{y:04}{m:02}{d:02}-{hh:02}{mm:02}{ss:02}")
}

/// Civil date and time of a Unix time (Howard Hinnant's algorithm).
fn civil(secs: u64) -> (i64, i64, i64, u64, u64, u64) {
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d, rem / 3600, rem % 3600 / 60, rem % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_795_314_755), "2026-11-22T02:32:35Z");
        assert_eq!(compact_timestamp(951_782_400), "20000229-000000");
    }

    #[test]
    fn statuses_round_trip() {
        for s in [RunStatus::Running, RunStatus::Completed, RunStatus::Cancelled, RunStatus::Failed]
        {
            assert_eq!(RunStatus::parse(s.as_str()), Some(s));
        }
        assert_eq!(RunStatus::parse("paused"), None);
    }
}
