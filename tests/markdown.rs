//! The markdown strategy reads Markdown as CommonMark: setext headings
//! (changelogs) get heading paths, `#` lines in fences and HTML blocks stay
//! text, lists and block quotes are kept whole when they fit, CJK headings
//! work like any other.

mod common;

use chunktui::config::{ChunkConfig, StrategyKind, Unit};
use chunktui::{Chunk, Chunker};
use common::{config, run_and_check, Checker};

fn run(text: &str, size: usize) -> Vec<Chunk> {
    let cfg = config(StrategyKind::Markdown, Unit::Chars, size, 0);
    let checker = Checker::new(text, Unit::Chars);
    run_and_check(&checker, &cfg).unwrap().expect("markdown is ours")
}

fn changelog() -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/changelog.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn setext_changelog_sections_get_heading_paths_and_stay_apart() {
    let text = changelog();
    let chunks = run(&text, 2000);
    let paths: Vec<Vec<&str>> = chunks.iter().map(|c| c.meta.headings.iter().map(String::as_str).collect()).collect();
    for expected in [
        vec!["Changelog"],
        vec!["Changelog", "2.1.0 — 2024-03-02", "Fixed"],
        vec!["Changelog", "2.0.0 — 2023-11-20"],
        vec!["Changelog", "Removed"],
        vec!["Changelog", "1.9.3 — 2023-07-14"],
        vec!["版本说明", "新增功能"],
    ] {
        assert!(paths.contains(&expected), "no chunk has path {expected:?}: {paths:?}");
    }
    // Each release is a chunk of its own, though the whole file fits in one.
    for (version, other) in [("2.0.0", "1.9.3"), ("1.9.3", "版本说明"), ("2.1.0", "2.0.0")] {
        let holder = chunks.iter().find(|c| text[c.range.clone()].contains(&format!("{version} —"))).unwrap();
        assert!(!text[holder.range.clone()].contains(other), "{version} runs into {other}");
    }
    // A setext underline stays with its title.
    assert!(chunks.iter().any(|c| text[c.range.clone()].starts_with("Removed\n-------")));
}

#[test]
fn hashes_in_fences_and_html_blocks_are_text() {
    let text = changelog();
    let chunks = run(&text, 2000);
    for line in ["# not a heading: a comment", "# not a heading either"] {
        let c = chunks.iter().find(|c| text[c.range.clone()].contains(line)).expect("the line is in a chunk");
        assert!(!text[c.range.clone()].starts_with(line), "{line:?} started a section");
        assert!(c.meta.headings.iter().all(|h| !h.contains("not a heading")), "{:?}", c.meta.headings);
    }
    // The same text without the fence: the line is a heading.
    let unfenced = "# Top\n\ntext\n\n# not a heading now\n\nmore\n";
    let paths: Vec<_> = run(unfenced, 2000).into_iter().map(|c| c.meta.into_inner().headings).collect();
    assert_eq!(paths, [vec!["Top".to_string()], vec!["not a heading now".to_string()]]);
}

#[test]
fn lists_and_quotes_stay_whole_when_they_fit() {
    let list = "- first item of a list that goes on for a while\n- second item, also long enough\n- third";
    let quote = "> A quoted paragraph that is long enough\n> to need two lines in the source.";
    let text =
        format!("# Notes\n\nSome words before the list, enough of them to matter.\n\n{list}\n\n{quote}\n\nAfter.\n");
    // The section is over the size, the list and the quote each fit.
    for size in [list.chars().count(), quote.chars().count() + 10] {
        let chunks = run(&text, size);
        let texts: Vec<&str> = chunks.iter().map(|c| &text[c.range.clone()]).collect();
        assert!(texts.iter().any(|t| t.contains(quote)), "size {size}: quote cut: {texts:?}");
        if size >= list.chars().count() {
            assert!(texts.iter().any(|t| t.contains(list)), "size {size}: list cut: {texts:?}");
        }
    }
    // A list over the size is cut between items, never inside one.
    let chunks = run(&text, 60);
    for item in list.lines() {
        assert!(chunks.iter().any(|c| text[c.range.clone()].contains(item)), "{item:?} cut");
    }
}

#[test]
fn cjk_headings_atx_and_setext() {
    let text = "# 指南\n\n介绍。\n\n安装\n----\n\n运行 `cargo install`。\n\n## 使用 🦀\n\n输入文字。\n";
    let chunks = run(text, 1000);
    let paths: Vec<_> = chunks.iter().map(|c| c.meta.headings.join("/")).collect();
    assert_eq!(paths, ["指南", "指南/安装", "指南/使用 🦀"]);
}

/// `markdown.levels` still picks the headings that start chunks, setext ones included.
#[test]
fn levels_pick_setext_headings_too() {
    let text = changelog();
    let mut cfg = ChunkConfig { strategy: StrategyKind::Markdown, size: 4000, overlap: 0, ..Default::default() };
    cfg.markdown.levels = vec![1];
    let chunks = Chunker::new(&cfg).unwrap().chunk(&text).unwrap();
    let paths: Vec<_> = chunks.iter().map(|c| c.meta.headings.join("/")).collect();
    assert_eq!(paths, ["Changelog", "版本说明"]);
}

/// A file that is one line opening with `#` (a minified or joined export)
/// is one heading of megabytes, and so is an HTML `<h1>` around a whole
/// page: each chunk's heading path holds a bounded label of it, not a copy
/// of the file (which took the file's size times the chunk count).
#[test]
fn a_heading_of_megabytes_is_a_short_label_in_each_chunk() {
    let title = "长标题 word ".repeat(100_000);
    let markdown = format!("# {title}\n\nbody text under it\n");
    let page = chunktui::extract::html::extract(&format!("<h1>{title}</h1><p>body text under it</p>"));
    for (strategy, text, structure) in
        [(StrategyKind::Markdown, markdown.as_str(), None), (StrategyKind::Html, &page.text, Some(&page.structure))]
    {
        let chunker = Chunker::new(&config(strategy, Unit::Chars, 500, 0)).unwrap();
        let chunks = chunker.chunk_structured(text, structure, chunktui::embedding::Control::none()).unwrap();
        assert!(chunks.len() > 1000, "{strategy}: {} chunks", chunks.len());
        for c in &chunks {
            let [h] = c.meta.headings.as_slice() else { panic!("{strategy}: headings {:?}", c.meta.headings) };
            assert!(h.starts_with("长标题 word 长标题"), "{strategy}: {h}");
            assert!(h.chars().count() <= 201 && h.ends_with('…'), "{strategy}: a label of {} chars", h.len());
        }
    }
}
