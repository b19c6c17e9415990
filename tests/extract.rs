//! HTML and PDF input: what extraction keeps and drops, that chunk offsets
//! point into the text `chunktui chunk --extracted` prints, the element
//! paths and page numbers chunks carry, the `html` strategy on a real page,
//! and one clear line (exit 2) for PDFs that cannot be read.

mod common;

use chunktui::config::{ChunkConfig, StrategyKind, Unit};
use chunktui::extract::BlockKind;
use chunktui::{Chunker, Document};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("samples").join(name)
}

fn chunktui(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_chunktui")).args(args).output().expect("run chunktui")
}

fn cfg(kind: StrategyKind, size: usize, overlap: usize) -> ChunkConfig {
    ChunkConfig { strategy: kind, unit: Unit::Chars, size, overlap, ..ChunkConfig::default() }
}

#[test]
fn html_sample_keeps_structure_and_drops_what_is_not_text() {
    let doc = Document::load(&sample("handbook.html"), false).unwrap();
    let text = &doc.text;
    for gone in ["SCRIPT-SHOULD-BE-DROPPED", "NOSCRIPT-SHOULD-BE-DROPPED", "font-family", "Member Handbook</"] {
        assert!(!text.contains(gone), "{gone:?} reached the text");
    }
    assert!(!text.contains("River Valley Cooperative – Member Handbook"), "the <title> is head matter");
    // Entities decoded (a no-break space stays one).
    for kept in ["tools & water", "rules <and> that", "150\u{a0}€", "Mon–Fri", "© River Valley"] {
        assert!(text.contains(kept), "{kept:?} missing");
    }
    // Headings on their own, blocks a blank line apart.
    assert!(text.contains("\n\nJoining the cooperative\n\nAnyone who farms"), "{text}");
    // Lists: one line per item, nested ones indented; tables: a row a line.
    assert!(
        text.contains("3. Pay the joining share of 150\u{a0}€, refunded when you leave.\n  - Shares may be"),
        "{text}"
    );
    assert!(text.contains("Assignments for the coming season\nField | Crop | Area (ha) | Steward\nNorth Meadow |"));
    assert!(text.contains("Turn\n  The hours a field may draw water."), "{text}");
    // <pre> keeps its spaces; <br> is a line break.
    assert!(text.contains("  booking rule:  one machine,\n                 at most two days,"), "{text}");
    assert!(text.contains("needs a licence.\nAsk the office"), "{text}");
    // A source line break between two Chinese characters is no space.
    assert!(text.contains("共同创办。社员共享田地"), "{text}");

    let s = doc.structure.as_deref().expect("HTML has a structure");
    let block = |needle: &str| {
        let at = text.find(needle).unwrap_or_else(|| panic!("{needle:?} not in the text"));
        s.block_at(at).unwrap_or_else(|| panic!("no block at {needle:?}"))
    };
    let p = block("Anyone who farms");
    assert_eq!(p.kind, BlockKind::Paragraph);
    assert_eq!(p.element.as_deref(), Some("html > body > article > section:nth-of-type(1) > p:nth-of-type(1)"));
    assert_eq!(block("North Meadow").kind, BlockKind::Table);
    assert_eq!(
        block("North Meadow").element.as_deref(),
        Some("html > body > article > section:nth-of-type(2) > table")
    );
    assert_eq!(block("Field assignments").kind, BlockKind::Heading(3));
    assert_eq!(block("合作社简介").kind, BlockKind::Heading(2));
    assert_eq!(block("Members under 25").kind, BlockKind::List);
    assert_eq!(block("booking rule").kind, BlockKind::Preformatted);
    // Every block is a non-empty slice of the text, in order.
    for w in s.blocks.windows(2) {
        assert!(w[0].range.end < w[1].range.start, "{:?} then {:?}", w[0], w[1]);
    }
}

