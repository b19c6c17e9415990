//! Exact token counts of BERT-style tokenizers (BertNormalizer,
//! BertPreTokenizer, WordPiece: MiniLM, BGE, GTE and most English
//! embedders), fast.
//!
//! Their pipeline never joins text across whitespace, an ASCII punctuation
//! mark (the pre-tokenizer isolates each) or a CJK ideograph (the normalizer
//! pads each with spaces), and WordPiece cuts each word on its own. So a
//! text's count is the sum of the counts of its pieces between those points. Prose repeats its words: counting each distinct
//! piece once and remembering it turns the count of a book into one hash
//! lookup per word, several times less work than encoding it (over-model-limit
//! counts every chunk of a document; `stats` must stay near `chunk`'s time).
//! `tests/word_counts.rs` checks the sums against whole encodes.

mod wordpiece;

use rustc_hash::FxHashMap;
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use tokenizers::models::wordpiece::WordPiece;
use tokenizers::Model;
use wordpiece::WordVocab;

/// How a tokenizer's text may be cut for counting, when its counts add up.
#[derive(Debug, Clone)]
pub struct Additive {
    /// Distinguishes tokenizers in the per-thread memo.
    id: u64,
    /// The normalizer pads CJK ideographs with spaces (`handle_chinese_chars`).
    split_cjk: bool,
    /// The ASCII chars a word ends at: whitespace, and punctuation that no
    /// added token holds (`[CLS]` in a text is one token, not three).
    ascii_cuts: [bool; 128],
    /// Non-ASCII punctuation (curly quotes, dashes, CJK punctuation) ends a
    /// word too: no added token holds any. Without these cuts, every word
    /// next to a curly quote is a piece of its own that only the whole
    /// pipeline counts, a quarter of the time of counting a novel.
    unicode_cuts: bool,
    /// Pieces of ASCII letters and digits go straight to the WordPiece model
    /// (lowercased when the normalizer lowercases), skipping the pipeline's
    /// per-call cost: Some(lowercase) unless an added token could hide in one.
    direct: Option<bool>,
}

/// Counts remembered per piece: more than this many per thread and the memo
/// starts over (about 10 MB).
const KEEP: usize = 1 << 18;
/// Longer pieces (a URL, a line of base64) are counted, not remembered.
const LONGEST_KEPT: usize = 256;

thread_local! {
    static MEMO: RefCell<Memo> = RefCell::new(Memo::default());
}

/// The counts of one tokenizer's pieces. Most words fit in 15 bytes: they
/// are keyed by their bytes packed into an integer, so a lookup compares
/// in place instead of following a pointer to the key (the lookup is
/// nearly all of the work of counting a book).
struct Memo {
    /// The [`Additive`] whose counts these are.
    id: u64,
    /// Pieces of one char in the Basic Multilingual Plane (each ideograph
    /// and punctuation mark is a piece of its own), by code point: the
    /// count + 1, or 0 when not counted yet. An index instead of a hash.
    chars: Vec<u8>,
    /// The short pieces met last, one per slot by hash: the few thousand
    /// most frequent words of a text are nearly all its pieces, and this
    /// table stays in cache where the whole map does not.
    recent: Vec<(u128, u32)>,
    short: FxHashMap<u128, u32>,
    long: FxHashMap<Box<str>, u32>,
}

/// Slots of [`Memo::recent`] (a power of two; 96 KB).
const RECENT: usize = 1 << 12;

impl Default for Memo {
    fn default() -> Self {
        Memo::new(0)
    }
}

impl Memo {
    fn new(id: u64) -> Memo {
        // Sized for a book's distinct words: growing rehashes them all.
        let short = FxHashMap::with_capacity_and_hasher(1 << 14, Default::default());
        Memo { id, chars: Vec::new(), recent: Vec::new(), short, long: FxHashMap::default() }
    }

