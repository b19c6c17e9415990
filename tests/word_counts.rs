//! A BERT-style tokenizer's count, summed over remembered pieces
//! (src/word_counts.rs), must equal one whole encode of the text: on every
//! corpus document cut into chunk-sized windows, and on random text built
//! from what breaks naive splitting (added tokens written out, accents and
//! combining marks, Hangul, CJK and its punctuation, every kind of space,
//! control chars, words past WordPiece's 100-char limit).

use chunktui::size::Tokenizer;
use proptest::prelude::*;
mod common;
use common::{corpus_files, minilm_tokenizer, windows};

/// Ours (summing pieces) and the crate's own, loaded once.
fn tokenizers() -> &'static (Tokenizer, tokenizers::Tokenizer) {
    static BOTH: std::sync::OnceLock<(Tokenizer, tokenizers::Tokenizer)> = std::sync::OnceLock::new();
    BOTH.get_or_init(|| {
        let path = minilm_tokenizer();
        let mut whole = tokenizers::Tokenizer::from_file(&path).expect("tokenizer.json loads");
        whole.with_truncation(None).expect("no truncation");
        whole.with_padding(None);
        (Tokenizer::load(&format!("hf:{}", path.display())).expect("loads"), whole)
    })
}

/// (ours, one whole encode's).
fn counts(text: &str) -> (usize, usize) {
    let (ours, whole) = tokenizers();
    (ours.count(text), whole.encode_fast(text, false).expect("encodes").get_ids().len())
}

#[test]
fn sums_equal_whole_encodes_on_the_corpus() {
    let (ours, _) = tokenizers();
    for file in corpus_files() {
        let text = std::fs::read_to_string(&file.path).expect("corpus file reads");
        // The document's tally (what lint counts chunks from), made once.
        let tally = ours.tally(&text).expect("a BERT tokenizer tallies");
        for (range, window) in windows(&text, 3000, 40) {
            let (summed, whole) = counts(window);
            assert_eq!(summed, whole, "{} bytes {range:?}", file.name);
            assert_eq!(ours.count_in(&tally, &text, range.clone()), whole, "tally of {} bytes {range:?}", file.name);
        }
    }
}

const PARTS: &[&str] = &[
    "word",
    "Word",
    "WORDS",
    "the",
    "##ing",
    "[CLS]",
    "[SEP]",
    "[MASK]",
    "[UNK]",
    "[PAD]",
    "[",
    "]",
    "café",
    "e\u{301}",
    "naïve",
    "한국어",
    "中文",
    "汉字",
    "，",
    "。",
    "’",
    "don’t",
    "“quoted”",
    "—",
    "…",
    "«",
    "¿",
    "·",
    "・",
    "।",
    "︰",
    "「",
    "」",
    "！",
    "、",
    "ｆｕｌｌ",
    " ",
    "  ",
    "\t",
    "\n",
    "\r\n",
    "\u{a0}",
    "\u{3000}",
    "\u{2028}",
    "\u{85}",
    "\u{200b}",
    "\u{1}",
    "\u{7f}",
    "\u{fffd}",
    ".",
    ",",
    "'",
    "\"",
    "(",
    ")",
    "-",
    "_",
    "/",
    "\\",
    "@",
    "#",
    "$",
    "%",
    "^",
    "&",
    "*",
    "+",
    "=",
    "~",
    "`",
    "|",
    ";",
    ":",
    "?",
    "!",
    "<",
    ">",
    "{",
    "}",
    "1",
    "42",
    "3.14",
    "😀",
    "👩\u{200d}💻",
    "𠀀",
    "ß",
    "İ",
    "Σ",
    "ς",
    "ﬁ",
    "Ⅻ",
    "x",
];

/// Every char of the Basic Multilingual Plane between, before and after
/// words: the count cuts words at the punctuation BERT isolates (curly
/// quotes, dashes, CJK punctuation) and nowhere else but whitespace and
/// ideographs, and must agree with the whole pipeline on each.
#[test]
fn sums_equal_whole_encodes_around_every_bmp_char() {
    for c in (0..=0xFFFFu32).filter_map(char::from_u32) {
        let text = format!("don{c}t {c}word{c}{c} naïve{c}x\u{301}");
        let (ours, whole) = counts(&text);
        assert_eq!(ours, whole, "U+{:04X} in {text:?}", c as u32);
    }
}

fn text_of(picks: &[usize], long_word: bool) -> String {
    let mut text: String = picks.iter().map(|&i| PARTS[i % PARTS.len()]).collect();
    if long_word {
        text.push_str(&"abc".repeat(40)); // over WordPiece's 100 chars: one [UNK]
    }
    text
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]
    #[test]
    fn sums_equal_whole_encodes_on_random_text(picks in proptest::collection::vec(0usize..1000, 0..60), long_word: bool) {
        let text = text_of(&picks, long_word);
        let (ours, whole) = counts(&text);
        prop_assert_eq!(ours, whole, "{:?}", text);
    }
}

/// The byte offset of char `i` of `text` (its end past the last).
fn char_at(text: &str, i: usize) -> usize {
    text.char_indices().nth(i).map_or(text.len(), |(at, _)| at)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]
    /// Any range counted from the text's tally (made whole, or of two parts
    /// joined at a whitespace) is the whole encode of that range's text.
    #[test]
    fn tallied_ranges_equal_whole_encodes(
        picks in proptest::collection::vec(0usize..1000, 0..80),
        long_word: bool,
        ends in (0usize..400, 0usize..400),
        split in 0usize..400,
    ) {
        let (ours, whole) = tokenizers();
        let text = text_of(&picks, long_word);
        let chars = text.chars().count();
        let (a, b) = (ends.0.min(chars), ends.1.min(chars));
        let range = char_at(&text, a.min(b))..char_at(&text, a.max(b));
        let expected = whole.encode_fast(&text[range.clone()], false).expect("encodes").get_ids().len();
        let tally = ours.tally(&text).expect("tallies");
        prop_assert_eq!(ours.count_in(&tally, &text, range.clone()), expected, "{:?} {:?}", text, range);
        // Parts end after whitespace, as lint's parts do.
        let cut = text[char_at(&text, split.min(chars))..].find(' ').map(|i| char_at(&text, split.min(chars)) + i + 1);
        if let Some(cut) = cut {
            let parts = vec![ours.tally(&text[..cut]).expect("tallies"), ours.tally(&text[cut..]).expect("tallies")];
            let joined = chunktui::word_counts::Tally::join(&parts).expect("joins");
            prop_assert_eq!(ours.count_in(&joined, &text, range.clone()), expected, "joined at {}: {:?} {:?}", cut, text, range);
        }
    }
}
