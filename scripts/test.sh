#!/usr/bin/env bash
# Set up everything the tests need, then run them all. This is the README's
# test command and what CI (.ci/run) calls.
#
#   bash scripts/test.sh            # all tests (the real ONNX model, tmux end-to-end)
#   bash scripts/test.sh -- ARGS    # only `cargo nextest run ARGS` (a name filter, --test NAME, ...)
#
# Installs, when missing: tmux, GNU time, script, setpriv, a Java runtime
# (Debian packages), cargo-nextest (crates.io), and into the user cache
# (~/.cache/chunktui, or $CHUNKTUI_CACHE_DIR), each from PyPI and named after
# its pins so that a fresh clone on a warm machine reuses it:
#   - ONNX Runtime + the default embedding model (scripts/setup-models.sh)
#   - sentence-transformers' reference vectors (scripts/st-reference.sh:
#     torch in a venv removed again once the reference is made)
#   - the local LLM server, llama.cpp's own in the xllamacpp wheel, and
#     SmolLM2-135M (scripts/setup-llm.sh)
#   - all-MiniLM-L6-v2 converted to GGUF for that server's /v1/embeddings
#     (scripts/setup-embed-server.sh)
#   - the venvs of the Python tests and of ragas (scripts/setup-venv.sh)
# Cargo builds into a target folder in the same cache, keyed by the toolchain
# and the lock files (as CI systems cache target/): cargo's own fingerprints
# decide what is stale, so a fresh clone rebuilds only chunktui itself. Set
# CARGO_TARGET_DIR to build elsewhere.
#
# The set-up runs in the background while cargo compiles; the tests run with
# cargo-nextest (every test binary side by side, the slowest first:
# .config/nextest.toml). A table of every step's time ends each run.
# Reads ../shared/corpus and ../shared/models (the multilingual test model),
# or CHUNKTUI_CORPUS and CHUNKTUI_TEST_MODEL when set.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/timing.sh
. scripts/timing.sh

whole_run=1
if [ "${1:-}" = "--" ]; then
  shift
  whole_run=0
fi

CACHE="${CHUNKTUI_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/chunktui}"
mkdir -p "$CACHE"
# One run at a time per cache: runs share its venvs and target folder (the
# binary the tests drive, the package installed into the venv).
exec 9>"$CACHE/.test.lock"
if ! flock -n 9; then
  echo "test.sh: another test.sh run uses $CACHE: waiting for it (or set CHUNKTUI_CACHE_DIR)" >&2
  flock 9
fi
# A new machine needs ~7 GB for torch (removed again) and ~9 GB for cargo's
# target folder; a full disk shows up as an unexplained build error.
free_gb="$(df -Pk "$CACHE" | awk 'NR == 2 { print int($4 / 1048576) }')"
if [ -n "$free_gb" ] && [ "$free_gb" -lt 20 ]; then
  echo "test.sh: WARNING: only $free_gb GB free for $CACHE; a first run needs up to 20 GB" >&2
fi
# What the background set-up steps hand over (export lines), one file each.
ENVS="$(mktemp -d)"
# Every runner's counts ("passed failed skipped" a line, background steps'
# too), added up into the run's closing line.
COUNTS="$(mktemp)"
descendants() { # PID: every process it started, children before theirs
  local child
  for child in $(pgrep -P "$1" 2>/dev/null); do
    echo "$child"
    descendants "$child"
  done
}
on_exit() {
  local status=$? job name
  # A failed step leaves the background ones running: stop them with the
  # run, the whole tree gathered first, so no parent starts a next command.
  for job in $(jobs -p); do
    # shellcheck disable=SC2046
    kill "$job" $(descendants "$job") 2>/dev/null || true
  done
  # A background step that failed unwaited-for (a foreground one failed
  # first) still shows what it said: it may be the cause.
  while IFS=$'\t' read -r _ _ _ name; do
    [ -f "$TIMING_LOGS/$name.log" ] || continue
    echo "test.sh: $name failed; its output:" >&2
    cat "$TIMING_LOGS/$name.log" >&2
    rm -f "$TIMING_LOGS/$name.log"
  done < <(awk -F'\t' '$3 ~ /^FAILED/' "$TIMING_FILE")
  timing_summary
  rm -rf "$ENVS"
  awk '{ p += $1; f += $2; s += $3 } END { printf "all runners: %d passed, %d failed, %d skipped\n", p, f, s }' "$COUNTS"
  rm -f "$COUNTS"
  exit $status
}

