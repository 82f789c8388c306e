//! Families `tsfile-ts2diff`, `tsfile-gorilla`, `tsfile-plain`,
//! `tsfile-rle`, `tsfile-zigzag`, `tsfile-chimp`, `tsfile-dictionary`,
//! `tsfile-sprintz`, `tsfile-rlbe`, `tsfile-camel` and `tsfile-regular`:
//! one Apache TsFile page (value bytes) of one data type, decoded by the
//! reference and by every kernel, compared on values, consumed bytes
//! and errors with their positions. `crossdec tsfile` (`crate::cli::tsfile`)
//! reads whole files with the streaming reader and feeds their pages to the
//! same decoders.

mod adapters;
mod block_headers;
mod chimp;
mod dictionary;
mod float_scaled;
pub mod generate;
mod regular;
mod sprintz_extremes;
mod varint_edges;
mod word_size;
mod zigzag;

pub use adapters::{decode_values, decode_with, implementation_reporting, kernel_names, Report};

use crossdec_kernels::tsfile as kernel;
use crossdec_reference::tsfile as reference;

use crate::engine::bytes::{self, BytePayload};
use crate::engine::{canonical_enum, canonical_struct, Campaign, Canonical, Category, Outcome, Parse, Spec};

/// Largest `max_values` an input may carry (parsed inputs are clamped), so a
/// corpus file cannot make the adapters size huge buffers.
pub const MAX_VALUES_CAP: u32 = 1 << 20;

/// Largest `max_values` a fuzz target decodes with (fuzz mode clamps to it,
/// [`Spec::cap_for_fuzzing`]): every kernel call fills and checks a caller
/// buffer of `max_values` elements twice, so a declared million cost a
/// millisecond per execution whatever the page held. 4096 values is more
/// than a fuzz input of at most 4 KiB can carry in most encodings, and past
/// every block, group and SIMD-lane boundary of the kernels; the `large`
/// category covers counts from here up to [`MAX_VALUES_CAP`] in campaigns.
pub const FUZZ_MAX_VALUES: u32 = 4096;

/// The encodings with a family, one family each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Encoding {
    Ts2Diff,
    Gorilla,
    Plain,
    Rle,
    Zigzag,
    Chimp,
    Dictionary,
    Sprintz,
    Rlbe,
    Camel,
    Regular,
}

impl Encoding {
    pub const ALL: [Encoding; 11] = [
        Encoding::Ts2Diff,
        Encoding::Gorilla,
        Encoding::Plain,
        Encoding::Rle,
        Encoding::Zigzag,
        Encoding::Chimp,
        Encoding::Dictionary,
        Encoding::Sprintz,
        Encoding::Rlbe,
        Encoding::Camel,
        Encoding::Regular,
    ];

    /// TsFile's encoding id.
    pub fn id(self) -> u8 {
        match self {
            Encoding::Plain => 0,
            Encoding::Rle => 2,
            Encoding::Ts2Diff => 4,
            Encoding::Gorilla => 8,
            Encoding::Zigzag => 9,
            Encoding::Chimp => 11,
            Encoding::Dictionary => 1,
            Encoding::Sprintz => 12,
            Encoding::Rlbe => 13,
            Encoding::Camel => 14,
            Encoding::Regular => 7,
        }
    }

    pub fn from_id(id: u8) -> Option<Self> {
        Encoding::ALL.into_iter().find(|e| e.id() == id)
    }

