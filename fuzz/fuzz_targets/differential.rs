//! The one differential fuzz target: `CROSSDEC_FUZZ_TARGET` names which of
//! `crossdec fuzz-targets` it is (family and mode); see
//! crossdec_harness::fuzzing. `ci/fuzz` sets it for each campaign.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| crossdec_harness::fuzzing::fuzz(data));
