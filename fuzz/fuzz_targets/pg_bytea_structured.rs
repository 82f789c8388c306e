//! Differential fuzz target `pg_bytea_structured`: see crossdec_harness::fuzzing::TARGETS.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| crossdec_harness::fuzzing::fuzz("pg_bytea_structured", data));
