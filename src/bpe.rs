//! tiktoken's `encode_ordinary` for the built-in encodings, with the
//! pre-tokenizing regex compiled once per thread.
//!
//! Why not `CoreBPE::encode_ordinary`: tiktoken keeps one clone of its regex
//! per thread so that threads never share a regex's scratch space, but with
//! fancy-regex 0.19 a clone shares the compiled program and its scratch
//! pools. Every thread but the first then takes the pools' slow path on every
//! pre-token; `perf` put it at a quarter of a second thread's time (recursive
//! splitting by cl100k tokens in `chunk_many` on two threads). Here each
//! thread compiles its own regex on first use (about a millisecond), and all
//! threads read one shared rank table. The tokens are exactly tiktoken's:
//! `tests` below compares them on every corpus document and random text.

use fancy_regex_tiktoken::Regex;
use rustc_hash::FxHashMap;
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::LazyLock;
use tiktoken_rs::{CoreBPE, Rank};

/// The pre-tokenizer of `cl100k_base`, as tiktoken-rs builds it.
const CL100K_PATTERN: &str = concat!(
    r"'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+",
    r"| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"
);

/// A built-in tiktoken encoding.
pub struct Bpe {
    name: &'static str,
    pattern: &'static str,
    core: &'static CoreBPE,
    /// Token bytes to rank, for the ordinary (not special) tokens.
    ranks: FxHashMap<Vec<u8>, Rank>,
    /// The byte length of every ordinary token, by rank: what a token id
    /// from `core` measures, without decoding it.
    lens: Vec<u32>,
    /// False if the pattern did not compile here (never expected): then every
    /// call goes through `core`, slower on many threads but the same tokens.
    own_regex: bool,
}

static CL100K: LazyLock<Bpe> =
    LazyLock::new(|| Bpe::new("cl100k_base", CL100K_PATTERN, tiktoken_rs::cl100k_base_singleton()));
static O200K: LazyLock<Bpe> =
    LazyLock::new(|| Bpe::new("o200k_base", tiktoken_rs::O200K_BASE_PAT_STR, tiktoken_rs::o200k_base_singleton()));

/// `cl100k_base` or `o200k_base`; None for any other name.
pub fn builtin(name: &str) -> Option<&'static Bpe> {
    match name {
        "cl100k_base" => Some(&CL100K),
        "o200k_base" => Some(&O200K),
        _ => None,
    }
}

/// From this length tiktoken merges a piece with its heap-based algorithm.
const LARGE_PIECE: usize = 100;