    /// [`Memo::get_or_insert`] for a piece of at most 3 bytes.
    fn get_or_insert_char(&mut self, piece: &str, count: impl FnOnce(&str) -> usize) -> usize {
        let mut chars = piece.chars();
        let (Some(c), None) = (chars.next(), chars.next()) else {
            return self.get_or_insert(piece, packed(piece), count) as usize;
        };
        if self.chars.is_empty() {
            self.chars = vec![0; 1 << 16];
        }
        // Three UTF-8 bytes hold code points below 0x10000.
        let slot = &mut self.chars[c as usize];
        if *slot == 0 {
            let n = count(piece);
            match u8::try_from(n + 1) {
                Ok(stored) => *slot = stored,
                Err(_) => return n,
            }
        }
        *slot as usize - 1
    }

    /// The count of `piece`, whose [`packed`] key is `key`.
    fn get_or_insert(&mut self, piece: &str, key: Option<u128>, count: impl FnOnce(&str) -> usize) -> u32 {
        if self.short.len() + self.long.len() >= KEEP {
            self.short.clear();
            self.long.clear();
        }
        match key {
            Some(key) => {
                if self.recent.is_empty() {
                    // Key 0 is no piece's: a packed key holds its length.
                    self.recent = vec![(0, 0); RECENT];
                }
                let mixed = (key as u64 ^ (key >> 64) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                let slot = (mixed >> (64 - RECENT.trailing_zeros())) as usize;
                if self.recent[slot].0 == key {
                    return self.recent[slot].1;
                }
                let n = *self.short.entry(key).or_insert_with(|| count(piece) as u32);
                self.recent[slot] = (key, n);
                n
            }
            None => match self.long.get(piece) {
                Some(&n) => n,
                None => *self.long.entry(piece.into()).or_insert(count(piece) as u32),
            },
        }
    }
}

/// A piece of at most 15 bytes as one integer: its bytes, then its length
/// in the last byte (so "a" and "a\0" differ).
fn packed(piece: &str) -> Option<u128> {
    let len = piece.len();
    (len < 16).then(|| {
        let mut bytes = [0u8; 16];
        bytes[..len].copy_from_slice(piece.as_bytes());
        bytes[15] = len as u8;
        u128::from_le_bytes(bytes)
    })
}

/// [`packed`] of `piece`, which is `text[start..start + piece.len()]`,
/// read as one 16-byte load and masked when 16 bytes follow `start`:
/// building the key a byte at a time and reading it back stalls the load
/// (the store cannot forward), and that stall was a third of counting a book.
fn packed_in(text: &[u8], start: usize, piece: &str) -> Option<u128> {
    let len = piece.len();
    match text.get(start..start + 16) {
        Some(window) if len < 16 => {
            let raw = u128::from_le_bytes(window.try_into().ok()?);
            Some(raw & ((1u128 << (8 * len)) - 1) | (len as u128) << 120)
        }
        _ => packed(piece),
    }
}

impl Additive {
    /// `Some` when the tokenizer.json `json` describes a pipeline whose counts
    /// add up over whitespace (and CJK ideographs): BertNormalizer (or none),
    /// BertPreTokenizer, WordPiece, and no added token holding a cut point.
    pub fn of(json: &serde_json::Value) -> Option<Additive> {
        let kind = |key: &str| json.get(key).and_then(|v| v.get("type")).and_then(|t| t.as_str());
        if kind("model") != Some("WordPiece") || kind("pre_tokenizer") != Some("BertPreTokenizer") {
            return None;
        }
        let (split_cjk, lowercase) = match json.get("normalizer") {
            None | Some(serde_json::Value::Null) => (false, false),
            Some(n) if kind("normalizer") == Some("BertNormalizer") => {
                let flag = |key| n.get(key).and_then(|v| v.as_bool()).unwrap_or(true);
                (flag("handle_chinese_chars"), flag("lowercase"))
            }
            Some(_) => return None,
        };
        // Added tokens are matched in the raw text before anything else: a cut
        // may not fall inside one.
        let added: Vec<&str> = json
            .get("added_tokens")
            .and_then(|a| a.as_array())
            .map(|a| a.iter().filter_map(|t| t.get("content").and_then(|c| c.as_str())).collect())
            .unwrap_or_default();
        let in_added = |c: char| added.iter().any(|t| t.contains(c));
        let mut ascii_cuts = [false; 128];
        for (b, cut) in ascii_cuts.iter_mut().enumerate() {
            let c = char::from(b as u8);
            *cut = is_space(c) || c.is_ascii_punctuation() && !in_added(c);
        }
        let unicode_cuts = !added.iter().any(|t| t.chars().any(|c| !c.is_ascii() && is_bert_punctuation(c)));
        let holds_cut = |t: &&str| t.chars().any(|c| c.is_whitespace() || split_cjk && is_cjk_ideograph(c));
        if added.iter().any(holds_cut) {
            return None;
        }
        let direct = (!added.iter().any(|t| is_plain(t))).then_some(lowercase);
        static NEXT: AtomicU64 = AtomicU64::new(1);
        let id = NEXT.fetch_add(1, Ordering::Relaxed);
        Some(Additive { id, split_cjk, ascii_cuts, unicode_cuts, direct })
    }

