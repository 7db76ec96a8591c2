//! Per-field judges of `json_match` (a `judge:` rule, an `embedding`
//! rule) and `semantic_similarity`, end to end: the real binary against
//! the scripted server, counting the requests it receives.

use std::path::Path;

use refscore_scripted_llm::{Reply, Rule, Script, ScriptedServer, When};
use serde_json::{Value, json};

use super::super::{code, stderr, stdout};
use super::{results, run, summary};

/// A suite over `rows` (`{id, answer, reference, ...}`) with these
/// evaluators and one judge on the scripted server.
fn suite(dir: &Path, base_url: &str, rows: &[Value], evaluators: Value) {
    let lines: Vec<String> = rows.iter().map(Value::to_string).collect();
    std::fs::write(dir.join("data.jsonl"), lines.join("\n") + "\n").unwrap();
    let suite = json!({
        "dataset": "data.jsonl",
        "id": "id",
        "mapping": {"output": "answer", "reference": "reference"},
        "judge": {"base_url": base_url, "model": "judge-model", "embedding_model": "embed-model",
                  "timeout": 5, "retries": 0, "api_key_env": "TEST_JUDGE_KEY"},
        "evaluators": evaluators,
        "gate": {},
    });
    std::fs::write(dir.join("suite.yaml"), serde_json::to_string_pretty(&suite).unwrap()).unwrap();
}

/// The detail of `path` in a row's first score.
fn detail<'a>(row: &'a Value, path: &str) -> &'a Value {
    let want = format!("json_path.{path}");
    row["scores"][0]["details"]
        .as_array()
        .and_then(|d| d.iter().find(|d| d["check"] == want.as_str()))
        .unwrap_or_else(|| panic!("no detail {want} in {row}"))
}

fn order(sku: &str, description: &str) -> Value {
    json!({"sku": sku, "description": description, "qty": 1})
}

