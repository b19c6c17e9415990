"""Start llama.cpp's own OpenAI-compatible HTTP server (the xllamacpp wheel).

The wheel runs the server inside this process; this launcher gives it
llama-server's flags, so tests/llm_server.rs starts it as it would the
`llama-server` program:

    python llm_server.py -m MODEL.gguf --alias smollm2 --host 127.0.0.1 --port P -c 2048 -t 2

It serves until SIGTERM or SIGINT. Runs in the venv scripts/setup-llm.sh makes.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from types import FrameType

import xllamacpp


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-m", "--model", required=True, help="the GGUF file to serve")
    parser.add_argument("--alias", help="the model name /v1/models lists")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("-c", "--ctx-size", type=int, default=2048)
    parser.add_argument("-t", "--threads", type=int, default=2)
    args = parser.parse_args()

    params = xllamacpp.CommonParams()
    params.model.path = args.model
    if args.alias:
        params.model_alias = {args.alias}
    params.hostnames = [args.host]
    params.port = args.port
    params.n_ctx = args.ctx_size
    # One slot holds the whole context; the tests send at most two requests at once.
    params.n_parallel = 1
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads

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