    /// [`Additive::of`] the tokenizer.json `bytes`, reading only the keys it
    /// needs: a whole `serde_json::Value` of a 30k-word vocabulary costs
    /// tens of milliseconds, more than counting a small file.
    pub fn of_file(bytes: &[u8]) -> Option<Additive> {
        #[derive(serde::Deserialize)]
        struct Model {
            #[serde(rename = "type")]
            kind: Option<String>,
        }
        #[derive(serde::Deserialize)]
        struct Head {
            normalizer: Option<serde_json::Value>,
            pre_tokenizer: Option<serde_json::Value>,
            model: Option<Model>,
            added_tokens: Option<serde_json::Value>,
        }
        let head: Head = serde_json::from_slice(bytes).ok()?;
        let json = serde_json::json!({
            "normalizer": head.normalizer,
            "pre_tokenizer": head.pre_tokenizer,
            "model": {"type": head.model.and_then(|m| m.kind)},
            "added_tokens": head.added_tokens,
        });
        Additive::of(&json)
    }

    /// Whether the pipeline ends a word before (and after) `c`.
    fn cuts_at(&self, c: char) -> bool {
        match self.ascii_cuts.get(c as usize) {
            Some(&cut) => cut,
            None => is_space(c) || self.split_cjk && is_cjk_ideograph(c) || self.unicode_cuts && is_bert_punctuation(c),
        }
    }

    /// The tokens of `text` (no special tokens), `model` being the
    /// tokenizer's WordPiece: the sum over its pieces, each distinct piece
    /// counted once per thread, by `model` when it is plain ASCII, else by
    /// `encode` (the whole pipeline).
    pub fn count(&self, text: &str, model: &WordPiece, encode: impl Fn(&str) -> usize) -> usize {
        let mut total = 0;
        self.counted_pieces(text, model, encode, |_, n| total += n);
        total
    }

    /// The [`Tally`] of `text`: one pass over its pieces, each counted as
    /// [`Additive::count`] counts it. None past 4 GiB.
    pub fn tally(&self, text: &str, model: &WordPiece, encode: impl Fn(&str) -> usize) -> Option<Tally> {
        u32::try_from(text.len()).ok()?;
        let mut marks = vec![(0u32, 0u32)];
        let mut total = 0usize;
        let base = text.as_ptr() as usize;
        self.counted_pieces(text, model, encode, |piece, n| {
            let start = piece.as_ptr() as usize - base;
            if start - marks.last().map_or(0, |m| m.0 as usize) >= MARK_GAP {
                marks.push((start as u32, total.min(u32::MAX as usize) as u32));
            }
            total += n;
        });
        // More tokens than a u32 holds (never seen: a token covers a byte).
        marks.push((text.len() as u32, u32::try_from(total).ok()?));
        Some(Tally { marks })
    }

