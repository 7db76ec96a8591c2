use super::*;
use crate::history::policy::FailOn;
use crate::history::scores::FieldAccuracy;
use crate::history::scores::{EvaluatorScores, RowScores};

fn run(dir: Direction, rows: &[(&str, Option<f64>)]) -> RunScores {
    let scores: Vec<f64> = rows.iter().filter_map(|r| r.1).collect();
    #[allow(clippy::cast_precision_loss)]
    let mean = (!scores.is_empty()).then(|| scores.iter().sum::<f64>() / scores.len() as f64);
    RunScores {
        evaluators: vec![EvaluatorScores {
            name: "fields".into(),
            metric: "json_match".into(),
            direction: dir,
            mean,
        }],
        rows: rows
            .iter()
            .map(|(id, s)| RowScores {
                id: (*id).to_owned(),
                cells: vec![s.map_or(Cell::Failed, Cell::Score)],
            })
            .collect(),
        fields: Vec::new(),
    }
}

fn info() -> BaselineInfo {
    BaselineInfo {
        run_id: Some(1),
        folder: None,
        chosen_by: "explicit".into(),
        reason: "test".into(),
        started_at: None,
        git_commit: None,
        suite: None,
        dataset_hash: None,
        suite_hash: None,
    }
}

fn seed_policy() -> RegressionPolicy {
    // Regtrace's rule alone, without the paired test.
    RegressionPolicy { alpha: None, ..RegressionPolicy::default() }
}

#[test]
fn row_deltas_match_by_id() {
    let base = run(
        Direction::Maximize,
        &[("a", Some(1.0)), ("b", Some(0.5)), ("c", Some(0.7)), ("gone", Some(1.0))],
    );
    let cur = run(
        Direction::Maximize,
        &[("c", Some(0.7)), ("b", Some(0.9)), ("a", Some(0.2)), ("fresh", Some(1.0))],
    );
    let cmp = Comparison::new(&base, info(), &cur, &seed_policy());
    assert_eq!(cmp.rows, RowCounts { matched: 3, new: 1, removed: 1 });
    let e = &cmp.evaluators[0];
    assert_eq!((e.improved, e.regressed, e.unchanged), (1, 1, 1));
    assert_eq!(cmp.regressed_rows.len(), 1);
    assert_eq!(cmp.regressed_rows[0].id, "a");
    assert!((cmp.regressed_rows[0].change.unwrap() + 0.8).abs() < 1e-12);
}

#[test]
fn statuses_follow_the_seed_table() {
    let base = run(Direction::Maximize, &[("a", Some(1.0)), ("b", Some(1.0))]);
    for (cur, want) in [
        (0.97, RegressionStatus::Clean),
        (0.9, RegressionStatus::Warning),
        (0.5, RegressionStatus::Critical),
        (1.0, RegressionStatus::Clean),
    ] {
        let c = run(Direction::Maximize, &[("a", Some(cur)), ("b", Some(cur))]);
        let cmp = Comparison::new(&base, info(), &c, &seed_policy());
        assert_eq!(cmp.evaluators[0].status, want, "{cur}");
        assert_eq!(cmp.status, want);
    }
    let none =
        Comparison::without_baseline(&base, &seed_policy(), "no baseline run to compare with");
    assert_eq!(none.status, RegressionStatus::New);
    assert_eq!(none.evaluators[0].status, RegressionStatus::New);
}

#[test]
fn per_evaluator_tolerance_changes_the_status() {
    let base = run(Direction::Maximize, &[("a", Some(1.0)), ("b", Some(1.0))]);
    let cur = run(Direction::Maximize, &[("a", Some(0.9)), ("b", Some(0.9))]);
    let mut policy = seed_policy();
    policy.tolerance.insert("fields".into(), 0.2);
    policy.critical_threshold.insert("fields".into(), 0.3);
    let cmp = Comparison::new(&base, info(), &cur, &policy);
    assert_eq!(cmp.evaluators[0].status, RegressionStatus::Clean);
    policy.tolerance.insert("fields".into(), 0.01);
    policy.critical_threshold.insert("fields".into(), 0.05);
    let cmp = Comparison::new(&base, info(), &cur, &policy);
    assert_eq!(cmp.evaluators[0].status, RegressionStatus::Critical);
}

fn as_refs(v: &[(String, Option<f64>)]) -> Vec<(&str, Option<f64>)> {
    v.iter().map(|(a, b)| (a.as_str(), *b)).collect()
}

