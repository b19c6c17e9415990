//! Sentence packing: split into sentences (CJK-aware, see [`crate::segment`]),
//! then pack whole sentences up to `size` units and, optionally, at most
//! `max_sentences` per chunk; the next chunk repeats the last
//! `overlap_sentences` sentences when they fit. A single sentence over `size`
//! is cut with the clause/word separators of the recursive strategy.

use crate::config::ChunkConfig;
use crate::segment::{push_trimmed, sentences};
use crate::size::SizeIndex;
use crate::strategy::recursive::{self, Sep, Separators};
use std::ops::Range;

pub fn chunk(text: &str, index: &SizeIndex, cfg: &ChunkConfig) -> Vec<Range<usize>> {
    let sents = sentences(text);
    let max_n = if cfg.sentence.max_sentences == 0 { usize::MAX } else { cfg.sentence.max_sentences };
    let keep = cfg.sentence.overlap_sentences.min(max_n.saturating_sub(1));
    let fallback = Separators(vec![
        Sep::Literals(["；", "; ", "：", ": "].map(String::from).to_vec()),
        Sep::Literals(["，", "、", ", "].map(String::from).to_vec()),
        Sep::Whitespace,
        Sep::Grapheme,
    ]);
    let fits = |a: usize, b: usize| index.size(sents[a].start..sents[b].end) <= cfg.size;
    let mut out = Vec::new();
    let mut first: Option<usize> = None;
    for j in 0..sents.len() {
        if index.size(sents[j].clone()) > cfg.size {
            if let Some(f) = first.take() {
                push_trimmed(text, sents[f].start..sents[j - 1].end, &mut out);
            }
            out.extend(recursive::chunk(text, index, &fallback, cfg.size, cfg.overlap, sents[j].clone()));
            continue;
        }
        let Some(f) = first else {
            first = Some(j);
            continue;
        };
        if j - f < max_n && fits(f, j) {
            continue;
        }
        out.push(sents[f].start..sents[j - 1].end);
        // Carry up to `keep` trailing sentences, as many as still fit with sentence j.
        let mut g = j.saturating_sub(keep).max(f + 1);
        while g < j && (!fits(g, j) || j - g + 1 > max_n) {
            g += 1;
        }
        first = Some(g);
    }
    if let Some(f) = first {
        out.push(sents[f].start..sents[sents.len() - 1].end);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::StrategyKind;
    use crate::size::Sizer;

    fn run(text: &str, size: usize, max: usize, keep: usize) -> Vec<&str> {
        let mut cfg = ChunkConfig { strategy: StrategyKind::Sentence, size, overlap: 0, ..Default::default() };
        cfg.sentence.max_sentences = max;
        cfg.sentence.overlap_sentences = keep;
        let idx = Sizer::chars().index(text).unwrap();
        chunk(text, &idx, &cfg).into_iter().map(|r| &text[r]).collect()
    }

    #[test]
    fn packs_by_count_with_sentence_overlap() {
        let t = "One. Two. Three. Four. Five.";
        assert_eq!(run(t, 100, 2, 1), ["One. Two.", "Two. Three.", "Three. Four.", "Four. Five."]);
        assert_eq!(run(t, 100, 2, 0), ["One. Two.", "Three. Four.", "Five."]);
    }

    #[test]
    fn packs_chinese_by_size() {
        let t = "今天天气很好。我们去公园吧！你觉得怎么样？好的。";
        assert_eq!(run(t, 14, 0, 0), ["今天天气很好。我们去公园吧！", "你觉得怎么样？好的。"]);
    }
}
