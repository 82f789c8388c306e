//! The families' own adapters are held to the engine's rules, not only the
//! kernels behind them: each family's real adapter is run with deliberately
//! sloppy kernels, and each sloppiness must be caught.
//!
//! - Buffers: a kernel that writes one element past what its result says it
//!   wrote, or at the far end of the buffer it was handed (past the bound
//!   the real API promises to respect), or past what an error allows. A
//!   canary window an adapter widens (more elements counted as written) or
//!   drops (no checked elements past the bound) lets such a kernel through.
//!   The adapters hand kernels exactly the range ([`Out::range`]), so a
//!   write before its start cannot be made in safe code; the engine's own
//!   tests cover the views that could reach it. The TsFile pages' adapter
//!   (`decode_values`, no slack: its kernels take the buffer's length as
//!   their limit) is held to it in `tsfile_props.rs`.
//! - Reuse: a kernel that goes wrong only on its decoder's second call must
//!   be caught on a case of two steps (and pass on one step): an adapter or
//!   judge that builds a fresh decoder for every step never reaches it.
//! - Consumed bytes and error positions: a kernel that reports one byte
//!   more or less consumed (or an error one byte off) than it read, in
//!   every family; an adapter that fills the count in itself, or an
//!   equality that ignores it, lets it through.
//!
//! cube-columnar and tsfile-aligned hand kernels no caller buffer (their
//! kernels return owned batches and blocks); for them the sloppy kernels get
//! the ends of what they decoded wrong: a row missing at the end or the
//! start (cube), a row added past the end or before the start (aligned).
//!
//! [`Out::range`]: crossdec_harness::engine::Out::range

use std::cell::Cell;

use crossdec_harness::engine::{
    BufferFault, Campaign, Canonical, CheckVerdict, Family, FamilyReport, RunOptions, Spec,
};
use crossdec_harness::families::{bytea, cube, qwp, tsfile, tsfile_aligned};

/// A small campaign that stops at the first failure and does not minimize.
fn quick(cases: u64, categories: &[&str]) -> RunOptions {
    RunOptions {
        cases,
        seed: 7,
        categories: categories.iter().map(|c| c.to_string()).collect(),
        max_failures: 1,
        shrink_budget: 0,
        shrink_seconds: 0.0,
        shrink_total_seconds: 0.0,
        ..RunOptions::default()
    }
}

/// The verdict of the campaign's only implementation on a case of `steps`.
fn verdict<S: Spec>(campaign: &Campaign<S>, steps: &[S::Input]) -> CheckVerdict {
    let bytes: Vec<Vec<u8>> = steps.iter().map(Canonical::to_canonical).collect();
    let report = campaign.check_steps(&bytes, &[], false).expect("inputs of the family");
    assert_eq!(report.implementations.len(), 1);
    report.implementations[0].verdict.clone()
}

fn assert_agrees(v: &CheckVerdict, what: &str) {
    assert!(matches!(v, CheckVerdict::Agrees { .. }), "{what}: {v:?}");
}

fn assert_differs_at(v: &CheckVerdict, at: usize, what: &str) {
    assert!(
        matches!(v, CheckVerdict::Differs { step, .. } if *step == at),
        "{what}: expected a difference at step {at}, got {v:?}"
    );
}

fn assert_caught(report: &FamilyReport, what: &str) {
    assert!(report.failure_count > 0, "{what}: the campaign did not catch it");
}

/// The single buffer fault of a call: (buffer, index, written).
fn changed(faults: &[BufferFault]) -> Vec<(String, i64, u64)> {
    faults
        .iter()
        .map(|f| match f {
            BufferFault::Changed {
                buffer, index, written, ..
            } => (buffer.clone(), *index, *written),
            other => panic!("not a changed element: {other:?}"),
        })
        .collect()
}

thread_local! {
    /// The length of the last buffer a sloppy kernel was handed.
    static HANDED: Cell<usize> = const { Cell::new(0) };
}

mod pg_bytea {
    use super::*;
    use crossdec_harness::families::bytea::{ByteaInput, PgBytea};
    use crossdec_kernels::bytea as kernel;

    fn campaign(hex: kernel::HexFn, escape: kernel::EscapeFn) -> Campaign<PgBytea> {
        Campaign::new(PgBytea).kernel("sloppy", true, move || bytea::kernel_decoder(hex, escape))
    }

