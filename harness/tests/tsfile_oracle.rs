//! TsFiles written by the official Apache TsFile library (PyPI `tsfile`
//! 2.5.x), read by the streaming reader (`crossdec-tsfile`) with the
//! reference and with the kernels, every page also decoded by every
//! registry kernel and compared with the reference (`crossdec tsfile`);
//! the values must be the ones the generator wrote. These are the four
//! encodings the kernels cover; `tsfile_reader.rs` covers every encoding
//! and compression the writer accepts, fresh each run.
//!
//! `committed_fixtures` runs everywhere (s390x and aarch64 under QEMU too).

use std::path::{Path, PathBuf};

use crossdec_harness::cli::tsfile::{check_bytes, check_files, Options};
use crossdec_tsfile::verify::{verify_file, Verified};
use crossdec_tsfile::{Fastest, Reference};

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tsfile")
}

fn fixtures() -> Vec<PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(fixtures_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "tsfile"))
        .collect();
    files.sort();
    files
}

fn repro_dir() -> PathBuf {
    std::env::temp_dir().join(format!("crossdec-oracle-repro-{}", std::process::id()))
}

#[test]
fn committed_fixtures() {
    let files = fixtures();
    assert!(
        files.len() >= 4,
        "expected the committed fixtures in {}",
        fixtures_dir().display()
    );
    let mut total = Verified::default();
    for path in &files {
        let json = std::fs::read_to_string(path.with_extension("tsfile.json"))
            .unwrap_or_else(|e| panic!("{}: no JSON beside it: {e}", path.display()));
        let reference =
            verify_file(path, &json, Reference::default).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let kernels = verify_file(path, &json, Fastest::default).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(reference, kernels, "{}", path.display());
        total.add(&reference);
    }
    eprintln!(
        "tsfile fixtures: {} files, {} series, {} pages, {} points",
        files.len(),
        total.series,
        total.pages,
        total.points
    );
    assert!(total.pages > files.len(), "fixtures must hold multi-page chunks");
    // Every way a header says whether statistics follow, read and held to
    // the official reader (`generate.py --statistics-fixtures`).
    for layout in crossdec_tsfile::verify::STATISTICS_LAYOUTS {
        assert!(
            total.statistics.contains(*layout),
            "no {layout} in the fixtures: {:?}",
            total.statistics
        );
    }
    // Every page through every registry kernel.
    let report = check_files(&files, &Options::new(repro_dir())).unwrap();
    assert!(
        report.ok(),
        "{}\n{:?}\n{:?}",
        report.summary(),
        report.disagreements,
        report.unreadable
    );
}

/// Truncated and corrupted files: every truncation is reported (a TsFile
/// ends with its metadata and magic), and on every damaged file each
/// kernel decodes every page the reader can still reach exactly as the
/// reference does (the same values, or the same error): never a panic,
/// never a kernel that disagrees.
#[test]
fn damaged_files_decode_the_same_with_every_kernel() {
    let files = fixtures();
    let options = Options::new(repro_dir());
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let (mut truncations, mut flipped, mut readable, mut pages) = (0, 0, 0, 0u64);
    for file in &files {
        let bytes = std::fs::read(file).unwrap();
        let mut damaged: Vec<(String, Vec<u8>)> = Vec::new();
        for cut in (0..bytes.len()).step_by((bytes.len() / 100).max(1)) {
            damaged.push((format!("cut at {cut}"), bytes[..cut].to_vec()));
        }
        for k in 0..60 {
            let mut v = bytes.clone();
            for _ in 0..3 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let at = (seed % v.len() as u64) as usize;
                v[at] ^= 1 << (seed >> 61);
            }
            damaged.push((format!("flips #{k}"), v));
        }
        for (what, v) in &damaged {
            let report = check_bytes(&format!("{} {what}", file.display()), v, &options);
            assert!(
                report.disagreements.is_empty(),
                "{} {what}: {:?}",
                file.display(),
                report.disagreements
            );
            pages += report.tallies.values().map(|t| t.pages).sum::<u64>();
            if v.len() < bytes.len() {
                assert!(
                    !report.ok(),
                    "{} {what}: a truncated file read as whole",
                    file.display()
                );
                truncations += 1;
            } else {
                flipped += 1;
                readable += usize::from(report.ok());
            }
        }
    }
    eprintln!(
        "damaged tsfiles: {truncations} truncations reported, {flipped} flipped ({readable} still read whole), \
         {pages} pages compared, every kernel agreeing"
    );
    assert!(
        truncations >= 100 * files.len() / 2 && flipped == 60 * files.len() && pages > 10_000,
        "{truncations} {flipped} {pages}"
    );
    let _ = std::fs::remove_dir_all(repro_dir());
}
