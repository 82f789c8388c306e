//! The external oracles (a real PostgreSQL server, the official TsFile
//! library) are tests that need something outside the repository. When it is
//! missing they fail, loudly, wherever they run: a green test command must
//! mean the oracles ran. A developer without them skips one by naming it:
//! `CROSSDEC_SKIP_ORACLES=bytea_server,tsfile_oracle cargo test`.

/// Whether `CROSSDEC_SKIP_ORACLES` names `oracle` (a test file's name).
pub fn skip_requested(oracle: &str) -> bool {
    std::env::var("CROSSDEC_SKIP_ORACLES").is_ok_and(|v| v.split(',').any(|name| name.trim() == oracle))
}

/// The oracle `oracle` cannot run (`why`): panics, unless a skip of it was
/// requested by name, in which case it says so on stderr and returns.
pub fn missing(oracle: &str, why: &str) {
    if !skip_requested(oracle) {
        panic!("{oracle}: {why} (to skip this oracle on purpose: CROSSDEC_SKIP_ORACLES={oracle})");
    }
    eprintln!("\n*** SKIPPED on request (CROSSDEC_SKIP_ORACLES): {oracle}: {why} ***\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_oracle_fails_unless_skipped_by_name() {
        // One test owns the variable (tests in this binary run in threads).
        std::env::remove_var("CROSSDEC_SKIP_ORACLES");
        assert!(std::panic::catch_unwind(|| missing("bytea_server", "no server")).is_err());
        std::env::set_var("CROSSDEC_SKIP_ORACLES", "tsfile_oracle, bytea_server");
        assert!(skip_requested("bytea_server") && skip_requested("tsfile_oracle"));
        missing("bytea_server", "no server");
        std::env::set_var("CROSSDEC_SKIP_ORACLES", "bytea_server_x");
        assert!(!skip_requested("bytea_server"));
        std::env::remove_var("CROSSDEC_SKIP_ORACLES");
    }
}
