//! The `code` strategy on real source: our own samples in seven languages
//! (samples/code/) and this repository's Rust. Each file is parsed here
//! with tree-sitter, independently of the strategy ([`items`]), and every
//! item (function, method, class, impl, trait, module...) that fits the size
//! must sit whole in one chunk; the common invariants (coverage, size limit,
//! order, sizes, no overlap) hold in every unit. Then the symbols metadata,
//! the fallback without a grammar, CJK comments, the command line, and
//! random code-like text ([`random`]).
#![cfg(feature = "code")]

#[path = "../common/mod.rs"]
mod common;
mod items;
mod random;

use chunktui::config::{ChunkConfig, StrategyKind, Unit};
use chunktui::{Chunk, Chunker, DocKind};
use common::{run_and_check, Checker};
use items::{items, split_items};
use std::path::{Path, PathBuf};

fn code_config(language: Option<&str>, unit: Unit, size: usize) -> ChunkConfig {
    let mut c = ChunkConfig { strategy: StrategyKind::Code, unit, size, overlap: 0, ..ChunkConfig::default() };
    c.code.language = language.map(str::to_string);
    c
}

fn sample_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/code");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
}

/// Some of this repository's own Rust, big and small.
const OWN_RUST: [&str; 5] = [
    "src/strategy/recursive/mod.rs",
    "src/size.rs",
    "src/strategy/settings.rs",
    "src/strategy/code/walk.rs",
    "samples/cache.rs",
];

fn own_rust() -> Vec<PathBuf> {
    OWN_RUST.iter().map(|p| Path::new(env!("CARGO_MANIFEST_DIR")).join(p)).collect()
}

/// Settings per unit: tight ones that cut most items, roomy ones that pack.
fn sizes(unit: Unit) -> &'static [usize] {
    match unit {
        Unit::Chars => &[120, 400, 1500],
        Unit::Words => &[40, 200],
        Unit::Tokens => &[60, 300],
        Unit::Bytes => &[400, 4000],
    }
}

/// Every invariant and the item rule for one file in one unit and size.
fn check_file(path: &Path, unit: Unit, size: usize, checker: &Checker<'_>) -> Result<Vec<Chunk>, String> {
    let language = DocKind::grammar(path).unwrap_or_else(|| panic!("{}: no grammar by extension", path.display()));
    let chunks = run_and_check(checker, &code_config(Some(language), unit, size))?.expect("code is always available");
    match split_items(checker.text, language, &chunks, checker, size).first() {
        Some(item) => Err(format!("{} {unit} {size}: {item} fits but is split across chunks", path.display())),
        None => Ok(chunks),
    }
}

/// The item check has teeth: the recursive splitter with the Rust preset,
/// which knows lines but not syntax, splits some items that would fit.
#[test]
fn the_recursive_preset_splits_items_that_code_keeps_whole() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/strategy/recursive/mod.rs");
    let text = std::fs::read_to_string(&path).unwrap();
    let checker = Checker::new(&text, Unit::Chars);
    let mut cfg = ChunkConfig { strategy: StrategyKind::Recursive, size: 400, overlap: 0, ..ChunkConfig::default() };
    cfg.recursive.preset = "rust".into();
    let chunks = run_and_check(&checker, &cfg).unwrap().unwrap();
    assert!(!split_items(&text, "rust", &chunks, &checker, 400).is_empty());
    check_file(&path, Unit::Chars, 400, &checker).unwrap();
}

