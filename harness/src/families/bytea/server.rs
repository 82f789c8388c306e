//! The real PostgreSQL server as an oracle (x86_64 hosts only).
//!
//! [`PgServer::obtain`] connects to `CROSSDEC_PG_URL` (a libpq-style
//! key/value string or URL; `ci/env.d/bytea.sh` starts a server and exports
//! it) or, failing that, starts a private server from Debian's packages
//! (`/usr/lib/postgresql/<ver>/bin`) in a temporary directory listening on a
//! unix socket only, as the `postgres` user when running as root.
//!
//! [`peer`] is the `postgres-server` implementation of family `pg-bytea`:
//! every literal goes through `SELECT $1::text::bytea` (the server's
//! `byteain`) and comes back in binary format. It is available only when
//! `CROSSDEC_PG_ORACLE` is set (to a connection string), so the default
//! campaign never needs a server: `CROSSDEC_PG_ORACLE="$CROSSDEC_PG_URL"
//! crossdec run --family pg-bytea --impl postgres-server`.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use postgres::{Client, NoTls};

use super::{ByteaFault, ByteaInput, ByteaValue, PgBytea};
use crate::engine::{Buffers, Implementation, Role};

/// A server to talk to, and the private one we started, if any (stopped
/// and removed on drop).
pub struct PgServer {
    pub url: String,
    child: Option<Child>,
    dir: Option<PathBuf>,
}

impl Drop for PgServer {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            // SIGTERM-less kill is fine for a throwaway cluster.
            let _ = child.kill();
            let _ = child.wait();
        }
        if let Some(dir) = &self.dir {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// The directory with `initdb` and `postgres`, newest version first.
pub fn find_server_binaries() -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path().join("bin")))
        .filter(|bin| bin.join("initdb").exists() && bin.join("postgres").exists())
        .collect();
    dirs.sort_by_key(|d| {
        d.parent()
            .and_then(|v| v.file_name())
            .and_then(|v| v.to_str())
            .and_then(|v| v.parse::<u32>().ok())
            .unwrap_or(0)
    });
    dirs.pop()
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| o.stdout.trim_ascii() == b"0")
        .unwrap_or(false)
}

/// Run a server binary, as `postgres` when we are root (initdb and postgres
/// refuse to run as root).
fn server_command(bin: &std::path::Path, program: &str, root: bool) -> Command {
    if root {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(bin.join(program));
        c
    } else {
        Command::new(bin.join(program))
    }
}

impl PgServer {
    /// `CROSSDEC_PG_URL` if set, else a private server. Err says why not.
    pub fn obtain() -> Result<PgServer, String> {
        if let Ok(url) = std::env::var("CROSSDEC_PG_URL") {
            if !url.is_empty() {
                return Ok(PgServer {
                    url,
                    child: None,
                    dir: None,
                });
            }
        }
        Self::start_private()
    }

    /// Start a throwaway cluster from the Debian packages.
    pub fn start_private() -> Result<PgServer, String> {
        let bin = find_server_binaries()
            .ok_or("no PostgreSQL server binaries under /usr/lib/postgresql/*/bin (apt-get install postgresql)")?;
        let root = is_root();
        let stamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let dir = std::env::temp_dir().join(format!("crossdec-pg-{}-{stamp}", std::process::id()));
        let data = dir.join("data");
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let mut server = PgServer {
            url: String::new(),
            child: None,
            dir: Some(dir.clone()),
        };
        if root {
            let ok = Command::new("chown")
                .args(["postgres:postgres"])
                .arg(&dir)
                .status()
                .map(|s| s.success())
                .unwrap_or(false);
            if !ok {
                return Err(format!(
                    "could not chown {} to postgres (is there a postgres user?)",
                    dir.display()
                ));
            }
        }
        let out = server_command(&bin, "initdb", root)
            .args(["-A", "trust", "-E", "UTF8", "--locale=C", "-U", "postgres", "-D"])
            .arg(&data)
            .output()
            .map_err(|e| format!("initdb: {e}"))?;
        if !out.status.success() {
            return Err(format!("initdb failed: {}", String::from_utf8_lossy(&out.stderr)));
        }
        let child = server_command(&bin, "postgres", root)
            .arg("-D")
            .arg(&data)
            .args(["-c", "listen_addresses=", "-c", "fsync=off", "-p", "5432", "-k"])
            .arg(&dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("postgres: {e}"))?;
        server.child = Some(child);
        server.url = format!("host={} port=5432 user=postgres dbname=postgres", dir.display());
        let started = Instant::now();
        loop {
            match Client::connect(&server.url, NoTls) {
                Ok(_) => return Ok(server),
                Err(e) if started.elapsed() > Duration::from_secs(30) => {
                    return Err(format!("private server at {} did not come up: {e}", dir.display()))
                }
                Err(_) => std::thread::sleep(Duration::from_millis(100)),
            }
        }
    }

