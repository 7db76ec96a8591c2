//! Embeddings: `POST {base_url}/embeddings`, through the cache, with
//! every reply checked (one finite vector per input, all of one length).

use serde_json::Value;

use super::{CacheMode, Embeddings, Judge, JudgeError, cut, token_count};
use crate::judge::cache::Cache;
use crate::judge::usage::CallRecord;

impl Judge {
    /// Embeds `inputs` for `caller` with `model` (default
    /// [`Judge::embedding_model`]) through `POST {base_url}/embeddings`
    /// (`{"model", "input": [...]}`), from the cache when it can: one
    /// vector per input, in order. No input, no request.
    ///
    /// # Errors
    /// See [`JudgeError`]; a reply without one finite, non-empty vector per
    /// input (all of one length) is [`JudgeError::Malformed`].
    pub fn embed(
        &self,
        caller: &str,
        model: Option<&str>,
        inputs: &[&str],
    ) -> Result<Vec<Vec<f32>>, JudgeError> {
        self.embeddings(caller, model, inputs).map(|e| e.vectors)
    }

    /// Like [`Judge::embed`], with the model, the token count and whether
    /// the vectors came from the cache.
    ///
    /// Embeddings are deterministic: they are cached whatever the sampling
    /// settings (under the same key scheme as chat replies: the base URL
    /// and the request body); the cache stores the vectors as JSON.
    ///
    /// # Errors
    /// As [`Judge::embed`].
    pub fn embeddings(
        &self,
        caller: &str,
        model: Option<&str>,
        inputs: &[&str],
    ) -> Result<Embeddings, JudgeError> {
        let model = model.unwrap_or_else(|| self.embedding_model()).to_owned();
        if inputs.is_empty() {
            return Ok(Embeddings { vectors: Vec::new(), model, prompt_tokens: 0, cached: false });
        }
        let body = serde_json::json!({"model": model, "input": inputs});
        let cache = self.cache.as_ref().filter(|_| self.cache_mode != CacheMode::Off);
        let key = cache.map(|_| Cache::key(&self.cache_scope(), &body));
        if let (Some(c), Some(k), CacheMode::Use) = (cache, &key, self.cache_mode)
            && let Some(text) = c.get(k)
            && let Ok(Value::Array(stored)) = serde_json::from_str::<Value>(&text)
            && let Ok(vectors) = self.vectors(stored.iter(), inputs.len(), &text)
        {
            let hit = CallRecord { cache_hit: true, ..CallRecord::default() };
            self.usage.record_for(caller, self.other_model(&model), hit);
            return Ok(Embeddings { vectors, model, prompt_tokens: 0, cached: true });
        }
        let mut record = CallRecord::default();
        let mut billed = 0;
        let result = self.send("embeddings", &body, &mut record).and_then(|text| {
            let (vectors, prompt_tokens) =
                self.parse_embeddings(&text, inputs.len()).inspect_err(|_| {
                    // A reply that cannot be used was still billed.
                    billed = serde_json::from_str::<Value>(&text).map_or(0, |v| {
                        token_count(v.get("usage").and_then(|u| u.get("prompt_tokens")))
                    });
                })?;
            if let (Some(c), Some(k)) = (cache, &key) {
                // f32 → f64 is exact, and so is the f64 text: the vectors
                // read back are the ones received.
                let exact: Vec<Vec<f64>> =
                    vectors.iter().map(|v| v.iter().map(|x| f64::from(*x)).collect()).collect();
                // A cache that cannot be written costs a rerun, not this call.
                let _ = c.put(k, &model, &serde_json::to_string(&exact).unwrap_or_default());
            }
            Ok(Embeddings { vectors, model: model.clone(), prompt_tokens, cached: false })
        });
        match &result {
            Ok(e) => record.prompt_tokens = e.prompt_tokens,
            Err(e) => {
                record.prompt_tokens = billed;
                record.ended(true, Some(e));
            }
        }
        self.usage.record_for(caller, self.other_model(&model), record);
        result
    }

    /// `model` when it is not the judge's chat model: its requests are
    /// reported apart, under it.
    fn other_model<'m>(&self, model: &'m str) -> Option<&'m str> {
        (model != self.config.model).then_some(model)
    }

    /// The vectors and prompt tokens of an embeddings reply body: `data`
    /// items ordered by their `index` (else as listed), which must number
    /// them 0 to n - 1.
    pub(super) fn parse_embeddings(
        &self,
        text: &str,
        n: usize,
    ) -> Result<(Vec<Vec<f32>>, u64), JudgeError> {
        let v: Value =
            serde_json::from_str(text).map_err(|_| self.malformed_embeddings("not JSON", text))?;
        let data = v
            .get("data")
            .and_then(Value::as_array)
            .ok_or_else(|| self.malformed_embeddings("no data", text))?;
        let mut items: Vec<(u64, &Value)> = data
            .iter()
            .enumerate()
            .map(|(i, d)| {
                let at = d.get("index").and_then(Value::as_u64);
                (at.unwrap_or_else(|| u64::try_from(i).unwrap_or(u64::MAX)), d)
            })
            .collect();
        items.sort_by_key(|(i, _)| *i);
        // One item per input: the indexes are 0 to n - 1, each once (two
        // items for one input, or one past the inputs, leave some input
        // without its vector).
        let numbered = items.iter().enumerate().all(|(at, (i, _))| u64::try_from(at) == Ok(*i));
        if !numbered {
            return Err(self.malformed_embeddings(
                "the items' indexes are not 0 to n - 1, one per input",
                text,
            ));
        }
        let embeddings = items.iter().map(|(_, d)| d.get("embedding").unwrap_or(&Value::Null));
        let vectors = self.vectors(embeddings, n, text)?;
        let tokens = token_count(v.get("usage").and_then(|u| u.get("prompt_tokens")));
        Ok((vectors, tokens))
    }

    /// `n` vectors of finite numbers, all of one non-zero length.
    pub(super) fn vectors<'a>(
        &self,
        items: impl Iterator<Item = &'a Value>,
        n: usize,
        raw: &str,
    ) -> Result<Vec<Vec<f32>>, JudgeError> {
        let mut out: Vec<Vec<f32>> = Vec::with_capacity(n);
        for item in items {
            let numbers = item.as_array().filter(|a| !a.is_empty()).ok_or_else(|| {
                self.malformed_embeddings("an embedding is not a list of numbers", raw)
            })?;
            #[allow(clippy::cast_possible_truncation)]
            let v: Vec<f32> = numbers
                .iter()
                .map(|x| x.as_f64().map(|f| f as f32).filter(|f| f.is_finite()))
                .collect::<Option<_>>()
                .ok_or_else(|| {
                    self.malformed_embeddings("an embedding has a non-finite value", raw)
                })?;
            if out.first().is_some_and(|f| f.len() != v.len()) {
                return Err(self.malformed_embeddings("embeddings of different lengths", raw));
            }
            out.push(v);
        }
        if out.len() != n {
            let why = format!("{} embedding(s) for {n} input(s)", out.len());
            return Err(self.malformed_embeddings(&why, raw));
        }
        Ok(out)
    }

    pub(super) fn malformed_embeddings(&self, reason: &str, raw: &str) -> JudgeError {
        JudgeError::Malformed {
            judge: self.name.clone(),
            reason: format!("embeddings: {reason}"),
            raw: cut(&self.redactor.body(raw)),
        }
    }
}
