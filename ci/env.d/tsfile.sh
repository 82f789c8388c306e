# Sourced by ci/test: the Python with the official `tsfile` package that the
# tsfile_oracle test runs ci/tsfile/generate.py with (see ci/install.d/tsfile.sh).
if [ -x "${CROSSDEC_TSFILE_VENV:-/opt/crossdec-venv}/bin/python" ]; then
  export CROSSDEC_TSFILE_PYTHON="${CROSSDEC_TSFILE_VENV:-/opt/crossdec-venv}/bin/python"
fi
