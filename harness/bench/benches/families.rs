//! Every registered family, found in the registry: each available kernel,
//! each available peer and the reference decoding the same generated inputs
//! (the non-`malformed` categories at a fixed seed), as bytes/s. A new family
//! is benchmarked here without any code of its own.
//!
//! The inputs go through the campaign's adapters and buffers, so the time
//! includes the canary fill and the copy of each outcome; the per-family
//! benches (`--bench qwp`, `bytea`, `tsfile`, `cube`) time the kernels'
//! own APIs. Compare ratios within one run.
//!
//! `cargo bench -p crossdec-bench --bench families [-- FILTER]`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use crossdec_harness::families;

/// Generator calls per kept category.
const CASES: u64 = 20;
const SEED: u64 = 7;

fn valid(category: &str) -> bool {
    !category.starts_with("malformed")
}

fn bench(c: &mut Criterion) {
    for family in families::all() {
        let mut names = vec!["reference".to_string()];
        names.extend(
            family
                .implementation_list()
                .into_iter()
                .filter(|i| i.available)
                .map(|i| i.name),
        );
        let mut group = c.benchmark_group(family.name());
        for name in names {
            let mut workload = family
                .workload(&name, CASES, SEED, &valid)
                .expect("listed as available");
            group.throughput(Throughput::Bytes(workload.bytes));
            group.bench_function(name, |b| b.iter(|| workload.run()));
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
