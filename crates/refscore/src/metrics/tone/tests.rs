//! Tone profiles on realistic texts, through the evaluator.

use serde_json::json;

use super::*;
use crate::metrics::build;

const FORMAL: &str = "Dear Ms. Patel, we hereby confirm receipt of your request regarding invoice 4471. \
    Consequently, the outstanding balance will be settled prior to the end of the month. \
    Furthermore, a revised statement will be provided subsequently.";

const CASUAL: &str = "Hey! Got your msg about the invoice lol. We're gonna sort it out super soon, \
    don't worry!! 😀 Thanks a ton, you're awesome!";

fn run(options: Value, output: &str, reference: Option<&str>) -> Score {
    let map = options.as_object().cloned().unwrap_or_default();
    let m = build("tone", &map, &BuildContext::default()).unwrap();
    let mut input = EvalInput::new().with("output", json!(output));
    if let Some(r) = reference {
        input.set("reference", json!(r));
    }
    m.evaluate(&input).unwrap().scores.remove(0)
}

fn detail<'a>(s: &'a Score, check: &str) -> &'a Detail {
    s.details.iter().find(|d| d.check == check).unwrap()
}

#[test]
fn formal_profile_passes_formal_text_and_fails_casual() {
    let opts = json!({"profile": {"formality": "formal"}, "dimensions": ["formality"]});
    let formal = run(opts.clone(), FORMAL, None);
    assert_eq!(formal.label.as_deref(), Some("pass"), "{:?}", formal.explanation);
    assert!(formal.score.unwrap() > 0.5);
    let casual = run(opts, CASUAL, None);
    assert_eq!(casual.score, Some(0.0));
    assert_eq!(casual.label.as_deref(), Some("fail"));
    let d = detail(&casual, "tone.formality");
    assert_eq!(d.expected.as_deref(), Some("at least 0.85 (formal)"));
    assert_eq!(d.actual.as_deref(), Some("0.00"));
    assert_eq!(d.outcome, Outcome::Fail);
}

#[test]
fn casual_profile_prefers_casual_text() {
    let opts = json!({"profile": "casual, positive", "dimensions": ["formality", "sentiment"]});
    let casual = run(opts.clone(), CASUAL, None);
    let formal = run(opts, FORMAL, None);
    assert!(casual.score.unwrap() > formal.score.unwrap());
    assert!(detail(&casual, "tone.sentiment").passed);
    assert!(!detail(&formal, "tone.formality").passed);
}

#[test]
fn reference_sets_the_profile() {
    let same = run(json!({}), FORMAL, Some(FORMAL));
    assert_eq!(same.score, Some(1.0), "{:?}", same.explanation);
    assert_eq!(same.details.len(), 5);
    assert_eq!(
        detail(&same, "tone.verbosity").expected.as_deref().map(|e| e.starts_with("reference: ")),
        Some(true)
    );
    let off = run(json!({}), CASUAL, Some(FORMAL));
    assert!(off.score.unwrap() < 0.8);
    assert_eq!(off.label.as_deref(), Some("fail"));
    assert!(off.explanation.unwrap().starts_with("Tone: "));
}

#[test]
fn without_target_only_persona_is_measured() {
    let s = run(json!({}), FORMAL, None);
    assert_eq!(s.details.len(), 1);
    assert_eq!(s.details[0].check, "tone.persona_consistency");
    assert_eq!(
        s.metadata["skipped"],
        json!(["formality", "sentiment", "assertiveness", "verbosity"])
    );
    // Asked for explicitly, a dimension without target fails.
    let s = run(json!({"dimensions": ["formality", "persona_consistency"]}), FORMAL, None);
    assert_eq!(s.label.as_deref(), Some("fail"));
    assert!(detail(&s, "tone.formality").message.as_deref().unwrap().contains("no target"));
    let s = run(json!({"dimensions": ["sentiment"]}), FORMAL, None);
    assert!(s.is_invalid());
}

#[test]
fn weights_and_tolerance() {
    let opts = json!({
        "profile": {"formality": "formal", "sentiment": "neutral"},
        "dimensions": ["formality", "sentiment"],
        "weights": {"formality": 3, "sentiment": 1},
        "tolerance": 0.5
    });
    let s = run(opts, CASUAL, None);
    let f = detail(&s, "tone.formality").score.unwrap();
    let se = detail(&s, "tone.sentiment").score.unwrap();
    assert!((s.score.unwrap() - (3.0 * f + se) / 4.0).abs() < 1e-12);
    // d = 0.85 with tolerance 0.5: 1 − 0.85/1.0.
    assert!((f - 0.15).abs() < 1e-12);
    let zero = run(
        json!({"profile": {"formality": 0.5}, "dimensions": ["formality"], "weights": {"formality": 0}}),
        FORMAL,
        None,
    );
    assert!(zero.is_invalid());
}

