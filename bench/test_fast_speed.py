"""bench/fast_speed.py measures like with like: on files it is given, its
table says chunktui's offsets are chonkie's (identical: yes) and counts the
cuts inside a character right. Run by scripts/test.sh (pytest bench/)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import fast_speed


def test_it_counts_cuts_inside_a_character() -> None:
    data = "中文".encode()
    assert fast_speed.inside_a_character(data, [(0, 1), (1, 6)]) == 1
    assert fast_speed.inside_a_character(data, [(0, 3), (3, 6)]) == 0


def test_the_table_reports_identical_offsets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    files = []
    for name, text in [("en.txt", "One. Two? Three.\n" * 600), ("zh.md", "第一句。第二句！\n" * 400)]:
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        files.append(str(path))
    monkeypatch.setattr(sys, "argv", ["fast_speed.py", "--rounds", "2", "--size", "512", *files])
    fast_speed.main()
    rows = [line for line in capsys.readouterr().out.splitlines()[1:] if line.strip()]
    assert [r.split()[0] for r in rows] == ["en.txt", "zh.md"]
    for row in rows:
        assert " yes " in row, row
        assert row.endswith("(ours 0)"), row
