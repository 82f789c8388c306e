//! Case generators for `cube-columnar`. A random table (schema + JSON cell
//! texts) is rendered into any of the three shapes, so the same data is seen
//! as rows, compact and columnar; malformed cases damage rendered documents.

use crate::engine::SliceDraw;

use super::{CubeInput, FieldDesc, Shape, Ty};
use crate::engine::{Case, CaseRng};

pub const CATEGORIES: &[(&str, f64)] = &[
    ("columnar", 1.0),
    ("server-form", 1.0),
    ("server-form-damaged", 1.0),
    ("compact", 0.5),
    ("rows", 1.0),
    ("rows-late-keys", 0.5),
    ("edges", 1.0),
    ("number-forms", 1.0),
    ("unmappable", 1.0),
    ("literals-limits", 0.5),
    ("structure", 1.0),
    ("malformed-truncation", 0.1),
    ("malformed-bitflip", 1.0),
    ("reuse", 0.3),
    ("large", 0.03),
];

/// Categories too big for a fuzz execution ([`Category::large`](crate::engine::Category::large)).
pub const LARGE: &[&str] = &["large"];

/// Schema plus data: `cells[m][r]` is member `m`'s JSON text in row `r`;
/// `None` is a missing key in row objects (and `null` in other shapes).
#[derive(Debug, Clone)]
pub struct Table {
    pub fields: Vec<FieldDesc>,
    /// Members present in the data, in data order.
    pub members: Vec<String>,
    pub cells: Vec<Vec<Option<String>>>,
    pub rows: usize,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Normal,
    Edge,
    Bad,
}

pub fn random_ty(rng: &mut CaseRng) -> Ty {
    match rng.gen_range(0..12) {
        0 | 1 => Ty::Utf8,
        2 | 3 => Ty::Int64,
        4 => Ty::Float64,
        5 => Ty::Boolean,
        6 | 7 => Ty::Timestamp(rng.gen_range(0..3)),
        _ => {
            let p = if rng.gen_bool(0.3) { 38 } else { rng.gen_range(1..=38) };
            Ty::Decimal(p, rng.gen_range(0..=p.min(12)) as i8)
        }
    }
}

fn member_name(rng: &mut CaseRng, i: usize) -> String {
    match rng.gen_range(0..20) {
        0 => format!("größe_{i}"),
        1 => format!("quote\"back\\slash{i}"),
        2 => format!("emoji😀{i}"),
        3 => format!("tab\t{i}"),
        4 => format!("Orders.count_{i}"),
        _ => format!("m{i}"),
    }
}

/// JSON text of a key, sometimes with an unneeded `\u` escape.
fn key_json(rng: &mut CaseRng, name: &str) -> String {
    let plain = serde_json::to_string(name).expect("strings serialize");
    if rng.gen_bool(0.1) {
        if let Some(pos) = plain[1..].find(|c: char| c.is_ascii_alphanumeric()) {
            let c = plain.as_bytes()[pos + 1];
            return format!("{}\\u{:04x}{}", &plain[..pos + 1], c, &plain[pos + 2..]);
        }
    }
    plain
}

fn quote(s: &str) -> String {
    serde_json::to_string(s).expect("strings serialize")
}

/// (days since epoch) -> (year, month, day), proleptic Gregorian.
fn civil(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Cube's timestamp text of `nanos` (nanoseconds since the epoch, i128 so the
/// edges of every unit fit) with `digits` fraction digits.
fn timestamp_text(nanos: i128, digits: usize, z: bool) -> String {
    let secs = nanos.div_euclid(1_000_000_000) as i64;
    let frac = nanos.rem_euclid(1_000_000_000) as i64;
    let (y, m, d) = civil(secs.div_euclid(86_400));
    let sod = secs.rem_euclid(86_400);
    let mut s = format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}",
        sod / 3600,
        sod / 60 % 60,
        sod % 60
    );
    if digits > 0 {
        let f = format!("{frac:09}");
        s.push('.');
        s.push_str(&f[..digits]);
    }
    if z {
        s.push('Z');
    }
    s
}

fn random_string(rng: &mut CaseRng) -> String {
    let pieces = [
        "a", "Z", "0", " ", "é", "漢", "😀", "\"", "\\", "\n", "\t", "\u{1}", "/", "\u{7f}", "ß",
    ];
    let len = rng.gen_range(0..12);
    (0..len).map(|_| *pieces.choose(rng).unwrap()).collect()
}

fn random_timestamp(rng: &mut CaseRng, unit: u8) -> String {
    let precision = [3usize, 6, 9][unit as usize];
    // Years 1678..2261 fit every unit; ms/us go wider.
    let (lo, hi): (i128, i128) = if unit == 2 || rng.gen_bool(0.7) {
        (-9_000_000_000_000_000_000, 9_000_000_000_000_000_000)
    } else {
        (-62_167_219_200_000_000_000, 253_402_300_799_999_999_999)
    };
    let nanos = rng.gen_range(lo..=hi);
    let tick = 10i128.pow(9 - precision as u32);
    let nanos = nanos - nanos.rem_euclid(tick);
    // Fewest fraction digits that show the value exactly, then maybe more
    // (trailing zeros, even past the unit's precision).
    let frac = nanos.rem_euclid(1_000_000_000);
    let needed = (0..=9usize)
        .find(|&d| frac % 10i128.pow(9 - d as u32) == 0)
        .unwrap_or(9);
    let digits = match rng.gen_range(0..3) {
        0 => needed,
        1 => needed.max(precision),
        _ => rng.gen_range(needed.max(1)..=9),
    };
    quote(&timestamp_text(nanos, digits, rng.gen_bool(0.1)))
}

