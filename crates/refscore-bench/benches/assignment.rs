//! Order-free matching of arrays of objects: `json_match` with
//! `array: assignment` on line-item arrays of 20, 100, 300 and 1,000
//! elements, either the same items shuffled with a few prices changed
//! (aligned after exact-equality blocking) or all different (the whole
//! similarity matrix and the Hungarian solver).

#![allow(missing_docs)] // criterion_group! generates undocumented functions.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use rand::Rng;
use rand::seq::SliceRandom;
use refscore::metrics::{BuildContext, build};
use refscore::{EvalInput, Evaluator};
use refscore_bench::row_rng;
use serde_json::{Map, Value, json};

fn item<R: Rng>(rng: &mut R) -> Value {
    let word = |rng: &mut R, n: usize| -> String {
        (0..n).map(|_| rng.random_range(b'a'..=b'z') as char).collect()
    };
    json!({
        "sku": word(rng, 8),
        "description": word(rng, 20),
        "quantity": rng.random_range(1..50),
        "unit_price": f64::from(rng.random_range(100..50_000)) / 100.0,
    })
}

fn pair(n: usize, shuffled: bool) -> EvalInput<'static> {
    let mut rng = row_rng(7, n as u64);
    let reference: Vec<Value> = (0..n).map(|_| item(&mut rng)).collect();
    let output: Vec<Value> = if shuffled {
        let mut out = reference.clone();
        for x in &mut out {
            if rng.random_bool(0.05) {
                x["unit_price"] = json!(x["unit_price"].as_f64().unwrap_or(0.0) * 1.03);
            }
        }
        out.shuffle(&mut rng);
        out
    } else {
        (0..n).map(|_| item(&mut rng)).collect()
    };
    EvalInput::pair(json!({ "items": output }), json!({ "items": reference }))
}

fn bench(c: &mut Criterion) {
    let mut opts = Map::new();
    opts.insert("rules".into(), json!({"defaults": {"array": "assignment"}}));
    let metric: Box<dyn Evaluator> =
        build("json_match", &opts, &BuildContext::default()).expect("json_match");
    let mut group = c.benchmark_group("assignment");
    group.sample_size(10);
    for n in [20, 100, 300, 1000] {
        for (label, shuffled) in [("shuffled", true), ("distinct", false)] {
            let input = pair(n, shuffled);
            group.bench_with_input(BenchmarkId::new(label, n), &input, |b, input| {
                b.iter(|| black_box(metric.evaluate(input).expect("scores")));
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
