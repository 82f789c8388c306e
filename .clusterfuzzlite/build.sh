#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build, run by base-builder-rust's `compile` with
# SRC, OUT, WORK and SANITIZER set; ci/cflite runs it the same way without
# docker.
#
# One libFuzzer binary, `differential`, serves every target (`crossdec
# fuzz-targets`), while ClusterFuzzLite runs each executable in $OUT as a
# fuzzer of its own with no environment of ours. So the binary is built once
# and installed once per target as $OUT/<target>: without
# CROSSDEC_FUZZ_TARGET it fuzzes the target named by its own file name
# (fuzz/fuzz_targets/differential.rs). Beside each: the target's committed
# corpus as <target>_seed_corpus.zip, its family's dictionary as
# <target>.dict, and <target>.options with ci/fuzz's libFuzzer limits.
cd "$SRC/crossdec"
# A symlinked checkout (ci/cflite) is built at its real path: the paths
# cargo fingerprints are then ci/fuzz's, and each reuses the other's build
# in fuzz/target.
cd "$(pwd -P)"

# cargo fuzz's default sanitizer is address, the one OSS-Fuzz supports for
# Rust; SANITIZER=none is ci/fuzz's build. A coverage build is turned into a
# plain `cargo build` by the builder's cargo wrapper, which puts the binary
# in the same place.
sanitizer=()
if [ "${SANITIZER:-address}" = none ]; then
  sanitizer=(--sanitizer none)
fi
# -O with --debug-assertions: what cargo fuzz builds without -O, and so
# ci/fuzz's flags exactly (debug assertions and overflow checks on, as
# OSS-Fuzz's own Rust flags have them).
cargo fuzz build -O --debug-assertions "${sanitizer[@]}" --codegen-units "${CROSSDEC_FUZZ_CODEGEN_UNITS:-1}" \
  --fuzz-dir fuzz differential
bin="fuzz/target/$(rustc -vV | sed -n 's/^host: //p')/release/differential"

# The binary names its own targets, so no second build (of the crossdec
# binary) is needed to list them. In a coverage build it would leave a
# profile behind.
mapfile -t targets < <(CROSSDEC_FUZZ_TARGET=list LLVM_PROFILE_FILE=/dev/null "$bin")
if [ ${#targets[@]} -eq 0 ]; then
  echo "build.sh: $bin lists no fuzz targets" >&2
  exit 1
fi
first=""
for line in "${targets[@]}"; do
  read -r target family <<<"$line"
  rm -f "$OUT/$target" "$OUT/${target}_seed_corpus.zip" "$OUT/$target.dict"
  # One copy of the binary; the other names are hard links to it, since
  # thirty copies of an instrumented binary with debug info are gigabytes.
  if [ -z "$first" ]; then
    cp "$bin" "$OUT/$target"
    first="$OUT/$target"
  else
    ln "$first" "$OUT/$target" 2>/dev/null || cp "$bin" "$OUT/$target"
  fi
  corpus="fuzz/corpus/$target"
  if [ -d "$corpus" ] && [ -n "$(ls -A "$corpus")" ]; then
    (cd "$corpus" && zip -q -r "$OUT/${target}_seed_corpus.zip" .)
  fi
  if [ -f "fuzz/dicts/$family.dict" ]; then
    cp "fuzz/dicts/$family.dict" "$OUT/$target.dict"
  fi
  printf '[libfuzzer]\nmax_len = 4096\ntimeout = 10\nrss_limit_mb = 4096\n' >"$OUT/$target.options"
done
echo "build.sh: ${#targets[@]} fuzzers in $OUT"