#[test]
fn noise_is_not_called_a_regression() {
    // Thirty rows; half moved up, half down, the mean dropped by 10% by
    // chance of a few rows: the paired test keeps it clean.
    let base: Vec<(String, Option<f64>)> =
        (0..30).map(|i| (format!("r{i}"), Some(if i % 2 == 0 { 0.9 } else { 0.5 }))).collect();
    let cur: Vec<(String, Option<f64>)> = (0..30)
        .map(|i| {
            (
                format!("r{i}"),
                Some(if i % 2 == 0 { 0.4 } else { 0.9 } - if i < 3 { 0.1 } else { 0.0 }),
            )
        })
        .collect();
    let b = run(Direction::Maximize, &as_refs(&base));
    let c = run(Direction::Maximize, &as_refs(&cur));
    let with_test = Comparison::new(&b, info(), &c, &RegressionPolicy::default());
    let e = &with_test.evaluators[0];
    assert!(e.relative_change.unwrap() < -0.05, "{e:?}");
    assert!(!e.test.unwrap().significant);
    assert_eq!(e.status, RegressionStatus::Clean);
    assert!(e.note.as_deref().unwrap().contains("not find significant"));
    // The seed's rule alone calls it a warning.
    let seed = Comparison::new(&b, info(), &c, &seed_policy());
    assert_eq!(seed.evaluators[0].status, RegressionStatus::Warning);
    // A consistent drop on the same rows is significant.
    let cur: Vec<(String, Option<f64>)> =
        base.iter().map(|(id, s)| (id.clone(), s.map(|x| x - 0.3))).collect();
    let c = run(Direction::Maximize, &as_refs(&cur));
    let real = Comparison::new(&b, info(), &c, &RegressionPolicy::default());
    assert_eq!(real.evaluators[0].status, RegressionStatus::Critical);
    assert!(real.evaluators[0].test.unwrap().significant);
    assert!(FailOn::Critical.fails(real.status));
}

/// Rows that go from a score to invalid or failed leave both means (the
/// mean of the rows still scored can stay put) and the paired test: they
/// count on their own, as the share of the baseline's judged rows lost.
#[test]
fn rows_no_longer_scored_are_a_regression_the_means_cannot_hide() {
    let ids: Vec<String> = (0..66).map(|i| format!("r{i}")).collect();
    let base: Vec<(&str, Option<f64>)> = ids
        .iter()
        .map(|id| (id.as_str(), Some(if id.len() % 2 == 0 { 0.9 } else { 0.7 })))
        .collect();
    for (lost, want) in [
        (0, RegressionStatus::Clean),
        (3, RegressionStatus::Clean),
        (6, RegressionStatus::Warning),
        (60, RegressionStatus::Critical),
    ] {
        // The first `lost` rows fail now; the others keep their scores.
        let cur: Vec<(&str, Option<f64>)> = base
            .iter()
            .enumerate()
            .map(|(i, (id, s))| (*id, if i < lost { None } else { *s }))
            .collect();
        for policy in [RegressionPolicy::default(), seed_policy()] {
            let cmp = Comparison::new(
                &run(Direction::Maximize, &base),
                info(),
                &run(Direction::Maximize, &cur),
                &policy,
            );
            let e = &cmp.evaluators[0];
            assert_eq!(e.status, want, "{lost} lost: {e:?}");
            assert_eq!(e.regressed, lost as u64);
            if want > RegressionStatus::Clean {
                let note = e.note.as_deref().unwrap_or_default();
                let says = format!(
                    "{lost} of the 66 matched rows judged in the baseline are invalid or failed now"
                );
                assert!(note.contains(&says), "{note}");
                assert!(FailOn::Warning.fails(cmp.status));
            }
        }
    }
    // Rows scored again make up for rows lost.
    let cur: Vec<(&str, Option<f64>)> =
        base.iter().enumerate().map(|(i, (id, s))| (*id, if i < 10 { None } else { *s })).collect();
    let back: Vec<(&str, Option<f64>)> = base
        .iter()
        .enumerate()
        .map(|(i, (id, s))| (*id, if (10..20).contains(&i) { None } else { *s }))
        .collect();
    let cmp = Comparison::new(
        &run(Direction::Maximize, &cur),
        info(),
        &run(Direction::Maximize, &back),
        &seed_policy(),
    );
    assert_eq!(cmp.evaluators[0].status, RegressionStatus::Clean, "{:?}", cmp.evaluators[0]);
}

