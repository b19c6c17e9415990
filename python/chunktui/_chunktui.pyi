"""Types of the native module (python/src/*.rs)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

__version__: str

class ModelError(RuntimeError):
    """An embedding model or ONNX Runtime is missing or failed."""

class Chunk:
    """One chunk, as a record of `chunktui chunk`'s JSONL output."""

    @property
    def index(self) -> int: ...
    @property
    def start(self) -> int:
        """Byte offset into the UTF-8 text."""
    @property
    def end(self) -> int: ...
    @property
    def char_start(self) -> int:
        """Code-point offset: `text[char_start:char_end]`."""
    @property
    def char_end(self) -> int: ...
    @property
    def size(self) -> int:
        """Size in the config's unit."""
    @property
    def text(self) -> str:
        """The chunk's text, cut on each access from the str or bytes it was
        cut from (which the chunk keeps alive)."""
    @property
    def meta(self) -> dict[str, Any]:
        """headings, symbols, id/parent_id/level, ... (a new dict on each access)."""
    @property
    def embed_text(self) -> str | None: ...
    @property
    def embed_size(self) -> int | None: ...
    @property
    def embed_tokens(self) -> int | None: ...
    def to_dict(self) -> dict[str, Any]:
        """The chunk as one JSONL record of `chunktui chunk`."""
    def __eq__(self, other: object) -> bool: ...

class Chunker:
    """A configured chunker. Keywords are the config file's keys; without a
    config file, a `size` given without `overlap` overlaps by a fifth of it."""

    def __init__(
        self,
        *,
        version: int = ...,
        strategy: str = ...,
        unit: str = ...,
        tokenizer: str = ...,
        size: int = ...,
        overlap: int = ...,
        recursive: dict[str, Any] = ...,
        sentence: dict[str, Any] = ...,
        markdown: dict[str, Any] = ...,
        langchain: dict[str, Any] = ...,
        semantic: dict[str, Any] = ...,
        embed_text: dict[str, Any] = ...,
        json: dict[str, Any] = ...,
        hierarchical: dict[str, Any] = ...,
        cluster: dict[str, Any] = ...,
        code: dict[str, Any] = ...,
        lint: dict[str, Any] = ...,
        llm: dict[str, Any] = ...,
        embed: dict[str, Any] = ...,
        agentic: dict[str, Any] = ...,
        edits: list[dict[str, Any]] = ...,
    ) -> None: ...
    @staticmethod
    def from_config(path: str | os.PathLike[str], **kwargs: Any) -> Chunker: ...
    def chunk(self, text: str | bytes) -> list[Chunk]:
        """The chunks of `text` (str, or bytes holding UTF-8), in order."""
    def chunk_file(self, path: str | os.PathLike[str]) -> list[Chunk]:
        """A file's chunks as `chunktui chunk FILE` gives them: HTML, PDF and Word
        (.docx) are extracted first, and offsets and text are those of the
        extracted text; JSON, JSONL and CSV/TSV are read as record data (their
        records for `document`, `json` and `rows`)."""
    def chunk_many(
        self, texts: Iterable[str | bytes], threads: int | None = None, names: Iterable[str] | None = None
    ) -> list[list[Chunk]]:
        """One list of chunks per text (str, or bytes holding UTF-8; a list or
        any iterable, such as a generator of file contents), in order,
        on `threads` threads (None: every core), without the GIL: a str is read
        in place and transcoded to UTF-8 by the thread that chunks it, bytes
        are checked there (pass a file's bytes as read). `names` (file
        names or paths, one per text): a text named .html, .pdf, .docx,
        .json, .jsonl, .csv or .tsv is that file's contents, read as
        `chunk_file` reads it."""
    def size_of(self, text: str) -> int: ...
    @property
    def config(self) -> dict[str, Any]: ...
    def to_toml(self) -> str: ...

def strategies() -> list[tuple[str, bool]]:
    """Every strategy's name and whether it needs an embedding model."""

def llm_strategies() -> list[str]:
    """The strategies that ask an LLM endpoint (`llm.url`, `llm.model`)."""

def format_strategies() -> list[tuple[str, list[str]]]:
    """The strategies made for some document formats, with those formats
    (`("json", ["json", "jsonl"])`); every other strategy cuts any text."""

def _chunker_from_json(json: str) -> Chunker: ...
