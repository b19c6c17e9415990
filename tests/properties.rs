//! Property tests: on random text (ASCII words and punctuation, CJK, emoji
//! including ZWJ sequences, skin tones and flags, combining marks, odd
//! whitespace, Markdown markers, and \n / \r\n / \r line breaks mixed), with
//! random sizes (tiny ones like 1 and 2 included) and overlaps below the size,
//! every non-model strategy keeps the invariants of `common::Checker` (bounds,
//! char boundaries, order, coverage, sizes, limit, overlap rule) and never
//! panics. Units chars and words on every case; cl100k tokens on smaller ones.
//!
//! Failures found by proptest are kept in tests/proptest-regressions/ and
//! replayed first on every run.

mod common;

use chunktui::config::{ChunkConfig, StrategyKind, Unit};
use common::{config, run_and_check, Checker};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;

/// Failures are saved in tests/proptest-regressions/properties.txt.
/// `PROPTEST_CASES=N` runs N cases per property instead (for long hunts).
fn persisted(cases: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(cases);
    ProptestConfig {
        cases,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "tests/proptest-regressions/properties.txt",
        ))),
        ..ProptestConfig::default()
    }
}

fn fragment() -> impl Strategy<Value = String> {
    let fixed: Vec<&'static str> = vec![
        " ",
        "  ",
        ". ",
        "! ",
        "? ",
        ", ",
        "; ",
        ": ",
        ".",
        "?!",
        "e.g. ",
        "Dr. ",
        "3.14",
        "\t",
        "\n",
        "\r\n",
        "\r",
        "\n\n",
        "\r\n\r\n",
        "\n \n",
        "\r\r",
        "# ",
        "## Title\n",
        "### 小节\r\n",
        "```\n",
        "```rust\n",
        "~~~",
        "- ",
        "* ",
        "1. ",
        "> ",
        "| a | b |\n",
        "---\n",
        "。",
        "，",
        "！",
        "？",
        "……",
        "、",
        "；",
        "“",
        "”",
        "」",
        "（",
        "）",
        "🦀",
        "👩\u{200d}👩\u{200d}👧\u{200d}👦",
        "👍🏽",
        "🇯🇵",
        "🏳️\u{200d}🌈",
        "e\u{301}",
        "\u{200d}",
        "\u{fe0f}",
        "\u{3000}",
        "\u{a0}",
        "\u{2028}",
        "\u{85}",
        "\u{feff}",
        "\u{fffd}",
        "\u{1e}",
        "\u{b}",
        "\u{c}",
        "\0",
        "fn main() {",
        "}",
        "let x = 1;",
        "def f():",
        "    ",
    ];
    prop_oneof![
        4 => "[a-zA-Z]{1,9}",
        2 => "[\u{4e00}-\u{9fa5}]{1,6}",
        1 => "[0-9]{1,4}",
        1 => "[\u{3040}-\u{30ff}\u{ac00}-\u{ac20}\u{0400}-\u{04ff}\u{0600}-\u{06ff}]{1,4}",
        1 => any::<char>().prop_map(String::from),
        6 => proptest::sample::select(fixed).prop_map(String::from),
    ]
}

fn text(max_fragments: usize) -> impl Strategy<Value = String> {
    proptest::collection::vec(fragment(), 0..max_fragments).prop_map(|v| v.concat())
}

/// (size, overlap) with overlap < size; tiny sizes often.
fn size_overlap() -> impl Strategy<Value = (usize, usize)> {
    prop_oneof![1usize..=3, 1usize..=12, 1usize..=80].prop_flat_map(|size| (Just(size), 0..size))
}

#[derive(Debug, Clone)]
struct Extra {
    preset: &'static str,
    max_sentences: usize,
    overlap_sentences: usize,
}

fn extra() -> impl Strategy<Value = Extra> {
    (proptest::sample::select(chunktui::strategy::recursive::preset_names().to_vec()), 0usize..4, 0usize..3)
        // A sentence overlap must stay below a sentence limit (validate refuses it otherwise).
        .prop_map(|(preset, max_sentences, overlap_sentences)| Extra {
            preset,
            max_sentences,
            overlap_sentences: if max_sentences > 0 {
                overlap_sentences.min(max_sentences - 1)
            } else {
                overlap_sentences
            },
        })
}

fn check_all(text: &str, units: &[Unit], size: usize, overlap: usize, extra: &Extra) -> Result<(), TestCaseError> {
    for &unit in units {
        let checker = Checker::new(text, unit);
        for kind in common::non_model() {
            if !common::runs_in(kind, unit) {
                continue;
            }
            let mut cfg: ChunkConfig = config(kind, unit, size, overlap);
            cfg.recursive.preset = extra.preset.into();
            cfg.sentence.max_sentences = extra.max_sentences;
            cfg.sentence.overlap_sentences = extra.overlap_sentences;
            let mut fixed_base = cfg.clone();
            fixed_base.hierarchical.base = StrategyKind::Fixed;
            let with_fixed_base = (kind == StrategyKind::Hierarchical).then_some(fixed_base);
            for cfg in std::iter::once(cfg).chain(with_fixed_base) {
                if let Err(e) = run_and_check(&checker, &cfg) {
                    return Err(TestCaseError::fail(format!(
                        "{e}\n  preset {} / sentence {:?} / base {}\n  text {text:?}",
                        extra.preset, extra, cfg.hierarchical.base
                    )));
                }
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(persisted(512))]

    #[test]
    fn chars_and_words_keep_the_invariants(text in text(60), (size, overlap) in size_overlap(), extra in extra()) {
        check_all(&text, &[Unit::Chars, Unit::Words, Unit::Bytes], size, overlap, &extra)?;
    }
}

proptest! {
    #![proptest_config(persisted(192))]

    #[test]
    fn tokens_keep_the_invariants(text in text(24), (size, overlap) in size_overlap(), extra in extra()) {
        check_all(&text, &[Unit::Tokens], size, overlap, &extra)?;
    }

    /// Line-break soup: only \n, \r\n, \r, spaces and short words.
    #[test]
    fn line_break_soup(
        parts in proptest::collection::vec(proptest::sample::select(vec!["\n", "\r\n", "\r", " ", "a", "bb", "。", "x."]), 0..80),
        (size, overlap) in size_overlap(),
    ) {
        let text = parts.concat();
        let extra = Extra { preset: "english", max_sentences: 0, overlap_sentences: 1 };
        check_all(&text, &[Unit::Chars, Unit::Words, Unit::Bytes], size, overlap, &extra)?;
    }
}

/// Inputs that broke things once, or edge cases worth pinning.
#[test]
fn edge_cases() {
    let extra = Extra { preset: "english", max_sentences: 0, overlap_sentences: 1 };
    // "a\u{1e}b": Python (so LangChain) strips U+001E as whitespace; found by fuzzing.
    for text in [
        "",
        " ",
        "\r\n",
        "a\u{1e}b \u{1e}\0c",
        "\u{1c}\u{1d}\u{1f}x",
        "a",
        "\r",
        "🦀",
        "👩\u{200d}👩\u{200d}👧\u{200d}👦",
        "e\u{301}",
        "。",
        "# \n",
        "```\n# x\n```",
        // cl100k: two tokens that both hold む, so no cut fits in one token.
        "ーむ",
    ] {
        for (size, overlap) in [(1, 0), (2, 1), (3, 0)] {
            check_all(text, &Unit::EVERY, size, overlap, &extra).unwrap();
        }
    }
}
