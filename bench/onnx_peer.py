#!/usr/bin/env python3
"""The Python peer chunktui's embedding speed is measured against: ONNX Runtime
from Python on the same model file and tokenizer.json, doing what chunktui does
(length-sorted batches padded per batch, inputs cut to the model's limit with
the closing special token kept, mean pooling over the mask, L2 normalisation)
and ranking with numpy.

Two measurements:

    # embedding throughput (benches/embedding.rs writes the sentences)
    python bench/onnx_peer.py throughput

    # the first, uncached dense retrieval check: embed every chunk and every
    # question, rank top-k by cosine (scripts/bench-eval-peer.sh runs both
    # sides on the same chunks in one run)
    python bench/onnx_peer.py retrieve --chunks chunks.jsonl --queries q.jsonl --k 5

Needs bench/requirements.txt (scripts/setup-venv.sh, run by scripts/test.sh, installs it into a venv in the user cache).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np
import numpy.typing as npt
import onnxruntime as ort
from tokenizers import Tokenizer

Vectors = npt.NDArray[np.float32]


def default_model_dir() -> Path:
    """Where `chunktui setup` (and scripts/setup-models.sh) put the default model."""
    if explicit := os.environ.get("CHUNKTUI_MODEL_DIR"):
        return Path(explicit)
    cache = os.environ.get("CHUNKTUI_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "chunktui"
    )
    return Path(cache) / "models" / "all-MiniLM-L6-v2-int8"


@dataclass(frozen=True)
class ModelInfo:
    """What chunktui reads from `chunktui-model.json` beside the model."""

    max_tokens: int = 256
    prefix: str = ""

    @staticmethod
    def read(model_dir: Path) -> ModelInfo:
        path = model_dir / "chunktui-model.json"
        if not path.exists():
            return ModelInfo()
        own = json.loads(path.read_text(encoding="utf-8"))
        return ModelInfo(max_tokens=int(own.get("max_seq_length", 256)), prefix=str(own.get("prefix", "")))


class Embedder:
    """One ONNX session and its tokenizer, set up as chunktui sets up its own."""

    def __init__(self, model_dir: Path, threads: int, batch: int = 32) -> None:
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        # Spinning threads made ONNX Runtime 2x slower under contention here;
        # chunktui turns it off too.
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self.session = ort.InferenceSession(
            str(model_dir / "model.onnx"), opts, providers=["CPUExecutionProvider"]
        )
        self.input_names = {i.name for i in self.session.get_inputs()}
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        # The shipped tokenizer.json pads and cuts to 128: undo both, as chunktui does.
        self.tokenizer.no_padding()
        self.tokenizer.no_truncation()
        self.info = ModelInfo.read(model_dir)
        self.batch = batch
        # The specials that close an input (BERT's [SEP]), kept when a long
        # input is cut so the model still sees a well-formed sequence.
        self.tail = self.tokenizer.encode("").ids[1:]

    def encode(self, text: str) -> list[int]:
        """Token ids of prefix + text with specials, cut to the model's limit."""
        ids: list[int] = self.tokenizer.encode(self.info.prefix + text).ids
        if len(ids) <= self.info.max_tokens:
            return ids
        return ids[: max(self.info.max_tokens - len(self.tail), 0)] + self.tail

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Unit vectors, one row per text, in input order."""
        encoded = [self.encode(t) for t in texts]
        order = sorted(range(len(texts)), key=lambda i: len(encoded[i]))
        out: Vectors | None = None
        for start in range(0, len(order), self.batch):
            rows = order[start : start + self.batch]
            width = max(len(encoded[i]) for i in rows)
            ids = np.zeros((len(rows), width), dtype=np.int64)
            mask = np.zeros((len(rows), width), dtype=np.int64)
            for r, i in enumerate(rows):
                ids[r, : len(encoded[i])] = encoded[i]
                mask[r, : len(encoded[i])] = 1
            feed = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self.input_names:
                feed["token_type_ids"] = np.zeros_like(ids)
            hidden = np.asarray(self.session.run(None, feed)[0], dtype=np.float32)
            if out is None:
                out = np.zeros((len(texts), hidden.shape[2]), dtype=np.float32)
            out[rows] = normalize(mean_pool(hidden, mask))
        return out if out is not None else np.zeros((0, 0), dtype=np.float32)


def mean_pool(hidden: Vectors, mask: npt.NDArray[np.int64]) -> Vectors:
    """Average of the token vectors the mask keeps (hidden is [batch, seq, dim])."""
    weights = mask[:, :, None].astype(np.float32)
    summed = (hidden * weights).sum(axis=1)
    return np.asarray(summed / np.maximum(weights.sum(axis=1), 1e-9), dtype=np.float32)


def normalize(vectors: Vectors) -> Vectors:
    """Rows scaled to length 1 (a zero row stays zero)."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return np.asarray(vectors / np.maximum(norms, 1e-12), dtype=np.float32)


