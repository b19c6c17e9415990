#!/usr/bin/env python3
"""Generate tests/fixtures/semantic/langchain_parity.json: LangChain's
SemanticChunker (langchain-experimental) run on fixed texts with a tiny
deterministic embedder. The fixture stores every vector the embedder returned
(keyed by the exact text embedded, rounded to float32 so Rust sees the same
numbers) and the chunks LangChain produced. tests/embed_parity.rs feeds the
same vectors to chunktui's langchain-semantic and expects the same chunks.

Setup (once):  python3 -m venv /tmp/lc && /tmp/lc/bin/pip install langchain-experimental numpy
Run:           /tmp/lc/bin/python scripts/semantic_parity/generate.py
"""
import hashlib
import json
import os
import sys
import warnings

import numpy as np

warnings.filterwarnings("ignore")
from langchain_core.embeddings import Embeddings  # noqa: E402
from langchain_experimental.text_splitter import SemanticChunker  # noqa: E402

DIM = 24
VECTORS = {}


def word_vector(word):
    """A fixed pseudo-random vector per word (sha256-seeded)."""
    seed = int.from_bytes(hashlib.sha256(word.encode("utf-8")).digest()[:8], "little")
    return np.random.default_rng(seed).standard_normal(DIM)


def tiny_embed(text):
    words = [w.strip(".,!?;:\"'()").lower() for w in text.split()] or [text]
    # Also every CJK char as a "word", so Chinese text gets meaningful vectors.
    words += [c for c in text if "\u4e00" <= c <= "\u9fff"]
    v = np.zeros(DIM)
    for w in words:
        if w:
            v += word_vector(w)
    n = np.linalg.norm(v)
    if n > 0:
        v = v / n
    v = v.astype(np.float32).astype(np.float64)
    return [float(x) for x in v]


class TinyEmbeddings(Embeddings):
    def embed_documents(self, texts):
        out = []
        for t in texts:
            v = tiny_embed(t)
            VECTORS[t] = v
            out.append(v)
        return out

    def embed_query(self, text):
        return self.embed_documents([text])[0]


EN = (
    "Volcanoes erupt lava and ash. Magma rises from the mantle below. Lava flows burn the forest. "
    "Ash clouds block the sun for days. Bread needs flour, water and yeast. Knead the dough until smooth! "
    "Let the dough rise for an hour. Bake the bread until golden. Is the crust crisp? "
    "The match ended in penalties. The striker scored twice. The goalkeeper saved a penalty. "
    "Fans sang in the stadium."
)
EN_LINES = EN.replace(". ", ".\n", 4).replace("! ", "!\n\n")
ZH = (
    "火山喷发时熔岩流下。火山灰遮住了太阳。岩浆来自地幔。"
    "面包需要面粉和酵母。面团要揉到光滑。烤到金黄就好了！"
    "足球比赛进入点球大战。前锋进了两个球。守门员扑出点球。"
)

CASES = [
    ("percentile_default", EN, {}),
    ("percentile_50", EN, {"breakpoint_threshold_amount": 50}),
    ("standard_deviation", EN, {"breakpoint_threshold_type": "standard_deviation", "breakpoint_threshold_amount": 0.5}),
    ("standard_deviation_default", EN, {"breakpoint_threshold_type": "standard_deviation"}),
    ("interquartile", EN, {"breakpoint_threshold_type": "interquartile", "breakpoint_threshold_amount": 0.3}),
    ("gradient", EN, {"breakpoint_threshold_type": "gradient", "breakpoint_threshold_amount": 70}),
    ("number_of_chunks_3", EN, {"number_of_chunks": 3}),
    ("number_of_chunks_6", EN, {"number_of_chunks": 6}),
    ("buffer_0", EN, {"buffer_size": 0, "breakpoint_threshold_amount": 75}),
    ("buffer_2", EN, {"buffer_size": 2, "breakpoint_threshold_amount": 60}),
    ("min_chunk_size", EN, {"breakpoint_threshold_amount": 40, "min_chunk_size": 80}),
    ("newlines_and_trailing_space", EN_LINES + "  ", {"breakpoint_threshold_amount": 60}),
    ("chinese_regex", ZH, {"sentence_split_regex": r"(?<=[。！？])", "breakpoint_threshold_amount": 70}),
    ("one_sentence", "Just one sentence here", {}),
    ("gradient_two_sentences", "First one. Second one.", {"breakpoint_threshold_type": "gradient"}),
]


def main():
    cases = []
    for name, text, opts in CASES:
        chunker = SemanticChunker(TinyEmbeddings(), **opts)
        chunks = chunker.split_text(text)
        cases.append({"name": name, "text": text, "options": opts, "chunks": chunks})
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = os.path.join(root, "tests", "fixtures", "semantic", "langchain_parity.json")
    import langchain_experimental

    doc = {
        "generated_by": "scripts/semantic_parity/generate.py",
        "langchain_experimental": getattr(langchain_experimental, "__version__", "unknown"),
        "numpy": np.__version__,
        "dim": DIM,
        "cases": cases,
        "vectors": VECTORS,
    }
    with open(out, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"wrote {out}: {len(cases)} cases, {len(VECTORS)} vectors", file=sys.stderr)


if __name__ == "__main__":
    main()
