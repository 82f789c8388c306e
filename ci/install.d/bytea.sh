#!/usr/bin/env bash
# pg-bytea: the real PostgreSQL server the server-backed tests hold the
# decoders against (Debian's `postgresql`, binaries under
# /usr/lib/postgresql/<ver>/bin). Idempotent; runs as root.
set -euo pipefail
if ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql
fi
id postgres >/dev/null 2>&1 || { echo "bytea: no postgres user after installing postgresql" >&2; exit 1; }
