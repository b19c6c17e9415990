//! o200k_base's pre-tokenizer, written out by hand: its regex
//!
//! ```text
//! [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//! |[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//! |\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
//! ```
//!
//! matched as fancy-regex does: alternatives in order, and within one the
//! greedy quantifiers give back only what lets it match (the two letter
//! classes overlap in Lm, Lo and marks, and a mark is also a
//! `[^\r\n\p{L}\p{N}]`, so the first alternative can take either road).
//! The tests compare every piece with the regex's.

use super::cl100k::{class_at, decode, numbers_end, pieces_by, punctuation_end, run_end, space_run};
use super::classes::{self, LETTER, LOWER, NUMBER, UPPER};

/// Calls `each` with every pre-token of `text`, in order.
pub fn pieces<'t>(text: &'t str, each: impl FnMut(&'t str)) {
    pieces_by(text, piece_end, each)
}

/// The length of `(?i:'s|'t|'re|'ve|'m|'ll|'d)` at `i`, 0 if none (case
/// folding makes U+017F, long s, an s too).
fn contraction(b: &[u8], i: usize) -> usize {
    if b.get(i) != Some(&b'\'') || i + 1 >= b.len() {
        return 0;
    }
    let (c1, l1) = decode(b, i + 1);
    if matches!(c1, 0x73 | 0x53 | 0x74 | 0x54 | 0x6D | 0x4D | 0x64 | 0x44 | 0x17F) {
        return 1 + l1;
    }
    match b.get(i + 2).map(|c2| (b[i + 1].to_ascii_lowercase(), c2.to_ascii_lowercase())) {
        Some((b'r', b'e') | (b'v', b'e') | (b'l', b'l')) => 3,
        _ => 0,
    }
}

/// `U*W+C?` from `s` (U, W: the upper and lower letter classes, C the
/// contraction): U* gives back chars until a W can follow.
fn upper_star_lower_plus(b: &[u8], s: usize) -> Option<usize> {
    // The run of U, and the start of its last char that is also a W.
    let (mut u_end, mut last_w) = (s, None);
    while u_end < b.len() {
        let (class, len) = class_at(b, u_end);
        if class & UPPER == 0 {
            break;
        }
        if class & LOWER != 0 {
            last_w = Some(u_end);
        }
        u_end += len;
    }
    let next_is_w = u_end < b.len() && class_at(b, u_end).0 & LOWER != 0;
    let q = if next_is_w { u_end } else { last_w? };
    let w_end = run_end(b, q, LOWER);
    Some(w_end + contraction(b, w_end))
}

/// `U+W*C?` from `s`.
fn upper_plus_lower_star(b: &[u8], s: usize) -> Option<usize> {
    if s >= b.len() || class_at(b, s).0 & UPPER == 0 {
        return None;
    }
    let w_end = run_end(b, run_end(b, s, UPPER), LOWER);
    Some(w_end + contraction(b, w_end))
}

/// The end of the pre-token that starts at `i`.
fn piece_end(b: &[u8], i: usize) -> usize {
    let n = b.len();
    let (c0, l0) = decode(b, i);
    let k0 = classes::of_code(c0);
    // [^\r\n\p{L}\p{N}]? is tried taken, then not.
    let optional = k0 & (LETTER | NUMBER) == 0 && c0 != u32::from(b'\r') && c0 != u32::from(b'\n');
    let starts = if optional { [Some(i + l0), Some(i)] } else { [Some(i), None] };
    for letters in [upper_star_lower_plus, upper_plus_lower_star] {
        if let Some(end) = starts.iter().flatten().find_map(|&s| letters(b, s)) {
            return end;
        }
    }
    // \p{N}{1,3}
    if k0 & NUMBER != 0 {
        return numbers_end(b, i + l0);
    }
    //  ?[^\s\p{L}\p{N}]+[\r\n/]*
    if let Some(end) = punctuation_end(b, i, c0, b"\r\n/") {
        return end;
    }
    // White space is left: its run, the end of its last line break and
    // the start of its last char.
    let (end, line_end, last) = space_run(b, i);
    if let Some(line_end) = line_end {
        return line_end; // \s*[\r\n]+
    }
    if end == n {
        return n; // \s+(?!\S) at the end
    }
    if last > i {
        return last; // \s+(?!\S): all but the char before the non-space
    }
    end // \s+
}
