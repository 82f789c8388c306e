//! Differential fuzz target `tsfile_plain_structured`: see crossdec_harness::fuzzing::TARGETS.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| crossdec_harness::fuzzing::fuzz("tsfile_plain_structured", data));