    pub fn family_name(self) -> &'static str {
        match self {
            Encoding::Ts2Diff => "tsfile-ts2diff",
            Encoding::Gorilla => "tsfile-gorilla",
            Encoding::Plain => "tsfile-plain",
            Encoding::Rle => "tsfile-rle",
            Encoding::Zigzag => "tsfile-zigzag",
            Encoding::Chimp => "tsfile-chimp",
            Encoding::Dictionary => "tsfile-dictionary",
            Encoding::Sprintz => "tsfile-sprintz",
            Encoding::Rlbe => "tsfile-rlbe",
            Encoding::Camel => "tsfile-camel",
            Encoding::Regular => "tsfile-regular",
        }
    }

    /// The files this encoding's family is made of (see
    /// [`super::Registration`]): its own kernel and reference files, and
    /// what the TsFile families share.
    pub fn sources(self) -> &'static [&'static str] {
        match self {
            Encoding::Ts2Diff => &[
                "kernels/src/tsfile/ts2diff.rs",
                "kernels/src/tsfile/ts2diff/",
                "kernels/src/tsfile/bitpack.rs",
                "kernels/src/tsfile/float_scaled.rs",
                "reference/src/tsfile/ts2diff.rs",
                "reference/src/tsfile/float_scaled.rs",
                "kernels/src/tsfile/mod.rs",
                "reference/src/tsfile/mod.rs",
                "harness/src/families/tsfile/",
                "harness/tests/tsfile_*",
                "harness/tests/integration/tsfile_*",
                "harness/tests/fixtures/tsfile/",
            ],
            Encoding::Gorilla => &[
                "kernels/src/tsfile/gorilla.rs",
                "reference/src/tsfile/gorilla.rs",
                "kernels/src/tsfile/mod.rs",
                "reference/src/tsfile/mod.rs",
                "harness/src/families/tsfile/",
                "harness/tests/tsfile_*",
                "harness/tests/integration/tsfile_*",
                "harness/tests/fixtures/tsfile/",
            ],
            Encoding::Plain => &[
                "kernels/src/tsfile/plain.rs",
                "reference/src/tsfile/plain.rs",
                "kernels/src/tsfile/mod.rs",
                "reference/src/tsfile/mod.rs",
                "harness/src/families/tsfile/",
                "harness/tests/tsfile_*",
                "harness/tests/integration/tsfile_*",
                "harness/tests/fixtures/tsfile/",
            ],
            Encoding::Rle => &[
                "kernels/src/tsfile/rle.rs",
                "kernels/src/tsfile/bitpack.rs",
                "kernels/src/tsfile/float_scaled.rs",
                "reference/src/tsfile/rle.rs",
                "reference/src/tsfile/float_scaled.rs",
                "kernels/src/tsfile/mod.rs",
                "reference/src/tsfile/mod.rs",
                "harness/src/families/tsfile/",
                "harness/tests/tsfile_*",
                "harness/tests/integration/tsfile_*",
                "harness/tests/fixtures/tsfile/",
            ],
            Encoding::Zigzag => &[
                "kernels/src/tsfile/zigzag.rs",
                "kernels/src/tsfile/varint.rs",
                "kernels/src/tsfile/varint/",
                "reference/src/tsfile/zigzag.rs",
                "kernels/src/tsfile/mod.rs",
                "reference/src/tsfile/mod.rs",
                "harness/src/families/tsfile/",
                "harness/tests/tsfile_*",
                "harness/tests/integration/tsfile_*",
            ],
            Encoding::Chimp => &[
                "kernels/src/tsfile/chimp.rs",
                "reference/src/tsfile/chimp.rs",
                "kernels/src/tsfile/mod.rs",
                "reference/src/tsfile/mod.rs",
                "harness/src/families/tsfile/",
                "harness/tests/tsfile_*",
                "harness/tests/integration/tsfile_*",
            ],
            Encoding::Dictionary => &[
                "kernels/src/tsfile/dictionary.rs",
                "kernels/src/tsfile/rle.rs",
                "kernels/src/tsfile/bitpack.rs",
                "reference/src/tsfile/dictionary.rs",
                "reference/src/tsfile/rle.rs",
                "kernels/src/tsfile/mod.rs",
                "reference/src/tsfile/mod.rs",
                "harness/src/families/tsfile/",
                "harness/tests/tsfile_*",
                "harness/tests/integration/tsfile_*",
            ],
            Encoding::Sprintz => &[
                "kernels/src/tsfile/sprintz.rs",
                "kernels/src/tsfile/bitpack.rs",
                "kernels/src/tsfile/rle.rs",
                "kernels/src/tsfile/gorilla.rs",
                "reference/src/tsfile/sprintz.rs",
                "reference/src/tsfile/rle.rs",
                "reference/src/tsfile/gorilla.rs",
                "kernels/src/tsfile/mod.rs",
                "reference/src/tsfile/mod.rs",
                "harness/src/families/tsfile/",
                "harness/tests/tsfile_*",
                "harness/tests/integration/tsfile_*",
            ],
            Encoding::Rlbe => &[
                "kernels/src/tsfile/rlbe.rs",
                "reference/src/tsfile/rlbe.rs",
                "kernels/src/tsfile/mod.rs",
                "reference/src/tsfile/mod.rs",
                "harness/src/families/tsfile/",
                "harness/tests/tsfile_*",
                "harness/tests/integration/tsfile_*",
            ],
            Encoding::Camel => &[
                "kernels/src/tsfile/camel.rs",
                "reference/src/tsfile/camel.rs",
                "kernels/src/tsfile/mod.rs",
                "reference/src/tsfile/mod.rs",
                "harness/src/families/tsfile/",
                "harness/tests/tsfile_*",
                "harness/tests/integration/tsfile_*",
            ],
            Encoding::Regular => &[
                "kernels/src/tsfile/regular.rs",
                "reference/src/tsfile/regular.rs",
                "kernels/src/tsfile/mod.rs",
                "reference/src/tsfile/mod.rs",
                "harness/src/families/tsfile/",
                "harness/tests/tsfile_*",
                "harness/tests/integration/tsfile_*",
            ],
        }
    }

    /// Whether a Java writer's page of `dtype` gives back exactly the values
    /// written: TS_2DIFF and RLE keep FLOAT / DOUBLE to `maxPointNumber`
    /// decimals only, RLBE adds FLOAT / DOUBLE differences in float
    /// arithmetic, SPRINTZ drops prediction errors of 2^30 (2^62) and more,
    /// CAMEL reads a later NaN as 0.0 (and keeps no -0.0 or subnormal),
    /// REGULAR gives back a series that is not regular as another one (of
    /// another length, even).
    pub fn is_lossless(self, dtype: DataType) -> bool {
        let float = matches!(dtype, DataType::Float | DataType::Double);
        match self {
            Encoding::Sprintz | Encoding::Camel | Encoding::Regular => false,
            Encoding::Ts2Diff | Encoding::Rle | Encoding::Rlbe => !float,
            _ => true,
        }
    }

    /// The data types this encoding decodes.
    pub fn types(self) -> &'static [DataType] {
        use DataType::*;
        match self {
            Encoding::Ts2Diff => &[Int32, Int64, Float, Double],
            Encoding::Gorilla => &[Int32, Int64, Float, Double],
            Encoding::Plain => &[Boolean, Int32, Int64, Float, Double, Text],
            Encoding::Rle => &[Boolean, Int32, Int64, Float, Double],
            Encoding::Zigzag => &[Int32, Int64],
            Encoding::Chimp => &[Int32, Int64, Float, Double],
            Encoding::Dictionary => &[Text],
            Encoding::Sprintz | Encoding::Rlbe => &[Int32, Int64, Float, Double],
            Encoding::Camel => &[Double],
            Encoding::Regular => &[Int32, Int64],
        }
    }
}

