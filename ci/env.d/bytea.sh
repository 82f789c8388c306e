# Sourced by ci/test. pg-bytea: start a throwaway PostgreSQL server on a unix
# socket in a temporary directory and export CROSSDEC_PG_URL for the
# server-backed tests (harness/tests/bytea_server.rs). If the server cannot
# be started this fails, and with it the test command (ci/test sources it
# under `set -e`).
bytea_start_pg() {
  local bin dir
  bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -z "$bin" ] || [ ! -x "$bin/postgres" ]; then
    echo "bytea: no PostgreSQL server binaries (run ci/install.d/bytea.sh)" >&2
    return 1
  fi
  dir=$(mktemp -d /tmp/crossdec-pg-ci.XXXXXX)
  local as=()
  if [ "$(id -u)" = 0 ]; then
    chown postgres:postgres "$dir"
    as=(runuser -u postgres --)
  fi
  if ! "${as[@]}" "$bin/initdb" -A trust -E UTF8 --locale=C -U postgres -D "$dir/data" >"$dir/initdb.log" 2>&1; then
    echo "bytea: initdb failed:" >&2; cat "$dir/initdb.log" >&2; return 1
  fi
  if ! "${as[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-c listen_addresses= -c fsync=off -p 5432 -k $dir" start >/dev/null; then
    echo "bytea: server did not start:" >&2; cat "$dir/server.log" >&2; return 1
  fi
  export CROSSDEC_PG_URL="host=$dir port=5432 user=postgres dbname=postgres"
  BYTEA_PG_STOP=("${as[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop)
  BYTEA_PG_DIR=$dir
  crossdec_at_exit+=(bytea_stop_pg)
  echo "bytea: PostgreSQL $("$bin/postgres" --version | awk '{print $3}') at $CROSSDEC_PG_URL"
}
# The server and its directory go when the test command exits.
bytea_stop_pg() {
  "${BYTEA_PG_STOP[@]}" >/dev/null 2>&1 || true
  rm -rf "$BYTEA_PG_DIR"
}
bytea_start_pg