fn pow10(n: u32) -> i128 {
    10i128.pow(n)
}

fn decimal_text(unscaled: i128, scale: u8) -> String {
    let neg = unscaled < 0;
    let digits = unscaled.unsigned_abs().to_string();
    let s = scale as usize;
    let body = if s == 0 {
        digits
    } else {
        let padded = format!("{digits:0>width$}", width = s + 1);
        format!("{}.{}", &padded[..padded.len() - s], &padded[padded.len() - s..])
    };
    if neg {
        format!("-{body}")
    } else {
        body
    }
}

/// One cell's JSON text for type `ty`.
pub fn value(rng: &mut CaseRng, ty: Ty, mode: Mode) -> String {
    if mode == Mode::Bad {
        return bad_value(rng, ty);
    }
    if rng.gen_bool(0.08) {
        return "null".into();
    }
    let edge = mode == Mode::Edge && rng.gen_bool(0.6);
    match ty {
        Ty::Utf8 => {
            if edge {
                [
                    "\"\\u00e9\\n\\\"\"",
                    "\"\\ud83d\\ude00\"",
                    "\"\"",
                    "1.5e300",
                    "-0",
                    "true",
                    "18446744073709551615",
                    "0.1",
                ]
                .choose(rng)
                .unwrap()
                .to_string()
            } else {
                match rng.gen_range(0..10) {
                    0 => rng.gen::<i32>().to_string(),
                    1 => "false".into(),
                    _ => quote(&random_string(rng)),
                }
            }
        }
        Ty::Int64 => {
            if edge {
                [
                    "9223372036854775807",
                    "-9223372036854775808",
                    "\"9223372036854775807\"",
                    "\"-9223372036854775808\"",
                    "9007199254740993",
                    "\"9007199254740993\"",
                    "-0",
                    "\"+0\"",
                    "\"-0\"",
                    "\"0000000000000000000000042\"",
                    "!9223372036854775808",
                    "!\"9223372036854775808\"",
                    "!\"-9223372036854775809\"",
                    "!18446744073709551616",
                    "!\"99999999999999999999999999\"",
                ]
                .pick_edge(rng)
            } else {
                let v: i64 = match rng.gen_range(0..3) {
                    0 => rng.gen(),
                    _ => rng.gen_range(-100_000..100_000),
                };
                if rng.gen_bool(0.6) {
                    quote(&v.to_string())
                } else {
                    v.to_string()
                }
            }
        }
        Ty::Float64 => {
            if edge {
                [
                    "1e308",
                    "5e-324",
                    "-0.0",
                    "\"NaN\"",
                    "\"inf\"",
                    "\"-infinity\"",
                    "1.7976931348623157e308",
                    "\"1e400\"",
                    "9007199254740993",
                    "!\"0x10\"",
                    "!\" 1\"",
                    "!\"1_0\"",
                    "-9223372036854775808",
                    "18446744073709551616",
                ]
                .pick_edge(rng)
            } else {
                let v: f64 = rng.gen_range(-1e6..1e6);
                match rng.gen_range(0..3) {
                    0 => quote(&v.to_string()),
                    1 => format!("{v:e}"),
                    _ => v.to_string(),
                }
            }
        }
        Ty::Boolean => ["true", "false", "\"true\"", "\"false\"", "\"1\"", "\"0\""]
            .choose(rng)
            .unwrap()
            .to_string(),
        Ty::Timestamp(unit) => {
            if edge {
                match unit {
                    2 => [
                        "\"1677-09-21T00:12:43.145224192\"",
                        "!\"1677-09-21T00:12:43.145224191\"",
                        "\"2262-04-11T23:47:16.854775807\"",
                        "!\"2262-04-11T23:47:16.854775808\"",
                        "!\"9999-12-31T23:59:59\"",
                        "\"1970-01-01T00:00:00.000000000Z\"",
                        "-9223372036854775808",
                        "!9223372036854775808",
                    ]
                    .pick_edge(rng),
                    _ => [
                        "\"0000-01-01T00:00:00\"",
                        "\"9999-12-31T23:59:59.999\"",
                        "\"9999-12-31T23:59:59.999000\"",
                        "\"2024-02-29T12:00:00.5\"",
                        "\"2000-02-29T00:00:00Z\"",
                        "\"1900-02-28T23:59:59.000000000\"",
                        "\"1969-12-31T23:59:59.999\"",
                        "9223372036854775807",
                        "-1",
                    ]
                    .pick_edge(rng),
                }
            } else if rng.gen_bool(0.1) {
                rng.gen_range(-1_000_000_000_000i64..1_000_000_000_000).to_string()
            } else {
                random_timestamp(rng, unit)
            }
        }
        Ty::Decimal(p, s) => {
            let (p, s) = (u32::from(p), s.max(0) as u8);
            let max = pow10(p) - 1;
            if edge {
                match if rng.gen_bool(0.1) {
                    rng.gen_range(0..8)
                } else {
                    *[0, 1, 3, 7].choose(rng).unwrap()
                } {
                    0 => quote(&decimal_text(max, s)),
                    1 => quote(&decimal_text(-max, s)),
                    2 => quote(&decimal_text(max + 1, s)), // overflow
                    3 => quote(&format!("{}000", decimal_text(1, s))),
                    4 => "12345678901234567890".into(),
                    5 => "0.5".into(),
                    6 => quote(".5"),
                    _ => quote("-0"),
                }
            } else {
                let digits = rng.gen_range(0..=p.min(30));
                let v = if digits == 0 {
                    0
                } else {
                    rng.gen_range(-(pow10(digits) - 1)..pow10(digits))
                };
                let v = v.clamp(-max, max);
                if rng.gen_bool(0.15) && s == 0 && v.unsigned_abs() < 1 << 62 {
                    v.to_string()
                } else {
                    quote(&decimal_text(v, s))
                }
            }
        }
        Ty::Unsupported(_) => "1".into(),
    }
}