    /// Call `f` with each piece of `text` and its count.
    fn counted_pieces<'t>(
        &self,
        text: &'t str,
        model: &WordPiece,
        encode: impl Fn(&str) -> usize,
        mut f: impl FnMut(&'t str, usize),
    ) {
        let vocab = WordVocab::of(model);
        // Scratch for the lowercased piece and the sub-words tried.
        let (lower, buf) = (RefCell::new(String::new()), RefCell::new(String::new()));
        let count_piece = |piece: &str| match (self.direct, vocab) {
            (Some(lowercase), Some(vocab)) if is_plain(piece) => {
                let mut word = lower.borrow_mut();
                word.clear();
                word.push_str(piece);
                if lowercase {
                    word.make_ascii_lowercase();
                }
                vocab.count(&word, &mut buf.borrow_mut())
            }
            (Some(lowercase), None) if is_plain(piece) => {
                let tokens =
                    if lowercase { model.tokenize(&piece.to_ascii_lowercase()) } else { model.tokenize(piece) };
                tokens.map_or_else(|_| encode(piece), |t| t.len())
            }
            _ => encode(piece),
        };
        MEMO.with(|memo| {
            let mut memo = memo.borrow_mut();
            if memo.id != self.id {
                *memo = Memo::new(self.id);
            }
            let base = text.as_ptr() as usize;
            self.pieces(text, |piece| {
                let n = if piece.len() <= 3 {
                    memo.get_or_insert_char(piece, count_piece)
                } else if piece.len() > LONGEST_KEPT {
                    count_piece(piece)
                } else {
                    let start = piece.as_ptr() as usize - base;
                    let key = packed_in(text.as_bytes(), start, piece);
                    memo.get_or_insert(piece, key, count_piece) as usize
                };
                f(piece, n);
            });
        })
    }

    /// Call `f` on each piece of `text`: the runs between cut points, and
    /// each cut point that is not whitespace on its own.
    fn pieces<'t>(&self, text: &'t str, mut f: impl FnMut(&'t str)) {
        let bytes = text.as_bytes();
        let mut start = 0; // of the current run
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            let (c, len) = if b < 0x80 {
                if !self.ascii_cuts[b as usize] {
                    i += 1;
                    continue;
                }
                (b as char, 1)
            } else {
                let c = text[i..].chars().next().unwrap_or('\u{fffd}');
                (c, c.len_utf8())
            };
            if self.cuts_at(c) {
                if start < i {
                    f(&text[start..i]);
                }
                if !is_space(c) {
                    f(&text[i..i + len]);
                }
                start = i + len;
            }
            i += len;
        }
        if start < bytes.len() {
            f(&text[start..]);
        }
    }
}

/// Marks of a [`Tally`] are at least this many bytes apart: a chunk's
/// edges are counted on their own, up to this far from its ends.
const MARK_GAP: usize = 16;

/// The token counts of a whole text, summed once, so that any range of it
/// is counted without counting its text again: chunks that overlap share
/// their count, and the count of a document can be made while it is cut.
/// Exact because counts add up over pieces: a mark sits where a piece
/// begins, and no piece runs across it.
pub struct Tally {
    /// (byte offset, tokens of the pieces before it), in text order.
    marks: Vec<(u32, u32)>,
}

impl Tally {
    /// The tally of a text made of `parts` in order, each the tally of
    /// its own part: a part must end where no piece runs across (after
    /// whitespace).
    pub fn join<'p>(parts: impl IntoIterator<Item = &'p Tally>) -> Option<Tally> {
        let mut marks: Vec<(u32, u32)> = vec![(0, 0)];
        for part in parts {
            let (at, before) = *marks.last()?;
            marks.pop();
            for &(p, n) in &part.marks {
                marks.push((at.checked_add(p)?, before.checked_add(n)?));
            }
        }
        Some(Tally { marks })
    }

    /// The tokens of `text[range]` (the text this tally was made of),
    /// `count` counting the edges between `range`'s ends and the nearest
    /// marks inside it.
    pub fn count(&self, text: &str, range: std::ops::Range<usize>, count: impl Fn(&str) -> usize) -> usize {
        let first = self.marks.partition_point(|m| (m.0 as usize) < range.start);
        let after = self.marks.partition_point(|m| m.0 as usize <= range.end);
        match (self.marks.get(first), after.checked_sub(1).and_then(|i| self.marks.get(i))) {
            (Some(a), Some(b)) if first < after => {
                let (a_at, b_at) = (a.0 as usize, b.0 as usize);
                count(&text[range.start..a_at]) + (b.1 - a.1) as usize + count(&text[b_at..range.end])
            }
            _ => count(&text[range]),
        }
    }
}

