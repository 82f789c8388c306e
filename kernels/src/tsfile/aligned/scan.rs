//! The scan: directory and header checks, the page plan, staging or
//! in-place decode, and the output sink (offset, limit, blocks).

use std::borrow::Cow;

use super::column::{decode_into, layouts, Block, Column};
use super::filter::{CmpOp, FieldOp, TimePlan};
use super::page::{directory, supported, value_page, PageRef};
use super::pool::BlockPool;
use super::{
    Chunk, ChunkId, ColumnType, Decompress, Encoding, ErrorKind, Group, NoDecompress, PageAction, Request, ScanError,
    ScanOptions, ScanOutput, ScanStats, Value, Writer,
};
use crate::tsfile::{chimp, gorilla, plain, regular, rlbe, rle, sprintz, ts2diff, zigzag, DecodeError, Done};

fn fail(kind: ErrorKind, chunk: ChunkId, page: usize, offset: usize) -> ScanError {
    ScanError {
        kind,
        chunk,
        page,
        offset,
    }
}

/// Scan a group of uncompressed chunks: [`scan_with`] and no codec.
pub fn scan(group: &Group<'_>, request: &Request, options: ScanOptions) -> ScanOutput {
    scan_with(group, request, options, &NoDecompress)
}

/// Scan `group` as `request` asks, compressed page bodies decompressed by
/// `codec`. The blocks or the first error, in the reference scanner's order
/// (request, time chunk headers and their statistics, involved value
/// chunks' headers and page counts, then page by page: time page, its
/// statistics, value pages by ascending column), except that pages the plan
/// does not decode are not checked (see [`PageAction::decoded`]). With the
/// statistics of what the plan did.
pub fn scan_with(group: &Group<'_>, request: &Request, options: ScanOptions, codec: &dyn Decompress) -> ScanOutput {
    scan_reusing(group, request, options, codec, &mut BlockPool::new())
}

/// [`scan_with`], its blocks filled from `pool`'s buffers where it has
/// some: for a caller that scans again and again and hands each scan's
/// blocks back ([`BlockPool::recycle`]) once it has read them. The rows are
/// the same as without a pool.
pub fn scan_reusing(
    group: &Group<'_>,
    request: &Request,
    options: ScanOptions,
    codec: &dyn Decompress,
    pool: &mut BlockPool,
) -> ScanOutput {
    let mut plan = Vec::new();
    let result = run(group, request, options, codec, &mut plan, pool);
    let count = |f: fn(&PageAction) -> bool| plan.iter().filter(|a| f(a)).count();
    let stats = ScanStats {
        pages_skipped: count(|a| matches!(a, PageAction::Skip | PageAction::NoMatch)),
        pages_full_pass: count(|a| matches!(a, PageAction::FullPass { .. })),
        boundary_bulk: count(|a| matches!(a, PageAction::Boundary { bulk: true, .. })),
        boundary_row_by_row: count(|a| matches!(a, PageAction::Boundary { bulk: false, .. })),
        pages_in_place: count(|a| matches!(a, PageAction::FullPass { in_place: true })),
        pages_not_reached: count(|a| matches!(a, PageAction::NotReached)),
        pages_offset_skipped: count(|a| matches!(a, PageAction::OffsetSkip)),
        skipped_by_value_statistics: count(|a| matches!(a, PageAction::ValueSkip)),
        plan,
    };
    ScanOutput { result, stats }
}

/// An involved value column: its index, chunk and page directory, and the
/// scan's codec and writer.
struct Involved<'a> {
    index: usize,
    chunk: Option<Chunk<'a>>,
    pages: Vec<PageRef>,
    codec: &'a dyn Decompress,
    writer: Writer,
    /// The FIELD filter's column: the one whose min / max a plan may skip
    /// pages by, so the one whose min / max each decoded page is held to
    /// (a pass over every value, which for the others would buy nothing).
    bounds_checked: bool,
}

