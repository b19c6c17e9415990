//! Every documented command runs.
//!
//! The examples are read, not listed here: the `Examples:` sections of
//! `chunktui --help` and of every subcommand's help (the subcommands are read
//! from the `Commands:` sections), and the shell code blocks (```bash, ```sh,
//! ```console and unlabeled) of README.md and docs/*.md. A new example is
//! covered as soon as it is written.
//!
//! Each code block (and each help text) runs in a fresh temporary folder, its
//! commands in order (so `--config best.toml` after the sweep that writes it
//! reads the sweep's output), through `bash -c` with the freshly built
//! `chunktui` first on PATH, stdin null and NO_COLOR set. Before a block runs,
//! every file its commands name is made from a table keyed by role and
//! extension: documents from samples/, configs by `chunktui config init`,
//! questions that point into the documents, chunk files cut by `chunktui
//! chunk`, a documents folder, the model directory and its tokenizer.json.
//! What the commands write (`-o`, `--best`, `--output-dir`, `>`) does not
//! exist beforehand (only its folder does) and must exist afterwards.
//!
//! Expected exit status: 0; `lint` 0 or 1 (findings are exit 1 by design);
//! `diff ... --fail-on changed` 0 or 1. Never a panic: no exit 101, no signal,
//! no "panicked" or "RUST_BACKTRACE" on stderr. Every failure is collected and
//! reported in one assertion, with the command, where it is documented and
//! the end of its stderr.
//!
//! Skipped (counted, printed, and limited by pattern): the bare workbench
//! (`chunktui FILE`, covered by tests/e2e_tmux.rs) and `chunktui setup`
//! without `--model` (it installs from PyPI). `setup --model DIR`, which the
//! setup help documents, runs on a copy of $CHUNKTUI_MODEL_DIR.
#![cfg(all(feature = "cli", feature = "tui", feature = "embed", feature = "pdf", feature = "code"))]

mod common;

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_chunktui");

/// The LLM server the documentation's examples name.
const DOCUMENTED_LLM_URL: &str = "http://127.0.0.1:8080/v1";

/// A documented command that hangs this long is killed and reported.
const HANG_GUARD: Duration = Duration::from_secs(600);

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// One example as documented.
#[derive(Debug, Clone)]
struct Example {
    /// Where it is written: `README.md:178`, `chunktui eval --help`.
    source: String,
    /// The commands of one group run in order in one folder: a code block, a help text.
    group: String,
    /// The shell command to run (continuations joined, prompt and comment removed).
    command: String,
}

// ---------------------------------------------------------------------------
// Shell words.

/// Unquoted shell words of `line` (quotes removed, backslash escapes kept
/// literal outside quotes). Operators written as their own words (`|`, `>`,
/// `&&`, `;`) stay words.
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for d in chars.by_ref() {
                    if d == '\'' {
                        break;
                    }
                    cur.push(d);
                }
            }
            '"' => {
                in_word = true;
                while let Some(d) = chars.next() {
                    match d {
                        '"' => break,
                        '\\' => {
                            if let Some(e) = chars.next() {
                                if !matches!(e, '"' | '\\' | '$' | '`') {
                                    cur.push('\\');
                                }
                                cur.push(e);
                            }
                        }
                        _ => cur.push(d),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(e) = chars.next() {
                    cur.push(e);
                }
            }
            c if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        out.push(cur);
    }
    out
}

/// Byte offset of the first char of `line` outside quotes for which `at`
/// holds (given the text before it).
fn find_unquoted(line: &str, at: impl Fn(&str, usize) -> bool) -> Option<usize> {
    let (mut single, mut double, mut escaped) = (false, false, false);
    for (i, c) in line.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            '\\' if !single => escaped = true,
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            _ if !single && !double && at(line, i) => return Some(i),
            _ => {}
        }
    }
    None
}

/// `line` without a trailing shell comment (`#` starting a word, outside quotes).
fn strip_comment(line: &str) -> &str {
    let cut = find_unquoted(line, |l, i| {
        l[i..].starts_with('#') && (i == 0 || l[..i].ends_with(|c: char| c.is_whitespace()))
    });
    cut.map_or(line, |i| &line[..i]).trim_end()
}

/// A help example without its description column (which follows 2+ spaces).
fn strip_description(line: &str) -> &str {
    let cut = find_unquoted(line, |l, i| l[i..].starts_with("  "));
    cut.map_or(line, |i| &line[..i]).trim_end()
}

