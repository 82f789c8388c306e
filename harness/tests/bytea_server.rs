//! `pg-bytea` against a real PostgreSQL server (native x86_64 only).
//!
//! The server comes from `CROSSDEC_PG_URL` (exported by `ci/env.d/bytea.sh`)
//! or is started privately from Debian's packages. Where neither works the
//! test fails, unless a skip was asked for by name
//! (`CROSSDEC_SKIP_ORACLES=bytea_server`): it never passes silently without a
//! server.
//!
//! 1. Thousands of random byte strings are selected back with
//!    `bytea_output = hex` and `= escape`; the server's text must equal our
//!    reference encoders' output, and every kernel (and the reference) must
//!    decode it to the bytes the server returns in binary format.
//! 2. Malformed and whitespace-laden literals from the family's generators
//!    go through `SELECT $1::text::bytea`: the server must reject exactly the
//!    inputs the reference rejects, with the same SQLSTATE and offending
//!    character, and accept the rest with the same bytes (the
//!    `postgres-server` peer run by the differential engine).

#![cfg(all(target_arch = "x86_64", feature = "postgres-server"))]

use crossdec_harness::engine::RunOptions;
use crossdec_harness::families::bytea;
use crossdec_harness::families::bytea::server::{select_text_and_binary, PgServer};
use crossdec_kernels::bytea as kernel;
use crossdec_reference::bytea as reference;
use rand::{Rng, SeedableRng};

fn server_or_explain() -> Option<PgServer> {
    match PgServer::obtain() {
        Ok(s) => Some(s),
        Err(why) => {
            let msg = format!(
                "pg-bytea server test: NO POSTGRESQL SERVER ({why}); set CROSSDEC_PG_URL or install the \
                 Debian package `postgresql` (ci/install.d/bytea.sh)"
            );
            crossdec_harness::oracles::missing("bytea_server", &msg);
            None
        }
    }
}

fn decode_with_every_implementation(text: &[u8]) -> Vec<(String, Result<Vec<u8>, String>)> {
    let mut out = vec![(
        "reference".to_string(),
        reference::decode(text).map_err(|e| format!("{e:?}")),
    )];
    let run = |hex: kernel::HexFn, esc: kernel::EscapeFn| {
        let mut buf = vec![0u8; kernel::decoded_len_bound(text)];
        kernel::decode_into_with(hex, esc, text, &mut buf)
            .map(|n| buf[..n].to_vec())
            .map_err(|e| format!("{e:?}"))
    };
    let scalar_hex = crossdec_kernels::by_name(kernel::HEX_IMPLEMENTATIONS, "bytea/hex-scalar").expect("portable");
    for k in kernel::HEX_IMPLEMENTATIONS.iter().filter(|k| k.is_available()) {
        out.push((
            k.name.to_string(),
            run(k.get().expect("available"), kernel::best_escape()),
        ));
    }
    for e in kernel::ESCAPE_IMPLEMENTATIONS.iter() {
        out.push((e.name.to_string(), run(scalar_hex, e.get().expect("available"))));
    }
    out.push((
        "decode_to_vec".into(),
        kernel::decode_to_vec(text).map_err(|e| format!("{e:?}")),
    ));
    out
}