fn run<'a>(
    group: &Group<'a>,
    request: &Request,
    options: ScanOptions,
    codec: &'a dyn Decompress,
    plan: &mut Vec<PageAction>,
    pool: &mut BlockPool,
) -> Result<Vec<Block>, ScanError> {
    let bad_request = fail(ErrorKind::BadRequest, ChunkId::Time, 0, 0);
    let n_values = group.values.len();
    if request.block_rows == 0 || request.columns.iter().any(|&c| c >= n_values) {
        return Err(bad_request);
    }
    let field = request.filter.field.as_ref();
    if field.is_some_and(|f| f.column >= n_values) {
        return Err(bad_request);
    }
    let mut indices: Vec<usize> = request.columns.clone();
    indices.extend(field.map(|f| f.column));
    indices.sort_unstable();
    indices.dedup();

    let time = group.time;
    // Times are INT64: every encoding the value columns read INT64 in.
    if !supported(ColumnType::Int64, time.encoding) {
        return Err(fail(ErrorKind::Unsupported, ChunkId::Time, 0, 0));
    }
    let time_pages = directory(
        time.data,
        ChunkId::Time,
        None,
        time.compression != 0,
        time.page_statistics,
    )?;
    for (p, page) in time_pages.iter().enumerate() {
        if !page.has_statistics {
            continue;
        }
        let previous = p.checked_sub(1).map(|q| &time_pages[q]).filter(|q| q.has_statistics);
        let after_previous = previous.is_none_or(|q| page.start > q.end);
        if page.count == 0 || page.start > page.end || !after_previous {
            return Err(fail(ErrorKind::StatisticsLie, ChunkId::Time, p, page.header_at));
        }
    }
    let mut involved = Vec::with_capacity(indices.len());
    for &index in &indices {
        let chunk = group.values[index];
        let pages = match &chunk {
            None => Vec::new(),
            Some(chunk) => {
                if !supported(chunk.data_type, chunk.encoding) {
                    return Err(fail(ErrorKind::Unsupported, ChunkId::Value(index), 0, 0));
                }
                let pages = directory(
                    chunk.data,
                    ChunkId::Value(index),
                    Some(chunk.data_type),
                    chunk.compression != 0,
                    chunk.page_statistics,
                )?;
                if pages.len() != time_pages.len() {
                    return Err(fail(
                        ErrorKind::PageCountMismatch,
                        ChunkId::Value(index),
                        time_pages.len(),
                        chunk.data.len(),
                    ));
                }
                pages
            }
        };
        involved.push(Involved {
            index,
            chunk,
            pages,
            codec,
            writer: request.writer,
            bounds_checked: field.is_some_and(|f| f.column == index),
        });
    }
    // Output column j reads involved[slot[j]].
    let slot: Vec<usize> = request
        .columns
        .iter()
        .map(|c| indices.binary_search(c).expect("requested columns are involved"))
        .collect();
    let field_slot = field.map(|f| indices.binary_search(&f.column).expect("the field column is involved"));
    let types: Vec<Option<ColumnType>> = request
        .columns
        .iter()
        .map(|&c| group.values[c].map(|ch| ch.data_type))
        .collect();
    let time_plan = TimePlan::of(request.filter.time.as_ref());
    // In-place decode needs a fixed destination address per row: no FIELD
    // filter (a mask shifts rows) and fixed-width values.
    let in_place_allowed =
        options.direct_decode && field.is_none() && types.iter().all(|t| t.is_none_or(|t| t.fixed_width()));
    let bulk_allowed = options.bulk_copy && time_plan.contiguous && field.is_none();

    let mut sink = Sink::new(request, types.clone(), pool);
    let mut times: Vec<i64> = Vec::new();
    let mut staged: Vec<Column> = involved
        .iter()
        .map(|v| Column::new(v.chunk.map(|c| c.data_type)))
        .collect();
    let mut scratch: Vec<u32> = Vec::new();

    for (p, page) in time_pages.iter().enumerate() {
        if sink.done() {
            plan.push(PageAction::NotReached);
            continue;
        }
        if page.has_statistics && !time_plan.set.meets(page.start, page.end) {
            plan.push(PageAction::Skip);
            continue;
        }
        if let (true, Some(f), Some(fs)) = (options.value_pruning, field, field_slot) {
            if field_excludes(&f.op, &involved[fs], p, page) {
                plan.push(PageAction::ValueSkip);
                continue;
            }
        }
        let covered = page.has_statistics && time_plan.set.covers(page.start, page.end);
        // Every row matches and the offset drops them all: the statistics'
        // count is trusted, as their range is for skipping.
        if covered && options.offset_pushdown && field.is_none() && sink.drop_whole(page.count) {
            plan.push(PageAction::OffsetSkip);
            continue;
        }
        // Provisional: the page is being decoded (an error leaves it so).
        plan.push(if covered {
            PageAction::FullPass { in_place: false }
        } else {
            PageAction::Boundary {
                row_begin: 0,
                row_end: 0,
                bulk: false,
            }
        });
        decode_times(time, page, p, codec, request.writer, &mut times)?;
        let rows = times.len();
        // A page without statistics is planned from its decoded times.
        let full = match (page.has_statistics, times.first(), times.last()) {
            (true, _, _) => covered,
            (false, Some(&first), Some(&last)) => {
                if !time_plan.set.meets(first, last) {
                    *plan.last_mut().expect("pushed") = PageAction::NoMatch;
                    continue;
                }
                time_plan.set.covers(first, last)
            }
            (false, _, _) => {
                *plan.last_mut().expect("pushed") = PageAction::NoMatch;
                continue;
            }
        };
        if full {
            *plan.last_mut().expect("pushed") = PageAction::FullPass { in_place: false };
            if in_place_allowed && sink.can_take_in_place(rows) {
                *plan.last_mut().expect("pushed") = PageAction::FullPass { in_place: true };
                sink.in_place(&involved, &slot, &times, p, &mut scratch)?;
                continue;
            }
            stage(&involved, &mut staged, p, rows, &mut scratch)?;
            match (field, field_slot) {
                (Some(f), Some(fs)) => {
                    for r in 0..rows {
                        if f.op.matches(staged[fs].cell(r).as_ref()) {
                            sink.copy(&times, &staged, &slot, r..r + 1);
                        }
                    }
                }
                _ => sink.copy(&times, &staged, &slot, 0..rows),
            }
            continue;
        }
        let (row_begin, row_end) = if time_plan.contiguous {
            let (lo, hi) = time_plan.set.0[0];
            (times.partition_point(|&t| t < lo), times.partition_point(|&t| t <= hi))
        } else {
            let first = times.iter().position(|&t| time_plan.set.contains(t));
            let last = times.iter().rposition(|&t| time_plan.set.contains(t));
            match (first, last) {
                (Some(f), Some(l)) => (f, l + 1),
                _ => (0, 0),
            }
        };
        if row_begin >= row_end {
            *plan.last_mut().expect("pushed") = PageAction::NoMatch;
            continue;
        }
        *plan.last_mut().expect("pushed") = PageAction::Boundary {
            row_begin,
            row_end,
            bulk: bulk_allowed,
        };
        stage(&involved, &mut staged, p, rows, &mut scratch)?;
        if bulk_allowed {
            // Contiguous filter, sorted times: every row of the range matches.
            sink.copy(&times, &staged, &slot, row_begin..row_end);
            continue;
        }
        for r in row_begin..row_end {
            let time_ok = time_plan.set.contains(times[r]);
            let field_ok = match (field, field_slot) {
                (Some(f), Some(fs)) => f.op.matches(staged[fs].cell(r).as_ref()),
                _ => true,
            };
            if time_ok && field_ok {
                sink.copy(&times, &staged, &slot, r..r + 1);
            }
        }
    }
    Ok(sink.finish())
}

