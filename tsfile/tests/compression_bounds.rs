//! A page header's uncompressed size is the writer's word, not the codec's:
//! every compression is fed real pages (the official writer's, from the
//! committed `matrix-*` fixtures) and pages at the codec's highest ratio,
//! each with its true size and with lies in both directions (one byte
//! short, one byte over, zero, double, the largest size the limits allow,
//! past the limits). The reader must accept exactly when the codec
//! crate's own, unbounded decompression yields that many bytes (and then
//! give the crate's bytes), refuse every other size with a typed error at
//! the page's offset (never a panic), and never allocate more than the
//! compressed bytes can expand to: a size the body cannot reach must not
//! become an allocation.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::io::{Read, Write};
use std::path::Path;

use crossdec_tsfile::{decompress, Compression, Limits, ReadError, TsFileReader};

/// Records the largest single allocation each thread asks for, so that
/// tests running side by side do not see each other's.
struct Largest;

thread_local! {
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

fn note(size: usize) {
    // `try_with`: a thread being torn down has no slot left, and must still allocate.
    let _ = LARGEST.try_with(|l| l.set(l.get().max(size)));
}

unsafe impl GlobalAlloc for Largest {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        System.alloc(layout)
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        System.alloc_zeroed(layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        System.realloc(ptr, layout, new_size)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

#[global_allocator]
static ALLOCATOR: Largest = Largest;

/// The largest allocation `f` makes on this thread.
fn largest_allocation<T>(f: impl FnOnce() -> T) -> (T, usize) {
    LARGEST.with(|l| l.set(0));
    let out = f();
    (out, LARGEST.with(Cell::get))
}

/// What the codec crate itself makes of `body`, with no size to hold it
/// to: its bytes, or its refusal. LZ4 and LZO blocks carry no length, so
/// their crates decode into a buffer of `room` bytes (more than any page
/// here decompresses to).
fn crate_decision(compression: Compression, body: &[u8], room: usize) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    match compression {
        Compression::Uncompressed => out.extend_from_slice(body),
        Compression::Snappy => {
            out = snap::raw::Decoder::new()
                .decompress_vec(body)
                .map_err(|e| e.to_string())?
        }
        Compression::Gzip => {
            flate2::read::GzDecoder::new(body)
                .read_to_end(&mut out)
                .map_err(|e| e.to_string())?;
        }
        Compression::Lz4 => {
            out.resize(room, 0);
            let n = lz4_flex::block::decompress_into(body, &mut out).map_err(|e| e.to_string())?;
            out.truncate(n);
        }
        Compression::Lzo => {
            out.resize(room, 0);
            let n = lzo::decompress_into(body, &mut out).map_err(|e| format!("{e:?}"))?;
            out.truncate(n);
        }
        Compression::Zstd => {
            ruzstd::decoding::StreamingDecoder::new(body)
                .map_err(|e| e.to_string())?
                .read_to_end(&mut out)
                .map_err(|e| e.to_string())?;
        }
        Compression::Lzma2 => {
            lzma_rs::xz_decompress(&mut std::io::BufReader::new(body), &mut out).map_err(|e| e.to_string())?
        }
        other => unreachable!("{other} is not a codec the writers use"),
    }
    Ok(out)
}

/// The most bytes one compressed byte of `compression` can stand for, by
/// its format, as an independent bound for the allocation check: Snappy's
/// densest op is a 3-byte copy of 64 bytes; an LZ4 or LZO length
/// extension byte adds 255; DEFLATE's densest code is one bit for a
/// 258-byte match. ZSTD and LZMA2 are given DEFLATE's figure: the reader
/// grows their output as the stream produces it, so no header size
/// reaches an allocation there, and the true output stays inside the
/// bound through its own term.
fn expansion(compression: Compression) -> usize {
    match compression {
        Compression::Uncompressed => 1,
        Compression::Snappy => 22,
        Compression::Lz4 | Compression::Lzo => 256,
        _ => 2064,
    }
}

const ROOM: usize = 4 << 20;

/// The most a reader may allocate for a body of `body` bytes that truly
/// decompresses to `n` (0 if it does not) under a header of `declared`:
/// room for the true output as a growing buffer does it, or for the
/// declared size where the body could really expand that far, plus slack
/// for the codecs' own tables and windows.
fn allocation_bound(compression: Compression, body: usize, n: u64, declared: u64) -> u64 {
    let reachable = declared.min(body as u64 * expansion(compression) as u64);
    (2 * n).max(reachable) + (256 << 10)
}

/// Hold the reader to the crate on `body` with its true size and every
/// lie; returns how many sizes were tried.
fn hold_to_the_crate(compression: Compression, body: &[u8], what: &str) -> usize {
    let truth = crate_decision(compression, body, ROOM)
        .unwrap_or_else(|e| panic!("{what}: the crate refuses a page it wrote: {e}"));
    let n = truth.len() as u64;
    let limits = Limits::default();
    let mut sizes = vec![
        n,
        n.wrapping_sub(1),
        n + 1,
        0,
        1,
        n / 2,
        n * 2,
        n + 4096,
        limits.max_page_bytes,
        limits.max_page_bytes + 1,
        u32::MAX as u64,
        u64::MAX,
    ];
    sizes.sort_unstable();
    sizes.dedup();
    let offset = 7_000 + body.len() as u64;
    for &declared in &sizes {
        let (got, largest) = largest_allocation(|| decompress(compression, body, declared, offset, &limits));
        let crate_accepts = declared == n;
        match got {
            Ok(bytes) => {
                assert!(
                    crate_accepts,
                    "{what}: a header size of {declared} accepted, the crate makes {n} bytes"
                );
                assert!(bytes == truth, "{what}: not the crate's bytes");
            }
            Err(ReadError::LimitExceeded {
                limit: "max_page_bytes",
                value,
                offset: at,
                ..
            }) => {
                assert!(
                    declared > limits.max_page_bytes && value == declared && at == offset,
                    "{what}: size {declared}: limit error {value} at {at}"
                );
            }
            Err(ReadError::Decompress {
                compression: c,
                offset: at,
                message,
            }) => {
                assert!(
                    !crate_accepts,
                    "{what}: the true size {n} refused ({message}) where the crate decodes it"
                );
                assert!(
                    c == compression && at == offset,
                    "{what}: size {declared}: error names {c} at {at}"
                );
                assert!(declared <= limits.max_page_bytes, "{what}: {declared} passed the limit");
            }
            Err(other) => panic!("{what}: size {declared}: untyped refusal {other:?}"),
        }
        // Whatever the header says, the reader allocates no more than the
        // page could make (plus the bytes it may read one past a short
        // header to prove it short).
        assert!(
            largest as u64 <= allocation_bound(compression, body.len(), n, declared),
            "{what}: size {declared}: an allocation of {largest} bytes for a {}-byte body of {n} bytes",
            body.len()
        );
    }
    sizes.len()
}

/// Every compressed page body of a file with the compression it was
/// written with (what the official writer compressed).
fn official_pages(path: &Path) -> Vec<(Compression, Vec<u8>)> {
    let mut reader = TsFileReader::open(path).unwrap();
    let mut out = Vec::new();
    while let Some(chunk) = reader.next_chunk().unwrap() {
        let compression = chunk.header.compression().unwrap();
        let pages = chunk.pages(&Limits::default()).unwrap();
        // A body ends where the next page's header starts (or the chunk's
        // data ends) and is its header's compressed size long.
        let ends = pages
            .iter()
            .skip(1)
            .map(|p| p.offset)
            .chain([chunk.data_offset + chunk.data.len() as u64]);
        for (page, end) in pages.iter().zip(ends) {
            if page.empty {
                continue;
            }
            let end = (end - chunk.data_offset) as usize;
            let start = end - page.compressed_size as usize;
            out.push((compression, chunk.data[start..end].to_vec()));
        }
    }
    out
}

#[test]
fn official_pages_are_accepted_at_their_size_and_only_there() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut tried = std::collections::BTreeMap::new();
    for name in ["snappy", "gzip", "lzo", "lz4", "zstd", "lzma2", "uncompressed"] {
        let path = dir.join(format!("matrix-{name}.tsfile"));
        let pages = official_pages(&path);
        assert!(pages.len() > 20, "{}: {} pages", path.display(), pages.len());
        // Every page of the smallest and largest few: the ratios differ
        // most between them.
        let mut by_ratio: Vec<_> = pages.iter().collect();
        by_ratio.sort_by_key(|(_, b)| b.len());
        let picked: Vec<_> = by_ratio.iter().take(8).chain(by_ratio.iter().rev().take(8)).collect();
        for (k, (compression, body)) in picked.into_iter().enumerate() {
            let n = hold_to_the_crate(*compression, body, &format!("{} page #{k}", path.display()));
            *tried.entry(compression.to_string()).or_insert(0) += n;
        }
    }
    assert_eq!(tried.len(), 7, "{tried:?}");
}

fn compressed(compression: Compression, data: &[u8]) -> Vec<u8> {
    match compression {
        Compression::Uncompressed => data.to_vec(),
        Compression::Snappy => snap::raw::Encoder::new().compress_vec(data).unwrap(),
        Compression::Lz4 => lz4_flex::block::compress(data),
        Compression::Gzip => {
            let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
            gz.write_all(data).unwrap();
            gz.finish().unwrap()
        }
        Compression::Zstd => ruzstd::encoding::compress_to_vec(data, ruzstd::encoding::CompressionLevel::Fastest),
        Compression::Lzma2 => {
            let mut xz = Vec::new();
            lzma_rs::xz_compress(&mut std::io::Cursor::new(data), &mut xz).unwrap();
            xz
        }
        Compression::Lzo => lzo_run(data),
        other => unreachable!("{other}"),
    }
}

/// An LZO1X block of `data`: one literal run then the end marker, or,
/// where `data` is one byte repeated, that byte as a literal then M3
/// matches at distance 1 whose length extensions run as long as they must
/// (each zero byte 255 more): near 255 bytes per compressed byte, LZO's
/// densest stream.
fn lzo_run(data: &[u8]) -> Vec<u8> {
    let run = data.len() > 3 && data.iter().all(|&b| b == data[0]);
    if !run {
        assert!(data.len() <= 238, "a literal run's first byte is 17 + its length");
        let mut out = Vec::new();
        if !data.is_empty() {
            out.push(17 + data.len() as u8);
            out.extend_from_slice(data);
        }
        out.extend_from_slice(&[0x11, 0, 0]);
        return out;
    }
    // First byte 18: a literal run of one byte.
    let mut out = vec![18, data[0]];
    let mut left = data.len() - 1;
    while left > 0 {
        // M3 lengths start at 3: never leave a tail of 1 or 2.
        let mut len = left.min(33 + 255 * 4000);
        if (1..3).contains(&(left - len)) {
            len -= 3;
        }
        if len < 34 {
            // Length (t & 31) + 2 in the op byte itself.
            out.push(32 | (len as u8 - 2));
        } else {
            // Length field 0: 33 + 255 * zeros + the terminating byte.
            let ext = len - 33;
            let (zeros, term) = if ext.is_multiple_of(255) {
                (ext / 255 - 1, 255)
            } else {
                (ext / 255, ext % 255)
            };
            out.push(32);
            out.extend(std::iter::repeat_n(0u8, zeros));
            out.push(term as u8);
        }
        // Distance 1 (le16 0), no trailing literals.
        out.extend_from_slice(&[0, 0]);
        left -= len;
    }
    out.extend_from_slice(&[0x11, 0, 0]);
    out
}

#[test]
fn pages_at_each_codecs_densest_are_accepted_and_lies_refused() {
    let mut tried = 0;
    for compression in [
        Compression::Uncompressed,
        Compression::Snappy,
        Compression::Gzip,
        Compression::Lzo,
        Compression::Lz4,
        Compression::Zstd,
        Compression::Lzma2,
    ] {
        // Runs of one byte (each codec's densest), a short text, and an
        // empty page: sizes around the codecs' own thresholds.
        for (what, data) in [
            ("empty", Vec::new()),
            ("one byte", vec![7u8]),
            ("64 zeros", vec![0u8; 64]),
            ("64 KiB of zeros", vec![0u8; 64 << 10]),
            ("1 MiB + 3 of 0x55", vec![0x55u8; (1 << 20) + 3]),
            ("text", b"TsFile pages compress: 0000000000000000 the end".to_vec()),
        ] {
            let body = compressed(compression, &data);
            assert_eq!(
                crate_decision(compression, &body, ROOM).as_deref(),
                Ok(&data[..]),
                "{compression} {what}"
            );
            tried += hold_to_the_crate(compression, &body, &format!("{compression} {what}"));
        }
    }
    assert!(tried > 7 * 5 * 8, "{tried}");
}

/// Bodies the crates themselves refuse (damaged, cut short, empty) are
/// refused whatever the header says, with a typed error at the page.
#[test]
fn bodies_the_crates_refuse_are_refused_at_every_size() {
    let data = vec![0x55u8; 5000];
    for compression in [
        Compression::Snappy,
        Compression::Gzip,
        Compression::Lzo,
        Compression::Lz4,
        Compression::Zstd,
        Compression::Lzma2,
    ] {
        let good = compressed(compression, &data);
        let mut bodies = vec![
            Vec::new(),
            good[..good.len() / 2].to_vec(),
            good[..good.len() - 1].to_vec(),
        ];
        let mut flipped = good.clone();
        let mid = flipped.len() / 2;
        flipped[mid] ^= 0xFF;
        bodies.push(flipped);
        for (k, body) in bodies.iter().enumerate() {
            let refused = crate_decision(compression, body, ROOM).is_err();
            for declared in [
                0,
                1,
                data.len() as u64 - 1,
                data.len() as u64,
                data.len() as u64 + 1,
                1 << 30,
            ] {
                let (got, largest) =
                    largest_allocation(|| decompress(compression, body, declared, 99, &Limits::default()));
                match got {
                    Ok(bytes) => {
                        // A damaged body the crate still decodes: then only
                        // its true size passes.
                        assert!(
                            !refused,
                            "{compression} body #{k}: the crate refuses, the reader accepts"
                        );
                        assert_eq!(
                            Ok(bytes),
                            crate_decision(compression, body, ROOM),
                            "{compression} body #{k}"
                        );
                    }
                    Err(ReadError::Decompress { offset: 99, .. }) => {}
                    Err(other) => panic!("{compression} body #{k} size {declared}: {other:?}"),
                }
                let n = crate_decision(compression, body, ROOM).map_or(0, |v| v.len() as u64);
                assert!(
                    largest as u64 <= allocation_bound(compression, body.len(), n, declared),
                    "{compression} body #{k} size {declared}: allocated {largest}"
                );
            }
        }
    }
}

/// The official reader on the same lies: files it wrote (`generate.py
/// --size-lies`), the first page's uncompressed size replaced by a lie of
/// the same varint width, and its verdict on each (`size-lies.json`).
/// This reader must accept and refuse the same pages, the refusals typed
/// at that page's header.
#[test]
fn lying_page_sizes_are_refused_where_the_official_reader_refuses_them() {
    use crossdec_tsfile::{Item, Reference};
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/size-lies");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("size-lies.json")).unwrap()).unwrap();
    let mut seen = std::collections::BTreeSet::new();
    let mut refused = 0;
    for file in report["files"].as_array().unwrap() {
        let name = file["file"].as_str().unwrap();
        let bytes = std::fs::read(dir.join(name)).unwrap();
        let at = file["size_at"].as_u64().unwrap() as usize;
        let width = file["size_width"].as_u64().unwrap() as usize;
        for case in file["sizes"].as_array().unwrap() {
            let size = case["size"].as_u64().unwrap();
            let mut patched = bytes.clone();
            // The size as a varint padded to the width it replaces.
            for k in 0..width {
                let more = if k + 1 < width { 0x80 } else { 0 };
                patched[at + k] = ((size >> (7 * k)) & 0x7F) as u8 | more;
            }
            let mut reader = TsFileReader::new(std::io::Cursor::new(patched), Default::default()).unwrap();
            let (mut rows, mut errors) = (0, Vec::new());
            for item in reader.columns(Reference::default()) {
                match item {
                    Ok(Item::Column(c)) => rows += c.times.len(),
                    Ok(Item::Skipped(s)) => errors.push(s.reason),
                    Err(e) => errors.push(e),
                }
            }
            let official = case["official"].as_str().unwrap();
            let ours = if errors.is_empty() { "accepted" } else { "refused" };
            assert_eq!(ours, official, "{name} with page size {size}: {errors:?}");
            if official == "accepted" {
                assert_eq!(Some(rows as u64), case["rows"].as_u64(), "{name} with page size {size}");
            } else {
                refused += 1;
                let compression = Compression::from_id(bytes[at - 2]).unwrap();
                assert!(
                    matches!(
                        errors[..],
                        [ReadError::Decompress { compression: c, offset, .. }] if c == compression && offset == at as u64
                    ),
                    "{name} with page size {size}: {errors:?}"
                );
            }
            seen.insert(file["compression"].as_str().unwrap().to_string());
        }
    }
    assert_eq!(seen.len(), 6, "{seen:?}");
    assert!(refused >= 6 * 6, "{refused}");
}

/// A frame's own size fields are the writer's word too: a ZSTD frame that
/// declares a 64 MiB window (or a content size of 2^40) around a 5-byte
/// raw block decodes to those 5 bytes, without an allocation the size of
/// what it declares.
#[test]
fn zstd_frames_declaring_huge_windows_allocate_only_what_they_hold() {
    let block = |data: &[u8]| {
        // Block header: last = 1, raw, size.
        let bh = ((data.len() as u32) << 3) | 1;
        let mut b = vec![bh as u8, (bh >> 8) as u8, (bh >> 16) as u8];
        b.extend_from_slice(data);
        b
    };
    let data = b"12345";
    // Window descriptor 0x80: exponent 16, a window of 2^26 bytes.
    let mut window = vec![0x28, 0xB5, 0x2F, 0xFD, 0x00, 0x80];
    window.extend(block(data));
    // Descriptor 0xC0: an 8-byte content size, no window byte (single
    // segment: the window is the content size).
    let mut content = vec![0x28, 0xB5, 0x2F, 0xFD, 0xE0];
    content.extend_from_slice(&(1u64 << 40).to_le_bytes());
    content.extend(block(data));
    for (what, frame) in [("64 MiB window", window), ("2^40 content size", content)] {
        let crate_says = crate_decision(Compression::Zstd, &frame, ROOM);
        if what == "64 MiB window" {
            assert_eq!(crate_says.as_deref(), Ok(&data[..]), "{what}");
        }
        for declared in [0, 4, 5, 6, 1 << 26, 1 << 30] {
            let (got, largest) =
                largest_allocation(|| decompress(Compression::Zstd, &frame, declared, 5, &Limits::default()));
            match (&got, &crate_says) {
                (Ok(bytes), Ok(truth)) => assert!(bytes == truth && declared == truth.len() as u64, "{what}"),
                (Err(ReadError::Decompress { offset: 5, .. }), _) => {
                    assert!(
                        crate_says.as_ref().map_or(true, |t| t.len() as u64 != declared),
                        "{what} {declared}"
                    )
                }
                other => panic!("{what} with size {declared}: {other:?}"),
            }
            if what == "64 MiB window" {
                assert_eq!(got.is_ok(), declared == 5, "{what} with size {declared}");
            }
            assert!(largest < 1 << 20, "{what} with size {declared}: allocated {largest}");
        }
    }
}
