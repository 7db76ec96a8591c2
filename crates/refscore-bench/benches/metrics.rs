//! The JSON metrics on generated invoice pairs: small (1–3 line items,
//! ≈1.1 KB reference) and large (30–40 drawn, trimmed to the 4 KB cap),
//! 64 pairs per iteration. Seed metrics and `json_match` run with default
//! options (arrays of objects paired by best assignment); `json_match_rules`
//! adds invoice rules (line items by SKU, numeric tolerances, dates).

#![allow(missing_docs)] // criterion_group! generates undocumented functions.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use refscore::EvalInput;
use refscore::metrics::{self, BuildContext};
use refscore_bench::{Generator, ItemCount, row_rng};
use serde_json::{Map, Value, json};

const PAIRS: u64 = 64;

/// Benchmark label, metric and options; metrics the library does not have
/// are left out.
fn cases() -> Vec<(&'static str, &'static str, Value)> {
    let rules = json!({"rules": {
        "rules": [
            {"path": "$.line_items", "array": "by_key", "keys": ["sku"]},
            {"path": "$.line_items[*].unit_price", "compare": {"type": "numeric", "abs_tol": 0.01}},
            {"path": "$.line_items[*].amount",
             "compare": {"type": "numeric", "rel_tol": 0.01, "partial": true}},
            {"path": "$.issue_date", "compare": {"type": "date"}},
            {"path": "$.due_date", "compare": {"type": "date"}},
            {"path": "$.delivery_date", "compare": {"type": "date"}},
            {"path": "$.invoice_number", "compare": "exact", "weight": 3}
        ]
    }});
    [
        ("json_distance", "json_distance", json!({})),
        ("json_diff", "json_diff", json!({})),
        ("json_similarity", "json_similarity", json!({})),
        ("json_structural", "json_structural", json!({})),
        ("json_match", "json_match", json!({})),
        ("json_match_rules", "json_match", rules),
    ]
    .into_iter()
    .filter(|(_, metric, _)| metrics::registry::find(metric).is_ok())
    .collect()
}

fn inputs(items: ItemCount) -> Vec<EvalInput<'static>> {
    let g = Generator { items, ..Generator::default() };
    (0..PAIRS)
        .map(|i| {
            let p = g.pair(&mut row_rng(1, i));
            EvalInput::pair(p.output, p.reference)
        })
        .collect()
}

fn bench_metrics(c: &mut Criterion) {
    let sets =
        [("small", inputs(ItemCount::Range(1, 3))), ("large", inputs(ItemCount::Range(30, 40)))];
    let mut group = c.benchmark_group("metrics");
    group.throughput(Throughput::Elements(PAIRS));
    for (name, metric, options) in cases() {
        let options: Map<String, Value> = options.as_object().cloned().unwrap_or_default();
        let metric = metrics::build(metric, &options, &BuildContext::default())
            .unwrap_or_else(|e| panic!("building {name}: {e}"));
        for (size, set) in &sets {
            group.bench_with_input(BenchmarkId::new(name, size), set, |b, set| {
                b.iter(|| {
                    for input in set {
                        black_box(metric.evaluate(black_box(input)).ok());
                    }
                });
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench_metrics);
criterion_main!(benches);