# counted KIND CMD...: runs a test runner with its output shown, and adds
# its closing counts (KIND: nextest, libtest or pytest) to the tally.
counted() {
  local kind="$1" out status=0 line
  shift
  out="$(mktemp)"
  "$@" 2>&1 | tee "$out" || status=$?
  # Colour codes would hide the lines looked for.
  sed -i 's/\x1b\[[0-9;]*m//g' "$out"
  case "$kind" in
    nextest) line="$(grep -E '^ *Summary \[' "$out" | tail -n1)" ;;
    libtest) line="$(grep -E '^test result: ' "$out" | tr ';' ',')" ;;
    pytest) line="$(grep -E '^=* *[0-9]+ [a-z]+.* in [0-9.]+s' "$out" | tail -n1)" ;;
  esac
  rm -f "$out"
  sum() { echo "$line" | grep -oE "[0-9]+ $1" | awk '{ n += $1 } END { print n + 0 }'; }
  local failed
  failed=$(($(sum '(exec )?failed') + $(sum 'errors?') + $(sum 'timed out')))
  # A runner that failed before its summary (a build error, a crash) counts
  # as a failure, not as nothing.
  if [ $status != 0 ] && [ $failed = 0 ]; then failed=1; fi
  echo "$(sum passed) $failed $(($(sum skipped) + $(sum ignored)))" >>"$COUNTS"
  return $status
}
trap on_exit EXIT

# The tests read CHUNKTUI_CORPUS when it is set (tests/common/data.rs).
corpus="${CHUNKTUI_CORPUS:-../shared/corpus}"
if [ ! -d "$corpus" ]; then
  echo "test.sh: $corpus is missing: the tests read the shared corpus from there (set CHUNKTUI_CORPUS)" >&2
  exit 1
fi

# Debian packages the tests drive: tmux (end-to-end), GNU time (peak memory
# in tests/limits.rs), script and setpriv (a terminal for a silent FIFO; a
# non-root reader for permission errors), Java (the Spark lines of docs/python.md),
# libgomp (the LLM server's OpenMP runtime).
debian_packages() {
  local missing=""
  command -v tmux >/dev/null 2>&1 || missing="$missing tmux"
  [ -x /usr/bin/time ] || missing="$missing time"
  command -v script >/dev/null 2>&1 || missing="$missing bsdutils"
  command -v setpriv >/dev/null 2>&1 || missing="$missing util-linux"
  command -v java >/dev/null 2>&1 || missing="$missing openjdk-17-jre-headless"
  dpkg -s libgomp1 >/dev/null 2>&1 || missing="$missing libgomp1"
  command -v pgrep >/dev/null 2>&1 || missing="$missing procps"
  # The set-up scripts make venvs and download with pip.
  python3 -c 'import venv, ensurepip, pip' >/dev/null 2>&1 || missing="$missing python3-venv python3-pip"
  [ -z "$missing" ] && return 0
  echo "test.sh: installing$missing (Debian)" >&2
  local sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq >/dev/null || return
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing >/dev/null
}
step "Debian packages" debian_packages

# cargo-nextest runs the test binaries side by side. New machines of this
# kind have it; elsewhere it comes from crates.io (a few minutes, once).
install_nextest() {
  cargo nextest --version >/dev/null 2>&1 && return 0
  cargo install --locked cargo-nextest
}
step "cargo-nextest" install_nextest