/// Lines with their 1-based numbers, `\` continuations joined (numbered by their first line).
fn logical_lines<'a>(lines: impl IntoIterator<Item = (usize, &'a str)>) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    let mut open: Option<(usize, String)> = None;
    for (n, line) in lines {
        let (start, mut text) = match open.take() {
            Some((start, mut acc)) => {
                acc.push(' ');
                acc.push_str(line.trim());
                (start, acc)
            }
            None => (n, line.trim().to_string()),
        };
        if text.ends_with('\\') && !text.ends_with("\\\\") {
            text.pop();
            open = Some((start, text.trim_end().to_string()));
        } else {
            out.push((start, text));
        }
    }
    out.extend(open);
    out
}

fn names_chunktui(line: &str) -> bool {
    line == "chunktui" || line.starts_with("chunktui ") || line.contains("| chunktui ")
}

// ---------------------------------------------------------------------------
// Extraction: help texts.

fn help_of(path: &[String]) -> String {
    let out = Command::new(BIN)
        .args(path)
        .arg("--help")
        // Wide enough that clap does not wrap an example onto two lines.
        .env("COLUMNS", "1000")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .expect("run chunktui --help");
    assert!(out.status.success(), "chunktui {} --help: {:?}", path.join(" "), out.status);
    String::from_utf8(out.stdout).expect("help is UTF-8")
}

/// The names in a help text's `Commands:` section (but `help`).
fn subcommands(help: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in help.lines() {
        if line.trim_end() == "Commands:" {
            inside = true;
        } else if inside {
            if line.trim().is_empty() {
                break;
            }
            // Names are indented two spaces; wrapped descriptions more.
            if let Some(rest) = line.strip_prefix("  ").filter(|r| !r.starts_with(' ')) {
                let name = rest.split_whitespace().next().unwrap_or_default();
                if name != "help" {
                    out.push(name.to_string());
                }
            }
        }
    }
    out
}

/// Whether the help text has an `Examples:` (or `Example:`) section.
fn has_examples_section(help: &str) -> bool {
    help.lines().any(|l| matches!(l.trim_end(), "Examples:" | "Example:"))
}

/// The commands of a help text's examples section.
fn help_examples(help: &str, source: &str) -> Vec<Example> {
    let mut section = Vec::new();
    let mut inside = false;
    for (i, line) in help.lines().enumerate() {
        if matches!(line.trim_end(), "Examples:" | "Example:") {
            inside = true;
        } else if inside {
            if line.trim().is_empty() {
                inside = false;
            } else {
                section.push((i + 1, line));
            }
        }
    }
    logical_lines(section)
        .into_iter()
        .map(|(_, l)| strip_description(&l).to_string())
        .filter(|l| names_chunktui(l))
        .map(|command| Example { source: source.to_string(), group: source.to_string(), command })
        .collect()
}

/// Every help text (the top level and each subcommand, recursively) with its path.
fn all_helps() -> Vec<(Vec<String>, String)> {
    let mut out = Vec::new();
    let mut todo = vec![Vec::<String>::new()];
    while let Some(path) = todo.pop() {
        let help = help_of(&path);
        for sub in subcommands(&help) {
            let mut p = path.clone();
            p.push(sub);
            todo.push(p);
        }
        out.push((path, help));
    }
    out.sort();
    out
}

// ---------------------------------------------------------------------------
// Extraction: Markdown code blocks.

const SHELL_INFO: [&str; 7] = ["", "bash", "sh", "shell", "console", "zsh", "shell-session"];

/// An open code block: its first line, whether it is shell, its numbered lines.
type Block<'a> = (usize, bool, Vec<(usize, &'a str)>);

/// The commands in the shell code blocks of a Markdown file.
fn markdown_examples(name: &str, text: &str) -> Vec<Example> {
    let mut out = Vec::new();
    let mut block: Option<Block<'_>> = None;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            match block.take() {
                Some((start, true, lines)) => out.extend(block_examples(name, start, lines)),
                Some(_) => {}
                None => {
                    let info = t.trim_start_matches(['`', '~']).split_whitespace().next().unwrap_or("");
                    block = Some((i + 1, SHELL_INFO.contains(&info), Vec::new()));
                }
            }
        } else if let Some((_, _, lines)) = block.as_mut() {
            lines.push((i + 1, line));
        }
    }
    out
}

fn block_examples(name: &str, start: usize, lines: Vec<(usize, &str)>) -> Vec<Example> {
    // In a block with prompts, only the prompted lines are commands (the rest is output).
    let prompted = lines.iter().any(|(_, l)| l.trim_start().starts_with("$ "));
    let mut out = Vec::new();
    for (n, line) in logical_lines(lines) {
        let line = match line.strip_prefix("$ ") {
            Some(rest) => rest,
            None if prompted => continue,
            None => line.as_str(),
        };
        let line = strip_comment(line).trim();
        let command = if line.starts_with("cargo run") {
            match cargo_run_as_chunktui(line) {
                Some(c) => c,
                None => continue, // another binary (`--example`): not a chunktui command
            }
        } else if names_chunktui(line) {
            line.to_string()
        } else {
            continue;
        };
        out.push(Example { source: format!("{name}:{n}"), group: format!("{name}:{start}"), command });
    }
    out
}

