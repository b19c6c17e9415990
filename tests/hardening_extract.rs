//! Hostile HTML, Markdown, code and PDF input: an answer or a one-line error,
//! never a crash, in bounded time and memory.
//!
//! - Deep nesting is walked without recursion: every extraction and strategy
//!   walk runs here on a thread with a 256 KiB stack, deeper than such a
//!   stack could recurse. HTML deeper than the parser can take in time is
//!   refused with one line (exit 2); folder runs (worker threads) too.
//! - A PDF form XObject that draws itself, a cycle of forms, forms nested
//!   past the cap and a looping page tree are "damaged" (exit 2), not a
//!   stack overflow.
//! - Decompression bombs (page contents, object streams) are refused with
//!   one line naming --max-input-mb, with peak memory far under 1 GiB
//!   (GNU time).
#![cfg(all(feature = "cli", feature = "pdf"))]

use chunktui::{ChunkConfig, Chunker, Document, StrategyKind};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

mod common;

const BIN: &str = env!("CARGO_BIN_EXE_chunktui");
const HANG: Duration = Duration::from_secs(60);
const SMALL_STACK: usize = 256 * 1024;

/// Run `f` on a thread with a 256 KiB stack: recursion by depth overflows it.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new().stack_size(SMALL_STACK).spawn(f).expect("spawn").join().expect("no panic")
}

fn chunk_with(text: &str, name: &str, strategy: StrategyKind) -> chunktui::Result<Vec<String>> {
    let doc = Document::from_named_bytes(text.as_bytes().to_vec(), name, false)?;
    let mut cfg = ChunkConfig::default();
    cfg.strategy = strategy;
    let chunks = Chunker::new(&cfg)?.chunk_document(&doc)?;
    Ok(chunks.iter().map(|c| doc.text[c.range.clone()].to_string()).collect())
}

fn deep_divs(n: usize) -> String {
    format!("<html><body>{}deep text{}</body></html>", "<div>".repeat(n), "</div>".repeat(n))
}

#[test]
fn deep_html_is_walked_without_recursion() {
    let n = chunktui::extract::html::MAX_DEPTH - 100;
    // Divs, each with text (a block per level), spans in a heading, in a pre,
    // lists in lists, a table in cells.
    let cases: Vec<(&str, String, &str)> = vec![
        ("divs", deep_divs(n), "deep text"),
        ("divs with text", format!("<body>{}end{}</body>", "<div>x".repeat(n), "</div>".repeat(n)), "end"),
        ("heading", format!("<h1>{}deep title{}</h1>", "<span>".repeat(n), "</span>".repeat(n)), "deep title"),
        ("pre", format!("<pre>{}deep code{}</pre>", "<b>".repeat(n), "</b>".repeat(n)), "deep code"),
        ("lists", format!("<body>{}deep item</body>", "<ul><li>item".repeat(3000)), "deep item"),
        ("tables", format!("<body>{}deep cell</body>", "<table><tr><td>".repeat(2000)), "deep cell"),
    ];
    for (what, html, needle) in cases {
        let found = on_small_stack(move || {
            let text = chunktui::extract::html::extract(&html).text;
            let chunks = chunk_with(&html, "deep.html", StrategyKind::Html).expect("chunks");
            (text.contains(needle), chunks.iter().any(|c| c.contains(needle)))
        });
        assert_eq!(found, (true, true), "{what}: text and chunks hold {needle:?}");
    }
}

#[test]
fn html_deeper_than_the_cap_is_refused_quickly_and_the_parser_survives_it() {
    let html = deep_divs(200_000);
    let started = std::time::Instant::now();
    let err = Document::from_named_bytes(html.clone().into_bytes(), "deep.html", false).unwrap_err().to_string();
    assert!(err.contains("deep.html nests HTML elements more than 10000 deep"), "{err}");
    assert!(started.elapsed() < Duration::from_secs(5), "refused in {:?}", started.elapsed());
    // Unclosed spans and formatting elements count too; closed siblings do not.
    let depth = chunktui::extract::html::nesting_depth;
    assert!(depth(&"<span>a<p>b</p>".repeat(20_000), 10_000) > 10_000);
    assert!(depth(&"<b>x".repeat(20_000), 10_000) > 10_000);
    assert!(depth(&"<div><p>x<li>y</div>".repeat(50_000), 10_000) <= 2);
    assert!(depth(&"<script>if (a<b) {}</SCRIPT><div></div>".repeat(50_000), 10_000) <= 1);
}