/// TsFile data types (TEXT also stands for STRING and BLOB: same bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DataType {
    Boolean,
    Int32,
    Int64,
    Float,
    Double,
    Text,
}

impl DataType {
    pub fn id(self) -> u8 {
        match self {
            DataType::Boolean => 0,
            DataType::Int32 => 1,
            DataType::Int64 => 2,
            DataType::Float => 3,
            DataType::Double => 4,
            DataType::Text => 5,
        }
    }
    /// TsFile ids, with TIMESTAMP (8) read as INT64, DATE (9) as INT32 and
    /// BLOB (10) / STRING (11) as TEXT.
    pub fn from_id(id: u8) -> Option<Self> {
        Some(match id {
            0 => DataType::Boolean,
            1 | 9 => DataType::Int32,
            2 | 8 => DataType::Int64,
            3 => DataType::Float,
            4 => DataType::Double,
            5 | 10 | 11 => DataType::Text,
            _ => return None,
        })
    }
}

/// Which writer's variant of an encoding a page is in, where the two write
/// different bytes or read the same bytes differently, and nothing in the
/// page says which: SPRINTZ (the C++ reader takes the INT64 / DOUBLE
/// predictor's product in 128 bits where Java wraps it in 64, reads the
/// mapped error `MIN` as positive, and starts a FLOAT / DOUBLE block's
/// predictor from the raw bits where Java makes NaNs canonical) and RLBE's
/// FLOAT / DOUBLE layout (Java stores float differences, C++ the integer
/// RLBE of the bits). Java everywhere else.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Writer {
    #[default]
    Java,
    Cpp,
}

impl Writer {
    /// Whether the two writers' pages of `dtype` in `encoding` differ.
    pub fn matters(encoding: Encoding, dtype: DataType) -> bool {
        match encoding {
            Encoding::Sprintz => !matches!(dtype, DataType::Boolean | DataType::Text),
            Encoding::Rlbe => matches!(dtype, DataType::Float | DataType::Double),
            _ => false,
        }
    }
}

/// Where a GORILLA or CHIMP decode stops (ignored by the other encodings).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopMode {
    AtTerminator,
    Count(u32),
}

/// One page and what its caller knows about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TsInput {
    pub encoding: Encoding,
    pub dtype: DataType,
    pub stop: StopMode,
    /// Whose variant the page is in (Java unless [`Writer::matters`]).
    pub writer: Writer,
    /// The most values the caller accepts (the output buffer's length).
    pub max_values: u32,
    pub page: Vec<u8>,
}

/// Decoded values; floats as bit patterns so NaNs compare exactly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Values {
    Boolean(Vec<bool>),
    Int32(Vec<i32>),
    Int64(Vec<i64>),
    Float(Vec<u32>),
    Double(Vec<u64>),
    Text(Vec<Vec<u8>>),
}

