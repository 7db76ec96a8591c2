//! Request settings a server refuses. OpenAI's reasoning models answer
//! 400 to `max_tokens` (they take `max_completion_tokens`) and to any
//! `temperature` but their default; some servers refuse `seed`; older
//! reasoning models (`o1-mini`) refuse a `system` message. A judge
//! learns each refusal from the error body and from then on sends what the
//! server takes: the refused request is sent again at once.

use std::sync::atomic::Ordering;

use serde_json::{Map, Value};

use super::{Judge, StructuredMode};

/// Words that say a setting is refused, not merely out of range.
const REFUSALS: [&str; 15] = [
    "unsupported",
    "not supported",
    "does not support",
    "doesn't support",
    "do not support",
    "don't support",
    "not permitted",
    "not allowed",
    "unrecognized",
    "unrecognised",
    "unknown name",
    "unknown parameter",
    "unknown field",
    "extra inputs",
    "cannot find field",
];

/// How far apart (in bytes) a refusal word and the setting's name may be
/// in an error message.
const NEAR: usize = 48;

/// One setting a judge sends differently because its server refused it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Adaptation {
    /// `max_tokens` is sent as `max_completion_tokens`.
    MaxCompletionTokens,
    /// `temperature` is left out: the model uses its own default.
    NoTemperature,
    /// `seed` is left out.
    NoSeed,
    /// A `system` message is sent at the start of the first user message.
    NoSystemRole,
}

impl Adaptation {
    const ALL: [Adaptation; 4] = [
        Adaptation::MaxCompletionTokens,
        Adaptation::NoTemperature,
        Adaptation::NoSeed,
        Adaptation::NoSystemRole,
    ];

    /// Its bit in [`Judge`]'s set of learnt adaptations.
    pub(crate) fn bit(self) -> u8 {
        match self {
            Adaptation::MaxCompletionTokens => 1,
            Adaptation::NoTemperature => 2,
            Adaptation::NoSeed => 4,
            Adaptation::NoSystemRole => 8,
        }
    }

