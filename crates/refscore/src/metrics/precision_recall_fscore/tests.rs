//! Tests of `precision_recall_fscore`.

use super::*;

/// Precision, recall and F.
type Prf = (f64, f64, f64);

fn metric(options: Value) -> Result<PrecisionRecallFScore, ConfigError> {
    PrecisionRecallFScore::from_options(options.as_object().unwrap(), &BuildContext::default())
}

/// (precision, recall, F) and the main score.
fn run(m: &PrecisionRecallFScore, output: Value, reference: Value) -> (Prf, Score) {
    let e = m.evaluate(&EvalInput::pair(output, reference)).unwrap();
    let names: Vec<&str> = e.scores.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["precision_recall_fscore", "precision", "recall"]);
    for s in &e.scores {
        let x = s.score.unwrap();
        assert!(x.is_finite() && (0.0..=1.0).contains(&x), "{x}");
    }
    let get = |i: usize| e.scores[i].score.unwrap();
    ((get(1), get(2), get(0)), e.scores[0].clone())
}

fn close(got: Prf, want: Prf) -> bool {
    (got.0 - want.0).abs() < 1e-12
        && (got.1 - want.1).abs() < 1e-12
        && (got.2 - want.2).abs() < 1e-12
}

#[test]
fn sequence_micro_macro_binary() {
    // Phoenix's example: expected [cat, dog, cat, bird], output [cat, cat, cat, bird].
    let out = json!(["cat", "cat", "cat", "bird"]);
    let gold = json!(["cat", "dog", "cat", "bird"]);
    // (options, (precision, recall, F))
    let cases: &[(Value, Prf)] = &[
        // Micro: 3 of 4 positions right.
        (json!({}), (0.75, 0.75, 0.75)),
        // Macro: cat P 2/3 R 1 F 0.8; dog 0 0 0; bird 1 1 1.
        (json!({"average": "macro"}), (5.0 / 9.0, 2.0 / 3.0, 1.8 / 3.0)),
        // Binary on cat: tp 2, fp 1, fn 0.
        (json!({"average": "binary", "positive_label": "cat"}), (2.0 / 3.0, 1.0, 0.8)),
        // Binary on dog: tp 0, fp 0, fn 1.
        (json!({"average": "binary", "positive_label": "dog"}), (0.0, 0.0, 0.0)),
        // F-0.5 on cat: 1.25·(2/3)/(0.25·2/3 + 1) = 5/7.
        (
            json!({"average": "binary", "positive_label": "cat", "beta": 0.5}),
            (2.0 / 3.0, 1.0, 5.0 / 7.0),
        ),
        // F-2 on cat: 5·(2/3)/(4·2/3 + 1) = 10/11.
        (
            json!({"average": "binary", "positive_label": "cat", "beta": 2}),
            (2.0 / 3.0, 1.0, 10.0 / 11.0),
        ),
        // Binary on a label in neither list: nothing to find, nothing found.
        (json!({"average": "binary", "positive_label": "fish"}), (1.0, 1.0, 1.0)),
    ];
    for (options, want) in cases {
        let m = metric(options.clone()).unwrap();
        let (got, _) = run(&m, out.clone(), gold.clone());
        assert!(close(got, *want), "{options}: {got:?} != {want:?}");
    }
}

#[test]
fn set_mode() {
    // (options, output, reference, (precision, recall, F))
    let cases: &[(Value, Value, Value, Prf)] = &[
        // 2 of 3 predicted are right, 2 of 4 gold found.
        (
            json!({}),
            json!(["a", "b", "x"]),
            json!(["a", "b", "c", "d"]),
            (2.0 / 3.0, 0.5, 4.0 / 7.0),
        ),
        // Duplicates are ignored; order does not matter.
        (json!({}), json!(["b", "a", "a", "b"]), json!(["a", "b"]), (1.0, 1.0, 1.0)),
        (json!({}), json!(["a"]), json!(["a", "b"]), (1.0, 0.5, 2.0 / 3.0)),
        // Macro over a set is the Jaccard index: |{a, b}| / |{a, b, c, d, x}|.
        (
            json!({"average": "macro"}),
            json!(["a", "b", "x"]),
            json!(["a", "b", "c", "d"]),
            (0.4, 0.4, 0.4),
        ),
        (
            json!({"average": "binary", "positive_label": "c"}),
            json!(["a"]),
            json!(["c"]),
            (0.0, 0.0, 0.0),
        ),
        (
            json!({"average": "binary", "positive_label": "a"}),
            json!(["a"]),
            json!(["c", "a"]),
            (1.0, 1.0, 1.0),
        ),
        // Normalizers merge labels before counting.
        (
            json!({"normalize": ["trim", "casefold"]}),
            json!([" Paris", "BERLIN", "paris"]),
            json!(["paris", "berlin"]),
            (1.0, 1.0, 1.0),
        ),
        // beta weighs recall: P = 1, R = 0.5.
        (json!({"beta": 2}), json!(["a"]), json!(["a", "b"]), (1.0, 0.5, 2.5 / 4.5)),
    ];
    for (options, out, gold, want) in cases {
        let mut options = options.clone();
        options["mode"] = json!("set");
        let m = metric(options.clone()).unwrap();
        let (got, _) = run(&m, out.clone(), gold.clone());
        assert!(close(got, *want), "{options} {out} {gold}: {got:?} != {want:?}");
    }
}

