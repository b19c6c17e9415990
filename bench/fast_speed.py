"""Byte-budget cutting from Python, in one run on the same files: chunktui's
`Chunker(strategy="fast").offsets` against chonkie's Rust core
(`chonkie_core.chunk_offsets`), with the same settings (4096 bytes, delimiters
"\\n.?"), and chunktui's `chunk` for scale. Also counts chonkie's cuts inside a
UTF-8 character (ours: none, by construction).

    python bench/fast_speed.py [--size 4096] [--repeat 20]

Reads the shared corpus (CHUNKTUI_CORPUS, default ../shared/corpus) at run
time: its .md/.txt files, and all of them joined as a mix.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from pathlib import Path

import chonkie_core

import chunktui

REPO = Path(__file__).resolve().parent.parent


def corpus() -> list[tuple[str, bytes]]:
    folder = Path(os.environ.get("CHUNKTUI_CORPUS", REPO.parent / "shared" / "corpus"))
    files = sorted(p for p in folder.iterdir() if p.suffix in {".md", ".txt"} and p.name != "README.md")
    if not files:
        raise SystemExit(f"no corpus documents in {folder} (set CHUNKTUI_CORPUS)")
    named = [(p.name, p.read_bytes()) for p in files]
    return named + [("mix", b"\n".join(d for _, d in named))]


def best(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--repeat", type=int, default=20)
    args = ap.parse_args()
    size = args.size
    fast = chunktui.Chunker(strategy="fast", size=size, unit="bytes", fast={"delimiters": "\n.?"})
    recursive = chunktui.Chunker(strategy="recursive", size=size, overlap=0)
    print(f"{'file':28} {'MB':>6} {'chunktui fast.offsets':>22} {'chonkie_core':>14} {'recursive.chunk':>16}  chonkie cuts inside a char")
    for name, data in corpus():
        text = data.decode()
        mb = len(data) / 1e6
        ours = best(lambda: fast.offsets(data), args.repeat)
        theirs = best(lambda: chonkie_core.chunk_offsets(data, size=size, delimiters=b"\n.?"), args.repeat)
        slow = best(lambda: recursive.chunk(text), max(1, args.repeat // 10))
        offsets = chonkie_core.chunk_offsets(data, size=size, delimiters=b"\n.?")
        inside = sum(1 for _, e in offsets if e < len(data) and data[e] & 0xC0 == 0x80)
        print(
            f"{name:28} {mb:6.1f} {mb / ours / 1e3:18.2f} GB/s {mb / theirs / 1e3:9.2f} GB/s "
            f"{mb / slow:11.0f} MB/s  {inside} of {len(offsets)}"
        )


if __name__ == "__main__":
    main()