    /// The request field the server refused (for the system role: the
    /// role's name, refused as the value of a message's `role`).
    fn parameter(self) -> &'static str {
        match self {
            Adaptation::MaxCompletionTokens => "max_tokens",
            Adaptation::NoTemperature => "temperature",
            Adaptation::NoSeed => "seed",
            Adaptation::NoSystemRole => "system",
        }
    }

    /// Whether the request `sent` holds what this adaptation changes.
    fn was_sent(self, sent: &Value) -> bool {
        match self {
            Adaptation::NoSystemRole => system_message(sent).is_some(),
            _ => sent.get(self.parameter()).is_some(),
        }
    }

    /// What the judge does instead, as the run's summary says it;
    /// `seeded`: whether the judge still sends a seed.
    pub(crate) fn describe(self, seeded: bool) -> &'static str {
        match self {
            Adaptation::MaxCompletionTokens => {
                "the server refused max_tokens: sent as max_completion_tokens, which also \
                 counts the model's reasoning (raise max_tokens if replies come back empty, \
                 cut off at the limit)"
            }
            Adaptation::NoTemperature if seeded => {
                "the model refused the temperature: left out, the model's default used"
            }
            Adaptation::NoTemperature => {
                "the model refused the temperature: left out, the model's default used \
                 (replies are not deterministic without a seed, and are cached only with \
                 cache_nondeterministic)"
            }
            Adaptation::NoSeed => "the server refused seed: left out",
            Adaptation::NoSystemRole => {
                "the model refused the system role: the system message is sent at the start \
                 of the user message"
            }
        }
    }

    /// The adaptation an error body asks for: it refuses one of the
    /// settings `sent` holds.
    ///
    /// From a JSON body: OpenAI's `{"error": {"param": "max_tokens", "code":
    /// "unsupported_parameter" | "unsupported_value", ...}}`, or a
    /// FastAPI/pydantic `{"detail": [{"type": "extra_forbidden", "loc":
    /// ["body", "seed"], ...}]}`; else its messages (`error.message`,
    /// `message`, `detail`, `detail[].msg`, decoded) are read as words:
    /// the setting's name as a word of its own (`'seed'`, `seed=0`,
    /// `supplied: seed`) within a few words of "unsupported", "not
    /// supported", "not permitted", "unrecognized", "unknown name" and the
    /// like. A body that is not JSON is read as words whole. A value out
    /// of range ("temperature must be between 0 and 2", "'max_tokens' is
    /// too large") is not a refusal; nor is a name merely echoed in the
    /// body far from such a word (pydantic's `input_value={...}`).
    pub(crate) fn for_refusal(error_body: &str, sent: &Value) -> Option<Adaptation> {
        let sent_ones = || Adaptation::ALL.into_iter().filter(|a| a.was_sent(sent));
        let Ok(v) = serde_json::from_str::<Value>(error_body) else {
            return sent_ones().find(|a| a.named_in(error_body));
        };
        // Google's OpenAI-compatible endpoint wraps its error in a list.
        let v = match &v {
            Value::Array(items) => items.first().unwrap_or(&Value::Null),
            other => other,
        };
        let error = v.get("error").filter(|e| e.is_object()).unwrap_or(v);
        let str_of = |k: &str| error.get(k).and_then(Value::as_str);
        let details = v.get("detail").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
        let structured = |a: &Adaptation| {
            let p = a.parameter();
            let param = match a {
                // `messages[0].role`, with `system` in the message.
                Adaptation::NoSystemRole => {
                    str_of("param")
                        .is_some_and(|q| q.starts_with("messages[") && q.ends_with("].role"))
                        && str_of("message").is_some_and(|m| m.contains(p))
                }
                _ => str_of("param") == Some(p),
            };
            let openai = param
                && matches!(str_of("code"), Some("unsupported_parameter" | "unsupported_value"));
            let pydantic = details.iter().any(|d| {
                d.get("type").and_then(Value::as_str) == Some("extra_forbidden")
                    && d.get("loc").and_then(Value::as_array).and_then(|l| l.last())
                        == Some(&Value::from(p))
            });
            openai || pydantic
        };
        if let Some(a) = sent_ones().find(structured) {
            return Some(a);
        }
        let mut messages: Vec<&str> = ["message", "detail", "error"]
            .iter()
            .filter_map(|k| error.get(*k).or_else(|| v.get(*k)).and_then(Value::as_str))
            .collect();
        messages.extend(details.iter().filter_map(|d| d.get("msg").and_then(Value::as_str)));
        sent_ones().find(|a| messages.iter().any(|m| a.named_in(m)))
    }

    /// Whether an error message's words refuse this setting (the system
    /// role: `system` refused where the message speaks of a role).
    fn named_in(self, text: &str) -> bool {
        named_in_refusal(text, self.parameter())
            && (self != Adaptation::NoSystemRole || text.to_ascii_lowercase().contains("role"))
    }
}

/// The index of the request's `system` message, if it has one.
fn system_message(body: &Value) -> Option<usize> {
    let messages = body.get("messages")?.as_array()?;
    messages.iter().position(|m| m.get("role").and_then(Value::as_str) == Some("system"))
}

/// Moves a `system` message's text to the start of the first user
/// message after it (a text content, or a list of parts: a text part in
/// front); without a user message, the system message becomes one.
fn fold_system_message(body: &mut Map<String, Value>) {
    let Some(Value::Array(messages)) = body.get_mut("messages") else { return };
    let Some(at) =
        messages.iter().position(|m| m.get("role").and_then(Value::as_str) == Some("system"))
    else {
        return;
    };
    let system = messages.remove(at);
    let text = match system.get("content") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    };
    let user =
        messages[at..].iter_mut().find(|m| m.get("role").and_then(Value::as_str) == Some("user"));
    match user.and_then(|m| m.get_mut("content")) {
        Some(Value::String(content)) => *content = format!("{text}\n\n{content}"),
        Some(Value::Array(parts)) => {
            parts.insert(0, serde_json::json!({"type": "text", "text": text}))
        }
        _ => messages.insert(at, serde_json::json!({"role": "user", "content": text})),
    }
}

/// Whether `text` names `param` as a word of its own within [`NEAR`]
/// bytes of a refusal word.
fn named_in_refusal(text: &str, param: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let bytes = lower.as_bytes();
    let names: Vec<usize> = lower
        .match_indices(param)
        .map(|(i, _)| i)
        .filter(|&i| {
            let end = i + param.len();
            (i == 0 || !word(bytes[i - 1])) && bytes.get(end).is_none_or(|b| !word(*b))
        })
        .collect();
    REFUSALS
        .iter()
        .any(|r| lower.match_indices(r).any(|(w, _)| names.iter().any(|&n| n.abs_diff(w) <= NEAR)))
}

