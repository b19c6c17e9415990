use super::*;
use proptest::prelude::*;

fn tiktoken_lens(bpe: &Bpe, text: &str) -> Vec<usize> {
    let core = bpe.core();
    core.encode_ordinary(text).iter().map(|&id| core.decode_bytes(&[id]).unwrap().len()).collect()
}

fn ours(bpe: &Bpe, text: &str) -> Vec<usize> {
    let mut lens = Vec::new();
    bpe.token_lens(text, |n| lens.push(n));
    lens
}

/// tiktoken's cl100k pre-tokenizer, as tiktoken-rs builds it.
const CL100K_PATTERN: &str = concat!(
    r"'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+",
    r"| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"
);

/// The pieces tiktoken's regex for `bpe` cuts `text` into (fancy-regex,
/// the engine and version tiktoken-rs runs).
fn regex_pieces<'t>(bpe: &Bpe, text: &'t str) -> Vec<&'t str> {
    let pattern = match bpe.pre {
        Pre::Cl100k => CL100K_PATTERN,
        Pre::O200k => tiktoken_rs::O200K_BASE_PAT_STR,
    };
    let regex = fancy_regex_tiktoken::Regex::new(pattern).unwrap();
    regex.find_iter(text).map(|m| m.unwrap().as_str()).collect()
}

fn hand_pieces<'t>(bpe: &Bpe, text: &'t str) -> Vec<&'t str> {
    let mut out = Vec::new();
    match bpe.pre {
        Pre::Cl100k => cl100k::pieces(text, |p| out.push(p)),
        Pre::O200k => o200k::pieces(text, |p| out.push(p)),
    }
    out
}

/// Text a pre-tokenizer can trip on: long runs of one char of every
/// class, contractions in every case (and U+017F, which folds to s),
/// Unicode white space of every kind next to line breaks, marks, digits
/// of other scripts, control chars, astral letters and emoji.
fn adversarial() -> Vec<String> {
    let mut texts: Vec<String> =
        ["a", " ", "\n", "\r\n", "\t", "中", "😀", "7", "!", "\u{3000}", "\u{a0}", "é", "\u{301}", "𝔘", "١"]
            .iter()
            .flat_map(|c| {
                [c.repeat(3), c.repeat(2_000), format!("x{}y", c.repeat(777)), format!("{} z", c.repeat(300))]
            })
            .collect();
    texts.extend(
        [
            "It's I'M we'LL they'Ve you'RE he'D 'ſ 'st 'llama 'x '' ' 's",
            "  \n\n \t\n x \u{0b}\u{0c}\u{85}\u{2028}\u{2029}y \r\r\n\n\r z\u{3000}\u{3000}w",
            "1234567 ١٢٣٤٥ ½⅓ Ⅻ 12abc ab12 -12 $1,000.00",
            "\u{0}\u{1}\u{7f} \u{200b}\u{200d} \u{feff}x «quoted» “curly” 「括号」 ——",
            "naïve cafe\u{301} Ελληνικά Русский עִבְרִית العربية हिन्दी ไทย 한국어 日本語の文",
            "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𠀀𠀁 👨‍👩‍👧 🏳️‍🌈 ☃️",
            "trailing spaces   ",
            "   ",
            "x\n",
        ]
        .map(String::from),
    );
    texts
}

#[test]
fn the_rank_tables_hold_every_ordinary_token_and_no_special_one() {
    assert_eq!(CL100K.table.len(), 100_256);
    assert_eq!(O200K.table.len(), 199_998);
    for bpe in [&CL100K, &O200K] {
        let core = bpe.core();
        for rank in 0..bpe.table.len() as u32 {
            let bytes = bpe.table.token(rank);
            assert_eq!(bytes, core.decode_bytes(&[rank]).unwrap(), "{} {rank}", bpe.name);
            assert_eq!(bpe.table.rank(bytes), Some(rank), "{} {rank}", bpe.name);
        }
        for s in core.special_tokens() {
            assert_eq!(bpe.table.rank(s.as_bytes()), None, "{s}");
        }
        assert_eq!(bpe.table.rank(b"no such token at all, surely"), None);
    }
}

#[test]
fn the_hand_written_pre_tokenizers_cut_as_the_regexes_do() {
    for text in adversarial() {
        for bpe in [&CL100K, &O200K] {
            assert_eq!(hand_pieces(bpe, &text), regex_pieces(bpe, &text), "{} {text:?}", bpe.name);
        }
    }
}

