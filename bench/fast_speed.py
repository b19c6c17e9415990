"""Byte-budget cutting from Python, in one run on the same files: chunktui's
`Chunker(strategy="fast").offsets` against chonkie's Rust core
(`chonkie_core.chunk_offsets`) and chonkie's `FastChunker`, with chonkie's
defaults (4096 bytes, delimiters "\\n.?"), and `recursive` through `offsets`
for scale. Rounds are interleaved (each round runs every contender once, in
turn) and each figure is the median over the rounds. Also checks that the
offsets are chonkie's where chonkie never cuts inside a UTF-8 character,
and counts chonkie's cuts inside one (ours: none, by construction).

    python bench/fast_speed.py [--size 4096] [--rounds 15] [FILE...]

Without files it reads the shared corpus (CHUNKTUI_CORPUS, default
../shared/corpus) at run time: its .md/.txt files, and all of them joined as
a mix of at least 9 MB (the corpus repeated).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import chonkie_core
from chonkie import FastChunker

import chunktui

REPO = Path(__file__).resolve().parent.parent
MIX_BYTES = 9_000_000


def corpus(paths: list[str]) -> list[tuple[str, bytes]]:
    if paths:
        return [(Path(p).name, Path(p).read_bytes()) for p in paths]
    folder = Path(os.environ.get("CHUNKTUI_CORPUS", REPO.parent / "shared" / "corpus"))
    files = sorted(p for p in folder.iterdir() if p.suffix in {".md", ".txt"} and p.name != "README.md")
    if not files:
        raise SystemExit(f"no corpus documents in {folder} (set CHUNKTUI_CORPUS)")
    named = [(p.name, p.read_bytes()) for p in files]
    mix = b"\n".join(d for _, d in named)
    while len(mix) < MIX_BYTES:
        mix = mix + b"\n" + mix
    return named + [("mix", mix)]


def inside_a_character(data: bytes, offsets: list[tuple[int, int]]) -> int:
    """Chunks that end before a UTF-8 continuation byte (10xxxxxx)."""
    return sum(1 for _, e in offsets if e < len(data) and data[e] & 0xC0 == 0x80)


def same_up_to_first_bad_cut(data: bytes, ours: list[int], theirs: list[tuple[int, int]]) -> bool:
    """Identical offsets, on a file where chonkie never cuts inside a character."""
    return [(ours[i], ours[i + 1]) for i in range(0, len(ours), 2)] == [tuple(o) for o in theirs]


def interleaved(contenders: dict[str, Callable[[int], object]], rounds: int) -> dict[str, float]:
    """Median seconds of each contender, all run once per round in turn.
    Each gets the round's number (to make a text it has never seen)."""
    times: dict[str, list[float]] = {name: [] for name in contenders}
    for r in range(rounds):
        for name, run in contenders.items():
            t = time.perf_counter()
            run(r)
            times[name].append(time.perf_counter() - t)
    return {name: statistics.median(ts) for name, ts in times.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=4096)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()
    size = args.size
    fast = chunktui.Chunker(strategy="fast", size=size, unit="bytes", delimiters="\n.?")
    recursive = chunktui.Chunker(strategy="recursive", size=size, overlap=0)
    chonkie = FastChunker(chunk_size=size, delimiters="\n.?")
    print(
        f"{'file':26} {'MB':>5} {'fast.offsets':>13} {'(str)':>11} {'chunk_offsets':>14} {'FastChunker':>12}"
        f" {'ours/core':>9} {'recursive':>10}  identical  chonkie cuts inside a char"
    )
    for name, data in corpus(args.files):
        text = data.decode()
        # recursive caches what it built per text: each round a new text.
        fresh = [data + f"\nround {r}".encode() for r in range(args.rounds)]
        medians = interleaved(
            {
                "fast": lambda _: fast.offsets(data),
                "fast_str": lambda _: fast.offsets(text),
                "core": lambda _: chonkie_core.chunk_offsets(data, size=size, delimiters=b"\n.?"),
                "chunker": lambda _: chonkie.chunk(text),
                "recursive": lambda r: recursive.offsets(fresh[r]),
            },
            args.rounds,
        )
        theirs = chonkie_core.chunk_offsets(data, size=size, delimiters=b"\n.?")
        bad = inside_a_character(data, theirs)
        ours = list(fast.offsets(data))
        identical = "yes" if same_up_to_first_bad_cut(data, ours, theirs) else ("n/a" if bad else "NO")
        ours_bad = inside_a_character(data, [(ours[i], ours[i + 1]) for i in range(0, len(ours), 2)])
        mb = len(data) / 1e6

        def rate(key: str) -> str:
            return f"{mb / medians[key] / 1e3:7.2f} GB/s"

        print(
            f"{name:26} {mb:5.1f} {rate('fast'):>13} {rate('fast_str'):>11} {rate('core'):>14} {rate('chunker'):>12}"
            f" {medians['core'] / medians['fast']:8.1f}x {rate('recursive'):>10}  {identical:9}  "
            f"{bad} of {len(theirs)} (ours {ours_bad})"
        )


if __name__ == "__main__":
    main()