/// Can no row of page `p` match the FIELD filter `op` on column `v`, by
/// what the value page's header says (`time_page`: the time page, whose
/// statistics' count is the page's rows)? Its non-null count is 0 for a
/// missing measurement or an empty page, else its statistics' count
/// (unknown without statistics: no). `IsNull`: every row has a value.
/// `IsNotNull`: none has. `Cmp`: none has, or the constant lies outside the
/// statistics' min / max the way the operator needs ([`outside_bounds`]).
fn field_excludes(op: &FieldOp, v: &Involved<'_>, p: usize, time_page: &PageRef) -> bool {
    let (non_null, stats) = match v.chunk.map(|c| (c, v.pages[p])) {
        None => (0, None),
        Some((_, page)) if page.empty => (0, None),
        Some((chunk, page)) if page.has_statistics => (page.count, Some((chunk, page))),
        Some(_) => return false,
    };
    match op {
        FieldOp::IsNull => stats.is_some() && time_page.has_statistics && non_null == time_page.count,
        FieldOp::IsNotNull => non_null == 0,
        FieldOp::Cmp(op, c) => {
            let bounds = |(chunk, page): (Chunk<'_>, PageRef)| {
                outside_bounds(*op, c, chunk.data_type, chunk.encoding, v.writer, page.min, page.max)
            };
            non_null == 0 || stats.is_some_and(bounds)
        }
    }
}