/// The paired test clears a drop only when its rows are the means' rows:
/// a drop that new rows (or rows no longer scored) cause is not its to
/// judge, so the status then comes from the means.
#[test]
fn the_paired_test_clears_only_a_drop_among_its_own_rows() {
    let same: Vec<(String, Option<f64>)> = (0..20).map(|i| (format!("r{i}"), Some(1.0))).collect();
    let mut grown = same.clone();
    grown.extend((0..20).map(|i| (format!("new{i}"), Some(0.0))));
    let b = run(Direction::Maximize, &as_refs(&same));
    let c = run(Direction::Maximize, &as_refs(&grown));
    let cmp = Comparison::new(&b, info(), &c, &RegressionPolicy::default());
    let e = &cmp.evaluators[0];
    assert_eq!(cmp.rows.new, 20);
    assert!(!e.test.unwrap().significant, "the matched rows did not move");
    assert_eq!(e.status, RegressionStatus::Critical, "{e:?}");
    let note = e.note.as_deref().unwrap_or_default();
    assert!(
        note.contains("the paired test covers 20 rows, the means 20 (baseline) and 40 (now)"),
        "{note}"
    );
}

#[test]
fn failures_are_the_worst_regressions() {
    let base = run(Direction::Maximize, &[("a", Some(1.0)), ("b", Some(1.0)), ("c", Some(1.0))]);
    let cur = run(Direction::Maximize, &[("a", Some(0.5)), ("b", None), ("c", Some(0.9))]);
    let cmp = Comparison::new(&base, info(), &cur, &seed_policy());
    let ids: Vec<&str> = cmp.regressed_rows.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, ["b", "a", "c"]);
    assert_eq!(cmp.regressed_rows[0].current, Cell::Failed);
}

#[test]
fn distances_regress_upwards() {
    let base = run(Direction::Minimize, &[("a", Some(0.0)), ("b", Some(2.0))]);
    let cur = run(Direction::Minimize, &[("a", Some(3.0)), ("b", Some(1.0))]);
    let cmp = Comparison::new(&base, info(), &cur, &seed_policy());
    let e = &cmp.evaluators[0];
    assert_eq!((e.improved, e.regressed), (1, 1));
    assert_eq!(e.status, RegressionStatus::Critical);
    assert_eq!(cmp.regressed_rows[0].id, "a");
}

/// Neither direction is better: moves either way are changes, never
/// regressions, and the gate never fails on them; rows that became
/// failures still count against it.
#[test]
fn neutral_scores_change_without_regressing() {
    let base = run(Direction::Neutral, &[("a", Some(0.0)), ("b", Some(0.0)), ("c", Some(0.5))]);
    for cur in [
        run(Direction::Neutral, &[("a", Some(1.0)), ("b", Some(1.0)), ("c", Some(0.5))]),
        run(Direction::Neutral, &[("a", Some(0.0)), ("b", Some(0.0)), ("c", Some(0.0))]),
    ] {
        let policy = RegressionPolicy::default();
        let cmp = Comparison::new(&base, info(), &cur, &policy);
        let e = &cmp.evaluators[0];
        assert_eq!(e.status, RegressionStatus::Clean, "{e:?}");
        assert_eq!((e.improved, e.regressed), (0, 0), "{e:?}");
        assert_eq!(e.changed + e.unchanged, 3);
        assert!(e.changed >= 1);
        assert!(cmp.regressed_rows.is_empty());
        let note = e.note.as_deref().unwrap();
        assert!(note.starts_with("neither direction is better (direction neutral)"), "{note}");
        assert!(note.ends_with("shown, not gated"), "{note}");
        assert!(e.relative_change.is_some() && e.change.is_some());
    }
    // A row that failed is worse whatever the direction.
    let cur = run(Direction::Neutral, &[("a", None), ("b", None), ("c", Some(0.5))]);
    let cmp = Comparison::new(&base, info(), &cur, &seed_policy());
    let e = &cmp.evaluators[0];
    assert_eq!(e.regressed, 2);
    assert_eq!(e.status, RegressionStatus::Critical, "{e:?}");
    assert_eq!(cmp.regressed_rows.len(), 2);
    // The serialised comparison has `changed` only when rows changed.
    let v = serde_json::to_value(e).unwrap();
    assert!(v.get("changed").is_none(), "{v}");
    // Between a score and a label, too, a move is a change.
    let mut labelled = run(Direction::Neutral, &[("a", Some(1.0)), ("b", Some(1.0))]);
    labelled.rows[0].cells[0] = Cell::Label;
    let cmp = Comparison::new(&base2(), info(), &labelled, &seed_policy());
    let e = &cmp.evaluators[0];
    assert_eq!((e.changed, e.regressed, e.improved), (1, 0, 0), "{e:?}");
    assert_eq!(e.status, RegressionStatus::Clean, "{e:?}");
    assert!(e.note.as_deref().unwrap().contains("1 row moved"), "{e:?}");
    // A change of many orders of magnitude is written short.
    let tiny = run(Direction::Neutral, &[("a", Some(1e-300)), ("b", Some(1e-300))]);
    let cur = run(Direction::Neutral, &[("a", Some(1.0)), ("b", Some(1.0))]);
    let cmp = Comparison::new(&tiny, info(), &cur, &seed_policy());
    let note = cmp.evaluators[0].note.clone().unwrap();
    assert!(note.contains("a change of +1.000e302% in the mean"), "{note}");
}

