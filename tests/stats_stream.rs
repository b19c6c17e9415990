//! `chunktui stats` over strategies that stream (recursive, fixed, sentence,
//! markdown, html, code without a grammar, and hierarchical over them, its
//! levels interleaved) holds no chunk list: it counts each chunk as it is cut
//! ([`StatsBuilder`]) and lints a window of chunks at a time ([`LintStream`]). Both must give exactly what
//! the whole list gives: the same numbers, the same findings with the same
//! chunk numbers, on Markdown, prose, Chinese and whitespace-heavy text,
//! with windows small enough that every rule meets a window edge.

mod common;

use chunktui::config::{ChunkConfig, StrategyKind, Unit};
use chunktui::document::{DocKind, Document};
use chunktui::lint::{lint, LintOptions, LintStream};
use chunktui::stats::{Stats, StatsBuilder};
use chunktui::Chunker;

fn texts() -> Vec<(String, String, DocKind)> {
    let read = |name: &str, bytes: usize| {
        let text = std::fs::read_to_string(common::corpus_file(name)).expect("corpus file");
        let cut = (0..=bytes.min(text.len())).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
        text[..cut].to_string()
    };
    let guide = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/samples/guide.md")).expect("sample");
    vec![
        ("samples/guide.md".into(), guide, DocKind::Markdown),
        ("rust book (markdown)".into(), read("en_rust_book.md", 40_000), DocKind::Markdown),
        ("war and peace".into(), read("en_war_and_peace.txt", 40_000), DocKind::Text),
        ("chinese rust book".into(), read("zh_rust_book.md", 30_000), DocKind::Markdown),
        // Whitespace-only chunks (fixed chars) between the chunks that hold text.
        (
            "whitespace runs".into(),
            "One sentence here.      \n\n\n\n     Another one, longer.   \t  End.\n\n\n".repeat(40),
            DocKind::Text,
        ),
    ]
}

/// The strategies whose `chunk_each` holds no chunk list (`code` on text in
/// no language it has a grammar for: the recursive fallback).
const STREAMING: [StrategyKind; 6] = [
    StrategyKind::Recursive,
    StrategyKind::Fixed,
    StrategyKind::Sentence,
    StrategyKind::Markdown,
    StrategyKind::Html,
    StrategyKind::Code,
];

fn configs() -> Vec<ChunkConfig> {
    let mut out = Vec::new();
    for (size, overlap) in [(1, 0), (7, 2), (60, 12), (300, 60)] {
        for strategy in STREAMING {
            for unit in [Unit::Chars, Unit::Words, Unit::Tokens] {
                out.push(ChunkConfig { strategy, unit, size, overlap, ..ChunkConfig::default() });
            }
        }
        // Up to three levels (size, size / 4, size / 16), each linted apart.
        for base in [StrategyKind::Recursive, StrategyKind::Sentence, StrategyKind::Markdown, StrategyKind::Fixed] {
            for unit in [Unit::Chars, Unit::Words] {
                let mut c =
                    ChunkConfig { strategy: StrategyKind::Hierarchical, unit, size, overlap, ..Default::default() };
                c.hierarchical.base = base;
                out.push(c);
            }
        }
    }
    out
}

#[test]
fn streamed_stats_and_lint_equal_those_of_the_whole_list() {
    let mut checked = 0;
    for (name, text, kind) in texts() {
        let doc = Document::from_text(text.clone(), kind);
        for mut config in configs() {
            // over-model-limit counts model tokens chunk by chunk: the same in
            // both paths, and slow in a debug build.
            config.lint.off = vec!["over-model-limit".into()];
            let chunker = Chunker::new(&config).expect("chunker");
            assert!(chunker.streams(), "{} streams", config.strategy);
            let what = format!(
                "{name}: {} (base {}) {} size {} overlap {}",
                config.strategy, config.hierarchical.base, config.unit, config.size, config.overlap
            );
            let chunks = chunker.chunk_document(&doc).expect("chunks");
            let limit = Some(config.size);
            let opts = LintOptions::new(&config, kind).expect("lint options");

            let mut numbers = StatsBuilder::new(&text, limit);
            let mut streams: Vec<LintStream<'_>> =
                [2, 3, 17, 1 << 16].into_iter().map(|w| LintStream::with_window(&text, &opts, None, w)).collect();
            let mut each = Vec::new();
            chunker
                .chunk_document_each(&doc, &mut |c| {
                    numbers.add(&c);
                    for s in &mut streams {
                        s.push(c.clone());
                    }
                    each.push(c);
                })
                .expect("chunk_each");
            assert_eq!(each, chunks, "{what}: chunk_each hands over the chunks chunk returns");
            assert_eq!(numbers.finish(), Stats::compute(&chunks, &text, limit), "{what}: numbers");
            let whole = lint(&text, &chunks, &opts);
            for (w, s) in [2, 3, 17, 1 << 16].into_iter().zip(streams) {
                assert_eq!(s.finish(), whole, "{what}: findings with windows of {w} chunks");
            }
            checked += usize::from(!whole.is_empty());
        }
    }
    // The comparison means something only where lint finds things.
    assert!(checked > 20, "only {checked} runs had findings");
}

#[test]
fn unordered_chunks_still_count_uncovered_text_exactly() {
    use chunktui::Chunk;
    let text = "alpha beta gamma delta";
    // LangChain-placed ranges can go back: the second chunk starts before the first.
    let chunks = vec![Chunk::new(11..16, 5), Chunk::new(0..5, 5)];
    let stats = Stats::compute(&chunks, text, None);
    assert_eq!(stats.uncovered_chars, "beta".len() + "delta".len());
}
