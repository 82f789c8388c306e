//! The `varint-edges` category of the families whose pages hold LEB128
//! varints (RLE: package lengths and run headers; PLAIN: INT32 values and
//! TEXT lengths). Random pages reach the boundary forms of a varint only by
//! chance, so this category writes them on purpose: a valid page from the
//! reference encoder, parsed back into its fields, with every varint
//! rewritten in one of the forms a u32 reader meets: minimal, padded with
//! continuation bytes (overlong, still valid up to five bytes), a fifth byte
//! with bits above the 32nd (a value past `u32::MAX`), and six bytes.

use crate::engine::CaseRng;
use crate::engine::SliceDraw;

use super::generate::{encode, series, Shape};
use super::{DataType, Encoding, TsInput};

/// How one varint is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    Minimal,
    /// Exactly this many bytes (at least the minimal length, at most five):
    /// the value followed by zero groups.
    Padded(usize),
    /// Five bytes whose last one holds bits above the 32nd: refused.
    FifthByteHighBits,
    /// Five continuation bytes and a sixth: refused.
    SixBytes,
}

fn minimal_len(v: u32) -> usize {
    (32 - v.leading_zeros()).div_ceil(7).max(1) as usize
}

fn write(v: u32, form: Form, out: &mut Vec<u8>, rng: &mut CaseRng) {
    let groups = |n: usize, out: &mut Vec<u8>| {
        for i in 0..n {
            let group = (u64::from(v) >> (7 * i)) as u8 & 0x7F;
            out.push(if i + 1 < n { group | 0x80 } else { group });
        }
    };
    match form {
        Form::Minimal => groups(minimal_len(v), out),
        Form::Padded(n) => groups(n.clamp(minimal_len(v), 5), out),
        Form::FifthByteHighBits => {
            groups(4, out);
            let last = out.len() - 1;
            out[last] |= 0x80;
            out.push((v >> 28) as u8 | rng.gen_range(1..8u8) << 4);
        }
        Form::SixBytes => {
            groups(5, out);
            let last = out.len() - 1;
            out[last] |= 0x80;
            out.push(rng.gen_range(0..0x80));
        }
    }
}

/// Rewrites a page's varints: each gets a valid form, except that with
/// probability `refuse` one chosen varint gets a refused form (the decoders
/// stop at the first, so one is enough).
struct Rewriter<'r> {
    rng: &'r mut CaseRng,
    refused_at: Option<usize>,
    seen: usize,
}

impl<'r> Rewriter<'r> {
    fn new(rng: &'r mut CaseRng, varints: usize, refuse: f64) -> Self {
        let refused_at = (varints > 0 && rng.gen_bool(refuse)).then(|| rng.gen_range(0..varints));
        Rewriter {
            rng,
            refused_at,
            seen: 0,
        }
    }

    fn varint(&mut self, v: u32, out: &mut Vec<u8>) {
        let form = if self.refused_at == Some(self.seen) {
            *[Form::FifthByteHighBits, Form::SixBytes].choose(self.rng).unwrap()
        } else if self.rng.gen_bool(0.4) {
            Form::Minimal
        } else {
            Form::Padded(self.rng.gen_range(2..=5))
        };
        self.seen += 1;
        write(v, form, out, self.rng);
    }
}

/// A minimal varint at `page[at..]`: (value, length). The pages parsed here
/// come from the reference encoder, so they are well formed.
fn read(page: &[u8], at: usize) -> (u32, usize) {
    let mut v = 0u64;
    for (i, &b) in page[at..].iter().enumerate() {
        v |= u64::from(b & 0x7F) << (7 * i);
        if b & 0x80 == 0 {
            return (v as u32, i + 1);
        }
    }
    panic!("the reference encoder wrote a cut varint");
}

/// One RLE run as the encoder laid it out: its header and the bytes after it.
struct Run<'p> {
    header: u32,
    rest: &'p [u8],
}

/// A package: bit width and runs.
struct Package<'p> {
    bit_width: u8,
    runs: Vec<Run<'p>>,
}

fn rle_packages(page: &[u8]) -> Vec<Package<'_>> {
    let mut packages = Vec::new();
    let mut at = 0;
    while at < page.len() {
        let (len, k) = read(page, at);
        let body = &page[at + k..at + k + len as usize];
        at += k + len as usize;
        let bit_width = body[0];
        let mut runs = Vec::new();
        let mut pos = 1;
        while pos < body.len() {
            let (header, k) = read(body, pos);
            let rest_len = if header & 1 == 0 {
                usize::from(bit_width).div_ceil(8)
            } else {
                1 + (header >> 1) as usize * usize::from(bit_width)
            };
            runs.push(Run {
                header,
                rest: &body[pos + k..pos + k + rest_len],
            });
            pos += k + rest_len;
        }
        packages.push(Package { bit_width, runs });
    }
    packages
}

