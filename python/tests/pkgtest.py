"""What the package's tests share (a plain module, not a conftest.py: the repository
runs these tests in one pytest with bench/ and tests/python/): the chunktui CLI they compare against
(CHUNKTUI_BIN, default target/debug/chunktui) and the shared corpus
(CHUNKTUI_CORPUS, default ../shared/corpus beside the repository)."""

from __future__ import annotations

import json
import re
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]


def chunktui_bin() -> Path:
    binary = Path(os.environ.get("CHUNKTUI_BIN", REPO / "target" / "debug" / "chunktui"))
    if not binary.exists():
        pytest.fail(f"{binary} is missing: build it with `cargo build` (or set CHUNKTUI_BIN)")
    return binary


def cli_records(path: Path, *flags: str) -> list[dict[str, Any]]:
    """`chunktui chunk PATH FLAGS` as parsed JSONL records."""
    done = subprocess.run(
        [chunktui_bin(), "chunk", str(path), "--format", "jsonl", *flags], capture_output=True, text=True
    )
    assert done.returncode == 0, f"chunktui chunk {path} {flags} exited {done.returncode}: {done.stderr}"
    return [json.loads(line) for line in done.stdout.splitlines()]


def corpus_dir() -> Path:
    corpus = Path(os.environ.get("CHUNKTUI_CORPUS", REPO.parent / "shared" / "corpus"))
    if not corpus.is_dir():
        pytest.fail(f"{corpus} is missing: the tests read the shared corpus (set CHUNKTUI_CORPUS)")
    return corpus


def corpus_files() -> list[Path]:
    """The corpus documents (its README and manifest are not documents)."""
    files = sorted(p for p in corpus_dir().iterdir() if p.suffix in {".md", ".txt"} and p.name != "README.md")
    assert files, f"no documents in {corpus_dir()}"
    return files


def read(path: Path) -> str:
    """A document's text as the CLI reads it (no newline translation: the
    corpus has CRLF files)."""
    return path.read_bytes().decode("utf-8")


BLANK_LINE = re.compile(r"\r?\n\r?\n")


def pieces(text: str, size: int) -> Iterator[str]:
    """`text` in pieces of about `size` code points, each cut after a blank line."""
    while text:
        found = BLANK_LINE.search(text, size)
        cut = found.end() if found else len(text)
        yield text[:cut]
        text = text[cut:]


def corpus_pieces_dir(root: Path, size: int = 150_000) -> list[Path]:
    """`root/docs`, filled with the corpus documents cut into pieces of about
    `size` code points (many files, as a data framework reads a directory)
    and the bundled HTML and PDF samples;
    its files, sorted. `root/chunktui.toml` is a config the CLI and the
    package both read (markdown, 300 cl100k tokens)."""
    docs = root / "docs"
    docs.mkdir()
    for path in corpus_files():
        for i, piece in enumerate(pieces(read(path), size)):
            (docs / f"{path.stem}-{i:03}.md").write_bytes(piece.encode("utf-8"))
    # An HTML page and a PDF, which the CLI extracts before chunking.
    for sample in ["handbook.html", "report.pdf"]:
        (docs / sample).write_bytes((REPO / "samples" / sample).read_bytes())
    files = sorted(docs.iterdir())
    assert len(files) > 20
    import chunktui

    (root / "chunktui.toml").write_text(
        chunktui.Chunker(strategy="markdown", unit="tokens", size=300, overlap=30).to_toml(), encoding="utf-8"
    )
    return files
