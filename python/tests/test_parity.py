"""`Chunker(...).chunk` gives exactly `chunktui chunk`'s JSONL records on the
corpus documents, for every strategy that needs no model; `chunk_many` is a
loop of `chunk` in input order; settings errors are ValueErrors with the
CLI's message."""

from __future__ import annotations

import gc
import os
import pickle
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import chunktui
from pkgtest import REPO, chunktui_bin, cli_records, corpus_files, read

# The LLM strategies are checked against a real server in test_llm.py, the
# ones made for JSON and CSV on such data in test_formats.py.
FOR_FORMATS = {name for name, _ in chunktui.format_strategies()}
NON_MODEL = [
    name
    for name, needs_model in chunktui.strategies()
    if not needs_model and name not in chunktui.llm_strategies() and name not in FOR_FORMATS
]


def python_records(chunker: chunktui.Chunker, text: str) -> list[dict[str, Any]]:
    return [c.to_dict() for c in chunker.chunk(text)]


def test_the_table_has_model_and_non_model_strategies() -> None:
    names = [name for name, _ in chunktui.strategies()]
    assert "recursive" in NON_MODEL and "semantic" in names and "semantic" not in NON_MODEL
    assert {"llm", "propositions", "agentic"} <= set(chunktui.llm_strategies()) <= set(names)


@pytest.mark.parametrize("strategy", NON_MODEL)
def test_chunk_equals_the_cli_on_the_corpus(strategy: str, tmp_path: Path) -> None:
    chunker = chunktui.Chunker(strategy=strategy)
    # The CLI with the chunker's own config, as a pipeline would run both:
    # without a config the CLI picks some defaults from the file (the
    # `chinese` preset for CJK prose), which a text API cannot see.
    config = tmp_path / "chunktui.toml"
    config.write_text(chunker.to_toml(), encoding="utf-8")
    for path in corpus_files():
        text = read(path)
        expected = cli_records(path, "--config", str(config))
        got = python_records(chunker, text)
        assert len(got) == len(expected), f"{strategy} on {path.name}: {len(got)} chunks, the CLI {len(expected)}"
        for g, e in zip(got, expected):
            assert g == e, f"{strategy} on {path.name}, chunk {e['index']}"
        # The attributes are the record's fields, and the offsets index the text.
        for c in chunker.chunk(text)[:50]:
            if "text" not in c.meta:  # LangChain's joins rewrite some texts
                assert text[c.char_start : c.char_end] == c.text
                assert text.encode()[c.start : c.end].decode() == c.text


@pytest.mark.parametrize(
    ("sample", "strategy", "key"),
    [
        ("handbook.html", "html", "element"),
        ("handbook.html", "recursive", "element"),
        ("report.pdf", "recursive", "pages"),
        ("guide.md", "markdown", "headings"),
        ("zh-article.md", "markdown", "headings"),
    ],
)
def test_chunk_file_equals_the_cli_on_html_pdf_and_markdown(
    sample: str, strategy: str, key: str, tmp_path: Path
) -> None:
    path = REPO / "samples" / sample
    chunker = chunktui.Chunker(strategy=strategy, size=400, overlap=40)
    config = tmp_path / "chunktui.toml"
    config.write_text(chunker.to_toml(), encoding="utf-8")
    got = [c.to_dict() for c in chunker.chunk_file(path)]
    assert got == cli_records(path, "--config", str(config))
    # Extracted, not the markup: HTML chunks name their element, PDF chunks
    # their pages, Markdown chunks their headings.
    assert any(key in c["meta"] for c in got), key
    assert not any("<p>" in c["text"] for c in got)


def test_named_html_and_pdf_texts_are_extracted_as_files_are() -> None:
    samples = [REPO / "samples" / n for n in ["handbook.html", "guide.md", "report.pdf"]]
    chunker = chunktui.Chunker(size=400, overlap=40)
    data = [p.read_bytes() for p in samples]
    want = [chunker.chunk_file(samples[0]), chunker.chunk(data[1]), chunker.chunk_file(samples[2])]
    for threads in [1, 2]:
        got = chunker.chunk_many(data, threads=threads, names=[str(p) for p in samples])
        assert [[c.to_dict() for c in cs] for cs in got] == [[c.to_dict() for c in cs] for cs in want]
    # Unnamed, an HTML page is text like any other.
    assert any("<" in c.text for c in chunker.chunk_many(data[:1])[0])
    with pytest.raises(ValueError, match="^3 texts but 1 names: give one name per text"):
        chunker.chunk_many(data, names=["a.html"])
    with pytest.raises(ValueError, match=r"^texts\[0\]: .*report.html"):
        chunker.chunk_many([b"\x00\x01binary"], names=["report.html"])


