"""The LLM strategies from Python, against a scripted OpenAI-compatible
endpoint served from this process: `Chunker(strategy="llm", llm={...})`
cuts exact source ranges that tile the text, as the CLI does, and a
stopped server is a clear exception."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

import chunktui

TEXT = (
    "# Ownership\n\nOwnership is a set of rules that govern how a Rust program manages memory. "
    "All programs have to manage the way they use memory while running.\n\n## Borrowing\n\n"
    "A reference is like a pointer. 引用像一个指针，它是一个地址。我们可以由此访问数据。\n"
)


class Scripted(BaseHTTPRequestHandler):
    """Answers every chat completion with new chunks at pieces 1 and 3."""

    def do_POST(self) -> None:  # noqa: N802 (the http.server API)
        length = int(self.headers.get("Content-Length", "0"))
        json.loads(self.rfile.read(length) or b"{}")
        body = json.dumps(
            {"choices": [{"message": {"role": "assistant", "content": '{"starts": [1, 3]}'}}], "usage": {}}
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def endpoint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setenv("CHUNKTUI_CACHE_DIR", str(tmp_path / "cache"))
    server = ThreadingHTTPServer(("127.0.0.1", 0), Scripted)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()


def test_llm_chunks_tile_the_text_exactly(endpoint: str) -> None:
    ch = chunktui.Chunker(strategy="llm", size=120, llm={"url": endpoint, "model": "fake"})
    chunks = ch.chunk(TEXT)
    assert chunks
    at = 0
    for c in chunks:
        assert c.start == at
        assert c.text == TEXT.encode()[c.start : c.end].decode()
        assert c.size <= 120
        at = c.end
    assert at == len(TEXT.encode())


def test_a_stopped_server_is_a_clear_exception(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHUNKTUI_CACHE_DIR", str(tmp_path / "cache"))
    ch = chunktui.Chunker(strategy="llm", llm={"url": "http://127.0.0.1:9/v1", "model": "fake", "retry_seconds": 2})
    with pytest.raises(RuntimeError, match="127.0.0.1:9"):
        ch.chunk(TEXT)