/// Does every value in `[min, max]` (a numeric page's statistics) fail
/// `v op c`? Only where the bounds hold every value that can match:
/// integers stored as given; FLOAT / DOUBLE of the Java writer when neither bound is
/// NaN (its bounds pass over NaNs after the first value, and NaN matches no
/// comparison; a first NaN makes both bounds NaN); never for the C++
/// writer's floats, whose batch path (SSE min / max) can give bounds that
/// leave out values when NaN is among them; nor for a page whose encoding
/// does not store the values as given ([`Encoding::stores_values_as_given`]:
/// the bounds are of the values before). A constant of another type or
/// NaN: no.
fn outside_bounds(op: CmpOp, c: &Value, t: ColumnType, e: Encoding, writer: Writer, min: u64, max: u64) -> bool {
    use std::cmp::Ordering::{Equal, Greater, Less};
    if !e.stores_values_as_given(matches!(t, ColumnType::Float | ColumnType::Double)) {
        return false;
    }
    let java = writer == Writer::Java;
    // The constant against min, and against max.
    let (lo, hi) = match (t, c) {
        (ColumnType::Int32 | ColumnType::Date, Value::I32(x)) => {
            (x.cmp(&(min as u32 as i32)), x.cmp(&(max as u32 as i32)))
        }
        (ColumnType::Int64 | ColumnType::Timestamp, Value::I64(x)) => (x.cmp(&(min as i64)), x.cmp(&(max as i64))),
        (ColumnType::Float, Value::F32(x)) if java => {
            let x = f32::from_bits(*x);
            match (
                x.partial_cmp(&f32::from_bits(min as u32)),
                x.partial_cmp(&f32::from_bits(max as u32)),
            ) {
                (Some(lo), Some(hi)) => (lo, hi),
                _ => return false,
            }
        }
        (ColumnType::Double, Value::F64(x)) if java => {
            let x = f64::from_bits(*x);
            match (x.partial_cmp(&f64::from_bits(min)), x.partial_cmp(&f64::from_bits(max))) {
                (Some(lo), Some(hi)) => (lo, hi),
                _ => return false,
            }
        }
        _ => return false,
    };
    match op {
        // v < c fails for all v >= min when c <= min.
        CmpOp::Lt => lo != Greater,
        CmpOp::LtEq => lo == Less,
        // v > c fails for all v <= max when c >= max.
        CmpOp::Gt => hi != Less,
        CmpOp::GtEq => hi == Greater,
        CmpOp::Eq => lo == Less || hi == Greater,
        CmpOp::NotEq => lo == Equal && hi == Equal,
    }
}

/// A page's body: its stored bytes, or for a compressed chunk those bytes
/// decompressed to the header's size.
fn page_body<'d>(
    chunk: &Chunk<'d>,
    page: &PageRef,
    id: ChunkId,
    p: usize,
    codec: &dyn Decompress,
) -> Result<Cow<'d, [u8]>, ScanError> {
    let stored = &chunk.data[page.body_at..page.body_at + page.body_len];
    if chunk.compression == 0 {
        return Ok(Cow::Borrowed(stored));
    }
    let failed = |why: String| fail(ErrorKind::Decompress(why), id, p, page.body_at);
    let body = codec.decompress(chunk.compression, stored, page.size).map_err(failed)?;
    if body.len() != page.size {
        return Err(failed(format!("{} bytes, the header says {}", body.len(), page.size)));
    }
    Ok(Cow::Owned(body))
}