#[test]
fn samples_in_seven_languages_keep_every_item_that_fits_whole() {
    let files = sample_files();
    let languages: Vec<&str> = files.iter().filter_map(|p| DocKind::grammar(p)).collect();
    for want in ["python", "javascript", "typescript", "go", "java", "c", "cpp"] {
        assert!(languages.contains(&want), "samples/code has no {want} file: {files:?}");
    }
    let mut failures = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        for unit in Unit::ALL {
            let checker = Checker::new(&text, unit);
            for &size in sizes(unit) {
                if let Err(e) = check_file(path, unit, size, &checker) {
                    failures.push(e);
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn this_repositorys_rust_keeps_every_item_that_fits_whole() {
    let mut failures = Vec::new();
    for path in own_rust() {
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for unit in Unit::ALL {
            let checker = Checker::new(&text, unit);
            for &size in sizes(unit) {
                if let Err(e) = check_file(&path, unit, size, &checker) {
                    failures.push(e);
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A roomy size really packs: the Go sample's fifteen small items go
/// into about as few chunks as its length allows.
#[test]
fn small_items_are_packed_together() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/code/inventory.go");
    let text = std::fs::read_to_string(&path).unwrap();
    let size = 1500;
    let chunks = Chunker::new(&code_config(Some("go"), Unit::Chars, size)).unwrap().chunk(&text).unwrap();
    let items = items(&text, "go").len();
    let least = text.chars().count().div_ceil(size);
    assert!(items >= 15 && chunks.len() <= least + 1, "{} chunks for {items} items, {least} at least", chunks.len());
}

fn chunk(text: &str, language: &str, size: usize) -> Vec<Chunk> {
    let checker = Checker::new(text, Unit::Chars);
    run_and_check(&checker, &code_config(Some(language), Unit::Chars, size)).unwrap().unwrap()
}

/// The chunk holding `needle`, with its symbols.
fn symbols_at(text: &str, chunks: &[Chunk], needle: &str) -> Vec<String> {
    let at = text.find(needle).unwrap_or_else(|| panic!("{needle:?} not in the text"));
    let c = chunks.iter().find(|c| c.range.contains(&at)).unwrap_or_else(|| panic!("{needle:?} in no chunk"));
    c.meta.symbols.clone()
}

const SEARCHER: &str = r#"use std::collections::HashMap;

/// Finds words in a text.
pub struct Searcher {
    index: HashMap<String, Vec<usize>>,
}

impl Searcher {
    /// Where `word` occurs.
    pub fn find(&self, word: &str) -> &[usize] {
        self.index.get(word).map(Vec::as_slice).unwrap_or(&[])
    }

    /// How often `word` occurs.
    #[inline]
    pub fn count(&self, word: &str) -> usize {
        self.find(word).len()
    }
}

impl std::fmt::Display for Searcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} words", self.index.len())
    }
}
"#;

#[test]
fn a_rust_method_names_its_impl_and_itself() {
    let chunks = chunk(SEARCHER, "rust", 150);
    assert_eq!(symbols_at(SEARCHER, &chunks, "self.index.get"), ["impl Searcher", "fn find"]);
    assert_eq!(symbols_at(SEARCHER, &chunks, "self.find(word).len()"), ["impl Searcher", "fn count"]);
    assert_eq!(symbols_at(SEARCHER, &chunks, "write!"), ["impl std::fmt::Display for Searcher", "fn fmt"]);
    // Doc comments and attributes travel with their item.
    let count = chunks.iter().find(|c| SEARCHER[c.range.clone()].contains("fn count")).unwrap();
    let text = &SEARCHER[count.range.clone()];
    assert!(text.starts_with("/// How often") && text.contains("#[inline]"), "{text:?}");
    // Roomy: the whole file is one chunk, which names no single symbol.
    let whole = chunk(SEARCHER, "rust", 10_000);
    assert_eq!(whole.len(), 1);
    assert!(whole[0].meta.symbols.is_empty(), "{:?}", whole[0].meta.symbols);
}

#[test]
fn symbols_in_the_other_languages() {
    let cases: [(&str, &str, &[&str]); 6] = [
        ("inventory.py", "sign = \"+\"", &["class Inventory", "class Movement", "def __repr__"]),
        ("inventory.go", "return inv.change(sku, units", &["func (*Inventory) Receive"]),
        ("inventory.ts", "Math.round(cents", &["namespace Pricing", "function withVat"]),
        ("Inventory.java", "levels.getOrDefault", &["class Inventory", "method stock"]),
        ("inventory.cpp", "history_.push", &["namespace shop", "class Inventory", "function change"]),
        ("inventory.c", "memset(inv", &["function inventory_init"]),
    ];
    for (file, needle, expected) in cases {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/code").join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let chunks = chunk(&text, DocKind::grammar(&path).unwrap(), 300);
        assert_eq!(symbols_at(&text, &chunks, needle), expected, "{file}");
    }
}

#[test]
fn decorators_go_with_the_function_they_decorate() {
    let py = "import functools\n\n\n@functools.cache\n@staticmethod\ndef answer():\n    return 42\n";
    let chunks = chunk(py, "python", 60);
    let def = chunks.iter().find(|c| py[c.range.clone()].contains("def answer")).unwrap();
    assert!(py[def.range.clone()].starts_with("@functools.cache"), "{:?}", &py[def.range.clone()]);
    assert_eq!(def.meta.symbols, ["def answer"]);
}

#[test]
fn an_oversize_function_falls_back_to_statements_then_lines() {
    let body: String = (0..40).map(|i| format!("    let v{i} = {i} * 2; // 第{i}步\n")).collect();
    let text = format!("fn big() {{\n{body}}}\n\nfn small() {{}}\n");
    let chunks = chunk(&text, "rust", 200);
    assert!(chunks.len() > 5);
    // The head stays with the first statements; every statement is whole.
    assert!(
        text[chunks[0].range.clone()].starts_with("fn big() {\n    let v0"),
        "{:?}",
        &text[chunks[0].range.clone()]
    );
    for c in &chunks {
        let s = &text[c.range.clone()];
        assert!(s.starts_with("fn ") || s.starts_with("let ") || s.starts_with('}'), "{s:?}");
    }
    assert_eq!(chunks.last().unwrap().meta.symbols, ["fn small"]);
    assert!(chunks.iter().filter(|c| text[c.range.clone()].contains("let v")).all(|c| c.meta.symbols == ["fn big"]));
    // One line longer than the size: cut by the recursive splitter, words then graphemes.
    let long = format!("fn s() -> &'static str {{\n    \"{}\"\n}}\n", "雪が降る ".repeat(60));
    let chunks = chunk(&long, "rust", 50);
    assert!(chunks.len() > 5 && chunks.iter().all(|c| c.size <= 50));
}

#[test]
fn chinese_comments_stay_with_their_code_in_every_unit() {
    let text = "// 计算库存总价值（单位：分）\nfn value(items: &[(i64, i64)]) -> i64 {\n    // 逐项相乘再求和\n    items.iter().map(|(price, n)| price * n).sum()\n}\n\n/// 检查是否需要补货\nfn low(n: i64) -> bool {\n    n <= 10\n}\n";
    for unit in Unit::ALL {
        let checker = Checker::new(text, unit);
        let size = checker.index.size(0..text.find("\n\n").unwrap());
        let chunks = run_and_check(&checker, &code_config(Some("rust"), unit, size)).unwrap().unwrap();
        let first = &text[chunks[0].range.clone()];
        assert!(first.starts_with("// 计算库存总价值") && first.ends_with('}'), "{unit}: {first:?}");
        assert_eq!(chunks[0].meta.symbols, ["fn value"], "{unit}");
        assert!(text[chunks[1].range.clone()].starts_with("/// 检查是否需要补货"), "{unit}");
    }
}

#[test]
fn broken_code_is_still_covered_within_the_size() {
    let text = "fn ok() { 1 }\n\nfn broken( { let x = ;; }\n\nimpl { fn also() {} \n\nstruct After { a: u8 }\n";
    for size in [10, 30, 200] {
        let chunks = chunk(text, "rust", size);
        assert!(!chunks.is_empty());
    }
    // Prose given as code parses into errors and is still chunked.
    let prose = "这不是代码。It is prose, with (unbalanced brackets and \"quotes.\n\nSecond paragraph.";
    for language in ["rust", "python", "javascript", "typescript", "go", "java", "c", "cpp", "tsx"] {
        chunk(prose, language, 20);
    }
}

#[test]
fn a_file_too_big_to_parse_is_refused_with_what_to_do() {
    let text = "x".repeat(chunktui::strategy::code::MAX_PARSE_BYTES + 1);
    let err = Chunker::new(&code_config(Some("rust"), Unit::Chars, 1000)).unwrap().chunk(&text).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("32 MB of rust") && msg.contains("--strategy recursive") && !msg.contains('\n'), "{msg}");
}

#[test]
fn without_a_grammar_the_recursive_presets_take_over() {
    let text = "class A\n  def f\n    1\n  end\nend\n\nclass B\n  def g\n    2\n  end\nend\n";
    let recursive = |preset: &str| {
        let mut c = ChunkConfig { strategy: StrategyKind::Recursive, size: 30, overlap: 0, ..ChunkConfig::default() };
        c.recursive.preset = preset.into();
        Chunker::new(&c).unwrap().chunk(text).unwrap()
    };
    let code = |language: Option<&str>, preset: Option<&str>| {
        let mut c = code_config(language, Unit::Chars, 30);
        if let Some(p) = preset {
            c.recursive.preset = p.into();
        }
        Chunker::new(&c).unwrap().chunk(text).unwrap()
    };
    assert_eq!(code(Some("ruby"), None), recursive("code"), "unknown language: the code preset");
    assert_eq!(code(None, None), recursive("code"), "no language: the code preset");
    assert_eq!(code(None, Some("python")), recursive("python"), "a preset chosen for the file");
    assert_eq!(code(Some("kotlin"), Some("java")), recursive("java"));
    assert!(code(None, None).iter().all(|c| c.meta.symbols.is_empty()));
}

fn chunktui(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_chunktui")).args(args).output().expect("run chunktui")
}

#[test]
fn the_command_line_picks_the_grammar_by_extension() {
    let dir = common::Dir::new();
    let file = dir.write("searcher.rs", SEARCHER.as_bytes());
    let out = chunktui(&["chunk", &file, "-s", "code", "--size", "150", "--format", "jsonl"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains(r#""symbols":["impl Searcher","fn find"]"#), "{stdout}");
    // --language wins over the extension; the text format shows the symbols.
    let txt = dir.write("searcher.txt", SEARCHER.as_bytes());
    let out = chunktui(&["chunk", &txt, "-s", "code", "--language", "rust", "--size", "150", "--format", "text"]);
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("[impl Searcher > fn find]"), "{stdout}");
}

/// The workbench's pane B (`--compare CFG`) cuts the same file: a config
/// that names no language gets the file's, as pane A did from its extension.
#[cfg(feature = "tui")]
#[test]
fn the_workbench_gives_both_panes_the_files_grammar() {
    use chunktui::tui::Options;
    let dir = common::Dir::new();
    let file = dir.write("searcher.ts", b"export class Searcher {\n  find(word: string) { return word; }\n}\n");
    let b = ChunkConfig { strategy: StrategyKind::Code, ..ChunkConfig::default() };
    let open = Options { compare: Some(dir.write("b.toml", b.to_toml().as_bytes()).into()), ..Options::default() };
    let a = code_config(Some("typescript"), Unit::Chars, 100);
    let screen = ratatui::layout::Rect::new(0, 0, 80, 24);
    let setup = chunktui::tui::prepare(Path::new(&file), a, &open, false, screen).unwrap();
    for pane in &setup.model.panes {
        assert_eq!(pane.config.code.language.as_deref(), Some("typescript"));
    }
}
