//! The row-at-a-time scan.

use std::borrow::Cow;

use super::page::{decode_times, decode_values, directory, supported, value_statistics_hold, PageRef};
use super::{
    Block, Chunk, ChunkId, ColumnType, Decompress, Encoding, ErrorKind, Group, NoDecompress, Request, ScanError, Value,
    Writer,
};

fn error(kind: ErrorKind, chunk: ChunkId, page: usize, offset: usize) -> ScanError {
    ScanError {
        kind,
        chunk,
        page,
        offset,
    }
}

/// Scan a group of uncompressed chunks: [`scan_with`] and no codec.
pub fn scan(group: &Group<'_>, request: &Request) -> Result<Vec<Block>, ScanError> {
    scan_with(group, request, &NoDecompress)
}

/// Scan `group` as `request` asks, compressed page bodies decompressed by
/// `codec`. All or nothing: the blocks, or the first error in this order:
/// the request; the time chunk's encoding, its page headers and their
/// statistics (count >= 1, start <= end, start after the previous page's
/// end, where both pages have statistics); each involved value chunk
/// (requested or filtered, by ascending index): its encoding, headers and
/// page count; then page by page: the time page (decompression, decoding,
/// statistics against the decoded times, strictly increasing times), then
/// each involved value page by ascending column index (row count, bitmap,
/// values, value count, then its statistics: the non-null count, and for
/// the FIELD filter's column, whose bounds a plan may skip pages by, min /
/// max of the numeric types as the writer computes them,
/// [`super::page::value_statistics_hold`]; a lie is `StatisticsLie` at its
/// header). Every page is
/// decoded, even after the limit is reached.
pub fn scan_with(group: &Group<'_>, request: &Request, codec: &dyn Decompress) -> Result<Vec<Block>, ScanError> {
    let bad_request = error(ErrorKind::BadRequest, ChunkId::Time, 0, 0);
    let n_values = group.values.len();
    if request.block_rows == 0 || request.columns.iter().any(|&c| c >= n_values) {
        return Err(bad_request);
    }
    let field = request.filter.field.as_ref();
    if field.is_some_and(|f| f.column >= n_values) {
        return Err(bad_request);
    }
    // Every value column the scan reads, ascending.
    let mut involved: Vec<usize> = request.columns.clone();
    involved.extend(field.map(|f| f.column));
    involved.sort_unstable();
    involved.dedup();

    let time = &group.time;
    if !supported(ColumnType::Int64, time.encoding) {
        return Err(error(ErrorKind::Unsupported, ChunkId::Time, 0, 0));
    }
    let time_pages = directory(
        time.data,
        ChunkId::Time,
        None,
        time.compression != 0,
        time.page_statistics,
    )?;
    let mut previous_end: Option<i64> = None;
    for (p, page) in time_pages.iter().enumerate() {
        if !page.has_statistics {
            previous_end = None;
            continue;
        }
        let after_previous = previous_end.is_none_or(|e| page.start > e);
        if page.count == 0 || page.start > page.end || !after_previous {
            return Err(error(ErrorKind::StatisticsLie, ChunkId::Time, p, page.header_at));
        }
        previous_end = Some(page.end);
    }
    let mut value_pages: Vec<(usize, Option<Vec<PageRef>>)> = Vec::new();
    for &c in &involved {
        let Some(chunk) = &group.values[c] else {
            value_pages.push((c, None));
            continue;
        };
        if !supported(chunk.data_type, chunk.encoding) {
            return Err(error(ErrorKind::Unsupported, ChunkId::Value(c), 0, 0));
        }
        let pages = directory(
            chunk.data,
            ChunkId::Value(c),
            Some(chunk.data_type),
            chunk.compression != 0,
            chunk.page_statistics,
        )?;
        if pages.len() != time_pages.len() {
            return Err(error(
                ErrorKind::PageCountMismatch,
                ChunkId::Value(c),
                time_pages.len(),
                chunk.data.len(),
            ));
        }
        value_pages.push((c, Some(pages)));
    }

    let mut out = Output::new(request);
    for (p, page) in time_pages.iter().enumerate() {
        let body = page_body(time, page, ChunkId::Time, p, codec)?;
        // GORILLA and CHIMP times are counted by the statistics, where the
        // header has them.
        let counted = matches!(time.encoding, Encoding::Gorilla | Encoding::Chimp) && page.has_statistics;
        let count = counted.then_some(page.count);
        let times = decode_times(&body, time.encoding, request.writer, count, codec.max_page_rows())
            .map_err(|d| error(ErrorKind::Decode(d), ChunkId::Time, p, page.body_at))?;
        let truthful =
            times.len() == page.count as usize && times.first() == Some(&page.start) && times.last() == Some(&page.end);
        if page.has_statistics && !truthful {
            return Err(error(ErrorKind::StatisticsLie, ChunkId::Time, p, page.header_at));
        }
        if times.windows(2).any(|w| w[0] >= w[1]) {
            return Err(error(ErrorKind::TimesNotIncreasing, ChunkId::Time, p, page.body_at));
        }
        // Every involved column of this page, one Option per row.
        let mut columns: Vec<(usize, Vec<Option<Value>>)> = Vec::new();
        for (c, pages) in &value_pages {
            let cells = match (pages, &group.values[*c]) {
                (Some(pages), Some(chunk)) => {
                    // Min / max only of the FIELD filter's column: the
                    // only bounds a plan can use.
                    let bounds = field.is_some_and(|f| f.column == *c);
                    let page = &pages[p];
                    value_page(chunk, page, *c, p, times.len(), request.writer, bounds, codec)?
                }
                _ => vec![None; times.len()],
            };
            columns.push((*c, cells));
        }
        let cell = |c: usize, r: usize| -> Option<&Value> {
            let (_, cells) = columns.iter().find(|(i, _)| *i == c).expect("involved");
            cells[r].as_ref()
        };
        for (r, &t) in times.iter().enumerate() {
            let time_ok = request.filter.time.as_ref().is_none_or(|f| f.matches(t));
            let field_ok = field.is_none_or(|f| f.op.matches(cell(f.column, r)));
            if time_ok && field_ok {
                out.row(t, request.columns.iter().map(|&c| cell(c, r).cloned()).collect());
            }
        }
    }
    Ok(out.finish())
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
    let fail = |why: String| error(ErrorKind::Decompress(why), id, p, page.body_at);
    let body = codec.decompress(chunk.compression, stored, page.size).map_err(fail)?;
    if body.len() != page.size {
        return Err(fail(format!("{} bytes, the header says {}", body.len(), page.size)));
    }
    Ok(Cow::Owned(body))
}