#[test]
fn a_judge_rule_asks_only_about_unresolved_pairs_and_reruns_from_the_cache() {
    let server = ScriptedServer::start(Script::new(vec![])).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let rows = [
        // Equal descriptions: nothing to ask.
        (order("A1", "Wireless mouse, black"), order("A1", "Wireless mouse, black")),
        // Reordered words: unresolved; the scripted judge says `same`.
        (order("A2", "Black wireless mouse"), order("A2", "Wireless mouse, black")),
        // Close but not the same: unresolved; the judge is told `different`.
        (order("A3", "Red cotton t-shirt LABEL=different"), order("A3", "Blue cotton t-shirt")),
        // Clearly different (text similarity below the floor): no request.
        (order("A4", "Tokyo"), order("A4", "Stainless steel bottle")),
        // A wrong field without a judge rule: no request either.
        (order("B5", "Wireless mouse, black"), order("A5", "Wireless mouse, black")),
    ];
    let rows: Vec<Value> = rows
        .iter()
        .enumerate()
        .map(|(i, (answer, reference))| {
            json!({"id": format!("r{i}"), "answer": answer.to_string(), "reference": reference.to_string()})
        })
        .collect();
    let evaluators = json!([{
        "name": "order",
        "metric": "json_match",
        "options": {
            "details": "all",
            "rules": {"rules": [{"path": "$.description", "judge": "default",
                                 "criterion": "Is it the same product?"}]}
        },
        "threshold": 1
    }]);
    suite(dir.path(), &server.base_url(), &rows, evaluators);
    let o = run(dir.path(), &["--all-details"]);
    assert!(code(&o) <= 1, "{}{}", stdout(&o), stderr(&o));
    // Exactly the two unresolved descriptions were sent.
    assert_eq!(server.request_count(), 2, "{:#?}", server.requests());
    // Rows run in parallel: find each request by its values.
    let reqs = server.requests();
    for (expected, actual) in [
        ("Wireless mouse, black", "Black wireless mouse"),
        ("Blue cotton t-shirt", "Red cotton t-shirt LABEL=different"),
    ] {
        let prompt = |r: &refscore_scripted_llm::RecordedRequest| {
            r.body["messages"][0]["content"].as_str().unwrap_or("").to_owned()
        };
        let req = reqs
            .iter()
            .find(|r| prompt(r).contains(&format!("Reference value:\n\"\"\"\n{expected}\n")))
            .unwrap_or_else(|| panic!("no request about {expected:?}: {reqs:#?}"));
        assert_eq!(req.path, "/v1/chat/completions");
        let prompt = prompt(req);
        assert!(prompt.contains("Field: $.description"), "{prompt}");
        assert!(prompt.contains("Question: Is it the same product?"), "{prompt}");
        assert!(prompt.contains(&format!("Extracted value:\n\"\"\"\n{actual}\n")), "{prompt}");
        let labels = &req.body["tools"][0]["function"]["parameters"]["properties"]["label"];
        assert_eq!(labels["enum"], json!(["same", "different"]));
    }
    let r = results(dir.path());
    let meta = |i: usize, k: &str| r[i]["scores"][0]["metadata"][k].as_u64().unwrap();
    let asked: Vec<u64> = (0..5).map(|i| meta(i, "judge_requests")).collect();
    assert_eq!(asked, [0, 1, 1, 0, 0]);
    assert_eq!(r[1]["scores"][0]["kind"], "llm");
    // `same`: a match, the judge's explanation on the field.
    assert_eq!(r[1]["scores"][0]["score"], 1.0);
    let d = detail(&r[1], "$.description");
    assert_eq!(d["outcome"], "match");
    assert_eq!(d["message"], "judge `default` says same: scripted");
    // `different`: a value mismatch, counted like one.
    let d = detail(&r[2], "$.description");
    assert_eq!(d["outcome"], "value_mismatch");
    assert_eq!(d["message"], "judge `default` says different: scripted");
    assert_eq!(r[2]["scores"][0]["metadata"]["fields"]["wrong"], 1);
    assert!((r[2]["scores"][0]["score"].as_f64().unwrap() - 2.0 / 3.0).abs() < 1e-9);
    // Not asked: the comparator's verdict stands.
    assert_eq!(detail(&r[3], "$.description")["outcome"], "value_mismatch");
    assert_eq!(detail(&r[3], "$.description")["message"], "Value mismatch");
    // Field tallies count the verdicts: 3 matched descriptions (r0, r1,
    // r4), 2 wrong (r2, r3).
    let s = summary(dir.path());
    let field = s["fields"]
        .as_array()
        .and_then(|f| f.iter().find(|f| f["path"] == "$.description"))
        .unwrap_or_else(|| panic!("no $.description in {}", s["fields"]));
    assert_eq!((field["matched"].as_u64(), field["wrong"].as_u64()), (Some(3), Some(2)), "{field}");
    let j = &s["judges"][0];
    assert_eq!((j["evaluator"].as_str(), j["requests"].as_u64()), (Some("order"), Some(2)), "{j}");

    // A rerun sends nothing: both judgements come from the cache.
    let o = run(dir.path(), &["--all-details"]);
    assert!(code(&o) <= 1, "{}", stderr(&o));
    assert_eq!(server.request_count(), 2);
    let r = results(dir.path());
    assert_eq!(r[1]["scores"][0]["metadata"]["judge_requests"], 1);
    assert_eq!(r[1]["scores"][0]["metadata"]["judge_cached"], 1);
    assert_eq!(
        detail(&r[2], "$.description")["message"],
        "judge `default` says different: scripted"
    );
    let j = &summary(dir.path())["judges"][0];
    assert_eq!((j["requests"].as_u64(), j["cache_hits"].as_u64()), (Some(0), Some(2)), "{j}");
}

/// An embeddings reply with these vectors, in input order.
fn vectors(v: &[[f32; 2]]) -> Reply {
    let data: Vec<Value> = v
        .iter()
        .enumerate()
        .map(|(i, e)| json!({"object": "embedding", "index": i, "embedding": e}))
        .collect();
    Reply::Garbage(
        json!({"object": "list", "data": data, "usage": {"prompt_tokens": 3}}).to_string(),
    )
}

fn embeddings_with(text: &str) -> When {
    When::All(vec![When::Path("/v1/embeddings".into()), When::PromptContains(text.into())])
}

