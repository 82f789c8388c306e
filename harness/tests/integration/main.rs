//! The harness's integration tests as one test binary: every family against
//! its kernels, each family's properties and known answers, the engine
//! catching planted bugs, the external subjects and the TsFile reader.
//!
//! One binary, not one per file: each test binary links the whole harness
//! (every family, Arrow, the decompressors), and on a cross target that is
//! minutes of the gate. The tests some tools select by name (the server and
//! official-library oracles, the fuzz regressions, the golden digests, the
//! command's own tests and the speed printer) stay binaries of their own
//! next to this directory.

mod adapter_contract;
mod bytea_family;
mod c_subject;
mod cube_campaign;
mod cube_spec;
mod differential;
mod engine_catches;
mod pgjdbc_subject;
mod qwp;
mod subject_protocol;
mod tsfile_aligned;
mod tsfile_props;
mod tsfile_reader;
mod tsfile_regular;