def test_chunk_file_errors_say_what_to_do(tmp_path: Path) -> None:
    chunker = chunktui.Chunker()
    with pytest.raises(OSError, match="missing.md: no such file"):
        chunker.chunk_file(tmp_path / "missing.md")
    (tmp_path / "empty.md").write_bytes(b"")
    with pytest.raises(ValueError, match="empty"):
        chunker.chunk_file(tmp_path / "empty.md")


@pytest.mark.parametrize(
    ("kwargs", "flags"),
    [
        ({"unit": "tokens", "tokenizer": "o200k_base", "size": 256, "overlap": 32},
         ["--unit", "tokens", "--tokenizer", "o200k_base", "--size", "256", "--overlap", "32"]),
        ({"strategy": "recursive", "size": 300, "recursive": {"preset": "chinese"}},
         ["--size", "300", "--preset", "chinese"]),
        ({"strategy": "sentence", "unit": "words", "size": 120, "sentence": {"max_sentences": 4}},
         ["--strategy", "sentence", "--unit", "words", "--size", "120", "--max-sentences", "4"]),
        ({"strategy": "hierarchical", "hierarchical": {"levels": [2000, 500]}},
         ["--strategy", "hierarchical", "--levels", "2000,500"]),
        ({"strategy": "markdown", "size": 800, "embed_text": {"fit": True}},
         ["--strategy", "markdown", "--size", "800", "--embed-text-fit"]),
    ],
)
def test_keywords_are_the_config_keys(kwargs: dict[str, Any], flags: list[str]) -> None:
    chunker = chunktui.Chunker(**kwargs)
    if "--preset" not in flags:
        flags = [*flags, "--preset", "english"]  # the keywords' default, whatever the file
    for path in corpus_files():
        if path.stat().st_size > 1_500_000:
            continue  # the settings are under test here, not the big files
        assert python_records(chunker, read(path)) == cli_records(path, *flags), path.name


def test_the_clis_default_for_cjk_prose_is_the_chinese_preset_at_240() -> None:
    # What `chunktui chunk zh.md` picks by itself (the chinese separators, and
    # 240 characters: a CJK character is a word piece of the default model), a Chunker is told.
    chunker = chunktui.Chunker(strategy="recursive", size=240, recursive={"preset": "chinese"})
    cjk = [p for p in corpus_files() if p.name.startswith("zh_")]
    assert cjk
    for path in cjk:
        assert python_records(chunker, read(path)) == cli_records(path, "--strategy", "recursive"), path.name


def test_from_config_reads_what_the_cli_writes(tmp_path: Path) -> None:
    flags = ["--strategy", "langchain-recursive", "--size", "400", "--separators", '["\\n\\n", "。", " ", ""]']
    toml = subprocess.run([chunktui_bin(), "config", "init", *flags], capture_output=True, text=True, check=True)
    config = tmp_path / "chunktui.toml"
    config.write_text(toml.stdout, encoding="utf-8")
    chunker = chunktui.Chunker.from_config(config)
    assert chunker.config["strategy"] == "langchain-recursive" and chunker.config["size"] == 400
    for path in corpus_files():
        if path.name.startswith("zh_"):
            expected = cli_records(path, "--config", str(config))
            assert python_records(chunker, read(path)) == expected
    # Keywords go over the file, and sections merge key by key.
    smaller = chunktui.Chunker.from_config(config, size=200, overlap=20, langchain={"strip_whitespace": False})
    assert smaller.config["size"] == 200
    assert smaller.config["langchain"]["separators"] == ["\n\n", "。", " ", ""]
    assert smaller.config["langchain"]["strip_whitespace"] is False


def test_chunk_many_is_a_loop_of_chunk_in_order() -> None:
    texts = [read(p) for p in corpus_files()]
    # Pieces of very different sizes, so that the threads finish out of order.
    texts += [t[i : i + n] for t in texts[:2] for i, n in [(0, 500), (1000, 70_000), (5, 3)]]
    texts.append("中文的句子。" * 400)
    chunker = chunktui.Chunker(strategy="recursive", unit="tokens", size=200, overlap=20)
    loop = [chunker.chunk(t) for t in texts]
    for threads in [None, 1, 2, 5]:
        assert chunker.chunk_many(texts, threads=threads) == loop, f"threads={threads}"
    assert chunker.chunk_many([]) == []


