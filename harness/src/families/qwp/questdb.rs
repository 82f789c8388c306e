//! Third-party oracle for QWP timestamp column sections: the official QuestDB
//! Rust client (`questdb-rs` 7.2.x, crate name `questdb`).
//!
//! questdb-rs does not expose a per-column decoder, so a column section is
//! wrapped in a minimal `RESULT_BATCH` payload (one unnamed table, one
//! TIMESTAMP column named `"t"`, `batch_seq = 0` so the schema rides inline)
//! and handed to `questdb::egress::_bench_internals::decode_result_batch`.
//! That module is `#[doc(hidden)]` and marked unstable by upstream; it is the
//! same entry point questdb-rs's own `benches/decoder.rs` uses.
//!
//! Payload layout built by [`result_batch_payload`]:
//!
//! ```text
//! 0x11                     msg_kind RESULT_BATCH
//! request_id  i64 LE       (1)
//! batch_seq   varint       0
//! name_len    varint       0
//! row_count   varint
//! col_count   varint       1
//! schema:     varint(1) "t" 0x0A (TIMESTAMP)
//! <column section bytes, verbatim>
//! ```
//!
//! The header flags byte is `0x04` (FLAG_GORILLA) when `gorilla_flag` is set,
//! else `0x00`. Without FLAG_GORILLA the column section has no encoding byte.
//!
//! # Observed questdb-rs 7.2.1 behaviour (pinned by the tests below)
//!
//! * **Trailing bytes:** after the last column, `decode_result_batch` rejects
//!   any unconsumed byte with `"RESULT_BATCH has N trailing bytes"`. A column
//!   section followed by nothing is the normal case. So `Ok` implies the
//!   column consumed *exactly* all of its bytes; consumption is not otherwise
//!   observable (`DecodedBatch` has no consumed-bytes field).
//! * **Gorilla with fewer than 3 non-null values:** accepted. It reads
//!   `min(non_null, 2)` bare i64 seed values and no bitstream (so `00 01` for
//!   0 rows, `00 01 t0` for 1 row, `00 01 t0 t1` for 2 rows all decode Ok;
//!   any extra byte is a trailing-bytes error). `non_null` counts only rows
//!   whose bitmap bit is 0.
//! * **Gorilla with >= 3 non-null values:** two seeds, then an LSB-first
//!   delta-of-delta bitstream; the column consumes `ceil(bits_read / 8)`
//!   bitstream bytes. A bitstream that runs out of *bits* errors
//!   (`"BitReader: read past end"`), but the zero padding bits of the last
//!   byte are read as data: each padding `0` bit decodes as DoD = 0, so e.g.
//!   the 3-row stream `15 00` also decodes Ok as 4..=10 rows (with constant
//!   delta) and only errors at 11 rows. Missing seed bytes error with
//!   `"frame truncated: need 8 bytes, have N"`.
//! * **Null bitmap:** bit = 1 means NULL, LSB-first; padding bits past
//!   `row_count` in the last bitmap byte are ignored. Null rows are densified
//!   with `i64::MIN` in the value buffer; we report them as `None` via the
//!   validity bitmap. `null_flag` values other than 0/1 and encoding bytes
//!   other than 0/1 are errors.
//! * Errors are reported as questdb-rs's `Error::msg()` (for column-level
//!   errors it is prefixed `"column 0/1 (timestamp): "`).

use questdb::egress::_bench_internals::{decode_result_batch, Bytes, Schema, SymbolDict, ZstdScratch};
use questdb::egress::ColumnView;

/// Header flag bit FLAG_GORILLA.
const FLAG_GORILLA: u8 = 0x04;
/// `RESULT_BATCH` message kind.
const MSG_RESULT_BATCH: u8 = 0x11;
/// TIMESTAMP type code (`ColumnKind::Timestamp` in questdb-rs column_kind.rs).
const TYPE_TIMESTAMP: u8 = 0x0A;