/// ASCII letters and digits only: nothing any normalizer step but
/// lowercasing changes, no punctuation for the pre-tokenizer to isolate.
fn is_plain(piece: &str) -> bool {
    !piece.is_empty() && piece.bytes().all(|b| b.is_ascii_alphanumeric())
}

/// Whitespace that stays whitespace: BertNormalizer deletes control chars
/// before it maps whitespace to spaces, so the control chars among the
/// whitespace (vertical tab, form feed, U+0085) join their neighbours.
fn is_space(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r') || c.is_whitespace() && !c.is_control()
}

/// Punctuation that BertPreTokenizer isolates (as the `tokenizers` crate
/// tells it, with the same `unicode_categories` tables), and that no step of
/// BertNormalizer turns into anything but punctuation: a word ends before
/// and after it. Looked up in a table of the Basic Multilingual Plane; the
/// rest of Unicode is asked directly.
fn is_bert_punctuation(c: char) -> bool {
    use unicode_categories::UnicodeCategories;
    // By pages of 256 code points, each made when a char of it is first
    // looked up: the whole plane would take a millisecond to make, more
    // than counting a small file.
    static BMP: [std::sync::OnceLock<[u64; 4]>; 256] = [const { std::sync::OnceLock::new() }; 256];
    let punctuation = |c: char| c.is_punctuation() && stays_punctuation(c);
    match c as u32 {
        code @ 0..=0xFFFF => {
            let page = BMP[code as usize >> 8].get_or_init(|| {
                let mut bits = [0u64; 4];
                let first = code & !0xFF;
                for n in first..first + 256 {
                    if char::from_u32(n).is_some_and(punctuation) {
                        bits[(n as usize & 0xFF) >> 6] |= 1 << (n & 63);
                    }
                }
                bits
            });
            page[(code as usize & 0xFF) >> 6] >> (code & 63) & 1 == 1
        }
        _ => punctuation(c),
    }
}

/// Whether BertNormalizer leaves `c` punctuation: lowercasing and accent
/// stripping (NFD) give punctuation only, and it is no control char.
fn stays_punctuation(c: char) -> bool {
    use unicode_categories::UnicodeCategories;
    use unicode_normalization::UnicodeNormalization;
    let punctuation = |d: char| d.is_ascii_punctuation() || d.is_punctuation();
    !c.is_other() && c.to_lowercase().all(punctuation) && std::iter::once(c).nfd().all(punctuation)
}

