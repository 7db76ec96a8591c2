//! Claim verdicts on realistic outputs, through the evaluator.

use serde_json::json;

use super::*;
use crate::metrics::build;

fn metric(options: Value) -> Box<dyn Evaluator> {
    let map = options.as_object().cloned().unwrap_or_default();
    build("factuality", &map, &BuildContext::default()).unwrap()
}

fn run(options: Value, output: &str, reference: &str) -> Score {
    metric(options)
        .evaluate(&EvalInput::pair(json!(output), json!(reference)))
        .unwrap()
        .scores
        .remove(0)
}

fn outcomes(s: &Score) -> Vec<Outcome> {
    s.details.iter().map(|d| d.outcome).collect()
}

const REFERENCE: &str = "Acme Corp was founded in 1998 by Jane Smith. The company is headquartered in \
    Berlin. In 2023, revenue grew 24% to $5.2 million. Acme does not sell hardware.";

#[test]
fn faithful_paraphrase_is_supported() {
    let s = run(
        json!({}),
        "Founded by Jane Smith in 1998, Acme Corp has its headquarters in Berlin. Revenue grew 24% in 2023.",
        REFERENCE,
    );
    assert_eq!(s.score, Some(1.0), "{:?}", s.explanation);
    assert_eq!(s.label.as_deref(), Some("pass"));
    assert_eq!(outcomes(&s), [Outcome::Supported, Outcome::Supported]);
    assert_eq!(
        s.details[1].expected.as_deref(),
        Some("In 2023, revenue grew 24% to $5.2 million.")
    );
    assert_eq!(s.metadata["method"], "claims");
}

#[test]
fn changed_number_is_contradicted() {
    let s = run(json!({}), "In 2023, revenue grew 42% to $5.2 million.", REFERENCE);
    assert_eq!(s.score, Some(0.0));
    assert_eq!(s.label.as_deref(), Some("fail"));
    let d = &s.details[0];
    assert_eq!(
        (d.check.to_string(), d.outcome, d.passed),
        ("factuality.claim[0]".to_string(), Outcome::Contradicted, false)
    );
    assert_eq!(d.message.as_deref(), Some("number 42% disagrees with 24% in reference"));
    assert_eq!(d.actual.as_deref(), Some("In 2023, revenue grew 42% to $5.2 million."));
    let e = s.explanation.unwrap();
    assert!(e.starts_with("Factuality: 0/1 claims supported (1 contradicted, 0 unverifiable)\n  ✗ factuality.claim[0]"), "{e}");
}

#[test]
fn added_negation_is_contradicted() {
    let s =
        run(json!({"mode": "lenient"}), "The company is not headquartered in Berlin.", REFERENCE);
    assert_eq!(outcomes(&s), [Outcome::Contradicted]);
    assert!(s.details[0].message.as_deref().unwrap().contains("negated"));
    assert_eq!(s.label.as_deref(), Some("fail"));
    // And a removed one.
    let s = run(json!({}), "Acme sells hardware.", REFERENCE);
    assert_eq!(outcomes(&s), [Outcome::Contradicted]);
}

#[test]
fn changed_date_and_entity_are_contradicted() {
    let s = run(json!({}), "Acme Corp was founded in 1997 by Jane Smith.", REFERENCE);
    assert_eq!(s.details[0].message.as_deref(), Some("date 1997 disagrees with 1998 in reference"));
    let s = run(json!({}), "The company is headquartered in Munich.", REFERENCE);
    assert_eq!(
        s.details[0].message.as_deref(),
        Some("entity Munich disagrees with Berlin in reference")
    );
}

#[test]
fn absent_claim_fails_strict_passes_lenient() {
    let out = "Acme Corp was founded in 1998. It employs 300 engineers in Tokyo.";
    let strict = run(json!({}), out, REFERENCE);
    assert_eq!(outcomes(&strict), [Outcome::Supported, Outcome::Unverifiable]);
    assert_eq!(strict.score, Some(0.5));
    assert_eq!(strict.label.as_deref(), Some("fail"));
    assert!(strict.details[1].expected.is_none());
    let lenient = run(json!({"mode": "lenient"}), out, REFERENCE);
    assert_eq!(lenient.score, Some(0.5));
    assert_eq!(lenient.label.as_deref(), Some("pass"));
    assert!(lenient.details[1].passed);
}