    fn input(text: &[u8]) -> ByteaInput {
        ByteaInput { text: text.to_vec() }
    }

    fn flip(out: &mut [u8], at: usize) {
        out[at] = !out[at];
    }

    /// Right bytes, then one more written past them. In the escape format
    /// the decoded length is below the bound, so the byte lands inside it.
    fn escape_one_past(text: &[u8], out: &mut [u8]) -> Result<usize, kernel::DecodeError> {
        let n = kernel::best_escape()(text, out)?;
        flip(out, n);
        Ok(n)
    }

    /// Right bytes, then a write at the far end of the buffer handed over.
    fn hex_at_the_far_end(digits: &[u8], out: &mut [u8]) -> Result<usize, kernel::DecodeError> {
        HANDED.with(|h| h.set(out.len()));
        let n = kernel::best_hex()(digits, out)?;
        flip(out, out.len() - 1);
        Ok(n)
    }

    /// The right error, after a write just past the bound.
    fn escape_error_past_the_bound(text: &[u8], out: &mut [u8]) -> Result<usize, kernel::DecodeError> {
        let result = kernel::best_escape()(text, out);
        if result.is_err() {
            flip(out, kernel::decoded_len_bound(text));
        }
        result
    }

    #[test]
    fn a_write_just_past_the_decoded_bytes_is_caught_inside_the_bound() {
        let campaign = campaign(kernel::best_hex(), escape_one_past);
        let text = b"a\\101b\\\\c";
        let (outcome, faults) = campaign.implementations()[0].decode_once(&input(text));
        let expected = PgBytea.reference(&input(text));
        assert_eq!(outcome, expected, "the values themselves are right");
        let n = expected.expect("a valid literal").bytes.len();
        assert!(n < kernel::decoded_len_bound(text), "the write lands inside the bound");
        assert_eq!(changed(&faults), [("out".to_string(), n as i64, n as u64)]);
        assert_caught(&campaign.run(&quick(4, &["escape"])), "escape kernel writing one past");
    }

    #[test]
    fn a_write_at_the_far_end_of_the_handed_buffer_lands_in_checked_slack() {
        let campaign = campaign(hex_at_the_far_end, kernel::best_escape());
        let text = b"\\x0102ff";
        let bound = kernel::decoded_len_bound(text);
        let (outcome, faults) = campaign.implementations()[0].decode_once(&input(text));
        let handed = HANDED.with(Cell::get);
        assert_eq!(outcome, PgBytea.reference(&input(text)));
        assert!(
            handed > bound,
            "the kernel was handed {handed} bytes for a bound of {bound}: no slack past it"
        );
        assert_eq!(changed(&faults), [("out".to_string(), handed as i64 - 1, bound as u64)]);
    }

    #[test]
    fn on_an_error_a_write_past_the_bound_is_caught() {
        let campaign = campaign(kernel::best_hex(), escape_error_past_the_bound);
        let text = b"ab\\9";
        let (outcome, faults) = campaign.implementations()[0].decode_once(&input(text));
        assert!(outcome.is_err());
        assert_eq!(outcome, PgBytea.reference(&input(text)));
        let bound = kernel::decoded_len_bound(text);
        assert_eq!(changed(&faults), [("out".to_string(), bound as i64, bound as u64)]);
    }

    fn one_more(digits: &[u8], out: &mut [u8]) -> Result<usize, kernel::DecodeError> {
        kernel::best_hex()(digits, out).map(|n| n + 1)
    }

    fn one_less(digits: &[u8], out: &mut [u8]) -> Result<usize, kernel::DecodeError> {
        kernel::best_hex()(digits, out).map(|n| n.saturating_sub(1))
    }

    /// The bytea kernels consume the whole literal; what they report is the
    /// bytes decoded, and that is what the adapter must take from them.
    #[test]
    fn a_count_off_by_one_is_caught() {
        for (what, hex) in [("one more", one_more as kernel::HexFn), ("one less", one_less)] {
            let v = verdict(&campaign(hex, kernel::best_escape()), &[input(b"\\x01 02 03")]);
            assert_differs_at(&v, 0, what);
        }
    }
}

mod qwp_ts {
    use super::*;
    use crossdec_harness::families::qwp::{QwpInput, QwpTimestamps};
    use crossdec_kernels::qwp as kernel;
    use crossdec_reference::qwp as reference;

    type Result = std::result::Result<usize, kernel::DecodeError>;

