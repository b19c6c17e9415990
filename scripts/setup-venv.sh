#!/usr/bin/env bash
# A Python venv with pinned requirements, from PyPI, kept in the user cache
# and named after what it holds (the requirement files and the Python
# version), so a fresh clone on a warm machine reuses it and a change of pins
# makes a new one (the old one of that name is removed). Idempotent.
# Prints the venv's folder on stdout.
#
# Usage: scripts/setup-venv.sh NAME REQUIREMENTS.txt...
#   e.g. scripts/setup-venv.sh tests bench/requirements.txt python/requirements-test.txt
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -lt 2 ]; then
  echo "usage: scripts/setup-venv.sh NAME REQUIREMENTS.txt..." >&2
  exit 2
fi
name="$1"
shift
CACHE="${CHUNKTUI_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/chunktui}"
PY="${PYTHON:-$(command -v python3 || true)}"
if [ -z "$PY" ]; then
  echo "setup-venv: python3 with venv and pip is needed (Debian: apt-get install python3-venv)" >&2
  exit 1
fi

key="$({ "$PY" -VV; cat "$@"; } | sha256sum | cut -c1-12)"
venv="$CACHE/venv-$name-$key"
if [ ! -f "$venv/.complete" ]; then
  echo "setup-venv: $* (PyPI) into $venv" >&2
  rm -rf "$CACHE/venv-$name-"*
  mkdir -p "$CACHE"
  "$PY" -m venv "$venv"
  reqs=()
  for r in "$@"; do reqs+=(-r "$r"); done
  "$venv/bin/pip" install --quiet --disable-pip-version-check --no-input "${reqs[@]}" >&2
  # Written last: a venv cut off half-way is made again next time.
  touch "$venv/.complete"
fi
echo "$venv"