#[test]
fn context_is_evidence() {
    let input = EvalInput::pair(json!("Acme employs 300 engineers."), json!(REFERENCE))
        .with("context", json!(["Acme employs 300 engineers.", "Unrelated."]));
    let s = metric(json!({})).evaluate(&input).unwrap().scores.remove(0);
    assert_eq!(outcomes(&s), [Outcome::Supported]);
    assert_eq!(s.details[0].message.as_deref(), Some("supported by context[0]"));
}

#[test]
fn json_reference_leaves_are_evidence() {
    let r = json!({"vendor": "Acme", "total": 1250.5, "currency": "EUR"});
    let input =
        EvalInput::pair(json!("The total is 1,250.50 and the vendor is Acme. The total is 99."), r);
    let s = metric(json!({})).evaluate(&input).unwrap().scores.remove(0);
    assert_eq!(outcomes(&s), [Outcome::Supported, Outcome::Contradicted], "{:?}", s.details);
}

#[test]
fn both_json_uses_structural_comparison_in_any_mode() {
    for mode in ["strict", "lenient", "json_structural"] {
        let s = run(
            json!({"mode": mode}),
            "```json\n{\"a\": 1, \"b\": \"x\"}\n```",
            "{\"a\": 1, \"b\": \"y\"}",
        );
        assert_eq!(s.name, "factuality");
        assert_eq!(s.score, Some(0.5));
        assert_eq!(s.metadata["method"], "json_structural");
        assert_eq!(s.details[0].check, "json_path.$.b");
        assert!(
            s.explanation
                .as_deref()
                .unwrap()
                .starts_with("Factuality score 50%: 1/2 leaf values match")
        );
        assert_eq!(s.label.as_deref(), Some("fail"));
    }
}

#[test]
fn explicit_json_mode_needs_json() {
    let s = run(json!({"mode": "json_structural"}), "{\"a\": 1}", "The answer is one.");
    assert!(s.is_invalid());
    let e = s.explanation.unwrap();
    assert!(e.contains("reference is not JSON") && !e.contains("output is not"), "{e}");
}

#[test]
fn overlap_scoring_reproduces_regtrace() {
    let s = run(
        json!({"scoring": "overlap"}),
        "Paris is the capital city of France.",
        "The capital of France is Paris.",
    );
    let want = 0.4 * 6.0 / 7.0 + 0.6 * 2.0 / 9.0 - 0.1;
    assert!((s.score.unwrap() - want).abs() < 1e-12);
    assert_eq!(s.metadata["method"], "overlap");
    let lenient = run(
        json!({"scoring": "overlap", "mode": "lenient"}),
        "Paris is the capital city of France.",
        "The capital of France is Paris.",
    );
    assert!((lenient.score.unwrap() - (want + 0.1)).abs() < 1e-12);
}

#[test]
fn deep_without_a_judge_falls_back_and_says_so() {
    let s = run(json!({"depth": "deep"}), "Acme was founded in 1998.", REFERENCE);
    assert_eq!(s.score, Some(1.0));
    assert_eq!(s.kind, Kind::Code);
    assert!(
        s.explanation
            .unwrap()
            .ends_with("\nScored with the heuristic, not the judge: no judge is configured")
    );
    assert_eq!(
        (&s.metadata["method"], &s.metadata["heuristic"], &s.metadata["depth"]),
        (&json!("heuristic"), &json!("claims"), &json!("deep"))
    );
    assert_eq!(s.metadata["fallback_reason"], "no judge is configured");
    // Shallow scores say nothing of a fallback.
    let s = run(json!({}), "Acme was founded in 1998.", REFERENCE);
    assert_eq!(
        (s.metadata["method"].as_str(), s.metadata["depth"].as_str()),
        (Some("claims"), Some("shallow"))
    );
    assert!(s.metadata.get("fallback_reason").is_none());
}

#[test]
fn no_claims_scores_one() {
    let s = run(json!({}), "Thanks! Hope this helps.", REFERENCE);
    assert_eq!(s.score, Some(1.0));
    assert_eq!(s.explanation.as_deref(), Some("Factuality: no claims in the output"));
    // An empty answer is not a score: a required input is empty.
    let m = build("factuality", &Map::new(), &BuildContext::default()).unwrap();
    let e = m.evaluate(&EvalInput::pair(json!(""), json!(REFERENCE))).unwrap_err();
    assert_eq!(e, crate::error::EvalError::EmptyInput { input: "output".into() });
}

