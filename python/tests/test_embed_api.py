"""The user's own embedder from Python: `Chunker(..., embed={"url", "model"})`
against llama.cpp's OpenAI-compatible server serving all-MiniLM-L6-v2
(scripts/setup-llm.sh, scripts/setup-embed-server.sh) gives the chunks
`chunktui chunk --embed-url` gives, and late chunking over an API is a clear
ValueError."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

import chunktui

ROOT = Path(__file__).resolve().parents[2]
MODEL = "all-minilm-l6-v2"
TEXT = (
    "Volcanoes form where molten rock reaches the surface. Lava flows down the slopes during an eruption. "
    "Ash clouds can ground aircraft for days. Bread rises because yeast makes gas. Bakers knead the dough "
    "to build gluten. A hot oven sets the crust quickly. Rivers carry sediment to the sea. Deltas grow "
    "where the current slows. Floods spread fertile silt over the plains."
)


def needed(var: str, how: str) -> str:
    value = os.environ.get(var)
    if not value or not Path(value).exists():
        pytest.fail(f"{var} is not set or missing: {how}")
    return value


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    python = needed("CHUNKTUI_LLM_PYTHON", "run `bash scripts/test.sh` (scripts/setup-llm.sh)")
    gguf = needed("CHUNKTUI_EMBED_GGUF", "run `bash scripts/test.sh` (scripts/setup-embed-server.sh)")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    launcher = ROOT / "tests/python/llm_server.py"
    args = ["--alias", MODEL, "--embedding", "--pooling", "mean", "-c", "512", "-t", "1", "--port", str(port)]
    server = subprocess.Popen([python, str(launcher), "-m", gguf, *args], stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=5) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            assert server.poll() is None, "the embeddings server exited"
            assert time.monotonic() < deadline, "the embeddings server was not ready in 120 s"
            time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        server.terminate()
        server.wait()


def test_semantic_through_the_endpoint_matches_the_cli(
    endpoint: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHUNKTUI_CACHE_DIR", str(tmp_path / "cache"))
    ch = chunktui.Chunker(strategy="semantic", embed={"url": endpoint, "model": MODEL})
    chunks = ch.chunk(TEXT)
    assert len(chunks) >= 2
    doc = tmp_path / "doc.txt"
    doc.write_text(TEXT, encoding="utf-8")
    binary = os.environ.get("CHUNKTUI_BIN", "chunktui")
    out = subprocess.run(
        [binary, "chunk", str(doc), "-s", "semantic", "--embed-url", endpoint, "--embed-model", MODEL],
        capture_output=True,
        text=True,
        env={**os.environ, "CHUNKTUI_CACHE_DIR": str(tmp_path / "cli-cache")},
        check=True,
    )
    cli = [json.loads(line) for line in out.stdout.splitlines()]
    assert [(c.start, c.end) for c in chunks] == [(r["start"], r["end"]) for r in cli]
    assert "embeddings API:" in out.stderr


def test_late_over_an_api_says_what_works(endpoint: str) -> None:
    with pytest.raises(ValueError, match="no embeddings API returns"):
        chunktui.Chunker(strategy="late", embed={"url": endpoint, "model": MODEL})
