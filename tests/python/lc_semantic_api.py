"""LangChain on an OpenAI-compatible embeddings server, through
langchain-openai's OpenAIEmbeddings: the reference tests/embed_api.rs holds
chunktui's `langchain-semantic --embed-url` to, chunk for chunk, and the
peer benches/embed_api.rs times.

    python lc_semantic_api.py URL MODEL < texts.json > chunks.json
    python lc_semantic_api.py --time-embed URL MODEL < texts.json

Reads a JSON list of texts. By default writes a JSON list with, per text,
the chunk texts of SemanticChunker (its defaults). With --time-embed, times
`embed_documents` of all the texts (once warmed up on a few) and writes
{"texts": N, "seconds": S, "dim": D}. The key comes from
$CHUNKTUI_EMBED_KEY (any string for a local server).
check_embedding_ctx_length=False makes OpenAIEmbeddings send the texts as
strings, as chunktui does, instead of tiktoken ids.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

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
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--time-embed", action="store_true", help="time embed_documents instead of chunking")
    parser.add_argument("url")
    parser.add_argument("model")
    args = parser.parse_args()
    texts: list[str] = json.load(sys.stdin)
    emb = embeddings(args.url, args.model)
    if args.time_embed:
        emb.embed_documents(texts[:4])  # connection and first-request costs
        started = time.perf_counter()
        vectors = emb.embed_documents(texts)
        seconds = time.perf_counter() - started
        json.dump({"texts": len(vectors), "seconds": seconds, "dim": len(vectors[0])}, sys.stdout)
        return
    chunker = SemanticChunker(emb)
    json.dump([chunker.split_text(text) for text in texts], sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
