"""bench/json_speed.py compares like with like: the JSON it builds is
deterministic and nested, it reads chunktui's summary right, and on that
JSON chunktui's `langchain-json` gives LangChain's chunks, text for text.

Run by scripts/test.sh (pytest bench/). Needs the chunktui binary
(CHUNKTUI_BIN, default target/debug/chunktui).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import json_speed

REPO = Path(__file__).resolve().parent.parent

BOOK = "# One\n\nFirst paragraph.\n\n## Part\n\n```rust\nfn main() {}\n```\n\nSecond, with \"quotes\" and 中文.\n\n# Two\n\nLast."


def chunktui_bin() -> Path:
    path = Path(os.environ.get("CHUNKTUI_BIN", REPO / "target" / "debug" / "chunktui"))
    if not path.exists():
        pytest.fail(f"{path} is missing: build it with `cargo build` (or set CHUNKTUI_BIN)")
    return path


def small_corpus(tmp_path: Path) -> list[Path]:
    files = []
    for name, text in [("a.md", BOOK), ("b.txt", "CHAPTER I\r\n\r\nWell, Prince.\r\n\r\nCHAPTER II\r\n\r\nAnna.")]:
        path = tmp_path / name
        path.write_bytes(text.encode("utf-8"))
        files.append(path)
    return files


def test_the_document_is_deterministic_nested_json(tmp_path: Path) -> None:
    files = small_corpus(tmp_path)
    text = json_speed.build_document(files)
    assert text == json_speed.build_document(files)
    doc = json.loads(text)
    chapters = doc["corpus"]["a.md"]["chapters"]
    assert list(chapters) == ["0000 One", "0001 Two"]
    part = chapters["0000 One"]["sections"]["001 Part"]
    assert part["code"] == [["```rust", "fn main() {}", "```"]]
    assert part["paragraphs"][0]["words"] == 5
    assert list(doc["corpus"]["b.txt"]["chapters"]) == ["0000 CHAPTER I", "0001 CHAPTER II"]


def test_the_summary_is_read() -> None:
    out = "chunks: 42\nsize (chars)  min 1\ntime          chunked in 0.012500 s (9.1 MB/s)\n"
    assert json_speed.parse_stats(out) == (42, 0.0125)


@pytest.mark.parametrize("size,convert_lists", [(60, False), (60, True), (300, True)])
def test_chunktui_gives_langchains_chunks(tmp_path: Path, size: int, convert_lists: bool) -> None:
    text = json_speed.build_document(small_corpus(tmp_path))
    path = tmp_path / "doc.json"
    path.write_text(text, encoding="utf-8")
    theirs = json_speed.langchain_split(json.loads(text), size, convert_lists)
    assert len(theirs) > 1
    assert json_speed.cli_chunks(chunktui_bin(), path, size, convert_lists) == theirs
    assert json_speed.cli_stats(chunktui_bin(), path, size, convert_lists)[0] == len(theirs)