/// Decode a time page into `times` and check it against its statistics.
fn decode_times(
    time: Chunk<'_>,
    page: &PageRef,
    p: usize,
    codec: &dyn Decompress,
    writer: Writer,
    times: &mut Vec<i64>,
) -> Result<(), ScanError> {
    let body = page_body(&time, page, ChunkId::Time, p, codec)?;
    let body = &body[..];
    let decode_error = |e: DecodeError| fail(ErrorKind::Decode(format!("{e:?}")), ChunkId::Time, p, page.body_at);
    // GORILLA and CHIMP pages hold as many times as the statistics count
    // (as a value page holds its bitmap's values; a time equal to the
    // terminator is a time); without statistics, up to the terminator.
    let counted = matches!(time.encoding, Encoding::Gorilla | Encoding::Chimp);
    let count = (counted && page.has_statistics).then_some(page.count as usize);
    let max_rows = codec.max_page_rows();
    if count.is_some_and(|c| c > max_rows) {
        // What the decoders answer a count above their room, without
        // making the room: the count is the header's, backed by nothing.
        return Err(decode_error(DecodeError::TooManyValues {
            max: max_rows,
            offset: 0,
        }));
    }
    // Size the buffer from what the body can back, never from the
    // statistics alone: TS_2DIFF's block headers (walked), PLAIN's length,
    // ZIGZAG's bytes (a value takes one at least), GORILLA's and CHIMP's
    // bits (each value after the first takes one at least). RLE, SPRINTZ
    // and RLBE runs and REGULAR blocks can hold any number of values in a
    // few bytes: their
    // buffer starts at the bits' bound and doubles while the decoder runs
    // out of room, up to the cap, so the cap's error is the reference's.
    let bits = body.len().saturating_mul(8).saturating_add(1);
    let mut n = match time.encoding {
        Encoding::Ts2Diff => ts2diff::count::<i64>(body, max_rows).map_err(decode_error)?,
        Encoding::Plain => body.len().div_ceil(8),
        Encoding::Zigzag => body.len(),
        Encoding::Gorilla | Encoding::Chimp => count.map_or(bits, |c| c.min(bits)),
        Encoding::Rle | Encoding::Sprintz | Encoding::Rlbe | Encoding::Regular => bits,
        Encoding::Dictionary | Encoding::Camel => unreachable!("no INT64 pages: refused by page::supported"),
    }
    .min(max_rows);
    let stop = match count {
        Some(_) => gorilla::Stop::Count(n),
        None => gorilla::Stop::AtTerminator,
    };
    let done = loop {
        times.clear();
        times.resize(n, 0);
        match decode_time_values(time.encoding, writer, body, stop, times) {
            Err(DecodeError::TooManyValues { .. }) if n < max_rows => {
                n = n.saturating_mul(2).min(max_rows);
            }
            done => break done.map_err(decode_error)?,
        }
    };
    times.truncate(done.values);
    let truthful =
        times.len() == page.count as usize && times.first() == Some(&page.start) && times.last() == Some(&page.end);
    if page.has_statistics && !truthful {
        return Err(fail(ErrorKind::StatisticsLie, ChunkId::Time, p, page.header_at));
    }
    if times.windows(2).any(|w| w[0] >= w[1]) {
        return Err(fail(ErrorKind::TimesNotIncreasing, ChunkId::Time, p, page.body_at));
    }
    Ok(())
}