fn base2() -> RunScores {
    run(Direction::Neutral, &[("a", Some(0.5)), ("b", Some(1.0))])
}

#[test]
fn duplicate_ids_pair_in_order() {
    let base = run(Direction::Maximize, &[("x", Some(1.0)), ("x", Some(0.0))]);
    let cur = run(Direction::Maximize, &[("x", Some(1.0)), ("x", Some(0.0)), ("x", Some(0.5))]);
    let cmp = Comparison::new(&base, info(), &cur, &seed_policy());
    assert_eq!(cmp.rows, RowCounts { matched: 2, new: 1, removed: 0 });
    assert_eq!(cmp.evaluators[0].unchanged, 2);
}

#[test]
fn field_moves_worst_first() {
    let stat = |path: &str, acc: f64| FieldAccuracy {
        evaluator: "fields".into(),
        path: path.into(),
        accuracy: acc,
    };
    let mut base = run(Direction::Maximize, &[("a", Some(1.0))]);
    base.fields = vec![stat("$.total", 0.9), stat("$.date", 1.0), stat("$.old", 0.5)];
    let mut cur = run(Direction::Maximize, &[("a", Some(1.0))]);
    cur.fields = vec![stat("$.total", 0.95), stat("$.date", 0.6), stat("$.new", 1.0)];
    let cmp = Comparison::new(&base, info(), &cur, &seed_policy());
    let order: Vec<&str> = cmp.fields.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(order, ["$.date", "$.total", "$.new", "$.old"]);
    assert!((cmp.fields[0].change.unwrap() + 0.4).abs() < 1e-12);
}

#[test]
fn evaluator_missing_from_the_baseline_is_new() {
    let base = run(Direction::Maximize, &[("a", Some(1.0))]);
    let mut cur = run(Direction::Maximize, &[("a", Some(1.0))]);
    cur.evaluators[0].name = "renamed".into();
    let cmp = Comparison::new(&base, info(), &cur, &seed_policy());
    assert_eq!(cmp.evaluators[0].status, RegressionStatus::New);
    let all_failed = run(Direction::Maximize, &[("a", None)]);
    let cmp = Comparison::new(&base, info(), &all_failed, &seed_policy());
    assert_eq!(cmp.evaluators[0].status, RegressionStatus::Critical);
}

/// An evaluator that kept its name but runs another metric (or reads its
/// scores the other way) is not compared with the baseline: a json_match
/// mean of 0.9 against a json_distance mean of 0.1 is no regression.
#[test]
fn an_evaluator_whose_metric_changed_is_new() {
    let stat = |acc: f64| FieldAccuracy {
        evaluator: "fields".into(),
        path: "$.total".into(),
        accuracy: acc,
    };
    let mut base = run(Direction::Minimize, &[("a", Some(0.1)), ("b", Some(0.1))]);
    base.evaluators[0].metric = "json_distance".into();
    base.fields = vec![stat(1.0)];
    let mut cur = run(Direction::Maximize, &[("a", Some(0.05)), ("b", Some(0.05))]);
    cur.fields = vec![stat(0.2)];
    let cmp = Comparison::new(&base, info(), &cur, &seed_policy());
    let e = &cmp.evaluators[0];
    assert_eq!((e.status, e.baseline_mean, e.regressed), (RegressionStatus::New, None, 0));
    assert_eq!(
        e.note.as_deref(),
        Some(
            "the baseline's `fields` ran json_distance (lower is better), this run's json_match (higher is better): not compared"
        )
    );
    assert_eq!(cmp.status, RegressionStatus::New);
    assert!(cmp.regressed_rows.is_empty());
    // Its fields are not compared either.
    assert_eq!(cmp.fields.len(), 1);
    assert_eq!(cmp.fields[0].baseline_accuracy, None);
    // The same metric read the same way is compared.
    base.evaluators[0].metric = "json_match".into();
    base.evaluators[0].direction = Direction::Maximize;
    let cmp = Comparison::new(&base, info(), &cur, &seed_policy());
    assert_eq!(cmp.evaluators[0].status, RegressionStatus::Critical);
    assert_eq!(cmp.fields[0].baseline_accuracy, Some(1.0));
}