/// `cargo run [--release] -- ARGS` as `chunktui ARGS`; `None` for another
/// target (`--example`, `--bin`, `-p`).
fn cargo_run_as_chunktui(line: &str) -> Option<String> {
    let (cargo, args) = match line.find(" -- ") {
        Some(i) => (&line[..i], line[i + 4..].trim()),
        None => (line, ""),
    };
    let w = words(cargo);
    if w.iter().any(|w| matches!(w.as_str(), "--example" | "--bin" | "-p" | "--package")) {
        return None;
    }
    Some(format!("chunktui {args}").trim_end().to_string())
}

// ---------------------------------------------------------------------------
// What to do with an example.

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Skip {
    /// `chunktui FILE` without a subcommand: the interactive workbench (tests/e2e_tmux.rs).
    Workbench,
    /// `chunktui setup` without `--model`: installs ONNX Runtime and a model from PyPI.
    SetupInstall,
}

/// The segments of a command line, split at the unquoted operators `|`, `||`, `&&` and `;`.
fn segments(command: &str) -> Vec<Vec<String>> {
    let mut out = vec![Vec::new()];
    for w in words(command) {
        if matches!(w.as_str(), "|" | "||" | "&&" | ";") {
            out.push(Vec::new());
        } else {
            out.last_mut().unwrap().push(w);
        }
    }
    out
}

/// The arguments of the first `chunktui` in the command.
fn chunktui_args(command: &str) -> Vec<String> {
    segments(command)
        .into_iter()
        .find(|s| s.first().is_some_and(|w| w == "chunktui"))
        .map(|s| s[1..].to_vec())
        .expect("an example names chunktui")
}

fn plan(command: &str, subcommands: &BTreeSet<String>) -> Result<(), Skip> {
    let args = chunktui_args(command);
    match args.first().map(String::as_str) {
        Some("-h" | "--help" | "-V" | "--version" | "help") => Ok(()),
        Some("setup") if !args.iter().any(|a| a == "--model" || a.starts_with("--model=")) => Err(Skip::SetupInstall),
        Some(sub) if subcommands.contains(sub) => Ok(()),
        _ => Err(Skip::Workbench),
    }
}

/// The exit statuses a command may end with.
fn allowed_exits(command: &str) -> &'static [i32] {
    let args = chunktui_args(command);
    match args.first().map(String::as_str) {
        Some("lint") => &[0, 1],
        Some("diff") if args.windows(2).any(|w| w[0] == "--fail-on" && w[1] == "changed") => &[0, 1],
        Some("diff") if args.iter().any(|a| a == "--fail-on=changed") => &[0, 1],
        _ => &[0],
    }
}

// ---------------------------------------------------------------------------
// The files the examples name.

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Role {
    Input,
    Output,
    Questions,
    Config,
    Tokenizer,
    ModelDir,
}

/// Whether a word names a file: a slash, or a name with a letter extension.
fn looks_like_path(w: &str) -> bool {
    if w.is_empty() || w == "-" || w.starts_with('-') {
        return false;
    }
    if w.contains(|c: char| c.is_whitespace() || "[]{}\"'=,:;$`<>|&".contains(c)) {
        return false;
    }
    if w.contains('/') {
        return true;
    }
    match w.rsplit_once('.') {
        Some((stem, ext)) => {
            !stem.is_empty()
                && (1..=5).contains(&ext.len())
                && ext.starts_with(|c: char| c.is_ascii_alphabetic())
                && ext.chars().all(|c| c.is_ascii_alphanumeric())
        }
        None => false,
    }
}

/// A glob's folder (`docs/*.md`, `docs/**/*.md`: `docs/`), else the word.
fn unglob(w: &str) -> String {
    if !w.contains(['*', '?']) {
        return w.to_string();
    }
    let mut dir = String::new();
    for part in w.split('/') {
        if part.contains(['*', '?']) {
            break;
        }
        dir.push_str(part);
        dir.push('/');
    }
    if dir.is_empty() {
        "./".into()
    } else {
        dir
    }
}

