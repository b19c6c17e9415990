//! tiktoken's `encode_ordinary` for the built-in encodings, exact and fast
//! to start.
//!
//! - The ranks are read in place from tables build.rs wrote into the
//!   binary ([`table`]): tiktoken builds a hash map of every token first,
//!   ~130 ms of every cl100k run before the first byte of a document.
//! - cl100k's pre-tokenizer is written out by hand ([`cl100k`]); o200k's
//!   regex runs as tiktoken's does, compiled once per thread (fancy-regex
//!   clones share their scratch pools: every thread but the first took a
//!   slow path on every pre-token, a quarter of a second thread's time).
//! - A pre-token that is no token is merged by tiktoken's rule ([`merge`]).
//!
//! tiktoken-rs itself stays behind [`Bpe::core`] for what only it does
//! (special tokens, decoding), loaded on first use. The tokens are exactly
//! tiktoken's: `tests` below compares them on every corpus document and on
//! random and adversarial text.

mod cl100k;
mod classes;
mod hash;
mod merge;
mod table;

use fancy_regex_tiktoken::Regex;
use std::cell::RefCell;
use std::rc::Rc;
use table::Table;
use tiktoken_rs::CoreBPE;

/// The pre-tokenizer of `o200k_base`, as tiktoken-rs builds it.
const O200K_PATTERN: &str = tiktoken_rs::O200K_BASE_PAT_STR;

/// A built-in tiktoken encoding.
pub struct Bpe {
    name: &'static str,
    table: &'static Table,
    /// None: the hand-written cl100k pre-tokenizer; else this regex.
    pattern: Option<&'static str>,
    core: fn() -> &'static CoreBPE,
}

static CL100K: Bpe =
    Bpe { name: "cl100k_base", table: &table::CL100K, pattern: None, core: tiktoken_rs::cl100k_base_singleton };
static O200K: Bpe = Bpe {
    name: "o200k_base",
    table: &table::O200K,
    pattern: Some(O200K_PATTERN),
    core: tiktoken_rs::o200k_base_singleton,
};

/// `cl100k_base` or `o200k_base`; None for any other name.
pub fn builtin(name: &str) -> Option<&'static Bpe> {
    match name {
        "cl100k_base" => Some(&CL100K),
        "o200k_base" => Some(&O200K),
        _ => None,
    }
}

thread_local! {
    /// This thread's compiled pre-tokenizers, by pattern.
    static REGEXES: RefCell<Vec<(&'static str, Option<Rc<Regex>>)>> = const { RefCell::new(Vec::new()) };
}

impl Bpe {
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// tiktoken's own encoder (special tokens, decoding), built on first
    /// use: that takes ~130 ms, which counting never pays.
    pub fn core(&self) -> &'static CoreBPE {
        (self.core)()
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
        let Some(pattern) = self.pattern else {
            return cl100k::pieces(text, |piece| self.piece(piece, &mut each));
        };
        let Some(regex) = regex(pattern) else {
            // The pattern always compiles; were it not to here, tiktoken's
            // own encoder gives the same tokens, slower.
            let core = self.core();
            return core.encode_ordinary(text).iter().for_each(|&id| each(self.table.token(id).len()));
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
    #[inline]
    fn piece(&self, piece: &str, each: &mut impl FnMut(usize)) {
        let bytes = piece.as_bytes();
        if bytes.len() <= 1 || self.table.rank(bytes).is_some() {
            each(bytes.len());
        } else {
            merge::merge(self.table, bytes, each);
        }
    }
}

/// This thread's copy of the pre-tokenizer `pattern`, compiled on first use.
fn regex(pattern: &'static str) -> Option<Rc<Regex>> {
    REGEXES.with(|cell| {
        let mut mine = cell.borrow_mut();
        if let Some((_, r)) = mine.iter().find(|(p, _)| std::ptr::eq(*p, pattern)) {
            return r.clone();
        }
        let r = Regex::new(pattern).ok().map(Rc::new);
        mine.push((pattern, r.clone()));
        r
    })
}

#[cfg(test)]
mod tests;
