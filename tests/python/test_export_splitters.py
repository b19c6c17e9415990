"""`chunktui export CFG --to LIB` snippets, run with the real packages
(bench/requirements.txt pins them).

- exact: for the langchain-* strategies, the snippet's splitter gives exactly
  the texts of `chunktui chunk --config CFG FILE`, in LangChain and through
  LlamaIndex's LangchainNodeParser, on English, Markdown and Chinese text,
  with tiktoken and Hugging Face tokens, regex separators and every
  keep_separator mode.
- close: every other snippet of a strategy that needs no model runs and
  gives chunks that cover the text and keep near the configured size.
- model strategies: the snippets parse and call the real classes with
  keywords they accept; LlamaIndex's SemanticSplitterNodeParser runs with a
  stand-in embedding model (the real one is not installed here).

tiktoken runs offline: its encodings are read from the tiktoken-rs crate's
copies (the files tiktoken downloads, checked by tiktoken's own sha256).
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import inspect
import json
import os
import shutil
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "samples"


def env_path(var: str, default: Path) -> Path:
    value = os.environ.get(var)
    if not value:
        return default
    path = Path(value)
    return path if path.is_absolute() else REPO / path


CORPUS = env_path("CHUNKTUI_CORPUS", REPO.parent / "shared" / "corpus")
TEST_MODEL = env_path("CHUNKTUI_TEST_MODEL", REPO.parent / "shared" / "models" / "me5-small-q4")


def binary() -> Path:
    path = env_path("CHUNKTUI_BIN", REPO / "target" / "debug" / "chunktui")
    if not path.exists():
        pytest.fail(f"{path} is missing: build it with `cargo build` (or set CHUNKTUI_BIN)")
    return path


def chunktui(*args: str) -> str:
    done = subprocess.run([binary(), *args], capture_output=True, text=True)
    assert done.returncode == 0, f"chunktui {args} exited {done.returncode}: {done.stderr}"
    return done.stdout


def need(path: Path, what: str) -> Path:
    if not path.exists():
        pytest.fail(f"{path} is missing: {what}")
    return path


# --- tiktoken, offline ------------------------------------------------------

ENCODINGS = {
    "cl100k_base": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
    "o200k_base": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
}


def tiktoken_rs_assets() -> Path:
    done = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--locked"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.fail(f"`cargo metadata` failed (tiktoken's encodings come from the tiktoken-rs crate): {done.stderr}")
    packages = json.loads(done.stdout)["packages"]
    manifest = next(p["manifest_path"] for p in packages if p["name"] == "tiktoken-rs")
    return Path(manifest).parent / "assets"


@pytest.fixture(scope="session", autouse=True)
def tiktoken_offline() -> None:
    """tiktoken's cache, filled from tiktoken-rs: the file name is the sha1 of
    the URL tiktoken would download from, and tiktoken checks each file's
    sha256 before it uses it."""
    cache = REPO / "target" / "tiktoken-cache"
    cache.mkdir(parents=True, exist_ok=True)
    missing = [n for n, url in ENCODINGS.items() if not (cache / hashlib.sha1(url.encode()).hexdigest()).exists()]
    if missing:
        assets = tiktoken_rs_assets()
        for name in missing:
            key = hashlib.sha1(ENCODINGS[name].encode()).hexdigest()
            shutil.copyfile(assets / f"{name}.tiktoken", cache / key)
    os.environ["TIKTOKEN_CACHE_DIR"] = str(cache)


# --- documents ---------------------------------------------------------------


@pytest.fixture(scope="session")
def docs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The documents, by name. The Chinese Rust book is cut to its first
    100 000 characters (at a line end) to keep the run short."""
    out = tmp_path_factory.mktemp("docs")
    zh = need(CORPUS / "zh_rust_book.md", "the shared corpus (set CHUNKTUI_CORPUS)").read_text(encoding="utf-8")
    cut = zh.rfind("\n", 0, 100_000) + 1
    (out / "zh_book.md").write_text(zh[:cut], encoding="utf-8")
    return {
        "zh_article": SAMPLES / "zh-article.md",
        "guide": SAMPLES / "guide.md",
        "zh_glossary": SAMPLES / "river-glossary-zh.md",
        "ripgrep": need(CORPUS / "en_ripgrep_guide_faq.md", "the shared corpus (set CHUNKTUI_CORPUS)"),
        "zh_book": out / "zh_book.md",
    }


def read(path: Path) -> str:
    # As chunktui reads a file: bytes as they are (no newline translation).
    return path.read_bytes().decode("utf-8")


# --- configs, snippets, chunks ---------------------------------------------------


