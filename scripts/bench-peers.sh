#!/usr/bin/env bash
# chunktui against its peers in one run (the tables in docs/speed.md).
# Needs `bash ../shared/bench/setup.sh` once. Writes target/peers.tsv.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
B=$PWD/target/release/chunktui
opts=(--chunks-re 'chunks: (\d+)' --seconds-re 'chunked in ([0-9.]+) s')
bash ../shared/bench/peers.sh --name chunktui \
  --cmd "$B stats {file} --strategy recursive --size 1000 --overlap 200" --cmd-task recursive_chars "${opts[@]}" \
  --cmd "$B stats {file} --strategy langchain-recursive --size 1000 --overlap 200" --cmd-task recursive_chars "${opts[@]}" \
  --cmd "$B stats {file} --strategy recursive --unit tokens --tokenizer hf:{tokenizer} --size 512 --overlap 50" --cmd-task token_512_50 "${opts[@]}" \
  --cmd "$B stats {file} --strategy sentence --unit tokens --tokenizer hf:{tokenizer} --size 512 --overlap 50" --cmd-task token_512_50 "${opts[@]}" \
  --cmd "$B stats {file} --strategy fixed --unit tokens --tokenizer hf:{tokenizer} --size 512 --overlap 50" --cmd-task token_512_50 "${opts[@]}" \
  "$@" > target/peers.tsv
column -t -s $'\t' target/peers.tsv
