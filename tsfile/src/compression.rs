//! Page decompression for every compression the official writers offer,
//! through pure-Rust crates so every target builds them: SNAPPY (`snap`),
//! GZIP (`flate2` on `miniz_oxide`), LZO (`lzo`, LZO1X blocks as the C++
//! writer's lzokay and Java's aircompressor write them), LZ4 blocks
//! (`lz4_flex`), ZSTD frames (`ruzstd`) and LZMA2 in an XZ container
//! (`lzma-rs`; what Java's `XZOutputStream` and the C++ writer write).
//!
//! The page header's uncompressed size is untrusted: it is checked against
//! [`Limits::max_page_bytes`] first, output only grows as the compressed
//! stream produces it (or, for formats whose decoder needs the size up
//! front, only after the size is shown possible for that many input bytes),
//! and the result must be exactly that size.

use std::io::{Read, Write};

use crate::error::ReadError;
use crate::limits::Limits;
use crate::types::Compression;

/// Decompress one page body of `size` bytes (its header's number), whose
/// header starts at file offset `offset`.
pub fn decompress(
    compression: Compression,
    body: &[u8],
    size: u64,
    offset: u64,
    limits: &Limits,
) -> Result<Vec<u8>, ReadError> {
    limits.check("max_page_bytes", size, offset)?;
    let fail = |message: String| ReadError::Decompress {
        compression,
        offset,
        message,
    };
    // Fits: checked against a limit that is at most u64, and a page that
    // big could not be held anyway.
    let size = usize::try_from(size).map_err(|_| fail(format!("{size} bytes do not fit in memory")))?;
    let impossible = |ratio: usize| {
        if size > body.len().saturating_mul(ratio).saturating_add(64) {
            Err(fail(format!(
                "{size} bytes cannot come from {} compressed bytes",
                body.len()
            )))
        } else {
            Ok(())
        }
    };
    let out = match compression {
        Compression::Uncompressed => body.to_vec(),
        Compression::Snappy => {
            // A Snappy op of 3 bytes yields at most 64 (a 2-byte-offset copy).
            impossible(22)?;
            let stated = snap::raw::decompress_len(body).map_err(|e| fail(e.to_string()))?;
            if stated != size {
                return Err(fail(format!("Snappy stream says {stated} bytes, page header {size}")));
            }
            snap::raw::Decoder::new()
                .decompress_vec(body)
                .map_err(|e| fail(e.to_string()))?
        }
        Compression::Lz4 => {
            // An LZ4 sequence's length bytes add at most 255 each.
            impossible(255)?;
            lz4_flex::block::decompress(body, size).map_err(|e| fail(e.to_string()))?
        }
        Compression::Lzo => {
            // The crate allocates the whole size up front. An LZO1X length
            // extension byte (a zero) adds 255, as LZ4's do.
            impossible(255)?;
            lzo::decompress(body, size).map_err(|e| fail(format!("{e:?}")))?
        }
        Compression::Gzip => read_bounded(flate2::read::GzDecoder::new(body), size).map_err(|e| fail(e.to_string()))?,
        Compression::Zstd => {
            let decoder = ruzstd::decoding::StreamingDecoder::new(body).map_err(|e| fail(e.to_string()))?;
            read_bounded(decoder, size).map_err(|e| fail(e.to_string()))?
        }
        Compression::Lzma2 => {
            let mut out = Bounded {
                out: Vec::new(),
                max: size,
            };
            lzma_rs::xz_decompress(&mut std::io::BufReader::new(body), &mut out).map_err(|e| fail(e.to_string()))?;
            out.out
        }
        Compression::Sdt | Compression::Paa | Compression::Pla => {
            return Err(ReadError::Unsupported {
                what: "compression (a lossy one the writers do not implement)",
                value: compression.id(),
                offset,
            })
        }
    };
    if out.len() != size {
        return Err(fail(format!("{} bytes, page header says {size}", out.len())));
    }
    Ok(out)
}

/// Read at most `max + 1` bytes (one more shows the stream is too long).
fn read_bounded(reader: impl Read, max: usize) -> std::io::Result<Vec<u8>> {
    let mut out = Vec::new();
    reader.take(max as u64 + 1).read_to_end(&mut out)?;
    Ok(out)
}

/// A sink that refuses to grow past `max + 1` bytes.
struct Bounded {
    out: Vec<u8>,
    max: usize,
}