/// Decode one value page into one cell per row, checking its statistics:
/// the non-null count, and with `bounds` min / max too.
#[allow(clippy::too_many_arguments)]
fn value_page(
    chunk: &Chunk<'_>,
    page: &PageRef,
    c: usize,
    p: usize,
    rows: usize,
    writer: Writer,
    bounds: bool,
    codec: &dyn Decompress,
) -> Result<Vec<Option<Value>>, ScanError> {
    let (t, e) = (chunk.data_type, chunk.encoding);
    // Positions inside a decompressed body do not exist in the chunk: an
    // error there is at the body's start.
    let inside = |offset: usize| {
        if chunk.compression == 0 {
            page.body_at + offset
        } else {
            page.body_at
        }
    };
    let at = |kind: ErrorKind, offset: usize| error(kind, ChunkId::Value(c), p, offset);
    if page.empty {
        return Ok(vec![None; rows]);
    }
    let body = page_body(chunk, page, ChunkId::Value(c), p, codec)?;
    if body.len() < 4 {
        return Err(at(ErrorKind::TruncatedPage, page.body_at));
    }
    let row_count = i32::from_be_bytes([body[0], body[1], body[2], body[3]]);
    if usize::try_from(row_count).ok() != Some(rows) {
        return Err(at(ErrorKind::RowCountMismatch, page.body_at));
    }
    let bitmap_len = rows.div_ceil(8);
    if body.len() - 4 < bitmap_len {
        return Err(at(ErrorKind::BitmapTruncated, inside(4)));
    }
    let bitmap = &body[4..4 + bitmap_len];
    let present: Vec<bool> = (0..rows).map(|r| bitmap[r / 8] & (0x80 >> (r % 8)) != 0).collect();
    let non_null = present.iter().filter(|&&b| b).count();
    let values_at = inside(4 + bitmap_len);
    let values = decode_values(&body[4 + bitmap_len..], t, e, writer, non_null)
        .map_err(|d| at(ErrorKind::Decode(d), values_at))?;
    if values.len() != non_null {
        return Err(at(ErrorKind::ValueCountMismatch, values_at));
    }
    let truthful = if bounds {
        value_statistics_hold(t, e, writer, page.count, &chunk.data[page.typed_at..], &values)
    } else {
        page.count as usize == values.len()
    };
    if page.has_statistics && !truthful {
        return Err(at(ErrorKind::StatisticsLie, page.header_at));
    }
    let mut values = values.into_iter();
    Ok(present
        .into_iter()
        .map(|p| if p { values.next() } else { None })
        .collect())
}

/// Offset, limit and blocks, one row at a time.
struct Output {
    to_skip: u64,
    room: Option<u64>,
    block_rows: usize,
    width: usize,
    blocks: Vec<Block>,
    current: Block,
}

impl Output {
    fn new(request: &Request) -> Self {
        let width = request.columns.len();
        Output {
            to_skip: request.offset,
            room: request.limit,
            block_rows: request.block_rows,
            width,
            blocks: Vec::new(),
            current: Self::empty(width),
        }
    }
    fn empty(width: usize) -> Block {
        Block {
            times: Vec::new(),
            columns: vec![Vec::new(); width],
        }
    }
    fn row(&mut self, t: i64, cells: Vec<Option<Value>>) {
        if self.to_skip > 0 {
            self.to_skip -= 1;
            return;
        }
        if self.room == Some(0) {
            return;
        }
        if let Some(room) = &mut self.room {
            *room -= 1;
        }
        self.current.times.push(t);
        for (column, cell) in self.current.columns.iter_mut().zip(cells) {
            column.push(cell);
        }
        if self.current.times.len() == self.block_rows {
            let full = std::mem::replace(&mut self.current, Self::empty(self.width));
            self.blocks.push(full);
        }
    }
    fn finish(mut self) -> Vec<Block> {
        if !self.current.times.is_empty() {
            self.blocks.push(self.current);
        }
        self.blocks
    }
}