# The build cache: cargo's target folder in the user cache, one per toolchain
# and lock files; those of other toolchains and lock files are removed (the
# lock above keeps another run from using one meanwhile).
if [ -z "${CARGO_TARGET_DIR:-}" ]; then
  key="$(rustc -vV | sha256sum | cut -c1-8)-$(cat Cargo.lock python/Cargo.lock | sha256sum | cut -c1-8)"
  CARGO_TARGET_DIR="$CACHE/target/$key"
  find "$CACHE/target" -mindepth 1 -maxdepth 1 -not -name "$key" -exec rm -rf {} + 2>/dev/null || true
fi
export CARGO_TARGET_DIR
echo "test.sh: cargo builds into $CARGO_TARGET_DIR" >&2
# CI builds a fresh clone, which an incremental cache from another folder
# does not serve: writing one only costs time there.
if [ -n "${CI:-}" ]; then
  export CARGO_INCREMENTAL=0
fi
# mypy's cache beside the others: it checks each file's hash, so a fresh
# clone reuses what did not change.
export MYPY_CACHE_DIR="$CACHE/mypy"

# Functions run by `step` are called in an `||` list, where `set -e` is off:
# each returns its first failure itself.

# The set-up, in the background while cargo compiles. Each writes the
# variables the tests read to a file of its own, read in once it is done.
exports_of() { # FILE CMD... : CMD's export lines into FILE
  local file="$1"
  shift
  local out
  out="$("$@")" || return
  echo "$out" | grep '^export ' >"$file"
}
venv_python() { # FILE VAR NAME REQS... : VAR=the python of venv NAME
  local file="$1" var="$2"
  shift 2
  local venv
  venv="$(bash scripts/setup-venv.sh "$@")" || return
  printf 'export %s=%q\n' "$var" "$venv/bin/python" >"$file"
}
step_bg "models (ONNX Runtime, MiniLM)" exports_of "$ENVS/models" bash scripts/setup-models.sh
step_bg "LLM server (xllamacpp, SmolLM2)" exports_of "$ENVS/llm" bash scripts/setup-llm.sh
step_bg "sentence-transformers reference" exports_of "$ENVS/st" bash scripts/st-reference.sh
step_bg "ragas venv" venv_python "$ENVS/ragas" CHUNKTUI_RAGAS_PYTHON ragas tests/python/requirements-ragas.txt
step_bg "embeddings server model (MiniLM GGUF)" exports_of "$ENVS/embed" bash scripts/setup-embed-server.sh
# Also the Rust tests' LangChain reference (tests/embed_api.rs runs its python).
step_bg "Python tests venv" venv_python "$ENVS/py" TESTS_PYTHON tests bench/requirements.txt python/requirements-test.txt

cargo_style() {
  # The style the repository holds itself to (rustfmt.toml, [lints] in Cargo.toml).
  if ! cargo fmt --version >/dev/null 2>&1 || ! cargo clippy --version >/dev/null 2>&1; then
    echo "test.sh: rustfmt or clippy is missing: rustup component add rustfmt clippy" >&2
    return 1
  fi
  cargo fmt --all --check || return
  # The Python package's crate is not a workspace member: checked on its own.
  cargo fmt --check --manifest-path python/Cargo.toml
}
if [ $whole_run = 1 ]; then
  step "cargo fmt --check" cargo_style
fi
# The tests and the binary they drive build in the `suite` profile (Cargo.toml);
# clippy and the core's check too, so that the build scripts and proc-macros
# all of them run are compiled once.
PROFILE=(--cargo-profile suite)
if [ $whole_run = 1 ]; then
  step "clippy (warnings are errors)" cargo clippy --locked --all-features --all-targets --profile suite -- -D warnings
fi
step "build the tests" cargo nextest run --locked --all-features "${PROFILE[@]}" --no-run

# The core alone must not pull in ONNX Runtime, hashing, cache paths or any
# terminal crate.
core_alone() {
  local core_deps
  core_deps="$(cargo tree --locked --no-default-features -e normal --prefix none | cut -d' ' -f1 | sort -u)" || return
  for heavy in ort sha2 dirs ratatui crossterm clap notify syntect indicatif; do
    if echo "$core_deps" | grep -qx "$heavy"; then
      echo "test.sh: the core (default-features = false) depends on $heavy" >&2
      return 1
    fi
  done
  cargo check --locked --lib --no-default-features --profile suite
}
if [ $whole_run = 1 ]; then
  step "the core alone (--no-default-features)" core_alone
