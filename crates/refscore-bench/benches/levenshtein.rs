//! `refscore::text::normalized_levenshtein` on short (10–40 chars, 0–5
//! edits) and long (2,000 chars, 20–200 edits) string pairs, ASCII and
//! mixed non-ASCII (é, ü, ñ, 中文, emoji).

#![allow(missing_docs)] // criterion_group! generates undocumented functions.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rand::Rng;
use rand::seq::IndexedRandom;
use refscore::text::normalized_levenshtein;
use refscore_bench::row_rng;

const ASCII: &[char] = &['a', 'b', 'c', 'd', 'e', 'n', 'o', 'r', 's', 't', ' ', '1', '-'];
const MIXED: &[char] = &['a', 'e', 'é', 'ü', 'ñ', 'o', ' ', '中', '文', '😀', 'ß', 'r', 't'];

fn text<R: Rng>(rng: &mut R, alphabet: &[char], len: usize) -> Vec<char> {
    (0..len).map(|_| alphabet.choose(rng).copied().unwrap_or('a')).collect()
}

fn edited<R: Rng>(rng: &mut R, alphabet: &[char], s: &[char], edits: usize) -> Vec<char> {
    let mut t = s.to_vec();
    for _ in 0..edits {
        let c = alphabet.choose(rng).copied().unwrap_or('x');
        if t.is_empty() {
            t.push(c);
            continue;
        }
        let i = rng.random_range(0..t.len());
        match rng.random_range(0..3) {
            0 => t.insert(i, c),
            1 => {
                t.remove(i);
            }
            _ => t[i] = c,
        }
    }
    t
}

fn pairs(
    alphabet: &[char],
    n: usize,
    len: (usize, usize),
    edits: (usize, usize),
) -> Vec<(String, String)> {
    let mut rng = row_rng(7, 0);
    (0..n)
        .map(|_| {
            let n = rng.random_range(len.0..=len.1);
            let a = text(&mut rng, alphabet, n);
            let k = rng.random_range(edits.0..=edits.1);
            let b = edited(&mut rng, alphabet, &a, k);
            (a.into_iter().collect(), b.into_iter().collect())
        })
        .collect()
}

fn bench_levenshtein(c: &mut Criterion) {
    let mut group = c.benchmark_group("normalized_levenshtein");
    for (alpha_name, alphabet) in [("ascii", ASCII), ("non_ascii", MIXED)] {
        let cases = [
            ("short", pairs(alphabet, 1_000, (10, 40), (0, 5))),
            ("long", pairs(alphabet, 10, (2_000, 2_000), (20, 200))),
        ];
        for (len_name, set) in &cases {
            group.throughput(Throughput::Elements(set.len() as u64));
            group.bench_with_input(BenchmarkId::new(*len_name, alpha_name), set, |b, set| {
                b.iter(|| {
                    for (x, y) in set {
                        black_box(normalized_levenshtein(black_box(x), black_box(y)));
                    }
                });
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench_levenshtein);
criterion_main!(benches);
