"""`ChunktuiNodeParser` is a real LlamaIndex `NodeParser`: its nodes are
chunktui's chunks with their exact character offsets and metadata, linked
to their document and to each other, and it runs in an IngestionPipeline."""

from __future__ import annotations

from pathlib import Path

from llama_index.core import Document
from llama_index.core.ingestion import IngestionPipeline
from llama_index.core.node_parser import NodeParser
from llama_index.core.schema import MetadataMode, NodeRelationship, TextNode

import chunktui
from chunktui.llama_index import ChunktuiNodeParser
from pkgtest import corpus_files, read


def documents() -> list[Document]:
    return [
        Document(text=read(p)[:40_000], metadata={"file_name": p.name}) for p in corpus_files()
    ]


def test_nodes_are_the_chunks_with_their_offsets_and_metadata() -> None:
    parser = ChunktuiNodeParser(strategy="markdown", unit="tokens", size=256, overlap=0)
    assert isinstance(parser, NodeParser)
    docs = documents()
    nodes = parser.get_nodes_from_documents(docs)
    expected = [c for d in docs for c in chunktui.Chunker(**parser.chunktui_config).chunk(d.text)]
    assert len(nodes) == len(expected)
    by_id = {d.id_: d for d in docs}
    for node, c in zip(nodes, expected):
        assert isinstance(node, TextNode)
        doc = by_id[node.ref_doc_id or ""]
        assert node.text == c.text == doc.text[c.char_start : c.char_end]
        assert (node.start_char_idx, node.end_char_idx) == (c.char_start, c.char_end)
        assert node.metadata["file_name"] == doc.metadata["file_name"]
        assert node.metadata["chunk_index"] == c.index
        assert node.metadata.get("headings") == c.meta.get("headings")
        # Bookkeeping stays out of what is embedded; headings go in.
        embedded = node.get_content(metadata_mode=MetadataMode.EMBED)
        assert "chunk_index" not in embedded
        if c.meta.get("headings"):
            assert c.meta["headings"][-1] in embedded
    first, second = nodes[0], nodes[1]
    assert first.next_node is not None and first.next_node.node_id == second.node_id
    assert second.prev_node is not None and second.prev_node.node_id == first.node_id


def test_offsets_are_exact_where_the_text_repeats() -> None:
    # LlamaIndex's own offsets come from searching the text; with repeated
    # paragraphs the search can land on an earlier copy.
    text = "A paragraph that repeats.\n\n" * 30 + "The end is different."
    parser = ChunktuiNodeParser(strategy="recursive", size=60, overlap=30)
    nodes = parser.get_nodes_from_documents([Document(text=text)])
    chunks = parser.chunker.chunk(text)
    assert [(n.start_char_idx, n.end_char_idx) for n in nodes if isinstance(n, TextNode)] == [
        (c.char_start, c.char_end) for c in chunks
    ]


def test_hierarchy_ids_reach_the_nodes() -> None:
    parser = ChunktuiNodeParser(strategy="hierarchical", hierarchical={"levels": [2000, 500]})
    nodes = parser.get_nodes_from_documents(documents()[:1])
    levels = {n.metadata["level"] for n in nodes}
    assert levels == {0, 1}
    ids = {n.metadata["id"] for n in nodes}
    assert all(n.metadata["parent_id"] in ids for n in nodes if n.metadata["level"] == 1)


def test_it_runs_in_an_ingestion_pipeline(tmp_path: Path) -> None:
    config = tmp_path / "chunktui.toml"
    config.write_text(chunktui.Chunker(strategy="sentence", size=300).to_toml(), encoding="utf-8")
    parser = ChunktuiNodeParser.from_config(config, include_prev_next_rel=False)
    assert parser.include_prev_next_rel is False
    nodes = IngestionPipeline(transformations=[parser]).run(documents=documents())
    assert nodes and all(NodeRelationship.NEXT not in n.relationships for n in nodes)
    assert sum(1 for d in documents() for _ in parser.chunker.chunk(d.text)) == len(nodes)