    fn real(
        decoder: &mut kernel::TimestampDecoder,
        column: &[u8],
        rows: usize,
        gorilla: bool,
        values: &mut [i64],
        validity: &mut [bool],
    ) -> Result {
        kernel::TimestampDecoder::decode_into(decoder, column, rows, gorilla, values, validity)
    }

    fn campaign(func: kernel::DecodeFn) -> Campaign<QwpTimestamps> {
        Campaign::new(QwpTimestamps).kernel("sloppy", true, move || qwp::kernel_decoder(func))
    }

    fn input(rows: &[Option<i64>], gorilla_flag: bool) -> QwpInput {
        QwpInput {
            column: reference::encode_column(rows, gorilla_flag).0,
            row_count: rows.len() as u32,
            gorilla_flag,
        }
    }

    fn rows() -> Vec<Option<i64>> {
        (0..20).map(|i| (i % 5 != 2).then_some(1_000 + 7 * i)).collect()
    }

    fn values_one_past(
        d: &mut kernel::TimestampDecoder,
        c: &[u8],
        rows: usize,
        g: bool,
        values: &mut [i64],
        validity: &mut [bool],
    ) -> Result {
        let consumed = real(d, c, rows, g, values, validity)?;
        values[rows] = !values[rows];
        Ok(consumed)
    }

    fn validity_one_past(
        d: &mut kernel::TimestampDecoder,
        c: &[u8],
        rows: usize,
        g: bool,
        values: &mut [i64],
        validity: &mut [bool],
    ) -> Result {
        let consumed = real(d, c, rows, g, values, validity)?;
        validity[rows] = !validity[rows];
        Ok(consumed)
    }

    fn at_the_far_end(
        d: &mut kernel::TimestampDecoder,
        c: &[u8],
        rows: usize,
        g: bool,
        values: &mut [i64],
        validity: &mut [bool],
    ) -> Result {
        HANDED.with(|h| h.set(values.len().min(validity.len())));
        let consumed = real(d, c, rows, g, values, validity)?;
        let last = values.len() - 1;
        values[last] = !values[last];
        let last = validity.len() - 1;
        validity[last] = !validity[last];
        Ok(consumed)
    }

    /// The right error, after a write just past the rows.
    fn error_one_past(
        d: &mut kernel::TimestampDecoder,
        c: &[u8],
        rows: usize,
        g: bool,
        values: &mut [i64],
        validity: &mut [bool],
    ) -> Result {
        let result = real(d, c, rows, g, values, validity);
        if result.is_err() && values.len() > rows {
            values[rows] = !values[rows];
        }
        result
    }

    #[test]
    fn a_write_just_past_the_rows_is_caught_in_each_buffer() {
        let inp = input(&rows(), true);
        for (func, buffer) in [
            (values_one_past as kernel::DecodeFn, "values"),
            (validity_one_past, "validity"),
        ] {
            let (outcome, faults) = campaign(func).implementations()[0].decode_once(&inp);
            assert_eq!(outcome, QwpTimestamps.reference(&inp), "{buffer}: the values are right");
            assert_eq!(changed(&faults), [(buffer.to_string(), 20, 20)]);
        }
    }

    #[test]
    fn a_write_at_the_far_end_of_the_handed_buffers_lands_in_checked_slack() {
        let inp = input(&rows(), false);
        let (_, faults) = campaign(at_the_far_end).implementations()[0].decode_once(&inp);
        let handed = HANDED.with(Cell::get);
        assert!(handed > 20, "{handed} elements handed for 20 rows: no slack past them");
        let far = handed as i64 - 1;
        assert_eq!(
            changed(&faults),
            [("values".to_string(), far, 20), ("validity".to_string(), far, 20)]
        );
    }

    #[test]
    fn on_an_error_a_write_past_the_rows_is_caught() {
        let mut inp = input(&rows(), true);
        inp.column.truncate(inp.column.len() - 3);
        let (outcome, faults) = campaign(error_one_past).implementations()[0].decode_once(&inp);
        assert!(outcome.is_err(), "{outcome:?}");
        assert_eq!(changed(&faults), [("values".to_string(), 20, 20)]);
    }

    fn consumed_plus_one(
        d: &mut kernel::TimestampDecoder,
        c: &[u8],
        rows: usize,
        g: bool,
        values: &mut [i64],
        validity: &mut [bool],
    ) -> Result {
        real(d, c, rows, g, values, validity).map(|n| n + 1)
    }