#[test]
fn verbosity_against_named_target() {
    let s = run(
        json!({"profile": {"verbosity": "concise"}, "dimensions": ["verbosity"]}),
        "The order shipped today. It arrives on Monday morning.",
        None,
    );
    let d = detail(&s, "tone.verbosity");
    assert_eq!(d.expected.as_deref(), Some("at most 12.0 words per sentence (concise)"));
    assert_eq!(d.actual.as_deref(), Some("9 words, 4.5 words per sentence"));
    // Shorter than concise is fine.
    assert!(d.passed);
    assert_eq!(s.score, Some(1.0));
    let s = run(
        json!({"profile": {"verbosity": 12}, "dimensions": ["verbosity"]}),
        "The order shipped today. It arrives on Monday morning.",
        None,
    );
    // Two-sided: 4.5 / 16.5 = 0.27, 0.23 from 0.5, outside 0.2.
    assert!(!detail(&s, "tone.verbosity").passed);
}

#[test]
fn options_are_checked() {
    let bad =
        |o: Value| Tone::from_options(o.as_object().unwrap(), &BuildContext::default()).is_err();
    assert!(bad(json!({"dimensions": ["humour"]})));
    assert!(bad(json!({"weights": {"formality": -1}})));
    assert!(bad(json!({"weights": [1, 2]})));
    assert!(bad(json!({"tolerance": 0})));
    assert!(bad(json!({"profile": {"formality": "stiff"}})));
    assert!(bad(json!({"style": "x"})));
    assert!(!bad(
        json!({"dimensions": "verbosity", "profile": {"verbosity": 15}, "tolerance": 0.3})
    ));
}

#[test]
fn empty_and_odd_outputs() {
    let m = build("tone", &Map::new(), &BuildContext::default()).unwrap();
    let blank = EvalInput::new().with("output", json!("   ")).with("reference", json!("text"));
    assert_eq!(
        m.evaluate(&blank).unwrap_err(),
        crate::error::EvalError::EmptyInput { input: "output".into() }
    );
    let s = run(json!({}), "😀😀 !!! ??", Some("Fine."));
    assert!(s.is_invalid() || s.score.is_some_and(|x| (0.0..=1.0).contains(&x)));
    let s = m
        .evaluate(&EvalInput::pair(json!({"a": "Great stuff"}), Value::Null))
        .unwrap()
        .scores
        .remove(0);
    assert!(s.score.is_some());
}

proptest::proptest! {
    #[test]
    fn any_text_gives_a_score_in_range(out in "\\PC{0,120}", r in "\\PC{0,120}") {
        let t = Tone::default();
        let s = t.score_texts(&out, Some(&r));
        proptest::prop_assert!(s.score.is_none_or(|x| (0.0..=1.0).contains(&x)));
        for d in &s.details {
            proptest::prop_assert!(d.score.is_none_or(|x| (0.0..=1.0).contains(&x)));
        }
    }
}

/// `method: judge` built with a judge named `default` that is never
/// called: the tests judge through a scripted `ask`.
fn judged_tone(options: Value) -> Tone {
    let mut map = options.as_object().cloned().unwrap_or_default();
    map.insert("method".into(), json!("judge"));
    Tone::from_options(&map, &crate::metrics::classify::tests::context()).unwrap()
}

/// An `ask` answering `reply`, keeping the prompts and schemas it got.
fn answering(
    reply: Value,
    asked: &std::cell::RefCell<Vec<(String, Value)>>,
) -> impl FnMut(&str, &Value) -> Result<Rated, EvalError> + '_ {
    move |prompt: &str, schema: &Value| {
        asked.borrow_mut().push((prompt.to_owned(), schema.clone()));
        Ok(Rated {
            object: reply.as_object().cloned().unwrap_or_default(),
            prompt_tokens: 200,
            completion_tokens: 20,
            cached: false,
            mode: "tools",
        })
    }
}

