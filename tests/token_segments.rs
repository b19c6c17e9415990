//! Tokenizing a long document paragraph by paragraph (to keep memory small)
//! must give exactly the tokens of one whole-document encode: same count,
//! same spans. Checked on the corpus with the two HuggingFace tokenizers we
//! ship tests for: MiniLM (WordPiece, installed by scripts/setup-models.sh)
//! and multilingual-e5 (Unigram, the test model: `CHUNKTUI_TEST_MODEL`).

use chunktui::size::Tokenizer;
use std::path::Path;
mod common;
use common::{minilm_tokenizer, read_corpus, test_model_dir};

fn whole_encode_spans(path: &Path, text: &str) -> Vec<(usize, usize)> {
    let mut tok = tokenizers::Tokenizer::from_file(path).expect("tokenizer.json loads");
    tok.with_truncation(None).expect("no truncation");
    tok.with_padding(None);
    let enc = tok.encode(text, false).expect("encode");
    enc.get_offsets().iter().copied().filter(|(s, e)| e > s).collect()
}

fn check(path: &Path, file: &str) {
    let text = read_corpus(file);
    let ours = Tokenizer::load(&format!("hf:{}", path.display())).expect("loads").token_spans(&text).expect("spans");
    let whole = whole_encode_spans(path, &text);
    assert_eq!(ours.len(), whole.len(), "{file} with {}: token counts differ", path.display());
    let first_diff = ours.iter().zip(&whole).position(|(a, b)| (a.0 as usize, a.1 as usize) != *b);
    assert_eq!(first_diff, None, "{file}: spans differ from the whole-document encode");
}

#[test]
fn segmented_wordpiece_equals_whole_encode() {
    let tok = minilm_tokenizer();
    for file in ["en_rust_book.md", "en_war_and_peace.txt", "zh_rust_book.md"] {
        check(&tok, file);
    }
}

#[test]
fn segmented_unigram_equals_whole_encode() {
    let tok = test_model_dir().join("tokenizer.json");
    for file in ["en_ripgrep_guide_faq.md", "zh_rust_book.md", "en_war_and_peace.txt"] {
        check(&tok, file);
    }
}