def config_file(tmp_path: Path, flags: list[str], extra_toml: str = "") -> Path:
    """A config written by `chunktui config init FLAGS` (plus TOML lines)."""
    text = chunktui("config", "init", *flags) + extra_toml
    path = tmp_path / "cfg.toml"
    path.write_text(text, encoding="utf-8")
    chunktui("config", "check", str(path))
    return path


def chunktui_texts(cfg: Path, doc: Path) -> list[str]:
    out = chunktui("chunk", "--config", str(cfg), str(doc))
    return [json.loads(line)["text"] for line in out.splitlines()]


def build(cfg: Path, lib: str) -> tuple[str, Any]:
    """The snippet for `cfg` and the `splitter` it builds."""
    code = chunktui("export", str(cfg), "--to", lib)
    namespace: dict[str, Any] = {}
    exec(compile(code, f"<export --to {lib}>", "exec"), namespace)
    return code, namespace["splitter"]


def chunks_of(lib: str, splitter: Any, text: str) -> list[str]:
    """What the snippet's usage line does."""
    if lib == "chonkie":
        return [c.text for c in splitter.chunk(text)]
    if lib == "llamaindex" and not hasattr(splitter, "split_text"):
        from llama_index.core import Document

        return [n.get_content() for n in splitter.get_nodes_from_documents([Document(text=text)])]
    out = splitter.split_text(text)
    return [c if isinstance(c, str) else c.page_content for c in out]


# --- exact ------------------------------------------------------------------------

HEADERS_TOML = """
[langchain]
headers = [["#", "Title"], ["##", "Section"], ["####", "Deep"]]
strip_headers = false
return_each_line = true
"""

EXACT: list[tuple[str, list[str], str]] = [
    ("zh_article", ["--strategy", "langchain-recursive", "--size", "120", "--overlap", "20"], ""),
    (
        "zh_book",
        ["--strategy", "langchain-recursive", "--separators", '["\\n\\n", "。", "，", ""]', "--keep-separator", "end"]
        + ["--size", "150", "--overlap", "30"],
        "",
    ),
    (
        "ripgrep",
        ["--strategy", "langchain-recursive", "--separators", '["\\\\n#{1,6} ", "(?<=[.!?])\\\\s+", " ", ""]']
        + ["--regex", "--keep-separator", "start", "--size", "400", "--overlap", "50"],
        "",
    ),
    ("guide", ["--strategy", "langchain-recursive", "--keep-separator", "false", "--no-strip", "--size", "200"], ""),
    (
        "ripgrep",
        ["--strategy", "langchain-recursive", "--unit", "tokens", "--tokenizer", "cl100k_base"]
        + ["--size", "200", "--overlap", "20"],
        "",
    ),
    ("ripgrep", ["--strategy", "langchain-character", "--size", "500", "--overlap", "50"], ""),
    (
        "guide",
        ["--strategy", "langchain-character", "--separator", "\\s+", "--regex", "--size", "200", "--overlap", "0"],
        "",
    ),
    (
        "zh_book",
        ["--strategy", "langchain-character", "--separator", "。", "--keep-separator", "end"]
        + ["--size", "100", "--overlap", "10"],
        "",
    ),
    ("zh_book", ["--strategy", "langchain-token", "--size", "100", "--overlap", "10"], ""),
    ("ripgrep", ["--strategy", "langchain-token", "--tokenizer", "o200k_base", "--size", "64", "--overlap", "0"], ""),
    ("ripgrep", ["--strategy", "langchain-markdown-header"], ""),
    ("zh_book", ["--strategy", "langchain-markdown-header"], ""),
    ("guide", ["--strategy", "langchain-markdown-header"], HEADERS_TOML),
]


def hf_case() -> tuple[str, list[str], str]:
    tokenizer = need(TEST_MODEL / "tokenizer.json", "the test model (set CHUNKTUI_TEST_MODEL)")
    flags = ["--strategy", "langchain-recursive", "--unit", "tokens", "--tokenizer", f"hf:{tokenizer}"]
    return ("zh_glossary", flags + ["--size", "48", "--overlap", "8"], "")


def exact_pairs() -> list[tuple[str, str, list[str], str]]:
    out = []
    for doc, flags, extra in EXACT:
        out.append(("langchain", doc, flags, extra))
        if "langchain-markdown-header" not in flags:
            out.append(("llamaindex", doc, flags, extra))
    return out


@pytest.mark.parametrize(("lib", "doc", "flags", "extra"), exact_pairs())
def test_exact_snippets_give_chunktuis_chunks(
    tmp_path: Path, docs: dict[str, Path], lib: str, doc: str, flags: list[str], extra: str
) -> None:
    cfg = config_file(tmp_path, flags, extra)
    code, splitter = build(cfg, lib)
    assert "Fidelity: exact" in code
    expected = chunktui_texts(cfg, docs[doc])
    assert len(expected) > 1
    assert chunks_of(lib, splitter, read(docs[doc])) == expected


