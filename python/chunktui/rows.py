"""Chunks as table rows, for the data frameworks (Ray Data's `map_batches`,
Spark's `mapInPandas`): one row per chunk, with the id of the document it
comes from and its meta as JSON. No framework is imported here."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any

from . import Chunker

COLUMNS = ["id", "index", "start", "end", "char_start", "char_end", "size", "text", "meta"]


def as_document(value: Any, where: str) -> str | bytes:
    """A document as the chunker takes it: str, or bytes (read_binary_files)
    that the chunker checks for UTF-8 on its worker threads, not decoded here."""
    if isinstance(value, (str, bytes)):
        return value
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    raise TypeError(f"{where} is {type(value).__name__}: the text column must hold str or bytes")


def text_id(text: str | bytes) -> str:
    """A document's id when the data has none: a digest of its UTF-8 text, so
    the chunks of one document share it from run to run, as str or bytes."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    return hashlib.blake2b(data, digest_size=8).hexdigest()


def chunk_rows(
    chunker: Chunker, texts: Iterable[Any], ids: Iterable[Any] | None = None, threads: int | None = None
) -> dict[str, list[Any]]:
    """Chunk `texts` (str or UTF-8 bytes) with `chunker.chunk_many` on
    `threads` threads (None: every core); one row per chunk as columns
    (`COLUMNS`), `id` from `ids` (else a digest of the text). Ids are also
    the texts' names: a file path ending in .html or .pdf is extracted
    first, as `chunktui chunk` reads that file."""
    docs = [as_document(t, f"text #{i}") for i, t in enumerate(texts)]
    names = [str(x) for x in ids] if ids is not None else [text_id(t) for t in docs]
    if len(names) != len(docs):
        raise ValueError(f"{len(docs)} texts but {len(names)} ids")
    out: dict[str, list[Any]] = {c: [] for c in COLUMNS}
    files = names if ids is not None else None
    for name, chunks in zip(names, chunker.chunk_many(docs, threads=threads, names=files)):
        for c in chunks:
            out["id"].append(name)
            out["index"].append(c.index)
            out["start"].append(c.start)
            out["end"].append(c.end)
            out["char_start"].append(c.char_start)
            out["char_end"].append(c.char_end)
            out["size"].append(c.size)
            out["text"].append(c.text)
            out["meta"].append(json.dumps(c.meta, ensure_ascii=False))
    return out
