//! Fuzz target: arbitrary bytes -> (lossy UTF-8 text, strategy, unit, size,
//! overlap), chunked and checked with the same invariants as the test suite
//! (tests/common/mod.rs: bounds, char boundaries, order, coverage, sizes,
//! size limit, overlap rule; looser checks for the LangChain strategies).
//!
//! Input layout: byte 0 picks the strategy (every non-model one), byte 1 the
//! unit (chars, words, cl100k tokens; always tokens for langchain-token), bytes 2-3 the size (1..=64, small
//! sizes favoured), byte 4 the overlap (< size), byte 5 the recursive preset;
//! the rest is the text (invalid UTF-8 replaced with U+FFFD, as `--lossy`).
//!
//! With cargo-fuzz (`cargo fuzz run chunk_invariants`) this is a libFuzzer
//! target. Built plainly (`cargo run --release --bin chunk_invariants --
//! DIR_OR_FILE...`) it replays files, e.g. fuzz/seeds/ or a saved crash.
#![cfg_attr(fuzzing, no_main)]

#[path = "../../tests/common/mod.rs"]
#[allow(dead_code)]
mod common;

use chunktui::config::Unit;

pub fn check(data: &[u8]) {
    if data.len() < 6 {
        return;
    }
    // Every strategy that needs no model, from the strategy table.
    let strategies = common::non_model();
    let kind = strategies[data[0] as usize % strategies.len()];
    // A strategy that always counts in one unit (LangChain's token splitter) gets it.
    let unit = kind.spec().forces_unit.unwrap_or(Unit::ALL[data[1] as usize % 3]);
    let raw = u16::from_le_bytes([data[2], data[3]]) as usize;
    // Half the inputs get a tiny size (1..=4), the rest 1..=64.
    let size = if raw & 1 == 0 { 1 + (raw >> 1) % 4 } else { 1 + (raw >> 1) % 64 };
    let overlap = data[4] as usize % size;
    let presets = chunktui::strategy::recursive::preset_names();
    let preset = presets[data[5] as usize % presets.len()];
    let text = String::from_utf8_lossy(&data[6..]);
    // Keep token runs quick: BPE over long random text is the slow part.
    if unit == Unit::Tokens && text.len() > 4096 {
        return;
    }
    let mut cfg = common::config(kind, unit, size, overlap);
    cfg.recursive.preset = preset.into();
    let checker = common::Checker::new(&text, unit);
    if let Err(e) = common::run_and_check(&checker, &cfg) {
        panic!("invariant broken: {e}\n  preset {preset}\n  text {text:?}");
    }
}

#[cfg(fuzzing)]
libfuzzer_sys::fuzz_target!(|data: &[u8]| check(data));

#[cfg(not(fuzzing))]
fn main() {
    let n = replay::replay(check);
    println!("replayed {n} input(s): all invariants hold");
}

#[cfg(not(fuzzing))]
mod replay;