#[test]
fn server_output_in_both_formats_decodes_to_the_binary_value() {
    let Some(server) = server_or_explain() else { return };
    let mut client = server.connect().expect("connect to the server");
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0xb7_7ea);
    let mut values: Vec<Vec<u8>> = Vec::new();
    for n in 0..=300usize {
        for _ in 0..10 {
            values.push((0..n).map(|_| rng.gen()).collect());
        }
    }
    for n in [4096usize, 65_536, 300_000] {
        values.push((0..n).map(|_| rng.gen()).collect());
    }
    let mut checked = 0;
    for output in ["hex", "escape"] {
        for batch in values.chunks(500) {
            let rows = select_text_and_binary(&mut client, batch, output).expect("select batch");
            assert_eq!(rows.len(), batch.len());
            for ((text, binary), sent) in rows.iter().zip(batch) {
                assert_eq!(binary, sent, "binary round trip");
                let ours = if output == "hex" {
                    reference::encode_hex(sent)
                } else {
                    reference::encode_escape(sent)
                };
                assert_eq!(
                    text.as_bytes(),
                    &ours[..],
                    "bytea_output={output}: server text differs from our encoder"
                );
                for (name, got) in decode_with_every_implementation(text.as_bytes()) {
                    assert_eq!(
                        got.as_ref(),
                        Ok(binary),
                        "{name} on the server's {output} text of {} bytes",
                        sent.len()
                    );
                }
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 2 * values.len());
    eprintln!("pg-bytea server: {checked} server texts decoded by every implementation");
}

#[test]
fn server_rejects_exactly_what_we_reject() {
    let Some(server) = server_or_explain() else { return };
    // The peer talks to this test's server, without touching the process
    // environment (tests run in parallel threads).
    let campaign = bytea::campaign_with_server(&server.url);
    let peer = campaign
        .implementations()
        .iter()
        .find(|i| i.name == "postgres-server")
        .expect("peer registered");
    assert!(peer.available);
    let options = RunOptions {
        cases: 12,
        seed: 7,
        implementations: vec!["postgres-server".into()],
        categories: [
            "hex-whitespace",
            "hex-invalid-byte",
            "hex-odd-and-split",
            "hex-malformed",
            "escape",
            "escape-malformed",
            "escape-invalid-byte",
            "random-text",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
        ..RunOptions::default()
    };
    let report = campaign.run(&options);
    let imp = report
        .implementations
        .iter()
        .find(|i| i.name == "postgres-server")
        .expect("in report");
    for f in &report.failures {
        eprintln!(
            "{} {}: {:?} expected {} got {}",
            f.category, f.implementation, f.minimized_hex, f.minimized_expected, f.minimized_got
        );
    }
    for b in &report.bounds_exceeded {
        eprintln!(
            "{}: {} explained {} of {} calls (allowed {})",
            b.category, b.rule, b.tolerated, b.compared, b.allowed
        );
    }
    assert_eq!(report.failure_count, 0, "the server disagrees with the reference");
    assert!(
        imp.ran && imp.compared > 2000,
        "too few literals sent: {}",
        imp.compared
    );
    // The server really did reject things (not a vacuous agreement): the
    // no-offset rule was used, and so were both error classes.
    let no_offset = imp.tolerated.get("server-reports-no-offset").copied().unwrap_or(0);
    assert!(no_offset > 500, "server rejections compared: {no_offset}");
    eprintln!(
        "pg-bytea server: {} literals compared, tolerated {:?}",
        imp.compared, imp.tolerated
    );
}

#[test]
fn server_error_classes_for_each_kind() {
    let Some(server) = server_or_explain() else { return };
    let mut client = server.connect().expect("connect");
    use crossdec_harness::families::bytea::server::server_decode;
    use crossdec_harness::families::bytea::ByteaFault;
    type Expect<'a> = (&'a [u8], &'a str, Option<&'a [u8]>);
    let cases: [Expect; 6] = [
        (b"\\x0g", "22023", Some(b"g")),
        (b"\\x0\xc3\xa9", "22023", Some("é".as_bytes())),
        (b"\\x 0 1", "22023", Some(b" ")),
        (b"\\x012", "22023", None),
        (b"\\X00", "22P02", None),
        (b"ab\\400", "22P02", None),
    ];
    for (text, state, character) in cases {
        let got = server_decode(&mut client, text);
        assert_eq!(
            got,
            Err(ByteaFault::Server {
                sqlstate: state.into(),
                character: character.map(|c| c.to_vec())
            }),
            "{}",
            String::from_utf8_lossy(text)
        );
        assert!(reference::decode(text).is_err());
    }
    assert_eq!(
        server_decode(&mut client, b"\\x de\nAD ").map(|v| v.bytes),
        Ok(vec![0xde, 0xad])
    );
    assert_eq!(server_decode(&mut client, b"a\0b"), Err(ByteaFault::Unsendable));
}
