//! Fuzz target: arbitrary bytes as a PDF (`%PDF-1.4` is put in front when
//! they do not start like one), through the path `chunktui chunk file.pdf`
//! takes: the stream and XObject checks, lopdf, pdf-extract. What must hold:
//!
//! - nothing panics, overflows the stack or runs away with memory: a file
//!   that cannot be read is an `Err` with a one-line message;
//! - a file that reads gives text whose pages are in-bounds ranges, in order.
//!
//! Run it with a small document limit (`CHUNKTUI_FUZZ_MB`, default 16) so
//! bombs trip it quickly. Built plainly (`cargo run --bin pdf_extract --
//! DIR_OR_FILE...`) it replays files, e.g. fuzz/seeds-pdf/.
#![cfg_attr(fuzzing, no_main)]

use chunktui::Document;

pub fn check(data: &[u8]) {
    let mb = std::env::var("CHUNKTUI_FUZZ_MB").ok().and_then(|v| v.parse().ok()).unwrap_or(16);
    chunktui::input::set_document_limit_mb(mb).expect("limit");
    let mut bytes = data.to_vec();
    if !chunktui::extract::pdf::is_pdf(&bytes) {
        bytes.splice(0..0, b"%PDF-1.4\n".iter().copied());
    }
    match Document::from_named_bytes(bytes, "fuzz.pdf", false) {
        Ok(doc) => {
            let pages = &doc.structure.as_ref().expect("a PDF has a structure").pages;
            let mut end = 0;
            for p in pages {
                assert!(p.start >= end && p.end <= doc.text.len(), "{p:?}");
                end = p.end;
            }
        }
        Err(e) => {
            let msg = e.to_string();
            assert!(!msg.trim().is_empty() && !msg.contains('\n'), "not one line: {msg:?}");
        }
    }
}

#[cfg(fuzzing)]
libfuzzer_sys::fuzz_target!(|data: &[u8]| check(data));

#[cfg(not(fuzzing))]
fn main() {
    let n = replay::replay(check);
    println!("replayed {n} input(s): every PDF read or refused in one line without a panic");
}

#[cfg(not(fuzzing))]
mod replay;
