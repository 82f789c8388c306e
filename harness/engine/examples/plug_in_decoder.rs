//! A decoder author holds their own LEB128 decoder to an obvious one.
//! `cargo run -p crossdec-engine --example plug_in_decoder -- [broken] [--out M.json] [--against OTHER.json@big]`
use crossdec_engine::bytes::{self, Payload};
use crossdec_engine::{
    canonical_enum, gate, report, Buffers, Campaign, Case, CaseRng, Category, Outcome, RunOptions, Spec,
};

#[derive(Debug, Clone, PartialEq)]
enum Bad {
    Truncated { at: usize },
    Overflow { at: usize },
}
canonical_enum!(Bad { Truncated { at } = 0, Overflow { at } = 1 });

/// The decoder under test: into the caller's buffer, one-byte varints on a fast path.
fn fast(input: &[u8], out: &mut [u64], broken: bool) -> Result<usize, Bad> {
    let (mut n, mut pos) = (0, 0);
    while let Some(&first) = input.get(pos) {
        let (at, mut value) = (pos, u64::from(first & 0x7f));
        let mut shift = 7;
        while input[pos] >= 0x80 {
            let b = *input.get(pos + 1).ok_or(Bad::Truncated { at })?;
            if shift == 63 && b > 1 {
                return Err(Bad::Overflow { at });
            }
            value |= u64::from(b & 0x7f) << shift;
            (pos, shift) = (pos + 1, shift + 7);
        }
        pos += 1;
        (out[n], n) = (value, n + 1);
    }
    if broken && n < out.len() {
        out[n] = 0
    } // scratch use past the values: a bug the canaries see
    Ok(n)
}

struct Leb128;
impl Spec for Leb128 {
    type Input = Payload;
    type Output = Vec<u64>;
    type Error = Bad;
    fn name(&self) -> &'static str {
        "leb128"
    }
    fn reference(&self, input: &Payload) -> Outcome<Self> {
        // one bit at a time, obviously
        let (mut values, mut start, mut value, mut bit) = (Vec::new(), 0, 0u64, 0);
        for (k, b) in input.0.iter().enumerate() {
            for i in (0..7).filter(|i| b >> i & 1 == 1) {
                if bit + i >= 64 {
                    return Err(Bad::Overflow { at: start });
                }
                value |= 1 << (bit + i);
            }
            if b & 0x80 == 0 {
                values.push(std::mem::take(&mut value));
                (bit, start) = (0, k + 1)
            } else if bit >= 63 {
                return Err(Bad::Overflow { at: start });
            } else {
                bit += 7
            }
        }
        if bit > 0 {
            Err(Bad::Truncated { at: start })
        } else {
            Ok(values)
        }
    }
    fn categories(&self) -> Vec<Category<Payload>> {
        fn valid(rng: &mut CaseRng) -> Payload {
            let mut out = Vec::new();
            for _ in 0..rng.gen_range(0..20u32) {
                let mut v = rng.gen::<u64>() >> rng.gen_range(0..64u32);
                while v >= 0x80 {
                    out.push(v as u8 | 0x80);
                    v >>= 7
                }
                out.push(v as u8);
            }
            Payload(out)
        }
        vec![
            Category::new("valid", 1.0, |_, rng| vec![Case::one(valid(rng))]),
            Category::new("truncated", 0.1, |_, rng| bytes::truncations(&valid(rng))),
            Category::new("bit-flips", 1.0, |_, rng| {
                vec![Case::one(bytes::flip_bits(&valid(rng), rng, 3))]
            }),
        ]
    }
    fn shrink(&self, input: &Payload) -> Vec<Payload> {
        bytes::shrink(input)
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (broken, flag) = (args.iter().any(|a| a == "broken"), |name| {
        args.iter().position(|a| a == name).map(|k| args[k + 1].clone())
    });
    let campaign = Campaign::new(Leb128).kernel("fast", true, move || {
        move |input: &Payload, buffers: &mut Buffers| {
            let mut out = buffers.take::<u64>("values", input.0.len()); // at most one value per byte
            let result = fast(&input.0, out.range(), broken);
            let values = buffers.finish(out, *result.as_ref().unwrap_or(&input.0.len()));
            result.map(|_| values)
        }
    });
    let reports = [campaign.run(&RunOptions {
        cases: 300,
        seed: 1,
        ..RunOptions::default()
    })];
    print!("{}", report::summary(&reports));
    let manifest = report::manifest(&reports, 1, 300);
    if let Some(path) = flag("--out") {
        std::fs::write(path, serde_json::to_string_pretty(&manifest).unwrap()).unwrap()
    }
    let mut problems = gate::sanity(&manifest);
    if let Some((path, endian)) = flag("--against").as_deref().and_then(|a| a.rsplit_once('@')) {
        problems.extend(gate::compare(
            &manifest,
            &serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap(),
            endian,
        ));
    }
    problems.iter().for_each(|p| println!("gate: FAIL: {p}"));
    std::process::exit(i32::from(!problems.is_empty()));
}
