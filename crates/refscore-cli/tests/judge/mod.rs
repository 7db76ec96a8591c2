//! LLM judges end to end: the real binary against the scripted
//! OpenAI-compatible server on 127.0.0.1 (no network).

use std::path::Path;
use std::process::{Command, Output};

use refscore_scripted_llm::{Reply, Rule, Script, ScriptedServer, When};
use serde_json::{Value, json};

use super::{code, stderr, stdout};

/// The key the tests give the binary; it must appear nowhere but in the
/// request header.
const KEY: &str = "sk-test-0123456789abcdef-SECRET";

/// A folder with a dataset of `rows` answers (`LABEL=` markers drive the
/// scripted server's replies) and a suite asking `classify` with `judge`
/// settings added to the defaults.
fn setup(dir: &Path, base_url: &str, rows: &[&str], judge: &Value, gate: &str) {
    let lines: Vec<String> = rows
        .iter()
        .enumerate()
        .map(|(i, text)| json!({"id": format!("r{i}"), "answer": text}).to_string())
        .collect();
    std::fs::write(dir.join("data.jsonl"), lines.join("\n") + "\n").unwrap();
    let mut judge_cfg = json!({"base_url": base_url, "model": "judge-model", "timeout": 2,
                               "api_key_env": "TEST_JUDGE_KEY", "prices": {"prompt": 1.0, "completion": 2.0}});
    if let (Some(base), Some(extra)) = (judge_cfg.as_object_mut(), judge.as_object()) {
        base.extend(extra.clone());
    }
    let suite = json!({
        "dataset": "data.jsonl",
        "id": "id",
        "judge": judge_cfg,
        "evaluators": [{
            "name": "polite",
            "metric": "classify",
            "mapping": {"output": "answer"},
            "options": {"template": "Is this polite?\n{output}", "choices": {"polite": 1, "rude": 0}},
            "threshold": 1
        }],
        "gate": serde_json::from_str::<Value>(gate).unwrap(),
    });
    std::fs::write(dir.join("suite.yaml"), serde_json::to_string_pretty(&suite).unwrap()).unwrap();
}

fn run(dir: &Path, extra: &[&str]) -> Output {
    run_with_key(dir, KEY, extra)
}

/// Runs the suite in `dir` into `dir/out` with `key` as the judge's key.
fn run_with_key(dir: &Path, key: &str, extra: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_refscore"))
        .arg("run")
        .arg(dir.join("suite.yaml"))
        .arg("-o")
        .arg(dir.join("out"))
        .args(extra)
        .env("TEST_JUDGE_KEY", key)
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("REFSCORE_CACHE")
        .output()
        .expect("runs")
}

fn results(dir: &Path) -> Vec<Value> {
    std::fs::read_to_string(dir.join("out/results.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn summary(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("out/summary.json")).unwrap()).unwrap()
}

/// Every file under `dir` and the outputs, as one text, for leak checks.
fn everything(dir: &Path, o: &Output) -> String {
    let mut all = stdout(o) + &stderr(o);
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                all.push_str(&String::from_utf8_lossy(&std::fs::read(&p).unwrap()));
            }
        }
    }
    all
}