@pytest.mark.parametrize("lib", ["langchain", "llamaindex"])
def test_hugging_face_tokens_are_exact_too(tmp_path: Path, docs: dict[str, Path], lib: str) -> None:
    doc, flags, extra = hf_case()
    cfg = config_file(tmp_path, flags, extra)
    _, splitter = build(cfg, lib)
    expected = chunktui_texts(cfg, docs[doc])
    assert len(expected) > 3
    assert chunks_of(lib, splitter, read(docs[doc])) == expected


# chonkie's FastChunker: the same chunks where its delimiters are ASCII and
# no budget falls inside a character (the snippet's fidelity says so).
FAST: list[tuple[str, list[str]]] = [
    ("ripgrep", ["--delimiters", "\\n.?"]),
    ("guide", ["--delimiters", "\\n", "--prefix"]),
    ("ripgrep", ["--pattern", "\\n\\n"]),
    ("zh_article", ["--delimiters", "\\n"]),
]


@pytest.mark.parametrize(("doc", "flags"), FAST)
def test_fast_exports_to_chonkies_fast_chunker(tmp_path: Path, docs: dict[str, Path], doc: str, flags: list[str]) -> None:
    cfg = config_file(tmp_path, ["--strategy", "fast", "--unit", "bytes", "--size", "600", *flags])
    code, splitter = build(cfg, "chonkie")
    assert "FastChunker(" in code and "Fidelity: close" in code
    expected = chunktui_texts(cfg, docs[doc])
    assert len(expected) > 3
    assert chunks_of("chonkie", splitter, read(docs[doc])) == expected


def test_fast_export_warns_of_delimiters_chonkie_reads_as_bytes(tmp_path: Path) -> None:
    code = chunktui("export", str(config_file(tmp_path, ["--strategy", "fast", "--unit", "bytes"])), "--to", "chonkie")
    assert "chonkie cuts at each of their bytes" in code


# --- close ------------------------------------------------------------------------

# (strategy flags, document, whether the library keeps to a size)
CLOSE: list[tuple[list[str], str]] = [
    (["--strategy", "fixed", "--size", "200", "--overlap", "20"], "guide"),
    (["--strategy", "fixed", "--unit", "tokens", "--size", "64", "--overlap", "8"], "zh_article"),
    (["--strategy", "recursive", "--size", "300", "--overlap", "30"], "ripgrep"),
    (["--strategy", "recursive", "--preset", "chinese", "--size", "120", "--overlap", "0"], "zh_book"),
    (["--strategy", "recursive", "--unit", "tokens", "--size", "128", "--overlap", "16"], "ripgrep"),
    (["--strategy", "sentence", "--size", "150"], "zh_article"),
    (["--strategy", "sentence", "--unit", "words", "--size", "60"], "guide"),
    (["--strategy", "markdown", "--size", "400", "--overlap", "0"], "ripgrep"),
    (["--strategy", "hierarchical", "--levels", "800,200", "--overlap", "20"], "guide"),
    (["--strategy", "langchain-recursive", "--size", "200", "--overlap", "20"], "zh_article"),
    (["--strategy", "langchain-character", "--separator", "\n", "--size", "300", "--overlap", "0"], "guide"),
    (["--strategy", "langchain-token", "--size", "80", "--overlap", "10"], "guide"),
    (["--strategy", "langchain-markdown-header"], "ripgrep"),
]

# Parsers that never cut a section to a size (the snippet says so).
UNSIZED = {("llamaindex", "markdown"), ("llamaindex", "langchain-markdown-header")}


def measure(unit: str, text: str) -> int:
    if unit == "tokens":
        import tiktoken

        return len(tiktoken.get_encoding("cl100k_base").encode(text, disallowed_special=()))
    if unit == "words":
        return len(text.split())
    return len(text)


def visible(text: str) -> int:
    return sum(1 for c in text if not c.isspace())


def close_cases() -> list[tuple[str, list[str], str]]:
    out = []
    for flags, doc in CLOSE:
        for lib in ["langchain", "llamaindex", "chonkie"]:
            out.append((lib, flags, doc))
    return out


