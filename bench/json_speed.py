"""How fast `langchain-json` is against the splitter it copies: LangChain's
`RecursiveJsonSplitter.split_text` in this process, and `chunktui stats FILE
--strategy langchain-json` (a release build of the CLI) on the same file, in
the same run, at the same settings; both must give the same number of chunks
(and, with --verify, the same chunks).

    cargo build --release --no-default-features --features cli
    "$(bash scripts/setup-venv.sh tests bench/requirements.txt)/bin/python" \\
        bench/json_speed.py --cli "$CARGO_TARGET_DIR/release/chunktui"

The JSON is built from the corpus (CHUNKTUI_CORPUS, default
../shared/corpus) in a temporary directory and deleted afterwards, never
committed: every document's chapters, sections, paragraphs (with their
lengths and word counts) and code blocks (as lists of lines) as nested
objects keyed by title, so that both `convert_lists` modes have objects to
walk into. It is deterministic: the same corpus gives the same bytes (its
sha256 is printed).

LangChain's time is `split_text` alone (the dict already loaded, as its API
takes it), the median of --repeat calls after an untimed one; `json.loads`
is timed on its own beside it. chunktui's time is the whole process (start,
reading and parsing the file, cutting, printing the summary; `--no-lint`,
as the lint section counts every chunk's tokens), the median of
--repeat runs after an untimed one, and beside it the cutting alone, as
`chunktui stats` reports it ("chunked in"). The ratio is LangChain's
`split_text` over chunktui's whole process: it leaves out the JSON parsing
on LangChain's side and counts it on chunktui's; the last column is the
ratio to chunktui's cutting alone (which parses the JSON, as LangChain's
json.loads does not).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SIZES = [300, 2000]


def corpus_files() -> list[Path]:
    corpus = Path(os.environ.get("CHUNKTUI_CORPUS", REPO.parent / "shared" / "corpus"))
    files = sorted(p for p in corpus.iterdir() if p.suffix in {".md", ".txt"} and p.name != "README.md")
    if not files:
        raise SystemExit(f"no documents in {corpus}: set CHUNKTUI_CORPUS")
    return files


def book(text: str) -> dict[str, Any]:
    """Blocks between blank lines: `# ` (or, in plain text, a short line in
    capitals) starts a chapter, `## ` a section; a fenced block is code,
    anything else a paragraph. Keys carry their number, so none repeats."""
    text = text.replace("\r\n", "\n")
    chapters: dict[str, Any] = {}
    sections: dict[str, Any] | None = None
    section: dict[str, Any] | None = None
    for block in text.split("\n\n"):
        block = block.strip("\n")
        if not block:
            continue
        chapter_title = block[2:] if block.startswith("# ") else None
        if chapter_title is None and "\n" not in block and block.isupper() and len(block) < 80:
            chapter_title = block
        if chapter_title is not None or sections is None:
            sections = {}
            chapters[f"{len(chapters):04d} {chapter_title or ''}".strip()] = {"sections": sections}
            section = None
            if chapter_title is not None:
                continue
        if block.startswith("## ") or section is None:
            section = {"code": [], "paragraphs": []}
            title = block[3:] if block.startswith("## ") else ""
            sections[f"{len(sections):03d} {title}".strip()] = section
            if block.startswith("## "):
                continue
        if block.startswith("```"):
            section["code"].append(block.split("\n"))
        else:
            section["paragraphs"].append({"chars": len(block), "text": block, "words": len(block.split())})
    return {"chapters": chapters, "count": len(chapters)}


def build_document(files: list[Path]) -> str:
    doc = {
        "corpus": {f.name: book(f.read_bytes().decode("utf-8")) for f in files},
        "generator": "bench/json_speed.py",
    }
    return json.dumps(doc, ensure_ascii=False, indent=1)


def langchain_split(data: dict[str, Any], size: int, convert_lists: bool) -> list[str]:
    from langchain_text_splitters import RecursiveJsonSplitter

    chunks: list[str] = RecursiveJsonSplitter(max_chunk_size=size).split_text(data, convert_lists=convert_lists)
    return chunks


def timed_median(repeat: int, run: Any) -> tuple[float, Any]:
    """The median seconds of `repeat` calls after an untimed one, and what the last returned."""
    result = run()
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


def cli_flags(size: int, convert_lists: bool) -> list[str]:
    return ["--strategy", "langchain-json", "--size", str(size)] + (["--json-convert-lists"] if convert_lists else [])


def cli_stats(cli: Path, path: Path, size: int, convert_lists: bool) -> tuple[int, float]:
    """chunktui's chunk count and the cutting time it reports."""
    # --no-lint: the lint section counts every chunk's tokens, work LangChain does not do.
    done = subprocess.run([str(cli), "stats", str(path), "--no-lint", *cli_flags(size, convert_lists)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"chunktui stats failed: {done.stderr}")
    return parse_stats(done.stdout)


def parse_stats(out: str) -> tuple[int, float]:
    count = re.search(r"^chunks:\s+(\d+)", out, re.M)
    took = re.search(r"chunked in ([0-9.]+) s", out)
    if not count or not took:
        raise SystemExit(f"cannot read chunktui stats' summary:\n{out}")
    return int(count.group(1)), float(took.group(1))


def cli_chunks(cli: Path, path: Path, size: int, convert_lists: bool) -> list[str]:
    done = subprocess.run([str(cli), "chunk", str(path), *cli_flags(size, convert_lists)], capture_output=True,
                          text=True, check=True)
    return [json.loads(line)["text"] for line in done.stdout.splitlines() if line]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cli", type=Path, required=True, help="a release build of the chunktui CLI")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs of each (the median is shown)")
    parser.add_argument("--sizes", type=int, nargs="+", default=SIZES)
    parser.add_argument("--verify", action="store_true", help="also compare every chunk (chunktui chunk)")
    parser.add_argument("--out", type=Path, help="also write the report (markdown) here")
    args = parser.parse_args()
    cli: Path = args.cli.resolve()
    if not cli.exists():
        raise SystemExit(f"{cli} is missing: cargo build --release --no-default-features --features cli")

    with tempfile.TemporaryDirectory(prefix="chunktui-json-speed-") as tmp:
        text = build_document(corpus_files())
        path = Path(tmp) / "corpus.json"
        path.write_text(text, encoding="utf-8")
        size_bytes = path.stat().st_size
        mb = size_bytes / 1e6
        loads_s, data = timed_median(args.repeat, lambda: json.loads(text))
        lines = [
            f"JSON: {mb:.2f} MB built from the corpus (sha256 {hashlib.sha256(text.encode()).hexdigest()[:16]}); "
            f"json.loads {loads_s:.3f} s. Load average {os.getloadavg()[0]:.1f}. Medians of {args.repeat} runs.",
            "",
            "| setting | chunks | LangChain split_text | chunktui process | chunktui cutting | ratio | ratio (cutting) |",
            "|---|---:|---:|---:|---:|---:|---:|",
        ]
        worst = worst_cut = float("inf")
        for size in args.sizes:
            for convert_lists in (False, True):
                setting = f"size {size}, convert_lists={convert_lists}"
                lc_s, lc_chunks = timed_median(args.repeat, lambda: langchain_split(data, size, convert_lists))
                proc_s, (count, cut_s) = timed_median(args.repeat, lambda: cli_stats(cli, path, size, convert_lists))
                if count != len(lc_chunks):
                    raise SystemExit(f"{setting}: chunktui gave {count} chunks, LangChain {len(lc_chunks)}")
                if args.verify and cli_chunks(cli, path, size, convert_lists) != lc_chunks:
                    raise SystemExit(f"{setting}: chunktui's chunks differ from LangChain's")
                ratio = lc_s / proc_s
                worst = min(worst, ratio)
                worst_cut = min(worst_cut, lc_s / cut_s)
                lines.append(
                    f"| {setting} | {count} | {lc_s:.3f} s ({mb / lc_s:.1f} MB/s) | {proc_s:.3f} s "
                    f"({mb / proc_s:.1f} MB/s) | {cut_s:.3f} s ({mb / cut_s:.1f} MB/s) | {ratio:.1f}x | {lc_s / cut_s:.1f}x |"
                )
                print(lines[-1], file=sys.stderr)
        lines += [
            "",
            f"chunktui is at least {worst:.1f}x as fast as LangChain's split_text here as a whole process, "
            f"{worst_cut:.1f}x counting its cutting (JSON parsing included) alone.",
        ]
    report = "\n".join(lines)
    print(report)
    if args.out:
        args.out.write_text(report + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
