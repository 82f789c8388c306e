//! Generators for the `pg-bytea` categories. Every category is bounded so
//! that the default 200 calls per category run in seconds natively and in
//! about a minute under QEMU s390x.

use crate::engine::SliceDraw;

use crossdec_reference::bytea as reference;

use super::ByteaInput;
use crate::engine::proptest::prelude::*;
use crate::engine::{size_limit, Case, CaseRng};

pub const CATEGORIES: [(&str, f64); 11] = [
    // Random bytes of every length 0..=300 (two lengths per call), hex with
    // mixed-case digits, plus a large string every 50th call.
    ("hex-plain", 1.0),
    // The same with random legal whitespace between pairs, before and after.
    ("hex-whitespace", 1.0),
    // Escape format: the server's output rules plus other legal spellings
    // (octal for printable bytes, `\134` for backslash, raw high bytes).
    ("escape", 1.0),
    // 1 KiB .. 256 KiB strings in both formats.
    ("large", 0.1),
    // One byte value per call (every value 0..=255 over 256 calls) at every
    // position of a hex literal whose digits span two 128-byte blocks and a
    // tail: every offset relative to 16/32/64/128-byte lanes.
    ("hex-invalid-byte", 1.3),
    // The same for the escape format: a backslash run, a byte after a
    // backslash, at every position relative to 8/16/32-byte lanes.
    ("escape-invalid-byte", 0.3),
    // Odd digit counts at every length, with and without trailing whitespace;
    // whitespace inside a pair.
    ("hex-odd-and-split", 1.0),
    // `\X`, whitespace in the prefix, hex text with random byte flips.
    ("hex-malformed", 1.0),
    // Truncated and out-of-range octal escapes, backslash + random byte.
    ("escape-malformed", 1.0),
    // Short random byte strings, half of them starting with `\x`.
    ("random-text", 1.0),
    // Several literals through one decoder: buffers grow and shrink.
    ("reuse", 0.5),
];

/// The category drawn from a proptest strategy ([`hex_strategy`]), after
/// the generators' own: valid hex literals, minimized with the strategy's
/// value tree.
pub const STRATEGY_CATEGORY: &str = "hex-strategy";

/// The most digit pairs in a [`hex_strategy`] literal.
const STRATEGY_PAIRS: usize = 300;

/// Valid hex literals as a proptest strategy: `\x`, then up to 300 digit
/// pairs, each digit upper- or lower-case; in half of them a whitespace run
/// of up to three characters before a third of the pairs, and one at the
/// end now and then.
///
/// Every draw is a fixed-width integer (a `u16` pair count over a fixed
/// array of 300 pairs, `u8` digit and whitespace indices), never a `usize`:
/// `prop::collection` sizes and `prop::sample` indices are `usize` draws,
/// which take 32 bits of the random stream on i686 and 64 elsewhere, and
/// the gate holds this category to the same digests on both. The value tree
/// shrinks a failing literal to a shorter prefix of pairs first, then
/// drops its whitespace runs and simplifies digits toward `0`.
pub fn hex_strategy() -> impl Strategy<Value = ByteaInput> {
    const DIGITS: &[u8; 22] = b"0123456789abcdefABCDEF";
    // (run length code, its characters): 0..=5 is no run, 6..=8 a run of
    // 1..=3, so a run shrinks toward none.
    let run = || (0u8..=8, prop::array::uniform::<_, 3>(0u8..4));
    let pair = (run(), 0u8..22, 0u8..22);
    let pairs = prop::array::uniform::<_, STRATEGY_PAIRS>(pair);
    let count = 0u16..=STRATEGY_PAIRS as u16;
    // Half the literals keep no whitespace at all (a `false` the tree
    // simplifies to, so a failure that does not need whitespace loses it).
    (any::<bool>(), count, pairs, run()).prop_map(move |(spaced, count, pairs, tail)| {
        let push_run = |text: &mut Vec<u8>, (code, chars): (u8, [u8; 3])| {
            if spaced {
                let len = usize::from(code.saturating_sub(5));
                text.extend(chars[..len].iter().map(|&c| WHITESPACE[usize::from(c)]));
            }
        };
        let mut text = b"\\x".to_vec();
        for &(run, high, low) in &pairs[..usize::from(count)] {
            push_run(&mut text, run);
            text.extend([DIGITS[usize::from(high)], DIGITS[usize::from(low)]]);
        }
        push_run(&mut text, tail);
        ByteaInput { text }
    })
}

