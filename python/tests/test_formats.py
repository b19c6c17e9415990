"""The package takes the formats data comes in: JSONL, JSON, CSV and Word
files through `chunk_file` (and `chunk_many` with their names) give what
`chunktui chunk` gives, with the records' metadata."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import chunktui
from pkgtest import cli_records


def records(chunks: list[chunktui.Chunk]) -> list[dict[str, Any]]:
    return [c.to_dict() for c in chunks]


def write_faq(path: Path) -> list[str]:
    lines = [
        json.dumps({"q": f"How do I reset {i}?", "a": "Press R. " * (1 + i % 4), "tags": ["faq", "重置"]}, ensure_ascii=False)
        for i in range(25)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return lines


def test_format_strategies_name_their_formats() -> None:
    formats = dict(chunktui.format_strategies())
    assert formats["json"] == ["json", "jsonl"]
    assert formats["rows"] == ["csv", "tsv"]
    assert "recursive" not in formats


def test_jsonl_is_a_chunk_per_record_as_the_cli_gives_it(tmp_path: Path) -> None:
    faq = tmp_path / "faq.jsonl"
    lines = write_faq(faq)
    chunker = chunktui.Chunker(strategy="json", size=400)
    got = records(chunker.chunk_file(faq))
    assert [r["text"] for r in got] == lines
    assert [r["meta"]["line"] for r in got] == list(range(1, 26))
    config = tmp_path / "c.toml"
    config.write_text(chunker.to_toml(), encoding="utf-8")
    assert got == cli_records(faq, "--config", str(config))
    # The same bytes by name through chunk_many.
    many = chunker.chunk_many([faq.read_bytes()], names=["faq.jsonl"])
    assert records(many[0]) == got


def test_csv_rows_carry_the_header_into_embed_text(tmp_path: Path) -> None:
    csv = tmp_path / "products.csv"
    rows = [f'{i},"Widget {i}, blue","Line one\nline two 第{i}"' for i in range(12)]
    csv.write_text("sku,name,notes\n" + "\n".join(rows) + "\n", encoding="utf-8")
    chunks = chunktui.Chunker(strategy="rows", size=200).chunk_file(csv)
    assert chunks, "rows were cut"
    for c in chunks:
        assert c.embed_text is not None and c.embed_text.startswith("sku,name,notes\n\n")
        first, last = c.to_dict()["meta"]["rows"]
        assert c.text == "\n".join(rows[first - 1 : last])
    # A string given to `chunk` is read as CSV by `rows`.
    from_text = chunktui.Chunker(strategy="rows", size=200).chunk(csv.read_text(encoding="utf-8"))
    assert [c.text for c in from_text] == [c.text for c in chunks]


def test_json_keeps_values_whole_with_their_paths(tmp_path: Path) -> None:
    doc = {"items": [{"id": i, "text": "Some words here. " * 5} for i in range(20)], "name": "demo"}
    path = tmp_path / "data.json"
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    chunks = chunktui.Chunker(strategy="json", size=300).chunk_file(path)
    paths = [c.to_dict()["meta"]["json_path"] for c in chunks]
    assert any(p.startswith("$.items[") for p in paths), paths
    source = path.read_text(encoding="utf-8")
    for c in chunks:
        assert source[c.char_start : c.char_end] == c.text


def test_a_word_file_is_read_through_its_headings(tmp_path: Path) -> None:
    try:
        import docx
    except ImportError:
        pytest.fail("python-docx is missing: it is pinned in python/requirements-test.txt; run scripts/test.sh")
    document = docx.Document()
    document.add_heading("Handbook", level=1)
    document.add_paragraph("Members share the tools.")
    document.add_heading("Tools", level=2)
    document.add_paragraph("Return every tool clean. 用完请归还。")
    table = document.add_table(rows=2, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text = "Tool", "Deposit"
    table.cell(1, 0).text, table.cell(1, 1).text = "Saw", "20"
    path = tmp_path / "handbook.docx"
    document.save(str(path))
    chunks = chunktui.Chunker(strategy="html", size=400).chunk_file(path)
    tools = [c for c in chunks if c.to_dict()["meta"].get("headings") == ["Handbook", "Tools"]]
    assert tools and "Return every tool clean" in tools[0].text, records(chunks)
    assert any("Saw | 20" in c.text for c in tools), records(chunks)
