//! A chunk's token size is counted from one tokenization of the whole
//! document. What production sees is the chunk re-tokenized on its own: that
//! must stay within the limit too (and differ from the reported size by at
//! most one token).

use chunktui::config::{ChunkConfig, StrategyKind, Unit};
use chunktui::size::Tokenizer;
use chunktui::Chunker;
mod common;
use common::read_corpus;

#[test]
fn chunks_re_tokenized_alone_stay_within_the_limit() {
    let tok = Tokenizer::load("cl100k_base").unwrap();
    for (file, preset, size) in [("en_rust_book.md", "english", 512), ("zh_rust_book.md", "chinese", 256)] {
        let text = read_corpus(file);
        for strategy in [StrategyKind::Recursive, StrategyKind::Sentence, StrategyKind::Markdown] {
            let mut cfg = ChunkConfig { strategy, unit: Unit::Tokens, size, overlap: size / 10, ..Default::default() };
            cfg.recursive.preset = preset.into();
            let chunks = Chunker::new(&cfg).unwrap().chunk(&text).unwrap();
            for c in &chunks {
                let alone = tok.count(c.text(&text));
                assert!(alone <= size, "{file} {strategy}: chunk {:?} is {alone} tokens alone", c.range);
                assert!(alone.abs_diff(c.size) <= 1, "{file} {strategy}: reported {} vs {alone} alone", c.size);
            }
        }
    }
}
