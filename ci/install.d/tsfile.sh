#!/usr/bin/env bash
# One-time setup for the TsFile oracle: a Python virtual environment with the
# official Apache TsFile library (PyPI `tsfile` 2.5.x) that
# ci/tsfile/generate.py uses to write fresh random TsFiles each CI run.
# Idempotent; runs as root. The venv lives at $CROSSDEC_TSFILE_VENV
# (default /opt/crossdec-venv); ci/env.d/tsfile.sh points the tests at it.
set -euo pipefail
venv="${CROSSDEC_TSFILE_VENV:-/opt/crossdec-venv}"
requirements="$(cd "$(dirname "$0")/../tsfile" && pwd)/requirements.txt"

# Imports run from / : in the checkout, the crate directory tsfile/ would
# pass for the package (a namespace package) when the venv lacks it.
if [ -x "$venv/bin/python" ] && (cd / && "$venv/bin/python" -c 'import tsfile') 2>/dev/null; then
  echo "tsfile venv ready at $venv"
  exit 0
fi
if ! python3 -m venv --help >/dev/null 2>&1; then
  apt-get update
  apt-get install -y python3-venv python3-pip
fi
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet -r "$requirements"
(cd / && "$venv/bin/python" -c 'import tsfile; print("tsfile venv ready at '"$venv"'")')
