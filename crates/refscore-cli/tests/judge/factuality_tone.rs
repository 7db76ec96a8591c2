//! `factuality` with `depth: deep` and `tone` with `method: judge`, end to
//! end: the real binary against the scripted server, each claim or row
//! given a known verdict by a `PromptContains` rule.

use std::path::Path;

use refscore_scripted_llm::{Reply, Rule, Script, ScriptedServer, When};
use serde_json::{Value, json};

use super::super::{code, stderr, stdout};
use super::{results, run, summary};

const REFERENCE: &str =
    "Acme Corp was founded in 1998 by Jane Smith. The company is headquartered in Berlin.";

/// A suite over `rows` (each `{id, answer, reference}` plus any extra
/// columns) with these evaluators; `judge` is the judge's settings (the
/// scripted server, no retries) or `None` for a suite without judges.
fn suite(dir: &Path, rows: &[Value], judge: Option<&str>, evaluators: Value) {
    let lines: Vec<String> = rows.iter().map(Value::to_string).collect();
    std::fs::write(dir.join("data.jsonl"), lines.join("\n") + "\n").unwrap();
    let mut suite = json!({
        "dataset": "data.jsonl",
        "id": "id",
        "mapping": {"output": "answer", "reference": "reference"},
        "evaluators": evaluators,
        "gate": {},
    });
    if let Some(base_url) = judge {
        suite["judge"] = json!({"base_url": base_url, "model": "judge-model", "timeout": 5,
                                "retries": 0, "api_key_env": "TEST_JUDGE_KEY"});
    }
    std::fs::write(dir.join("suite.yaml"), serde_json::to_string_pretty(&suite).unwrap()).unwrap();
}

/// Lets the suite's run pass with up to `n` failed judgements.
fn allow_judge_failures(dir: &Path, n: u64) {
    let path = dir.join("suite.yaml");
    let mut suite: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    suite["gate"] = json!({"max_judge_failures": n});
    std::fs::write(path, serde_json::to_string_pretty(&suite).unwrap()).unwrap();
}

fn row(id: &str, answer: &str, reference: &str) -> Value {
    json!({"id": id, "answer": answer, "reference": reference})
}

/// The rule giving `verdict` to the claim `claim`.
fn verdict(claim: &str, verdict: &str, why: &str) -> Rule {
    Rule::new(
        When::PromptContains(format!("\n\nClaim: {claim}\n")),
        Reply::tool_call(json!({"explanation": why, "label": verdict})),
    )
}

/// The score of evaluator `name` in a result row.
fn score<'a>(r: &'a Value, name: &str) -> &'a Value {
    r["scores"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s["name"] == name))
        .unwrap_or(&Value::Null)
}