impl Values {
    pub fn len(&self) -> usize {
        match self {
            Values::Boolean(v) => v.len(),
            Values::Int32(v) => v.len(),
            Values::Int64(v) => v.len(),
            Values::Float(v) => v.len(),
            Values::Double(v) => v.len(),
            Values::Text(v) => v.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn dtype(&self) -> DataType {
        match self {
            Values::Boolean(_) => DataType::Boolean,
            Values::Int32(_) => DataType::Int32,
            Values::Int64(_) => DataType::Int64,
            Values::Float(_) => DataType::Float,
            Values::Double(_) => DataType::Double,
            Values::Text(_) => DataType::Text,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TsValue {
    pub values: Values,
    pub consumed: usize,
}

/// A decode error in comparable form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TsFault {
    Truncated {
        field: TsField,
        offset: usize,
        bit: u8,
    },
    BadBitWidth {
        width: i64,
        max: u32,
        offset: usize,
    },
    BadCount {
        field: TsField,
        count: i64,
        offset: usize,
    },
    NoWindow {
        offset: usize,
        bit: u8,
    },
    BadWindow {
        leading: u32,
        significant: u32,
        offset: usize,
        bit: u8,
    },
    BadVarint {
        offset: usize,
    },
    BadBoolean {
        byte: u8,
        offset: usize,
    },
    TooManyValues {
        max: usize,
        offset: usize,
    },
}

/// The page field an error names, with its stable canonical tag. The
/// reference and the kernels each have their own `Field` enum; a field the
/// reference alone names (an encoding no kernel decodes yet) goes in
/// `reference_only`.
macro_rules! ts_fields {
    (kernels: [$($k:ident = $kt:literal),* $(,)?], reference_only: [$($r:ident = $rt:literal),* $(,)?] $(,)?) => {
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum TsField {
            $($k,)*
            $($r,)*
        }

        canonical_enum!(TsField { $($k = $kt,)* $($r = $rt,)* });

        impl From<kernel::Field> for TsField {
            fn from(field: kernel::Field) -> Self {
                match field {
                    $(kernel::Field::$k => TsField::$k,)*
                }
            }
        }

        impl From<reference::Field> for TsField {
            fn from(field: reference::Field) -> Self {
                match field {
                    $(reference::Field::$k => TsField::$k,)*
                    $(reference::Field::$r => TsField::$r,)*
                }
            }
        }
    };
}

ts_fields! {
    kernels: [
        WriteIndex = 0, BitWidth = 1, MinDeltaBase = 2, FirstValue = 3, Packed = 4, GorillaFirst = 5,
        GorillaControl = 6, GorillaLeading = 7, GorillaLength = 8, GorillaBits = 9, GorillaFlush = 10,
        Varint = 11, Value = 12, Bytes = 13, RleLength = 14, RleBitWidth = 15, RunHeader = 16,
        LastBitPackedNum = 17, RunValue = 18, Groups = 19, ZigzagLength = 20, ZigzagCount = 21, ZigzagValue = 22,
        ChimpFirst = 27, ChimpControl = 28, ChimpIndex = 29, ChimpLeading = 30, ChimpBits = 31, ChimpFlush = 32,
        SprintzHeader = 33, SprintzFirst = 34, SprintzPacked = 35, SprintzTail = 36,
        DictSize = 41, DictEntry = 42, DictIndex = 43,
        FloatHeader = 23, FloatCount = 24, FloatBitmap = 25, MaxPointNumber = 26,
        RlbeCount = 37, RlbeLength = 38, RlbeRun = 39, RlbeValue = 40,
        CamelBits = 44, CamelFirst = 45, CamelType = 46, CamelVarLong = 47, CamelDecimal = 48, CamelXor = 49,
        RegularMissing = 50, RegularBitmapLength = 51, RegularBitmap = 52, RegularCount = 53, RegularDelta = 54,
        RegularFirst = 55,
    ],
    reference_only: [
    ],
}

canonical_enum!(TsFault {
    Truncated { field, offset, bit } = 0,
    BadBitWidth { width, max, offset } = 1,
    BadCount { field, count, offset } = 2,
    NoWindow { offset, bit } = 3,
    BadWindow { leading, significant, offset, bit } = 4,
    BadVarint { offset } = 5,
    BadBoolean { byte, offset } = 6,
    TooManyValues { max, offset } = 7,
});

// Values are tagged with their TsFile data type id.
canonical_enum!(Values {
    Boolean(v) = 0,
    Int32(v) = 1,
    Int64(v) = 2,
    Float(v) = 3,
    Double(v) = 4,
    Text(v) = 5,
});
canonical_struct!(TsValue { values, consumed });

macro_rules! fault_from {
    ($e:ty) => {
        impl From<$e> for TsFault {
            fn from(e: $e) -> Self {
                type E = $e;
                match e {
                    E::Truncated { field, offset, bit } => TsFault::Truncated {
                        field: field.into(),
                        offset,
                        bit,
                    },
                    E::BadBitWidth { width, max, offset } => TsFault::BadBitWidth { width, max, offset },
                    E::BadCount { field, count, offset } => TsFault::BadCount {
                        field: field.into(),
                        count,
                        offset,
                    },
                    E::NoWindow { offset, bit } => TsFault::NoWindow { offset, bit },
                    E::BadWindow {
                        leading,
                        significant,
                        offset,
                        bit,
                    } => TsFault::BadWindow {
                        leading,
                        significant,
                        offset,
                        bit,
                    },
                    E::BadVarint { offset } => TsFault::BadVarint { offset },
                    E::BadBoolean { byte, offset } => TsFault::BadBoolean { byte, offset },
                    E::TooManyValues { max, offset } => TsFault::TooManyValues { max, offset },
                }
            }
        }
    };
}
fault_from!(reference::DecodeError);
fault_from!(kernel::DecodeError);

fn sprintz_writer(input: &TsInput) -> reference::sprintz::Writer {
    match input.writer {
        Writer::Java => reference::sprintz::Writer::Java,
        Writer::Cpp => reference::sprintz::Writer::Cpp,
    }
}

fn rlbe_flavour(input: &TsInput) -> reference::rlbe::Flavour {
    match input.writer {
        Writer::Java => reference::rlbe::Flavour::JavaFloatDiffs,
        Writer::Cpp => reference::rlbe::Flavour::CppBits,
    }
}

/// Decode one page with the reference decoders.
pub fn reference_decode(input: &TsInput) -> Result<TsValue, TsFault> {
    use reference::{
        camel, chimp, dictionary, float_scaled, gorilla, plain, regular, rlbe, rle, sprintz, ts2diff, zigzag,
    };
    let max = input.max_values as usize;
    let stop = match input.stop {
        StopMode::AtTerminator => gorilla::Stop::AtTerminator,
        StopMode::Count(n) => gorilla::Stop::Count(n as usize),
    };
    macro_rules! go {
        ($call:expr, $variant:ident) => {{
            let d = $call?;
            TsValue {
                values: Values::$variant(d.values),
                consumed: d.consumed,
            }
        }};
        ($call:expr, $variant:ident, $map:expr) => {{
            let d = $call?;
            TsValue {
                values: Values::$variant(d.values.into_iter().map($map).collect()),
                consumed: d.consumed,
            }
        }};
    }
    let page = &input.page;
    Ok(match (input.encoding, input.dtype) {
        (Encoding::Ts2Diff, DataType::Int32) => go!(ts2diff::decode_i32(page, max), Int32),
        (Encoding::Ts2Diff, DataType::Int64) => go!(ts2diff::decode_i64(page, max), Int64),
        (Encoding::Ts2Diff, DataType::Float) => go!(
            float_scaled::decode_f32(page, float_scaled::Inner::Ts2Diff, max),
            Float,
            f32::to_bits
        ),
        (Encoding::Ts2Diff, DataType::Double) => go!(
            float_scaled::decode_f64(page, float_scaled::Inner::Ts2Diff, max),
            Double,
            f64::to_bits
        ),
        (Encoding::Rle, DataType::Float) => go!(
            float_scaled::decode_f32(page, float_scaled::Inner::Rle, max),
            Float,
            f32::to_bits
        ),
        (Encoding::Rle, DataType::Double) => go!(
            float_scaled::decode_f64(page, float_scaled::Inner::Rle, max),
            Double,
            f64::to_bits
        ),
        (Encoding::Gorilla, DataType::Int32) => {
            go!(
                gorilla::decode32(page, gorilla::TERMINATOR_I32, stop, max),
                Int32,
                |v| v as i32
            )
        }
        (Encoding::Gorilla, DataType::Int64) => {
            go!(
                gorilla::decode64(page, gorilla::TERMINATOR_I64, stop, max),
                Int64,
                |v| v as i64
            )
        }
        (Encoding::Gorilla, DataType::Float) => go!(gorilla::decode32(page, gorilla::TERMINATOR_F32, stop, max), Float),
        (Encoding::Gorilla, DataType::Double) => {
            go!(gorilla::decode64(page, gorilla::TERMINATOR_F64, stop, max), Double)
        }
        (Encoding::Plain, DataType::Boolean) => go!(plain::decode_bool(page, max), Boolean),
        (Encoding::Plain, DataType::Int32) => go!(plain::decode_i32(page, max), Int32),
        (Encoding::Plain, DataType::Int64) => go!(plain::decode_i64(page, max), Int64),
        (Encoding::Plain, DataType::Float) => {
            go!(plain::decode_f32(page, max), Float, f32::to_bits)
        }
        (Encoding::Plain, DataType::Double) => {
            go!(plain::decode_f64(page, max), Double, f64::to_bits)
        }
        (Encoding::Plain, DataType::Text) => go!(plain::decode_binary(page, max), Text),
        (Encoding::Rle, DataType::Boolean) => go!(rle::decode_bool(page, max), Boolean),
        (Encoding::Rle, DataType::Int32) => go!(rle::decode_i32(page, max), Int32),
        (Encoding::Rle, DataType::Int64) => go!(rle::decode_i64(page, max), Int64),
        (Encoding::Zigzag, DataType::Int32) => go!(zigzag::decode_i32(page, max), Int32),
        (Encoding::Zigzag, DataType::Int64) => go!(zigzag::decode_i64(page, max), Int64),
        (Encoding::Chimp, DataType::Int32) => {
            go!(chimp::decode32(page, chimp::TERMINATOR_I32, stop, max), Int32, |v| v
                as i32)
        }
        (Encoding::Chimp, DataType::Int64) => {
            go!(chimp::decode64(page, chimp::TERMINATOR_I64, stop, max), Int64, |v| v
                as i64)
        }
        (Encoding::Chimp, DataType::Float) => go!(chimp::decode32(page, chimp::TERMINATOR_F32, stop, max), Float),
        (Encoding::Dictionary, DataType::Text) => go!(dictionary::decode(page, max), Text),
        (Encoding::Chimp, DataType::Double) => go!(chimp::decode64(page, chimp::TERMINATOR_F64, stop, max), Double),
        (Encoding::Sprintz, DataType::Int32) => go!(sprintz::decode_i32_from(page, sprintz_writer(input), max), Int32),
        (Encoding::Sprintz, DataType::Int64) => go!(sprintz::decode_i64_from(page, sprintz_writer(input), max), Int64),
        (Encoding::Sprintz, DataType::Float) => go!(
            sprintz::decode_f32_from(page, sprintz_writer(input), max),
            Float,
            f32::to_bits
        ),
        (Encoding::Sprintz, DataType::Double) => go!(
            sprintz::decode_f64_from(page, sprintz_writer(input), max),
            Double,
            f64::to_bits
        ),
        (Encoding::Rlbe, DataType::Int32) => go!(rlbe::decode_i32(page, max), Int32),
        (Encoding::Rlbe, DataType::Int64) => go!(rlbe::decode_i64(page, max), Int64),
        (Encoding::Rlbe, DataType::Float) => go!(rlbe::decode_f32(page, rlbe_flavour(input), max), Float, f32::to_bits),
        (Encoding::Rlbe, DataType::Double) => {
            go!(rlbe::decode_f64(page, rlbe_flavour(input), max), Double, f64::to_bits)
        }
        (Encoding::Camel, DataType::Double) => go!(camel::decode(page, max), Double, f64::to_bits),
        (Encoding::Regular, DataType::Int32) => go!(regular::decode_i32(page, max), Int32),
        (Encoding::Regular, DataType::Int64) => go!(regular::decode_i64(page, max), Int64),
        (e, t) => unreachable!("{e:?} does not decode {t:?}; inputs are built and parsed for their family"),
    })
}

/// Canonical form: encoding id, type id, stop mode (0, or 1 and the count
/// as a little-endian `u32`; 5 bytes either way; bit 1 of the mode byte set
/// for a C++ writer's page), `max_values` as a little-endian `u32`, then the
/// page.
impl Canonical for TsInput {
    fn encode(&self, out: &mut Vec<u8>) {
        out.push(self.encoding.id());
        out.push(self.dtype.id());
        let cpp = if self.writer == Writer::Cpp { 2 } else { 0 };
        match self.stop {
            StopMode::AtTerminator => out.extend_from_slice(&[cpp, 0, 0, 0, 0]),
            StopMode::Count(n) => {
                out.push(1 | cpp);
                out.extend_from_slice(&n.to_le_bytes());
            }
        }
        out.extend_from_slice(&self.max_values.to_le_bytes());
        out.extend_from_slice(&self.page);
    }
}

/// Counts are clamped to [`MAX_VALUES_CAP`] so a corpus file cannot make the
/// adapters size huge buffers.
impl Parse for TsInput {
    fn parse(bytes: &[u8]) -> Option<Self> {
        let encoding = Encoding::from_id(*bytes.first()?)?;
        let dtype = DataType::from_id(*bytes.get(1)?)?;
        if !encoding.types().contains(&dtype) {
            return None;
        }
        let count = u32::from_le_bytes(bytes.get(3..7)?.try_into().ok()?).min(MAX_VALUES_CAP);
        let stop = if bytes[2] & 1 == 1 {
            StopMode::Count(count)
        } else {
            StopMode::AtTerminator
        };
        let max_values = u32::from_le_bytes(bytes.get(7..11)?.try_into().ok()?).min(MAX_VALUES_CAP);
        let writer = if bytes[2] & 2 != 0 && Writer::matters(encoding, dtype) {
            Writer::Cpp
        } else {
            Writer::Java
        };
        Some(TsInput {
            encoding,
            dtype,
            stop,
            writer,
            max_values,
            page: bytes[11..].to_vec(),
        })
    }
}

impl BytePayload for TsInput {
    fn payload(&self) -> &[u8] {
        &self.page
    }
    fn with_payload(&self, page: Vec<u8>) -> Self {
        TsInput { page, ..self.clone() }
    }
}

/// One TsFile encoding's spec.
pub struct TsFamily(pub Encoding);

/// The family of one encoding: its registry kernels against the reference.
pub fn campaign(encoding: Encoding) -> Campaign<TsFamily> {
    adapters::implementations(encoding)
        .into_iter()
        .fold(Campaign::new(TsFamily(encoding)), Campaign::with)
}

impl Spec for TsFamily {
    type Input = TsInput;
    type Output = TsValue;
    type Error = TsFault;

    fn name(&self) -> &'static str {
        self.0.family_name()
    }

    fn categories(&self) -> Vec<Category<TsInput>> {
        let encoding = self.0;
        let mut table = generate::CATEGORIES.to_vec();
        if varint_edges::applies(encoding) {
            table.push(("varint-edges", 1.0));
        }
        if word_size::applies(encoding) {
            table.push(word_size::NEAR_WORD_SIZE);
        }
        if encoding == Encoding::Zigzag {
            table.push(zigzag::VARINT_FORMS);
        }
        if encoding == Encoding::Chimp {
            table.extend([chimp::CONTROL_FORMS, chimp::RING_PERIODS]);
        }
        if encoding == Encoding::Sprintz {
            table.push(sprintz_extremes::EXTREMES_IN_BLOCKS);
        }
        if encoding == Encoding::Dictionary {
            table.push(dictionary::LOW_CARDINALITY);
        }
        if encoding == Encoding::Regular {
            table.extend([regular::MISSING_POINTS, regular::IRREGULAR, regular::WRAPPING_DELTAS]);
        }
        let categories = super::named_categories(&table, move |category, index, rng| {
            generate::generate(encoding, category, index, rng)
        });
        super::with_large(categories, generate::LARGE)
    }

    /// `max_values` clamped to [`FUZZ_MAX_VALUES`]; GORILLA's stop count is
    /// left alone (decoding stops at `max_values` whatever it says).
    fn cap_for_fuzzing(&self, input: &mut TsInput) {
        input.max_values = input.max_values.min(FUZZ_MAX_VALUES);
    }

    fn reference(&self, input: &TsInput) -> Outcome<Self> {
        reference_decode(input)
    }

    fn parse(&self, bytes: &[u8]) -> Option<TsInput> {
        TsInput::parse(bytes).filter(|input| input.encoding == self.0)
    }

    /// Smaller pages, simplest first: the page's values re-encoded with
    /// spans of them deleted, then each lowered toward zero (when the
    /// reference reads the page); then the page's bytes
    /// ([`bytes::shrink`]); then the caller's counts lowered. Only
    /// candidates below the input in [`shrink_key`]'s order are kept, so
    /// minimizing ends even though a re-encoded page can come out longer
    /// than the one it replaces.
    fn shrink(&self, input: &TsInput) -> Vec<TsInput> {
        let mut out = reencoded(input);
        out.extend(bytes::shrink(input));
        for max_values in bytes::lower(u64::from(input.max_values)) {
            out.push(TsInput {
                max_values: max_values as u32,
                ..input.clone()
            });
        }
        if let StopMode::Count(n) = input.stop {
            for n in bytes::lower(u64::from(n)) {
                out.push(TsInput {
                    stop: StopMode::Count(n as u32),
                    ..input.clone()
                });
            }
        }
        if input.writer == Writer::Cpp {
            out.push(TsInput {
                writer: Writer::Java,
                ..input.clone()
            });
        }
        let key = shrink_key(input);
        out.retain(|v| shrink_key(v) < key);
        out
    }
}

/// Canonical length, what the reference reads (rejected, values, sum of
/// magnitudes), page, room, stop count, C++ writer.
type ShrinkKey<'a> = (usize, (bool, usize, u128), &'a [u8], u32, u32, bool);

/// The order shrinking goes down in: canonical length; then what the
/// reference reads (a page it rejects above every page it reads, and among
/// those fewer values, then a smaller sum of magnitudes: a value lowered
/// re-encodes to bytes that can sort higher); then the page's bytes, the
/// caller's counts, the writer (Java before C++). Among inputs of one
/// length there are finitely many, so every chain of ever smaller inputs
/// ends.
fn shrink_key(input: &TsInput) -> ShrinkKey<'_> {
    let count = match input.stop {
        StopMode::AtTerminator => 0,
        StopMode::Count(n) => n,
    };
    let read = match reference_decode(input) {
        Ok(v) => {
            let sum: u128 = match &v.values {
                Values::Boolean(v) => v.iter().map(|&b| u128::from(b)).sum(),
                Values::Int32(v) => v.iter().map(|x| u128::from(x.unsigned_abs())).sum(),
                Values::Int64(v) => v.iter().map(|x| u128::from(x.unsigned_abs())).sum(),
                Values::Float(v) => v.iter().map(|&x| u128::from(x)).sum(),
                Values::Double(v) => v.iter().map(|&x| u128::from(x)).sum(),
                Values::Text(v) => v.iter().map(|t| t.len() as u128).sum(),
            };
            (false, v.values.len(), sum)
        }
        Err(_) => (true, 0, 0),
    };
    (
        input.to_canonical().len(),
        read,
        &input.page,
        input.max_values,
        count,
        input.writer == Writer::Cpp,
    )
}

/// Values positions lowered at most (zeroed), and of those the first
/// lowered step by step: every lowering is a candidate, and each costs the
/// minimizer a re-run.
const SHRINK_LOWERED: usize = 16;
const SHRINK_SEARCHED: usize = 4;
/// Draws of the writer-side choices tried when encoding values again.
const SHRINK_DRAWS: u64 = 16;

/// The page's values, when the reference reads them, in smaller versions
/// (spans deleted, then values lowered toward zero), each encoded again as
/// a page of the same encoding, writer and stop mode.
fn reencoded(input: &TsInput) -> Vec<TsInput> {
    let Ok(decoded) = reference_decode(input) else {
        return Vec::new();
    };
    let values = decoded.values;
    let old_len = values.len() as u32;
    let mut smaller: Vec<Values> = Vec::new();
    macro_rules! each {
        ($v:expr, $wrap:path, $lower:expr) => {{
            let v = $v;
            smaller.extend(bytes::spans(v).into_iter().map($wrap));
            for at in 0..v.len().min(SHRINK_LOWERED) {
                let lowered = $lower(v[at]);
                // Zero only, past the first few: each candidate that cannot
                // fail costs a re-run in every round of the minimizer.
                let take = if at < SHRINK_SEARCHED { lowered.len() } else { 1 };
                for lowered in lowered.into_iter().take(take) {
                    let mut w = v.clone();
                    w[at] = lowered;
                    smaller.push($wrap(w));
                }
            }
        }};
    }
    match &values {
        Values::Boolean(v) => each!(v, Values::Boolean, |b: bool| if b { vec![false] } else { vec![] }),
        Values::Int32(v) => each!(v, Values::Int32, |x: i32| bytes::lower_signed(x.into())
            .into_iter()
            .map(|y| y as i32)
            .collect::<Vec<_>>()),
        Values::Int64(v) => each!(v, Values::Int64, bytes::lower_signed),
        Values::Float(v) => each!(v, Values::Float, |x: u32| bytes::lower(x.into())
            .into_iter()
            .map(|y| y as u32)
            .collect::<Vec<_>>()),
        Values::Double(v) => each!(v, Values::Double, bytes::lower),
        Values::Text(v) => {
            smaller.extend(bytes::spans(v).into_iter().map(Values::Text));
            for at in 0..v.len().min(SHRINK_LOWERED) {
                for text in bytes::spans(&v[at]) {
                    let mut w = v.clone();
                    w[at] = text;
                    smaller.push(Values::Text(w));
                }
            }
        }
    }
    // The writer-side choices (block size, run style, a top bit written or
    // cleared, ...) are drawn, and a bug may need the input's: when a draw
    // encodes the input's own values into the input's page, every smaller
    // version is encoded with that draw.
    let rng_for = |seed| crate::engine::case_rng(seed, "shrink", input.encoding.family_name(), 0);
    let same_stop = |v: &TsInput| {
        matches!(
            (v.stop, input.stop),
            (StopMode::AtTerminator, StopMode::AtTerminator) | (StopMode::Count(_), StopMode::Count(_))
        )
    };
    // The same page can come from either writer where their layouts agree:
    // the draw must give the input's writer and stop mode too.
    let same = (0..SHRINK_DRAWS).find(|&seed| {
        let v = generate::encode(&mut rng_for(seed), input.encoding, &values);
        v.page == input.page && v.writer == input.writer && same_stop(&v)
    });
    smaller
        .into_iter()
        .filter_map(|values| {
            // Otherwise the first draw that keeps the input's writer and
            // stop mode.
            let new_len = values.len() as u32;
            same.map_or(0..SHRINK_DRAWS, |seed| seed..seed + 1).find_map(|seed| {
                let mut v = generate::encode(&mut rng_for(seed), input.encoding, &values);
                if v.writer != input.writer || !same_stop(&v) {
                    return None;
                }
                // The caller's room and count keep their relation to the
                // number of values: a bug may need room to spare.
                v.max_values = if input.max_values >= old_len {
                    new_len.saturating_add(input.max_values - old_len)
                } else {
                    input.max_values.min(new_len)
                };
                if let (StopMode::Count(n), StopMode::Count(_)) = (input.stop, v.stop) {
                    v.stop = StopMode::Count(if n >= old_len {
                        new_len.saturating_add(n - old_len)
                    } else {
                        n.min(new_len)
                    });
                }
                Some(v)
            })
        })
        .collect()
}

#[cfg(test)]
mod shrink_tests {
    use super::*;

