"""`chunktui chunk --unit tokens` as a whole process against the tokenizer's
own single pass over the same text, in one run (issue 49's "must show").

For each file: tiktoken's `cl100k_base.encode_ordinary(text)` and HF
tokenizers' `encode(text)` with the all-MiniLM-L6-v2 tokenizer (WordPiece,
truncation and padding removed), both in process and warm (the encoder
loaded and one untimed call made first), against the wall time of
`chunktui chunk FILE --unit tokens --size 512 --overlap 50` with cl100k and
with that same MiniLM tokenizer: process start, reading, loading the
tokenizer, tokenizing, cutting and writing every chunk as JSONL included.
Each time is the median of --reps runs, the runs of all rows interleaved so
that a busy moment on the machine hits every row alike.

    cargo build --release
    PY=~/.cache/chunktui/venv-tests-9b1270e7fb94/bin/python   # tiktoken, tokenizers
    $PY bench/token_speed.py --cli $CARGO_TARGET_DIR/release/chunktui FILE...

tiktoken reads its encoding from TIKTOKEN_CACHE_DIR; offline, the file is
copied there from the tiktoken-rs crate's assets (as scripts/parity does).
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

CL100K_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
MINILM = Path.home() / ".cache/chunktui/models/all-MiniLM-L6-v2-int8/tokenizer.json"


def offline_tiktoken() -> None:
    """Point tiktoken at a cache holding cl100k_base from the crate's assets."""
    if os.environ.get("TIKTOKEN_CACHE_DIR"):
        return
    found = sorted(glob.glob(os.path.expanduser("~/.cargo/registry/src/*/tiktoken-rs-*/assets/cl100k_base.tiktoken")))
    if not found:
        sys.exit("cl100k_base.tiktoken not found: run `cargo fetch` or set TIKTOKEN_CACHE_DIR")
    data = Path(found[-1]).read_bytes()
    if hashlib.sha256(data).hexdigest() != CL100K_SHA256:
        sys.exit(f"{found[-1]}: unexpected sha256")
    cache = tempfile.mkdtemp(prefix="token-speed-tiktoken-")
    shutil.copyfile(found[-1], os.path.join(cache, hashlib.sha1(CL100K_URL.encode()).hexdigest()))
    os.environ["TIKTOKEN_CACHE_DIR"] = cache


def timed(f: Callable[[], object]) -> float:
    start = time.perf_counter()
    f()
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("--cli", required=True, help="the chunktui binary (a release build)")
    ap.add_argument("--tokenizer", type=Path, default=MINILM, help="the WordPiece tokenizer.json (MiniLM)")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--json", type=Path, help="also write the rows here")
    args = ap.parse_args()

    offline_tiktoken()
    import tiktoken
    import tokenizers

    enc = tiktoken.get_encoding("cl100k_base")
    hf = tokenizers.Tokenizer.from_file(str(args.tokenizer))
    hf.no_truncation()
    hf.no_padding()
    cmd = [args.cli, "chunk", "", "--unit", "tokens", "--size", "512", "--overlap", "50", "--tokenizer"]
    rows = []
    print("file\tMB\tchunktui_cl100k_s\ttiktoken_s\tratio\tchunktui_minilm_s\thf_wordpiece_s\tratio\tcl100k_vs_hf")
    for path in args.files:
        data = path.read_bytes()
        text = data.decode("utf-8")
        run: dict[str, Callable[[], object]] = {
            "tiktoken": lambda: enc.encode_ordinary(text),
            "hf": lambda: hf.encode(text, add_special_tokens=False),
            "cli_cl100k": lambda: subprocess.run(
                [*cmd[:2], str(path), *cmd[3:], "cl100k_base"], stdout=subprocess.DEVNULL, check=True
            ),
            "cli_minilm": lambda: subprocess.run(
                [*cmd[:2], str(path), *cmd[3:], f"hf:{args.tokenizer}"], stdout=subprocess.DEVNULL, check=True
            ),
        }
        for f in run.values():  # warm: encoders loaded, pages cached
            f()
        times: dict[str, list[float]] = {k: [] for k in run}
        for _ in range(args.reps):
            for k, f in run.items():
                times[k].append(timed(f))
        t = {k: statistics.median(v) for k, v in times.items()}
        row = {
            "file": path.name,
            "MB": len(data) / 1e6,
            **t,
            "x_tiktoken": t["tiktoken"] / t["cli_cl100k"],
            "x_hf": t["hf"] / t["cli_minilm"],
            "x_hf_cl100k": t["hf"] / t["cli_cl100k"],
        }
        rows.append(row)
        print(
            f"{path.name}\t{row['MB']:.2f}\t{t['cli_cl100k']:.3f}\t{t['tiktoken']:.3f}\t{row['x_tiktoken']:.2f}x"
            f"\t{t['cli_minilm']:.3f}\t{t['hf']:.3f}\t{row['x_hf']:.2f}x\t{row['x_hf_cl100k']:.2f}x",
            flush=True,
        )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
