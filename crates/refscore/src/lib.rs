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
//! let score = &metric.evaluate(&input).unwrap().scores[0];
//! assert_eq!(score.score, Some(1.0));
//! assert_eq!(score.label.as_deref(), Some("mismatch"));
//! assert_eq!(score.details[0].check, "json_path.$.total");
//! ```

#![forbid(unsafe_code)]

pub mod dataset;
pub mod decode;
pub mod detail;
pub mod duplicate_keys;
pub mod engine;
pub mod error;
pub mod evaluator;
pub mod extract;
pub mod fast_json;
mod fx;
pub mod history;
pub mod json;
pub mod judge;
pub mod limits;
pub mod mapping;
pub mod metric_result;
pub mod metrics;
pub mod normalize;
pub mod number;
pub mod path;
pub mod report;
pub mod row_score;
pub mod runner;
pub mod schema;
pub mod score;
mod score_line;
pub mod suite;
pub mod summary;
pub mod text;
pub mod tree;
pub mod unicode_class;

pub use dataset::{DatasetError, DatasetFormat, Row, RowError, Rows};
pub use detail::{Check, Detail, Outcome, Verdict};
pub use error::{ConfigError, EvalError};
pub use evaluator::{EvalInput, Evaluation, Evaluator, InputSpec, InputType};
pub use mapping::{InputMapping, MappingError};
pub use metric_result::MetricResult;
pub use runner::{
    BatchRecord, BatchSink, Execution, LineFormat, PriorBatch, Progress, Recording, Resume,
    RowResult, RunError, RunOptions, Status, run, run_recorded, run_rows,
};
pub use score::{Direction, Kind, Score};
pub use suite::{Suite, SuiteEvaluator, SuiteFormat};
pub use summary::{
    EvaluatorSummary, FieldStat, Gate, GateCheck, GateResult, RowScoreSummary, RunSummary,
    ScoreSummary,
};
