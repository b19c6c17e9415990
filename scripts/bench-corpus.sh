#!/usr/bin/env bash
# `chunktui chunk` over a directory of 1,000+ mixed files made from the shared
# corpus (Markdown and text cut at line ends, plus this repository's own
# source code), on 1 and 2 threads: files/s and MB/s, the scaling, and a check
# that both outputs are byte-identical. Then the largest single file alone.
#
#   bash scripts/bench-corpus.sh [FILES]      # default 5000 (fewer runs too briefly to show the scaling)
set -euo pipefail
cd "$(dirname "$0")/.."
corpus="${CHUNKTUI_CORPUS:-../shared/corpus}"
want="${1:-5000}"
cargo build --release --quiet
bin=$PWD/target/release/chunktui
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The directory: each corpus document cut into ~4 KB files at line ends, in
# folders of 100, and our own src/**/*.rs (code strategy); repeated until
# there are enough files.
python3 - "$corpus" "$work/docs" "$want" <<'EOF'
import os, pathlib, sys
corpus, out, want = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), int(sys.argv[3])
sources = [p for p in sorted(corpus.iterdir()) if p.suffix in (".md", ".txt")]
sources += sorted(pathlib.Path("src").rglob("*.rs"))
n = 0
while n < want:
    for src in sources:
        text = src.read_text(encoding="utf-8")
        pieces = [text] if src.suffix == ".rs" else []
        while text and src.suffix != ".rs":
            cut = text.rfind("\n", 0, 4096) + 1 if len(text) > 4096 else len(text)
            pieces.append(text[: cut or len(text)])
            text = text[cut or len(text):]
        for piece in pieces:
            target = out / f"d{n // 100:03}" / f"{src.stem}-{n:05}{src.suffix}"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(piece, encoding="utf-8")
            n += 1
            if n >= want:
                sys.exit(0)
EOF
files=$(find "$work/docs" -type f | wc -l)
bytes=$(du -sb "$work/docs" | cut -f1)
echo "directory: $files files, $((bytes / 1024)) KiB (markdown, text, rust); $(nproc) cores"

run() { # threads -> seconds (best of 3)
  local best=""
  for _ in 1 2 3; do
    local t0=$EPOCHREALTIME
    "$bin" chunk "$work/docs" --jobs "$1" -o "$work/out-$1.jsonl" 2>/dev/null
    local t=$(python3 -c "print($EPOCHREALTIME - $t0)")
    best=$(python3 -c "print(min(x for x in [$t, ${best:-$t}]))")
  done
  echo "$best"
}
one=$(run 1)
two=$(run 2)
cmp -s "$work/out-1.jsonl" "$work/out-2.jsonl" && same="byte-identical" || same="DIFFERENT"
python3 - "$files" "$bytes" "$one" "$two" "$same" <<'EOF'
import sys
files, size, one, two, same = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
for threads, t in ((1, one), (2, two)):
    print(f"{threads} thread(s): {t:6.2f} s  {files / t:8.0f} files/s  {size / t / 1e6:6.1f} MB/s")
print(f"scaling 1 -> 2 threads: {one / two:.2f}x (linear: 2.00x); outputs {same}")
EOF

largest=$(ls -S "$corpus"/*.md "$corpus"/*.txt | head -1)
t0=$EPOCHREALTIME
"$bin" chunk "$largest" -o "$work/largest.jsonl"
python3 -c "import os; t = $EPOCHREALTIME - $t0; s = os.path.getsize('$largest'); print(f'largest file alone: {os.path.basename(\"$largest\")} {s / 1e6:.1f} MB in {t:.2f} s = {s / t / 1e6:.1f} MB/s (one file is one thread)')"
