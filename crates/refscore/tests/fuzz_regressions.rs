//! Inputs that made a cargo-fuzz target fail, replayed: every file under
//! the repository's `fuzz/regressions/<target>/` is a trial of its own,
//! named `fuzz_regressions::<target>::<file>`, that runs the target's own
//! body (`fuzz/src/lib.rs`, included here) and fails where the target
//! fails: on a panic, a non-finite score, a score line `serde_json` would
//! write otherwise, tallies printed past their bound, or field tallies
//! that change a score.

use std::path::{Path, PathBuf};

use libtest_mimic::{Failed, Trial};
use refscore::dataset::DatasetFormat;

/// The fuzz targets' bodies, shared with `fuzz/` (a package of its own
/// outside the workspace).
#[allow(dead_code, unreachable_pub)]
#[path = "../../../fuzz/src/lib.rs"]
mod refscore_fuzz;

fn folder() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/regressions")
}

/// One trial per kept input.
pub(crate) fn trials() -> Vec<Trial> {
    let mut trials = Vec::new();
    let Ok(targets) = std::fs::read_dir(folder()) else { return trials };
    let mut targets: Vec<PathBuf> = targets.filter_map(|e| e.ok().map(|e| e.path())).collect();
    targets.sort();
    for dir in targets {
        let target = dir.file_name().unwrap_or_default().to_string_lossy().into_owned();
        let Ok(files) = std::fs::read_dir(&dir) else { continue };
        let mut files: Vec<PathBuf> = files.filter_map(|e| e.ok().map(|e| e.path())).collect();
        files.sort();
        for file in files {
            let name = file.file_name().unwrap_or_default().to_string_lossy().into_owned();
            let target = target.clone();
            trials.push(Trial::test(format!("fuzz_regressions::{target}::{name}"), move || {
                let bytes = std::fs::read(&file).map_err(|e| Failed::from(e.to_string()))?;
                replay(&target, &bytes)
            }));
        }
    }
    trials
}

/// Runs target `target`'s body on `data`; a panic is the trial's failure.
fn replay(target: &str, data: &[u8]) -> Result<(), Failed> {
    let dir = tempfile::tempdir().map_err(|e| Failed::from(e.to_string()))?;
    let run: Box<dyn FnOnce() + std::panic::UnwindSafe + '_> = match target {
        "parse" => Box::new(|| refscore_fuzz::parse(data)),
        "json_metrics" => Box::new(|| {
            let parts = refscore_fuzz::split(data, 2);
            refscore_fuzz::score_pair(parts[0], parts[1]);
        }),
        "json_match_rules" => Box::new(|| refscore_fuzz::json_match_rules(data)),
        "dataset_jsonl" => Box::new(|| {
            for format in [DatasetFormat::Jsonl, DatasetFormat::JsonArray] {
                refscore_fuzz::dataset(data, format);
            }
        }),
        "dataset_csv" => Box::new(|| refscore_fuzz::dataset(data, DatasetFormat::Csv)),
        "dataset_parquet" => {
            let path = dir.path().join("input.parquet");
            std::fs::write(&path, data).map_err(|e| Failed::from(e.to_string()))?;
            Box::new(move || refscore_fuzz::parquet_file(&path))
        }
        other => return Err(Failed::from(format!("no replay for fuzz target `{other}`"))),
    };
    std::panic::catch_unwind(run).map_err(|panic| {
        let why = panic
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
            .unwrap_or_default();
        Failed::from(format!("{target}: {why}"))
    })
}
