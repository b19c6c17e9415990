//! Fuzz target: arbitrary bytes as a free-text config value (model path,
//! tokenizer path, separators, separator, language) in every strategy's
//! exported snippet for every library. What must hold: the snippet's code
//! (lines that are not comments, string literals blanked) is the code of the
//! same config with a plain value, so no value adds a statement
//! (tests/common/snippet_code.rs; tests/export_injection.rs runs the same
//! check as a property test and through Python's parser).
//!
//! Input layout: byte 0 picks the strategy, byte 1 the field; the rest is
//! the value (invalid UTF-8 replaced with U+FFFD).
//!
//! Built plainly (`cargo run --bin export_snippet -- DIR_OR_FILE...`) it
//! replays files.
#![cfg_attr(fuzzing, no_main)]

#[path = "../../tests/common/snippet_code.rs"]
mod snippet_code;

use chunktui::cli::export_splitter::{snippet, Library};
use chunktui::config::StrategyKind;
use snippet_code::{config, plain, shape_of, FIELDS};

pub fn check(data: &[u8]) {
    let [kind, field, value @ ..] = data else { return };
    let kind = StrategyKind::ALL[*kind as usize % StrategyKind::ALL.len()];
    let field = FIELDS[*field as usize % FIELDS.len()];
    let value = String::from_utf8_lossy(value);
    for lib in Library::ALL {
        let hostile = snippet(&config(kind, field, &value), lib);
        let calm = snippet(&config(kind, field, &plain(&value)), lib);
        assert_eq!(
            shape_of(&hostile, lib, field),
            shape_of(&calm, lib, field),
            "{kind} -> {} with {field:?} = {value:?} runs other code:\n{hostile}",
            lib.name()
        );
    }
}

#[cfg(fuzzing)]
libfuzzer_sys::fuzz_target!(|data: &[u8]| check(data));

#[cfg(not(fuzzing))]
fn main() {
    let n = replay::replay(check);
    println!("replayed {n} input(s): no value added code to a snippet");
}

#[cfg(not(fuzzing))]
mod replay;