/// One time page's INT64 values into `out` (its length the most accepted),
/// with the page kernels; `stop` says where GORILLA and CHIMP end.
fn decode_time_values(
    encoding: Encoding,
    writer: Writer,
    body: &[u8],
    stop: gorilla::Stop,
    out: &mut [i64],
) -> Result<Done, DecodeError> {
    match encoding {
        Encoding::Ts2Diff => ts2diff::decode_i64_into(body, out),
        Encoding::Gorilla => gorilla::decode_i64_into(body, stop, out),
        Encoding::Chimp => chimp::decode_i64_into(body, stop, out),
        Encoding::Rle => rle::decode_i64_into(body, out),
        Encoding::Zigzag => zigzag::decode_i64_into(body, out),
        Encoding::Sprintz => sprintz::decode_i64_into(body, layouts(writer).0, out),
        Encoding::Rlbe => rlbe::decode_i64_into(body, out),
        Encoding::Regular => regular::decode_i64_into(body, out),
        Encoding::Plain => plain::decode_be64_into(body, out),
        Encoding::Dictionary | Encoding::Camel => unreachable!("no INT64 pages: refused by page::supported"),
    }
}

/// The most rows a fresh output block reserves room for.
const RESERVE_ROWS: usize = 1 << 16;

/// Decode page `p` of column `v` into `column[base..base + rows]` (the
/// column already that long) and its validity. The values land at the front
/// of the range, exactly the page's non-null count of them, then spread to
/// their rows in place.
fn decode_column(
    v: &Involved<'_>,
    column: &mut Column,
    base: usize,
    p: usize,
    rows: usize,
    scratch: &mut Vec<u32>,
) -> Result<(), ScanError> {
    let page = v.chunk.map(|c| (c, v.pages[p])).filter(|(_, page)| !page.empty);
    let Some((chunk, page)) = page else {
        column.valid.extend(std::iter::repeat_n(false, rows));
        return Ok(());
    };
    let id = ChunkId::Value(v.index);
    let body = page_body(&chunk, &page, id, p, v.codec)?;
    let vp = value_page(&body, chunk.compression != 0, &page, id, p, rows)?;
    // Reserve exactly the non-null values of the retained rows.
    let reserved = vp.non_null;
    let got = decode_into(
        chunk.data_type,
        chunk.encoding,
        v.writer,
        vp.values,
        &mut column.data,
        base..base + reserved,
        scratch,
    )
    .map_err(|e| fail(ErrorKind::Decode(format!("{e:?}")), id, p, vp.values_at))?;
    if got != vp.non_null {
        return Err(fail(ErrorKind::ValueCountMismatch, id, p, vp.values_at));
    }
    // The statistics the plan trusts to skip by a FIELD filter, checked as
    // the reference checks them: the count on every page it decodes, min /
    // max in the FIELD filter's column.
    if page.has_statistics
        && (page.count as usize != vp.non_null
            || (reserved > 0
                && v.bounds_checked
                && !column
                    .data
                    .bounds_hold(base..base + reserved, chunk.encoding, v.writer, page.min, page.max)))
    {
        return Err(fail(ErrorKind::StatisticsLie, id, p, page.header_at));
    }
    if reserved == rows {
        // No null among the rows: the values are already in place.
        column.valid.resize(column.valid.len() + rows, true);
    } else {
        column.data.expand(base, reserved, (0..rows).map(|r| vp.present(r)));
        column.valid.extend((0..rows).map(|r| vp.present(r)));
    }
    Ok(())
}

/// Decode page `p` of every involved column into its staging buffer.
fn stage(
    involved: &[Involved<'_>],
    staged: &mut [Column],
    p: usize,
    rows: usize,
    scratch: &mut Vec<u32>,
) -> Result<(), ScanError> {
    for (v, column) in involved.iter().zip(staged.iter_mut()) {
        column.data.reset(rows);
        column.valid.clear();
        decode_column(v, column, 0, p, rows, scratch)?;
    }
    Ok(())
}

/// Offset, limit and blocks.
struct Sink<'p> {
    to_skip: u64,
    room: Option<u64>,
    block_rows: usize,
    types: Vec<Option<ColumnType>>,
    blocks: Vec<Block>,
    current: Block,
    pool: &'p mut BlockPool,
}