def test_utf8_bytes_give_the_chunks_of_their_str() -> None:
    texts = [read(p) for p in corpus_files()] + ["中文的句子。" * 400, ""]
    chunker = chunktui.Chunker(strategy="recursive", size=300, overlap=30)
    as_str = chunker.chunk_many(texts)
    as_bytes = chunker.chunk_many([t.encode("utf-8") for t in texts], threads=2)
    assert as_bytes == as_str
    assert chunker.chunk(texts[-2].encode("utf-8")) == as_str[-2]
    mixed = chunker.chunk_many([texts[0], texts[1].encode("utf-8")])
    assert mixed == as_str[:2]


def test_chunk_many_takes_any_iterable_but_not_one_text() -> None:
    chunker = chunktui.Chunker(size=100, overlap=10)
    texts = ["First text. " * 30, "Second text. " * 20]
    expected = chunker.chunk_many(texts)
    assert chunker.chunk_many(t for t in texts) == expected
    assert chunker.chunk_many(tuple(texts), names=(f"{i}.md" for i in range(2))) == expected
    for one in ["just one text", b"just one text"]:
        with pytest.raises(TypeError, match=r"^texts is one (str|bytes): pass a list of texts \(\[text\]\), or chunk\(text\)"):
            chunker.chunk_many(one)  # type: ignore[arg-type]  # the mistake under test
    with pytest.raises(TypeError, match=r"^texts is int: pass a list \(or any iterable\) of texts"):
        chunker.chunk_many(7)  # type: ignore[arg-type]  # the mistake under test
    with pytest.raises(TypeError, match=r"^names is one str: pass a list, one name per text"):
        chunker.chunk_many(texts, names="a.md")


def test_bad_texts_name_their_position_and_what_to_do() -> None:
    chunker = chunktui.Chunker(size=100, overlap=10)
    bad = "déjà vu".encode("utf-8")[:2] + b" and more"  # cut inside the é
    with pytest.raises(ValueError, match=r"^texts\[1\]: the text is not valid UTF-8 \(byte 1\): decode it"):
        chunker.chunk_many(["fine", bad], threads=2)
    with pytest.raises(ValueError, match=r"^the text is not valid UTF-8 \(byte 1\)"):
        chunker.chunk(bad)
    for threads in [1, 2]:  # a str that has no UTF-8 form (a lone surrogate)
        with pytest.raises(ValueError, match=r"^texts\[1\]: .*surrogate"):
            chunker.chunk_many(["fine", "lone \ud800 surrogate", b"\xff"], threads=threads)
    with pytest.raises(TypeError, match=r"^texts\[0\] is int: pass str, or bytes holding UTF-8"):
        chunker.chunk_many([7])  # type: ignore[list-item]  # the mistake under test
    with pytest.raises(TypeError, match=r"^text is NoneType"):
        chunker.chunk(None)  # type: ignore[arg-type]  # the mistake under test


def test_the_first_bad_text_in_input_order_is_the_error() -> None:
    # Largest first: the bad text at index 3 is chunked before the one at
    # index 1, and the error is still about index 1.
    chunker = chunktui.Chunker(size=100, overlap=10)
    texts: list[str | bytes] = ["fine", b"\xff small", b"big " * 50_000, b"big " * 60_000 + b"\xc3"]
    with pytest.raises(ValueError, match=r"^texts\[1\]: the text is not valid UTF-8 \(byte 0\)"):
        chunker.chunk_many(texts, threads=2)


def test_a_chunks_text_is_cut_from_the_text_passed_in() -> None:
    text = read(corpus_files()[0])[:20_000] + "\n\n中文的句子。" * 300
    chunker = chunktui.Chunker(strategy="recursive", size=300, overlap=30)
    for as_bytes in [False, True]:
        # A text of its own, which only the chunks hold once it is deleted.
        source: str | bytes = text.encode("utf-8") if as_bytes else (text + "!")[:-1]
        chunks = chunker.chunk_many([source, source], threads=2)[1]
        del source
        gc.collect()  # the chunks keep the text they are cut from alive
        for c in chunks:
            assert c.text == text[c.char_start : c.char_end]
            assert c.text.encode("utf-8") == text.encode("utf-8")[c.start : c.end]
            assert c.to_dict()["text"] == c.text
        assert repr(chunks[-1]).startswith(f"Chunk(index={len(chunks) - 1}, start=")
    # LangChain-compatible chunks whose text was rewritten (joined pieces) keep it.
    joined = chunktui.Chunker(strategy="langchain-character", size=40, overlap=0, langchain={"separator": " "})
    words = "one two  three four five six seven eight nine ten eleven twelve"
    assert [c.text for c in joined.chunk(words.encode("utf-8"))] == [c.text for c in joined.chunk(words)]
    assert any(c.text != words[c.char_start : c.char_end] for c in joined.chunk(words))


