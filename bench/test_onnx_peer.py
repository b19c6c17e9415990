"""The Python peer must do the same work as chunktui, or the speed comparison
means nothing: same ranking rule, same input cutting, and on a real model the
same top-k as `chunktui eval --retriever dense` over the same chunks.

Run by scripts/test.sh (pytest bench/). Needs the default model
(scripts/setup-models.sh) and the chunktui binary (CHUNKTUI_BIN, default
target/debug/chunktui).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

import onnx_peer

REPO = Path(__file__).resolve().parent.parent


def chunktui_bin() -> Path:
    path = Path(os.environ.get("CHUNKTUI_BIN", REPO / "target" / "debug" / "chunktui"))
    if not path.exists():
        pytest.fail(f"{path} is missing: build it with `cargo build` (or set CHUNKTUI_BIN)")
    return path


def run(command: list[str | Path], env: dict[str, str]) -> str:
    """Standard output of a chunktui command that must succeed."""
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    assert done.returncode == 0, f"{command} exited {done.returncode}: {done.stderr}"
    return done.stdout


def model_dir() -> Path:
    path = onnx_peer.default_model_dir()
    if not (path / "model.onnx").exists():
        pytest.fail(f"no model in {path}: run `bash scripts/setup-models.sh` (or set CHUNKTUI_MODEL_DIR)")
    return path


def test_top_k_is_the_brute_force_ranking() -> None:
    rng = np.random.default_rng(7)
    chunks = onnx_peer.normalize(rng.standard_normal((200, 16)).astype(np.float32))
    queries = onnx_peer.normalize(rng.standard_normal((9, 16)).astype(np.float32))
    for q, got in zip(queries, onnx_peer.top_k(queries, chunks, 5)):
        scores = chunks @ q
        assert got == sorted(range(len(chunks)), key=lambda i: (-float(scores[i]), i))[:5]


def test_top_k_breaks_ties_by_chunk_order_and_handles_few_chunks() -> None:
    chunks = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]], dtype=np.float32)
    query = np.array([[1.0, 0.0]], dtype=np.float32)
    assert onnx_peer.top_k(query, chunks, 2) == [[0, 2]]
    assert onnx_peer.top_k(query, chunks, 10) == [[0, 2, 1]]
    assert onnx_peer.top_k(query, chunks[:0], 3) == [[]]


def test_mean_pool_ignores_padding_and_normalize_gives_unit_rows() -> None:
    hidden = np.array([[[1.0, 3.0], [3.0, 5.0], [100.0, 100.0]]], dtype=np.float32)
    mask = np.array([[1, 1, 0]], dtype=np.int64)
    pooled = onnx_peer.mean_pool(hidden, mask)
    assert pooled.tolist() == [[2.0, 4.0]]
    assert np.allclose(np.linalg.norm(onnx_peer.normalize(pooled), axis=1), 1.0)


def test_long_inputs_are_cut_to_the_limit_keeping_the_closing_special() -> None:
    embedder = onnx_peer.Embedder(model_dir(), threads=1)
    long = "chunk " * 2000
    ids = embedder.encode(long)
    assert len(ids) == embedder.info.max_tokens
    assert ids[-len(embedder.tail) :] == embedder.tail
    assert ids[0] == embedder.encode("x")[0], "the opening special is kept"
    short = embedder.encode("短い 中文 text")
    assert len(short) < embedder.info.max_tokens


def test_same_top_k_as_chunktui_dense_on_the_same_chunks(tmp_path: Path) -> None:
    model = model_dir()
    binary = chunktui_bin()
    doc = REPO / "samples" / "guide.md"
    env = {**os.environ, "CHUNKTUI_MODEL_DIR": str(model), "CHUNKTUI_CACHE_DIR": str(tmp_path / "cache")}
    settings = ["--size", "400", "--overlap", "50"]
    chunks = tmp_path / "chunks.jsonl"
    chunks.write_text(run([binary, "chunk", doc, *settings, "--format", "jsonl"], env), encoding="utf-8")
    queries = REPO / "samples" / "questions.jsonl"
    evaluated = run(
        [binary, "eval", doc, "--queries", queries, "--corpus-id", "guide", "--retriever", "dense", "--k", "4",
         "--json", *settings],
        env,
    )
    theirs = [q["retrieved"] for q in json.loads(evaluated)["per_question"]]

    embedder = onnx_peer.Embedder(model, threads=2)
    texts = onnx_peer.read_jsonl(chunks, "text")
    guide_rows = [json.loads(line) for line in queries.read_text(encoding="utf-8").splitlines() if line.strip()]
    questions = [row["question"] for row in guide_rows if row.get("corpus_id") == "guide"]
    chunk_vectors = embedder.embed(texts)
    question_vectors = embedder.embed(questions)
    ours = onnx_peer.top_k(question_vectors, chunk_vectors, 4)

    assert len(theirs) == len(questions) > 3
    for q, (mine, chunktuis) in enumerate(zip(ours, theirs)):
        if mine != chunktuis:
            # int8 kernels may round differently between the two callers:
            # a swap is acceptable only between chunks whose scores are equal
            # to within float noise.
            scores = chunk_vectors @ question_vectors[q]
            for a, b in zip(mine, chunktuis):
                assert abs(float(scores[a]) - float(scores[b])) < 1e-4, (questions[q], mine, chunktuis)
