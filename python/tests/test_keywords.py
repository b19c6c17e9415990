"""Every key of the config file (assets/config.schema.json, generated from
the Rust types) is a keyword of `Chunker` with the same name, sections key
by key, and the type stub lists exactly those keywords. A new config key
fails here until it has a value below and a line in _chunktui.pyi."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest

import chunktui
from pkgtest import REPO

SCHEMA = json.loads((REPO / "assets" / "config.schema.json").read_text(encoding="utf-8"))
STUB = REPO / "python" / "chunktui" / "_chunktui.pyi"

# A valid value, other than the default, for each key: each is set alone
# over the defaults and must come back in `Chunker.config`.
TOP: dict[str, Any] = {
    "version": 1,
    "strategy": "sentence",
    "unit": "words",
    "tokenizer": "o200k_base",
    "size": 321,
    "overlap": 12,
    "edits": [{"op": "cut", "before": "end. ", "after": "Start", "near": 40}],
}
SECTIONS: dict[str, dict[str, Any]] = {
    "cluster": {"objective": "adjacent", "piece_size": 30, "split_cost": 0.25},
    "code": {"language": "rust"},
    "embed_text": {"enabled": True, "fit": True},
    "json": {"convert_lists": True, "min_chunk_size": 120},
    "fast": {"delimiters": "\n。", "pattern": "\n\n", "prefix": True},
    "hierarchical": {"base": "sentence", "levels": [3000, 600]},
    "langchain": {
        "headers": [["#", "H1"]],
        "is_separator_regex": True,
        "keep_separator": "end",
        "return_each_line": True,
        "separator": "\n",
        "separators": ["\n", " "],
        "strip_headers": False,
        "strip_whitespace": False,
    },
    "lint": {"enabled": False, "max_tokens": 900, "off": ["tiny-fragment"]},
    "markdown": {"levels": [1, 2]},
    "recursive": {"is_regex": True, "preset": "chinese", "separators": ["\n\n", " "]},
    "semantic": {
        "buffer_size": 2,
        "late_boundaries": "recursive",
        "max_tokens": 400,
        "min_size": 10,
        "model": "/some/model",
        "number_of_chunks": 5,
        "prefix": "query: ",
        "sentence_split_regex": "[.!?]\\s+",
        "threshold": 80.0,
        "threshold_type": "interquartile",
    },
    "sentence": {"max_sentences": 4, "overlap_sentences": 2},
    "llm": {
        "url": "http://127.0.0.1:9/v1",
        "model": "some-model",
        "temperature": 0.5,
        "concurrency": 3,
        "context_tokens": 4096,
        "max_tokens": 300,
        "timeout_seconds": 60,
        "retry_seconds": 10,
        "cache": False,
        "group_propositions": True,
        "enrich": ["title", "context"],
    },
    "agentic": {"plan": [{"section": "", "strategy": "sentence", "size": 300, "overlap": 0, "reason": "prose"}]},
    "generate": {
        "min_shared": 2,
        "min_similarity": 0.5,
        "duplicate_similarity": 0.9,
        "attempts": 6,
        "min_questions": 3,
    },
    "embed": {
        "url": "http://127.0.0.1:9/v1",
        "model": "some-embedder",
        "dimensions": 256,
        "batch_size": 16,
        "concurrency": 3,
        "timeout_seconds": 30,
        "retry_seconds": 5,
        "max_input_tokens": 512,
        "cache": False,
    },
}


@pytest.fixture(autouse=True)
def llm_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    """`llm.enrich` alone asks for an endpoint: the environment names one
    (nothing is sent, no chunk is cut)."""
    monkeypatch.setenv("CHUNKTUI_LLM_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("CHUNKTUI_LLM_MODEL", "some-model")


def section_keys(section: str) -> set[str]:
    ref = SCHEMA["properties"][section]["$ref"].rsplit("/", 1)[-1]
    return set(SCHEMA["$defs"][ref]["properties"])


def test_the_values_cover_every_key_of_the_schema() -> None:
    assert set(TOP) | set(SECTIONS) == set(SCHEMA["properties"])
    for section, values in SECTIONS.items():
        assert set(values) == section_keys(section), section


@pytest.mark.parametrize("key", sorted(TOP))
def test_a_top_level_key_is_a_keyword(key: str) -> None:
    assert chunktui.Chunker(**{key: TOP[key]}).config[key] == TOP[key]


@pytest.mark.parametrize(("section", "key"), sorted((s, k) for s, keys in SECTIONS.items() for k in keys))
def test_a_section_key_is_a_keyword(section: str, key: str) -> None:
    value = SECTIONS[section][key]
    # An endpoint is a url and a model together: each embed key goes with both.
    base = {k: SECTIONS["embed"][k] for k in ("url", "model")} if section == "embed" else {}
    keywords: dict[str, Any] = {section: {**base, key: value}}
    config = chunktui.Chunker(**keywords).config
    got = config[section][key]
    # JSON has no tuples: pairs come back as lists.
    assert json.loads(json.dumps(got)) == value, (section, key)


def test_the_stub_lists_every_key() -> None:
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    chunker = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Chunker")
    init = next(n for n in chunker.body if isinstance(n, ast.FunctionDef) and n.name == "__init__")
    assert {a.arg for a in init.args.kwonlyargs} == set(SCHEMA["properties"])


def test_the_defaults_are_the_cli_defaults(tmp_path: Path) -> None:
    # A config written from the defaults reads back as the same config.
    config = tmp_path / "chunktui.toml"
    config.write_text(chunktui.Chunker().to_toml(), encoding="utf-8")
    assert chunktui.Chunker.from_config(config).config == chunktui.Chunker().config


def test_a_size_without_an_overlap_overlaps_by_a_fifth_of_it(tmp_path: Path) -> None:
    assert chunktui.Chunker().config["overlap"] == 140
    assert chunktui.Chunker(size=300).config["overlap"] == 60
    assert chunktui.Chunker(size=4).config["overlap"] == 0
    assert chunktui.Chunker(size=300, overlap=7).config["overlap"] == 7
    # A config file's overlap is the user's own: a size keyword leaves it.
    config = tmp_path / "chunktui.toml"
    config.write_text('version = 1\nstrategy = "recursive"\nunit = "chars"\nsize = 1000\noverlap = 150\n', encoding="utf-8")
    assert chunktui.Chunker.from_config(config, size=400).config["overlap"] == 150


@pytest.mark.parametrize(
    ("keywords", "section", "key", "value"),
    [
        ({"strategy": "fast", "unit": "bytes", "delimiters": "\n.?"}, "fast", "delimiters", "\n.?"),
        ({"strategy": "fast", "pattern": "\n\n", "prefix": True}, "fast", "pattern", "\n\n"),
        ({"strategy": "semantic", "threshold": 80.0}, "semantic", "threshold", 80.0),
        ({"strategy": "adaptive", "min_size": 10}, "semantic", "min_size", 10),
        ({"strategy": "langchain-recursive", "separators": ["\n", " "]}, "langchain", "separators", ["\n", " "]),
        ({"strategy": "recursive", "separators": ["\n", " "]}, "recursive", "separators", ["\n", " "]),
        ({"strategy": "sentence", "max_sentences": 4}, "sentence", "max_sentences", 4),
    ],
)
def test_a_key_of_the_strategys_own_section_is_a_keyword_alone(
    keywords: dict[str, Any], section: str, key: str, value: Any
) -> None:
    config = chunktui.Chunker(**keywords).config
    assert config[section][key] == value
    # The same as the section's dict, and the other keys of the section stay.
    as_dict = {k: v for k, v in keywords.items() if k in {"strategy", "unit"}}
    as_dict[section] = {k: v for k, v in keywords.items() if k not in {"strategy", "unit"}}
    assert chunktui.Chunker(**as_dict).config == config


def test_a_section_dict_beside_its_shorthand_wins() -> None:
    config = chunktui.Chunker(strategy="fast", delimiters="\n", fast={"delimiters": ".", "prefix": True}).config
    assert config["fast"] == {**config["fast"], "delimiters": ".", "prefix": True}


def test_a_section_key_for_another_strategy_says_where_it_goes() -> None:
    with pytest.raises(ValueError, match=r"delimiters is not a top-level setting but a key of \[fast\]") as e:
        chunktui.Chunker(strategy="recursive", delimiters="\n")
    assert 'fast={"delimiters": ...}' in str(e.value)
    assert 'strategy="fast"' in str(e.value)
    with pytest.raises(ValueError, match="no_such_key"):
        chunktui.Chunker(strategy="fast", no_such_key=1)
