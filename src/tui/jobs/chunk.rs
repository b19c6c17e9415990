//! The chunker's jobs: cut a pane's text (or re-cut it from a cached
//! analysis), then hand the chunks to the token counter. A strategy that
//! cuts in text order reports the chunks through the screen as soon as it
//! has them, then goes on with the rest: the user sees the new cut where
//! they look long before a large document is done.

use crate::chunk::Chunk;
use crate::chunker::Chunker;
use crate::config::ChunkConfig;
use crate::embedding::Control;
use crate::extract::Structure;
use crate::stats::Stats;
use crate::tui::features::embedder;
use crate::tui::features::semantic::SemanticAnalysis;
use crate::tui::msg::Msg;
use crate::tui::threads::count::CountReq;
use crate::tui::threads::{Reply, Worker};
use std::sync::Arc;

pub struct ChunkReq {
    pub pane: usize,
    pub rev: u64,
    pub config: ChunkConfig,
    pub text: Arc<str>,
    pub structure: Option<Arc<Structure>>,
    /// Re-cut from this analysis (and re-size it first when true).
    pub analysis: Option<(Arc<SemanticAnalysis>, bool)>,
    /// The bytes on screen, reported first when the strategy streams.
    pub first: Option<std::ops::Range<usize>>,
    /// The file the text is of: edits that name a file apply to theirs.
    pub path: Option<std::path::PathBuf>,
}

/// Chunk one request: what the chunker thread does (the bench calls it too).
pub fn chunk_now(config: &ChunkConfig, text: &str) -> Result<(Vec<Chunk>, Stats), String> {
    chunk_structured_now(config, text, None)
}

/// [`chunk_now`] of extracted text (HTML, PDF) with its structure.
pub fn chunk_structured_now(
    config: &ChunkConfig,
    text: &str,
    structure: Option<&Structure>,
) -> Result<(Vec<Chunk>, Stats), String> {
    chunk_with(config, text, structure, Control::none())
}

fn chunk_with(
    config: &ChunkConfig,
    text: &str,
    structure: Option<&Structure>,
    ctl: Control<'_>,
) -> Result<(Vec<Chunk>, Stats), String> {
    chunk_streaming(config, text, structure, None, ctl, None)
}

/// Bytes of text before the screen that cutting them first costs next to
/// nothing: closer to the top, the chunks through the screen come from the
/// pass itself.
const NEAR_THE_TOP: usize = 64 * 1024;

/// The chunks on screen (`first.0`), handed to `part` before the whole
/// result: those of the stretch around the screen that the strategy cuts on
/// its own (`false`: not the result's first chunks), else those through the
/// screen's end of a strategy that streams, once the next chunk starts past
/// it (`true`).
type FirstPart<'a> = (std::ops::Range<usize>, &'a mut dyn FnMut(&[Chunk], bool));

/// [`chunk_with`], reporting the chunks on screen to `first` early: cut
/// alone where the strategy treats the stretch around the screen on its
/// own, else from the same pass when the strategy cuts in text order. Either
/// way they are exactly the result's chunks there.
fn chunk_streaming(
    config: &ChunkConfig,
    text: &str,
    structure: Option<&Structure>,
    path: Option<&std::path::Path>,
    ctl: Control<'_>,
    first: Option<FirstPart<'_>>,
) -> Result<(Vec<Chunk>, Stats), String> {
    let chunker = Chunker::new(config).map_err(|e| e.to_string())?;
    let mut first = first;
    // Near the top the text before the screen costs nothing to cut, unless
    // hand-made boundaries make the whole list the only stream (their
    // stretches around the screen still come first).
    let deep = first.as_ref().is_some_and(|(screen, _)| screen.start >= NEAR_THE_TOP || !config.edits.is_empty());
    if let Some((screen, part)) = first.as_mut() {
        // The middle of a long document without the text before it.
        let mut around = match deep.then(|| chunker.region_around(text, structure, screen.clone())).flatten() {
            Some(region) => Some(chunker.chunk_region(text, region, ctl).map_err(|e| e.to_string())?),
            // Else from where the cut starts afresh before the screen, when near.
            None if deep => {
                chunker.chunks_from_fresh_start(text, structure, screen.clone(), ctl).map_err(|e| e.to_string())?
            }
            None => None,
        };
        if let Some(around) = around.as_mut() {
            if let Some(s) = structure {
                s.annotate(around);
            }
            part(around, false);
            first = None;
        }
    }
    // Model and LLM strategies never stream (`Strategy::streams` is false for them).
    let chunks = match first {
        // (`holds_no_list` holds for every strategy that streams, and for LangChain's splitters.)
        Some((screen, part)) if chunker.holds_no_list() => {
            let mut chunks = Vec::new();
            // The chunks on screen from the stream, unless the pass handed them over before.
            let sent = std::cell::Cell::new(false);
            let part = std::cell::RefCell::new(part);
            // A strategy that only mostly cuts in text order (LangChain's
            // placement with overlap, or in words or tokens) shows its first
            // chunks early only while every chunk so far came after the one
            // before: then the screen's chunks are all there, unless a later
            // search fails and lands one back on screen, which the whole
            // result, right behind, puts right.
            let mut in_order = true;
            let mut last_start = 0;
            let mut emit = |c: Chunk| {
                in_order &= c.range.start >= last_start;
                last_start = c.range.start;
                if !sent.get() && in_order && c.range.start >= screen.end {
                    sent.set(true);
                    (part.borrow_mut())(&chunks, true);
                }
                chunks.push(c);
            };
            let mut early = |around: Vec<Chunk>| {
                if !sent.replace(true) {
                    (part.borrow_mut())(&around, false);
                }
            };
            if deep && chunker.hands_screen_early() {
                chunker.chunk_each_around_in(text, structure, ctl, screen.clone(), &mut early, &mut emit)
            } else {
                chunker.chunk_each_in(text, structure, None, ctl, &mut emit)
            }
            .map_err(|e| e.to_string())?;
            // A cut in text order has nothing slow left after the pass; one
            // that may not be has its uncovered text to read for the statistics.
            if !sent.get() && !chunker.streams() {
                show_through_screen(&chunks, &screen, *part.borrow_mut());
            }
            chunks
        }
        Some((screen, part)) => {
            let chunks = chunker.chunk_structured_at(text, structure, path, ctl).map_err(|e| e.to_string())?;
            show_through_screen(&chunks, &screen, part);
            chunks
        }
        None => chunker.chunk_structured_at(text, structure, path, ctl).map_err(|e| e.to_string())?,
    };
    let limit = config.strategy.promises_size_limit().then_some(config.size);
    let stats = Stats::compute(&chunks, text, limit);
    Ok((chunks, stats))
}