fi

# The Python package (python/: PyO3 through maturin) in the suite profile, as
# a wheel installed into the tests' venv: a release build is packaging, not a test.
python_package() {
  local wheels="$CARGO_TARGET_DIR/wheels"
  rm -rf "$wheels"
  "$(dirname "$TESTS_PYTHON")/maturin" build --profile suite --manifest-path python/Cargo.toml \
    --interpreter "$TESTS_PYTHON" --out "$wheels" || return
  "$TESTS_PYTHON" -m pip install --quiet --disable-pip-version-check --no-deps --force-reinstall "$wheels"/chunktui-*.whl
}
if [ $whole_run = 1 ]; then
  wait_bg "Python tests venv"
  # shellcheck source=/dev/null
  . "$ENVS/py"
  step "build the Python package (maturin, suite profile)" python_package
fi

for setup in "models (ONNX Runtime, MiniLM)" "LLM server (xllamacpp, SmolLM2)" "sentence-transformers reference" \
  "ragas venv" "embeddings server model (MiniLM GGUF)"; do
  wait_bg "$setup"
done
if [ $whole_run = 0 ]; then
  wait_bg "Python tests venv"
fi
for f in "$ENVS"/models "$ENVS"/llm "$ENVS"/st "$ENVS"/ragas "$ENVS"/embed "$ENVS"/py; do
  # shellcheck source=/dev/null
  . "$f"
done
export CHUNKTUI_TESTS_PYTHON="$TESTS_PYTHON"
export ORT_DYLIB_PATH CHUNKTUI_MODEL_DIR CHUNKTUI_LLM_PYTHON CHUNKTUI_LLM_GGUF CHUNKTUI_ST_REFERENCE CHUNKTUI_RAGAS_PYTHON \
  CHUNKTUI_EMBED_GGUF

# Property tests draw from one fixed seed here, so a run is repeatable and a
# red CI can be replayed exactly; hunt with another seed (or more cases:
# PROPTEST_CASES) by setting PROPTEST_RNG_SEED yourself. Cases that once
# failed stay in tests/proptest-regressions and always run first.
export PROPTEST_RNG_SEED="${PROPTEST_RNG_SEED:-20261202}"

if [ $whole_run = 0 ]; then
  step "cargo nextest run $*" counted nextest cargo nextest run --locked --all-features "${PROFILE[@]}" "$@"
  exit 0
fi

# The Python side: typed (mypy --strict, mypy.ini) and tested with pytest in
# the tests' venv (bench/requirements.txt, python/requirements-test.txt),
# driving the chunktui binary just built. It runs beside the Rust tests: many
# of those wait on processes, a terminal or a server, and leave a core idle.
python_tests() {
  local status=0
  "$(dirname "$TESTS_PYTHON")/mypy" bench tests/python python/chunktui python/tests || {
    status=1
    echo "0 1 0" >>"$COUNTS" # mypy's errors count as a failure
  }
  counted pytest env CHUNKTUI_BIN="$CARGO_TARGET_DIR/suite/chunktui" \
    "$TESTS_PYTHON" -m pytest -q -p no:cacheprovider --durations=10 bench tests/python python/tests || status=1
  return $status
}
step_bg "mypy and pytest (beside the Rust tests)" python_tests

status=0
step "Rust tests (nextest)" counted nextest cargo nextest run --locked --all-features "${PROFILE[@]}" --no-fail-fast || status=1
step "doc tests" counted libtest cargo test --locked --all-features --profile suite --doc || status=1
wait_bg "mypy and pytest (beside the Rust tests)" show || status=1

# Last, as it replaces the binary the tests above drive (target/suite/chunktui)
# with one built without the model layer: the workbench without ONNX support
# must still run, saying what to do for a model strategy (tests/no_model.rs).
step "the workbench without embed (tests/no_model.rs)" \
  counted nextest cargo nextest run --locked --no-default-features --features tui "${PROFILE[@]}" --test no_model || status=1
exit $status