impl Judge {
    /// The settings this judge sends differently, in a fixed order.
    pub(crate) fn adaptations(&self) -> Vec<Adaptation> {
        let bits = self.adapted.load(Ordering::Relaxed);
        Adaptation::ALL.into_iter().filter(|a| bits & a.bit() != 0).collect()
    }

    /// What [`Judge::adaptations`] changed, in words, after the
    /// structured-output mode the judge moved to when its server refused
    /// the more structured ones (see [`Judge::reject_mode`]).
    pub(crate) fn adaptations_described(&self) -> Vec<String> {
        let learnt = self.adaptations();
        let seeded = self.config.seed.is_some() && !learnt.contains(&Adaptation::NoSeed);
        let mode = match self.preferred_mode() {
            StructuredMode::Tools => None,
            StructuredMode::JsonSchema => {
                Some("the server refused tools: judgements asked with response_format json_schema")
            }
            StructuredMode::Text => {
                Some("the server refused tools and response_format: judgements asked as plain text")
            }
        };
        mode.into_iter()
            .map(str::to_owned)
            .chain(learnt.iter().map(|a| a.describe(seeded).to_owned()))
            .collect()
    }

    /// Learns `a`: later requests are sent without the refused setting.
    pub(crate) fn adapt(&self, a: Adaptation) {
        self.adapted.fetch_or(a.bit(), Ordering::Relaxed);
    }

    /// The judge's sampling settings as its server takes them, added to
    /// `body`. A refused setting is also taken out of a `body` that came
    /// with it (a caller's own `max_tokens`, say).
    pub(super) fn add_settings(&self, body: &mut Map<String, Value>) {
        let bits = self.adapted.load(Ordering::Relaxed);
        let on = |a: Adaptation| bits & a.bit() != 0;
        // None of them is a member set below (refused at load).
        for (k, v) in &self.config.extra_body {
            body.insert(k.clone(), v.clone());
        }
        body.insert("temperature".into(), Value::from(self.config.temperature));
        if let Some(n) = self.config.max_tokens {
            body.insert("max_tokens".into(), Value::from(n));
        }
        if let Some(s) = self.config.seed {
            body.insert("seed".into(), Value::from(s));
        }
        if on(Adaptation::NoTemperature) {
            body.remove("temperature");
        }
        if on(Adaptation::MaxCompletionTokens)
            && let Some(n) = body.remove("max_tokens")
        {
            body.insert("max_completion_tokens".into(), n);
        }
        if on(Adaptation::NoSeed) {
            body.remove("seed");
        }
        if on(Adaptation::NoSystemRole) {
            fold_system_message(body);
        }
    }
}