#[test]
fn options_are_checked() {
    let bad = |o: Value| {
        Factuality::from_options(o.as_object().unwrap(), &BuildContext::default()).is_err()
    };
    assert!(bad(json!({"mode": "fuzzy"})));
    assert!(bad(json!({"threshold": 1.5})));
    assert!(bad(json!({"colour": "red"})));
    assert!(!bad(
        json!({"mode": "lenient", "depth": "deep", "threshold": 0.5, "scoring": "overlap"})
    ));
}

#[test]
fn non_string_output_becomes_json_text() {
    let input = EvalInput::pair(json!(42), json!("The answer is 42."));
    let s = metric(json!({})).evaluate(&input).unwrap().scores.remove(0);
    assert_eq!(s.metadata["method"], "claims");
    assert_eq!(outcomes(&s), [Outcome::Supported]);
}

#[test]
fn hostile_inputs_do_not_panic() {
    let deep = format!("{}{}", "[".repeat(50_000), "]".repeat(50_000));
    let s = run(json!({}), &deep, "x");
    assert!(s.score.is_some());
    assert!(run(json!({"mode": "json_structural"}), &deep, "x").is_invalid());
    assert!(run(json!({"scoring": "overlap"}), &deep, "x").score.is_some());
    let weird = "É.. ?! 1,2,3 $-.5 …… 10-12 ’’ ; , and , but 9999999999999999999999999999999999e9 U.S.A. e.g.";
    let s = run(json!({}), weird, weird);
    assert!(s.score.is_some_and(|x| (0.0..=1.0).contains(&x)));
}

proptest::proptest! {
    #[test]
    fn any_text_gives_a_score_in_range(out in "\\PC{0,120}", r in "\\PC{0,120}", lenient in proptest::bool::ANY) {
        let f = Factuality::default().with_mode(if lenient { Mode::Lenient } else { Mode::Strict });
        let s = f.score_values(&json!(out), &json!(r), &[&json!(r)]);
        proptest::prop_assert!(s.score.is_none_or(|x| (0.0..=1.0).contains(&x)));
        let claims = s.details.iter().filter(|d| d.check.to_string().starts_with("factuality.claim")).count();
        if s.metadata.get("method") == Some(&json!("claims")) {
            proptest::prop_assert_eq!(s.metadata["claims"].as_u64(), Some(claims as u64));
        }
    }

    #[test]
    fn sentence_like_text_never_panics(words in proptest::collection::vec("[A-Za-z]{1,8}|[0-9]{1,4}(\\.[0-9])?%?|\\$[0-9,]{1,7}|[.,;!?]|e\\.g\\.|Dr\\.|not|n't|March|2021", 0..40)) {
        let text = words.join(" ");
        let s = Factuality::default().score_values(&json!(text), &json!(words.iter().rev().cloned().collect::<Vec<_>>().join(" ")), &[]);
        proptest::prop_assert!(s.score.is_some_and(|x| (0.0..=1.0).contains(&x)));
    }
}

#[test]
fn builders() {
    let f = Factuality::default()
        .with_scoring(Scoring::Overlap)
        .with_threshold(f64::NAN)
        .with_mode(Mode::Lenient);
    let s = f.score_values(&json!("a b"), &json!("a b"), &[]);
    assert_eq!((s.score, s.label.as_deref()), (Some(1.0), Some("pass")));
    let strict = Factuality::default().with_threshold(2.0);
    let s = strict.score_values(&json!("Acme was founded in 1998."), &json!(REFERENCE), &[]);
    // Threshold clamped to 1: every content word must be found.
    assert_eq!(s.score, Some(1.0));
}

#[test]
fn deep_json_values_are_not_copied_or_recursed() {
    let mut deep = json!("leaf");
    for _ in 0..20_000 {
        let mut m = Map::new();
        m.insert(String::from("k"), deep);
        deep = Value::Object(m);
    }
    let s = Factuality::default().score_values(&json!("The k is leaf."), &deep, &[&deep]);
    assert!(s.score.is_some());
    let s = Factuality::default().score_values(&deep, &deep, &[]);
    assert_eq!((s.score, s.metadata["method"].as_str()), (Some(1.0), Some("json_structural")));
    crate::json::drop_deep(deep);
}

