//! Benchmarks of the crossdec kernels, in `benches/`: `targets` times every
//! speed target with each kernel interleaved with its reference and real
//! peers; `families` times every registered family's implementations through
//! the campaign's adapters; `qwp`, `bytea`, `tsfile` and `cube` time the
//! kernels' own APIs on realistic inputs. This library holds what the
//! benchmarks share: [`tsfile_pages`], a page per TsFile encoding and type
//! and a timed call of each of its kernels; [`cube_data`], the Cube result;
//! [`aligned_data`], the aligned group of the seed's scan.

pub mod aligned_data;
pub mod cube_data;
pub mod tsfile_pages;