/// Hand `part` the whole result's chunks through the screen before the
/// statistics, which read the text no chunk covers: LangChain's placement
/// can leave megabytes of it.
fn show_through_screen(chunks: &[Chunk], screen: &std::ops::Range<usize>, part: &mut dyn FnMut(&[Chunk], bool)) {
    let through_screen = if chunks.is_sorted_by_key(|c| c.range.start) {
        chunks.partition_point(|c| c.range.start < screen.end)
    } else {
        chunks.len()
    };
    part(&chunks[..through_screen], true);
}

/// One chunk job; the chunks it delivers are counted next.
pub fn run(req: ChunkReq, reply: &Reply, counter: &Worker<CountReq>) {
    let result = match &req.analysis {
        Some((a, resize)) => embedder::recut_now(&req.config, &req.text, a, *resize),
        None => {
            // LLM strategies report requests answered; the others nothing.
            let progress = |done: usize, total: usize| {
                if total > 0 {
                    reply.send(Msg::LlmProgress { pane: req.pane, rev: req.rev, done, total });
                }
            };
            let llm = req.config.strategy.needs_llm() || !req.config.llm.enrich.is_empty();
            let none = |_: usize, _: usize| {};
            let ctl = Control::new(if llm { &progress } else { &none }, Some(reply.cancel_flag()));
            let (pane, rev) = (req.pane, req.rev);
            let mut part = |chunks: &[Chunk], from_start: bool| {
                reply.send(Msg::ChunkedPart { pane, rev, chunks: Arc::new(chunks.to_vec()), from_start });
            };
            let first = req.first.clone().map(|screen| (screen, &mut part as &mut dyn FnMut(&[Chunk], bool)));
            // The text is looked up in the document cache by each index a
            // cut uses (sizes, tokens, gram index...): hashed once per job.
            crate::size::doc_cache::pinned(&req.text, || {
                chunk_streaming(&req.config, &req.text, req.structure.as_deref(), req.path.as_deref(), ctl, first)
            })
        }
    };
    let result = result.map(|(chunks, stats)| (Arc::new(chunks), stats));
    let chunks = result.as_ref().ok().map(|(c, _)| c.clone());
    // Where the hand-made boundaries landed (the margin's marks, the edits
    // panel): one pass over the text here, before the chunks they mark.
    if chunks.is_some() {
        if let Some(msg) =
            crate::tui::features::edits::resolved_msg(req.pane, req.rev, &req.config, &req.text, req.path.as_deref())
        {
            reply.send(msg);
        }
    }
    // Counted only once delivered, so the counts always arrive after the chunks.
    if reply.send(Msg::Chunked { pane: req.pane, rev: req.rev, result }) {
        if let Some(chunks) = chunks {
            counter.submit(req.pane as u64, CountReq::new(req.pane, req.rev, chunks, req.text, req.config.tokenizer));
        }
    }
}