#[test]
fn an_embedding_rule_and_semantic_similarity() {
    let server = ScriptedServer::start(Script::new(vec![
        // cosine 0.96: a match at threshold 0.85.
        Rule::new(embeddings_with("crimson"), vectors(&[[1.0, 0.0], [0.96, 0.28]])),
        // cosine 0.6: partial credit (floor 0.5).
        Rule::new(embeddings_with("navy"), vectors(&[[1.0, 0.0], [0.6, 0.8]])),
        // cosine 0.2: wrong.
        Rule::new(embeddings_with("lime"), vectors(&[[1.0, 0.0], [0.2, 0.98]])),
    ]))
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let colours = [("red", "crimson"), ("blue", "navy"), ("green", "green"), ("pink", "lime")];
    let rows: Vec<Value> = colours
        .iter()
        .enumerate()
        .map(|(i, (expected, got))| {
            json!({"id": format!("r{i}"),
                   "answer": json!({"colour": got, "n": 1}).to_string(),
                   "reference": json!({"colour": expected, "n": 1}).to_string(),
                   "text": "The parcel arrived on time.",
                   "text_ref": if i == 0 { "The parcel came late." } else { "The parcel arrived on time." }})
        })
        .collect();
    let evaluators = json!([
        {"name": "colours", "metric": "json_match", "options": {"details": "all", "rules": {"rules": [
            {"path": "$.colour", "compare": {"type": "embedding", "threshold": 0.85, "judge": "default"}}
        ]}}},
        {"name": "similar", "metric": "semantic_similarity",
         "mapping": {"output": "text", "reference": "text_ref"}}
    ]);
    suite(dir.path(), &server.base_url(), &rows, evaluators);
    let o = run(dir.path(), &["--all-details"]);
    assert!(code(&o) <= 1, "{}{}", stdout(&o), stderr(&o));
    let reqs = server.requests();
    // Three colour pairs differ (one request each) and one pair of texts.
    assert_eq!(reqs.len(), 4, "{reqs:#?}");
    assert!(reqs.iter().all(|r| r.path == "/v1/embeddings"));
    assert!(reqs.iter().all(|r| r.body["model"] == "embed-model"));
    let crimson = reqs.iter().find(|r| r.raw_body.contains("crimson")).unwrap();
    assert_eq!(crimson.body["input"], json!(["red", "crimson"]));
    let r = results(dir.path());
    let colour = |i: usize| detail(&r[i], "$.colour").clone();
    assert_eq!(colour(0)["outcome"], "match");
    assert_eq!(colour(0)["message"], "embedding cosine 0.960 ≥ threshold 0.85: match");
    assert_eq!(colour(1)["outcome"], "partial");
    assert!((colour(1)["score"].as_f64().unwrap() - 0.6).abs() < 1e-6);
    assert_eq!(colour(1)["message"], "embedding cosine 0.600 below threshold 0.85: partial credit");
    assert_eq!(colour(2)["outcome"], "match");
    assert_eq!(colour(3)["outcome"], "value_mismatch");
    assert_eq!(colour(3)["message"], "embedding cosine 0.200 < floor 0.5: wrong");
    let meta = |i: usize, k: &str| r[i]["scores"][0]["metadata"][k].as_u64().unwrap();
    assert_eq!((0..4).map(|i| meta(i, "embedding_requests")).collect::<Vec<_>>(), [1, 1, 0, 1]);
    assert!((r[1]["scores"][0]["score"].as_f64().unwrap() - 0.8).abs() < 1e-6);
    // semantic_similarity: identical texts score 1 (no request); others
    // a finite cosine in [0, 1].
    let sim = |i: usize| {
        r[i]["scores"].as_array().unwrap().iter().find(|s| s["name"] == "similar").unwrap().clone()
    };
    for i in 1..4 {
        assert_eq!(sim(i)["score"], 1.0, "{}", sim(i));
        assert_eq!(sim(i)["label"], "match");
    }
    let s0 = sim(0)["score"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&s0), "{}", sim(0));
    assert_eq!(sim(0)["kind"], "llm");
    assert_eq!(sim(0)["metadata"]["model"], "embed-model");
    assert_eq!(sim(0)["metadata"]["cached"], false);
    // The accounting names the model the embedding requests named, not
    // the judge's chat model.
    let s = summary(dir.path());
    let rows = s["judges"].as_array().unwrap();
    assert!(!rows.is_empty() && rows.iter().all(|j| j["model"] == "embed-model"), "{rows:?}");
    let requests: u64 = rows.iter().map(|j| j["requests"].as_u64().unwrap()).sum();
    assert_eq!(requests, 4, "{rows:?}");

    // A rerun: every vector from the cache.
    let o = run(dir.path(), &["--all-details"]);
    assert!(code(&o) <= 1, "{}", stderr(&o));
    assert_eq!(server.request_count(), 4);
    let r = results(dir.path());
    assert_eq!(detail(&r[0], "$.colour")["outcome"], "match");
    assert_eq!(r[0]["scores"][0]["metadata"]["embedding_cached"], 1);
    let again = r[0]["scores"].as_array().unwrap().iter().find(|s| s["name"] == "similar").unwrap();
    assert_eq!(again["score"].as_f64().unwrap(), s0);
    assert_eq!(again["metadata"]["cached"], true);
}

