//! The reader on damaged and unusual files: typed errors with positions,
//! never a panic; a chunk it cannot decode is skipped and reported while
//! the rest of the file is still read; limits name themselves; the index
//! and the chunk stream agree.

use std::io::Cursor;
use std::path::{Path, PathBuf};

use crossdec_tsfile::{Fastest, Item, Limits, ReadError, ReadOptions, Reference, TsFileReader};

fn fixture(name: &str) -> Vec<u8> {
    let path: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn all_fixtures() -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "tsfile"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

/// Read everything; the items and the error that ended the read, if any.
fn read_all(bytes: &[u8], options: ReadOptions) -> (Vec<Item>, Option<ReadError>) {
    let mut reader = match TsFileReader::new(Cursor::new(bytes), options) {
        Ok(r) => r,
        Err(e) => return (Vec::new(), Some(e)),
    };
    let mut items = Vec::new();
    for item in reader.columns(Fastest::default()) {
        match item {
            Ok(i) => items.push(i),
            Err(e) => return (items, Some(e)),
        }
    }
    (items, None)
}

/// Items equal, floats by their bits (NaN is not equal to itself).
fn same(a: &[Item], b: &[Item]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| match (x, y) {
            (Item::Column(x), Item::Column(y)) => {
                x.values.same_bits(&y.values)
                    && (&x.device, &x.measurement, &x.times, &x.validity, x.pages)
                        == (&y.device, &y.measurement, &y.times, &y.validity, y.pages)
            }
            _ => x == y,
        })
}

fn columns(items: &[Item]) -> usize {
    items.iter().filter(|i| matches!(i, Item::Column(_))).count()
}

#[test]
fn every_fixture_reads_whole_with_an_index_that_agrees() {
    for (name, bytes) in all_fixtures() {
        let (items, err) = read_all(&bytes, ReadOptions::default());
        assert_eq!(err, None, "{name}");
        assert!(items.iter().all(|i| matches!(i, Item::Column(_))), "{name}: {items:?}");
        let mut reader = TsFileReader::new(Cursor::new(&bytes), ReadOptions::default()).unwrap();
        let meta = reader.metadata().unwrap().clone();
        let mut streamed = Vec::new();
        while let Some(c) = reader.next_chunk().unwrap() {
            streamed.push(c);
        }
        let mut indexed = 0;
        for (device, series) in &meta.devices {
            for s in series {
                for &offset in &s.chunk_offsets {
                    let c = reader.chunk_at(offset, device.clone()).unwrap();
                    assert_eq!(c.header.measurement, s.measurement, "{name} at {offset}");
                    assert_eq!(c.header.data_type_id, s.data_type_id, "{name} at {offset}");
                    assert!(
                        streamed.contains(&c),
                        "{name}: the index's chunk at {offset} is not in the stream"
                    );
                    indexed += 1;
                }
            }
        }
        assert_eq!(indexed, streamed.len(), "{name}: every streamed chunk is in the index");
    }
}

#[test]
fn every_series_read_through_the_index_equals_the_scan() {
    for (name, bytes) in all_fixtures() {
        let (scanned, err) = read_all(&bytes, ReadOptions::default());
        assert_eq!(err, None, "{name}");
        let mut reader = TsFileReader::new(Cursor::new(&bytes), ReadOptions::default()).unwrap();
        let meta = reader.metadata().unwrap().clone();
        let mut series_read = 0;
        for (device, series) in &meta.devices {
            for s in series.iter().filter(|s| !s.is_aligned_time()) {
                let direct: Vec<Item> = reader
                    .read_series(device, &s.measurement, Fastest::default())
                    .unwrap_or_else(|e| panic!("{name} {device}.{}: {e}", s.measurement))
                    .into_iter()
                    .map(Item::Column)
                    .collect();
                let from_scan: Vec<Item> = scanned
                    .iter()
                    .filter(|i| matches!(i, Item::Column(c) if &c.device == device && c.measurement == s.measurement))
                    .cloned()
                    .collect();
                assert!(!direct.is_empty(), "{name} {device}.{}", s.measurement);
                assert!(same(&direct, &from_scan), "{name} {device}.{}", s.measurement);
                series_read += 1;
            }
        }
        // A series may have a chunk in each of several chunk groups.
        let scanned_series: std::collections::BTreeSet<(String, String)> = scanned
            .iter()
            .filter_map(|i| match i {
                Item::Column(c) => Some((c.device.to_string(), c.measurement.clone())),
                Item::Skipped(_) => None,
            })
            .collect();
        assert_eq!(
            series_read,
            scanned_series.len(),
            "{name}: every scanned chunk's series is in the index"
        );
        let missing = reader.read_series(&meta.devices[0].0, "no such series", Reference::default());
        assert!(matches!(missing, Err(ReadError::Malformed { .. })), "{missing:?}");
    }
}

