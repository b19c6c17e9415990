"""LlamaIndex: `ChunktuiNodeParser`, a real `NodeParser` whose nodes are
chunktui's chunks, with their exact character offsets (`start_char_idx`,
`end_char_idx`) and the chunk's metadata (headings, symbols, hierarchy ids).

    from chunktui.llama_index import ChunktuiNodeParser
    parser = ChunktuiNodeParser.from_config("chunktui.toml")
    nodes = parser.get_nodes_from_documents(documents)

Needs `llama-index-core` (imported with this module, never by `import chunktui`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

try:
    from llama_index.core.bridge.pydantic import Field, PrivateAttr
    from llama_index.core.node_parser import NodeParser
    from llama_index.core.node_parser.node_utils import build_nodes_from_splits
    from llama_index.core.schema import BaseNode, Document, MetadataMode, TextNode
except ModuleNotFoundError as err:  # say what to install, not only what is missing
    raise ModuleNotFoundError(
        f"chunktui.llama_index needs LlamaIndex ({err}): pip install llama-index-core", name=err.name
    ) from err

from . import Chunker

# Chunk metadata that is bookkeeping, not text a model should read: kept on
# the node but out of what is embedded and shown to the LLM.
_BOOKKEEPING = ["chunk_index", "chunk_size", "id", "parent_id", "level", "element", "pages"]


class ChunktuiNodeParser(NodeParser):
    """Parse documents into nodes with a chunktui `Chunker`: built from
    keywords named like the config file's keys, `.from_config(path)`, or a
    chunker (`chunker=`). Other keywords are the `NodeParser`'s own
    (`include_metadata`, `include_prev_next_rel`, `id_func`, ...)."""

    chunktui_config: dict[str, Any] = Field(
        default_factory=dict, description="The chunktui config (the keys of a chunktui.toml)."
    )
    _chunker: Chunker = PrivateAttr()

    def __init__(self, chunker: Chunker | None = None, **kwargs: Any) -> None:
        own = {k: v for k, v in kwargs.items() if k in NodeParser.model_fields}
        config = {k: v for k, v in kwargs.items() if k not in own}
        if chunker is None:
            chunker = Chunker(**{**config.pop("chunktui_config", {}), **config})
        elif config:
            raise ValueError(f"pass either a Chunker or config keywords, not both (got {sorted(config)})")
        super().__init__(chunktui_config=chunker.config, **own)  # type: ignore[call-arg]  # a pydantic field
        self._chunker = chunker

    @classmethod
    def from_config(cls, path: str | os.PathLike[str], **kwargs: Any) -> ChunktuiNodeParser:
        """The config a workbench exported; config keywords over it, and the
        `NodeParser`'s own keywords."""
        own = {k: v for k, v in kwargs.items() if k in NodeParser.model_fields}
        overrides = {k: v for k, v in kwargs.items() if k not in own}
        return cls(Chunker.from_config(path, **overrides), **own)

    @classmethod
    def class_name(cls) -> str:
        return "ChunktuiNodeParser"

    @property
    def chunker(self) -> Chunker:
        return self._chunker

    def _parse_nodes(self, nodes: Sequence[BaseNode], show_progress: bool = False, **kwargs: Any) -> list[BaseNode]:
        texts = [node.get_content(metadata_mode=MetadataMode.NONE) for node in nodes]
        parsed: list[BaseNode] = []
        for node, chunks in zip(nodes, self._chunker.chunk_many(texts)):
            built = build_nodes_from_splits([c.text for c in chunks], node, id_func=self.id_func)
            for piece, c in zip(built, chunks):
                piece.start_char_idx = c.char_start
                piece.end_char_idx = c.char_end
                meta = c.meta
                fields = dict(meta.pop("fields", []))
                meta.pop("text", None)  # the node's text already
                piece.metadata.update({"chunk_index": c.index, "chunk_size": c.size, **meta, **fields})
                hidden = [k for k in _BOOKKEEPING if k in piece.metadata]
                # New lists: the document's may be shared by all its nodes.
                piece.excluded_embed_metadata_keys = _union(piece.excluded_embed_metadata_keys, hidden)
                piece.excluded_llm_metadata_keys = _union(piece.excluded_llm_metadata_keys, hidden)
            parsed.extend(built)
        return parsed

    def _postprocess_parsed_nodes(self, nodes: list[BaseNode], parent_doc_map: dict[str, Document]) -> list[BaseNode]:
        # The base class searches each node's text in its document to set
        # the offsets, which finds the wrong place for repeated text; the
        # chunks know theirs.
        offsets = [(n.start_char_idx, n.end_char_idx) if isinstance(n, TextNode) else None for n in nodes]
        nodes = super()._postprocess_parsed_nodes(nodes, parent_doc_map)
        for node, where in zip(nodes, offsets):
            if isinstance(node, TextNode) and where is not None:
                node.start_char_idx, node.end_char_idx = where
        return nodes


def _union(keys: list[str], more: list[str]) -> list[str]:
    return keys + [k for k in more if k not in keys]
