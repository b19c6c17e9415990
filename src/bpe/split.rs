//! A long pre-token cut where byte-pair merging cannot cross, so that each
//! part merges on its own (a CJK clause is one pre-token of up to hundreds
//! of bytes, and merging it whole was most of the time of a Chinese text).
//!
//! Exact: every part a merge makes is a token, so a merge across a point
//! makes a token that lies across it in the text. Where none does, the pair
//! straddling the point is never a token, every merge happens on one side,
//! and each side merges as it would alone (the lowest rank of one side is
//! its lowest in the whole, the leftmost of equals too).

use super::table::Table;

/// Pieces shorter than this merge whole: one char at most.
const LONG: usize = 4;

/// Calls `each` with the parts of `piece`, in order: cut at the starts of
/// chars next to a non-ASCII byte that no token lies across.
pub fn parts<'p>(table: &Table, piece: &'p [u8], mut each: impl FnMut(&'p [u8])) {
    if piece.len() < LONG || piece.is_ascii() {
        return each(piece);
    }
    let mut start = 0;
    for at in 1..piece.len() {
        let (a, b) = (piece[at - 1], piece[at]);
        let char_start = !(0x80..0xC0).contains(&b);
        if char_start && (a >= 0x80 || b >= 0x80) && !table.crossed(piece, at) {
            each(&piece[start..at]);
            start = at;
        }
    }
    each(&piece[start..]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bpe::merge::merge;
    use crate::bpe::table::{CL100K, O200K};

    #[test]
    fn a_cjk_clause_is_cut_and_its_parts_merge_as_the_whole() {
        let clauses = [
            "此开卷第一回也作者自云因曾历过一番梦幻之后故将真事隐去",
            "，naïve中文mixed😀😀ünïcödé",
            "Ελληνικάкириллица",
        ];
        for table in [&CL100K, &O200K] {
            for clause in clauses {
                let mut parts_seen = Vec::new();
                parts(table, clause.as_bytes(), |p| parts_seen.push(p));
                assert_eq!(parts_seen.concat(), clause.as_bytes());
                let (mut whole, mut cut) = (Vec::new(), Vec::new());
                merge(table, clause.as_bytes(), &mut |n| whole.push(n));
                for p in &parts_seen {
                    merge(table, p, &mut |n| cut.push(n));
                }
                assert_eq!(cut, whole, "{clause}");
            }
            let mut n = 0;
            parts(table, clauses[0].as_bytes(), |_| n += 1);
            assert!(n > 5, "a Chinese clause is cut in many places: {n}");
        }
    }
}
