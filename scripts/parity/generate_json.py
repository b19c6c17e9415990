#!/usr/bin/env python3
"""Regenerate tests/fixtures/langchain/json.json from the real langchain-text-splitters.

    python3 -m venv /tmp/lc-parity-venv
    /tmp/lc-parity-venv/bin/pip install -r scripts/parity/requirements.txt
    /tmp/lc-parity-venv/bin/python scripts/parity/generate_json.py

The cases of `langchain-json`: `RecursiveJsonSplitter(max_chunk_size=size,
min_chunk_size=...).split_text(json.loads(text), convert_lists=...)`, checked
by tests/langchain_json.rs. Each case is

    {name, source, jsonl, config, count, chunks, error}

`config` is the chunktui ChunkConfig (JSON) asking for the same split.
`jsonl` true: the text is JSONL, split a line at a time (each non-blank line
`json.loads`-ed and split alone, as chunktui does for a .jsonl file), the
chunks of all lines in order. `error` is LangChain's exception
("TypeError: ...") when it refuses the input (chunktui must refuse it too),
else null. `source` is {"text": id, "value": json_text} for the JSON written
here, or {"corpus": file, "build": how, "bytes": n, "sha16": ...} for JSON
built from a corpus file (../shared/corpus, read with newline="") by
`book_json` / `book_jsonl` below, which tests/langchain_json.rs builds again
(and checks against bytes and sha16 before comparing chunks).

Chunk rows: [len, sha16(, text)]: len(chunk) (code points; the chunks are
ASCII), the first 16 hex digits of sha256(chunk), and the chunk itself only
for the texts defined here (the first chunks of a case, up to
TEXT_PER_CASE chars), never for corpus-built JSON.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import sys
from typing import Any

from langchain_text_splitters import RecursiveJsonSplitter

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
CORPUS = os.path.normpath(os.path.join(ROOT, "..", "shared", "corpus"))
OUT = os.path.join(ROOT, "tests", "fixtures", "langchain", "json.json")
TEXT_PER_CASE = 4000


def sha16(s: str) -> str:
    return hashlib.sha256(s.encode("utf-8")).hexdigest()[:16]


def corpus(name: str) -> str:
    with open(os.path.join(CORPUS, name), encoding="utf-8", newline="") as f:
        return f.read()


# ---------------------------------------------------------------- corpus JSON
# Keep these two in step with tests/langchain_json.rs (`book_json`,
# `book_jsonl`): same structure, sorted keys, same formatting.


def book(text: str) -> list[dict[str, Any]]:
    """Blocks between blank lines: `# ` starts a chapter, `## ` a section,
    a fenced block is a section's code (its lines), anything else a
    paragraph with its length in code points and its word count."""
    chapters: list[dict[str, Any]] = []
    for block in text.split("\n\n"):
        if not block:
            continue
        if block.startswith("# "):
            chapters.append({"sections": [], "title": block[2:]})
            continue
        if not chapters:
            chapters.append({"sections": [], "title": ""})
        sections = chapters[-1]["sections"]
        if block.startswith("## "):
            sections.append({"code": [], "paragraphs": [], "title": block[3:]})
            continue
        if not sections:
            sections.append({"code": [], "paragraphs": [], "title": ""})
        if block.startswith("```"):
            sections[-1]["code"].append(block.split("\n"))
        else:
            sections[-1]["paragraphs"].append({"chars": len(block), "text": block, "words": len(block.split(" "))})
    return chapters


def book_json(text: str, name: str) -> str:
    """One JSON document, pretty-printed (indent 2), keys sorted."""
    chapters = book(text)
    doc = {"chapters": chapters, "count": len(chapters), "draft": False, "source": name}
    return json.dumps(doc, ensure_ascii=False, indent=2, sort_keys=True)


def book_jsonl(text: str, name: str) -> str:
    """A JSONL line per section (compact, keys sorted)."""
    lines = []
    for i, chapter in enumerate(book(text)):
        for j, section in enumerate(chapter["sections"]):
            record = {"chapter": chapter["title"], "id": f"{i}.{j}", "section": section, "source": name}
            lines.append(json.dumps(record, ensure_ascii=False, separators=(",", ":"), sort_keys=True))
    return "\n".join(lines) + "\n"


BUILDS = {"book": book_json, "book_jsonl": book_jsonl}

# ----------------------------------------------------------- JSON written here

CATALOG = r"""{
  "store": {"name": "Ünïcode Books 書店", "open": true, "rating": 4.5, "tags": ["books", "café", "東京"]},
  "products": [
    {"id": 1, "title": "The Rust Book", "price": 39.95, "specs": {"pages": 560, "weight_kg": 0.9, "dims": [23.5, 19.1, 3.2]},
     "reviews": [{"by": "ann", "stars": 5, "text": "Clear and \"thorough\"."}, {"by": "bob", "stars": 4, "text": "Long\nbut good"}]},
    {"id": 2, "title": "Emoji 😀 guide", "price": 1E2, "specs": {}, "reviews": []},
    {"id": 3, "title": "中文书名：编程之道", "price": -0.0, "specs": {"pages": 0, "isbn": null}, "reviews": [[], {}, [[]]]},
    {"id": 4, "title": "Tabs\tand\\backslashes\/slashes", "price": 12345678901234567890, "specs": {"big": -12345678901234567890123}, "reviews": [1, "two", 3.0, false, null]}
  ],
  "empty_obj": {},
  "empty_list": [],
  "matrix": [[1, 2, 3], [4, 5, 6], [], [[7], [8, [9, []]]]],
  "note": "\u00E9\u00e9 \uD83D\uDE00 \u2028 \u0000 \u001F \u007f done"
}"""

DUPLICATES = r"""{
  "a": 1, "b": {"x": 1, "y": 2, "x": {"deep": [1, 2, 3]}}, "a": {"replaced": "first place, last value"},
  "c": [{"k": 1, "k": 2}, {"k": 3}], "b2": "tail", "c": "c replaced too"
}"""

NUMBERS = r"""{"ints": [0, -0, 1, -1, 9007199254740993, -9223372036854775809, 18446744073709551616,
 123456789012345678901234567890123456789],
 "floats": [0.0, -0.0, 0e0, -0E-0, 1.0, 1E5, 1e16, 1e15, 1e-4, 1e-5, 0.1, 0.2, 0.30000000000000004,
 1.5e-7, 2.5E+100, 1e308, 1e309, -1e400, 1e-400, -1e-400, 5e-324, 2.2250738585072014e-308,
 9999999999999998.0, 12345678901234567890.0, 123.456, 100.0, 1.10, 3.14159265358979323846264338327950288]}"""

LONG = '{"title": "long", "body": "' + " ".join(f"word{i}" for i in range(400)) + '", "after": {"a": 1, "b": [1, 2]}}'


def deep_json(depth: int) -> str:
    text = '"bottom"'
    for i in range(depth):
        text = '{"level%d": %s, "n": %d}' % (i, text, i) if i % 3 else "[%s, %d]" % (text, i)
    return '{"root": ' + text + "}"


def floats_json(rng: random.Random, n: int) -> str:
    items = []
    for _ in range(n):
        sign = rng.choice(["", "", "-"])
        whole = rng.choice(["0", str(rng.randint(1, 9))]) if rng.random() < 0.5 else str(rng.randint(1, 10**rng.randint(1, 20)))
        frac = "." + "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 19))) if rng.random() < 0.8 else ""
        exp = ""
        if rng.random() < 0.5 or not frac:
            exp = rng.choice("eE") + rng.choice(["", "+", "-"]) + str(rng.randint(0, 330))
        items.append(sign + whole + frac + exp)
    return '{"floats": [' + ", ".join(items) + "]}"


WORDS = ["alpha", "beta", "ünï", "中文", "😀", "a\"q", "back\\slash", "tab\t", "nl\n", "", " ", "x" * 40, "café", "ß"]


def random_value(rng: random.Random, depth: int) -> Any:
    r = rng.random()
    if depth > 4 or r < 0.35:
        kind = rng.randrange(6)
        if kind == 0:
            return rng.choice(WORDS) + str(rng.randint(0, 99))
        if kind == 1:
            return rng.randint(-(10**rng.randint(1, 25)), 10**rng.randint(1, 25))
        if kind == 2:
            return rng.uniform(-1e6, 1e6) * 10 ** rng.randint(-10, 10)
        if kind == 3:
            return rng.choice([True, False, None])
        if kind == 4:
            return " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 30)))
        return rng.choice([{}, []])
    if r < 0.65:
        return {rng.choice(WORDS) + str(i): random_value(rng, depth + 1) for i in range(rng.randint(0, 6))}
    return [random_value(rng, depth + 1) for _ in range(rng.randint(0, 6))]


def random_json(rng: random.Random) -> str:
    doc = {f"k{i}": random_value(rng, 1) for i in range(rng.randint(1, 6))}
    return json.dumps(doc, ensure_ascii=rng.random() < 0.5, indent=rng.choice([None, 1, 2]))


JSONL = (
    '{"q": "How do I reset my password?", "a": "Use the link.", "tags": ["account", "login"]}\n'
    "\n"
    '  {"q": "中文问题", "a": "回答。😀", "meta": {"views": 10, "score": 4.50}}  \r\n'
    + '{"q": "long", "a": "'
    + " ".join(f"step{i}" for i in range(120))
    + '", "steps": [{"n": 1}, {"n": 2}, []]}\n'
    + '{"q": null}\n{}\n{"last": [1, [2, [3]]]}'
)

JSONL_LIST = '{"ok": 1}\n[1, 2, 3]\n'

TOP_LIST = '[{"id": 1, "name": "one"}, {"id": 2, "name": "two", "tags": ["x", "y"]}, [], {}, "s", 3, [4, [5]]]'


def texts() -> dict[str, str]:
    rng = random.Random(48)
    out = {
        "catalog": CATALOG,
        "duplicates": DUPLICATES,
        "numbers": NUMBERS,
        "long": LONG,
        "deep": deep_json(120),
        "floats": floats_json(rng, 400),
        "jsonl": JSONL,
        "jsonl_list": JSONL_LIST,
        "top_list": TOP_LIST,
        "top_string": '"just a string"',
        "top_number": "1.5",
        "top_null": "null",
        "top_empty": "{}",
    }
    for i in range(24):
        out[f"random{i:02d}"] = random_json(rng)
    return out


# ----------------------------------------------------------------------- cases


def config(size: int, convert_lists: bool, min_chunk_size: int | None = None) -> dict[str, Any]:
    opts: dict[str, Any] = {"convert_lists": convert_lists}
    if min_chunk_size is not None:
        opts["min_chunk_size"] = min_chunk_size
    return {"version": 1, "strategy": "langchain-json", "unit": "chars", "size": size, "overlap": 0, "json": opts}


def split(text: str, jsonl: bool, cfg: dict[str, Any]) -> list[str]:
    opts = cfg["json"]
    splitter = RecursiveJsonSplitter(max_chunk_size=cfg["size"], min_chunk_size=opts.get("min_chunk_size"))
    docs = [line for line in text.split("\n") if line.strip()] if jsonl else [text]
    chunks: list[str] = []
    for doc in docs:
        chunks += splitter.split_text(json.loads(doc), convert_lists=opts["convert_lists"])
    return chunks


def run_case(name: str, source: dict[str, Any], jsonl: bool, cfg: dict[str, Any], own: dict[str, str]) -> dict[str, Any]:
    src = dict(source)
    if "corpus" in source:
        text = BUILDS[source["build"]](corpus(source["corpus"]), source["corpus"])
        src.update(bytes=len(text.encode("utf-8")), sha16=sha16(text))
    else:
        text = own[source["text"]]
        src["value"] = text
    case: dict[str, Any] = {"name": name, "source": src, "jsonl": jsonl, "config": cfg, "error": None}
    try:
        chunks = split(text, jsonl, cfg)
    except TypeError as e:
        case.update(count=0, chunks=[], error=f"TypeError: {e}")
        return case
    rows = []
    shown = 0
    for c in chunks:
        row: list[Any] = [len(c), sha16(c)]
        # The text too (for reading a failure), while the case's stays small.
        if "corpus" not in source and shown + len(c) <= TEXT_PER_CASE:
            row.append(c)
            shown += len(c)
        rows.append(row)
    case.update(count=len(rows), chunks=rows)
    return case


def cases(own: dict[str, str]) -> list[tuple[str, dict[str, Any], bool, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any], bool, dict[str, Any]]] = []
    for text_id in ["catalog", "duplicates", "numbers", "long", "deep", "floats", "top_list"]:
        for size in [60, 300, 2000]:
            for convert in [False, True]:
                out.append((f"{text_id} {size} convert_lists={convert}", {"text": text_id}, False, config(size, convert)))
    for text_id, size, convert, min_size in [
        ("catalog", 300, True, 0),
        ("catalog", 300, False, 1),
        ("catalog", 100, True, 2),
        ("catalog", 300, True, 150),
        ("catalog", 60, True, 1000),
        ("duplicates", 40, True, 0),
        ("deep", 200, True, 20),
        ("long", 100, False, 0),
    ]:
        out.append(
            (f"{text_id} {size} convert_lists={convert} min_chunk_size={min_size}", {"text": text_id}, False,
             config(size, convert, min_size))
        )
    for text_id in ["top_string", "top_number", "top_null", "top_empty"]:
        for convert in [False, True]:
            out.append((f"{text_id} convert_lists={convert}", {"text": text_id}, False, config(300, convert)))
    for size in [50, 300]:
        for convert in [False, True]:
            out.append((f"jsonl {size} convert_lists={convert}", {"text": "jsonl"}, True, config(size, convert)))
            out.append((f"jsonl with a list {size} convert_lists={convert}", {"text": "jsonl_list"}, True, config(size, convert)))
    for i in range(24):
        size = [40, 120, 300, 2000][i % 4]
        out.append((f"random{i:02d} {size}", {"text": f"random{i:02d}"}, False, config(size, i % 3 != 0, [None, 0, 30][i % 3])))
    book = lambda f, build="book": {"corpus": f, "build": build}  # noqa: E731
    for f in ["en_rust_book.md", "zh_rust_book.md", "en_ripgrep_guide_faq.md"]:
        for size in [300, 2000]:
            for convert in [False, True]:
                if f == "zh_rust_book.md" and size == 300 and convert:
                    continue
                out.append((f"{f} json {size} convert_lists={convert}", book(f), False, config(size, convert)))
    out.append(("en_ripgrep_guide_faq.md json 500 min_chunk_size=100", book("en_ripgrep_guide_faq.md"), False,
                config(500, True, 100)))
    out.append(("en_ripgrep_guide_faq.md jsonl 300 convert_lists=True", book("en_ripgrep_guide_faq.md", "book_jsonl"),
                True, config(300, True)))
    out.append(("zh_rust_book.md jsonl 2000 convert_lists=False", book("zh_rust_book.md", "book_jsonl"), True,
                config(2000, False)))
    return out


def main() -> None:
    from importlib.metadata import version

    own = texts()
    all_cases = [run_case(n, s, j, c, own) for n, s, j, c in cases(own)]
    out = {
        "generator": "scripts/parity/generate_json.py",
        "langchain_text_splitters": version("langchain-text-splitters"),
        "python": sys.version.split()[0],
        "cases": all_cases,
    }
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")
    total = sum(c["count"] for c in all_cases)
    errors = sum(1 for c in all_cases if c["error"])
    print(f"{OUT}: {len(all_cases)} cases ({errors} refused), {total} chunks", file=sys.stderr)


if __name__ == "__main__":
    main()
