//! tiktoken's `encode_ordinary` for the built-in encodings, exact and fast
//! to start.
//!
//! - The ranks are read in place from tables build.rs wrote into the
//!   binary ([`table`]): tiktoken builds a hash map of every token first,
//!   ~130 ms of every cl100k run before the first byte of a document.
//! - The pre-tokenizers are written out by hand ([`cl100k`], [`o200k`]):
//!   running tiktoken's regex (fancy-regex) was half of its time.
//! - Pre-tokens met last are remembered per thread ([`Memo`]); a long one
//!   is cut where no merge can cross ([`split`]); a pre-token that is no
//!   token is merged by tiktoken's rule ([`merge`]).
//!
//! tiktoken-rs itself stays behind [`Bpe::core`] for what only it does
//! (special tokens, decoding), loaded on first use. The tokens are exactly
//! tiktoken's: `tests` below compares them on every corpus document and on
//! random and adversarial text.

mod cl100k;
mod classes;
mod hash;
mod merge;
mod o200k;
mod split;
mod table;

use std::cell::RefCell;
use table::Table;
use tiktoken_rs::CoreBPE;

/// A built-in encoding's pre-tokenizer.
enum Pre {
    Cl100k,
    O200k,
}

/// A built-in tiktoken encoding.
pub struct Bpe {
    name: &'static str,
    /// Which of this thread's memos is this encoding's.
    id: usize,
    table: &'static Table,
    pre: Pre,
    core: fn() -> &'static CoreBPE,
}

static CL100K: Bpe = Bpe {
    name: "cl100k_base",
    id: 0,
    table: &table::CL100K,
    pre: Pre::Cl100k,
    core: tiktoken_rs::cl100k_base_singleton,
};
static O200K: Bpe =
    Bpe { name: "o200k_base", id: 1, table: &table::O200K, pre: Pre::O200k, core: tiktoken_rs::o200k_base_singleton };

/// `cl100k_base` or `o200k_base`; None for any other name.
pub fn builtin(name: &str) -> Option<&'static Bpe> {
    match name {
        "cl100k_base" => Some(&CL100K),
        "o200k_base" => Some(&O200K),
        _ => None,
    }
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
        MEMOS.with(|memos| {
            // Borrowed already only were `each` to tokenize on this thread.
            let mut memos = memos.try_borrow_mut().ok();
            let mut memo = memos.as_deref_mut().map(|m| m.of(self.id));
            self.token_lens_with(text, &mut memo, &mut each)
        })
    }

    fn token_lens_with(&self, text: &str, memo: &mut Option<&mut Memo>, each: &mut impl FnMut(usize)) {
        match self.pre {
            Pre::Cl100k => cl100k::pieces(text, |piece| self.piece(piece.as_bytes(), memo, each)),
            Pre::O200k => o200k::pieces(text, |piece| self.piece(piece.as_bytes(), memo, each)),
        }
    }

    /// One pre-token: remembered, a single token, or the byte-pair merges
    /// of each part of it that merges on its own.
    #[inline]
    fn piece(&self, piece: &[u8], memo: &mut Option<&mut Memo>, each: &mut impl FnMut(usize)) {
        if piece.len() > Memo::LONGEST {
            return split::parts(self.table, piece, |part| self.part(part, memo, each));
        }
        self.part(piece, memo, each)
    }

    /// A pre-token or a part of one that merges on its own.
    #[inline]
    fn part(&self, part: &[u8], memo: &mut Option<&mut Memo>, each: &mut impl FnMut(usize)) {
        if part.len() == 1 {
            return each(1);
        }
        let Some(memo) = memo.as_deref_mut().filter(|_| part.len() <= Memo::LONGEST) else {
            return self.merged(part, each);
        };
        if let Some(code) = one_bmp_char(part) {
            return self.char_part(part, code, memo, each);
        }
        let (mut slot, key) = memo.slot(part);
        if memo.slots[slot + 1].0 == key {
            slot += 1;
        } else if memo.slots[slot].0 != key {
            // Two ways: the slot's last piece moves to the second, this one
            // takes the first.
            memo.slots[slot + 1] = memo.slots[slot];
            let (mut lens, mut n) = (0u64, 0);
            let mut push = |len: usize| {
                lens |= (len as u64) << (4 + 4 * n);
                n += 1;
            };
            if part.is_ascii() {
                self.merged(part, &mut push);
            } else {
                // A few CJK chars between punctuation: each char, or the
                // run of them a token may cross, merged on its own.
                split::parts(self.table, part, |p| match one_bmp_char(p) {
                    Some(code) => self.char_part(p, code, memo, &mut push),
                    None => self.merged(p, &mut push),
                });
            }
            memo.slots[slot] = (key, lens | n);
        }
        let lens = memo.slots[slot].1;
        for i in 0..lens & 15 {
            each((lens >> (4 + 4 * i)) as usize & 15);
        }
    }

    /// A part that is one char of 2 or 3 bytes (most parts of a CJK text):
    /// its tokens are read from a table by code point, 2 bits a length.
    #[inline]
    fn char_part(&self, part: &[u8], code: u32, memo: &mut Memo, each: &mut impl FnMut(usize)) {
        if memo.chars.is_empty() {
            memo.chars = vec![Memo::NO_CHAR; 1 << 16];
        }
        let slot = &mut memo.chars[code as usize];
        if *slot == Memo::NO_CHAR {
            // At most 3 tokens of at most 3 bytes: the count, then each length.
            let (mut packed, mut n) = (0u8, 0);
            self.merged(part, &mut |len| {
                packed |= (len as u8) << (2 + 2 * n);
                n += 1;
            });
            *slot = packed | n as u8;
        }
        let packed = *slot;
        for i in 0..packed & 3 {
            each(usize::from(packed >> (2 + 2 * i) & 3));
        }
    }

    /// The tokens of a piece that merges on its own, not remembered.
    #[inline]
    fn merged(&self, part: &[u8], each: &mut impl FnMut(usize)) {
        if part.len() <= 1 || self.table.rank(part).is_some() {
            each(part.len());
        } else {
            merge::merge(self.table, part, each);
        }
    }
}

