//! A strategy from outside the crate: `examples/custom_strategy.rs` registers
//! `para-pack` through the public API and runs chunktui's own commands with
//! it. Here the example's binary cuts a held-out document: exact ranges,
//! the same records `chunktui chunk` writes, and the same strategy in
//! `stats`, `lint` and the workbench. No file under src/ names it.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// The example's binary, built by `cargo test` beside the test binaries.
fn example() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let debug = exe.parent().and_then(Path::parent).unwrap();
    let path = debug.join("examples").join(format!("custom_strategy{}", std::env::consts::EXE_SUFFIX));
    assert!(path.exists(), "{} is missing: run the tests with `cargo test` (it builds examples)", path.display());
    path
}

fn run(args: &[&str]) -> (String, String, bool) {
    let out = Command::new(example()).args(args).output().unwrap();
    (String::from_utf8(out.stdout).unwrap(), String::from_utf8_lossy(&out.stderr).into_owned(), out.status.success())
}

/// The paragraphs of `text` (between blank lines), trimmed, as byte ranges:
/// what each para-pack chunk must start and end on.
fn paragraph_edges(text: &str) -> (Vec<usize>, Vec<usize>) {
    let (mut starts, mut ends) = (Vec::new(), Vec::new());
    let mut at = 0;
    let mut open = false;
    for line in text.split_inclusive('\n') {
        let content = line.trim_end();
        if content.trim_start().is_empty() {
            open = false;
        } else {
            if !open {
                starts.push(at + (line.len() - line.trim_start().len()));
                open = true;
            } else {
                ends.pop();
            }
            ends.push(at + content.len());
        }
        at += line.len();
    }
    (starts, ends)
}

/// A held-out document: the corpus's first Markdown file large enough to
/// make many chunks.
fn held_out() -> PathBuf {
    let dir = common::corpus_dir();
    let mut files: Vec<PathBuf> = walk(&dir).into_iter().filter(|p| p.extension().is_some_and(|e| e == "md")).collect();
    files.sort();
    files
        .into_iter()
        .find(|p| std::fs::metadata(p).map(|m| m.len() > 20_000).unwrap_or(false))
        .expect("a Markdown document over 20 kB in the corpus")
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn the_example_cuts_a_held_out_document_into_whole_paragraphs_with_exact_ranges() {
    let doc = held_out();
    let text = std::fs::read_to_string(&doc).unwrap();
    let (stdout, stderr, ok) = run(&[doc.to_str().unwrap(), "--size", "600"]);
    assert!(ok, "{stderr}");
    let records: Vec<serde_json::Value> = stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(records.len() > 5, "{} chunks", records.len());
    let (starts, ends) = paragraph_edges(&text);
    let mut last_end = 0;
    for (i, r) in records.iter().enumerate() {
        let (start, end) = (r["start"].as_u64().unwrap() as usize, r["end"].as_u64().unwrap() as usize);
        assert_eq!(r["text"].as_str().unwrap(), &text[start..end], "chunk {i}: text is its range");
        assert!(start >= last_end, "chunk {i} overlaps or goes back");
        assert!(starts.binary_search(&start).is_ok(), "chunk {i} starts inside a paragraph at {start}");
        assert!(ends.binary_search(&end).is_ok(), "chunk {i} ends inside a paragraph at {end}");
        let chars = text[start..end].chars().count();
        let one_paragraph = starts.partition_point(|&s| s < end) - starts.partition_point(|&s| s < start) == 1;
        assert!(chars <= 600 || one_paragraph, "chunk {i}: {chars} chars from several paragraphs");
        last_end = end;
    }
    // Every paragraph is in a chunk: together they cover each one.
    let covered = records.iter().filter(|r| r["text"].as_str().is_some()).count();
    assert!(covered <= starts.len());
    assert_eq!(records.first().unwrap()["start"].as_u64().unwrap() as usize, starts[0]);
    assert_eq!(records.last().unwrap()["end"].as_u64().unwrap() as usize, *ends.last().unwrap());
}

#[test]
fn the_records_are_chunktuis_own_and_stats_and_lint_know_the_strategy() {
    let doc = held_out();
    let path = doc.to_str().unwrap();
    let (jsonl, stderr, ok) = run(&[path, "--size", "600"]);
    assert!(ok, "{stderr}");
    // The same command spelled out is the same output: the example is chunktui.
    let (spelled, _, ok) = run(&["chunk", path, "--strategy", "para-pack", "--size", "600"]);
    assert!(ok);
    assert_eq!(jsonl, spelled);
    // The record's fields are the built-in strategies' (chunktui chunk's own).
    let first: serde_json::Value = serde_json::from_str(jsonl.lines().next().unwrap()).unwrap();
    let builtin = Command::new(env!("CARGO_BIN_EXE_chunktui")).args(["chunk", path, "--size", "600"]).output().unwrap();
    let theirs: serde_json::Value =
        serde_json::from_str(String::from_utf8(builtin.stdout).unwrap().lines().next().unwrap()).unwrap();
    let keys = |v: &serde_json::Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&first), keys(&theirs));

    let (stats, stderr, ok) = run(&["stats", path, "-s", "para-pack", "--size", "600", "--json"]);
    assert!(ok, "{stderr}");
    let stats: serde_json::Value = serde_json::from_str(&stats).unwrap();
    assert_eq!(stats["count"].as_u64().unwrap() as usize, jsonl.lines().count(), "{stats}");

    let (_, stderr, _) = run(&["lint", path, "-s", "para-pack", "--size", "600"]);
    assert!(!stderr.contains("unknown strategy"), "{stderr}");
    // The built-in binary does not know it, and says which it knows.
    let out = Command::new(env!("CARGO_BIN_EXE_chunktui")).args(["chunk", path, "-s", "para-pack"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown strategy 'para-pack'"));
}

#[test]
fn no_file_under_src_names_the_example_strategy() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for file in walk(&src) {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        assert!(!text.contains("para-pack") && !text.contains("ParagraphPack"), "{} names it", file.display());
    }
}

