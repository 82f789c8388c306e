//! Read a TsFile and print what it holds: its devices and series from the
//! metadata index, then every chunk decoded (rows, nulls, the first values)
//! or why it was skipped.
//!
//!     cargo run -p crossdec-tsfile --example read -- FILE...

use crossdec_tsfile::{Fastest, Item, TsFileReader};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    if paths.is_empty() {
        return Err("usage: read FILE...".into());
    }
    for path in paths {
        let mut reader = TsFileReader::open(&path)?;
        println!("{path}: TsFile version {}", reader.version());
        match reader.metadata() {
            Ok(meta) => {
                for (table, columns) in &meta.tables {
                    let names: Vec<&str> = columns.iter().map(|c| c.name.as_str()).collect();
                    println!("  table {table}: {}", names.join(", "));
                }
                for (device, series) in &meta.devices {
                    for s in series {
                        println!(
                            "  index: {device} {:?} type {} chunks at {:?}",
                            s.measurement, s.data_type_id, s.chunk_offsets
                        );
                    }
                }
            }
            Err(e) => println!("  no metadata index: {e}"),
        }
        for item in reader.columns(Fastest::default()) {
            match item? {
                Item::Column(c) => {
                    let batch = c.record_batch();
                    println!(
                        "  {}.{} ({} {} {}{}): {} rows in {} pages, {} nulls",
                        c.device,
                        c.measurement,
                        c.data_type,
                        c.encoding,
                        c.compression,
                        if c.aligned { ", aligned" } else { "" },
                        batch.num_rows(),
                        c.pages,
                        batch.column(1).null_count()
                    );
                }
                Item::Skipped(s) => println!("  skipped {}.{}: {}", s.device, s.measurement, s.reason),
            }
        }
    }
    Ok(())
}