/// A JSON number in one of the forms a column parser meets: exponents of
/// either case and sign (`1e20`, `1.5E-7`, `-0e0`, `2E+0`), zero-padded and
/// huge exponents (`1e007`, `1e400`, `1e-400`), many fraction digits,
/// integers written with a fraction or an exponent (`12.000`, `12e3`,
/// `1200e-2`), and mantissas at the int64 and 2^53 boundaries.
fn number_form(rng: &mut CaseRng) -> String {
    const MANTISSAS: &[&str] = &[
        "0",
        "1",
        "5",
        "12",
        "1200",
        "9223372036854775807",
        "9223372036854775808",
        "9007199254740993",
        "18446744073709551616",
        "123456789012345678901234567890",
    ];
    let sign = if rng.gen_bool(0.3) { "-" } else { "" };
    let int = if rng.gen_bool(0.5) {
        MANTISSAS.choose(rng).unwrap().to_string()
    } else {
        rng.gen_range(0..1_000_000u64).to_string()
    };
    let fraction = match rng.gen_range(0..4) {
        0 => String::new(),
        1 => format!(".{}", "0".repeat(rng.gen_range(1..4))),
        2 => format!(".{}", rng.gen_range(0..1000u32)),
        _ => {
            let digits: String = (0..rng.gen_range(17..45))
                .map(|_| char::from(b'0' + rng.gen_range(0..10u8)))
                .collect();
            format!(".{digits}")
        }
    };
    let exponent = match rng.gen_range(0..6) {
        0 if !fraction.is_empty() => String::new(),
        0 | 1 => format!("{}{}", ["e", "E"].choose(rng).unwrap(), rng.gen_range(0..25u32)),
        2 => format!("{}-{}", ["e", "E"].choose(rng).unwrap(), rng.gen_range(0..25u32)),
        3 => format!("E+{}", rng.gen_range(0..25u32)),
        4 => format!("e{:03}", rng.gen_range(0..20u32)),
        _ => format!("e{}{}", ["", "-"].choose(rng).unwrap(), rng.gen_range(300..420u32)),
    };
    format!("{sign}{int}{fraction}{exponent}")
}

/// Pick an edge value; the ones marked `!` (errors) only now and then.
trait PickEdge {
    fn pick_edge(&self, rng: &mut CaseRng) -> String;
}

impl PickEdge for [&str] {
    fn pick_edge(&self, rng: &mut CaseRng) -> String {
        let failing = rng.gen_bool(0.03);
        let pool: Vec<&str> = self.iter().copied().filter(|v| v.starts_with('!') == failing).collect();
        let pool = if pool.is_empty() { self.to_vec() } else { pool };
        pool.choose(rng).unwrap().trim_start_matches('!').to_string()
    }
}

impl<const N: usize> PickEdge for [&str; N] {
    fn pick_edge(&self, rng: &mut CaseRng) -> String {
        self[..].pick_edge(rng)
    }
}

/// A value that should not map to `ty`.
fn bad_value(rng: &mut CaseRng, ty: Ty) -> String {
    let generic = ["[1,2]", "{\"a\":1}", "[]", "{}"];
    if rng.gen_bool(0.25) {
        return generic.choose(rng).unwrap().to_string();
    }
    let list: &[&str] = match ty {
        Ty::Utf8 => &["[\"x\"]", "{}"],
        Ty::Int64 => &[
            "\"abc\"",
            "1.5",
            "true",
            "\"\"",
            "\" 1\"",
            "\"1e3\"",
            "\"99999999999999999999\"",
            "1e3",
        ],
        Ty::Float64 => &["\"abc\"", "true", "\"\"", "\"1,5\""],
        Ty::Boolean => &["1", "0", "\"TRUE\"", "\"yes\"", "\"\"", "2.5"],
        Ty::Timestamp(_) => &[
            "\"2024-13-01T00:00:00\"",
            "\"2024-01-01 00:00:00\"",
            "\"2024-01-01T24:00:00\"",
            "\"2023-02-29T00:00:00\"",
            "\"2024-01-01T00:00:00.\"",
            "\"2024-01-01T00:00:00.0000000001\"",
            "\"2024-01-01T00:00:00.123456789\"",
            "\"2024-1-01T00:00:00\"",
            "1.5",
            "true",
        ],
        Ty::Decimal(..) => &[
            "\"1e5\"",
            "\"abc\"",
            "\".\"",
            "\"1.2.3\"",
            "\"1.0000000000000000000000000000000000000001\"",
            "true",
            "\"999999999999999999999999999999999999999999\"",
        ],
        Ty::Unsupported(_) => &["1"],
    };
    list.choose(rng).unwrap().to_string()
}