#[test]
fn html_strategy_cuts_at_headings_and_keeps_the_table_whole() {
    let doc = Document::load(&sample("handbook.html"), false).unwrap();
    let chunks = Chunker::new(&cfg(StrategyKind::Html, 400, 0)).unwrap().chunk_document(&doc).unwrap();
    let table_start = doc.text.find("Assignments for the coming season").unwrap();
    let table_end = doc.text.find("9.8 | 李明").unwrap() + "9.8 | 李明".len();
    let holding = chunks.iter().find(|c| c.range.start <= table_start && c.range.end >= table_start).unwrap();
    assert!(holding.range.end >= table_end, "the table was cut: {:?}", &doc.text[holding.range.clone()]);
    assert_eq!(holding.meta.headings, ["Member Handbook", "Fields and rotation", "Field assignments"]);
    let zh = chunks.iter().find(|c| doc.text[c.range.clone()].contains("办公室公布")).unwrap();
    assert_eq!(zh.meta.headings, ["Member Handbook", "合作社简介"]);
    assert!(zh.meta.element.as_deref().unwrap().starts_with("html > body > article > section:nth-of-type(4)"));
    // A section starts a chunk: no chunk holds two h2 sections.
    for c in &chunks {
        let t = &doc.text[c.range.clone()];
        assert!(!(t.contains("Joining the cooperative") && t.contains("Fields and rotation")), "{t}");
    }
}