/// Every cell of the empty-counts table, for each average.
#[test]
fn empty_counts_table() {
    // (mode, output, reference, (precision, recall, F)) for micro and macro.
    let cases: &[(&str, Value, Value, Prf)] = &[
        ("set", json!([]), json!([]), (1.0, 1.0, 1.0)),
        ("sequence", json!([]), json!([]), (1.0, 1.0, 1.0)),
        ("sequence", json!("[]"), json!([]), (1.0, 1.0, 1.0)),
        ("set", json!([]), json!(["a"]), (0.0, 0.0, 0.0)),
        ("set", json!(["a"]), json!([]), (0.0, 0.0, 0.0)),
        ("set", json!(["a", "b"]), json!(["c"]), (0.0, 0.0, 0.0)),
    ];
    for average in ["micro", "macro"] {
        for (mode, out, gold, want) in cases {
            let m = metric(json!({"mode": mode, "average": average})).unwrap();
            let (got, _) = run(&m, out.clone(), gold.clone());
            assert!(close(got, *want), "{average} {mode} {out} {gold}: {got:?}");
        }
    }
    // Binary: predicted / gold counts of the positive label.
    let binary: &[(Value, Value, Prf)] = &[
        (json!(["n", "n"]), json!(["n", "n"]), (1.0, 1.0, 1.0)),
        (json!(["n", "n"]), json!(["p", "n"]), (0.0, 0.0, 0.0)),
        (json!(["p", "n"]), json!(["n", "n"]), (0.0, 0.0, 0.0)),
        (json!(["p", "p"]), json!(["p", "n"]), (0.5, 1.0, 2.0 / 3.0)),
    ];
    let m = metric(json!({"average": "binary", "positive_label": "p"})).unwrap();
    for (out, gold, want) in binary {
        let (got, _) = run(&m, out.clone(), gold.clone());
        assert!(close(got, *want), "{out} {gold}: {got:?}");
    }
    // The counts directly.
    let c = |tp, fp, fn_| Counts { tp, fp, fn_ };
    assert_eq!((c(0, 0, 0).precision(), c(0, 0, 0).recall()), (1.0, 1.0));
    assert_eq!((c(0, 0, 3).precision(), c(0, 0, 3).recall()), (0.0, 0.0));
    assert_eq!((c(0, 3, 0).precision(), c(0, 3, 0).recall()), (0.0, 0.0));
    assert_eq!((c(1, 3, 1).precision(), c(1, 3, 1).recall()), (0.25, 0.5));
}

#[test]
fn label_forms() {
    let m = metric(json!({})).unwrap();
    // (output, reference, (precision, recall, F))
    let cases: &[(Value, Value, Prf)] = &[
        // One label alone.
        (json!("cat"), json!("cat"), (1.0, 1.0, 1.0)),
        (json!("cat"), json!("dog"), (0.0, 0.0, 0.0)),
        (json!("cat, dog"), json!("cat, dog"), (1.0, 1.0, 1.0)),
        // A string holding a JSON list.
        (json!(" [\"a\", \"b\"]"), json!(["a", "c"]), (0.5, 0.5, 0.5)),
        // Numbers by value, and as text; booleans as true/false.
        (json!([1, 2.0, true]), json!([1.0, "2", "true"]), (1.0, 1.0, 1.0)),
        (json!(1), json!(1.0), (1.0, 1.0, 1.0)),
        (json!([0.5]), json!(["0.5"]), (1.0, 1.0, 1.0)),
        (json!([-0.0]), json!([0]), (1.0, 1.0, 1.0)),
        (json!([1e20]), json!(["100000000000000000000"]), (1.0, 1.0, 1.0)),
        (json!([false]), json!([0]), (0.0, 0.0, 0.0)),
    ];
    for (out, gold, want) in cases {
        let (got, _) = run(&m, out.clone(), gold.clone());
        assert!(close(got, *want), "{out} {gold}: {got:?}");
    }
}

