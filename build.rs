//! Writes the built-in tiktoken encodings' tables into OUT_DIR, so that
//! src/bpe reads them in place from the binary (`include_bytes!`) instead
//! of building a hash map of 100k-200k tokens at every start (~130 ms for
//! cl100k, before the first byte of a document was read):
//!
//! - `{name}.bytes`: every ordinary token's bytes, by rank;
//! - `{name}.offsets`: where each starts in those bytes (u32 LE, one more
//!   than there are tokens);
//! - `{name}.slots`: an open-addressing table (linear probing) from the
//!   bytes' hash (src/bpe/hash.rs) to rank + 1 and a tag;
//! - `{name}.cross_index` / `{name}.cross`: for each pair of bytes, the
//!   tokens (rank, offset) in which that pair straddles a char boundary and
//!   either byte is not ASCII, by pair (CSR: 65,537 u32 LE starts, then
//!   (rank, offset, context, mask) u32 LE each, the context being the
//!   token's bytes around the pair): where none of them lies across a
//!   boundary of a piece, no merge can cross it (see src/bpe/split.rs);
//! - `classes.bmp` / `classes.astral`: the Unicode classes the encodings'
//!   pre-tokenizers test (letters, numbers, white space, and o200k's
//!   upper- and lower-case letter sets), from the same regex-syntax tables
//!   the regexes tiktoken runs read, so the hand-written pre-tokenizer
//!   classifies every char as they do.

#[path = "src/bpe/hash.rs"]
mod hash;

use std::path::Path;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=src/bpe/hash.rs");
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let out = Path::new(&out);
    let cl100k = tiktoken_rs::cl100k_base().expect("tiktoken-rs ships cl100k_base");
    let o200k = tiktoken_rs::o200k_base().expect("tiktoken-rs ships o200k_base");
    for (name, core) in [("cl100k_base", cl100k), ("o200k_base", o200k)] {
        write_table(out, name, &core);
    }
    write_classes(out);
}

fn write_table(out: &Path, name: &str, core: &tiktoken_rs::CoreBPE) {
    let specials = core.special_tokens();
    let mut tokens: Vec<Vec<u8>> = Vec::new();
    // Ordinary ranks run from 0 without a gap; special tokens follow them.
    for rank in 0u32.. {
        let Ok(bytes) = core.decode_bytes(&[rank]) else { break };
        if std::str::from_utf8(&bytes).is_ok_and(|s| specials.contains(s)) {
            break;
        }
        tokens.push(bytes);
    }
    assert!(tokens.len() < (1 << hash::RANK_BITS) - 1, "{name}: ranks must fit in a slot");
    let bits = (tokens.len() * 5 / 2).next_power_of_two().trailing_zeros();
    let mut slots = vec![0u32; 1 << bits];
    let (mut blob, mut offsets) = (Vec::new(), vec![0u32]);
    for (rank, bytes) in tokens.iter().enumerate() {
        blob.extend_from_slice(bytes);
        offsets.push(blob.len() as u32);
        let (mut slot, tag) = hash::slot_and_tag(hash::token_hash(bytes), bits);
        while slots[slot] != 0 {
            slot = (slot + 1) & (slots.len() - 1);
        }
        slots[slot] = tag << hash::RANK_BITS | (rank as u32 + 1);
    }
    write_crossings(out, name, &tokens);
    let le = |v: &[u32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
    std::fs::write(out.join(format!("{name}.bytes")), blob).expect("writes OUT_DIR");
    std::fs::write(out.join(format!("{name}.offsets")), le(&offsets)).expect("writes OUT_DIR");
    std::fs::write(out.join(format!("{name}.slots")), le(&slots)).expect("writes OUT_DIR");
}

fn write_crossings(out: &Path, name: &str, tokens: &[Vec<u8>]) {
    let mut by_pair: Vec<Vec<(u32, u32)>> = vec![Vec::new(); 1 << 16];
    for (rank, t) in tokens.iter().enumerate() {
        for j in 1..t.len() {
            let (a, b) = (t[j - 1], t[j]);
            // A char starts at j (b is no continuation byte), and one side is not ASCII.
            if !(0x80..0xC0).contains(&b) && (a >= 0x80 || b >= 0x80) {
                by_pair[usize::from(a) << 8 | usize::from(b)].push((rank as u32, j as u32));
            }
        }
    }
    let (mut index, mut entries) = (vec![0u32], Vec::new());
    for list in &by_pair {
        for &(rank, j) in list {
            let (context, mask) = pair_context(&tokens[rank as usize], j as usize);
            for field in [rank, j, context, mask] {
                entries.extend_from_slice(&field.to_le_bytes());
            }
        }
        index.push((entries.len() / 16) as u32);
    }
    let index: Vec<u8> = index.iter().flat_map(|x| x.to_le_bytes()).collect();
    std::fs::write(out.join(format!("{name}.cross_index")), index).expect("writes OUT_DIR");
    std::fs::write(out.join(format!("{name}.cross")), entries).expect("writes OUT_DIR");
}

/// The token's two bytes before the pair that ends at `j` and its two
/// after it (LE, in that order), and a mask of those it has: a crossing
/// check compares these with the text's first and reads the token itself
/// only when they agree (src/bpe/table.rs `crossed`).
fn pair_context(token: &[u8], j: usize) -> (u32, u32) {
    let (mut context, mut mask) = (0u32, 0u32);
    for (k, at) in [j.checked_sub(3), j.checked_sub(2), Some(j + 1), Some(j + 2)].into_iter().enumerate() {
        if let Some(&byte) = at.and_then(|at| token.get(at)) {
            context |= u32::from(byte) << (8 * k);
            mask |= 0xFF << (8 * k);
        }
    }
    (context, mask)
}

/// The class bits of src/bpe/classes.rs, in its order.
const CLASSES: [&str; 5] =
    [r"\p{L}", r"\p{N}", r"\s", r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]", r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]"];

fn write_classes(out: &Path) {
    let sets: Vec<Vec<(u32, u32)>> = CLASSES
        .iter()
        .map(|pattern| {
            let hir = regex_syntax::Parser::new().parse(pattern).expect("a valid class");
            match hir.kind() {
                regex_syntax::hir::HirKind::Class(regex_syntax::hir::Class::Unicode(class)) => {
                    class.ranges().iter().map(|r| (r.start() as u32, r.end() as u32)).collect()
                }
                other => panic!("{pattern} is not a Unicode class: {other:?}"),
            }
        })
        .collect();
    let bits_of = |c: u32| -> u8 {
        let mut bits = 0;
        for (i, set) in sets.iter().enumerate() {
            let at = set.partition_point(|&(_, end)| end < c);
            if set.get(at).is_some_and(|&(start, _)| start <= c) {
                bits |= 1 << i;
            }
        }
        bits
    };
    let bmp: Vec<u8> = (0..0x10000).map(bits_of).collect();
    // Above the BMP: runs of equal bits, as (first code point, bits) u32 pairs.
    let mut runs = Vec::new();
    let mut last = None;
    for c in 0x10000..=0x10FFFF {
        let bits = bits_of(c);
        if last != Some(bits) {
            runs.extend_from_slice(&c.to_le_bytes());
            runs.extend_from_slice(&u32::from(bits).to_le_bytes());
            last = Some(bits);
        }
    }
    std::fs::write(out.join("classes.bmp"), bmp).expect("writes OUT_DIR");
    std::fs::write(out.join("classes.astral"), runs).expect("writes OUT_DIR");
}
