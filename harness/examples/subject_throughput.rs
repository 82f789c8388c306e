//! How fast an external subject is compared with the same decoder
//! in-process: the `pg-bytea` reference as an in-process kernel and as a
//! subject over the pipe (`crossdec serve-reference`), in interleaved
//! rounds of the same campaign, plus a run with no implementation (the
//! engine's own work: generating, the reference's decode, digests), so the
//! implementation's share can be told apart. pgjdbc runs too when its
//! subject builds.
//!
//! ```sh
//! cargo build --release -p crossdec-harness --bin crossdec
//! cargo run --release -p crossdec-harness --example subject_throughput -- target/release/crossdec
//! ```

use std::time::Instant;

use crossdec_harness::engine::{Buffers, Campaign, Role, RunOptions, Spec, SubjectCommand};
use crossdec_harness::families::bytea::{self, PgBytea};

const ROUNDS: usize = 5;

fn main() {
    let crossdec = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "target/release/crossdec".into());
    let pgjdbc = std::path::Path::new("subjects/pgjdbc/run");
    let with_pgjdbc = std::process::Command::new(pgjdbc)
        .arg("--compile-only")
        .status()
        .is_ok_and(|s| s.success());

    let campaign = || {
        // A peer, so it decodes each input once, as a subject does (a kernel
        // is run twice, once per canary).
        bytea::campaign()
            .peer("reference-in-process", true, || {
                |input: &bytea::ByteaInput, _: &mut Buffers| PgBytea.reference(input)
            })
            .subject(SubjectCommand::new(
                "reference-over-pipe",
                format!("{crossdec} serve-reference --family pg-bytea"),
                Role::Kernel,
            ))
    };
    let mut campaign = campaign();
    if with_pgjdbc {
        campaign = campaign.subject(SubjectCommand::new(
            bytea::pgjdbc::NAME,
            pgjdbc.display().to_string(),
            Role::Peer,
        ));
    }
    // Every category but `large`: small inputs, as the protocol's cost per
    // input is what is measured.
    let categories: Vec<String> = campaign
        .spec()
        .categories()
        .iter()
        .map(|c| c.name.to_string())
        .filter(|c| c != "large")
        .collect();
    let mut contenders = vec!["(none)", "reference-in-process", "reference-over-pipe"];
    if with_pgjdbc {
        contenders.push(bytea::pgjdbc::NAME);
    }
    let mut seconds = vec![Vec::new(); contenders.len()];
    let mut steps = 0;
    // One warm-up round starts the subjects' processes.
    for round in 0..=ROUNDS {
        for (k, name) in contenders.iter().enumerate() {
            let started = Instant::now();
            let report = run(&campaign, name, &categories);
            let elapsed = started.elapsed().as_secs_f64();
            assert_eq!(report.failure_count, 0, "{name}: {:#?}", report.failures);
            steps = report.categories.iter().map(|c| c.steps).sum::<u64>();
            if round > 0 {
                seconds[k].push(elapsed);
            }
        }
    }
    let median = |v: &[f64]| {
        let mut v = v.to_vec();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let engine = median(&seconds[0]);
    println!("pg-bytea without `large`: {steps} decode calls per run, median of {ROUNDS} interleaved rounds");
    println!(
        "{:<22} {:>9} {:>14} {:>18}",
        "implementation", "run (s)", "campaign /s", "implementation /s"
    );
    let mut rates = Vec::new();
    for (k, name) in contenders.iter().enumerate() {
        let s = median(&seconds[k]);
        let own = s - engine;
        let rate = if k == 0 { f64::NAN } else { steps as f64 / own.max(1e-9) };
        rates.push(rate);
        println!("{name:<22} {s:>9.3} {:>14.0} {:>18.0}", steps as f64 / s, rate);
    }
    println!(
        "over the pipe / in-process, the same decoder: {:.0}% of the in-process rate (campaign {:.0}%)",
        100.0 * rates[2] / rates[1],
        100.0 * median(&seconds[1]) / median(&seconds[2])
    );
}

fn run(campaign: &Campaign<PgBytea>, name: &str, categories: &[String]) -> crossdec_harness::engine::FamilyReport {
    campaign.run(&RunOptions {
        cases: 200,
        seed: 1,
        implementations: vec![name.to_string()],
        categories: categories.to_vec(),
        ..RunOptions::default()
    })
}
