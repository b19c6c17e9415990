"""`fast` and `Chunker.offsets`: byte offsets identical to chonkie's Rust core
(`chonkie_core.chunk_offsets`, pinned in requirements-test.txt) with the same
settings wherever chonkie never cuts inside a UTF-8 character, and never inside
a character anywhere; `offsets` gives `chunk`'s ranges for every strategy that
needs no model. The corpus is read at test time (English, Chinese, code, CRLF)."""

from __future__ import annotations

import array
from pathlib import Path
from typing import Any

import subprocess

import chonkie_core
import pytest
from chonkie import FastChunker

import chunktui
from pkgtest import chunktui_bin, corpus_files, read

FOR_FORMATS = {name for name, _ in chunktui.format_strategies()}
NON_MODEL = [
    name
    for name, needs_model in chunktui.strategies()
    if not needs_model and name not in chunktui.llm_strategies() and name not in FOR_FORMATS
]


def pairs(flat: array.array[int]) -> list[tuple[int, int]]:
    return list(zip(flat[0::2], flat[1::2]))


def is_start(data: bytes, at: int) -> bool:
    """Whether byte `at` starts a UTF-8 character (or is the end)."""
    return at == len(data) or data[at] & 0xC0 != 0x80


def mixed() -> bytes:
    """English, Chinese and code in one text: a piece of each corpus file."""
    return b"\n".join(p.read_bytes()[:200_000] for p in corpus_files())


def cuts_inside(data: bytes, offsets: list[tuple[int, int]]) -> int:
    return sum(not is_start(data, end) for _, end in offsets)


def inputs() -> list[tuple[str, bytes]]:
    """Every corpus file, the mix, and the Chinese book without its line
    breaks: prose like a novel's, where "\n.?" finds no cut and chonkie's
    budgets fall inside characters."""
    zh = next(p for p in corpus_files() if p.name.startswith("zh_")).read_bytes()
    return [(p.name, p.read_bytes()) for p in corpus_files()] + [("mixed", mixed()), ("zh-one-line", zh.replace(b"\n", b""))]


def agrees_with_chonkie(name: str, data: bytes, ours: list[tuple[int, int]], theirs: list[tuple[int, int]]) -> bool:
    """Our offsets are chonkie's where it never cuts inside a character
    (True); else they agree up to its first such cut, where ours ends at that
    character's start (False)."""
    if cuts_inside(data, theirs) == 0:
        assert ours == theirs, name
        return True
    first = next(i for i, (_, end) in enumerate(theirs) if not is_start(data, end))
    assert ours[:first] == theirs[:first], name
    end = theirs[first][1]
    while not is_start(data, end):
        end -= 1
    assert ours[first] == (theirs[first][0], end), name
    return False


@pytest.mark.parametrize("size", [4096, 512, 37])
def test_offsets_equal_chonkie_where_it_never_cuts_inside_a_character(size: int) -> None:
    chunker = chunktui.Chunker(strategy="fast", size=size, unit="bytes", delimiters="\n.?")
    clean = inside = 0
    for name, data in inputs():
        ours = pairs(chunker.offsets(data))
        theirs = [tuple(o) for o in chonkie_core.chunk_offsets(data, size=size, delimiters=b"\n.?")]
        # Ours: the tiling of the whole text, never inside a character.
        assert ours[0][0] == 0 and ours[-1][1] == len(data), name
        assert all(a[1] == b[0] for a, b in zip(ours, ours[1:])), name
        assert cuts_inside(data, ours) == 0, name
        bad = cuts_inside(data, theirs)
        if agrees_with_chonkie(name, data, ours, theirs):
            clean += 1
        else:
            inside += 1
            print(f"{name} at {size} bytes: chonkie cut inside a character {bad} times in {len(theirs)} chunks")
    # At 4096 bytes every corpus file (and the mix) is clean; smaller
    # budgets fall inside a curly quote or a dash even in English. The
    # one-line Chinese is never clean.
    assert inside >= 1, (clean, inside)
    if size == 4096:
        assert clean == len(corpus_files()) + 1, (clean, inside)


def test_str_and_bytes_give_the_same_offsets_and_chunk_agrees() -> None:
    for path in corpus_files():
        text = read(path)[:300_000]
        chunker = chunktui.Chunker(strategy="fast", size=4096, unit="bytes")
        flat = chunker.offsets(text)
        assert isinstance(flat, array.array) and flat.typecode == "Q"
        assert flat == chunker.offsets(text.encode())
        data = text.encode()
        chunks = chunker.chunk(text)
        assert pairs(flat) == [(c.start, c.end) for c in chunks], path.name
        assert b"".join(data[s:e] for s, e in pairs(flat)) == data
        assert all(e - s <= 4096 for s, e in pairs(flat))


