//! Request settings a server refuses. OpenAI's reasoning models answer
//! 400 to `max_tokens` (they take `max_completion_tokens`) and to any
//! `temperature` but their default; some servers refuse `seed`. A judge
//! learns each refusal once, from the error body, and from then on sends
//! what the server takes: the refused request is sent again at once.

use std::sync::atomic::Ordering;

use serde_json::{Map, Value};

use super::Judge;

/// One setting a judge sends differently because its server refused it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Adaptation {
    /// `max_tokens` is sent as `max_completion_tokens`.
    MaxCompletionTokens,
    /// `temperature` is left out: the model uses its own default.
    NoTemperature,
    /// `seed` is left out.
    NoSeed,
}

impl Adaptation {
    const ALL: [Adaptation; 3] =
        [Adaptation::MaxCompletionTokens, Adaptation::NoTemperature, Adaptation::NoSeed];

    fn bit(self) -> u8 {
        match self {
            Adaptation::MaxCompletionTokens => 1,
            Adaptation::NoTemperature => 2,
            Adaptation::NoSeed => 4,
        }
    }

    /// The request field the server refused.
    fn parameter(self) -> &'static str {
        match self {
            Adaptation::MaxCompletionTokens => "max_tokens",
            Adaptation::NoTemperature => "temperature",
            Adaptation::NoSeed => "seed",
        }
    }

    /// What the judge does instead, as the run's summary says it.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Adaptation::MaxCompletionTokens => {
                "the server refused max_tokens: sent as max_completion_tokens"
            }
            Adaptation::NoTemperature => {
                "the model refused the temperature: left out, the model's default used \
                 (replies are not deterministic without a seed, and are cached only with \
                 cache_nondeterministic)"
            }
            Adaptation::NoSeed => "the server refused seed: left out",
        }
    }

    /// The adaptation an error body asks for: it names one of the
    /// settings `sent` holds as unsupported. OpenAI's form is
    /// `{"error": {"param": "max_tokens", "code": "unsupported_parameter",
    /// "message": "Unsupported parameter: 'max_tokens' is not supported with
    /// this model. Use 'max_completion_tokens' instead."}}`; other servers
    /// only say it in words (`'seed'`, `"seed"` or `` `seed` `` with
    /// "unsupported", "not supported", "not permitted", ...). A value out
    /// of range ("temperature must be between 0 and 2") is not a refusal.
    pub(crate) fn for_refusal(error_body: &str, sent: &Value) -> Option<Adaptation> {
        let v = serde_json::from_str::<Value>(error_body).ok();
        let error = v.as_ref().map(|v| v.get("error").unwrap_or(v));
        let field = |k: &str| error.and_then(|e| e.get(k)).and_then(Value::as_str);
        let lower = error_body.to_ascii_lowercase();
        let refusal = matches!(field("code"), Some("unsupported_parameter" | "unsupported_value"))
            || [
                "unsupported",
                "not supported",
                "does not support",
                "not permitted",
                "not allowed",
                "unrecognized",
                "unknown parameter",
                "extra inputs",
            ]
            .iter()
            .any(|w| lower.contains(w));
        if !refusal {
            return None;
        }
        Adaptation::ALL.into_iter().find(|a| {
            let p = a.parameter();
            sent.get(p).is_some()
                && (field("param") == Some(p)
                    || ['\'', '"', '`'].iter().any(|q| lower.contains(&format!("{q}{p}{q}"))))
        })
    }
}

impl Judge {
    /// The settings this judge sends differently, in a fixed order.
    pub(crate) fn adaptations(&self) -> Vec<Adaptation> {
        let bits = self.adapted.load(Ordering::Relaxed);
        Adaptation::ALL.into_iter().filter(|a| bits & a.bit() != 0).collect()
    }

    /// Learns `a`: later requests are sent without the refused setting.
    pub(crate) fn adapt(&self, a: Adaptation) {
        self.adapted.fetch_or(a.bit(), Ordering::Relaxed);
    }

    /// The judge's sampling settings as its server takes them, added to
    /// `body`.
    pub(super) fn add_settings(&self, body: &mut Map<String, Value>) {
        let bits = self.adapted.load(Ordering::Relaxed);
        let on = |a: Adaptation| bits & a.bit() != 0;
        if !on(Adaptation::NoTemperature) {
            body.insert("temperature".into(), Value::from(self.config.temperature));
        }
        if let Some(n) = self.config.max_tokens {
            let field = if on(Adaptation::MaxCompletionTokens) {
                "max_completion_tokens"
            } else {
                "max_tokens"
            };
            body.insert(field.into(), Value::from(n));
        }
        if let Some(s) = self.config.seed.filter(|_| !on(Adaptation::NoSeed)) {
            body.insert("seed".into(), Value::from(s));
        }
    }
}

/// Whether a request body asks for reproducible replies: temperature 0,
/// or a seed.
pub(super) fn deterministic(body: &Value) -> bool {
    body.get("temperature").and_then(Value::as_f64) == Some(0.0) || body.get("seed").is_some()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn sent() -> Value {
        json!({"model": "m", "temperature": 0.0, "max_tokens": 50, "seed": 7})
    }

    #[test]
    fn refusals_are_read_from_openai_errors_and_from_words() {
        let openai_max = r#"{"error": {"message": "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", "type": "invalid_request_error", "param": "max_tokens", "code": "unsupported_parameter"}}"#;
        let openai_temp = r#"{"error": {"message": "Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.", "type": "invalid_request_error", "param": "temperature", "code": "unsupported_value"}}"#;
        let pydantic = r#"{"detail": [{"type": "extra_forbidden", "loc": ["body", "seed"], "msg": "Extra inputs are not permitted", "input": 7}]}"#;
        let cases = [
            (openai_max, Some(Adaptation::MaxCompletionTokens)),
            (openai_temp, Some(Adaptation::NoTemperature)),
            (pydantic, Some(Adaptation::NoSeed)),
            ("seed: `seed` is not supported by this backend", Some(Adaptation::NoSeed)),
            // A value out of range is the suite's to fix, not the judge's.
            (
                r#"{"error": {"message": "'max_tokens' is too large: 100000. This model supports at most 16384 completion tokens.", "param": "max_tokens", "code": "invalid_value"}}"#,
                None,
            ),
            (
                r#"{"error": {"message": "temperature must be between 0 and 2", "param": "temperature"}}"#,
                None,
            ),
            // Refusing what was not sent, or something else, teaches nothing.
            (
                r#"{"error": {"message": "Unsupported parameter: 'tools'", "param": "tools", "code": "unsupported_parameter"}}"#,
                None,
            ),
            ("context length exceeded", None),
        ];
        for (body, want) in cases {
            assert_eq!(Adaptation::for_refusal(body, &sent()), want, "{body}");
        }
        let without_seed = json!({"model": "m", "max_tokens": 50});
        assert_eq!(Adaptation::for_refusal(pydantic, &without_seed), None);
        // 'max_tokens' is not read out of 'max_completion_tokens'.
        let other = r#"{"error": {"message": "Unsupported parameter: 'max_completion_tokens'"}}"#;
        assert_eq!(Adaptation::for_refusal(other, &sent()), None);
    }

    #[test]
    fn determinism_is_read_from_the_body_sent() {
        assert!(deterministic(&sent()));
        assert!(deterministic(&json!({"temperature": 0})));
        assert!(deterministic(&json!({"temperature": 0.7, "seed": 1})));
        assert!(!deterministic(&json!({"max_tokens": 5})));
        assert!(!deterministic(&json!({"temperature": 0.7})));
    }
}
