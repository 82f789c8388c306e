//! The one differential fuzz target: `CROSSDEC_FUZZ_TARGET` names which of
//! `crossdec fuzz-targets` it is (family and mode); see
//! crossdec_harness::fuzzing. `ci/fuzz` sets it for each campaign.
//!
//! Without that variable the binary's own file name is the target's name:
//! ClusterFuzzLite and OSS-Fuzz run every executable in `$OUT` as a fuzzer
//! of its own, with no environment of ours, so `.clusterfuzzlite/build.sh`
//! installs this binary once per target as `$OUT/<target>`. It asks the
//! binary itself which targets it serves (`CROSSDEC_FUZZ_TARGET=list`: one
//! `<target> <family>` a line), so that it needs no second build of the
//! harness for `crossdec fuzz-targets`.
#![no_main]

use crossdec_harness::fuzzing;
use std::path::Path;

/// The target's name when `CROSSDEC_FUZZ_TARGET` is unset: the file name the
/// process was started as (libFuzzer starts its `-fork`, `-jobs` and
/// `-merge` children under that name too, so they agree).
fn name_from_argv0() -> String {
    let argv0 = std::env::args_os().next().unwrap_or_default();
    let name = Path::new(&argv0)
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    if fuzzing::target(&name).is_none() {
        eprintln!(
            "differential: set CROSSDEC_FUZZ_TARGET, or run this binary under a target's name \
             (CROSSDEC_FUZZ_TARGET=list prints them); {name:?} is not one"
        );
        std::process::exit(2);
    }
    name
}

fn init() {
    match std::env::var_os("CROSSDEC_FUZZ_TARGET") {
        Some(name) if name == "list" => {
            for t in fuzzing::targets() {
                println!("{} {}", t.name, t.family);
            }
            std::process::exit(0);
        }
        Some(_) => {}
        // LLVMFuzzerInitialize runs before libFuzzer starts any thread, so
        // setting the variable here races with nothing.
        None => std::env::set_var("CROSSDEC_FUZZ_TARGET", name_from_argv0()),
    }
    // Which target ran, in the log: ci/cflite checks that each copy in
    // $OUT fuzzed the target it is named after.
    if let Some(name) = std::env::var_os("CROSSDEC_FUZZ_TARGET") {
        eprintln!("crossdec fuzz target: {}", name.to_string_lossy());
    }
}

libfuzzer_sys::fuzz_target!(init: init(), |data: &[u8]| fuzzing::fuzz(data));
