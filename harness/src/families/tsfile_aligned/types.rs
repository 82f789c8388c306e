//! The family's input, output and error in canonical form. Data types and
//! encodings are TsFile's own ids; floats are bit patterns; an error's
//! chunk is `-1` for the time chunk, else the value chunk's index.

use crate::engine::{canonical_enum, canonical_struct, Canonical, FromCanonical, Parse};

/// The deepest time filter tree an input may hold (`And` / `Or` / `Not`
/// nest): a corpus file of a million `Not` tags must not overflow the
/// stack of the canonical reader or of a scanner's recursive evaluation.
/// It is the filter text's limit, so every filter `crossdec tsfile
/// --filter` reads also reads back from its reproducer.
pub use crossdec_tsfile::filter::MAX_FILTER_DEPTH;

/// [`AlignedInput::writer`]: the C++ writer's layouts.
pub const WRITER_CPP: u8 = 0;
/// [`AlignedInput::writer`]: the Java writer's layouts.
pub const WRITER_JAVA: u8 = 1;

/// One scan: the chunks' page areas, how they are stored, whose layouts
/// they hold, and the request.
#[derive(Debug, Clone, PartialEq)]
pub struct AlignedInput {
    /// The time chunk's encoding (TsFile id of an INT64 encoding: 0 PLAIN,
    /// 2 RLE, 4 TS_2DIFF, 8 GORILLA, 9 ZIGZAG, 11 CHIMP, 12 SPRINTZ, 13
    /// RLBE).
    pub time_encoding: u8,
    /// The time chunk's pages.
    pub time: Vec<u8>,
    /// One entry per measurement; `None` is missing from the group.
    pub values: Vec<Option<ValueChunk>>,
    pub request: Request,
    /// How the chunks are stored when not as uncompressed chunks whose page
    /// headers carry statistics: `(compression id, headers carry
    /// statistics)` for the time chunk, then each value chunk in order (a
    /// chunk past the list's end: `(0, true)`). `None` is written as
    /// nothing at all, so inputs from before it parse, and digest, as they
    /// did.
    pub storage: Option<Vec<(u8, bool)>>,
    /// Which official writer's layouts the pages hold where the writers
    /// differ (RLBE FLOAT / DOUBLE, SPRINTZ INT64 / DOUBLE):
    /// [`WRITER_CPP`] or [`WRITER_JAVA`]. C++ is written as nothing; Java
    /// as a byte after the storage list (an empty list when `storage` is
    /// `None`, which reads back as `None`).
    pub writer: u8,
}

impl AlignedInput {
    /// Chunk `i`'s storage (0: the time chunk, 1 + c: value chunk c).
    pub fn stored_as(&self, i: usize) -> (u8, bool) {
        self.storage
            .as_ref()
            .and_then(|s| s.get(i).copied())
            .unwrap_or((0, true))
    }
}

/// A value chunk: TsFile data type id, encoding id, pages.
#[derive(Debug, Clone, PartialEq)]
pub struct ValueChunk {
    pub data_type: u8,
    pub encoding: u8,
    pub data: Vec<u8>,
}

/// What to read: as `crossdec_reference::tsfile::aligned::Request`, with
/// fixed-width integers.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub time: Option<TimeFilter>,
    pub field: Option<FieldFilter>,
    pub offset: u64,
    pub limit: Option<u64>,
    pub columns: Vec<u32>,
    pub block_rows: u64,
}

/// A time filter tree.
#[derive(Debug, Clone, PartialEq)]
pub enum TimeFilter {
    Gt(i64),
    GtEq(i64),
    Lt(i64),
    LtEq(i64),
    Eq(i64),
    NotEq(i64),
    Between(i64, i64),
    NotBetween(i64, i64),
    In(Vec<i64>),
    NotIn(Vec<i64>),
    And(Box<TimeFilter>, Box<TimeFilter>),
    Or(Box<TimeFilter>, Box<TimeFilter>),
    Not(Box<TimeFilter>),
}

/// A FIELD filter on a value column.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldFilter {
    pub column: u32,
    pub op: FieldOp,
}

/// `IsNull`, `IsNotNull`, or a comparison (operator 0 `<`, 1 `<=`, 2 `>`,
/// 3 `>=`, 4 `==`, 5 `!=`) with a constant.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldOp {
    IsNull,
    IsNotNull,
    Cmp(u8, Cell),
}

