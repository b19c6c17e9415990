#!/usr/bin/env bash
# Re-cut cost of hand-made boundaries in the workbench: `chunktui bench` on a
# 9 MB file built from ../shared/corpus, without edits and with 1,000 of them
# (cuts and joins at random word starts, anchored as the workbench anchors
# them), one run after the other. docs/speed.md quotes it.
#   bash scripts/bench-edits.sh [CHANGES]     (default 30 parameter changes)
set -euo pipefail
cd "$(dirname "$0")/.."
changes=${1:-30}
corpus=${CHUNKTUI_CORPUS:-../shared/corpus}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cargo build --release --quiet
bin=${CARGO_TARGET_DIR:-target}/release/chunktui
python3 - "$corpus" "$work" <<'PY'
import json, random, sys
corpus, work = sys.argv[1], sys.argv[2]
names = ["en_rust_book.md", "zh_rust_book.md", "en_war_and_peace.txt"]
parts = [open(f"{corpus}/{n}", encoding="utf-8", newline="").read() for n in names]
text = "".join(parts)
while len(text.encode()) < 9_000_000:
    text += parts[0]
open(f"{work}/big.md", "w", encoding="utf-8", newline="").write(text)
random.seed(3)
lines = ["size = 700", "overlap = 100"]
for i in range(1000):
    at = text.find(" ", random.randrange(1000, len(text) - 1000)) + 1
    op = "cut" if i % 2 == 0 else "join"
    lines.append(
        f'[[edits]]\nop = "{op}"\nbefore = {json.dumps(text[at - 40:at], ensure_ascii=False)}\n'
        f'after = {json.dumps(text[at:at + 40], ensure_ascii=False)}\nnear = {len(text[:at].encode())}'
    )
open(f"{work}/edits.toml", "w", encoding="utf-8").write("\n".join(lines) + "\n")
open(f"{work}/plain.toml", "w", encoding="utf-8").write("size = 700\noverlap = 100\n")
PY
for cfg in plain edits; do
  echo "== $cfg"
  "$bin" bench "$work/big.md" -c "$work/$cfg.toml" -s recursive,sentence,markdown --changes "$changes"
done
