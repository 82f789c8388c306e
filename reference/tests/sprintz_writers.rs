//! SPRINTZ INT64 / DOUBLE pages read as the writer that wrote them predicts
//! (`docs/reference/tsfile-encodings.md`, "Java and C++ differ"): the C++ predictor
//! multiplies in 128 bits, Java wraps the 64-bit product first.

use crossdec_reference::tsfile::sprintz::{decode_f64, decode_f64_from, decode_i64_from, Writer};

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// A DOUBLE page the official C++ writer (PyPI tsfile 2.5) wrote: one block
/// of nine values with a predictor product past 2^63 at the last value.
const CPP_PAGE: &str =
    "40000fffffffffffff0000000000000001ffcfffffffffffffffd000000000000000000000000000000000000000000000\
                        0000000000000002ffe00000000000010020000000000000";

/// What the official reader returned for it.
const CPP_VALUES: [u64; 9] = [
    0x000f_ffff_ffff_ffff,
    0x0010_0000_0000_0000,
    0xfff8_0000_0000_0000,
    0x0010_0018_0000_0000,
    0x000f_ffff_ffe8_0000,
    0x0010_0000_0000_0018,
    0x0010_0000_0048_0046,
    0x0000_0000_0047_ff26,
    0x0080_0090_0048_0946,
];

#[test]
fn double_pages_of_the_cpp_writer_need_its_predictor() {
    let page = hex(&CPP_PAGE.replace(' ', ""));
    let cpp = decode_f64_from(&page, Writer::Cpp, 9).unwrap();
    let bits: Vec<u64> = cpp.values.iter().map(|v| v.to_bits()).collect();
    assert_eq!(bits, CPP_VALUES);
    assert_eq!(cpp.consumed, page.len());
    // Java's predictor wraps the product: the last value differs, and the
    // Java reading is what `decode_f64` (Java's reader) gives.
    let java = decode_f64_from(&page, Writer::Java, 9).unwrap();
    let java_bits: Vec<u64> = java.values.iter().map(|v| v.to_bits()).collect();
    assert_eq!(java_bits[..8], CPP_VALUES[..8]);
    assert_eq!(java_bits[8], 0xfff0_0090_0048_0946);
    let plain = decode_f64(&page, 9).unwrap();
    assert_eq!(plain.values.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), java_bits);
}

#[test]
fn int64_pages_take_the_same_predictor() {
    // The same page read as INT64: the same bit patterns.
    let page = hex(&CPP_PAGE.replace(' ', ""));
    let cpp = decode_i64_from(&page, Writer::Cpp, 9).unwrap();
    assert_eq!(cpp.values.iter().map(|&v| v as u64).collect::<Vec<_>>(), CPP_VALUES);
    let java = decode_i64_from(&page, Writer::Java, 9).unwrap();
    assert_eq!(java.values[8] as u64, 0xfff0_0090_0048_0946);
}
