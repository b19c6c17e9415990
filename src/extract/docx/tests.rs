//! Small `.docx` files built here with the zip crate's writer.

use super::*;
use crate::extract::{Block, BlockKind};
use std::io::Write;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipWriter};

const W: &str = r#"xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" xmlns:m="http://schemas.openxmlformats.org/officeDocument/2006/math""#;

/// A zip of `(path, bytes)` entries, deflated.
fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut z = ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = SimpleFileOptions::default().compression_method(CompressionMethod::Deflated);
    for (path, bytes) in entries {
        z.start_file(*path, opts).unwrap();
        z.write_all(bytes).unwrap();
    }
    z.finish().unwrap().into_inner()
}

/// A .docx whose body is `body`, with optional styles and numbering parts.
fn docx(body: &str, styles: Option<&str>, numbering: Option<&str>) -> Vec<u8> {
    let document = format!(
        r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document {W}><w:body>{body}<w:sectPr/></w:body></w:document>"#
    );
    let styles = styles.map(|s| format!(r#"<?xml version="1.0"?><w:styles {W}>{s}</w:styles>"#));
    let numbering = numbering.map(|s| format!(r#"<w:numbering {W}>{s}</w:numbering>"#));
    let mut entries: Vec<(&str, &[u8])> = vec![("word/document.xml", document.as_bytes())];
    if let Some(s) = &styles {
        entries.push(("word/styles.xml", s.as_bytes()));
    }
    if let Some(n) = &numbering {
        entries.push(("word/numbering.xml", n.as_bytes()));
    }
    zip_of(&entries)
}

fn p(text: &str) -> String {
    format!("<w:p><w:r><w:t xml:space=\"preserve\">{text}</w:t></w:r></w:p>")
}

fn styled(style: &str, text: &str) -> String {
    format!("<w:p><w:pPr><w:pStyle w:val=\"{style}\"/></w:pPr><w:r><w:t>{text}</w:t></w:r></w:p>")
}

fn style(id: &str, name: &str, inner: &str) -> String {
    format!("<w:style w:type=\"paragraph\" w:styleId=\"{id}\"><w:name w:val=\"{name}\"/>{inner}</w:style>")
}

fn based(on: &str) -> String {
    format!("<w:basedOn w:val=\"{on}\"/>")
}

const NORMAL: &str =
    r#"<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style>"#;

fn run(bytes: &[u8]) -> Extracted {
    let out = extract_limited(bytes, "t.docx", 64 << 20).unwrap();
    check_ranges(&out);
    out
}

fn err(bytes: &[u8]) -> String {
    extract_limited(bytes, "t.docx", 64 << 20).unwrap_err().to_string()
}

/// Blocks are non-empty, in order, apart, and their text has no blank line.
fn check_ranges(out: &Extracted) {
    let blocks = &out.structure.blocks;
    for b in blocks {
        let text = &out.text[b.range.clone()];
        assert!(!text.trim().is_empty() && !text.contains("\n\n"), "{b:?}: {text:?}");
        assert_eq!(text.trim(), text, "{b:?}");
    }
    for w in blocks.windows(2) {
        assert_eq!(&out.text[w[0].range.end..w[1].range.start], "\n\n");
    }
}

/// (kind, text) of every block.
fn blocks(out: &Extracted) -> Vec<(BlockKind, &str)> {
    out.structure.blocks.iter().map(|b: &Block| (b.kind, &out.text[b.range.clone()])).collect()
}

#[test]
fn built_in_headings_by_style_name_whatever_the_id() {
    // A German document: ids "berschrift1", "Titel"; names stay "heading 1", "Title".
    let styles = [
        NORMAL.to_string(),
        style("Titel", "Title", &based("Normal")),
        style("berschrift1", "heading 1", &based("Normal")),
        style("berschrift2", "heading 2", &based("Normal")),
        style("Untertitel", "Subtitle", &based("Normal")),
        // Word's TOC Heading is based on heading 1 but at outline level 9: body text.
        style(
            "Inhaltsverzeichnisberschrift",
            "TOC Heading",
            &format!("{}<w:pPr><w:outlineLvl w:val=\"9\"/></w:pPr>", based("berschrift1")),
        ),
    ]
    .concat();
    let body = [
        styled("Titel", "Das Buch"),
        styled("Untertitel", "Ein Untertitel"),
        styled("Inhaltsverzeichnisberschrift", "Inhalt"),
        styled("berschrift1", "Erstes Kapitel"),
        p("Text eins."),
        styled("berschrift2", "Ein Abschnitt"),
        p("Text zwei."),
    ]
    .concat();
    let out = run(&docx(&body, Some(&styles), None));
    assert_eq!(
        blocks(&out),
        vec![
            (BlockKind::Heading(1), "Das Buch"),
            (BlockKind::Paragraph, "Ein Untertitel"),
            (BlockKind::Paragraph, "Inhalt"),
            (BlockKind::Heading(2), "Erstes Kapitel"),
            (BlockKind::Paragraph, "Text eins."),
            (BlockKind::Heading(3), "Ein Abschnitt"),
            (BlockKind::Paragraph, "Text zwei."),
        ]
    );
}

#[test]
fn headings_by_outline_level_direct_or_inherited() {
    let styles = [
        NORMAL.to_string(),
        style("Big", "Big", "<w:pPr><w:outlineLvl w:val=\"0\"/></w:pPr>"),
        style("Bigger", "Bigger", &based("Big")),
        style("Small", "Small", &format!("{}<w:pPr><w:outlineLvl w:val=\"1\"/></w:pPr>", based("Big"))),
    ]
    .concat();
    let body = [
        styled("Bigger", "Part one"),
        "<w:p><w:pPr><w:outlineLvl w:val=\"1\"/></w:pPr><w:r><w:t>Direct level 2</w:t></w:r></w:p>".into(),
        styled("Small", "Styled level 2"),
        // A direct level 9 makes a heading style's paragraph body text.
        "<w:p><w:pPr><w:pStyle w:val=\"Big\"/><w:outlineLvl w:val=\"9\"/></w:pPr><w:r><w:t>Not a heading</w:t></w:r></w:p>".into(),
        p("Body."),
    ]
    .concat();
    let out = run(&docx(&body, Some(&styles), None));
    assert_eq!(
        blocks(&out),
        vec![
            (BlockKind::Heading(1), "Part one"),
            (BlockKind::Heading(2), "Direct level 2"),
            (BlockKind::Heading(2), "Styled level 2"),
            (BlockKind::Paragraph, "Not a heading"),
            (BlockKind::Paragraph, "Body."),
        ]
    );
}

#[test]
fn publisher_styles_by_name_and_hierarchy() {
    let styles = [
        NORMAL.to_string(),
        style("heading1", "heading 1", ""),
        style("CN", "Chapter Number", &based("Normal")),
        style("ChapterTitle", "ChapterTitle", &based("Normal")),
        style("HeadA", "HeadA", &based("Normal")),
        style("HeadB", "HeadB", &based("HeadA")),
        style("HeadC", "Head C", &based("Normal")),
        // No heading name: its level comes from what it is based on.
        style("HeadBNoSpace", "HeadB after HeadA", &based("HeadB")),
        style("Sidebar", "Sidebar Title", &based("Normal")),
    ]
    .concat();
    let body = [
        styled("CN", "Chapter 3"),
        styled("ChapterTitle", "Ownership"),
        p("Intro."),
        styled("HeadA", "What it is"),
        p("Text."),
        styled("HeadB", "Rules"),
        styled("HeadBNoSpace", "More rules"),
        styled("HeadC", "Detail"),
        styled("Sidebar", "Aside"),
    ]
    .concat();
    let out = run(&docx(&body, Some(&styles), None));
    // The chapter number and the title after it are one heading.
    assert_eq!(
        blocks(&out),
        vec![
            (BlockKind::Heading(1), "Chapter 3\nOwnership"),
            (BlockKind::Paragraph, "Intro."),
            (BlockKind::Heading(2), "What it is"),
            (BlockKind::Paragraph, "Text."),
            (BlockKind::Heading(3), "Rules"),
            (BlockKind::Heading(3), "More rules"),
            (BlockKind::Heading(4), "Detail"),
            (BlockKind::Paragraph, "Aside"),
        ]
    );
    assert_eq!(out.structure.blocks[0].element.as_deref(), Some("body/p[1]"));
    // A chapter number alone is a heading above the title.
    let body =
        [styled("CN", "Chapter 3"), p("Epigraph."), styled("ChapterTitle", "Ownership"), styled("HeadA", "A")].concat();
    let out = run(&docx(&body, Some(&styles), None));
    let kinds: Vec<BlockKind> = out.structure.blocks.iter().map(|b| b.kind).collect();
    assert_eq!(kinds, [BlockKind::Heading(1), BlockKind::Paragraph, BlockKind::Heading(2), BlockKind::Heading(3)]);
}

#[test]
fn style_names_rank_as_documented() {
    use styles::{name_rank, rank_numbered, RANK_CHAPTER_NUMBER, RANK_CHAPTER_TITLE, RANK_TITLE};
    for (name, rank) in [
        ("Title", Some(RANK_TITLE)),
        ("Part Title", Some(RANK_TITLE)),
        ("Chapter Number", Some(RANK_CHAPTER_NUMBER)),
        ("chapter_label", Some(RANK_CHAPTER_NUMBER)),
        ("ChapterTitle", Some(RANK_CHAPTER_TITLE)),
        ("Chapter", Some(RANK_CHAPTER_TITLE)),
        ("heading 1", Some(rank_numbered(1))),
        ("H1", Some(rank_numbered(1))),
        ("Head 2", Some(rank_numbered(2))),
        ("HeadA", Some(rank_numbered(1))),
        ("Head-B", Some(rank_numbered(2))),
        ("A-Head", Some(rank_numbered(1))),
        ("C Heading", Some(rank_numbered(3))),
        ("HeadZ", Some(rank_numbered(9))),
        ("Normal", None),
        ("Heading 1 Char", None),
        ("Header", None),
        ("Headline", None),
        ("HA", None),
        ("Chapter Epigraph", None),
        ("Subtitle", None),
    ] {
        assert_eq!(name_rank(name), rank, "{name}");
    }
}

#[test]
fn heading_levels_clamp_at_six() {
    let styles: String =
        (1..=9).map(|n| style(&format!("h{n}"), &format!("heading {n}"), "")).collect::<String>() + NORMAL;
    let body: String = (1..=9).map(|n| styled(&format!("h{n}"), &format!("H{n}"))).collect();
    let out = run(&docx(&body, Some(&styles), None));
    let levels: Vec<BlockKind> = out.structure.blocks.iter().map(|b| b.kind).collect();
    let want: Vec<BlockKind> = [1, 2, 3, 4, 5, 6, 6, 6, 6].into_iter().map(BlockKind::Heading).collect();
    assert_eq!(levels, want);
}

const NUMBERING: &str = r#"
<w:abstractNum w:abstractNumId="0"><w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="bullet"/></w:lvl><w:lvl w:ilvl="1"><w:numFmt w:val="bullet"/></w:lvl></w:abstractNum>
<w:abstractNum w:abstractNumId="1"><w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/></w:lvl><w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="lowerLetter"/></w:lvl></w:abstractNum>
<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>
<w:num w:numId="2"><w:abstractNumId w:val="1"/></w:num>"#;

fn item(num: u32, ilvl: u8, text: &str) -> String {
    format!(
        "<w:p><w:pPr><w:numPr><w:ilvl w:val=\"{ilvl}\"/><w:numId w:val=\"{num}\"/></w:numPr></w:pPr><w:r><w:t>{text}</w:t></w:r></w:p>"
    )
}

#[test]
fn consecutive_list_paragraphs_are_one_list_block() {
    let styles = [
        NORMAL.to_string(),
        style("ListBullet", "List Bullet", "<w:pPr><w:numPr><w:numId w:val=\"1\"/></w:numPr></w:pPr>"),
    ]
    .concat();
    let body = [
        p("Before."),
        item(1, 0, "apples"),
        item(1, 1, "green"),
        styled("ListBullet", "pears"),
        p("Between."),
        item(2, 0, "first"),
        item(2, 1, "sub a"),
        item(2, 1, "sub b"),
        item(2, 0, "second"),
        item(0, 0, "numId 0 is no list"),
    ]
    .concat();
    let out = run(&docx(&body, Some(&styles), Some(NUMBERING)));
    assert_eq!(
        blocks(&out),
        vec![
            (BlockKind::Paragraph, "Before."),
            (BlockKind::List, "- apples\n  - green\n- pears"),
            (BlockKind::Paragraph, "Between."),
            (BlockKind::List, "1. first\n  a. sub a\n  b. sub b\n2. second"),
            (BlockKind::Paragraph, "numId 0 is no list"),
        ]
    );
    assert_eq!(out.structure.blocks[1].element.as_deref(), Some("body/p[2]"));
    // Without numbering.xml every list is bulleted.
    let out = run(&docx(&body, Some(&styles), None));
    assert_eq!(blocks(&out)[3], (BlockKind::List, "- first\n  - sub a\n  - sub b\n- second"));
}

fn cell(inner: &str) -> String {
    format!("<w:tc><w:tcPr><w:tcW w:w=\"100\"/></w:tcPr>{inner}</w:tc>")
}

fn row(cells: &[String]) -> String {
    format!("<w:tr><w:trPr/>{}</w:tr>", cells.concat())
}

#[test]
fn tables_are_a_row_a_line_with_nested_tables_flattened() {
    let nested = format!("<w:tbl>{}{}</w:tbl>", row(&[cell(&p("n1")), cell(&p("n2"))]), row(&[cell(&p("n3"))]));
    let table = format!(
        "<w:tbl><w:tblPr/><w:tblGrid><w:gridCol/></w:tblGrid>{}{}{}</w:tbl>",
        row(&[cell(&p("Name")), cell(&p("Area")), cell(&p("Note"))]),
        row(&[cell(&format!("{}{}", p("North"), p("Meadow"))), "<w:tc/>".into(), cell(&nested)]),
        row(&[cell(""), cell("<w:p/>")]),
    );
    let body = [p("Intro."), table, p("After.")].concat();
    let out = run(&docx(&body, None, None));
    assert_eq!(
        blocks(&out),
        vec![
            (BlockKind::Paragraph, "Intro."),
            (BlockKind::Table, "Name | Area | Note\nNorth Meadow |  | n1 n2 n3"),
            (BlockKind::Paragraph, "After."),
        ]
    );
    let elements: Vec<_> = out.structure.blocks.iter().map(|b| b.element.as_deref().unwrap()).collect();
    assert_eq!(elements, ["body/p[1]", "body/tbl[1]", "body/p[2]"]);
}

#[test]
fn runs_hyperlinks_fields_controls_and_tracked_changes() {
    let body = [
        // Tab, line break, non-breaking hyphen; tab stops in pPr are no text.
        "<w:p><w:pPr><w:tabs><w:tab w:val=\"left\" w:pos=\"720\"/></w:tabs></w:pPr><w:r><w:t>a</w:t><w:tab/><w:t>b</w:t><w:br/><w:t>c</w:t><w:noBreakHyphen/><w:t>d</w:t></w:r></w:p>".to_string(),
        // A hyperlink; a field's code skipped, its result kept; a simple field.
        "<w:p><w:hyperlink r:id=\"x\" xmlns:r=\"urn:r\"><w:r><w:t>link</w:t></w:r></w:hyperlink><w:r><w:fldChar w:fldCharType=\"begin\"/></w:r><w:r><w:instrText> PAGE </w:instrText></w:r><w:r><w:fldChar w:fldCharType=\"separate\"/></w:r><w:r><w:t xml:space=\"preserve\"> 7</w:t></w:r><w:r><w:fldChar w:fldCharType=\"end\"/></w:r><w:fldSimple w:instr=\"DATE\"><w:r><w:t xml:space=\"preserve\"> today</w:t></w:r></w:fldSimple></w:p>".into(),
        // Tracked changes: inserted kept, deleted and moved-away skipped.
        "<w:p><w:r><w:t xml:space=\"preserve\">keep </w:t></w:r><w:ins w:id=\"1\"><w:r><w:t>inserted</w:t></w:r></w:ins><w:del w:id=\"2\"><w:r><w:delText>DELETED</w:delText></w:r></w:del><w:moveFrom><w:r><w:t>MOVED</w:t></w:r></w:moveFrom></w:p>".into(),
        // Entities and character references.
        "<w:p><w:r><w:t>R&amp;D &lt;x&gt; &#x4E2D;&#25991;</w:t></w:r></w:p>".into(),
        // A block-level content control.
        format!("<w:sdt><w:sdtPr><w:alias w:val=\"NOTSHOWN\"/></w:sdtPr><w:sdtContent>{}{}</w:sdtContent></w:sdt>", p("in control"), p("second")),
        // A deleted paragraph mark's properties and an old style in pPrChange.
        "<w:p><w:pPr><w:pPrChange><w:pPr><w:pStyle w:val=\"Heading1\"/></w:pPr></w:pPrChange><w:rPr><w:del/></w:rPr></w:pPr><w:r><w:t>plain</w:t></w:r></w:p>".into(),
        // Equations' text.
        "<w:p><m:oMath><m:r><m:t>x=2</m:t></m:r></m:oMath></w:p>".into(),
    ]
    .concat();
    let styles = [NORMAL, &style("Heading1", "heading 1", "")].concat();
    let out = run(&docx(&body, Some(&styles), None));
    assert_eq!(
        blocks(&out),
        vec![
            (BlockKind::Paragraph, "a\tb\nc-d"),
            (BlockKind::Paragraph, "link 7 today"),
            (BlockKind::Paragraph, "keep inserted"),
            (BlockKind::Paragraph, "R&D <x> 中文"),
            (BlockKind::Paragraph, "in control"),
            (BlockKind::Paragraph, "second"),
            (BlockKind::Paragraph, "plain"),
            (BlockKind::Paragraph, "x=2"),
        ]
    );
    let elements: Vec<_> = out.structure.blocks.iter().map(|b| b.element.as_deref().unwrap()).collect();
    assert_eq!(
        elements,
        [
            "body/p[1]",
            "body/p[2]",
            "body/p[3]",
            "body/p[4]",
            "body/sdt[1]/sdtContent/p[1]",
            "body/sdt[1]/sdtContent/p[2]",
            "body/p[5]",
            "body/p[6]"
        ]
    );
}

#[test]
fn one_branch_of_alternate_content_and_text_boxes_in_their_anchor() {
    let textbox = |t: &str| format!("<w:txbxContent>{}</w:txbxContent>", p(t));
    let body = [
        format!(
            "<w:p><w:r><w:t xml:space=\"preserve\">before </w:t></w:r><w:r><mc:AlternateContent><mc:Choice Requires=\"wps\"><w:drawing><wps:wsp xmlns:wps=\"urn:wps\"><wps:txbx>{}</wps:txbx></wps:wsp></w:drawing></mc:Choice><mc:Fallback><w:pict>{}</w:pict></mc:Fallback></mc:AlternateContent></w:r><w:r><w:t>after</w:t></w:r></w:p>",
            textbox("boxed"),
            textbox("FALLBACK")
        ),
        // Only a fallback: it is read.
        "<w:p><mc:AlternateContent><mc:Fallback><w:r><w:t>only fallback</w:t></w:r></mc:Fallback></mc:AlternateContent></w:p>".into(),
        p("end"),
    ]
    .concat();
    let out = run(&docx(&body, None, None));
    assert_eq!(
        blocks(&out),
        vec![
            (BlockKind::Paragraph, "before\nboxed\nafter"),
            (BlockKind::Paragraph, "only fallback"),
            (BlockKind::Paragraph, "end")
        ]
    );
    assert_eq!(out.structure.blocks[2].element.as_deref(), Some("body/p[3]"));
}

#[test]
fn chinese_text_and_empty_paragraphs() {
    let body = [p("第一段。"), "<w:p/>".into(), p("   "), p("第二段，有“引号”。")].concat();
    let out = run(&docx(&body, None, None));
    assert_eq!(out.text, "第一段。\n\n第二段，有“引号”。");
    assert_eq!(out.structure.blocks[1].element.as_deref(), Some("body/p[4]"));
}

// ---- hardening: one line, never a panic ----

fn one_line(msg: &str, needle: &str) {
    assert!(!msg.contains('\n'), "{msg}");
    assert!(msg.contains(needle), "{needle:?} not in {msg:?}");
}

#[test]
fn not_a_zip_an_ole_file_a_damaged_zip_and_no_document() {
    one_line(&err(b"hello, not a zip"), "is not a Word .docx");
    let ole = [&[0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1][..], &[0; 600]].concat();
    one_line(&err(&ole), "save it as .docx without a password");
    let good = docx(&p("hello"), None, None);
    for cut in [4, 30, good.len() / 2, good.len() - 10] {
        one_line(&err(&good[..cut]), "damaged zip");
    }
    let xlsx = zip_of(&[("xl/workbook.xml", b"<workbook/>")]);
    one_line(&err(&xlsx), "without word/document.xml");
    // The main part named by the package relationships is found.
    let rels = br#"<Relationships xmlns="urn:rels"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="/word/document2.xml"/></Relationships>"#;
    let doc = format!("<w:document {W}><w:body>{}</w:body></w:document>", p("second doc"));
    let out = run(&zip_of(&[("_rels/.rels", rels), ("word/document2.xml", doc.as_bytes())]));
    assert_eq!(out.text, "second doc");
}

#[test]
fn damaged_bytes_anywhere_are_an_error_or_text_never_a_panic() {
    let styles = [NORMAL.to_string(), style("h1", "heading 1", "")].concat();
    let body = [styled("h1", "Title"), p("text"), item(1, 0, "x")].concat();
    let good = docx(&body, Some(&styles), Some(NUMBERING));
    for at in (0..good.len()).step_by(7) {
        let mut bad = good.clone();
        bad[at] ^= 0x5A;
        let _ = extract_limited(&bad, "t.docx", 1 << 20);
    }
}

#[test]
fn encrypted_entries_are_refused() {
    // A stored zip with the "encrypted" flag set on its entry.
    let mut z = ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = SimpleFileOptions::default().compression_method(CompressionMethod::Stored);
    z.start_file("word/document.xml", opts).unwrap();
    z.write_all(format!("<w:document {W}><w:body>{}</w:body></w:document>", p("secret")).as_bytes()).unwrap();
    let mut bytes = z.finish().unwrap().into_inner();
    // General purpose flag bit 0, in the local header (offset 6) and the central one (offset 8).
    bytes[6] |= 1;
    let central = memchr::memmem::find(&bytes, b"PK\x01\x02").unwrap();
    bytes[central + 8] |= 1;
    one_line(&err(&bytes), "encrypted zip entries");
}

#[test]
fn zip_bombs_cost_the_limit_and_are_refused() {
    // 12 MiB of one byte deflate to ~12 KiB; the limit is 8 MiB.
    let big = vec![b'a'; 12 << 20];
    let bomb = zip_of(&[("word/document.xml", &big)]);
    assert!(bomb.len() < 1 << 20);
    let msg = extract_limited(&bomb, "t.docx", 8 << 20).unwrap_err().to_string();
    one_line(&msg, "inflates past 8 MiB by its word/document.xml");
    one_line(&msg, "--max-input-mb");
    // The budget is for all parts together.
    let half = vec![b' '; 5 << 20];
    let doc = format!("<w:document {W}><w:body>{}</w:body></w:document>", p("x"));
    let two =
        zip_of(&[("word/document.xml", doc.as_bytes()), ("word/styles.xml", &half), ("word/numbering.xml", &half)]);
    one_line(&extract_limited(&two, "t.docx", 8 << 20).unwrap_err().to_string(), "word/numbering.xml");
    // Too many entries.
    let names: Vec<String> = (0..=package::MAX_ENTRIES).map(|i| format!("f{i}")).collect();
    let entries: Vec<(&str, &[u8])> = names.iter().map(|n| (n.as_str(), &b""[..])).collect();
    one_line(&err(&zip_of(&entries)), "zip entries");
}

#[test]
fn malformed_and_deep_xml_and_no_text() {
    let part = |xml: &str| zip_of(&[("word/document.xml", xml.as_bytes())]);
    for (xml, what) in [
        (format!("<w:document {W}><w:body><w:p></w:r></w:body></w:document>"), "mismatched"),
        (format!("<w:document {W}><w:body><w:p>"), "unclosed"),
        (format!("<w:document {W}><w:body>{}</w:body></w:document>", p("&bogus;")), "entity"),
        (
            format!("<!DOCTYPE d [<!ENTITY e \"boom\">]><w:document {W}><w:body>{}</w:body></w:document>", p("&e;")),
            "dtd entity",
        ),
    ] {
        let msg = err(&part(&xml));
        assert!(msg.contains("is not well-formed XML"), "{what}: {msg}");
        one_line(&msg, "word/document.xml");
    }
    let deep = format!(
        "<w:document {W}><w:body>{}{}{}</w:body></w:document>",
        "<w:sdt><w:sdtContent>".repeat(xml::MAX_DEPTH),
        p("deep"),
        "</w:sdtContent></w:sdt>".repeat(xml::MAX_DEPTH)
    );
    one_line(&err(&part(&deep)), "more than 4000 deep");
    // Nesting under the cap is walked (no recursion).
    let n = xml::MAX_DEPTH / 2 - 10;
    let fine = format!(
        "<w:document {W}><w:body>{}{}{}</w:body></w:document>",
        "<w:sdt><w:sdtContent>".repeat(n),
        p("deep"),
        "</w:sdtContent></w:sdt>".repeat(n)
    );
    assert_eq!(run(&part(&fine)).text, "deep");
    one_line(&err(&docx("<w:p/><w:p><w:r><w:drawing/></w:r></w:p>", None, None)), "holds no text");
    // Malformed styles are an error too, named.
    one_line(&err(&docx(&p("x"), Some("<w:style>"), None)), "word/styles.xml is not well-formed XML");
}
