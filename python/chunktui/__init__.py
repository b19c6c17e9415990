"""chunktui's chunker in Python: the chunks a workbench config exports,
exactly as `chunktui chunk` and the Rust library cut them.

    import chunktui
    ch = chunktui.Chunker.from_config("chunktui.toml")
    ch = chunktui.Chunker(strategy="recursive", unit="tokens", size=512, overlap=64)
    chunks = ch.chunk(text)            # [chunktui.Chunk]: .start .end .char_start .char_end .size .text .meta
    many = ch.chunk_many(texts)        # one list per text, in order, on every core
    page = ch.chunk_file("page.html")  # a file as `chunktui chunk FILE` reads it (HTML, PDF extracted)

The adapters (chunktui.langchain, chunktui.llama_index, chunktui.ray) import
their frameworks only when they are imported themselves.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path


def _point_at_onnxruntime() -> None:
    """The model strategies load ONNX Runtime at run time: when the Python
    `onnxruntime` package is installed and ORT_DYLIB_PATH is not set, use the
    library that package ships (found without importing it)."""
    if os.environ.get("ORT_DYLIB_PATH"):
        return
    try:
        spec = importlib.util.find_spec("onnxruntime")
    except (ImportError, ValueError):
        return
    if spec is None or not spec.submodule_search_locations:
        return
    for location in spec.submodule_search_locations:
        libs = sorted((Path(location) / "capi").glob("libonnxruntime.so*"))
        libs += sorted((Path(location) / "capi").glob("libonnxruntime*.dylib"))
        libs += sorted((Path(location) / "capi").glob("onnxruntime.dll"))
        if libs:
            os.environ["ORT_DYLIB_PATH"] = str(libs[0])
            return


_point_at_onnxruntime()

from ._chunktui import (  # noqa: E402
    Chunk,
    Chunker,
    ModelError,
    PostChunker,
    __version__,
    format_strategies,
    llm_strategies,
    strategies,
)

__all__ = [
    "Chunk",
    "Chunker",
    "ModelError",
    "PostChunker",
    "__version__",
    "format_strategies",
    "llm_strategies",
    "strategies",
]