/// Whether a request body asks for reproducible replies: temperature 0,
/// or a seed.
pub(super) fn deterministic(body: &Value) -> bool {
    let temperature = body.get("temperature").and_then(Value::as_f64);
    crate::judge::config::deterministic(temperature, body.get("seed").is_some())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn sent() -> Value {
        json!({"model": "m", "temperature": 0.0, "max_tokens": 50, "seed": 7})
    }

    #[test]
    fn refusals_are_read_from_structured_errors_and_from_words() {
        use Adaptation::{MaxCompletionTokens, NoSeed, NoTemperature};
        let cases: &[(&str, Option<Adaptation>)] = &[
            // OpenAI's reasoning models.
            (
                r#"{"error": {"message": "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", "type": "invalid_request_error", "param": "max_tokens", "code": "unsupported_parameter"}}"#,
                Some(MaxCompletionTokens),
            ),
            (
                r#"{"error": {"message": "Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.", "type": "invalid_request_error", "param": "temperature", "code": "unsupported_value"}}"#,
                Some(NoTemperature),
            ),
            // FastAPI/pydantic servers with closed request models (a 422).
            (
                r#"{"detail": [{"type": "extra_forbidden", "loc": ["body", "seed"], "msg": "Extra inputs are not permitted", "input": 7}]}"#,
                Some(NoSeed),
            ),
            // Google's OpenAI-compatible endpoint: a list, an escaped name.
            (
                r#"[{"error": {"code": 400, "message": "Invalid JSON payload received. Unknown name \"seed\": Cannot find field.", "status": "INVALID_ARGUMENT"}}]"#,
                Some(NoSeed),
            ),
            // Older Azure OpenAI API versions: the name unquoted, no param.
            (
                r#"{"error": {"message": "Unrecognized request argument supplied: seed", "type": "invalid_request_error", "param": null, "code": null}}"#,
                Some(NoSeed),
            ),
            // A proxy's wrapped message: `name=value`.
            (
                r#"{"error": {"message": "litellm.UnsupportedParamsError: O-series models don't support temperature=0. Only temperature=1 is supported.", "code": "400"}}"#,
                Some(NoTemperature),
            ),
            ("seed: `seed` is not supported by this backend", Some(NoSeed)),
            // A value out of range is the suite's to fix, not the judge's.
            (
                r#"{"error": {"message": "'max_tokens' is too large: 100000. This model supports at most 16384 completion tokens.", "param": "max_tokens", "code": "invalid_value"}}"#,
                None,
            ),
            (
                r#"{"error": {"message": "temperature must be between 0 and 2", "param": "temperature"}}"#,
                None,
            ),
            // Refusing something else teaches nothing, however the body
            // echoes the request.
            (
                r#"{"error": {"message": "Unsupported parameter: 'tools'", "param": "tools", "code": "unsupported_parameter"}}"#,
                None,
            ),
            (
                r#"{"object": "error", "message": "1 validation error for ChatCompletionRequest\n  Value error, 'response_format' is unsupported here [type=value_error, input_value={'model': 'm', 'messages': [], 'stream': False, 'temperature': 0.0, 'max_tokens': 50, 'seed': 7}, input_type=dict]", "code": 400}"#,
                None,
            ),
            (
                r#"{"detail": [{"type": "extra_forbidden", "loc": ["body", "logit_bias"], "msg": "Extra inputs are not permitted", "input": {"content": "is `temperature` too high?"}}]}"#,
                None,
            ),
            ("context length exceeded", None),
            // 'max_tokens' is not read out of 'max_completion_tokens'.
            (r#"{"error": {"message": "Unsupported parameter: 'max_completion_tokens'"}}"#, None),
        ];
        for (body, want) in cases {
            assert_eq!(Adaptation::for_refusal(body, &sent()), *want, "{body}");
        }
        // o1-mini and o1-preview refuse a system message.
        let o1 = r#"{"error": {"message": "Unsupported value: 'messages[0].role' does not support 'system' with this model.", "type": "invalid_request_error", "param": "messages[0].role", "code": "unsupported_value"}}"#;
        let with_system = json!({"model": "m", "messages": [
            {"role": "system", "content": "Be strict."}, {"role": "user", "content": "Judge."}]});
        assert_eq!(Adaptation::for_refusal(o1, &with_system), Some(Adaptation::NoSystemRole));
        let words = "the system role is not supported by this model";
        assert_eq!(Adaptation::for_refusal(words, &with_system), Some(Adaptation::NoSystemRole));
        // Without a system message sent, or with `system` not about a role.
        assert_eq!(Adaptation::for_refusal(o1, &sent()), None);
        let other = r#"{"error": {"message": "system overloaded: not supported right now"}}"#;
        assert_eq!(Adaptation::for_refusal(other, &with_system), None);
        // A setting that was not sent is not the one refused.
        let pydantic = cases[2].0;
        assert_eq!(Adaptation::for_refusal(pydantic, &json!({"model": "m"})), None);
    }

    #[test]
    fn a_system_message_is_folded_into_the_user_message_after_it() {
        let fold = |v: Value| {
            let Value::Object(mut m) = v else { unreachable!() };
            fold_system_message(&mut m);
            Value::Object(m)["messages"].clone()
        };
        let text = fold(json!({"messages": [
            {"role": "system", "content": "Be strict."}, {"role": "user", "content": "Judge."}]}));
        assert_eq!(text, json!([{"role": "user", "content": "Be strict.\n\nJudge."}]));
        let parts = fold(json!({"messages": [
            {"role": "system", "content": [{"type": "text", "text": "Be strict."}]},
            {"role": "user", "content": [{"type": "text", "text": "Judge."}]}]}));
        assert_eq!(
            parts,
            json!([{"role": "user", "content": [
                {"type": "text", "text": "Be strict."}, {"type": "text", "text": "Judge."}]}])
        );
        let alone = fold(json!({"messages": [{"role": "system", "content": "Be strict."}]}));
        assert_eq!(alone, json!([{"role": "user", "content": "Be strict."}]));
        let none = fold(json!({"messages": [{"role": "user", "content": "Judge."}]}));
        assert_eq!(none, json!([{"role": "user", "content": "Judge."}]));
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