/// The files an example names, with their roles.
fn named_paths(command: &str) -> Vec<(String, Role)> {
    let mut out = Vec::new();
    for seg in segments(command) {
        let is_chunktui = seg.first().is_some_and(|w| w == "chunktui");
        for i in 1..seg.len() {
            let (prev, w) = match seg[i].split_once('=').filter(|(f, _)| f.starts_with("--")) {
                Some((flag, value)) => (flag, value),
                None => (seg[i - 1].as_str(), seg[i].as_str()),
            };
            let role = match prev {
                ">" | ">>" | "2>" => Role::Output,
                "-o" | "--output" | "--best" | "--output-dir" | "--results" | "--out" | "--write-config"
                    if is_chunktui =>
                {
                    Role::Output
                }
                "-q" | "--queries" if is_chunktui => Role::Questions,
                "-c" | "--config" | "--compare" if is_chunktui => Role::Config,
                "--model" if is_chunktui => Role::ModelDir,
                "--tokenizer" if is_chunktui => match w.strip_prefix("hf:") {
                    Some(p) => {
                        out.push((p.to_string(), Role::Tokenizer));
                        continue;
                    }
                    None => continue,
                },
                _ => Role::Input,
            };
            // A bare name (`samples`) is a folder when it is one of this
            // repository's and stands where a positional argument does.
            let bare_folder = role == Role::Input
                && i >= 2
                && !prev.starts_with('-')
                && !w.starts_with('-')
                && w.chars().all(|c| c.is_alphanumeric() || "_-.".contains(c))
                && repo().join(w).is_dir();
            // A flag's value is a path whatever it looks like (`--model model`).
            let flag_value = role != Role::Input && !w.starts_with('-');
            if w == "-" || !(looks_like_path(w) || bare_folder || flag_value) {
                continue;
            }
            out.push((unglob(w), role));
        }
    }
    out
}

/// `rel` (relative to the working folder `cwd`) inside `root`, lexically.
fn resolve(root: &Path, cwd: &Path, rel: &str) -> PathBuf {
    let mut out = PathBuf::new();
    for c in cwd.join(rel).components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            c => out.push(c),
        }
    }
    assert!(out.starts_with(root), "{rel} points outside the temporary folder {}", root.display());
    out
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("mkdir {}: {e}", to.display()));
    for entry in std::fs::read_dir(from).unwrap_or_else(|e| panic!("read {}: {e}", from.display())) {
        let entry = entry.expect("directory entry");
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target)
                .unwrap_or_else(|e| panic!("copy {} to {}: {e}", entry.path().display(), target.display()));
        }
    }
}

fn write(path: &Path, bytes: &[u8]) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("mkdir {}: {e}", parent.display()));
    }
    std::fs::write(path, bytes).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
}

fn sample(name: &str) -> PathBuf {
    let p = repo().join("samples").join(name);
    assert!(p.is_file(), "the fixture table copies {}, which is missing", p.display());
    p
}

/// The default model directory (`$CHUNKTUI_MODEL_DIR`, else the one `chunktui setup` installs).
fn model_dir() -> PathBuf {
    match std::env::var_os("CHUNKTUI_MODEL_DIR").filter(|d| !d.is_empty()) {
        Some(d) => PathBuf::from(d),
        None => {
            let home = std::env::var_os("HOME").expect("HOME or CHUNKTUI_MODEL_DIR");
            Path::new(&home).join(".cache/chunktui/models/all-MiniLM-L6-v2-int8")
        }
    }
}