    pub fn connect(&self) -> Result<Client, String> {
        Client::connect(&self.url, NoTls).map_err(|e| format!("connect {}: {e}", self.url))
    }
}

/// What the server says about one literal: the bytes (received in binary
/// format) or its rejection.
pub fn server_decode(client: &mut Client, text: &[u8]) -> Result<ByteaValue, ByteaFault> {
    let Ok(s) = std::str::from_utf8(text) else {
        return Err(ByteaFault::Unsendable);
    };
    if s.contains('\0') {
        return Err(ByteaFault::Unsendable);
    }
    match client.query_one("SELECT $1::text::bytea", &[&s]) {
        Ok(row) => Ok(ByteaValue {
            bytes: row.get::<_, Vec<u8>>(0),
            consumed: text.len(),
        }),
        Err(e) => {
            let Some(db) = e.as_db_error() else {
                panic!("postgres-server: not a server error: {e}");
            };
            let character = db
                .message()
                .strip_prefix("invalid hexadecimal digit: \"")
                .and_then(|rest| rest.strip_suffix('"'))
                .map(|c| c.as_bytes().to_vec());
            Err(ByteaFault::Server {
                sqlstate: db.code().code().to_string(),
                character,
            })
        }
    }
}

/// Select `values` back as text with `bytea_output = output` ("hex" or
/// "escape"), together with the same values in binary format, in order.
pub fn select_text_and_binary(
    client: &mut Client,
    values: &[Vec<u8>],
    output: &str,
) -> Result<Vec<(String, Vec<u8>)>, postgres::Error> {
    let output = if output == "hex" { "hex" } else { "escape" };
    client.batch_execute(&format!("SET bytea_output = '{output}'"))?;
    let refs: Vec<&[u8]> = values.iter().map(|v| v.as_slice()).collect();
    let rows = client.query(
        "SELECT b::text, b FROM unnest($1::bytea[]) WITH ORDINALITY AS t(b, i) ORDER BY i",
        &[&refs],
    )?;
    Ok(rows
        .iter()
        .map(|r| (r.get::<_, String>(0), r.get::<_, Vec<u8>>(1)))
        .collect())
}

static ORACLE: Mutex<Option<Client>> = Mutex::new(None);

/// The `postgres-server` peer (see the module docs): available when
/// `CROSSDEC_PG_ORACLE` is set.
pub fn peer() -> Implementation<PgBytea> {
    peer_with_url(std::env::var("CROSSDEC_PG_ORACLE").ok().filter(|u| !u.is_empty()))
}

/// The `postgres-server` peer talking to `url` (unavailable when `None`).
/// All decoder instances share one connection.
pub fn peer_with_url(url: Option<String>) -> Implementation<PgBytea> {
    let available = url.is_some();
    Implementation::new("postgres-server", Role::Peer, available, move || {
        let url = url.clone().unwrap_or_default();
        move |input: &ByteaInput, _: &mut Buffers| {
            let mut guard = ORACLE.lock().unwrap_or_else(|p| p.into_inner());
            if guard.is_none() {
                match Client::connect(&url, NoTls) {
                    Ok(c) => *guard = Some(c),
                    Err(e) => panic!("postgres-server: cannot connect to {url}: {e}"),
                }
            }
            let client = guard.as_mut().expect("connected above");
            server_decode(client, &input.text)
        }
    })
}