fn push_varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// The RESULT_BATCH payload bytes and header flags byte used by
/// [`decode_with_questdb`] (exposed for benchmarks).
pub fn result_batch_payload(column: &[u8], row_count: usize, gorilla_flag: bool) -> (Vec<u8>, u8) {
    let mut out = Vec::with_capacity(column.len() + 24);
    out.push(MSG_RESULT_BATCH);
    out.extend_from_slice(&1i64.to_le_bytes()); // request_id
    push_varint(0, &mut out); // batch_seq
    push_varint(0, &mut out); // table name_len
    push_varint(row_count as u64, &mut out);
    push_varint(1, &mut out); // col_count
    push_varint(1, &mut out); // column name_len
    out.push(b't');
    out.push(TYPE_TIMESTAMP);
    out.extend_from_slice(column);
    let flags = if gorilla_flag { FLAG_GORILLA } else { 0 };
    (out, flags)
}

/// Wrap a QWP timestamp column section in a minimal RESULT_BATCH and decode it with questdb-rs.
/// Ok: one entry per row (None = NULL). Err: questdb-rs's error message.
pub fn decode_with_questdb(column: &[u8], row_count: usize, gorilla_flag: bool) -> Result<Vec<Option<i64>>, String> {
    let (payload, flags) = result_batch_payload(column, row_count, gorilla_flag);
    decode_payload(&Bytes::from(payload), flags)
}

/// Decode an already-built payload (for benchmarks: payload building must
/// stay out of the timed loop). Build the `Bytes` once with
/// `Bytes::from(result_batch_payload(..).0)`; `&Bytes` is what questdb-rs
/// takes, so no copy happens here. Allocates a fresh (empty, allocation-free)
/// `SymbolDict`/`ZstdScratch` per call; use [`QuestdbDecoder`] to reuse them
/// and the output vector.
pub fn decode_payload(payload: &Bytes, flags: u8) -> Result<Vec<Option<i64>>, String> {
    QuestdbDecoder::new().decode(payload, flags)
}

/// Reusable decoder state (symbol dict, schema slot, zstd scratch) for
/// benchmark loops. `decode_into` additionally reuses the output vector, so
/// the steady-state per-call cost is questdb-rs's own decode (which, for
/// Gorilla or nullable columns, allocates its dense value buffer) plus the
/// copy into `Option<i64>`s.
pub struct QuestdbDecoder {
    dict: SymbolDict,
    schema: Option<Schema>,
    scratch: ZstdScratch,
}

impl Default for QuestdbDecoder {
    fn default() -> Self {
        Self::new()
    }
}

impl QuestdbDecoder {
    pub fn new() -> Self {
        Self {
            dict: SymbolDict::new(),
            schema: None,
            scratch: ZstdScratch::new(),
        }
    }

    /// Decode a payload built by [`result_batch_payload`].
    pub fn decode(&mut self, payload: &Bytes, flags: u8) -> Result<Vec<Option<i64>>, String> {
        let mut out = Vec::new();
        self.decode_into(payload, flags, &mut out)?;
        Ok(out)
    }

