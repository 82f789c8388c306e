//! Differential fuzz target `cube_columnar_structured`: see crossdec_harness::fuzzing::TARGETS.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| crossdec_harness::fuzzing::fuzz("cube_columnar_structured", data));