#[test]
fn tokens_equal_tiktokens_on_mixed_scripts_and_special_token_text() {
    let text = "Hello, world!  It's 2026-12-01.\r\n\r\n你好，世界。「引号」😀 naïve café\t\tx <|endoftext|> \n  \n";
    for bpe in [&CL100K, &O200K] {
        assert_eq!(ours(bpe, text), tiktoken_lens(bpe, text), "{}", bpe.name);
        assert_eq!(bpe.count(text), bpe.core().encode_ordinary(text).len());
    }
}

#[test]
fn tokens_equal_tiktokens_on_adversarial_text() {
    for text in adversarial() {
        for bpe in [&CL100K, &O200K] {
            assert_eq!(ours(bpe, &text), tiktoken_lens(bpe, &text), "{} {text:?}", bpe.name);
        }
    }
}

#[test]
fn long_runs_of_letters_spaces_and_punctuation_are_quick_and_exact() {
    let letters = "abcdefghij".repeat(20_000);
    let cjk = "中文没有空格".repeat(5_000);
    let text = format!("{letters} {cjk}{}x{}\n{}\n\n  y", " ".repeat(300), "!?-".repeat(500), "\t ".repeat(200));
    for bpe in [&CL100K, &O200K] {
        assert_eq!(ours(bpe, &text), tiktoken_lens(bpe, &text), "{}", bpe.name);
    }
}

#[test]
fn every_thread_gets_the_same_tokens() {
    let text = "fn main() { println!(\"{}\", 1 + 2); }\n// 注释：中文\n".repeat(50);
    for bpe in [&CL100K, &O200K] {
        let expected = ours(bpe, &text);
        let others: Vec<Vec<usize>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..3).map(|_| s.spawn(|| ours(bpe, &text))).collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(others.iter().all(|o| *o == expected));
    }
}

#[test]
fn tokens_equal_tiktokens_on_every_corpus_document() {
    let dir = match std::env::var_os("CHUNKTUI_CORPUS") {
        Some(d) if !d.is_empty() => std::path::PathBuf::from(d),
        _ => std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"),
    };
    let docs: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("the corpus is missing at {} ({e}): set CHUNKTUI_CORPUS", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md" || x == "txt"))
        .collect();
    assert!(!docs.is_empty(), "no *.md or *.txt in {}", dir.display());
    for path in docs {
        let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
        for bpe in [&CL100K, &O200K] {
            assert!(hand_pieces(bpe, &text) == regex_pieces(bpe, &text), "{} {} pieces", path.display(), bpe.name);
            // Whole documents, as tiktoken encodes them in one call.
            assert!(ours(bpe, &text) == tiktoken_lens(bpe, &text), "{} {}", path.display(), bpe.name);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]
    #[test]
    fn tokens_equal_tiktokens_on_random_text(text in "[a-zA-Z0-9 \\n\\r\\t.,'!?()\\-\u{4e00}-\u{4e20}\u{3002}\u{ff0c}\u{1F600}é\u{3000}\u{a0}\u{301}\u{17f}\u{660}]{0,200}") {
        for bpe in [&CL100K, &O200K] {
            prop_assert_eq!(hand_pieces(bpe, &text), regex_pieces(bpe, &text));
            prop_assert_eq!(ours(bpe, &text), tiktoken_lens(bpe, &text));
        }
    }

    #[test]
    fn any_text_cuts_as_the_regexes_do(text in "\\PC{0,64}") {
        for bpe in [&CL100K, &O200K] {
            prop_assert_eq!(hand_pieces(bpe, &text), regex_pieces(bpe, &text));
        }
    }

    /// Letters of every case class, marks, apostrophes and the rest, where
    /// o200k's letter alternatives give back chars to match.
    #[test]
    fn cased_letters_marks_and_contractions_cut_as_the_regexes_do(
        text in "[aAǅʰ中\u{301}\u{903}'sStTlLvVeErRdDmM\u{17f} \n/!1١]{0,40}"
    ) {
        for bpe in [&CL100K, &O200K] {
            prop_assert_eq!(hand_pieces(bpe, &text), regex_pieces(bpe, &text));
            prop_assert_eq!(ours(bpe, &text), tiktoken_lens(bpe, &text));
        }
    }
}

#[test]
fn remembered_pieces_give_the_tokens_they_were_merged_into() {
    // The second copy is read from the memo: the same tokens, and the same
    // as tiktoken's; without a memo too.
    let text = "unbelievably 0x1f2e3d 宝玉笑道 naïveté ".repeat(3);
    for bpe in [&CL100K, &O200K] {
        assert_eq!(ours(bpe, &text), tiktoken_lens(bpe, &text), "{}", bpe.name);
        let mut plain = Vec::new();
        bpe.token_lens_with(&text, &mut None, &mut |n| plain.push(n));
        assert_eq!(plain, tiktoken_lens(bpe, &text), "{}", bpe.name);
    }
}