    /// Like [`Self::decode`], but clears and refills `out` (no allocation once
    /// `out` has grown to the row count).
    pub fn decode_into(&mut self, payload: &Bytes, flags: u8, out: &mut Vec<Option<i64>>) -> Result<(), String> {
        out.clear();
        // batch_seq = 0 always re-parses the inline schema into `self.schema`.
        let batch = decode_result_batch(payload, flags, &mut self.dict, &mut self.schema, &mut self.scratch)
            .map_err(|e| e.msg().to_string())?;
        let view = batch.column_view(0, &self.dict).map_err(|e| e.msg().to_string())?;
        let ColumnView::Timestamp(col) = view else {
            return Err(format!(
                "questdb-rs decoded column 0 as {:?}, not timestamp",
                view.kind()
            ));
        };
        if col.len() != batch.row_count {
            return Err(format!(
                "questdb-rs returned {} values for {} rows",
                col.len(),
                batch.row_count
            ));
        }
        out.extend(col.iter());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn le(vals: &[i64]) -> Vec<u8> {
        vals.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    /// [0, 10, 25] Gorilla: null_flag 0, encoding 1, t0, t1, bitstream.
    /// DoD = 15 - 10 = 5 → '10' + 7-bit 5 (LSB-first) = 0x15 0x00.
    fn gorilla_0_10_25() -> Vec<u8> {
        let mut c = vec![0x00, 0x01];
        c.extend(le(&[0, 10]));
        c.extend([0x15, 0x00]);
        c
    }

    #[test]
    fn payload_layout() {
        let (p, f) = result_batch_payload(&[0xAA, 0xBB], 3, true);
        assert_eq!(f, 0x04);
        let mut want = vec![0x11];
        want.extend(1i64.to_le_bytes());
        want.extend([0x00, 0x00, 0x03, 0x01, 0x01, b't', 0x0A, 0xAA, 0xBB]);
        assert_eq!(p, want);
        let (p, f) = result_batch_payload(&[], 300, false);
        assert_eq!(f, 0);
        assert_eq!(&p[11..13], &[0xAC, 0x02]); // LEB128(300)
    }

    #[test]
    fn gorilla_known_answer() {
        assert_eq!(
            decode_with_questdb(&gorilla_0_10_25(), 3, true),
            Ok(vec![Some(0), Some(10), Some(25)])
        );
        // Same via the benchmark entry points.
        let (p, f) = result_batch_payload(&gorilla_0_10_25(), 3, true);
        let p = Bytes::from(p);
        let mut dec = QuestdbDecoder::new();
        let mut out = Vec::new();
        for _ in 0..3 {
            dec.decode_into(&p, f, &mut out).unwrap();
            assert_eq!(out, vec![Some(0), Some(10), Some(25)]);
        }
        assert_eq!(decode_payload(&p, f), Ok(vec![Some(0), Some(10), Some(25)]));
    }

    #[test]
    fn raw_encoding_under_gorilla_flag() {
        let vals = [1_700_000_000_000_000i64, -5, i64::MAX];
        let mut c = vec![0x00, 0x00];
        c.extend(le(&vals));
        assert_eq!(
            decode_with_questdb(&c, 3, true),
            Ok(vals.iter().map(|&v| Some(v)).collect())
        );
    }

    #[test]
    fn raw_without_gorilla_flag_has_no_encoding_byte() {
        let vals = [7i64, 8, 9];
        let mut c = vec![0x00];
        c.extend(le(&vals));
        assert_eq!(decode_with_questdb(&c, 3, false), Ok(vec![Some(7), Some(8), Some(9)]));
        // With an encoding byte but no FLAG_GORILLA the byte is read as data.
        let mut c2 = vec![0x00, 0x00];
        c2.extend(le(&vals));
        assert!(decode_with_questdb(&c2, 3, false).is_err());
    }

    #[test]
    fn null_bitmap_raw() {
        // 3 rows, bitmap 0b010 → row 1 null; two compact values.
        let mut c = vec![0x01, 0b010, 0x00];
        c.extend(le(&[100, 300]));
        assert_eq!(decode_with_questdb(&c, 3, true), Ok(vec![Some(100), None, Some(300)]));
        // Padding bits beyond row_count are ignored.
        let mut c = vec![0x01, 0b1111_1010, 0x00];
        c.extend(le(&[100, 300]));
        assert_eq!(decode_with_questdb(&c, 3, true), Ok(vec![Some(100), None, Some(300)]));
        // Same without FLAG_GORILLA (no encoding byte).
        let mut c = vec![0x01, 0b010];
        c.extend(le(&[100, 300]));
        assert_eq!(decode_with_questdb(&c, 3, false), Ok(vec![Some(100), None, Some(300)]));
    }

    #[test]
    fn null_bitmap_gorilla() {
        // 4 rows, row 2 null; non-null values [0, 10, 25] Gorilla-coded.
        let mut c = vec![0x01, 0b0100, 0x01];
        c.extend(le(&[0, 10]));
        c.extend([0x15, 0x00]);
        assert_eq!(
            decode_with_questdb(&c, 4, true),
            Ok(vec![Some(0), Some(10), None, Some(25)])
        );
    }

    #[test]
    fn truncated_gorilla_is_err() {
        let full = gorilla_0_10_25();
        // Every strict prefix must fail (no bitstream, half a seed, ...).
        for cut in 0..full.len() {
            let r = decode_with_questdb(&full[..cut], 3, true);
            assert!(r.is_err(), "prefix of {cut} bytes decoded: {r:?}");
        }
        // No bitstream at all → bit reader runs dry.
        let e = decode_with_questdb(&full[..18], 3, true).unwrap_err();
        assert!(e.contains("BitReader: read past end"), "{e}");
        // Half a seed → byte reader truncation.
        let e = decode_with_questdb(&full[..14], 3, true).unwrap_err();
        assert!(e.contains("frame truncated"), "{e}");
    }

    #[test]
    fn gorilla_fewer_than_three_values_reads_min_n_2_seeds() {
        // 2 rows: two seeds, no bitstream.
        let mut c = vec![0x00, 0x01];
        c.extend(le(&[5, 9]));
        assert_eq!(decode_with_questdb(&c, 2, true), Ok(vec![Some(5), Some(9)]));
        // 1 row: one seed.
        let mut c = vec![0x00, 0x01];
        c.extend(le(&[42]));
        assert_eq!(decode_with_questdb(&c, 1, true), Ok(vec![Some(42)]));
        // 0 rows: nothing after the encoding byte.
        assert_eq!(decode_with_questdb(&[0x00, 0x01], 0, true), Ok(vec![]));
        // 3 rows, 2 null → one non-null → one seed.
        let mut c = vec![0x01, 0b110, 0x01];
        c.extend(le(&[42]));
        assert_eq!(decode_with_questdb(&c, 3, true), Ok(vec![Some(42), None, None]));
        // A second seed (or any byte) beyond min(n, 2) is a trailing byte.
        let mut c = vec![0x00, 0x01];
        c.extend(le(&[42, 43]));
        let e = decode_with_questdb(&c, 1, true).unwrap_err();
        assert!(e.contains("trailing bytes"), "{e}");
        let mut c = vec![0x00, 0x01];
        c.extend(le(&[5, 9]));
        c.push(0x00);
        let e = decode_with_questdb(&c, 2, true).unwrap_err();
        assert!(e.contains("trailing bytes"), "{e}");
        // Too few seeds is a truncation error.
        let mut c = vec![0x00, 0x01];
        c.extend(le(&[5]));
        assert!(decode_with_questdb(&c, 2, true).is_err());
    }

    #[test]
    fn short_bitstream_padding_bits_decode_as_zero_dod() {
        // `15 00` holds 9 meaningful bits; the 7 zero padding bits each decode
        // as DoD = 0 (delta stays 15), so 4..=10 rows decode Ok.
        for rows in 3..=10usize {
            let want: Vec<Option<i64>> = std::iter::once(Some(0))
                .chain((0..rows as i64 - 1).map(|k| Some(10 + 15 * k)))
                .collect();
            assert_eq!(
                decode_with_questdb(&gorilla_0_10_25(), rows, true),
                Ok(want),
                "rows={rows}"
            );
        }
        // 11 rows need 17 bits > 16 available → error.
        let e = decode_with_questdb(&gorilla_0_10_25(), 11, true).unwrap_err();
        assert!(e.contains("BitReader: read past end"), "{e}");
        // One byte of bitstream: '10' prefix then only 6 of 7 payload bits.
        let mut c = gorilla_0_10_25();
        c.pop();
        let e = decode_with_questdb(&c, 3, true).unwrap_err();
        assert!(e.contains("BitReader: read past end"), "{e}");
    }

    #[test]
    fn trailing_bytes_are_err() {
        let mut c = gorilla_0_10_25();
        c.push(0x00);
        let e = decode_with_questdb(&c, 3, true).unwrap_err();
        assert!(e.contains("RESULT_BATCH has 1 trailing bytes"), "{e}");
        let mut c = vec![0x00];
        c.extend(le(&[1, 2, 3, 4]));
        let e = decode_with_questdb(&c, 3, false).unwrap_err();
        assert!(e.contains("RESULT_BATCH has 8 trailing bytes"), "{e}");
    }

    #[test]
    fn bad_flag_and_encoding_bytes_are_err() {
        let mut c = vec![0x00, 0x02];
        c.extend(le(&[0, 10, 25]));
        let e = decode_with_questdb(&c, 3, true).unwrap_err();
        assert!(e.contains("discriminator"), "{e}");
        let mut c = vec![0x02, 0x00];
        c.extend(le(&[0, 10, 25]));
        let e = decode_with_questdb(&c, 3, true).unwrap_err();
        assert!(e.contains("null_flag"), "{e}");
    }
}