#[test]
fn deep_factuality_judges_each_claim() {
    let server = ScriptedServer::start(Script::new(vec![
        verdict("Acme was founded in 1998.", "supported", "The reference gives 1998."),
        verdict("Acme is based in Munich.", "contradicted", "The reference says Berlin."),
        verdict("Acme employs 40 people.", "unverifiable", "Staff numbers are not given."),
    ]))
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let rows = [
        row("r0", "Acme was founded in 1998. Acme is based in Munich.", REFERENCE),
        row("r1", "Acme employs 40 people.", REFERENCE),
    ];
    let evaluators = json!([
        {"name": "strict", "metric": "factuality", "options": {"depth": "deep"}},
        {"name": "lenient", "metric": "factuality", "options": {"depth": "deep", "mode": "lenient"}},
    ]);
    suite(dir.path(), &rows, Some(&server.base_url()), evaluators);
    let o = run(dir.path(), &["--no-cache", "--all-details"]);
    // Judged claims fail their threshold; no evaluation failed.
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let r = results(dir.path());
    let s = score(&r[0], "strict");
    assert_eq!(s["score"], 0.5, "{s}");
    assert_eq!((s["label"].as_str(), s["kind"].as_str()), (Some("fail"), Some("llm")));
    let d = &s["details"];
    assert_eq!(d[0]["check"], "factuality.claim[0]");
    assert_eq!(
        (d[0]["outcome"].as_str(), d[0]["passed"].as_bool(), d[0]["actual"].as_str()),
        (Some("supported"), Some(true), Some("Acme was founded in 1998."))
    );
    assert_eq!(d[0]["message"], "The reference gives 1998.");
    assert_eq!(
        (d[1]["outcome"].as_str(), d[1]["passed"].as_bool(), d[1]["message"].as_str()),
        (Some("contradicted"), Some(false), Some("The reference says Berlin."))
    );
    let m = &s["metadata"];
    for (k, v) in [
        ("method", json!("judge")),
        ("depth", json!("deep")),
        ("judge", json!("default")),
        ("model", json!("judge-model")),
        ("judge_mode", json!("tools")),
        ("claims", json!(2)),
        ("supported", json!(1)),
        ("contradicted", json!(1)),
        ("unverifiable", json!(0)),
        ("completion_tokens", json!(20)),
    ] {
        assert_eq!(m[k], v, "{k}: {m}");
    }
    assert!(m["prompt_tokens"].as_u64().unwrap() > 0);
    assert!(m.get("fallback_reason").is_none());
    // Strict: unverifiable fails; lenient: it passes. Same score.
    let strict = score(&r[1], "strict");
    let lenient = score(&r[1], "lenient");
    assert_eq!((strict["score"].as_f64(), strict["label"].as_str()), (Some(0.0), Some("fail")));
    assert_eq!((lenient["score"].as_f64(), lenient["label"].as_str()), (Some(0.0), Some("pass")));
    assert_eq!(lenient["details"][0]["outcome"], "unverifiable");
    assert_eq!(lenient["details"][0]["message"], "Staff numbers are not given.");
    // One request per claim and evaluator, each asking for one verdict.
    assert_eq!(server.request_count(), 6);
    let req = &server.requests()[0];
    let params = &req.body["tools"][0]["function"]["parameters"];
    assert_eq!(
        params["properties"]["label"]["enum"],
        json!(["supported", "contradicted", "unverifiable"])
    );
    let prompt = req.body["messages"][0]["content"].as_str().unwrap();
    assert!(prompt.contains(&format!("Reference:\n{REFERENCE}\n")), "{prompt}");
    assert!(prompt.contains("- unverifiable: "), "{prompt}");
    let j = &summary(dir.path())["judges"];
    let strict_usage = j.as_array().unwrap().iter().find(|u| u["evaluator"] == "strict").unwrap();
    assert_eq!(
        (strict_usage["requests"].as_u64(), strict_usage["failures"].as_u64()),
        (Some(3), Some(0))
    );
}

