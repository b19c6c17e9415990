"""Post-chunking through the Python package (`chunktui.PostChunker`): the
chunks a question gets are exactly those `Chunker` cuts from its documents,
with code-point offsets; only retrieved documents are cut, and a second run
over the same chunk cache cuts none until a document changes; the
query-aware windows keep to the size, on English and Chinese text; bad
input is a ValueError. BM25 only: no model."""

from __future__ import annotations

import re
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

import chunktui
from pkgtest import REPO, read

if TYPE_CHECKING:
    # A TypedDict of the stub only: hits are plain dicts at run time.
    from chunktui._chunktui import PostHit

QUESTIONS = [
    "How does the river change in winter near the banks?",
    "Which separators does the Chinese preset use between sentences?",
    "What changed in the changelog release?",
    "中文句子之间没有空格，标点也与英文不同",
    "这条河来到海边，散成一片宽阔平缓的三角洲",
]
CHINESE = ["zh-article", "river-glossary-zh"]


def samples() -> dict[str, str]:
    """samples/*.md by name (without the extension), read as the CLI reads them."""
    docs = {p.stem: read(p) for p in sorted((REPO / "samples").glob("*.md"))}
    assert set(CHINESE) <= set(docs) and len(docs) >= 4
    return docs


def check_offsets(hit: PostHit, text: str) -> None:
    """The hit's code points slice its document to its text; its bytes too."""
    assert hit["text"] == text[hit["char_start"] : hit["char_end"]]
    assert hit["start"] == len(text[: hit["char_start"]].encode("utf-8"))
    assert hit["end"] == len(text[: hit["char_end"]].encode("utf-8"))


def retrieved(post: chunktui.PostChunker, questions: Iterable[str]) -> set[str]:
    return {doc for q in questions for doc, _ in post.rank_documents(q)}


@pytest.mark.parametrize(
    "settings",
    [{"size": 200, "unit": "chars"}, {"strategy": "markdown", "size": 40, "unit": "words", "overlap": 0}],
    ids=["recursive-chars", "markdown-words"],
)
def test_query_returns_the_chunkers_own_chunks(settings: dict[str, Any], tmp_path: Path) -> None:
    docs = samples()
    chunker = chunktui.Chunker(**settings)
    expected = {name: [c.to_dict() for c in chunker.chunk(text)] for name, text in docs.items()}
    config = tmp_path / "chunktui.toml"
    config.write_text(chunker.to_toml(), encoding="utf-8")
    # Settings as keywords, a config file and a Chunker all cut the same;
    # the second and third read the first's chunks from the cache.
    cache = tmp_path / "cache"
    made = [
        chunktui.PostChunker(docs, documents_per_query=2, chunk_cache=cache, **settings),
        chunktui.PostChunker(docs, config, documents_per_query=2, chunk_cache=cache),
        chunktui.PostChunker(docs, chunker, documents_per_query=2, chunk_cache=cache),
    ]
    assert made[0].config == chunker.config
    answers = []
    for post in made:
        assert post.ids == list(docs) and len(post) == len(docs)
        got = []
        for question in QUESTIONS:
            hits = post.query(question, k=4)
            assert 0 < len(hits) <= 4, question
            scores = [h["score"] for h in hits]
            assert scores == sorted(scores, reverse=True)
            ranked = {doc for doc, _ in post.rank_documents(question)}
            for hit in hits:
                text = docs[hit["id"]]
                assert hit["id"] == post.ids[hit["doc"]] and hit["id"] in ranked
                check_offsets(hit, text)
                chunk = next(
                    c
                    for c in expected[hit["id"]]
                    if (c["char_start"], c["char_end"]) == (hit["char_start"], hit["char_end"])
                )
                assert (hit["start"], hit["end"], hit["text"], hit["meta"]) == (
                    chunk["start"],
                    chunk["end"],
                    chunk["text"],
                    chunk["meta"],
                )
            got.append(hits)
        answers.append(got)
    assert answers[1] == answers[0] and answers[2] == answers[0]
    assert made[1].cost()["documents_chunked"] == 0 and made[2].cost()["documents_chunked"] == 0