#[test]
fn invalid_inputs() {
    let m = metric(json!({})).unwrap();
    let cases: &[(Value, Value, &str, &str)] = &[
        (
            json!(["a", "b"]),
            json!(["a"]),
            "output",
            "2 output labels for 1 reference labels: with mode sequence the lists must have the same length",
        ),
        (json!("[a, b]"), json!(["a"]), "output", "text starting like JSON is not a JSON list: "),
        (
            json!(["a"]),
            json!([null]),
            "reference",
            "item 0: labels are strings, numbers or booleans, got null",
        ),
        (
            json!([["a"]]),
            json!(["a"]),
            "output",
            "item 0: labels are strings, numbers or booleans, got array",
        ),
        (
            json!({"a": 1}),
            json!(["a"]),
            "output",
            "expected a list of labels or one label, got object",
        ),
    ];
    for (out, gold, input, reason) in cases {
        match m.evaluate(&EvalInput::pair(out.clone(), gold.clone())) {
            Err(EvalError::InvalidInput { input: got_input, reason: got }) => {
                assert_eq!(got_input, *input, "{out} {gold}");
                assert!(got.starts_with(reason), "{out} {gold}: {got}");
            }
            other => panic!("{out} {gold}: {other:?}"),
        }
    }
    assert_eq!(
        m.evaluate(&EvalInput::pair(json!(" "), json!(["a"]))),
        Err(EvalError::EmptyInput { input: "output".into() })
    );
}

#[test]
fn names_metadata_and_details() {
    let m = metric(json!({"average": "macro"})).unwrap();
    let (_, s) =
        run(&m, json!(["cat", "cat", "cat", "bird"]), json!(["cat", "dog", "cat", "bird"]));
    assert_eq!(s.metadata["f_score"], json!("f1"));
    assert_eq!(s.metadata["average"], json!("macro"));
    assert_eq!(s.metadata["mode"], json!("sequence"));
    assert_eq!(
        (&s.metadata["tp"], &s.metadata["fp"], &s.metadata["fn"]),
        (&json!(3), &json!(1), &json!(1))
    );
    let labels = s.metadata["labels"].as_array().unwrap();
    let names: Vec<&str> = labels.iter().map(|l| l["label"].as_str().unwrap()).collect();
    assert_eq!(names, ["cat", "dog", "bird"]);
    assert_eq!(labels[0]["tp"], json!(2));
    assert_eq!(labels[0]["fp"], json!(1));
    assert_eq!(labels[0]["recall"], json!(1.0));
    assert_eq!(labels[1]["fn"], json!(1));
    assert_eq!(labels[1]["f"], json!(0.0));
    assert_eq!(s.label.as_deref(), Some("partial"));
    assert_eq!(s.details.len(), 1);
    let d = &s.details[0];
    assert_eq!(d.check, "precision_recall_fscore[1]");
    assert_eq!((d.expected.as_deref(), d.actual.as_deref()), (Some("dog"), Some("cat")));
    assert_eq!(d.outcome, Outcome::ValueMismatch);
    assert_eq!(
        s.explanation.as_deref(),
        Some(
            "f1 0.6 (precision 0.5556, recall 0.6667; tp 3, fp 1, fn 1)\n  ✗ precision_recall_fscore[1] (expected dog, got cat)"
        )
    );

    let set = metric(json!({"mode": "set", "beta": 0.5})).unwrap();
    let (_, s) = run(&set, json!(["a", "x"]), json!(["a", "b"]));
    assert_eq!(s.metadata["f_score"], json!("fbeta"));
    assert_eq!(s.metadata["beta"], json!(0.5));
    assert!(s.metadata.get("labels").is_none());
    let checks: Vec<String> = s.details.iter().map(|d| d.check.to_string()).collect();
    assert_eq!(checks, ["precision_recall_fscore.missing", "precision_recall_fscore.extra"]);
    assert_eq!(s.details[0].expected.as_deref(), Some("b"));
    assert_eq!(s.details[1].actual.as_deref(), Some("x"));

    let perfect = run(&set, json!(["a"]), json!(["a"])).1;
    assert_eq!(perfect.label.as_deref(), Some("match"));
    assert!(perfect.details.is_empty());
    let wrong = run(&set, json!(["a"]), json!(["b"])).1;
    assert_eq!(wrong.label.as_deref(), Some("mismatch"));

    // Binary keeps only errors involving the positive label.
    let binary = metric(json!({"average": "binary", "positive_label": "p"})).unwrap();
    let (_, s) = run(&binary, json!(["p", "a", "b"]), json!(["p", "b", "p"]));
    assert_eq!(s.metadata["positive_label"], json!("p"));
    let checks: Vec<String> = s.details.iter().map(|d| d.check.to_string()).collect();
    assert_eq!(checks, ["precision_recall_fscore[2]"]);
    assert_eq!(
        (&s.metadata["tp"], &s.metadata["fp"], &s.metadata["fn"]),
        (&json!(1), &json!(0), &json!(1))
    );

    // Details are capped.
    let many: Vec<String> = (0..150).map(|i| format!("x{i}")).collect();
    let (_, s) = run(&set, json!(many), json!(["y"]));
    assert_eq!(s.details.len(), MAX_DETAILS);
    assert_eq!(s.metadata["more_errors"], json!(51));
}

