//! Sentence packing: split into sentences (CJK-aware, see [`crate::segment`]),
//! then pack whole sentences up to `size` units and, optionally, at most
//! `max_sentences` per chunk; the next chunk repeats the last
//! `overlap_sentences` sentences when they fit. A single sentence over `size`
//! is cut with the clause/word separators of the recursive strategy.

use super::{ranges_to_chunks, sized, Context, OptionKnob, OverlapRule, SizeRule, Spec, Strategy};
use crate::chunk::Chunk;
use crate::config::ChunkConfig;
use crate::error::Result;
use crate::segment::{push_trimmed, sentences, EachRange, RangeSink};
use crate::size::doc_cache;
use crate::size::SizeIndex;
use crate::strategy::recursive::{self, Sep, Separators};
use crate::strategy::Window;
use std::ops::Range;

pub fn chunk(text: &str, index: &SizeIndex<'_>, cfg: &ChunkConfig) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    chunk_into(text, index, cfg, &mut out);
    out
}

/// [`chunk`], each range put in `out` as it is cut.
pub fn chunk_into(text: &str, index: &SizeIndex<'_>, cfg: &ChunkConfig, out: &mut dyn RangeSink) {
    let max_n = if cfg.sentence.max_sentences == 0 { usize::MAX } else { cfg.sentence.max_sentences };
    let keep = cfg.sentence.overlap_sentences.min(max_n.saturating_sub(1));
    let fallback = Separators(vec![
        Sep::Literals(["；", "; ", "：", ": "].map(String::from).to_vec()),
        Sep::Literals(["，", "、", ", "].map(String::from).to_vec()),
        Sep::Whitespace,
        Sep::Grapheme,
    ]);
    let fits = |a: &Range<usize>, b: &Range<usize>| index.size(a.start..b.end) <= cfg.size;
    // The sentences of the open chunk, as they are read: never all of them.
    let mut open: Window<Range<usize>> = Window::new();
    let mut take = |sent: Range<usize>| {
        if index.size(sent.clone()) > cfg.size {
            if let (Some(f), Some(l)) = (open.as_slice().first(), open.as_slice().last()) {
                push_trimmed(text, f.start..l.end, out);
            }
            open.clear();
            recursive::chunk_into(text, index, &fallback, cfg.size, cfg.overlap, sent, out);
            return;
        }
        let o = open.as_slice();
        let Some(first) = o.first() else {
            open.push(sent);
            return;
        };
        if o.len() < max_n && fits(first, &sent) {
            open.push(sent);
            return;
        }
        out.put(first.start..o[o.len() - 1].end);
        // Carry up to `keep` trailing sentences, as many as still fit with this one.
        let mut g = o.len().saturating_sub(keep).max(1);
        while g < o.len() && (!fits(&o[g], &sent) || o.len() - g + 1 > max_n) {
            g += 1;
        }
        open.drop_front(g);
        open.push(sent);
    };
    // The sentences depend on the text alone: kept per text, so that a key
    // press in the workbench re-packs them without reading the text again
    // (in the middle of a 9 MB file that reading was most of the cut).
    let all = doc_cache::get_or_build(crate::segment::SENTENCES_KEY, text, || Ok(sentences(text)))
        .unwrap_or_else(|_| std::sync::Arc::new(sentences(text)));
    all.iter().cloned().for_each(&mut take);
    if let (Some(f), Some(l)) = (open.as_slice().first(), open.as_slice().last()) {
        out.put(f.start..l.end);
    }
}

pub const SPEC: Spec = Spec {
    name: "sentence",
    help: "whole sentences (CJK-aware: 。！？ end them too) packed up to --size, repeating --overlap-sentences",
    needs_model: false,
    needs_llm: false,
    size: SizeRule::Limit,
    overlap: OverlapRule::Sentences,
    has_threshold: false,
    forces_unit: None,
    options: &["--max-sentences", "--overlap-sentences"],
    option: Some(OptionKnob { show: show_option, next: next_overlap }),
    recut: None,
    build: |_| Ok(Box::new(Sentences)),
};

struct Sentences;

impl Strategy for Sentences {
    fn chunk(&self, text: &str, cx: &Context<'_>) -> Result<Vec<Chunk>> {
        let index = cx.sizer.index(text)?;
        Ok(ranges_to_chunks(chunk(text, &index, cx.config), &index))
    }

    fn streams(&self) -> bool {
        true
    }

    fn chunk_each(&self, text: &str, cx: &Context<'_>, emit: &mut dyn FnMut(Chunk)) -> Result<()> {
        let index = cx.sizer.index(text)?;
        chunk_into(text, &index, cx.config, &mut EachRange(|r| emit(sized(r, &index))));
        Ok(())
    }
}

fn show_option(c: &ChunkConfig) -> String {
    format!("ovl {} sent · max {}", c.sentence.overlap_sentences, c.sentence.max_sentences)
}

/// Sentences repeated: 0 to 3, and below `max_sentences` when there is one
/// (validate refuses more).
fn next_overlap(c: &mut ChunkConfig) -> String {
    let choices = match c.sentence.max_sentences {
        0 => 4,
        max => max.min(4),
    };
    c.sentence.overlap_sentences = (c.sentence.overlap_sentences + 1) % choices;
    format!("sentence overlap_sentences {}", c.sentence.overlap_sentences)
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