/// The JSONL records of `chunktui chunk ARGS`.
fn records(args: &[&str]) -> Vec<serde_json::Value> {
    let out = chunktui(&[&["chunk"], args].concat());
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn offsets_point_into_the_extracted_text() {
    let mut files = vec![sample("handbook.html"), sample("guide.md")];
    if cfg!(feature = "pdf") {
        files.push(sample("report.pdf"));
    }
    for file in &files {
        let f = file.to_str().unwrap();
        let out = chunktui(&["chunk", f, "--extracted"]);
        assert!(out.status.success(), "{f}: {}", String::from_utf8_lossy(&out.stderr));
        let extracted = String::from_utf8(out.stdout).unwrap();
        if f.ends_with(".md") {
            assert_eq!(extracted, std::fs::read_to_string(file).unwrap(), "--extracted of Markdown is the file");
        }
        for strategy in ["recursive", "sentence", "fixed", "html", "markdown"] {
            let recs = records(&[f, "--strategy", strategy, "--size", "200", "--overlap", "20"]);
            assert!(recs.len() > 2, "{f} {strategy}: {} chunks", recs.len());
            for r in recs {
                let (start, end) = (r["start"].as_u64().unwrap() as usize, r["end"].as_u64().unwrap() as usize);
                assert_eq!(&extracted[start..end], r["text"].as_str().unwrap(), "{f} {strategy}: {r}");
                let chars = extracted[..start].chars().count() as u64;
                assert_eq!(r["char_start"].as_u64(), Some(chars), "{f} {strategy}");
            }
        }
    }
}

#[test]
fn html_from_standard_input_is_sniffed_and_extracted() {
    let html = std::fs::read(sample("handbook.html")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_chunktui"))
        .args(["chunk", "-", "--extracted"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(&html).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let from_file = Document::load(&sample("handbook.html"), false).unwrap().text;
    assert_eq!(String::from_utf8(out.stdout).unwrap(), from_file);
}

#[test]
fn cjk_html_chunks_in_characters_with_chinese_headings() {
    let dir = common::Dir::new();
    let path = dir.path("zh.html");
    let para = "分块是检索增强生成的第一步。每个块都有大小限制，好的分块让检索更准确。";
    let html = format!(
        "<html><body><h1>分块指南</h1><p>{para}</p><h2>重叠</h2><p>{para}{para}</p>\
         <ul><li>第一项</li><li>第二项</li></ul></body></html>"
    );
    std::fs::write(&path, html).unwrap();
    let doc = Document::load(&path, false).unwrap();
    let chunks = Chunker::new(&cfg(StrategyKind::Html, 40, 0)).unwrap().chunk_document(&doc).unwrap();
    for c in &chunks {
        let t = &doc.text[c.range.clone()];
        assert!(t.chars().count() <= 40, "{t}");
        assert!(c.meta.element.is_some(), "{t}");
    }
    assert!(chunks.iter().any(|c| c.meta.headings == ["分块指南", "重叠"]), "{chunks:?}");
    assert!(chunks.iter().any(|c| &doc.text[c.range.clone()] == "- 第一项\n- 第二项"), "the list fits: kept whole");
}

// The generator the sample comes from (its `main` is not used here).
#[cfg(feature = "pdf")]
#[allow(dead_code)]
#[path = "../examples/make_sample_pdf.rs"]
mod make;

#[cfg(feature = "pdf")]
mod pdf {
    use super::*;

    #[test]
    fn the_committed_sample_is_what_the_script_writes() {
        let committed = std::fs::read(sample("report.pdf")).unwrap();
        assert!(committed.len() < 50_000);
        assert!(
            committed == make::build(),
            "samples/report.pdf is not what examples/make_sample_pdf.rs writes: run \
             `cargo run --example make_sample_pdf` and commit the result"
        );
    }

    /// Pages of a byte, counted independently of the structure: form feeds before it.
    fn page_of(text: &str, at: usize) -> u32 {
        1 + text[..at].matches('\x0c').count() as u32
    }

    #[test]
    fn chunks_carry_the_pages_they_come_from() {
        let doc = Document::load(&sample("report.pdf"), false).unwrap();
        let text = &doc.text;
        assert_eq!(text.matches('\x0c').count(), 3, "four pages, three breaks");
        assert!(text.contains("North Meadow Winter wheat 61.2 A. Okafor"), "{text}");
        let mut seen_one_page = false;
        let mut seen_across = false;
        for kind in [StrategyKind::Recursive, StrategyKind::Sentence, StrategyKind::Fixed, StrategyKind::Html] {
            for (size, overlap) in [(120, 0), (300, 40), (1000, 200)] {
                let chunks = Chunker::new(&cfg(kind, size, overlap)).unwrap().chunk_document(&doc).unwrap();
                for c in &chunks {
                    let t = &text[c.range.clone()];
                    let first = c.range.start + (t.len() - t.trim_start().len());
                    let last = c.range.start + t.trim_end().len() - 1;
                    let expected = [page_of(text, first), page_of(text, last)];
                    assert_eq!(c.meta.pages, Some(expected), "{kind} {size}: {t:?}");
                    seen_one_page |= expected == [2, 2] && t.contains("Harvest by field");
                    seen_across |= expected == [2, 3] && t.contains("after a long meeting the");
                }
            }
        }
        assert!(seen_one_page, "no chunk of page 2 alone said [2, 2]");
        assert!(seen_across, "no chunk across pages 2 and 3 said [2, 3]");
        // The sentence that runs across the page break is one sentence.
        let chunks = Chunker::new(&cfg(StrategyKind::Sentence, 200, 0)).unwrap().chunk_document(&doc).unwrap();
        let across = chunks.iter().find(|c| text[c.range.clone()].contains("after a long meeting the")).unwrap();
        assert!(text[across.range.clone()].contains("stewards agreed"), "split at the page break");
        assert_eq!(across.meta.pages, Some([2, 3]));
    }

    /// `chunktui chunk FILE` on a bad PDF: exit 2, one line on stderr.
    fn refused(bytes: &[u8]) -> String {
        let dir = common::Dir::new();
        let out = chunktui(&["chunk", &dir.write("bad.pdf", bytes)]);
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(out.stdout.is_empty());
        assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
        assert!(!err.contains("panicked"), "{err}");
        err
    }

    #[test]
    fn unreadable_pdfs_get_one_clear_line_and_exit_2() {
        let good = make::build();
        let err = refused(&good[..good.len() / 3]);
        assert!(err.contains("cannot be read as a PDF") && err.contains("damaged"), "{err}");
        let err = refused(b"%PDF-1.7\nnot really a pdf at all\n%%EOF\n");
        assert!(err.contains("cannot be read as a PDF"), "{err}");
        // Well-formed for lopdf, but a page without a media box makes the text
        // extractor give up (it panics inside): still one line, no panic shown.
        let mut no_media_box = good.clone();
        let at = no_media_box.windows(9).position(|w| w == b"/MediaBox").expect("the sample has a media box");
        no_media_box[at + 6..at + 9].copy_from_slice(b"Bxx");
        assert_eq!(no_media_box.len(), good.len(), "same length: the cross-reference offsets still hold");
        let err = refused(&no_media_box);
        assert!(err.contains("cannot be read as a PDF") && err.contains("page 1"), "{err}");
        let err = refused(&make::image_only());
        assert!(err.contains("no text layer") && err.contains("OCR"), "{err}");
        let err = refused(&encrypted(&good));
        assert!(err.contains("encrypted") && err.contains("decrypt"), "{err}");
        // Named .pdf but not one.
        let err = refused(b"just some text\n");
        assert!(err.contains("not a PDF"), "{err}");
    }

    /// The sample, encrypted with a user password (RC4, 128-bit).
    fn encrypted(pdf: &[u8]) -> Vec<u8> {
        use pdf_extract::{EncryptionState, EncryptionVersion, Permissions};
        let mut doc = pdf_extract::Document::load_mem(pdf).unwrap();
        doc.trailer.set("ID", vec![pdf_extract::Object::string_literal("0123456789abcdef"); 2]);
        let version = EncryptionVersion::V2 {
            document: &doc,
            owner_password: "owner",
            user_password: "secret",
            key_length: 128,
            permissions: Permissions::all(),
        };
        let state = EncryptionState::try_from(version).unwrap();
        doc.encrypt(&state).unwrap();
        let mut out = Vec::new();
        doc.save_to(&mut out).unwrap();
        out
    }

    #[test]
    fn any_strategy_and_stats_work_on_a_pdf() {
        let f = sample("report.pdf");
        let out = chunktui(&["stats", f.to_str().unwrap(), "--size", "300", "--overlap", "0"]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let out = chunktui(&["chunk", f.to_str().unwrap(), "--size", "300", "--overlap", "0", "--format", "text"]);
        let shown = String::from_utf8(out.stdout).unwrap();
        assert!(shown.contains("pp. 2-3") && shown.contains("p. 1"), "{shown}");
    }
}

/// The workbench shows and chunks the extracted text, hands the html
/// strategy its structure, and a reload of the edited HTML file swaps text
/// and structure together.
#[cfg(feature = "tui")]
#[test]
fn workbench_chunks_html_and_reloads_it() {
    use chunktui::tui::model::Model;
    use chunktui::tui::msg::{Cmd, Msg};
    use chunktui::tui::update::{start, update};
    use chunktui::tui::worker::chunk_structured_now;
    use std::sync::Arc;

    fn run(m: &mut Model, cmds: Vec<Cmd>) {
        let mut queue = cmds;
        while let Some(cmd) = queue.pop() {
            if let Cmd::Rechunk { pane, rev, config, text, structure, .. } = cmd {
                let result = chunk_structured_now(&config, &text, structure.as_deref()).map(|(c, s)| (Arc::new(c), s));
                queue.extend(update(m, Msg::Chunked { pane, rev, result }));
            }
        }
    }

    let dir = common::Dir::new();
    let path = dir.path("page.html");
    std::fs::write(&path, "<h1>One</h1><p>First words.</p><h2>Two</h2><p>Second words.</p>").unwrap();
    let doc = Document::load(&path, false).unwrap();
    let c = cfg(StrategyKind::Html, 200, 0);
    let mut m = Model::new(doc, c.clone(), c, ratatui::layout::Rect::new(0, 0, 100, 30));
    let cmds = start(&mut m);
    run(&mut m, cmds);
    assert_eq!(&*m.text, "One\n\nFirst words.\n\nTwo\n\nSecond words.");
    let chunks = &m.panes[0].chunks;
    assert_eq!(chunks.len(), 2, "{chunks:?}");
    assert_eq!(chunks[1].meta.headings, ["One", "Two"]);
    assert_eq!(chunks[1].meta.element.as_deref(), Some("html > body > h2"));

    std::fs::write(&path, "<h1>One</h1><p>First words.</p><h2>Two</h2><p>Second.</p><h2>Three</h2><p>Third.</p>")
        .unwrap();
    let reloaded = Document::load(&path, false).unwrap();
    let cmds = update(&mut m, Msg::FileReloaded(Ok(reloaded)));
    run(&mut m, cmds);
    assert!(m.text.ends_with("Three\n\nThird."), "{}", m.text);
    let chunks = &m.panes[0].chunks;
    assert_eq!(chunks.len(), 3, "{chunks:?}");
    assert_eq!(chunks[2].meta.headings, ["One", "Three"]);
    assert_eq!(chunks[2].meta.element.as_deref(), Some("html > body > h2:nth-of-type(2)"));
}

/// `chunktui eval` scores questions against the extracted text: reference
/// offsets count code points into what `--extracted` prints.
#[test]
fn eval_reads_html_through_extraction() {
    let text = Document::load(&sample("handbook.html"), false).unwrap().text;
    let answer = "Vegetables keep their turns first; cereals wait.";
    let start = text[..text.find(answer).unwrap()].chars().count();
    let end = start + answer.chars().count();
    let q = serde_json::json!({
        "question": "Which crops keep their water turns first in dry years?",
        "references": [{"start_index": start, "end_index": end, "content": answer}],
    });
    let dir = common::Dir::new();
    let queries = dir.write("q.jsonl", format!("{q}\n").as_bytes());
    let f = sample("handbook.html");
    let args = ["eval", f.to_str().unwrap(), "--queries", &queries, "--retriever", "bm25", "--strategy", "html"];
    let out = chunktui(&[&args[..], &["--size", "300", "--overlap", "0", "--k", "1", "--json"]].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["recall"]["mean"].as_f64(), Some(1.0), "{v}");
}