# CPython stores a str in one of four ways, by its widest code point; each
# is read from its own buffer and transcoded to UTF-8 on the worker thread.
STR_KINDS = {
    "ascii": "Plain words, and a line.\n\n" * 120,
    "latin-1": "Café, naïve déjà vu; ÿ and ß.\n\n" * 120,
    "two-byte": "中文的句子，还有“引号”。— and Ελληνικά.\n\n" * 120,
    "four-byte": "Emoji 🦀 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢, 中文。𠀀\n\n" * 120,
}


@pytest.mark.parametrize("kind", STR_KINDS)
def test_every_kind_of_str_gives_the_chunks_of_its_utf8(kind: str) -> None:
    text = STR_KINDS[kind]
    encoded = text.encode("utf-8")
    for chunker in [
        chunktui.Chunker(strategy="recursive", size=150, overlap=30),
        chunktui.Chunker(strategy="fixed", unit="tokens", size=40, overlap=8),
    ]:
        chunks = chunker.chunk(text)
        assert len(chunks) > 5
        assert chunks == chunker.chunk(encoded)
        for threads in [1, 2]:
            assert chunker.chunk_many([encoded, text, text[:-7]], threads=threads)[1] == chunks
        for c in chunks:
            assert c.text == text[c.char_start : c.char_end]
            assert (c.start, c.end) == (len(text[: c.char_start].encode()), len(text[: c.char_end].encode()))


def test_a_str_with_lone_surrogates_is_a_value_error_naming_the_first() -> None:
    chunker = chunktui.Chunker(size=100, overlap=10)
    # Two adjacent surrogates are two characters in Python, not a pair.
    for text, first in [("ab\ud83d\ude00", "U+D83D at character 2"), ("🦀 x\udfff", "U+DFFF at character 3")]:
        with pytest.raises(ValueError, match=rf"^the text holds a lone surrogate \({re.escape(first)}\)"):
            chunker.chunk(text)
        with pytest.raises(ValueError, match=rf"^texts\[1\]: the text holds a lone surrogate \({re.escape(first)}\)"):
            chunker.chunk_many(["fine", text], threads=2)


def test_chunks_are_left_out_of_the_cyclic_gc_and_never_in_a_cycle() -> None:
    chunker = chunktui.Chunker(size=100, overlap=10)
    text = "Words and more words. " * 50
    assert not any(gc.is_tracked(c) for c in chunker.chunk(text) + chunker.chunk(text.encode("utf-8")))

    freed: list[str] = []

    class Note(str):
        chunks: list[chunktui.Chunk]

        def __del__(self) -> None:
            freed.append("str")

    class Blob(bytes):
        chunks: list[chunktui.Chunk]

        def __del__(self) -> None:
            freed.append("bytes")

    # A subclass's instance can refer to its own chunks; they hold a plain
    # copy of it, so there is no cycle, and it goes when its last name does.
    sources: list[Note | Blob] = [Note(text), Blob(text.encode("utf-8"))]
    while sources:
        source = sources.pop()
        source.chunks = chunker.chunk_many([source], threads=2)[0]
        assert source.chunks == chunker.chunk(text)
        assert not any(gc.is_tracked(c) for c in source.chunks)
        del source
    assert freed == ["bytes", "str"]


