//! Property test of the `fast` strategy's byte cutter over raw bytes: text
//! built from ASCII, CJK, emoji, delimiters and stray invalid bytes, any
//! delimiter set (single-byte, CJK, none), a pattern or not, prefix or not,
//! budgets from 1 byte. Every cut tiles the bytes, never ends before a
//! continuation byte, keeps to the budget but for one character longer than
//! it, and on valid UTF-8 is exactly the definition's (a slow reference)
//! and the library's through every door (`chunk`, `offsets_into`,
//! `offsets_of_bytes_into`). The fuzz target fuzz/fuzz_targets/fast_bytes.rs
//! checks the same on whatever libFuzzer finds.

#[path = "common/fast_check.rs"]
mod fast_check;

use chunktui::config::FastOptions;
use proptest::prelude::*;

fn piece() -> impl Strategy<Value = Vec<u8>> {
    let fixed: Vec<&'static [u8]> = vec![
        b"a",
        b"word ",
        b" ",
        b".",
        b"?",
        b"!",
        b"\n",
        b"\r\n",
        b"\n\n",
        b"e.g. ",
        "。".as_bytes(),
        "！".as_bytes(),
        "？".as_bytes(),
        "中文".as_bytes(),
        "，".as_bytes(),
        "é".as_bytes(),
        "🦀".as_bytes(),
        "👩\u{200d}👧".as_bytes(),
        b"## ",
        // Invalid UTF-8: a lone continuation byte, a cut-off lead, an overlong form.
        b"\x80",
        b"\xe4\xb8",
        b"\xc0\xaf",
        b"\xff",
    ];
    proptest::sample::select(fixed).prop_map(<[u8]>::to_vec)
}

fn options() -> impl Strategy<Value = FastOptions> {
    let delimiters = proptest::sample::select(vec!["\n.?", "\n.?!。！？", "。", "", ".", "!？\n", "中"]);
    let patterns = proptest::sample::select(vec![None, None, Some("\n\n"), Some(". "), Some("。！"), Some("a")]);
    (delimiters, patterns, any::<bool>()).prop_map(|(d, p, prefix)| FastOptions {
        delimiters: d.to_string(),
        pattern: p.map(str::to_string),
        prefix,
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 768, ..ProptestConfig::default() })]

    #[test]
    fn every_cut_keeps_the_invariants(
        pieces in proptest::collection::vec(piece(), 0..80),
        size in prop_oneof![1usize..=4, 1usize..=24, 1usize..=200],
        o in options(),
    ) {
        let bytes = pieces.concat();
        if let Err(e) = fast_check::check(&bytes, size, &o) {
            return Err(TestCaseError::fail(format!("{e}\n  size {size} / {o:?}\n  bytes {:?}", String::from_utf8_lossy(&bytes))));
        }
    }
}

#[test]
fn valid_text_only_with_cjk_delimiters_matches_the_reference() {
    // A long mixed document, every budget from 1 to 64 bytes.
    let text = "第一章。她说：“你好！”Then she left. Why? 🦀🦀\n\n".repeat(40);
    for size in 1..=64 {
        for prefix in [false, true] {
            let o = FastOptions { prefix, ..FastOptions::default() };
            fast_check::check(text.as_bytes(), size, &o).unwrap_or_else(|e| panic!("size {size}: {e}"));
        }
    }
}
