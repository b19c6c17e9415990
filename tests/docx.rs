//! Word (.docx) input through the real binary, over files python-docx writes
//! (tests/python/make_docx.py): heading paths in `meta.headings` from the
//! built-in Heading styles and from a publisher's own styles, the table in
//! one chunk, chunk ranges exact in the `--extracted` text, the paragraphs
//! python-docx reads back in that text in order, and one clear line (exit 2)
//! for every file that cannot be read.
//!
//! Needs the tests' venv (CHUNKTUI_TESTS_PYTHON, with python-docx from
//! python/requirements-test.txt): `bash scripts/test.sh` builds it. Set
//! CHUNKTUI_HELD_OUT_DOCX to a folder of .docx files to check their
//! paragraphs too (the held-out publisher chapters).
#![cfg(all(feature = "cli", feature = "docx"))]

mod common;

use common::Dir;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_chunktui");

fn tests_python() -> PathBuf {
    match std::env::var_os("CHUNKTUI_TESTS_PYTHON") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => panic!(
            "CHUNKTUI_TESTS_PYTHON is not set: run `bash scripts/test.sh`, which builds the tests' venv (python-docx \
             from python/requirements-test.txt), or point it at a Python with python-docx==1.2.0 installed"
        ),
    }
}

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/make_docx.py")
}

/// `make_docx.py ARGS` with the tests' Python; its stdout.
fn python(args: &[&str]) -> String {
    let py = tests_python();
    let out = Command::new(&py).arg(script()).args(args).output().unwrap_or_else(|e| {
        panic!("run {}: {e} (CHUNKTUI_TESTS_PYTHON; `bash scripts/test.sh` builds the venv)", py.display())
    });
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "make_docx.py {args:?} failed: {err}\n(needs python-docx: `{} -m pip install python-docx==1.2.0`, or run \
         `bash scripts/test.sh`)",
        py.display()
    );
    String::from_utf8(out.stdout).expect("UTF-8 from make_docx.py")
}

/// The generated files, in a temporary folder.
fn generated() -> (Dir, PathBuf, PathBuf) {
    let dir = Dir::new();
    python(&["make", dir.root().to_str().unwrap()]);
    let (a, b) = (dir.path("standard.docx"), dir.path("publisher.docx"));
    (dir, a, b)
}

fn chunktui(args: &[&str]) -> Output {
    Command::new(BIN).args(args).env("NO_COLOR", "1").output().expect("run chunktui")
}

fn ok(args: &[&str]) -> String {
    let out = chunktui(args);
    assert!(out.status.success(), "chunktui {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

struct Piece {
    text: String,
    start: usize,
    end: usize,
    headings: Vec<String>,
}

/// `chunktui chunk FILE --strategy html EXTRA` checked against `--extracted`:
/// every chunk's range of that text is its text.
fn chunks(file: &Path, extra: &[&str]) -> (String, Vec<Piece>) {
    let f = file.to_str().unwrap();
    let extracted = ok(&["chunk", f, "--extracted"]);
    let mut args = vec!["chunk", f, "--strategy", "html"];
    args.extend_from_slice(extra);
    let pieces: Vec<Piece> = ok(&args)
        .lines()
        .map(|line| {
            let v: Value = serde_json::from_str(line).expect("a JSON line");
            let headings = v["meta"]["headings"]
                .as_array()
                .map(|a| a.iter().map(|h| h.as_str().unwrap().to_string()).collect())
                .unwrap_or_default();
            Piece {
                text: v["text"].as_str().unwrap().to_string(),
                start: v["start"].as_u64().unwrap() as usize,
                end: v["end"].as_u64().unwrap() as usize,
                headings,
            }
        })
        .collect();
    assert!(!pieces.is_empty());
    // --extracted may end with a line break of its own.
    for p in &pieces {
        assert_eq!(extracted.get(p.start..p.end), Some(p.text.as_str()), "chunk {}..{} of {f}", p.start, p.end);
    }
    (extracted, pieces)
}

/// The headings of the chunk holding `needle` (exactly one does).
fn headings_of<'a>(pieces: &'a [Piece], needle: &str) -> &'a [String] {
    let holding: Vec<&Piece> = pieces.iter().filter(|p| p.text.contains(needle)).collect();
    assert_eq!(holding.len(), 1, "{needle:?} is in {} chunks", holding.len());
    &holding[0].headings
}

