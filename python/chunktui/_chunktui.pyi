"""Types of the native module (python/src/*.rs)."""

from __future__ import annotations

import array
import os
from collections.abc import Iterable, Mapping
from typing import Any, TypedDict

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
        fast: dict[str, Any] = ...,
        hierarchical: dict[str, Any] = ...,
        cluster: dict[str, Any] = ...,
        code: dict[str, Any] = ...,
        lint: dict[str, Any] = ...,
        llm: dict[str, Any] = ...,
        embed: dict[str, Any] = ...,
        agentic: dict[str, Any] = ...,
        generate: dict[str, Any] = ...,
        edits: list[dict[str, Any]] = ...,
        **strategy_keys: Any,
    ) -> None:
        """Every keyword is a config file key (sections as dicts). A key of
        the chosen strategy's own section may also be given alone:
        `Chunker(strategy="fast", delimiters="\\n.?")` is
        `fast={"delimiters": "\\n.?"}`, `Chunker(strategy="semantic",
        threshold=90)` is `semantic={"threshold": 90}`."""
    @staticmethod
    def from_config(path: str | os.PathLike[str], **kwargs: Any) -> Chunker: ...
    def chunk(self, text: str | bytes) -> list[Chunk]:
        """The chunks of `text` (str, or bytes holding UTF-8), in order."""
    def offsets(self, text: str | bytes) -> array.array[int]:
        """The chunks' byte ranges in the text's UTF-8, flat in one
        `array.array('Q')`: start0, end0, start1, end1, ... The same chunks as
        `chunk(text)`, with no Python object per chunk (and for `fast` no chunk
        made at all): use it when you slice the bytes yourself or only need
        the boundaries, e.g. `fast` over gigabytes. `bytes` are read in place
        (`fast` cuts them unchecked; other strategies check they are UTF-8)."""
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

class PostHit(TypedDict):
    """One hit of `PostChunker.query` or `query_aware` (a plain dict at run
    time: this name exists for type checkers only)."""

    id: str
    doc: int
    """The document's position in `PostChunker.ids`."""
    start: int
    """Byte offset into the document's UTF-8 text."""
    end: int
    char_start: int
    """Code-point offset: `document[char_start:char_end]`."""
    char_end: int
    score: float
    text: str
    meta: dict[str, Any]
    """The chunk's metadata as `Chunk.meta` has it (empty for `query_aware`)."""

class PostCost(TypedDict):
    """What a `PostChunker`'s questions so far have cost (a plain dict at run
    time: this name exists for type checkers only)."""

    documents_total: int
    documents_chunked: int
    """Documents cut (not found in the chunk cache)."""
    chunk_cache_hits: int
    """Documents whose chunks came from the chunk cache."""
    chunks_embedded: int
    sentences_embedded: int
    document_windows_embedded: int
    chunk_cache_write_errors: int
    """Documents whose chunks could not be written to the chunk cache."""

class PostChunker:
    """Post-chunking: whole documents are indexed (nothing is cut); a
    question ranks them, only the `documents_per_query` best are cut with the
    config (or their chunks read from the chunk cache, keyed by the text and
    the settings), and the best chunks of those come back. Every call runs
    without the GIL, and one PostChunker may answer from several threads."""

    def __init__(
        self,
        documents: Mapping[str, str | bytes] | Iterable[str | bytes | tuple[str, str | bytes]],
        config: str | os.PathLike[str] | Chunker | None = None,
        *,
        documents_per_query: int = 5,
        doc_retriever: str = "bm25",
        retriever: str = "bm25",
        chunk_cache: bool | str | os.PathLike[str] = True,
        **settings: Any,
    ) -> None:
        """`documents`: a list of texts (str, or bytes holding UTF-8; ids
        "0", "1", ...), a dict {id: text} or a list of (id, text) pairs.
        `config`: a config file's path or a Chunker, with `settings` (the
        config file's keys, as `Chunker` takes them) over it.
        `doc_retriever` ranks documents, `retriever` their chunks: "bm25"
        (no model), "dense" or "hybrid" (the config's embedding model).
        `chunk_cache`: True keeps chunks in chunktui's cache folder, False
        keeps none, a path keeps them there."""
    def query(self, question: str, k: int = 5) -> list[PostHit]:
        """The best `k` of the config's chunks in the documents `question`
        retrieves, best first (exactly chunks `Chunker.chunk` gives)."""
    def query_aware(self, question: str, k: int = 5) -> list[PostHit]:
        """`k` windows of whole sentences, each within the config's size,
        placed for `question` in the documents it retrieves, best first."""
    def rank_documents(self, question: str) -> list[tuple[str, float]]:
        """The documents `question` retrieves, best first: (id, score)."""
    def cost(self) -> PostCost: ...
    @property
    def document_representation(self) -> str:
        """How documents are represented in the document index, in a line."""
    @property
    def ids(self) -> list[str]:
        """The documents' ids, in order (a hit's `doc` indexes this list)."""
    @property
    def config(self) -> dict[str, Any]:
        """The config that cuts the documents, as `Chunker.config` has it."""
    def __len__(self) -> int: ...

def strategies() -> list[tuple[str, bool]]:
    """Every strategy's name and whether it needs an embedding model."""

def llm_strategies() -> list[str]:
    """The strategies that ask an LLM endpoint (`llm.url`, `llm.model`)."""

def format_strategies() -> list[tuple[str, list[str]]]:
    """The strategies made for some document formats, with those formats
    (`("json", ["json", "jsonl"])`); every other strategy cuts any text."""

def _chunker_from_json(json: str) -> Chunker: ...
