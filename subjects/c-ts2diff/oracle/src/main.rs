//! The reference's TS_2DIFF outcome as a subject-protocol process, the
//! oracle of `selftest.py`. It parses the input as the harness's
//! `TsInput::parse` does (TS_2DIFF only; DATE / TIMESTAMP ids read as INT32 /
//! INT64; `max_values` clamped to `MAX_VALUES_CAP`) and writes the outcome in
//! the canonical `TsValue` / `TsFault` forms, by hand: a copy of the harness's
//! conversion, kept small so it builds against `crossdec-reference` alone.
//! `crossdec run --subject` is the authoritative comparison.
use crossdec_reference::tsfile::{ts2diff, DecodeError, Field};
use std::io::{Read, Write};

fn field(f: Field) -> u8 {
    match f {
        Field::WriteIndex => 0,
        Field::BitWidth => 1,
        Field::MinDeltaBase => 2,
        Field::FirstValue => 3,
        Field::Packed => 4,
        other => panic!("unexpected field {other:?}"),
    }
}

fn respond(req: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    if req.len() < 11 || req[0] != 4 {
        out.push(2);
        return out;
    }
    let wide = match req[1] {
        1 | 9 => false,
        2 | 8 => true,
        _ => {
            out.push(2);
            return out;
        }
    };
    let max = u32::from_le_bytes(req[7..11].try_into().unwrap()).min(1 << 20) as usize;
    let page = &req[11..];
    let r = if wide {
        ts2diff::decode_i64(page, max).map(|d| (d.values.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>(), d.values.len(), d.consumed))
    } else {
        ts2diff::decode_i32(page, max).map(|d| (d.values.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>(), d.values.len(), d.consumed))
    };
    match r {
        Ok((bytes, n, consumed)) => {
            out.push(0);
            out.push(if wide { 2 } else { 1 });
            out.extend_from_slice(&(n as u64).to_le_bytes());
            out.extend_from_slice(&bytes);
            out.extend_from_slice(&(consumed as u64).to_le_bytes());
        }
        Err(e) => {
            out.push(1);
            match e {
                DecodeError::Truncated { field: f, offset, bit } => {
                    out.push(0);
                    out.push(field(f));
                    out.extend_from_slice(&(offset as u64).to_le_bytes());
                    out.push(bit);
                }
                DecodeError::BadBitWidth { width, max, offset } => {
                    out.push(1);
                    out.extend_from_slice(&width.to_le_bytes());
                    out.extend_from_slice(&max.to_le_bytes());
                    out.extend_from_slice(&(offset as u64).to_le_bytes());
                }
                DecodeError::BadCount { field: f, count, offset } => {
                    out.push(2);
                    out.push(field(f));
                    out.extend_from_slice(&count.to_le_bytes());
                    out.extend_from_slice(&(offset as u64).to_le_bytes());
                }
                DecodeError::TooManyValues { max, offset } => {
                    out.push(7);
                    out.extend_from_slice(&(max as u64).to_le_bytes());
                    out.extend_from_slice(&(offset as u64).to_le_bytes());
                }
                other => panic!("unexpected error {other:?}"),
            }
        }
    }
    out
}

fn main() {
    let stdin = std::io::stdin();
    let mut input = std::io::BufReader::new(stdin.lock());
    let stdout = std::io::stdout();
    let mut output = stdout.lock();
    loop {
        let mut len = [0u8; 4];
        if input.read_exact(&mut len).is_err() {
            break;
        }
        let mut req = vec![0u8; u32::from_le_bytes(len) as usize];
        input.read_exact(&mut req).unwrap();
        let resp = respond(&req);
        output.write_all(&(resp.len() as u32).to_le_bytes()).unwrap();
        output.write_all(&resp).unwrap();
        output.flush().unwrap();
    }
}
