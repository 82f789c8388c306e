//! The streaming TsFile reader on files the official library wrote (the
//! reader's committed fixtures: every type x encoding, one file per
//! compression): per encoding and type, every value page of the matrix
//! decoded by the reference and by the kernels (where a kernel exists), in
//! values per second; and whole files read with each, decompression
//! included. `cargo bench -p crossdec-bench --bench tsfile_reader`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use crossdec_tsfile::{
    ChunkKind, Count, DataType, EncodedPage, Encoding, Fastest, Kernels, Limits, PageBody, PageDecoder, PageFault,
    Reference, TsFileReader,
};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tsfile/tests/fixtures")
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
}

/// A value page's bytes and its row count.
type Pages = Vec<(Vec<u8>, usize)>;

/// Every value page of `file` grouped by (encoding, type).
fn value_pages(file: &Path) -> Vec<((Encoding, DataType), Pages)> {
    let mut reader = TsFileReader::open(file).unwrap();
    let mut groups: Vec<((Encoding, DataType), Pages)> = Vec::new();
    while let Some(chunk) = reader.next_chunk().unwrap() {
        let (Some(encoding), Some(data_type)) = (chunk.header.encoding(), chunk.header.data_type()) else {
            continue;
        };
        for page in chunk.pages(&Limits::default()).unwrap() {
            let PageBody::NonAligned { times, values } = page.parts(ChunkKind::NonAligned).unwrap() else {
                continue;
            };
            let time_page = EncodedPage {
                encoding: Encoding::Ts2Diff,
                data_type: DataType::Int64,
                bytes: times,
                count: Count::AtMost(1 << 20),
            };
            let rows = Reference::default().decode(&time_page).unwrap().values.len();
            let key = (encoding, data_type);
            let entry = match groups.iter_mut().find(|g| g.0 == key) {
                Some(g) => g,
                None => {
                    groups.push((key, Vec::new()));
                    groups.last_mut().unwrap()
                }
            };
            entry.1.push((values.to_vec(), rows));
        }
    }
    groups
}

fn decode_all(
    decoder: &mut dyn PageDecoder,
    encoding: Encoding,
    data_type: DataType,
    pages: &[(Vec<u8>, usize)],
) -> usize {
    let mut n = 0;
    for (bytes, rows) in pages {
        let page = EncodedPage {
            encoding,
            data_type,
            bytes,
            count: Count::Exactly(*rows),
        };
        n += decoder.decode(black_box(&page)).unwrap().values.len();
    }
    n
}

fn pages(c: &mut Criterion) {
    let groups = value_pages(&fixtures().join("matrix-uncompressed.tsfile"));
    for ((encoding, data_type), pages) in &groups {
        let values: usize = pages.iter().map(|p| p.1).sum();
        let mut g = c.benchmark_group(format!("tsfile-reader/{encoding}-{data_type}"));
        g.throughput(Throughput::Elements(values as u64));
        g.bench_function("reference", |b| {
            let mut d = Reference::default();
            b.iter(|| decode_all(&mut d, *encoding, *data_type, pages))
        });
        let probe = EncodedPage {
            encoding: *encoding,
            data_type: *data_type,
            bytes: &pages[0].0,
            count: Count::Exactly(pages[0].1),
        };
        if !matches!(Kernels::default().decode(&probe), Err(PageFault::NoDecoder { .. })) {
            g.bench_function("kernels", |b| {
                let mut d = Kernels::default();
                b.iter(|| decode_all(&mut d, *encoding, *data_type, pages))
            });
        }
        g.finish();
    }
}

fn files(c: &mut Criterion) {
    for name in ["matrix-uncompressed", "matrix-zstd", "matrix-gzip", "matrix-lzma2"] {
        let path = fixtures().join(format!("{name}.tsfile"));
        let bytes = std::fs::read(&path).unwrap();
        let mut g = c.benchmark_group(format!("tsfile-reader/file-{name}"));
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        for (label, fastest) in [("reference", false), ("fastest", true)] {
            g.bench_function(BenchmarkId::new("columns", label), |b| {
                b.iter(|| {
                    let mut r =
                        TsFileReader::new(std::io::Cursor::new(&bytes), crossdec_tsfile::ReadOptions::default())
                            .unwrap();
                    if fastest {
                        r.columns(Fastest::default()).count()
                    } else {
                        r.columns(Reference::default()).count()
                    }
                })
            });
        }
        g.finish();
    }
}

criterion_group! {
    name = benches;
    config = config();
    targets = pages, files
}
criterion_main!(benches);