    fn consumed_minus_one(
        d: &mut kernel::TimestampDecoder,
        c: &[u8],
        rows: usize,
        g: bool,
        values: &mut [i64],
        validity: &mut [bool],
    ) -> Result {
        real(d, c, rows, g, values, validity).map(|n| n - 1)
    }

    /// A kernel's own consumed count off by one, raw and Gorilla columns
    /// alike (the family's engine tests shift the adapter's outcome; this
    /// shifts what the kernel tells the adapter).
    #[test]
    fn a_consumed_count_off_by_one_is_caught() {
        for gorilla in [false, true] {
            for (what, func) in [
                ("one more", consumed_plus_one as kernel::DecodeFn),
                ("one less", consumed_minus_one),
            ] {
                assert_differs_at(&verdict(&campaign(func), &[input(&rows(), gorilla)]), 0, what);
            }
        }
    }

    /// Right on a decoder's first call, one byte of consumed too many on
    /// every later one. It leaves a mark in the decoder's dense scratch (a
    /// column with a null grows it) and reads it back: the decoder's state
    /// is all a kernel can see of its history.
    fn wrong_on_reuse(
        d: &mut kernel::TimestampDecoder,
        c: &[u8],
        rows: usize,
        g: bool,
        values: &mut [i64],
        validity: &mut [bool],
    ) -> Result {
        let reused = format!("{d:?}") != format!("{:?}", kernel::TimestampDecoder::new());
        let mark = reference::encode_column(&[None, Some(1)], false).0;
        real(d, &mark, 2, false, &mut [0; 2], &mut [false; 2]).expect("the mark decodes");
        real(d, c, rows, g, values, validity).map(|n| n + usize::from(reused))
    }

    #[test]
    fn a_decoder_wrong_only_on_reuse_is_caught_on_the_second_step() {
        let campaign = campaign(wrong_on_reuse);
        let step = input(&rows(), true);
        assert_agrees(&verdict(&campaign, std::slice::from_ref(&step)), "one step");
        assert_differs_at(&verdict(&campaign, &[step.clone(), step]), 1, "two steps");
        assert_caught(&campaign.run(&quick(4, &["reuse"])), "the reuse category");
    }
}

mod cube_columnar {
    use super::*;
    use crossdec_harness::families::cube::{CubeColumnar, CubeInput, FieldDesc, Shape, Ty};
    use crossdec_kernels::cube as kernel;

    type Result = std::result::Result<arrow_array::RecordBatch, kernel::CubeError>;

    fn campaign(func: kernel::DecodeFn) -> Campaign<CubeColumnar> {
        Campaign::new(CubeColumnar).kernel("sloppy", true, move || cube::kernel_decoder(func))
    }

    fn input(json: &str) -> CubeInput {
        let fields = vec![FieldDesc {
            name: "m0".into(),
            ty: Ty::Int64,
            literal: None,
        }];
        CubeInput::new(json.as_bytes().to_vec(), Shape::Rows, fields, None)
    }

    /// Right on a fresh decoder; once the decoder knows the rows' keys (it
    /// keeps them between calls), every row of a batch but the first.
    fn wrong_on_reuse(
        d: &mut kernel::CubeDecoder,
        json: &[u8],
        shape: kernel::Shape,
        schema: &arrow_schema::SchemaRef,
        limit: Option<i64>,
    ) -> Result {
        let reused = d.known_keys() > 0;
        let batch = kernel::decode_with(d, json, shape, schema, limit)?;
        Ok(if reused && batch.num_rows() > 0 {
            batch.slice(1, batch.num_rows() - 1)
        } else {
            batch
        })
    }

