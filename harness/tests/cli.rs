//! The command line's behaviour, pinned by snapshot tests (trycmd, as cargo
//! and clap test their own): every subcommand's help, commands that
//! succeed, and each kind of bad input. The cases are the markdown files in
//! `tests/cli/` and the CLI reference, `docs/reference/cli.md` (every
//! subcommand's help: the reference page is the snapshot, so it cannot
//! drift); `TRYCMD=overwrite cargo test -p crossdec-harness --test cli`
//! rewrites their expected output after an intended change (review the diff
//! like any snapshot).
//!
//! Native x86_64 only: the snapshots name x86_64's implementations.
#![cfg(all(target_arch = "x86_64", unix))]

#[test]
fn cli_snapshots() {
    trycmd::TestCases::new()
        .register_bin("crossdec", std::path::Path::new(env!("CARGO_BIN_EXE_crossdec")))
        // ci/test exports its own counts and seed: the snapshots' are fixed.
        .env("CROSSDEC_CASES", "200")
        .env("CROSSDEC_SEED", "1")
        .case("tests/cli/*.md")
        .case("../docs/reference/cli.md");
}
