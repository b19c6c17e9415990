"""bench/token_peers.py cuts its baseline's windows as the other baselines
do and prints one row a peer. Run by scripts/test.sh (pytest bench/)."""

from __future__ import annotations

from pathlib import Path

import token_peers


def test_windows_overlap_by_fifty_and_cover_every_token() -> None:
    assert token_peers.windows(0) == []
    assert token_peers.windows(10) == [(0, 10)]
    assert token_peers.windows(512) == [(0, 512)]
    spans = token_peers.windows(1200)
    assert spans == [(0, 512), (462, 974), (924, 1200)]
    assert all(b[0] == a[1] - token_peers.OVERLAP for a, b in zip(spans, spans[1:]))


def test_the_table_gives_megabytes_a_second_and_chunks(tmp_path: Path) -> None:
    file = tmp_path / "a.md"
    file.write_bytes(b"x" * 2_000_000)
    out = token_peers.table([file], {"peer": [(0.5, 7)]})
    assert "a.md (2.00 MB)" in out
    assert "| peer | 4.0 (7) |" in out
