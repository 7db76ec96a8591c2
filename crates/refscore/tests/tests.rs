//! Integration tests: the data-driven case suite and property tests.

mod cases;
mod match_properties;
mod properties;
