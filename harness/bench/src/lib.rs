//! Benchmarks of the crossdec kernels, in `benches/`: `targets` times every
//! speed target with each kernel interleaved with its reference and real
//! peers; `families` times every registered family's implementations through
//! the campaign's adapters; `qwp`, `bytea`, `tsfile` and `cube` time the
//! kernels' own APIs on realistic inputs. This library is empty.
