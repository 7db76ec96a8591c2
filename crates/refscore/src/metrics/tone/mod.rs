//! `tone` (stub).
use super::BuildContext;
use crate::error::{ConfigError, EvalError};
use crate::evaluator::{EvalInput, Evaluator, InputSpec};
use crate::score::Score;
use serde_json::{Map, Value};
/// Tone.
#[derive(Debug)]
pub struct Tone;
impl Tone {
    /// From options.
    pub fn from_options(_o: &Map<String, Value>, _c: &BuildContext) -> Result<Self, ConfigError> {
        Ok(Tone)
    }
}
impl Evaluator for Tone {
    fn name(&self) -> &str {
        "tone"
    }
    fn inputs(&self) -> &[InputSpec] {
        &[]
    }
    fn evaluate(&self, _i: &EvalInput) -> Result<Vec<Score>, EvalError> {
        Ok(vec![])
    }
}