/// One value (floats as bit patterns).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cell {
    Bool(bool),
    I32(i32),
    I64(i64),
    F32(u32),
    F64(u64),
    Bytes(Vec<u8>),
}

/// A block of rows: the times, and one column of cells per requested
/// column (`None`: null).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Block {
    pub times: Vec<i64>,
    pub columns: Vec<Vec<Option<Cell>>>,
}

/// The pages an implementation did not read, as its outcome reports them:
/// `(page, 0)` no chunk's page, `(page, 1)` only the time page (no row of
/// it matched). The reference reads everything; it reports none.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Unread(pub Vec<(u64, u8)>);

impl Unread {
    /// Did the implementation leave page `page` of chunk `chunk` (-1: time)
    /// unread?
    pub fn left_unread(&self, chunk: i64, page: u64) -> bool {
        self.0
            .iter()
            .any(|&(p, what)| p == page && (what == 0 || (what == 1 && chunk >= 0)))
    }
}

/// A scan's blocks. Equality is on the blocks alone: which pages an
/// implementation skipped is its own business (it only matters to
/// [`super::AlignedFamily`]'s promise).
#[derive(Debug, Clone, Default)]
pub struct Scanned {
    pub blocks: Vec<Block>,
    pub unread: Unread,
}

impl PartialEq for Scanned {
    fn eq(&self, other: &Self) -> bool {
        self.blocks == other.blocks
    }
}

/// A scan error: kind (the reference's `ErrorKind`, numbered in its
/// declaration order from 1; 100 for an input tag neither scanner knows;
/// 200 for a block the `aligned/arrow` kernel could not make a record batch),
/// the page decoder's own words for `Decode` (and the codec's for
/// `Decompress`), chunk (-1: time), page, byte offset in the chunk's data.
/// The words are `Debug` text, so not part of the canonical bytes: a fault
/// read back from them (a subject's answer over the pipe) has `None`, and
/// words are compared only where both sides have them.
#[derive(Debug, Clone, Default)]
pub struct Fault {
    pub kind: u8,
    pub detail: Option<String>,
    pub chunk: i64,
    pub page: u64,
    pub offset: u64,
    pub unread: Unread,
}

impl PartialEq for Fault {
    fn eq(&self, other: &Self) -> bool {
        let words = match (&self.detail, &other.detail) {
            (Some(a), Some(b)) => a == b,
            _ => true,
        };
        words && (self.kind, self.chunk, self.page, self.offset) == (other.kind, other.chunk, other.page, other.offset)
    }
}

impl Fault {
    /// The kind of an input whose data type or encoding id no scanner knows.
    pub const UNKNOWN_TAG: u8 = 100;
    /// `BadRequest`'s kind.
    pub const BAD_REQUEST: u8 = 1;

    pub fn unknown_tag() -> Fault {
        Fault {
            kind: Self::UNKNOWN_TAG,
            ..Fault::default()
        }
    }

    /// A request the scanners cannot even be given (a size past `usize`).
    pub fn bad_request() -> Fault {
        Fault {
            kind: Self::BAD_REQUEST,
            ..Fault::default()
        }
    }
}

canonical_struct!(ValueChunk {
    data_type,
    encoding,
    data
});
canonical_struct!(Request {
    time,
    field,
    offset,
    limit,
    columns,
    block_rows
});
impl Canonical for AlignedInput {
    fn encode(&self, out: &mut Vec<u8>) {
        self.time_encoding.encode(out);
        self.time.encode(out);
        self.values.encode(out);
        self.request.encode(out);
        if self.writer != WRITER_CPP {
            self.storage.clone().unwrap_or_default().encode(out);
            self.writer.encode(out);
        } else if let Some(storage) = &self.storage {
            storage.encode(out);
        }
    }
}

impl FromCanonical for AlignedInput {
    /// The storage list and the writer are the input's optional tail: the
    /// list present exactly when bytes are left after the request, the
    /// writer (Java, the one other than the default) when bytes are left
    /// after the list.
    fn read(bytes: &mut &[u8]) -> Option<Self> {
        let time_encoding = FromCanonical::read(bytes)?;
        let time = FromCanonical::read(bytes)?;
        let values = FromCanonical::read(bytes)?;
        let request = FromCanonical::read(bytes)?;
        let mut storage: Option<Vec<(u8, bool)>> = if bytes.is_empty() {
            None
        } else {
            Some(FromCanonical::read(bytes)?)
        };
        let mut writer = WRITER_CPP;
        if !bytes.is_empty() {
            writer = u8::read(bytes)?;
            if writer != WRITER_JAVA {
                return None;
            }
            storage = storage.filter(|s| !s.is_empty());
        }
        Some(AlignedInput {
            time_encoding,
            time,
            values,
            request,
            storage,
            writer,
        })
    }
}
canonical_struct!(FieldFilter { column, op });
canonical_enum!(FieldOp {
    IsNull = 0,
    IsNotNull = 1,
    Cmp(op, value) = 2
});
canonical_enum!(Cell {
    Bool(v) = 0,
    I32(v) = 1,
    I64(v) = 2,
    F32(v) = 3,
    F64(v) = 4,
    Bytes(v) = 5
});
canonical_struct!(Block { times, columns });
canonical_struct!(Scanned { blocks, unread });

