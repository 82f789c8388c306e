//! TsFiles written by the official Apache TsFile library (PyPI `tsfile`
//! 2.5.x), walked page by page and decoded by the reference and by every
//! kernel; the values must be the ones the generator wrote.
//!
//! `committed_fixtures` runs everywhere (s390x and aarch64 under QEMU too).
//! `fresh_random_batch` runs the generator (`ci/tsfile/generate.py`) in the
//! virtual environment `ci/install.d/tsfile.sh` creates, on x86_64: a new
//! random batch every run. A missing environment fails the test unless a
//! skip was asked for by name (`CROSSDEC_SKIP_ORACLES=tsfile_oracle`).

use std::path::{Path, PathBuf};

use crossdec_harness::families::tsfile::{self, walker, Encoding, TsFault, TsInput, TsValue};

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tsfile")
}

type PageDecoder = Box<dyn Fn(&TsInput) -> Result<TsValue, TsFault>>;

/// Every decoder the walk runs with: the reference, then each available kernel.
fn decoders() -> Vec<(String, PageDecoder)> {
    let mut list: Vec<(String, PageDecoder)> = vec![("reference".into(), Box::new(tsfile::reference_decode))];
    // Kernel k of every encoding's registry (the last one for shorter registries).
    let most = Encoding::ALL
        .iter()
        .map(|e| tsfile::kernel_names(*e).len())
        .max()
        .unwrap();
    for k in 0..most {
        let pick = move |e: Encoding| {
            let names = tsfile::kernel_names(e);
            let avail: Vec<_> = names.into_iter().filter(|(_, a)| *a).collect();
            avail[k.min(avail.len() - 1)].0
        };
        let label = Encoding::ALL.iter().map(|e| pick(*e)).collect::<Vec<_>>().join("+");
        list.push((
            label,
            Box::new(move |input: &TsInput| tsfile::decode_with(input.encoding, pick(input.encoding), input)),
        ));
    }
    list
}

fn check_dir(dir: &Path) -> (usize, walker::Verified) {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "tsfile"))
        .collect();
    files.sort();
    let mut total = walker::Verified::default();
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let json = std::fs::read_to_string(path.with_extension("tsfile.json"))
            .unwrap_or_else(|e| panic!("{}: no JSON beside it: {e}", path.display()));
        for (name, decode) in decoders() {
            match walker::verify(&bytes, &json, decode.as_ref()) {
                Ok(v) => {
                    if name == "reference" {
                        total.series += v.series;
                        total.pages += v.pages;
                        total.points += v.points;
                    }
                }
                Err(e) => panic!("{} with {name}: {e}", path.display()),
            }
        }
    }
    (files.len(), total)
}

#[test]
fn committed_fixtures() {
    let (files, total) = check_dir(&fixtures_dir());
    eprintln!(
        "tsfile fixtures: {files} files, {} series, {} pages, {} points",
        total.series, total.pages, total.points
    );
    assert!(
        files >= 4,
        "expected the committed fixtures in {}",
        fixtures_dir().display()
    );
    assert!(total.pages > files, "fixtures must hold multi-page chunks");
}

/// The generator's Python: `CROSSDEC_TSFILE_PYTHON`, else the venvs the
/// install script creates.
#[cfg(target_arch = "x86_64")]
fn python() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CROSSDEC_TSFILE_PYTHON") {
        return Some(PathBuf::from(p));
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    [
        root.join("target/tsfile-venv/bin/python"),
        PathBuf::from("/opt/crossdec-venv/bin/python"),
    ]
    .into_iter()
    .find(|p| p.exists())
}

#[cfg(target_arch = "x86_64")]
#[test]
fn fresh_random_batch() {
    let Some(python) = python() else {
        crossdec_harness::oracles::missing(
            "tsfile_oracle",
            "the tsfile Python environment is missing: run ci/install.d/tsfile.sh (or set \
             CROSSDEC_TSFILE_PYTHON to a python with the `tsfile` package)",
        );
        return;
    };
    let seed: u64 = std::env::var("CROSSDEC_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_secs()
        });
    let dir = std::env::temp_dir().join(format!("crossdec-tsfile-{}-{seed}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ci/tsfile/generate.py");
    let status = std::process::Command::new(&python)
        .arg(&script)
        .args([
            "--out",
            dir.to_str().unwrap(),
            "--seed",
            &seed.to_string(),
            "--files",
            "10",
        ])
        .status()
        .unwrap_or_else(|e| panic!("running {}: {e}", python.display()));
    assert!(status.success(), "the generator failed (seed {seed})");
    let (files, total) = check_dir(&dir);
    eprintln!(
        "tsfile fresh batch (seed {seed}): {files} files, {} series, {} pages, {} points",
        total.series, total.pages, total.points
    );
    assert_eq!(files, 10);
    std::fs::remove_dir_all(&dir).ok();
}

/// Truncated and corrupted files: every truncation is rejected (a TsFile
/// ends with its metadata and magic), and on every damaged file each kernel
/// walks to exactly the reference's result (the same series and values, or
/// the same error): never a panic, never a kernel that disagrees.
#[test]
fn damaged_files_walk_the_same_with_every_decoder() {
    let mut files: Vec<_> = std::fs::read_dir(fixtures_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "tsfile"))
        .collect();
    files.sort();
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let decoders = decoders();
    let (reference, kernels) = decoders.split_first().expect("the reference comes first");
    let (mut truncations, mut flipped, mut decoded) = (0, 0, 0);
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
            let expected = walker::walk(v, reference.1.as_ref());
            if v.len() < bytes.len() {
                assert!(
                    expected.is_err(),
                    "{} {what}: a truncated file was accepted",
                    file.display()
                );
                truncations += 1;
            } else {
                flipped += 1;
                decoded += usize::from(expected.is_ok());
            }
            for (name, decode) in kernels {
                assert_eq!(
                    walker::walk(v, decode.as_ref()),
                    expected,
                    "{} {what}: {name} and the reference differ",
                    file.display()
                );
            }
        }
    }
    eprintln!("damaged tsfiles: {truncations} truncations rejected, {flipped} flipped ({decoded} still decode), every kernel agreeing");
    assert!(
        truncations >= 100 * files.len() / 2 && flipped == 60 * files.len(),
        "{truncations} {flipped}"
    );
}