pub fn random_table(rng: &mut CaseRng, max_fields: usize, max_rows: usize, mode: Mode) -> Table {
    let n = rng.gen_range(1..=max_fields);
    let rows = if rng.gen_bool(0.1) {
        0
    } else {
        rng.gen_range(1..=max_rows)
    };
    let mut fields = Vec::new();
    for i in 0..n {
        fields.push(FieldDesc {
            name: member_name(rng, i),
            ty: random_ty(rng),
            literal: None,
        });
    }
    let mut members: Vec<String> = fields.iter().map(|f| f.name.clone()).collect();
    let mut cells: Vec<Vec<Option<String>>> = fields
        .iter()
        .map(|f| (0..rows).map(|_| Some(value(rng, f.ty, mode))).collect())
        .collect();
    // Some fields read members absent from the data (all-null columns).
    if members.len() > 1 && rng.gen_bool(0.15) {
        let k = rng.gen_range(0..members.len());
        members.remove(k);
        cells.remove(k);
    }
    // Shuffle the data's member order.
    if rng.gen_bool(0.3) {
        let mut order: Vec<usize> = (0..members.len()).collect();
        order.shuffle(rng);
        members = order.iter().map(|&k| members[k].clone()).collect();
        cells = order.iter().map(|&k| cells[k].clone()).collect();
    }
    Table {
        fields,
        members,
        cells,
        rows,
    }
}

fn ws(rng: &mut CaseRng, pretty: bool) -> &'static str {
    if !pretty {
        return "";
    }
    ["", "", " ", "\n", "\n  ", "\t"].choose(rng).unwrap()
}

pub fn render(rng: &mut CaseRng, table: &Table, shape: Shape) -> Vec<u8> {
    let pretty = rng.gen_bool(0.2);
    let mut s = String::new();
    let cell = |m: usize, r: usize| table.cells[m][r].clone().unwrap_or_else(|| "null".into());
    match shape {
        Shape::Rows => {
            let mut order: Vec<usize> = (0..table.members.len()).collect();
            let shuffle_rows = rng.gen_bool(0.2);
            s.push('[');
            for r in 0..table.rows {
                if r > 0 {
                    s.push(',');
                }
                s.push_str(ws(rng, pretty));
                s.push('{');
                if shuffle_rows {
                    order.shuffle(rng);
                }
                let mut first = true;
                for &m in &order {
                    let Some(v) = &table.cells[m][r] else { continue };
                    if !first {
                        s.push(',');
                    }
                    first = false;
                    s.push_str(ws(rng, pretty));
                    s.push_str(&key_json(rng, &table.members[m]));
                    s.push(':');
                    s.push_str(ws(rng, pretty));
                    s.push_str(v);
                }
                s.push('}');
            }
            s.push_str(ws(rng, pretty));
            s.push(']');
        }
        Shape::Compact | Shape::Columnar => {
            let members = format!(
                "\"members\":{}[{}]",
                ws(rng, pretty),
                table
                    .members
                    .iter()
                    .map(|m| key_json(rng, m))
                    .collect::<Vec<_>>()
                    .join(",")
            );
            let mut data = String::new();
            if shape == Shape::Columnar {
                data.push_str("\"columns\":[");
                for m in 0..table.members.len() {
                    if m > 0 {
                        data.push(',');
                    }
                    data.push_str(ws(rng, pretty));
                    data.push('[');
                    data.push_str(&(0..table.rows).map(|r| cell(m, r)).collect::<Vec<_>>().join(","));
                    data.push(']');
                }
                data.push(']');
            } else {
                data.push_str("\"dataset\":[");
                for r in 0..table.rows {
                    if r > 0 {
                        data.push(',');
                    }
                    data.push_str(ws(rng, pretty));
                    data.push('[');
                    data.push_str(
                        &(0..table.members.len())
                            .map(|m| cell(m, r))
                            .collect::<Vec<_>>()
                            .join(","),
                    );
                    data.push(']');
                }
                data.push(']');
            }
            let extra = if rng.gen_bool(0.1) {
                "\"query\":{\"limit\":[1,{\"x\":null}]},"
            } else {
                ""
            };
            // Cube writes members first; sometimes the data comes first.
            if rng.gen_bool(0.15) {
                s = format!("{{{extra}{data},{}{members}{}}}", ws(rng, pretty), ws(rng, pretty));
            } else {
                s = format!("{{{}{members},{extra}{}{data}}}", ws(rng, pretty), ws(rng, pretty));
            }
        }
    }
    s.into_bytes()
}

/// One cell as Cube's server writes it: numbers, timestamps and decimals
/// as strings, text without escapes, booleans, null and short JSON
/// integers, the form `cube/columnar-scan` reads without the serde stream.
fn server_value(rng: &mut CaseRng, ty: Ty) -> String {
    if rng.gen_bool(0.05) {
        return "null".into();
    }
    match ty {
        Ty::Utf8 => {
            let pieces = [
                "a",
                "Z",
                "0",
                " ",
                "é",
                "漢",
                "😀",
                "/",
                "\u{7f}",
                "ß",
                "completed",
                "2024",
            ];
            let text: String = (0..rng.gen_range(0..8)).map(|_| *pieces.choose(rng).unwrap()).collect();
            quote(&text)
        }
        Ty::Int64 => {
            let v: i64 = match rng.gen_range(0..8) {
                0 => rng.gen(),
                1 => rng.gen_range(-10_000_000..0),
                2 => rng.gen_range(10_000_000..100_000_000),
                _ => rng.gen_range(0..10_000_000),
            };
            if rng.gen_bool(0.1) {
                v.to_string()
            } else {
                quote(&v.to_string())
            }
        }
        Ty::Float64 => match rng.gen_range(0..10) {
            0 => quote(&rng.gen_range(-1e6..1e6f64).to_string()),
            1 => quote(&rng.gen_range(0..100_000i64).to_string()),
            2 => quote(&format!("{:.9}", rng.gen_range(-1e7..1e7f64))),
            _ => quote(&format!("{:.2}", rng.gen_range(-100_000.0..100_000.0f64))),
        },
        Ty::Timestamp(unit) => random_timestamp(rng, unit),
        _ => value(rng, ty, Mode::Normal),
    }
}

