//! Conditions that select a rule.

use serde::{Deserialize, Serialize};

use crate::request::RequestView;

/// When a [`Rule`](crate::Rule) applies to a request.
///
/// In script JSON: `"any"`, `{"prompt_contains": "text"}`,
/// `{"path": "/v1/embeddings"}`, `{"body_has": "max_tokens"}`,
/// `{"all": [ ... ]}`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum When {
    /// Every request.
    #[default]
    Any,
    /// The request's prompt text contains this substring: the contents of
    /// all its messages (strings and the `text` of content parts), a legacy
    /// `prompt`, and embedding `input` strings, joined by newlines.
    PromptContains(String),
    /// The request path (query string left off) is exactly this, e.g.
    /// `/v1/chat/completions` or `/v1/embeddings`.
    Path(String),
    /// The request body (a JSON object) has this top-level field, e.g.
    /// `max_tokens`: a rule can refuse it as a reasoning model does.
    BodyHas(String),
    /// Every condition holds (true when empty).
    All(Vec<When>),
}

impl When {
    /// Whether the request meets this condition.
    pub(crate) fn matches(&self, request: &RequestView<'_>) -> bool {
        match self {
            When::Any => true,
            When::PromptContains(needle) => request.prompt().contains(needle.as_str()),
            When::Path(path) => request.path == path,
            When::BodyHas(field) => request.body.get(field.as_str()).is_some(),
            When::All(all) => all.iter().all(|w| w.matches(request)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn conditions_match_prompt_and_path() {
        let body = json!({"messages": [{"role": "user", "content": "grade this: LABEL=ok"}]});
        let view = RequestView::new("POST", "/v1/chat/completions", &body, 10);
        assert!(When::Any.matches(&view));
        assert!(When::PromptContains("grade".into()).matches(&view));
        assert!(!When::PromptContains("absent".into()).matches(&view));
        assert!(When::Path("/v1/chat/completions".into()).matches(&view));
        assert!(!When::Path("/v1/embeddings".into()).matches(&view));
        let both = When::All(vec![
            When::Path("/v1/chat/completions".into()),
            When::PromptContains("LABEL".into()),
        ]);
        assert!(both.matches(&view));
        let neither = When::All(vec![When::Any, When::Path("/v1/embeddings".into())]);
        assert!(!neither.matches(&view));
        assert!(When::BodyHas("messages".into()).matches(&view));
        assert!(!When::BodyHas("max_tokens".into()).matches(&view));
        let null = serde_json::Value::Null;
        let not_json = RequestView::new("POST", "/v1/chat/completions", &null, 3);
        assert!(!When::BodyHas("messages".into()).matches(&not_json));
    }

    #[test]
    fn json_uses_snake_case_tags() {
        let w: When = serde_json::from_value(json!({"all": [
            "any", {"prompt_contains": "x"}, {"path": "/v1/embeddings"}
        ]}))
        .unwrap();
        assert_eq!(
            w,
            When::All(vec![
                When::Any,
                When::PromptContains("x".into()),
                When::Path("/v1/embeddings".into())
            ])
        );
        assert!(serde_json::from_value::<When>(json!({"prompt": "x"})).is_err());
    }
}