    /// Greedy minimization as the engine's minimizer does it.
    fn minimize(family: &TsFamily, start: TsInput, fails: impl Fn(&TsInput) -> bool) -> TsInput {
        let mut current = start;
        'outer: loop {
            for candidate in family.shrink(&current) {
                if fails(&candidate) {
                    current = candidate;
                    continue 'outer;
                }
            }
            return current;
        }
    }

    fn decoded(input: &TsInput) -> Vec<i64> {
        match reference_decode(input).map(|v| v.values) {
            Ok(Values::Int64(v)) => v,
            _ => Vec::new(),
        }
    }

    /// Smaller pages are written with the input's writer-side draws (here
    /// RLBE's top bit, written or cleared): a bug that needs them keeps
    /// failing.
    #[test]
    fn pages_are_encoded_again_with_the_inputs_draws() {
        let rng = |seed| crate::engine::case_rng(seed, "shrink", Encoding::Rlbe.family_name(), 0);
        let mut pages = std::collections::HashSet::new();
        for seed in 0..16 {
            let start = generate::encode(&mut rng(seed), Encoding::Rlbe, &Values::Int32(vec![-916; 20]));
            let one = generate::encode(&mut rng(seed), Encoding::Rlbe, &Values::Int32(vec![-916]));
            pages.insert(one.page.clone());
            let shrunk = reencoded(&start);
            assert!(shrunk.iter().any(|c| c.page == one.page), "seed {seed}");
        }
        assert!(pages.len() > 1, "the draws differ");
    }