/// A columnar document in the server's form: members first, then the
/// columns, whitespace only between tokens when pretty. Also the byte
/// offsets of the text cells' bodies.
fn server_document(rng: &mut CaseRng) -> (CubeInput, Vec<usize>) {
    let (max_fields, max_rows) = small(rng);
    let table = random_table(rng, max_fields, max_rows, Mode::Normal);
    let pretty = rng.gen_bool(0.2);
    let mut json = String::from("{");
    json.push_str(ws(rng, pretty));
    json.push_str("\"members\":[");
    let members: Vec<String> = table.members.iter().map(|m| quote(m)).collect();
    json.push_str(&members.join(","));
    json.push_str("],");
    json.push_str(ws(rng, pretty));
    json.push_str("\"columns\":[");
    let mut text = Vec::new();
    for (j, member) in table.members.iter().enumerate() {
        let ty = table
            .fields
            .iter()
            .find(|f| &f.name == member)
            .map_or(Ty::Utf8, |f| f.ty);
        if j > 0 {
            json.push(',');
            json.push_str(ws(rng, pretty));
        }
        json.push('[');
        for r in 0..table.rows {
            if r > 0 {
                json.push(',');
                json.push_str(ws(rng, pretty));
            }
            let cell = server_value(rng, ty);
            if ty == Ty::Utf8 && cell.len() > 2 {
                text.extend(json.len() + 1..json.len() + cell.len() - 1);
            }
            json.push_str(&cell);
        }
        json.push(']');
    }
    json.push(']');
    json.push_str(ws(rng, pretty));
    json.push('}');
    let input = CubeInput::new(json.into_bytes(), Shape::Columnar, table.fields.clone(), None);
    (input, text)
}

/// A server-form document with one byte replaced, inserted or removed, or
/// cut short: the scanner must give up wherever the serde stream fails or
/// reads something else. Most damage lands in a text cell, where a
/// control, a backslash or a broken UTF-8 sequence is the scanner's alone
/// to notice (a number or timestamp that breaks fails to convert anyway).
fn damaged_server_document(rng: &mut CaseRng) -> CubeInput {
    let (mut input, text) = server_document(rng);
    let json = &mut input.json;
    if json.is_empty() {
        return input;
    }
    if let Some(&at) = text.choose(rng).filter(|_| rng.gen_bool(0.8)) {
        let byte = *b"\\\x00\x1f\x80\xc3".choose(rng).unwrap();
        if rng.gen_bool(0.5) {
            json[at] = byte;
        } else {
            json.insert(at, byte);
        }
        return input;
    }
    let at = rng.gen_range(0..json.len());
    let byte = *b"\"\\\x00\x1f\x7f\x80\xc3\xff ,]}[{:-.eE09nt\n".choose(rng).unwrap();
    match rng.gen_range(0..4) {
        0 => json[at] = byte,
        1 => json.insert(at, byte),
        2 => drop(json.remove(at)),
        _ => json.truncate(at),
    }
    input
}

fn random_shape(rng: &mut CaseRng) -> Shape {
    *[Shape::Rows, Shape::Compact, Shape::Columnar].choose(rng).unwrap()
}

fn small(rng: &mut CaseRng) -> (usize, usize) {
    if rng.gen_bool(0.1) {
        (64, 12)
    } else {
        (8, 40)
    }
}

fn input_of(rng: &mut CaseRng, table: &Table, shape: Shape) -> CubeInput {
    let limit = if rng.gen_bool(0.2) {
        Some(rng.gen_range(-5..100))
    } else {
        None
    };
    CubeInput::new(render(rng, table, shape), shape, table.fields.clone(), limit)
}

