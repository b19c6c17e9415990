//! The Rust snippets of `chunktui export --to text-splitter` compile and run
//! against the real crate (text-splitter, pinned in [dev-dependencies]).
//!
//! tests/export_snippets/ holds what `chunktui export` prints for four
//! configs (characters, tiktoken cl100k and o200k, a word sizer; TextSplitter
//! and MarkdownSplitter). Each is included here as a module, so building this
//! test compiles them with the crate version they name, at no cost beyond the
//! test's own build (no scratch cargo project). This test then checks that
//! the files are still what the command prints, and runs each program as a
//! child process of itself (it reads the document named by its first
//! argument, like `cargo run -- FILE`): its chunks appear in the text in
//! order and keep to the size, measured with chunktui's own sizer.
//! A Hugging Face sizer is not built here: text-splitter's `tokenizers`
//! feature needs the Oniguruma C library, which chunktui does not build.
//!
//! `harness = false` (Cargo.toml): `main` either runs one included program
//! (when [`RUN`] names it) or runs the checks.

use chunktui::config::Unit;
use chunktui::size::Sizer;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A snippet as a module; its (private) `main` is reached through `run`.
macro_rules! snippet {
    ($name:ident) => {
        mod $name {
            include!(concat!("export_snippets/", stringify!($name), ".rs"));
            pub(super) fn run() -> Result<(), Box<dyn std::error::Error>> {
                main()
            }
        }
    };
}
snippet!(chars);
snippet!(tiktoken);
snippet!(markdown);
snippet!(words);

/// Set to a snippet's name, the child process runs that program.
const RUN: &str = "CHUNKTUI_RUN_EXPORT_SNIPPET";

type Program = fn() -> Result<(), Box<dyn std::error::Error>>;

struct Case {
    name: &'static str,
    program: Program,
    flags: &'static [&'static str],
    unit: Unit,
    tokenizer: &'static str,
    size: usize,
}

const CASES: &[Case] = &[
    Case {
        name: "chars",
        program: chars::run,
        flags: &["--strategy", "recursive", "--size", "300", "--overlap", "30"],
        unit: Unit::Chars,
        tokenizer: "cl100k_base",
        size: 300,
    },
    Case {
        name: "tiktoken",
        program: tiktoken::run,
        flags: &["--strategy", "langchain-token", "--size", "64", "--overlap", "8"],
        unit: Unit::Tokens,
        tokenizer: "cl100k_base",
        size: 64,
    },
    Case {
        name: "markdown",
        program: markdown::run,
        flags: &[
            "--strategy",
            "markdown",
            "--unit",
            "tokens",
            "--tokenizer",
            "o200k_base",
            "--size",
            "120",
            "--overlap",
            "0",
        ],
        unit: Unit::Tokens,
        tokenizer: "o200k_base",
        size: 120,
    },
    Case {
        name: "words",
        program: words::run,
        flags: &["--strategy", "sentence", "--unit", "words", "--size", "40"],
        unit: Unit::Words,
        tokenizer: "cl100k_base",
        size: 40,
    },
];

/// The one test this binary is to a runner that lists tests first
/// (cargo-nextest asks `--list --format terse`, then runs `--exact NAME`).
const TEST_NAME: &str = "export_snippets_build_run_and_keep_to_the_size";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--list") {
        // No ignored tests here: the `--ignored` listing is empty.
        if !args.iter().any(|a| a == "--ignored") {
            println!("{TEST_NAME}: test");
        }
        return;
    }
    if let Ok(name) = std::env::var(RUN) {
        let case = CASES.iter().find(|c| c.name == name).expect("a known snippet");
        if let Err(e) = (case.program)() {
            eprintln!("{e}");
            std::process::exit(1);
        }
        return;
    }
    let docs = [repo().join("samples/guide.md"), repo().join("samples/zh-article.md")];
    for case in CASES {
        // The command exists only with the CLI.
        #[cfg(feature = "cli")]
        snippet_is_what_export_prints(case);
        for doc in &docs {
            snippet_runs_and_keeps_to_the_size(case, doc);
        }
        println!("export snippet {}: ok", case.name);
    }
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[cfg(feature = "cli")]
fn snippet_is_what_export_prints(case: &Case) {
    let out = Command::new(env!("CARGO_BIN_EXE_chunktui"))
        .arg("export")
        .args(case.flags)
        .args(["--to", "text-splitter"])
        .output()
        .expect("run chunktui");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let file = repo().join(format!("tests/export_snippets/{}.rs", case.name));
    let held = std::fs::read_to_string(&file).unwrap();
    assert_eq!(
        held,
        String::from_utf8(out.stdout).unwrap(),
        "{} is not what `chunktui export {} --to text-splitter` prints now: write it again with -o",
        file.display(),
        case.flags.join(" ")
    );
}

fn snippet_runs_and_keeps_to_the_size(case: &Case, doc: &Path) {
    let out = Command::new(std::env::current_exe().unwrap()).arg(doc).env(RUN, case.name).output().unwrap();
    assert!(out.status.success(), "{}: {}", case.name, String::from_utf8_lossy(&out.stderr));
    let chunks: Vec<String> = String::from_utf8(out.stdout).unwrap().lines().map(unquote).collect();
    assert!(chunks.len() > 1, "{} on {}: {chunks:?}", case.name, doc.display());
    let text = std::fs::read_to_string(doc).unwrap();
    let sizer = Sizer::for_unit(case.unit, case.tokenizer).unwrap();
    let mut from = 0;
    for c in &chunks {
        assert!(!c.trim().is_empty(), "{}: an empty chunk", case.name);
        let at = text[from..].find(c.as_str()).unwrap_or_else(|| panic!("{}: {c:?} is not in order", case.name));
        from += at + c.chars().next().map_or(1, char::len_utf8);
        // The word sizer counts at whitespace: chunktui's Unicode words
        // count CJK ideographs one by one, so they are only compared for text with spaces.
        if case.unit != Unit::Words || c.is_ascii() {
            assert!(
                sizer.size(c) <= case.size,
                "{}: {} {} > {}: {c:?}",
                case.name,
                sizer.size(c),
                case.unit,
                case.size
            );
        }
    }
}

/// A line of `println!("{chunk:?}")` back to the chunk: Rust's string escapes.
fn unquote(line: &str) -> String {
    let inner = line.strip_prefix('"').and_then(|l| l.strip_suffix('"')).expect("a quoted chunk");
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('0') => out.push('\0'),
            Some('u') => {
                let hex: String = chars.by_ref().skip(1).take_while(|&c| c != '}').collect();
                out.push(char::from_u32(u32::from_str_radix(&hex, 16).unwrap()).unwrap());
            }
            Some(other) => out.push(other),
            None => panic!("a dangling backslash in {line}"),
        }
    }
    out
}
