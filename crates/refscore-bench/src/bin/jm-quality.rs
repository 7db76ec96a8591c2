//! `jm-quality --count N --seed S`: json_match's quality on labelled
//! extraction cases ([`refscore_bench::quality`]), with no configuration
//! and with the rules of `examples/invoices`.
//!
//! For each configuration it prints the field-level precision, recall
//! and F1 of the flagged paths against the planted errors (summed over
//! all cases), the share of clean outputs (noise only) with any flagged
//! path, and the ROC AUC of the row score for "has an error"; for
//! comparison, also under `strict: true` (raw values, absent is not
//! null). Run from the repository root.
//!
//! `jm-quality --labelled crates/refscore-bench/data/zero-config-labelled.jsonl`
//! scores hand-labelled pairs ([`refscore_bench::labelled`]) with no
//! configuration instead: failed details on harmless differences and real
//! errors missed, by category.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;
use rand::SeedableRng;
use refscore::EvalInput;
use refscore::metrics::{BuildContext, build};
use refscore_bench::labelled;
use refscore_bench::quality::{self, Case};
use serde_json::{Map, Value, json};

#[derive(Parser)]
#[command(about = "json_match quality on labelled extraction cases")]
struct Args {
    /// Cases to generate.
    #[arg(long, default_value_t = 2000)]
    count: usize,
    /// Seed of the generator.
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// The rules file of the "rules" configuration.
    #[arg(long, default_value = "examples/invoices/rules.yaml")]
    rules: String,
    /// Print the paths missed and wrongly flagged, per case.
    #[arg(long)]
    verbose: bool,
    /// Score the hand-labelled pairs of this JSONL file with no
    /// configuration, instead of generated cases.
    #[arg(long)]
    labelled: Option<PathBuf>,
}

/// Counts of one configuration.
#[derive(Default)]
struct Tally {
    tp: usize,
    fp: usize,
    fn_: usize,
    clean: usize,
    clean_flagged: usize,
    /// (row score, has an error).
    rows: Vec<(f64, bool)>,
    /// Per error kind: (cases, cases whose errors were all flagged).
    by_kind: BTreeMap<&'static str, (usize, usize)>,
    /// Per noise kind in clean cases: (cases, cases flagged).
    by_noise: BTreeMap<&'static str, (usize, usize)>,
}

fn ratio(a: usize, b: usize) -> f64 {
    #[allow(clippy::cast_precision_loss)]
    if b == 0 { 1.0 } else { a as f64 / b as f64 }
}

/// ROC AUC of `1 − score` for "has an error" (ties count half).
fn auc(rows: &[(f64, bool)]) -> f64 {
    let pos: Vec<f64> = rows.iter().filter(|r| r.1).map(|r| r.0).collect();
    let neg: Vec<f64> = rows.iter().filter(|r| !r.1).map(|r| r.0).collect();
    let mut wins = 0.0;
    for p in &pos {
        for n in &neg {
            // An erroneous row should score lower.
            wins += if p < n {
                1.0
            } else if p == n {
                0.5
            } else {
                0.0
            };
        }
    }
    #[allow(clippy::cast_precision_loss)]
    let pairs = (pos.len() * neg.len()) as f64;
    if pairs == 0.0 { 1.0 } else { wins / pairs }
}

fn score(
    name: &str,
    options: &Map<String, Value>,
    cases: &[Case],
    verbose: bool,
    tolerate_cents: bool,
) -> anyhow::Result<Tally> {
    let metric = build("json_match", options, &BuildContext::default())?;
    let mut t = Tally::default();
    for (n, c) in cases.iter().enumerate() {
        let ev = metric.evaluate(&EvalInput::pair(c.output.clone(), c.reference.clone()))?;
        let s = ev.scores.first().ok_or_else(|| anyhow::anyhow!("no score"))?;
        let mut flagged = quality::flagged(&s.details);
        let mut errors = c.errors.clone();
        if tolerate_cents {
            flagged.retain(|p| !c.cents.contains(p));
            errors.retain(|p| !c.cents.contains(p));
        }
        let hit = flagged.intersection(&errors).count();
        t.tp += hit;
        t.fp += flagged.len() - hit;
        t.fn_ += errors.len() - hit;
        t.rows.push((s.score.unwrap_or(0.0), !c.errors.is_empty()));
        for k in &c.kinds {
            let e = t.by_kind.entry(k).or_default();
            e.0 += 1;
            e.1 += usize::from(errors.is_subset(&flagged));
        }
        if c.errors.is_empty() {
            t.clean += 1;
            t.clean_flagged += usize::from(!flagged.is_empty());
            for k in &c.noise {
                let e = t.by_noise.entry(k).or_default();
                e.0 += 1;
                e.1 += usize::from(!flagged.is_empty());
            }
        }
        if verbose && flagged != errors {
            println!(
                "{name} case {n}: missed {:?}, wrongly flagged {:?} (errors {:?}, noise {:?})",
                errors.difference(&flagged).collect::<Vec<_>>(),
                flagged.difference(&errors).collect::<Vec<_>>(),
                c.kinds,
                c.noise
            );
        }
    }
    Ok(t)
}