pub fn generate(category: &str, _index: u64, rng: &mut CaseRng) -> Vec<Case<CubeInput>> {
    let (max_fields, max_rows) = small(rng);
    match category {
        "columnar" | "compact" | "rows" => {
            let shape = match category {
                "columnar" => Shape::Columnar,
                "compact" => Shape::Compact,
                _ => Shape::Rows,
            };
            let table = random_table(rng, max_fields, max_rows, Mode::Normal);
            vec![Case::one(input_of(rng, &table, shape))]
        }
        "server-form" => vec![Case::one(server_document(rng).0)],
        "server-form-damaged" => vec![Case::one(damaged_server_document(rng))],
        "rows-late-keys" => {
            let mut table = random_table(rng, max_fields, max_rows.max(4), Mode::Normal);
            // Missing keys anywhere, and members only present from a later row.
            for m in 0..table.members.len() {
                let from = if rng.gen_bool(0.4) {
                    rng.gen_range(0..=table.rows)
                } else {
                    0
                };
                for r in 0..table.rows {
                    if r < from || rng.gen_bool(0.1) {
                        table.cells[m][r] = None;
                    }
                }
            }
            let mut json = render(rng, &table, Shape::Rows);
            // A duplicated key in one row (the last value wins).
            if rng.gen_bool(0.2) && table.rows > 0 && !table.members.is_empty() {
                let text = String::from_utf8(json).expect("rendered JSON is UTF-8");
                let name = serde_json::to_string(&table.members[0]).unwrap();
                let f = table
                    .fields
                    .iter()
                    .find(|f| f.name == table.members[0])
                    .map_or(Ty::Utf8, |f| f.ty);
                let dup = format!("{{{name}:{},", value(rng, f, Mode::Normal));
                json = text.replacen('{', &dup, 1).replace(",}", "}").into_bytes();
            }
            vec![Case::one(CubeInput::new(json, Shape::Rows, table.fields.clone(), None))]
        }
        "edges" => {
            let table = random_table(rng, max_fields, max_rows, Mode::Edge);
            let shape = random_shape(rng);
            vec![Case::one(input_of(rng, &table, shape))]
        }
        "number-forms" => {
            // One cell a table: a batch stops at its first cell the column
            // cannot take, so more would leave the later ones unparsed and
            // make nearly every batch an error.
            let mut table = random_table(rng, max_fields, max_rows, Mode::Normal);
            let mut cells: Vec<&mut String> = table.cells.iter_mut().flatten().flatten().collect();
            if !cells.is_empty() {
                let at = rng.gen_range(0..cells.len());
                let number = number_form(rng);
                *cells[at] = if rng.gen_bool(0.3) { quote(&number) } else { number };
            }
            let shape = random_shape(rng);
            vec![Case::one(input_of(rng, &table, shape))]
        }
        "unmappable" => {
            let mut table = random_table(rng, max_fields, max_rows.max(2), Mode::Normal);
            for _ in 0..rng.gen_range(1..3) {
                if table.rows == 0 || table.members.is_empty() {
                    break;
                }
                let m = rng.gen_range(0..table.members.len());
                let r = rng.gen_range(0..table.rows);
                let ty = table
                    .fields
                    .iter()
                    .find(|f| f.name == table.members[m])
                    .map_or(Ty::Utf8, |f| f.ty);
                table.cells[m][r] = Some(value(rng, ty, Mode::Bad));
            }
            let shape = random_shape(rng);
            vec![Case::one(input_of(rng, &table, shape))]
        }
        "literals-limits" => literals_limits(rng),
        "structure" => structure(rng),
        "malformed-truncation" => {
            let table = random_table(rng, 4, 6, Mode::Normal);
            let shape = random_shape(rng);
            let input = input_of(rng, &table, shape);
            let len = input.json.len();
            let mut cuts: Vec<usize> = (0..len).collect();
            cuts.shuffle(rng);
            cuts.truncate(24);
            cuts.into_iter()
                .map(|k| {
                    Case::one(CubeInput::new(
                        input.json[..k].to_vec(),
                        shape,
                        input.fields.clone(),
                        input.limit,
                    ))
                })
                .collect()
        }
        "malformed-bitflip" => {
            let table = random_table(rng, 6, 10, Mode::Normal);
            let shape = random_shape(rng);
            let mut input = input_of(rng, &table, shape);
            for _ in 0..rng.gen_range(1..=3) {
                if input.json.is_empty() {
                    break;
                }
                let at = rng.gen_range(0..input.json.len());
                input.json[at] = match rng.gen_range(0..3) {
                    0 => input.json[at] ^ (1 << rng.gen_range(0..8)),
                    1 => *b"[]{},:\"\\ 0-.e".choose(rng).unwrap(),
                    _ => rng.gen(),
                };
            }
            vec![Case::one(CubeInput::new(input.json, shape, input.fields, input.limit))]
        }
        "reuse" => {
            // One decoder over several batches: same keys, new keys, errors.
            let steps = rng.gen_range(2..6);
            let base = random_table(rng, 6, 20, Mode::Normal);
            let shape = random_shape(rng);
            let mut out = Vec::new();
            for _ in 0..steps {
                let mode = if rng.gen_bool(0.2) { Mode::Bad } else { Mode::Normal };
                let mut t = random_table(rng, 6, 20, mode);
                if rng.gen_bool(0.6) {
                    t.fields = base.fields.clone();
                    t.members = base.members.clone();
                    t.cells = base.cells.clone();
                    t.rows = base.rows;
                }
                out.push(input_of(rng, &t, shape));
            }
            vec![Case { steps: out }]
        }
        "large" => {
            let (f, r) = if rng.gen_bool(0.5) { (8, 10_000) } else { (64, 1_000) };
            let table = random_table(rng, f, r, Mode::Normal);
            let shape = random_shape(rng);
            vec![Case::one(input_of(rng, &table, shape))]
        }
        _ => Vec::new(),
    }
}