#[test]
fn deep_markdown_and_code_are_walked_without_recursion() {
    let quotes = format!("{}deep\n", "> ".repeat(100_000));
    let lists: String = (0..3000).map(|i| format!("{}- item {i}\n", "  ".repeat(i))).collect();
    let brackets = format!("{}x{}\n", "[".repeat(100_000), "]".repeat(100_000));
    for (what, text) in [("quotes", quotes), ("lists", lists), ("brackets", brackets)] {
        let ok = on_small_stack(move || chunk_with(&text, "deep.md", StrategyKind::Markdown).map(|c| !c.is_empty()));
        assert!(ok.expect(what), "{what}: chunks");
    }
    let rust = format!("fn main() {{ let x = {}1{}; }}\n", "(".repeat(50_000), ")".repeat(50_000));
    let python = format!("x = {}{}\n", "[".repeat(50_000), "]".repeat(50_000));
    for (name, text) in [("deep.rs", rust), ("deep.py", python)] {
        let ok = on_small_stack(move || chunk_with(&text, name, StrategyKind::Code).map(|c| !c.is_empty()));
        assert!(ok.unwrap_or(true), "{name}: chunks or a clean error");
    }
}

struct Run {
    code: Option<i32>,
    stderr: String,
    /// Peak resident set in KiB (GNU time), when measured.
    peak_kib: Option<u64>,
}

/// `chunktui ARGS` with stdout discarded, under GNU time when it is there.
fn run(args: &[&str], dir: &Path) -> Run {
    let err_path = dir.join("stderr.txt");
    let time_path = dir.join("time.txt");
    let timed = Path::new("/usr/bin/time").exists();
    let mut cmd = if timed {
        let mut c = Command::new("/usr/bin/time");
        c.args(["-f", "%M", "-o"]).arg(&time_path).arg(BIN);
        c
    } else {
        Command::new(BIN)
    };
    cmd.args(args).current_dir(dir).env("NO_COLOR", "1");
    cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(std::fs::File::create(&err_path).unwrap());
    let mut child = cmd.spawn().expect("spawn");
    let status = common::wait_or_kill(&mut child, HANG, &args.join(" "));
    let stderr = std::fs::read_to_string(&err_path).unwrap();
    // GNU time adds "Command exited with non-zero status N" to its report, not to stderr.
    let peak_kib = timed
        .then(|| std::fs::read_to_string(&time_path).ok())
        .flatten()
        .and_then(|t| t.lines().last().and_then(|l| l.trim().parse().ok()));
    Run { code: status.code(), stderr, peak_kib }
}

fn one_line_error(r: &Run, what: &str, needles: &[&str]) {
    assert_eq!(r.code, Some(2), "{what}: exit code; stderr: {}", r.stderr);
    let lines: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{what}: one line on stderr, got {:?}", r.stderr);
    assert!(lines[0].starts_with("chunktui: error: "), "{what}: {}", lines[0]);
    for n in needles {
        assert!(lines[0].contains(n), "{what}: {n:?} missing from {}", lines[0]);
    }
}

fn under_a_gib(r: &Run, what: &str) {
    if let Some(kib) = r.peak_kib {
        assert!(kib < 1 << 20, "{what}: peak memory {} MiB", kib >> 10);
    }
}

#[test]
fn deep_html_through_the_cli_single_and_in_a_folder() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("docs")).unwrap();
    std::fs::write(dir.path().join("docs/deep.html"), deep_divs(5000)).unwrap();
    std::fs::write(dir.path().join("docs/a.txt"), "hi\n").unwrap();
    std::fs::write(dir.path().join("deeper.html"), deep_divs(20_000)).unwrap();
    for args in [["chunk", "docs/"], ["stats", "docs/"], ["lint", "docs/deep.html"]] {
        let (cmd, r) = (args.join(" "), run(&args, dir.path()));
        assert!(matches!(r.code, Some(0 | 1)), "{cmd}: {:?} {}", r.code, r.stderr);
        assert!(!r.stderr.contains("overflow"), "{cmd}: {}", r.stderr);
    }
    let r = run(&["chunk", "docs/deep.html"], dir.path());
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let r = run(&["chunk", "deeper.html"], dir.path());
    one_line_error(&r, "20000 divs", &["deeper.html nests HTML elements more than"]);
}

