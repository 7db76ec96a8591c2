//! Integration tests: the data-driven case suite, property tests, the
//! warnings of a resumed run and what a dataset's shape tells before its
//! rows are scored.
//!
//! One binary with its own harness ([`libtest_mimic`]): every case of
//! `tests/cases/*.json` is a trial of its own, named `file::case name`, so
//! that `cargo test -p refscore --test tests -- 'pizza'` runs one case and a
//! failure names it. Property tests run through proptest's [`TestRunner`],
//! one trial each.

mod cases;
mod dataset_checks;
mod fuzz;
mod fuzz_regressions;
mod match_properties;
mod properties;
mod resume_warnings;

use std::fmt::Debug;

use libtest_mimic::{Arguments, Failed, Trial};
use proptest::strategy::Strategy;
use proptest::test_runner::{Config, FileFailurePersistence, TestCaseResult, TestRunner};

fn main() {
    let args = Arguments::from_args();
    let mut trials = cases::trials();
    trials.extend(properties::trials());
    trials.extend(match_properties::trials());
    trials.extend(fuzz::trials());
    trials.extend(fuzz_regressions::trials());
    trials.extend(resume_warnings::trials());
    trials.extend(dataset_checks::trials());
    libtest_mimic::run(&args, trials).exit();
}

/// A plain test as a trial: it fails when `test` panics (an `assert!`).
pub(crate) fn plain(name: &str, test: fn()) -> Trial {
    Trial::test(name, move || {
        test();
        Ok(())
    })
}

/// A property test as a trial: the strategy `strategy()` makes runs through
/// proptest's [`TestRunner`] with `config`, replaying the seeds saved next
/// to `source_file` (as `proptest!` does) first. A failure, or a panic in
/// `test`, fails the trial with the reason and the minimal failing input.
///
/// The strategy is built inside the trial: boxed strategies are not `Send`.
pub(crate) fn property<S>(
    name: &'static str,
    source_file: &'static str,
    config: Config,
    strategy: fn() -> S,
    test: fn(S::Value) -> TestCaseResult,
) -> Trial
where
    S: Strategy + 'static,
    S::Value: Debug + 'static,
{
    Trial::test(name, move || {
        let config = Config {
            source_file: Some(source_file),
            test_name: Some(name),
            // `tests/NAME.proptest-regressions`, where `proptest!` kept them.
            failure_persistence: Some(Box::new(FileFailurePersistence::WithSource(
                "proptest-regressions",
            ))),
            ..config
        };
        let mut runner = TestRunner::new(config);
        runner.run(&strategy(), test).map_err(|e| Failed::from(format!("{e}\n{runner}")))
    })
}