fn literals_limits(rng: &mut CaseRng) -> Vec<Case<CubeInput>> {
    let literal_texts = |rng: &mut CaseRng, ty: Ty| -> String {
        match rng.gen_range(0..6) {
            0 => "null".into(),
            1 => ["[1]", "{}", "nul", "1 2", "\"unterminated", ""]
                .choose(rng)
                .unwrap()
                .to_string(),
            2 => bad_value(rng, ty),
            _ => {
                let v = value(rng, ty, Mode::Normal);
                if v == "null" {
                    "1".into()
                } else {
                    v
                }
            }
        }
    };
    let n = rng.gen_range(0..5);
    let mut fields: Vec<FieldDesc> = (0..n)
        .map(|i| {
            let ty = random_ty(rng);
            FieldDesc {
                name: format!("lit{i}"),
                ty,
                literal: Some(literal_texts(rng, ty)),
            }
        })
        .collect();
    let limit = match rng.gen_range(0..10) {
        0 => None,
        1 => Some(-1),
        2 => Some(
            *[i64::from(i32::MIN), i64::from(i32::MAX), i64::MAX, i64::MIN, 1_000_001]
                .choose(rng)
                .unwrap(),
        ),
        3 => Some(1_000_000),
        // Past a 32-bit word by a few rows: a limit checked or kept as a
        // 32-bit `usize` reads as a small one.
        4 => Some((1 << 32) + rng.gen_range(0..4)),
        _ => Some(rng.gen_range(0..200)),
    };
    let mut cases = Vec::new();
    // Member-less query: the data has no members (or, rarely, some: unknown).
    let json: &[u8] = match rng.gen_range(0..6) {
        0 => b"[]",
        1 => b"[{},{},{}]",
        2 => b"{\"members\":[],\"columns\":[]}",
        3 => b"{\"members\":[],\"dataset\":[[],[]]}",
        4 => b"[{\"stray\":1}]",
        _ => b"{\"members\":[\"stray\"],\"columns\":[[1]]}",
    };
    let shape = if json[0] == b'[' {
        Shape::Rows
    } else if json.windows(7).any(|w| w == b"dataset") {
        Shape::Compact
    } else {
        Shape::Columnar
    };
    // A big limit only with one cheap literal, to keep runs short.
    let limit = if limit == Some(1_000_000) {
        fields.truncate(1);
        limit
    } else {
        limit
    };
    cases.push(Case::one(CubeInput::new(json.to_vec(), shape, fields.clone(), limit)));
    // Literal fields next to member fields: the limit is ignored.
    let mut table = random_table(rng, 4, 10, Mode::Normal);
    table.fields.extend(fields);
    let shape = random_shape(rng);
    let json = render(rng, &table, shape);
    cases.push(Case::one(CubeInput::new(json, shape, table.fields.clone(), limit)));
    cases
}

