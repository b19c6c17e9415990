"""How fast chunktui's Python package is: `Chunker.chunk_many` on one and
on two threads, the chunktui CLI (a release build) on one core on the same
text, and the Python splitters people use instead (LangChain's
RecursiveCharacterTextSplitter, text-splitter's `semantic-text-splitter`)
with the same size and overlap.

    cargo build --release --no-default-features --features cli,code --target-dir target/python
    "$(bash scripts/setup-venv.sh tests bench/requirements.txt python/requirements-test.txt)/bin/python" \
        bench/python_speed.py --cli target/python/release/chunktui --out report.md

The corpus (CHUNKTUI_CORPUS, default ../shared/corpus) is read two ways:
whole (4 documents: Python against the CLI, which runs once per file) and
cut into ~64 KiB pieces at blank lines (chunk_many's usual work, many
documents: one 3 MB novel cannot be shared between two threads), handed
over as `str` and as the UTF-8 `bytes` a file holds (a `str` is transcoded
to UTF-8 by the worker thread that chunks it, bytes are checked there).

Every Python measurement runs in a fresh process, as the CLI does: chunktui
keeps a process-wide memo of token counts, so chunking the same text again
in one process is faster than chunking it once. Character units, which no
memo serves, are also timed warm (the best of five calls after a first one):
their whole corpus takes 5-15 ms, where a fresh process's first call pays
for cold caches and first touches of memory. The chunker is built (the
tokenizer loaded) before the clock starts. The CLI's time is its wall time
per file (reading, tokenizer, JSON writing included) and, beside it, the
chunking alone as `chunktui stats` reports it. Times are the best of
--repeat runs; the load average is printed with them: the machine is shared.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
PIECE = 64 * 1024
BLANK_LINE = re.compile(r"\r?\n\r?\n")
# The CLI's flags name the preset: without one it picks `chinese` for the
# CJK file, which the keywords (english by default) do not.
SETTINGS: dict[str, tuple[dict[str, Any], list[str]]] = {
    "chars 1000/200": ({"size": 1000, "overlap": 200}, ["--size", "1000", "--overlap", "200", "--preset", "english"]),
    "cl100k tokens 512/64": (
        {"unit": "tokens", "tokenizer": "cl100k_base", "size": 512, "overlap": 64},
        ["--unit", "tokens", "--tokenizer", "cl100k_base", "--size", "512", "--overlap", "64", "--preset", "english"],
    ),
}


def pieces(text: str) -> Iterator[str]:
    while text:
        found = BLANK_LINE.search(text, PIECE)
        cut = found.end() if found else len(text)
        yield text[:cut]
        text = text[cut:]


def corpus_files() -> list[Path]:
    corpus = Path(os.environ.get("CHUNKTUI_CORPUS", REPO.parent / "shared" / "corpus"))
    files = sorted(p for p in corpus.iterdir() if p.suffix in {".md", ".txt"} and p.name != "README.md")
    if not files:
        raise SystemExit(f"no documents in {corpus}: set CHUNKTUI_CORPUS")
    return files


def texts(split: bool) -> list[str]:
    whole = [f.read_bytes().decode("utf-8") for f in corpus_files()]
    return [p for t in whole for p in pieces(t)] if split else whole


def child(who: str, setting: str, split: bool, warm: bool = False) -> tuple[float, float]:
    """One measurement, in this (fresh) process: (seconds, CPU seconds).
    `warm`: the best of five calls after a first, untimed one (only where
    no memo applies: character units)."""
    docs = texts(split)
    kwargs, _ = SETTINGS[setting]
    if who.startswith("chunktui"):
        import chunktui

        ch = chunktui.Chunker(strategy="recursive", **kwargs)
        threads = int(who.split(":")[1])
        # "chunktui-bytes": the documents as a file's bytes, which the
        # chunker only checks for UTF-8, without transcoding a str.
        inputs: list[str] | list[bytes] = [d.encode("utf-8") for d in docs] if "bytes" in who else docs
        if warm:
            ch.chunk_many(inputs, threads=threads)
        best = (float("inf"), 0.0)
        for _ in range(5 if warm else 1):
            started, cpu = time.perf_counter(), time.process_time()
            ch.chunk_many(inputs, threads=threads)
            best = min(best, (time.perf_counter() - started, time.process_time() - cpu))
        return best
    if who == "langchain":
        from langchain_text_splitters import RecursiveCharacterTextSplitter

        lc = RecursiveCharacterTextSplitter(chunk_size=kwargs["size"], chunk_overlap=kwargs["overlap"])
        started, cpu = time.perf_counter(), time.process_time()
        for d in docs:
            lc.split_text(d)
        return time.perf_counter() - started, time.process_time() - cpu
    from semantic_text_splitter import TextSplitter

    size, overlap = kwargs["size"], kwargs["overlap"]
    if "unit" in kwargs:
        ts = TextSplitter.from_tiktoken_model("gpt-3.5-turbo", size, overlap=overlap)
    else:
        ts = TextSplitter(size, overlap=overlap)
    started, cpu = time.perf_counter(), time.process_time()
    for d in docs:
        ts.chunks(d)
    return time.perf_counter() - started, time.process_time() - cpu


def measure(who: str, setting: str, split: bool, repeat: int, warm: bool = False) -> tuple[float, float]:
    """The best of `repeat` fresh processes: (seconds, CPU seconds of that run).
    Two threads that got two free cores use about twice their seconds in CPU
    time; on a busy machine they get less, which the CPU time shows."""
    return compare([who], setting, split, repeat, warm)[0]


def compare(whos: list[str], setting: str, split: bool, repeat: int, warm: bool = False) -> list[tuple[float, float]]:
    """`measure` for each of `whos`, their runs taken in turn (one of each,
    `repeat` times), so that a burst of load on the shared machine falls on
    all of them rather than on one: their ratio is what the bench reports."""
    runs: list[list[tuple[float, float]]] = [[] for _ in whos]
    for _ in range(repeat):
        for who, taken in zip(whos, runs):
            args = [sys.executable, __file__, "--child", who, setting, "split" if split else "whole"]
            args += ["warm"] if warm else []
            done = subprocess.run(args, capture_output=True, text=True, check=True)
            wall, cpu = json.loads(done.stdout)
            taken.append((float(wall), float(cpu)))
    return [min(taken) for taken in runs]


def cli(binary: Path, setting: str, repeat: int) -> tuple[float, float]:
    """The CLI on the whole files, pinned to one core: (wall, chunking alone)."""
    _, flags = SETTINGS[setting]
    best_wall, best_inner = float("inf"), float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        for f in corpus_files():
            run = ["taskset", "-c", "0", str(binary), "chunk", str(f), "-o", "/dev/null", *flags]
            subprocess.run(run, check=True, stderr=subprocess.DEVNULL)
        best_wall = min(best_wall, time.perf_counter() - started)
        inner = 0.0
        for f in corpus_files():
            out = subprocess.run([str(binary), "stats", str(f), *flags], capture_output=True, text=True, check=True)
            found = re.search(r"chunked in ([0-9.]+) s", out.stdout)
            assert found, out.stdout
            inner += float(found.group(1))
        best_inner = min(best_inner, inner)
    return best_wall, best_inner


def control() -> float:
    """The 2-thread speedup the machine gives right now to plain CPU-bound
    work (hashlib releases the GIL on large inputs): one thread hashes, then
    two threads hash as much each. The ceiling of any 2-thread speedup
    measured at the same time; CPU time alone cannot show it, as a shared
    VM's two vCPUs can both be busy and still run slower together."""
    data = b"x" * (64 << 20)

    def work() -> None:
        for _ in range(3):
            hashlib.sha256(data).digest()

    def wall(n: int) -> float:
        threads = [threading.Thread(target=work) for _ in range(n)]
        started = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return time.perf_counter() - started

    return 2 * wall(1) / wall(2)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        print(json.dumps(child(sys.argv[2], sys.argv[3], sys.argv[4] == "split", sys.argv[5:] == ["warm"])))
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cli", type=Path, required=True, help="a release build of the chunktui CLI")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--out", type=Path, help="also write the report (markdown) here")
    args = parser.parse_args()
    mb = sum(len(t.encode("utf-8")) for t in texts(False)) / 1e6
    n_pieces = len(texts(True))
    load = os.getloadavg()[0]
    lines = [
        f"The corpus: {mb:.1f} MB, {len(corpus_files())} files, or {n_pieces} pieces of ~64 KiB. "
        f"Load average {load:.1f} on {os.cpu_count()} cores at the start; "
        f"best of {args.repeat} (of {args.repeat * 3} for chars, in turns: 1 thread, 2 threads, 1, 2, ...).",
        "",
        "| settings | what | seconds | MB/s |",
        "| --- | --- | ---: | ---: |",
    ]
    summary = []
    for setting in SETTINGS:
        quick = setting.startswith("chars")
        # Character units take milliseconds, where one burst of load on the
        # shared machine decides a run: three times as many runs (each a
        # fraction of a second) find quiet ones as often as token runs do.
        repeat = args.repeat * 3 if quick else args.repeat
        one_whole, _ = measure("chunktui:1", setting, False, repeat)
        wall, inner = cli(args.cli, setting, args.repeat)
        (one, _), (two, two_cpu) = compare(["chunktui:1", "chunktui:2"], setting, True, repeat)
        (one_b, _), (two_b, _) = compare(["chunktui-bytes:1", "chunktui-bytes:2"], setting, True, repeat)
        ceiling = control()
        rows = [
            ("chunktui Python, chunk_many, 1 thread, 4 files", one_whole),
            ("chunktui CLI, 1 core, 4 files (wall: reading, tokenizer, JSONL)", wall),
            ("chunktui CLI, 1 core, 4 files (chunking alone, `chunktui stats`)", inner),
            (f"chunktui Python, chunk_many, 1 thread, {n_pieces} pieces", one),
            (f"chunktui Python, chunk_many, 2 threads, {n_pieces} pieces", two),
            (f"chunktui Python, chunk_many on bytes, 1 thread, {n_pieces} pieces", one_b),
            (f"chunktui Python, chunk_many on bytes, 2 threads, {n_pieces} pieces", two_b),
        ]
        warm_note = ""
        if quick:
            # A fresh process's first call also pays for cold caches and
            # first touches of memory; a pipeline chunks batch after batch.
            (one_w, _), (two_w, _), (one_wb, _), (two_wb, _) = compare(
                ["chunktui:1", "chunktui:2", "chunktui-bytes:1", "chunktui-bytes:2"], setting, True, repeat, warm=True
            )
            rows.append((f"chunktui Python, chunk_many, 1 thread, {n_pieces} pieces, warm", one_w))
            rows.append((f"chunktui Python, chunk_many, 2 threads, {n_pieces} pieces, warm", two_w))
            rows.append((f"chunktui Python, chunk_many on bytes, 1 thread, {n_pieces} pieces, warm", one_wb))
            rows.append((f"chunktui Python, chunk_many on bytes, 2 threads, {n_pieces} pieces, warm", two_wb))
            warm_note = f"; in a warm process {one_w / two_w:.2f}x on str, {one_wb / two_wb:.2f}x on bytes"
        if setting.startswith("chars"):
            rows.append(("LangChain RecursiveCharacterTextSplitter, 4 files", measure("langchain", setting, False, 1)[0]))
        rows.append(("semantic-text-splitter (text-splitter), 4 files", measure("text-splitter", setting, False, 1)[0]))
        lines += [f"| {setting} | {who} | {s:.3f} | {mb / s:.1f} |" for who, s in rows]
        summary.append(
            f"{setting}: 2 threads {one / two:.2f}x faster than 1 on str, {one_b / two_b:.2f}x on bytes{warm_note} "
            f"(busy {two_cpu / two:.2f} cores on average on str; "
            f"two hashing threads were {ceiling:.2f}x faster than one right after); "
            f"Python 1 thread {one_whole / wall:.2f}x the "
            f"CLI's wall time ({one_whole / inner:.2f}x its chunking alone)"
        )
    lines += [""] + summary + [f"Load average at the end: {os.getloadavg()[0]:.1f}."]
    report = "\n".join(lines) + "\n"
    print(report)
    if args.out:
        args.out.write_text(report, encoding="utf-8")


if __name__ == "__main__":
    main()
