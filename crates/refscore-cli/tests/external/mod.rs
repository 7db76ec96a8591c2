//! The suites outside Rust, run by `cargo test` so that one command runs
//! every test: the Python package's pytest suite (built and installed into
//! its own venv by `crates/refscore-py/ci.sh`) and the HTML report in
//! headless Chromium (`tests/browser/run.sh`; screenshots in
//! `target/browser-report/`).
//!
//! They install what they need (pip packages; Debian's Chromium for the
//! browser tests) and take minutes; `REFSCORE_SKIP_EXTERNAL=1` skips them
//! for a quick local loop, and says so.

use std::path::Path;
use std::process::Command;

use super::root;

/// Runs a script of the project; fails with its output when it fails.
fn script(path: &Path) {
    if std::env::var_os("REFSCORE_SKIP_EXTERNAL").is_some() {
        eprintln!("REFSCORE_SKIP_EXTERNAL is set: {} skipped", path.display());
        return;
    }
    let out = Command::new("bash").arg(path).current_dir(root()).output().expect("bash runs");
    assert!(
        out.status.success(),
        "{} failed ({}):\n{}\n{}",
        path.display(),
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn python_package_pytest_suite() {
    script(&root().join("crates/refscore-py/ci.sh"));
}

#[test]
fn html_report_in_headless_chromium() {
    script(&root().join("crates/refscore-cli/tests/browser/run.sh"));
}
