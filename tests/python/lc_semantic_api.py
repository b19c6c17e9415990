"""LangChain's SemanticChunker with langchain-openai's OpenAIEmbeddings on
an OpenAI-compatible embeddings server: the reference tests/embed_api.rs
holds chunktui's `langchain-semantic --embed-url` to, chunk for chunk, and
the peer bench/embed_api_speed.py times.

    python lc_semantic_api.py URL MODEL < texts.json > chunks.json

Reads a JSON list of texts; writes a JSON list with, per text, the list of
chunk texts. The key comes from $CHUNKTUI_EMBED_KEY (any string for a local
server). check_embedding_ctx_length=False makes OpenAIEmbeddings send the
texts as strings, as chunktui does, instead of tiktoken ids.
"""

from __future__ import annotations

import json
import os
import sys

from langchain_experimental.text_splitter import SemanticChunker
from langchain_openai import OpenAIEmbeddings
from pydantic import SecretStr


def embeddings(url: str, model: str) -> OpenAIEmbeddings:
    key = os.environ.get("CHUNKTUI_EMBED_KEY") or "unused-local-key"
    return OpenAIEmbeddings(
        model=model,
        base_url=url,
        api_key=SecretStr(key),
        check_embedding_ctx_length=False,
    )


def main() -> None:
    url, model = sys.argv[1], sys.argv[2]
    texts: list[str] = json.load(sys.stdin)
    chunker = SemanticChunker(embeddings(url, model))
    out = [chunker.split_text(text) for text in texts]
    json.dump(out, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