// --- PDF ---------------------------------------------------------------

/// A PDF of `objects` (object 1 is the catalog), with a classic xref table.
fn pdf(objects: &[Vec<u8>]) -> Vec<u8> {
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, o) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n", i + 1).as_bytes());
        out.extend_from_slice(o);
        out.extend_from_slice(b"\nendobj\n");
    }
    let xref = out.len();
    out.extend_from_slice(format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes());
    for o in offsets {
        out.extend_from_slice(format!("{o:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!("trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n", objects.len() + 1).as_bytes(),
    );
    out
}

fn stream(dict: &str, data: &[u8]) -> Vec<u8> {
    let mut o = format!("<< {dict} /Length {} >>\nstream\n", data.len()).into_bytes();
    o.extend_from_slice(data);
    o.extend_from_slice(b"\nendstream");
    o
}

/// Deflate `total` bytes of `unit` repeated, without holding them.
fn deflated(unit: &[u8], total: usize) -> Vec<u8> {
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    let block = unit.repeat(((1 << 20) / unit.len().max(1)).max(1));
    let mut n = 0;
    while n < total {
        z.write_all(&block).unwrap();
        n += block.len();
    }
    z.finish().unwrap()
}

const CATALOG: &str = "<< /Type /Catalog /Pages 2 0 R >>";
const PAGES: &str = "<< /Type /Pages /Kids [3 0 R] /Count 1 >>";
const FONT: &str = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>";

/// One page (object 3) with contents object 4, font object 5, and `xobjects`
/// (`/Xn` is object 5 + n) as the page's XObject resources.
fn page_pdf(content: Vec<u8>, xobjects: &[Vec<u8>]) -> Vec<u8> {
    let names: String = (1..=xobjects.len()).map(|n| format!("/X{n} {} 0 R ", 5 + n)).collect();
    let page = format!(
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> \
         /XObject << {names}>> >> >>"
    );
    let mut objects = vec![CATALOG.as_bytes().to_vec(), PAGES.as_bytes().to_vec(), page.into_bytes(), content];
    objects.push(FONT.as_bytes().to_vec());
    objects.extend(xobjects.iter().cloned());
    pdf(&objects)
}

fn form(resources: &str, content: &str) -> Vec<u8> {
    stream(
        &format!("/Type /XObject /Subtype /Form /BBox [0 0 100 100] /Resources << {resources} >>"),
        content.as_bytes(),
    )
}

const HELLO: &str = "BT /F1 12 Tf 72 712 Td (Hello) Tj ET";

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

#[test]
fn pdf_forms_that_draw_themselves_are_damaged_files() {
    let dir = tempfile::tempdir().unwrap();
    let content = |s: &str| stream("", format!("/X1 Do {HELLO} {s}").as_bytes());
    let fonts = "/Font << /F1 5 0 R >>";
    // F2: a form drawing itself through its own resources.
    let selfref = page_pdf(content(""), &[form(&format!("/XObject << /X1 6 0 R >> {fonts}"), "q /X1 Do Q")]);
    // Without resources of its own: it draws itself through the page's.
    let inherited = page_pdf(content(""), &[stream("/Type /XObject /Subtype /Form /BBox [0 0 1 1]", b"/X1 Do")]);
    // Two forms drawing each other.
    let pair = page_pdf(
        content(""),
        &[form("/XObject << /Y 7 0 R >>", "/Y Do (a) Tj"), form("/XObject << /Z 6 0 R >>", "/Z Do")],
    );
    // A chain of 100 forms, each drawing the next.
    let chain: Vec<Vec<u8>> = (0..100)
        .map(|i| if i < 99 { form(&format!("/XObject << /N {} 0 R >>", 7 + i), "/N Do") } else { form("", "") })
        .collect();
    let chain = page_pdf(content(""), &chain);
    for (name, bytes, needle) in [
        ("selfref.pdf", selfref, "draws itself"),
        ("inherited.pdf", inherited, "draws itself"),
        ("pair.pdf", pair, "draws itself"),
        ("chain.pdf", chain, "more than 64 deep"),
    ] {
        write(dir.path(), name, &bytes);
        let r = run(&["chunk", name], dir.path());
        one_line_error(&r, name, &[name, "cannot be read as a PDF", needle]);
    }
    // Forms drawn a bounded number of times, nested a little: read.
    let fine = page_pdf(
        content("/X1 Do"),
        &[form(&format!("/XObject << /X2 7 0 R >> {fonts}"), "/X2 Do /X2 Do"), form(fonts, HELLO)],
    );
    write(dir.path(), "fine.pdf", &fine);
    let r = run(&["chunk", "fine.pdf"], dir.path());
    assert_eq!(r.code, Some(0), "{}", r.stderr);
}

#[test]
fn pdf_page_trees_that_loop_are_damaged_files() {
    let dir = tempfile::tempdir().unwrap();
    // The page's parent is a node whose parent is itself; no resources on the way.
    let objects = vec![
        CATALOG.as_bytes().to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 /Parent 2 0 R >>".to_vec(),
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>".to_vec(),
        stream("", HELLO.as_bytes()),
    ];
    write(dir.path(), "loop.pdf", &pdf(&objects));
    let r = run(&["chunk", "loop.pdf"], dir.path());
    assert!(matches!(r.code, Some(0 | 2)), "{:?} {}", r.code, r.stderr);
    assert!(r.stderr.lines().count() <= 1, "{}", r.stderr);
}

#[test]
fn pdf_decompression_bombs_are_refused_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let text_ops = deflated(b"(Hello bomb) Tj ", 64 << 20);
    let zeros = deflated(&[0u8; 4096], 300 << 20);
    let page = |data: &[u8]| page_pdf(stream("/Filter /FlateDecode", data), &[]);
    write(dir.path(), "text64m.pdf", &page(&text_ops));
    write(dir.path(), "zeros.pdf", &page(&zeros));
    for (name, args) in [
        ("text64m.pdf", vec![]),
        ("zeros.pdf", vec![]),
        ("text64m.pdf", vec!["--max-input-mb", "8"]),
        ("zeros.pdf", vec!["--max-input-mb", "1"]),
    ] {
        let mut all = vec!["chunk", name];
        all.extend(args.iter().copied());
        let r = run(&all, dir.path());
        let what = all.join(" ");
        one_line_error(&r, &what, &[name, "--max-input-mb"]);
        under_a_gib(&r, &what);
    }
    // A form XObject drawn a million times: time, not just memory.
    let many = format!("{HELLO} {}", "/X1 Do ".repeat(1 << 20));
    let drawn = page_pdf(stream("/Filter /FlateDecode", &deflated(many.as_bytes(), many.len())), &[form("", HELLO)]);
    write(dir.path(), "drawn.pdf", &drawn);
    let r = run(&["chunk", "drawn.pdf"], dir.path());
    one_line_error(&r, "a form drawn a million times", &["drawn.pdf", "drawing operations"]);
    // An object stream that inflates without end, refused before lopdf loads it.
    let objstm = stream("/Type /ObjStm /N 1 /First 4 /Filter /FlateDecode", &deflated(b"1 0 ", 160 << 20));
    let mut objects = vec![CATALOG.as_bytes().to_vec(), PAGES.as_bytes().to_vec()];
    objects.push(b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>".to_vec());
    objects.push(stream("", HELLO.as_bytes()));
    objects.push(objstm);
    write(dir.path(), "objstm.pdf", &pdf(&objects));
    let r = run(&["chunk", "objstm.pdf"], dir.path());
    one_line_error(&r, "object stream bomb", &["objstm.pdf", "--max-input-mb"]);
    under_a_gib(&r, "object stream bomb");
}

#[test]
fn ordinary_pdfs_still_read() {
    let dir = tempfile::tempdir().unwrap();
    let content = deflated(format!("{HELLO} ").as_bytes(), 64 << 10);
    write(dir.path(), "ok.pdf", &page_pdf(stream("/Filter /FlateDecode", &content), &[]));
    let r = run(&["chunk", "ok.pdf"], dir.path());
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    for entry in std::fs::read_dir(samples).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "pdf") {
            let r = run(&["chunk", path.to_str().unwrap()], dir.path());
            assert_eq!(r.code, Some(0), "{}: {}", path.display(), r.stderr);
        }
    }
}