/// One chunk per non-blank line: registered here, in this test's process.
struct Lines;

impl chunktui::strategy::Strategy for Lines {
    fn chunk(&self, text: &str, cx: &chunktui::strategy::Context<'_>) -> chunktui::Result<Vec<chunktui::Chunk>> {
        let index = cx.sizer.index(text)?;
        let mut start = 0;
        let mut chunks = Vec::new();
        for line in text.split_inclusive('\n') {
            let end = start + line.trim_end().len();
            if end > start {
                chunks.push(chunktui::strategy::sized(start..end, &index));
            }
            start += line.len();
        }
        Ok(chunks)
    }
}

#[test]
fn a_registered_strategy_is_in_the_workbench_cycle_configs_and_hierarchical() {
    use chunktui::strategy::{register, OverlapRule, SizeRule, Spec};
    use chunktui::tui::app::keymap::Action;
    use chunktui::{ChunkConfig, Chunker, StrategyKind};
    let kind = register(Spec {
        name: "test-lines",
        help: "one chunk per line",
        size: SizeRule::Ignored,
        overlap: OverlapRule::None,
        ..Spec::new(|_| Ok(Box::new(Lines)))
    })
    .unwrap();
    assert!(register(Spec { name: "test-lines", ..Spec::new(|_| Ok(Box::new(Lines))) }).is_err(), "a name once");
    assert!(StrategyKind::all().contains(&kind) && !StrategyKind::ALL.contains(&kind));

    // The workbench's strategy keys reach it, after the built-in ones.
    let mut c = ChunkConfig::default();
    let mut seen = Vec::new();
    for _ in 0..StrategyKind::all().len() {
        chunktui::tui::params::apply(&mut c, Action::CycleStrategyAll, &[]).unwrap();
        seen.push(c.strategy);
    }
    assert!(seen.contains(&kind), "{seen:?}");
    let mut c = ChunkConfig::default();
    let plain = (0..StrategyKind::all().len())
        .map(|_| {
            chunktui::tui::params::apply(&mut c, Action::CycleStrategy, &[]).unwrap();
            c.strategy
        })
        .collect::<Vec<_>>();
    assert!(plain.contains(&kind), "needs no model, so in the plain cycle too: {plain:?}");

    // A config names it, round-trips, and cuts; hierarchical takes it as base.
    let config = ChunkConfig { strategy: kind, ..ChunkConfig::default() };
    let back = ChunkConfig::parse(&config.to_toml(), false).unwrap();
    assert_eq!(back.strategy, kind);
    let text = "one\n\ntwo three\nfour\n";
    let chunks = Chunker::new(&back).unwrap().chunk(text).unwrap();
    let got: Vec<&str> = chunks.iter().map(|c| &text[c.range.clone()]).collect();
    assert_eq!(got, ["one", "two three", "four"]);
    let mut h = ChunkConfig { strategy: StrategyKind::Hierarchical, size: 100, overlap: 0, ..ChunkConfig::default() };
    h.hierarchical.base = kind;
    h.hierarchical.levels = vec![100, 10];
    assert!(Chunker::new(&h).unwrap().chunk(text).unwrap().len() >= 3);
    // An unknown name lists the registered one among the choices.
    let err = ChunkConfig::parse("strategy = \"nope\"", false).unwrap_err().to_string();
    assert!(err.contains("`test-lines`") && err.contains("`recursive`"), "{err}");
}