#[test]
fn a_failed_judgement_fails_closed_for_its_field() {
    let server = ScriptedServer::start(Script::new(vec![Rule::new(
        When::PromptContains("broken".into()),
        Reply::status(500),
    )]))
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let rows = [json!({"id": "r0",
                       "answer": order("A1", "Wireless mouse, black broken").to_string(),
                       "reference": order("A1", "Wireless mouse, black").to_string()})];
    let evaluators = json!([{"name": "order", "metric": "json_match",
        "options": {"rules": {"rules": [{"path": "$.description", "judge": "default"}]}}}]);
    suite(dir.path(), &server.base_url(), &rows, evaluators);
    let o = run(dir.path(), &["--no-cache"]);
    assert!(code(&o) <= 1, "{}{}", stdout(&o), stderr(&o));
    assert_eq!(server.request_count(), 1);
    let r = results(dir.path());
    // The evaluation completes; the field counts wrong, never a match.
    assert_eq!(r[0]["execution"]["order"]["status"], "completed");
    let s = &r[0]["scores"][0];
    assert!((s["score"].as_f64().unwrap() - 2.0 / 3.0).abs() < 1e-9, "{s}");
    assert_eq!(
        (s["metadata"]["judge_requests"].as_u64(), s["metadata"]["judge_failures"].as_u64()),
        (Some(1), Some(1))
    );
    let d = detail(&r[0], "$.description");
    assert_eq!(d["outcome"], "value_mismatch");
    let m = d["message"].as_str().unwrap();
    assert!(
        m.starts_with("judge `default` failed, counted wrong:") && m.contains("HTTP 500"),
        "{m}"
    );
    assert_eq!(summary(dir.path())["judges"][0]["failures"], 1);
}

#[test]
fn an_embedding_between_floor_and_threshold_goes_to_the_judge() {
    let server = ScriptedServer::start(Script::new(vec![Rule::new(
        embeddings_with("navy"),
        vectors(&[[1.0, 0.0], [0.6, 0.8]]),
    )]))
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let rows = [json!({"id": "r0", "answer": json!({"colour": "navy"}).to_string(),
                       "reference": json!({"colour": "dark blue"}).to_string()})];
    let evaluators = json!([{"name": "colours", "metric": "json_match",
        "options": {"details": "all", "rules": {"rules": [{"path": "$.colour", "compare": "embedding",
                                         "judge": "default", "criterion": "Same colour?"}]}}}]);
    suite(dir.path(), &server.base_url(), &rows, evaluators);
    let o = run(dir.path(), &["--all-details"]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let paths: Vec<String> = server.requests().iter().map(|r| r.path.clone()).collect();
    assert_eq!(paths, ["/v1/embeddings", "/v1/chat/completions"]);
    let r = results(dir.path());
    let d = detail(&r[0], "$.colour");
    assert_eq!(d["outcome"], "match");
    assert_eq!(
        d["message"],
        "embedding cosine 0.600 between 0.5 and 0.85; judge `default` says same: scripted"
    );
    let m = &r[0]["scores"][0]["metadata"];
    assert_eq!(
        (m["embedding_requests"].as_u64(), m["judge_requests"].as_u64()),
        (Some(1), Some(1))
    );
}