def test_bad_settings_are_value_errors_with_the_cli_message() -> None:
    cases: list[tuple[dict[str, Any], list[str]]] = [
        ({"size": 0}, ["--size", "0"]),
        ({"size": 100, "overlap": 100}, ["--size", "100", "--overlap", "100"]),
        ({"unit": "tokens", "tokenizer": "no_such_tokenizer"}, ["--unit", "tokens", "--tokenizer", "no_such_tokenizer"]),
    ]
    sample = corpus_files()[0]
    for kwargs, flags in cases:
        with pytest.raises(ValueError) as raised:
            chunktui.Chunker(**kwargs)
        done = subprocess.run([chunktui_bin(), "chunk", str(sample), *flags], capture_output=True, text=True)
        assert done.returncode == 2
        assert str(raised.value) in done.stderr, (kwargs, done.stderr)
    with pytest.raises(ValueError, match="unknown field `sise`"):
        chunktui.Chunker(sise=10)  # the mistake under test
    with pytest.raises(ValueError, match=r"^size=-1: invalid value: integer `-1`"):
        chunktui.Chunker(size=-1)
    with pytest.raises(ValueError, match=r"^recursive=\{\"is_regex\":\"yes\"\}: invalid type: string"):
        chunktui.Chunker(size=10, recursive={"is_regex": "yes"})
    with pytest.raises(ValueError, match="unknown variant `nope`"):
        chunktui.Chunker(strategy="nope")
    with pytest.raises(ValueError, match="always counts tokens"):
        chunktui.Chunker(strategy="langchain-token", unit="chars")
    with pytest.raises(ValueError, match="threads must be at least 1"):
        chunktui.Chunker().chunk_many(["a"], threads=0)
    with pytest.raises(OSError, match="no such file"):
        chunktui.Chunker.from_config("/no/such/chunktui.toml")


def test_size_alone_does_not_trip_over_the_default_overlap() -> None:
    assert chunktui.Chunker(size=100).config["overlap"] == 20
    assert chunktui.Chunker().config["overlap"] == 140


def test_a_chunker_pickles_as_its_config() -> None:
    chunker = chunktui.Chunker(strategy="sentence", unit="words", size=90, sentence={"max_sentences": 3})
    again = pickle.loads(pickle.dumps(chunker))
    assert again.config == chunker.config
    text = read(corpus_files()[0])[:20_000]
    assert again.chunk(text) == chunker.chunk(text)


def run_python(code: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)


def test_a_model_strategy_without_onnx_runtime_says_what_to_install() -> None:
    env = {**os.environ, "ORT_DYLIB_PATH": "/nonexistent/libonnxruntime.so"}
    code = "import chunktui\ntry:\n    chunktui.Chunker(strategy='semantic')\nexcept chunktui.ModelError as e:\n    print(e)"
    done = run_python(code, env)
    assert done.returncode == 0, done.stderr
    assert "needs ONNX Runtime" in done.stdout and "pip install onnxruntime" in done.stdout
    assert "chunktui setup" in done.stdout


def test_the_onnxruntime_packages_library_is_found() -> None:
    env = {k: v for k, v in os.environ.items() if k != "ORT_DYLIB_PATH"}
    done = run_python("import os, chunktui; print(os.environ['ORT_DYLIB_PATH'])", env)
    assert done.returncode == 0, done.stderr
    found = Path(done.stdout.strip())
    assert found.parent.name == "capi" and found.parent.parent.name == "onnxruntime" and found.is_file()
    # And the runtime found that way embeds text: a model strategy runs.
    model = model_dir()
    code = f"import chunktui; print(len(chunktui.Chunker(strategy='semantic', semantic={{'model': {str(model)!r}}})" \
        ".chunk('A cat sat on the mat. Cats like mats. Stock markets fell sharply today.')))"
    done = run_python(code, env)
    assert done.returncode == 0 and int(done.stdout) >= 1, done.stderr


def model_dir() -> Path:
    model = os.environ.get("CHUNKTUI_MODEL_DIR")
    if not model or not (Path(model) / "model.onnx").is_file():
        pytest.fail("CHUNKTUI_MODEL_DIR must name the default model's directory: run scripts/setup-models.sh")
    return Path(model)


@pytest.mark.parametrize(
    ("strategy", "keywords", "flags"),
    [
        ("semantic", {}, []),
        ("late", {}, []),
        (
            "cluster",
            {"cluster": {"piece_size": 30, "objective": "adjacent"}},
            ["--piece-size", "30", "--cluster-objective", "adjacent"],
        ),
    ],
)
def test_model_strategies_equal_the_cli(
    strategy: str, keywords: dict[str, Any], flags: list[str], tmp_path: Path
) -> None:
    model = model_dir()
    sample = tmp_path / "sample.md"
    sample.write_bytes(read(corpus_files()[0])[:12_000].encode("utf-8"))
    chunker = chunktui.Chunker(strategy=strategy, size=600, overlap=0, semantic={"model": str(model)}, **keywords)
    expected = cli_records(
        sample, "--strategy", strategy, "--size", "600", "--overlap", "0", "--model", str(model), *flags
    )
    assert python_records(chunker, read(sample)) == expected