#[test]
fn standard_headings_give_heading_paths_and_the_table_is_one_chunk() {
    let (_dir, standard, _) = generated();
    let (_, pieces) = chunks(&standard, &[]);
    let none: &[String] = &[];
    assert_eq!(headings_of(&pieces, "pieces that an embedding model can read whole"), none);
    assert_eq!(headings_of(&pieces, "loses the meaning"), ["Getting started"]);
    assert_eq!(headings_of(&pieces, "Unpack it."), ["Getting started", "Installation"]);
    assert_eq!(headings_of(&pieces, "build from source"), ["Getting started", "Installation", "On Linux"]);
    assert_eq!(headings_of(&pieces, "control how documents are cut"), ["Getting started", "Settings"]);
    assert_eq!(headings_of(&pieces, "完整读取的片段"), ["入门指南"]);
    assert_eq!(headings_of(&pieces, "检索的效果最好"), ["入门指南", "安装"]);
    // The list is one block: its items a line each.
    let list = &pieces.iter().find(|p| p.text.contains("Unpack it.")).unwrap().text;
    assert!(list.contains("- Download the release for your platform.\n- Unpack it.\n- Put the binary"), "{list}");
    // The table, a row a line, whole in one chunk, even when chunks are small.
    for extra in [&[][..], &["--size", "40", "--unit", "words"][..]] {
        let (_, pieces) = chunks(&standard, extra);
        let table = pieces.iter().filter(|p| p.text.contains("Setting | Default | Meaning")).collect::<Vec<_>>();
        assert_eq!(table.len(), 1, "{extra:?}");
        assert!(
            table[0].text.contains(
                "Setting | Default | Meaning\nsize | 512 | The largest chunk, in tokens.\noverlap | 64 | Tokens \
                 repeated between neighbours.\nstrategy | recursive | How chunks are cut."
            ),
            "{extra:?}: {}",
            table[0].text
        );
        assert_eq!(table[0].headings, ["Getting started", "Settings"]);
    }
}

#[test]
fn publisher_styles_give_heading_paths() {
    let (_dir, _, publisher) = generated();
    // ChapterNumber + ChapterTitle (one heading), HeadA, HeadB: levels 1, 2, 3.
    let (extracted, pieces) = chunks(&publisher, &[]);
    assert!(extracted.starts_with("Chapter 7\nOwnership\n\nWhat ownership means\n\n"), "{extracted}");
    let chapter = "Chapter 7 Ownership";
    assert_eq!(headings_of(&pieces, "What ownership means, paragraph 1:"), [chapter, "What ownership means"]);
    assert_eq!(headings_of(&pieces, "Moving values, paragraph 2:"), [chapter, "What ownership means", "Moving values"]);
    assert_eq!(headings_of(&pieces, "Elision rules, paragraph 3:"), [chapter, "Lifetimes", "Elision rules"]);
    // HeadC (level 4) starts a chunk when level 4 is asked for.
    assert_eq!(headings_of(&pieces, "Mutable borrows, paragraph 1:"), [chapter, "What ownership means", "Borrowing"]);
    let (_, deeper) = chunks(&publisher, &["--levels", "1,2,3,4"]);
    assert_eq!(
        headings_of(&deeper, "Mutable borrows, paragraph 1:"),
        [chapter, "What ownership means", "Borrowing", "Mutable borrows"]
    );
    // meta.element maps a chunk back to its paragraph.
    let out = ok(&["chunk", publisher.to_str().unwrap(), "--strategy", "html"]);
    let first: Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(first["meta"]["element"], "body/p[1]");
}