thread_local! {
    /// This thread's compiled pre-tokenizers, by pattern.
    static REGEXES: RefCell<Vec<(&'static str, Rc<Regex>)>> = const { RefCell::new(Vec::new()) };
}

impl Bpe {
    fn new(name: &'static str, pattern: &'static str, core: &'static CoreBPE) -> Self {
        let specials = core.special_tokens();
        // Ordinary ranks run from 0 without a gap in both encodings; the
        // special tokens sit after them (cl100k: 100257, o200k: 199999).
        let mut ranks = FxHashMap::default();
        let mut lens = Vec::new();
        for rank in 0.. {
            let Ok(bytes) = core.decode_bytes(&[rank]) else { break };
            if std::str::from_utf8(&bytes).is_ok_and(|s| specials.contains(s)) {
                break;
            }
            lens.push(bytes.len() as u32);
            ranks.insert(bytes, rank);
        }
        let own_regex = Regex::new(pattern).is_ok();
        Bpe { name, pattern, core, ranks, lens, own_regex }
    }

    pub fn name(&self) -> &'static str {
        self.name
    }

    /// tiktoken's own encoder (special tokens, decoding).
    pub fn core(&self) -> &'static CoreBPE {
        self.core
    }

    /// The number of tokens of `encode_ordinary(text)`.
    pub fn count(&self, text: &str) -> usize {
        let mut n = 0;
        self.token_lens(text, |_| n += 1);
        n
    }

    /// Calls `each` with the byte length of every token of
    /// `encode_ordinary(text)`, in order. Byte-level BPE is lossless, so the
    /// lengths add up to `text.len()`.
    pub fn token_lens(&self, text: &str, mut each: impl FnMut(usize)) {
        let Some(regex) = self.own_regex.then(|| self.regex()).flatten() else {
            return self.core_lens(text, &mut each);
        };
        let mut done = 0;
        for found in regex.find_iter(text) {
            match found {
                Ok(m) => {
                    self.piece(m.as_str(), &mut each);
                    done = m.end();
                }
                Err(_) => {
                    // Past the backtracking limit, where tiktoken itself
                    // panics: the rest one character per piece, never a panic.
                    for (i, c) in text[done..].char_indices() {
                        self.piece(&text[done + i..done + i + c.len_utf8()], &mut each);
                    }
                    return;
                }
            }
        }
    }

    /// One pre-token: a single token when it is in the vocabulary, else its
    /// byte-pair merges.
    fn piece(&self, piece: &str, each: &mut impl FnMut(usize)) {
        let bytes = piece.as_bytes();
        if bytes.len() <= 1 || self.ranks.contains_key(bytes) {
            each(bytes.len());
        } else if bytes.len() < LARGE_PIECE {
            for part in tiktoken_rs::byte_pair_split(bytes, &self.ranks) {
                each(part.len());
            }
        } else {
            // `byte_pair_split` merges in quadratic time; tiktoken switches to
            // its heap-based merge from 100 bytes on, reachable only through
            // `encode_ordinary`. Pre-tokenizing one pre-token again yields
            // that same piece (the patterns' anchors and lookaheads only ever
            // let it end where it ended), so these are its tokens. Pieces
            // this long are rare (runs of letters, spaces or punctuation), so
            // the shared regex's slow path costs nothing here.
            self.core_lens(piece, each);
        }
    }

    /// The length of every token of tiktoken's own `encode_ordinary(text)`.
    fn core_lens(&self, text: &str, each: &mut impl FnMut(usize)) {
        for id in self.core.encode_ordinary(text) {
            each(self.lens.get(id as usize).map_or(0, |&n| n as usize));
        }
    }

    /// This thread's copy of the pre-tokenizer, compiled on first use.
    fn regex(&self) -> Option<Rc<Regex>> {
        REGEXES.with(|cell| {
            let mut mine = cell.borrow_mut();
            if let Some((_, r)) = mine.iter().find(|(p, _)| std::ptr::eq(*p, self.pattern)) {
                return Some(r.clone());
            }
            let r = Rc::new(Regex::new(self.pattern).ok()?);
            mine.push((self.pattern, r.clone()));
            Some(r)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn tiktoken_lens(bpe: &Bpe, text: &str) -> Vec<usize> {
        bpe.core.encode_ordinary(text).iter().map(|&id| bpe.core.decode_bytes(&[id]).unwrap().len()).collect()
    }

    fn ours(bpe: &Bpe, text: &str) -> Vec<usize> {
        let mut lens = Vec::new();
        bpe.token_lens(text, |n| lens.push(n));
        lens
    }

    #[test]
    fn the_rank_tables_hold_every_ordinary_token_and_no_special_one() {
        assert_eq!(CL100K.ranks.len(), 100_256);
        assert_eq!(O200K.ranks.len(), 199_998);
        for bpe in [&*CL100K, &*O200K] {
            assert_eq!(bpe.lens.len(), bpe.ranks.len());
            assert!(bpe.ranks.iter().all(|(bytes, &rank)| bpe.lens[rank as usize] as usize == bytes.len()));
        }
        for bpe in [&*CL100K, &*O200K] {
            for s in bpe.core.special_tokens() {
                assert!(!bpe.ranks.contains_key(s.as_bytes()), "{s}");
            }
        }
    }

    #[test]
    fn tokens_equal_tiktokens_on_mixed_scripts_and_special_token_text() {
        let text = "Hello, world!  It's 2026-12-01.\r\n\r\n你好，世界。「引号」😀 naïve café\t\tx <|endoftext|> \n  \n";
        for bpe in [&*CL100K, &*O200K] {
            assert_eq!(ours(bpe, text), tiktoken_lens(bpe, text), "{}", bpe.name);
            assert_eq!(bpe.count(text), bpe.core.encode_ordinary(text).len());
        }
    }

    #[test]
    fn long_runs_of_letters_spaces_and_punctuation_are_quick_and_exact() {
        let letters = "abcdefghij".repeat(20_000);
        let cjk = "中文没有空格".repeat(5_000);
        let text = format!("{letters} {cjk}{}x{}\n{}\n\n  y", " ".repeat(300), "!?-".repeat(500), "\t ".repeat(200));
        for bpe in [&*CL100K, &*O200K] {
            assert_eq!(ours(bpe, &text), tiktoken_lens(bpe, &text), "{}", bpe.name);
        }
    }

    #[test]
    fn every_thread_gets_the_same_tokens() {
        let text = "fn main() { println!(\"{}\", 1 + 2); }\n// 注释：中文\n".repeat(50);
        let expected = ours(&CL100K, &text);
        let others: Vec<Vec<usize>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..3).map(|_| s.spawn(|| ours(&CL100K, &text))).collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(others.iter().all(|o| *o == expected));
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
            for bpe in [&*CL100K, &*O200K] {
                // Whole documents, as tiktoken encodes them in one call.
                assert!(ours(bpe, &text) == tiktoken_lens(bpe, &text), "{} {}", path.display(), bpe.name);
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn tokens_equal_tiktokens_on_random_text(text in "[a-zA-Z0-9 \\n\\r\\t.,'!?()\\-\u{4e00}-\u{4e20}\u{3002}\u{ff0c}\u{1F600}é]{0,200}") {
            for bpe in [&*CL100K, &*O200K] {
                prop_assert_eq!(ours(bpe, &text), tiktoken_lens(bpe, &text));
            }
        }
    }
}
