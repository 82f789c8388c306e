//! Differential fuzz target `qwp_ts_raw`: see crossdec_harness::fuzzing::TARGETS.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| crossdec_harness::fuzzing::fuzz("qwp_ts_raw", data));