fn rewrite_rle(page: &[u8], rng: &mut CaseRng, refuse: f64) -> Vec<u8> {
    let packages = rle_packages(page);
    let varints = packages.iter().map(|p| 1 + p.runs.len()).sum();
    let mut w = Rewriter::new(rng, varints, refuse);
    let mut out = Vec::new();
    for p in &packages {
        // The runs first: the package length counts their rewritten bytes.
        let mut body = vec![p.bit_width];
        for run in &p.runs {
            w.varint(run.header, &mut body);
            body.extend_from_slice(run.rest);
        }
        w.varint(body.len() as u32, &mut out);
        out.extend_from_slice(&body);
    }
    out
}

fn rewrite_plain(page: &[u8], dtype: DataType, rng: &mut CaseRng, refuse: f64) -> Vec<u8> {
    // (varint value, bytes after it) per value.
    let mut fields = Vec::new();
    let mut at = 0;
    while at < page.len() {
        let (v, k) = read(page, at);
        at += k;
        let rest = match dtype {
            // A zigzag length, never negative from the encoder.
            DataType::Text => (v >> 1) as usize,
            _ => 0,
        };
        fields.push((v, &page[at..at + rest]));
        at += rest;
    }
    let mut w = Rewriter::new(rng, fields.len(), refuse);
    let mut out = Vec::new();
    for (v, rest) in fields {
        w.varint(v, &mut out);
        out.extend_from_slice(rest);
    }
    out
}

/// Whether `encoding` has a `varint-edges` category.
pub fn applies(encoding: Encoding) -> bool {
    matches!(encoding, Encoding::Rle | Encoding::Plain)
}

/// One case: a valid page of edge and random values, every varint rewritten.
pub fn generate(encoding: Encoding, rng: &mut CaseRng) -> TsInput {
    let dtype = match encoding {
        Encoding::Plain => *[DataType::Int32, DataType::Text].choose(rng).unwrap(),
        // FLOAT and DOUBLE pages start with the wrapper's header, not a package.
        Encoding::Rle => *[DataType::Boolean, DataType::Int32, DataType::Int64]
            .choose(rng)
            .unwrap(),
        _ => *encoding.types().choose(rng).unwrap(),
    };
    let shape = *[Shape::Edges, Shape::FullRange, Shape::Constant].choose(rng).unwrap();
    let len = rng.gen_range(0..40);
    let values = series(rng, dtype, shape, len);
    let mut input = encode(rng, encoding, &values);
    let refuse = 0.3;
    input.page = match encoding {
        Encoding::Rle => rewrite_rle(&input.page, rng, refuse),
        Encoding::Plain => rewrite_plain(&input.page, dtype, rng, refuse),
        _ => unreachable!("only RLE and PLAIN pages hold varints"),
    };
    input
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(v: u32, form: Form) -> Vec<u8> {
        let mut out = Vec::new();
        write(v, form, &mut out, &mut CaseRng::seed_from_u64(1));
        out
    }

    #[test]
    fn every_form_is_the_bytes_it_promises() {
        assert_eq!(written(5, Form::Minimal), [0x05]);
        assert_eq!(written(300, Form::Minimal), [0xAC, 0x02]);
        assert_eq!(written(u32::MAX, Form::Minimal), [0xFF, 0xFF, 0xFF, 0xFF, 0x0F]);
        assert_eq!(written(5, Form::Padded(5)), [0x85, 0x80, 0x80, 0x80, 0x00]);
        assert_eq!(written(300, Form::Padded(3)), [0xAC, 0x82, 0x00]);
        // Never shorter than the value needs.
        assert_eq!(written(u32::MAX, Form::Padded(2)).len(), 5);
        let high = written(7, Form::FifthByteHighBits);
        assert_eq!((high.len(), &high[..4]), (5, &[0x87, 0x80, 0x80, 0x80][..]));
        assert!(high[4] & 0x70 != 0 && high[4] & 0x80 == 0, "{high:02x?}");
        let six = written(7, Form::SixBytes);
        assert_eq!((six.len(), six[4] & 0x80), (6, 0x80));
    }

    #[test]
    fn rewritten_valid_pages_decode_to_the_same_values() {
        use crossdec_reference::tsfile::{plain, rle};
        let mut rng = CaseRng::seed_from_u64(7);
        for _ in 0..200 {
            let values: Vec<i32> = (0..rng.gen_range(1..30)).map(|_| rng.gen()).collect();
            let page = rle::encode_i32(&values, rng.gen());
            let again = rewrite_rle(&page, &mut rng, 0.0);
            assert_eq!(rle::decode_i32(&again, 1000).map(|d| d.values), Ok(values.clone()));
            let page = plain::encode_i32(&values);
            let again = rewrite_plain(&page, DataType::Int32, &mut rng, 0.0);
            assert_eq!(plain::decode_i32(&again, 1000).map(|d| d.values), Ok(values));
        }
    }

    #[test]
    fn a_refused_form_is_refused() {
        use crossdec_reference::tsfile::{plain, DecodeError};
        let mut rng = CaseRng::seed_from_u64(3);
        let page = plain::encode_i32(&[1, -1, i32::MIN]);
        for _ in 0..50 {
            let again = rewrite_plain(&page, DataType::Int32, &mut rng, 1.0);
            assert!(
                matches!(plain::decode_i32(&again, 1000), Err(DecodeError::BadVarint { .. })),
                "{again:02x?}"
            );
        }
    }
}
