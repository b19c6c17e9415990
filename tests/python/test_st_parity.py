"""chunktui's dense retrieval ranks chunks as sentence-transformers would.

The per-vector check against sentence-transformers itself lives in
tests/st_vectors.rs: scripts/st-reference.sh installs pinned torch and
sentence-transformers from PyPI into a venv of its own (torch brings its CUDA
wheels, ~6 GB, so it stays out of the tests' venv), exports all-MiniLM-L6-v2's
fp32 weights to ONNX, and chunktui's library embedder must give cosine >= 0.999
per vector with `SentenceTransformer(dir).encode()` and the same top-k
rankings, on English and Chinese texts longer than the limit.

This test remains for what that one does not cover: the command line with the
model users actually get. It runs `chunktui chunk` and `chunktui eval --json`
(per question, every chunk in ranked order: k = all chunks) with the default
int8 model in a sentence-transformers directory (max_seq_length 256 in
sentence_bert_config.json; the default model's model.onnx and tokenizer.json
from $CHUNKTUI_MODEL_DIR beside ST config files), checks that eval reports the
limit as read from that file, and that the ranking equals a reference's cosine
order, on English and Chinese chunks longer than the 256-token limit. The CLI
exposes no raw vectors, so rankings are what can be compared there; and
sentence-transformers does not run the int8 ONNX graph, so the reference for
that model is the rules below.

Its reference runs in the main venv (no torch): it implements
sentence-transformers' documented encode() semantics for a Transformer +
Pooling + Normalize model (read from its source, v5.1): prompt first, then
strip; lowercase if do_lower_case; tokenize with truncation to max_seq_length
*including* the special tokens; mean pooling over the attention mask; L2
normalisation. It runs the same ONNX graph with onnxruntime and the same
tokenizer.json with tokenizers (both pinned in bench/requirements.txt).
tests/st_vectors.rs holds those rules to sentence-transformers' own output.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
from tokenizers import Tokenizer

REPO = Path(__file__).resolve().parents[2]
MAX_SEQ = 256


def model_dir() -> Path:
    env = os.environ.get("CHUNKTUI_MODEL_DIR")
    path = Path(env) if env else Path.home() / ".cache/chunktui/models/all-MiniLM-L6-v2-int8"
    if not (path / "model.onnx").is_file():
        pytest.skip(f"no default model at {path}: run scripts/setup-models.sh")
    return path


def chunktui_bin() -> Path:
    path = Path(os.environ.get("CHUNKTUI_BIN", REPO / "target" / "debug" / "chunktui"))
    if not path.is_file():
        pytest.fail(f"{path} is missing: build it with `cargo build` (or set CHUNKTUI_BIN)")
    return path


@pytest.fixture(scope="module")
def st_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = model_dir()
    d = tmp_path_factory.mktemp("all-MiniLM-L6-v2-st")
    for f in ["model.onnx", "tokenizer.json"]:
        (d / f).symlink_to(src / f)
    (d / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": MAX_SEQ, "do_lower_case": False}))
    (d / "config.json").write_text(json.dumps({"max_position_embeddings": 512, "hidden_size": 384}))
    (d / "modules.json").write_text(
        json.dumps(
            [
                {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
                {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
                {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"},
            ]
        )
    )
    (d / "1_Pooling").mkdir()
    (d / "1_Pooling" / "config.json").write_text(
        json.dumps({"word_embedding_dimension": 384, "pooling_mode_mean_tokens": True})
    )
    return d


class Reference:
    """sentence-transformers' encode() for Transformer + mean Pooling + Normalize."""

    def __init__(self, d: Path, max_seq: int) -> None:
        self.tok = Tokenizer.from_file(str(d / "tokenizer.json"))
        self.tok.no_padding()
        # max_length counts the special tokens, as the HF tokenizer's does.
        self.tok.enable_truncation(max_length=max_seq)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = 1
        self.sess = ort.InferenceSession(str(d / "model.onnx"), opts, providers=["CPUExecutionProvider"])
        self.inputs = {i.name for i in self.sess.get_inputs()}

    def encode(self, texts: list[str]) -> np.ndarray:
        out = []
        for text in texts:
            ids = self.tok.encode(text.strip()).ids
            feed = {
                "input_ids": np.array([ids], dtype=np.int64),
                "attention_mask": np.ones((1, len(ids)), dtype=np.int64),
            }
            if "token_type_ids" in self.inputs:
                feed["token_type_ids"] = np.zeros((1, len(ids)), dtype=np.int64)
            hidden = np.asarray(self.sess.run(None, feed)[0])[0]
            v = hidden.mean(axis=0)
            out.append(v / np.linalg.norm(v))
        return np.stack(out)


