//! LangChain's character splitters in words or tokens remember the lengths
//! of a document's splits from one cut to the next (the workbench cuts the
//! same document on every key press). What they remember must never change
//! a cut: a cut made with every split already measured, after cuts at other
//! sizes and settings, equals the first cut of the document, and each
//! chunk's size is its text's count.

use chunktui::config::{ChunkConfig, StrategyKind, Unit};
use chunktui::size::Sizer;
use chunktui::{Chunk, Chunker};

/// English and Chinese prose, Markdown and code from samples/, numbered
/// copies so the text is large enough to be cached and unlike any other
/// test's text.
fn document(tag: &str) -> String {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/samples/");
    let mut text = String::new();
    for copy in 0..20 {
        for name in ["guide.md", "zh-article.md", "changelog.md", "river-glossary-zh.md", "notes.txt", "cache.rs"] {
            let sample = std::fs::read_to_string(format!("{dir}{name}")).expect("read a sample");
            text.push_str(&format!("\n\n{tag} copy {copy} of {name}\n\n{sample}"));
        }
    }
    assert!(text.len() > 128 * 1024, "the document cache keeps texts of 64 KB and more");
    text
}

fn cut(text: &str, strategy: StrategyKind, unit: Unit, size: usize, overlap: usize) -> Vec<Chunk> {
    let mut c = ChunkConfig { strategy, unit, size, overlap, ..Default::default() };
    c.tokenizer = "cl100k_base".into();
    Chunker::new(&c).expect("a valid config").chunk(text).expect("chunks")
}

#[test]
fn remembered_lengths_never_change_a_cut() {
    for (strategy, unit) in [
        (StrategyKind::LangchainRecursive, Unit::Tokens),
        (StrategyKind::LangchainRecursive, Unit::Words),
        (StrategyKind::LangchainCharacter, Unit::Tokens),
    ] {
        let text = document(&format!("{strategy} {unit}"));
        let first = cut(&text, strategy, unit, 120, 20);
        assert!(first.len() > 50, "{strategy} {unit}: {} chunks", first.len());
        // Other sizes split the same text again, partly where the first did.
        for size in [60, 400, 121] {
            cut(&text, strategy, unit, size, size / 5);
        }
        let again = cut(&text, strategy, unit, 120, 20);
        let differs = again.iter().zip(&first).position(|(a, b)| a != b);
        assert!(
            again.len() == first.len() && differs.is_none(),
            "{strategy} {unit}: the cut changed once its lengths were remembered: {} chunks, then {}; first \
             difference at chunk {differs:?}",
            first.len(),
            again.len()
        );
        let sizer = Sizer::for_unit(unit, "cl100k_base").expect("cl100k_base");
        for c in &again {
            let chunk_text = c.meta.text.as_deref().unwrap_or(&text[c.range.clone()]);
            assert_eq!(c.size, sizer.size(chunk_text), "{strategy} {unit}: size of {:?}", c.range);
        }
    }
}
