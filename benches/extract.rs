//! `.docx` extraction speed: MB/s of .docx bytes and of extracted text.
//!
//!     cargo bench --bench extract
//!
//! The .docx is built here, in memory, from the shared corpus (never copied
//! into the repo: `CHUNKTUI_CORPUS`, default ../shared/corpus):
//! en_rust_book.md and zh_rust_book.md, their headings as Heading 1-3
//! paragraphs, list lines as list paragraphs, Markdown table rows as Word
//! tables and every other block as a paragraph, each paragraph split into
//! runs of a few words with run properties, as Word writes them. The corpus
//! is laid in three times so the file is several MB.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::fmt::Write as _;
use std::io::Write as _;
use std::time::Duration;

#[path = "../tests/common/data.rs"]
mod data;

fn corpus(name: &str) -> String {
    let path = data::corpus_file(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read benchmark input {}: {e}", path.display()))
}

const W: &str = r#"xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main""#;

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// A paragraph of `text` in runs of eight words, with `ppr` inside its `w:pPr`.
fn paragraph(out: &mut String, ppr: &str, text: &str) {
    let _ = write!(out, r#"<w:p w:rsidR="00A1B2C3" w:rsidRDefault="00A1B2C3"><w:pPr>{ppr}</w:pPr>"#);
    let words: Vec<&str> = text.split(' ').collect();
    for (i, run) in words.chunks(8).enumerate() {
        let mut t = run.join(" ");
        if i > 0 {
            t.insert(0, ' ');
        }
        let _ = write!(
            out,
            r#"<w:r w:rsidRPr="00D4E5F6"><w:rPr><w:rFonts w:ascii="Calibri" w:hAnsi="Calibri"/><w:sz w:val="22"/></w:rPr><w:t xml:space="preserve">{}</w:t></w:r>"#,
            escape(&t)
        );
    }
    out.push_str("</w:p>");
}

fn table(out: &mut String, rows: &[&str]) {
    out.push_str(r#"<w:tbl><w:tblPr><w:tblStyle w:val="TableGrid"/><w:tblW w:w="0" w:type="auto"/></w:tblPr>"#);
    for row in rows {
        let cells: Vec<&str> = row.trim().trim_matches('|').split('|').collect();
        if cells.iter().all(|c| c.trim().chars().all(|ch| matches!(ch, '-' | ':' | ' '))) {
            continue;
        }
        out.push_str("<w:tr>");
        for cell in cells {
            out.push_str(r#"<w:tc><w:tcPr><w:tcW w:w="2000" w:type="dxa"/></w:tcPr>"#);
            paragraph(out, "", cell.trim());
            out.push_str("</w:tc>");
        }
        out.push_str("</w:tr>");
    }
    out.push_str("</w:tbl>");
}

/// Markdown blocks as WordprocessingML body content.
fn body(markdown: &str, out: &mut String) {
    for block in markdown.split("\n\n") {
        let lines: Vec<&str> = block.lines().filter(|l| !l.trim().is_empty()).collect();
        let Some(first) = lines.first() else { continue };
        if let Some(rest) = first.strip_prefix('#') {
            let level = 1 + rest.chars().take_while(|&c| c == '#').count().min(2);
            let title = first.trim_start_matches('#').trim();
            paragraph(out, &format!(r#"<w:pStyle w:val="Heading{level}"/>"#), title);
        } else if lines.len() > 1 && lines.iter().all(|l| l.trim_start().starts_with('|')) {
            table(out, &lines);
        } else if lines.iter().all(|l| l.starts_with("- ") || l.starts_with("* ")) {
            for l in lines {
                paragraph(out, r#"<w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr>"#, &l[2..]);
            }
        } else {
            paragraph(out, "", &lines.join(" "));
        }
    }
}

fn docx() -> Vec<u8> {
    let (en, zh) = (corpus("en_rust_book.md"), corpus("zh_rust_book.md"));
    let mut doc = format!(r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document {W}><w:body>"#);
    for _ in 0..3 {
        body(&en, &mut doc);
        body(&zh, &mut doc);
    }
    doc.push_str("<w:sectPr/></w:body></w:document>");
    let mut styles = format!(
        r#"<w:styles {W}><w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style>"#
    );
    for n in 1..=3 {
        let _ = write!(
            styles,
            r#"<w:style w:type="paragraph" w:styleId="Heading{n}"><w:name w:val="heading {n}"/><w:basedOn w:val="Normal"/><w:pPr><w:outlineLvl w:val="{}"/></w:pPr></w:style>"#,
            n - 1
        );
    }
    styles.push_str("</w:styles>");
    let numbering = format!(
        r#"<w:numbering {W}><w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:numFmt w:val="bullet"/></w:lvl></w:abstractNum><w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num></w:numbering>"#
    );
    let mut z = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (path, text) in [("word/document.xml", &doc), ("word/styles.xml", &styles), ("word/numbering.xml", &numbering)]
    {
        z.start_file(path, opts).expect("zip entry");
        z.write_all(text.as_bytes()).expect("zip write");
    }
    z.finish().expect("zip").into_inner()
}

fn bench_docx(c: &mut Criterion) {
    let bytes = docx();
    let text_len = chunktui::extract::docx::extract(&bytes, "bench.docx").expect("extracts").text.len();
    eprintln!(
        "bench.docx: {:.2} MB of .docx, {:.2} MB of extracted text",
        bytes.len() as f64 / 1e6,
        text_len as f64 / 1e6
    );
    let mut group = c.benchmark_group("docx_extract");
    group.sample_size(10).measurement_time(Duration::from_secs(5)).warm_up_time(Duration::from_millis(500));
    for (what, n) in [("docx_bytes", bytes.len()), ("text_bytes", text_len)] {
        group.throughput(Throughput::Bytes(n as u64));
        group.bench_with_input(BenchmarkId::new("rust_book_en_zh_x3", what), &bytes, |b, bytes| {
            b.iter(|| chunktui::extract::docx::extract(bytes, "bench.docx").expect("extracts"))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_docx);
criterion_main!(benches);