impl Write for Bounded {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.out.len() + buf.len() > self.max + 1 {
            return Err(std::io::Error::other(format!(
                "more than the page's {} bytes",
                self.max
            )));
        }
        self.out.extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DATA: &[u8] = b"TsFile pages compress: 00000000000000000000000000000000000000000 the end";

    fn round_trip(compression: Compression, compressed: &[u8]) {
        let got = decompress(compression, compressed, DATA.len() as u64, 40, &Limits::default()).unwrap();
        assert_eq!(got, DATA, "{compression}");
        for wrong in [DATA.len() - 1, DATA.len() + 1] {
            let e = decompress(compression, compressed, wrong as u64, 40, &Limits::default()).unwrap_err();
            assert!(
                matches!(e, ReadError::Decompress { offset: 40, .. }),
                "{compression} with size {wrong}: {e:?}"
            );
        }
    }

    #[test]
    fn every_compression_round_trips_and_holds_its_size() {
        round_trip(Compression::Uncompressed, DATA);
        round_trip(
            Compression::Snappy,
            &snap::raw::Encoder::new().compress_vec(DATA).unwrap(),
        );
        round_trip(Compression::Lz4, &lz4_flex::block::compress(DATA));
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(DATA).unwrap();
        round_trip(Compression::Gzip, &gz.finish().unwrap());
        let mut xz = Vec::new();
        lzma_rs::xz_compress(&mut std::io::Cursor::new(DATA), &mut xz).unwrap();
        round_trip(Compression::Lzma2, &xz);
        round_trip(Compression::Zstd, &ZSTD_FRAME);
        // One literal run (first byte 17 + n), then the end marker (17 0 0).
        let mut lzo = vec![17 + DATA.len() as u8];
        lzo.extend_from_slice(DATA);
        lzo.extend_from_slice(&[17, 0, 0]);
        round_trip(Compression::Lzo, &lzo);
    }

    /// `DATA` as one raw-block zstd frame (magic, frame header with the
    /// content size, one last raw block).
    const ZSTD_FRAME: [u8; 6 + 3 + 72] = {
        let mut f = [0u8; 81];
        let head = [0x28, 0xB5, 0x2F, 0xFD, 0x20, 72];
        let mut i = 0;
        while i < 6 {
            f[i] = head[i];
            i += 1;
        }
        // Block header: last = 1, type raw = 0, size 72: (72 << 3) | 1.
        let bh = (72u32 << 3) | 1;
        f[6] = bh as u8;
        f[7] = (bh >> 8) as u8;
        f[8] = (bh >> 16) as u8;
        let mut j = 0;
        while j < 72 {
            f[9 + j] = DATA[j];
            j += 1;
        }
        f
    };

    #[test]
    fn sizes_above_the_limit_or_impossible_are_refused_before_any_work() {
        let small = Limits {
            max_page_bytes: 10,
            ..Limits::default()
        };
        assert_eq!(
            decompress(Compression::Uncompressed, DATA, DATA.len() as u64, 3, &small),
            Err(ReadError::LimitExceeded {
                limit: "max_page_bytes",
                value: DATA.len() as u64,
                max: 10,
                offset: 3
            })
        );
        // 4 bytes of LZ4 cannot make a gigabyte.
        let e = decompress(Compression::Lz4, &[0, 1, 2, 3], 1 << 30, 0, &Limits::default()).unwrap_err();
        assert!(matches!(e, ReadError::Decompress { .. }), "{e:?}");
        let e = decompress(
            Compression::Snappy,
            &[0x80, 0x80, 0x80, 0x80, 0x04],
            1 << 30,
            0,
            &Limits::default(),
        )
        .unwrap_err();
        assert!(matches!(e, ReadError::Decompress { .. }), "{e:?}");
        let e = decompress(Compression::Paa, DATA, 5, 9, &Limits::default()).unwrap_err();
        assert!(
            matches!(
                e,
                ReadError::Unsupported {
                    value: 5,
                    offset: 9,
                    ..
                }
            ),
            "{e:?}"
        );
    }

    #[test]
    fn a_stream_longer_than_its_header_says_stops_one_byte_past_it() {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(&vec![0u8; 1 << 20]).unwrap();
        let gz = gz.finish().unwrap();
        let e = decompress(Compression::Gzip, &gz, 100, 0, &Limits::default()).unwrap_err();
        assert_eq!(
            e,
            ReadError::Decompress {
                compression: Compression::Gzip,
                offset: 0,
                message: "101 bytes, page header says 100".into()
            }
        );
    }
}