/// Categories too big for a fuzz execution ([`Category::large`](crate::engine::Category::large)).
pub const LARGE: &[&str] = &["large"];

const WHITESPACE: [u8; 4] = [b' ', b'\n', b'\t', b'\r'];

fn case(text: Vec<u8>) -> Case<ByteaInput> {
    Case::one(ByteaInput { text })
}

fn random_bytes(rng: &mut CaseRng, n: usize) -> Vec<u8> {
    // Mix of uniform bytes and bytes drawn from a few interesting values.
    let skew = rng.gen_range(0..4);
    (0..n)
        .map(|_| match skew {
            0 => *[0u8, b'\\', 0x7f, 0xff, b'0', b'x'].choose(rng).expect("non-empty"),
            _ => rng.gen(),
        })
        .collect()
}

/// Hex text of `bytes`, each digit upper- or lower-case at random.
fn hex_text(rng: &mut CaseRng, bytes: &[u8]) -> Vec<u8> {
    let mut t = reference::encode_hex(bytes);
    let upper = rng.gen_range(0..3);
    for c in &mut t[2..] {
        if upper == 2 || (upper == 1 && rng.gen()) {
            c.make_ascii_uppercase();
        }
    }
    t
}

/// Insert random legal whitespace runs before pairs and at the end;
/// `density` is the chance per pair boundary.
pub fn with_whitespace(rng: &mut CaseRng, hex: &[u8], density: f64) -> Vec<u8> {
    let mut t = hex[..2].to_vec();
    let ws = |rng: &mut CaseRng, t: &mut Vec<u8>| {
        for _ in 0..rng.gen_range(1..4) {
            t.push(*WHITESPACE.choose(rng).expect("non-empty"));
        }
    };
    for pair in hex[2..].chunks(2) {
        if rng.gen_bool(density) {
            ws(rng, &mut t);
        }
        t.extend_from_slice(pair);
    }
    if rng.gen_bool(density) {
        ws(rng, &mut t);
    }
    t
}

/// Escape text that decodes to `bytes`, using any legal spelling.
fn escape_text(rng: &mut CaseRng, bytes: &[u8]) -> Vec<u8> {
    let style = rng.gen_range(0..3);
    if style == 0 {
        return reference::encode_escape(bytes);
    }
    let mut t = Vec::new();
    for &b in bytes {
        let octal = rng.gen_ratio(1, if style == 1 { 8 } else { 2 });
        if octal || b == b'\\' && rng.gen() {
            t.extend_from_slice(format!("\\{:03o}", b).as_bytes());
        } else if b == b'\\' {
            t.extend_from_slice(b"\\\\");
        } else {
            t.push(b);
        }
    }
    t
}

fn lengths(index: u64) -> [usize; 2] {
    [(2 * index % 301) as usize, ((2 * index + 1) % 301) as usize]
}

