"""LangChain: `ChunktuiTextSplitter`, a real `TextSplitter` whose chunks are
chunktui's (`split_text`, `create_documents`, `split_documents`,
`transform_documents`), with `start_index` taken from the chunks' own
offsets rather than searched for.

    from chunktui.langchain import ChunktuiTextSplitter
    splitter = ChunktuiTextSplitter.from_config("chunktui.toml", add_start_index=True)
    docs = splitter.split_documents(loader.load())

Needs `langchain-text-splitters` (imported with this module, never by
`import chunktui`).
"""

from __future__ import annotations

import copy
import os
from typing import Any

try:
    from langchain_core.documents import Document
    from langchain_text_splitters import TextSplitter
except ModuleNotFoundError as err:  # say what to install, not only what is missing
    raise ModuleNotFoundError(
        f"chunktui.langchain needs LangChain's text splitters ({err}): pip install langchain-text-splitters",
        name=err.name,
    ) from err

from . import Chunker


class ChunktuiTextSplitter(TextSplitter):
    """Split with a chunktui `Chunker`: built from keywords named like the
    config file's keys, `.from_config(path)`, or a chunker (`chunker=`).

    Documents get their source's metadata, `start_index` (code points into
    the source text) when `add_start_index` is set, and the key/value
    metadata of chunktui's LangChain-compatible markdown header strategy
    (`Header 1`, ...), as LangChain's own splitter gives it."""

    def __init__(self, chunker: Chunker | None = None, *, add_start_index: bool = False, **config: Any) -> None:
        if chunker is not None and config:
            raise ValueError("pass either a Chunker or config keywords, not both")
        self._chunker = chunker if chunker is not None else Chunker(**config)
        settings = self._chunker.config
        # What LangChain's own code reads back; the chunker alone decides the chunks.
        super().__init__(
            chunk_size=settings["size"],
            chunk_overlap=min(settings["overlap"], settings["size"]),
            length_function=self._chunker.size_of,
            add_start_index=add_start_index,
            strip_whitespace=False,
        )

    @classmethod
    def from_config(
        cls, path: str | os.PathLike[str], *, add_start_index: bool = False, **overrides: Any
    ) -> ChunktuiTextSplitter:
        """The config a workbench exported, keywords over it."""
        return cls(Chunker.from_config(path, **overrides), add_start_index=add_start_index)

    @property
    def chunker(self) -> Chunker:
        return self._chunker

    def split_text(self, text: str) -> list[str]:
        return [c.text for c in self._chunker.chunk(text)]

    def create_documents(self, texts: list[str], metadatas: list[dict[Any, Any]] | None = None) -> list[Document]:
        if metadatas is not None and len(metadatas) != len(texts):
            raise ValueError(f"{len(texts)} texts but {len(metadatas)} metadatas: give one metadata dict per text")
        documents = []
        for i, chunks in enumerate(self._chunker.chunk_many(list(texts))):
            for c in chunks:
                metadata = copy.deepcopy(metadatas[i]) if metadatas is not None else {}
                metadata.update(dict(c.meta.get("fields", [])))
                if self._add_start_index:
                    metadata["start_index"] = c.char_start
                documents.append(Document(page_content=c.text, metadata=metadata))
        return documents
