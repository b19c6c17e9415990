"""Word files for tests/docx.rs, written with python-docx, and the paragraphs
python-docx reads back from any .docx.

    python make_docx.py make OUTDIR        # writes OUTDIR/standard.docx and OUTDIR/publisher.docx
    python make_docx.py paragraphs FILE    # prints FILE's body paragraphs' text as a JSON list

standard.docx: the built-in Heading 1/2/3 styles (after an opening paragraph), English and
Chinese paragraphs, a bullet list (List Bullet) and a table. publisher.docx:
a chapter in a publisher's own styles, ChapterNumber, ChapterTitle, HeadA,
HeadB (based on HeadA) and HeadC (based on Normal), with body text in a
custom Para style. The text is written here (no corpus text).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import docx
from docx.document import Document
from docx.enum.style import WD_STYLE_TYPE
from docx.shared import Pt
from docx.styles.style import ParagraphStyle

EN = [
    "Chunking cuts a document into pieces that an embedding model can read whole.",
    "A chunk that ends in the middle of a sentence loses the meaning of that sentence.",
    "Retrieval works best when each chunk answers one question on its own.",
    "Overlap repeats a little text between neighbours so that no idea is cut in half.",
]
ZH = [
    "分块把一篇文档切成嵌入模型能够完整读取的片段。",
    "在句子中间结束的分块会失去这句话的意思。",
    "每个分块能够独立回答一个问题时，检索的效果最好。",
]


def standard(path: Path) -> None:
    d: Document = docx.Document()
    d.add_paragraph(EN[0])
    d.add_heading("Getting started", level=1)
    d.add_paragraph(EN[1])
    d.add_heading("Installation", level=2)
    d.add_paragraph(EN[2])
    for item in ["Download the release for your platform.", "Unpack it.", "Put the binary on your PATH."]:
        d.add_paragraph(item, style="List Bullet")
    d.add_heading("On Linux", level=3)
    d.add_paragraph(EN[3] + " Linux users can also build from source.")
    d.add_heading("Settings", level=2)
    d.add_paragraph("The settings below control how documents are cut.")
    rows = [
        ("Setting", "Default", "Meaning"),
        ("size", "512", "The largest chunk, in tokens."),
        ("overlap", "64", "Tokens repeated between neighbours."),
        ("strategy", "recursive", "How chunks are cut."),
    ]
    table = d.add_table(rows=len(rows), cols=3)
    table.style = "Table Grid"
    for r, cells in enumerate(rows):
        for c, value in enumerate(cells):
            table.cell(r, c).text = value
    d.add_paragraph("After the table, the settings are saved in a file.")
    d.add_heading("入门指南", level=1)
    d.add_paragraph(ZH[0])
    d.add_heading("安装", level=2)
    d.add_paragraph(ZH[1] + ZH[2])
    d.save(str(path))


def paragraph_style(d: Document, name: str, base: str, size: int, bold: bool) -> ParagraphStyle:
    style = d.styles.add_style(name, WD_STYLE_TYPE.PARAGRAPH)
    assert isinstance(style, ParagraphStyle)
    style.base_style = d.styles[base]
    style.font.size = Pt(size)
    style.font.bold = bold
    return style


def publisher(path: Path) -> None:
    d: Document = docx.Document()
    paragraph_style(d, "ChapterNumber", "Normal", 14, False)
    paragraph_style(d, "ChapterTitle", "Normal", 24, True)
    paragraph_style(d, "HeadA", "Normal", 18, True)
    paragraph_style(d, "HeadB", "HeadA", 14, True)
    paragraph_style(d, "HeadC", "Normal", 12, True)
    paragraph_style(d, "Para", "Normal", 11, False)
    d.add_paragraph("Chapter 7", style="ChapterNumber")
    d.add_paragraph("Ownership", style="ChapterTitle")
    sections = [
        ("HeadA", "What ownership means"),
        ("HeadB", "Moving values"),
        ("HeadB", "Borrowing"),
        ("HeadC", "Mutable borrows"),
        ("HeadA", "Lifetimes"),
        ("HeadB", "Elision rules"),
    ]
    for n, (style, title) in enumerate(sections):
        d.add_paragraph(title, style=style)
        for k in range(3):
            text = f"{title}, paragraph {k + 1}: {EN[(n + k) % len(EN)]} {ZH[(n + k) % len(ZH)]}"
            d.add_paragraph(text, style="Para")
    d.save(str(path))


def paragraphs(path: Path) -> list[str]:
    """Body paragraphs' text, in order, as python-docx reads it."""
    return [p.text for p in docx.Document(str(path)).paragraphs]


def main(argv: list[str]) -> int:
    if len(argv) == 3 and argv[1] == "make":
        out = Path(argv[2])
        out.mkdir(parents=True, exist_ok=True)
        standard(out / "standard.docx")
        publisher(out / "publisher.docx")
        return 0
    if len(argv) == 3 and argv[1] == "paragraphs":
        json.dump(paragraphs(Path(argv[2])), sys.stdout, ensure_ascii=False)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
