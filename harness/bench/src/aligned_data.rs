//! The seed's aligned benchmark data (`002_8cb3312a337eb4c4`): 200,000
//! rows x 8 INT64 random-walk columns, TS_2DIFF, as the C++ writer writes
//! its pages.

use crossdec_reference::tsfile::aligned as r;
use r::write::{time_body, time_page, value_page_for, Stats};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Rows of the group.
pub const ROWS: usize = 200_000;
/// Value columns of the group.
pub const COLUMNS: usize = 8;

/// Times 1 ms apart from a 2026 epoch, and 8 random-walk sensor columns.
pub fn data() -> (Vec<i64>, Vec<Vec<Option<r::Value>>>) {
    let rng = &mut ChaCha8Rng::seed_from_u64(2);
    let times: Vec<i64> = (0..ROWS as i64).map(|i| 1_767_225_600_000 + i).collect();
    let columns = (0..COLUMNS)
        .map(|_| {
            let mut v = rng.gen_range(0..1_000_000i64);
            (0..ROWS)
                .map(|_| {
                    v += rng.gen_range(-50..=50);
                    Some(r::Value::I64(v))
                })
                .collect()
        })
        .collect();
    (times, columns)
}

/// The time chunk and the value chunks, `page` rows per page.
pub fn chunks(times: &[i64], columns: &[Vec<Option<r::Value>>], page: usize) -> (Vec<u8>, Vec<Vec<u8>>) {
    let mut t = Vec::new();
    let mut values = vec![Vec::new(); columns.len()];
    for start in (0..times.len()).step_by(page) {
        let end = (start + page).min(times.len());
        let ts = &times[start..end];
        t.extend(time_page(
            &time_body(ts, r::Encoding::Ts2Diff, r::Writer::Cpp),
            Stats::of(ts),
        ));
        for (column, out) in columns.iter().zip(&mut values) {
            out.extend(value_page_for(
                r::ColumnType::Int64,
                r::Encoding::Ts2Diff,
                ts,
                &column[start..end],
                false,
                r::Writer::Cpp,
            ));
        }
    }
    (t, values)
}

/// The kernel scanner's view of the chunks [`chunks`] wrote.
pub fn kernel_group<'a>(time: &'a [u8], values: &'a [Vec<u8>]) -> crossdec_kernels::tsfile::aligned::Group<'a> {
    use crossdec_kernels::tsfile::aligned as k;
    let chunk = |bytes| k::Chunk::plain(k::ColumnType::Int64, k::Encoding::Ts2Diff, bytes);
    k::Group {
        time: chunk(time),
        values: values.iter().map(|d| Some(chunk(d))).collect(),
    }
}

/// The reference scanner's view of the chunks [`chunks`] wrote.
pub fn reference_group<'a>(time: &'a [u8], values: &'a [Vec<u8>]) -> r::Group<'a> {
    let chunk = |bytes| r::Chunk::plain(r::ColumnType::Int64, r::Encoding::Ts2Diff, bytes);
    r::Group {
        time: chunk(time),
        values: values.iter().map(|d| Some(chunk(d))).collect(),
    }
}