    /// A bug that needs one value over a threshold: the page shrinks to
    /// that one value, at the threshold, as the encoding writes it, with
    /// no room to spare.
    #[test]
    fn pages_shrink_to_the_one_value_that_matters() {
        for encoding in [Encoding::Plain, Encoding::Ts2Diff, Encoding::Gorilla, Encoding::Sprintz] {
            let values: Vec<i64> = (0..50).map(|i| i * 37 - 400).collect();
            let mut rng = crate::engine::case_rng(1, "shrink", "test", 0);
            let start = generate::encode(&mut rng, encoding, &Values::Int64(values));
            let fails = |i: &TsInput| decoded(i).iter().any(|&v| v >= 1000);
            assert!(fails(&start));
            let family = TsFamily(encoding);
            let small = minimize(&family, start.clone(), fails);
            assert_eq!(decoded(&small), [1000], "{encoding:?}");
            let mut one = crate::engine::case_rng(1, "shrink", "test", 0);
            let single = generate::encode(&mut one, encoding, &Values::Int64(vec![1000]));
            assert!(small.page.len() <= single.page.len(), "{encoding:?}: {small:?}");
            for candidate in family.shrink(&start) {
                assert!(shrink_key(&candidate) < shrink_key(&start));
            }
        }
    }
}