/// `depth: deep` built with a judge named `default` that is never called:
/// the tests below judge through a scripted `ask`.
fn deep(options: Value) -> Factuality {
    let mut map = options.as_object().cloned().unwrap_or_default();
    map.insert("depth".into(), json!("deep"));
    Factuality::from_options(&map, &crate::metrics::classify::tests::context()).unwrap()
}

/// A verdict for every prompt whose claim contains a key of `script`.
fn scripted<'a>(
    script: &'a [(&'a str, Outcome, &'a str)],
    prompts: &'a std::cell::RefCell<Vec<String>>,
) -> impl FnMut(&str) -> Result<Judged, EvalError> + 'a {
    move |prompt: &str| {
        prompts.borrow_mut().push(prompt.to_owned());
        let claim = prompt.split("\n\nClaim: ").nth(1).unwrap_or("");
        let (_, outcome, why) = script
            .iter()
            .find(|(k, _, _)| claim.contains(k))
            .ok_or_else(|| EvalError::Failed(format!("judge `default`: HTTP 500 for {claim}")))?;
        Ok(Judged {
            outcome: *outcome,
            explanation: (!why.is_empty()).then(|| (*why).to_owned()),
            prompt_tokens: 100,
            completion_tokens: 10,
            cached: claim.contains("Berlin"),
            mode: Some(String::from("tools")),
        })
    }
}

const ANSWER: &str =
    "Acme was established in 1998. Its headquarters are in Munich. Acme employs 40 people.";

const SCRIPT: &[(&str, Outcome, &str)] = &[
    ("established in 1998", Outcome::Supported, "Founded in 1998, same meaning."),
    ("Munich", Outcome::Contradicted, "The reference says Berlin."),
    ("40 people", Outcome::Unverifiable, ""),
];

#[test]
fn deep_scores_the_judges_verdicts_with_the_shallow_formula() {
    let f = deep(json!({}));
    assert_eq!(f.kind(), Kind::Llm);
    let prompts = std::cell::RefCell::new(Vec::new());
    let mut ask = scripted(SCRIPT, &prompts);
    let s = f
        .score_with(
            &json!(ANSWER),
            &json!(REFERENCE),
            &[&json!("Acme is a software firm.")],
            Some(&mut ask),
        )
        .unwrap();
    assert_eq!(s.score, Some(1.0 / 3.0));
    assert_eq!(s.label.as_deref(), Some("fail"));
    assert_eq!(s.kind, Kind::Llm);
    assert_eq!(outcomes(&s), [Outcome::Supported, Outcome::Contradicted, Outcome::Unverifiable]);
    assert_eq!(s.details.iter().map(|d| d.passed).collect::<Vec<_>>(), [true, false, false]);
    let d = &s.details[1];
    assert_eq!(d.check.to_string(), "factuality.claim[1]");
    assert_eq!(d.actual.as_deref(), Some("Its headquarters are in Munich."));
    assert_eq!(d.message.as_deref(), Some("The reference says Berlin."));
    assert_eq!(s.details[2].message.as_deref(), Some("judged unverifiable"));
    for (k, v) in [
        ("method", json!("judge")),
        ("judge", json!("default")),
        ("model", json!("test-model")),
        ("judge_mode", json!("tools")),
        ("depth", json!("deep")),
        ("mode", json!("strict")),
        ("claims", json!(3)),
        ("supported", json!(1)),
        ("contradicted", json!(1)),
        ("unverifiable", json!(1)),
        ("prompt_tokens", json!(300)),
        ("completion_tokens", json!(30)),
        ("cached", json!(0)),
    ] {
        assert_eq!(s.metadata[k], v, "{k}");
    }
    assert!(s.metadata.get("fallback_reason").is_none());
    let e = s.explanation.unwrap();
    assert!(e.starts_with("Factuality: 1/3 claims supported (1 contradicted, 1 unverifiable)\n  ✗ factuality.claim[1]: The reference says Berlin."), "{e}");
    // One request per claim, each with the material and its own claim.
    assert_eq!(prompts.borrow().len(), 3);
    assert!(
        prompts.borrow()[0].contains("Reference:\nAcme Corp was founded in 1998"),
        "{}",
        prompts.borrow()[0]
    );
    assert!(
        prompts.borrow()[0].contains("\nContext:\nAcme is a software firm.\n"),
        "{}",
        prompts.borrow()[0]
    );
    assert!(prompts.borrow()[2].contains("\n\nClaim: Acme employs 40 people.\n\n"));

    // Lenient: unverifiable claims pass; the score is the same.
    let f = deep(json!({"mode": "lenient"}));
    let prompts = std::cell::RefCell::new(Vec::new());
    let mut ask = scripted(SCRIPT, &prompts);
    let s = f.score_with(&json!(ANSWER), &json!(REFERENCE), &[], Some(&mut ask)).unwrap();
    assert_eq!(s.score, Some(1.0 / 3.0));
    assert_eq!(s.details.iter().map(|d| d.passed).collect::<Vec<_>>(), [true, false, true]);
    let prompts = std::cell::RefCell::new(Vec::new());
    let mut ask = scripted(SCRIPT, &prompts);
    let s = f
        .score_with(
            &json!("Acme was established in 1998. Thanks!"),
            &json!(REFERENCE),
            &[],
            Some(&mut ask),
        )
        .unwrap();
    assert_eq!((s.score, s.label.as_deref()), (Some(1.0), Some("pass")));
    assert_eq!(prompts.borrow().len(), 1, "courtesy sentences are not claims");
}