#[test]
fn truncations_and_bit_flips_give_typed_errors_never_panics() {
    let mut errors = 0;
    let mut partial = 0;
    for (name, bytes) in all_fixtures() {
        let step = (bytes.len() / 97).max(1);
        for cut in (0..bytes.len()).step_by(step) {
            let (items, err) = read_all(&bytes[..cut], ReadOptions::default());
            // A cut file has lost its tail: never read as whole.
            let err = err.unwrap_or_else(|| panic!("{name} cut at {cut} read without an error"));
            errors += 1;
            partial += usize::from(!items.is_empty());
            let _ = err.to_string();
        }
        let mut state = 0x9E37_79B9_7F4A_7C15u64 ^ bytes.len() as u64;
        for _ in 0..60 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let mut damaged = bytes.clone();
            let at = (state % damaged.len() as u64) as usize;
            damaged[at] ^= 1 << (state >> 61);
            for decoder in 0..2 {
                let reader = TsFileReader::new(Cursor::new(&damaged), ReadOptions::default());
                let Ok(mut reader) = reader else { continue };
                if decoder == 0 {
                    reader.columns(Reference::default()).for_each(drop);
                } else {
                    reader.columns(Fastest::default()).for_each(drop);
                }
            }
        }
    }
    assert!(errors > 100 && partial > 10, "{errors} errors, {partial} partial reads");
}

#[test]
fn an_unknown_encoding_skips_its_chunk_and_the_rest_is_read() {
    let bytes = fixture("matrix-uncompressed.tsfile");
    let (whole, _) = read_all(&bytes, ReadOptions::default());
    let mut reader = TsFileReader::new(Cursor::new(&bytes), ReadOptions::default()).unwrap();
    let first = reader.next_chunk().unwrap().unwrap();
    let second = reader.next_chunk().unwrap().unwrap();
    let mut damaged = bytes.clone();
    // The encoding byte ends the chunk header, just before the data.
    damaged[second.data_offset as usize - 1] = 0x63;
    let (items, err) = read_all(&damaged, ReadOptions::default());
    assert_eq!(err, None);
    assert_eq!(items.len(), whole.len());
    assert_eq!(columns(&items), whole.len() - 1);
    let skipped: Vec<_> = items
        .iter()
        .filter_map(|i| match i {
            Item::Skipped(s) => Some(s),
            _ => None,
        })
        .collect();
    assert_eq!(skipped.len(), 1);
    assert_eq!(skipped[0].measurement, second.header.measurement);
    assert_eq!(skipped[0].offset, second.header.offset);
    assert_eq!(
        skipped[0].reason,
        ReadError::Unsupported {
            what: "encoding",
            value: 0x63,
            offset: second.header.offset
        }
    );
    assert!(
        same(&items[..1], &whole[..1]),
        "the chunk before ({}) is untouched",
        first.header.measurement
    );
    assert!(same(&items[2..], &whole[2..]), "the chunks after are untouched");
}

#[test]
fn a_page_above_a_limit_names_the_limit_and_is_skipped() {
    let bytes = fixture("matrix-uncompressed.tsfile");
    let options = ReadOptions {
        limits: Limits {
            max_page_values: 5,
            ..Limits::default()
        },
        ..ReadOptions::default()
    };
    let (items, err) = read_all(&bytes, options);
    assert_eq!(err, None);
    let Some(Item::Skipped(s)) = items.first() else {
        panic!("{:?}", items.first())
    };
    assert!(
        matches!(
            s.reason,
            ReadError::LimitExceeded {
                limit: "max_page_values",
                max: 5,
                ..
            }
        ),
        "{:?}",
        s.reason
    );
    assert!(
        s.reason.to_string().contains("raise Limits::max_page_values"),
        "{}",
        s.reason
    );
    let options = ReadOptions {
        limits: Limits {
            max_page_bytes: 16,
            ..Limits::default()
        },
        ..ReadOptions::default()
    };
    let (items, _) = read_all(&bytes, options);
    assert!(items.iter().all(|i| matches!(
        i,
        Item::Skipped(s) if matches!(s.reason, ReadError::LimitExceeded { limit: "max_page_bytes", max: 16, .. })
    )));
}

#[test]
fn not_a_tsfile_and_other_versions_are_refused_at_open() {
    let e = TsFileReader::new(Cursor::new(b"PAR1 is not a TsFile".to_vec()), ReadOptions::default()).err();
    assert_eq!(e, Some(ReadError::BadMagic { offset: 0 }));
    let mut bytes = fixture("matrix-uncompressed.tsfile");
    bytes[6] = 9;
    let e = TsFileReader::new(Cursor::new(bytes), ReadOptions::default()).err();
    assert_eq!(e, Some(ReadError::UnsupportedVersion { version: 9 }));
}