impl<'p> Sink<'p> {
    fn new(request: &Request, types: Vec<Option<ColumnType>>, pool: &'p mut BlockPool) -> Sink<'p> {
        let current = Self::fresh(pool, &types, request.block_rows);
        Sink {
            to_skip: request.offset,
            room: request.limit,
            block_rows: request.block_rows,
            types,
            blocks: Vec::new(),
            current,
            pool,
        }
    }
    /// An empty block from the pool with room for `block_rows` rows
    /// reserved up to [`RESERVE_ROWS`] (so a block's buffers grow without
    /// copying in the common case, and a huge requested block size reserves
    /// nothing huge).
    fn fresh(pool: &mut BlockPool, types: &[Option<ColumnType>], block_rows: usize) -> Block {
        pool.take(types, block_rows.min(RESERVE_ROWS))
    }
    /// Drop `rows` rows for the offset if it swallows them all (`rows` is
    /// a header's count, at least 1 by the header checks).
    fn drop_whole(&mut self, rows: u32) -> bool {
        let rows = u64::from(rows);
        if rows <= self.to_skip {
            self.to_skip -= rows;
            return true;
        }
        false
    }
    /// The limit is reached: nothing more will be returned.
    fn done(&self) -> bool {
        self.room == Some(0)
    }
    fn close_if_full(&mut self) {
        if self.current.rows() == self.block_rows {
            let fresh = Self::fresh(self.pool, &self.types, self.block_rows);
            let full = std::mem::replace(&mut self.current, fresh);
            self.blocks.push(full);
        }
    }
    /// Can a whole page of `rows` go straight into the current block?
    fn can_take_in_place(&self, rows: usize) -> bool {
        self.to_skip == 0
            && rows <= self.block_rows - self.current.rows()
            && self.room.is_none_or(|room| rows as u64 <= room)
    }
    /// Decode page `p` of every requested column straight into the block
    /// (columns by ascending index, as the staging path and the reference).
    fn in_place(
        &mut self,
        involved: &[Involved<'_>],
        slot: &[usize],
        times: &[i64],
        p: usize,
        scratch: &mut Vec<u32>,
    ) -> Result<(), ScanError> {
        let rows = times.len();
        let base = self.current.rows();
        for (i, v) in involved.iter().enumerate() {
            let mut outputs = slot.iter().enumerate().filter(|(_, &s)| s == i).map(|(j, _)| j);
            let Some(first) = outputs.next() else { continue };
            let column = &mut self.current.columns[first];
            column.data.resize_default(base + rows);
            decode_column(v, column, base, p, rows, scratch)?;
            // A column requested twice: copy the first one's rows.
            for j in outputs {
                let src = self.current.columns[first].clone();
                let dst = &mut self.current.columns[j];
                dst.data.extend_from(&src.data, base..base + rows);
                dst.valid.extend_from_slice(&src.valid[base..base + rows]);
            }
        }
        self.current.times.extend_from_slice(times);
        if let Some(room) = &mut self.room {
            *room -= rows as u64;
        }
        self.close_if_full();
        Ok(())
    }
    /// Append rows `range` of a staged page (each requested column j from
    /// `staged[slot[j]]`), after the offset, within the limit, across as
    /// many blocks as it takes.
    fn copy(&mut self, times: &[i64], staged: &[Column], slot: &[usize], range: std::ops::Range<usize>) {
        let mut b = range.start;
        let skip = self.to_skip.min((range.end - b) as u64);
        self.to_skip -= skip;
        b += skip as usize;
        let mut e = range.end;
        if let Some(room) = &mut self.room {
            let take = (*room).min((e - b) as u64);
            *room -= take;
            e = b + take as usize;
        }
        while b < e {
            let n = (e - b).min(self.block_rows - self.current.rows());
            self.current.times.extend_from_slice(&times[b..b + n]);
            for (column, &s) in self.current.columns.iter_mut().zip(slot) {
                column.data.extend_from(&staged[s].data, b..b + n);
                column.valid.extend_from_slice(&staged[s].valid[b..b + n]);
            }
            b += n;
            self.close_if_full();
        }
    }
    fn finish(mut self) -> Vec<Block> {
        if self.current.rows() > 0 {
            self.blocks.push(self.current);
        } else {
            self.pool.recycle([self.current]);
        }
        self.blocks
    }
}