#[test]
fn judged_ratings_go_through_the_same_formula() {
    let t = judged_tone(json!({
        "profile": {"formality": "formal", "sentiment": 0.5, "verbosity": "concise"},
        "dimensions": ["formality", "sentiment", "persona_consistency", "verbosity"],
    }));
    assert_eq!(t.kind(), Kind::Llm);
    let asked = std::cell::RefCell::new(Vec::new());
    let reply = json!({"explanation": "Businesslike but cold.",
        "output": {"formality": 0.9, "sentiment": 0.1, "persona_consistency": 0.95}});
    let mut ask = answering(reply, &asked);
    let s = t.score_with(FORMAL, None, Some(&mut ask)).unwrap();
    // One request: formality, sentiment, persona on the output; verbosity
    // against words per sentence is counted.
    assert_eq!(asked.borrow().len(), 1);
    let seen = asked.borrow();
    let (prompt, schema) = &seen[0];
    assert_eq!(
        schema["properties"]["output"]["required"],
        json!(["formality", "sentiment", "persona_consistency"])
    );
    assert!(schema["properties"].get("reference").is_none());
    assert!(prompt.contains(FORMAL), "{prompt}");
    // formality: at least 0.85, 0.9 → 1. sentiment: 0.5 ± 0.2, 0.1 is
    // 0.4 off → 0. persona: at least 1, 0.95 → 1 − 0.05/0.4 = 0.875.
    let f = detail(&s, "tone.formality");
    assert_eq!(
        (f.expected.as_deref(), f.actual.as_deref(), f.score),
        (Some("at least 0.85 (formal)"), Some("0.90"), Some(1.0))
    );
    let se = detail(&s, "tone.sentiment");
    assert_eq!(
        (se.passed, se.score, se.message.as_deref()),
        (false, Some(0.0), Some("off by 0.40 from target (tolerance 0.20)"))
    );
    let p = detail(&s, "tone.persona_consistency");
    assert_eq!(p.expected.as_deref(), Some("1.00 (consistent)"));
    assert!((p.score.unwrap() - 0.875).abs() < 1e-12);
    let v = detail(&s, "tone.verbosity");
    assert_eq!(v.expected.as_deref(), Some("at most 12.0 words per sentence (concise)"));
    let want = (1.0 + 0.0 + 0.875 + v.score.unwrap()) / 4.0;
    assert!((s.score.unwrap() - want).abs() < 1e-12);
    assert_eq!(s.label.as_deref(), Some("fail"));
    assert_eq!(s.kind, Kind::Llm);
    for (k, v) in [
        ("method", json!("judge")),
        ("judge", json!("default")),
        ("model", json!("test-model")),
        ("judge_mode", json!("tools")),
        ("prompt_tokens", json!(200)),
        ("completion_tokens", json!(20)),
        ("cached", json!(false)),
        ("counted", json!(["verbosity"])),
    ] {
        assert_eq!(s.metadata[k], v, "{k}");
    }
    assert_eq!(s.metadata["measured"]["sentiment"], 0.1);
    assert!(s.explanation.unwrap().ends_with("\nJudge: Businesslike but cold."));
}

#[test]
fn judged_targets_come_from_the_reference_ratings() {
    let t = judged_tone(json!({"dimensions": ["formality", "persona_consistency", "verbosity"]}));
    let asked = std::cell::RefCell::new(Vec::new());
    let reply = json!({"explanation": "x",
        "output": {"formality": 0.2, "persona_consistency": 0.9, "verbosity": 0.55},
        "reference": {"formality": 0.9, "persona_consistency": 0.8, "verbosity": 0.5}});
    let mut ask = answering(reply, &asked);
    let s = t.score_with(CASUAL, Some(FORMAL), Some(&mut ask)).unwrap();
    let seen = asked.borrow();
    let (prompt, schema) = &seen[0];
    assert_eq!(
        schema["properties"]["reference"]["required"],
        json!(["formality", "persona_consistency", "verbosity"])
    );
    assert!(prompt.contains(CASUAL) && prompt.contains(FORMAL), "{prompt}");
    let f = detail(&s, "tone.formality");
    assert_eq!((f.expected.as_deref(), f.score), (Some("0.90 (judged on reference)"), Some(0.0)));
    let p = detail(&s, "tone.persona_consistency");
    assert_eq!(
        (p.expected.as_deref(), p.score),
        (Some("at least 0.80 (judged on reference)"), Some(1.0))
    );
    let v = detail(&s, "tone.verbosity");
    assert!((v.score.unwrap() - 0.875).abs() < 1e-12);
    assert_eq!(
        s.metadata["reference_measured"],
        json!({"formality": 0.9, "persona_consistency": 0.8, "verbosity": 0.5})
    );
    assert!(s.metadata.get("counted").is_none());
    // No target at all (no profile, no reference): skipped as by the
    // heuristic, and only persona consistency is asked about.
    let t = judged_tone(json!({}));
    let asked = std::cell::RefCell::new(Vec::new());
    let mut ask = answering(json!({"output": {"persona_consistency": 1}}), &asked);
    let s = t.score_with(FORMAL, None, Some(&mut ask)).unwrap();
    assert_eq!(
        asked.borrow()[0].1["properties"]["output"]["required"],
        json!(["persona_consistency"])
    );
    assert_eq!(s.score, Some(1.0));
    assert_eq!(
        s.metadata["skipped"],
        json!(["formality", "sentiment", "assertiveness", "verbosity"])
    );
}