def top_k(queries: Vectors, chunks: Vectors, k: int) -> list[list[int]]:
    """For each query, the indices of the k chunks with the highest cosine
    similarity, best first; equal scores go to the earlier chunk (as
    chunktui's dense retriever orders them)."""
    if len(chunks) == 0:
        return [[] for _ in range(len(queries))]
    scores = queries @ chunks.T
    k = min(k, chunks.shape[0])
    ranked: list[list[int]] = []
    for row in scores:
        # argpartition finds the best k in linear time; only they are sorted.
        best = np.argpartition(-row, k - 1)[:k]
        ranked.append(sorted(best.tolist(), key=lambda i: (-float(row[i]), int(i))))
    return ranked


def read_jsonl(path: Path, field: str) -> list[str]:
    """One string field of every record of a JSONL file."""
    with path.open(encoding="utf-8") as f:
        return [str(json.loads(line)[field]) for line in f if line.strip()]


def retrieve(args: argparse.Namespace) -> None:
    started = time.perf_counter()
    embedder = Embedder(Path(args.model), args.threads, args.batch)
    chunks = read_jsonl(Path(args.chunks), "text")
    questions = read_jsonl(Path(args.queries), "question")
    ranked = top_k(embedder.embed(questions), embedder.embed(chunks), args.k)
    seconds = time.perf_counter() - started
    print(json.dumps({"seconds": seconds, "chunks": len(chunks), "questions": len(questions), "retrieved": ranked}))


def throughput(args: argparse.Namespace) -> None:
    sentences = read_lines(Path(args.sentences))
    started = time.perf_counter()
    embedder = Embedder(Path(args.model), args.threads, args.batch)
    load = time.perf_counter() - started
    embedder.embed(sentences)  # warm-up
    runs, started = 0, time.perf_counter()
    while time.perf_counter() - started < args.seconds:
        embedder.embed(sentences)
        runs += 1
    per_run = (time.perf_counter() - started) / runs
    print(
        f"onnxruntime {ort.__version__} (python): {len(sentences)} sentences in {per_run * 1000:.1f} ms "
        f"= {len(sentences) / per_run:.0f} sentences/s (batch {args.batch}, {args.threads} threads, load {load:.2f}s)"
    )


def read_lines(path: Path) -> list[str]:
    with path.open(encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f if line.strip()]


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    repo = Path(__file__).resolve().parent.parent
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default=str(default_model_dir()), help="model directory (model.onnx, tokenizer.json)")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1, help="intra-op threads (default: cores)")
    parser.add_argument("--batch", type=int, default=32, help="texts per batch (chunktui's default)")
    commands = parser.add_subparsers(dest="command", required=True)
    speed = commands.add_parser("throughput", help="sentences per second on benches/embedding.rs's sentences")
    speed.add_argument("--sentences", default=str(repo / "target" / "embedding-bench-sentences.txt"))
    speed.add_argument("--seconds", type=float, default=10.0)
    speed.set_defaults(run=throughput)
    ranking = commands.add_parser("retrieve", help="embed chunks and questions, rank top-k, print JSON")
    ranking.add_argument("--chunks", required=True, help="JSONL with a `text` field (chunktui chunk's output)")
    ranking.add_argument("--queries", required=True, help="JSONL with a `question` field")
    ranking.add_argument("--k", type=int, default=5)
    ranking.set_defaults(run=retrieve)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    args.run(args)


if __name__ == "__main__":
    main()
