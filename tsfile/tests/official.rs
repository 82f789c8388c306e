//! Files the official Apache TsFile library (PyPI `tsfile` 2.5) wrote with
//! every type x encoding and compression it accepts
//! (`ci/tsfile/generate.py --all --read-back`), read by this crate with the
//! reference decoders, the kernels and both, and held to what the official
//! reader returned for every series. The committed fixtures run on every
//! target that runs this crate's tests (natively and s390x in the gate); `verify_dir` is also what
//! the harness's oracle test runs on fresh random files.

use std::path::{Path, PathBuf};

use crossdec_tsfile::verify::{verify_file, Verified};
use crossdec_tsfile::{Fastest, Reference};

fn fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "tsfile"))
        .collect();
    files.sort();
    files
}

#[test]
fn committed_fixtures_match_the_official_reader() {
    let files = fixtures();
    assert!(files.len() >= 9, "fixtures missing: {files:?}");
    let mut total = Verified::default();
    for path in &files {
        let json = std::fs::read_to_string(path.with_extension("tsfile.json")).unwrap();
        let by_reference =
            verify_file(path, &json, Reference::default).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let fastest = verify_file(path, &json, Fastest::default).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(by_reference, fastest, "{}", path.display());
        total.add(&by_reference);
    }
    // Every encoding and compression the writer accepts is in the fixtures.
    for enc in [
        "PLAIN",
        "DICTIONARY",
        "RLE",
        "TS_2DIFF",
        "GORILLA",
        "ZIGZAG",
        "CHIMP",
        "SPRINTZ",
        "RLBE",
        "CAMEL",
    ] {
        assert!(
            total.encodings.contains(enc),
            "no {enc} page in the fixtures: {:?}",
            total.encodings
        );
    }
    for comp in ["UNCOMPRESSED", "SNAPPY", "GZIP", "LZO", "LZ4", "ZSTD", "LZMA2"] {
        assert!(
            total.compressions.contains(comp),
            "no {comp} page in the fixtures: {:?}",
            total.compressions
        );
    }
    assert!(total.points > 10_000 && total.nulls > 100, "{total:?}");
    // Every statistics layout the writer writes is read and held to the
    // official reader (`generate.py --statistics-fixtures`: stats-*.tsfile).
    for layout in crossdec_tsfile::verify::STATISTICS_LAYOUTS {
        assert!(
            total.statistics.contains(*layout),
            "no {layout} in the fixtures: {:?}",
            total.statistics
        );
    }
}

/// Filtered scans of the committed scan fixtures (`generate.py
/// --scan-fixtures`: table-model files of every data type and several
/// compressions, pages of 2 to 10,000 points, devices of several chunk
/// groups, one-page chunks, all-null pages, times at the i64 extremes),
/// each query held to the official reader's answer.
#[test]
fn filtered_scans_match_the_official_readers_queries() {
    use crossdec_tsfile::verify_queries::{verify_queries, QueriesVerified};
    let mut total = QueriesVerified::default();
    let mut files = 0;
    for path in fixtures() {
        let queries = path.with_extension("tsfile.queries.json");
        let Ok(json) = std::fs::read_to_string(&queries) else {
            continue;
        };
        let seen = verify_queries(&path, &json).unwrap_or_else(|e| panic!("{e}"));
        total.queries += seen.queries;
        total.rows += seen.rows;
        total.official_wrong += seen.official_wrong;
        total.groups_pruned += seen.groups_pruned;
        total.pages_offset_skipped += seen.pages_offset_skipped;
        files += 1;
    }
    assert!(files >= 7, "scan fixtures with queries: {files}");
    assert!(total.queries >= 100 && total.rows > 2_000, "{total:?}");
    // The queries reach the scan's shortcuts, and the answers the
    // official reader got wrong are among them (the corrected answers are
    // what the scans are held to).
    assert!(total.groups_pruned > 0 && total.pages_offset_skipped > 0, "{total:?}");
    assert!(total.official_wrong > 0, "{total:?}");
}
