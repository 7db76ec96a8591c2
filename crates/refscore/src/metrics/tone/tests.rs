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