/// Run chunktui to make a fixture; its stdout.
fn chunktui_stdout(args: &[&str]) -> Vec<u8> {
    let out = Command::new(BIN).args(args).env("NO_COLOR", "1").stdin(Stdio::null()).output().expect("run chunktui");
    assert!(
        out.status.success(),
        "making a fixture: chunktui {}: {:?}\n{}",
        args.join(" "),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// Questions (JSONL, or Chroma's CSV) whose answers are in the guide
/// (samples/guide.md, the content of every English .md fixture and of the
/// documents folder's guide.md).
fn questions(csv: bool) -> Vec<u8> {
    let text = std::fs::read_to_string(sample("questions.jsonl")).expect("read samples/questions.jsonl");
    let rows: Vec<Value> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str::<Value>(l).expect("samples/questions.jsonl is JSONL"))
        .filter(|v| v["corpus_id"] == "guide")
        .collect();
    assert!(!rows.is_empty(), "samples/questions.jsonl has no questions about the guide");
    if !csv {
        return rows.iter().map(|v| format!("{v}\n")).collect::<String>().into_bytes();
    }
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(["question", "references", "corpus_id"]).unwrap();
    for v in &rows {
        let q = v["question"].as_str().unwrap();
        w.write_record([q, &v["references"].to_string(), "guide"]).unwrap();
    }
    w.into_inner().unwrap()
}

/// Make the fixture `rel` (relative to `cwd`) for its role, by the table.
/// `size` differs between configs (and chunk files) of one group.
fn make_fixture(root: &Path, cwd: &Path, rel: &str, role: Role, size: usize) {
    let path = resolve(root, cwd, rel);
    let dir_like = rel.ends_with('/') || rel == "." || Path::new(rel).extension().is_none();
    let ext = Path::new(rel).extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase();
    let name = Path::new(rel).file_name().and_then(|n| n.to_str()).unwrap_or("").to_ascii_lowercase();
    // A path of this repository (samples/..., README.md, src/lib.rs) is copied,
    // but `docs/` is a documents folder of the reader's, not ours.
    let in_repo = (!rel.starts_with("../") && !rel.starts_with('/') && !rel.starts_with("docs"))
        .then(|| repo().join(rel))
        .filter(|p| p.exists() && !matches!(rel, "." | "./"));
    match role {
        Role::Output => unreachable!("outputs are not made"),
        Role::ModelDir => copy_dir(&model_dir(), &path),
        Role::Tokenizer => {
            write(&path, &std::fs::read(model_dir().join("tokenizer.json")).expect("the model's tokenizer.json"))
        }
        _ if name == "tokenizer.json" => make_fixture(root, cwd, rel, Role::Tokenizer, size),
        _ if in_repo.as_ref().is_some_and(|p| p.is_dir()) => copy_dir(in_repo.as_ref().unwrap(), &path),
        _ if in_repo.is_some() => write(&path, &std::fs::read(in_repo.unwrap()).expect("read a repository file")),
        Role::Questions => write(&path, &questions(ext == "csv")),
        Role::Config | Role::Input if matches!(ext.as_str(), "toml" | "json") => {
            let size = size.to_string();
            let mut args = vec!["config", "init", "--size", &size];
            if ext == "json" {
                args.push("--json");
            }
            write(&path, &chunktui_stdout(&args));
        }
        Role::Config => panic!("no fixture for the config {rel}: add its extension to the table"),
        Role::Input if dir_like => {
            // A documents folder: the guide (the questions point into it), a
            // second document, and one a level down (for `**` globs).
            std::fs::create_dir_all(&path).unwrap();
            write(&path.join("guide.md"), &std::fs::read(sample("guide.md")).unwrap());
            write(&path.join("river-glossary.md"), &std::fs::read(sample("river-glossary.md")).unwrap());
            write(&path.join("notes/changelog.md"), &std::fs::read(sample("changelog.md")).unwrap());
        }
        Role::Input => {
            let stem = Path::new(rel).file_stem().and_then(|s| s.to_str()).unwrap_or("").to_ascii_lowercase();
            let from = match ext.as_str() {
                "md" | "markdown" if stem.contains("zh") || stem.contains("chinese") => sample("zh-article.md"),
                "md" | "markdown" => sample("guide.md"),
                "txt" => sample("notes.txt"),
                "html" | "htm" => sample("handbook.html"),
                "pdf" => sample("report.pdf"),
                "rs" => sample("cache.rs"),
                "py" | "js" | "ts" | "go" | "c" | "cpp" => sample(&format!("code/inventory.{ext}")),
                "java" => sample("code/Inventory.java"),
                "jsonl" => {
                    // Chunk records of the guide; "langchain" ones as another tool writes them.
                    let guide = sample("guide.md");
                    let size = size.to_string();
                    let jsonl = chunktui_stdout(&["chunk", guide.to_str().unwrap(), "--size", &size]);
                    let records = if stem.contains("langchain") {
                        let text = String::from_utf8(jsonl).unwrap();
                        let mut out = String::new();
                        for line in text.lines() {
                            let v: Value = serde_json::from_str(line).unwrap();
                            let r = serde_json::json!({"text": v["text"], "start_index": v["char_start"]});
                            out.push_str(&format!("{r}\n"));
                        }
                        out.into_bytes()
                    } else {
                        jsonl
                    };
                    write(&path, &records);
                    return;
                }
                "csv" => return make_fixture(root, cwd, rel, Role::Questions, size),
                _ => panic!("no fixture for {rel}: add its extension to the table in tests/documented_commands.rs"),
            };
            write(&path, &std::fs::read(from).unwrap());
        }
    }
}

// ---------------------------------------------------------------------------
// Running.

struct Outcome {
    code: Option<i32>,
    signal: Option<i32>,
    timed_out: bool,
    stderr: String,
    elapsed: Duration,
}

fn run(command: &str, cwd: &Path, log: &Path, cache: &Path) -> Outcome {
    let bin_dir = Path::new(BIN).parent().unwrap();
    let path = match std::env::var_os("PATH") {
        Some(p) => {
            let mut dirs = vec![bin_dir.to_path_buf()];
            dirs.extend(std::env::split_paths(&p));
            std::env::join_paths(dirs).unwrap()
        }
        None => bin_dir.as_os_str().to_owned(),
    };
    let out_file = std::fs::File::create(log.with_extension("out")).unwrap();
    let err_path = log.with_extension("err");
    let err_file = std::fs::File::create(&err_path).unwrap();
    let started = Instant::now();
    let mut child = Command::new("bash")
        .arg("-c")
        .arg(format!("set -o pipefail\n{command}"))
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(out_file)
        .stderr(err_file)
        .env("PATH", path)
        .env("NO_COLOR", "1")
        .env("CHUNKTUI_CACHE_DIR", cache)
        .env("CHUNKTUI_MODEL_DIR", model_dir())
        .env_remove("RUST_BACKTRACE")
        .process_group(0)
        .spawn()
        .expect("run bash");
    let mut timed_out = false;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for bash") {
            break status;
        }
        if started.elapsed() > HANG_GUARD {
            // The whole process group: bash and the chunktui it started.
            let _ = Command::new("kill").args(["-KILL", "--", &format!("-{}", child.id())]).status();
            timed_out = true;
            break child.wait().expect("wait for the killed command");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Outcome {
        code: status.code(),
        signal: status.signal(),
        timed_out,
        stderr: String::from_utf8_lossy(&std::fs::read(&err_path).unwrap_or_default()).into_owned(),
        elapsed: started.elapsed(),
    }
}

/// What is wrong with an outcome, if anything.
fn judge(command: &str, o: &Outcome) -> Option<String> {
    if o.timed_out {
        return Some(format!("still running after {HANG_GUARD:?}: killed (it hangs)"));
    }
    if o.stderr.contains("panicked") || o.stderr.contains("RUST_BACKTRACE") {
        return Some(format!("panicked (exit {:?})", o.code));
    }
    if let Some(sig) = o.signal {
        return Some(format!("killed by signal {sig}"));
    }
    match o.code {
        Some(101) => Some("exit 101 (a panic)".into()),
        // bash reports a child killed by a signal as 128 + the signal.
        Some(c) if c > 128 => Some(format!("exit {c}: killed by signal {}", c - 128)),
        Some(c) if !allowed_exits(command).contains(&c) => {
            Some(format!("exit {c}, expected {:?}", allowed_exits(command)))
        }
        Some(_) => None,
        None => Some("no exit status".into()),
    }
}

fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].iter().map(|l| format!("    | {l}\n")).collect()
}