    #[test]
    fn a_decoder_wrong_only_on_reuse_is_caught_on_the_second_step() {
        let campaign = campaign(wrong_on_reuse);
        let step = input(r#"[{"m0":1},{"m0":2}]"#);
        assert_agrees(&verdict(&campaign, std::slice::from_ref(&step)), "one step");
        assert_differs_at(&verdict(&campaign, &[step.clone(), step]), 1, "two steps");
    }

    /// A batch missing its last row, or its first: the kernels own their
    /// output, so a row past the end or before the start is what they can
    /// get wrong about their range.
    fn without_last_row(
        d: &mut kernel::CubeDecoder,
        json: &[u8],
        shape: kernel::Shape,
        schema: &arrow_schema::SchemaRef,
        limit: Option<i64>,
    ) -> Result {
        let batch = kernel::decode_with(d, json, shape, schema, limit)?;
        Ok(batch.slice(0, batch.num_rows().saturating_sub(1)))
    }

    fn without_first_row(
        d: &mut kernel::CubeDecoder,
        json: &[u8],
        shape: kernel::Shape,
        schema: &arrow_schema::SchemaRef,
        limit: Option<i64>,
    ) -> Result {
        let batch = kernel::decode_with(d, json, shape, schema, limit)?;
        Ok(batch.slice(batch.num_rows().min(1), batch.num_rows().saturating_sub(1)))
    }

    #[test]
    fn a_batch_short_of_a_row_at_either_end_is_caught() {
        let step = input(r#"[{"m0":1},{"m0":2},{"m0":3}]"#);
        for (what, func) in [
            ("last row", without_last_row as kernel::DecodeFn),
            ("first row", without_first_row),
        ] {
            assert_differs_at(&verdict(&campaign(func), std::slice::from_ref(&step)), 0, what);
        }
    }

    fn offset_plus_one(
        d: &mut kernel::CubeDecoder,
        json: &[u8],
        shape: kernel::Shape,
        schema: &arrow_schema::SchemaRef,
        limit: Option<i64>,
    ) -> Result {
        kernel::decode_with(d, json, shape, schema, limit).map_err(|e| match e {
            kernel::CubeError::InvalidJson { offset, message } => kernel::CubeError::InvalidJson {
                offset: offset + 1,
                message,
            },
            other => other,
        })
    }

    /// cube-columnar reports no bytes consumed (a document is read whole):
    /// the byte a kernel names in an error is its position, off by one.
    #[test]
    fn an_error_position_off_by_one_is_caught() {
        let step = input(r#"[{"m0":1},{"m0":-}]"#);
        assert!(matches!(
            CubeColumnar.reference(&step),
            Err(cube::CubeFault::InvalidJson { .. })
        ));
        assert_differs_at(&verdict(&campaign(offset_plus_one), &[step]), 0, "offset + 1");
    }
}

mod tsfile_pages {
    use super::*;
    use crossdec_harness::families::tsfile::{Encoding, TsFamily, TsInput};
    use crossdec_kernels::tsfile::Done;

    /// Each encoding's family with its first available kernel only, through
    /// the real adapter, its reports passed through `report`.
    fn campaign(encoding: Encoding, report: tsfile::Report) -> Campaign<TsFamily> {
        let (name, _) = tsfile::kernel_names(encoding)
            .into_iter()
            .find(|(_, available)| *available)
            .expect("a portable kernel");
        Campaign::new(TsFamily(encoding)).with(tsfile::implementation_reporting(encoding, name, true, report))
    }

    /// Categories of plain pages (and cases of several steps).
    const PAGES: &[&str] = &["random-walk", "edges", "reuse"];

    fn plus_one(_: u64, done: &mut Done) {
        done.consumed += 1;
    }

    fn minus_one(_: u64, done: &mut Done) {
        done.consumed = done.consumed.wrapping_sub(1);
    }

    #[test]
    fn the_honest_adapter_passes() {
        fn unchanged(_: u64, _: &mut Done) {}
        for encoding in Encoding::ALL {
            let report = campaign(encoding, unchanged).run(&quick(2, PAGES));
            assert_eq!(report.failure_count, 0, "{encoding:?}: {:#?}", report.failures);
        }
    }

    /// In every TsFile family, a kernel whose consumed bytes are one off
    /// (values all right) must fail the family's campaign.
    #[test]
    fn a_consumed_count_off_by_one_is_caught_in_every_family() {
        for encoding in Encoding::ALL {
            for (what, report) in [("one more", plus_one as tsfile::Report), ("one less", minus_one)] {
                let report = campaign(encoding, report).run(&quick(2, PAGES));
                assert_caught(&report, &format!("{encoding:?}: consumed {what}"));
                let f = &report.failures[0];
                assert!(
                    f.got.contains("consumed"),
                    "{encoding:?}: {what}: {} / {}",
                    f.expected,
                    f.got
                );
            }
        }
    }

    fn wrong_on_reuse(call: u64, done: &mut Done) {
        if call > 0 {
            done.consumed += 1;
        }
    }

    #[test]
    fn a_decoder_wrong_only_on_reuse_is_caught_on_the_second_step() {
        let campaign = campaign(Encoding::Plain, wrong_on_reuse);
        let step = TsInput {
            encoding: Encoding::Plain,
            dtype: tsfile::DataType::Int32,
            stop: tsfile::StopMode::AtTerminator,
            writer: tsfile::Writer::Java,
            max_values: 8,
            page: crossdec_reference::tsfile::plain::encode_i32(&[1, -2, 3]),
        };
        assert_agrees(&verdict(&campaign, std::slice::from_ref(&step)), "one step");
        assert_differs_at(&verdict(&campaign, &[step.clone(), step]), 1, "two steps");
        assert_caught(&campaign.run(&quick(4, &["reuse"])), "the reuse category");
    }
}

mod tsfile_aligned_scan {
    use super::*;
    use crossdec_harness::families::tsfile_aligned::{
        kernel_group, kernel_request, scanned_from_kernel, scanned_through_arrow, AlignedFamily, AlignedInput, Codecs,
    };
    use crossdec_kernels::tsfile::aligned as k;

    /// The default kernel scan, its raw output passed through `tamper`
    /// before the adapter converts it (`arrow`: the Arrow adapter).
    fn sloppy(tamper: fn(&mut k::ScanOutput), arrow: bool) -> Campaign<AlignedFamily> {
        Campaign::new(AlignedFamily).kernel_fn("sloppy", move |input: &AlignedInput| {
            let (Some(group), Some(request)) = (kernel_group(input), kernel_request(&input.request, input.writer))
            else {
                return tsfile_aligned::kernel_scan(input, k::ScanOptions::default());
            };
            let mut out = k::scan_with(&group, &request, k::ScanOptions::default(), &Codecs);
            tamper(&mut out);
            if arrow {
                scanned_through_arrow(input, &out)
            } else {
                scanned_from_kernel(&out)
            }
        })
    }

    fn unchanged(_: &mut k::ScanOutput) {}

    /// One more time past the last block's end (its cells unchanged).
    fn time_past_the_end(out: &mut k::ScanOutput) {
        if let Ok(blocks) = &mut out.result {
            if let Some(last) = blocks.last_mut() {
                let t = last.times.last().map_or(0, |t| t.wrapping_add(1));
                last.times.push(t);
            }
        }
    }

    /// One more time before the first block's start.
    fn time_before_the_start(out: &mut k::ScanOutput) {
        if let Ok(blocks) = &mut out.result {
            if let Some(first) = blocks.first_mut() {
                let t = first.times.first().map_or(0, |t| t.wrapping_sub(1));
                first.times.insert(0, t);
            }
        }
    }

    fn offset_plus_one(out: &mut k::ScanOutput) {
        if let Err(e) = &mut out.result {
            e.offset += 1;
        }
    }

    fn offset_minus_one(out: &mut k::ScanOutput) {
        if let Err(e) = &mut out.result {
            e.offset = e.offset.wrapping_sub(1);
        }
    }

    #[test]
    fn the_honest_adapters_pass() {
        for arrow in [false, true] {
            let report = sloppy(unchanged, arrow).run(&quick(3, &["groups", "malformed-corrupt"]));
            assert_eq!(report.failure_count, 0, "arrow {arrow}: {:#?}", report.failures);
        }
    }

    #[test]
    fn a_row_past_the_end_or_before_the_start_is_caught() {
        for arrow in [false, true] {
            for (what, tamper) in [
                ("past the end", time_past_the_end as fn(&mut k::ScanOutput)),
                ("before the start", time_before_the_start),
            ] {
                let report = sloppy(tamper, arrow).run(&quick(3, &["groups", "blocks", "page-edges"]));
                assert_caught(&report, &format!("{what} (arrow {arrow})"));
            }
        }
    }

    /// tsfile-aligned reports no bytes consumed (a chunk group is read
    /// whole): the byte an error names is its position, off by one.
    #[test]
    fn an_error_position_off_by_one_is_caught() {
        for (what, tamper) in [
            ("one more", offset_plus_one as fn(&mut k::ScanOutput)),
            ("one less", offset_minus_one),
        ] {
            let report = sloppy(tamper, false).run(&quick(4, &["malformed-corrupt", "malformed-truncation"]));
            assert_caught(&report, what);
        }
    }
}
