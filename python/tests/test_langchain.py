"""`ChunktuiTextSplitter` is a real LangChain `TextSplitter`: with chunktui's
LangChain-compatible strategies it gives what LangChain's own splitters
give (texts, documents, metadata, start_index), and with any strategy its
documents keep their source's metadata and index into the source text."""

from __future__ import annotations

from pathlib import Path

from langchain_core.documents import BaseDocumentTransformer, Document
from langchain_text_splitters import (
    CharacterTextSplitter,
    MarkdownHeaderTextSplitter,
    RecursiveCharacterTextSplitter,
    TextSplitter,
)

import chunktui
from chunktui.langchain import ChunktuiTextSplitter
from pkgtest import corpus_files, read


def excerpts(n: int = 40_000) -> list[str]:
    return [read(p)[:n] for p in corpus_files()]


def test_it_is_a_text_splitter() -> None:
    splitter = ChunktuiTextSplitter(size=300, overlap=30)
    assert isinstance(splitter, TextSplitter) and isinstance(splitter, BaseDocumentTransformer)
    assert splitter.chunker.config["size"] == 300


def test_langchain_recursive_gives_langchains_documents() -> None:
    ours = ChunktuiTextSplitter(strategy="langchain-recursive", size=400, overlap=60, add_start_index=True)
    theirs = RecursiveCharacterTextSplitter(chunk_size=400, chunk_overlap=60, add_start_index=True)
    texts = excerpts()
    for text in texts:
        assert ours.split_text(text) == theirs.split_text(text)
    metadatas = [{"source": f"doc{i}", "tags": ["a"]} for i in range(len(texts))]
    assert ours.create_documents(texts, metadatas) == theirs.create_documents(texts, metadatas)


def test_langchain_character_gives_langchains_texts() -> None:
    ours = ChunktuiTextSplitter(strategy="langchain-character", size=600, overlap=100)
    theirs = CharacterTextSplitter(chunk_size=600, chunk_overlap=100)
    for text in excerpts():
        assert ours.split_text(text) == theirs.split_text(text)


def test_markdown_headers_become_document_metadata_as_in_langchain() -> None:
    ours = ChunktuiTextSplitter(strategy="langchain-markdown-header")
    headers = [("#", "Header 1"), ("##", "Header 2"), ("###", "Header 3")]
    theirs = MarkdownHeaderTextSplitter(headers_to_split_on=headers)
    for path in corpus_files():
        if path.suffix == ".md":
            text = read(path)[:60_000]
            got = ours.create_documents([text])
            want = theirs.split_text(text)
            assert [(d.page_content, d.metadata) for d in got] == [(d.page_content, d.metadata) for d in want]


def test_any_strategy_keeps_metadata_and_indexes_the_source() -> None:
    splitter = ChunktuiTextSplitter(strategy="markdown", unit="tokens", size=200, overlap=0, add_start_index=True)
    sources = [Document(page_content=t, metadata={"source": f"doc{i}"}) for i, t in enumerate(excerpts(20_000))]
    docs = splitter.split_documents(sources)
    assert docs == splitter.transform_documents(sources)
    by_source = {d.metadata["source"]: d.page_content for d in sources}
    for d in docs:
        start = d.metadata["start_index"]
        assert by_source[d.metadata["source"]][start : start + len(d.page_content)] == d.page_content
        assert splitter.chunker.size_of(d.page_content) <= 200
    # Every document has its own copy of the metadata.
    docs[0].metadata["source"] = "changed"
    assert docs[1].metadata["source"] != "changed"
    assert {d.metadata["source"] for d in docs[1:]} == {d.metadata["source"] for d in sources}


def test_from_config(tmp_path: Path) -> None:
    config = tmp_path / "chunktui.toml"
    config.write_text(chunktui.Chunker(strategy="sentence", size=250).to_toml(), encoding="utf-8")
    splitter = ChunktuiTextSplitter.from_config(config, add_start_index=True)
    text = excerpts(10_000)[0]
    assert splitter.split_text(text) == [c.text for c in chunktui.Chunker(strategy="sentence", size=250).chunk(text)]
    assert all("start_index" in d.metadata for d in splitter.create_documents([text]))