def test_default_delimiters_end_chinese_chunks_at_sentence_ends() -> None:
    zh = next(p for p in corpus_files() if p.name.startswith("zh_"))
    data = zh.read_bytes()
    offsets = pairs(chunktui.Chunker(strategy="fast", size=4096, unit="bytes").offsets(data))
    ends = [data[:e].decode()[-1] for _, e in offsets[:-1]]
    assert all(c in "\n.?!。！？" for c in ends), set(ends) - set("\n.?!。！？")
    assert cuts_inside(data, offsets) == 0


@pytest.mark.parametrize("strategy", NON_MODEL)
def test_offsets_are_chunks_ranges_for_every_strategy(strategy: str) -> None:
    path: Path = corpus_files()[0]
    text = read(path)[:60_000]
    chunker = chunktui.Chunker(strategy=strategy, size=400, overlap=0)
    chunks = chunker.chunk(text)
    assert pairs(chunker.offsets(text)) == [(c.start, c.end) for c in chunks]


def test_bytes_are_checked_by_other_strategies_and_units_are_checked() -> None:
    with pytest.raises(ValueError, match="not valid UTF-8"):
        chunktui.Chunker(strategy="recursive").offsets(b"ab\xffcd")
    # fast reads bytes unchecked and still ends no chunk before a continuation byte.
    flat = chunktui.Chunker(strategy="fast", size=2, unit="bytes").offsets("中文".encode() + b"\xff")
    assert pairs(flat) == [(0, 3), (3, 6), (6, 7)]
    with pytest.raises(ValueError, match="bytes"):
        chunktui.Chunker(strategy="recursive", unit="bytes")
    with pytest.raises(ValueError, match="fast always counts bytes"):
        chunktui.Chunker(strategy="fast", unit="chars")


@pytest.mark.parametrize(
    ("settings", "theirs"),
    [
        ({"pattern": "\n\n"}, {"pattern": b"\n\n"}),
        ({"pattern": "\n\n", "prefix": True}, {"pattern": b"\n\n", "prefix": True}),
        ({"delimiters": "\n", "prefix": True}, {"delimiters": b"\n", "prefix": True}),
        ({"delimiters": ""}, {"delimiters": b""}),
    ],
)
def test_patterns_and_prefixes_equal_chonkie(settings: dict[str, Any], theirs: dict[str, Any]) -> None:
    # English with its few non-ASCII characters dropped: chonkie then never
    # cuts inside one, and every offset must agree.
    data = bytes(b for b in b"\n".join(p.read_bytes()[:300_000] for p in corpus_files() if p.name.startswith("en_")) if b < 128)
    for size in (4096, 700):
        chunker = chunktui.Chunker(strategy="fast", size=size, unit="bytes", **settings)
        expected = [tuple(o) for o in chonkie_core.chunk_offsets(data, size=size, **theirs)]
        assert agrees_with_chonkie(f"{settings} at {size}", data, pairs(chunker.offsets(data)), expected)


def test_chunk_texts_equal_chonkies_fast_chunker() -> None:
    for path in corpus_files():
        text = read(path)
        theirs = [c.text for c in FastChunker(chunk_size=4096, delimiters="\n.?").chunk(text)]
        ours = [c.text for c in chunktui.Chunker(strategy="fast", size=4096, unit="bytes", delimiters="\n.?").chunk(text)]
        assert ours == theirs, path.name


def test_the_command_line_cuts_as_the_library() -> None:
    path = next(p for p in corpus_files() if p.name.startswith("zh_"))
    cases: list[tuple[list[str], dict[str, Any]]] = [
        (["--delimiters", "\\n.?"], {"delimiters": "\n.?"}),
        (["--pattern", "\\n\\n", "--prefix"], {"pattern": "\n\n", "prefix": True}),
        ([], {}),
    ]
    for flags, keywords in cases:
        run = subprocess.run(
            [str(chunktui_bin()), "chunk", str(path), "--strategy", "fast", "--unit", "bytes", "--size", "1000"]
            + flags
            + ["--format", "offsets"],
            capture_output=True,
            text=True,
            check=True,
        )
        cli = [tuple(int(x) for x in line.split()) for line in run.stdout.splitlines()]
        chunker = chunktui.Chunker(strategy="fast", size=1000, unit="bytes", **keywords)
        assert cli == pairs(chunker.offsets(path.read_bytes())), flags