/// The ideographs BertNormalizer pads with spaces (a subset of its list
/// would do: a cut at fewer points is still exact; the full list is kept).
fn is_cjk_ideograph(c: char) -> bool {
    matches!(c as u32,
        0x4E00..=0x9FFF
        | 0x3400..=0x4DBF
        | 0x20000..=0x2A6DF
        | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F
        | 0x2B920..=0x2CEAF
        | 0xF900..=0xFAFF
        | 0x2F800..=0x2FA1F)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bert() -> Additive {
        let json = serde_json::json!({
            "normalizer": {"type": "BertNormalizer", "handle_chinese_chars": true},
            "pre_tokenizer": {"type": "BertPreTokenizer"},
            "model": {"type": "WordPiece"},
            "added_tokens": [{"content": "[CLS]"}, {"content": "[SEP]"}],
        });
        Additive::of(&json).expect("a BERT pipeline adds up")
    }

    #[test]
    fn pieces_are_the_runs_between_whitespace_and_each_ideograph() {
        let mut seen = Vec::new();
        bert().pieces(" ab\tc中文d\u{3000}e, [CLS]f g\u{85}h\u{b}i", |p| seen.push(p));
        // U+0085 and the vertical tab are control chars the normalizer deletes.
        assert_eq!(seen, ["ab", "c", "中", "文", "d", "e", ",", "[CLS]f", "g\u{85}h\u{b}i"]);
    }

    #[test]
    fn counts_are_sums_of_remembered_pieces() {
        let calls = std::cell::Cell::new(0);
        let chars = |p: &str| {
            calls.set(calls.get() + 1);
            p.chars().count()
        };
        let a = Additive { direct: None, ..bert() };
        let model = tokenizers::models::wordpiece::WordPiece::default();
        assert_eq!(a.count("aa bb aa 中中", &model, chars), 8);
        assert_eq!(calls.get(), 3, "aa, bb and 中 are each counted once");
    }

    #[test]
    fn packed_keys_tell_lengths_and_trailing_nuls_apart() {
        assert_ne!(packed("a"), packed("a\0"));
        assert_ne!(packed("ab"), packed("ba"));
        assert!(packed(&"x".repeat(15)).is_some());
        assert_eq!(packed(&"x".repeat(16)), None, "16 bytes go to the long map");
    }

    #[test]
    fn keys_read_in_place_are_the_packed_keys() {
        let text = "a\0b\0 中文 word wörter exactly15bytes! sixteen_bytes_xx tail";
        let bytes = text.as_bytes();
        for start in 0..bytes.len() {
            for end in start..=bytes.len() {
                if let Ok(piece) = std::str::from_utf8(&bytes[start..end]) {
                    assert_eq!(packed_in(bytes, start, piece), packed(piece), "{start}..{end}");
                }
            }
        }
    }

    #[test]
    fn the_light_parse_reads_the_same_pipeline_as_the_whole_one() {
        let file = serde_json::json!({
            "normalizer": {"type": "BertNormalizer", "lowercase": false, "handle_chinese_chars": false},
            "pre_tokenizer": {"type": "BertPreTokenizer"},
            "model": {"type": "WordPiece", "vocab": {"a": 0, "##b": 1}, "unk_token": "[UNK]"},
            "added_tokens": [{"id": 0, "content": "[CLS]", "special": true}],
        });
        let light = Additive::of_file(file.to_string().as_bytes()).expect("adds up");
        let whole = Additive::of(&file).expect("adds up");
        assert_eq!(
            (light.split_cjk, light.direct, light.ascii_cuts),
            (whole.split_cjk, whole.direct, whole.ascii_cuts)
        );
        assert_eq!((light.split_cjk, light.direct), (false, Some(false)));
        let bpe = serde_json::json!({"pre_tokenizer": {"type": "ByteLevel"}, "model": {"type": "BPE", "vocab": {}}});
        assert!(Additive::of_file(bpe.to_string().as_bytes()).is_none());
        assert!(Additive::of_file(b"not json").is_none());
    }

    #[test]
    fn other_pipelines_and_added_tokens_with_spaces_do_not_add_up() {
        let byte_level = serde_json::json!({"pre_tokenizer": {"type": "ByteLevel"}, "model": {"type": "BPE"}});
        assert!(Additive::of(&byte_level).is_none());
        let spaced = serde_json::json!({
            "pre_tokenizer": {"type": "BertPreTokenizer"}, "model": {"type": "WordPiece"},
            "added_tokens": [{"content": "new line"}],
        });
        assert!(Additive::of(&spaced).is_none());
        let other_normalizer = serde_json::json!({
            "normalizer": {"type": "Precompiled"},
            "pre_tokenizer": {"type": "BertPreTokenizer"}, "model": {"type": "WordPiece"},
        });
        assert!(Additive::of(&other_normalizer).is_none());
    }
}