def run(*args: str | Path) -> str:
    env = dict(os.environ)
    env.setdefault("CHUNKTUI_MODEL_DIR", str(model_dir()))
    done = subprocess.run(
        [str(chunktui_bin()), *map(str, args)], capture_output=True, text=True, env=env, cwd=REPO, timeout=600
    )
    if done.returncode != 0 and "ONNX Runtime" in done.stderr:
        pytest.skip(f"no ONNX Runtime for chunktui: {done.stderr.strip()}")
    assert done.returncode == 0, done.stderr
    return done.stdout


ENGLISH = [
    "Rivers carry water from the mountains through wide green valleys down to the sea, and along the way "
    "they shape the land, feed the fields and give towns their names. ",
    "A mutex lets one thread at a time enter a critical section; other threads wait until the lock is "
    "released, which keeps shared data consistent in a concurrent program. ",
    "Sourdough bread rises with wild yeast and lactic bacteria; the starter is fed flour and water every day "
    "and the dough ferments slowly before it is baked in a hot oven. ",
    "Volcanoes erupt when molten rock rises through the crust; ash clouds can ground aircraft and lava flows "
    "reshape the slopes of the mountain for centuries. ",
]
ENGLISH_Q = [
    "How do rivers shape valleys on their way to the sea?",
    "What does a lock do for threads in concurrent code?",
    "How is sourdough bread leavened?",
    "What happens when a volcano erupts?",
]
CHINESE = [
    "河流从高山流下，穿过宽阔的绿色山谷，最终汇入大海，沿途塑造了地形，灌溉了农田。",
    "互斥锁让同一时间只有一个线程进入临界区，其他线程必须等待锁被释放，从而保证共享数据的一致性。",
    "酸面包依靠野生酵母和乳酸菌发酵，面种每天都要加入面粉和水，面团慢慢发酵后放进烤箱烘烤。",
    "火山喷发时岩浆穿过地壳上升，火山灰会让飞机停飞，熔岩会在几百年里改变山坡的形状。",
]
CHINESE_Q = ["河流如何塑造山谷？", "互斥锁对线程有什么作用？", "酸面包是怎么发酵的？", "火山喷发会发生什么？"]


@pytest.mark.parametrize(
    "lang,paragraphs,questions,repeat", [("en", ENGLISH, ENGLISH_Q, 20), ("zh", CHINESE, CHINESE_Q, 12)]
)
def test_rankings_match_the_reference(
    st_dir: Path, tmp_path: Path, lang: str, paragraphs: list[str], questions: list[str], repeat: int
) -> None:
    # One long section per topic (each over 256 tokens), so every chunk is cut by the limit.
    sections = ["".join([p] * repeat) for p in paragraphs]
    text = "\n\n".join(sections) + "\n"
    doc = tmp_path / f"doc-{lang}.txt"
    doc.write_text(text, encoding="utf-8")
    size = str(max(len(s) for s in sections) // 2)
    flags = ["--strategy", "fixed", "--unit", "chars", "--size", size, "--overlap", "0", "--model", str(st_dir)]
    chunks = [json.loads(line) for line in run("chunk", doc, *flags).splitlines()]
    texts = [c["text"] for c in chunks]
    ref = Reference(st_dir, MAX_SEQ)
    whole = Tokenizer.from_file(str(st_dir / "tokenizer.json"))
    whole.no_padding()
    whole.no_truncation()
    lengths = [len(whole.encode(t.strip()).ids) for t in texts]
    assert all(n > MAX_SEQ for n in lengths[:-1]), f"every full chunk is longer than the model's limit: {lengths}"

    qfile = tmp_path / "q.jsonl"
    with qfile.open("w", encoding="utf-8") as f:
        for q, section in zip(questions, sections, strict=True):
            start = text.index(section)
            ref_span = {"start_index": start, "end_index": start + len(section), "content": section}
            f.write(json.dumps({"question": q, "references": [ref_span]}, ensure_ascii=False) + "\n")
    report = json.loads(
        run("eval", doc, "--queries", qfile, "--retriever", "dense", "--k", str(len(texts)), "--json", *flags)
    )
    assert report["model_settings"]["max_tokens"] == {"value": MAX_SEQ, "from": "sentence_bert_config.json"}

    chunk_vecs = ref.encode(texts)
    query_vecs = ref.encode(questions)
    for q, qv, row in zip(questions, query_vecs, report["per_question"], strict=True):
        assert row["question"] == q
        scores = chunk_vecs @ qv
        expected = [int(i) for i in np.argsort(-scores, kind="stable")]
        assert row["retrieved"] == expected, f"{q}: chunktui {row['retrieved']} vs reference {expected} ({scores})"

    # The old behaviour (512 tokens) would rank with other vectors: the limit matters here.
    wide = Reference(st_dir, 512).encode(texts[:1])
    assert float(wide[0] @ chunk_vecs[0]) < 0.9999
