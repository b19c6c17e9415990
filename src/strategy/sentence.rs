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
use crate::strategy::pack::{fresh_around, FRESH_SEARCH as SEARCH};
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
    pack(text, index, cfg, &sentences_of(text), out);
}

/// The sentences of `text`. They depend on the text alone: kept per text,
/// so that a key press in the workbench re-packs them without reading the
/// text again (in the middle of a 9 MB file that reading was most of the cut).
fn sentences_of(text: &str) -> std::sync::Arc<Vec<Range<usize>>> {
    doc_cache::get_or_build(crate::segment::SENTENCES_KEY, text, || Ok(sentences(text)))
        .unwrap_or_else(|_| std::sync::Arc::new(sentences(text)))
}

/// Pack `sentences` (consecutive sentences of `text`, in order) into chunks.
fn pack(text: &str, index: &SizeIndex<'_>, cfg: &ChunkConfig, sentences: &[Range<usize>], out: &mut dyn RangeSink) {
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
    sentences.iter().cloned().for_each(&mut take);
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
    formats: &[],
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

    /// A sentence over the size closes the open chunk, is cut on its own
    /// and carries no sentence past it: the packing starts afresh after it.
    /// The stretch runs from the end of the nearest such sentence before the
    /// screen (or the text's start) to the end of the nearest one after it
    /// (or the text's end), looked for within 256 KB of the screen.
    fn region_around(&self, text: &str, cx: &Context<'_>, screen: Range<usize>) -> Option<Range<usize>> {
        let index = cx.size_index(text).ok()?;
        let all = sentences_of(text);
        let from = all.partition_point(|s| s.end + SEARCH <= screen.start);
        let to = all.partition_point(|s| s.start < screen.end.saturating_add(SEARCH));
        let oversize = |s: &Range<usize>| index.size(s.clone()) > cx.config.size;
        let (start, end) = ((from == 0).then_some(0), (to == all.len()).then_some(text.len()));
        fresh_around(&all[from..to], &screen, &oversize, start, end)
    }

    /// The sentences that start in `region`, packed as the whole cut packs
    /// them (with the whole text's sentences and size index).
    fn chunk_region(&self, text: &str, region: Range<usize>, cx: &Context<'_>) -> Result<Vec<Chunk>> {
        let index = cx.size_index(text)?;
        let all = sentences_of(text);
        let from = all.partition_point(|s| s.start < region.start);
        let to = all.partition_point(|s| s.start < region.end);
        let mut chunks = Vec::new();
        pack(text, &index, cx.config, &all[from..to], &mut EachRange(|r| chunks.push(sized(r, &index))));
        Ok(chunks)
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

    /// At every char of a text where sentences over the size come between
    /// short ones (with sentence overlap and a sentence limit), the stretch
    /// around a screen holds it, and its cut is the whole cut's chunks there.
    #[test]
    fn a_stretch_between_oversize_sentences_is_cut_as_the_whole_cut_cuts_it() {
        use crate::embedding::Control;
        let long = "This sentence runs on, and on, past the size, with clauses; and more of them, until it ends.";
        let text = format!("One. Two. {long} Three. Four. 五个字。六个字！ {long}\n\nSeven. Eight. {long} Nine.");
        let mut cfg = ChunkConfig { strategy: StrategyKind::Sentence, size: 30, overlap: 5, ..Default::default() };
        (cfg.sentence.max_sentences, cfg.sentence.overlap_sentences) = (3, 1);
        let sizer = Sizer::chars();
        let cx = Context {
            config: &cfg,
            sizer: &sizer,
            model: None,
            control: Control::none(),
            structure: None,
            index: None,
        };
        let whole = Sentences.chunk(&text, &cx).unwrap();
        let mut found = 0;
        for (at, _) in text.char_indices() {
            let screen = at..(at + 4).min(text.len());
            let Some(region) = Sentences.region_around(&text, &cx, screen.clone()) else { continue };
            found += 1;
            assert!(region.start <= screen.start && region.end >= screen.end, "{region:?} holds {screen:?}");
            let there: Vec<Chunk> = whole.iter().filter(|c| region.contains(&c.range.start)).cloned().collect();
            assert_eq!(Sentences.chunk_region(&text, region.clone(), &cx).unwrap(), there, "{region:?}");
        }
        assert!(found > text.len() / 2, "a stretch for most screens: {found}");
    }

    #[test]
    fn packs_chinese_by_size() {
        let t = "今天天气很好。我们去公园吧！你觉得怎么样？好的。";
        assert_eq!(run(t, 14, 0, 0), ["今天天气很好。我们去公园吧！", "你觉得怎么样？好的。"]);
    }
}
