//! Fuzz target: arbitrary bytes as an HTML file (lossy UTF-8), through the
//! path `chunktui chunk page.html` takes: the nesting check, extraction,
//! the `html` strategy. What must hold:
//!
//! - nothing panics and nothing recurses by depth (run it with a small
//!   stack, e.g. `RUST_MIN_STACK=262144`): a refusal is an `Err` with a message;
//! - every block of the structure is a non-empty range of the text, in
//!   order, and every chunk is in bounds and on char boundaries.
//!
//! Built plainly (`cargo run --bin html_extract -- DIR_OR_FILE...`) it
//! replays files, e.g. fuzz/seeds-html/.
#![cfg_attr(fuzzing, no_main)]

use chunktui::config::{ChunkConfig, StrategyKind};
use chunktui::{Chunker, Document};

pub fn check(data: &[u8]) {
    let html = String::from_utf8_lossy(data).into_owned();
    // The walk itself, whatever the depth (the check below may refuse it).
    let ex = chunktui::extract::html::extract(&html);
    let mut end = 0;
    for b in &ex.structure.blocks {
        assert!(b.range.start >= end && b.range.start < b.range.end && b.range.end <= ex.text.len(), "{b:?}");
        assert!(ex.text.is_char_boundary(b.range.start) && ex.text.is_char_boundary(b.range.end));
        end = b.range.end;
    }
    let doc = match Document::from_named_bytes(html.into_bytes(), "fuzz.html", true) {
        Ok(doc) => doc,
        Err(e) => {
            assert!(!e.to_string().trim().is_empty(), "empty error");
            return;
        }
    };
    let mut cfg = ChunkConfig::default();
    cfg.strategy = StrategyKind::Html;
    cfg.size = 64;
    cfg.overlap = 0;
    let chunks = Chunker::new(&cfg).expect("html chunker").chunk_document(&doc).expect("chunks");
    for c in chunks {
        assert!(c.range.end <= doc.text.len() && doc.text.is_char_boundary(c.range.start));
        assert!(doc.text.is_char_boundary(c.range.end));
    }
}

#[cfg(fuzzing)]
libfuzzer_sys::fuzz_target!(|data: &[u8]| check(data));

#[cfg(not(fuzzing))]
fn main() {
    let n = replay::replay(check);
    println!("replayed {n} input(s): every page extracted and chunked without a panic");
}

#[cfg(not(fuzzing))]
mod replay;
