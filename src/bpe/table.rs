//! A built-in encoding's ranks, read in place from the tables build.rs
//! wrote into the binary: nothing is built at start, a lookup is a hash,
//! a probe or two and one compare of the token's bytes.

use super::hash::{slot_and_tag, token_hash, RANK_BITS};

pub struct Table {
    /// Every ordinary token's bytes, by rank.
    bytes: &'static [u8],
    /// Where each token starts in `bytes` (u32 LE), and where the last ends.
    offsets: &'static [u8],
    /// Open addressing: rank + 1 in the low bits (0: empty), a tag above.
    slots: &'static [u8],
    bits: u32,
    /// For each byte pair, where its tokens that straddle a char boundary
    /// start in `cross` (u32 LE, 65,537 of them; build.rs says which).
    cross_index: &'static [u8],
    /// (rank, offset of the pair's second byte in the token, the token's
    /// two bytes before the pair and two after it, a mask of those it has),
    /// u32 LE each.
    cross: &'static [u8],
}

macro_rules! table {
    ($name:literal) => {
        Table::new(
            include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".bytes")),
            include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".offsets")),
            include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".slots")),
            include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".cross_index")),
            include_bytes!(concat!(env!("OUT_DIR"), "/", $name, ".cross")),
        )
    };
}

pub static CL100K: Table = table!("cl100k_base");
pub static O200K: Table = table!("o200k_base");

fn u32_at(bytes: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().expect("4 bytes"))
}

impl Table {
    const fn new(
        bytes: &'static [u8],
        offsets: &'static [u8],
        slots: &'static [u8],
        cross_index: &'static [u8],
        cross: &'static [u8],
    ) -> Table {
        Table { bytes, offsets, slots, bits: (slots.len() / 4).trailing_zeros(), cross_index, cross }
    }

    /// Whether a token lies across `at` in `piece`, where a char starts at
    /// `at` and the bytes on either side of it are not both ASCII (else the
    /// answer may be a wrong yes, never a wrong no).
    #[inline]
    pub fn crossed(&self, piece: &[u8], at: usize) -> bool {
        let pair = usize::from(piece[at - 1]) << 8 | usize::from(piece[at]);
        let (from, to) = (u32_at(self.cross_index, pair) as usize, u32_at(self.cross_index, pair + 1) as usize);
        if from == to {
            return false;
        }
        // The text's two bytes before the pair and two after it, as the
        // tokens' contexts hold theirs: most candidates differ there, and
        // are ruled out without reading the token.
        let byte = |i: Option<usize>| i.and_then(|i| piece.get(i)).map_or(0, |&b| u32::from(b));
        let context = byte(at.checked_sub(3))
            | byte(at.checked_sub(2)) << 8
            | byte(Some(at + 1)) << 16
            | byte(Some(at + 2)) << 24;
        (from..to).any(|e| {
            let (rank, offset) = (u32_at(self.cross, 4 * e), u32_at(self.cross, 4 * e + 1) as usize);
            let (theirs, mask) = (u32_at(self.cross, 4 * e + 2), u32_at(self.cross, 4 * e + 3));
            if (context ^ theirs) & mask != 0 || at < offset {
                return false;
            }
            let token = self.token(rank);
            piece.get(at - offset..at - offset + token.len()).is_some_and(|window| window == token)
        })
    }

    /// How many ordinary tokens there are (ranks 0 to this, exclusive).
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.offsets.len() / 4 - 1
    }

    /// The bytes of the token of `rank`.
    pub fn token(&self, rank: u32) -> &'static [u8] {
        let bytes: &'static [u8] = self.bytes;
        &bytes[u32_at(self.offsets, rank as usize) as usize..u32_at(self.offsets, rank as usize + 1) as usize]
    }

    /// The rank of the token whose bytes are `piece`, if any.
    #[inline]
    pub fn rank(&self, piece: &[u8]) -> Option<u32> {
        let (mut slot, tag) = slot_and_tag(token_hash(piece), self.bits);
        let mask = (1 << self.bits) - 1;
        loop {
            let entry = u32_at(self.slots, slot);
            if entry == 0 {
                return None;
            }
            if entry >> RANK_BITS == tag {
                let rank = (entry & ((1 << RANK_BITS) - 1)) - 1;
                if self.token(rank) == piece {
                    return Some(rank);
                }
            }
            slot = (slot + 1) & mask;
        }
    }
}