def test_documents_come_as_a_list_pairs_or_bytes() -> None:
    docs = samples()
    texts = list(docs.values())
    by_list = chunktui.PostChunker(texts, chunk_cache=False, size=200, unit="chars")
    assert by_list.ids == [str(i) for i in range(len(texts))]
    pairs = chunktui.PostChunker(
        [(name, text.encode("utf-8")) for name, text in docs.items()], chunk_cache=False, size=200, unit="chars"
    )
    assert pairs.ids == list(docs)
    for question in QUESTIONS:
        a, b = by_list.query(question, k=3), pairs.query(question, k=3)
        assert [{**h, "id": None} for h in a] == [{**h, "id": None} for h in b]
        assert [h["id"] for h in b] == [pairs.ids[int(h["id"])] for h in a]


def test_only_retrieved_documents_are_cut_and_the_cache_keeps_them(tmp_path: Path) -> None:
    docs = samples()
    cache = tmp_path / "chunks"
    settings: dict[str, Any] = {"size": 200, "unit": "chars", "documents_per_query": 2, "chunk_cache": cache}
    first = chunktui.PostChunker(docs, **settings)
    asked = QUESTIONS[:2]
    for i, question in enumerate(asked, 1):
        first.query(question)
        cost = first.cost()
        assert cost["documents_chunked"] <= 2 * i
    hit = retrieved(first, asked)
    cost = first.cost()
    assert cost["documents_total"] == len(docs)
    assert cost["documents_chunked"] == len(hit) < len(docs), "only the retrieved documents are cut"
    assert cost["chunk_cache_hits"] == 0
    assert cost["chunks_embedded"] == cost["sentences_embedded"] == cost["document_windows_embedded"] == 0
    # Asked again, the same instance cuts nothing more.
    first.query(asked[0])
    assert first.cost()["documents_chunked"] == len(hit)

    # A second PostChunker over the same cache cuts nothing.
    second = chunktui.PostChunker(docs, **settings)
    assert [second.query(q) for q in asked] == [first.query(q) for q in asked]
    assert second.cost()["documents_chunked"] == 0
    assert second.cost()["chunk_cache_hits"] == len(hit) > 0

    # An edited document misses the cache and is cut again; the others do not.
    edited = sorted(hit)[0]
    changed = {**docs, edited: docs[edited] + "\n\nOne more paragraph, added later.\n"}
    third = chunktui.PostChunker(changed, **settings)
    for q in asked:
        third.query(q)
    assert retrieved(third, asked) == hit
    assert third.cost()["documents_chunked"] == 1
    assert third.cost()["chunk_cache_hits"] == len(hit) - 1
    # Other settings are another key: everything is cut again.
    fourth = chunktui.PostChunker(docs, **{**settings, "size": 300})
    for q in asked:
        fourth.query(q)
    assert fourth.cost()["documents_chunked"] == len(hit)


def test_chunk_cache_true_is_chunktuis_cache_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHUNKTUI_CACHE_DIR", str(tmp_path))
    docs = samples()
    chunktui.PostChunker(docs, size=200, unit="chars").query(QUESTIONS[0])
    assert list((tmp_path / "chunks").rglob("*.json"))
    again = chunktui.PostChunker(docs, size=200, unit="chars")
    again.query(QUESTIONS[0])
    assert again.cost()["documents_chunked"] == 0 and again.cost()["chunk_cache_hits"] > 0
    # Off: nothing kept, so a second one cuts again.
    kept = set((tmp_path / "chunks").rglob("*.json"))
    for _ in range(2):
        off = chunktui.PostChunker(docs, size=250, unit="chars", chunk_cache=False)
        off.query(QUESTIONS[0])
        assert off.cost()["documents_chunked"] > 0 and off.cost()["chunk_cache_hits"] == 0
    assert set((tmp_path / "chunks").rglob("*.json")) == kept


@pytest.mark.parametrize(
    "settings", [{"size": 120, "unit": "chars"}, {"size": 40, "unit": "tokens"}], ids=["chars", "tokens"]
)
def test_query_aware_windows_keep_to_the_size(settings: dict[str, Any]) -> None:
    docs = samples()
    chunker = chunktui.Chunker(**settings)
    post = chunktui.PostChunker(docs, documents_per_query=3, chunk_cache=False, **settings)
    for question in QUESTIONS:
        hits = post.query_aware(question, k=4)
        assert 0 < len(hits) <= 4, question
        scores = [h["score"] for h in hits]
        assert scores == sorted(scores, reverse=True)
        ranked = {doc for doc, _ in post.rank_documents(question)}
        for i, hit in enumerate(hits):
            assert hit["id"] in ranked and hit["meta"] == {}
            check_offsets(hit, docs[hit["id"]])
            assert hit["text"].strip()
            assert chunker.size_of(hit["text"]) <= settings["size"], hit
            # Each window shares at most half of itself with those before it.
            shared = sum(
                max(0, min(h["char_end"], hit["char_end"]) - max(h["char_start"], hit["char_start"]))
                for h in hits[:i]
                if h["doc"] == hit["doc"]
            )
            assert shared * 2 <= len(hit["text"].encode("utf-8")), hit