// ---------------------------------------------------------------------------

#[test]
fn every_documented_command_runs() {
    // The examples: help texts, then README.md and docs/*.md.
    let helps = all_helps();
    let subs: BTreeSet<String> = helps.iter().filter_map(|(p, _)| p.first().cloned()).collect();
    for expected in ["chunk", "stats", "eval", "sweep", "diff", "lint", "export", "config", "setup", "bench"] {
        assert!(subs.contains(expected), "`chunktui --help` does not list `{expected}`: {subs:?}");
    }
    let mut examples: Vec<Example> = Vec::new();
    let mut per_help: BTreeMap<String, usize> = BTreeMap::new();
    for (path, help) in &helps {
        let source = format!("chunktui {}--help", path.iter().map(|p| format!("{p} ")).collect::<String>());
        let found = help_examples(help, &source);
        if has_examples_section(help) {
            assert!(!found.is_empty(), "`{source}` has an examples section but no command was read from it");
        }
        per_help.insert(source, found.len());
        examples.extend(found);
    }
    // `setup --model DIR` is documented by the setup help's options, not by an example.
    let setup_help = &helps.iter().find(|(p, _)| p == &["setup"]).expect("setup help").1;
    assert!(setup_help.contains("--model <DIR>"), "`chunktui setup --help` no longer documents --model <DIR>");
    examples.push(Example {
        source: "chunktui setup --help (--model <DIR>)".into(),
        group: "chunktui setup --help (--model <DIR>)".into(),
        command: "chunktui setup --model model".into(),
    });

    let mut docs: Vec<PathBuf> = std::fs::read_dir(repo().join("docs"))
        .expect("read docs/")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    let mut markdown = vec![repo().join("README.md")];
    markdown.extend(docs);
    let mut per_file: BTreeMap<String, usize> = BTreeMap::new();
    for file in &markdown {
        let name = file.strip_prefix(repo()).unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("read {name}: {e}"));
        let found = markdown_examples(&name, &text);
        per_file.insert(name, found.len());
        examples.extend(found);
    }

    // Enough found that the test cannot pass by reading nothing.
    let help_total: usize = per_help.values().sum();
    let readme = per_file["README.md"];
    let md_total: usize = per_file.values().sum();
    println!("examples per help text: {per_help:?}");
    println!("examples per Markdown file: {per_file:?}");
    assert!(
        per_help["chunktui --help"] >= 5,
        "only {} examples read from chunktui --help",
        per_help["chunktui --help"]
    );
    assert!(help_total >= 15, "only {help_total} examples read from the help texts: {per_help:?}");
    assert!(readme >= 20, "only {readme} examples read from README.md");
    assert!(md_total >= 30, "only {md_total} examples read from README.md and docs/*.md: {per_file:?}");

    // Run or skip.
    let (mut runnable, mut skipped): (Vec<Example>, Vec<(Example, Skip)>) = (Vec::new(), Vec::new());
    for ex in examples {
        match plan(&ex.command, &subs) {
            Ok(()) => runnable.push(ex),
            Err(why) => skipped.push((ex, why)),
        }
    }
    for (ex, why) in &skipped {
        println!("skip ({why:?}) {}: {}", ex.source, ex.command);
    }
    assert!(
        skipped.len() <= 8 && skipped.len() * 5 <= runnable.len(),
        "{} of {} examples skipped; only the workbench and `setup` without --model may be:\n{}",
        skipped.len(),
        skipped.len() + runnable.len(),
        skipped.iter().map(|(e, w)| format!("  {w:?} {}: {}\n", e.source, e.command)).collect::<String>()
    );

    // By group (a code block, a help text), in document order.
    let mut groups: Vec<(String, Vec<Example>)> = Vec::new();
    for ex in runnable {
        match groups.iter_mut().find(|(g, _)| *g == ex.group) {
            Some((_, list)) => list.push(ex),
            None => groups.push((ex.group.clone(), vec![ex])),
        }
    }

    // The LLM examples name a local server at this address: a scripted
    // endpoint answers in its place (tests/llm_server.rs has the real one).
    let llm = common::fake_llm::FakeServer::start(|_, seen| common::fake_llm::generic(seen));
    let top = tempfile::tempdir().expect("create a temporary directory");
    let cache = top.path().join("cache");
    std::fs::create_dir_all(&cache).unwrap();
    let mut failures: Vec<String> = Vec::new();
    let mut ran = 0;
    for (gi, (group, list)) in groups.iter().enumerate() {
        let root = top.path().join(format!("g{gi}"));
        let cwd = root.join("cwd");
        let logs = root.join("logs");
        std::fs::create_dir_all(&cwd).unwrap();
        std::fs::create_dir_all(&logs).unwrap();

        // The group's files: outputs are not made (their folders are), the rest by the table.
        let named: Vec<(String, Role)> = list.iter().flat_map(|e| named_paths(&e.command)).collect();
        let outputs: BTreeSet<PathBuf> =
            named.iter().filter(|(_, r)| *r == Role::Output).map(|(p, _)| resolve(&root, &cwd, p)).collect();
        let mut inputs: Vec<(String, Role)> = named
            .iter()
            .filter(|(p, r)| *r != Role::Output && !outputs.contains(&resolve(&root, &cwd, p)))
            .cloned()
            .collect();
        // Folders first (a file inside one is then made by its own row), each path once.
        inputs.sort_by_key(|(p, r)| (!(p.ends_with('/') || Path::new(p).extension().is_none()), p.clone(), *r));
        inputs.dedup_by(|a, b| resolve(&root, &cwd, &a.0) == resolve(&root, &cwd, &b.0));
        for (k, (rel, role)) in inputs.iter().enumerate() {
            // Configs and chunk files of one group differ in size (old.toml vs new.toml).
            let size = [400, 300, 500, 250, 600][k % 5];
            make_fixture(&root, &cwd, rel, *role, size);
        }
        for out in &outputs {
            if let Some(parent) = out.parent() {
                std::fs::create_dir_all(parent).unwrap();
            }
            assert!(!out.exists(), "{group}: the output {} exists before the commands run", out.display());
        }

        for (ci, ex) in list.iter().enumerate() {
            let log = logs.join(format!("{ci}"));
            let o = run(&ex.command.replace(DOCUMENTED_LLM_URL, &llm.url), &cwd, &log, &cache);
            ran += 1;
            println!(
                "{:>6.1}s exit {:>4} {}: {}",
                o.elapsed.as_secs_f64(),
                o.code.map_or_else(|| format!("sig{}", o.signal.unwrap_or(0)), |c| c.to_string()),
                ex.source,
                ex.command
            );
            if let Some(problem) = judge(&ex.command, &o) {
                failures.push(format!("{}: `{}`: {problem}\n{}", ex.source, ex.command, tail(&o.stderr, 15)));
                continue;
            }
            // What it says it writes, it wrote.
            for (rel, role) in named_paths(&ex.command) {
                let p = resolve(&root, &cwd, &rel);
                if role == Role::Output && !p.exists() {
                    failures.push(format!(
                        "{}: `{}`: exit {:?} but {rel} was not written\n{}",
                        ex.source,
                        ex.command,
                        o.code,
                        tail(&o.stderr, 15)
                    ));
                }
            }
        }
    }
    println!("{ran} documented commands ran, {} skipped, {} failed", skipped.len(), failures.len());
    assert!(failures.is_empty(), "{} of {ran} documented commands failed:\n\n{}", failures.len(), failures.join("\n"));
}

