#!/usr/bin/env python3
"""Same-run peer for benches/embedding.rs: Python onnxruntime on the same model
file, same tokenizer.json, same sentences, same batch size and threads
(intra-op threads = cores, spinning off), same length-sorted batching with
per-batch padding, mean pooling and L2 normalisation.

    cargo bench --bench embedding -- embed      # writes target/embedding-bench-sentences.txt
    python3 bench/onnx_peer.py                  # needs: pip install onnxruntime==1.31.1 tokenizers numpy

Options: --model DIR (default: the chunktui cache's all-MiniLM-L6-v2-int8),
--sentences FILE, --batch 32, --threads N, --seconds 10.
"""
import argparse
import os
import time

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer


def default_model():
    cache = os.environ.get("CHUNKTUI_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "chunktui"
    )
    return os.environ.get("CHUNKTUI_MODEL_DIR") or os.path.join(cache, "models", "all-MiniLM-L6-v2-int8")


def main():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default=default_model())
    ap.add_argument("--sentences", default=os.path.join(here, "target", "embedding-bench-sentences.txt"))
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--max-tokens", type=int, default=256)
    args = ap.parse_args()

    with open(args.sentences, encoding="utf-8") as f:
        sentences = [line.rstrip("\n") for line in f if line.strip()]

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = args.threads
    opts.inter_op_num_threads = 1
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    t0 = time.perf_counter()
    sess = ort.InferenceSession(os.path.join(args.model, "model.onnx"), opts, providers=["CPUExecutionProvider"])
    load = time.perf_counter() - t0
    names = {i.name for i in sess.get_inputs()}

    tok = Tokenizer.from_file(os.path.join(args.model, "tokenizer.json"))
    tok.no_padding()
    tok.no_truncation()

    def embed(texts):
        enc = [tok.encode(t).ids[: args.max_tokens] for t in texts]
        order = sorted(range(len(texts)), key=lambda i: len(enc[i]))
        out = [None] * len(texts)
        for s in range(0, len(order), args.batch):
            idx = order[s : s + args.batch]
            seq = max(len(enc[i]) for i in idx)
            ids = np.zeros((len(idx), seq), dtype=np.int64)
            mask = np.zeros((len(idx), seq), dtype=np.int64)
            for r, i in enumerate(idx):
                ids[r, : len(enc[i])] = enc[i]
                mask[r, : len(enc[i])] = 1
            feed = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in names:
                feed["token_type_ids"] = np.zeros_like(ids)
            hidden = sess.run(None, feed)[0]
            m = mask[:, :, None].astype(np.float32)
            pooled = (hidden * m).sum(1) / np.maximum(m.sum(1), 1e-9)
            pooled /= np.linalg.norm(pooled, axis=1, keepdims=True)
            for r, i in enumerate(idx):
                out[i] = pooled[r]
        return out

    embed(sentences)  # warm-up
    runs, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < args.seconds:
        embed(sentences)
        runs += 1
    dt = (time.perf_counter() - t0) / runs
    print(
        f"onnxruntime {ort.__version__} (python): {len(sentences)} sentences in {dt * 1000:.1f} ms "
        f"= {len(sentences) / dt:.0f} sentences/s (batch {args.batch}, {args.threads} threads, load {load:.2f}s)"
    )


if __name__ == "__main__":
    main()
