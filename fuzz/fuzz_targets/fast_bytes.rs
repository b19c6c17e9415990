//! Fuzz target: raw bytes (not made valid: `fast` cuts bytes unchecked) ->
//! the `fast` strategy's cut, checked by tests/common/fast_check.rs (shared
//! with the property test tests/fast_properties.rs): the chunks tile the
//! bytes, never end before a continuation byte, keep to the budget but for
//! one character longer than it, and on valid UTF-8 equal the definition's
//! slow reference and the library's `chunk` / `offsets_into` /
//! `offsets_of_bytes_into`.
//!
//! Input layout: byte 0 picks the delimiters, byte 1 the pattern (mostly
//! none) and bit 7 of it prefix, byte 2 the budget (1..=256 bytes); the
//! rest are the bytes cut.
#![cfg_attr(fuzzing, no_main)]

#[path = "../../tests/common/fast_check.rs"]
mod fast_check;

use chunktui::config::FastOptions;

const DELIMITERS: [&str; 6] = ["\n.?", "\n.?!。！？", "。", "", "!？\n", "中"];
const PATTERNS: [&str; 4] = ["\n\n", ". ", "。！", "a"];

pub fn check(data: &[u8]) {
    if data.len() < 3 {
        return;
    }
    let pattern = match data[1] & 0x7F {
        p if (p as usize) < PATTERNS.len() => Some(PATTERNS[p as usize].to_string()),
        _ => None,
    };
    let o = FastOptions {
        delimiters: DELIMITERS[data[0] as usize % DELIMITERS.len()].to_string(),
        pattern,
        prefix: data[1] & 0x80 != 0,
    };
    let size = 1 + data[2] as usize;
    if let Err(e) = fast_check::check(&data[3..], size, &o) {
        panic!("fast: {e}\n  size {size} / {o:?}");
    }
}

#[cfg(fuzzing)]
libfuzzer_sys::fuzz_target!(|data: &[u8]| check(data));

#[cfg(not(fuzzing))]
fn main() {
    let n = replay::replay(check);
    println!("replayed {n} input(s): every cut holds");
}

#[cfg(not(fuzzing))]
mod replay;