#[test]
fn bad_options_are_structured_errors() {
    let cases: &[(Value, &str, &str)] = &[
        (json!({"beta": 0}), "beta", "must be a number > 0, got 0"),
        (json!({"beta": -1}), "beta", "must be a number > 0, got -1"),
        (
            json!({"beta": 1e200}),
            "beta",
            "whose square is finite and above 0 (1e-150 to 1e150), got 1e+200",
        ),
        (
            json!({"beta": 1e-300}),
            "beta",
            "whose square is finite and above 0 (1e-150 to 1e150), got 1e-300",
        ),
        (json!({"beta": "x"}), "beta", "expected a number"),
        (
            json!({"average": "weighted"}),
            "average",
            "`weighted` is not one of micro, macro, binary",
        ),
        (json!({"mode": "bag"}), "mode", "`bag` is not one of sequence, set"),
        (json!({"average": "binary"}), "positive_label", "required with average: binary"),
        (
            json!({"positive_label": "a"}),
            "positive_label",
            "only used with average: binary (average is micro)",
        ),
        (json!({"average": "binary", "positive_label": [1]}), "positive_label", "got array"),
        (json!({"normalize": ["upper"]}), "normalize", "unknown normalizer \"upper\""),
    ];
    for (options, option, needle) in cases {
        match metric(options.clone()) {
            Err(ConfigError::BadOption { metric, option: got, message }) => {
                assert_eq!(metric, "precision_recall_fscore");
                assert_eq!(got, *option, "{options}");
                assert!(message.contains(needle), "{options}: {message}");
            }
            other => panic!("{options}: {other:?}"),
        }
    }
    // The positive label is normalized like the labels, and may be a number.
    let m = metric(
        json!({"average": "binary", "positive_label": " YES ", "normalize": ["trim", "casefold"]}),
    )
    .unwrap();
    assert_eq!(m.positive_label.as_deref(), Some("yes"));
    let m = metric(json!({"average": "binary", "positive_label": 1.0})).unwrap();
    let (got, _) = run(&m, json!([1, 0, 1]), json!([1, 1, 0]));
    assert!(close(got, (0.5, 0.5, 0.5)), "{got:?}");
    assert_eq!(metric(json!({})).unwrap(), PrecisionRecallFScore::default());
}

#[test]
fn f_beta_is_finite_and_bounded() {
    for beta in [1e-150, 0.5, 1.0, 2.0, 1e150] {
        for (p, r) in [(0.0, 0.0), (0.0, 1.0), (1.0, 0.0), (1.0, 1.0), (0.3, 0.7)] {
            let f = f_beta(p, r, beta);
            assert!(f.is_finite() && (0.0..=1.0).contains(&f), "{beta} {p} {r}: {f}");
        }
    }
    assert_eq!(f_beta(0.5, 1.0, 1.0), 2.0 / 3.0);
    assert_eq!(f_beta(1.0, 1.0, 3.0), 1.0);
    assert_eq!(f_beta(0.0, 1.0, 1.0), 0.0);
}

#[test]
fn number_texts() {
    let cases: &[(Value, &str)] = &[
        (json!(1), "1"),
        (json!(1.0), "1"),
        (json!(-0.0), "0"),
        (json!(0.5), "0.5"),
        (json!(1e20), "100000000000000000000"),
        (json!(u64::MAX), "18446744073709551615"),
        (json!(i64::MIN), "-9223372036854775808"),
        (json!(1.5e300), &format!("15{}", "0".repeat(299))),
    ];
    for (v, want) in cases {
        assert_eq!(label_text(v).unwrap(), *want, "{v}");
    }
}
