//! Each registered metric (`refscore::metrics::METRICS`, default options)
//! on generated invoice pairs: small (1–3 line items, ≈1.1 KB reference)
//! and large (30–40 line items, ≈4 KB), 64 pairs per iteration.

#![allow(missing_docs)] // criterion_group! generates undocumented functions.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use refscore::EvalInput;
use refscore::metrics::{self, BuildContext, METRICS};
use refscore_bench::{Generator, ItemCount, row_rng};
use serde_json::Map;

const PAIRS: u64 = 64;

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
    for name in METRICS {
        let metric = metrics::build(name, &Map::new(), &BuildContext::default())
            .unwrap_or_else(|e| panic!("building {name}: {e}"));
        for (size, set) in &sets {
            group.bench_with_input(BenchmarkId::new(*name, size), set, |b, set| {
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
