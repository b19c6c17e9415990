"""Hand-made boundaries ([[edits]]) through the Python package: the same
chunks as `chunktui chunk` for a config with a cut and a join, on English
and Chinese text, and the edits kept by `config` and `to_toml`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import chunktui
from pkgtest import cli_records, corpus_dir, read


def anchors(text: str, at: int) -> dict[str, Any]:
    """An edit's anchors around code point `at` (up to 40 characters each)."""
    return {"before": text[max(0, at - 40) : at], "after": text[at : at + 40]}


@pytest.mark.parametrize("name", ["en_rust_book.md", "zh_rust_book.md"])
def test_a_config_with_edits_gives_the_clis_chunks(name: str, tmp_path: Path) -> None:
    text = read(corpus_dir() / name)[:30_000]
    doc = tmp_path / name
    doc.write_bytes(text.encode("utf-8"))
    plain = chunktui.Chunker(size=400, overlap=40).chunk(text)
    k = len(plain) // 3
    cut_at = (plain[k].char_start + plain[k].char_end) // 2
    join_at = plain[k + 3].char_start
    edits = [{"op": "cut", **anchors(text, cut_at)}, {"op": "join", **anchors(text, join_at)}]
    chunker = chunktui.Chunker(size=400, overlap=40, edits=edits)
    got = [c.to_dict() for c in chunker.chunk(text)]
    starts = [c["char_start"] for c in got]
    assert cut_at in starts and join_at not in starts
    config = tmp_path / "edits.toml"
    config.write_text(chunker.to_toml(), encoding="utf-8")
    assert "[[edits]]" in config.read_text(encoding="utf-8")
    expected = cli_records(doc, "--config", str(config))
    assert [(r["start"], r["end"], r["text"]) for r in got] == [(r["start"], r["end"], r["text"]) for r in expected]
    again = chunktui.Chunker.from_config(config)
    assert json.loads(json.dumps(again.config["edits"])) == edits


def test_a_bad_edit_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="both empty"):
        chunktui.Chunker(edits=[{"op": "cut", "before": "", "after": ""}])