fn structure(rng: &mut CaseRng) -> Vec<Case<CubeInput>> {
    let mut table = random_table(rng, 5, 6, Mode::Normal);
    let shape = random_shape(rng);
    let fields = table.fields.clone();
    match rng.gen_range(0..9) {
        0 => {
            // Unsupported types among the fields.
            let mut fields = fields;
            let k = rng.gen_range(0..fields.len());
            fields[k].ty = match rng.gen_range(0..3) {
                0 => Ty::Unsupported(rng.gen_range(0..5)),
                1 => Ty::Decimal(rng.gen_range(0..=40), rng.gen_range(-3..=40)),
                _ => Ty::Decimal(0, 0),
            };
            let json = render(rng, &table, shape);
            vec![Case::one(CubeInput::new(json, shape, fields, None))]
        }
        1 => {
            // Unknown members in the data.
            table.members.push(format!("extra{}", rng.gen_range(0..3)));
            table.cells.push((0..table.rows).map(|_| Some("1".into())).collect());
            if rng.gen_bool(0.5) {
                let n = table.members.len();
                table.members.swap(0, n - 1);
                table.cells.swap(0, n - 1);
            }
            vec![Case::one(CubeInput::new(
                render(rng, &table, shape),
                shape,
                fields,
                None,
            ))]
        }
        2 if !table.members.is_empty() => {
            // A repeated member name.
            let k = rng.gen_range(0..table.members.len());
            table.members.push(table.members[k].clone());
            table.cells.push(table.cells[k].clone());
            let shape = if rng.gen_bool(0.5) {
                Shape::Compact
            } else {
                Shape::Columnar
            };
            vec![Case::one(CubeInput::new(
                render(rng, &table, shape),
                shape,
                fields,
                None,
            ))]
        }
        3 => {
            // Ragged data and column-count mismatches.
            let shape = if rng.gen_bool(0.5) {
                Shape::Compact
            } else {
                Shape::Columnar
            };
            let mut doc: serde_json::Value =
                serde_json::from_slice(&render(rng, &table, shape)).expect("rendered JSON parses");
            let key = if shape == Shape::Compact { "dataset" } else { "columns" };
            if let Some(data) = doc.get_mut(key).and_then(|d| d.as_array_mut()) {
                match rng.gen_range(0..3) {
                    0 if !data.is_empty() => {
                        let k = rng.gen_range(0..data.len());
                        if let Some(a) = data[k].as_array_mut() {
                            if a.is_empty() || rng.gen_bool(0.5) {
                                a.push(serde_json::Value::Null);
                            } else {
                                a.pop();
                            }
                        }
                    }
                    1 => data.push(serde_json::json!([1])),
                    _ => {
                        data.pop();
                    }
                }
            }
            vec![Case::one(CubeInput::new(
                doc.to_string().into_bytes(),
                shape,
                fields,
                None,
            ))]
        }
        4 => {
            // Wrong JSON shapes at every level.
            let docs: &[(&str, Shape)] = &[
                ("{}", Shape::Rows),
                ("[1]", Shape::Rows),
                ("[{}, [], {}]", Shape::Rows),
                ("null", Shape::Columnar),
                ("[]", Shape::Compact),
                ("{\"columns\":[]}", Shape::Columnar),
                ("{\"members\":{},\"columns\":[]}", Shape::Columnar),
                ("{\"members\":[\"a\",2],\"columns\":[[],[]]}", Shape::Columnar),
                ("{\"members\":[]}", Shape::Columnar),
                ("{\"members\":[],\"columns\":{}}", Shape::Columnar),
                ("{\"members\":[\"m0\"],\"dataset\":[[1],2]}", Shape::Compact),
                ("{\"members\":[\"m0\"],\"columns\":[3]}", Shape::Columnar),
                ("{\"members\":[\"m0\",\"m0\"],\"columns\":[[],[]]}", Shape::Columnar),
                (
                    "{\"members\":[\"m0\"],\"columns\":[[1]],\"members\":[\"m1\"]}",
                    Shape::Columnar,
                ),
                (
                    "{\"columns\":[[1]],\"members\":[\"m0\"],\"columns\":[[2,3]]}",
                    Shape::Columnar,
                ),
                (
                    "{\"members\":[\"x\"],\"members\":[\"m0\"],\"dataset\":[[5]]}",
                    Shape::Compact,
                ),
                (
                    "{\"members\":[1],\"members\":[\"m0\"],\"dataset\":[[5]]}",
                    Shape::Compact,
                ),
            ];
            let (doc, shape) = docs.choose(rng).unwrap();
            vec![Case::one(CubeInput::new(doc.as_bytes().to_vec(), *shape, fields, None))]
        }
        5 => {
            // Invalid JSON on several lines (offset from line/column).
            let mut json = render(rng, &table, shape);
            let text = String::from_utf8(json.clone()).unwrap().replace(',', ",\n ");
            json = text.into_bytes();
            let at = rng.gen_range(0..=json.len());
            json.insert(at, *b"}]x,\"".choose(rng).unwrap());
            vec![Case::one(CubeInput::new(json, shape, fields, None))]
        }
        6 => {
            // Two fields reading one member, of different types.
            let mut fields = fields;
            let mut twin = fields[0].clone();
            twin.ty = random_ty(rng);
            fields.push(twin);
            vec![Case::one(CubeInput::new(
                render(rng, &table, shape),
                shape,
                fields,
                None,
            ))]
        }
        7 => {
            // Invalid UTF-8, deep nesting, big exponents, trailing data.
            let docs: &[&[u8]] = &[
                b"[{\"m0\":\"\xff\"}]",
                b"[{\"m0\":1e400}]",
                b"[{\"m0\":1}] x",
                b"[{\"m0\":1}]   \n",
                b"[{\"m0\":-}]",
                b"[{\"m0\":01}]",
                b"[{\"m0\":\"\\uD800\"}]",
                b"[{\"m0\":\"\\x\"}]",
            ];
            let deep = format!("[{{\"m0\":{}1{}}}]", "[".repeat(200), "]".repeat(200));
            let json = if rng.gen_bool(0.2) {
                deep.into_bytes()
            } else {
                docs.choose(rng).unwrap().to_vec()
            };
            vec![Case::one(CubeInput::new(json, Shape::Rows, fields, None))]
        }
        _ => {
            // No fields at all, or fields only some rows carry.
            let json = render(rng, &table, shape);
            let fields = if rng.gen_bool(0.5) { Vec::new() } else { fields };
            vec![Case::one(CubeInput::new(
                json,
                shape,
                fields,
                Some(rng.gen_range(0..5)),
            ))]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 8259's number grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    fn is_json_number(s: &str) -> bool {
        let b = s.as_bytes();
        let mut i = usize::from(b.first() == Some(&b'-'));
        let digits = |i: &mut usize| {
            let start = *i;
            while b.get(*i).is_some_and(u8::is_ascii_digit) {
                *i += 1;
            }
            *i > start
        };
        match b.get(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => {
                digits(&mut i);
            }
            _ => return false,
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            if !digits(&mut i) {
                return false;
            }
        }
        if matches!(b.get(i), Some(b'e' | b'E')) {
            i += 1;
            if matches!(b.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            if !digits(&mut i) {
                return false;
            }
        }
        i == b.len()
    }

    #[test]
    fn number_forms_are_json_numbers_of_every_form() {
        let mut rng = CaseRng::seed_from_u64(5);
        let forms: Vec<String> = (0..3000).map(|_| number_form(&mut rng)).collect();
        for f in &forms {
            assert!(is_json_number(f), "{f}");
        }
        let some = |p: &dyn Fn(&str) -> bool| forms.iter().any(|f| p(f));
        assert!(some(&|f| f.contains('E')) && some(&|f| f.contains('e')));
        assert!(some(&|f| f.contains("e-") || f.contains("E-")) && some(&|f| f.contains("E+")));
        assert!(some(&|f| f.starts_with("-0") && (f.contains('e') || f.contains('E'))));
        assert!(some(&|f| f.contains("e00") || f.contains("e01")));
        assert!(some(&|f| f.split(['e', 'E']).nth(1).is_some_and(|x| x
            .trim_start_matches('-')
            .len()
            == 3
            && x.trim_start_matches('-') >= "300")));
        assert!(some(&|f| f.split('.').nth(1).is_some_and(|x| x.len() > 20)));
        assert!(some(&|f| f.starts_with("9223372036854775808")));
        assert!(some(&|f| !f.contains('.') && f.contains(['e', 'E'])));
        assert!(some(&|f| f.contains('.') && !f.contains(['e', 'E'])));
        assert!(!is_json_number("01") && !is_json_number("1.") && !is_json_number("1e") && !is_json_number("+1"));
    }
}