fn main() -> ExitCode {
    match run(&Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("jm-quality: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn labelled_report(path: &Path, verbose: bool) -> anyhow::Result<()> {
    let pairs = labelled::read(path)?;
    let metric = build("json_match", &Map::new(), &BuildContext::default())?;
    let o = labelled::judge(&pairs, |p| labelled::flags(metric.as_ref(), p));
    let (harmless, flagged, errors, missed) = o.totals();
    println!(
        "{} labelled pairs ({}), json_match with no configuration: {flagged} failed details on {harmless} harmless differences, {missed} of {errors} real errors missed",
        pairs.len(),
        path.display()
    );
    println!("\n| harmless difference | labelled | failed details on them |\n|---|---:|---:|");
    for (cat, (n, f)) in &o.harmless {
        println!("| {cat} | {n} | {f} |");
    }
    println!("\n| real error | labelled | missed |\n|---|---:|---:|");
    for (cat, (n, m)) in &o.errors {
        println!("| {cat} | {n} | {m} |");
    }
    if verbose {
        for (id, path) in &o.false_flags {
            println!("flagged harmless: {id} {path}");
        }
        for (id, path) in &o.misses {
            println!("missed: {id} {path}");
        }
    }
    Ok(())
}

fn run(args: &Args) -> anyhow::Result<()> {
    if let Some(path) = &args.labelled {
        return labelled_report(path, args.verbose);
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(args.seed);
    let cases: Vec<Case> = (0..args.count).map(|_| quality::case(&mut rng)).collect();
    let planted: usize = cases.iter().map(|c| c.errors.len()).sum();
    let clean = cases.iter().filter(|c| c.errors.is_empty()).count();
    println!(
        "{} cases (seed {}): {} clean (noise only), {} with {planted} planted errors",
        cases.len(),
        args.seed,
        clean,
        cases.len() - clean
    );
    let rules = json!({"rules": args.rules}).as_object().cloned().unwrap_or_default();
    // The third line leaves out the one-cent errors on line items that
    // the example's rules tolerate on purpose.
    let strict = json!({"strict": true}).as_object().cloned().unwrap_or_default();
    let configs = [
        ("zero config", Map::new(), false),
        ("strict: true (raw values)", strict, false),
        ("example rules", rules.clone(), false),
        ("example rules, within its tolerances", rules, true),
    ];
    println!(
        "\n| configuration | precision | recall | F1 | clean outputs flagged | ROC AUC |\n|---|---:|---:|---:|---:|---:|"
    );
    let names: Vec<&str> = configs.iter().map(|c| c.0).collect();
    let cents: usize = cases.iter().map(|c| c.cents.len()).sum();
    let mut tallies = Vec::new();
    for (name, options, tolerate) in &configs {
        let t = score(name, options, &cases, args.verbose, *tolerate)?;
        let (p, r) = (ratio(t.tp, t.tp + t.fp), ratio(t.tp, t.tp + t.fn_));
        let f1 = if p + r > 0.0 { 2.0 * p * r / (p + r) } else { 0.0 };
        println!(
            "| {name} | {p:.4} | {r:.4} | {f1:.4} | {:.2}% ({}/{}) | {:.4} |",
            100.0 * ratio(t.clean_flagged, t.clean),
            t.clean_flagged,
            t.clean,
            auc(&t.rows)
        );
        tallies.push((name, t));
    }
    println!(
        "\n({cents} of the planted errors are one cent off on a line item's unit_price or amount.)"
    );
    println!("\nCases whose planted errors were all flagged, by error kind:\n");
    println!("| error kind | cases | {} |", names.join(" | "));
    println!("|---|---:|{}", "---:|".repeat(names.len()));
    for kind in quality::ERROR_KINDS {
        let n = tallies[0].1.by_kind.get(kind).map_or(0, |e| e.0);
        let cols: Vec<String> = tallies
            .iter()
            .map(|(_, t)| {
                let (a, b) = t.by_kind.get(kind).copied().unwrap_or_default();
                format!("{:.3}", ratio(b, a))
            })
            .collect();
        println!("| {kind} | {n} | {} |", cols.join(" | "));
    }
    println!("\nClean outputs flagged, by noise kind they carry:\n");
    println!("| noise kind | clean cases | {} |", names.join(" | "));
    println!("|---|---:|{}", "---:|".repeat(names.len()));
    for kind in quality::NOISE_KINDS {
        let n = tallies[0].1.by_noise.get(kind).map_or(0, |e| e.0);
        let cols: Vec<String> = tallies
            .iter()
            .map(|(_, t)| {
                let (a, b) = t.by_noise.get(kind).copied().unwrap_or_default();
                format!("{:.3}", ratio(b, a))
            })
            .collect();
        println!("| {kind} | {n} | {} |", cols.join(" | "));
    }
    Ok(())
}
