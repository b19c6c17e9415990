//! cl100k_base's pre-tokenizer, written out by hand: its regex
//!
//! ```text
//! '(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+
//! | ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s
//! ```
//!
//! matched as fancy-regex does (leftmost-first alternatives, possessive
//! where marked), one alternative after another below. Running the regex
//! was half of tiktoken's time; this is a loop over bytes with one table
//! lookup per char. The tests compare every piece with the regex's.

use super::classes::{self, LETTER, NUMBER, SPACE};

/// Calls `each` with every pre-token of `text`, in order.
pub fn pieces<'t>(text: &'t str, each: impl FnMut(&'t str)) {
    pieces_by(text, piece_end, each)
}

/// Every piece of `text` as `piece_end` (an encoding's pre-tokenizer: where
/// the piece starting at a byte ends) cuts them, in order.
pub(super) fn pieces_by<'t>(text: &'t str, piece_end: impl Fn(&[u8], usize) -> usize, mut each: impl FnMut(&'t str)) {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let end = piece_end(bytes, i);
        each(&text[i..end]);
        i = end;
    }
}

/// The code point at `i` (a char boundary of valid UTF-8) and its length.
#[inline]
pub(super) fn decode(b: &[u8], i: usize) -> (u32, usize) {
    let b0 = b[i] as u32;
    if b0 < 0x80 {
        (b0, 1)
    } else if b0 < 0xE0 {
        ((b0 & 0x1F) << 6 | (b[i + 1] as u32 & 0x3F), 2)
    } else if b0 < 0xF0 {
        ((b0 & 0x0F) << 12 | (b[i + 1] as u32 & 0x3F) << 6 | (b[i + 2] as u32 & 0x3F), 3)
    } else {
        (
            (b0 & 0x07) << 18
                | (b[i + 1] as u32 & 0x3F) << 12
                | (b[i + 2] as u32 & 0x3F) << 6
                | (b[i + 3] as u32 & 0x3F),
            4,
        )
    }
}

/// The class bits and length of the char at `i`.
#[inline]
pub(super) fn class_at(b: &[u8], i: usize) -> (u8, usize) {
    let (code, len) = decode(b, i);
    (classes::of_code(code), len)
}

/// Past the run of chars from `i` whose class has any of `bits`.
#[inline]
pub(super) fn run_end(b: &[u8], mut i: usize, bits: u8) -> usize {
    while i < b.len() {
        let (class, len) = class_at(b, i);
        if class & bits == 0 {
            break;
        }
        i += len;
    }
    i
}

/// The end of the pre-token that starts at `i`.
fn piece_end(b: &[u8], i: usize) -> usize {
    let n = b.len();
    let (c0, l0) = decode(b, i);
    let k0 = classes::of_code(c0);
    // '(?i:[sdmt]|ll|ve|re): case folding makes U+017F (long s) an s too.
    if c0 == u32::from(b'\'') && i + 1 < n {
        let (c1, l1) = decode(b, i + 1);
        if matches!(c1, 0x73 | 0x53 | 0x64 | 0x44 | 0x6D | 0x4D | 0x74 | 0x54 | 0x17F) {
            return i + 1 + l1;
        }
        if i + 2 < n {
            let pair = (b[i + 1].to_ascii_lowercase(), b[i + 2].to_ascii_lowercase());
            if matches!(pair, (b'l', b'l') | (b'v', b'e') | (b'r', b'e')) {
                return i + 3;
            }
        }
    }
    // [^\r\n\p{L}\p{N}]?+\p{L}++
    if k0 & LETTER != 0 {
        return run_end(b, i + l0, LETTER);
    }
    if k0 & NUMBER == 0 && c0 != u32::from(b'\r') && c0 != u32::from(b'\n') && i + l0 < n {
        let (k1, l1) = class_at(b, i + l0);
        if k1 & LETTER != 0 {
            return run_end(b, i + l0 + l1, LETTER);
        }
    }
    // \p{N}{1,3}+
    if k0 & NUMBER != 0 {
        return numbers_end(b, i + l0);
    }
    //  ?[^\s\p{L}\p{N}]++[\r\n]*+
    if let Some(end) = punctuation_end(b, i, c0, b"\r\n") {
        return end;
    }
    // What is left starts with white space (every other char matched above).
    // The run of it, the end of its last line break and its last char's start.
    let (end, line_end, last) = space_run(b, i);
    if end == n {
        return n; // \s++$
    }
    if let Some(line_end) = line_end {
        return line_end; // \s*[\r\n]
    }
    if last > i {
        return last; // \s+(?!\S): all but the char before the non-space
    }
    i + l0 // \s
}

/// ` ?[^\s\p{L}\p{N}]+` and then any bytes of `trailing` (cl100k: `\r\n`,
/// o200k: `\r\n/`), from `i`, whose char is `c0`: where it ends, if one
/// starts there.
pub(super) fn punctuation_end(b: &[u8], i: usize, c0: u32, trailing: &[u8]) -> Option<usize> {
    let j = if c0 == u32::from(b' ') { i + 1 } else { i };
    if j >= b.len() {
        return None;
    }
    let (k, l) = class_at(b, j);
    if k & (SPACE | LETTER | NUMBER) != 0 {
        return None;
    }
    let mut end = run_end_not(b, j + l);
    while end < b.len() && trailing.contains(&b[end]) {
        end += 1;
    }
    Some(end)
}

/// The run of white space from `i`: where it ends, the end of its last line
/// break, and the start of its last char.
pub(super) fn space_run(b: &[u8], i: usize) -> (usize, Option<usize>, usize) {
    let (mut end, mut line_end, mut last) = (i, None, i);
    while end < b.len() {
        let (code, len) = decode(b, end);
        if classes::of_code(code) & SPACE == 0 {
            break;
        }
        if code == u32::from(b'\r') || code == u32::from(b'\n') {
            line_end = Some(end + len);
        }
        last = end;
        end += len;
    }
    (end, line_end, last)
}

/// `\p{N}{1,3}` of both encodings: from the end of a first number, up to
/// two more.
pub(super) fn numbers_end(b: &[u8], mut end: usize) -> usize {
    for _ in 0..2 {
        if end >= b.len() {
            break;
        }
        let (k, l) = class_at(b, end);
        if k & NUMBER == 0 {
            break;
        }
        end += l;
    }
    end
}

/// Past the run of chars from `i` that are neither space, letter nor number.
#[inline]
pub(super) fn run_end_not(b: &[u8], mut i: usize) -> usize {
    while i < b.len() {
        let (class, len) = class_at(b, i);
        if class & (SPACE | LETTER | NUMBER) != 0 {
            break;
        }
        i += len;
    }
    i
}
