//! Integration tests: the data-driven case suite and property tests.

mod cases;
mod properties;