#[test]
fn a_failed_judgement_falls_back_to_the_heuristic_or_fails_closed() {
    let server = ScriptedServer::start(Script::new(vec![
        Rule::new(When::PromptContains("Claim: Acme was founded".into()), Reply::status(500)),
        Rule::new(
            When::PromptContains("PROFILE-ROW".into()),
            Reply::tool_call(json!({"explanation": "x", "output": {"formality": 1.7}})),
        ),
    ]))
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let rows = [row("r0", "Acme was founded in 1998.", REFERENCE)];
    let options = |fallback: &str| {
        json!([{"name": "facts", "metric": "factuality",
                "options": {"depth": "deep", "fallback": fallback}}])
    };
    suite(dir.path(), &rows, Some(&server.base_url()), options("heuristic"));
    // The heuristic scores the row, but the failed judgement fails the
    // gate unless the suite allows it.
    let o = run(dir.path(), &["--no-cache"]);
    assert_eq!(code(&o), 1, "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("✗ max_judge_failures <= 0 (actual 1)"), "{}", stdout(&o));
    allow_judge_failures(dir.path(), 1);
    let o = run(dir.path(), &["--no-cache"]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let s = score(&results(dir.path())[0], "facts").clone();
    // The heuristic supports the claim from the reference.
    assert_eq!((s["score"].as_f64(), s["kind"].as_str()), (Some(1.0), Some("code")));
    assert_eq!(s["metadata"]["method"], "heuristic");
    assert_eq!(s["metadata"]["heuristic"], "claims");
    let why = s["metadata"]["fallback_reason"].as_str().unwrap();
    assert!(why.contains("HTTP 500 after 1 attempt(s)"), "{why}");
    assert!(
        s["explanation"].as_str().unwrap().contains("Scored with the heuristic, not the judge")
    );

    suite(dir.path(), &rows, Some(&server.base_url()), options("fail"));
    let o = run(dir.path(), &["--no-cache"]);
    assert_eq!(code(&o), 1, "{}{}", stdout(&o), stderr(&o));
    let r = &results(dir.path())[0];
    assert_eq!(r["execution"]["facts"]["status"], "failed");
    assert!(r["execution"]["facts"]["error"].as_str().unwrap().contains("HTTP 500"), "{r}");
    assert_eq!(r["passed"]["facts"], false);
    assert!(r["scores"].as_array().unwrap().is_empty());

    // Tone: a rating outside [0, 1] is an unusable reply, counted as a
    // failure; the same two outcomes.
    let rows = [row("t0", "Dear Ms. Patel, PROFILE-ROW we hereby confirm receipt.", "")];
    let tone = |fallback: &str| {
        json!([{"name": "tone", "metric": "tone", 
                "options": {"method": "judge", "fallback": fallback,
                            "profile": {"formality": "formal"}, "dimensions": ["formality"]}}])
    };
    suite(dir.path(), &rows, Some(&server.base_url()), tone("heuristic"));
    allow_judge_failures(dir.path(), 1);
    let o = run(dir.path(), &["--no-cache"]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let s = score(&results(dir.path())[0], "tone").clone();
    assert!(s["score"].as_f64().is_some(), "{s}");
    assert_eq!(s["metadata"]["method"], "heuristic");
    let why = s["metadata"]["fallback_reason"].as_str().unwrap();
    assert!(why.contains("formality of the output must be a number from 0 to 1, got 1.7"), "{why}");
    let j = &summary(dir.path())["judges"][0];
    assert_eq!((j["requests"].as_u64(), j["failures"].as_u64()), (Some(1), Some(1)), "{j}");
    suite(dir.path(), &rows, Some(&server.base_url()), tone("fail"));
    let o = run(dir.path(), &["--no-cache"]);
    assert_eq!(code(&o), 1, "{}{}", stdout(&o), stderr(&o));
    let r = &results(dir.path())[0];
    assert_eq!(r["execution"]["tone"]["status"], "failed");
    assert!(r["execution"]["tone"]["error"].as_str().unwrap().contains("got 1.7"), "{r}");
}

#[test]
fn tone_ratings_from_the_judge_are_scored_against_the_profile_and_the_reference() {
    let server = ScriptedServer::start(Script::new(vec![
        Rule::new(
            When::PromptContains("ROW-ONE".into()),
            Reply::tool_call(json!({"explanation": "Polite and warm.",
                                    "output": {"formality": 0.9, "sentiment": 0.7}})),
        ),
        Rule::new(
            When::PromptContains("ROW-TWO".into()),
            Reply::tool_call(json!({"explanation": "Chatty.",
                                    "output": {"formality": 0.2}, "reference": {"formality": 0.8}})),
        ),
    ]))
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let rows = [
        row("a", "ROW-ONE Thank you for your order; it ships today.", ""),
        row("b", "ROW-TWO hey, it's gonna ship soon lol", "Your order will be dispatched shortly."),
    ];
    let evaluators = json!([
        {"name": "profiled", "metric": "tone",
         "options": {"method": "judge", "profile": {"formality": "formal", "sentiment": "positive"},
                     "dimensions": ["formality", "sentiment"]}},
        {"name": "like_reference", "metric": "tone",
         "options": {"method": "judge", "dimensions": ["formality"]}},
    ]);
    suite(dir.path(), &rows, Some(&server.base_url()), evaluators);
    // Row b's profiled judgement falls back to the heuristic (see below).
    allow_judge_failures(dir.path(), 1);
    let o = run(dir.path(), &["--no-cache", "--all-details"]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let r = results(dir.path());
    // formality 0.9 ≥ 0.85: 1; sentiment 0.7 vs at least 0.75: 1 − 0.05/0.4.
    let s = score(&r[0], "profiled");
    assert!((s["score"].as_f64().unwrap() - (1.0 + 0.875) / 2.0).abs() < 1e-9, "{s}");
    assert_eq!((s["label"].as_str(), s["kind"].as_str()), (Some("pass"), Some("llm")));
    assert_eq!(s["details"][1]["check"], "tone.sentiment");
    assert_eq!(s["details"][1]["expected"], "at least 0.75 (positive)");
    assert_eq!(s["details"][1]["actual"], "0.70");
    assert_eq!(s["metadata"]["method"], "judge");
    assert_eq!(s["metadata"]["measured"], json!({"formality": 0.9, "sentiment": 0.7}));
    assert!(s["explanation"].as_str().unwrap().ends_with("\nJudge: Polite and warm."));
    // The target is the judge's rating of the reference: 0.2 vs 0.8.
    let s = score(&r[1], "like_reference");
    assert_eq!((s["score"].as_f64(), s["label"].as_str()), (Some(0.0), Some("fail")));
    assert_eq!(s["details"][0]["expected"], "0.80 (judged on reference)");
    assert_eq!(s["metadata"]["reference_measured"], json!({"formality": 0.8}));
    // The requests: a bounded number per dimension, the reference shown
    // only when a target comes from it (`profiled` never shows it).
    let reqs = server.requests();
    let prompt_of = |q: &refscore_scripted_llm::RecordedRequest| {
        q.body["messages"][0]["content"].as_str().unwrap_or("").to_owned()
    };
    let with_reference = |q: &&refscore_scripted_llm::RecordedRequest| {
        q.body["tools"][0]["function"]["parameters"]["properties"].get("reference").is_some()
    };
    // `profiled` on both rows, `like_reference` on the row with a
    // reference only (the other has no target for formality).
    assert_eq!(reqs.len(), 3);
    assert_eq!(reqs.iter().filter(with_reference).count(), 1);
    let none = score(&r[0], "like_reference");
    assert!(none["details"][0]["message"].as_str().unwrap().contains("no target"), "{none}");
    // ROW-TWO's scripted reply rates no sentiment: unusable for `profiled`.
    let s = score(&r[1], "profiled");
    assert_eq!(s["metadata"]["method"], "heuristic");
    assert!(
        s["metadata"]["fallback_reason"].as_str().unwrap().contains("does not rate sentiment"),
        "{s}"
    );
    let two = reqs.iter().find(with_reference).unwrap();
    assert!(prompt_of(two).contains("ROW-TWO"));
    let params = &two.body["tools"][0]["function"]["parameters"];
    let f = &params["properties"]["output"]["properties"]["formality"];
    assert_eq!(
        (f["type"].as_str(), f["minimum"].as_f64(), f["maximum"].as_f64()),
        (Some("number"), Some(0.0), Some(1.0))
    );
    assert_eq!(params["properties"]["reference"]["required"], json!(["formality"]));
    let prompt = two.body["messages"][0]["content"].as_str().unwrap();
    assert!(prompt.contains("Your order will be dispatched shortly."), "{prompt}");
}

#[test]
fn without_a_judge_deep_factuality_and_judged_tone_use_the_heuristics() {
    let dir = tempfile::tempdir().unwrap();
    let rows = [row("r0", "Acme was founded in 1998.", REFERENCE)];
    let evaluators = json!([
        {"name": "facts", "metric": "factuality", "options": {"depth": "deep"}},
        {"name": "tone", "metric": "tone", "options": {"method": "judge"}},
    ]);
    suite(dir.path(), &rows, None, evaluators);
    let o = run(dir.path(), &[]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let r = &results(dir.path())[0];
    for name in ["facts", "tone"] {
        let s = score(r, name);
        assert!(s["score"].as_f64().is_some(), "{s}");
        assert_eq!(s["kind"], "code");
        assert_eq!(s["metadata"]["method"], "heuristic", "{s}");
        assert_eq!(s["metadata"]["fallback_reason"], "no judge is configured");
    }
    assert_eq!(score(r, "facts")["score"], 1.0);
    // `fallback: fail` cannot hold without a judge: the suite is refused.
    let evaluators = json!([
        {"name": "facts", "metric": "factuality", "options": {"depth": "deep", "fallback": "fail"}},
    ]);
    suite(dir.path(), &rows, None, evaluators);
    let o = run(dir.path(), &[]);
    assert_eq!(code(&o), 2, "{}{}", stdout(&o), stderr(&o));
    assert!(stderr(&o).contains("`fail` needs a judge"), "{}", stderr(&o));
    // `refscore metrics factuality` lists the new options.
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_refscore"))
        .args(["metrics", "factuality"])
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    for opt in ["depth", "fallback", "judge_mode", "explanation", "system"] {
        assert!(stdout(&o).contains(opt), "{opt}: {}", stdout(&o));
    }
}