// ---------------------------------------------------------------------------
// The extraction itself.

#[test]
fn comments_descriptions_and_continuations() {
    assert_eq!(strip_comment("chunktui chunk a.md   # a comment"), "chunktui chunk a.md");
    assert_eq!(strip_comment("chunktui chunk a.md --separator '#' # sep"), "chunktui chunk a.md --separator '#'");
    assert_eq!(strip_comment(r#"chunktui chunk "a #b.md""#), r#"chunktui chunk "a #b.md""#);
    assert_eq!(strip_comment("chunktui chunk a#b.md"), "chunktui chunk a#b.md");
    assert_eq!(
        strip_description("chunktui stats g.md --config c.toml    sizes, overlap"),
        "chunktui stats g.md --config c.toml"
    );
    assert_eq!(strip_description("chunktui chunk x --separator '  '  desc"), "chunktui chunk x --separator '  '");
    let joined =
        logical_lines([(1, "chunktui sweep s \\"), (2, "   --size 1,2 --best b.toml"), (3, "chunktui lint g.md")]);
    assert_eq!(
        joined,
        vec![(1, "chunktui sweep s --size 1,2 --best b.toml".to_string()), (3, "chunktui lint g.md".to_string())]
    );
    assert_eq!(
        words(r#"chunktui chunk doc.md --separators '["\n\n", "。"]' "a b""#),
        ["chunktui", "chunk", "doc.md", "--separators", r#"["\n\n", "。"]"#, "a b"]
    );
    assert_eq!(
        cargo_run_as_chunktui("cargo run --release -- samples/guide.md").as_deref(),
        Some("chunktui samples/guide.md")
    );
    assert_eq!(cargo_run_as_chunktui("cargo run --example adaptive_picture -- x.md"), None);
}

#[test]
fn paths_and_roles() {
    let got = named_paths(
        "cat doc.txt | chunktui chunk - -o chunks.jsonl --tokenizer hf:./tokenizer.json --config c.toml --size 0.5",
    );
    assert_eq!(
        got,
        [
            ("doc.txt".to_string(), Role::Input),
            ("chunks.jsonl".to_string(), Role::Output),
            ("./tokenizer.json".to_string(), Role::Tokenizer),
            ("c.toml".to_string(), Role::Config),
        ]
    );
    assert_eq!(named_paths("chunktui diff a.toml b.toml 'docs/**/*.md' --fail-on changed")[2].0, "docs/");
    assert_eq!(
        named_paths("chunktui sweep samples -q q.csv --best=best.toml"),
        [
            ("samples".to_string(), Role::Input),
            ("q.csv".to_string(), Role::Questions),
            ("best.toml".to_string(), Role::Output),
        ]
    );
    assert_eq!(named_paths("chunktui setup --model model"), [("model".to_string(), Role::ModelDir)]);
    assert!(!looks_like_path("bm25,dense") && !looks_like_path("cl100k_base") && !looks_like_path("0.5"));
    let subs: BTreeSet<String> = ["chunk", "setup"].iter().map(|s| s.to_string()).collect();
    assert_eq!(plan("chunktui samples/guide.md --size 400", &subs), Err(Skip::Workbench));
    assert_eq!(plan("chunktui setup", &subs), Err(Skip::SetupInstall));
    assert_eq!(plan("chunktui setup --model m", &subs), Ok(()));
    assert_eq!(plan("cat d.txt | chunktui chunk -", &subs), Ok(()));
    assert_eq!(allowed_exits("chunktui lint g.md"), [0, 1]);
    assert_eq!(allowed_exits("chunktui diff a b c --fail-on changed"), [0, 1]);
    assert_eq!(allowed_exits("chunktui diff a b c"), [0]);
}

#[test]
fn judging_outcomes() {
    let o = |code: Option<i32>, signal: Option<i32>, stderr: &str| Outcome {
        code,
        signal,
        timed_out: false,
        stderr: stderr.to_string(),
        elapsed: Duration::ZERO,
    };
    assert!(judge("chunktui chunk a.md", &o(Some(0), None, "")).is_none());
    assert!(judge("chunktui lint a.md", &o(Some(1), None, "a.md:3: tiny-fragment: ...")).is_none());
    assert!(judge("chunktui chunk a.md", &o(Some(1), None, "")).is_some());
    assert!(judge("chunktui chunk a.md", &o(Some(2), None, "chunktui: error: x")).is_some());
    assert!(judge("chunktui lint a.md", &o(Some(101), None, "")).is_some());
    assert!(judge("chunktui lint a.md", &o(Some(1), None, "thread 'main' panicked at src/x.rs")).is_some());
    assert!(judge("chunktui lint a.md", &o(Some(0), None, "note: run with `RUST_BACKTRACE=1`")).is_some());
    assert!(judge("cat a | chunktui chunk -", &o(Some(137), None, "")).is_some());
    assert!(judge("chunktui chunk a.md", &o(None, Some(9), "")).is_some());
}