/// Whitespace runs as one space.
fn squeeze(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The share of `file`'s non-empty body paragraphs (as python-docx reads
/// them) found in order in its `--extracted` text.
fn paragraphs_in_order(file: &Path) -> (usize, usize) {
    let paragraphs: Vec<String> =
        serde_json::from_str(&python(&["paragraphs", file.to_str().unwrap()])).expect("a JSON list");
    let extracted = squeeze(&ok(&["chunk", file.to_str().unwrap(), "--extracted"]));
    let mut at = 0;
    let (mut found, mut total) = (0, 0);
    for p in paragraphs.iter().map(|p| squeeze(p)).filter(|p| !p.is_empty()) {
        total += 1;
        if let Some(i) = extracted[at..].find(&p) {
            found += 1;
            at += i + p.len();
        }
    }
    (found, total)
}

#[test]
fn paragraphs_python_docx_reads_are_in_the_text_in_order() {
    let (_dir, standard, publisher) = generated();
    let mut files = vec![standard, publisher];
    if let Some(held_out) = std::env::var_os("CHUNKTUI_HELD_OUT_DOCX") {
        let mut more: Vec<PathBuf> = std::fs::read_dir(&held_out)
            .expect("CHUNKTUI_HELD_OUT_DOCX is a folder")
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("docx")))
            .collect();
        more.sort();
        assert!(!more.is_empty(), "no .docx in CHUNKTUI_HELD_OUT_DOCX");
        files.extend(more);
    }
    for file in files {
        let (found, total) = paragraphs_in_order(&file);
        assert!(total > 0, "{}: no paragraphs", file.display());
        assert!(found * 100 >= total * 99, "{}: {found} of {total} paragraphs in order", file.display());
    }
}

/// A run that fails with one error line holding `needle`, exit 2, no panic.
fn fails(args: &[&str], needle: &str) {
    let out = chunktui(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    let lines: Vec<&str> = err.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "{args:?}: one line: {err}");
    assert!(lines[0].contains(needle), "{args:?}: {needle:?} in {err}");
}

fn zip_of(entries: &[(&str, &[u8])], stored: bool) -> Vec<u8> {
    use zip::write::SimpleFileOptions;
    let mut z = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let method = if stored { zip::CompressionMethod::Stored } else { zip::CompressionMethod::Deflated };
    for (path, bytes) in entries {
        z.start_file(*path, SimpleFileOptions::default().compression_method(method)).unwrap();
        z.write_all(bytes).unwrap();
    }
    z.finish().unwrap().into_inner()
}

const W: &str = r#"xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main""#;

fn document(body: &str) -> String {
    format!("<w:document {W}><w:body>{body}</w:body></w:document>")
}

#[test]
fn files_that_cannot_be_read_are_one_line() {
    let (dir, standard, _) = generated();
    let good = std::fs::read(&standard).unwrap();
    let para = "<w:p><w:r><w:t>hello</w:t></w:r></w:p>";
    let mut encrypted = zip_of(&[("word/document.xml", document(para).as_bytes())], true);
    encrypted[6] |= 1;
    let central = encrypted.windows(4).position(|w| w == b"PK\x01\x02").unwrap();
    encrypted[central + 8] |= 1;
    let deep =
        document(&format!("{}{para}{}", "<w:sdt><w:sdtContent>".repeat(5000), "</w:sdtContent></w:sdt>".repeat(5000)));
    let bomb = zip_of(&[("word/document.xml", &vec![b' '; 24 << 20])], false);
    let ole = [&[0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1][..], &[0u8; 1024][..]].concat();
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("text.docx", b"not a zip at all\n".to_vec(), "is not a Word .docx"),
        ("truncated.docx", good[..good.len() / 2].to_vec(), "damaged zip"),
        ("sheet.docx", zip_of(&[("xl/workbook.xml", b"<workbook/>")], false), "without word/document.xml"),
        ("encrypted.docx", encrypted, "encrypted zip entries"),
        (
            "broken.docx",
            zip_of(&[("word/document.xml", document("<w:p></w:r>").as_bytes())], false),
            "not well-formed XML",
        ),
        ("deep.docx", zip_of(&[("word/document.xml", deep.as_bytes())], false), "deep"),
        (
            "empty.docx",
            zip_of(&[("word/document.xml", document("<w:p/><w:p><w:r><w:tab/></w:r></w:p>").as_bytes())], false),
            "no text",
        ),
    ];
    for (name, bytes, needle) in &cases {
        let path = dir.write(name, bytes);
        fails(&["chunk", &path, "--strategy", "html"], needle);
    }
    // An OLE compound file (a password-protected .docx, or an old .doc).
    let path = dir.write("locked.docx", &ole);
    fails(&["chunk", &path], "save it as .docx without a password");
    // A zip bomb: refused at the document limit, which --max-input-mb sets.
    assert!(bomb.len() < 1 << 20);
    let path = dir.write("bomb.docx", &bomb);
    fails(&["chunk", &path, "--max-input-mb", "8"], "inflates past 8 MiB");
    // A zip is read as a .docx whatever its name.
    let named = dir.write("notes.bin", &good);
    assert!(ok(&["chunk", &named, "--extracted"]).contains("Getting started"));
}
