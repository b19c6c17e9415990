//! The Unicode classes the built-in pre-tokenizers test, read from tables
//! build.rs wrote from regex-syntax (what the regexes tiktoken runs read).

/// `\p{L}`
pub const LETTER: u8 = 1;
/// `\p{N}`
pub const NUMBER: u8 = 2;
/// `\s` (White_Space)
pub const SPACE: u8 = 4;
/// o200k's `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`
pub const UPPER: u8 = 8;
/// o200k's `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`
pub const LOWER: u8 = 16;

/// The class bits of every code point below 0x10000, one byte each.
static BMP: &[u8; 0x10000] = include_bytes!(concat!(env!("OUT_DIR"), "/classes.bmp"));
/// Above: runs of equal bits, (first code point, bits) as u32 LE pairs.
static ASTRAL: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/classes.astral"));

/// The class bits of `c` (the tests' way in).
#[cfg(test)]
pub fn of(c: char) -> u8 {
    of_code(c as u32)
}

/// The class bits of the code point `code`.
#[inline]
pub fn of_code(code: u32) -> u8 {
    if code < 0x10000 {
        return BMP[code as usize];
    }
    let runs = ASTRAL.len() / 8;
    let first = |i: usize| u32::from_le_bytes(ASTRAL[8 * i..8 * i + 4].try_into().expect("4 bytes"));
    // The last run starting at or before `code` (the first starts at 0x10000).
    let (mut lo, mut hi) = (0, runs);
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if first(mid) <= code {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    ASTRAL[8 * lo + 4]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_agree_with_the_regex_engine_on_every_code_point() {
        let class = |p: &str| regex::Regex::new(&format!("^{p}$")).unwrap();
        let sets = [
            (LETTER, class(r"\p{L}")),
            (NUMBER, class(r"\p{N}")),
            (SPACE, class(r"\s")),
            (UPPER, class(r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]")),
            (LOWER, class(r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]")),
        ];
        let mut buf = [0u8; 4];
        for c in (0..=0x10FFFFu32).step_by(7).chain(0..0x3000).filter_map(char::from_u32) {
            let s = c.encode_utf8(&mut buf);
            for (bit, re) in &sets {
                assert_eq!(of(c) & bit != 0, re.is_match(s), "{c:?} U+{:04X} bit {bit}", c as u32);
            }
        }
    }
}
