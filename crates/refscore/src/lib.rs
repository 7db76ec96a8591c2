//! Score LLM outputs against golden references, fast and explainably.
//!
//! refscore compares a model's output with the reference a correct run
//! should produce, and tells "one field wrong" apart from "everything
//! wrong". Every metric is an [`Evaluator`] returning [`Score`]s with
//! assertion-level [`Detail`]s; the JSON metrics are configurations of one
//! comparison [`engine`].
//!
//! ```
//! use refscore::{metrics, EvalInput};
//! use serde_json::{json, Map};
//!
//! let metric = metrics::build("json_distance", &Map::new(), &Default::default()).unwrap();
//! let input = EvalInput::pair(
//!     json!({"vendor": "ACME", "total": 12.5}),
//!     json!({"vendor": "ACME", "total": 12.0}),
//! );
//! let score = &metric.evaluate(&input).unwrap()[0];
//! assert_eq!(score.score, Some(1.0));
//! assert_eq!(score.label.as_deref(), Some("mismatch"));
//! assert_eq!(score.details[0].check, "json_path.$.total");
//! ```

#![forbid(unsafe_code)]

pub mod compare;
pub mod dataset;
pub mod detail;
pub mod engine;
pub mod error;
pub mod evaluator;
pub mod extract;
pub mod json;
pub mod mapping;
pub mod metrics;
pub mod number;
pub mod path;
pub mod runner;
pub mod score;
pub mod suite;
pub mod summary;
pub mod text;

pub use dataset::{DatasetError, DatasetFormat, Row, RowError, Rows};
pub use detail::{Detail, Outcome};
pub use error::{ConfigError, EvalError};
pub use evaluator::{EvalInput, Evaluator, InputSpec};
pub use mapping::{InputMapping, MappingError};
pub use runner::{Execution, Progress, RowResult, RunError, RunOptions, Status, run};
pub use score::{Direction, Kind, Score};
pub use suite::{Suite, SuiteEvaluator, SuiteFormat};
pub use summary::{EvaluatorSummary, FieldStat, Gate, GateCheck, GateResult, RunSummary};
