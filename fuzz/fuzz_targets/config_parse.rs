//! Fuzz target: arbitrary bytes as a config file (TOML, or JSON when the
//! first byte is odd), through the same path `chunktui chunk --config` takes:
//! parse, validate, build the chunker, chunk a short mixed English/Chinese
//! text. What must hold:
//!
//! - nothing panics, whatever the file says (a refusal is an `Err`);
//! - a config that validates survives a round trip: written as TOML and as
//!   JSON, read back, it is the same config (an exported config reproduces
//!   its chunks only if this holds);
//! - a valid config of a non-model strategy either builds a chunker whose
//!   chunks are in bounds and on char boundaries, or is refused with a
//!   message (never an empty one).
//!
//! Model strategies stop after validation: this build has no model layer.
//! Built plainly (`cargo run --bin config_parse -- DIR_OR_FILE...`) it
//! replays files, e.g. fuzz/seeds-config/.
#![cfg_attr(fuzzing, no_main)]

use chunktui::config::ChunkConfig;
use chunktui::Chunker;

/// English and Chinese prose, a heading and a code fence: enough for every
/// separator preset and the sentence splitter to find something to cut.
const TEXT: &str = "# Title\n\nFirst sentence here. Second one, longer than the first!\n\n\
    ## 第二节\n\n中文句子在这里。还有一句！最后一句？\n\n```rust\nfn main() {}\n```\n";

pub fn check(data: &[u8]) {
    let Some((&mode, body)) = data.split_first() else { return };
    let json = mode & 1 == 1;
    let text = String::from_utf8_lossy(body);
    let Ok(config) = ChunkConfig::parse(&text, json) else { return };
    if config.validate().is_err() {
        return;
    }
    round_trip(&config);
    // Model and LLM strategies need a model or a server: not fuzzed here.
    if !config.strategy.is_plain() {
        return;
    }
    let chunker = match Chunker::new(&config) {
        Ok(c) => c,
        Err(e) => {
            assert!(!e.to_string().trim().is_empty(), "empty error building {config:?}");
            return;
        }
    };
    match chunker.chunk(TEXT) {
        Ok(chunks) => {
            for c in &chunks {
                let r = &c.range;
                assert!(
                    r.start <= r.end
                        && r.end <= TEXT.len()
                        && TEXT.is_char_boundary(r.start)
                        && TEXT.is_char_boundary(r.end),
                    "chunk range {r:?} not a slice of the text under {config:?}"
                );
            }
        }
        Err(e) => assert!(!e.to_string().trim().is_empty(), "empty error chunking under {config:?}"),
    }
}

fn round_trip(config: &ChunkConfig) {
    let toml = config.to_toml();
    let back = ChunkConfig::parse(&toml, false).unwrap_or_else(|e| panic!("own TOML unreadable: {e}\n{toml}"));
    assert_eq!(&back, config, "TOML round trip changed the config:\n{toml}");
    let json = config.to_json();
    let back = ChunkConfig::parse(&json, true).unwrap_or_else(|e| panic!("own JSON unreadable: {e}\n{json}"));
    assert_eq!(&back, config, "JSON round trip changed the config:\n{json}");
}

#[cfg(fuzzing)]
libfuzzer_sys::fuzz_target!(|data: &[u8]| check(data));

#[cfg(not(fuzzing))]
fn main() {
    let n = replay::replay(check);
    println!("replayed {n} input(s): every config parsed, validated and round-tripped without a panic");
}

#[cfg(not(fuzzing))]
mod replay;