@pytest.mark.parametrize(("lib", "flags", "doc"), close_cases())
def test_close_snippets_run_and_keep_near_the_size(
    tmp_path: Path, docs: dict[str, Path], lib: str, flags: list[str], doc: str
) -> None:
    cfg = config_file(tmp_path, flags)
    code = chunktui("export", str(cfg), "--to", lib)
    if "Fidelity: none" in code:
        assert "splitter =" not in code
        return
    assert "Fidelity: close" in code or "Fidelity: exact" in code
    _, splitter = build(cfg, lib)
    text = read(docs[doc])
    chunks = chunks_of(lib, splitter, text)
    # (chonkie keeps whitespace between pieces: a chunk may be only that.)
    assert len(chunks) > 1 and all(chunks) and sum(1 for c in chunks if c.strip()) > 1
    # Every visible character of the text is in some chunk (overlap only adds).
    assert sum(visible(c) for c in chunks) >= 0.97 * visible(text)
    strategy = flags[1]
    size_flag = flags.index("--size") + 1 if "--size" in flags else None
    if size_flag is None or (lib, strategy) in UNSIZED:
        return
    size = int(flags[size_flag])
    unit = flags[flags.index("--unit") + 1] if "--unit" in flags else "chars"
    if strategy == "langchain-token":
        unit = "tokens"  # it always counts tokens
    sizes = sorted(measure(unit, c) for c in chunks)
    # Near the size: the median chunk is not tiny, and no library packs far past it.
    assert sizes[len(sizes) // 2] >= size * 0.2, sizes
    assert sizes[-1] <= size * 2, sizes


# --- model strategies ---------------------------------------------------------------

MODEL_STRATEGIES = ["semantic", "semantic-grouping", "adaptive", "langchain-semantic", "late"]


def splitter_call(code: str) -> ast.Call:
    tree = ast.parse(code)
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "splitter" for t in node.targets):
            assert isinstance(node.value, ast.Call)
            return node.value
    raise AssertionError(f"no `splitter = ...(...)` in:\n{code}")


def resolve(code: str, call: ast.Call) -> Any:
    """The class (or classmethod) the call names, from the module the snippet imports it from."""
    func = call.func
    attr = None
    if isinstance(func, ast.Attribute):
        attr = func.attr
        func = func.value
    assert isinstance(func, ast.Name)
    for node in ast.parse(code).body:
        if isinstance(node, ast.ImportFrom) and any(a.name == func.id for a in node.names):
            assert node.module is not None
            target = getattr(importlib.import_module(node.module), func.id)
            return getattr(target, attr) if attr else target
    raise AssertionError(f"{func.id} is not imported")


def installed(module: str) -> bool:
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True


@pytest.mark.parametrize("strategy", MODEL_STRATEGIES)
@pytest.mark.parametrize("lib", ["langchain", "llamaindex", "chonkie"])
def test_model_snippets_call_the_real_classes(tmp_path: Path, lib: str, strategy: str) -> None:
    cfg = config_file(tmp_path, ["--strategy", strategy, "--size", "300", "--threshold", "90"])
    code = chunktui("export", str(cfg), "--to", lib)
    if "Fidelity: none" in code:
        assert "splitter =" not in code
        return
    call = splitter_call(code)
    top = call.func.value if isinstance(call.func, ast.Attribute) else call.func
    assert isinstance(top, ast.Name)
    module = next(
        n.module for n in ast.parse(code).body if isinstance(n, ast.ImportFrom) and any(a.name == top.id for a in n.names)
    )
    assert module is not None
    if not installed(module):
        # langchain-experimental is not among the pinned packages: the
        # snippet must at least parse and name it among what to install.
        assert module.split(".")[0].replace("_", "-") in code
        return
    target = resolve(code, call)
    params = inspect.signature(target).parameters
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    for kw in call.keywords:
        assert kw.arg is not None
        assert takes_any or kw.arg in params, f"{target} takes no {kw.arg}"


def test_llamaindex_semantic_runs_with_a_stand_in_model(
    tmp_path: Path, docs: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    from llama_index.core.embeddings import MockEmbedding

    # The HuggingFace embedding package is not installed here: the snippet's
    # import gets a module whose HuggingFaceEmbedding is a mock of the same kind.
    fake = types.ModuleType("llama_index.embeddings.huggingface")

    def hugging_face_embedding(model_name: str) -> MockEmbedding:
        assert model_name == "sentence-transformers/all-MiniLM-L6-v2"
        return MockEmbedding(embed_dim=8)

    setattr(fake, "HuggingFaceEmbedding", hugging_face_embedding)
    monkeypatch.setitem(sys.modules, "llama_index.embeddings.huggingface", fake)
    cfg = config_file(tmp_path, ["--strategy", "semantic", "--threshold", "90", "--buffer-size", "2"])
    code, splitter = build(cfg, "llamaindex")
    assert "breakpoint_percentile_threshold=90," in code and "buffer_size=2," in code
    assert splitter.breakpoint_percentile_threshold == 90 and splitter.buffer_size == 2
    chunks = chunks_of("llamaindex", splitter, read(docs["guide"]))
    assert chunks and visible("".join(chunks)) >= 0.97 * visible(read(docs["guide"]))