impl Canonical for Unread {
    fn encode(&self, out: &mut Vec<u8>) {
        self.0.encode(out);
    }
}

impl FromCanonical for Unread {
    fn read(bytes: &mut &[u8]) -> Option<Self> {
        Vec::read(bytes).map(Unread)
    }
}

impl Canonical for Fault {
    fn encode(&self, out: &mut Vec<u8>) {
        (self.kind, self.chunk, self.page, self.offset).encode(out);
        self.unread.encode(out);
    }
}

impl FromCanonical for Fault {
    fn read(bytes: &mut &[u8]) -> Option<Self> {
        let (kind, chunk, page, offset, unread) = FromCanonical::read(bytes)?;
        Some(Fault {
            kind,
            detail: None,
            chunk,
            page,
            offset,
            unread,
        })
    }
}

impl TimeFilter {
    fn tag(&self) -> u8 {
        use TimeFilter::*;
        match self {
            Gt(_) => 1,
            GtEq(_) => 2,
            Lt(_) => 3,
            LtEq(_) => 4,
            Eq(_) => 5,
            NotEq(_) => 6,
            Between(..) => 7,
            NotBetween(..) => 8,
            In(_) => 9,
            NotIn(_) => 10,
            And(..) => 11,
            Or(..) => 12,
            Not(_) => 13,
        }
    }

    /// Nesting depth (a leaf is 1).
    pub fn depth(&self) -> u32 {
        use TimeFilter::*;
        match self {
            And(a, b) | Or(a, b) => 1 + a.depth().max(b.depth()),
            Not(a) => 1 + a.depth(),
            _ => 1,
        }
    }

    fn read_at_depth(bytes: &mut &[u8], depth: u32) -> Option<Self> {
        use TimeFilter::*;
        if depth > MAX_FILTER_DEPTH {
            return None;
        }
        let sub = |bytes: &mut &[u8]| Self::read_at_depth(bytes, depth + 1).map(Box::new);
        Some(match u8::read(bytes)? {
            1 => Gt(i64::read(bytes)?),
            2 => GtEq(i64::read(bytes)?),
            3 => Lt(i64::read(bytes)?),
            4 => LtEq(i64::read(bytes)?),
            5 => Eq(i64::read(bytes)?),
            6 => NotEq(i64::read(bytes)?),
            7 => Between(i64::read(bytes)?, i64::read(bytes)?),
            8 => NotBetween(i64::read(bytes)?, i64::read(bytes)?),
            9 => In(Vec::read(bytes)?),
            10 => NotIn(Vec::read(bytes)?),
            11 => And(sub(bytes)?, sub(bytes)?),
            12 => Or(sub(bytes)?, sub(bytes)?),
            13 => Not(sub(bytes)?),
            _ => return None,
        })
    }
}

impl Canonical for TimeFilter {
    fn encode(&self, out: &mut Vec<u8>) {
        use TimeFilter::*;
        out.push(self.tag());
        match self {
            Gt(v) | GtEq(v) | Lt(v) | LtEq(v) | Eq(v) | NotEq(v) => v.encode(out),
            Between(a, b) | NotBetween(a, b) => (a, b).encode(out),
            In(v) | NotIn(v) => v.encode(out),
            And(a, b) | Or(a, b) => {
                a.encode(out);
                b.encode(out);
            }
            Not(a) => a.encode(out),
        }
    }
}

impl FromCanonical for TimeFilter {
    fn read(bytes: &mut &[u8]) -> Option<Self> {
        Self::read_at_depth(bytes, 1)
    }
}

