#!/usr/bin/env python3
"""Regenerate tests/fixtures/langchain/*.json from the real langchain-text-splitters.

    python3 -m venv /tmp/lc-parity-venv
    /tmp/lc-parity-venv/bin/pip install -r scripts/parity/requirements.txt
    /tmp/lc-parity-venv/bin/python scripts/parity/generate.py

Run from anywhere; paths are relative to this file. Works offline: tiktoken's
encodings are copied out of the tiktoken-rs crate source in ~/.cargo/registry
(or $TIKTOKEN_RS_ASSETS) into a temporary TIKTOKEN_CACHE_DIR under the file name
tiktoken's cache uses, sha1(url).

Each fixture file holds cases: {name, source, config, count, chunks[, kind]}.
`config` is a chunktui ChunkConfig (JSON) that asks for the same splitter.
`source` is {"corpus": file} (read from ../shared/corpus with newline="" so
CRLF survives) or {"text": id, "value": text} for texts defined below.

Chunk rows, for the character/recursive/token splitters:
    [start_cp, start_byte, len_cp, sha16(, text)]
where start_cp is LangChain's own add_start_index value (-1 when its search
fails; start_byte is then -1 too), len_cp = len(chunk) and sha16 = the first 16
hex digits of sha256(chunk utf-8). For the markdown header splitter:
    [len_cp, sha16, meta_sha16(, text, meta)]
with meta_sha16 over "\\x1f".join(k + "\\x1e" + v for k, v in metadata.items()).
The text (and metadata) columns are present only for the texts defined here,
never for corpus files.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
CORPUS = os.path.normpath(os.path.join(ROOT, "..", "shared", "corpus"))
OUT = os.path.join(ROOT, "tests", "fixtures", "langchain")

ENCODINGS = {
    # name: (url, sha256 that tiktoken checks)
    "cl100k_base": (
        "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    ),
    "o200k_base": (
        "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    ),
}


def setup_tiktoken() -> str:
    """Fill a temporary TIKTOKEN_CACHE_DIR from the tiktoken-rs assets."""
    assets = os.environ.get("TIKTOKEN_RS_ASSETS")
    if not assets:
        home = os.path.expanduser("~/.cargo/registry/src")
        found = sorted(glob.glob(os.path.join(home, "*", "tiktoken-rs-*", "assets")))
        if not found:
            sys.exit("tiktoken-rs assets not found: run `cargo fetch` first or set TIKTOKEN_RS_ASSETS")
        assets = found[-1]
    cache = tempfile.mkdtemp(prefix="lc-parity-tiktoken-")
    for name, (url, sha) in ENCODINGS.items():
        src = os.path.join(assets, name + ".tiktoken")
        data = open(src, "rb").read()
        if hashlib.sha256(data).hexdigest() != sha:
            sys.exit(f"{src}: unexpected sha256")
        shutil.copyfile(src, os.path.join(cache, hashlib.sha1(url.encode()).hexdigest()))
    os.environ["TIKTOKEN_CACHE_DIR"] = cache
    return cache


CACHE = setup_tiktoken()

import langchain_text_splitters  # noqa: E402
from langchain_text_splitters import (  # noqa: E402
    CharacterTextSplitter,
    MarkdownHeaderTextSplitter,
    RecursiveCharacterTextSplitter,
    TokenTextSplitter,
)

# --- texts we write ourselves (may appear in fixtures) ------------------------

EN_TEXT = (
    "Chunking is the art of cutting a long document into pieces that a retriever can index.\n\n"
    "A good chunk holds one idea. A bad chunk holds half of two ideas, which is worse than either.\n"
    "Most splitters try paragraphs first, then lines, then words, then characters.\n\n\n\n"
    "Blank lines repeat   sometimes,\tand tabs hide in prose.  \n"
    "   Leading spaces too.\n\n"
    "Café owners in Zürich — and their 🦀 crabs — rarely care about any of this; "
    "but a retrieval pipeline lives or dies by where the cuts fall, "
    "so the overlap between neighbouring chunks matters as much as their size.\n\n"
    "Short.\n\n"
    "Averyveryverylongwordwithoutanyspacesthatcannotbesplitanywhereexceptbetweencharacters"
    "becausenothingelsematches.\n"
    "The end. Really. The end!\n"
)

ZH_TEXT = (
    "文本切分是检索增强生成中最容易被忽视的一步。切得太碎，上下文就断了；切得太大，检索就不准了！\n\n"
    "中文没有空格分词，所以按空格切分往往不起作用。我们需要按句号、问号、感叹号来切分？当然，也可以按逗号。\n"
    "第二行：这里有一些英文 words mixed in，还有数字 12345 和符号（括号）。\n\n"
    "第三段很长很长很长很长很长很长很长很长很长很长很长很长很长很长很长很长很长很长很长很长很长很长很长很长很长很长很长很长，"
    "一直没有句号，直到这里才结束。然后是最后一句话；分号之后还有内容，逗号之后也有内容。\n\n"
    "\u3000\u3000全角空格开头的段落，末尾也有全角空格。\u3000\n"
    "结束。"
)

ZH_MD = (
    "# 快速入门\n"
    "本章介绍如何安装工具。\n"
    "\n"
    "## 安装\n"
    "使用包管理器安装：\n"
    "```bash\n"
    "# 这不是标题\n"
    "cargo install chunktui\n"
    "\n"
    "```\n"
    "安装完成后运行 `chunktui --help`。\n"
    "\n"
    "### 配置\t\n"
    "配置文件使用\u3000TOML 格式。\n"
    "#### 第四级标题不切分\n"
    "内容继续。\n"
    "## 使用\n"
    "~~~\n"
    "## 围栏里的也不是标题\n"
    "~~~\n"
    "直接运行即可。\n"
    "#\n"
    "空标题之后的内容。\n"
    "# 第二章\n"
    "   ##   缩进的标题   \n"
    "最后一行。"
)

EN_MD = (
    "Intro line before any header.\n"
    "# Title\n"
    "First paragraph\n"
    "continues here.\n"
    "\n"
    "## Section A\n"
    "Text of A.\n"
    "### Sub A1\n"
    "Text of A1.\n"
    "## Section B\n"
    "Text of B with trailing spaces.   \n"
    "#NoSpace is not a header\n"
    "###### Six is not tracked\n"
    "```\n"
    "# code comment\n"
    "```\n"
    "The end."
)

TEXTS = {"en": EN_TEXT, "zh": ZH_TEXT, "zh_md": ZH_MD, "en_md": EN_MD}

CORPUS_FILES = ["en_ripgrep_guide_faq.md", "en_rust_book.md", "en_war_and_peace.txt", "zh_rust_book.md"]

ZH_SEPARATORS = ["\n\n", "\n", "。", "！", "？", "；", "，", " ", ""]


def corpus(name: str) -> str:
    path = os.path.join(CORPUS, name)
    with open(path, encoding="utf-8", newline="") as f:
        return f.read()


def sha16(s: str) -> str:
    return hashlib.sha256(s.encode("utf-8")).hexdigest()[:16]


def meta_key(meta: dict) -> str:
    return "\x1f".join(k + "\x1e" + v for k, v in meta.items())


def config(strategy: str, size: int, overlap: int, unit: str = "chars", **langchain) -> dict:
    cfg = {"version": 1, "strategy": strategy, "unit": unit, "size": size, "overlap": overlap}
    if "tokenizer" in langchain:
        cfg["tokenizer"] = langchain.pop("tokenizer")
    if langchain:
        cfg["langchain"] = langchain
    return cfg


def make_splitter(cfg: dict):
    lc = dict(cfg.get("langchain", {}))
    kind = cfg["strategy"]
    common = {"chunk_size": cfg["size"], "chunk_overlap": cfg["overlap"], "add_start_index": True}
    if "strip_whitespace" in lc:
        common["strip_whitespace"] = lc["strip_whitespace"]
    if "keep_separator" in lc:
        common["keep_separator"] = lc["keep_separator"]
    tokenizer = cfg.get("tokenizer", "cl100k_base")
    if kind == "langchain-character":
        args = dict(
            separator=lc.get("separator", "\n\n"),
            is_separator_regex=lc.get("is_separator_regex", False),
            **common,
        )
    elif kind == "langchain-recursive":
        args = dict(
            separators=lc.get("separators"),
            is_separator_regex=lc.get("is_separator_regex", False),
            **common,
        )
    elif kind == "langchain-token":
        return TokenTextSplitter(encoding_name=tokenizer, **common)
    else:
        raise ValueError(kind)
    cls = CharacterTextSplitter if kind == "langchain-character" else RecursiveCharacterTextSplitter
    if cfg["unit"] == "tokens":
        return cls.from_tiktoken_encoder(encoding_name=tokenizer, **args)
    return cls(**args)


def byte_offsets(text: str, starts: list[int]) -> list[int]:
    """Byte offsets of code point offsets, walking from the previous one."""
    out, cp, byte = [], 0, 0
    for s in starts:
        if s < 0:
            out.append(-1)
            continue
        if s >= cp:
            byte += len(text[cp:s].encode("utf-8"))
        else:
            byte -= len(text[s:cp].encode("utf-8"))
        cp = s
        out.append(byte)
    return out


def run_case(name: str, source: dict, cfg: dict) -> dict:
    text = corpus(source["corpus"]) if "corpus" in source else TEXTS[source["text"]]
    own = "corpus" not in source
    src = dict(source)
    if own:
        src["value"] = text
    if cfg["strategy"] == "langchain-markdown-header":
        lc = cfg.get("langchain", {})
        splitter = MarkdownHeaderTextSplitter(
            headers_to_split_on=[tuple(h) for h in lc.get("headers", [["#", "Header 1"], ["##", "Header 2"], ["###", "Header 3"]])],
            strip_headers=lc.get("strip_headers", True),
            return_each_line=lc.get("return_each_line", False),
        )
        docs = splitter.split_text(text)
        rows = []
        for d in docs:
            row = [len(d.page_content), sha16(d.page_content), sha16(meta_key(d.metadata))]
            if own:
                row += [d.page_content, [[k, v] for k, v in d.metadata.items()]]
            rows.append(row)
        return {"name": name, "source": src, "config": cfg, "count": len(rows), "chunks": rows}

    docs = make_splitter(cfg).create_documents([text])
    starts = [d.metadata["start_index"] for d in docs]
    rows = []
    for d, b in zip(docs, byte_offsets(text, starts)):
        row = [d.metadata["start_index"], b, len(d.page_content), sha16(d.page_content)]
        if own:
            row.append(d.page_content)
        rows.append(row)
    return {"name": name, "source": src, "config": cfg, "count": len(rows), "chunks": rows}


def cases() -> dict[str, list[tuple[str, dict, dict]]]:
    C, R, T, M = "langchain-character", "langchain-recursive", "langchain-token", "langchain-markdown-header"
    en, zh, rg = {"text": "en"}, {"text": "zh"}, {"corpus": "en_ripgrep_guide_faq.md"}
    files: dict[str, list[tuple[str, dict, dict]]] = {}

    files["character"] = [
        ("en default 120/30", en, config(C, 120, 30)),
        ("en newline 80/20", en, config(C, 80, 20, separator="\n")),
        ("en newline keep start 80/20", en, config(C, 80, 20, separator="\n", keep_separator="start")),
        ("en newline keep end 80/20", en, config(C, 80, 20, separator="\n", keep_separator="end")),
        ("en newline keep true 80/20", en, config(C, 80, 20, separator="\n", keep_separator=True)),
        ("en space 40/10", en, config(C, 40, 10, separator=" ")),
        ("en space no strip 40/10", en, config(C, 40, 10, separator=" ", strip_whitespace=False)),
        ("en empty separator 30/5", en, config(C, 30, 5, separator="")),
        ("en regex blank lines 100/0", en, config(C, 100, 0, separator=r"\n\s*\n", is_separator_regex=True)),
        ("en regex sentence end keep end 60/10", en,
         config(C, 60, 10, separator=r"[.!?](?= )", is_separator_regex=True, keep_separator="end")),
        ("en regex lookbehind 60/10", en, config(C, 60, 10, separator=r"(?<=[.!?]) ", is_separator_regex=True)),
        ("en regex group 60/0", en, config(C, 60, 0, separator=r"(\. )", is_separator_regex=True)),
        ("en regex empty matches 12/3", en, config(C, 12, 3, separator=r" *", is_separator_regex=True)),
        ("en regex empty matches keep end 12/3", en,
         config(C, 12, 3, separator=r"e*", is_separator_regex=True, keep_separator="end")),
        ("en regex lookahead 50/10", en, config(C, 50, 10, separator=r"(?=[A-Z])", is_separator_regex=True)),
        ("en regex lookahead keep start 50/10", en,
         config(C, 50, 10, separator=r"(?=[A-Z])", is_separator_regex=True, keep_separator="start")),
        ("en regex word boundary 20/4", en, config(C, 20, 4, separator=r"\b", is_separator_regex=True)),
        ("zh default 60/10", zh, config(C, 60, 10)),
        ("zh full stop 40/8", zh, config(C, 40, 8, separator="。")),
        ("zh full stop keep end 40/8", zh, config(C, 40, 8, separator="。", keep_separator="end")),
        ("zh regex punctuation keep start 30/5", zh,
         config(C, 30, 5, separator="[。！？；]", is_separator_regex=True, keep_separator="start")),
        ("zh regex punctuation no keep 30/5", zh, config(C, 30, 5, separator="[。！？；]", is_separator_regex=True)),
        ("ripgrep default 1000/200", rg, config(C, 1000, 200)),
        ("ripgrep newline 300/50", rg, config(C, 300, 50, separator="\n")),
        ("zh_rust_book default 1000/200", {"corpus": "zh_rust_book.md"}, config(C, 1000, 200)),
    ]

    files["recursive_defaults"] = [
        (f"{f} defaults {s}/{o}", {"corpus": f}, config(R, s, o))
        for f in CORPUS_FILES
        for s, o in [(1000, 200), (300, 50)]
    ]

    files["recursive_options"] = [
        ("en defaults 100/20", en, config(R, 100, 20)),
        ("en defaults 40/10", en, config(R, 40, 10)),
        ("en keep start 40/10", en, config(R, 40, 10, keep_separator="start")),
        ("en keep end 40/10", en, config(R, 40, 10, keep_separator="end")),
        ("en keep false 40/10", en, config(R, 40, 10, keep_separator=False)),
        ("en no strip 40/10", en, config(R, 40, 10, strip_whitespace=False)),
        ("en keep false no strip 40/10", en, config(R, 40, 10, keep_separator=False, strip_whitespace=False)),
        ("en regex keep 50/10", en,
         config(R, 50, 10, separators=[r"\n\s*\n", r"\n", r"[.!?] ", " ", ""], is_separator_regex=True)),
        ("en regex no keep 50/10", en,
         config(R, 50, 10, separators=[r"\n\s*\n", r"\n", r"[.!?] ", " ", ""], is_separator_regex=True,
                keep_separator=False)),
        ("en no empty separator 30/5", en, config(R, 30, 5, separators=["\n\n", "\n", " "])),
        ("en regex empty matching 25/5", en,
         config(R, 25, 5, separators=[r"\n+", r"\s*", ""], is_separator_regex=True)),
        ("en regex lookahead 25/5", en,
         config(R, 25, 5, separators=[r"(?=\n)", r"(?<=[,;.]) ", " ", ""], is_separator_regex=True)),
        ("en tokens 20/5", en, config(R, 20, 5, unit="tokens")),
        ("zh chinese separators 40/8", zh, config(R, 40, 8, separators=ZH_SEPARATORS)),
        ("zh chinese separators keep end 40/8", zh, config(R, 40, 8, separators=ZH_SEPARATORS, keep_separator="end")),
        ("zh chinese separators keep false 40/8", zh,
         config(R, 40, 8, separators=ZH_SEPARATORS, keep_separator=False)),
        ("zh defaults 30/5", zh, config(R, 30, 5)),
        ("zh_rust_book chinese separators 300/50", {"corpus": "zh_rust_book.md"},
         config(R, 300, 50, separators=ZH_SEPARATORS)),
        ("zh_rust_book chinese separators keep end 500/100", {"corpus": "zh_rust_book.md"},
         config(R, 500, 100, separators=ZH_SEPARATORS, keep_separator="end")),
        ("ripgrep keep end 300/50", rg, config(R, 300, 50, keep_separator="end")),
        ("ripgrep keep false 300/50", rg, config(R, 300, 50, keep_separator=False)),
        ("ripgrep no strip 300/50", rg, config(R, 300, 50, strip_whitespace=False)),
        ("ripgrep markdown regex 400/80", rg,
         config(R, 400, 80, separators=[r"\n#{1,6} ", "```\n", r"\n\n", r"\n", " ", ""], is_separator_regex=True)),
        ("ripgrep tokens cl100k 256/32", rg, config(R, 256, 32, unit="tokens")),
        ("war_and_peace crlf separators 1000/200", {"corpus": "en_war_and_peace.txt"},
         config(R, 1000, 200, separators=["\r\n\r\n", "\r\n", " ", ""])),
    ]

    files["token"] = [
        ("ripgrep cl100k 512/50", rg, config(T, 512, 50, unit="tokens")),
        ("ripgrep o200k 512/50", rg, config(T, 512, 50, unit="tokens", tokenizer="o200k_base")),
        ("zh cl100k 16/4", zh, config(T, 16, 4, unit="tokens")),
        ("zh o200k 16/4", zh, config(T, 16, 4, unit="tokens", tokenizer="o200k_base")),
        ("en cl100k 20/0", en, config(T, 20, 0, unit="tokens")),
        ("zh_rust_book cl100k 512/50", {"corpus": "zh_rust_book.md"}, config(T, 512, 50, unit="tokens")),
    ]

    md = {"text": "zh_md"}
    three = [["#", "Header 1"], ["##", "Header 2"], ["###", "Header 3"]]
    files["markdown_header"] = [
        ("zh_md defaults", md, config(M, 1, 0)),
        ("zh_md keep headers", md, config(M, 1, 0, strip_headers=False)),
        ("zh_md each line", md, config(M, 1, 0, return_each_line=True)),
        ("zh_md two levels", md, config(M, 1, 0, headers=[["##", "章节"], ["#", "章"]])),
        ("en_md defaults", {"text": "en_md"}, config(M, 1, 0)),
        ("en_md keep headers", {"text": "en_md"}, config(M, 1, 0, strip_headers=False, headers=three)),
        ("en_md keep headers each line", {"text": "en_md"}, config(M, 1, 0, strip_headers=False, return_each_line=True)),
        ("ripgrep defaults", rg, config(M, 1, 0)),
        ("ripgrep keep headers", rg, config(M, 1, 0, strip_headers=False)),
        ("ripgrep each line", rg, config(M, 1, 0, return_each_line=True)),
        ("zh_rust_book defaults", {"corpus": "zh_rust_book.md"}, config(M, 1, 0)),
    ]
    return files


def main() -> None:
    os.makedirs(OUT, exist_ok=True)
    version = getattr(langchain_text_splitters, "__version__", None)
    try:
        from importlib.metadata import version as pkg_version

        version = pkg_version("langchain-text-splitters")
        tiktoken_version = pkg_version("tiktoken")
    except Exception:  # noqa: BLE001
        tiktoken_version = None
    for fname, items in cases().items():
        out = {
            "generator": "scripts/parity/generate.py",
            "langchain_text_splitters": version,
            "tiktoken": tiktoken_version,
            "python": sys.version.split()[0],
            "cases": [run_case(n, s, c) for n, s, c in items],
        }
        path = os.path.join(OUT, fname + ".json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(out, f, ensure_ascii=False, separators=(",", ":"))
            f.write("\n")
        total = sum(c["count"] for c in out["cases"])
        print(f"{path}: {len(out['cases'])} cases, {total} chunks", file=sys.stderr)
    shutil.rmtree(CACHE, ignore_errors=True)


if __name__ == "__main__":
    main()