@pytest.mark.parametrize("name", CHINESE)
def test_chinese_documents_get_code_point_offsets(name: str, tmp_path: Path) -> None:
    docs = samples()
    text = docs[name]
    sentence = next(s for s in text.split("。") if len(s) > 15 and "#" not in s)
    question = sentence.strip()[-15:]
    settings: dict[str, Any] = {"size": 80, "unit": "chars"}
    post = chunktui.PostChunker(docs, documents_per_query=2, chunk_cache=tmp_path, **settings)
    assert post.rank_documents(question)[0][0] == name
    expected = [c.to_dict() for c in chunktui.Chunker(**settings).chunk(text)]
    chunks = [h for h in post.query(question, k=3) if h["id"] == name]
    assert chunks and question in chunks[0]["text"]
    for hit in chunks:
        check_offsets(hit, text)
        assert hit["end"] > hit["char_end"], "bytes and code points differ on Chinese text"
        place = (hit["char_start"], hit["char_end"], hit["text"])
        assert place in [(c["char_start"], c["char_end"], c["text"]) for c in expected]
    windows = [h for h in post.query_aware(question, k=3) if h["id"] == name]
    assert windows and question in windows[0]["text"]
    for hit in windows:
        check_offsets(hit, text)
        assert len(hit["text"]) <= 80


def test_questions_from_threads_get_the_answers_asked_one_by_one() -> None:
    post = chunktui.PostChunker(samples(), chunk_cache=False, size=150, unit="chars")
    alone = [(post.query(q), post.query_aware(q)) for q in QUESTIONS]
    fresh = chunktui.PostChunker(samples(), chunk_cache=False, size=150, unit="chars")
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(lambda q: (fresh.query(q), fresh.query_aware(q)), QUESTIONS * 3))
    assert together == alone * 3
    assert fresh.cost()["documents_chunked"] == post.cost()["documents_chunked"]


def test_the_representation_and_repr() -> None:
    post = chunktui.PostChunker(samples(), chunk_cache=False, documents_per_query=3)
    assert "BM25" in post.document_representation
    assert repr(post) == 'PostChunker(5 documents, documents_per_query=3, doc_retriever="bm25", retriever="bm25")'


@pytest.mark.parametrize(
    ("documents", "keywords", "message"),
    [
        ([], {}, "at least one document"),
        ({}, {}, "at least one document"),
        (None, {"documents_per_query": 0}, "documents_per_query=0"),
        (None, {"retriever": "bm26"}, "unknown retriever 'bm26'"),
        (None, {"doc_retriever": "tfidf"}, "unknown retriever 'tfidf'"),
        (None, {"size": -1}, "size=-1"),
        (None, {"strategy": "nope"}, "unknown variant `nope`"),
        (None, {"sizee": 300}, "sizee"),
        ([("a", "one"), ("a", "two")], {}, 'id "a" is given twice'),
        ([b"ok", b"\xff\xfe"], {}, "not valid UTF-8"),
    ],
)
def test_bad_input_is_a_value_error(documents: Any, keywords: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        chunktui.PostChunker(samples() if documents is None else documents, chunk_cache=False, **keywords)


def test_bad_questions_and_types() -> None:
    post = chunktui.PostChunker(samples(), chunk_cache=False)
    three: Any = 3  # what the types refuse, as an untyped caller may pass it
    with pytest.raises(ValueError, match="k=0"):
        post.query("river", k=0)
    with pytest.raises(ValueError, match="k=0"):
        post.query_aware("river", k=0)
    with pytest.raises(TypeError, match="one str"):
        chunktui.PostChunker("one document, not a list")
    with pytest.raises(TypeError, match=r"documents\[1\] is int"):
        chunktui.PostChunker(["text", three])
    with pytest.raises(TypeError, match="ids are str"):
        chunktui.PostChunker({three: "text"})
    with pytest.raises(TypeError, match="chunk_cache is int"):
        chunktui.PostChunker(["text"], chunk_cache=three)
    with pytest.raises(TypeError, match="config is int"):
        chunktui.PostChunker(["text"], three)
    with pytest.raises(OSError):
        chunktui.PostChunker(["text"], REPO / "no-such-config.toml")