thread_local! {
    /// This thread's remembered pieces, one memo per encoding.
    static MEMOS: RefCell<Memos> = RefCell::new(Memos::default());
}

#[derive(Default)]
struct Memos([Memo; 2]);

impl Memos {
    fn of(&mut self, id: usize) -> &mut Memo {
        &mut self.0[id]
    }
}

/// The code point of `part` when it is one char of 2 or 3 bytes.
#[inline]
fn one_bmp_char(part: &[u8]) -> Option<u32> {
    match *part {
        [a, b] if a & 0xE0 == 0xC0 => Some(u32::from(a & 0x1F) << 6 | u32::from(b & 0x3F)),
        [a, b, c] if a & 0xF0 == 0xE0 => {
            Some(u32::from(a & 0x0F) << 12 | u32::from(b & 0x3F) << 6 | u32::from(c & 0x3F))
        }
        _ => None,
    }
}

/// The tokens of the pieces met last, in one of two slots by hash (256 KB): a text's few thousand most frequent words are nearly all its
/// pieces, and a slot here stays in cache where the rank table (megabytes)
/// does not; merged words (identifiers, hashes, CJK chars of two tokens)
/// are merged once.
#[derive(Default)]
struct Memo {
    /// (the piece's bytes and length packed, its token lengths: the count in
    /// the low 4 bits, then 4 bits a token). Empty until first used.
    slots: Vec<(u128, u64)>,
    /// The tokens of each char of the BMP met as a part of its own, by code
    /// point: the count in the low 2 bits, then 2 bits a length; [`Memo::NO_CHAR`] when not
    /// merged yet. An index instead of a hash.
    chars: Vec<u8>,
}

impl Memo {
    /// Pieces up to this long are remembered: 15 bytes and their length fit
    /// the key, and at most 15 token lengths of at most 15 the value.
    const LONGEST: usize = 15;
    const SLOTS: usize = 1 << 13;
    /// An empty slot's key, no piece's (a key's top byte is its piece's
    /// length, at most 15). Not 0: a table of zeros is mapped to the zero
    /// page and copied on each first write, a flush of the other core's
    /// TLB each time (~2 ms a thread on a 0.7 MB file); this one is
    /// written when made.
    const NO_PIECE: u128 = u128::MAX;
    /// A char not merged yet: no char's tokens (three of three bytes).
    const NO_CHAR: u8 = u8::MAX;

    /// The first of the two slots `piece` (at most [`Memo::LONGEST`] bytes)
    /// may be in, and its key.
    #[inline]
    fn slot(&mut self, piece: &[u8]) -> (usize, u128) {
        if self.slots.is_empty() {
            self.slots = vec![(Self::NO_PIECE, 0); Self::SLOTS];
        }
        let mut bytes = [0u8; 16];
        bytes[..piece.len()].copy_from_slice(piece);
        bytes[15] = piece.len() as u8;
        let key = u128::from_le_bytes(bytes);
        let mixed = (key as u64 ^ (key >> 64) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        ((mixed >> (64 - Self::SLOTS.trailing_zeros())) as usize & !1, key)
    }
}

#[cfg(test)]
mod tests;
