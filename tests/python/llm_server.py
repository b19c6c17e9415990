"""Start llama.cpp's own OpenAI-compatible HTTP server (the xllamacpp wheel).

The wheel runs the server inside this process; this launcher gives it
llama-server's flags, so tests/llm_server.rs starts it as it would the
`llama-server` program:

    python llm_server.py -m MODEL.gguf --alias smollm2 --host 127.0.0.1 --port P -c 2048 -t 2

and, for an embedding model (/v1/embeddings; scripts/setup-embed-server.sh
makes all-MiniLM-L6-v2's GGUF):

    python llm_server.py -m MINILM.gguf --alias all-minilm-l6-v2 --embedding --pooling mean -c 512

It serves until SIGTERM or SIGINT. Runs in the venv scripts/setup-llm.sh makes.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from types import FrameType

import xllamacpp

POOLING = {
    "none": xllamacpp.llama_pooling_type.LLAMA_POOLING_TYPE_NONE,
    "mean": xllamacpp.llama_pooling_type.LLAMA_POOLING_TYPE_MEAN,
    "cls": xllamacpp.llama_pooling_type.LLAMA_POOLING_TYPE_CLS,
    "last": xllamacpp.llama_pooling_type.LLAMA_POOLING_TYPE_LAST,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("-m", "--model", required=True, help="the GGUF file to serve")
    parser.add_argument("--alias", help="the model name /v1/models lists")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("-c", "--ctx-size", type=int, default=2048, help="context size, shared by the slots")
    parser.add_argument("-t", "--threads", type=int, default=2)
    parser.add_argument("--embedding", "--embeddings", action="store_true", help="serve /v1/embeddings only")
    parser.add_argument("--pooling", choices=sorted(POOLING), help="embedding pooling (default: the model's)")
    parser.add_argument("-b", "--batch-size", type=int, help="logical batch size (llama.cpp's default: 2048)")
    parser.add_argument("-ub", "--ubatch-size", type=int, help="physical batch size (llama.cpp's default: 512)")
    parser.add_argument("-np", "--parallel", type=int, default=1, help="slots, requests served at once")
    args = parser.parse_args()

    params = xllamacpp.CommonParams()
    params.model.path = args.model
    if args.alias:
        params.model_alias = {args.alias}
    params.hostnames = [args.host]
    params.port = args.port
    params.n_ctx = args.ctx_size
    # One slot holds the whole context by default; the LLM tests send at most
    # two requests at once.
    params.n_parallel = args.parallel
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    if args.batch_size is not None:
        params.n_batch = args.batch_size
    if args.ubatch_size is not None:
        params.n_ubatch = args.ubatch_size
    if args.embedding:
        params.embedding = True
        # An encoder (BERT) runs each input in one physical batch, so that
        # batch must hold the longest input a slot takes: a whole slot's
        # context unless -ub says otherwise. As llama-server does, the logical
        # batch is then no larger than the physical one.
        if args.ubatch_size is None:
            params.n_ubatch = max(params.n_ubatch, args.ctx_size // args.parallel)
        params.n_batch = min(params.n_batch, params.n_ubatch)
    if args.pooling is not None:
        params.pooling_type = POOLING[args.pooling]

    server = xllamacpp.Server(params)  # loads the model, then listens
    print(f"llm_server: listening on {server.listening_address}", file=sys.stderr, flush=True)

    stop = threading.Event()

    def on_signal(_signum: int, _frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    stop.wait()


if __name__ == "__main__":
    main()
