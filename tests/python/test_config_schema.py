"""The config's JSON Schema (assets/config.schema.json, generated from the Rust
types; tests/assets.rs keeps it in step) accepts every config chunktui writes
and refuses what chunktui refuses, checked by a real validator (jsonschema)."""

from __future__ import annotations

import json
import os
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import jsonschema
import pytest

REPO = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((REPO / "assets" / "config.schema.json").read_text(encoding="utf-8"))


def chunktui(*args: str) -> str:
    binary = Path(os.environ.get("CHUNKTUI_BIN", REPO / "target" / "debug" / "chunktui"))
    if not binary.exists():
        pytest.fail(f"{binary} is missing: build it with `cargo build` (or set CHUNKTUI_BIN)")
    done = subprocess.run([binary, *args], capture_output=True, text=True)
    assert done.returncode == 0, f"chunktui {args} exited {done.returncode}: {done.stderr}"
    return done.stdout


def errors(config: dict[str, Any]) -> list[str]:
    validator = jsonschema.Draft202012Validator(SCHEMA)
    return [e.message for e in validator.iter_errors(config)]


def test_the_schema_is_itself_valid() -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


@pytest.mark.parametrize(
    "flags",
    [
        [],
        ["--strategy", "sentence", "--size", "300", "--max-sentences", "5"],
        ["--strategy", "markdown", "--levels", "1,2", "--embed-text-fit"],
        ["--strategy", "langchain-recursive", "--separators", '["\\n\\n", "。", ""]', "--keep-separator", "end"],
        ["--strategy", "semantic", "--threshold-type", "gradient", "--threshold", "90"],
        ["--unit", "tokens", "--tokenizer", "o200k_base", "--size", "512", "--overlap", "64"],
    ],
)
def test_every_config_chunktui_writes_is_valid(flags: list[str]) -> None:
    as_toml = tomllib.loads(chunktui("config", "init", *flags))
    as_json = json.loads(chunktui("config", "init", "--json", *flags))
    assert errors(as_toml) == []
    assert errors(as_json) == []


def test_the_annotated_defaults_are_valid() -> None:
    text = (REPO / "assets" / "default-config.toml").read_text(encoding="utf-8")
    assert errors(tomllib.loads(text)) == []


def test_what_chunktui_refuses_the_schema_refuses() -> None:
    base = json.loads(chunktui("config", "init", "--json"))
    assert any("sise" in e for e in errors({**base, "sise": 10})), "unknown keys"
    assert errors({**base, "strategy": "paragraphs"}), "unknown strategy"
    assert errors({**base, "size": -3}), "negative size"
    assert errors({**base, "unit": "lines"}), "unknown unit"
    assert errors({**base, "embed_text": {"enabled": "yes"}}), "wrong type in a section"
    # Every key may be left out (it keeps its default), in chunktui and in the schema alike.
    for key in ("version", "strategy", "unit", "size", "overlap"):
        missing = {k: v for k, v in base.items() if k != key}
        assert not errors(missing), f"{key} may be left out"