#[test]
fn deep_falls_back_or_fails_when_a_judgement_fails() {
    let failing: &[(&str, Outcome, &str)] = &[("established", Outcome::Supported, "")];
    let f = deep(json!({}));
    let prompts = std::cell::RefCell::new(Vec::new());
    let mut ask = scripted(failing, &prompts);
    let s = f.score_with(&json!(ANSWER), &json!(REFERENCE), &[], Some(&mut ask)).unwrap();
    assert_eq!(prompts.borrow().len(), 2, "the first failure stops the judging");
    assert_eq!(s.kind, Kind::Code);
    assert_eq!(
        (s.metadata["method"].as_str(), s.metadata["heuristic"].as_str()),
        (Some("heuristic"), Some("claims"))
    );
    let reason = s.metadata["fallback_reason"].as_str().unwrap();
    assert!(reason.starts_with("judge `default`: HTTP 500 for Its headquarters"), "{reason}");
    // The heuristic's own verdicts: `established` is not `founded`.
    assert_eq!(outcomes(&s), [Outcome::Unverifiable, Outcome::Contradicted, Outcome::Unverifiable]);
    assert!(
        s.explanation
            .unwrap()
            .contains("\nScored with the heuristic, not the judge: judge `default`: HTTP 500")
    );

    let f = deep(json!({"fallback": "fail"}));
    let prompts = std::cell::RefCell::new(Vec::new());
    let mut ask = scripted(failing, &prompts);
    let e = f.score_with(&json!(ANSWER), &json!(REFERENCE), &[], Some(&mut ask)).unwrap_err();
    assert!(e.to_string().starts_with("judge `default`: HTTP 500"), "{e}");
}

#[test]
fn a_row_with_too_many_claims_is_not_judged() {
    let answer: String = (0..=super::judged::MAX_JUDGED_CLAIMS)
        .map(|i| format!("Acme Corp opened office number {i} in 1998. "))
        .collect();
    let f = deep(json!({}));
    let prompts = std::cell::RefCell::new(Vec::new());
    let mut ask = scripted(SCRIPT, &prompts);
    let s = f.score_with(&json!(answer), &json!(REFERENCE), &[], Some(&mut ask)).unwrap();
    assert!(prompts.borrow().is_empty(), "no request for an over-long row");
    let reason = s.metadata["fallback_reason"].as_str().unwrap();
    assert!(reason.contains("more than the 50 a row may send"), "{reason}");
    let f = deep(json!({"fallback": "fail"}));
    let mut ask = scripted(SCRIPT, &prompts);
    let e = f.score_with(&json!(answer), &json!(REFERENCE), &[], Some(&mut ask)).unwrap_err();
    assert!(e.to_string().contains("claims: more than"), "{e}");
}