#[test]
fn classify_scores_caches_accounts_and_never_leaks_the_key() {
    let server = ScriptedServer::start(Script::new(vec![])).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let rows = ["Thank you kindly LABEL=polite", "Go away LABEL=rude", "Cheers LABEL=polite"];
    setup(dir.path(), &server.base_url(), &rows, &json!({}), r#"{"min_pass_rate": 0.5}"#);
    let o = run(dir.path(), &[]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let r = results(dir.path());
    let labels: Vec<&str> = r.iter().map(|x| x["scores"][0]["label"].as_str().unwrap()).collect();
    assert_eq!(labels, ["polite", "rude", "polite"]);
    assert_eq!(r[1]["scores"][0]["score"], 0.0);
    assert_eq!(r[0]["scores"][0]["kind"], "llm");
    assert_eq!(r[0]["scores"][0]["explanation"], "scripted");
    assert_eq!(r[0]["scores"][0]["metadata"]["mode"], "tools");
    assert_eq!(server.request_count(), 3);
    let req = &server.requests()[0];
    assert_eq!(req.header("authorization"), Some(format!("Bearer {KEY}").as_str()));
    assert_eq!(req.body["model"], "judge-model");
    assert_eq!(req.body["temperature"], 0.0);
    let s = summary(dir.path());
    let j = &s["judges"][0];
    assert_eq!((j["judge"].as_str(), j["evaluator"].as_str()), (Some("default"), Some("polite")));
    assert_eq!(
        (j["requests"].as_u64(), j["cache_hits"].as_u64(), j["failures"].as_u64()),
        (Some(3), Some(0), Some(0))
    );
    assert!(j["prompt_tokens"].as_u64().unwrap() > 0);
    assert_eq!(j["completion_tokens"], 30);
    assert!(j["cost"].as_f64().unwrap() > 0.0);
    assert!(j["latency_p95_ms"].as_f64().is_some());
    assert!(stdout(&o).contains("Judges"), "{}", stdout(&o));

    // The same suite again: every judgement from the cache, no request.
    let o = run(dir.path(), &[]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(server.request_count(), 3);
    let j = &summary(dir.path())["judges"][0];
    assert_eq!((j["requests"].as_u64(), j["cache_hits"].as_u64()), (Some(0), Some(3)));
    assert_eq!(results(dir.path())[1]["scores"][0]["metadata"]["cached"], true);
    // --refresh-cache asks again; --no-cache neither reads nor writes.
    assert_eq!(code(&run(dir.path(), &["--refresh-cache"])), 0);
    assert_eq!(server.request_count(), 6);
    assert_eq!(code(&run(dir.path(), &["--no-cache"])), 0);
    assert_eq!(server.request_count(), 9);
    assert!(dir.path().join(".refscore/cache.db").exists());
    let o = run(dir.path(), &[]);
    assert!(!everything(dir.path(), &o).contains(KEY), "the key leaked");
}

#[test]
fn the_key_goes_in_the_header_azure_reads_when_asked_and_never_leaks() {
    let server = ScriptedServer::start(Script::new(vec![])).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let judge = json!({"api_key_header": "api-key", "headers": {"x-team": "evals"}});
    setup(dir.path(), &server.base_url(), &["Hi LABEL=polite"], &judge, "{}");
    let o = run(dir.path(), &["--no-cache"]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let req = &server.requests()[0];
    assert_eq!(req.header("api-key"), Some(KEY));
    assert_eq!(req.header("authorization"), None);
    assert_eq!(req.header("x-team"), Some("evals"));
    assert!(!everything(dir.path(), &o).contains(KEY), "the key leaked");
    // A header named twice, or Authorization itself, is refused at load.
    for judge in [
        json!({"api_key_header": "Api-Key", "headers": {"api-key": "literal"}}),
        json!({"api_key_header": "Authorization"}),
        json!({"api_key_header": "bad header"}),
    ] {
        setup(dir.path(), &server.base_url(), &["Hi"], &judge, "{}");
        let o = run(dir.path(), &["--no-cache"]);
        assert_eq!(code(&o), 2, "{judge}: {}", stderr(&o));
        assert!(stderr(&o).contains("judge.api_key_header"), "{}", stderr(&o));
        assert!(!stderr(&o).contains("literal"), "{}", stderr(&o));
    }
}

/// A key that would go over plain HTTP to another machine is warned of
/// before the run (naming the host, never the key or the URL's password);
/// https, a server on this machine, or no key at all are not. No request
/// is sent here (`--limit 0`).
#[test]
fn a_key_sent_unencrypted_to_another_machine_is_warned_of() {
    let dir = tempfile::tempdir().unwrap();
    let warned = |base_url: &str, key: &str| {
        setup(dir.path(), base_url, &["Hi"], &json!({}), "{}");
        let o = run_with_key(dir.path(), key, &["--no-store", "--no-cache", "--limit", "0"]);
        assert_eq!(code(&o), 1, "nothing evaluated: {}", stderr(&o));
        let e = stderr(&o);
        assert!(!e.contains(KEY) && !e.contains("pa55"), "{e}");
        e.contains("unencrypted").then_some(e)
    };
    let e = warned("http://192.0.2.1:9/v1", KEY).expect("warned");
    assert!(
        e.contains("warning: judge `default` sends its API key unencrypted")
            && e.contains("plain http:// to 192.0.2.1:9, not this machine"),
        "{e}"
    );
    let e = warned("http://me:pa55@192.0.2.1:9/v1", KEY).expect("warned");
    assert!(e.contains("to 192.0.2.1:9,") && !e.contains("me:"), "{e}");
    for quiet in ["https://192.0.2.1:9/v1", "http://127.0.0.1:9/v1", "http://localhost:9/v1"] {
        assert_eq!(warned(quiet, KEY), None, "{quiet}");
    }
}

/// Choices given as labels alone (`[polite, rude]`): each judgement is a
/// label with no number, as Phoenix gives it. The run counts those rows as
/// judged (not invalid), its gate passes, and a baseline from the folder
/// reads them back as labels.
#[test]
fn label_only_choices_are_judgements_not_invalid_scores() {
    let server = ScriptedServer::start(Script::new(vec![])).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let rows = ["Thank you kindly LABEL=polite", "Go away LABEL=rude"];
    setup(dir.path(), &server.base_url(), &rows, &json!({}), "{}");
    let path = dir.path().join("suite.yaml");
    let mut suite: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    suite["evaluators"][0]["options"]["choices"] = json!(["polite", "rude"]);
    suite["evaluators"][0].as_object_mut().unwrap().remove("threshold");
    std::fs::write(&path, suite.to_string()).unwrap();
    let o = run(dir.path(), &["--no-store"]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let r = results(dir.path());
    let labels: Vec<&str> = r.iter().map(|x| x["scores"][0]["label"].as_str().unwrap()).collect();
    assert_eq!(labels, ["polite", "rude"]);
    assert!(r.iter().all(|x| x["scores"][0]["score"].is_null()), "{r:?}");
    let s = summary(dir.path());
    assert_eq!(s["rows_scored"], 2, "{s}");
    let e = &s["evaluators"][0];
    assert_eq!((&e["count"], &e["labelled"], &e["invalid"]), (&json!(0), &json!(2), &json!(0)));
    assert!(s["gate"]["passed"].as_bool().unwrap(), "{s}");
    // The folder as a baseline: the same labels, nothing regressed.
    let base = dir.path().join("out");
    let again = dir.path().join("again");
    let o = Command::new(env!("CARGO_BIN_EXE_refscore"))
        .arg("run")
        .arg(&path)
        .arg("-o")
        .arg(&again)
        .args(["--no-store", "--baseline"])
        .arg(&base)
        .env("TEST_JUDGE_KEY", KEY)
        .env_remove("REFSCORE_CACHE")
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
}

#[test]
fn transient_faults_are_retried_and_failures_fail_closed() {
    let server = ScriptedServer::start(Script::new(vec![
        Rule::new(When::PromptContains("flaky-429".into()), Reply::rate_limited("1")).times(1),
        Rule::new(When::PromptContains("flaky-500".into()), Reply::status(500)).times(2),
        Rule::new(When::PromptContains("slow".into()), Reply::Auto.delayed(3000)).times(1),
        Rule::new(When::PromptContains("dropped".into()), Reply::Drop).times(1),
        Rule::new(When::PromptContains("always-500".into()), Reply::status(500)),
        Rule::new(When::PromptContains("garbage".into()), Reply::Garbage("<html>oops".into())),
        Rule::new(
            When::PromptContains("off-choices".into()),
            Reply::tool_call(json!({"label": "neutral"})),
        ),
        Rule::new(When::PromptContains("empty".into()), Reply::Empty),
        Rule::new(When::PromptContains("unauthorized".into()), Reply::status(401)),
        Rule::new(
            When::PromptContains("echo-key".into()),
            Reply::tool_call(
                json!({"label": "polite", "explanation": format!("your key is {KEY}")}),
            ),
        ),
        Rule::new(
            When::PromptContains("echo-label".into()),
            Reply::tool_call(json!({"label": KEY})),
        ),
    ]))
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let rows = [
        "flaky-429 LABEL=polite",
        "flaky-500 LABEL=polite",
        "slow LABEL=polite",
        "dropped LABEL=polite",
        "always-500",
        "garbage",
        "off-choices",
        "empty",
        "unauthorized",
        "echo-key LABEL=polite",
        "echo-label",
    ];
    setup(dir.path(), &server.base_url(), &rows, &json!({"retries": 2}), "{}");
    let o = run(dir.path(), &["--no-cache"]);
    // Failed judgements: the run does not pass.
    assert_eq!(code(&o), 1, "{}{}", stdout(&o), stderr(&o));
    let r = results(dir.path());
    for row in &r[..4] {
        assert_eq!(row["scores"][0]["label"], "polite", "{row}");
        assert_eq!(row["passed"]["polite"], true);
    }
    let error = |i: usize| r[i]["execution"]["polite"]["error"].as_str().unwrap_or("").to_owned();
    assert!(error(4).contains("HTTP 500 after 3 attempt(s)"), "{}", error(4));
    assert!(
        error(5).contains("malformed reply (not JSON)") && error(5).contains("<html>oops"),
        "{}",
        error(5)
    );
    assert!(
        error(6).contains("label `neutral` is not one of the choices")
            && error(6).contains("neutral"),
        "{}",
        error(6)
    );
    assert!(error(7).contains("no choices"), "{}", error(7));
    assert!(error(8).contains("HTTP 401 after 1 attempt(s)"), "{}", error(8));
    // A key a server echoes back is replaced before it reaches anything.
    assert_eq!(r[9]["scores"][0]["explanation"], "your key is ***");
    assert!(error(10).contains("label `***` is not one of the choices"), "{}", error(10));
    for row in r[4..9].iter().chain(&r[10..11]) {
        assert_eq!(row["execution"]["polite"]["status"], "failed");
        assert_eq!(row["passed"]["polite"], false, "a failed judgement never passes");
        assert!(row["scores"].as_array().unwrap().is_empty());
    }
    let j = &summary(dir.path())["judges"][0];
    // 429 once, 500 twice, a timeout: 4 retries; always-500: 2 more. The
    // dropped connection is one more, unless an answer had come on a kept
    // connection before it (rows run concurrently): then it is sent again
    // at once on a new connection, a request but not a retry.
    assert!(matches!(j["retries"].as_u64(), Some(6 | 7)), "{j}");
    assert_eq!(j["failures"], 6, "{j}");
    assert!(!everything(dir.path(), &o).contains(KEY));
}

#[test]
fn a_server_without_tools_gets_a_json_schema_then_plain_text() {
    let server = ScriptedServer::start(Script::new(vec![
        Rule::new(
            When::PromptContains("Is this polite".into()),
            Reply::Status { code: 400, retry_after: None, body: "tools are not supported".into() },
        )
        .times(1),
        // Plain-text requests (they ask for the label on the first line)
        // are answered; anything else about this row is refused.
        Rule::new(
            When::PromptContains("Put the label on the first line".into()),
            Reply::Text("Rude.\nBlunt words.".into()),
        ),
        Rule::new(
            When::PromptContains("no-json-either".into()),
            Reply::Status { code: 400, retry_after: None, body: "no response_format".into() },
        ),
    ]))
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path(), &server.base_url(), &["Hello LABEL=polite"], &json!({}), "{}");
    let o = run(dir.path(), &["--no-cache"]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let r = results(dir.path());
    assert_eq!(r[0]["scores"][0]["label"], "polite");
    assert_eq!(r[0]["scores"][0]["metadata"]["mode"], "json_schema");
    let reqs = server.requests();
    assert!(reqs[0].body.get("tools").is_some());
    assert!(reqs[1].body.get("tools").is_none());
    assert_eq!(reqs[1].body["response_format"]["type"], "json_schema");

    // A server that takes neither tools nor json_schema gets plain text.
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path(), &server.base_url(), &["no-json-either"], &json!({}), "{}");
    let o = run(dir.path(), &["--no-cache"]);
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let r = results(dir.path());
    assert_eq!(r[0]["scores"][0]["label"], "rude", "{}", r[0]);
    assert_eq!(r[0]["scores"][0]["explanation"], "Blunt words.");
    assert_eq!(r[0]["scores"][0]["metadata"]["mode"], "text");
}
mod factuality_tone;
mod fields;
mod hostile;
mod servers;

#[test]
fn a_template_placeholder_with_no_column_is_a_load_error() {
    let server = ScriptedServer::start(Script::new(vec![])).unwrap();
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path(), &server.base_url(), &["Hello LABEL=polite"], &json!({}), "{}");
    let path = dir.path().join("suite.yaml");
    let mut suite: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let ev = &mut suite["evaluators"][0];
    ev["options"]["template"] = json!("Is this polite?\n{anwser}");
    ev["mapping"] = json!({});
    std::fs::write(&path, suite.to_string()).unwrap();
    let o = run(dir.path(), &["--no-cache"]);
    assert_eq!(code(&o), 2, "{}{}", stdout(&o), stderr(&o));
    assert!(
        stderr(&o).contains("input `anwser` (a template placeholder) has no mapping"),
        "{}",
        stderr(&o)
    );
    assert!(stderr(&o).contains("columns: answer, id"), "{}", stderr(&o));
    assert_eq!(server.request_count(), 0);
}

#[test]
fn ctrl_c_stops_waiting_for_slow_judges_and_keeps_what_is_done() {
    // The two slow requests take 20 s (the judge's timeout is 30 s):
    // without a bound on the wait, Ctrl-C would take that long. Asked
    // again, they are answered at once.
    let server = ScriptedServer::start(Script::new(vec![
        Rule::new(When::PromptContains("slow".into()), Reply::Auto.delayed(20_000)).times(2),
    ]))
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let rows = ["quick LABEL=polite", "slow one", "slow two"];
    setup(
        dir.path(),
        &server.base_url(),
        &rows,
        &json!({"timeout": 30, "max_concurrency": 4}),
        "{}",
    );
    let child = Command::new(env!("CARGO_BIN_EXE_refscore"))
        .arg("run")
        .arg(dir.path().join("suite.yaml"))
        .arg("-o")
        .arg(dir.path().join("out"))
        .arg("--no-cache")
        .env("TEST_JUDGE_KEY", KEY)
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the slow requests are in flight.
    let t0 = std::time::Instant::now();
    while server.request_count() < 3 && t0.elapsed() < std::time::Duration::from_secs(10) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(server.request_count(), 3);
    let sent = std::time::Instant::now();
    let killed = Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(killed.success());
    let o = child.wait_with_output().unwrap();
    let waited = sent.elapsed();
    assert!(waited < std::time::Duration::from_secs(8), "stopped after {waited:?}");
    assert_eq!(code(&o), 1, "{}{}", stdout(&o), stderr(&o));
    let s = summary(dir.path());
    assert_eq!(s["cancelled"], true, "{s}");
    // Given up at the stop, the two judgements are no failures of the
    // judge (nor evaluations); their requests count.
    let j = &s["judges"][0];
    assert_eq!(
        (j["evaluations"].as_u64(), j["requests"].as_u64(), j["failures"].as_u64()),
        (Some(1), Some(3), Some(0)),
        "{j}"
    );
    assert!(stdout(&o).contains("✓ max_judge_failures <= 0 (actual 0)"), "{}", stdout(&o));
    let r = results(dir.path());
    assert_eq!(r[0]["scores"][0]["label"], "polite", "the finished judgement is kept");
    // The rows whose requests were given up are not recorded as failed:
    // the resume asks their judge again.
    assert_eq!(r.len(), 1, "{r:?}");
    let o = Command::new(env!("CARGO_BIN_EXE_refscore"))
        .arg("run")
        .arg(dir.path().join("suite.yaml"))
        .args(["--resume", "--no-cache", "-q"])
        .env("TEST_JUDGE_KEY", KEY)
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .output()
        .unwrap();
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    let s = summary(dir.path());
    assert_eq!(
        (s["cancelled"].as_bool(), s["rows_with_failures"].as_u64()),
        (Some(false), Some(0)),
        "{s}"
    );
    let r = results(dir.path());
    assert_eq!(r.len(), 3);
    assert!(r.iter().all(|row| row["execution"]["polite"]["error"].is_null()), "{r:?}");
    assert_eq!(server.request_count(), 5, "the two given-up requests were asked again");
}

/// The judges' reply cache is never the run store nor an output file, and
/// a refused run opens no cache: nothing is created before the refusal.
#[test]
fn the_reply_cache_is_checked_against_the_store_and_the_outputs_before_it_is_opened() {
    let server = ScriptedServer::start(Script::new(vec![])).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    setup(d, &server.base_url(), &["Hello"], &json!({}), "{}");
    let store = d.join("runs.db");
    let o = run(d, &["--store", store.to_str().unwrap(), "--cache", store.to_str().unwrap()]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("the judges' reply cache"), "{}", stderr(&o));
    assert!(!store.exists(), "the store was opened before the refusal");
    let o = run(d, &["--cache", d.join("out/results.jsonl").to_str().unwrap()]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(!d.join("out").exists(), "a file was created before the refusal");
    assert_eq!(server.request_count(), 0);
    // A resume refused (nothing to resume) opens no cache either.
    let o = run(d, &["--no-cache", "-q"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let cache = d.join("out/replies.db");
    let o = run(d, &["--resume", "--cache", cache.to_str().unwrap()]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("no unfinished run"), "{}", stderr(&o));
    assert!(!cache.exists(), "the cache was opened before the refusal");
}
