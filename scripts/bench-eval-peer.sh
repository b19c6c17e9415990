#!/usr/bin/env bash
# The first, uncached dense retrieval check against Python, in one run:
# `chunktui eval --retriever dense` with an empty embedding cache versus
# bench/onnx_peer.py (ONNX Runtime from Python + numpy ranking) on the same
# chunks, the same 100 questions and the same model, each given all cores.
#
#   bash scripts/bench-eval-peer.sh [DOCUMENT]    # default: ../shared/corpus/en_rust_book.md
#
# Both are timed as whole processes (chunktui's time also covers reading and
# chunking the document and scoring the answers). Also checks that the two
# return the same top 5 per question, so they did the same work.
# Needs: scripts/setup-models.sh (the model) and the tests' venv
# (scripts/setup-venv.sh, which scripts/test.sh runs too; made here if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
corpus="${CHUNKTUI_CORPUS:-../shared/corpus}"
doc="${1:-$corpus/en_rust_book.md}"
id="$(basename "${doc%.*}")"
python="$(bash scripts/setup-venv.sh tests bench/requirements.txt python/requirements-test.txt)/bin/python"

eval "$(bash scripts/setup-models.sh | grep '^export ')"
export ORT_DYLIB_PATH CHUNKTUI_MODEL_DIR
cargo build --release --quiet
bin=$PWD/target/release/chunktui
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# 100 distinct questions: our questions on this document, repeated with a
# numbered prefix (as benches/eval.rs does).
"$python" - "$id" tests/fixtures/questions/corpus.jsonl > "$work/questions.jsonl" <<'EOF'
import json, statistics, sys
doc, path = sys.argv[1], sys.argv[2]
rows = [json.loads(l) for l in open(path, encoding="utf-8") if l.strip()]
rows = [r for r in rows if r.get("corpus_id") == doc]
if not rows:
    sys.exit(f"no questions on {doc} in {path}")
for n in range(100):
    row = dict(rows[n % len(rows)])
    if n >= len(rows):
        row["question"] = f"({n // len(rows)}) {row['question']}"
    print(json.dumps(row, ensure_ascii=False))
EOF

"$bin" chunk "$doc" -o "$work/chunks.jsonl"
chunks=$(wc -l < "$work/chunks.jsonl")
echo "document: $doc ($(wc -c < "$doc") bytes), $chunks chunks (recursive 1000/200), 100 questions, top 5, $(nproc) cores"

# Alternating runs (chunktui, python, python, chunktui, ...) so that a
# change in the machine's load falls on both sides alike; each chunktui run
# starts from an empty cache.
rounds="${ROUNDS:-2}"
times=()
run_chunktui() {
  rm -rf "$work/cache"
  local t0=$EPOCHREALTIME
  CHUNKTUI_CACHE_DIR="$work/cache" "$bin" eval "$doc" --queries "$work/questions.jsonl" --corpus-id "$id" \
    --retriever dense --k 5 --json > "$work/chunktui.json"
  times+=("chunktui:$t0:$EPOCHREALTIME")
}
run_python() {
  local t0=$EPOCHREALTIME
  "$python" bench/onnx_peer.py retrieve --chunks "$work/chunks.jsonl" --queries "$work/questions.jsonl" --k 5 \
    > "$work/peer.json"
  times+=("python:$t0:$EPOCHREALTIME")
}
for ((r = 0; r < rounds; r++)); do
  if ((r % 2 == 0)); then run_chunktui; run_python; else run_python; run_chunktui; fi
done

"$python" - "$work/chunktui.json" "$work/peer.json" "${times[@]}" <<'EOF'
import json, statistics, sys
ours = [q["retrieved"] for q in json.load(open(sys.argv[1]))["per_question"]]
peer = json.load(open(sys.argv[2]))
same = sum(a == b for a, b in zip(ours, peer["retrieved"]))
runs: dict[str, list[float]] = {"chunktui": [], "python": []}
for arg in sys.argv[3:]:
    who, t0, t1 = arg.split(":")
    runs[who].append(float(t1) - float(t0))
t_ours, t_peer = statistics.median(runs["chunktui"]), statistics.median(runs["python"])
show = lambda v: ", ".join(f"{x:.1f}" for x in v)
print(f"chunktui eval (uncached)   median {t_ours:7.1f} s   runs: {show(runs['chunktui'])}")
print(f"python onnxruntime + numpy median {t_peer:7.1f} s   runs: {show(runs['python'])}")
print(f"python / chunktui                 {t_peer / t_ours:7.2f}x")
print(f"same top 5 on {same} of {len(ours)} questions")
EOF