pub fn generate(category: &str, index: u64, rng: &mut CaseRng) -> Vec<Case<ByteaInput>> {
    match category {
        "hex-plain" => {
            let mut out: Vec<_> = lengths(index)
                .iter()
                .map(|&n| {
                    let b = random_bytes(rng, n);
                    case(hex_text(rng, &b))
                })
                .collect();
            if index % 50 == 49 {
                let n = size_limit::apply(rng.gen_range(1000..20_000));
                let b = random_bytes(rng, n);
                out.push(case(hex_text(rng, &b)));
            }
            out
        }
        "hex-whitespace" => lengths(index)
            .iter()
            .map(|&n| {
                let b = random_bytes(rng, n);
                let h = hex_text(rng, &b);
                let density = *[0.01, 0.05, 0.3, 1.0].choose(rng).expect("non-empty");
                case(with_whitespace(rng, &h, density))
            })
            .collect(),
        "escape" => lengths(index)
            .iter()
            .map(|&n| {
                let b = random_bytes(rng, n);
                case(escape_text(rng, &b))
            })
            .collect(),
        "large" => {
            let n = rng.gen_range(1024..256 * 1024);
            let b = random_bytes(rng, n);
            let h = hex_text(rng, &b);
            vec![
                case(h.clone()),
                case(with_whitespace(rng, &h, 0.02)),
                case(escape_text(rng, &b)),
            ]
        }
        "hex-invalid-byte" => {
            let bad = (index % 256) as u8;
            let pairs = rng.gen_range(128..150);
            let b = random_bytes(rng, pairs);
            let h = hex_text(rng, &b);
            (2..h.len())
                .map(|p| {
                    let mut t = h.clone();
                    t[p] = bad;
                    case(t)
                })
                .collect()
        }
        "escape-invalid-byte" => {
            // A literal run of `n` plain bytes, then a backslash and `bad`,
            // then more text, for every n < 40 (covers 8/16/32-byte lanes).
            let bad = rng.gen::<u8>();
            let tail = random_bytes(rng, 20);
            let tail = escape_text(rng, &tail);
            (0..40)
                .map(|n| {
                    let mut t: Vec<u8> = (0..n)
                        .map(|_| rng.gen_range(0x20u8..0x7f))
                        .filter(|&c| c != b'\\')
                        .collect();
                    t.push(b'\\');
                    t.push(bad);
                    if rng.gen() {
                        t.extend_from_slice(&tail);
                    }
                    case(t)
                })
                .collect()
        }
        "hex-odd-and-split" => {
            let n = (index % 301) as usize;
            let b = random_bytes(rng, n);
            let h = hex_text(rng, &b);
            let mut out = Vec::new();
            // Odd: drop the last digit, with and without trailing whitespace.
            if n > 0 {
                let mut t = h[..h.len() - 1].to_vec();
                out.push(case(t.clone()));
                t.push(*WHITESPACE.choose(rng).expect("non-empty"));
                out.push(case(t));
            }
            // Whitespace inside a random pair.
            if n > 0 {
                let p = 2 + 2 * rng.gen_range(0..n) + 1;
                let mut t = h.clone();
                t.insert(p, *WHITESPACE.choose(rng).expect("non-empty"));
                out.push(case(t));
            }
            // Odd count in the middle: one digit removed somewhere.
            if n > 1 {
                let mut t = h.clone();
                t.remove(rng.gen_range(2..t.len()));
                out.push(case(with_whitespace(rng, &t, 0.1)));
            }
            out.push(case(b"\\x".to_vec()));
            out
        }
        "hex-malformed" => {
            let n = rng.gen_range(0..200);
            let b = random_bytes(rng, n);
            let h = hex_text(rng, &b);
            let mut out = Vec::new();
            let mut upper = h.clone();
            upper[1] = b'X';
            out.push(case(upper));
            let mut spaced = h.clone();
            spaced.insert(1, *WHITESPACE.choose(rng).expect("non-empty"));
            out.push(case(spaced));
            let mut leading = h.clone();
            leading.insert(0, b' ');
            out.push(case(leading));
            for _ in 0..4 {
                let mut t = with_whitespace(rng, &h, 0.05);
                if t.len() > 2 {
                    for _ in 0..rng.gen_range(1..3) {
                        let p = rng.gen_range(2..t.len());
                        t[p] = rng.gen();
                    }
                }
                out.push(case(t));
            }
            out
        }
        "escape-malformed" => {
            let (n, m) = (rng.gen_range(0..70), rng.gen_range(0..20));
            let pre = random_bytes(rng, n);
            let pre = escape_text(rng, &pre);
            let post = random_bytes(rng, m);
            let post = escape_text(rng, &post);
            let bad: Vec<Vec<u8>> = vec![
                b"\\".to_vec(),
                format!("\\{}", rng.gen_range(0..8)).into_bytes(),
                format!("\\{}{}", rng.gen_range(0..8), rng.gen_range(0..8)).into_bytes(),
                format!(
                    "\\{}{}{}",
                    rng.gen_range(4..10),
                    rng.gen_range(0..8),
                    rng.gen_range(0..8)
                )
                .into_bytes(),
                format!(
                    "\\{}{}{}",
                    rng.gen_range(0..4),
                    rng.gen_range(8..10),
                    rng.gen_range(0..8)
                )
                .into_bytes(),
                format!(
                    "\\{}{}{}",
                    rng.gen_range(0..4),
                    rng.gen_range(0..8),
                    rng.gen_range(8..10)
                )
                .into_bytes(),
                vec![b'\\', rng.gen()],
                b"\\X41".to_vec(),
                b"\\ x".to_vec(),
            ];
            bad.into_iter()
                .flat_map(|b| {
                    let mut at_end = pre.clone();
                    at_end.extend_from_slice(&b);
                    let mut inside = at_end.clone();
                    inside.extend_from_slice(&post);
                    [case(at_end), case(inside)]
                })
                .collect()
        }
        "random-text" => (0..4)
            .map(|_| {
                let mut t = Vec::new();
                if rng.gen() {
                    t.extend_from_slice(b"\\x");
                }
                let n = rng.gen_range(0..64);
                let alphabet: &[u8] = b"0123456789abcdefABCDEFgxX \n\t\r\\\x00\x7f\xff";
                for _ in 0..n {
                    t.push(if rng.gen_ratio(1, 4) {
                        rng.gen()
                    } else {
                        *alphabet.choose(rng).expect("non-empty")
                    });
                }
                case(t)
            })
            .collect(),
        "reuse" => {
            let steps = (0..rng.gen_range(2..6))
                .map(|_| {
                    let n = size_limit::apply(*[0usize, 3, 40, 700, 5000].choose(rng).expect("non-empty"));
                    let b = random_bytes(rng, n);
                    let mut t = if rng.gen() {
                        hex_text(rng, &b)
                    } else {
                        escape_text(rng, &b)
                    };
                    if rng.gen_ratio(1, 4) && !t.is_empty() {
                        let p = rng.gen_range(0..t.len());
                        t[p] = b'G';
                    }
                    ByteaInput { text: t }
                })
                .collect();
            vec![Case { steps }]
        }
        other => panic!("pg-bytea has no category {other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{case_rng, size_limit};

    /// The strategy's literals are valid hex of every shape it promises,
    /// and the same for the same calls on every architecture: this runs on
    /// s390x and i686 too, where the pinned digest differs if a draw
    /// depends on word size or byte order.
    #[test]
    fn the_strategy_draws_valid_hex_the_same_everywhere() {
        use crate::engine::Category;
        let category = Category::from_strategy(STRATEGY_CATEGORY, 1.0, hex_strategy());
        let texts: Vec<Vec<u8>> = (0..200)
            .flat_map(|i| category.generate(i, &mut case_rng(1, "pg-bytea", STRATEGY_CATEGORY, i)))
            .map(|case| case.steps[0].text.clone())
            .collect();
        assert_eq!(texts.len(), 200);
        for text in &texts {
            let bytes = reference::decode(text).expect("valid hex");
            assert!(bytes.len() <= STRATEGY_PAIRS);
        }
        let has = |f: &dyn Fn(&[u8]) -> bool| texts.iter().any(|t| f(t));
        assert!(has(&|t| t.len() == 2), "an empty literal");
        assert!(has(
            &|t| t.iter().any(u8::is_ascii_uppercase) && t[2..].iter().any(u8::is_ascii_lowercase)
        ));
        assert!(
            has(&|t| WHITESPACE.iter().all(|w| t.contains(w))),
            "every kind of whitespace"
        );
        assert!(has(&|t| t.windows(3).any(|w| w.iter().all(|b| WHITESPACE.contains(b)))));
        assert!(has(&|t| !t.iter().any(|b| WHITESPACE.contains(b)) && t.len() > 400));
        // FNV-1a of every literal, with the total length.
        let all = texts.concat();
        let fnv = all.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        });
        assert_eq!(
            (all.len(), format!("{fnv:016x}")),
            (72_010, "bd12e8fdbb4648a4".to_string())
        );
    }

    #[test]
    fn long_literals_keep_to_the_fuzz_size_limit() {
        let longest = |limit: Option<usize>| {
            let mut longest = 0;
            for seed in 0..20 {
                let call = || generate("hex-plain", 49, &mut case_rng(seed, "pg-bytea", "hex-plain", 49));
                let cases = match limit {
                    Some(max) => size_limit::scoped(max, call),
                    None => call(),
                };
                longest = longest.max(cases.iter().map(|c| c.steps[0].text.len()).max().unwrap_or(0));
            }
            longest
        };
        // Two lengths of at most 300 bytes from `lengths`, then the long one.
        assert!(longest(Some(64)) <= 2 + 2 * 300, "{}", longest(Some(64)));
        assert!(longest(None) > 2 + 2 * 1000, "{}", longest(None));
    }
}