#[test]
fn deep_compares_json_structurally_without_the_judge() {
    let f = deep(json!({"fallback": "fail"}));
    let prompts = std::cell::RefCell::new(Vec::new());
    let mut ask = scripted(SCRIPT, &prompts);
    let s = f.score_with(&json!({"a": 1}), &json!("{\"a\": 1}"), &[], Some(&mut ask)).unwrap();
    assert!(prompts.borrow().is_empty());
    assert_eq!(s.score, Some(1.0));
    assert_eq!(
        (&s.metadata["method"], &s.metadata["heuristic"], &s.metadata["fallback_reason"]),
        (
            &json!("heuristic"),
            &json!("json_structural"),
            &json!("both sides are JSON: compared structurally")
        )
    );
    // score_values never asks: the heuristic, saying so.
    let s = f.score_values(&json!(ANSWER), &json!(REFERENCE), &[]);
    assert_eq!(s.metadata["fallback_reason"], "scored without the judge");
}

#[test]
fn judge_options_are_checked_and_resolved_only_for_deep() {
    let judges = crate::metrics::classify::tests::context();
    let none = BuildContext::default();
    let build =
        |o: Value, ctx: &BuildContext| Factuality::from_options(o.as_object().unwrap(), ctx);
    // Shallow never looks the judge up, and stays deterministic.
    let f = build(json!({"judge": "missing", "fallback": "fail"}), &judges).unwrap();
    assert_eq!(f.kind(), Kind::Code);
    assert!(build(json!({"judge": "missing"}), &none).is_ok());
    // Deep: a judge name the suite does not define is an error...
    let e = build(json!({"depth": "deep", "judge": "missing"}), &judges).unwrap_err().to_string();
    assert!(e.contains("judge `missing` is not defined (judges: default)"), "{e}");
    // ... no judge at all falls back, unless `fallback: fail`.
    let f = build(json!({"depth": "deep", "judge": "missing"}), &none).unwrap();
    assert_eq!(f.kind(), Kind::Code);
    let e = build(json!({"depth": "deep", "fallback": "fail"}), &none).unwrap_err().to_string();
    assert!(e.contains("`fail` needs a judge"), "{e}");
    for bad in [
        json!({"fallback": "maybe"}),
        json!({"judge_mode": "smoke"}),
        json!({"explanation": 3}),
        json!({"system": 1}),
        json!({"mode": "tools"}),
    ] {
        assert!(build(bad.clone(), &judges).is_err(), "{bad}");
    }
    let f = build(
        json!({"depth": "deep", "judge_mode": "text", "explanation": false, "system": "Be strict."}),
        &judges,
    )
    .unwrap();
    assert_eq!(f.kind(), Kind::Llm);
}

#[test]
fn a_row_too_large_to_check_is_invalid_not_a_stall() {
    let sentence = |i: usize| format!("Site {i} in Berlin reported {i} units sold in 2023. ");
    let output: String = (0..1_500).map(sentence).collect();
    let reference: String = (0..1_500).map(|i| sentence(i + 7)).collect();
    let s = run(json!({}), &output, &reference);
    assert_eq!(s.score, None, "{:?}", s.explanation);
    let why = s.explanation.unwrap_or_default();
    assert!(why.contains("too large to check") && why.contains("1500 claims"), "{why}");
    // Below the limit the same texts are checked.
    let s = run(json!({}), &output[..2_000], &reference[..2_000]);
    assert!(s.score.is_some(), "{:?}", s.explanation);
}

