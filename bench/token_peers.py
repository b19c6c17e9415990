"""Token-limited chunking in cl100k_base, 512 tokens with 50 of overlap,
against its peers on the same files in one run (issue 49's peer row):

- tiktoken: `encode_ordinary` and fixed 512-token windows, stride 462
  (the one-pass baseline: no boundaries respected);
- LangChain's `TokenTextSplitter(encoding_name="cl100k_base")`;
- semchunk, `chunkerify(cl100k, 512)` with `overlap=50`;
- the text-splitter crate, `TextSplitter` sized by tiktoken-rs's
  cl100k_base (`rust-peer token_splitter_cl100k`, built by
  ../shared/bench/setup.sh);
- chunktui `recursive --unit tokens`: the chunker's own time as
  `chunktui stats` reports it (the peers' measure: the split call, warm),
  and `chunktui chunk` as a whole process (start, read, cut, JSONL).

Each figure is the median of --reps runs in MB/s of input, the chunk count
in brackets. Python peers run in this process, warm (one untimed call
first). Needs the peer venv of ../shared/bench (langchain, semchunk,
tiktoken) and a release build:

    bash ../shared/bench/setup.sh
    cargo build --release
    ~/.cache/chunktui-peers/venv/bin/python bench/token_peers.py \\
        --cli target/release/chunktui ../shared/corpus/*.md
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

SIZE, OVERLAP = 512, 50
PEERS_CACHE = Path(os.environ.get("CHUNKTUI_PEERS_CACHE", Path.home() / ".cache/chunktui-peers"))
RUST_PEER = PEERS_CACHE / "rust-peer-target/release/rust-peer"


def windows(tokens: int, size: int = SIZE, overlap: int = OVERLAP) -> list[tuple[int, int]]:
    """Fixed windows of `size` tokens, each `overlap` into the last."""
    step = size - overlap
    out = []
    start = 0
    while start < tokens:
        out.append((start, min(start + size, tokens)))
        if start + size >= tokens:
            break
        start += step
    return out


def median_seconds(run: Callable[[], int], reps: int) -> tuple[float, int]:
    """The median time of `run` after one untimed call, and its chunk count."""
    chunks = run()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times), chunks


def python_peers() -> dict[str, Callable[[str], int]]:
    """Each Python peer as text -> chunk count (imports here: only this run needs them)."""
    import tiktoken
    # semchunk is in the peer venv only (not the tests'): untyped here.
    semchunk = importlib.import_module("semchunk")
    from langchain_text_splitters import TokenTextSplitter

    enc = tiktoken.get_encoding("cl100k_base")
    langchain = TokenTextSplitter(encoding_name="cl100k_base", chunk_size=SIZE, chunk_overlap=OVERLAP)
    chunker = semchunk.chunkerify(enc, SIZE)

    def baseline(text: str) -> int:
        tokens = enc.encode_ordinary(text)
        return len([enc.decode(tokens[a:b]) for a, b in windows(len(tokens))])

    return {
        "tiktoken `encode_ordinary` + windows (baseline)": baseline,
        "LangChain `TokenTextSplitter` (decoded)": lambda text: len(langchain.split_text(text)),
        "semchunk 4 (boundary-aware)": lambda text: len(chunker(text, overlap=OVERLAP)),
    }


def rust_text_splitter(file: Path, reps: int) -> tuple[float, int]:
    """The text-splitter crate through the peer harness's binary (its own timing)."""
    if not os.access(RUST_PEER, os.X_OK):
        sys.exit(f"{RUST_PEER} missing: run `bash ../shared/bench/setup.sh` first")
    line = subprocess.run(
        [str(RUST_PEER), "token_splitter_cl100k", str(file), "--reps", str(reps)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split("\t")
    return float(line[5]), int(line[4])


def chunktui_stats(cli: str, file: Path, reps: int) -> tuple[float, int]:
    """The chunker's time as `chunktui stats` reports it (median of reps processes)."""
    times, chunks = [], 0
    for _ in range(reps):
        out = subprocess.run(
            [cli, "stats", str(file), "--unit", "tokens", "--size", str(SIZE), "--overlap", str(OVERLAP)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        times.append(float(re.search(r"chunked in ([0-9.]+) s", out).group(1)))  # type: ignore[union-attr]
        chunks = int(re.search(r"chunks: (\d+)", out).group(1))  # type: ignore[union-attr]
    return statistics.median(times), chunks


def chunktui_process(cli: str, file: Path, reps: int) -> tuple[float, int]:
    """`chunktui chunk` as a whole process, JSONL to a pipe (median of reps)."""
    command = [cli, "chunk", str(file), "--unit", "tokens", "--size", str(SIZE), "--overlap", str(OVERLAP)]
    times, chunks = [], 0
    for _ in range(reps):
        start = time.perf_counter()
        out = subprocess.run(command, check=True, capture_output=True).stdout
        times.append(time.perf_counter() - start)
        chunks = out.count(b"\n")
    return statistics.median(times), chunks


def table(files: Sequence[Path], rows: dict[str, list[tuple[float, int]]]) -> str:
    """The markdown table: MB/s (chunks) per row and file."""
    sizes = [f.stat().st_size / 1e6 for f in files]
    head = "| cl100k 512 / 50 | " + " | ".join(f"{f.name} ({mb:.2f} MB)" for f, mb in zip(files, sizes)) + " |"
    lines = [head, "|---|" + "---:|" * len(files)]
    for name, cells in rows.items():
        figures = [f"{mb / seconds:.1f} ({chunks})" for (seconds, chunks), mb in zip(cells, sizes)]
        lines.append(f"| {name} | " + " | ".join(figures) + " |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("--cli", required=True, help="the chunktui binary (a release build)")
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(PEERS_CACHE / "tiktoken"))
    peers = python_peers()
    rows: dict[str, list[tuple[float, int]]] = {name: [] for name in peers}
    rows["text-splitter crate 0.33 (boundary-aware)"] = []
    rows["**chunktui `recursive --unit tokens`** (chunker)"] = []
    rows["**chunktui `chunk`** (whole process)"] = []
    for file in args.files:
        text = file.read_text(encoding="utf-8")
        for name, peer in peers.items():
            rows[name].append(median_seconds(lambda: peer(text), args.reps))
        rows["text-splitter crate 0.33 (boundary-aware)"].append(rust_text_splitter(file, args.reps))
        rows["**chunktui `recursive --unit tokens`** (chunker)"].append(chunktui_stats(args.cli, file, args.reps))
        rows["**chunktui `chunk`** (whole process)"].append(chunktui_process(args.cli, file, args.reps))
        print(f"{file.name}: done", file=sys.stderr)
    print(table(args.files, rows))


if __name__ == "__main__":
    main()