#[test]
fn unusable_or_failed_judgements_fall_back_or_fail() {
    let opts = json!({"profile": {"formality": "formal"}, "dimensions": ["formality"]});
    let heuristic = run(opts.clone(), FORMAL, None);
    for reply in [
        json!({"output": {"formality": 1.5}}),
        json!({"output": {"sentiment": 0.5}}),
        json!({"output": {"formality": "high"}}),
        json!({"ratings": {}}),
    ] {
        let t = judged_tone(opts.clone());
        let asked = std::cell::RefCell::new(Vec::new());
        let mut ask = answering(reply.clone(), &asked);
        let s = t.score_with(FORMAL, None, Some(&mut ask)).unwrap();
        assert_eq!(s.score, heuristic.score, "{reply}");
        assert_eq!(s.details, heuristic.details);
        assert_eq!(s.kind, Kind::Code);
        assert_eq!(s.metadata["method"], "heuristic");
        let why = s.metadata["fallback_reason"].as_str().unwrap();
        assert!(why.starts_with("judge `default`: ") && why.contains("; reply: "), "{why}");
        let mut fail = opts.as_object().cloned().unwrap();
        fail.insert("fallback".into(), json!("fail"));
        let t = judged_tone(Value::Object(fail));
        let mut ask = answering(reply.clone(), &asked);
        let e = t.score_with(FORMAL, None, Some(&mut ask)).unwrap_err();
        assert_eq!(e.to_string(), why, "{reply}");
    }
    let t = judged_tone(opts.clone());
    let mut down = |_: &str, _: &Value| -> Result<Rated, EvalError> {
        Err(EvalError::Failed(String::from("judge `default`: HTTP 500 after 1 attempt(s)")))
    };
    let s = t.score_with(FORMAL, None, Some(&mut down)).unwrap();
    assert_eq!(s.metadata["fallback_reason"], "judge `default`: HTTP 500 after 1 attempt(s)");
    assert!(s.explanation.unwrap().ends_with(
        "\nScored with the heuristic, not the judge: judge `default`: HTTP 500 after 1 attempt(s)"
    ));
    // No words: invalid, and nobody is asked.
    let asked = std::cell::RefCell::new(Vec::new());
    let mut ask = answering(json!({}), &asked);
    assert!(t.score_with("😀 !!", None, Some(&mut ask)).unwrap().is_invalid());
    assert!(asked.borrow().is_empty());
}

#[test]
fn judge_method_options() {
    let judges = crate::metrics::classify::tests::context();
    let none = BuildContext::default();
    let build = |o: Value, ctx: &BuildContext| Tone::from_options(o.as_object().unwrap(), ctx);
    // Heuristic (default): every score says so; the judge is not looked up.
    let t = build(json!({"judge": "missing"}), &judges).unwrap();
    assert_eq!(t.kind(), Kind::Code);
    assert_eq!(t.score_texts(FORMAL, Some(FORMAL)).metadata["method"], "heuristic");
    // Judge without any judge in the suite: the heuristic, with the reason.
    let t = build(json!({"method": "judge"}), &none).unwrap();
    assert_eq!(t.kind(), Kind::Code);
    let s = run(json!({"method": "judge"}), FORMAL, Some(FORMAL));
    assert_eq!(s.score, Some(1.0));
    assert_eq!(
        (s.metadata["method"].as_str(), s.metadata["fallback_reason"].as_str()),
        (Some("heuristic"), Some("no judge is configured"))
    );
    let e = build(json!({"method": "judge", "fallback": "fail"}), &none).unwrap_err().to_string();
    assert!(e.contains("`fail` needs a judge"), "{e}");
    let e = build(json!({"method": "judge", "judge": "other"}), &judges).unwrap_err().to_string();
    assert!(e.contains("judge `other` is not defined"), "{e}");
    for bad in [json!({"method": "llm"}), json!({"judge_mode": "x"}), json!({"fallback": "no"})] {
        assert!(build(bad.clone(), &judges).is_err(), "{bad}");
    }
    assert_eq!(build(json!({"method": "judge"}), &judges).unwrap().kind(), Kind::Llm);
}
