#!/usr/bin/env bash
# pg-bytea: the pgjdbc subject (subjects/pgjdbc), pgjdbc's bytea decoder run
# as an external subject. Needs a JDK (javac compiles the subject) and
# Debian's pgjdbc jar (/usr/share/java/postgresql.jar). Idempotent; runs as
# root. Compiles the subject once so the first campaign does not pay for it.
set -euo pipefail
packages=(default-jdk-headless libpostgresql-jdbc-java)

missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
# A JDK installed some other way (e.g. openjdk-17-jdk-headless) will do.
if command -v javac >/dev/null 2>&1 && [ "${missing[0]:-}" = default-jdk-headless ]; then
  missing=("${missing[@]:1}")
fi
if [ "${#missing[@]}" -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Compile as the checkout's owner: ci/install runs this script as root
# (through sudo on a hosted runner), and a root-owned target/ would stop the
# later cargo build.
root="$(cd "$(dirname "$0")/../.." && pwd)"
owner_uid="$(stat -c %u "$root")" owner_gid="$(stat -c %g "$root")"
if [ "$(id -u)" = 0 ] && [ "$owner_uid" != 0 ]; then
  setpriv --reuid="$owner_uid" --regid="$owner_gid" --clear-groups \
    "$root/subjects/pgjdbc/run" --compile-only
else
  "$root/subjects/pgjdbc/run" --compile-only
fi
echo "pgjdbc subject ready ($(dpkg-query -W -f='${Version}' libpostgresql-jdbc-java))"
