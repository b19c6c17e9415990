//! The hash of the built-in encodings' token tables: build.rs places every
//! token by it, and lookups at run time find them by it, so both compile
//! this one file.

/// Slots of a table are `1 << bits` (a power of two); a slot holds the
/// rank + 1 in its low [`RANK_BITS`] bits (0: empty) and [`TAG_BITS`] more
/// bits of the hash, so that a probe rarely reads a token's bytes in vain.
pub const RANK_BITS: u32 = 18;
pub const TAG_BITS: u32 = 32 - RANK_BITS;

/// Fx-style multiply-rotate over 8-byte words, the length mixed in first:
/// tokens are a few bytes long, so this is one or two multiplies.
pub fn token_hash(bytes: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h = (bytes.len() as u64).wrapping_mul(K);
    let mut words = bytes.chunks_exact(8);
    for word in &mut words {
        h = (h.rotate_left(5) ^ u64::from_le_bytes(word.try_into().expect("8 bytes"))).wrapping_mul(K);
    }
    let rest = words.remainder();
    if !rest.is_empty() {
        let mut word = [0u8; 8];
        word[..rest.len()].copy_from_slice(rest);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(K);
    }
    h
}

/// The first slot to probe (the hash's top bits, the best mixed) and the tag.
pub fn slot_and_tag(h: u64, bits: u32) -> (usize, u32) {
    ((h >> (64 - bits)) as usize, ((h >> (64 - bits - TAG_BITS)) as u32) & ((1 << TAG_BITS) - 1))
}
