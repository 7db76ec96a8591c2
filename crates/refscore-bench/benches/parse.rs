//! `refscore::json::parse` (depth pre-scan, growing stack) against plain
//! `serde_json::from_str::<Value>` on generated JSONL pair rows, small
//! (1–3 line items) and realistic (1–40, skewed small).

#![allow(missing_docs)] // criterion_group! generates undocumented functions.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use refscore_bench::rows::row;
use refscore_bench::{Generator, ItemCount, RowFormat};
use serde_json::Value;

fn lines(items: ItemCount) -> Vec<String> {
    let g = Generator { items, ..Generator::default() };
    (0..256).map(|i| row(&g, RowFormat::Pairs, 3, i).to_string()).collect()
}

fn bench_parse(c: &mut Criterion) {
    let mut group = c.benchmark_group("parse");
    for (name, set) in
        [("small", lines(ItemCount::Range(1, 3))), ("realistic", lines(ItemCount::Realistic))]
    {
        group.throughput(Throughput::Bytes(set.iter().map(|l| l.len() as u64).sum()));
        group.bench_with_input(BenchmarkId::new("serde_json", name), &set, |b, set| {
            b.iter(|| {
                for line in set {
                    black_box(serde_json::from_str::<Value>(black_box(line)).ok());
                }
            });
        });
        group.bench_with_input(BenchmarkId::new("refscore", name), &set, |b, set| {
            b.iter(|| {
                for line in set {
                    black_box(refscore::json::parse(black_box(line)).ok());
                }
            });
        });
    }
    group.finish();
}

criterion_group!(benches, bench_parse);
criterion_main!(benches);