/// Every decimal digit (Unicode Nd) is read by value, in the output and in
/// the reference alike: (output, reference, outcomes, first message).
#[test]
fn digits_of_any_script_are_read_by_value() {
    use Outcome::{Contradicted, Supported, Unverifiable};
    const INVOICE: &str = "The invoice total is 123 dollars.";
    let cases: &[(&str, &str, &[Outcome], &str)] = &[
        (
            "The invoice total is ４５６ dollars.",
            INVOICE,
            &[Contradicted],
            "number 456 dollars disagrees with 123 dollars in reference",
        ),
        ("The invoice total is ١٢٣ dollars.", INVOICE, &[Supported], "supported by reference"),
        (
            "The invoice total is ४५६ dollars.",
            INVOICE,
            &[Contradicted],
            "number 456 dollars disagrees with 123 dollars in reference",
        ),
        (
            "The invoice total is 4５𝟔 dollars.",
            "The invoice total is ۱۲۳ dollars.",
            &[Contradicted],
            "number 456 dollars disagrees with 123 dollars in reference",
        ),
        (
            "The invoice total is 123 dollars.",
            "The invoice total is １２３ dollars.",
            &[Supported],
            "supported by reference",
        ),
        (
            "The invoice total is $１,２３４.５.",
            "The invoice total is $1234.50.",
            &[Supported],
            "supported by reference",
        ),
        // A number alone is a claim, as `456` is.
        (
            "４５６",
            INVOICE,
            &[Unverifiable],
            "no evidence passage shares enough words (best overlap 0.00 < 0.70)",
        ),
        // A full-width list number is a list number, not a claim.
        (
            "１. The invoice total is ４５６ dollars.",
            INVOICE,
            &[Contradicted],
            "number 456 dollars disagrees with 123 dollars in reference",
        ),
        (
            "Acme Corp was founded in １９９７ by Jane Smith.",
            REFERENCE,
            &[Contradicted],
            "date 1997 disagrees with 1998 in reference",
        ),
        (
            "In ٢٠٢٣, revenue grew ４２% to $5.2 million.",
            REFERENCE,
            &[Contradicted],
            "number 42% disagrees with 24% in reference",
        ),
        (
            "The invoice is due on ２０２４-０１-３１.",
            "The invoice is due on 2024-01-30.",
            &[Contradicted],
            "date 2024-01-31 disagrees with 2024-01-30 in reference",
        ),
    ];
    for &(output, reference, want, message) in cases {
        let s = run(json!({}), output, reference);
        assert_eq!(outcomes(&s), want, "{output:?}: {:?}", s.explanation);
        assert_eq!(s.details[0].message.as_deref(), Some(message), "{output:?}");
        // Claims are shown as written.
        assert_eq!(s.details[0].actual.as_deref(), Some(output.trim_start_matches("１. ")));
    }
}

#[test]
fn overlap_scoring_reads_digits_by_value() {
    let s = run(
        json!({"scoring": "overlap"}),
        "The total is ４５６ dollars",
        "The total is 456 dollars",
    );
    assert_eq!(s.score, Some(1.0));
    let s = run(
        json!({"scoring": "overlap"}),
        "The total is ４５６ dollars",
        "The total is 123 dollars",
    );
    assert!(s.score.is_some_and(|x| x < 1.0));
}

/// Words, numbers and dates written in mixed scripts: full-width, Arabic-
/// Indic, Devanagari and mathematical (4-byte) digits next to ASCII, CJK and
/// accented letters, bullets and list numbers.
const MIXED_FRAGMENT: &str = "[A-Za-zé]{1,8}|価格|[0-9０-９٠-٩०-९𝟎-𝟗]{1,4}([.,][0-9０-９٠-٩]{1,3})?%?|[$€]\\s?[0-9１-９,]{1,7}|[0-9٠-٩]{4}-[0-9０-９]{2}-[0-9۰-۹]{2}|[.,;!?]|\n|\n- |\n[0-9１-９]{1,2}[.)] |not|March|dollars|million|2021|２０２１";

proptest::proptest! {
    /// Scoring a text is scoring its digits folded to ASCII (the texts
    /// start with a word, so neither is read as a JSON number), and no
    /// offset into a folded text is used in the original.
    #[test]
    fn mixed_script_digits_score_as_their_ascii_digits(
        out in proptest::collection::vec(MIXED_FRAGMENT, 0..30),
        r in proptest::collection::vec(MIXED_FRAGMENT, 0..30),
        lenient in proptest::bool::ANY,
        overlap in proptest::bool::ANY,
    ) {
        use crate::unicode_class::fold_digits;
        let (out, r) = (format!("Total {}", out.join(" ")), format!("Total {}", r.join(" ")));
        let f = Factuality::default()
            .with_mode(if lenient { Mode::Lenient } else { Mode::Strict })
            .with_scoring(if overlap { Scoring::Overlap } else { Scoring::Claims });
        let written = f.score_values(&json!(out), &json!(r), &[&json!(r)]);
        let folded = f.score_values(&json!(fold_digits(&out)), &json!(fold_digits(&r)), &[&json!(fold_digits(&r))]);
        proptest::prop_assert!(written.score.is_some_and(|x| (0.0..=1.0).contains(&x)));
        proptest::prop_assert_eq!(written.score, folded.score);
        let verdicts = |s: &Score| -> Vec<(String, Outcome, Option<String>)> {
            s.details.iter().map(|d| (d.check.to_string(), d.outcome, d.message.clone())).collect()
        };
        proptest::prop_assert_eq!(verdicts(&written), verdicts(&folded));
    }
}
