//! Hold every `*.tsfile` in the given directories to the JSON
//! `ci/tsfile/generate.py` wrote beside it, reading with the reference
//! decoders and with the kernels where they exist.
//!
//!     cargo run -p crossdec-tsfile --features verify --example verify -- DIR...

use crossdec_tsfile::verify::{verify_file, Verified};
use crossdec_tsfile::{Fastest, Reference};

fn main() {
    let mut total = Verified::default();
    let mut failed = 0;
    for dir in std::env::args().skip(1) {
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{dir}: {e}"))
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "tsfile"))
            .collect();
        files.sort();
        for path in files {
            let json = std::fs::read_to_string(path.with_extension("tsfile.json")).expect("JSON beside the file");
            let both = verify_file(&path, &json, Reference::default).and_then(|r| {
                let f = verify_file(&path, &json, Fastest::default)?;
                if f != r {
                    return Err(format!("reference and kernels covered different things: {r:?} / {f:?}"));
                }
                Ok(r)
            });
            match both {
                Ok(v) => total.add(&v),
                Err(e) => {
                    failed += 1;
                    println!("{}: {e}", path.display());
                }
            }
        }
    }
    println!("{total:?}");
    if failed > 0 {
        println!("{failed} files failed");
        std::process::exit(1);
    }
}