impl Parse for AlignedInput {
    /// The canonical bytes, wholly consumed.
    fn parse(bytes: &[u8]) -> Option<Self> {
        let mut rest = bytes;
        let input = AlignedInput::read(&mut rest)?;
        rest.is_empty().then_some(input)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_filter_deeper_than_the_limit_is_refused_and_one_at_it_reads_back() {
        let mut at_limit = TimeFilter::Eq(3);
        for _ in 1..MAX_FILTER_DEPTH {
            at_limit = TimeFilter::Not(Box::new(at_limit));
        }
        assert_eq!(at_limit.depth(), MAX_FILTER_DEPTH);
        let bytes = at_limit.to_canonical();
        assert_eq!(TimeFilter::read(&mut bytes.as_slice()), Some(at_limit.clone()));
        let deeper = TimeFilter::Not(Box::new(at_limit)).to_canonical();
        assert_eq!(TimeFilter::read(&mut deeper.as_slice()), None);
        let hostile = vec![13u8; 1 << 20];
        assert_eq!(TimeFilter::read(&mut hostile.as_slice()), None);
    }

    /// Two times, one missing column, the plainest request.
    fn two_rows(time_encoding: u8, writer: u8) -> AlignedInput {
        AlignedInput {
            time_encoding,
            time: vec![1, 2],
            values: vec![None],
            request: Request {
                time: None,
                field: None,
                offset: 0,
                limit: None,
                columns: vec![0],
                block_rows: 1,
            },
            storage: None,
            writer,
        }
    }

    #[test]
    fn storage_is_an_optional_tail_of_the_canonical_bytes() {
        let mut input = two_rows(0, WRITER_CPP);
        let plain = input.to_canonical();
        assert_eq!(AlignedInput::parse(&plain), Some(input.clone()));
        input.storage = Some(vec![(7, false), (0, true)]);
        let stored = input.to_canonical();
        assert_eq!(&stored[..plain.len()], plain, "the storage only adds a tail");
        assert_eq!(stored.len(), plain.len() + 8 + 2 * 2);
        assert_eq!(AlignedInput::parse(&stored), Some(input.clone()));
        assert_eq!(
            (input.stored_as(0), input.stored_as(1), input.stored_as(2)),
            ((7, false), (0, true), (0, true))
        );
        // A tail that is not a whole storage list is not an input.
        assert_eq!(AlignedInput::parse(&stored[..stored.len() - 1]), None);
    }

    #[test]
    fn the_java_writer_is_a_byte_after_the_storage_list() {
        let mut input = two_rows(8, WRITER_JAVA);
        let cpp = AlignedInput {
            writer: WRITER_CPP,
            ..input.clone()
        }
        .to_canonical();
        let java = input.to_canonical();
        assert_eq!(&java[..cpp.len()], cpp, "the writer only adds a tail");
        assert_eq!(java.len(), cpp.len() + 8 + 1, "an empty storage list, the writer");
        assert_eq!(AlignedInput::parse(&java), Some(input.clone()));
        input.storage = Some(vec![(1, false)]);
        let stored = input.to_canonical();
        assert_eq!(stored.len(), cpp.len() + 8 + 2 + 1);
        assert_eq!(AlignedInput::parse(&stored), Some(input.clone()));
        // Writer ids other than Java's (C++ is never written) are not inputs.
        for id in [WRITER_CPP, 2, 255] {
            let mut bytes = stored.clone();
            *bytes.last_mut().unwrap() = id;
            assert_eq!(AlignedInput::parse(&bytes), None, "writer {id}");
        }
    }

    #[test]
    fn a_faults_words_are_compared_only_where_both_sides_have_them() {
        let fault = |detail: Option<&str>| Fault {
            kind: 12,
            detail: detail.map(str::to_string),
            chunk: -1,
            page: 1,
            offset: 62,
            unread: Unread::default(),
        };
        let words = fault(Some("BadCount { count: 3 }"));
        let over_the_pipe = Fault::from_canonical(&words.to_canonical()).unwrap();
        assert_eq!(over_the_pipe.detail, None);
        assert_eq!(over_the_pipe, words);
        assert_ne!(words, fault(Some("BadCount { count: 4 }")));
        assert_ne!(
            over_the_pipe,
            Fault {
                offset: 63,
                ..fault(None)
            }
        );
    }

    #[test]
    fn unread_pages_name_the_chunks_left_unread() {
        let unread = Unread(vec![(2, 0), (5, 1)]);
        assert!(unread.left_unread(-1, 2) && unread.left_unread(3, 2));
        assert!(!unread.left_unread(-1, 5) && unread.left_unread(0, 5));
        assert!(!unread.left_unread(0, 3));
    }
}
